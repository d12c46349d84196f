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
//! Algorithm:
//! 1. Start from the identity quaternion `q`.
//! 2. Repeat (at most 500 times): `R = mat(q)`, `D = R' A R`. Take the largest off-diagonal
//!    entry `D[r][c]` (ties resolved in the order (0,1), (0,2), (1,2)); stop if it is below
//!    `tol` (see below). Otherwise compute the Schur rotation angle (`tau`, `t`, `c`), stop if `c` is within
//!    1e-12 of 1, and post-multiply `q` by the quaternion of that rotation about the third axis.
//! 3. Sort the diagonal of `D` in decreasing order with a three-step bubble sort (pairs 0-1,
//!    1-2, 0-1), swapping only when the values differ by more than `tol`; each swap
//!    post-multiplies `q` by a 90 degree rotation about the remaining axis.
//!
//! The tolerance. The C snapshot we read (Aug 2026) uses an absolute 1e-12, but MuJoCo 4.0.0
//! behaves as if `tol = 1e-7 * max|A_ii|`: measured with the Python bindings (`mesh_quat` and
//! `body_inertia` of slightly anisotropic, rotated box meshes, and of the corpus dodecahedron):
//! - cube 2x2x2 with y, z stretched by 2e-7, 4e-7 and rotated: off-diagonal 5.38e-7 at
//!   diagonal 5.333 gives exactly one Jacobi step (quat [0.97173, 0.23608, 0, 0]); the next
//!   largest entry, 4.56e-7, stops it. Stretch 1e-7 (largest entry 3.1e-7): no rotation;
//! - the same with `scale` 0.01 and 100: identical quaternions (so the tolerance is relative);
//! - box 2x2x6 rotated about z: no rotation up to off/max-diagonal 8.4e-8 (1.14e-7 relative to
//!   the mean diagonal), rotation from 1.26e-7;
//! - dodecahedron.stl (scale .04): off-diagonals 2.5e-11 at diagonal 8.8e-3, eigenvalues
//!   8.821797066e-3 < ..075e-3 < ..101e-3 kept unsorted and `mesh_quat` = identity.
//!
//! The engine's `mju_eig3` in the same release still uses the absolute 1e-12.

/// Tolerance on the rotation cosine of a Jacobi step.
const EIG_EPS: f64 = 1e-12;

/// Relative tolerance (times the largest diagonal magnitude) on off-diagonal entries and on
/// eigenvalue differences; measured from MuJoCo 4.0.0, see the module documentation.
const EIG_RTOL: f64 = 1e-7;

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

/// Eigen-decomposition of the symmetric row-major matrix `mat`, bit-compatible with MuJoCo.
pub fn eig3(mat: &[f64; 9]) -> Eig3 {
    let tol = EIG_RTOL * mat[0].abs().max(mat[4].abs()).max(mat[8].abs());
    let mut quat = [1.0, 0.0, 0.0, 0.0];
    let mut val = [0.0; 3];
    let mut iter = 0;
    while iter < 500 {
        let rot = quat2mat(&quat);
        let d = mulmat(&mulmat(&transpose(&rot), mat), &rot);
        val = [d[0], d[4], d[8]];

        // Largest off-diagonal entry; (rk, ck) its place, rotk the axis it rotates about.
        let (rk, ck, rotk) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * rk + ck];
        if off.abs() < tol {
            break;
        }

        // Symmetric Schur rotation that zeroes `off`.
        let tau = (d[4 * ck] - d[4 * rk]) / (2.0 * off);
        let t =
            if tau >= 0.0 { 1.0 / (tau + (1.0 + tau * tau).sqrt()) } else { -1.0 / (-tau + (1.0 + tau * tau).sqrt()) };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if c > 1.0 - EIG_EPS {
            break;
        }

        // The same rotation as a half-angle quaternion about axis `rotk`; the middle axis has
        // the opposite orientation with respect to the (rk, ck) plane.
        let half = (0.5 - 0.5 * c).sqrt();
        let mut s = if tau >= 0.0 { -half } else { half };
        if rotk == 1 {
            s = -s;
        }
        let mut step = [0.0; 4];
        step[rotk + 1] = s;
        step[0] = (1.0 - s * s).sqrt();
        normvec(&mut step);
        quat = mulquat(&quat, &step);
        normvec(&mut quat);
        iter += 1;
    }

    // Bubble sort in decreasing order over the pairs (0,1), (1,2), (0,1).
    for j in 0..3 {
        let j1 = j % 2;
        if val[j1] + tol < val[j1 + 1] {
            val.swap(j1, j1 + 1);
            // MuJoCo's 15-digit literal for cos(pi/4), not the correctly rounded constant.
            #[allow(clippy::approx_constant)]
            let mut turn = [0.707106781186548, 0.0, 0.0, 0.0];
            turn[(j1 + 2) % 3 + 1] = turn[0];
            quat = mulquat(&quat, &turn);
            normvec(&mut quat);
        }
    }

    Eig3 { val, vec: quat2mat(&quat), quat, iterations: iter }
}
