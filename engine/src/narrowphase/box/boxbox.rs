//! Box against box (MuJoCo 4.0.0's `mjc_BoxBox`, the separating-axis rewrite).
//!
//! Two stages. The separating-axis test (SAT) tries the 15 candidate directions (three face
//! normals per box, nine edge-direction cross products) and keeps the one of largest
//! separation, preferring faces on near-ties. A face axis then yields a manifold by clipping
//! the most opposed face of the other box against the winning face's side planes (one contact
//! per surviving vertex, up to eight); an edge axis yields one contact between the two
//! supporting edges.
//!
//! Work happens in box 1's frame: `rot` holds box 2's axes as columns, `pos21` is box 2's
//! centre and `pos12` box 1's centre in box 2's frame.

#![allow(clippy::too_many_arguments)] // kernels on plain arrays take every pose and size

use super::emit;
use crate::dynamics::avx::avx_dispatch;
use crate::math::clip;
use crate::math::{
    dot3, frame_from_normal, mul_mat_t_mat3, mul_mat_t_vec3, mul_mat_vec3, normalize3, sub3, transpose3, MINVAL,
};
use crate::narrowphase::ContactPoint;

/// Separation-test slack, per unit of summed half-sizes: supports are sums of size*rotation
/// products, so their rounding error scales with the box size.
const SEP_EPS: f64 = 1e-13;
/// Squared sine below which two edge directions count as parallel (their cross product is
/// rounding noise; the face axes cover that case).
const PAR_EPS: f64 = 1e-16;
/// Axis component below which the supporting edge of a box is ambiguous (both candidates
/// are tried).
const SGN_EPS: f64 = 1e-9;
/// Squared duplicate radius for clipped vertices, relative to the reference face's size.
const DUP_EPS: f64 = 1e-14;
/// Relative penalty an edge axis pays against the best face axis on near-ties.
const EDGE_BIAS: f64 = 1e-6;
/// Capacity of the clipping buffers (a quad clipped by four half-planes has at most eight
/// vertices).
const MAX_VERT: usize = 12;
/// MuJoCo's `mjMAXVAL`, the "no candidate yet" sentinel.
const MAXVAL: f64 = 1e10;

/// The pose of box 2 relative to box 1, shared by both stages.
struct Relative {
    /// Box 2's axes in box 1's frame, as columns (`mat1^T mat2`).
    rot: [f64; 9],
    /// Box 2's centre in box 1's frame.
    pos21: [f64; 3],
    /// Box 1's centre in box 2's frame.
    pos12: [f64; 3],
}

avx_dispatch! {
    /// Box (`pos1`, `mat1`, half-sizes `size1`) against box (`pos2`, `mat2`, `size2`); writes up
    /// to eight contacts and returns how many.
    ///
    /// Algorithm (MuJoCo 4.0.0, `engine_collision_box.c`):
    /// 1. Express box 2 in box 1's frame (`Relative`).
    /// 2. Separating-axis search (`separating_axis`); any axis separating the boxes by more than
    ///    `margin` plus a size-scaled rounding slack ends the test with no contact.
    /// 3. An edge winner nearly parallel (|cos| > 0.99) to the best face axis, and not better by
    ///    5% of the face depth, is replaced by that face (`prefer_face`, at the end of the search).
    /// 4. Edge winner: one contact at the closest points of the two supporting edges
    ///    (`edge_contact`). Face winner: clip the incident face against the reference face
    ///    (`face_contacts`).
    ///
    /// Runs compiled for AVX when the CPU has it, as MuJoCo 4.0.0 is (the same source, so the same
    /// operations in the same order and the same bits; see `dynamics::avx`): with SSE2's
    /// two-operand forms the kernel spent a fifth of its instructions on register copies.
    pub fn raw_box_box(
        margin: f64,
        pos1: &[f64; 3],
        mat1: &[f64; 9],
        size1: &[f64; 3],
        pos2: &[f64; 3],
        mat2: &[f64; 9],
        size2: &[f64; 3],
        out: &mut [ContactPoint],
    ) -> usize => raw_box_box_any
}

