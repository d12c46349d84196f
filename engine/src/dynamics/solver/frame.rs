//! `mj_fwdConstraint` with constraint rows for the Newton and CG solvers, pyramidal or elliptic
//! cones, over islands, on a dense or sparse Jacobian (`docs/measurements.md` D13, D16 to D21,
//! D30, D31): `efc_b`, the warm start, the island gathers, 4.0.0's `mj_solPrimal` for each island
//! (its start and convergence certificate, its CG iterations, and its Newton iterations, on a
//! sparse Jacobian in the natural order with the cone Hessians of D82 to D84), and the scatter
//! back. [`solve`] reports the calls where a sparse Hessian may be reordered (flexes, D53),
//! which the caller leaves to the library.
//!
//! Algorithm (one call):
//! 1. `efc_b = J qacc_smooth - aref`.
//! 2. Warm start: the cost at `qacc_warmstart` (constraint update plus the Gauss term
//!    `0.5 dq' M dq`) against the cost at `qacc_smooth`; `qacc` is the better one, unconstrained
//!    dofs take `qacc_smooth`; `efc_state`, `efc_force` and `qfrc_constraint` are left as the
//!    update at `qacc_smooth` sets them.
//! 3. Gathers into the island arrays.
//! 4. Each island: `Ma`, `Jaref`, the constraint update, `grad`, the scale `1 / trace(M)`,
//!    `M \ grad`; certified when `0.5 scale grad' M^-1 grad` and `scale |grad|` are both under the
//!    tolerance (then no Hessian and no iteration; CG tests the gap alone, D30); otherwise the CG
//!    iterations (`cg`) or, dense, the Newton iterations (`newton`).
//! 5. Scatter of `qacc`, `qfrc_constraint` and `efc_force` back.
// Indexed loops walk island maps and rows as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::cg::{self, CgScratch};
use super::newton::{iterate, Iterate, NewtonScratch, Problem};
use super::products::{mul_mat_t_vec, mul_sym_vec_sparse, norm};
use super::update::{constraint_update, Rows};
use super::NISLAND;
use super::{SolverStat, NSOLVER};
use crate::dynamics::constraint::super_sparse;
use crate::dynamics::reference::{dense_rows, dot, sparse_dot, Jacobian};
use crate::dynamics::solve_ld;

/// The model side of the call (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct FrameModel<'a> {
    /// `M_rownnz`, `M_rowadr`, `M_colind`: the inertia's sparse lower triangle (`nv` rows).
    pub m_rownnz: &'a [i32],
    /// See `m_rownnz`.
    pub m_rowadr: &'a [i32],
    /// See `m_rownnz`.
    pub m_colind: &'a [i32],
    /// `opt.tolerance`.
    pub tolerance: f64,
    /// Warm start on (`mjDSBL_WARMSTART` clear).
    pub warmstart: bool,
    /// `opt.ls_tolerance`, `opt.iterations`, `opt.ls_iterations` (the Newton iterations').
    pub ls_tolerance: f64,
    /// See `ls_tolerance`.
    pub iterations: i32,
    /// See `ls_tolerance`.
    pub ls_iterations: i32,
    /// Elliptic cones (`opt.cone`).
    pub elliptic: bool,
    /// The primal solver `mj_solPrimal` runs (`opt.solver`; PGS does not read it).
    pub primal: Primal,
    /// The model has flexes (`nflex > 0`): 4.0.0 may then reorder a sparse Newton Hessian
    /// (D53), which Rust does not do yet.
    pub flexes: bool,
}

/// The two solvers of `mj_solPrimal` (`mjSOL_NEWTON`, `mjSOL_CG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primal {
    /// Newton: the Hessian's factor preconditions the direction.
    Newton,
    /// Conjugate gradients preconditioned by the inertia (D30).
    Cg,
}

/// The islands `mj_island` made (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Islands<'a> {
    /// `nidof`: dofs in some island (the first entries of `map_idof2dof`).
    pub nidof: usize,
    /// `island_nv`, `island_idofadr`, `island_ne`, `island_nf`, `island_nefc`, `island_iefcadr`.
    pub nv: &'a [i32],
    /// See `nv`.
    pub idofadr: &'a [i32],
    /// See `nv`.
    pub ne: &'a [i32],
    /// See `nv`.
    pub nf: &'a [i32],
    /// See `nv`.
    pub nefc: &'a [i32],
    /// See `nv`.
    pub iefcadr: &'a [i32],
    /// `map_idof2dof` (`nv`).
    pub idof2dof: &'a [i32],
    /// `map_iefc2efc` and `map_efc2iefc` (`nefc`).
    pub iefc2efc: &'a [i32],
    /// See `iefc2efc`.
    pub efc2iefc: &'a [i32],
    /// The rows in island order as the update reads them (`iefc_D`, `iefc_R`, ...; `ne`, `nf`
    /// unused).
    pub rows: Rows<'a>,
}

