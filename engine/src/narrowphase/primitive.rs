//! Analytic colliders for the simple primitive pairs (MuJoCo's `engine_collision_primitive.c`).
//!
//! Covered pairs: plane against sphere, capsule, cylinder and box; sphere against sphere,
//! capsule and cylinder; capsule against capsule. (Plane against ellipsoid and mesh, and every
//! other pair involving ellipsoids, cylinders or meshes, go to the general convex collider;
//! sphere-box, capsule-box and box-box live in `narrowphase::box`.)
//!
//! Conventions shared by every function here, all taken from MuJoCo:
//! - Geom 1 has the lower type number (the pair table guarantees it), and the contact normal
//!   (frame row 0) points from geom 1 towards geom 2.
//! - `dist` is the signed surface distance, negative in penetration; the position is midway
//!   between the two surfaces along the normal.
//! - `margin` is the pair's margin plus gap: a contact is produced while `dist <= margin`
//!   (MuJoCo's tests reject only `dist > margin`, so a contact exactly at the margin counts).
//! - The frame tangents come from [`ContactPoint::from_normal`] (MuJoCo's `mju_makeFrame`), seeded
//!   with the capsule axis for plane-capsule contacts and with nothing otherwise.
//!
//! Each `pub fn` has the pair-table signature; the `*_raw` kernels work on bare positions,
//! matrices and sizes so other colliders can reuse them (MuJoCo's `mjraw_*`). The arithmetic
//! follows MuJoCo's operation order so the results agree to the last bit.

use super::{CollideOptions, ContactPoint, Geom};
use crate::math::{
    add3, add_scl3, clip, col3, cross, dot3, frame_from_normal, mul_mat_vec3, normalize3, scl3, sub3, MINVAL,
};

/// Most contacts any function in this file produces (plane-box and plane-cylinder).
const MAX_PRIMITIVE: usize = 4;

/// A contact before its frame is completed: the normal plus an optional preferred tangent,
/// which is what MuJoCo's pair functions hand to the driver.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PreContact {
    /// Signed distance (negative when penetrating).
    pub dist: f64,
    /// Contact position, midway between the surfaces.
    pub pos: [f64; 3],
    /// Unit normal from geom 1 to geom 2.
    pub normal: [f64; 3],
    /// Preferred first tangent, or zero for MuJoCo's default.
    pub tangent: [f64; 3],
}

impl PreContact {
    /// The finished contact, with the frame completed as MuJoCo's driver does.
    pub fn finish(&self) -> ContactPoint {
        ContactPoint::from_normal(self.dist, self.pos, &self.normal, &self.tangent)
    }
}

/// Copy the finished contacts into the caller's buffer; a short buffer keeps the first ones.
fn emit(pre: &[PreContact], out: &mut [ContactPoint]) -> usize {
    let n = pre.len().min(out.len());
    for (slot, c) in out.iter_mut().zip(pre.iter()) {
        *slot = c.finish();
    }
    n
}

// ---------------------------------------------------------------------------------------------
// Plane pairs. A plane is the z = 0 plane of its geom frame, infinite, solid below.
// ---------------------------------------------------------------------------------------------

/// Kernel of plane-sphere (`mjraw_PlaneSphere`): plane at `ppos` with orientation `pmat`,
/// sphere of radius `radius` at `spos`.
pub fn plane_sphere_raw(
    ppos: &[f64; 3],
    pmat: &[f64; 9],
    spos: &[f64; 3],
    radius: f64,
    margin: f64,
) -> Option<PreContact> {
    let normal = col3(pmat, 2);
    let rel = sub3(spos, ppos);
    let height = dot3(&rel, &normal);
    if height > margin + radius {
        return None;
    }
    let dist = height - radius;
    // The sphere's lowest point, spos - radius*n, is dist above the plane (below when
    // penetrating), so the midpoint between it and the plane is spos + n * (-dist/2 - radius).
    let pos = add3(spos, &scl3(&normal, -dist / 2.0 - radius));
    Some(PreContact { dist, pos, normal, tangent: [0.0; 3] })
}

