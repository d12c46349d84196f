//! Eigen-decomposition of a symmetric 3x3 matrix, as MuJoCo's compiler does it.
//!
//! The compiler needs the principal axes of an inertia tensor both for meshes (to rotate the
//! vertices into the principal frame) and for bodies (`body_iquat`). MuJoCo finds them with a
//! cyclic Jacobi iteration that accumulates the rotation as a quaternion rather than as a
//! matrix, and then sorts the eigenvalues in decreasing order by quarter-turn rotations. The
//! quaternion that comes out is therefore specific to that procedure (sign, which of the
//! equivalent frames), so it is reproduced step by step here, with the same floating-point
//! order of operations, to give the same `mesh_quat` / `body_iquat` bits.
//!
//! The procedure (and the facts measured about it) is in [`crate::compile::math::eig3_tol`]; the
//! mesh compiler calls it with the tolerance 1e-7 times the largest entry of the tensor, which is
//! why earlier measurements saw a *relative* threshold (a 2x2x2 cube stretched by 2e-7 and rotated
//! gets exactly one Jacobi step, by 1e-7 none; the same at scale 0.01 and 100; the corpus
//! dodecahedron's 2.5e-11 off-diagonals at diagonal 8.8e-3 leave `mesh_quat` at identity).

/// The tolerance MuJoCo's mesh compiler passes to its eigen-solver.
pub const MESH_EIG_TOL: f64 = 1e-7;

/// MuJoCo's `mjEPS` of the compiler utilities: below this a vector norm counts as zero.
pub const MJ_EPS: f64 = crate::compile::math::EPS;

// The compiler's small-vector helpers (same conventions and operation order); re-exported so
// the mesh code keeps one path to them.
pub use crate::compile::math::{mulmat, mulquat, normvec, quat2mat, transpose};

/// Result of [`eig3`]: eigenvalues (decreasing), eigenvectors and their frame as a quaternion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eig3 {
    /// Eigenvalues, sorted in decreasing order (up to the relative tie tolerance).
    pub val: [f64; 3],
    /// Row-major rotation matrix whose columns are the eigenvectors (`quat2mat(quat)`).
    pub vec: [f64; 9],
    /// Orientation of the eigenvector frame, MuJoCo's `quat` output of `mjuu_eig3`.
    pub quat: [f64; 4],
    /// Number of Jacobi iterations performed.
    pub iterations: usize,
}

/// Eigen-decomposition of the symmetric row-major matrix `mat` as MuJoCo 4.0.0's mesh
/// compiler does it: [`crate::compile::math::eig3_tol`] with the mesh tolerance 1e-7.
pub fn eig3(mat: &[f64; 9]) -> Eig3 {
    let (val, quat, iterations) = crate::compile::math::eig3_tol(mat, MESH_EIG_TOL);
    Eig3 { val, vec: quat2mat(&quat), quat, iterations }
}
