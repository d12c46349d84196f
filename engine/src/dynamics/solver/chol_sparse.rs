//! MuJoCo 4.0.0's sparse reverse Cholesky `H = L' L` (`docs/measurements.md` D41): the pattern
//! of `L` from the upper pattern of `H` (`mju_cholFactorSymbolic`, by the elimination tree, rows
//! from the last), its values (`mju_cholFactorNumeric`, a dense accumulator per row), the solve
//! (`mju_cholSolveSparse`) and the rank-one update (`mju_cholUpdateSparse`), all exported by the
//! library and tested alone against it.
//!
//! Layout: `L` by rows (`rownnz`, `rowadr`, `colind`), columns increasing, the diagonal last in
//! each row; `LT` its transpose by rows with the diagonal first and `LT_map` giving each of its
//! entries' place in `L`.
// Indexed loops walk rows as the library does; `x = y - x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::dynamics::avx::add_to_scl;
#[cfg(target_arch = "x86_64")]
use crate::dynamics::avx::add_to_scl_avx;
use crate::dynamics::reference::sparse_dot;
use crate::math::MINVAL;

/// A sparse lower factor's pattern and its transpose (sized by [`Pattern::analyse`]).
#[derive(Clone, Debug, Default)]
pub struct Pattern {
    /// `L_rownnz`, `L_rowadr`, `L_colind`.
    pub rownnz: Vec<i32>,
    /// See `rownnz`.
    pub rowadr: Vec<i32>,
    /// See `rownnz`.
    pub colind: Vec<i32>,
    /// `LT_rownnz`, `LT_rowadr`, `LT_colind`, `LT_map`.
    pub t_rownnz: Vec<i32>,
    /// See `t_rownnz`.
    pub t_rowadr: Vec<i32>,
    /// See `t_rownnz`.
    pub t_colind: Vec<i32>,
    /// See `t_rownnz`.
    pub t_map: Vec<i32>,
    parent: Vec<i32>,
    flag: Vec<i32>,
    cursor: Vec<i32>,
}

/// The number of entries of a pattern (`rowadr[n-1] + rownnz[n-1]`, 0 when empty).
fn total(rownnz: &[i32]) -> usize {
    rownnz.iter().map(|&k| k as usize).sum()
}

impl Pattern {
    /// `mju_cholFactorSymbolic` twice (count, then fill): the pattern of the `n x n` factor of
    /// the matrix whose upper-triangle pattern is read from `rownnz`, `rowadr`, `colind` (entries
    /// at or below the diagonal skipped); returns the factor's entries.
    pub fn analyse(&mut self, n: usize, rownnz: &[i32], rowadr: &[i32], colind: &[i32]) -> usize {
        for v in [&mut self.rownnz, &mut self.rowadr, &mut self.t_rownnz, &mut self.t_rowadr] {
            v.clear();
            v.resize(n, 0);
        }
        self.walk(n, rownnz, rowadr, colind, false);
        let mut at = (0, 0);
        for r in 0..n {
            (self.rowadr[r], self.t_rowadr[r]) = (at.0, at.1);
            at = (at.0 + self.rownnz[r], at.1 + self.t_rownnz[r]);
        }
        let nl = total(&self.rownnz);
        for v in [&mut self.colind, &mut self.t_colind, &mut self.t_map] {
            v.clear();
            v.resize(nl, 0);
        }
        self.walk(n, rownnz, rowadr, colind, true);
        nl
    }