/// Plane-sphere (`mjc_PlaneSphere`): at most one contact.
pub fn plane_sphere(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    match plane_sphere_raw(&g1.pos, &g1.mat, &g2.pos, g2.size[0], margin) {
        Some(c) => emit(&[c], out),
        None => 0,
    }
}

/// Plane-capsule (`mjc_PlaneCapsule`): one plane-sphere test per end cap, so up to two
/// contacts, each with the capsule axis as its preferred tangent.
pub fn plane_capsule(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let axis = col3(&g2.mat, 2);
    let half = [g2.size[1] * axis[0], g2.size[1] * axis[1], g2.size[1] * axis[2]];
    let mut pre = [PreContact::default(); 2];
    let mut n = 0;
    // The +axis end first, then the -axis end, as MuJoCo orders them.
    for end in [add3(&g2.pos, &half), sub3(&g2.pos, &half)] {
        if let Some(mut c) = plane_sphere_raw(&g1.pos, &g1.mat, &end, g2.size[0], margin) {
            c.tangent = axis;
            pre[n] = c;
            n += 1;
        }
    }
    emit(&pre[..n], out)
}

/// Plane-cylinder (`mjc_PlaneCylinder`): up to four contacts.
///
/// Algorithm:
/// 1. Flip the cylinder axis `a` if needed so it points into the plane (`a . n <= 0`).
/// 2. Find the rim direction `v` of the disk at that end which reaches deepest: the part of
///    `-n` orthogonal to `a`, scaled to the radius (or the cylinder's x-axis when the disk is
///    parallel to the plane).
/// 3. Contact 1 is the deepest rim point `c + h a + v`; if it is above the margin there are
///    no contacts at all.
/// 4. Contact 2 is the matching rim point on the other disk, `c - h a + v`, if within margin.
/// 5. Two more points on the near disk, at +-120 degrees from `v` (an equilateral triangle with
///    contact 1), if they are within margin; this supports a cylinder standing on its cap.
pub fn plane_cylinder(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let (pos1, pos2) = (&g1.pos, &g2.pos);
    let radius = g2.size[0];
    let half = g2.size[1];
    let normal = col3(&g1.mat, 2);
    let mut axis = col3(&g2.mat, 2);

    // Step 1: orient the axis towards the plane.
    let mut prjaxis = dot3(&normal, &axis);
    if prjaxis > 0.0 {
        axis = scl3(&axis, -1.0);
        prjaxis = -prjaxis;
    }

    // Height of the cylinder centre above the plane.
    let dist0 = dot3(&sub3(pos2, pos1), &normal);

    // Step 2: v = (a . n) a - n is -n with its axial part removed.
    let mut vec = sub3(&scl3(&axis, prjaxis), &normal);
    let len_sqr = dot3(&vec, &vec);
    if len_sqr >= MINVAL * MINVAL {
        let scl = radius / len_sqr.sqrt();
        vec = [vec[0] * scl, vec[1] * scl, vec[2] * scl];
    } else {
        // Disk parallel to the plane: every rim point is equally deep; take the local x-axis.
        vec = [g2.mat[0] * radius, g2.mat[3] * radius, g2.mat[6] * radius];
    }
    let prjvec = dot3(&vec, &normal);

    // From here on the axis is the half-length vector.
    let axis = scl3(&axis, half);
    let prjaxis = prjaxis * half;

    let mut pre = [PreContact::default(); MAX_PRIMITIVE];
    let mut n = 0;

    // Step 3: deepest rim point on the near disk.
    // Written as `!(d <= margin)` so a NaN distance also yields no contacts, as in MuJoCo.
    let d1 = dist0 + prjaxis + prjvec;
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(d1 <= margin) {
        return 0;
    }
    let p = add3(&add3(pos2, &vec), &axis);
    pre[n] = PreContact { dist: d1, pos: add_scl3(&p, &normal, -d1 * 0.5), normal, tangent: [0.0; 3] };
    n += 1;

    // Step 4: the same rim point on the far disk.
    let d2 = dist0 - prjaxis + prjvec;
    if d2 <= margin {
        let p = sub3(&add3(pos2, &vec), &axis);
        pre[n] = PreContact { dist: d2, pos: add_scl3(&p, &normal, -d2 * 0.5), normal, tangent: [0.0; 3] };
        n += 1;
    }

    // Step 5: the two other corners of an equilateral triangle inscribed in the near disk.
    // They sit at -v/2 +- (sqrt(3)/2) r w, with w the unit rim direction orthogonal to v.
    let prjvec1 = -prjvec * 0.5;
    let d3 = dist0 + prjaxis + prjvec1;
    if d3 <= margin {
        let mut side = cross(&vec, &axis);
        normalize3(&mut side);
        let side = scl3(&side, radius * 3.0_f64.sqrt() / 2.0);
        for p in [add3(pos2, &side), sub3(pos2, &side)] {
            let p = add_scl3(&add3(&p, &axis), &vec, -0.5);
            pre[n] = PreContact { dist: d3, pos: add_scl3(&p, &normal, -d3 * 0.5), normal, tangent: [0.0; 3] };
            n += 1;
        }
    }

    emit(&pre[..n], out)
}

