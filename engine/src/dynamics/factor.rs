//! `mj_factorM`: the sparse `L'DL` factorisation of the inertia matrix, as MuJoCo 4.0.0 computes
//! it (`mj_factorI`; `docs/measurements.md` D2).

use super::TreeModel;
use crate::dynamics::avx::avx_dispatch;
use crate::math::MINVAL;

avx_dispatch! {
    /// Factorises the row-sparse lower triangle `mat` in place (strictly lower part becomes `L`, the
    /// diagonal `D`) and writes `1 / D` to `diag_inv`. A diagonal below `mjMINVAL` is raised to it; the
    /// first row where that happened (counting from the last) is returned.
    pub fn factor_i(mat: &mut [f64], diag_inv: &mut [f64], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) -> Option<usize> => factor_i_any
}

/// [`factor_i`]'s body.
#[inline(always)]
fn factor_i_any(
    mat: &mut [f64],
    diag_inv: &mut [f64],
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
) -> Option<usize> {
    let mut singular = None;
    for k in (0..rownnz.len()).rev() {
        let start = rowadr[k] as usize;
        let nnz = rownnz[k] as usize;
        let diag = start + nnz - 1;
        if MINVAL > mat[diag] {
            mat[diag] = MINVAL;
            singular.get_or_insert(k);
        }
        let inv = 1.0 / mat[diag];
        diag_inv[k] = inv;
        // rows above k: row i -= L(k, i) / D(k) * row k, over row i's own columns (rows of
        // lower dofs come first in `mat`, so row i lies wholly before row k)
        let (above, row) = mat.split_at_mut(start);
        for adr in (0..diag - start).rev() {
            let i = colind[start + adr] as usize;
            let scale = inv * -row[adr];
            let (ri, ni) = (rowadr[i] as usize, rownnz[i] as usize);
            for (a, &b) in above[ri..ri + ni].iter_mut().zip(&row[..ni]) {
                *a += scale * b;
            }
        }
        for v in &mut mat[start..diag] {
            *v *= inv;
        }
    }
    singular
}

/// `mj_factorM` on all dofs: `qld` becomes the factor of `mass` and `diag_inv` its `1 / D`;
/// returns the dof of a (near) singular pivot, which MuJoCo reports as `mjWARN_INERTIA`.
pub fn factor_m(m: &TreeModel, mass: &[f64], qld: &mut [f64], diag_inv: &mut [f64]) -> Option<usize> {
    let nc = m.nc();
    qld[..nc].copy_from_slice(&mass[..nc]);
    factor_i(&mut qld[..nc], &mut diag_inv[..m.nv()], m.m_rownnz, m.m_rowadr, m.m_colind)
}
