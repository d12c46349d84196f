//! `mj_fwdConstraint` with constraint rows for the PGS solver (projected Gauss-Seidel on the dual,
//! `docs/measurements.md` D13, D25-D28): `efc_b`, PGS's warm start, the solver per island or over
//! all rows at once, and the map back to joint space. Pyramidal cones (every row its own block)
//! and elliptic ones (a contact's rows one block, D29).
//!
//! Algorithm (one call):
//! 1. `efc_b = J qacc_smooth - aref`.
//! 2. Warm start (D25): the constraint update at `qacc_warmstart` gives `efc_force`; the dual
//!    cost `f b + 0.5 f AR f` of that force decides between it and zero.
//! 3. Per island (or once over all rows, D26): `1 / diag(AR)`, the dual state, a fixed-seed
//!    shuffled sweep per iteration with Nesterov extrapolation and restarts, each row moved to
//!    its unconstrained minimum and projected, its cost change kept only when it does not rise,
//!    the improvement scaled by `1 / trace(M)` and recorded as the iteration's statistics (D27).
//! 4. `qfrc_constraint = J' efc_force`, `qacc = qacc_smooth + M^-1 qfrc_constraint` (D28).
// Indexed loops walk row lists and maps as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::frame::{j_minus_aref, jt_force, FrameInput, FrameModel};
use super::pgs_cone;
use super::update::{constraint_update, state, Cone, CONTACT_ELLIPTIC};
use super::{SolverStat, NISLAND, NSOLVER};
use crate::dynamics::reference::{dot, sparse_dot, Jacobian};
use crate::dynamics::solve_ld;

/// What PGS reads beyond the Newton frame's inputs.
#[derive(Clone, Copy, Debug)]
pub struct PgsModel<'a> {
    /// The inertia pattern, tolerance and warm-start flag.
    pub frame: FrameModel<'a>,
    /// `opt.iterations`.
    pub iterations: i32,
    /// The island path is taken (D13); otherwise one solve over all rows.
    pub use_islands: bool,
    /// `nisland` (the warm start sets the unconstrained dofs whenever it is positive).
    pub nisland: usize,
}

/// Everything the call writes, in MuJoCo's names.
#[derive(Clone, Debug, Default)]
pub struct PgsOutput {
    /// `qfrc_constraint`, `qacc` (`nv`).
    pub qfrc_constraint: Vec<f64>,
    /// See `qfrc_constraint`.
    pub qacc: Vec<f64>,
    /// `efc_b`, `efc_force` (`nefc`).
    pub efc_b: Vec<f64>,
    /// See `efc_b`.
    pub efc_force: Vec<f64>,
    /// `efc_state` (`nefc`; the caller starts it from MuJoCo's).
    pub efc_state: Vec<i32>,
    /// The statistics written, as `(island * mjNSOLVER + iteration, stat)`.
    pub stats: Vec<(usize, SolverStat)>,
    /// `solver_niter` (every entry is written).
    pub solver_niter: [i32; NISLAND],
    /// `solver_nnz`, written for the first `nnz_written` islands.
    pub solver_nnz: [i32; NISLAND],
    /// See `solver_nnz`.
    pub nnz_written: usize,
    /// The stack frames, as `(bytes, alignment)` blocks: the warm start's, then one per solve.
    pub frames: Vec<[(usize, usize); 4]>,
}

/// Work arrays reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct PgsScratch {
    jar: Vec<f64>,
    arf: Vec<f64>,
    ar_inv: Vec<f64>,
    oldstate: Vec<i32>,
    blockstart: Vec<i32>,
    prev: Vec<f64>,
    momentum: Vec<f64>,
}

/// A call PGS (or noslip) in Rust does not cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A sparse `efc_AR` row without its diagonal.
    NoDiagonal,
}

