//! `mj_implicitSkip` for the `implicit` integrator as MuJoCo 4.0.0 computes it
//! (`docs/measurements.md` K8, K11, K12): the full velocity derivative (actuators, damping and
//! the bias forces' RNE derivative, [`super::derivative`]), `qLU = M - h qDeriv` on the
//! non-symmetric `D` pattern, its sparse LU factor without fill-in, the solve and the advance.
//!
//! Algorithm:
//! 1. `f = qfrc_smooth + qfrc_constraint`.
//! 2. Unless the caller reuses the last factor: `qDeriv` as `implicitfast`'s plus the RNE
//!    derivative; `qLU[k] = M[mapM2D[k]]` (0 where `M` has no entry), `qLU += qDeriv (-h)`;
//!    factor `qLU = (U + I) L` from the last row up (`mju_factorLUSparse`), a pivot below
//!    `1e-15` in size replaced by `+-1e-15` and reported.
//! 3. `qacc`: `(U + I)` solved from the last row up, then `L` from the first, each row's sum in
//!    `mju_dotSparse`'s order; then the advance ([`super::integrate::advance`]).

// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use super::actuation::ActuatorModel;
use super::derivative::{rne_vel, BodyPattern, RneVelInput, RneVelScratch};
use super::implicit::{smooth_vel, total_force, DerivInput};
use super::integrate::{advance, EulerState, IntegratorModel};
use super::passive::PassiveModel;
use super::TreeModel;

/// A pivot smaller than this in size is replaced by it, with its sign (K12).
const MINVAL: f64 = 1e-15;

/// What `implicit` reads besides the views `implicitfast` reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct FullImplicitModel<'a> {
    /// The body-dof pattern the RNE derivative walks.
    pub bodies: BodyPattern<'a>,
    /// Element of `M` for each element of `qDeriv`, -1 where `M` has none (`nD`).
    pub map_m2d: &'a [i32],
}

/// The scratch `implicit` keeps from call to call: the derivative's arrays, the factor's
/// remaining-entry counters.
#[derive(Clone, Debug, Default)]
pub struct FullImplicitScratch {
    /// The RNE derivative's arrays.
    pub rne: RneVelScratch,
    remaining: Vec<i32>,
}

/// `sum vals[k] x[cols[k]]` in 4.0.0's `mju_dotSparse` order: four lanes over whole blocks of
/// four reduced `(l0 + l2) + (l1 + l3)`, then the rest added one by one (from `+0` under four).
pub fn dot_sparse(vals: &[f64], x: &[f64], cols: &[i32]) -> f64 {
    let n = vals.len();
    let p = |k: usize| vals[k] * x[cols[k] as usize];
    let (mut sum, mut i) = (0.0, 0);
    if n >= 4 {
        let mut lane = [p(0), p(1), p(2), p(3)];
        i = 4;
        while i + 4 <= n {
            lane = [lane[0] + p(i), lane[1] + p(i + 1), lane[2] + p(i + 2), lane[3] + p(i + 3)];
            i += 4;
        }
        sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    }
    while i < n {
        sum += p(i);
        i += 1;
    }
    sum
}

/// `mju_factorLUSparse` in place on the `D` pattern; returns the first row whose pivot was
/// replaced. `remaining` is scratch of `nv` counters.
pub fn factor_lu_sparse(lu: &mut [f64], im: &IntegratorModel, remaining: &mut [i32]) -> Option<usize> {
    let (rownnz, rowadr, colind) = (im.d_rownnz, im.d_rowadr, im.d_colind);
    let n = rownnz.len();
    remaining[..n].copy_from_slice(rownnz);
    let mut singular = None;
    for i in (0..n).rev() {
        remaining[i] -= 1;
        let ii = (rowadr[i] + remaining[i]) as usize;
        if lu[ii].abs() < MINVAL {
            lu[ii] = if lu[ii] < 0.0 { -MINVAL } else { MINVAL };
            singular.get_or_insert(i);
        }
        for j in (0..i).rev() {
            let ji = (rowadr[j] + remaining[j] - 1) as usize;
            if colind[ji] as usize != i {
                continue;
            }
            remaining[j] -= 1;
            lu[ji] /= lu[ii];
            let lji = lu[ji];
            let (mut ic, mut jc) = (rowadr[i] as usize, rowadr[j] as usize);
            let jend = (rowadr[j] + remaining[j]) as usize;
            while jc < jend {
                if colind[ic] == colind[jc] {
                    lu[jc] -= lu[ic] * lji;
                    ic += 1;
                    jc += 1;
                } else if colind[ic] > colind[jc] {
                    jc += 1;
                } else {
                    // fill-in: never on the compiler's tree pattern
                    break;
                }
            }
        }
    }
    singular
}