    /// One pass of the symbolic factor: from the last row up, each upper entry `(r, i)` walks the
    /// elimination tree from `i` until a node already reached from `r`, each node `i` on the way
    /// gaining the entry `L[i, r]` (counted, or written from its row's end back).
    fn walk(&mut self, n: usize, rownnz: &[i32], rowadr: &[i32], colind: &[i32], fill: bool) {
        for v in [&mut self.parent, &mut self.flag, &mut self.cursor] {
            v.clear();
            v.resize(n, 0);
        }
        // the two passes apart, on local slices: one walk each, no test of the pass per node
        let (parent, flag) = (&mut self.parent[..], &mut self.flag[..]);
        let upper = |r: usize| {
            let adr = rowadr[r] as usize;
            &colind[adr..adr + rownnz[r] as usize]
        };
        if !fill {
            let (lnnz, tnnz) = (&mut self.rownnz[..n], &mut self.t_rownnz[..n]);
            for r in (0..n).rev() {
                (parent[r], flag[r], lnnz[r]) = (-1, r as i32, 1);
                let mut count = 1;
                for &i0 in upper(r) {
                    let mut i = i0;
                    if i <= r as i32 {
                        continue;
                    }
                    while flag[i as usize] != r as i32 {
                        let iu = i as usize;
                        if parent[iu] == -1 {
                            parent[iu] = r as i32;
                        }
                        lnnz[iu] += 1;
                        count += 1;
                        flag[iu] = r as i32;
                        i = parent[iu];
                    }
                }
                tnnz[r] = count;
            }
            return;
        }
        let cursor = &mut self.cursor[..];
        let (lcol, tcol, tmap) = (&mut self.colind[..], &mut self.t_colind[..], &mut self.t_map[..]);
        for r in 0..n {
            cursor[r] = self.rowadr[r] + self.rownnz[r] - 2;
        }
        for r in (0..n).rev() {
            (parent[r], flag[r]) = (-1, r as i32);
            let diag = self.rowadr[r] + self.rownnz[r] - 1;
            lcol[diag as usize] = r as i32;
            // row r of LT is written only while r is walked: its cursor stays local
            let mut w = self.t_rowadr[r] as usize;
            (tcol[w], tmap[w]) = (r as i32, diag);
            w += 1;
            for &i0 in upper(r) {
                let mut i = i0;
                if i <= r as i32 {
                    continue;
                }
                while flag[i as usize] != r as i32 {
                    let iu = i as usize;
                    if parent[iu] == -1 {
                        parent[iu] = r as i32;
                    }
                    let at = cursor[iu];
                    cursor[iu] -= 1;
                    lcol[at as usize] = r as i32;
                    (tcol[w], tmap[w]) = (i, at);
                    w += 1;
                    flag[iu] = r as i32;
                    i = parent[iu];
                }
            }
        }
    }
}

/// `mju_cholFactorNumeric`: the values `l` of the factor with pattern `p` of the lower matrix
/// `h` (`h_rownnz`, `h_rowadr`, `h_colind`); a pivot under `mindiag` (or NaN) is raised to it,
/// the row's other entries zeroed and the rank lowered. `dense` is an `n`-vector of zeros (left
/// zero). Returns the rank.
///
/// Rows are taken from the last, alone or as a chain of two or three (`r, r-1(, r-2)`, each the
/// one above's pattern minus its diagonal, with one more row below it in `LT`), D41; a row with
/// no row below whose row of `h` has its pattern is always alone (D56). A row sums
/// the terms of the rows below into two accumulators: its own entries (from `h`'s row, or from
/// zero when a single row's pattern is not `h`'s) take the rows whose pattern up to `r` is the
/// tail of row `r`'s; `dense` (from `h`'s entries in that case, else zero) the others; then `l =
/// dense + l`. A chain's dense terms are summed row after row of the chain; each chain row, once
/// scaled, takes its part out of the chain rows above it.
///
/// With AVX (the library's instruction set, N26) the row updates run four entries per register,
/// as the library's inlined `mju_addToScl` does: element by element, so the same bits.
#[allow(clippy::too_many_arguments)]
pub fn factor_numeric(
    l: &mut [f64],
    p: &Pattern,
    mindiag: f64,
    h: &[f64],
    h_rownnz: &[i32],
    h_rowadr: &[i32],
    h_colind: &[i32],
    dense: &mut [f64],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked.
        return unsafe { factor_numeric_avx(l, p, mindiag, h, h_rownnz, h_rowadr, h_colind, dense) };
    }
    factor_numeric_any(l, p, mindiag, h, h_rownnz, h_rowadr, h_colind, dense, add_to_scl)
}

