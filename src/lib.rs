//! specula: a MuJoCo-compatible physics engine whose collision stage has speculative contacts,
//! so that bodies that move fast do not tunnel through thin parts.
//!
//! Start from [`Scene`]: an MJCF file compiled by MuJoCo C 4.0.0 and by specula's own compiler.
//! [`Scene::run`] steps it on a collision [`Route`] (MuJoCo's own collision, or specula's Rust
//! stage inside MuJoCo's step) and says where the bodies went; [`Scene::diff`] runs both
//! collision stages on the same states and compares them contact by contact;
//! [`Scene::with_speculative`] picks the [`SpeculativeMode`]: off, MuJoCo-compatible, or
//! specula's robust mode, in which nothing tunnels.
//!
//! ```
//! use specula::{Route, Scene, SpeculativeMode};
//!
//! let xml = r#"<mujoco>
//!   <worldbody>
//!     <geom type="plane" size="1 1 0.1"/>
//!     <body name="box" pos="0 0 0.2"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
//!   </worldbody>
//! </mujoco>"#;
//! let scene = Scene::from_xml(xml)?;
//! let c = scene.run(Route::C, 500, None)?;
//! let rust = scene.run(Route::Rust, 500, None)?;
//! // the Rust stage gives MuJoCo's contacts bit for bit, so the same trajectory
//! assert_eq!(c.bodies[1].pos, rust.bodies[1].pos);
//! assert!((c.bodies[1].pos[2] - 0.05).abs() < 1e-3, "the box rests on the floor");
//! # Ok::<(), specula::Error>(())
//! ```
//!
//! Beneath it: the safe wrapper over MuJoCo C ([`mj`]), running scenes through a route
//! ([`sim`]), the route comparison ([`diff`]), the compilers' comparison ([`check`]), speed
//! ([`bench`]), the tunneling sweep ([`sweep`]), the differential scene generator ([`fuzz`]),
//! and the C drop-in library libspecula.so ([`capi`], `include/specula.h`). The model compiler
//! and the collision engine are the workspace crates `specula-model` and `specula-engine`.
//!
//! The native route ([`native`], crate `specula-native`) steps a scene in Rust alone, with no
//! call into MuJoCo C; [`Scene::diff_native`] compares it with MuJoCo step by step. Everything
//! that runs MuJoCo C is behind the default feature `mujoco`: built with
//! `--no-default-features`, the crate holds [`native`] and [`report`] only, and needs no
//! libmujoco, no C compiler and no download.
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "mujoco")]
pub mod bench;
#[cfg(feature = "mujoco")]
pub mod capi;
#[cfg(feature = "mujoco")]
pub mod check;
#[cfg(feature = "mujoco")]
pub mod demo;
#[cfg(feature = "mujoco")]
pub mod diff;
#[cfg(feature = "mujoco")]
pub mod fuzz;
#[cfg(feature = "mujoco")]
pub mod mj;
pub mod native;
#[cfg(feature = "mujoco")]
pub mod native_diff;
pub mod report;
#[cfg(feature = "mujoco")]
pub mod route;
#[cfg(feature = "mujoco")]
pub mod scene;
#[cfg(feature = "mujoco")]
pub mod sim;
#[cfg(feature = "mujoco")]
pub mod sweep;
#[cfg(feature = "mujoco")]
pub mod tunnel;

#[cfg(feature = "mujoco")]
pub use diff::DiffReport;
pub use report::{Route, RunReport};
#[cfg(feature = "mujoco")]
pub use scene::{Error, Scene};
pub use specula_model::types::{Integrator, SpeculativeMode};
