//! `mju_wrap`: the shortest path of a tendon segment around a sphere or an infinite cylinder,
//! in MuJoCo 4.0.0's operation order (`docs/measurements.md` D57).
//!
//! The two end points (and the optional side site) are taken into the geom's frame and
//! projected onto a plane through its centre: for a cylinder the frame's x-y plane, for a
//! sphere the plane of the two points and the centre. In that plane the segment either misses
//! the circle (no wrap, -1), or is replaced by two tangent lines and an arc between the tangent
//! points (the arc's length is returned), or, when the side site is inside the circle, by a
//! single point found by Newton's method on the arc's angle equation ("inside" wrap, length 0).
//! A cylinder's tangent points get heights by linear interpolation along the unrolled path.
// The 2D helpers keep the library's arithmetic term by term; `x = x + y` keeps its operand order.
#![allow(clippy::assign_op_pattern)]

use crate::math::{cross, dot3, mul_mat_t_vec3, mul_mat_vec3, norm3, normalize3, sub3, MINVAL, PI};

/// `mjWRAP_SPHERE`.
pub const WRAP_SPHERE: i32 = 4;
/// `mjWRAP_CYLINDER`.
pub const WRAP_CYLINDER: i32 = 5;

/// `mju_dot` of two 2-vectors (the library's sum for n = 2, added to a zero accumulator).
#[inline]
fn dot2(a: &[f64], b: &[f64]) -> f64 {
    0.0 + (a[0] * b[0] + a[1] * b[1])
}

/// `mju_normalize` of a 2-vector in place; returns the length before.
fn normalize2(v: &mut [f64]) -> f64 {
    let n = dot2(v, v).sqrt();
    if n < MINVAL {
        v[0] = 1.0;
        v[1] = 0.0;
    } else {
        let inv = 1.0 / n;
        v[0] *= inv;
        v[1] *= inv;
    }
    n
}

/// Whether the 2D segments `p1 p2` and `p3 p4` cross, as 4.0.0 decides it without dividing:
/// the two segment parameters' numerators, signed by the determinant, must lie in `[0, det]`
/// (parallel segments never cross).
fn segments_cross(p1: &[f64], p2: &[f64], p3: &[f64], p4: &[f64]) -> bool {
    let (ux, uy) = (p2[0] - p1[0], p2[1] - p1[1]);
    let (vx, vy) = (p4[0] - p3[0], p4[1] - p3[1]);
    let det = vy * ux - vx * uy;
    if det.abs() < MINVAL {
        return false;
    }
    let sgn = if 0.0 < det { 1.0 } else { -1.0 };
    let (wx, wy) = (p2[0] - p4[0], p2[1] - p4[1]);
    let (ex, ey) = (p1[0] - p3[0], p1[1] - p3[1]);
    let c1 = 0.0 > (vx * wy - vy * wx) * sgn;
    let c2 = 0.0 <= (ux * ey - uy * ex) * sgn;
    let c3 = 0.0 <= (vx * ey - vy * ex) * sgn;
    let c4 = 0.0 > (ux * wy + uy * -wx) * sgn;
    c1 && c2 && c3 && c4
}

/// `atan2` of the cross and dot products of two 2-vectors: the signed angle from `a` to `b`.
#[inline]
fn angle(a: &[f64], b: &[f64]) -> f64 {
    (a[0] * b[1] - a[1] * b[0]).atan2(a[0] * b[0] + a[1] * b[1])
}

