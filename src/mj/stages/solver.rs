//! `mj_fwdConstraint` in Rust inside MuJoCo's step (`docs/measurements.md` D13 onward): the view
//! of MuJoCo's data that `specula_engine::dynamics::solver` reads and writes, the function's
//! timer, and the calls left to the library, each with its reason.

use mujoco_sys as sys;
use specula_engine::dynamics::solver::{self, NISLAND};

use super::fields::Field;
use super::{slice, slice_mut, Fallback};

/// `mjSOL_PGS`, `mjSOL_CG`, `mjSOL_NEWTON`.
const SOL_PGS: i32 = 0;
const SOL_CG: i32 = 1;
const SOL_NEWTON: i32 = 2;

/// Why `mj_fwdConstraint` must stay MuJoCo's for this model and state, if it must: with the
/// effective metric on the discrete integrator the library corrects the smooth force for
/// gyroscopic terms after every call (`mj_discreteGyro`, D13), and with constraint rows the
/// solvers are not yet in Rust (one reason per solver; a solver number outside 0 to 2 the
/// library reports and skips).
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.opt.integrator == sys::mjINT_DISCRETE as i32 && d.efm_active != 0 {
        return Some(Fallback::EffectiveMetric);
    }
    if d.nefc == 0 {
        return None;
    }
    Some(match m.opt.solver {
        SOL_PGS => Fallback::SolverPgs,
        SOL_CG => Fallback::SolverCg,
        SOL_NEWTON => Fallback::SolverNewton,
        _ => Fallback::SolverUnknown,
    })
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_fwdConstraint` (a state the scope test
/// let through), timed as the library times it (`mjTIMER_CONSTRAINT`).
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let t0 = super::clock();
    let nv = m.nv as usize;
    // SAFETY: mjData's arrays of nv entries; qacc and qfrc_constraint are written only here.
    let (qacc_smooth, qacc, qfrc_constraint) =
        unsafe { (slice(d.qacc_smooth, nv), slice_mut(d.qacc, nv), slice_mut(d.qfrc_constraint, nv)) };
    solver::without_rows(qacc_smooth, qacc, qfrc_constraint, &mut d.solver_niter[..NISLAND]);
    let t = &mut d.timer[sys::mjTIMER_CONSTRAINT as usize];
    t.duration += super::clock() - t0;
    t.number += 1;
}

/// The arrays `mj_fwdConstraint` writes outside the `mjData` struct (whose statistics and timer
/// the in-place comparison checks byte by byte), read after it ran.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nv, nefc) = (m.nv as usize, d.nefc.max(0) as usize);
    let mut out = Vec::new();
    if nefc > 0 {
        out.push(Field::f64("efc_b", d.efc_b, nefc));
        out.push(Field::i32("efc_state", d.efc_state, nefc));
        out.push(Field::f64("efc_force", d.efc_force, nefc));
    }
    out.push(Field::f64("qfrc_constraint", d.qfrc_constraint, nv));
    out.push(Field::f64("qacc", d.qacc, nv));
    out
}