/// The data the call reads.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// `M` (values of the sparse lower triangle), `qLD`, `qLDiagInv`.
    pub mass: &'a [f64],
    /// See `mass`.
    pub qld: &'a [f64],
    /// See `mass`.
    pub qld_diag_inv: &'a [f64],
    /// `qfrc_smooth`, `qacc_smooth`, `qacc_warmstart` (`nv`).
    pub qfrc_smooth: &'a [f64],
    /// See `qfrc_smooth`.
    pub qacc_smooth: &'a [f64],
    /// See `qfrc_smooth`.
    pub qacc_warmstart: &'a [f64],
    /// `efc_J`, dense or sparse as the library treats it.
    pub j: Jacobian<'a>,
    /// `efc_aref`.
    pub aref: &'a [f64],
    /// The rows for the warm start's constraint updates.
    pub rows: Rows<'a>,
    /// The islands.
    pub islands: Islands<'a>,
}

/// Everything the call writes, in MuJoCo's names (sized by [`FrameOutput::resize`]).
#[derive(Clone, Debug, Default)]
pub struct FrameOutput {
    /// `qfrc_constraint`, `qacc` (`nv`).
    pub qfrc_constraint: Vec<f64>,
    /// See `qfrc_constraint`.
    pub qacc: Vec<f64>,
    /// `efc_b`, `efc_force` (`nefc`).
    pub efc_b: Vec<f64>,
    /// See `efc_b`.
    pub efc_force: Vec<f64>,
    /// `efc_state` (`nefc`).
    pub efc_state: Vec<i32>,
    /// `ifrc_smooth`, `ifrc_constraint`, `iacc_smooth`, `iacc` (`nidof`).
    pub ifrc_smooth: Vec<f64>,
    /// See `ifrc_smooth`.
    pub ifrc_constraint: Vec<f64>,
    /// See `ifrc_smooth`.
    pub iacc_smooth: Vec<f64>,
    /// See `ifrc_smooth`.
    pub iacc: Vec<f64>,
    /// `iefc_force`, `iefc_aref` (`nefc`).
    pub iefc_force: Vec<f64>,
    /// See `iefc_force`.
    pub iefc_aref: Vec<f64>,
    /// `iefc_state` (`nefc`).
    pub iefc_state: Vec<i32>,
    /// `solver_nnz` and `solver_niter` of the first `mjNISLAND` islands (the others are not
    /// recorded).
    pub solver_nnz: [i32; NISLAND],
    /// See `solver_nnz`.
    pub solver_niter: [i32; NISLAND],
    /// The contacts' cone Hessians `contact[i].H` (`ncon`; the caller sets them from MuJoCo's
    /// before the call, which writes those of the contacts on the cone with elliptic cones).
    pub contact_h: Vec<[f64; 36]>,
    /// The iterations' statistics as `(island mjNSOLVER + iteration, stat)`, in the order
    /// written (`mjNISLAND` islands and `mjNSOLVER` iterations each at most).
    pub stats: Vec<(usize, SolverStat)>,
    /// The stack frames the call opens, in order, as `(bytes, alignment)` blocks: the warm
    /// start's, then one per island (`mj_solPrimal`'s context blocks).
    pub frames: Vec<[(usize, usize); 3]>,
    /// The high-water frames of the sparse Newton Hessians' setup, flattened (D55; replayed
    /// after `frames`, in any order: only their peaks matter).
    pub peaks: Vec<[(usize, usize); 10]>,
    /// Frames that must fit on the stack but leave no mark (the cone fold's room test, D84): the
    /// library decides otherwise when one does not, so the call is left to it.
    pub stack_tests: Vec<[(usize, usize); 10]>,
}