/// `mju_solveLUSparse`: `res = (LU)^-1 vec` on the `D` pattern.
pub fn solve_lu_sparse(res: &mut [f64], lu: &[f64], vec: &[f64], im: &IntegratorModel) {
    let (rownnz, rowadr, diag, colind) = (im.d_rownnz, im.d_rowadr, im.d_diag, im.d_colind);
    let n = rownnz.len();
    for i in (0..n).rev() {
        res[i] = vec[i];
        let d1 = diag[i] + 1;
        let nnz = rownnz[i] - d1;
        if nnz > 0 {
            let adr = (rowadr[i] + d1) as usize;
            let (v, c) = (&lu[adr..adr + nnz as usize], &colind[adr..adr + nnz as usize]);
            res[i] -= dot_sparse(v, res, c);
        }
    }
    for i in 0..n {
        let (d, adr) = (diag[i] as usize, rowadr[i] as usize);
        if d > 0 {
            res[i] -= dot_sparse(&lu[adr..adr + d], res, &colind[adr..adr + d]);
        }
        res[i] /= lu[adr + d];
    }
}

/// `mj_implicitSkip` for `implicit` on all dofs (sleep off). `qfrc` and `qacc` are scratch of
/// `nv` entries; `qderiv` and `qlu` are MuJoCo's `qDeriv` and `qLU` (`nD`); `rv`'s frames are
/// read, its velocities taken from `s`. Returns the row of a replaced pivot.
#[allow(clippy::too_many_arguments)]
pub fn implicit_full(
    (tm, pm, am, im): (&TreeModel, &PassiveModel, &ActuatorModel, &IntegratorModel),
    fm: &FullImplicitModel,
    skipfactor: bool,
    (x, rv): (&DerivInput, &RneVelInput),
    (qderiv, qlu): (&mut [f64], &mut [f64]),
    sc: &mut FullImplicitScratch,
    s: &mut EulerState,
    (qfrc, qacc): (&mut [f64], &mut [f64]),
) -> Option<usize> {
    let nv = tm.nv();
    total_force(s, &mut qfrc[..nv]);
    let mut singular = None;
    if !skipfactor {
        smooth_vel(pm, am, im, s, x, qderiv);
        // the velocities are the state's (the caller's `rv.qvel` is not read)
        let rv = RneVelInput { qvel: s.qvel, ..*rv };
        rne_vel(tm, im, &fm.bodies, &rv, &mut sc.rne, qderiv);
        for (l, &k) in qlu.iter_mut().zip(fm.map_m2d) {
            *l = if k >= 0 { s.mass[k as usize] } else { 0.0 };
        }
        let minus_h = -im.timestep;
        for (l, &q) in qlu.iter_mut().zip(qderiv.iter()) {
            *l += q * minus_h;
        }
        sc.remaining.resize(nv, 0);
        singular = factor_lu_sparse(qlu, im, &mut sc.remaining);
    }
    solve_lu_sparse(&mut qacc[..nv], qlu, &qfrc[..nv], im);
    advance(tm, am, im, s, &qacc[..nv]);
    singular
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lu_factor_solves_a_tree_pattern_system() {
        // dofs 0 <- 1 and 0 <- 2 (a root with two children): D rows {0,1,2}, {0,1}, {0,2}
        let im = IntegratorModel {
            d_rownnz: &[3, 2, 2],
            d_rowadr: &[0, 3, 5],
            d_colind: &[0, 1, 2, 0, 1, 0, 2],
            d_diag: &[0, 1, 1],
            ..IntegratorModel::default()
        };
        // a non-symmetric matrix on that pattern
        let a = [[4.0, 1.0, -0.5], [0.7, 3.0, 0.0], [0.2, 0.0, 5.0]];
        let mut lu = [a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[2][0], a[2][2]];
        let mut rem = [0; 3];
        assert_eq!(factor_lu_sparse(&mut lu, &im, &mut rem), None);
        let b = [1.0, -2.0, 0.5];
        let mut x = [0.0; 3];
        solve_lu_sparse(&mut x, &lu, &b, &im);
        for r in 0..3 {
            let ax: f64 = (0..3).map(|c| a[r][c] * x[c]).sum();
            assert!((ax - b[r]).abs() < 1e-12, "row {r}: {ax} != {}", b[r]);
        }
        // a zero pivot is replaced and reported
        let mut lu = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0];
        assert_eq!(factor_lu_sparse(&mut lu, &im, &mut rem), Some(0));
        assert_eq!(lu[0], MINVAL);
    }

    #[test]
    fn dot_sparse_keeps_the_library_order() {
        let x = [1e16, 1.0, -1e16, 1.0, 1.0];
        // five terms: lanes (1e16, 1, -1e16, 1) -> (1e16 - 1e16) + (1 + 1) = 2, then + 1
        assert_eq!(dot_sparse(&[1.0; 5], &x, &[0, 1, 2, 3, 4]), 3.0);
        // three terms from +0, one by one: (1e16 + 1) - 1e16 = 0 in doubles
        assert_eq!(dot_sparse(&[1.0; 3], &x, &[0, 1, 2]), 0.0);
    }
}
