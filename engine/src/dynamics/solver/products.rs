//! The products of the primal solvers as MuJoCo 4.0.0 computes them (`docs/measurements.md`
//! D15): the constraint force in joint space `J' f` (`mju_mulMatTVec`) and the constraint part of
//! the Newton Hessian `J' D J` (`mju_sqrMatTD_impl`), both accumulated element by element, row
//! after row, skipping the rows (and entries) whose coefficient compares equal to zero; the
//! inertia times a vector from `M`'s sparse lower triangle (`mju_mulSymVecSparse`, also inline in
//! the warm start); and a vector's norm (`mju_norm`).
// Indexed loops walk rows and columns as the library does; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::dynamics::avx::avx_dispatch;
use crate::dynamics::reference::dot;

/// `mju_norm`: the square root of `dot(v, v)` (`mju_dot`'s order).
pub fn norm(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

/// `mju_mulSymVecSparse`: `res = M vec` from the lower triangle of `M` stored by rows (MuJoCo's
/// `M_rownnz`, `M_rowadr`, `M_colind`, the diagonal last in each row): each row sets its own entry
/// from the diagonal, then, from the last off-diagonal to the first, adds to itself and to the
/// column's entry.
pub fn mul_sym_vec_sparse(res: &mut [f64], mat: &[f64], vec: &[f64], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) {
    // `vec` cut to `res`'s length: one bound for both, so one check per column read below
    let n = res.len();
    let vec = &vec[..n];
    res.fill(0.0);
    for i in 0..n {
        let (adr, nnz) = (rowadr[i] as usize, rownnz[i] as usize);
        let (vi, off) = (vec[i], nnz.saturating_sub(1));
        let mut ri = vi * mat[adr + nnz - 1];
        // the row's off-diagonal entries as slices (fewer bounds checks); `res[i]` is kept in
        // `ri` meanwhile: an off-diagonal column is always below `i`, never `i` itself
        for (&j, &val) in colind[adr..adr + off].iter().zip(&mat[adr..adr + off]).rev() {
            let j = j as usize;
            ri = val * vec[j] + ri;
            res[j] = val * vi + res[j];
        }
        res[i] = ri;
    }
}

avx_dispatch! {
    /// `mju_mulMatTVec`: `res = mat' vec` for the row-major `nr x nc` `mat` (`nr = vec.len()`,
    /// `nc = res.len()`).
    pub fn mul_mat_t_vec(res: &mut [f64], mat: &[f64], vec: &[f64]) => mul_mat_t_vec_any
}

/// [`mul_mat_t_vec`]'s body.
#[inline(always)]
fn mul_mat_t_vec_any(res: &mut [f64], mat: &[f64], vec: &[f64]) {
    let nc = res.len();
    res.fill(0.0);
    for (r, &v) in vec.iter().enumerate() {
        if v != 0.0 {
            // zipped slices: no bounds checks, so the loop vectorises (same operations)
            for (x, &m) in res.iter_mut().zip(&mat[r * nc..(r + 1) * nc]) {
                *x = v * m + *x;
            }
        }
    }
}

avx_dispatch! {
    /// `mju_sqrMatTD_impl`: `res = mat' diag(diag) mat` (`nc x nc`, `nc = res.len() / nc`) for the
    /// row-major `nr x nc` `mat`; the lower triangle is accumulated and, with `upper`, mirrored to
    /// the upper one (otherwise the upper triangle stays zero).
    pub fn sqr_mat_td(res: &mut [f64], mat: &[f64], diag: &[f64], nc: usize, upper: bool) => sqr_mat_td_any
}

/// [`sqr_mat_td`]'s body.
#[inline(always)]
fn sqr_mat_td_any(res: &mut [f64], mat: &[f64], diag: &[f64], nc: usize, upper: bool) {
    res[..nc * nc].fill(0.0);
    for (j, &dj) in diag.iter().enumerate() {
        if dj == 0.0 {
            continue;
        }
        let row = &mat[j * nc..(j + 1) * nc];
        for i in 0..nc {
            let tmp = row[i];
            if tmp != 0.0 {
                let scl = tmp * dj;
                // slices, not indices: without bounds checks the loop vectorises (each entry is
                // still its own multiply and add)
                for (r, &m) in res[i * nc..=i * nc + i].iter_mut().zip(&row[..=i]) {
                    *r = scl * m + *r;
                }
            }
        }
    }
    if upper {
        for i in 0..nc {
            for j in i + 1..nc {
                res[i * nc + j] = res[j * nc + i];
            }
        }
    }
}
