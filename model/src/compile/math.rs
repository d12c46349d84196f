//! Small-vector arithmetic with MuJoCo's compiler conventions.
//!
//! The compiler's quaternion and frame helpers are written so that every floating-point
//! operation happens in the same order as in MuJoCo's user-model utilities; that is what
//! makes the compiled numbers agree bit for bit rather than merely to rounding.
//! Quaternions are `[w, x, y, z]`; 3×3 matrices are row-major `[f64; 9]`.

/// MuJoCo's `mjEPS`: below this a norm counts as zero.
pub const EPS: f64 = 1e-14;
/// MuJoCo's `mjMINVAL`.
pub const MINVAL: f64 = 1e-15;
/// π as MuJoCo spells it (`mjPI`).
pub const PI: f64 = std::f64::consts::PI;
/// The identity quaternion.
pub const QUNIT: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

/// Normalises `v` in place and returns its previous length.
///
/// Lengths below [`EPS`] are reported as 0 and left alone; lengths within [`EPS`] of 1 are
/// not divided, so an already-unit vector keeps its exact bits.
pub fn normvec(v: &mut [f64]) -> f64 {
    let mut nrm = 0.0;
    for x in v.iter() {
        nrm += x * x;
    }
    if nrm < EPS {
        return 0.0;
    }
    let nrm = nrm.sqrt();
    if (nrm - 1.0).abs() > EPS {
        for x in v.iter_mut() {
            *x /= nrm;
        }
    }
    nrm
}

/// Dot product of two 3-vectors.
pub fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Cross product `b × c`.
pub fn cross(b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    [b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]]
}

/// Rotation matrix of a unit quaternion (the identity quaternion maps to the exact identity).
pub fn quat2mat(q: &[f64; 4]) -> [f64; 9] {
    if q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0 {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let q00 = q[0] * q[0];
    let q01 = q[0] * q[1];
    let q02 = q[0] * q[2];
    let q03 = q[0] * q[3];
    let q11 = q[1] * q[1];
    let q12 = q[1] * q[2];
    let q13 = q[1] * q[3];
    let q22 = q[2] * q[2];
    let q23 = q[2] * q[3];
    let q33 = q[3] * q[3];
    [
        q00 + q11 - q22 - q33,
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        q00 - q11 + q22 - q33,
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        q00 - q11 - q22 + q33,
    ]
}

/// Quaternion product `qa * qb`, renormalised as MuJoCo's compiler does.
pub fn mulquat(qa: &[f64; 4], qb: &[f64; 4]) -> [f64; 4] {
    let mut r = [
        qa[0] * qb[0] - qa[1] * qb[1] - qa[2] * qb[2] - qa[3] * qb[3],
        qa[0] * qb[1] + qa[1] * qb[0] + qa[2] * qb[3] - qa[3] * qb[2],
        qa[0] * qb[2] - qa[1] * qb[3] + qa[2] * qb[0] + qa[3] * qb[1],
        qa[0] * qb[3] + qa[1] * qb[2] - qa[2] * qb[1] + qa[3] * qb[0],
    ];
    normvec(&mut r);
    r
}

/// `mat * v` for a row-major 3×3 matrix.
pub fn mulmatvec(mat: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
        mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
        mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2],
    ]
}

/// Product of two row-major 3×3 matrices.
pub fn mulmat(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
        }
    }
    r
}

/// Transpose of a 3×3 matrix.
pub fn transpose(m: &[f64; 9]) -> [f64; 9] {
    [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]
}

/// Rotates `v` by `q` with the two-cross-product formula MuJoCo's compiler uses.
pub fn rot_vec_quat(v: &[f64; 3], q: &[f64; 4]) -> [f64; 3] {
    if v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 {
        return [0.0; 3];
    }
    if q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0 {
        return *v;
    }
    let t = [
        q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
        q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
        q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
    ];
    [
        v[0] + 2.0 * (q[2] * t[2] - q[3] * t[1]),
        v[1] + 2.0 * (q[3] * t[0] - q[1] * t[2]),
        v[2] + 2.0 * (q[1] * t[1] - q[2] * t[0]),
    ]
}