/// Tangent-arc-tangent wrap in the plane: the tangent points into `pnt`, the arc length, or -1
/// when the segment `end` clears the circle (on the side site's side, when given).
fn wrap_circle(pnt: &mut [f64; 4], end: &[f64; 4], side: Option<&[f64; 2]>, radius: f64) -> f64 {
    let sq0 = end[0] * end[0] + end[1] * end[1];
    let sq1 = end[2] * end[2] + end[3] * end[3];
    let sqr = radius * radius;
    if sq0 < sqr || sq1 < sqr || radius < MINVAL {
        return -1.0;
    }
    let dif = [end[2] - end[0], end[3] - end[1]];
    let dd = dif[0] * dif[0] + dif[1] * dif[1];
    if dd < MINVAL {
        return -1.0;
    }
    // the segment's point closest to the centre
    let a = (-(dif[0] * end[0] + dif[1] * end[1]) / dd).clamp(0.0, 1.0);
    let near = [a * dif[0] + end[0], a * dif[1] + end[1]];
    let clear = near[0] * near[0] + near[1] * near[1] > sqr;
    // with a side site: the angles from the first end to the side and on to the second end
    let mut turn = 0.0;
    if let Some(sd) = side {
        turn = angle(&end[0..2], sd) + angle(sd, &end[2..4]);
        // the side lies within the ends' own angle: the straight segment is on its side
        if clear && (turn - angle(&end[0..2], &end[2..4])).abs() < PI {
            return -1.0;
        }
    } else if clear {
        return -1.0;
    }
    let r0 = (sq0 - sqr).sqrt();
    let r1 = (sq1 - sqr).sqrt();
    let mut sol = [[[0.0; 2]; 2]; 2];
    let mut good = [0.0; 2];
    for (i, s) in sol.iter_mut().enumerate() {
        let (k0, k1) = if i == 0 { (r0, -r1) } else { (-r0, r1) };
        s[0][0] = (end[0] * sqr + radius * end[1] * k0) / sq0;
        s[1][0] = (end[2] * sqr + radius * end[3] * k1) / sq1;
        s[0][1] = (end[1] * sqr + radius * end[0] * -k0) / sq0;
        s[1][1] = (end[3] * sqr + radius * end[2] * -k1) / sq1;
        let d = [s[0][0] - s[1][0], s[0][1] - s[1][1]];
        good[i] = -dot2(&d, &d);
        if segments_cross(&end[0..2], &s[0], &end[2..4], &s[1]) {
            good[i] = -10000.0;
        }
    }
    let i = match side {
        Some(_) => usize::from(turn > 0.0),
        None => usize::from(good[0] <= good[1]),
    };
    let (s0, s1) = (sol[i][0], sol[i][1]);
    *pnt = [s0[0], s0[1], s1[0], s1[1]];
    if segments_cross(&end[0..2], &s0, &end[2..4], &s1) {
        return -1.0;
    }
    match side {
        // the side's turn less the turns along the two tangent lines
        Some(_) => ((turn - angle(&end[0..2], &s0)) - angle(&s1, &end[2..4])).abs() * radius,
        None => {
            let cross = s0[1] * s1[0] - s0[0] * s1[1];
            let mut ang = cross.abs().atan2((s0[0] * s1[0] + s0[1] * s1[1]) + 0.0);
            if ang > 1e-6 {
                // (a NaN cross product gives a NaN angle, which is never flipped)
                let flip = if i == 0 { cross < 0.0 } else { 0.0 < cross };
                if flip {
                    ang = 2.0 * PI - ang;
                }
            }
            radius * ang
        }
    }
}

/// `asin(A s) + asin(B s) - 2 theta + G` at `s = sin(theta)`, the inside wrap's equation.
#[inline]
fn inside_f(a: f64, b: f64, g: f64, theta: f64, s: f64) -> f64 {
    (((s * a).asin() + (s * b).asin()) - (theta + theta)) + g
}

