//! The Newton Hessian of MuJoCo 4.0.0's `mj_solPrimal` on a sparse Jacobian in its natural order
//! (`docs/measurements.md` D42, D53, D54): `H = J' D J + M` stored sparse (the lower pattern of
//! `J' J` merged with `M`'s), its reverse Cholesky factor (D41's kernels), and the per-iteration
//! update of both: every row entering or leaving the quadratic state changes `H` in place, and
//! the factor takes a rank-one update, or is refactored from the updated `H` when the updates
//! would cost more, or rebuilt from scratch after many downdates or a lost rank. With elliptic
//! contacts on the cone (D82, D83) their Hessians go on top: folded into a copy of `H` that is
//! factored, or as rank-one updates of a copy of the factor, as 4.0.0 decides by cost.
//!
//! Algorithm (one island, D53):
//! 1. Build: the pattern of `H` row by row (columns `c <= r` sharing a Jacobian row with `r`, plus
//!    `M`'s), its values (`sum_k (D_k J_kr) J_kc` in row order, then `+ M`), the transpose's
//!    pattern, the factor's pattern (`mju_cholFactorSymbolic`) and, per factor row `i`, the path
//!    cost `cost_i = nnz_i + cost_{parent(i)}` (`parent` the column just before the diagonal) and
//!    `S = sum nnz_i^2`; then the numeric factor.
//! 2. Each iteration (D54): the rows whose quadratic state changed; `10 sum cost` over their last
//!    Jacobian column; with downdates, when their running count reaches 32, a rebuild. Otherwise
//!    the factor is refactored from `H` (instead of updated) when `S >= 4097` and that cost
//!    exceeds `3 S`. Each changed row adds `(+-D_i J_ip) J_iq` to `H` and, when the factor is
//!    kept, updates it by `sqrt(D_i) J_i`; a lost rank rebuilds everything.
// Indexed loops walk rows as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::chol_sparse::{factor_numeric, solve_sparse, update_sparse, Pattern};
use super::cone_sparse::{self, ConeRows};
use super::update::state::{CONE, QUADRATIC};
use crate::dynamics::avx::avx_dispatch;
use crate::math::MINVAL;

/// The downdates after which the factor is rebuilt from scratch (D54).
const MAX_DOWNDATES: i32 = 32;

/// The smallest `S` (summed squared factor row counts) at which refactoring can replace the
/// updates (D54).
const REFACTOR_MIN: i64 = 4097;

/// `mjMAXSUPER`: the rows `mju_sqrMatTDSparseNumeric` accumulates at once (its buffer).
const MAXSUPER: usize = 8;

/// An island's sparse Jacobian block, its transpose and inertia block (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Blocks<'a> {
    /// `J` by rows: values, `J_rownnz`, `J_rowadr`, `J_colind` (columns within the island).
    pub j: &'a [f64],
    /// See `j`.
    pub j_rownnz: &'a [i32],
    /// See `j`.
    pub j_rowadr: &'a [i32],
    /// See `j`.
    pub j_colind: &'a [i32],
    /// `J'` by rows (each dof's entries in row order): values, `JT_rownnz`, `JT_rowadr`, `JT_colind`.
    pub jt: &'a [f64],
    /// See `jt`.
    pub jt_rownnz: &'a [i32],
    /// See `jt`.
    pub jt_rowadr: &'a [i32],
    /// See `jt`.
    pub jt_colind: &'a [i32],
    /// `M` of the island: values, `M_rownnz`, `M_rowadr`, `M_colind`.
    pub m: &'a [f64],
    /// See `m`.
    pub m_rownnz: &'a [i32],
    /// See `m`.
    pub m_rowadr: &'a [i32],
    /// See `m`.
    pub m_colind: &'a [i32],
    /// `efc_D` of the island's rows.
    pub efc_d: &'a [f64],
}

