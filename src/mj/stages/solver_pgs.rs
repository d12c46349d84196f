//! `mj_fwdConstraint` with the PGS solver in Rust inside MuJoCo's step (`docs/measurements.md`
//! D13, D25-D28): the view of MuJoCo's data that `specula_engine::dynamics::solver::pgs` reads
//! and writes, and the calls left to the library, each with its reason. `solver.rs` dispatches
//! here for `opt.solver == mjSOL_PGS` with rows (and keeps the timer).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::arena::Arena;
use specula_engine::dynamics::reference::Jacobian;
use specula_engine::dynamics::solver::pgs::{solve_pgs, PgsModel, PgsOutput, PgsScratch, Unsupported};
use specula_engine::dynamics::solver::update::Cone;
use specula_engine::dynamics::solver::NISLAND;

use super::reference::is_sparse;
use super::{byte, slice, slice_mut, Fallback};

thread_local! {
    /// The call's outputs and work arrays (reused from call to call).
    static SCRATCH: RefCell<(PgsScratch, PgsOutput, Vec<Cone>)> = RefCell::default();
}

/// Why a PGS call with rows must stay MuJoCo's (D13, D25-D29): the effective metric, the thread
/// pool's locked stack, a missing `efc_AR`, a sparse `efc_AR` row without its diagonal, or a
/// stack too small (found by running the call, noslip included, on copies).
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    // SAFETY: the flag's byte (any value but 0 takes the locked path).
    let locked = unsafe { byte(&raw const d.threadlock) } != 0;
    let why = [
        (d.efm_active != 0, Fallback::EffectiveMetric),
        (locked, Fallback::ThreadLock),
        (d.efc_AR.is_null(), Fallback::SolverPgs),
    ];
    if let Some(w) = why.iter().find(|w| w.0) {
        return Some(w.1);
    }
    SCRATCH.with(|s| {
        let (scratch, out, cones) = &mut *s.borrow_mut();
        match run(m, d, scratch, out, cones) {
            Err(Unsupported::NoDiagonal) => return Some(Fallback::SolverPgs),
            Ok(()) => {}
        }
        super::solver_noslip::replay(d, &out.frames).err().map(|_| Fallback::StackFull)
    })
}

/// `efc_AR` in MuJoCo's data, dense (`nefc x nefc`) or sparse as the library treats it.
pub(super) fn ar<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> Jacobian<'a> {
    let nefc = d.nefc.max(0) as usize;
    // SAFETY: mjData's AR arrays of their documented lengths (nA non-zeros when sparse, nefc x
    // nefc when dense), read only; the scope test checked efc_AR is there.
    unsafe {
        if is_sparse(m) {
            let na = d.nA.max(0) as usize;
            Jacobian::Sparse {
                rownnz: slice(d.efc_AR_rownnz, nefc),
                rowadr: slice(d.efc_AR_rowadr, nefc),
                rowsuper: &[],
                colind: slice(d.efc_AR_colind, na),
                j: slice(d.efc_AR, na),
            }
        } else {
            Jacobian::Dense { nv: nefc, j: slice(d.efc_AR, nefc * nefc) }
        }
    }
}

/// The call on MuJoCo's data, into `out` (nothing of MuJoCo's is written).
fn run(
    m: &sys::mjModel,
    d: &sys::mjData,
    scratch: &mut PgsScratch,
    out: &mut PgsOutput,
    cones: &mut Vec<Cone>,
) -> Result<(), Unsupported> {
    let nefc = d.nefc.max(0) as usize;
    let nisland = d.nisland.max(0) as usize;
    cones.clear();
    // SAFETY: the ncon contacts at d->contact.
    let con = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
    cones.extend(con.iter().map(|c| Cone { mu: c.mu, friction: c.friction, dim: c.dim }));
    let opt = &m.opt;
    let pm = PgsModel {
        frame: super::solver::frame_model(m),
        iterations: opt.iterations,
        use_islands: opt.disableflags & sys::mjDSBL_ISLAND as i32 == 0
            && nisland > 0
            && opt.enableflags & sys::mjENBL_IPC as i32 == 0,
        nisland,
    };
    // SAFETY: the caller's model and data.
    let inp = unsafe { super::solver::frame_input(m, d, cones) };
    // rows the solves do not set keep MuJoCo's state
    // SAFETY: efc_state has nefc entries.
    out.efc_state.clear();
    out.efc_state.extend_from_slice(unsafe { slice(d.efc_state, nefc) });
    let ar = ar(m, d);
    solve_pgs(&pm, &inp, &ar, scratch, out)?;
    let nm = super::solver_noslip::model(m, pm.use_islands);
    super::solver_noslip::after_solver(&pm.frame, &nm, &inp, Some(&ar), out.noslip_parts())
}

/// Runs the Rust PGS call on MuJoCo's data in place of `mj_fwdConstraint`'s (a state with rows
/// the scope test let through).
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    SCRATCH.with(|s| {
        let (scratch, out, cones) = &mut *s.borrow_mut();
        // the scope test ran the same call: it succeeds
        if run(m, d, scratch, out, cones).is_ok() {
            if let Ok(arena) = super::solver_noslip::replay(d, &out.frames) {
                commit(d, out, &arena);
            }
        }
    });
}

/// Writes the call's outputs into MuJoCo's data.
fn commit(d: &mut sys::mjData, out: &PgsOutput, arena: &Arena) {
    let copy = |p: *mut f64, v: &[f64]| {
        // SAFETY: an mjData array of at least v.len() entries, distinct from `out`.
        unsafe { slice_mut(p, v.len()) }.copy_from_slice(v);
    };
    copy(d.qfrc_constraint, &out.qfrc_constraint);
    copy(d.qacc, &out.qacc);
    copy(d.efc_b, &out.efc_b);
    copy(d.efc_force, &out.efc_force);
    // SAFETY: as above, for the state array.
    unsafe { slice_mut(d.efc_state, out.efc_state.len()) }.copy_from_slice(&out.efc_state);
    for &(k, st) in &out.stats {
        let s = &mut d.solver[k];
        (s.improvement, s.gradient, s.lineslope) = (st.improvement, st.gradient, st.lineslope);
        (s.nactive, s.nchange, s.neval, s.nupdate) = (st.nactive, st.nchange, st.neval, st.nupdate);
    }
    d.solver_niter[..NISLAND].copy_from_slice(&out.solver_niter);
    let n = out.nnz_written;
    d.solver_nnz[..n].copy_from_slice(&out.solver_nnz[..n]);
    d.maxuse_stack = arena.maxuse_stack as i64;
    d.maxuse_arena = arena.maxuse_arena as i64;
}
