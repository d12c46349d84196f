//! Capsule against box (MuJoCo's `mjraw_CapsuleBox`).
//!
//! The capsule is its axis segment inflated by the radius, so the pair reduces to
//! segment-against-box followed by sphere-against-box at one or two points of the segment.
//! Everything below runs in the box frame, where the box is `[-size, size]` and the segment is
//! `pos + t * halfaxis` for `t` in [-1, 1].

use super::sphere::raw_sphere_box;
use crate::math::{dot3, mul_mat_t_vec3, mul_mat_vec3, scl3, sub3, MINVAL};
use crate::narrowphase::ContactPoint;

/// The box feature closest to the capsule segment, as found by [`closest_feature`].
#[derive(Clone, Copy, Debug)]
enum Closest {
    /// An end of the segment (`t` = -1 or +1) is closest, with at most one coordinate outside
    /// the box; `face` is the box axis it lies beyond, `None` if the end is inside the box.
    End { t: f64, face: Option<usize> },
    /// A box edge is closest: the edge runs along box axis `edge` from the corner `corner`
    /// (bit k set = +size along axis k; bit `edge` is set when the upper end of the edge is
    /// the closest box point). `edge_pos` in [-1, 1] is the closest point along the edge,
    /// `edge_state` 0 / 1 / 2 says it is the lower end / interior / upper end, and `t` is the
    /// closest parameter on the segment.
    Edge { t: f64, edge_pos: f64, corner: usize, edge: usize, edge_state: u8 },
}

impl Closest {
    /// Segment parameter of the closest point.
    fn t(&self) -> f64 {
        match *self {
            Closest::End { t, .. } | Closest::Edge { t, .. } => t,
        }
    }
}

/// Capsule (centre `pos1`, orientation `mat1`, `size1` = radius, half-length) against a box
/// (`pos2`, `mat2`, half-sizes `size2`); writes up to two contacts and returns how many.
///
/// Algorithm (MuJoCo 4.0.0, `engine_collision_box.c`):
/// 1. Move the capsule segment into the box frame.
/// 2. Find the closest box feature (`closest_feature`): each segment end that lies beyond at
///    most one face pair of the box, then each of the 12 box edges by a clamped
///    segment-segment solve; the smallest squared gap wins, an edge only when it is better by
///    `MINVAL`.
/// 3. Decide whether the capsule lies along the box enough to need a second contact point
///    (`second_point`), and where along the segment that point is: as far from the first
///    point as the segment stays over the box face or edge it rests on.
/// 4. Run sphere-box with the capsule radius at the closest point and, if there is one, at the
///    second point, each with the margin test of sphere-box; contacts keep that order.
#[allow(clippy::too_many_arguments)]
pub fn raw_capsule_box(
    margin: f64,
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    size1: &[f64; 3],
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    out: &mut [ContactPoint],
) -> usize {
    // Step 1: segment centre and half-axis in the box frame.
    let pos = mul_mat_t_vec3(mat2, &sub3(pos1, pos2));
    let axis = mul_mat_t_vec3(mat2, &[mat1[2], mat1[5], mat1[8]]);
    let halfaxis = scl3(&axis, size1[1]);

    // Step 2.
    let Some(closest) = closest_feature(margin, &pos, &halfaxis, size1, size2) else {
        return 0;
    };
    let t = closest.t();

    // Step 3.
    let second = second_point(&closest, &pos, &axis, &halfaxis, size2);

    // Step 4: spheres at the chosen segment points, placed in the world the way MuJoCo does it
    // (box frame -> world -> box frame again inside sphere-box), so the rounding matches.
    let sphere_at = |s: f64| {
        let local = [pos[0] + halfaxis[0] * s, pos[1] + halfaxis[1] * s, pos[2] + halfaxis[2] * s];
        let w = mul_mat_vec3(mat2, &local);
        [w[0] + pos2[0], w[1] + pos2[1], w[2] + pos2[2]]
    };
    let mut n = raw_sphere_box(margin, &sphere_at(t), size1[0], pos2, mat2, size2, out);
    if let Some(offset) = second {
        if let Some(rest) = out.get_mut(n..) {
            let c = sphere_at(offset + t);
            n += raw_sphere_box(margin, &c, size1[0], pos2, mat2, size2, rest);
        }
    }
    n
}