/// Plane-box (`mjc_PlaneBox`): the box corners below the margin that face the plane, at most
/// four, in corner order (bit 0: +x, bit 1: +y, bit 2: +z).
pub fn plane_box(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let normal = col3(&g1.mat, 2);
    let size = &g2.size;
    let center_height = dot3(&sub3(&g2.pos, &g1.pos), &normal);

    // every contact has the plane's normal and no preferred tangent: one frame serves them all
    // (the same bits as completing it per contact), made when the first corner is kept
    let mut frame = None;
    let cap = out.len().min(MAX_PRIMITIVE);
    let mut n = 0;
    for i in 0..8 {
        if n == cap {
            break;
        }
        let local = [
            if i & 1 != 0 { size[0] } else { -size[0] },
            if i & 2 != 0 { size[1] } else { -size[1] },
            if i & 4 != 0 { size[2] } else { -size[2] },
        ];
        let corner = mul_mat_vec3(&g2.mat, &local);
        // Height of the corner relative to the box centre; corners on the upper half of the
        // box (ldist > 0) are never reported, even within the margin.
        let ldist = dot3(&normal, &corner);
        if center_height + ldist > margin || ldist > 0.0 {
            continue;
        }
        let dist = center_height + ldist;
        let corner = add3(&corner, &g2.pos);
        let pos = add3(&corner, &scl3(&normal, -dist / 2.0));
        let frame = *frame.get_or_insert_with(|| frame_from_normal(&normal));
        out[n] = ContactPoint { dist, pos, frame };
        n += 1;
    }
    n
}

// ---------------------------------------------------------------------------------------------
// Sphere and capsule pairs. A capsule is the set of points within size[0] of the segment
// pos +- size[1] * z; several pairs reduce to sphere-sphere between nearest segment points.
// ---------------------------------------------------------------------------------------------

/// Kernel of sphere-sphere (`mjraw_SphereSphere`): spheres of radius `r1`, `r2` at `pos1`,
/// `pos2`; `mat1`, `mat2` only break the tie when the centres coincide.
#[allow(clippy::too_many_arguments)]
pub fn sphere_sphere_raw(
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    r1: f64,
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    r2: f64,
    margin: f64,
) -> Option<PreContact> {
    // Reject on squared distance first, which avoids the square root for far pairs.
    let dif = sub3(pos1, pos2);
    let cdist_sqr = dot3(&dif, &dif);
    let min_dist = margin + r1 + r2;
    if cdist_sqr > min_dist * min_dist {
        return None;
    }
    let dist = cdist_sqr.sqrt() - r1 - r2;
    let mut normal = sub3(pos2, pos1);
    if normalize3(&mut normal) < MINVAL {
        // Concentric: use the common perpendicular of the two z-axes; if those are parallel
        // too, normalize3 falls back to +x.
        normal = cross(&col3(mat1, 2), &col3(mat2, 2));
        normalize3(&mut normal);
    }
    let pos = add3(&scl3(&normal, r1 + dist / 2.0), pos1);
    Some(PreContact { dist, pos, normal, tangent: [0.0; 3] })
}

