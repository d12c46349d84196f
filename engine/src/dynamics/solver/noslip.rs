//! The noslip pass of `mj_fwdConstraint` (`docs/measurements.md` D35-D37): after the main solver
//! (PGS, CG or Newton) has set `efc_force`, a few Gauss-Seidel sweeps over the friction rows
//! alone, on the dual with the regulariser `R` taken out of `AR`, so that friction no longer
//! slips by the softness of the constraint. Equality, limit and normal rows keep their forces.
//! The caller then maps the forces back with [`dual_finish`].
//!
//! Algorithm (one island, or all rows at once; D36):
//! 1. `1 / max(1e-15, AR_ii - R_i)` per listed row; the dual state of the rows (D27).
//! 2. Per sweep: the improvement starts at `sum 0.5 f^2 R` on the first sweep only; each
//!    friction-loss row moves to its unconstrained minimum, clipped to `[-fl, fl]`; each
//!    pyramidal contact's pairs of opposite edges are solved in closed form on their segment
//!    (their sum held); each elliptic contact's friction is solved as a QCQP on the ellipsoid of
//!    its normal force (D29's `friction_qcqp`). Contact blocks whose cost would rise are put back.
//! 3. The dual state, the improvement scaled by `1 / trace M`, recorded after the main solver's
//!    statistics; the sweeps stop after `noslip_iterations` or under `noslip_tolerance`.
// Indexed loops walk row lists as the library does; `x = x - y` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::frame::{FrameInput, FrameModel, FrameOutput};
use super::pgs::{ar_diag, ar_row_dot, cone, dual_scale, dual_state, PgsOutput, Unsupported};
use super::pgs_cone::{cost_change, extract_block, friction_qcqp};
use super::update::CONTACT_ELLIPTIC;
use super::{SolverStat, NISLAND, NSOLVER};
use crate::dynamics::reference::{dot, Jacobian};
use crate::math::MINVAL;

pub use super::pgs::dual_finish;

/// `mjCNSTR_CONTACT_PYRAMIDAL`.
const CONTACT_PYRAMIDAL: i32 = 6;

/// The noslip options (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct NoslipModel {
    /// `opt.noslip_iterations` (no pass when not positive).
    pub iterations: i32,
    /// `opt.noslip_tolerance`.
    pub tolerance: f64,
    /// The island path is taken (D13's test): one pass per island, else one over all rows.
    pub use_islands: bool,
}

/// What the pass reads and updates of the main solver's result.
#[derive(Debug)]
pub struct NoslipState<'a> {
    /// `efc_b` (read).
    pub efc_b: &'a [f64],
    /// `efc_force`, updated on the friction rows.
    pub efc_force: &'a mut [f64],
    /// `efc_state` of the listed rows (rewritten).
    pub efc_state: &'a mut [i32],
    /// The statistics written, as `(island * mjNSOLVER + iteration, stat)` (appended).
    pub stats: &'a mut Vec<(usize, SolverStat)>,
    /// `solver_niter` (each pass adds its sweeps; read for where its statistics start).
    pub solver_niter: &'a mut [i32; NISLAND],
}

/// The pass's view of a solver's outputs, and `mj_dualFinish`'s `qfrc_constraint` and `qacc`.
pub type NoslipParts<'a> = (NoslipState<'a>, &'a mut [f64], &'a mut [f64]);

/// `noslip_parts` for each solver's output type (the same fields under the same names).
macro_rules! noslip_parts {
    ($($out:ty),*) => {$(
        impl $out {
            /// The call's outputs as noslip and the finish update them.
            pub fn noslip_parts(&mut self) -> NoslipParts<'_> {
                let st = NoslipState {
                    efc_b: &self.efc_b,
                    efc_force: &mut self.efc_force,
                    efc_state: &mut self.efc_state,
                    stats: &mut self.stats,
                    solver_niter: &mut self.solver_niter,
                };
                (st, &mut self.qfrc_constraint, &mut self.qacc)
            }
        }
    )*};
}

noslip_parts!(FrameOutput, PgsOutput);

/// Work arrays reused from call to call, and the stack frames of the last call.
#[derive(Clone, Debug, Default)]
pub struct NoslipScratch {
    ar_inv: Vec<f64>,
    oldstate: Vec<i32>,
    /// One stack frame per pass, as `(bytes, alignment)` blocks (`1 / diag`, old states).
    pub frames: Vec<[(usize, usize); 2]>,
}