/// The box feature closest to the segment `pos + t * halfaxis`, `t` in [-1, 1].
///
/// Algorithm:
/// 0. Start from a squared-gap bound that every feature within the margin beats.
/// 1. Ends: for `t` = -1 then +1, clamp the end point into the box. An end beyond two or more
///    face pairs is near an edge or corner and left to step 2; otherwise its squared distance
///    to the box competes, ties keeping the earlier candidate.
/// 2. Edges: for each axis j, each of the four edges along j (corners with bit j clear, in
///    increasing corner number): minimise `|corner + x1*size_j*e_j - pos - x2*halfaxis|^2`
///    over `x1`, `x2` in [-1, 1] via the 2x2 normal equations, skipping edges parallel to
///    the segment (determinant below `MINVAL`). A bound hit on one parameter re-solves the
///    other in closed form, and a bound hit on `x2` re-clamps `x1`. The squared gap must beat
///    the best so far by `MINVAL` (axes numerically parallel to a face otherwise flip-flop
///    between the face and its edges).
/// 3. `None` only when no candidate was found at all.
fn closest_feature(
    margin: f64,
    pos: &[f64; 3],
    halfaxis: &[f64; 3],
    size1: &[f64; 3],
    size2: &[f64; 3],
) -> Option<Closest> {
    let halflength = size1[1];
    // Starting bound on the squared gap. The Aug-2026 C source starts from the *unsquared*
    // `bound`, which would drop every feature farther than sqrt(bound) and so lose contacts
    // that a large margin admits; MuJoCo 4.0.0 reports them (measured: capsule 0.1 x 0.3 lying
    // along x at height 6.6 over a unit cube, geom margins 5 + 5, gives 2 contacts of dist 6.0,
    // see tests/box_capsule.rs). Squaring the bound admits every feature that can lie within
    // the margin (gap <= margin + radius < bound) and matched MuJoCo 4.0.0 bit for bit on
    // thousands of random poses at scales 1e-3 to 10, margins up to 10.
    let bound = margin + 2.0 * (size1[0] + halflength + size2[0] + size2[1] + size2[2]);
    let mut best = bound * bound;
    let mut found = None;

    // Step 1: segment ends against faces.
    for t in [-1.0, 1.0] {
        let end = [pos[0] + halfaxis[0] * t, pos[1] + halfaxis[1] * t, pos[2] + halfaxis[2] * t];
        let mut clamped = end;
        let mut outside = 0;
        let mut face = None;
        for k in 0..3 {
            if clamped[k] < -size2[k] {
                outside += 1;
                face = Some(k);
                clamped[k] = -size2[k];
            } else if clamped[k] > size2[k] {
                outside += 1;
                face = Some(k);
                clamped[k] = size2[k];
            }
        }
        if outside > 1 {
            continue;
        }
        let gap = sub3(&clamped, &end);
        let d2 = dot3(&gap, &gap);
        if d2 < best {
            best = d2;
            found = Some(Closest::End { t, face });
        }
    }

    // Step 2: box edges against the segment.
    let mc = halflength * halflength;
    for j in 0..3 {
        for corner in 0..8usize {
            if corner & (1 << j) != 0 {
                continue;
            }
            let sign = |bit: usize| if corner & bit != 0 { 1.0 } else { -1.0 };
            let mut start = [sign(1) * size2[0], sign(2) * size2[1], sign(4) * size2[2]];
            start[j] = 0.0;

            // Normal equations of the two-parameter least squares (edge direction size_j*e_j,
            // segment direction halfaxis).
            let dif = sub3(&start, pos);
            let ma = size2[j] * size2[j];
            let mb = -size2[j] * halfaxis[j];
            let u = -size2[j] * dif[j];
            let v = dot3(halfaxis, &dif);
            let det = ma * mc - mb * mb;
            if det.abs() < MINVAL {
                continue;
            }
            let idet = 1.0 / det;
            let (x1, x2, s1) = clamp_edge_solve((mc * u - mb * v) * idet, (ma * v - mb * u) * idet, ma, mb, mc, u, v);

            let mut gap = [dif[0] + -x2 * halfaxis[0], dif[1] + -x2 * halfaxis[1], dif[2] + -x2 * halfaxis[2]];
            gap[j] += size2[j] * x1;
            let d2 = dot3(&gap, &gap);
            if d2 < best - MINVAL {
                best = d2;
                // The closest box point is the upper end of the edge only when x1 hit +1.
                let upper = if s1 == 2 { 1 << j } else { 0 };
                found = Some(Closest::Edge { t: x2, edge_pos: x1, corner: corner + upper, edge: j, edge_state: s1 });
            }
        }
    }
    found
}

