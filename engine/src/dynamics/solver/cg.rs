//! The CG iterations of MuJoCo 4.0.0's `mj_solPrimal` for one island, dense or sparse Jacobian,
//! pyramidal or elliptic cones (`docs/measurements.md` D30, D31): the same line search, move and
//! constraint update as the Newton solver (D19, D20), but the direction preconditioned by the
//! inertia alone (`M^-1 grad`, the island's `qLD` factor) and made conjugate by the Hager-Zhang
//! update, so there is no Hessian, no factor update and no cone Hessian.
//!
//! Algorithm (after the start of D16 found the warm start not certified; D30):
//! 1. `search = -Mgrad` (`Mgrad = M^-1 grad`, computed by the start).
//! 2. Each iteration: the line search (no step ends), `qacc`, `Ma` and `Jaref` moved, the old
//!    `grad` and `Mgrad` kept, the constraint update (`J' force`, the rows not satisfied),
//!    `grad`, `Mgrad = M^-1 grad`, the statistics, and the tests on the improvement and the
//!    gradient.
//! 3. The direction: with `y = grad - gradold` and `My = Mgrad - Mgradold`, `beta = 0` when
//!    `search' y < mjMINVAL`, else the Hager-Zhang coefficient `(y' Mgrad - 2 (y' My / search' y)
//!    search' grad) / search' y`, bounded below by `-1 / max(mjMINVAL, |search| min(0.01,
//!    |grad|))`; `search = beta search - Mgrad`.
// Indexed loops walk rows as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::linesearch::{prepare, search_norm, Line, Outcome};
use super::newton::Iterate;
use super::products::{mul_mat_t_vec, mul_sym_vec_sparse, norm};
use super::update::{constraint_update, state, Rows};
use super::SolverStat;
use crate::dynamics::reference::{dot, Jacobian};
use crate::dynamics::solve_ld;
use crate::math::MINVAL;

/// The Hager-Zhang update's `eta`: how far from orthogonal to the gradient the direction stays.
const ETA: f64 = 0.01;

/// The island's fixed data as `mj_solPrimal` sees it for CG (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// The island's rows.
    pub rows: Rows<'a>,
    /// The island's Jacobian block (dense `nefc x nv`, or sparse rows renumbered within it).
    pub j: Jacobian<'a>,
    /// Its transpose on a sparse block (each dof's entries in row order); unused when dense.
    pub jt: Jacobian<'a>,
    /// The island's inertia block and its factor (values of `M` and `qLD`, `qLDiagInv`,
    /// `M_rownnz`, `M_rowadr`, `M_colind`).
    pub m: &'a [f64],
    /// See `m`.
    pub qld: &'a [f64],
    /// See `m`.
    pub qld_diag_inv: &'a [f64],
    /// See `m`.
    pub m_rownnz: &'a [i32],
    /// See `m`.
    pub m_rowadr: &'a [i32],
    /// See `m`.
    pub m_colind: &'a [i32],
    /// `ifrc_smooth` of the island.
    pub qfrc_smooth: &'a [f64],
    /// `1 / max(1e-15, trace(M))` (D16).
    pub scale: f64,
    /// `opt.tolerance`, `opt.ls_tolerance`, `opt.iterations`, `opt.ls_iterations`.
    pub tolerance: f64,
    /// See `tolerance`.
    pub ls_tolerance: f64,
    /// See `tolerance`.
    pub iterations: i32,
    /// See `tolerance`.
    pub ls_iterations: i32,
}

/// Work arrays reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct CgScratch {
    search: Vec<f64>,
    mv: Vec<f64>,
    jv: Vec<f64>,
    quad: Vec<f64>,
    oldstate: Vec<i32>,
    gradold: Vec<f64>,
    mgradold: Vec<f64>,
    graddif: Vec<f64>,
    mgraddif: Vec<f64>,
}

/// `M^-1 grad` through the island's `qLD` factor (`mj_solveLD` on a copy of `grad`).
pub fn precondition(p: &Problem, grad: &[f64], mgrad: &mut [f64]) {
    mgrad.copy_from_slice(grad);
    solve_ld(mgrad, p.qld, p.qld_diag_inv, p.m_rownnz, p.m_rowadr, p.m_colind);
}

/// `qfrc_constraint = J' force`: dense by `mju_mulMatTVec`, sparse through the transpose's row
/// products (D17).
fn jt_force(p: &Problem, force: &[f64], res: &mut [f64]) {
    match p.j {
        Jacobian::Dense { j, .. } => mul_mat_t_vec(res, j, force),
        Jacobian::Sparse { .. } => p.jt.mul_vec(force, res),
    }
}