/// The noslip pass after the main solver (nothing when `iterations` is not positive); `ar` is
/// `efc_AR`. The caller maps the forces back with [`dual_finish`] when it ran.
pub fn noslip(
    fm: &FrameModel,
    m: &NoslipModel,
    inp: &FrameInput,
    ar: &Jacobian,
    s: &mut NoslipScratch,
    st: &mut NoslipState,
) -> Result<(), Unsupported> {
    s.frames.clear();
    if m.iterations <= 0 {
        return Ok(());
    }
    let isl = &inp.islands;
    s.frames.reserve(isl.nv.len() + 1);
    if m.use_islands {
        for island in 0..isl.nv.len() {
            let (adr, n) = (isl.iefcadr[island] as usize, isl.nefc[island] as usize);
            let rows = Some(&isl.iefc2efc[adr..adr + n]);
            let counts = (isl.ne[island] as usize, isl.nf[island] as usize, n);
            pass(fm, m, inp, ar, s, st, island as i32, counts, rows)?;
        }
    } else {
        let counts = (inp.rows.ne, inp.rows.nf, inp.aref.len());
        pass(fm, m, inp, ar, s, st, -1, counts, None)?;
    }
    Ok(())
}

/// `x` raised to `floor` (`mju_max(floor, x)`: a NaN stays).
fn at_least(floor: f64, x: f64) -> f64 {
    if floor > x {
        floor
    } else {
        x
    }
}

/// `dim` residuals from row `i` with the regulariser taken out: `b + AR f - R f` (D36).
fn residual(inp: &FrameInput, ar: &Jacobian, b: &[f64], f: &[f64], i: usize, res: &mut [f64]) {
    for j in 0..res.len() {
        res[j] = b[i + j] + ar_row_dot(ar, i + j, f);
        res[j] = res[j] - inp.rows.r[i + j] * f[i + j];
    }
}

/// The `n x n` block of `AR` at row `i` with `R` taken out of its diagonal, floored at `1e-10`.
fn block(inp: &FrameInput, ar: &Jacobian, i: usize, n: usize, a: &mut [f64; 36]) -> Result<(), Unsupported> {
    extract_block(ar, i, n, a).ok_or(Unsupported::NoDiagonal)?;
    for j in 0..n {
        a[j * (n + 1)] = a[j * (n + 1)] - inp.rows.r[i + j];
        a[j * (n + 1)] = at_least(1e-10, a[j * (n + 1)]);
    }
    Ok(())
}

/// `bc = res - Ac old` (row by row, `mju_dot`).
fn bias(a: &[f64; 36], n: usize, res: &[f64], old: &[f64], bc: &mut [f64; 5]) {
    for j in 0..n {
        bc[j] = res[j] - dot(&a[j * n..(j + 1) * n], &old[..n]);
    }
}

/// One pair of opposite pyramid edges `f[j]`, `f[j+1]` with their sum `2 mid` held: the
/// minimum over the split `y` (`f = mid + y, mid - y`) clipped to keep both non-negative.
fn edge_pair(f: &mut [f64], a: &[f64; 36], bc: &[f64; 5]) {
    let mid = 0.5 * (f[0] + f[1]);
    let k1 = a[0] + a[3] - a[1] - a[2];
    let k0 = mid * (a[0] - a[3]) + bc[0] - bc[1];
    if k1 < MINVAL {
        (f[0], f[1]) = (mid, mid);
        return;
    }
    let y = -k0 / k1;
    (f[0], f[1]) = if y < -mid {
        (0.0, 2.0 * mid)
    } else if y > mid {
        (2.0 * mid, 0.0)
    } else {
        (mid + y, mid - y)
    };
}

/// The cost change of a block (`n` forces at `f`), the block put back when it rises (D36).
fn kept_change(a: &[f64; 36], f: &mut [f64], old: &[f64], res: &[f64]) -> f64 {
    let n = f.len();
    // the block's stride is n: cost_change reads the first n x n entries
    let change = cost_change(a, f, &old[..n], &res[..n]);
    if change > 1e-10 {
        f.copy_from_slice(&old[..n]);
        return 0.0;
    }
    change
}