impl FrameOutput {
    /// Sizes every array for `nv` dofs, `nefc` rows and `nidof` island dofs (values are all
    /// overwritten by [`solve`]).
    fn resize(&mut self, nv: usize, nefc: usize, nidof: usize) {
        for (v, n) in [
            (&mut self.qfrc_constraint, nv),
            (&mut self.qacc, nv),
            (&mut self.efc_b, nefc),
            (&mut self.efc_force, nefc),
            (&mut self.ifrc_smooth, nidof),
            (&mut self.ifrc_constraint, nidof),
            (&mut self.iacc_smooth, nidof),
            (&mut self.iacc, nidof),
            (&mut self.iefc_force, nefc),
            (&mut self.iefc_aref, nefc),
        ] {
            v.resize(n, 0.0);
        }
        self.efc_state.resize(nefc, 0);
        self.iefc_state.resize(nefc, 0);
        self.frames.clear();
        self.peaks.clear();
        self.stack_tests.clear();
        self.stats.clear();
        self.solver_niter = [0; NISLAND];
    }
}

/// Work arrays reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct FrameScratch {
    jar: Vec<f64>,
    dq: Vec<f64>,
    mdq: Vec<f64>,
    /// One island's inertia and factor blocks (values, pattern).
    block_m: Vec<f64>,
    block_qld: Vec<f64>,
    block_diag_inv: Vec<f64>,
    block_rownnz: Vec<i32>,
    block_rowadr: Vec<i32>,
    block_colind: Vec<i32>,
    /// `island dof -> local index`, -1 elsewhere (`nv`).
    local: Vec<i32>,
    /// The transpose's next free entry per dof.
    local_fill: Vec<i32>,
    /// One island's Jacobian block (and, sparse, its transpose).
    bj: BlockJacobian,
    jaref: Vec<f64>,
    ma: Vec<f64>,
    grad: Vec<f64>,
    mgrad: Vec<f64>,
    newton: NewtonScratch,
    cg: CgScratch,
}

/// An island on a sparse Jacobian whose Newton iterations are not yet in Rust: 4.0.0 may reorder
/// its Hessian (a model with flexes, D53).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedsIterations;

/// The call, into `out` (nothing of MuJoCo's is written); `Err` when some island on a sparse
/// Jacobian needs Newton iterations Rust does not do yet ([`NeedsIterations`]).
pub fn solve(
    m: &FrameModel,
    inp: &FrameInput,
    s: &mut FrameScratch,
    out: &mut FrameOutput,
) -> Result<(), NeedsIterations> {
    let (nv, nefc, isl) = (inp.qacc_smooth.len(), inp.aref.len(), &inp.islands);
    out.resize(nv, nefc, isl.nidof);
    out.qfrc_constraint.fill(0.0);
    // Step 1: efc_b
    j_minus_aref(&mut out.efc_b, &inp.j, inp.qacc_smooth, inp.aref);
    // Step 2: warm start
    warm_start(m, inp, s, out);
    // Step 3: gathers
    let nidof = isl.nidof;
    for k in 0..nidof {
        let dof = isl.idof2dof[k] as usize;
        out.ifrc_smooth[k] = inp.qfrc_smooth[dof];
        out.ifrc_constraint[k] = out.qfrc_constraint[dof];
        out.iacc_smooth[k] = inp.qacc_smooth[dof];
        out.iacc[k] = out.qacc[dof];
    }
    for k in 0..nefc {
        let efc = isl.iefc2efc[k] as usize;
        out.iefc_force[k] = out.efc_force[efc];
        out.iefc_aref[k] = inp.aref[efc];
    }
    // Step 4: each island
    for island in 0..isl.nv.len() {
        island_start(m, inp, s, out, island)?;
    }
    // Step 5: scatter
    for k in 0..nidof {
        let dof = isl.idof2dof[k] as usize;
        out.qacc[dof] = out.iacc[k];
        out.qfrc_constraint[dof] = out.ifrc_constraint[k];
    }
    for i in 0..nefc {
        out.efc_force[i] = out.iefc_force[isl.efc2iefc[i] as usize];
    }
    Ok(())
}

/// `J v - aref` into `res` (`mju_mulMatVec` or `mju_mulMatVecSparse`, then `mju_subFrom`).
pub(super) fn j_minus_aref(res: &mut [f64], j: &Jacobian, v: &[f64], aref: &[f64]) {
    j.mul_vec(v, res);
    for i in 0..res.len() {
        res[i] = res[i] - aref[i];
    }
}

/// `res = J' f` as `mj_constraintUpdate` computes it: dense through `mju_mulMatTVec`, sparse row
/// by row, each row whose force is not zero adding `f J_k` to its columns (D17).
pub(super) fn jt_force(res: &mut [f64], j: &Jacobian, f: &[f64]) {
    match *j {
        Jacobian::Dense { j, .. } => mul_mat_t_vec(res, j, f),
        Jacobian::Sparse { rownnz, rowadr, colind, j, .. } => {
            res.fill(0.0);
            for (i, &fi) in f.iter().enumerate() {
                if fi != 0.0 {
                    let adr = rowadr[i] as usize;
                    for k in adr..adr + rownnz[i].max(0) as usize {
                        let c = colind[k] as usize;
                        res[c] = fi * j[k] + res[c];
                    }
                }
            }
        }
    }
}

