//! PGS's elliptic contacts (`docs/measurements.md` D29): one contact's rows form one block, moved
//! along its own force (the ray update) or along the normal alone, then its friction solved as a
//! small quadratic program on the friction ellipsoid (`mju_QCQP2` for condim 3, `mju_QCQP3` for
//! condim 4, the library's general `mju_QCQP` for condim 6, D35).
// Indexed loops follow the library's block layout; `x = y + x` keeps its operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::qcqp::{qcqp, qcqp2, qcqp3};
use super::update::state;
use crate::dynamics::reference::{dot, Jacobian};

/// `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// The `dim x dim` block of `AR` at row and column `i` into `out` (row-major); `None` when a
/// sparse row `i` stores no diagonal (the library raises an error there). The sparse block is
/// read as the library reads it: every row from the diagonal's offset in row `i`.
pub(super) fn extract_block(ar: &Jacobian, i: usize, dim: usize, out: &mut [f64; 36]) -> Option<()> {
    match *ar {
        Jacobian::Dense { nv: n, j } => {
            for r in 0..dim {
                let at = (i + r) * n + i;
                out[r * dim..(r + 1) * dim].copy_from_slice(&j[at..at + dim]);
            }
        }
        Jacobian::Sparse { rownnz, rowadr, colind, j, .. } => {
            let adr = rowadr[i] as usize;
            let k = (0..rownnz[i].max(0) as usize).find(|&k| colind[adr + k] as usize == i)?;
            for r in 0..dim {
                let at = rowadr[i + r] as usize + k;
                out[r * dim..(r + 1) * dim].copy_from_slice(&j[at..at + dim]);
            }
        }
    }
    Some(())
}

/// `sum f_j^2 / mu_j^2` over the friction forces, from `+0`.
fn ellipsoid_sum(friction: &[f64], mu: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..friction.len() {
        s = s + (friction[j] * friction[j]) / (mu[j] * mu[j]);
    }
    s
}

/// Scales the friction forces onto the ellipsoid of radius `normal` (when `feasible`, only
/// from outside it).
fn project_ellipsoid(friction: &mut [f64], normal: f64, mu: &[f64], feasible: bool) {
    let s = ellipsoid_sum(friction, mu);
    let normal2 = normal * normal;
    if !feasible || s > normal2 {
        let scl = (normal2 / if MINVAL > s { MINVAL } else { s }).sqrt();
        for f in friction.iter_mut() {
            *f = *f * scl;
        }
    }
}

/// The Nesterov step's projection of one elliptic contact's forces (`dim` entries).
pub(super) fn project_cone(force: &mut [f64], mu: &[f64; 5]) {
    let dim = force.len();
    if 0.0 > force[0] {
        force.fill(0.0);
    } else if dim >= 2 {
        let (n, fr) = force.split_at_mut(1);
        project_ellipsoid(fr, n[0], &mu[..dim - 1], true);
    }
}

/// One elliptic contact's update in the sweep: `force` its `dim` forces (updated), `old` their
/// values before, `res` the residual, `a` the block of `AR`, `ar_inv` `1 / AR` of its first row,
/// `mu` the contact's five friction coefficients.
pub(super) fn update(force: &mut [f64], old: &[f64], res: &[f64], a: &[f64; 36], ar_inv: f64, mu: &[f64; 5]) {
    let dim = force.len();
    if MINVAL > force[0] {
        // the normal alone, friction cleared
        let f = force[0] - res[0] * ar_inv;
        force[0] = if 0.0 > f { 0.0 } else { f };
        force[1..].fill(0.0);
    } else {
        // along the ray of the current force
        let mut v = [0.0; 6];
        v[..dim].copy_from_slice(force);
        let mut av = [0.0; 6];
        for r in 0..dim {
            av[r] = dot(&a[r * dim..(r + 1) * dim], &v[..dim]);
        }
        let denom = dot(&v[..dim], &av[..dim]);
        if denom >= MINVAL {
            let mut x = -dot(&v[..dim], &res[..dim]) / denom;
            if 0.0 > x * v[0] + force[0] {
                x = -v[0] / force[0];
            }
            for j in 0..dim {
                force[j] = x * v[j] + force[j];
            }
        }
    }
    // the friction with the normal fixed: Ac the block's friction part, bc its residual there
    let nf = dim - 1;
    let mut ac = [0.0; 25];
    let mut bc = [0.0; 5];
    bc[..nf].copy_from_slice(&res[1..dim]);
    for j in 0..nf {
        let row = (j + 1) * dim;
        ac[j * nf..(j + 1) * nf].copy_from_slice(&a[row + 1..row + dim]);
        bc[j] = bc[j] - dot(&ac[j * nf..(j + 1) * nf], &old[1..dim]);
        bc[j] = (force[0] - old[0]) * a[row] + bc[j];
    }
    if MINVAL > force[0] {
        force[1..].fill(0.0);
        return;
    }
    let mut v = [0.0; 5];
    friction_qcqp(&mut v[..nf], &ac, &bc, mu, force[0]);
    force[1..].copy_from_slice(&v[..nf]);
}

