//! The integrators after `mj_step`'s forward pass on the native route: Euler (implicit in
//! joint damping), `implicitfast` (its lone free bodies included, K14) and `implicit` (the full
//! velocity derivative, sparse LU factor and solve, K11 to K13), each on the engine's code over
//! the native model's layouts and [`Data`]'s arrays.

use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::derivative::{BodyPattern, RneVelInput};
use specula_engine::dynamics::free_body::FreeBodyFrames;
use specula_engine::dynamics::implicit::{implicit_fast, DerivInput};
use specula_engine::dynamics::implicit_full::{implicit_full, FullImplicitModel};
use specula_engine::dynamics::integrate::{euler, EulerState};
use specula_engine::dynamics::passive_body::BodyForceState;
use specula_engine::dynamics::passive_deriv::PassiveDerivState;
use specula_model::types::Integrator;

use crate::data::Data;
use crate::model::NativeModel;

/// The Euler, `implicitfast` or `implicit` step (the model's integrator; RK4 is
/// [`crate::rk4`]'s) after the forward pass.
pub(crate) fn integrate(nm: &NativeModel, d: &mut Data) {
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
    let (tm, pm, am, im) = (&nm.tree(), &nm.passive(), &nm.actuator_model(), &nm.integrator());
    let integrator = nm.model.opt.integrator;
    if integrator == Integrator::Euler {
        euler(tm, pm, am, im, false, &mut s, &mut d.euler_qacc);
        return;
    }
    let x = DerivInput {
        ctrl: &d.actuation.ctrl,
        actuator_force: &d.actuation.actuator_force,
        qfrc_actuator: &d.qfrc_actuator,
        moment_rownnz: &d.actuation.moment_rownnz,
        moment_rowadr: &d.actuation.moment_rowadr,
        moment_colind: &d.actuation.moment_colind,
        actuator_moment: &d.actuation.actuator_moment,
        passive: PassiveDerivState {
            ten_j: &d.tendon.ten_j,
            ten_velocity: &d.tendon.ten_velocity,
            body: BodyForceState {
                cvel: &d.cvel,
                xipos: &d.xipos,
                ximat: &d.ximat,
                geom_xpos: &d.geom_xpos,
                geom_xmat: &d.geom_xmat,
                jac: JacState { cdof: &d.cdof, subtree_com: &d.subtree_com },
            },
        },
    };
    let scratch = (&mut d.implicit_qfrc[..], &mut d.euler_qacc[..]);
    if integrator == Integrator::ImplicitFast {
        let frames = FreeBodyFrames { xpos: &d.xpos, xmat: &d.xmat, subtree_com: &d.subtree_com, crb: &d.crb };
        implicit_fast(tm, pm, am, im, false, (&x, &frames), &mut d.qderiv, &mut s, scratch);
        return;
    }
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
    // the derivative takes the velocities from the state above
    let rv = RneVelInput { qvel: &[], cdof: &d.cdof, cdof_dot: &d.cdof_dot, cinert: &d.cinert, cvel: &d.cvel };
    let out = (&mut d.qderiv[..], &mut d.qlu[..]);
    implicit_full((tm, pm, am, im), &fm, false, (&x, &rv), out, &mut d.implicit_full, &mut s, scratch);
}