/// Step 2 (D13): `qacc` from the warm start, and the rows' state and forces at `qacc_smooth`.
fn warm_start(m: &FrameModel, inp: &FrameInput, s: &mut FrameScratch, out: &mut FrameOutput) {
    let (nv, nefc) = (inp.qacc_smooth.len(), inp.aref.len());
    if !m.warmstart {
        out.qacc.copy_from_slice(inp.qacc_smooth);
        out.efc_force.fill(0.0);
        // efc_state keeps its value: the caller starts from MuJoCo's
        return;
    }
    out.frames.push([(8 * nefc, 8), (8 * nv, 8), (8 * nv, 8)]);
    out.qacc.copy_from_slice(inp.qacc_warmstart);
    s.jar.resize(nefc, 0.0);
    j_minus_aref(&mut s.jar, &inp.j, inp.qacc_warmstart, inp.aref);
    let mut cost_warm = constraint_update(&inp.rows, &s.jar, &mut out.efc_state, &mut out.efc_force, true, None);
    jt_force(&mut out.qfrc_constraint, &inp.j, &out.efc_force);
    // the Gauss term of the warm start: 0.5 dq' M dq
    s.dq.resize(nv, 0.0);
    s.mdq.resize(nv, 0.0);
    for i in 0..nv {
        s.dq[i] = inp.qacc_warmstart[i] - inp.qacc_smooth[i];
    }
    mul_sym_vec_sparse(&mut s.mdq, inp.mass, &s.dq, m.m_rownnz, m.m_rowadr, m.m_colind);
    cost_warm = dot(&s.dq, &s.mdq) * 0.5 + cost_warm;
    let cost_smooth = constraint_update(&inp.rows, &out.efc_b, &mut out.efc_state, &mut out.efc_force, true, None);
    jt_force(&mut out.qfrc_constraint, &inp.j, &out.efc_force);
    if cost_warm > cost_smooth {
        out.qacc.copy_from_slice(inp.qacc_smooth);
    }
    let isl = &inp.islands;
    for k in isl.nidof..nv {
        let dof = isl.idof2dof[k] as usize;
        out.qacc[dof] = inp.qacc_smooth[dof];
    }
}