/// The friction `v` (`dim - 1` entries) of an elliptic contact with normal force `normal`: the
/// QCQP on the ellipsoid (`mju_QCQP2`, `mju_QCQP3` or the general `mju_QCQP` by size, `ac` the
/// row-major block, `d = mu`), scaled onto the ellipsoid when the constraint is active.
pub(super) fn friction_qcqp(v: &mut [f64], ac: &[f64; 25], bc: &[f64; 5], mu: &[f64; 5], normal: f64) {
    let nf = v.len();
    let active = match nf {
        2 => {
            let mut r = [0.0; 2];
            let act = qcqp2(&mut r, &[ac[0], ac[1], ac[2], ac[3]], &[bc[0], bc[1]], &[mu[0], mu[1]], normal);
            v.copy_from_slice(&r);
            act
        }
        3 => {
            let mut r = [0.0; 3];
            let mut a3 = [0.0; 9];
            a3.copy_from_slice(&ac[..9]);
            let act = qcqp3(&mut r, &a3, &[bc[0], bc[1], bc[2]], &[mu[0], mu[1], mu[2]], normal);
            v.copy_from_slice(&r);
            act
        }
        // condim 6 (5 friction rows; the sizes were checked by the caller's block layout)
        _ => qcqp(v, &ac[..nf * nf], &bc[..nf], &mu[..nf], normal).unwrap_or(false),
    };
    if active {
        project_ellipsoid(v, normal, &mu[..nf], false);
    }
}

/// The cost change of one block (`0.5 delta' A delta + delta' res`, `mju_mulVecMatVec` then
/// `mju_dot`).
pub(super) fn cost_change(a: &[f64; 36], force: &[f64], old: &[f64], res: &[f64]) -> f64 {
    let dim = force.len();
    let mut delta = [0.0; 6];
    for j in 0..dim {
        delta[j] = force[j] - old[j];
    }
    let delta = &delta[..dim];
    let mut quad = 0.0;
    for r in 0..dim {
        quad = delta[r] * dot(&a[r * dim..(r + 1) * dim], delta) + quad;
    }
    quad * 0.5 + dot(delta, &res[..dim])
}

/// The dual state of one elliptic contact from its forces (`mu` the contact's regularised
/// coefficient, `friction` its five): top zone satisfied, bottom zone quadratic, else the cone.
pub(super) fn elliptic_state(force: &[f64], mu: f64, friction: &[f64; 5]) -> i32 {
    let dim = force.len();
    let mut f = [0.0; 5];
    for j in 1..dim {
        f[j - 1] = force[j] / friction[j - 1];
    }
    let n = force[0] / mu;
    let t = dot(&f[..dim - 1], &f[..dim - 1]).sqrt();
    if mu * n >= t {
        state::SATISFIED
    } else if mu * t + n > 0.0 || (mu * t + n).is_nan() {
        state::CONE
    } else {
        state::QUADRATIC
    }
}
