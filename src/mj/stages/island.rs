//! `mj_island` in Rust inside MuJoCo's step (`docs/measurements.md` D12).

use mujoco_sys as sys;

use super::fields::Field;

/// Whether `mj_island` must stay MuJoCo's for this model and state.
pub(super) fn out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_island`.
pub(super) fn replace(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_island` writes, read after it ran (they live in the arena).
pub(super) fn outputs(_m: &sys::mjModel, _d: &sys::mjData) -> Vec<Field> {
    Vec::new()
}