/// One noslip pass over one island's rows (`rows`, island order) or all rows (`island = -1`).
#[allow(clippy::too_many_arguments)]
fn pass(
    fm: &FrameModel,
    m: &NoslipModel,
    inp: &FrameInput,
    ar: &Jacobian,
    s: &mut NoslipScratch,
    st: &mut NoslipState,
    island: i32,
    counts: (usize, usize, usize),
    rows: Option<&[i32]>,
) -> Result<(), Unsupported> {
    let (ne, nf, nefc) = counts;
    let at = |c: usize| rows.map_or(c, |r| r[c] as usize);
    s.frames.push([(8 * nefc, 8), (4 * nefc, 4)]);
    let (r, floss, b) = (inp.rows.r, inp.rows.frictionloss, st.efc_b);
    let scale = dual_scale(fm, inp, island);
    // Step 1: the diagonal without R, and the state
    s.ar_inv.clear();
    for c in 0..nefc {
        let i = at(c);
        s.ar_inv.push(1.0 / at_least(MINVAL, ar_diag(ar, i)? - r[i]));
    }
    let force = &mut *st.efc_force;
    dual_state(inp, force, st.efc_state, counts, rows);
    s.oldstate.resize(nefc, 0);
    let stat_island = island.max(0) as usize;
    let maxiter = m.iterations.max(0);
    let mut iter = 0;
    let (mut res, mut old, mut bc, mut a) = ([0.0; 5], [0.0; 5], [0.0; 5], [0.0; 36]);
    while iter < maxiter {
        // Step 2: one sweep
        let mut improvement = 0.0;
        if iter == 0 {
            for c in 0..nefc {
                let i = at(c);
                improvement = 0.5 * force[i] * force[i] * r[i] + improvement;
            }
        }
        for c in ne..ne + nf {
            let i = at(c);
            residual(inp, ar, b, force, i, &mut res[..1]);
            let prev = force[i];
            let mut f = force[i] - res[0] * s.ar_inv[c];
            if f < -floss[i] {
                f = -floss[i];
            } else if f > floss[i] {
                f = floss[i];
            }
            force[i] = f;
            let delta = f - prev;
            improvement = improvement - (0.5 * delta * delta / s.ar_inv[c] + delta * res[0]);
        }
        let mut c = ne + nf;
        while c < nefc {
            let i = at(c);
            let ty = inp.rows.efc_type[i];
            if ty == CONTACT_PYRAMIDAL {
                let dim = cone(inp, i).dim as usize;
                for j in (i..i + 2 * (dim - 1)).step_by(2) {
                    residual(inp, ar, b, force, j, &mut res[..2]);
                    old[..2].copy_from_slice(&force[j..j + 2]);
                    block(inp, ar, j, 2, &mut a)?;
                    bias(&a, 2, &res, &old, &mut bc);
                    edge_pair(&mut force[j..j + 2], &a, &bc);
                    improvement = improvement - kept_change(&a, &mut force[j..j + 2], &old, &res);
                }
                c += 2 * (dim - 1);
            } else if ty == CONTACT_ELLIPTIC {
                let k = cone(inp, i);
                let (dim, n) = (k.dim as usize, k.dim as usize - 1);
                residual(inp, ar, b, force, i + 1, &mut res[..n]);
                old[..n].copy_from_slice(&force[i + 1..i + dim]);
                block(inp, ar, i + 1, n, &mut a)?;
                bias(&a, n, &res, &old, &mut bc);
                if force[i] < MINVAL {
                    force[i + 1..i + dim].fill(0.0);
                } else {
                    let mut ac = [0.0; 25];
                    ac[..n * n].copy_from_slice(&a[..n * n]);
                    let mut v = [0.0; 5];
                    friction_qcqp(&mut v[..n], &ac, &bc, &k.friction, force[i]);
                    force[i + 1..i + dim].copy_from_slice(&v[..n]);
                }
                improvement = improvement - kept_change(&a, &mut force[i + 1..i + dim], &old, &res);
                c += dim;
            } else {
                c += 1;
            }
        }
        // Step 3: state, statistics, stop
        for c in 0..nefc {
            s.oldstate[c] = st.efc_state[at(c)];
        }
        let nactive = dual_state(inp, force, st.efc_state, counts, rows);
        let nchange = (0..nefc).filter(|&c| s.oldstate[c] != st.efc_state[at(c)]).count() as i32;
        improvement = improvement * scale;
        if stat_island < NISLAND {
            let slot = iter + st.solver_niter[stat_island];
            if (0..NSOLVER as i32).contains(&slot) {
                let stat = SolverStat { improvement, nactive, nchange, ..SolverStat::default() };
                st.stats.push((stat_island * NSOLVER + slot as usize, stat));
            }
        }
        iter += 1;
        if m.tolerance > improvement {
            break;
        }
    }
    if stat_island < NISLAND {
        st.solver_niter[stat_island] += iter;
    }
    Ok(())
}
