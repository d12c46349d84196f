//! `mj_transmission` and `mj_fwdActuation` in Rust inside MuJoCo's step: the views of MuJoCo's
//! model and data that `specula_engine::dynamics::actuation` reads and writes, and the models
//! left to the library.

use mujoco_sys as sys;

use super::fields::Field;

/// Whether `mj_transmission` must stay MuJoCo's for this model and state.
pub(super) fn transmission_out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Whether `mj_fwdActuation` must stay MuJoCo's for this model and state.
pub(super) fn actuation_out_of_scope(_m: &sys::mjModel, _d: &sys::mjData) -> bool {
    true
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_transmission`.
pub(super) fn transmission(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// Runs the Rust stage on MuJoCo's data in place of `mj_fwdActuation`.
pub(super) fn fwd_actuation(_m: &sys::mjModel, _d: &mut sys::mjData) {}

/// The arrays `mj_transmission` writes.
pub(super) fn transmission_outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nout = m.nout as usize;
    vec![
        Field::f64("actuator_length", d.actuator_length, nout),
        Field::i32("moment_rownnz", d.moment_rownnz, nout),
        Field::i32("moment_rowadr", d.moment_rowadr, nout),
        Field::i32("moment_colind", d.moment_colind, m.nJmom as usize),
        Field::f64("actuator_moment", d.actuator_moment, m.nJmom as usize),
    ]
}

/// The arrays `mj_fwdActuation` writes.
pub(super) fn actuation_outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nu, nv, na, nout) = (m.nu as usize, m.nv as usize, m.na as usize, m.nout as usize);
    vec![
        Field::f64("act_dot", d.act_dot, na),
        Field::f64("actuator_force", d.actuator_force, nout),
        Field::f64("qfrc_actuator", d.qfrc_actuator, nv),
        Field::f64("ctrl", d.ctrl, nu),
    ]
}