/// Composes a child pose onto a parent pose: `pos += R(quat)·childpos`, `quat = quat·childquat`.
pub fn frame_accum(pos: &mut [f64; 3], quat: &mut [f64; 4], childpos: &[f64; 3], childquat: &[f64; 4]) {
    let mat = quat2mat(quat);
    let v = mulmatvec(&mat, childpos);
    pos[0] += v[0];
    pos[1] += v[1];
    pos[2] += v[2];
    *quat = mulquat(quat, childquat);
}

/// Re-expresses a pose given in a frame (`pos`, `quat`) in that frame's parent.
pub fn frame_accum_child(fpos: &[f64; 3], fquat: &[f64; 4], pos: &mut [f64; 3], quat: &mut [f64; 4]) {
    let mut p = *fpos;
    let mut q = *fquat;
    frame_accum(&mut p, &mut q, pos, quat);
    *pos = p;
    *quat = q;
}

/// The inverse of a pose.
pub fn frame_invert(pos: &[f64; 3], quat: &[f64; 4]) -> ([f64; 3], [f64; 4]) {
    let qneg = [quat[0], -quat[1], -quat[2], -quat[3]];
    let mat = quat2mat(&qneg);
    let p = mulmatvec(&mat, pos);
    ([-p[0], -p[1], -p[2]], qneg)
}

/// Minimal rotation taking +z onto `vec` (which must be unit length).
pub fn z2quat(vec: &[f64; 3]) -> [f64; 4] {
    let mut axis = cross(&[0.0, 0.0, 1.0], vec);
    let s = normvec(&mut axis);
    if s < 1e-10 {
        axis = [1.0, 0.0, 0.0];
    }
    let ang = s.atan2(vec[2]);
    let c = (ang / 2.0).cos();
    let sn = (ang / 2.0).sin();
    [c, axis[0] * sn, axis[1] * sn, axis[2] * sn]
}

/// Quaternion of the rotation whose matrix has columns `x`, `y`, `z`.
pub fn frame2quat(x: &[f64; 3], y: &[f64; 3], z: &[f64; 3]) -> [f64; 4] {
    // mat[c][r]: column c, row r
    let m = [x, y, z];
    let mut q = [0.0; 4];
    if m[0][0] + m[1][1] + m[2][2] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0][0] + m[1][1] + m[2][2]).sqrt();
        q[1] = 0.25 * (m[1][2] - m[2][1]) / q[0];
        q[2] = 0.25 * (m[2][0] - m[0][2]) / q[0];
        q[3] = 0.25 * (m[0][1] - m[1][0]) / q[0];
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        q[1] = 0.5 * (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[1][2] - m[2][1]) / q[1];
        q[2] = 0.25 * (m[1][0] + m[0][1]) / q[1];
        q[3] = 0.25 * (m[2][0] + m[0][2]) / q[1];
    } else if m[1][1] > m[2][2] {
        q[2] = 0.5 * (1.0 - m[0][0] + m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[2][0] - m[0][2]) / q[2];
        q[1] = 0.25 * (m[1][0] + m[0][1]) / q[2];
        q[3] = 0.25 * (m[2][1] + m[1][2]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0][0] - m[1][1] + m[2][2]).sqrt();
        q[0] = 0.25 * (m[0][1] - m[1][0]) / q[3];
        q[1] = 0.25 * (m[2][0] + m[0][2]) / q[3];
        q[2] = 0.25 * (m[2][1] + m[1][2]) / q[3];
    }
    normvec(&mut q);
    q
}

/// Full (symmetric, `[xx, yy, zz, xy, xz, yz]`) inertia of a diagonal inertia rotated by `quat`.
pub fn global_inertia(local: &[f64; 3], quat: &[f64; 4]) -> [f64; 6] {
    rotate_inertia(local, &quat2mat(quat))
}