/// The call, into `out` (nothing of MuJoCo's is written); `ar` is `efc_AR` (`nefc x nefc`).
pub fn solve_pgs(
    m: &PgsModel,
    inp: &FrameInput,
    ar: &Jacobian,
    s: &mut PgsScratch,
    out: &mut PgsOutput,
) -> Result<(), Unsupported> {
    let (nv, nefc) = (inp.qacc_smooth.len(), inp.aref.len());
    out.qfrc_constraint.resize(nv, 0.0);
    out.qacc.resize(nv, 0.0);
    out.efc_b.resize(nefc, 0.0);
    out.efc_force.resize(nefc, 0.0);
    out.efc_state.resize(nefc, 0);
    out.stats.clear();
    // every (island, iteration) slot at most once: reserved once, never grown per step
    out.stats.reserve(NISLAND * NSOLVER);
    out.frames.clear();
    out.frames.reserve(inp.islands.nv.len() + 2);
    out.qfrc_constraint.fill(0.0);
    // Step 1: efc_b
    j_minus_aref(&mut out.efc_b, &inp.j, inp.qacc_smooth, inp.aref);
    // Step 2: warm start
    warm_start(m, inp, ar, s, out);
    out.solver_niter = [0; NISLAND];
    // Step 3: the solves
    let isl = &inp.islands;
    if m.use_islands {
        for island in 0..isl.nv.len() {
            let (adr, n) = (isl.iefcadr[island] as usize, isl.nefc[island] as usize);
            let rows = Some(&isl.iefc2efc[adr..adr + n]);
            let counts = (isl.ne[island] as usize, isl.nf[island] as usize, n);
            sol_pgs(m, inp, ar, s, out, island as i32, counts, rows)?;
        }
        out.nnz_written = isl.nv.len().min(NISLAND);
    } else {
        sol_pgs(m, inp, ar, s, out, -1, (inp.rows.ne, inp.rows.nf, nefc), None)?;
        out.nnz_written = 1;
    }
    // Step 4: back to joint space
    dual_finish(&m.frame, inp, &out.efc_force, &mut out.qfrc_constraint, &mut out.qacc);
    Ok(())
}

/// `mj_dualFinish` (D25): `qfrc_constraint = J' efc_force`, `qacc = qacc_smooth + M^-1
/// qfrc_constraint` (every entry of both written).
pub fn dual_finish(
    fm: &FrameModel,
    inp: &FrameInput,
    efc_force: &[f64],
    qfrc_constraint: &mut [f64],
    qacc: &mut [f64],
) {
    jt_force(qfrc_constraint, &inp.j, efc_force);
    qacc.copy_from_slice(qfrc_constraint);
    solve_ld(qacc, inp.qld, inp.qld_diag_inv, fm.m_rownnz, fm.m_rowadr, fm.m_colind);
    for i in 0..qacc.len() {
        qacc[i] = qacc[i] + inp.qacc_smooth[i];
    }
}

/// Step 2 (D25): `efc_force` from the warm start or zero, `efc_state` from the update.
fn warm_start(m: &PgsModel, inp: &FrameInput, ar: &Jacobian, s: &mut PgsScratch, out: &mut PgsOutput) {
    let (nv, nefc) = (inp.qacc_smooth.len(), inp.aref.len());
    if !m.frame.warmstart {
        out.qacc.copy_from_slice(inp.qacc_smooth);
        out.efc_force.fill(0.0);
        return;
    }
    out.frames.push([(8 * nefc, 8), (8 * nefc, 8), (0, 8), (0, 8)]);
    out.qacc.copy_from_slice(inp.qacc_warmstart);
    s.jar.resize(nefc, 0.0);
    j_minus_aref(&mut s.jar, &inp.j, inp.qacc_warmstart, inp.aref);
    constraint_update(&inp.rows, &s.jar, &mut out.efc_state, &mut out.efc_force, true, None);
    jt_force(&mut out.qfrc_constraint, &inp.j, &out.efc_force);
    // the dual cost of the warm start's force against that of zero force
    let linear = dot(&out.efc_force, &out.efc_b);
    s.arf.resize(nefc, 0.0);
    ar.mul_vec(&out.efc_force, &mut s.arf);
    let cost = dot(&out.efc_force, &s.arf) * 0.5 + linear;
    if cost > 0.0 {
        out.efc_force.fill(0.0);
        out.qfrc_constraint.fill(0.0);
    }
    if m.nisland > 0 {
        let isl = &inp.islands;
        for k in isl.nidof..nv {
            let dof = isl.idof2dof[k] as usize;
            out.qacc[dof] = inp.qacc_smooth[dof];
        }
    }
}