/// Step 4 for one island (D16): `Err` unless its warm start is certified.
fn island_start(
    m: &FrameModel,
    inp: &FrameInput,
    s: &mut FrameScratch,
    out: &mut FrameOutput,
    island: usize,
) -> Result<(), NeedsIterations> {
    let isl = &inp.islands;
    let (nv_all, nv, dofadr) = (inp.qacc_smooth.len(), isl.nv[island] as usize, isl.idofadr[island] as usize);
    let (nefc, efcadr) = (isl.nefc[island] as usize, isl.iefcadr[island] as usize);
    let dofs = &isl.idof2dof[dofadr..dofadr + nv];
    // the inertia and factor blocks of the island's dofs (columns renumbered within the island)
    // every entry is -1 between islands (each island resets its own dofs after its gathers), so
    // that many small islands do not each clear all dofs
    if s.local.len() != nv_all {
        s.local.clear();
        s.local.resize(nv_all, -1);
    }
    for (k, &dof) in dofs.iter().enumerate() {
        s.local[dof as usize] = k as i32;
    }
    let trace = mass_block(m, inp, s, dofs);
    let nc: usize = s.block_rownnz.iter().map(|&n| n as usize).sum();
    // the Jacobian block: the island's rows and dofs (sparse: columns renumbered, order kept)
    let sparse = matches!(inp.j, Jacobian::Sparse { .. });
    let nj = block_jacobian(&inp.j, isl, s, efcadr, nefc, dofs, nv_all);
    for &dof in dofs {
        s.local[dof as usize] = -1;
    }
    // mj_solPrimal's context: doubles and ints, in one frame (D16; CG's D31)
    let newton = m.primal == Primal::Newton;
    let (nnum, nint) = if !newton {
        cg::context(nefc, nv, nc, nj, sparse)
    } else if sparse {
        let island = (2 * nc + nv + nj, 2 * nv + nc + 3 * nefc + nj);
        (5 * nefc + 5 * nv + island.0 + (nefc + 2 * nv + nj), island.1 + (nefc + 11 * nv + nj))
    } else {
        (5 * nefc + 5 * nv + (2 * nc + nv + nj) + (nefc + nv + nv * nv), nefc + (2 * nv + nc))
    };
    // elliptic: LTJ (6 nv) and, dense, Lcone (nv nv)
    let nnum = nnum
        + if !m.elliptic || !newton {
            0
        } else if sparse {
            6 * nv
        } else {
            6 * nv + nv * nv
        };
    let ctx = [(8 * nnum, 8), (4 * nint, 4)];
    out.frames.push([ctx[0], ctx[1], (0, 8)]);
    let qacc = &out.iacc[dofadr..dofadr + nv];
    s.ma.resize(nv, 0.0);
    mul_sym_vec_sparse(&mut s.ma, &s.block_m, qacc, &s.block_rownnz, &s.block_rowadr, &s.block_colind);
    s.jaref.resize(nefc, 0.0);
    block_j_minus_aref(s, sparse, nv, qacc, &out.iefc_aref[efcadr..efcadr + nefc]);
    let rows = Rows {
        ne: isl.ne[island] as usize,
        nf: isl.nf[island] as usize,
        d: &isl.rows.d[efcadr..efcadr + nefc],
        r: &isl.rows.r[efcadr..efcadr + nefc],
        frictionloss: &isl.rows.frictionloss[efcadr..efcadr + nefc],
        efc_type: &isl.rows.efc_type[efcadr..efcadr + nefc],
        efc_id: &isl.rows.efc_id[efcadr..efcadr + nefc],
        contacts: isl.rows.contacts,
    };
    let (state, force) = (&mut out.iefc_state[efcadr..efcadr + nefc], &mut out.iefc_force[efcadr..efcadr + nefc]);
    // with elliptic cones Newton's first update writes the cone Hessians too (D21; not CG's, D30)
    let h = (m.elliptic && newton).then_some(&mut out.contact_h[..]);
    constraint_update(&rows, &s.jaref, state, force, true, h);
    let ncone = state.iter().filter(|&&s| s == super::update::state::CONE).count() as i32;
    let qfrc = &mut out.ifrc_constraint[dofadr..dofadr + nv];
    if sparse {
        // through the block's transpose, a sparse row product per dof
        s.bj.jacobians(true, nv).1.mul_vec(force, qfrc);
    } else {
        mul_mat_t_vec(qfrc, &s.bj.j, force);
    }
    s.grad.resize(nv, 0.0);
    for i in 0..nv {
        s.grad[i] = s.ma[i] - out.ifrc_smooth[dofadr + i] - qfrc[i];
    }
    let scale = 1.0 / f64::max(1e-15, trace);
    s.mgrad.clear();
    s.mgrad.extend_from_slice(&s.grad);
    solve_ld(&mut s.mgrad, &s.block_qld, &s.block_diag_inv, &s.block_rownnz, &s.block_rowadr, &s.block_colind);
    // the certificate: gap and (Newton) gradient under the tolerance (a NaN gap fails it)
    let g = dot(&s.grad, &s.mgrad) * (scale * 0.5);
    let gap = if g <= 0.0 { 0.0 } else { g };
    let gradient = norm(&s.grad) * scale;
    if island < NISLAND {
        out.solver_nnz[island] = nj as i32;
    }
    if m.tolerance > gap && (!newton || m.tolerance > gradient) {
        return Ok(());
    }
    if !newton {
        cg_island(m, isl, s, out, (rows, sparse, scale), island);
        return Ok(());
    }
    // 4.0.0 tries a fill-reducing order of a sparse Hessian only with flexes, 64 to 24576 dofs
    // and 16 rows or more (D53)
    if sparse && m.flexes && (64..=24576).contains(&nv) && nefc >= 16 {
        return Err(NeedsIterations);
    }
    // Newton iterations on the block (dense: D18 to D21; sparse: D53, D54)
    let (j, jt) = s.bj.jacobians(sparse, nv);
    let p = Problem {
        rows,
        j,
        jt,
        m: &s.block_m,
        m_rownnz: &s.block_rownnz,
        m_rowadr: &s.block_rowadr,
        m_colind: &s.block_colind,
        qfrc_smooth: &out.ifrc_smooth[dofadr..dofadr + nv],
        scale,
        tolerance: m.tolerance,
        ls_tolerance: m.ls_tolerance,
        iterations: m.iterations,
        ls_iterations: m.ls_iterations,
        elliptic: m.elliptic,
    };
    let mut it = Iterate {
        qacc: &mut out.iacc[dofadr..dofadr + nv],
        qfrc_constraint: &mut out.ifrc_constraint[dofadr..dofadr + nv],
        force: &mut out.iefc_force[efcadr..efcadr + nefc],
        state: &mut out.iefc_state[efcadr..efcadr + nefc],
        ma: &mut s.ma,
        jaref: &mut s.jaref,
        grad: &mut s.grad,
        mgrad: &mut s.mgrad,
        contact_h: &mut out.contact_h,
    };
    let stats = &mut out.stats;
    let iter = iterate(&p, &mut it, m.tolerance > gradient, ncone, &mut s.newton, |k, st| {
        if island < NISLAND && k < NSOLVER {
            stats.push((island * NSOLVER + k, st));
        }
    });
    let nnz = match p.blocks() {
        Some(b) => {
            let h = &s.newton.sparse;
            h.frames(&b, ctx, m.elliptic, &mut out.peaks, &mut out.stack_tests);
            (h.nl() << usize::from(m.elliptic)) + h.nh(&b)
        }
        None => nv * nv,
    };
    if island < NISLAND {
        out.solver_niter[island] += iter;
        out.solver_nnz[island] = nnz as i32;
    }
    Ok(())
}