/// Sphere-sphere (`mjc_SphereSphere`): at most one contact.
pub fn sphere_sphere(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let c = sphere_sphere_raw(&g1.pos, &g1.mat, g1.size[0], &g2.pos, &g2.mat, g2.size[0], margin);
    match c {
        Some(c) => emit(&[c], out),
        None => 0,
    }
}

/// Kernel of sphere-capsule (`mjraw_SphereCapsule`): the sphere against the nearest point of
/// the capsule's segment.
#[allow(clippy::too_many_arguments)]
pub fn sphere_capsule_raw(
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    r1: f64,
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    margin: f64,
) -> Option<PreContact> {
    let axis = col3(mat2, 2);
    let x = clip(dot3(&axis, &sub3(pos1, pos2)), -size2[1], size2[1]);
    let nearest = add3(&scl3(&axis, x), pos2);
    sphere_sphere_raw(pos1, mat1, r1, &nearest, mat2, size2[0], margin)
}

/// Sphere-capsule (`mjc_SphereCapsule`): at most one contact.
pub fn sphere_capsule(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let c = sphere_capsule_raw(&g1.pos, &g1.mat, g1.size[0], &g2.pos, &g2.mat, &g2.size, margin);
    match c {
        Some(c) => emit(&[c], out),
        None => 0,
    }
}

/// Sphere-cylinder (`mjc_SphereCylinder`): at most one contact.
///
/// Algorithm: split the sphere centre (relative to the cylinder) into its axial part `x a` and
/// radial part `p`.
/// 1. Within the height but outside the radius: the side is nearest; sphere-sphere against the
///    axis point `c + x a` with the cylinder radius.
/// 2. Within the radius but beyond the height: a cap is nearest; plane-sphere against that cap
///    (the cap plane's normal is `+a` or `-a`), with the normal flipped to point from the
///    sphere to the cylinder.
/// 3. Inside both (centre inside the cylinder): whichever of side and cap is closer to the
///    surface, as in 1 or 2 (a tie goes to the side).
/// 4. Outside both: the nearest rim point, sphere against a point.
pub fn sphere_cylinder(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let (pos1, pos2) = (&g1.pos, &g2.pos);
    let (mat1, mat2) = (&g1.mat, &g2.mat);
    let r1 = g1.size[0];
    let radius = g2.size[0];
    let height = g2.size[1];
    let axis = col3(mat2, 2);

    let rel = sub3(pos1, pos2);
    let x = dot3(&axis, &rel);
    let a_proj = scl3(&axis, x);
    let p_proj = sub3(&rel, &a_proj);
    let p_proj_sqr = dot3(&p_proj, &p_proj);

    let mut side = x.abs() < height;
    let mut cap = p_proj_sqr < radius * radius;
    if side && cap {
        // Step 3: the centre is inside; exit through the nearer surface.
        let dist_cap = height - x.abs();
        let dist_radius = radius - p_proj_sqr.sqrt();
        if dist_cap < dist_radius {
            side = false;
        } else {
            cap = false;
        }
    }

    let c = if side {
        // Step 1.
        let on_axis = add3(&a_proj, pos2);
        sphere_sphere_raw(pos1, mat1, r1, &on_axis, mat2, radius, margin)
    } else if cap {
        // Step 2. The bottom cap's frame is the cylinder frame turned half a turn about y,
        // so its z-axis is -a.
        let (cap_pos, cap_mat) = if x > 0.0 {
            (add_scl3(pos2, &axis, height), *mat2)
        } else {
            let m = mat2;
            let flipped = [-m[0], m[1], -m[2], -m[3], m[4], -m[5], -m[6], m[7], -m[8]];
            (add_scl3(pos2, &axis, -height), flipped)
        };
        plane_sphere_raw(&cap_pos, &cap_mat, pos1, r1, margin).map(|mut c| {
            // plane-sphere's normal points from the cap to the sphere; the pair's normal
            // must point from the sphere (geom 1) to the cylinder.
            c.normal = scl3(&c.normal, -1.0);
            c
        })
    } else {
        // Step 4: rim point = c + (+-h) a + r p/|p| (|p| >= r > 0 here, so no division by 0).
        let rim = scl3(&p_proj, radius / p_proj_sqr.sqrt());
        let along = scl3(&axis, if x > 0.0 { height } else { -height });
        let corner = add3(&add3(&along, &rim), pos2);
        sphere_sphere_raw(pos1, mat1, r1, &corner, mat2, 0.0, margin)
    };
    match c {
        Some(c) => emit(&[c], out),
        None => 0,
    }
}