/// The sparse Hessian, its factor and the update bookkeeping (reused from call to call).
#[derive(Clone, Debug, Default)]
pub struct SparseHessian {
    /// `D`: `efc_D` on quadratic rows, 0 elsewhere.
    d: Vec<f64>,
    /// `H` (values, `H_rownnz`, `H_rowadr`, `H_colind`; lower triangle, columns increasing).
    h: Vec<f64>,
    h_rownnz: Vec<i32>,
    h_rowadr: Vec<i32>,
    h_colind: Vec<i32>,
    /// The upper pattern of `H` (its transpose), which the symbolic factor reads.
    ht_rownnz: Vec<i32>,
    ht_rowadr: Vec<i32>,
    ht_colind: Vec<i32>,
    /// The factor's pattern and values.
    pattern: Pattern,
    l: Vec<f64>,
    /// The factor kernels' scratch (`nv`, left zero) and the update vector.
    dense: Vec<f64>,
    cholupd: Vec<f64>,
    /// Per factor row, the path cost; and `S`.
    cost: Vec<i64>,
    sum_sq: i64,
    /// The factor holds `chol(H)`; a downdate since the last rebuild; downdates since then.
    valid: bool,
    downdated: bool,
    ndown: i32,
    /// Pattern building: a stamp per column, and the columns of the Jacobian rows holding a row.
    mark: Vec<usize>,
    union: Vec<i32>,
    /// The Hessian's values: per column, one lane per row of a run.
    superbuf: Vec<[f64; MAXSUPER]>,
    /// `J' J`'s entries as the symbolic phase counts them (without `M`).
    pub njtj: usize,
    /// A rebuild happened during the iterations (its stack frame differs, D55).
    pub rebuilt: bool,
    /// The factor of `H` with the cone Hessians (`Lcone`), the folded copy of `H`, `C' J`.
    lcone: Vec<f64>,
    fold_h: Vec<f64>,
    ltj: Vec<f64>,
    /// `HessianConeFold`'s decision: -1 not taken since the last state change, else 0 or 1 (D82).
    fold: i8,
    /// The folded copy's stack block was taken; a rebuild happened after it (D84).
    fold_alloc: bool,
    rebuilt_folded: bool,
    /// The updates counted in this iteration (`nupdate`); the rebuilds so far.
    nupdate: i32,
    nrebuild: u32,
}

impl SparseHessian {
    /// The factor's entries (`nL`).
    pub fn nl(&self) -> usize {
        self.l.len()
    }

    /// `H` as built: values, `H_rownnz`, `H_rowadr`, `H_colind` (rows packed).
    pub fn hessian(&self) -> (&[f64], &[i32], &[i32], &[i32]) {
        (&self.h, &self.h_rownnz, &self.h_rowadr, &self.h_colind)
    }

    /// The Hessian's allocated entries (`nH`: `J' J`'s count plus `M`'s, D55).
    pub fn nh(&self, b: &Blocks) -> usize {
        let nv = b.m_rownnz.len();
        let nm = if nv == 0 { 0 } else { (b.m_rowadr[nv - 1] + b.m_rownnz[nv - 1]) as usize };
        self.njtj + nm
    }

    /// Step 1: the pattern, values and factor of `H` for the rows' states (and the cone step of
    /// the contacts on the cone, `c`).
    pub fn build(&mut self, b: &Blocks, st: &[i32], c: &ConeRows) {
        let nv = b.m_rownnz.len();
        self.pattern_of(b);
        // the factor's pattern from H's upper pattern
        transpose_pattern(
            &self.h_rownnz,
            &self.h_colind,
            (&mut self.ht_rownnz, &mut self.ht_rowadr, &mut self.ht_colind),
        );
        let nl = self.pattern.analyse(nv, &self.ht_rownnz, &self.ht_rowadr, &self.ht_colind);
        self.l.clear();
        self.l.resize(nl, 0.0);
        self.cost.clear();
        self.sum_sq = 0;
        for i in 0..nv {
            let nnz = self.pattern.rownnz[i] as usize;
            let mut up = 0;
            if nnz >= 2 {
                let parent = self.pattern.colind[self.pattern.rowadr[i] as usize + nnz - 2];
                if parent >= 0 {
                    up = self.cost[parent as usize];
                }
            }
            self.cost.push(up + nnz as i64);
            self.sum_sq += (nnz * nnz) as i64;
        }
        self.dense.clear();
        self.dense.resize(nv, 0.0);
        self.cholupd.resize(nv, 0.0);
        (self.valid, self.downdated, self.ndown, self.rebuilt) = (false, false, 0, false);
        (self.fold_alloc, self.rebuilt_folded) = (false, false);
        self.values(b, st);
        self.factorize(b, st, c);
    }