/// The fixed-seed PCG32 stream that orders each sweep (D26).
struct Pcg(u64);

impl Pcg {
    /// The next 32-bit output.
    fn next(&mut self) -> u32 {
        let old = self.0;
        self.0 = old.wrapping_mul(6364136223846793005).wrapping_add(1);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }
}

/// The contact of an elliptic row.
pub(super) fn cone(inp: &FrameInput, i: usize) -> Cone {
    inp.rows.contacts[inp.rows.efc_id[i] as usize]
}

/// The rows of the block starting at row `i`: an elliptic contact's `dim`, else 1.
pub(super) fn block_dim(inp: &FrameInput, i: usize) -> usize {
    if inp.rows.efc_type[i] == CONTACT_ELLIPTIC {
        cone(inp, i).dim as usize
    } else {
        1
    }
}

/// `AR[i][i]` for row `i` (`Err` when a sparse row stores no diagonal).
pub(super) fn ar_diag(ar: &Jacobian, i: usize) -> Result<f64, Unsupported> {
    match *ar {
        Jacobian::Dense { nv: n, j } => Ok(j[i * (n + 1)]),
        Jacobian::Sparse { rownnz, rowadr, colind, j, .. } => {
            let adr = rowadr[i] as usize;
            (adr..adr + rownnz[i].max(0) as usize)
                .find(|&k| colind[k] as usize == i)
                .map(|k| j[k])
                .ok_or(Unsupported::NoDiagonal)
        }
    }
}

/// The dual solvers' scale `1 / max(1e-15, trace M)` over the island's dofs (all dofs for
/// `island = -1`, D26).
pub(super) fn dual_scale(fm: &FrameModel, inp: &FrameInput, island: i32) -> f64 {
    let diag = |dof: usize| inp.mass[(fm.m_rowadr[dof] + fm.m_rownnz[dof] - 1) as usize];
    let mut trace = 0.0;
    if island >= 0 {
        let isl = &inp.islands;
        let adr = isl.idofadr[island as usize] as usize;
        for k in 0..isl.nv[island as usize].max(0) as usize {
            trace = trace + diag(isl.idof2dof[adr + k] as usize);
        }
    } else {
        for dof in 0..inp.qacc_smooth.len() {
            trace = trace + diag(dof);
        }
    }
    1.0 / if 1e-15 > trace { 1e-15 } else { trace }
}

/// Row `i` of `AR f` (`mju_dot` over the dense row, `mju_dotSparse` over the sparse one).
pub(super) fn ar_row_dot(ar: &Jacobian, i: usize, f: &[f64]) -> f64 {
    match *ar {
        Jacobian::Dense { nv: n, j } => dot(&j[i * n..(i + 1) * n], f),
        Jacobian::Sparse { rownnz, rowadr, colind, j, .. } => {
            let (adr, nnz) = (rowadr[i] as usize, rownnz[i].max(0) as usize);
            sparse_dot(&j[adr..adr + nnz], &colind[adr..adr + nnz], f)
        }
    }
}