/// Clamp the unconstrained edge/segment solution `(x1, x2)` into [-1, 1]^2 the way MuJoCo
/// does, returning the clamped pair and the bound state of `x1` (0 low, 1 interior, 2 high;
/// it can stay 0 or 2 after a re-solve moved `x1` back inside, as in C).
///
/// A bound on `x1` re-solves `x2 = (v -+ mb) / mc`; then a bound on `x2` re-solves
/// `x1 = (u -+ mb) / ma` and clamps it again. The quotients are products with reciprocals, as
/// in C, so the rounding matches.
fn clamp_edge_solve(mut x1: f64, mut x2: f64, ma: f64, mb: f64, mc: f64, u: f64, v: f64) -> (f64, f64, u8) {
    let mut s1 = 1u8;
    if x1 > 1.0 {
        x1 = 1.0;
        s1 = 2;
        x2 = (v - mb) * (1.0 / mc);
    } else if x1 < -1.0 {
        x1 = -1.0;
        s1 = 0;
        x2 = (v + mb) * (1.0 / mc);
    }
    let reclamp = |x: f64, s: u8| {
        if x > 1.0 {
            (1.0, 2)
        } else if x < -1.0 {
            (-1.0, 0)
        } else {
            (x, s)
        }
    };
    if x2 > 1.0 {
        x2 = 1.0;
        (x1, s1) = reclamp((u - mb) * (1.0 / ma), s1);
    } else if x2 < -1.0 {
        x2 = -1.0;
        (x1, s1) = reclamp((u + mb) * (1.0 / ma), s1);
    }
    (x1, x2, s1)
}