/// Inside wrap (the side site within the circle): one contact point on the circle, written
/// twice into `pnt`; 0 when wrapped, -1 when the segment crosses the circle or an end is inside.
/// 4.0.0 solves for the contact angle `theta` (from `pi/2`) rather than its sine.
fn wrap_inside(pnt: &mut [f64; 4], end: &[f64; 4], radius: f64) -> f64 {
    const MAXITER: usize = 20;
    const TOL: f64 = 1e-6;
    let len0 = dot2(&end[0..2], &end[0..2]).sqrt();
    let len1 = dot2(&end[2..4], &end[2..4]).sqrt();
    let dif = [end[2] - end[0], end[3] - end[1]];
    if len0 <= radius || len1 <= radius || radius < MINVAL || len0 < MINVAL || len1 < MINVAL {
        return -1.0;
    }
    let dd = dif[0] * dif[0] + dif[1] * dif[1];
    if dd > MINVAL {
        let a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
        if a > 0.0 && a < 1.0 {
            let p = [end[0] + dif[0] * a, end[1] + dif[1] * a];
            if dot2(&p, &p).sqrt() <= radius {
                return -1.0;
            }
        }
    }
    // fallback answer, kept when Newton's method cannot be trusted: the mid direction
    let mut mid = [0.5 * (end[0] + end[2]), 0.5 * (end[1] + end[3])];
    normalize2(&mut mid);
    let mid = [mid[0] * radius, mid[1] * radius];
    *pnt = [mid[0], mid[1], mid[0], mid[1]];
    let a = radius / len0;
    let b = radius / len1;
    let cos_g = (len0 * len0 + len1 * len1 - dd) / ((len0 + len0) * len1);
    if cos_g < -1.0 + MINVAL {
        return -1.0;
    } else if cos_g > 1.0 - MINVAL {
        return 0.0;
    }
    let g = cos_g.acos();
    let mut theta = PI / 2.0;
    let mut s = 1.0;
    let mut f = inside_f(a, b, g, theta, s);
    if f > 0.0 {
        return 0.0;
    }
    if f.abs() > TOL {
        let mut iter = 0;
        loop {
            let c = theta.cos();
            let ss = s * s;
            let da = (ss * -a * a + 1.0).sqrt();
            let db = (ss * -b * b + 1.0).sqrt();
            let da = if MINVAL > da { MINVAL } else { da };
            let db = if MINVAL > db { MINVAL } else { db };
            let df = (a / da + b / db) * c + -2.0;
            if df > -MINVAL {
                return 0.0;
            }
            let t1 = theta - f / df;
            if t1 > theta {
                return 0.0;
            }
            theta = t1;
            s = theta.sin();
            f = inside_f(a, b, g, theta, s);
            if f > TOL {
                return 0.0;
            }
            iter += 1;
            if iter >= MAXITER {
                return 0.0;
            }
            if f.abs() <= TOL {
                break;
            }
        }
    }
    // rotate the direction of the end on the positive-turn side by the contact angle
    let (mut v, k) =
        if end[0] * end[3] - end[1] * end[2] > 0.0 { ([end[0], end[1]], a) } else { ([end[2], end[3]], b) };
    let ang = theta - (k * s).asin();
    normalize2(&mut v);
    let (c, sn) = (ang.cos(), ang.sin());
    let p0 = radius * (c * v[0] + sn * -v[1]);
    let p1 = radius * (sn * v[0] + v[1] * c);
    *pnt = [p0, p1, p0, p1];
    0.0
}

/// The geom a tendon segment wraps around: centre, orientation (row-major), radius and type.
#[derive(Clone, Copy, Debug)]
pub struct WrapGeom<'a> {
    /// Centre in the world frame.
    pub xpos: &'a [f64; 3],
    /// Orientation, row-major.
    pub xmat: &'a [f64; 9],
    /// Radius (`geom_size[0]`).
    pub radius: f64,
    /// [`WRAP_SPHERE`] or [`WRAP_CYLINDER`].
    pub kind: i32,
}

/// `mju_wrap`: the wrap length of the segment `x0 x1` around `g` and its two tangent points in
/// `wpnt` (world frame), or -1 (and `wpnt` untouched) when the segment does not wrap.
pub fn wrap(wpnt: &mut [f64; 6], x0: &[f64; 3], x1: &[f64; 3], g: &WrapGeom, side: Option<&[f64; 3]>) -> f64 {
    let radius = g.radius;
    let p = [mul_mat_t_vec3(g.xmat, &sub3(x0, g.xpos)), mul_mat_t_vec3(g.xmat, &sub3(x1, g.xpos))];
    if norm3(&p[0]) < MINVAL || norm3(&p[1]) < MINVAL {
        return -1.0;
    }
    let axis = if g.kind == WRAP_SPHERE { sphere_plane(&p) } else { [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] };
    let d = [dot3(&p[0], &axis[0]), dot3(&p[0], &axis[1]), dot3(&p[1], &axis[0]), dot3(&p[1], &axis[1])];
    let mut pnt = [0.0; 4];
    let wlen = match side {
        Some(side) => {
            let s = mul_mat_t_vec3(g.xmat, &sub3(side, g.xpos));
            let mut sd = [dot3(&s, &axis[0]), dot3(&s, &axis[1])];
            normalize2(&mut sd);
            let sd = [sd[0] * radius, sd[1] * radius];
            if norm3(&s) < radius {
                wrap_inside(&mut pnt, &d, radius)
            } else {
                wrap_circle(&mut pnt, &d, Some(&sd), radius)
            }
        }
        None => wrap_circle(&mut pnt, &d, None, radius),
    };
    if wlen < 0.0 {
        return -1.0;
    }
    // back to 3D in the geom frame
    let mut res = [[0.0; 3]; 2];
    for (i, r) in res.iter_mut().enumerate() {
        for k in 0..3 {
            r[k] = axis[0][k] * pnt[2 * i];
        }
        for k in 0..3 {
            r[k] = r[k] + axis[1][k] * pnt[2 * i + 1];
        }
    }
    let mut wlen = wlen;
    if g.kind == WRAP_CYLINDER {
        let l0 = ((p[0][0] - res[0][0]) * (p[0][0] - res[0][0]) + (p[0][1] - res[0][1]) * (p[0][1] - res[0][1])).sqrt();
        let l1 = ((p[1][0] - res[1][0]) * (p[1][0] - res[1][0]) + (p[1][1] - res[1][1]) * (p[1][1] - res[1][1])).sqrt();
        res[0][2] = p[0][2] + (p[1][2] - p[0][2]) * l0 / (l0 + wlen + l1);
        res[1][2] = p[0][2] + (p[1][2] - p[0][2]) * (l0 + wlen) / (l0 + wlen + l1);
        let height = (res[1][2] - res[0][2]).abs();
        wlen = (wlen * wlen + height * height).sqrt();
    }
    for i in 0..2 {
        let w = mul_mat_vec3(g.xmat, &res[i]);
        for k in 0..3 {
            wpnt[3 * i + k] = w[k] + g.xpos[k];
        }
    }
    wlen
}

