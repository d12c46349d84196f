//! Dense Cholesky factorisation as MuJoCo 4.0.0's exported `mju_cholFactor` computes it: the
//! dense Newton solver factors its Hessian `M + J' D J` with it, and the cone Hessians of
//! elliptic contacts too (`docs/measurements.md` D15).
// Indexed loops follow the library's row and column walk.
#![allow(clippy::needless_range_loop)]

use crate::dynamics::reference::dot;

/// `mju_cholFactor`: the lower triangle of the row-major `n x n` matrix `mat` becomes `L` with
/// `L L' = mat`, column by column; a pivot under `mindiag` is raised to it, its column below
/// zeroed and the rank lowered. The upper triangle is left as it was. Returns the rank.
pub fn chol_factor(mat: &mut [f64], n: usize, mindiag: f64) -> usize {
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
