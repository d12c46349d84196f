//! `mj_projectConstraint` and `mj_referenceConstraint` in Rust inside MuJoCo's step
//! (`docs/measurements.md` D11).

use mujoco_sys as sys;

use super::fields::Field;

/// Whether `mj_projectConstraint` must stay MuJoCo's for this model and state.
pub(super) fn project_out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_projectConstraint`.
pub(super) fn project(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_projectConstraint` writes, read after it ran.
pub(super) fn project_outputs(_m: &sys::mjModel, _d: &sys::mjData) -> Vec<Field> {
    Vec::new()
}

/// Whether `mj_referenceConstraint` must stay MuJoCo's for this model and state.
pub(super) fn reference_out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_referenceConstraint`.
pub(super) fn reference(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_referenceConstraint` writes.
pub(super) fn reference_outputs(_m: &sys::mjModel, _d: &sys::mjData) -> Vec<Field> {
    Vec::new()
}