    /// `H`'s pattern: per row, the columns `c <= r` of every Jacobian row holding `r`, and `M`'s
    /// (sorted); `njtj` counts the first part alone.
    fn pattern_of(&mut self, b: &Blocks) {
        let nv = b.m_rownnz.len();
        self.mark.clear();
        self.mark.resize(nv, usize::MAX);
        self.h_rownnz.clear();
        self.h_rowadr.clear();
        self.h_colind.clear();
        self.njtj = 0;
        self.union.clear();
        for r in 0..nv {
            let start = self.h_colind.len();
            let (ta, tn) = (b.jt_rowadr[r] as usize, b.jt_rownnz[r] as usize);
            let jt_row = &b.jt_colind[ta..ta + tn];
            // the columns of the Jacobian rows holding r, sorted: the same for the rows after it
            // with the same rows of J' (a body's dofs), so found once for them
            let shared = r > 0 && {
                let (pa, pn) = (b.jt_rowadr[r - 1] as usize, b.jt_rownnz[r - 1] as usize);
                b.jt_colind[pa..pa + pn] == *jt_row
            };
            if !shared {
                self.union.clear();
                for &k in jt_row {
                    let (a, n) = (b.j_rowadr[k as usize] as usize, b.j_rownnz[k as usize].max(0) as usize);
                    for &c in &b.j_colind[a..a + n] {
                        if self.mark[c as usize] != r {
                            self.mark[c as usize] = r;
                            self.union.push(c);
                        }
                    }
                }
                self.union.sort_unstable();
            }
            for &c in &self.union {
                if c as usize > r {
                    break;
                }
                self.mark[c as usize] = r;
                self.h_colind.push(c);
            }
            let njtj = self.h_colind.len() - start;
            self.njtj += njtj;
            let (ma, mn) = (b.m_rowadr[r] as usize, b.m_rownnz[r] as usize);
            for &c in &b.m_colind[ma..ma + mn] {
                if self.mark[c as usize] != r {
                    self.mark[c as usize] = r;
                    self.h_colind.push(c);
                }
            }
            if self.h_colind.len() - start > njtj {
                self.h_colind[start..].sort_unstable();
            }
            self.h_rowadr.push(start as i32);
            self.h_rownnz.push((self.h_colind.len() - start) as i32);
        }
        self.h.clear();
        self.h.resize(self.h_colind.len(), 0.0);
    }

    /// `H = J' D J + M` on the pattern (`mju_sqrMatTDSparseNumeric`, then `mju_addToMatSparse`):
    /// each row accumulates, for the Jacobian rows `k` holding it in order, `(D_k J_kr) J_kc`
    /// from zero into a dense buffer, skipping a zero coefficient.
    fn values(&mut self, b: &Blocks, st: &[i32]) {
        let nv = b.m_rownnz.len();
        self.d.clear();
        self.d.extend(st.iter().zip(b.efc_d).map(|(&s, &d)| if s == QUADRATIC { d } else { 0.0 }));
        // the rows of a run with the same rows of J' (up to MAXSUPER, as the library takes
        // them) sum at once: per column one lane per row of the run, each lane summing its terms
        // in row order; a lane above its row's diagonal is cleared after the run
        let buf = &mut self.superbuf;
        buf.clear();
        buf.resize(nv, [0.0; MAXSUPER]);
        let jt_row = |r: usize| {
            let a = b.jt_rowadr[r] as usize;
            &b.jt_colind[a..a + b.jt_rownnz[r] as usize]
        };
        let mut r0 = 0;
        while r0 < nv {
            let first = jt_row(r0);
            let mut ns = 1;
            while ns < MAXSUPER && r0 + ns < nv && jt_row(r0 + ns) == first {
                ns += 1;
            }
            for (i, &k) in first.iter().enumerate() {
                let k = k as usize;
                let mut scale = [0.0; MAXSUPER];
                for q in 0..ns {
                    scale[q] = self.d[k] * b.jt[b.jt_rowadr[r0 + q] as usize + i];
                }
                let (a, n) = (b.j_rowadr[k] as usize, b.j_rownnz[k].max(0) as usize);
                sum_lanes(buf, &scale, &b.j_colind[a..a + n], &b.j[a..a + n], r0 + ns);
            }
            for q in 0..ns {
                let r = r0 + q;
                let (ha, hn) = (self.h_rowadr[r] as usize, self.h_rownnz[r] as usize);
                for (hv, &c) in self.h[ha..ha + hn].iter_mut().zip(&self.h_colind[ha..ha + hn]) {
                    let x = &mut buf[c as usize][q];
                    *hv = *x;
                    *x = 0.0;
                }
                for lanes in &mut buf[r + 1..r0 + ns] {
                    lanes[q] = 0.0;
                }
                // + M (every column of M's row is in H's)
                let (ma, mn) = (b.m_rowadr[r] as usize, b.m_rownnz[r] as usize);
                let mut e = ha;
                for (&mc, &mv) in b.m_colind[ma..ma + mn].iter().zip(&b.m[ma..ma + mn]) {
                    while self.h_colind[e] < mc {
                        e += 1;
                    }
                    self.h[e] = self.h[e] + mv;
                }
            }
            r0 += ns;
        }
    }