/// The Hager-Zhang coefficient of step 3 (0 when conjugacy is lost).
fn beta(it: &Iterate, s: &mut CgScratch) -> f64 {
    let nv = it.grad.len();
    for i in 0..nv {
        s.graddif[i] = it.grad[i] - s.gradold[i];
    }
    for i in 0..nv {
        s.mgraddif[i] = it.mgrad[i] - s.mgradold[i];
    }
    let d_y = dot(&s.search, &s.graddif);
    if d_y < MINVAL {
        return 0.0;
    }
    let y_my = dot(&s.graddif, &s.mgraddif);
    let y_mgrad = dot(&s.graddif, it.mgrad);
    let d_grad = dot(&s.search, it.grad);
    let beta_hz = (y_mgrad - 2.0 * (y_my / d_y) * d_grad) / d_y;
    let bound = -1.0 / f64::max(MINVAL, norm(&s.search) * f64::min(ETA, norm(it.grad)));
    // mju_max(bound, beta_hz): a NaN coefficient stays
    if bound > beta_hz {
        bound
    } else {
        beta_hz
    }
}

/// The iterations after an uncertified start (`it.mgrad` holds `M^-1 grad`); writes each
/// iteration's statistics through `stat(iter, stat)` and returns the number of iterations.
pub fn iterate(p: &Problem, it: &mut Iterate, s: &mut CgScratch, mut stat: impl FnMut(usize, SolverStat)) -> i32 {
    let (nv, nefc) = (it.qacc.len(), it.force.len());
    for v in [&mut s.search, &mut s.mv, &mut s.gradold, &mut s.mgradold, &mut s.graddif, &mut s.mgraddif] {
        v.resize(nv, 0.0);
    }
    s.jv.resize(nefc, 0.0);
    s.quad.resize(3 * nefc, 0.0);
    s.oldstate.resize(nefc, 0);
    // Step 1: the preconditioned steepest descent
    for i in 0..nv {
        s.search[i] = -it.mgrad[i];
    }
    let mut iter = 0;
    let mut ls = Outcome::default();
    while iter < p.iterations {
        // Step 2: line search (no step without a usable direction)
        let Some(snorm) = search_norm(&s.search) else { break };
        mul_sym_vec_sparse(&mut s.mv, p.m, &s.search, p.m_rownnz, p.m_rowadr, p.m_colind);
        p.j.mul_vec(&s.search, &mut s.jv);
        let mut gauss = [0.0; 3];
        prepare(&mut s.quad, &mut gauss, &s.search, it.ma, &s.mv, p.qfrc_smooth, it.jaref, &s.jv, &p.rows);
        let line = Line { rows: p.rows, jaref: it.jaref, jv: &s.jv, quad: &s.quad, quad_gauss: gauss };
        let alpha = line.search(snorm, p.tolerance * p.ls_tolerance, p.ls_iterations, p.scale, &mut ls);
        if alpha == 0.0 {
            break;
        }
        // the move
        for i in 0..nv {
            it.qacc[i] = it.qacc[i] + alpha * s.search[i];
        }
        for i in 0..nv {
            it.ma[i] = it.ma[i] + alpha * s.mv[i];
        }
        for r in 0..nefc {
            it.jaref[r] = it.jaref[r] + alpha * s.jv[r];
        }
        s.gradold.copy_from_slice(it.grad);
        s.mgradold.copy_from_slice(it.mgrad);
        s.oldstate.copy_from_slice(it.state);
        // the update, without cone Hessians
        constraint_update(&p.rows, it.jaref, it.state, it.force, false, None);
        jt_force(p, it.force, it.qfrc_constraint);
        let nactive = it.state.iter().filter(|&&s| s != state::SATISFIED).count() as i32;
        for i in 0..nv {
            it.grad[i] = it.ma[i] - p.qfrc_smooth[i] - it.qfrc_constraint[i];
        }
        precondition(p, it.grad, it.mgrad);
        let nchange = (0..nefc).filter(|&i| it.state[i] != s.oldstate[i]).count() as i32;
        let improvement = p.scale * ls.improvement;
        let gradient = p.scale * norm(it.grad);
        let st =
            SolverStat { improvement, gradient, lineslope: ls.slope, nactive, nchange, neval: ls.neval, nupdate: 0 };
        stat(iter as usize, st);
        iter += 1;
        if (improvement > 0.0 && improvement < p.tolerance) || gradient < p.tolerance {
            break;
        }
        // Step 3: the conjugate direction
        let beta = beta(it, s);
        for i in 0..nv {
            s.search[i] = beta * s.search[i] - it.mgrad[i];
        }
    }
    iter
}

/// `mj_solPrimal`'s context for CG on an island (D31) as `(doubles, ints)`: the common vectors
/// (`5 nefc + 5 nv`), CG's four (`gradold`, `Mgradold`, `graddif`, `Mgraddif`) and the island's
/// `M`, `qLD`, `qLDiagInv` and `J` blocks; sparse, the transpose's values and both patterns.
pub fn context(nefc: usize, nv: usize, nc: usize, nj: usize, sparse: bool) -> (usize, usize) {
    let blocks = (2 * nc + nv + nj, 2 * nv + nc);
    if sparse {
        (5 * nefc + 9 * nv + nj + blocks.0, nefc + 3 * nv + nj + blocks.1 + 3 * nefc + nj)
    } else {
        (5 * nefc + 9 * nv + blocks.0, nefc + blocks.1)
    }
}