/// [`factor_numeric`] compiled for AVX, its row updates in AVX registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[allow(clippy::too_many_arguments)]
unsafe fn factor_numeric_avx(
    l: &mut [f64],
    p: &Pattern,
    mindiag: f64,
    h: &[f64],
    h_rownnz: &[i32],
    h_rowadr: &[i32],
    h_colind: &[i32],
    dense: &mut [f64],
) -> usize {
    // SAFETY: this function runs only on a CPU with AVX.
    factor_numeric_any(l, p, mindiag, h, h_rownnz, h_rowadr, h_colind, dense, |d, s, k| unsafe {
        add_to_scl_avx(d, s, k)
    })
}

/// [`factor_numeric`]'s body (`add_to_scl(dst, src, s)`: `dst += s * src` entry by entry).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn factor_numeric_any(
    l: &mut [f64],
    p: &Pattern,
    mindiag: f64,
    h: &[f64],
    h_rownnz: &[i32],
    h_rowadr: &[i32],
    h_colind: &[i32],
    dense: &mut [f64],
    add_to_scl: impl Fn(&mut [f64], &[f64], f64),
) -> usize {
    let n = p.rownnz.len();
    let mut rank = n;
    let mut next = n;
    while next > 0 {
        let r = next - 1;
        // a leaf (no row below) whose row of `h` has the factor's pattern is taken alone, chain
        // or not (D41)
        let (ha, hn, ln) = (h_rowadr[r] as usize, h_rownnz[r] as usize, p.rownnz[r] as usize);
        let leaf = p.t_rownnz[r] == 1 && hn >= ln && h_colind[ha + ln - 1] == r as i32;
        let m = if leaf { 1 } else { chain(p, r) };
        next -= m;
        let (ladr, lnnz) = (p.rowadr[r] as usize, p.rownnz[r] as usize);
        // the chain rows' addresses, row r - t at `base[t]`
        let mut base = [0; 3];
        for t in 0..m {
            base[t] = p.rowadr[r - t] as usize;
        }
        // Load: h's rows into l (a single row with another pattern: into dense)
        let mut touched = false;
        for t in 0..m {
            let row = r - t;
            let (la, ln) = (p.rowadr[row] as usize, p.rownnz[row] as usize);
            let (ha, hn) = (h_rowadr[row] as usize, h_rownnz[row] as usize);
            if hn >= ln && h_colind[ha + ln - 1] == row as i32 {
                l[la..la + ln].copy_from_slice(&h[ha..ha + ln]);
                continue;
            }
            if m == 1 {
                l[la..la + ln].fill(0.0);
                touched = true;
                scatter_row(dense, h, h_colind, ha, hn, row);
            } else {
                // through dense and back at once: h's values at their places in l (every entry
                // of the row written, so no clearing first)
                scatter_row(dense, h, h_colind, ha, hn, row);
                for (v, &col) in l[la..la + ln].iter_mut().zip(&p.colind[la..la + ln]) {
                    let d = &mut dense[col as usize];
                    *v = *d;
                    *d = 0.0;
                }
            }
        }
        // The rows below: aligned ones into the chain's rows, the others into dense (row r); the
        // others' places in LT order (row c's start and entry `at`), for a chain's second pass
        let (tadr, tnnz) = (p.t_rowadr[r] as usize, p.t_rownnz[r] as usize);
        let mut unaligned = [(0usize, 0usize); 32];
        let mut nun = 0;
        for k in tadr + 1..tadr + tnnz {
            let (c, at) = (p.t_colind[k] as usize, p.t_map[k] as usize);
            let cadr = p.rowadr[c] as usize;
            let off = ladr + lnnz - 1 - (at - cadr);
            if p.colind[off] == p.colind[cadr] {
                if m == 3 && at == cadr && cadr > 0 {
                    // the library's chain of three handles a row below with only column `r`
                    // as if it had one more entry before: the value stored just before row
                    // `c` goes into the entries before the diagonal of rows `r` and `r-1` (D41)
                    let (prev, neg) = (l[cadr - 1], -l[at]);
                    let up = p.rowadr[r - 1] as usize + (off - ladr) - 1;
                    l[up] = -prev * prev + l[up];
                    l[off - 1] = neg * prev + l[off - 1];
                    l[off] = neg * l[cadr] + l[off];
                    continue;
                }
                // the chain's rows lie wholly before row c; row t takes row c up to column
                // `r - t` (its last entry the factor), at the same offset in its own row
                let (before, rest) = l.split_at_mut(cadr);
                let row_c = &rest[..=at - cadr];
                let shift = off - ladr;
                for t in 0..m.min(row_c.len()) {
                    let len = row_c.len() - t;
                    let target = base[t] + shift;
                    add_to_scl(&mut before[target..target + len], &row_c[..len], -row_c[len - 1]);
                }
            } else {
                touched = true;
                add_row(dense, l, p, cadr, at);
                // kept for the chain's other rows (a long list falls back to the scan below)
                if nun < unaligned.len() {
                    unaligned[nun] = (cadr, at);
                }
                nun += 1;
            }
        }
        if touched {
            combine(dense, l, p, r);
            // the chain's other rows take their dense terms now, row after row
            for t in 1..m {
                if nun <= unaligned.len() {
                    for &(cadr, at) in &unaligned[..nun] {
                        if at - cadr >= t {
                            add_row(dense, l, p, cadr, at - t);
                        }
                    }
                    combine(dense, l, p, r - t);
                    continue;
                }
                for k in tadr + 1..tadr + tnnz {
                    let (c, at) = (p.t_colind[k] as usize, p.t_map[k] as usize);
                    let cadr = p.rowadr[c] as usize;
                    let off = ladr + lnnz - 1 - (at - cadr);
                    if p.colind[off] == p.colind[cadr] || at - cadr < t {
                        continue;
                    }
                    add_row(dense, l, p, cadr, at - t);
                }
                combine(dense, l, p, r - t);
            }
        }
        // Scale each chain row; its part leaves the chain rows above
        for t in 0..m {
            let row = r - t;
            let (la, ln) = (p.rowadr[row] as usize, p.rownnz[row] as usize);
            let diag = l[la + ln - 1];
            let deficient = diag < mindiag || diag.is_nan();
            let lrr = if deficient { mindiag } else { diag }.sqrt();
            if deficient {
                rank -= 1;
                l[la..la + ln - 1].fill(0.0);
            } else {
                let inv = 1.0 / lrr;
                for v in &mut l[la..la + ln - 1] {
                    *v = *v * inv;
                }
                for u in t + 1..m {
                    // row `row - (u - t)` has this row's pattern up to its own diagonal
                    let above = row - (u - t);
                    let aa = p.rowadr[above] as usize;
                    let neg = -l[la + ln - 1 - (u - t)];
                    let len = ln - (u - t);
                    let (before, this) = l.split_at_mut(la);
                    add_to_scl(&mut before[aa..aa + len], &this[..len], neg);
                }
            }
            l[la + ln - 1] = lrr;
        }
    }
    rank
}