/// [`raw_box_box`]'s body.
#[inline(always)]
fn raw_box_box_any(
    margin: f64,
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    size1: &[f64; 3],
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    out: &mut [ContactPoint],
) -> usize {
    // Step 1.
    let rel = Relative {
        rot: mul_mat_t_mat3(mat1, mat2),
        pos21: mul_mat_t_vec3(mat1, &sub3(pos2, pos1)),
        pos12: mul_mat_t_vec3(mat2, &sub3(pos1, pos2)),
    };

    // Step 2: the slack lets boxes overlapping by less than their own support rounding count
    // as touching, rather than slipping through each other.
    let septol = margin + SEP_EPS * (size1[0] + size1[1] + size1[2] + size2[0] + size2[1] + size2[2]);
    let Some(code) = separating_axis(&rel, size1, size2, septol) else {
        return 0;
    };

    // Step 4.
    if code >= 6 {
        let (i, j) = ((code - 6) / 3, (code - 6) % 3);
        edge_contact(&rel, i, j, septol, pos1, mat1, size1, size2, out)
    } else {
        face_contacts(&rel, code, margin, pos1, mat1, size1, pos2, mat2, size2, out)
    }
}

/// Separating-axis search: the winning axis code (0..3 face of box 1, 3..6 face of box 2,
/// 6 + 3i + j edge i of box 1 x edge j of box 2), or `None` when some axis separates the boxes
/// by more than `septol`.
///
/// Algorithm:
/// 1. Face axes of box 1, then of box 2: separation = |centre offset along the axis| - own
///    half-size - the other box's support radius. The largest wins; ties keep the first.
/// 2. Edge axes `e_i x rot_j` in order (i, j), skipping near-parallel pairs ([`PAR_EPS`]).
///    The axis has no component along `e_i` in box 1's frame and none along `e_j` in box 2's,
///    so each support radius has two terms. An edge axis must beat the best so far even after
///    losing [`EDGE_BIAS`] of its magnitude, and must beat the best face outright.
/// 3. Apply [`prefer_face`] to an edge winner.
#[inline(always)]
fn separating_axis(rel: &Relative, size1: &[f64; 3], size2: &[f64; 3], septol: f64) -> Option<usize> {
    let rot = &rel.rot;
    let rotabs = rot.map(f64::abs);
    let mut sep_best = -MAXVAL;
    let mut code = None;

    // Step 1.
    for i in 0..3 {
        let radius2 = rotabs[3 * i] * size2[0] + rotabs[3 * i + 1] * size2[1] + rotabs[3 * i + 2] * size2[2];
        let sep = rel.pos21[i].abs() - size1[i] - radius2;
        if sep > septol {
            return None;
        }
        if sep > sep_best {
            sep_best = sep;
            code = Some(i);
        }
    }
    for j in 0..3 {
        let radius1 = rotabs[j] * size1[0] + rotabs[3 + j] * size1[1] + rotabs[6 + j] * size1[2];
        let sep = rel.pos12[j].abs() - size2[j] - radius1;
        if sep > septol {
            return None;
        }
        if sep > sep_best {
            sep_best = sep;
            code = Some(3 + j);
        }
    }
    let sep_face = sep_best;
    let code_face = code;

    // Step 2.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            // e_i x column j of rot, components (i1, i2); component i is zero.
            let mut ax1 = -rot[3 * i2 + j];
            let mut ax2 = rot[3 * i1 + j];
            let norm2 = ax1 * ax1 + ax2 * ax2;
            if norm2 < PAR_EPS {
                continue;
            }
            let inv = 1.0 / norm2.sqrt();
            ax1 *= inv;
            ax2 *= inv;
            let radius1 = size1[i1] * ax1.abs() + size1[i2] * ax2.abs();
            let b1 = ax1 * rot[3 * i1 + j1] + ax2 * rot[3 * i2 + j1];
            let b2 = ax1 * rot[3 * i1 + j2] + ax2 * rot[3 * i2 + j2];
            let radius2 = size2[j1] * b1.abs() + size2[j2] * b2.abs();
            let sep = (ax1 * rel.pos21[i1] + ax2 * rel.pos21[i2]).abs() - radius1 - radius2;
            if sep > septol {
                return None;
            }
            if sep - EDGE_BIAS * sep.abs() > sep_best && sep > sep_face {
                sep_best = sep;
                code = Some(6 + 3 * i + j);
            }
        }
    }

    // Faces always set a code unless every separation is NaN.
    let code = code?;
    let code_face = code_face?;

    // Step 3.
    if code >= 6 && prefer_face(rot, code, code_face, sep_best, sep_face) {
        Some(code_face)
    } else {
        Some(code)
    }
}

