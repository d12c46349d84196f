//! The Newton iterations of MuJoCo 4.0.0's `mj_solPrimal` for one island on a dense Jacobian,
//! pyramidal or elliptic cones (`docs/measurements.md` D18 to D21): the Hessian `M + J' D J` over the
//! quadratic rows and its Cholesky factor, the search direction `-H^-1 grad`, the line search,
//! the move, the constraint update, the factor's rank-one updates for the rows whose state
//! changed, and the per-iteration statistics, until one of the termination tests holds.
//!
//! Algorithm (after the start of D16 found the warm start not certified):
//! 1. `D = efc_D` on quadratic rows, 0 elsewhere; `H = J' D J + M` (lower triangle); `L =
//!    chol(H)`; `Mgrad = H^-1 grad`; done when the gradient test of D16 and the Newton
//!    decrement `0.5 scale grad' H^-1 grad` are both under the tolerance.
//! 2. Each iteration: `search = -Mgrad`, the line search (no step ends), `qacc`, `Ma` and
//!    `Jaref` moved, the constraint update, the factor updated row by row (refactored from
//!    scratch when an update loses rank), the contacts on the cone added to a copy of it,
//!    `grad`, `Mgrad`, the statistics, and the tests on the improvement, the gradient and the
//!    decrement.
// Indexed loops walk rows as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::chol::{chol_factor, chol_solve, chol_update};
use super::cone_sparse::ConeRows;
use super::linesearch::{prepare, search_norm, Line, Outcome};
use super::newton_sparse::{Blocks, SparseHessian};
use super::products::{mul_mat_t_vec, mul_sym_vec_sparse, norm, sqr_mat_td};
use super::update::{constraint_update, state, Rows};
use super::SolverStat;
use crate::dynamics::reference::{dot, Jacobian};
use crate::math::MINVAL;

/// The island's fixed data as `mj_solPrimal` sees it (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// The island's rows.
    pub rows: Rows<'a>,
    /// The island's Jacobian block (dense `nefc x nv`, or sparse rows renumbered within it).
    pub j: Jacobian<'a>,
    /// Its transpose on a sparse block (each dof's entries in row order); unused when dense.
    pub jt: Jacobian<'a>,
    /// The island's inertia block (values, `M_rownnz`, `M_rowadr`, `M_colind`).
    pub m: &'a [f64],
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
    /// Elliptic cones (`opt.cone`): the cone Hessians join the factor (D21).
    pub elliptic: bool,
}

impl<'a> Problem<'a> {
    /// The dense Jacobian block (empty on a sparse one, whose Hessian is [`SparseHessian`]'s).
    fn dense(&self) -> &'a [f64] {
        match self.j {
            Jacobian::Dense { j, .. } => j,
            Jacobian::Sparse { .. } => &[],
        }
    }

    /// The sparse Hessian's inputs, on a sparse Jacobian block.
    pub fn blocks(&self) -> Option<Blocks<'a>> {
        let (
            Jacobian::Sparse { rownnz, rowadr, colind, j, .. },
            Jacobian::Sparse { rownnz: tn, rowadr: ta, colind: tc, j: t, .. },
        ) = (self.j, self.jt)
        else {
            return None;
        };
        Some(Blocks {
            j,
            j_rownnz: rownnz,
            j_rowadr: rowadr,
            j_colind: colind,
            jt: t,
            jt_rownnz: tn,
            jt_rowadr: ta,
            jt_colind: tc,
            m: self.m,
            m_rownnz: self.m_rownnz,
            m_rowadr: self.m_rowadr,
            m_colind: self.m_colind,
            efc_d: self.rows.d,
        })
    }
}

/// The island's iterate, updated in place (`iacc`, `ifrc_constraint`, `iefc_force`,
/// `iefc_state` of the island, and the start's `Ma`, `Jaref`, `grad`, `Mgrad`).
#[derive(Debug)]
pub struct Iterate<'a> {
    /// `qacc`.
    pub qacc: &'a mut [f64],
    /// `qfrc_constraint`.
    pub qfrc_constraint: &'a mut [f64],
    /// `efc_force`, `efc_state`.
    pub force: &'a mut [f64],
    /// See `force`.
    pub state: &'a mut [i32],
    /// `Ma`, `Jaref`, `grad` (`Ma - qfrc_smooth - qfrc_constraint`), `Mgrad`.
    pub ma: &'a mut [f64],
    /// See `ma`.
    pub jaref: &'a mut [f64],
    /// See `ma`.
    pub grad: &'a mut [f64],
    /// See `ma`.
    pub mgrad: &'a mut [f64],
    /// The contacts' cone Hessians (`contact[i].H`, all contacts), written for those on the cone.
    pub contact_h: &'a mut [[f64; 36]],
}