/// How many rows from `r` up take their factor together (1 to 3, D41).
pub fn chain(p: &Pattern, r: usize) -> usize {
    let nnz = p.rownnz[r];
    let links = |t: usize| {
        r >= t
            && nnz > t as i32
            && p.colind[(p.rowadr[r] + nnz - 1) as usize - t] == (r - t) as i32
            && p.rownnz[r - t] == nnz - t as i32
            && p.t_rownnz[r - t] == p.t_rownnz[r] + t as i32
    };
    if !links(1) {
        1
    } else if !links(2) {
        2
    } else {
        3
    }
}

/// `h`'s row `row` into `dense` (its entries up to the diagonal).
#[inline(always)]
fn scatter_row(dense: &mut [f64], h: &[f64], h_colind: &[i32], adr: usize, nnz: usize, row: usize) {
    for (&v, &col) in h[adr..adr + nnz].iter().zip(&h_colind[adr..adr + nnz]) {
        if col as usize > row {
            break;
        }
        dense[col as usize] = v;
    }
}

/// `dense -= L[c, j] l[c, ..]` over row `c` (at `cadr`) up to the entry `at` (`j`'s place).
#[inline(always)]
fn add_row(dense: &mut [f64], l: &[f64], p: &Pattern, cadr: usize, at: usize) {
    let neg = -l[at];
    let (vals, cols) = (&l[cadr..=at], &p.colind[cadr..=at]);
    if let Some(c0) = contiguous(cols) {
        for (d, &v) in dense[c0..c0 + cols.len()].iter_mut().zip(vals) {
            *d = neg * v + *d;
        }
        return;
    }
    scatter_scl(dense, vals, cols, neg);
}