/// Unit edge-pair axis `e_i x rot_j` in box 1's frame (normalised as MuJoCo's
/// `mju_normalize3` does).
#[inline(always)]
fn edge_axis(rot: &[f64; 9], i: usize, j: usize) -> [f64; 3] {
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let mut axis = [0.0; 3];
    axis[i1] = -rot[3 * i2 + j];
    axis[i2] = rot[3 * i1 + j];
    normalize3(&mut axis);
    axis
}

/// Whether an edge winner should give way to the best face axis.
///
/// An edge axis within about 8 degrees of the face normal describes the same contact, and a
/// resting stack would otherwise flip between one edge point and a face manifold on rounding
/// noise. The face takes over unless the edge separation exceeds the face's by 5% of the face
/// depth (plus `MINVAL`). Deciding after the search keeps a worse, non-parallel edge axis from
/// winning in place of the face.
#[inline(always)]
fn prefer_face(rot: &[f64; 9], code: usize, code_face: usize, sep_edge: f64, sep_face: f64) -> bool {
    let axis = edge_axis(rot, (code - 6) / 3, (code - 6) % 3);
    let face_dot = if code_face < 3 {
        axis[code_face].abs()
    } else {
        let f = code_face - 3;
        (axis[0] * rot[f] + axis[1] * rot[3 + f] + axis[2] * rot[6 + f]).abs()
    };
    face_dot > 0.99 && sep_edge < sep_face + 0.05 * sep_face.abs() + MINVAL
}