/// Work arrays reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct NewtonScratch {
    d: Vec<f64>,
    l: Vec<f64>,
    lcone: Vec<f64>,
    ltj: Vec<f64>,
    cholupd: Vec<f64>,
    oldstate: Vec<i32>,
    search: Vec<f64>,
    mv: Vec<f64>,
    jv: Vec<f64>,
    quad: Vec<f64>,
    /// The Hessian on a sparse Jacobian.
    pub sparse: SparseHessian,
}

/// `H = J' D J + M` over the quadratic rows, factored into `s.l` (`FactorizeHessian` with the
/// Hessian recomputed, D18).
fn factor_hessian(p: &Problem, st: &[i32], s: &mut NewtonScratch) {
    let nv = p.qfrc_smooth.len();
    for i in 0..st.len() {
        s.d[i] = if st[i] == state::QUADRATIC { p.rows.d[i] } else { 0.0 };
    }
    sqr_mat_td(&mut s.l, p.dense(), &s.d, nv, false);
    for i in 0..nv {
        let adr = p.m_rowadr[i] as usize;
        for k in adr..adr + p.m_rownnz[i] as usize {
            let at = i * nv + p.m_colind[k] as usize;
            s.l[at] = s.l[at] + p.m[k];
        }
    }
    chol_factor(&mut s.l, nv, MINVAL);
}

/// `PrimalUpdateConstraint` without the cost: state and force of every row (and, with elliptic
/// cones, the Hessians of the contacts on the cone), `J' force`, and the number of rows not
/// satisfied and on the cone.
fn update_constraint(p: &Problem, it: &mut Iterate) -> (i32, i32) {
    let h = p.elliptic.then_some(&mut *it.contact_h);
    constraint_update(&p.rows, it.jaref, it.state, it.force, false, h);
    match p.j {
        Jacobian::Dense { j, .. } => mul_mat_t_vec(it.qfrc_constraint, j, it.force),
        Jacobian::Sparse { .. } => p.jt.mul_vec(it.force, it.qfrc_constraint),
    }
    let nactive = it.state.iter().filter(|&&s| s != state::SATISFIED).count() as i32;
    let ncone = it.state.iter().filter(|&&s| s == state::CONE).count() as i32;
    (nactive, ncone)
}

/// `HessianConeUpdate` on a dense factor (D21): `Lcone = L`, then for each contact on the cone
/// the Cholesky factor `C` of its cone Hessian, `LTJ = C' J` over its rows, and one rank-one
/// update of `Lcone` per row of `LTJ`; returns the updates made.
fn cone_update(p: &Problem, st: &[i32], h: &[[f64; 36]], s: &mut NewtonScratch) -> i32 {
    let (nv, nefc) = (p.qfrc_smooth.len(), st.len());
    s.lcone.copy_from_slice(&s.l);
    let mut nupdate = 0;
    let mut i = 0;
    while i < nefc {
        if st[i] != state::CONE {
            i += 1;
            continue;
        }
        let id = p.rows.efc_id[i] as usize;
        let dim = p.rows.contacts[id].dim as usize;
        let mut local = [0.0; 36];
        local[..dim * dim].copy_from_slice(&h[id][..dim * dim]);
        chol_factor(&mut local[..dim * dim], dim, MINVAL);
        let ltj = &mut s.ltj[..dim * nv];
        ltj.fill(0.0);
        for r in 0..dim {
            let row = &p.dense()[(i + r) * nv..(i + r + 1) * nv];
            for c in 0..=r {
                let scl = local[r * dim + c];
                for k in 0..nv {
                    ltj[c * nv + k] = scl * row[k] + ltj[c * nv + k];
                }
            }
        }
        for r in 0..dim {
            chol_update(&mut s.lcone, &mut ltj[r * nv..(r + 1) * nv], true);
        }
        nupdate += dim as i32;
        i += dim;
    }
    nupdate
}

/// `Mgrad = H^-1 grad` through the factor the Newton direction uses: the sparse one, or with
/// contacts on the cone the one with their Hessians.
fn direction(p: &Problem, it: &mut Iterate, s: &NewtonScratch, ncone: i32) {
    if p.blocks().is_some() {
        s.sparse.solve(it.mgrad, it.grad, ncone > 0);
    } else if ncone > 0 {
        chol_solve(it.mgrad, &s.lcone, it.grad);
    } else {
        chol_solve(it.mgrad, &s.l, it.grad);
    }
}