    /// `mju_cholFactorNumeric` of `H` into the factor; returns the rank.
    fn factor(&mut self) -> usize {
        self.dense.fill(0.0);
        let rank = factor_numeric(
            &mut self.l,
            &self.pattern,
            MINVAL,
            &self.h,
            &self.h_rownnz,
            &self.h_rowadr,
            &self.h_colind,
            &mut self.dense,
        );
        self.valid = true;
        rank
    }

    /// `FactorizeHessian` with the Hessian recomputed: `D` and `H` from the states, the update
    /// counts cleared, the factor rebuilt.
    fn rebuild(&mut self, b: &Blocks, st: &[i32], c: &ConeRows) {
        self.values(b, st);
        (self.downdated, self.ndown, self.rebuilt) = (false, 0, true);
        self.rebuilt_folded |= self.fold_alloc;
        self.nrebuild += 1;
        self.factorize(b, st, c);
    }

    /// `FactorizeHessian` on the current `H` (D82): the fold decision taken afresh; the factor of
    /// `H` unless the cone Hessians are folded into a copy of `H`; then, with contacts on the
    /// cone, the cone step; `nupdate = nefc`.
    fn factorize(&mut self, b: &Blocks, st: &[i32], c: &ConeRows) {
        (self.fold, self.valid) = (-1, false);
        if !self.decide(b, st, c, 0) {
            self.factor();
        }
        self.cone_step(b, st, c);
        self.nupdate = st.len() as i32;
    }

    /// `HessianConeFold` (D82): with contacts on the cone, fold when `extra + 10 sum cost_last
    /// dim > 3 (2 sum nnz^2 dim + S)`; the decision holds until the next state change or
    /// factorization. The first fold takes the copy's stack block (D84).
    fn decide(&mut self, b: &Blocks, st: &[i32], c: &ConeRows, extra: i64) -> bool {
        if !st.contains(&CONE) {
            return false;
        }
        if self.fold >= 0 {
            return self.fold == 1;
        }
        let (path, square) = cone_sparse::fold_measure(b, c, st, &self.cost);
        let fold = 10 * path + extra > 3 * (2 * square + self.sum_sq);
        self.fold = i8::from(fold);
        self.fold_alloc |= fold;
        fold
    }

    /// The cone step with contacts on the cone (D83): the folded copy of `H` factored into
    /// `Lcone` (a lost rank after some downdate rebuilds), or `Lcone` updated from the factor.
    fn cone_step(&mut self, b: &Blocks, st: &[i32], c: &ConeRows) {
        if !st.contains(&CONE) {
            return;
        }
        if self.decide(b, st, c, 0) {
            let (h, fold, ltj) = (&self.h, &mut self.fold_h, &mut self.ltj);
            self.nupdate += cone_sparse::fold_sum(b, c, st, h, &self.h_rowadr, &self.h_colind, fold, ltj);
            self.lcone.resize(self.l.len(), 0.0);
            self.dense.fill(0.0);
            let rank = factor_numeric(
                &mut self.lcone,
                &self.pattern,
                MINVAL,
                &self.fold_h,
                &self.h_rownnz,
                &self.h_rowadr,
                &self.h_colind,
                &mut self.dense,
            );
            if rank < self.pattern.rownnz.len() && self.downdated {
                self.rebuild(b, st, c);
            }
        } else {
            let (lcone, dense, ltj) = (&mut self.lcone, &mut self.dense, &mut self.ltj);
            self.nupdate += cone_sparse::update(b, c, st, &self.l, &self.pattern, lcone, dense, ltj);
        }
    }

    /// `mgrad = H^-1 grad` through the factor (`mju_cholSolveSparse`): with contacts on the cone
    /// (`cone`) the one with their Hessians.
    pub fn solve(&self, mgrad: &mut [f64], grad: &[f64], cone: bool) {
        let l = if cone { &self.lcone } else { &self.l };
        solve_sparse(mgrad, l, grad, &self.pattern.rownnz, &self.pattern.rowadr, &self.pattern.colind);
    }

