//! `mj_makeConstraint` in Rust inside MuJoCo's step: the view of MuJoCo's model and data that
//! `specula_engine::dynamics::constraint` reads and writes, the arena allocation of the `efc_*`
//! arrays, and the models left to the library (`docs/measurements.md` D10).

use mujoco_sys as sys;

use super::fields::Field;

/// Whether `mj_makeConstraint` must stay MuJoCo's for this model and state.
pub(super) fn out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_makeConstraint`.
pub(super) fn replace(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_makeConstraint` writes, read after it ran (they live in the arena).
pub(super) fn outputs(_m: &sys::mjModel, _d: &sys::mjData) -> Vec<Field> {
    Vec::new()
}