/// The sphere's wrap plane: first axis along `p0`, second in the plane of `p0`, `p1` and the
/// centre (an arbitrary plane through `p0` when the two are parallel).
fn sphere_plane(p: &[[f64; 3]; 2]) -> [[f64; 3]; 2] {
    let mut a0 = p[0];
    normalize3(&mut a0);
    let mut normal = cross(&p[0], &p[1]);
    if normalize3(&mut normal) < MINVAL {
        // the largest component of a0 gets 0 in the helper axis, the others 1
        let mut i = 0;
        if a0[1].abs() > a0[0].abs() && a0[1].abs() > a0[2].abs() {
            i = 1;
        }
        if a0[2].abs() > a0[0].abs() && a0[2].abs() > a0[1].abs() {
            i = 2;
        }
        let mut helper = [1.0; 3];
        helper[i] = 0.0;
        normal = cross(&a0, &helper);
        normalize3(&mut normal);
    }
    let mut a1 = cross(&normal, &a0);
    normalize3(&mut a1);
    [a0, a1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::IDENTITY9;

    #[test]
    fn a_segment_through_a_cylinder_wraps_with_the_arc_and_heights() {
        // end points at (+-2, -0.5, h): the straight line crosses the unit circle
        let g = WrapGeom { xpos: &[0.0; 3], xmat: &IDENTITY9, radius: 1.0, kind: WRAP_CYLINDER };
        let mut w = [0.0; 6];
        let len = wrap(&mut w, &[-2.0, -0.5, 0.0], &[2.0, -0.5, 1.0], &g, None);
        assert!(len > 0.0 && len < PI * 1.5, "{len}");
        // tangent points on the circle, heights between the ends
        for i in 0..2 {
            let r = (w[3 * i] * w[3 * i] + w[3 * i + 1] * w[3 * i + 1]).sqrt();
            assert!((r - 1.0).abs() < 1e-12, "{r}");
            assert!(w[3 * i + 2] > 0.0 && w[3 * i + 2] < 1.0);
        }
        // a segment clear of the circle does not wrap
        assert_eq!(wrap(&mut w, &[-2.0, -1.5, 0.0], &[2.0, -1.5, 0.0], &g, None), -1.0);
    }

    #[test]
    fn a_side_site_inside_the_sphere_gives_one_contact_point() {
        let g = WrapGeom { xpos: &[0.0; 3], xmat: &IDENTITY9, radius: 1.0, kind: WRAP_SPHERE };
        let mut w = [0.0; 6];
        let len = wrap(&mut w, &[-2.0, 2.0, 0.0], &[2.0, 2.0, 0.0], &g, Some(&[0.0, 0.5, 0.0]));
        assert_eq!(len, 0.0);
        assert_eq!(w[0..3], w[3..6]);
        assert!((norm3(&[w[0], w[1], w[2]]) - 1.0).abs() < 1e-12);
    }
}