/// `0.5 scale grad' Mgrad`, 0 when not positive (a NaN stays NaN).
fn decrement(p: &Problem, it: &Iterate) -> f64 {
    let g = dot(it.grad, it.mgrad) * (p.scale * 0.5);
    if g <= 0.0 {
        0.0
    } else {
        g
    }
}

/// The iterations after an uncertified start (`gradient_ok`: the start's gradient test held;
/// `ncone`: its contacts on the cone); writes each iteration's statistics through
/// `stat(iter, stat)` and returns the number of iterations.
pub fn iterate(
    p: &Problem,
    it: &mut Iterate,
    gradient_ok: bool,
    mut ncone: i32,
    s: &mut NewtonScratch,
    mut stat: impl FnMut(usize, SolverStat),
) -> i32 {
    let (nv, nefc) = (it.qacc.len(), it.force.len());
    let blocks = p.blocks();
    if blocks.is_none() {
        s.d.resize(nefc, 0.0);
        s.l.resize(nv * nv, 0.0);
        if p.elliptic {
            s.lcone.resize(nv * nv, 0.0);
            s.ltj.resize(6 * nv, 0.0);
        }
        s.cholupd.resize(nv, 0.0);
    }
    s.search.resize(nv, 0.0);
    s.mv.resize(nv, 0.0);
    s.jv.resize(nefc, 0.0);
    s.quad.resize(3 * nefc, 0.0);
    s.oldstate.resize(nefc, 0);
    // Step 1: the Hessian, its factor and the Newton direction
    if let Some(b) = &blocks {
        s.sparse.build(b, it.state, &cones(p, it.contact_h));
    } else {
        factor_hessian(p, it.state, s);
        if ncone > 0 {
            cone_update(p, it.state, it.contact_h, s);
        }
    }
    direction(p, it, s, ncone);
    if gradient_ok && decrement(p, it) < p.tolerance {
        return 0;
    }
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
        s.oldstate.copy_from_slice(it.state);
        let nactive;
        (nactive, ncone) = update_constraint(p, it);
        // the factor, for the rows that entered or left the quadratic state
        let (mut nupdate, refactored) = match &blocks {
            // (the cone step included, D83)
            Some(b) => s.sparse.incremental(b, &s.oldstate, it.state, &cones(p, it.contact_h)),
            None => dense_update(p, it.state, s),
        };
        // the cones on top of the updated (or rebuilt) factor
        if ncone > 0 && blocks.is_none() {
            let n = cone_update(p, it.state, it.contact_h, s);
            if !refactored {
                nupdate += n;
            }
        }
        for i in 0..nv {
            it.grad[i] = it.ma[i] - p.qfrc_smooth[i] - it.qfrc_constraint[i];
        }
        direction(p, it, s, ncone);
        let nchange = (0..nefc).filter(|&i| it.state[i] != s.oldstate[i]).count() as i32;
        let improvement = p.scale * ls.improvement;
        let gradient = p.scale * norm(it.grad);
        let st = SolverStat { improvement, gradient, lineslope: ls.slope, nactive, nchange, neval: ls.neval, nupdate };
        stat(iter as usize, st);
        let dec = decrement(p, it);
        iter += 1;
        if (improvement > 0.0 && improvement < p.tolerance) || gradient < p.tolerance || dec < p.tolerance {
            break;
        }
        for i in 0..nv {
            s.search[i] = -it.mgrad[i];
        }
    }
    iter
}

/// The contacts the sparse cone step reads.
fn cones<'a>(p: &Problem<'a>, h: &'a [[f64; 36]]) -> ConeRows<'a> {
    ConeRows { efc_id: p.rows.efc_id, contacts: p.rows.contacts, h }
}

/// The dense factor's rank-one updates for the rows that entered or left the quadratic state,
/// refactored from scratch when one loses rank; returns the updates counted (`nefc` when
/// refactored) and whether it was.
fn dense_update(p: &Problem, st: &[i32], s: &mut NewtonScratch) -> (i32, bool) {
    let (nv, nefc) = (s.cholupd.len(), st.len());
    let mut nupdate = 0;
    for i in 0..nefc {
        let (old, new) = (s.oldstate[i] == state::QUADRATIC, st[i] == state::QUADRATIC);
        if old == new {
            continue;
        }
        let sd = p.rows.d[i].sqrt();
        for k in 0..nv {
            s.cholupd[k] = p.dense()[i * nv + k] * sd;
        }
        let rank = chol_update(&mut s.l, &mut s.cholupd, new);
        nupdate += 1;
        if rank < nv {
            factor_hessian(p, st, s);
            return (nefc as i32, true);
        }
    }
    (nupdate, false)
}
