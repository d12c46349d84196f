//! `mj_fwdAcceleration`: the smooth force `qfrc_smooth` and the unconstrained acceleration
//! `qacc_smooth = M^-1 qfrc_smooth`, as MuJoCo 4.0.0 computes them (`docs/measurements.md` D5),
//! with `mj_solveLD` for the solve.

use super::reference::sparse_dot;

/// Solves `L'DL x = b` in place (`x` holds `b`) with the factor of [`super::factor_m`]
/// (`mj_solveLD` for one vector).
pub fn solve_ld(x: &mut [f64], qld: &[f64], diag_inv: &[f64], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) {
    let n = rownnz.len();
    // x <- L'^-1 x: rows from the last, each scattering its value into its ancestors
    for r in (0..n).rev() {
        let nnz = rownnz[r] as usize;
        let xr = x[r];
        if nnz == 1 || xr == 0.0 {
            continue;
        }
        let start = rowadr[r] as usize;
        let end = start + nnz - 1;
        for (&c, &l) in colind[start..end].iter().zip(&qld[start..end]) {
            x[c as usize] -= xr * l;
        }
    }
    // x <- D^-1 x
    for (v, d) in x[..n].iter_mut().zip(diag_inv) {
        *v *= d;
    }
    // x <- L^-1 x: rows from the first, each gathering its ancestors
    for r in 0..n {
        let nnz = rownnz[r] as usize;
        if nnz <= 1 {
            continue;
        }
        let start = rowadr[r] as usize;
        let m = nnz - 1;
        let (vals, cols) = (&qld[start..start + m], &colind[start..start + m]);
        x[r] -= sparse_dot(vals, cols, x);
    }
}

/// The force arrays [`fwd_acceleration`] sums (`nv` each).
#[derive(Clone, Copy, Debug)]
pub struct SmoothForces<'a> {
    /// Passive forces.
    pub qfrc_passive: &'a [f64],
    /// Bias forces (subtracted).
    pub qfrc_bias: &'a [f64],
    /// Applied joint forces.
    pub qfrc_applied: &'a [f64],
    /// Actuator forces.
    pub qfrc_actuator: &'a [f64],
}

/// Writes `qfrc_smooth = passive - bias + applied + actuator` and `qacc_smooth` (`mj_fwdAcceleration`
/// without Cartesian applied forces: the caller leaves those to the library).
pub fn fwd_acceleration(
    m: &super::TreeModel,
    f: &SmoothForces,
    qld: &[f64],
    diag_inv: &[f64],
    qfrc_smooth: &mut [f64],
    qacc_smooth: &mut [f64],
) {
    let nv = m.nv();
    let out = &mut qfrc_smooth[..nv];
    for ((o, p), b) in out.iter_mut().zip(f.qfrc_passive).zip(f.qfrc_bias) {
        *o = p - b;
    }
    for (o, a) in out.iter_mut().zip(f.qfrc_applied) {
        *o += a;
    }
    for (o, a) in out.iter_mut().zip(f.qfrc_actuator) {
        *o += a;
    }
    qacc_smooth[..nv].copy_from_slice(&qfrc_smooth[..nv]);
    solve_ld(&mut qacc_smooth[..nv], qld, diag_inv, m.m_rownnz, m.m_rowadr, m.m_colind);
}
