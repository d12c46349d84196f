//! `mj_EulerSkip` in Rust inside MuJoCo's step (`mj_step`, `mj_step2` and `mj_stepSkip` call it
//! through the symbol table; `docs/measurements.md` K4): the implicit-in-damping Euler step and
//! the advance, with what the library does besides its arrays (the singular-pivot warning, the
//! advance timer, the stack high-water marks of its two scratch vectors).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::integrate::{euler, EulerState, IntegratorModel};

use super::fields::Field;
use super::stack::stack_marks;
use super::{byte, clock, slice, slice_mut, views, warn_inertia, Fallback};

thread_local! {
    /// The acceleration the step integrates (MuJoCo's is on its stack).
    static QACC: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// `mjDYN_INTEGRATOR ..= mjDYN_MUSCLE`: the activation dynamics in the rigid subset (a muscle's
/// activation advances as an integrator's, `mj_nextActivation`, D64).
const DYN_RIGID: std::ops::RangeInclusive<i32> = 1..=4;
/// `mjDYN_DCMOTOR`.
const DYN_DCMOTOR: i32 = 5;
/// `mjDYN_PID`.
const DYN_PID: i32 = 6;

/// The stage's view of MuJoCo's model (besides the mass-matrix and damping views).
pub(super) fn integrator_model(m: &sys::mjModel) -> IntegratorModel<'_> {
    let (nbody, njnt, nv) = (m.nbody as usize, m.njnt as usize, m.nv as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        IntegratorModel {
            timestep: m.opt.timestep,
            disableflags: m.opt.disableflags,
            body_jntnum: slice(m.body_jntnum, nbody),
            body_jntadr: slice(m.body_jntadr, nbody),
            jnt_type: slice(m.jnt_type, njnt),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            dof_jntid: slice(m.dof_jntid, nv),
            dof_damping: slice(m.dof_damping, nv),
            dof_dampingpoly: slice(m.dof_dampingpoly, 2 * nv),
            d_rownnz: slice(m.D_rownnz, nv),
            d_rowadr: slice(m.D_rowadr, nv),
            d_colind: slice(m.D_colind, m.nD as usize),
            d_diag: slice(m.D_diag, nv),
            map_d2m: slice(m.mapD2M, m.nC as usize),
        }
    }
}

/// Reads the option scalars of a cached view afresh (a program may change them between steps).
pub(super) fn refresh(view: &mut IntegratorModel<'_>, m: &sys::mjModel) {
    view.timestep = m.opt.timestep;
    view.disableflags = m.opt.disableflags;
}

/// Why the advance is left to the library: sleep (its bookkeeping and `mj_sleep`), history
/// buffers (control delays, sensor intervals), plugins, plasticity, activation dynamics other than
/// integrator, filters, muscle, PID and DC motors without a bristle, and activated actuators whose activation the library wraps or
/// normalises (ball-joint, site and SO3 servos: K5).
pub(super) fn advance_out_of_scope(m: &sys::mjModel) -> Option<Fallback> {
    if m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 {
        return Some(Fallback::Sleep);
    }
    if m.nhistory > 0 {
        return Some(Fallback::History);
    }
    if m.nplugin > 0 {
        return Some(Fallback::Plugin);
    }
    if m.nplastic > 0 {
        return Some(Fallback::Plasticity);
    }
    let nact = m.nactuator as usize;
    // SAFETY: the actuator and joint arrays of their documented lengths, read only.
    let (dyntype, actnum, gaintype, trntype, trnid, jnt_type) = unsafe {
        (
            slice(m.actuator_dyntype, nact),
            slice(m.actuator_actnum, nact),
            slice(m.actuator_gaintype, nact),
            slice(m.actuator_trntype, nact),
            slice(m.actuator_trnid, 2 * nact),
            slice(m.jnt_type, m.njnt as usize),
        )
    };
    // SAFETY: the dynamics parameters, of their documented length, read only.
    let dynprm = unsafe { slice(m.actuator_dynprm, 10 * nact) };
    let odd = (0..nact).any(|a| {
        let dynamic = DYN_RIGID.contains(&dyntype[a]);
        let joint = matches!(trntype[a], 0 | 1)
            && usize::try_from(trnid[2 * a]).is_ok_and(|j| jnt_type.get(j).is_some_and(|&t| t != 1));
        // DC motors and PID states are never wrapped; a DC motor's bristle needs the actuator
        // velocity, which the advance does not see (D90)
        let own = match dyntype[a] {
            // (a NaN stiffness is no bristle, as the library's `> 0` test)
            DYN_DCMOTOR => dynprm[10 * a + 5].partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater),
            DYN_PID => true,
            _ => false,
        };
        (actnum[a] > 0 && !dynamic && !own) || (dynamic && (!joint || !matches!(gaintype[a], 0..=2)))
    });
    odd.then_some(Fallback::Actuator)
}