/// `dense[cols[i]] += neg * vals[i]`: a small function of its own, so that its pointers stay in
/// registers (inlined into the factor they were reloaded from the stack at every entry); four
/// entries per loop turn (each entry its own column, so their order does not matter).
#[inline(never)]
fn scatter_scl(dense: &mut [f64], vals: &[f64], cols: &[i32], neg: f64) {
    let n = vals.len().min(cols.len());
    let (vals, cols) = (&vals[..n], &cols[..n]);
    let (v4, c4) = (vals.chunks_exact(4), cols.chunks_exact(4));
    let (vr, cr) = (v4.remainder(), c4.remainder());
    for (v, c) in v4.zip(c4) {
        for i in 0..4 {
            let d = &mut dense[c[i] as usize];
            *d = neg * v[i] + *d;
        }
    }
    for (&v, &col) in vr.iter().zip(cr) {
        let d = &mut dense[col as usize];
        *d = neg * v + *d;
    }
}

/// The first column of `cols` (increasing) when they are one run `c0, c0 + 1, ..`.
#[inline(always)]
fn contiguous(cols: &[i32]) -> Option<usize> {
    match (cols.first(), cols.last()) {
        (Some(&a), Some(&b)) if b >= a && (b - a) as usize + 1 == cols.len() => Some(a as usize),
        _ => None,
    }
}

/// `l = dense + l` over `row`'s pattern, clearing `dense`.
#[inline(always)]
fn combine(dense: &mut [f64], l: &mut [f64], p: &Pattern, row: usize) {
    let (la, ln) = (p.rowadr[row] as usize, p.rownnz[row] as usize);
    let (vals, cols) = (&mut l[la..la + ln], &p.colind[la..la + ln]);
    if let Some(c0) = contiguous(cols) {
        for (v, d) in vals.iter_mut().zip(&mut dense[c0..c0 + ln]) {
            *v = *d + *v;
            *d = 0.0;
        }
        return;
    }
    for (v, &col) in vals.iter_mut().zip(cols) {
        let d = &mut dense[col as usize];
        *v = *d + *v;
        *d = 0.0;
    }
}