/// The island's blocks of `M` and its factor `qLD` (the island's rows, columns renumbered
/// within the island through `s.local`), the factor's inverse diagonal, and the trace of the `M`
/// block (its diagonal summed in dof order).
fn mass_block(m: &FrameModel, inp: &FrameInput, s: &mut FrameScratch, dofs: &[i32]) -> f64 {
    for v in [&mut s.block_m, &mut s.block_qld, &mut s.block_diag_inv] {
        v.clear();
    }
    for v in [&mut s.block_rownnz, &mut s.block_rowadr, &mut s.block_colind] {
        v.clear();
    }
    if let Some(trace) = mass_run(m, inp, s, dofs) {
        return trace;
    }
    let (b_m, b_qld) = (&mut s.block_m, &mut s.block_qld);
    let (b_nnz, b_adr, b_col) = (&mut s.block_rownnz, &mut s.block_rowadr, &mut s.block_colind);
    let mut trace = 0.0;
    for &dof in dofs {
        let (adr, nnz) = (m.m_rowadr[dof as usize] as usize, m.m_rownnz[dof as usize] as usize);
        b_adr.push(b_m.len() as i32);
        let mut count = 0;
        for k in adr..adr + nnz {
            let col = s.local[m.m_colind[k] as usize];
            if col >= 0 {
                b_col.push(col);
                b_m.push(inp.mass[k]);
                b_qld.push(inp.qld[k]);
                count += 1;
            }
        }
        b_nnz.push(count);
        s.block_diag_inv.push(inp.qld_diag_inv[dof as usize]);
        trace = trace + inp.mass[adr + nnz - 1];
    }
    trace
}

/// [`mass_block`] when the island's dofs are one run whose rows of `M` follow each other and
/// whose columns all lie in the run (a tree's dofs are consecutive, its ancestors before it): the
/// blocks are then slices of `M` and `qLD` with the columns shifted, the entries the gather
/// would keep, in its order (`docs/measurements.md` N42). `None` (nothing written) otherwise.
fn mass_run(m: &FrameModel, inp: &FrameInput, s: &mut FrameScratch, dofs: &[i32]) -> Option<f64> {
    let (nv, d0) = (dofs.len(), *dofs.first()? as usize);
    if dofs.iter().enumerate().any(|(k, &d)| d as usize != d0 + k) {
        return None;
    }
    let (rownnz, rowadr) = (m.m_rownnz.get(d0..d0 + nv)?, m.m_rowadr.get(d0..d0 + nv)?);
    let start = rowadr[0] as usize;
    let mut end = start;
    for (&adr, &nnz) in rowadr.iter().zip(rownnz) {
        if adr as usize != end || nnz < 1 {
            return None;
        }
        end += nnz as usize;
    }
    let cols = m.m_colind.get(start..end)?;
    if cols.iter().any(|&c| (c as usize).wrapping_sub(d0) >= nv) {
        return None;
    }
    let base = (d0 as i32, start as i32);
    s.block_colind.extend(cols.iter().map(|&c| c - base.0));
    s.block_m.extend_from_slice(&inp.mass[start..end]);
    s.block_qld.extend_from_slice(&inp.qld[start..end]);
    s.block_rownnz.extend_from_slice(rownnz);
    s.block_rowadr.extend(rowadr.iter().map(|&a| a - base.1));
    s.block_diag_inv.extend_from_slice(&inp.qld_diag_inv[d0..d0 + nv]);
    let mut trace = 0.0;
    for &adr in &rowadr[1..] {
        trace = trace + inp.mass[adr as usize - 1];
    }
    Some(trace + inp.mass[end - 1])
}

