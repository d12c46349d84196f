//! The fill-reducing elimination order of MuJoCo 4.0.0's exported `mju_minDegree`
//! (`docs/measurements.md` D40), which `mj_solPrimal` runs on the sparse Newton Hessian's node
//! graph: a minimum-degree order on a symmetric adjacency held as one bit row per node.
//!
//! Algorithm:
//! 1. Each node's own bit is cleared; its degree is the number of bits left in its row. Nodes sit
//!    in one linked list per degree, pushed at the head from the last node to the first (so a
//!    list starts with its smallest node).
//! 2. `n` times: the head of the lowest nonempty degree list is eliminated and numbered from the
//!    end (`perm[p] = n - 1 - k`). With node weights, the factor's entries and flops that its
//!    block adds are summed (the closed forms of step 3), and the order is given up (returns
//!    `false`) once `5 flops >= 4 limit` (`limit` 0: never).
//! 3. Every neighbour `q` of `p`, in increasing order, leaves its list, loses its bit `p`, gains
//!    `p`'s other neighbours (never itself), and enters the list of its new degree at the head.
//!    With `s` the neighbours' summed weight and `c` the weight of `p` (counted only when `c > 0`):
//!    entries `s + 1 + (s + 2)(c - 1) + (c - 1)(c - 2)/2`, flops `(s + 1)^2 + ((s + 1)^2 + 2s +
//!    3)(c - 1) + (2s + 5)(c - 1)(c - 2)/2 + (c - 1)(c - 2)(c - 3)/3`, in 64-bit integers.
//!
//! Also `mju_permuteLowerCSR`, which carries a lower triangle into the chosen order.
// Indexed loops walk MuJoCo's row pointers as the library does.
#![allow(clippy::needless_range_loop)]

/// Work arrays reused from call to call.
#[derive(Clone, Debug, Default)]
pub struct OrderScratch {
    degree: Vec<i32>,
    head: Vec<i32>,
    next: Vec<i32>,
    prev: Vec<i32>,
    neighbours: Vec<i32>,
    words: Vec<usize>,
    bits: Vec<u64>,
}

/// What `mju_minDegree` reports besides the order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderCount {
    /// The order was completed (not given up against the flop limit).
    pub complete: bool,
    /// The factor's entries summed over the eliminated blocks (with weights).
    pub nnz: i64,
    /// The factorization's flops summed likewise.
    pub flops: i64,
}

/// The number of 64-bit words of one adjacency row of `n` nodes.
pub fn row_words(n: usize) -> usize {
    n.div_ceil(64)
}

impl OrderScratch {
    /// Removes node `q` (of degree `deg`) from its degree list.
    fn unlink(&mut self, q: usize, deg: usize) {
        let (p, x) = (self.prev[q], self.next[q]);
        if p < 0 {
            self.head[deg] = x;
        } else {
            self.next[p as usize] = x;
        }
        if x >= 0 {
            self.prev[x as usize] = p;
        }
    }

    /// Pushes node `q` at the head of the list of degree `deg`.
    fn push(&mut self, q: usize, deg: usize) {
        let h = self.head[deg];
        self.prev[q] = -1;
        self.next[q] = h;
        if h >= 0 {
            self.prev[h as usize] = q as i32;
        }
        self.head[deg] = q as i32;
    }
}

/// The contribution of an eliminated block of weight `c` with neighbours of summed weight `s`
/// to the factor's entries and flops (step 2's closed forms).
fn block_count(s: i64, c: i64) -> (i64, i64) {
    let c1 = c - 1;
    let c12 = c1.wrapping_mul(c - 2);
    let s1 = (s + 1).wrapping_mul(s + 1);
    let nnz = (s + 1).wrapping_add((s + 2).wrapping_mul(c1)).wrapping_add(c12 / 2);
    let flops = s1
        .wrapping_add((s1 + 2 * s + 3).wrapping_mul(c1))
        .wrapping_add((2 * s + 5).wrapping_mul(c12 / 2))
        .wrapping_add(c12.wrapping_mul(c - 3) / 3);
    (nnz, flops)
}