/// Relative parallelism threshold of capsule-capsule: the axes count as parallel when
/// `|d1 x d2|^2 <= PARALLEL_SIN2 * |d1|^2 |d2|^2`, i.e. the sine of the angle between them is
/// at most 1e-4.
///
/// Read from MuJoCo 4.0.0's `mjc_segWeights` (the constant at 0x9ff40 of the library is 1e-8;
/// the comparison is `n.n > (a * 1e-8) * e` for the skew branch, so the product is formed in that
/// order, and a NaN falls to the parallel branch). It agrees with the earlier measurement: two
/// capsules, the second turned by theta in the plane of both axes, switch from two contacts to
/// one at theta = 1.0e-4 for half-lengths (0.3, 0.2), (3, 2) and (0.03, 0.02) alike.
const PARALLEL_SIN2: f64 = 1e-8;

/// `x` clamped to [0, 1], with `mju_clip`'s NaN behaviour.
#[inline]
fn clip01(x: f64) -> f64 {
    clip(x, 0.0, 1.0)
}

/// Segment parameters of the nearest points of segments `p1 p2` and `q1 q2`, as MuJoCo 4.0.0's
/// `mjc_segWeights` picks them (read from the library's disassembly; 3.16 rewrote it to fix
/// cancellation for parallel axes). Each pair `(s, t)` names the points `p1 + s (p2 - p1)` and
/// `q1 + t (q2 - q1)`; the function returns one pair, or two for parallel segments.
///
/// With `d1 = p2 - p1`, `d2 = q2 - q1`, `r = p1 - q1`, `a = d1.d1`, `e = d2.d2`, `b = d1.d2`,
/// `c = d1.r`, `f = d2.r`, `n = d1 x d2` (dot products summed x, y, then z):
/// - Degenerate segments (squared length at most `MINVAL`): both points, `(0, 0)`; a point
///   first segment, `(0, clip(f/e))`; a point second segment, `(clip(-c/a), 0)`. The first
///   segment is tested before `c`, `b` or `n` are formed.
/// - Skew (`n.n > (1e-8 a) e`): s is the closest point of the two lines,
///   `((q1 - p1) x d2).n / n.n`, clamped; then `t = (b s + f) / e`. A t below 0 becomes 0 with
///   `s = clip(-c/a)` (q1 projected on segment 1), a t above 1 becomes 1 with
///   `s = clip((b - c)/a)` (q2 projected); otherwise both stand. No cancellation-prone
///   `a e - b^2` determinant any more, which is what 3.16 changed.
/// - Parallel: the two ends of the *first* segment, in the order p1 then p2, each projected
///   onto the second: `t = f/e` for p1, `t = (f + b)/e` for p2. When that t lies in [0, 1]
///   (inclusive) the pair is (0 or 1 exactly, t). When it falls below 0 the pair becomes
///   `(clip(-c/a), 0)`, above 1 `(clip((b - c)/a), 1)`: the clamped end of the second segment
///   projected back onto the first. So overlapping parallel capsules touch at both ends of their
///   overlap, and disjoint ones get the same pair twice.
fn seg_weights(p1: &[f64; 3], p2: &[f64; 3], q1: &[f64; 3], q2: &[f64; 3]) -> ([[f64; 2]; 2], usize) {
    let d1 = sub3(p2, p1);
    let d2 = sub3(q2, q1);
    let a = dot3(&d1, &d1);
    let e = dot3(&d2, &d2);
    if a <= MINVAL && e <= MINVAL {
        return ([[0.0, 0.0]; 2], 1);
    }
    let r = sub3(p1, q1);
    let f = dot3(&d2, &r);
    if a <= MINVAL {
        return ([[0.0, clip01(f / e)], [0.0; 2]], 1);
    }
    let c = dot3(&d1, &r);
    // -c/a: q1 projected onto segment 1; (b - c)/a: q2 projected (MuJoCo divides the negated
    // c, which is the same bits as negating the quotient).
    let s_q1 = -c / a;
    if e <= MINVAL {
        return ([[clip01(s_q1), 0.0], [0.0; 2]], 1);
    }
    let b = dot3(&d1, &d2);
    let s_q2 = (b - c) / a;
    let n = cross(&d1, &d2);
    let nn = dot3(&n, &n);

    if nn > PARALLEL_SIN2 * a * e {
        let w = sub3(q1, p1);
        let s = clip01(dot3(&cross(&w, &d2), &n) / nn);
        let t = (b * s + f) / e;
        let st = if t < 0.0 {
            [clip01(s_q1), 0.0]
        } else if t > 1.0 {
            [clip01(s_q2), 1.0]
        } else {
            [s, t]
        };
        return ([st, [0.0; 2]], 1);
    }

    // Parallel: one pair per end of segment 1 (`s_end` is 0 for p1, 1 for p2).
    let pair = |s_end: f64, t: f64| {
        if t < 0.0 {
            [clip01(s_q1), 0.0]
        } else if t > 1.0 {
            [clip01(s_q2), 1.0]
        } else {
            [s_end, t]
        }
    };
    ([pair(0.0, f / e), pair(1.0, (f + b) / e)], 2)
}