/// `mju_cholSolveSparse`: `res = (L' L) \ vec` with the factor `l` of pattern `rownnz`, `rowadr`,
/// `colind` (D41). Backward (`L'`), from the last row: rows of a chain `i, i-1(, i-2)` (each the
/// one above's pattern plus it) are solved together and take their terms out of the shared
/// columns together, skipped when all their entries are zero; a single row is skipped when its
/// entry is zero. Forward (`L`), from the first row: a chain `i, i+1(, i+2)` sums its shared
/// columns one by one, then the chain's own entries; a single row sums in `mju_dotSparse`'s order.
pub fn solve_sparse(res: &mut [f64], l: &[f64], vec: &[f64], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) {
    let n = res.len();
    res.copy_from_slice(vec);
    let row = |i: usize| (rowadr[i] as usize, rownnz[i] as usize);
    // backward: L' x = vec
    let mut i = n;
    while i > 0 {
        let r = i - 1;
        let (adr, nnz) = row(r);
        let chain2 = r != 0 && nnz >= 2 && rownnz[r - 1] as usize == nnz - 1 && colind[adr + nnz - 2] == (r - 1) as i32;
        if !chain2 {
            if res[r] != 0.0 || res[r].is_nan() {
                res[r] /= l[adr + nnz - 1];
                let x = res[r];
                for (&lv, &j) in l[adr..adr + nnz - 1].iter().zip(&colind[adr..adr + nnz - 1]) {
                    let rj = &mut res[j as usize];
                    *rj = *rj - lv * x;
                }
            }
            i -= 1;
            continue;
        }
        let chain3 = r >= 2 && nnz >= 3 && rownnz[r - 2] as usize == nnz - 2 && colind[adr + nnz - 3] == (r - 2) as i32;
        let a1 = rowadr[r - 1] as usize;
        res[r] /= l[adr + nnz - 1];
        let x0 = res[r];
        res[r - 1] = (res[r - 1] - l[adr + nnz - 2] * x0) / l[a1 + nnz - 2];
        let x1 = res[r - 1];
        let nz = |x: f64| x != 0.0 || x.is_nan();
        if !chain3 {
            if nnz >= 3 && (nz(x0) || nz(x1)) {
                let n = nnz - 2;
                for ((&j, &l0), &l1) in colind[adr..adr + n].iter().zip(&l[adr..adr + n]).zip(&l[a1..a1 + n]) {
                    let rj = &mut res[j as usize];
                    *rj = (*rj - l0 * x0) - l1 * x1;
                }
            }
            i -= 2;
            continue;
        }
        let a2 = rowadr[r - 2] as usize;
        res[r - 2] = ((res[r - 2] - l[adr + nnz - 3] * x0) - l[a1 + nnz - 3] * x1) / l[a2 + nnz - 3];
        let x2 = res[r - 2];
        if nnz >= 4 && (nz(x0) || nz(x1) || nz(x2)) {
            let n = nnz - 3;
            let rows = l[adr..adr + n].iter().zip(&l[a1..a1 + n]).zip(&l[a2..a2 + n]);
            for (&j, ((&l0, &l1), &l2)) in colind[adr..adr + n].iter().zip(rows) {
                let rj = &mut res[j as usize];
                *rj = ((*rj - l0 * x0) - l1 * x1) - l2 * x2;
            }
        }
        i -= 3;
    }
    // forward: L x = previous x
    let mut i = 0;
    while i < n {
        let (adr, nnz) = row(i);
        let chain2 =
            i + 1 < n && rownnz[i + 1] as usize == nnz + 1 && colind[rowadr[i + 1] as usize + nnz - 1] == i as i32;
        if !chain2 {
            let s = if nnz > 1 { sparse_dot(&l[adr..adr + nnz - 1], &colind[adr..adr + nnz - 1], res) } else { 0.0 };
            res[i] = if nnz > 1 { res[i] - s } else { res[i] } / l[adr + nnz - 1];
            i += 1;
            continue;
        }
        let chain3 =
            i + 2 < n && rownnz[i + 2] as usize == nnz + 2 && colind[rowadr[i + 2] as usize + nnz - 1] == i as i32;
        let (a1, a2) = (rowadr[i + 1] as usize, if chain3 { rowadr[i + 2] as usize } else { 0 });
        let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
        let n = nnz - 1;
        if chain3 {
            let rows = l[adr..adr + n].iter().zip(&l[a1..a1 + n]).zip(&l[a2..a2 + n]);
            for (&j, ((&l0, &l1), &l2)) in colind[adr..adr + n].iter().zip(rows) {
                let x = res[j as usize];
                s0 = x * l0 + s0;
                s1 = x * l1 + s1;
                s2 = x * l2 + s2;
            }
        } else {
            for ((&j, &l0), &l1) in colind[adr..adr + n].iter().zip(&l[adr..adr + n]).zip(&l[a1..a1 + n]) {
                let x = res[j as usize];
                s0 = x * l0 + s0;
                s1 = x * l1 + s1;
            }
        }
        res[i] = (res[i] - s0) / l[adr + nnz - 1];
        let x0 = res[i];
        res[i + 1] = ((res[i + 1] - s1) - l[a1 + nnz - 1] * x0) / l[a1 + nnz];
        if !chain3 {
            i += 2;
            continue;
        }
        let x1 = res[i + 1];
        res[i + 2] = (((res[i + 2] - s2) - l[a2 + nnz - 1] * x0) - l[a2 + nnz] * x1) / l[a2 + nnz + 1];
        i += 3;
    }
}

