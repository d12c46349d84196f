//! `mj_implicitSkip` in Rust inside MuJoCo's step for the `implicitfast` integrator
//! (`docs/measurements.md` K8): the velocity derivative, `qH` and its factor, the solve and the
//! advance, with the library's warning, timer and stack marks (as the Euler stage, `euler.rs`).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::free_body::FreeBodyFrames;
use specula_engine::dynamics::implicit::{implicit_fast, DerivInput};

use super::euler::advance_out_of_scope;
use super::fields::Field;
use super::stack::stack_marks;
use super::{byte, clock, slice, slice_mut, views, Fallback};

thread_local! {
    /// The force and the acceleration of the solve (MuJoCo's are on its stack).
    static SCRATCH: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Why `mj_implicitSkip` is left to the library: the advance's reasons; tendons and fluid forces (their derivatives);
/// actuators other than fixed or affine gains and biases on joints.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if let Some(why) = advance_out_of_scope(m) {
        return Some(why);
    }
    let full = m.opt.integrator == sys::mjINT_IMPLICIT as i32;
    if m.opt.integrator != sys::mjINT_IMPLICITFAST as i32 && !full {
        return Some(Fallback::Integrator);
    }
    if m.ntendon > 0 {
        return Some(Fallback::Tendon);
    }
    if m.opt.viscosity != 0.0 || m.opt.density != 0.0 {
        return Some(Fallback::Fluid);
    }
    let nact = m.nactuator as usize;
    // SAFETY: actuator arrays of their documented lengths, read only.
    let (trntype, gaintype, biastype) = unsafe {
        (slice(m.actuator_trntype, nact), slice(m.actuator_gaintype, nact), slice(m.actuator_biastype, nact))
    };
    if trntype.iter().any(|&t| !matches!(t, 0 | 1)) {
        return Some(Fallback::Transmission);
    }
    if (0..nact).any(|a| !matches!(gaintype[a], 0 | 1) || !matches!(biastype[a], 0 | 1)) {
        return Some(Fallback::Actuator);
    }
    // SAFETY: the flag's byte, read as a byte.
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    let nv = m.nv as usize;
    if full {
        return super::implicit_full::stack(m, d, false).is_none().then_some(Fallback::StackFull);
    }
    stack_marks(d, &[8 * nv, 8 * nv]).is_none().then_some(Fallback::StackFull)
}

/// The actuator state the derivative reads, and `qDeriv`.
///
/// # Safety
/// No other reference to `d.qDeriv` is live while the returned slice is.
pub(super) unsafe fn deriv_input<'a>(m: &sys::mjModel, d: &sys::mjData) -> (DerivInput<'a>, &'a mut [f64]) {
    let (nv, nu, nact) = (m.nv as usize, m.nu as usize, m.nactuator as usize);
    let njmom = m.nJmom as usize;
    // SAFETY: mjData's arrays of the documented lengths (the moment rows: `nJmom` entries).
    unsafe {
        let x = DerivInput {
            ctrl: slice(d.ctrl, nu),
            actuator_force: slice(d.actuator_force, nact),
            qfrc_actuator: slice(d.qfrc_actuator, nv),
            moment_rownnz: slice(d.moment_rownnz, nact),
            moment_rowadr: slice(d.moment_rowadr, nact),
            moment_colind: slice(d.moment_colind, njmom),
            actuator_moment: slice(d.actuator_moment, njmom),
        };
        (x, slice_mut(d.qDeriv, m.nD as usize))
    }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_implicitSkip(m, d, skipfactor)`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData, skipfactor: bool) {
    if m.opt.integrator == sys::mjINT_IMPLICIT as i32 {
        return super::implicit_full::replace(m, d, skipfactor);
    }
    let t0 = clock();
    let nv = m.nv as usize;
    let Some((stack, arena)) = stack_marks(d, &[8 * nv, 8 * nv]) else { return };
    let time = d.time;
    // SAFETY: the inputs are read, qDeriv written (and, through the Euler state, qH, qHDiagInv,
    // act, qvel, qpos and qacc_warmstart).
    let (x, qderiv) = unsafe { deriv_input(m, d) };
    let nbody = m.nbody as usize;
    // SAFETY: the position stage's arrays of their documented lengths, read only.
    let frames = unsafe {
        FreeBodyFrames {
            xpos: slice(d.xpos, 3 * nbody),
            xmat: slice(d.xmat, 9 * nbody),
            subtree_com: slice(d.subtree_com, 3 * nbody),
            crb: slice(d.crb, 10 * nbody),
        }
    };
    let mut s = super::euler::state(m, d);
    let singular = SCRATCH.with(|sc| {
        let (qfrc, qacc) = &mut *sc.borrow_mut();
        qfrc.resize(nv, 0.0);
        qacc.resize(nv, 0.0);
        views::with(m, |v| {
            let input = (&x, &frames);
            implicit_fast(
                &v.tree,
                &v.passive,
                &v.actuator,
                &v.integrator,
                skipfactor,
                input,
                qderiv,
                &mut s,
                (qfrc, qacc),
            )
        })
    });
    super::euler::finish(d, singular, time, (stack, arena), t0);
}

/// The arrays `mj_implicitSkip` writes: the velocity derivative (and for `implicit` its LU
/// factor) and Euler's.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let mut fields = vec![Field::f64("qDeriv", d.qDeriv, m.nD as usize)];
    if m.opt.integrator == sys::mjINT_IMPLICIT as i32 {
        fields.push(Field::f64("qLU", d.qLU, m.nD as usize));
    }
    fields.extend(super::euler::outputs(m, d));
    fields
}