    /// Step 2 after the constraint update (`old`: the states before it, `st`: after), with the
    /// cone step of the contacts on the cone (`c`); returns the updates counted (`nefc` when
    /// rebuilt) and whether the factor was rebuilt.
    pub fn incremental(&mut self, b: &Blocks, old: &[i32], st: &[i32], c: &ConeRows) -> (i32, bool) {
        let (nv, nefc) = (b.m_rownnz.len(), st.len());
        self.nupdate = 0;
        // any state change takes the fold decision afresh (D82)
        if old != st {
            self.fold = -1;
        }
        let changed = |i: usize| (old[i] == QUADRATIC) != (st[i] == QUADRATIC);
        let (mut down, mut cost) = (0, 0i64);
        for i in (0..nefc).filter(|&i| changed(i)) {
            down += i32::from(old[i] == QUADRATIC);
            let n = b.j_rownnz[i];
            if n > 0 {
                let last = b.j_colind[(b.j_rowadr[i] + n - 1) as usize];
                cost += self.cost[last as usize];
            }
        }
        let cost = 10 * cost;
        if down > 0 && down + self.ndown >= MAX_DOWNDATES {
            self.rebuild(b, st, c);
            return (nefc as i32, true);
        }
        // refactor from H after the rows (`plain`), or fold the cone Hessians into a copy of H
        // (D82: the refactor's cost 3 S counts for the fold when H is refactored anyway)
        let plain = if !self.valid || (self.sum_sq >= REFACTOR_MIN && cost > 3 * self.sum_sq) {
            self.valid = false;
            !self.decide(b, st, c, 3 * self.sum_sq)
        } else if self.decide(b, st, c, cost) {
            self.valid = false;
            false
        } else {
            true
        };
        for i in (0..nefc).filter(|&i| changed(i)) {
            let plus = st[i] == QUADRATIC;
            let (adr, n) = (b.j_rowadr[i] as usize, b.j_rownnz[i].max(0) as usize);
            let (vals, cols) = (&b.j[adr..adr + n], &b.j_colind[adr..adr + n]);
            // H += (+-D_i J_ip) J_iq over the row's lower pairs
            let di = if plus { b.efc_d[i] } else { -b.efc_d[i] };
            // H's arrays as local slices: its stores then leave their addresses in registers
            let (h, h_colind, h_rowadr) = (&mut self.h[..], &self.h_colind[..], &self.h_rowadr[..]);
            for p in 0..n {
                let v = di * vals[p];
                if v == 0.0 {
                    continue;
                }
                let mut e = h_rowadr[cols[p] as usize] as usize;
                for (&cq, &vq) in cols[..=p].iter().zip(vals) {
                    while h_colind[e] < cq {
                        e += 1;
                    }
                    h[e] = v * vq + h[e];
                }
            }
            if !plus {
                self.downdated = true;
                self.ndown += 1;
            }
            self.nupdate += 1;
            if self.valid {
                let sd = b.efc_d[i].sqrt();
                for k in 0..n {
                    self.cholupd[k] = vals[k] * sd;
                }
                let (pt, l) = (&self.pattern, &mut self.l);
                let rank = update_sparse(
                    l,
                    &self.cholupd[..n],
                    cols,
                    plus,
                    nv,
                    &pt.rownnz,
                    &pt.rowadr,
                    &pt.colind,
                    &mut self.dense,
                );
                if rank < nv {
                    self.rebuild(b, st, c);
                    return (nefc as i32, true);
                }
            }
        }
        if plain && !self.valid && self.factor() < nv && self.downdated {
            self.rebuild(b, st, c);
            return (nefc as i32, true);
        }
        let before = self.nrebuild;
        self.cone_step(b, st, c);
        // a lost rank of the folded factor rebuilt everything
        (self.nupdate, self.nrebuild != before)
    }