/// Full inertia `m diag(local) m'` of a diagonal inertia in the frame `m` (row-major), in the
/// `[xx, yy, zz, xy, xz, yz]` layout and MuJoCo's operation order (also the engine's
/// `mju_inertCom`).
pub fn rotate_inertia(local: &[f64; 3], m: &[f64]) -> [f64; 6] {
    let t = [
        m[0] * local[0],
        m[3] * local[0],
        m[6] * local[0],
        m[1] * local[1],
        m[4] * local[1],
        m[7] * local[1],
        m[2] * local[2],
        m[5] * local[2],
        m[8] * local[2],
    ];
    [
        m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
        m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
        m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
        m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
        m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
        m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
    ]
}

/// Parallel-axis term of a point mass at offset `v`, in the `[xx, yy, zz, xy, xz, yz]` layout.
pub fn offcenter(mass: f64, v: &[f64; 3]) -> [f64; 6] {
    [
        mass * (v[1] * v[1] + v[2] * v[2]),
        mass * (v[0] * v[0] + v[2] * v[2]),
        mass * (v[0] * v[0] + v[1] * v[1]),
        -mass * v[0] * v[1],
        -mass * v[0] * v[2],
        -mass * v[1] * v[2],
    ]
}

/// Normalises a quaternion by multiplying with the inverse norm, unless already unit to 1e-15.
pub fn normalize4(v: &mut [f64; 4]) {
    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]).sqrt();
    if norm < MINVAL {
        *v = QUNIT;
    } else if (norm - 1.0).abs() > MINVAL {
        let inv = 1.0 / norm;
        for x in v.iter_mut() {
            *x *= inv;
        }
    }
}

/// Eigen-decomposition of a symmetric 3×3 matrix as MuJoCo 4.0.0's compiler does it
/// (`mjuu_eig3`, which takes a tolerance): eigenvalues (descending), the rotation quaternion
/// whose matrix columns are the eigenvectors, and the number of Jacobi steps.
///
/// Algorithm, read from the released library's disassembly (the public source snapshot has an
/// older version without the tolerance argument):
/// 1. `scale = max |A_ij|` over all nine entries; the iteration stops once the largest
///    off-diagonal entry of `D` is at most `max(4e-15, tol) * scale`, and the sort treats
///    eigenvalues within `max(1e-12, tol) * scale` as equal. The mesh compiler passes
///    `tol = 1e-7`, the body compiler `4e-15`.
/// 2. Each step: `D = R(q)ᵀ·A·R(q)` (identity `q` gives `R = I` exactly); pick the largest
///    off-diagonal entry (ties resolved in the order (0,1), (0,2), (1,2)); `tau`, then the
///    tangent `t` of the Schur rotation; the half-angle comes from its tangent
///    `h = t / (1 + sqrt(1 + t²))`: `cos = 1 / sqrt(1 + h²)`, `sin = h cos` (negated except about
///    the y axis). There is no early stop on the cosine (the snapshot's `c > 1 - 1e-12`), and no
///    `sqrt(0.5 - 0.5 c)`, whose cancellation left mesh frames 2e-12 off.
/// 3. `q = q ⊗ step`, normalised twice (the product normalises, then the caller does);
///    normalising divides by the norm only when it is 1e-14 or more away from 1.
/// 4. Bubble passes on the pairs (0,1), (1,2), (0,1) in decreasing order, turning `q` by 90°
///    about the remaining axis at each swap (MuJoCo's 15-digit cos 45°), normalised twice.
///
/// Checked bit for bit against MuJoCo 4.0.0 with the Python bindings: `body_iquat` and
/// `body_inertia` of 176 random `fullinertia` bodies, and the `mesh_quat` of the oracle's
/// 8-point mesh (which the snapshot's version got 1.9e-12 wrong).
pub fn eig3_tol(mat: &[f64; 9], tol: f64) -> ([f64; 3], [f64; 4], usize) {
    let scale = mat.iter().fold(0.0f64, |m, x| x.abs().max(m));
    let stop = tol.max(4e-15) * scale;
    let mut quat = QUNIT;
    let mut eigval = [0.0; 3];
    let mut steps = 0;
    while steps < 500 {
        let ev = quat2mat(&quat);
        let tmp = mulmat(&transpose(&ev), mat);
        let d = mulmat(&tmp, &ev);
        eigval = [d[0], d[4], d[8]];
        let (rk, ck, rotk) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * rk + ck];
        if stop >= off.abs() {
            break;
        }
        let tau = (d[4 * ck] - d[4 * rk]) / (off + off);
        let root = (1.0 + tau * tau).sqrt();
        let t = if tau >= 0.0 { 1.0 / (tau + root) } else { -1.0 / (root - tau) };
        let h = t / (1.0 + (1.0 + t * t).sqrt());
        let cos = 1.0 / (1.0 + h * h).sqrt();
        let mut step = [cos, 0.0, 0.0, 0.0];
        step[rotk + 1] = if rotk == 1 { h * cos } else { -h * cos };
        // the product normalises, then the solver normalises again (both in the library)
        quat = mulquat(&quat, &step);
        normvec(&mut quat);
        steps += 1;
    }
    let same = tol.max(1e-12) * scale;
    for j in 0..3 {
        let j1 = j % 2;
        if eigval[j1] + same < eigval[j1 + 1] {
            eigval.swap(j1, j1 + 1);
            // MuJoCo's 15-digit literal, which is not the correctly rounded 1/sqrt(2)
            #[allow(clippy::approx_constant)]
            let mut turn = [0.707106781186548, 0.0, 0.0, 0.0];
            turn[(j1 + 2) % 3 + 1] = turn[0];
            quat = mulquat(&quat, &turn);
            normvec(&mut quat);
        }
    }
    (eigval, quat, steps)
}

