//! The cone Hessians of elliptic contacts on a sparse Newton Hessian (`docs/measurements.md`
//! D82, D83): 4.0.0 either adds each contact's `(C' J)' (C' J)` to a copy of `H` and factors that
//! copy (`HessianConeFolded`), or takes rank-one updates of a copy of the factor, one per row of
//! `C' J` (`HessianConeUpdate`); `HessianConeFold` chooses between the two by cost. `C` is the
//! Cholesky factor of the contact's cone Hessian `contact[i].H`, `J` the contact's rows (all of
//! one pattern on a sparse Jacobian), so `C' J` is stored compact: `dim` rows of the pattern's
//! length.
// Indexed loops walk rows as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::chol::chol_factor;
use super::chol_sparse::{update_sparse, Pattern};
use super::newton_sparse::Blocks;
use super::update::{state, Cone};
use crate::math::MINVAL;

/// The contacts the cone steps read (the island's rows, MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct ConeRows<'a> {
    /// `efc_id` of the island's rows (for contact rows, the contact).
    pub efc_id: &'a [i32],
    /// The contacts (`ncon`).
    pub contacts: &'a [Cone],
    /// The contacts' cone Hessians `contact[i].H` (`ncon`), as the last constraint update left them.
    pub h: &'a [[f64; 36]],
}

impl ConeRows<'_> {
    /// The first row and the dimension of each contact on the cone, in row order.
    fn on_cone<'s>(&'s self, st: &'s [i32]) -> impl Iterator<Item = (usize, usize)> + 's {
        let mut i = 0;
        std::iter::from_fn(move || {
            while i < st.len() {
                if st[i] == state::CONE {
                    let dim = self.contacts[self.efc_id[i] as usize].dim.max(1) as usize;
                    let first = i;
                    i += dim;
                    return Some((first, dim));
                }
                i += 1;
            }
            None
        })
    }
}

/// `HessianConeFold`'s measure (D82): over the contacts on the cone, `sum cost_last dim` (the
/// path cost of the last column of the contact's first row) and `sum nnz^2 dim`.
pub fn fold_measure(b: &Blocks, c: &ConeRows, st: &[i32], cost: &[i64]) -> (i64, i64) {
    let (mut path, mut square) = (0i64, 0i64);
    for (i, dim) in c.on_cone(st) {
        let n = b.j_rownnz[i].max(0) as i64;
        if n > 0 {
            let last = b.j_colind[(b.j_rowadr[i] as i64 + n - 1) as usize];
            path += cost[last as usize] * dim as i64;
        }
        square += n * n * dim as i64;
    }
    (path, square)
}

/// `C' J` of the contact whose first row is `i` into `ltj` (`dim` rows of `nnz` entries): `C` the
/// Cholesky factor of its cone Hessian (`mju_cholFactor`, `1e-15`), then for each row `r` and
/// `c <= r`, `ltj_c = C_rc J_{i+r} + ltj_c`. Returns `nnz`.
fn cone_rows(b: &Blocks, h: &[f64; 36], i: usize, dim: usize, ltj: &mut Vec<f64>) -> usize {
    let mut local = [0.0; 36];
    local[..dim * dim].copy_from_slice(&h[..dim * dim]);
    chol_factor(&mut local[..dim * dim], dim, MINVAL);
    let nnz = b.j_rownnz[i].max(0) as usize;
    ltj.clear();
    ltj.resize(dim * nnz, 0.0);
    for r in 0..dim {
        let adr = b.j_rowadr[i + r] as usize;
        let row = &b.j[adr..adr + nnz];
        for c in 0..=r {
            let scl = local[r * dim + c];
            let out = &mut ltj[c * nnz..(c + 1) * nnz];
            for k in 0..nnz {
                out[k] = scl * row[k] + out[k];
            }
        }
    }
    nnz
}

/// `HessianConeFolded`'s sum (D83): `fold = H` (values on `H`'s pattern), then for each contact
/// on the cone its `(C' J)' (C' J)` over the lower pairs of its columns, `fold_pq = s + fold_pq`
/// with `s` summed over `C' J`'s rows (from 0, or for `dim = 3` as `(a0 + a1) + a2`). Returns the
/// updates counted (`dim` per contact).
#[allow(clippy::too_many_arguments)]
pub fn fold_sum(
    b: &Blocks,
    c: &ConeRows,
    st: &[i32],
    h: &[f64],
    h_rowadr: &[i32],
    h_colind: &[i32],
    fold: &mut Vec<f64>,
    ltj: &mut Vec<f64>,
) -> i32 {
    fold.clear();
    fold.extend_from_slice(h);
    let mut nupdate = 0;
    for (i, dim) in c.on_cone(st) {
        let id = c.efc_id[i] as usize;
        let nnz = cone_rows(b, &c.h[id], i, dim, ltj);
        let cols = &b.j_colind[b.j_rowadr[i] as usize..][..nnz];
        for p in 0..nnz {
            let ha = h_rowadr[cols[p] as usize] as usize;
            let mut e = ha;
            for q in 0..=p {
                while h_colind[e] < cols[q] {
                    e += 1;
                }
                let s = if dim == 3 {
                    (ltj[p] * ltj[q] + ltj[nnz + p] * ltj[nnz + q]) + ltj[2 * nnz + p] * ltj[2 * nnz + q]
                } else {
                    let mut s = 0.0;
                    for k in 0..dim {
                        s = ltj[k * nnz + p] * ltj[k * nnz + q] + s;
                    }
                    s
                };
                fold[e] = s + fold[e];
            }
        }
        nupdate += dim as i32;
    }
    nupdate
}

/// `HessianConeUpdate` on a sparse factor (D83): `lcone = l`, then for each contact on the cone
/// one `mju_cholUpdateSparse` (adding) of `lcone` per row `r` of its `C' J`, on the columns of
/// Jacobian row `i + r` (the rank not used). Returns the updates counted (`dim` per contact).
#[allow(clippy::too_many_arguments)]
pub fn update(
    b: &Blocks,
    c: &ConeRows,
    st: &[i32],
    l: &[f64],
    pattern: &Pattern,
    lcone: &mut Vec<f64>,
    dense: &mut [f64],
    ltj: &mut Vec<f64>,
) -> i32 {
    lcone.clear();
    lcone.extend_from_slice(l);
    let nv = pattern.rownnz.len();
    let mut nupdate = 0;
    for (i, dim) in c.on_cone(st) {
        let id = c.efc_id[i] as usize;
        let nnz = cone_rows(b, &c.h[id], i, dim, ltj);
        for r in 0..dim {
            let cols = &b.j_colind[b.j_rowadr[i + r] as usize..][..nnz];
            let x = &ltj[r * nnz..(r + 1) * nnz];
            update_sparse(lcone, x, cols, true, nv, &pattern.rownnz, &pattern.rowadr, &pattern.colind, dense);
        }
        nupdate += dim as i32;
    }
    nupdate
}
