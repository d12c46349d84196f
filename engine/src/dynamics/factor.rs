//! `mj_factorM`: the sparse `L'DL` factorisation of the inertia matrix, as MuJoCo 4.0.0 computes
//! it (`mj_factorI`; `docs/measurements.md` D2).

use super::avx::add_to_scl;
#[cfg(target_arch = "x86_64")]
use super::avx::add_to_scl_avx;
use super::TreeModel;
use crate::math::MINVAL;

/// Factorises the row-sparse lower triangle `mat` in place (strictly lower part becomes `L`, the
/// diagonal `D`) and writes `1 / D` to `diag_inv`. A diagonal below `mjMINVAL` is raised to it; the
/// first row where that happened (counting from the last) is returned.
///
/// With AVX (the library's instruction set, N26) the row updates run four entries per register
/// as `mju_addToScl` does: each entry is still one product and one sum, so the bits are the same.
pub fn factor_i(
    mat: &mut [f64],
    diag_inv: &mut [f64],
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked.
        return unsafe { factor_i_avx(mat, diag_inv, rownnz, rowadr, colind) };
    }
    factor_i_any(mat, diag_inv, rownnz, rowadr, colind, add_to_scl)
}

/// [`factor_i`] compiled for AVX, its row updates in AVX registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn factor_i_avx(
    mat: &mut [f64],
    diag_inv: &mut [f64],
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
) -> Option<usize> {
    // SAFETY: this function runs only on a CPU with AVX.
    factor_i_any(mat, diag_inv, rownnz, rowadr, colind, |d, s, k| unsafe { add_to_scl_avx(d, s, k) })
}

/// [`factor_i`]'s body.
#[inline(always)]
fn factor_i_any(
    mat: &mut [f64],
    diag_inv: &mut [f64],
    rownnz: &[i32],
    rowadr: &[i32],
    colind: &[i32],
    add_to_scl: impl Fn(&mut [f64], &[f64], f64),
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
        // lower dofs come first in `mat`, so row i lies wholly before row k; row i's columns
        // are the first entries of row k's, since i is an ancestor of k)
        let (above, row) = mat.split_at_mut(start);
        let lrow = &mut row[..nnz - 1];
        for (&i, &l) in colind[start..diag].iter().zip(lrow.iter()).rev() {
            let i = i as usize;
            let (ri, ni) = (rowadr[i] as usize, rownnz[i] as usize);
            add_to_scl(&mut above[ri..ri + ni], lrow, inv * -l);
        }
        for v in lrow {
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