/// [`eig3_tol`] with the body compiler's tolerance: eigenvalues (descending) and quaternion.
pub fn eig3(mat: &[f64; 9]) -> ([f64; 3], [f64; 4]) {
    let (val, quat, _) = eig3_tol(mat, BODY_EIG_TOL);
    (val, quat)
}

/// The tolerance MuJoCo's body compiler passes to its eigen-solver.
pub const BODY_EIG_TOL: f64 = 4e-15;

/// The symmetric matrix of a full inertia `[xx, yy, zz, xy, xz, yz]`, row-major.
fn inertia_matrix(full: &[f64; 6]) -> [f64; 9] {
    [full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]]
}

/// `R·M·Rᵀ` with `R` the identity, multiplied out as `(R·M)·Rᵀ`: equal to `M` when it is
/// finite, and NaN wherever a product `0·inf` or `0·NaN` lands.
fn identity_rmrt(m: &[f64; 9]) -> [f64; 9] {
    const I: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    mulmat(&mulmat(&I, m), &transpose(&I))
}

/// Principal axes of an inertia: the frame's quaternion and the diagonal inertia in it.
pub type Axes = ([f64; 4], [f64; 3]);

/// Principal axes of a full inertia `[xx, yy, zz, xy, xz, yz]` as MuJoCo 4.0.0's body compiler
/// finds them: `Ok(Some((quat, diagonal)))`, `Ok(None)` when MuJoCo skips the decomposition and
/// leaves the body's inertia and inertial orientation as they were, or an error message when an
/// eigenvalue is not positive.
///
/// The skip (docs/measurements.md, M3): MuJoCo decomposes only when the matrix's first entry
/// is not NaN. From `fullinertia` that matrix is the given one turned by the (identity) inertial
/// frame, so any non-finite entry but an infinite `xx` poisons it; from the geoms it is their
/// summed inertia itself, so only a NaN `xx` does.
pub fn full_inertia(full: &[f64; 6], turned: bool) -> Result<Option<Axes>, &'static str> {
    let m = if turned { identity_rmrt(&inertia_matrix(full)) } else { inertia_matrix(full) };
    if m[0].is_nan() {
        return Ok(None);
    }
    let (eigval, quat) = eig3(&m);
    if eigval[2] < EPS {
        return Err("inertia must have positive eigenvalues");
    }
    Ok(Some((quat, eigval)))
}

/// MuJoCo's `mjMIN(a, b)`, `a < b ? a : b`: a NaN `b` is taken, a NaN `a` is replaced by `b`.
pub fn mj_min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// C++'s `std::max(a, b)`, `a < b ? b : a`: a NaN `a` is kept, a NaN `b` is not taken.
pub fn std_max(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

/// MuJoCo's `mjMAX(a, b)`, `a > b ? a : b`.
pub fn mj_max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}