    /// The stack frames the Hessian's setup adds to the island's context frame `ctx` (D55), as
    /// flat blocks (a nested `mj_markStack` is its 24-byte header): the high-water marks of the
    /// symbolic and numeric products, the symbolic factor, a rebuild's numeric product, and the
    /// cone fold's copy of `H` (D84).
    /// With a fold, `tests` gets the room its stack test asks for above the factor's blocks (D84).
    pub fn frames(
        &self,
        b: &Blocks,
        ctx: [(usize, usize); 2],
        elliptic: bool,
        out: &mut Vec<[(usize, usize); 10]>,
        tests: &mut Vec<[(usize, usize); 10]>,
    ) {
        let (nv, nefc) = (b.m_rownnz.len(), b.efc_d.len());
        let nh = self.nh(b);
        let nl = self.nl();
        let z = (0, 8);
        let mark = (24, 8);
        let hb = [(8 * nh, 8), (8 * nh, 4)];
        let lb = [(4 * (3 * nl + nv), 4), (8 * (nl << usize::from(elliptic)), 8)];
        let ints = |n: usize| (4 * n, 4);
        let numeric = (8 * MAXSUPER * nv, 8);
        out.push([ctx[0], ctx[1], mark, ints(nv), ints(nv), ints(nefc), z, z, z, z]);
        out.push([ctx[0], ctx[1], hb[0], hb[1], mark, ints(nv), ints(nv), ints(nefc), z, z]);
        out.push([ctx[0], ctx[1], hb[0], hb[1], mark, numeric, z, z, z, z]);
        out.push([ctx[0], ctx[1], hb[0], hb[1], mark, ints(nv), ints(nv), z, z, z]);
        out.push([ctx[0], ctx[1], hb[0], hb[1], lb[0], lb[1], mark, ints(nv), ints(nv), ints(nv)]);
        if self.rebuilt {
            out.push([ctx[0], ctx[1], hb[0], hb[1], lb[0], lb[1], mark, numeric, z, z]);
        }
        // the folded copy of H (D84), and a rebuild's numeric frame above it
        let fold = (8 * nh, 8);
        if self.fold_alloc {
            out.push([ctx[0], ctx[1], hb[0], hb[1], lb[0], lb[1], fold, z, z, z]);
            // the copy and the larger of the later kernels' scratch must fit, or no fold
            let scratch = (8 * nv + 37 + if nefc > 0 { 4 * nefc + 3 } else { 0 }).max(64 * nv + 38);
            let room = if nv == 0 { 31 } else { scratch } + if nh > 0 { 8 * nh + 7 } else { 0 };
            tests.push([ctx[0], ctx[1], hb[0], hb[1], lb[0], lb[1], (room, 1), z, z, z]);
        }
        if self.rebuilt_folded {
            out.push([ctx[0], ctx[1], hb[0], hb[1], lb[0], lb[1], fold, mark, numeric, z]);
        }
    }
}

avx_dispatch! {
    /// `lane_q += scale_q v` at each column `c < end` of a Jacobian row (`cols`, `vals`), for
    /// the lanes whose `scale_q` is not zero (those with zero are left as they are).
    fn sum_lanes(buf: &mut [[f64; MAXSUPER]], scale: &[f64; MAXSUPER], cols: &[i32], vals: &[f64], end: usize)
        => sum_lanes_any
}

/// [`sum_lanes`]'s body.
#[inline(always)]
fn sum_lanes_any(buf: &mut [[f64; MAXSUPER]], scale: &[f64; MAXSUPER], cols: &[i32], vals: &[f64], end: usize) {
    for (&c, &v) in cols.iter().zip(vals) {
        let c = c as usize;
        if c >= end {
            break;
        }
        let lanes = &mut buf[c];
        for q in 0..MAXSUPER {
            let sum = lanes[q] + scale[q] * v;
            lanes[q] = if scale[q] != 0.0 { sum } else { lanes[q] };
        }
    }
}

/// The pattern of the transpose of the square lower pattern `rownnz`, `colind` (rows packed in
/// order): each column's rows, increasing.
fn transpose_pattern(
    rownnz: &[i32],
    colind: &[i32],
    (t_rownnz, t_rowadr, t_colind): (&mut Vec<i32>, &mut Vec<i32>, &mut Vec<i32>),
) {
    let n = rownnz.len();
    t_rownnz.clear();
    t_rownnz.resize(n, 0);
    for &c in colind {
        t_rownnz[c as usize] += 1;
    }
    t_rowadr.clear();
    let mut at = 0;
    for c in 0..n {
        t_rowadr.push(at);
        at += t_rownnz[c];
    }
    t_colind.clear();
    t_colind.resize(colind.len(), 0);
    let mut adr = 0;
    for r in 0..n {
        for &c in &colind[adr..adr + rownnz[r] as usize] {
            let w = &mut t_rowadr[c as usize];
            t_colind[*w as usize] = r as i32;
            *w += 1;
        }
        adr += rownnz[r] as usize;
    }
    // back to each row's start
    for c in 0..n {
        t_rowadr[c] -= t_rownnz[c];
    }
}
