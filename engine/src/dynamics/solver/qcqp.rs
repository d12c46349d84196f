//! The small quadratically constrained problems of the dual solvers (PGS and noslip on elliptic
//! cones) as MuJoCo 4.0.0's exported `mju_QCQP2` and `mju_QCQP3` and its local general `mju_QCQP`
//! solve them (`docs/measurements.md` D15, D35): `min 0.5 x'Ax + x'b` subject to
//! `sum (x_i/d_i)^2 <= r^2`, by Newton's method on the multiplier of the scaled problem.
// Indexed loops follow the library's row-major layout; `x = x * y` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::chol::{chol_factor, chol_solve};
use crate::dynamics::reference::dot;

/// Iterations of the multiplier's Newton method.
const ITERATIONS: usize = 20;
/// The threshold of the determinant (positive definiteness), of the constraint's violation and
/// of the multiplier's step.
const TOL: f64 = 1e-10;

/// `mju_QCQP2`: the solution in `res`; true when the constraint is active (the multiplier moved),
/// false when unconstrained or when `A + la` is not positive definite (then `res = 0`).
pub fn qcqp2(res: &mut [f64; 2], a: &[f64; 4], b: &[f64; 2], d: &[f64; 2], r: f64) -> bool {
    let (b1, b2) = (b[0] * d[0], b[1] * d[1]);
    let a11 = a[0] * d[0] * d[0];
    let a22 = a[3] * d[1] * d[1];
    let a12 = a[1] * d[0] * d[1];
    let (mut la, mut v1, mut v2) = (0.0, 0.0, 0.0);
    for _ in 0..ITERATIONS {
        let det = (a11 + la) * (a22 + la) - a12 * a12;
        if det < TOL {
            *res = [0.0; 2];
            return false;
        }
        let detinv = 1.0 / det;
        let p11 = (a22 + la) * detinv;
        let p22 = (a11 + la) * detinv;
        let p12 = -a12 * detinv;
        v1 = -p11 * b1 - p12 * b2;
        v2 = -p12 * b1 - p22 * b2;
        let val = v1 * v1 + v2 * v2 - r * r;
        if val < TOL {
            break;
        }
        let deriv = -2.0 * (p11 * v1 * v1 + 2.0 * p12 * v1 * v2 + p22 * v2 * v2);
        let delta = -val / deriv;
        if delta < TOL {
            break;
        }
        la += delta;
    }
    *res = [v1 * d[0], v2 * d[1]];
    la != 0.0
}

/// `mju_QCQP3`: as [`qcqp2`] in three dimensions (`a` row-major 3x3).
pub fn qcqp3(res: &mut [f64; 3], a: &[f64; 9], b: &[f64; 3], d: &[f64; 3], r: f64) -> bool {
    let (b1, b2, b3) = (b[0] * d[0], b[1] * d[1], b[2] * d[2]);
    let a11 = a[0] * d[0] * d[0];
    let a22 = a[4] * d[1] * d[1];
    let a33 = a[8] * d[2] * d[2];
    let a12 = a[1] * d[0] * d[1];
    let a13 = a[2] * d[0] * d[2];
    let a23 = a[5] * d[1] * d[2];
    let (mut la, mut v) = (0.0, [0.0; 3]);
    for _ in 0..ITERATIONS {
        // the adjugate of A + la
        let mut p11 = (a22 + la) * (a33 + la) - a23 * a23;
        let mut p22 = (a11 + la) * (a33 + la) - a13 * a13;
        let mut p33 = (a11 + la) * (a22 + la) - a12 * a12;
        let mut p12 = a13 * a23 - a12 * (a33 + la);
        let mut p13 = a12 * a23 - a13 * (a22 + la);
        let mut p23 = a12 * a13 - a23 * (a11 + la);
        let det = (a11 + la) * p11 + a12 * p12 + a13 * p13;
        if det < TOL {
            *res = [0.0; 3];
            return false;
        }
        let detinv = 1.0 / det;
        p11 *= detinv;
        p22 *= detinv;
        p33 *= detinv;
        p12 *= detinv;
        p13 *= detinv;
        p23 *= detinv;
        v = [-p11 * b1 - p12 * b2 - p13 * b3, -p12 * b1 - p22 * b2 - p23 * b3, -p13 * b1 - p23 * b2 - p33 * b3];
        let val = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - r * r;
        if val < TOL {
            break;
        }
        let deriv = -2.0 * (p11 * v[0] * v[0] + p22 * v[1] * v[1] + p33 * v[2] * v[2])
            - 4.0 * (p12 * v[0] * v[1] + p13 * v[0] * v[2] + p23 * v[1] * v[2]);
        let delta = -val / deriv;
        if delta < TOL {
            break;
        }
        la += delta;
    }
    *res = [v[0] * d[0], v[1] * d[1], v[2] * d[2]];
    la != 0.0
}

/// The largest problem [`qcqp`] takes (the friction of a condim-6 contact).
pub const QCQP_MAX: usize = 5;

/// `mju_QCQP`: as [`qcqp2`] in `n = res.len()` dimensions (`n <= 5`, `a` row-major `n x n`), with
/// `A + la` factored by `mju_cholFactor` (pivots under the threshold count as a lost rank) and
/// solved by `mju_cholSolve` (D35). `None` when `n` is over [`QCQP_MAX`] or an input is short.
pub fn qcqp(res: &mut [f64], a: &[f64], b: &[f64], d: &[f64], r: f64) -> Option<bool> {
    let n = res.len();
    if n > QCQP_MAX || a.len() < n * n || b.len() < n || d.len() < n {
        return None;
    }
    let (mut sa, mut ala, mut sb, mut tmp) = ([0.0; 25], [0.0; 25], [0.0; 5], [0.0; 5]);
    // the scaled problem: constraint x'x <= r^2
    for i in 0..n {
        sb[i] = b[i] * d[i];
        for j in 0..n {
            sa[i * n + j] = a[i * n + j] * d[i] * d[j];
        }
    }
    let (sa, ala, sb, tmp) = (&sa[..n * n], &mut ala[..n * n], &sb[..n], &mut tmp[..n]);
    let mut la = 0.0;
    for _ in 0..ITERATIONS {
        ala.copy_from_slice(sa);
        for i in 0..n {
            ala[i * (n + 1)] += la;
        }
        if chol_factor(ala, n, TOL) < n {
            res.fill(0.0);
            return Some(false);
        }
        chol_solve(res, ala, sb);
        for x in res.iter_mut() {
            *x = *x * -1.0;
        }
        let val = dot(res, res) - r * r;
        if val < TOL {
            break;
        }
        chol_solve(tmp, ala, res);
        let deriv = -2.0 * dot(res, tmp);
        let delta = -val / deriv;
        if delta < TOL {
            break;
        }
        la += delta;
    }
    for i in 0..n {
        res[i] = res[i] * d[i];
    }
    Some(la != 0.0)
}