/// The dual state of the listed rows from their forces (D27); the number of active rows.
pub(super) fn dual_state(
    inp: &FrameInput,
    force: &[f64],
    st: &mut [i32],
    counts: (usize, usize, usize),
    rows: Option<&[i32]>,
) -> i32 {
    let (ne, nf, nefc) = counts;
    let at = |c: usize| rows.map_or(c, |r| r[c] as usize);
    let floss = inp.rows.frictionloss;
    for c in 0..ne {
        st[at(c)] = state::QUADRATIC;
    }
    let mut nactive = (ne + nf) as i32;
    for c in ne..ne + nf {
        let i = at(c);
        st[i] = if -floss[i] >= force[i] {
            state::LINEARPOS
        } else if force[i] >= floss[i] {
            state::LINEARNEG
        } else {
            state::QUADRATIC
        };
    }
    let mut c = ne + nf;
    while c < nefc {
        let i = at(c);
        let dim = block_dim(inp, i);
        if inp.rows.efc_type[i] == CONTACT_ELLIPTIC {
            // an elliptic contact's rows are consecutive: one state for all of them
            let k = cone(inp, i);
            let s = pgs_cone::elliptic_state(&force[i..i + dim], k.mu, &k.friction);
            st[i..i + dim].fill(s);
            if s != state::SATISFIED {
                nactive += dim as i32;
            }
        } else if 0.0 >= force[i] {
            st[i] = state::SATISFIED;
        } else {
            st[i] = state::QUADRATIC;
            nactive += 1;
        }
        c += dim;
    }
    nactive
}