/// One contact between box 1's edge along `e_i` and box 2's edge along its axis `j`.
///
/// Algorithm:
/// 1. Orient the unit axis from box 1 toward box 2.
/// 2. The supporting edge of box 1 sits at the corner farthest along +axis (over the two
///    other axes); box 2's at the corner farthest along -axis. Where an axis component is
///    below [`SGN_EPS`] the corner is ambiguous and both choices are tried (at most one
///    ambiguous component per box).
/// 3. For each choice, closest points of the two edge segments: the unconstrained line-line
///    solution (`s = 0` when the edges are parallel), clamped into box 1's edge, then `t`
///    re-solved and clamped, then `s` re-solved and clamped. The pair with the smallest gap
///    wins (first on ties).
/// 4. Distance = gap projected on the axis (no contact above `septol`); position = midpoint
///    of the two witness points; normal = the axis.
#[inline(always)]
fn edge_contact(
    rel: &Relative,
    i: usize,
    j: usize,
    septol: f64,
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    size1: &[f64; 3],
    size2: &[f64; 3],
    out: &mut [ContactPoint],
) -> usize {
    let rot = &rel.rot;
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);

    // Step 1.
    let mut axis = edge_axis(rot, i, j);
    if dot3(&axis, &rel.pos21) < 0.0 {
        axis = [-axis[0], -axis[1], -axis[2]];
    }

    // Step 2: the axis in box 2's frame, and the ambiguous components.
    let a2 = mul_mat_t_vec3(rot, &axis);
    let ambiguous = |v: &[f64; 3], k1: usize, k2: usize| {
        if v[k1].abs() < SGN_EPS {
            Some(k1)
        } else if v[k2].abs() < SGN_EPS {
            Some(k2)
        } else {
            None
        }
    };
    let amb1 = ambiguous(&axis, i1, i2);
    let amb2 = ambiguous(&a2, j1, j2);

    // Step 3.
    let d2 = [rot[j], rot[3 + j], rot[6 + j]];
    let b = d2[i]; // cosine between the two edge directions
    let denom = 1.0 - b * b;
    let mut best: Option<(f64, [f64; 3], [f64; 3])> = None;
    for v1 in 0..1 + amb1.is_some() as usize {
        for v2 in 0..1 + amb2.is_some() as usize {
            let mut c1 = [0.0; 3];
            c1[i1] = if axis[i1] >= 0.0 { size1[i1] } else { -size1[i1] };
            c1[i2] = if axis[i2] >= 0.0 { size1[i2] } else { -size1[i2] };
            if let (Some(k), 1) = (amb1, v1) {
                c1[k] = -c1[k];
            }
            let mut cc = [0.0; 3];
            cc[j1] = if a2[j1] >= 0.0 { -size2[j1] } else { size2[j1] };
            cc[j2] = if a2[j2] >= 0.0 { -size2[j2] } else { size2[j2] };
            if let (Some(k), 1) = (amb2, v2) {
                cc[k] = -cc[k];
            }
            let r = mul_mat_vec3(rot, &cc);
            let c2 = [r[0] + rel.pos21[0], r[1] + rel.pos21[1], r[2] + rel.pos21[2]];

            let e = sub3(&c2, &c1);
            let d1e = e[i];
            let d2e = dot3(&d2, &e);
            let mut s = if denom < MINVAL { 0.0 } else { (d1e - b * d2e) / denom };
            s = clip(s, -size1[i], size1[i]);
            let t = clip(b * s - d2e, -size2[j], size2[j]);
            s = clip(d1e + b * t, -size1[i], size1[i]);

            let mut p1 = c1;
            p1[i] += s;
            let p2 = [c2[0] + d2[0] * t, c2[1] + d2[1] * t, c2[2] + d2[2] * t];
            let gap = sub3(&p2, &p1);
            let gap2 = dot3(&gap, &gap);
            if gap2 < best.map_or(MAXVAL, |(g, _, _)| g) {
                best = Some((gap2, p1, p2));
            }
        }
    }
    let Some((_, w1, w2)) = best else {
        return 0;
    };

    // Step 4.
    let dist = dot3(&sub3(&w2, &w1), &axis);
    if dist > septol {
        return 0;
    }
    let mid = [0.5 * (w1[0] + w2[0]), 0.5 * (w1[1] + w2[1]), 0.5 * (w1[2] + w2[2])];
    let r = mul_mat_vec3(mat1, &mid);
    let pos = [r[0] + pos1[0], r[1] + pos1[1], r[2] + pos1[2]];
    let normal = mul_mat_vec3(mat1, &axis);
    emit(out, 0, dist, &pos, &normal)
}

