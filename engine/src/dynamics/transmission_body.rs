//! The body (adhesion) rows of `mj_transmission`: the moment is minus the average of the
//! normal Jacobians of the contacts that touch the body, read from the constraint rows for a
//! contact the solver includes and built from the two bodies' point Jacobians for one excluded
//! in the gap; the length is 0 (`docs/measurements.md` D77).
//!
//! Algorithm (4.0.0's `mj_transmission`, read from the disassembly):
//! 1. Zero a per-row weight over the constraint rows and an `nv` sum of gap Jacobians.
//! 2. For each contact between two geoms, one of them on the body: an included contact with
//!    rows counts once and weights its normal row 1 (condim 1 or elliptic cones) or each of its
//!    `2 (dim - 1)` pyramid edges `0.5 / (dim - 1)`; a contact in the gap (`exclude == 1`)
//!    counts once and adds its frame normal times `mj_jacDifPair` (shared dofs kept) to the sum.
//! 3. With a count `n > 0`: the row is `J' weight` (`mj_mulJacTVec`), plus the gap sum, times
//!    `-1 / n`.
//! 4. The row is compressed in dof order, keeping entries that are not `== 0` (NaN kept).
// Indexed loops walk several arrays in step, as the library does; `x = x + y` keeps its operand
// order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::constraint::jacobian::{dif_pair, mul_mat_mat, pair_columns_all, JacModel, JacState, PairBuffers};
use super::constraint::Contact;
use super::solver::products::mul_mat_t_vec;

/// The model arrays the body rows read besides the actuator view.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyModel<'a> {
    /// Body of each geom.
    pub geom_bodyid: &'a [i32],
    /// Number of bodies.
    pub nbody: usize,
    /// Whether friction cones are elliptic (`mjCONE_ELLIPTIC`).
    pub elliptic: bool,
    /// Whether the constraint Jacobian is sparse (`mj_isSparse`).
    pub sparse: bool,
}

/// The state the body rows read: the contacts and the constraint Jacobian.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyState<'a> {
    /// The contacts as `mj_makeConstraint` left them (`exclude`, `efc_address` set).
    pub contacts: &'a [Contact],
    /// Number of constraint rows.
    pub nefc: usize,
    /// The constraint Jacobian: `nefc x nv` dense, or the sparse rows' values.
    pub efc_j: &'a [f64],
    /// Non-zeros of each sparse row (empty when dense).
    pub efc_j_rownnz: &'a [i32],
    /// Start of each sparse row (empty when dense).
    pub efc_j_rowadr: &'a [i32],
    /// Column of each sparse non-zero (empty when dense).
    pub efc_j_colind: &'a [i32],
}

/// Scratch of the body rows: the row weights, the gap sum, the dense row, the pair Jacobians
/// and their normal projection, and the pair's dof chain.
#[derive(Clone, Debug, Default)]
pub struct BodyScratch {
    weight: Vec<f64>,
    gap: Vec<f64>,
    row: Vec<f64>,
    normal: Vec<f64>,
    pair: PairBuffers,
    chain: Vec<i32>,
}

impl BodyScratch {
    /// Sizes the buffers for `nv` dofs and `nefc` rows (allocates only when either grows).
    fn resize(&mut self, nv: usize, nefc: usize) {
        self.weight.resize(nefc, 0.0);
        for v in [&mut self.gap, &mut self.row, &mut self.normal] {
            v.resize(nv, 0.0);
        }
        self.chain.resize(nv, 0);
        self.pair.resize(nv);
    }
}

/// Whether body row `body` can be computed for `bm` (a valid body).
pub fn body_in_scope(bm: &BodyModel, body: i32) -> bool {
    body >= 0 && (body as usize) < bm.nbody
}

/// `res = J' w` of the constraint Jacobian (`mj_mulJacTVec`): dense through `mju_mulMatTVec`,
/// sparse row by row, rows of zero weight skipped either way.
fn mul_jac_t_vec(bs: &BodyState, sparse: bool, res: &mut [f64], w: &[f64]) {
    if !sparse {
        mul_mat_t_vec(res, &bs.efc_j[..w.len() * res.len()], w);
        return;
    }
    res.fill(0.0);
    for (i, &v) in w.iter().enumerate() {
        if v == 0.0 {
            continue;
        }
        let (adr, n) = (bs.efc_j_rowadr[i] as usize, bs.efc_j_rownnz[i].max(0) as usize);
        for k in adr..adr + n {
            let c = bs.efc_j_colind[k] as usize;
            res[c] = v * bs.efc_j[k] + res[c];
        }
    }
}

/// The moment row of a body transmission on `body` into `moment`/`colind` from `adr`: returns
/// the number of non-zeros (the length is always 0).
#[allow(clippy::too_many_arguments)]
pub fn body_row(
    bm: &BodyModel,
    jm: &JacModel,
    js: &JacState,
    bs: &BodyState,
    s: &mut BodyScratch,
    body: usize,
    moment: &mut [f64],
    colind: &mut [i32],
    adr: usize,
) -> i32 {
    let nv = jm.nv;
    s.resize(nv, bs.nefc);
    let body = body as i32;
    // Step 1.
    s.row[..nv].fill(0.0);
    s.weight[..bs.nefc].fill(0.0);
    s.gap[..nv].fill(0.0);
    // Step 2.
    let mut count = 0;
    for con in bs.contacts {
        let [g1, g2] = con.geom;
        if g1 < 0 || g2 < 0 {
            continue;
        }
        let (b1, b2) = (bm.geom_bodyid[g1 as usize], bm.geom_bodyid[g2 as usize]);
        if b1 != body && b2 != body {
            continue;
        }
        match con.exclude {
            0 if con.efc_address >= 0 => {
                count += 1;
                let a = con.efc_address as usize;
                if con.dim == 1 || bm.elliptic {
                    s.weight[a] = 1.0;
                } else if con.dim >= 2 {
                    let edges = con.dim - 1;
                    let w = 0.5 / f64::from(edges);
                    s.weight[a..a + 2 * edges as usize].fill(w);
                }
            }
            1 => {
                count += 1;
                let (b1, b2) = (b1 as usize, b2 as usize);
                let n = pair_columns_all(jm, &mut s.chain, b1, b2, bm.sparse);
                if n == 0 {
                    continue;
                }
                dif_pair(jm, js, &s.chain, n, b1, b2, &con.pos, &con.pos, &mut s.pair, false, bm.sparse);
                mul_mat_mat(&mut s.normal, &con.frame[..3], &s.pair.jacdifp, 1, 3, n);
                if bm.sparse {
                    for k in 0..n {
                        let c = s.chain[k] as usize;
                        s.gap[c] = s.gap[c] + s.normal[k];
                    }
                } else {
                    for k in 0..nv {
                        s.gap[k] = s.gap[k] + s.normal[k];
                    }
                }
            }
            _ => {}
        }
    }
    // Step 3.
    if count > 0 {
        mul_jac_t_vec(bs, bm.sparse, &mut s.row[..nv], &s.weight[..bs.nefc]);
        let scale = -1.0 / f64::from(count);
        for k in 0..nv {
            s.row[k] = (s.row[k] + s.gap[k]) * scale;
        }
    }
    // Step 4.
    let mut nnz = 0;
    for (j, &v) in s.row[..nv].iter().enumerate() {
        if v != 0.0 {
            moment[adr + nnz] = v;
            colind[adr + nnz] = j as i32;
            nnz += 1;
        }
    }
    nnz as i32
}
