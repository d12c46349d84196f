//! `mj_implicitSkip` in Rust inside MuJoCo's step for the `implicitfast` integrator
//! (`docs/measurements.md` K8): the velocity derivative, `qH` and its factor, the solve and the
//! advance, with the library's warning, timer and stack marks (as the Euler stage, `euler.rs`).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::free_body::FreeBodyFrames;
use specula_engine::dynamics::implicit::{implicit_fast, DerivInput};
use specula_engine::dynamics::passive_body::BodyForceState;
use specula_engine::dynamics::passive_deriv::{fluid_vel_on, needs_ellipsoid_vel, PassiveDerivState};

use super::euler::advance_out_of_scope;
use super::fields::Field;
use super::stack::memory;
use super::{byte, clock, slice, slice_mut, views, Fallback};
use specula_engine::dynamics::arena::{Arena, StackOverflow};
use specula_engine::math::MINVAL;

/// `mjGAIN_PID`.
const GAIN_PID: i32 = 5;

thread_local! {
    /// The force and the acceleration of the solve (MuJoCo's are on its stack).
    static SCRATCH: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Why `mj_implicitSkip` is left to the library: the advance's reasons; ellipsoid fluid forces and fluid forces on a
/// sparse Jacobian (their derivatives);
/// actuators other than fixed or affine gains and biases on joints.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if let Some(why) = advance_out_of_scope(m) {
        return Some(why);
    }
    let full = m.opt.integrator == sys::mjINT_IMPLICIT as i32;
    if m.opt.integrator != sys::mjINT_IMPLICITFAST as i32 && !full {
        return Some(Fallback::Integrator);
    }
    // the inertia-box model's derivative on a dense Jacobian is in Rust (D86)
    let fluid = views::with(m, |v| {
        let body = &v.passive.body;
        fluid_vel_on(body) && (needs_ellipsoid_vel(body) || body.sparse)
    });
    if fluid {
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
    // a PID gain has no velocity term: mjd_actuatorVelDeriv takes its affine bias alone (D91)
    if (0..nact).any(|a| !matches!(gaintype[a], 0 | 1 | GAIN_PID) || !matches!(biastype[a], 0 | 1)) {
        return Some(Fallback::Actuator);
    }
    // SAFETY: the flag's byte, read as a byte.
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    if full {
        return super::implicit_full::stack(m, d, false).is_none().then_some(Fallback::StackFull);
    }
    fast_stack(m, d, false).is_none().then_some(Fallback::StackFull)
}

/// The stack high-water marks `mj_implicitSkip` leaves under `implicitfast`: its two `nv`
/// vectors and, unless `skipfactor`, the fluid derivative's frames; `None` when the library
/// would run out of stack.
fn fast_stack(m: &sys::mjModel, d: &sys::mjData, skipfactor: bool) -> Option<(i64, i64)> {
    let nv = m.nv as usize;
    let mut a = memory(d);
    a.mark().ok()?;
    a.stack_alloc(8 * nv, 8).ok()?;
    a.stack_alloc(8 * nv, 8).ok()?;
    if !skipfactor {
        fluid_frames(m, &mut a).ok()?;
    }
    Some((a.maxuse_stack as i64, a.maxuse_arena as i64))
}

/// The stack frames of the inertia-box fluid derivative, when some body runs it (D86): its
/// Jacobians (`6 nv` and `3 nv` doubles, `6 nv` integers) and, nested, `addJTBJ`'s row of `nv`
/// doubles (the deepest call; the others reach no higher).
pub(super) fn fluid_frames(m: &sys::mjModel, a: &mut Arena) -> Result<(), StackOverflow> {
    let runs = m.opt.disableflags & (sys::mjDSBL_SPRING | sys::mjDSBL_DAMPER) as i32
        != (sys::mjDSBL_SPRING | sys::mjDSBL_DAMPER) as i32
        && views::with(m, |v| {
            let body = &v.passive.body;
            fluid_vel_on(body) && body.body_mass.iter().any(|&x| x >= MINVAL || x.is_nan())
        });
    if !runs {
        return Ok(());
    }
    let nv = m.nv as usize;
    a.mark()?;
    a.stack_alloc(48 * nv, 8)?;
    a.stack_alloc(24 * nv, 8)?;
    a.stack_alloc(24 * nv, 4)?;
    a.frame(&[(8 * nv, 8)])?;
    a.free();
    Ok(())
}

/// The actuator state the derivative reads, and `qDeriv`.
///
/// # Safety
/// No other reference to `d.qDeriv` is live while the returned slice is.
pub(super) unsafe fn deriv_input<'a>(m: &sys::mjModel, d: &sys::mjData) -> (DerivInput<'a>, &'a mut [f64]) {
    let (nv, nu, nact) = (m.nv as usize, m.nu as usize, m.nactuator as usize);
    let njmom = m.nJmom as usize;
    let (nbody, ngeom) = (m.nbody as usize, m.ngeom as usize);
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
            passive: PassiveDerivState {
                ten_j: slice(d.ten_J, m.nJten as usize),
                ten_velocity: slice(d.ten_velocity, m.ntendon as usize),
                body: BodyForceState {
                    cvel: slice(d.cvel, 6 * nbody),
                    xipos: slice(d.xipos, 3 * nbody),
                    ximat: slice(d.ximat, 9 * nbody),
                    geom_xpos: slice(d.geom_xpos, 3 * ngeom),
                    geom_xmat: slice(d.geom_xmat, 9 * ngeom),
                    jac: JacState { cdof: slice(d.cdof, 6 * nv), subtree_com: slice(d.subtree_com, 3 * nbody) },
                },
            },
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
    let Some((stack, arena)) = fast_stack(m, d, skipfactor) else { return };
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