/// The offset along the segment (added to the closest parameter) of a second contact point,
/// or `None` when the capsule only touches at one point.
///
/// The box-frame direction signs are packed into bit masks: `axisdir` has bit k set when the
/// half-axis has a positive k component, and a corner index has bit k set for +size along k.
/// `axisdir ^ corner` then has bit k set exactly where the capsule, followed in its `+t`
/// direction, moves *towards the inside* of the box along axis k (or points away, for the
/// complementary mask: a segment and its reverse are the same capsule).
///
/// Algorithm:
/// 1. Closest box point is a corner (edge end): with mask `c = axisdir ^ corner`, a capsule
///    pointing straight into or out of the corner (`c` = 0 or 7) gets no second point. Else
///    reduce `c` to a single bit (flip `c` and the walking direction if two bits are set); the
///    bit names the edge axis `ax` the capsule runs along. If the capsule is within 45 degrees
///    of that axis (`axis[ax]^2 > 0.5`) walk along the edge: toward the capsule end on the far
///    side, at most the edge length. Otherwise walk the other way across the face, at most
///    the face's extent along each of the two other axes.
/// 2. Closest box point inside an edge: keep only the mask bits of the two axes across the
///    edge; unless exactly one is set (an X crossing, not a T), no second point. Take as `ax2`
///    the axis across the edge on the face the capsule is flatter against; walk toward the
///    matching end of the capsule, at most across that face (`2 size / |halfaxis|`) and at
///    most to the end of the edge.
/// 3. Closest point is a segment end over a face: walk toward the other end, stopping where
///    the segment leaves the slab of any of the other two axes (the nearest positive
///    crossing, at most the full length 2). An end inside the box gets no second point.
fn second_point(
    closest: &Closest,
    pos: &[f64; 3],
    axis: &[f64; 3],
    halfaxis: &[f64; 3],
    size2: &[f64; 3],
) -> Option<f64> {
    let axisdir = (halfaxis[0] > 0.0) as usize + 2 * (halfaxis[1] > 0.0) as usize + 4 * (halfaxis[2] > 0.0) as usize;
    // Shrink `best` to `candidate` when smaller (NaN candidates never win, as in C).
    let shrink = |best: &mut f64, candidate: f64| {
        if candidate < *best {
            *best = candidate;
        }
    };

    match *closest {
        // Step 1: a box corner.
        Closest::Edge { t, corner, edge_state, .. } if edge_state != 1 => {
            let mut c = axisdir ^ corner;
            if c == 0 || c == 7 {
                return None;
            }
            // de / dp: room on the segment from t to either end, labelled by walking direction.
            let (mul, de, dp) = if matches!(c, 1 | 2 | 4) {
                (1.0, 1.0 - t, 1.0 + t)
            } else {
                c = 7 - c;
                (-1.0, 1.0 + t, 1.0 - t)
            };
            let ax = c.trailing_zeros() as usize;
            let (ax1, ax2) = ((ax + 1) % 3, (ax + 2) % 3);
            let mut second;
            if axis[ax] * axis[ax] > 0.5 {
                // Along the edge, no farther than the edge is long.
                second = de;
                shrink(&mut second, 2.0 * size2[ax] / halfaxis[ax].abs());
                second *= mul;
            } else {
                // Across the face, no farther than the face extends.
                second = dp;
                shrink(&mut second, 2.0 * size2[ax1] / halfaxis[ax1].abs());
                shrink(&mut second, 2.0 * size2[ax2] / halfaxis[ax2].abs());
                second *= -mul;
            }
            Some(second)
        }
        // Step 2: the interior of an edge.
        Closest::Edge { t, edge_pos, corner, edge, .. } => {
            let c = (axisdir ^ corner) & (7 - (1 << edge));
            if !matches!(c, 1 | 2 | 4) {
                return None;
            }
            let ax = edge;
            let (mut ax1, ax2_default) = ((ax + 1) % 3, (ax + 2) % 3);
            if axis[ax1].abs() > axis[ax2_default].abs() {
                ax1 = ax2_default;
            }
            let ax2 = 3 - ax - ax1;
            let toward = c & (1 << ax2) != 0;
            let (mul, mut second) = if toward { (1.0, 1.0 - t) } else { (-1.0, 1.0 + t) };
            shrink(&mut second, 2.0 * size2[ax2] / halfaxis[ax2].abs());
            // Room left along the edge in the direction the walk moves along it.
            let room = if ((axisdir & (1 << ax)) != 0) == toward { 1.0 - edge_pos } else { 1.0 + edge_pos };
            shrink(&mut second, size2[ax] * room / halfaxis[ax].abs());
            Some(second * mul)
        }
        // Step 3: a segment end over a face.
        Closest::End { t, face } => {
            let face = face?;
            // Walking direction: from the closest end toward the other one.
            let mul = if t < 0.0 { 1.0 } else { -1.0 };
            let end = [pos[0] + halfaxis[0] * -mul, pos[1] + halfaxis[1] * -mul, pos[2] + halfaxis[2] * -mul];
            let mut second = 2.0;
            for i in (0..3).filter(|&i| i != face) {
                for bound in [size2[i], -size2[i]] {
                    let e = (bound - end[i]) / halfaxis[i] * mul;
                    if e > 0.0 {
                        shrink(&mut second, e);
                    }
                }
            }
            Some(second * mul)
        }
    }
}