/// `solPGS` on one island's rows (`rows`, island order) or on all rows (`island = -1`, D26).
#[allow(clippy::too_many_arguments)]
fn sol_pgs(
    m: &PgsModel,
    inp: &FrameInput,
    ar: &Jacobian,
    s: &mut PgsScratch,
    out: &mut PgsOutput,
    island: i32,
    counts: (usize, usize, usize),
    rows: Option<&[i32]>,
) -> Result<(), Unsupported> {
    let (ne, nf, nefc) = counts;
    let at = |c: usize| rows.map_or(c, |r| r[c] as usize);
    out.frames.push([(8 * nefc, 8), (8 * nefc, 4), (8 * nefc, 8), (8 * nefc, 8)]);
    let force = &mut out.efc_force;
    let floss = inp.rows.frictionloss;
    s.prev.clear();
    s.prev.extend((0..nefc).map(|c| force[at(c)]));
    s.momentum.resize(nefc, 0.0);
    // the scale: 1 / the trace of M over the island's dofs (all dofs without islands)
    let fm = &m.frame;
    let scale = dual_scale(fm, inp, island);
    s.ar_inv.clear();
    for c in 0..nefc {
        s.ar_inv.push(1.0 / ar_diag(ar, at(c))?);
    }
    dual_state(inp, force, &mut out.efc_state, counts, rows);
    s.blockstart.clear();
    let mut c = 0;
    while c < nefc {
        s.blockstart.push(c as i32);
        c += block_dim(inp, at(c));
    }
    let nblocks = s.blockstart.len();
    s.oldstate.resize(nefc, 0);
    let mut rng = Pcg(1);
    let maxiter = m.iterations.max(0);
    let (mut iter, mut k) = (0, 0i32);
    while iter < maxiter {
        // Nesterov extrapolation, projected back onto the bounds
        let beta = if iter > 0 { f64::from(k - 1) / f64::from(k + 2) } else { 0.0 };
        if beta > 0.0 {
            for c in 0..nefc {
                let i = at(c);
                let f = force[i];
                force[i] = beta * (f - s.prev[c]) + f;
                s.prev[c] = f;
            }
            for c in ne..ne + nf {
                let i = at(c);
                let f = force[i];
                force[i] = if f < -floss[i] {
                    -floss[i]
                } else if floss[i] < f {
                    floss[i]
                } else {
                    f
                };
            }
            let mut c = ne + nf;
            while c < nefc {
                let i = at(c);
                let dim = block_dim(inp, i);
                if dim > 1 {
                    pgs_cone::project_cone(&mut force[i..i + dim], &cone(inp, i).friction);
                } else if 0.0 > force[i] {
                    force[i] = 0.0;
                }
                c += dim;
            }
        } else {
            for c in 0..nefc {
                s.prev[c] = force[at(c)];
            }
        }
        for c in 0..nefc {
            s.momentum[c] = force[at(c)];
        }
        // one sweep in a shuffled order
        let mut improvement = 0.0;
        for n in (1..nblocks).rev() {
            let j = (rng.next() % (n as u32 + 1)) as usize;
            s.blockstart.swap(n, j);
        }
        for bi in 0..nblocks {
            let c = s.blockstart[bi] as usize;
            let i = at(c);
            let dim = block_dim(inp, i);
            if dim > 1 {
                // an elliptic contact: its rows are consecutive in efc order
                let mut res = [0.0; 6];
                for j in 0..dim {
                    res[j] = ar_row_dot(ar, i + j, force) + out.efc_b[i + j];
                }
                let mut old = [0.0; 6];
                old[..dim].copy_from_slice(&force[i..i + dim]);
                let mut a = [0.0; 36];
                pgs_cone::extract_block(ar, i, dim, &mut a).ok_or(Unsupported::NoDiagonal)?;
                let f = &mut force[i..i + dim];
                pgs_cone::update(f, &old[..dim], &res[..dim], &a, s.ar_inv[c], &cone(inp, i).friction);
                let mut change = pgs_cone::cost_change(&a, f, &old[..dim], &res[..dim]);
                if change > 1e-10 {
                    f.copy_from_slice(&old[..dim]);
                    change = 0.0;
                }
                improvement = improvement - change;
                continue;
            }
            let res = ar_row_dot(ar, i, force) + out.efc_b[i];
            let old = force[i];
            let mut f = force[i] - res * s.ar_inv[c];
            if c >= ne && c < ne + nf {
                if -floss[i] > f {
                    f = -floss[i];
                } else if f > floss[i] {
                    f = floss[i];
                }
            } else if c >= ne + nf && 0.0 > f {
                f = 0.0;
            }
            let a = 1.0 / s.ar_inv[c];
            let delta = f - old;
            let mut change = delta * (delta * 0.5) * a + delta * res;
            if change > 1e-10 {
                f = old;
                change = 0.0;
            }
            force[i] = f;
            improvement = improvement - change;
        }
        for c in 0..nefc {
            s.oldstate[c] = out.efc_state[at(c)];
        }
        let nactive = dual_state(inp, force, &mut out.efc_state, counts, rows);
        let nchange = (0..nefc).filter(|&c| s.oldstate[c] != out.efc_state[at(c)]).count() as i32;
        improvement = improvement * scale;
        if island < NISLAND as i32 && (iter as usize) < NSOLVER {
            let stat = SolverStat { improvement, nactive, nchange, ..SolverStat::default() };
            out.stats.push((island.max(0) as usize * NSOLVER + iter as usize, stat));
        }
        // restart when the sweep's correction opposes the extrapolation
        let mut restart = false;
        if iter > 0 && nblocks > 0 {
            let mut d = 0.0;
            for c in 0..nefc {
                let corr = force[at(c)] - s.momentum[c];
                d = corr * (s.momentum[c] - s.prev[c]) + d;
            }
            restart = 0.0 > d;
        }
        k = if restart { 0 } else { k + 1 };
        iter += 1;
        if fm.tolerance > improvement {
            break;
        }
    }
    if island < NISLAND as i32 {
        let stat = island.max(0) as usize;
        out.solver_niter[stat] += iter;
        out.solver_nnz[stat] = match *ar {
            Jacobian::Sparse { rownnz, .. } => (0..nefc).map(|c| rownnz[at(c)]).sum(),
            Jacobian::Dense { .. } => (nefc * nefc) as i32,
        };
    }
    Ok(())
}