/// One island's Jacobian block: dense `nefc x nv` values, or sparse rows (columns renumbered
/// within the island) and the transpose (each dof's entries in row order).
#[derive(Clone, Debug, Default)]
struct BlockJacobian {
    j: Vec<f64>,
    rownnz: Vec<i32>,
    rowadr: Vec<i32>,
    colind: Vec<i32>,
    t: Vec<f64>,
    t_rownnz: Vec<i32>,
    t_rowadr: Vec<i32>,
    t_colind: Vec<i32>,
    /// Each row's supernode (`mju_superSparse`) in the block and in its transpose: the products
    /// `J x` and `J' f` then gather `x` once per supernode (each row's sum unchanged).
    rowsuper: Vec<i32>,
    t_rowsuper: Vec<i32>,
}

impl BlockJacobian {
    /// The block and its transpose as the solvers read them (the transpose unused when dense;
    /// sparse rows without supernodes).
    fn jacobians(&self, sparse: bool, nv: usize) -> (Jacobian<'_>, Jacobian<'_>) {
        if sparse {
            let j = Jacobian::Sparse {
                rownnz: &self.rownnz,
                rowadr: &self.rowadr,
                rowsuper: &self.rowsuper,
                colind: &self.colind,
                j: &self.j,
            };
            let t = Jacobian::Sparse {
                rownnz: &self.t_rownnz,
                rowadr: &self.t_rowadr,
                rowsuper: &self.t_rowsuper,
                colind: &self.t_colind,
                j: &self.t,
            };
            (j, t)
        } else {
            (Jacobian::Dense { nv, j: &self.j }, Jacobian::Dense { nv, j: &self.j })
        }
    }
}

/// The CG iterations of one island (D30) on the blocks `island_start` gathered, with their
/// statistics.
fn cg_island(
    m: &FrameModel,
    isl: &Islands,
    s: &mut FrameScratch,
    out: &mut FrameOutput,
    (rows, sparse, scale): (Rows, bool, f64),
    island: usize,
) {
    let (nv, dofadr) = (isl.nv[island] as usize, isl.idofadr[island] as usize);
    let (nefc, efcadr) = (isl.nefc[island] as usize, isl.iefcadr[island] as usize);
    let (j, jt) = s.bj.jacobians(sparse, nv);
    let p = cg::Problem {
        rows,
        j,
        jt,
        m: &s.block_m,
        qld: &s.block_qld,
        qld_diag_inv: &s.block_diag_inv,
        m_rownnz: &s.block_rownnz,
        m_rowadr: &s.block_rowadr,
        m_colind: &s.block_colind,
        qfrc_smooth: &out.ifrc_smooth[dofadr..dofadr + nv],
        scale,
        tolerance: m.tolerance,
        ls_tolerance: m.ls_tolerance,
        iterations: m.iterations,
        ls_iterations: m.ls_iterations,
    };
    let mut it = Iterate {
        qacc: &mut out.iacc[dofadr..dofadr + nv],
        qfrc_constraint: &mut out.ifrc_constraint[dofadr..dofadr + nv],
        force: &mut out.iefc_force[efcadr..efcadr + nefc],
        state: &mut out.iefc_state[efcadr..efcadr + nefc],
        ma: &mut s.ma,
        jaref: &mut s.jaref,
        grad: &mut s.grad,
        mgrad: &mut s.mgrad,
        contact_h: &mut [],
    };
    let stats = &mut out.stats;
    let iter = cg::iterate(&p, &mut it, &mut s.cg, |k, st| {
        if island < NISLAND && k < NSOLVER {
            stats.push((island * NSOLVER + k, st));
        }
    });
    if island < NISLAND {
        out.solver_niter[island] += iter;
    }
}

