//! A safe wrapper over the MuJoCo 4.0.0 C library.
//!
//! All `unsafe` of the root crate lives in this module. Every call into MuJoCo goes through a
//! guard that turns MuJoCo's fatal errors into [`MjError`] instead of ending the process.

mod boundary;
pub mod collision;
mod data;
mod error;
pub mod fields;
pub mod from_c;
mod model;
mod prescreen;
pub mod stages;

pub use data::{Contact, Data, Pose};
pub use error::{take_warnings, MjError};
pub use model::{Model, ObjType};

/// MuJoCo's `mjSTATE_*` bits, for [`Data::state`] / [`Data::set_state`].
pub mod state {
    use mujoco_sys as sys;
    /// Positions.
    pub const QPOS: u32 = sys::mjSTATE_QPOS;
    /// Velocities.
    pub const QVEL: u32 = sys::mjSTATE_QVEL;
    /// Everything the integrator reads (`mjSTATE_INTEGRATION`).
    pub const INTEGRATION: u32 = sys::mjSTATE_INTEGRATION;
    /// Time, positions, velocities, activations and plugin state (`mjSTATE_FULLPHYSICS`).
    pub const FULLPHYSICS: u32 = sys::mjSTATE_FULLPHYSICS;
}

/// The version of the loaded MuJoCo library (4000000 for 4.0.0).
pub fn version() -> i32 {
    // SAFETY: no arguments, no state.
    unsafe { mujoco_sys::mj_version() }
}
