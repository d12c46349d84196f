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
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod capi;
pub mod check;
pub mod demo;
pub mod diff;
pub mod fuzz;
pub mod mj;
pub mod route;
pub mod scene;
pub mod sim;
pub mod sweep;
pub mod tunnel;

pub use diff::DiffReport;
pub use scene::{Error, Scene};
pub use sim::{Route, RunReport};
pub use specula_model::types::{Integrator, SpeculativeMode};
