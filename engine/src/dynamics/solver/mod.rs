//! MuJoCo 4.0.0's `mj_fwdConstraint`: from the constraint rows to the constrained acceleration
//! `qacc`, the constraint forces `efc_force` and `qfrc_constraint`, and the solver statistics
//! (`docs/measurements.md` D13 and onward).
//!
//! In 4.0.0 the solvers (PGS, CG and Newton, per island or over all rows, and noslip) are local
//! functions of the library, so the stage replaces the exported `mj_fwdConstraint` as a whole.
//! So far in Rust: the frame's path without constraint rows (D13), and with rows the Newton
//! solver over islands, pyramidal or elliptic cones (D16 to D21; on a sparse Jacobian its
//! iterations in the natural order, D53 to D55, the cone Hessians included, D82 to D84), CG over islands (D30, D31), and PGS (D25 to D28). The root crate leaves every
//! other call to the library, each with a named reason.

pub mod cg;
pub mod chol;
pub mod chol_sparse;
pub mod cone_sparse;
pub mod frame;
pub mod linesearch;
pub mod monolithic;
pub mod newton;
pub mod newton_sparse;
pub mod noslip;
pub mod order;
pub mod pgs;
mod pgs_cone;
pub mod products;
pub mod qcqp;
pub mod update;

/// `mjNISLAND`: the number of islands with their own solver statistics.
pub const NISLAND: usize = 20;

/// `mjNSOLVER`: the iterations per island with their own statistics.
pub const NSOLVER: usize = 200;

/// One iteration's statistics (`mjSolverStat`; PGS writes the improvement and the counts of
/// active and changed rows, zeros in the rest).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverStat {
    /// The line search's improvement of the cost, scaled by `1 / trace(M)`.
    pub improvement: f64,
    /// The gradient's norm, scaled likewise.
    pub gradient: f64,
    /// The line search's slope at the step.
    pub lineslope: f64,
    /// Rows not satisfied.
    pub nactive: i32,
    /// Rows whose state changed.
    pub nchange: i32,
    /// Cost evaluations of the line search.
    pub neval: i32,
    /// Cholesky updates (the rows when refactored).
    pub nupdate: i32,
}

/// `mj_fwdConstraint` for a state without constraint rows (`nefc == 0`, D13): no constraint
/// force, the unconstrained acceleration, and no solver iterations in any island's statistics.
/// (The effective metric's discrete-gyroscope correction, which the library applies after
/// every call, is left to it: the root crate does not call this with the metric active.)
pub fn without_rows(qacc_smooth: &[f64], qacc: &mut [f64], qfrc_constraint: &mut [f64], solver_niter: &mut [i32]) {
    qfrc_constraint.fill(0.0);
    qacc.copy_from_slice(qacc_smooth);
    solver_niter.fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_rows_the_acceleration_is_the_unconstrained_one_hand() {
        let smooth = [1.5, -2.0, f64::NAN];
        let (mut qacc, mut qfrc, mut niter) = ([9.0; 3], [7.0; 3], [3; NISLAND]);
        without_rows(&smooth, &mut qacc, &mut qfrc, &mut niter);
        assert_eq!(qacc[..2], smooth[..2]);
        assert!(qacc[2].is_nan());
        assert_eq!(qfrc, [0.0; 3]);
        assert_eq!(niter, [0; NISLAND]);
    }
}
