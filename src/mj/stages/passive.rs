//! `mj_passive` in Rust inside MuJoCo's step: the view of MuJoCo's model and data that
//! `specula_engine::dynamics::passive` reads and writes, and the models left to the library.

use mujoco_sys as sys;

use super::fields::Field;

/// Whether `mj_passive` must stay MuJoCo's for this model and state.
pub(super) fn out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_passive`.
pub(super) fn replace(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_passive` writes.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nv = m.nv as usize;
    vec![
        Field::f64("qfrc_spring", d.qfrc_spring, nv),
        Field::f64("qfrc_damper", d.qfrc_damper, nv),
        Field::f64("qfrc_gravcomp", d.qfrc_gravcomp, nv),
        Field::f64("qfrc_fluid", d.qfrc_fluid, nv),
        Field::f64("qfrc_passive", d.qfrc_passive, nv),
    ]
}