/// `mju_minDegree`: `perm[node]` (the elimination position, from the end) for the `n` nodes of
/// the symmetric bit adjacency `adj` (`n` rows of [`row_words`] words, overwritten by the
/// elimination graph), with optional node weights for the counts and a flop `limit` (0: none).
pub fn min_degree(
    perm: &mut [i32],
    adj: &mut [u64],
    weight: Option<&[i32]>,
    limit: i64,
    s: &mut OrderScratch,
) -> OrderCount {
    let n = perm.len();
    let nw = row_words(n);
    let mut count = OrderCount { complete: true, nnz: 0, flops: 0 };
    if n == 0 {
        return count;
    }
    for v in [&mut s.degree, &mut s.next, &mut s.prev, &mut s.neighbours] {
        v.clear();
        v.resize(n, 0);
    }
    s.head.clear();
    s.head.resize(n, -1);
    s.words.clear();
    s.bits.clear();
    // Step 1: degrees and lists
    let mut mindeg = n;
    for i in (0..n).rev() {
        let row = &mut adj[i * nw..(i + 1) * nw];
        row[i / 64] &= !(1u64 << (i % 64));
        let deg = row.iter().map(|w| w.count_ones()).sum::<u32>() as usize;
        s.degree[i] = deg as i32;
        s.push(i, deg);
        mindeg = mindeg.min(deg);
    }
    for k in 0..n {
        // Step 2: the node of least degree
        while s.head[mindeg] < 0 {
            mindeg += 1;
        }
        let p = s.head[mindeg] as usize;
        let x = s.next[p];
        s.head[mindeg] = x;
        if x >= 0 {
            s.prev[x as usize] = -1;
        }
        s.degree[p] = -1;
        s.words.clear();
        s.bits.clear();
        let mut nnb = 0;
        let mut wsum: i32 = 0;
        for w in 0..nw {
            let mut bits = adj[p * nw + w];
            if bits == 0 {
                continue;
            }
            s.words.push(w);
            s.bits.push(bits);
            while bits != 0 {
                let q = w * 64 + bits.trailing_zeros() as usize;
                s.neighbours[nnb] = q as i32;
                nnb += 1;
                if let Some(wt) = weight {
                    wsum = wsum.wrapping_add(wt[q]);
                }
                bits &= bits - 1;
            }
        }
        if let Some(wt) = weight {
            let c = wt[p];
            if c > 0 {
                let (e, f) = block_count(i64::from(wsum), i64::from(c));
                count.nnz = count.nnz.wrapping_add(e);
                count.flops = count.flops.wrapping_add(f);
            }
            if limit != 0 && count.flops.wrapping_mul(5) >= limit.wrapping_mul(4) {
                count.complete = false;
                return count;
            }
        }
        perm[p] = (n - 1 - k) as i32;
        // Step 3: the neighbours join p's other neighbours
        for j in 0..nnb {
            let q = s.neighbours[j] as usize;
            let mut deg = s.degree[q];
            s.unlink(q, deg as usize);
            let row = &mut adj[q * nw..(q + 1) * nw];
            row[p / 64] &= !(1u64 << (p % 64));
            deg -= 1;
            for (&w, &pbits) in s.words.iter().zip(&s.bits) {
                let mut add = !row[w] & pbits;
                if w == q / 64 {
                    add &= !(1u64 << (q % 64));
                }
                if add != 0 {
                    row[w] |= add;
                    deg += add.count_ones() as i32;
                }
            }
            s.degree[q] = deg;
            s.push(q, deg as usize);
            mindeg = mindeg.min(deg as usize);
        }
    }
    count
}

/// A lower triangle by rows (`rownnz`, `rowadr`, `colind`, values), MuJoCo's sparse layout.
#[derive(Clone, Debug, Default)]
pub struct LowerCsr {
    /// Entries per row.
    pub rownnz: Vec<i32>,
    /// First entry of each row.
    pub rowadr: Vec<i32>,
    /// Column of each entry.
    pub colind: Vec<i32>,
    /// Value of each entry.
    pub val: Vec<f64>,
}

/// `mju_permuteLowerCSR` (D40): the lower triangle `(i, j) -> (max(perm i, perm j), min(..))` of
/// the symmetric matrix whose lower triangle is `(rownnz, rowadr, colind, val)`, rows packed in
/// order and each row's entries sorted by column (values moved, never combined).
pub fn permute_lower(perm: &[i32], rownnz: &[i32], rowadr: &[i32], colind: &[i32], val: &[f64], out: &mut LowerCsr) {
    let n = perm.len();
    let target = |i: usize, k: usize| {
        let (pi, pj) = (perm[i], perm[colind[k] as usize]);
        (pi.max(pj) as usize, pi.min(pj))
    };
    out.rownnz.clear();
    out.rownnz.resize(n, 0);
    for i in 0..n {
        let adr = rowadr[i] as usize;
        for k in adr..adr + rownnz[i].max(0) as usize {
            out.rownnz[target(i, k).0] += 1;
        }
    }
    out.rowadr.clear();
    let mut at = 0;
    for &c in &out.rownnz {
        out.rowadr.push(at);
        at += c;
    }
    out.colind.clear();
    out.colind.resize(at as usize, 0);
    out.val.clear();
    out.val.resize(at as usize, 0.0);
    out.rownnz.fill(0);
    for i in 0..n {
        let adr = rowadr[i] as usize;
        for k in adr..adr + rownnz[i].max(0) as usize {
            let (row, col) = target(i, k);
            let pos = (out.rowadr[row] + out.rownnz[row]) as usize;
            out.rownnz[row] += 1;
            out.colind[pos] = col;
            out.val[pos] = val[k];
        }
    }
    // columns are distinct within a row, so any sort by column gives the library's order
    for r in 0..n {
        let (adr, nnz) = (out.rowadr[r] as usize, out.rownnz[r] as usize);
        let (cols, vals) = (&mut out.colind[adr..adr + nnz], &mut out.val[adr..adr + nnz]);
        // insertion sort: rows are short, and no scratch is needed
        for i in 1..nnz {
            let (key, v) = (cols[i], vals[i]);
            let mut j = i;
            while j > 0 && cols[j - 1] > key {
                cols[j] = cols[j - 1];
                vals[j] = vals[j - 1];
                j -= 1;
            }
            cols[j] = key;
            vals[j] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_eliminated_from_its_ends_hand() {
        // 0 - 1 - 2: the ends have degree 1, node 0 heads the list and goes first, then node 1
        // (degree 1 after 0 left, ahead of 2 as it was pushed last), then 2
        let mut adj = vec![0b010u64, 0b101, 0b010];
        let mut perm = [0; 3];
        let c = min_degree(&mut perm, &mut adj, None, 0, &mut OrderScratch::default());
        assert!(c.complete);
        assert_eq!(perm, [2, 1, 0]);
    }

    #[test]
    fn a_block_counts_its_entries_and_flops_hand() {
        // one node of weight 1 with no neighbours: one entry, one flop
        assert_eq!(block_count(0, 1), (1, 1));
        // weight 2, no neighbours: a 2x2 dense factor, 3 entries
        assert_eq!(block_count(0, 2).0, 3);
    }
}
