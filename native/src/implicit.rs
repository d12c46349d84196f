//! `mj_implicitSkip` for the `implicit` integrator on the native route (`docs/measurements.md`
//! K8, K11, K12): the engine's full velocity derivative, sparse LU factor and solve
//! ([`specula_engine::dynamics::implicit_full`]) on the native model's layouts.

use specula_engine::dynamics::derivative::{BodyPattern, RneVelInput};
use specula_engine::dynamics::implicit::DerivInput;
use specula_engine::dynamics::implicit_full::{implicit_full, FullImplicitModel};
use specula_engine::dynamics::integrate::EulerState;

use crate::data::Data;
use crate::model::NativeModel;

/// The `implicit` integrator's step after the forward pass.
pub(crate) fn implicit(nm: &NativeModel, d: &mut Data) {
    let (f, l) = (&nm.flat, &nm.layout);
    let fm = FullImplicitModel {
        bodies: BodyPattern {
            body_weldid: &f.body_weldid,
            b_rownnz: &l.b.rownnz,
            b_rowadr: &l.b.rowadr,
            b_colind: &l.b.colind,
        },
        map_m2d: &l.map_m2d,
    };
    let x = DerivInput {
        ctrl: &d.actuation.ctrl,
        actuator_force: &d.actuation.actuator_force,
        qfrc_actuator: &d.qfrc_actuator,
        moment_rownnz: &d.actuation.moment_rownnz,
        moment_rowadr: &d.actuation.moment_rowadr,
        moment_colind: &d.actuation.moment_colind,
        actuator_moment: &d.actuation.actuator_moment,
    };
    // the derivative takes the velocities from the state below
    let rv = RneVelInput { qvel: &[], cdof: &d.cdof, cdof_dot: &d.cdof_dot, cinert: &d.cinert, cvel: &d.cvel };
    let mut s = EulerState {
        mass: &d.m,
        qfrc_smooth: &d.qfrc_smooth,
        qfrc_constraint: &d.qfrc_constraint,
        qacc: &d.qacc,
        act_dot: &d.act_dot,
        qh: &mut d.qh,
        qh_diag_inv: &mut d.qh_diag_inv,
        act: &mut d.act,
        qvel: &mut d.qvel,
        qpos: &mut d.qpos,
        time: &mut d.time,
        qacc_warmstart: &mut d.qacc_warmstart,
    };
    let views = (&nm.tree(), &nm.passive(), &nm.actuator_model(), &nm.integrator());
    let scratch = (&mut d.implicit_qfrc[..], &mut d.euler_qacc[..]);
    let out = (&mut d.qderiv[..], &mut d.qlu[..]);
    implicit_full(views, &fm, false, (&x, &rv), out, &mut d.implicit_full, &mut s, scratch);
}