/// The island's Jacobian block into the scratch (dense `nefc x nv`, or sparse rows with the
/// columns renumbered within the island, and its transpose); its number of entries `nJ`.
fn block_jacobian(
    j: &Jacobian,
    isl: &Islands,
    s: &mut FrameScratch,
    efcadr: usize,
    nefc: usize,
    dofs: &[i32],
    nv_all: usize,
) -> usize {
    let nv = dofs.len();
    match *j {
        Jacobian::Dense { j, .. } => {
            s.bj.j.resize(nefc * nv, 0.0);
            if nv == 0 {
                return 0;
            }
            // dofs in one run (trees numbered consecutively): each row is one slice of J's row
            let run = dofs.iter().enumerate().all(|(k, &d)| d as usize == dofs[0] as usize + k);
            for (r, out) in s.bj.j.chunks_exact_mut(nv).enumerate() {
                let efc = isl.iefc2efc[efcadr + r] as usize;
                let row = &j[efc * nv_all..(efc + 1) * nv_all];
                if run {
                    let d0 = dofs[0] as usize;
                    out.copy_from_slice(&row[d0..d0 + nv]);
                } else {
                    for (o, &dof) in out.iter_mut().zip(dofs) {
                        *o = row[dof as usize];
                    }
                }
            }
            nefc * nv
        }
        Jacobian::Sparse { rownnz, rowadr, colind, j, .. } => {
            let (bj, local) = (&mut s.bj, &s.local[..]);
            bj.j.clear();
            bj.rownnz.clear();
            bj.rowadr.clear();
            bj.colind.clear();
            for r in 0..nefc {
                let efc = isl.iefc2efc[efcadr + r] as usize;
                let adr = rowadr[efc] as usize;
                let start = bj.j.len();
                bj.rowadr.push(start as i32);
                let n = rownnz[efc].max(0) as usize;
                for (&c, &v) in colind[adr..adr + n].iter().zip(&j[adr..adr + n]) {
                    let col = local[c as usize];
                    if col >= 0 {
                        bj.colind.push(col);
                        bj.j.push(v);
                    }
                }
                bj.rownnz.push((bj.j.len() - start) as i32);
            }
            // the transpose: each dof's entries in row order
            let nj = s.bj.j.len();
            s.bj.t_rownnz.clear();
            s.bj.t_rownnz.resize(nv, 0);
            let t_rownnz = &mut s.bj.t_rownnz[..];
            for &c in &s.bj.colind {
                t_rownnz[c as usize] += 1;
            }
            s.bj.t_rowadr.clear();
            let mut at = 0;
            for c in 0..nv {
                s.bj.t_rowadr.push(at);
                at += s.bj.t_rownnz[c];
            }
            s.bj.t.resize(nj, 0.0);
            s.bj.t_colind.resize(nj, 0);
            s.local_fill.clear();
            s.local_fill.extend_from_slice(&s.bj.t_rowadr);
            // on local slices, so that the stores do not reload the vectors' addresses
            let (bj, fill) = (&mut s.bj, &mut s.local_fill[..]);
            let (t, t_colind) = (&mut bj.t[..], &mut bj.t_colind[..]);
            let (jv, jcol) = (&bj.j[..], &bj.colind[..]);
            for r in 0..nefc {
                let (adr, n) = (bj.rowadr[r] as usize, bj.rownnz[r] as usize);
                for (&c, &v) in jcol[adr..adr + n].iter().zip(&jv[adr..adr + n]) {
                    let at = &mut fill[c as usize];
                    t[*at as usize] = v;
                    t_colind[*at as usize] = r as i32;
                    *at += 1;
                }
            }
            let b = &mut s.bj;
            b.rowsuper.resize(nefc, 0);
            super_sparse(&mut b.rowsuper, &b.rownnz, &b.rowadr, &b.colind);
            b.t_rowsuper.resize(nv, 0);
            super_sparse(&mut b.t_rowsuper, &b.t_rownnz, &b.t_rowadr, &b.t_colind);
            nj
        }
    }
}

/// `Jaref = J iacc - iefc_aref` on the island's block (dense row dots or sparse row products).
fn block_j_minus_aref(s: &mut FrameScratch, sparse: bool, nv: usize, qacc: &[f64], aref: &[f64]) {
    if sparse {
        for r in 0..s.jaref.len() {
            let (adr, n) = (s.bj.rowadr[r] as usize, s.bj.rownnz[r] as usize);
            s.jaref[r] = sparse_dot(&s.bj.j[adr..adr + n], &s.bj.colind[adr..adr + n], qacc);
        }
    } else {
        // each row's dot in `dot`'s order, compiled for AVX as the library's `mju_dot`
        dense_rows(nv, &s.bj.j, qacc, &mut s.jaref);
    }
    for r in 0..s.jaref.len() {
        s.jaref[r] = s.jaref[r] - aref[r];
    }
}