/// The face manifold for face axis `code` (0..3 box 1, 3..6 box 2).
///
/// Algorithm:
/// 1. The owner of the face is the reference box, the other the incident box. `sgn` says on
///    which side of the reference box (along face axis `a`) the incident box lies.
/// 2. The incident face is the incident box's face most anti-parallel to the reference
///    normal: the axis with the largest |component| along `a` (first on ties), on the side
///    facing the reference box.
/// 3. Its four corners, in the reference frame as (x, y, z): x and y along the reference's
///    other two axes `(a+1)%3`, `(a+2)%3`, z the height above the reference face (negative =
///    inside). Winding: (+u,+v), (-u,+v), (-u,-v), (+u,-v) over the incident face's axes
///    `(b+1)%3`, `(b+2)%3`.
/// 4. Clip against x <= sx, x >= -sx, y <= sy, y >= -sy, in that order
///    ([`clip_half_plane`]).
/// 5. Keep vertices with z <= margin, dropping any within the duplicate radius of an
///    already kept one (in x, y).
/// 6. Each kept vertex is a contact: dist = z, position midway between the reference face
///    plane and the vertex, normal = reference face normal oriented from box 1 to box 2.
#[inline(always)]
fn face_contacts(
    rel: &Relative,
    code: usize,
    margin: f64,
    pos1: &[f64; 3],
    mat1: &[f64; 9],
    size1: &[f64; 3],
    pos2: &[f64; 3],
    mat2: &[f64; 9],
    size2: &[f64; 3],
    out: &mut [ContactPoint],
) -> usize {
    // Step 1: rinc[3r + c] = component r of incident axis c, in the reference frame.
    let ref1 = code < 3;
    let a = if ref1 { code } else { code - 3 };
    let (sizeref, sizeinc, posref, matref, posoi, rinc) = if ref1 {
        (size1, size2, pos1, mat1, &rel.pos21, rel.rot)
    } else {
        (size2, size1, pos2, mat2, &rel.pos12, transpose3(&rel.rot))
    };
    let sgn = if posoi[a] >= 0.0 { 1.0 } else { -1.0 };

    // Step 2.
    let mut binc = 0;
    for k in 1..3 {
        if rinc[3 * a + k].abs() > rinc[3 * a + binc].abs() {
            binc = k;
        }
    }
    let tinc = if sgn * rinc[3 * a + binc] > 0.0 { -1.0 } else { 1.0 };

    // Step 3: face centre and half-edge vectors in (x, y, z).
    let (ax, ay) = ((a + 1) % 3, (a + 2) % 3);
    let (bu, bv) = ((binc + 1) % 3, (binc + 2) % 3);
    let mut centre = [0.0; 3];
    let mut du = [0.0; 3];
    let mut dv = [0.0; 3];
    for (r, c) in [ax, ay, a].into_iter().enumerate() {
        centre[r] = posoi[c] + tinc * sizeinc[binc] * rinc[3 * c + binc];
        du[r] = sizeinc[bu] * rinc[3 * c + bu];
        dv[r] = sizeinc[bv] * rinc[3 * c + bv];
    }
    centre[2] = sgn * centre[2] - sizeref[a];
    du[2] *= sgn;
    dv[2] *= sgn;
    let mut bufs = [[[0.0; 3]; MAX_VERT]; 2];
    for (k, (su, sv)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].into_iter().enumerate() {
        for r in 0..3 {
            bufs[0][k][r] = centre[r] + su * du[r] + sv * dv[r];
        }
    }

    // Step 4.
    let mut cur = 0;
    let mut nvert = 4;
    for (coord, sign, limit) in
        [(0, 1.0, sizeref[ax]), (0, -1.0, sizeref[ax]), (1, 1.0, sizeref[ay]), (1, -1.0, sizeref[ay])]
    {
        let [b0, b1] = &mut bufs;
        let (src, dst) = if cur == 0 { (b0, b1) } else { (b1, b0) };
        if let Some(n) = clip_half_plane(&src[..nvert], dst, coord, sign, limit) {
            nvert = n;
            cur = 1 - cur;
        }
    }
    let poly = &bufs[cur][..nvert];

    // Step 5.
    let mut kept = [[0.0; 3]; MAX_VERT];
    let mut nkept = 0;
    let dupe2 = DUP_EPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay]);
    for v in poly {
        if v[2] > margin {
            continue;
        }
        let dupe = kept[..nkept].iter().any(|q| {
            let dx = q[0] - v[0];
            let dy = q[1] - v[1];
            dx * dx + dy * dy < dupe2
        });
        if !dupe {
            kept[nkept] = *v;
            nkept += 1;
        }
    }

    // Step 6.
    let nsign = if ref1 { sgn } else { -sgn };
    let normal = [nsign * matref[a], nsign * matref[3 + a], nsign * matref[6 + a]];
    // All points share the normal: complete its frame once (the same bits as once per point).
    let frame = frame_from_normal(&normal);
    let n = nkept.min(out.len());
    for (c, v) in out.iter_mut().zip(&kept[..n]) {
        let mut local = [0.0; 3];
        local[ax] = v[0];
        local[ay] = v[1];
        local[a] = sgn * (sizeref[a] + 0.5 * v[2]);
        let r = mul_mat_vec3(matref, &local);
        let pos = [r[0] + posref[0], r[1] + posref[1], r[2] + posref[2]];
        *c = ContactPoint { dist: v[2], pos, frame };
    }
    n
}

