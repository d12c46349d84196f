//! Small vector, matrix and quaternion helpers with MuJoCo's floating-point behaviour, and the
//! per-thread work buffers the collision kernels reuse from call to call.
//!
//! Each function computes the same quantity as the `mju_*` routine it names, with the same
//! order of operations, so results agree bit for bit: sums run left to right, products are
//! written in the same operand order, no fused multiply-add is used, and the degenerate-input
//! rules (tiny norms, identity quaternions) match MuJoCo's. Vectors are `[f64; 3]`, matrices
//! `[f64; 9]` row-major, quaternions `[f64; 4]` as (w, x, y, z).
//!
//! Where the MuJoCo 4.0.0 library does not sum four terms in source order ([`mul_quat`],
//! [`normalize4`], the diagonal of [`quat2mat`]), the function follows the library, as measured
//! through its Python bindings; every function here was checked bit for bit against the
//! library's `mju_*` on 2000 random inputs (`makeFrame` and the 3x3 matrix products are not
//! exported; they are covered through the contact frames of the collider tests).
//!
//! Functions return new values instead of writing through pointers; the ones that MuJoCo uses
//! to normalise in place (`normalize3`, `normalize4`, `make_frame`) take `&mut` because their
//! return value (the length before normalising) matters to callers.

/// MuJoCo's `mjMINVAL`: the smallest value it accepts in a denominator.
pub const MINVAL: f64 = 1e-15;

/// MuJoCo's `mjPI`.
pub const PI: f64 = std::f64::consts::PI;

/// The 3x3 identity, row-major.
pub const IDENTITY9: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// The identity quaternion (w, x, y, z).
pub const IDENTITY_QUAT: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