/// Why `mj_EulerSkip` is left to the library: the advance's reasons, and a stack the library
/// could not allocate its two vectors on.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if let Some(why) = advance_out_of_scope(m) {
        return Some(why);
    }
    // SAFETY: the flag's byte, read as a byte.
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    let nv = m.nv as usize;
    stack_marks(d, &[8 * nv, 8 * nv]).is_none().then_some(Fallback::StackFull)
}

/// The integrator state on MuJoCo's data, as Euler and `implicitfast` read and write it.
pub(super) fn state<'a>(m: &sys::mjModel, d: &'a mut sys::mjData) -> EulerState<'a> {
    let (nq, nv, na, nc) = (m.nq as usize, m.nv as usize, m.na as usize, m.nC as usize);
    // SAFETY: mjData's arrays of the documented lengths; M, the forces, qacc and act_dot are
    // read, qH, qHDiagInv, act, qvel, qpos and qacc_warmstart (distinct arrays) written.
    unsafe {
        EulerState {
            mass: slice(d.M, nc),
            qfrc_smooth: slice(d.qfrc_smooth, nv),
            qfrc_constraint: slice(d.qfrc_constraint, nv),
            qacc: slice(d.qacc, nv),
            act_dot: slice(d.act_dot, na),
            qh: slice_mut(d.qH, nc),
            qh_diag_inv: slice_mut(d.qHDiagInv, nv),
            act: slice_mut(d.act, na),
            qvel: slice_mut(d.qvel, nv),
            qpos: slice_mut(d.qpos, nq),
            time: &mut d.time,
            qacc_warmstart: slice_mut(d.qacc_warmstart, nv),
        }
    }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_EulerSkip(m, d, skipfactor)`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData, skipfactor: bool) {
    let t0 = clock();
    let nv = m.nv as usize;
    let Some((stack, arena)) = stack_marks(d, &[8 * nv, 8 * nv]) else { return };
    let time = d.time;
    let mut s = state(m, d);
    let singular = QACC.with(|q| {
        let mut q = q.borrow_mut();
        q.resize(nv, 0.0);
        views::with(m, |v| euler(&v.tree, &v.passive, &v.actuator, &v.integrator, skipfactor, &mut s, &mut q))
    });
    finish(d, singular, time, (stack, arena), t0);
}

/// What the library does after an integrator's arrays (Euler's and `implicitfast`'s alike): the
/// singular-pivot warning at the step's start time, the stack high-water marks of its scratch,
/// and the call's time added to the advance timer, counted (K4).
pub(super) fn finish(d: &mut sys::mjData, singular: Option<usize>, time: f64, (stack, arena): (i64, i64), t0: f64) {
    if let Some(dof) = singular {
        warn_inertia(d, dof, time);
    }
    (d.maxuse_stack, d.maxuse_arena) = (stack as _, arena as _);
    let t = &mut d.timer[sys::mjTIMER_ADVANCE as usize];
    t.duration += clock() - t0;
    t.number += 1;
}

/// The arrays `mj_EulerSkip` writes (`qH` and its `1 / D` only when it factorises).
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nq, nv, na, nc) = (m.nq as usize, m.nv as usize, m.na as usize, m.nC as usize);
    vec![
        Field::f64("qH", d.qH, nc),
        Field::f64("qHDiagInv", d.qHDiagInv, nv),
        Field::f64("act", d.act, na),
        Field::f64("qpos", d.qpos, nq),
        Field::f64("qacc_warmstart", d.qacc_warmstart, nv),
        // last: the test hooks move its last element
        Field::f64("qvel", d.qvel, nv),
    ]
}