/// Clip the polygon `poly` against the half-plane `sign * v[coord] <= limit` into `dst`
/// (Sutherland-Hodgman, z carried along as an attribute).
///
/// Returns `None` when every vertex is already inside (the polygon is left as is, the common
/// resting case), otherwise the new vertex count. Each vertex inside is kept, followed by the
/// crossing point of its outgoing edge when that edge strictly crosses the plane; at most
/// [`MAX_VERT`] vertices are written.
#[inline(always)]
fn clip_half_plane(
    poly: &[[f64; 3]],
    dst: &mut [[f64; 3]; MAX_VERT],
    coord: usize,
    sign: f64,
    limit: f64,
) -> Option<usize> {
    let mut d = [0.0; MAX_VERT];
    let mut all_inside = true;
    for (dk, p) in d.iter_mut().zip(poly) {
        *dk = sign * p[coord] - limit;
        all_inside &= *dk <= 0.0;
    }
    if all_inside {
        return None;
    }
    let nin = poly.len();
    let mut nout = 0;
    for k in 0..nin {
        let k1 = if k + 1 == nin { 0 } else { k + 1 };
        let (p, q) = (&poly[k], &poly[k1]);
        let (dp, dq) = (d[k], d[k1]);
        if dp <= 0.0 && nout < MAX_VERT {
            dst[nout] = *p;
            nout += 1;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) && nout < MAX_VERT {
            let t = dp / (dp - dq);
            dst[nout] = [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2])];
            nout += 1;
        }
    }
    Some(nout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{normalize4, quat2mat};

    /// Deterministic uniform numbers in [-1, 1) (a 64-bit LCG's top bits).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// The dispatched kernel (the AVX copy on a CPU with AVX) and the baseline copy give the same
    /// contacts bit for bit on boxes posed at random, touching, crossing and apart; a third of
    /// them axis-aligned, where the face and edge ties are decided.
    #[test]
    fn avx_copy_gives_the_baseline_bits() {
        let mut r = Lcg(17);
        let (mut touching, mut moved_differ) = (0, 0);
        for k in 0..20_000 {
            let mut pose = || {
                let mut q = [r.next(), r.next(), r.next(), r.next()];
                if k % 3 == 0 {
                    q = [1.0, 0.0, 0.0, 0.0];
                }
                normalize4(&mut q);
                let pos = [0.6 * r.next(), 0.6 * r.next(), 0.6 * r.next()];
                let size = [0.05 + 0.3 * r.next().abs(), 0.05 + 0.3 * r.next().abs(), 0.05 + 0.3 * r.next().abs()];
                (pos, quat2mat(&q), size)
            };
            let (p1, m1, s1) = pose();
            let (p2, m2, s2) = pose();
            let margin = if k % 4 == 0 { 0.01 } else { 0.0 };
            let (mut a, mut b) = ([ContactPoint::default(); 8], [ContactPoint::default(); 8]);
            let na = raw_box_box(margin, &p1, &m1, &s1, &p2, &m2, &s2, &mut a);
            let nb = raw_box_box_any(margin, &p1, &m1, &s1, &p2, &m2, &s2, &mut b);
            assert_eq!(na, nb, "pair {k}");
            touching += usize::from(na > 0);
            let bits = |c: &[ContactPoint]| {
                c.iter()
                    .flat_map(|c| std::iter::once(&c.dist).chain(&c.pos).chain(&c.frame).map(|f| f.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&a[..na]), bits(&b[..nb]), "pair {k}");
            // the comparison sees a one-ulp move of box 2: it would see a copy that rounds differently
            if na > 0 {
                let p2n = [f64::from_bits(p2[0].to_bits() + 1), p2[1], p2[2]];
                let mut c = [ContactPoint::default(); 8];
                let nc = raw_box_box_any(margin, &p1, &m1, &s1, &p2n, &m2, &s2, &mut c);
                moved_differ += usize::from(nc != nb || bits(&c[..nc]) != bits(&b[..nb]));
            }
        }
        assert!(touching > 3_000, "too few touching pairs to mean anything: {touching}");
        assert!(moved_differ > touching / 2, "the bit comparison missed one-ulp moves: {moved_differ} of {touching}");
    }
}