/// `mju_cholUpdateSparse`: the factor `l` (pattern kept) becomes that of `L' L + x x'` (`plus`)
/// or `L' L - x x'` for the sparse `x` (values `x`, increasing indices `x_ind`), one Givens
/// rotation per row from the last index down; a pivot under `1e-15` is raised to it and the rank
/// lowered. `dense` holds at least `x_ind.last() + 1` values (overwritten). Returns the rank.
///
/// With AVX a row whose columns are one run rotates four entries per register, as the library.
#[allow(clippy::too_many_arguments)]
pub fn update_sparse(
    l: &mut [f64],
    x: &[f64],
    x_ind: &[i32],
    plus: bool,
    n: usize,
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
    dense: &mut [f64],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked.
        return unsafe { update_sparse_avx(l, x, x_ind, plus, n, rownnz, rowadr, colind, dense) };
    }
    update_sparse_any(l, x, x_ind, plus, n, rownnz, rowadr, colind, dense)
}

/// [`update_sparse`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[allow(clippy::too_many_arguments)]
unsafe fn update_sparse_avx(
    l: &mut [f64],
    x: &[f64],
    x_ind: &[i32],
    plus: bool,
    n: usize,
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
    dense: &mut [f64],
) -> usize {
    update_sparse_any(l, x, x_ind, plus, n, rownnz, rowadr, colind, dense)
}

/// [`update_sparse`]'s body.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn update_sparse_any(
    l: &mut [f64],
    x: &[f64],
    x_ind: &[i32],
    plus: bool,
    n: usize,
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
    dense: &mut [f64],
) -> usize {
    let Some(&last) = x_ind.last() else { return n };
    let start = last as usize;
    dense[..=start].fill(0.0);
    for (&v, &i) in x.iter().zip(x_ind) {
        dense[i as usize] = v;
    }
    let mut rank = n;
    for row in (0..=start).rev() {
        if dense[row] == 0.0 {
            continue;
        }
        let nnz = rownnz[row] as usize - 1;
        let adr = rowadr[row] as usize;
        let diag = l[adr + nnz];
        let xr = dense[row];
        let mut t = diag * diag + if plus { xr * xr } else { -xr * xr };
        // a NaN is raised too (the library's unordered compare)
        if t < MINVAL || t.is_nan() {
            t = MINVAL;
            rank -= 1;
        }
        let r = t.sqrt();
        l[adr + nnz] = r;
        let c = diag / r;
        let s = -xr / r;
        let ss = if plus { -s } else { s };
        let (lrow, cols) = (&mut l[adr..adr + nnz], &colind[adr..adr + nnz]);
        let rotate = |lv: &mut f64, dj: &mut f64| {
            let (d0, l0) = (*dj, *lv);
            *lv = c * l0 + ss * d0;
            *dj = s * l0 + c * d0;
        };
        match contiguous(cols) {
            // columns in one run (as the library tests): the rotation on two slices
            Some(c0) => lrow.iter_mut().zip(&mut dense[c0..c0 + nnz]).for_each(|(lv, dj)| rotate(lv, dj)),
            None => lrow.iter_mut().zip(cols).for_each(|(lv, &j)| rotate(lv, &mut dense[j as usize])),
        }
    }
    rank
}