/// `a + b` (`mju_add3`).
#[inline]
pub fn add3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a - b` (`mju_sub3`).
#[inline]
pub fn sub3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `v * s` (`mju_scl3`).
#[inline]
pub fn scl3(v: &[f64; 3], s: f64) -> [f64; 3] {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// `a + s * b` (`mju_addScl3`; also `mju_addToScl3` with `a` as the accumulator).
#[inline]
pub fn add_scl3(a: &[f64; 3], b: &[f64; 3], s: f64) -> [f64; 3] {
    // Multiplication commutes exactly in IEEE arithmetic, so `s*b` and `b*s` give the same bits.
    [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]]
}

/// `-v`, exact sign flip of every component.
#[inline]
pub fn neg3(v: &[f64; 3]) -> [f64; 3] {
    [-v[0], -v[1], -v[2]]
}

/// Dot product `a0*b0 + a1*b1 + a2*b2`, summed left to right (`mju_dot3`).
#[inline]
pub fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Euclidean length (`mju_norm3`).
#[inline]
pub fn norm3(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Distance between two points, from their difference (`mju_dist3`).
#[inline]
pub fn dist3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let d = sub3(a, b);
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Normalise in place and return the length before normalising (`mju_normalize3`).
///
/// A vector shorter than [`MINVAL`] becomes (1, 0, 0), MuJoCo's fallback direction. Otherwise
/// each component is multiplied by the reciprocal of the length (not divided by it), as in C.
#[inline]
pub fn normalize3(v: &mut [f64; 3]) -> f64 {
    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if norm < MINVAL {
        *v = [1.0, 0.0, 0.0];
    } else {
        let inv = 1.0 / norm;
        v[0] *= inv;
        v[1] *= inv;
        v[2] *= inv;
    }
    norm
}

/// Normalise a 4-vector in place, return its length before (`mju_normalize4`).
///
/// Shorter than [`MINVAL`]: becomes (1, 0, 0, 0). Already within [`MINVAL`] of unit length:
/// left untouched (MuJoCo skips the rescale then, which changes the last bits).
///
/// The squared length is summed in pairs, `(q0^2 + q1^2) + (q2^2 + q3^2)`: that is what the
/// MuJoCo 4.0.0 library computes (measured: 2000 random vectors through the Python binding
/// `mujoco.mju_normalize4`, all bit-identical with pairs, 12% differ when summed left to right).
#[inline]
pub fn normalize4(q: &mut [f64; 4]) -> f64 {
    let norm = ((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3])).sqrt();
    if norm < MINVAL {
        *q = IDENTITY_QUAT;
    } else if (norm - 1.0).abs() > MINVAL {
        let inv = 1.0 / norm;
        q[0] *= inv;
        q[1] *= inv;
        q[2] *= inv;
        q[3] *= inv;
    }
    norm
}

/// Cross product `a x b` (`mju_cross`).
#[inline]
pub fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `mat * v` for a row-major 3x3 matrix (`mju_mulMatVec3`).
#[inline]
pub fn mul_mat_vec3(m: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
        m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
        m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
    ]
}

/// `mat^T * v` for a row-major 3x3 matrix (`mju_mulMatTVec3`).
#[inline]
pub fn mul_mat_t_vec3(m: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
        m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
        m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
    ]
}

/// `a * b` for row-major 3x3 matrices (`mju_mulMatMat3`).
pub fn mul_mat_mat3(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
        }
    }
    r
}

/// `a^T * b` for row-major 3x3 matrices (`mju_mulMatTMat3`).
pub fn mul_mat_t_mat3(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
        }
    }
    r
}

/// `a * b^T` for row-major 3x3 matrices (`mju_mulMatMatT3`).
pub fn mul_mat_mat_t3(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
        }
    }
    r
}

/// Transpose of a row-major 3x3 matrix.
#[inline]
pub fn transpose3(m: &[f64; 9]) -> [f64; 9] {
    [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]
}

/// Column `i` (0..3) of a row-major 3x3 matrix: the geom's local axis `i` in world coordinates.
#[inline]
pub fn col3(m: &[f64; 9], i: usize) -> [f64; 3] {
    [m[i], m[3 + i], m[6 + i]]
}

/// Row `i` (0..3) of a row-major 3x3 matrix.
#[inline]
pub fn row3(m: &[f64; 9], i: usize) -> [f64; 3] {
    [m[3 * i], m[3 * i + 1], m[3 * i + 2]]
}

/// Conjugate quaternion, the inverse rotation of a unit quaternion (`mju_negQuat`).
#[inline]
pub fn neg_quat(q: &[f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Hamilton product `a * b` (`mju_mulQuat`).
///
/// Each component is summed as two pairs, `(t0 + t1) + (t2 + t3)`, matching the MuJoCo 4.0.0
/// library bit for bit (measured: 2000 random pairs through `mujoco.mju_mulQuat`; the source's
/// left-to-right order disagrees in about a third of them). The second pair is a sum of signed
/// products (`-a2 b2 + -a3 b3`, not `-(a2 b2 + a3 b3)`), which decides the sign of a zero
/// (`docs/measurements.md` K2).
#[inline]
pub fn mul_quat(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [
        (a[0] * b[0] - a[1] * b[1]) + (-a[2] * b[2] + -a[3] * b[3]),
        (a[0] * b[1] + a[1] * b[0]) + (a[2] * b[3] + -a[3] * b[2]),
        (a[0] * b[2] - a[1] * b[3]) + (a[2] * b[0] + a[3] * b[1]),
        (a[0] * b[3] + a[1] * b[2]) + (-a[2] * b[1] + a[3] * b[0]),
    ]
}

/// Rotate `v` by the unit quaternion `q` (`mju_rotVecQuat`).
///
/// Uses the two-cross-product form `v + 2 q_xyz x (w v + q_xyz x v)`. A zero vector gives +0
/// and the identity quaternion copies `v`, both short-cuts MuJoCo takes.
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

/// Rotation matrix of a unit quaternion, row-major (`mju_quat2Mat`).
///
/// The identity quaternion gives the exact identity; otherwise the diagonal uses the
/// `w^2 + x^2 - y^2 - z^2` form (not `1 - 2(...)`), as MuJoCo does, grouped as
/// `(w^2 - y^2) + (x^2 - z^2)` for entry 0 and likewise (w^2 with the y^2 term, x^2 with the
/// z^2 term) for entries 4 and 8: the grouping of the MuJoCo 4.0.0 library (measured: 4000
/// random quaternions through `mujoco.mju_quat2Mat`; only this grouping matches all of them).
pub fn quat2mat(q: &[f64; 4]) -> [f64; 9] {
    if q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0 {
        return IDENTITY9;
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
        (q00 - q22) + (q11 - q33),
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        (q00 + q22) + (-q11 - q33),
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        (q00 - q22) + (-q11 + q33),
    ]
}

/// Unit quaternion of a rotation matrix (`mju_mat2Quat`).
///
/// Picks the branch by the largest quaternion component (trace first, then the largest
/// diagonal entry) to avoid dividing by a small number, then normalises with [`normalize4`].
pub fn mat2quat(m: &[f64; 9]) -> [f64; 4] {
    let mut q = [0.0; 4];
    if m[0] + m[4] + m[8] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0] + m[4] + m[8]).sqrt();
        q[1] = 0.25 * (m[7] - m[5]) / q[0];
        q[2] = 0.25 * (m[2] - m[6]) / q[0];
        q[3] = 0.25 * (m[3] - m[1]) / q[0];
    } else if m[0] > m[4] && m[0] > m[8] {
        q[1] = 0.5 * (1.0 + m[0] - m[4] - m[8]).sqrt();
        q[0] = 0.25 * (m[7] - m[5]) / q[1];
        q[2] = 0.25 * (m[1] + m[3]) / q[1];
        q[3] = 0.25 * (m[2] + m[6]) / q[1];
    } else if m[4] > m[8] {
        q[2] = 0.5 * (1.0 - m[0] + m[4] - m[8]).sqrt();
        q[0] = 0.25 * (m[2] - m[6]) / q[2];
        q[1] = 0.25 * (m[1] + m[3]) / q[2];
        q[3] = 0.25 * (m[5] + m[7]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0] - m[4] + m[8]).sqrt();
        q[0] = 0.25 * (m[3] - m[1]) / q[3];
        q[1] = 0.25 * (m[2] + m[6]) / q[3];
        q[2] = 0.25 * (m[5] + m[7]) / q[3];
    }
    normalize4(&mut q);
    q
}

/// Quaternion of a rotation by `angle` radians about the unit `axis` (`mju_axisAngle2Quat`).
///
/// A zero angle gives the exact identity quaternion.
pub fn axis_angle2quat(axis: &[f64; 3], angle: f64) -> [f64; 4] {
    if angle == 0.0 {
        return IDENTITY_QUAT;
    }
    let s = (angle * 0.5).sin();
    [(angle * 0.5).cos(), axis[0] * s, axis[1] * s, axis[2] * s]
}

/// Advance `q` by the angular velocity `vel` (local frame) over `scale` (`mju_quatIntegrate`).
///
/// The axis is `vel` normalised, the angle `scale * |vel|`; `q` is normalised first, then
/// right-multiplied by the rotation.
pub fn quat_integrate(q: &mut [f64; 4], vel: &[f64; 3], scale: f64) {
    let mut axis = *vel;
    let angle = scale * normalize3(&mut axis);
    let qrot = axis_angle2quat(&axis, angle);
    normalize4(q);
    *q = mul_quat(q, &qrot);
}

/// Quaternion rotating the z-axis onto `v` (`mju_quatZ2Vec`).
pub fn quat_z2vec(v: &[f64; 3]) -> [f64; 4] {
    let z = [0.0, 0.0, 1.0];
    let mut vn = *v;
    if normalize3(&mut vn) < MINVAL {
        return IDENTITY_QUAT;
    }
    let mut axis = cross(&z, &vn);
    let a = normalize3(&mut axis);
    if a.abs() < MINVAL {
        // Parallel: identity, or a half turn about x when pointing down.
        if dot3(&vn, &z) < 0.0 {
            return [0.0, 1.0, 0.0, 0.0];
        }
        return IDENTITY_QUAT;
    }
    axis_angle2quat(&axis, a.atan2(dot3(&vn, &z)))
}

/// Complete a contact frame in place from its first row (`mju_makeFrame`).
///
/// Row 0 (the normal) is normalised. If row 1 is shorter than 0.5 it is replaced by the world
/// y-axis, or the z-axis when the normal is within 60 degrees of y (|n_y| >= 0.5). Row 1 is then
/// made orthogonal to the normal (Gram-Schmidt) and normalised, and row 2 = row 0 x row 1.
/// MuJoCo raises an error when the normal is shorter than 0.5; here the normal is normalised
/// regardless (callers always pass a unit normal) and the function returns `false` instead.
pub fn make_frame(frame: &mut [f64; 9]) -> bool {
    let mut x = [frame[0], frame[1], frame[2]];
    let ok = normalize3(&mut x) >= 0.5;
    let mut y = [frame[3], frame[4], frame[5]];
    if dot3(&y, &y) < 0.25 {
        y = if x[1] < 0.5 && x[1] > -0.5 { [0.0, 1.0, 0.0] } else { [0.0, 0.0, 1.0] };
    }
    let proj = scl3(&x, dot3(&x, &y));
    y = sub3(&y, &proj);
    normalize3(&mut y);
    let z = cross(&x, &y);
    *frame = [x[0], x[1], x[2], y[0], y[1], y[2], z[0], z[1], z[2]];
    ok
}

/// MuJoCo's `mju_clip`: `lo` if below, `hi` if above, else `x` (NaN passes through, unlike
/// `f64::clamp`'s contract on its bounds).
#[inline]
pub fn clip(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// A contact frame with `normal` as row 0 and MuJoCo's default tangents (normal + `make_frame`).
///
/// This is what MuJoCo's collision driver produces for a contact whose pair function set only
/// the normal (rows 1-2 zero).
pub fn frame_from_normal(normal: &[f64; 3]) -> [f64; 9] {
    let mut f = [normal[0], normal[1], normal[2], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    make_frame(&mut f);
    f
}

/// Runs `f` on this thread's work buffers in `key` (kept from call to call so that collision
/// calls allocate nothing once they have grown), or on fresh ones if they are already in use.
pub(crate) fn with_thread_buffers<T: Default, R>(
    key: &'static std::thread::LocalKey<std::cell::RefCell<T>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut b) => f(&mut b),
        Err(_) => f(&mut T::default()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_sums_left_to_right() {
        // (1e16 + 1) - 1e16 == 0 in f64 when summed left to right; a reordering would give 1.
        let a = [1e16, 1.0, -1e16];
        let b = [1.0, 1.0, 1.0];
        assert_eq!(dot3(&a, &b), 0.0);
    }

    #[test]
    fn normalize3_tiny_vector_falls_back_to_x() {
        let mut v = [1e-16, 0.0, 0.0];
        let n = normalize3(&mut v);
        assert_eq!(n, 1e-16);
        assert_eq!(v, [1.0, 0.0, 0.0]);
        let mut w = [0.0, 3.0, 4.0];
        assert_eq!(normalize3(&mut w), 5.0);
        assert_eq!(w, [0.0, 3.0 * (1.0 / 5.0), 4.0 * (1.0 / 5.0)]);
    }

    #[test]
    fn normalize4_skips_near_unit() {
        let mut q = [1.0, 0.0, 0.0, 0.0];
        normalize4(&mut q);
        assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
        let mut q = [2.0, 0.0, 0.0, 0.0];
        assert_eq!(normalize4(&mut q), 2.0);
        assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn quat_round_trip_and_rotation() {
        // 90 degrees about z maps x to y.
        let q = axis_angle2quat(&[0.0, 0.0, 1.0], PI / 2.0);
        let r = rot_vec_quat(&[1.0, 0.0, 0.0], &q);
        assert!((r[0]).abs() < 1e-15 && (r[1] - 1.0).abs() < 1e-15 && r[2] == 0.0);
        let m = quat2mat(&q);
        let rm = mul_mat_vec3(&m, &[1.0, 0.0, 0.0]);
        assert!((rm[1] - 1.0).abs() < 1e-15);
        let q2 = mat2quat(&m);
        for i in 0..4 {
            assert!((q2[i] - q[i]).abs() < 1e-15);
        }
        // q * conj(q) = identity.
        let id = mul_quat(&q, &neg_quat(&q));
        assert!((id[0] - 1.0).abs() < 1e-15 && id[3].abs() < 1e-15);
    }

    #[test]
    fn quat_integrate_quarter_turn() {
        let mut q = IDENTITY_QUAT;
        quat_integrate(&mut q, &[0.0, 0.0, 2.0], PI / 4.0);
        let expect = axis_angle2quat(&[0.0, 0.0, 1.0], PI / 2.0);
        assert_eq!(q, expect);
    }

    /// Values measured from the MuJoCo 4.0.0 library through its Python bindings
    /// (`mujoco.mju_quat2Mat`, `mju_mulQuat`, `mju_normalize4` on these inputs). Each case was
    /// picked because summing the four terms left to right, as the C source reads, gives
    /// different last bits; the library groups them in pairs.
    #[test]
    fn four_term_sums_match_the_library() {
        let q = [-0.8356364144595644, 0.14104794642971566, -0.41471575817690487, 0.33140322804233224];
        let m = quat2mat(&q);
        assert_eq!(m[0], 0.43636548072575376);
        assert_eq!(m[4], 0.7405547545021639);
        assert_eq!(m[8], 0.61623263345543);

        let a = [0.6730578820929332, 0.24981747470160473, 0.6909958621213877, 0.0843150948372146];
        let b = [-0.6236801524835103, -0.6447804030419577, -0.8417438411516236, 0.6510267973884027];
        let ab = mul_quat(&a, &b);
        assert_eq!(ab, [0.26805469452963904, -0.06895219828052446, -1.214505322961928, 0.620851335968074]);

        let mut v = [0.4905965346219232, -0.6563568189265259, -0.4002238625430137, 0.3257922086096563];
        let n = normalize4(&mut v);
        assert_eq!(n, 0.9684053577268121);
        assert_eq!(v, [0.5066024580590155, -0.6777707430979379, -0.4132813385940778, 0.3364213198638277]);
    }

    #[test]
    fn make_frame_conventions() {
        // Normal +z: tangent y=(0,1,0), z = x cross y = (-1,0,0).
        let f = frame_from_normal(&[0.0, 0.0, 1.0]);
        assert_eq!(f, [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0]);
        // Normal along y: tangent falls back to world z.
        let f = frame_from_normal(&[0.0, 1.0, 0.0]);
        assert_eq!(f, [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        // Normal -x: tangent y, third row -z.
        let f = frame_from_normal(&[-1.0, 0.0, 0.0]);
        assert_eq!(&f[3..6], &[0.0, 1.0, 0.0]);
        assert_eq!(&f[6..9], &[0.0, 0.0, -1.0]);
    }

    #[test]
    fn matrix_products_agree() {
        let a = quat2mat(&[0.9, 0.1, -0.3, 0.2]);
        let b = quat2mat(&[0.5, 0.5, 0.5, 0.5]);
        let ab = mul_mat_mat3(&a, &b);
        let atb = mul_mat_t_mat3(&transpose3(&a), &b);
        let abt = mul_mat_mat_t3(&a, &transpose3(&b));
        assert_eq!(ab, atb);
        assert_eq!(ab, abt);
        let v = [0.3, -1.2, 2.5];
        assert_eq!(mul_mat_t_vec3(&a, &v), mul_mat_vec3(&transpose3(&a), &v));
    }
}
