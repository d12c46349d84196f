//! Dense Cholesky factorisation as MuJoCo 4.0.0's exported `mju_cholFactor` computes it: the
//! dense Newton solver factors its Hessian `M + J' D J` with it, and the cone Hessians of
//! elliptic contacts too (`docs/measurements.md` D15).
// Indexed loops follow the library's row and column walk; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::dynamics::avx::avx_dispatch;
use crate::dynamics::reference::dot;
#[cfg(target_arch = "x86_64")]
use crate::dynamics::reference::dot_ymm;
use crate::math::MINVAL;

/// `mju_cholFactor`: the lower triangle of the row-major `n x n` matrix `mat` becomes `L` with
/// `L L' = mat`, column by column; a pivot under `mindiag` is raised to it, its column below
/// zeroed and the rank lowered. The upper triangle is left as it was. Returns the rank.
pub fn chol_factor(mat: &mut [f64], n: usize, mindiag: f64) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked; the function is safe code otherwise.
        return unsafe { chol_factor_avx(mat, n, mindiag) };
    }
    chol_factor_with(mat, n, mindiag, dot)
}

/// [`chol_factor`] compiled for AVX, its dots on `ymm` registers ([`dot_ymm`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn chol_factor_avx(mat: &mut [f64], n: usize, mindiag: f64) -> usize {
    chol_factor_with(mat, n, mindiag, |a, b| dot_ymm(a, b))
}

/// [`chol_factor`]'s body, with its dot product.
#[inline(always)]
fn chol_factor_with(mat: &mut [f64], n: usize, mindiag: f64, dot: impl Fn(&[f64], &[f64]) -> f64) -> usize {
    let mut rank = n;
    for j in 0..n {
        let mut pivot = mat[j * (n + 1)];
        if j > 0 {
            let row = &mat[j * n..j * n + j];
            pivot -= dot(row, row);
        }
        let deficient = pivot < mindiag;
        if deficient {
            pivot = mindiag;
            rank -= 1;
        }
        mat[j * (n + 1)] = pivot.sqrt();
        if deficient {
            for i in j + 1..n {
                mat[i * n + j] = 0.0;
            }
            continue;
        }
        let inv = 1.0 / mat[j * (n + 1)];
        for i in j + 1..n {
            let (upper, lower) = mat.split_at_mut(i * n);
            let s = dot(&lower[..j], &upper[j * n..j * n + j]);
            lower[j] = (lower[j] - s) * inv;
        }
    }
    rank
}

/// `mju_cholSolve`: `res = (L L') \ vec` with the factor in the lower triangle of the row-major
/// `n x n` `mat` (forward substitution with `mju_dot`'s order, then backward substitution column
/// by column from the last, D18).
pub fn chol_solve(res: &mut [f64], mat: &[f64], vec: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked; the function is safe code otherwise.
        return unsafe { chol_solve_avx(res, mat, vec) };
    }
    chol_solve_with(res, mat, vec, dot);
}

/// [`chol_solve`] compiled for AVX, its dots on `ymm` registers ([`dot_ymm`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn chol_solve_avx(res: &mut [f64], mat: &[f64], vec: &[f64]) {
    chol_solve_with(res, mat, vec, |a, b| dot_ymm(a, b));
}

/// [`chol_solve`]'s body, with its dot product.
#[inline(always)]
fn chol_solve_with(res: &mut [f64], mat: &[f64], vec: &[f64], dot: impl Fn(&[f64], &[f64]) -> f64) {
    let n = res.len();
    res.copy_from_slice(vec);
    for i in 0..n {
        if i > 0 {
            let s = dot(&mat[i * n..i * n + i], &res[..i]);
            res[i] -= s;
        }
        res[i] /= mat[i * (n + 1)];
    }
    // backward by columns: each solved entry (unless zero) is taken out of the entries above it
    for i in (0..n).rev() {
        res[i] /= mat[i * (n + 1)];
        let x = res[i];
        if i > 0 && x != 0.0 {
            for (r, &l) in res[..i].iter_mut().zip(&mat[i * n..i * n + i]) {
                *r = -x * l + *r;
            }
        }
    }
}

avx_dispatch! {
    /// `mju_cholUpdate`: the factor in the lower triangle of `mat` becomes that of `L L' + x x'`
    /// (`plus`) or `L L' - x x'`, one rotation per nonzero entry of `x` (which is overwritten); a
    /// pivot under `1e-15` is raised to it and the rank lowered. Returns the rank.
    pub fn chol_update(mat: &mut [f64], x: &mut [f64], plus: bool) -> usize => chol_update_any
}

/// [`chol_update`]'s body.
#[inline(always)]
fn chol_update_any(mat: &mut [f64], x: &mut [f64], plus: bool) -> usize {
    let n = x.len();
    let mut rank = n;
    for k in 0..n {
        let xk = x[k];
        if xk == 0.0 {
            continue;
        }
        let lkk = mat[k * (n + 1)];
        let sq = if plus { xk * xk } else { -xk * xk };
        let mut tmp = lkk * lkk + sq;
        // a NaN is raised too, as the library's unordered compare does
        if tmp < MINVAL || tmp.is_nan() {
            tmp = MINVAL;
            rank -= 1;
        }
        let r = tmp.sqrt();
        let c = r / lkk;
        let cinv = 1.0 / c;
        let s = xk / lkk;
        mat[k * (n + 1)] = r;
        for i in k + 1..n {
            let l = &mut mat[i * n + k];
            *l = if plus { (*l + s * x[i]) * cinv } else { (*l - s * x[i]) * cinv };
        }
        for i in k + 1..n {
            x[i] = c * x[i] - s * mat[i * n + k];
        }
    }
    rank
}