/// Kernel of capsule-capsule (`mjraw_CapsuleCapsule` as MuJoCo 4.0.0 computes it): up to two
/// contacts.
///
/// MuJoCo 4.0.0 (read from the library) puts each axis segment between its end points,
/// `p1 = pos1 - half1`, `p2 = pos1 + half1` with `half1 = size1[1] * z1` (likewise q1, q2),
/// asks [`seg_weights`] for one or two parameter pairs `(s, t)`, and runs one sphere-sphere
/// test per pair between `p1 + s (p2 - p1)` and `q1 + t (q2 - q1)` with the capsule radii and
/// the capsule frames (the frames only matter for coincident points). Contacts are written in
/// pair order, skipping pairs beyond the margin.
#[allow(clippy::too_many_arguments)]
pub fn capsule_capsule_raw(
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    size1: &[f64; 3],
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    margin: f64,
    out: &mut [PreContact; 2],
) -> usize {
    let half1 = [mat1[2] * size1[1], mat1[5] * size1[1], mat1[8] * size1[1]];
    let half2 = [mat2[2] * size2[1], mat2[5] * size2[1], mat2[8] * size2[1]];
    let p1 = sub3(pos1, &half1);
    let p2 = add3(pos1, &half1);
    let q1 = sub3(pos2, &half2);
    let q2 = add3(pos2, &half2);
    let (weights, npair) = seg_weights(&p1, &p2, &q1, &q2);
    // The points are rebuilt from the same end points the weights were computed from.
    let d1 = sub3(&p2, &p1);
    let d2 = sub3(&q2, &q1);

    let mut count = 0;
    for &[s, t] in &weights[..npair] {
        let v1 = add_scl3(&p1, &d1, s);
        let v2 = add_scl3(&q1, &d2, t);
        if let Some(contact) = sphere_sphere_raw(&v1, mat1, size1[0], &v2, mat2, size2[0], margin) {
            out[count] = contact;
            count += 1;
        }
    }
    count
}

/// Capsule-capsule (`mjc_CapsuleCapsule`): one contact, or up to two for parallel axes.
pub fn capsule_capsule(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    let mut pre = [PreContact::default(); 2];
    let n = capsule_capsule_raw(&g1.pos, &g1.mat, &g1.size, &g2.pos, &g2.mat, &g2.size, margin, &mut pre);
    emit(&pre[..n], out)
}
