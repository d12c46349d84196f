//! Several speculative contacts between two faces that are nearly parallel at the advanced pose
//! (box faces, cylinder caps): the face of geom 2 clipped by the side planes of the face of
//! geom 1.
//!
//! MuJoCo 4.0.0, measured (two hinged 2 x 40 x 40 mm steel plates 12 mm apart, the first swung
//! at 10 rad/s, h = 4 ms; `/tmp/cradle2.xml` of the specula notes, step 1):
//! - the plates are 2.3 degrees apart at t = 0 and 2.6 degrees at the time of impact; MuJoCo
//!   gives four contacts, not the two of the touching edge. On the swinging plate (geom 1) they
//!   sit at its two bottom corners and at local `z = 0.019689234`, which is where the top edge
//!   of the resting plate's face lands when moved along the swinging plate's face normal onto
//!   that face at the advanced pose (t = 0.13394, to 1e-8);
//! - so the polygon is geom 2's facing face clipped by the planes through the edges of geom 1's
//!   facing face, perpendicular to it (MuJoCo's `polygonClip` of the multi-contact code, with
//!   geom 1's face clipping);
//! - each clipped vertex `v` at height `d` over geom 1's face gives `x1 = v - n1 d` (`n1` geom
//!   1's face normal) and `x2` = the orthogonal projection of `x1` onto geom 2's face plane,
//!   and then the two are pushed apart: `x1 -= L (n + n2)`, `x2 += L (n + n2)`, with `n` the
//!   pair normal at t, `n2` geom 2's outward face normal and `L = (dist(t) + spread) / 2 =
//!   dist(t) + ((1 - t) h|v_n| + ccd_tolerance) / 2`. Measured with one geom static, so that
//!   the blended position shows one point alone: a free plate tilted 0.02 to 0.06 rad
//!   translating (no spin) onto a static upright plate puts MuJoCo's geom-2 corner points at
//!   `v + a n + b n2` with `a = L - d` and `b = a + d (1 + n1 . n2)` to 1e-9 relative (the
//!   `ccd_tolerance / 2` in `L` shows as an exact 5e-7 offset), and a moving geom 1 against a
//!   static tilted geom 2 gives `x1 - L (n + n2)` to 1e-18. When the pair normal is geom 2's
//!   face normal (`n = -n2`, geom 1's corner closest) the push vanishes and `x2` is where the
//!   line through `x1` along `n` meets geom 2's face, as the earlier reading had; when it is
//!   geom 1's (`n = n1`, geom 2's corner closest) the earlier reading put the newton cradle's
//!   points up to 1.8e-4 off (`scenes/newton_cradle.xml`, steps 136, 137, 269 ...; all 57
//!   contact steps of 1000 now agree to 7e-14, hinged and free plates, one or both moving);
//! - the faces must be within MuJoCo's face tolerance: `n1 . n2 < -0.996` (about 5.1 degrees;
//!   the module notes have 4 contacts at 3 and 5 degrees, 2 beyond);
//! - a coin (cylinder cap, geom 1) resting flat over a box face gives four vertices of its
//!   16-gon (thin_parts scene, coin_4mm: 157.5, 90, 0 and 270 degrees, in that order); the box
//!   face is the clipped polygon, so its winding sets the order.
//!
//! Vertices are kept within `spread` of the lowest one (the reach rule of the plane case) and
//! more than four are pruned with MuJoCo 4.0.0's walk, [`super::manifold::polygon_quad_40`],
//! emitted in its order.

use crate::math::{add3, cross, dot3, mul_mat_t_vec3, mul_mat_vec3, scl3, sub3, MINVAL};
use crate::narrowphase::{Geom, GeomType};

use super::manifold::{polygon_quad_40, BOX_FACES};

/// MuJoCo's tolerance for two face normals to count as facing each other (`mjFACE_TOL`).
pub const FACE_TOL: f64 = 0.996;
/// MuJoCo's tolerance for an edge to count as lying in a face (`mjEDGE_TOL`, |cos| of the angle
/// between the edge and the face normal).
pub const EDGE_TOL: f64 = 0.0888;

/// Sides of the polygon standing in for a cylinder cap.
const CYL_SIDES: usize = 16;

/// The face of `g` whose outward normal points most along `dir`: its vertices (world frame,
/// wound so that `(v[i+1] - v[i]) x normal` points into the face) and its unit outward normal.
/// `None` for types without flat faces, or a cylinder whose side faces `dir`.
pub fn facing_face(g: &Geom, dir: &[f64; 3]) -> Option<(Vec<[f64; 3]>, [f64; 3])> {
    let l = mul_mat_t_vec3(&g.mat, dir);
    let s = &g.size;
    let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
    let axis = |k: usize, sign: f64| [g.mat[k] * sign, g.mat[3 + k] * sign, g.mat[6 + k] * sign];
    match g.ty {
        GeomType::Box => {
            let k = (0..3).fold(0, |k, i| if l[i].abs() > l[k].abs() { i } else { k });
            let sign = if l[k] >= 0.0 { 1.0 } else { -1.0 };
            let face = 2 * k + usize::from(l[k] < 0.0);
            let pts = BOX_FACES[face].iter().map(|c| world([c[0] * s[0], c[1] * s[1], c[2] * s[2]])).collect();
            Some((pts, axis(k, sign)))
        }
        GeomType::Cylinder => {
            if l[2].abs() < EDGE_TOL {
                return None;
            }
            // bottom cap: counter-clockwise about local z from the x axis (as against a plane);
            // top cap: clockwise, so that every edge plane faces inwards
            let (z, turn, sign) = if l[2] >= 0.0 { (s[1], -1.0, 1.0) } else { (-s[1], 1.0, -1.0) };
            let step = 2.0 * crate::math::PI / CYL_SIDES as f64;
            let pts = (0..CYL_SIDES)
                .map(|k| {
                    let a = k as f64 * step;
                    world([s[0] * a.cos(), turn * s[0] * a.sin(), z])
                })
                .collect();
            Some((pts, axis(2, sign)))
        }
        _ => None,
    }
}

/// Normal and offset of the plane through the edge `a`-`b` of a face with normal `n`,
/// perpendicular to the face, pointing into the face.
fn edge_plane(a: &[f64; 3], b: &[f64; 3], n: &[f64; 3]) -> ([f64; 3], f64) {
    let c = add3(a, n);
    let mut pn = cross(&sub3(b, a), &sub3(&c, a));
    let len = dot3(&pn, &pn).sqrt();
    if len >= MINVAL {
        pn = scl3(&pn, 1.0 / len);
    }
    (pn, dot3(&pn, a))
}

/// Sutherland-Hodgman clipping of `subject` by the edge planes of the convex face `clipper`
/// (normal `n`), in MuJoCo's vertex order.
pub fn clip_polygon(clipper: &[[f64; 3]], n: &[f64; 3], subject: &[[f64; 3]]) -> Vec<[f64; 3]> {
    if clipper.len() < 3 {
        return Vec::new();
    }
    let mut poly = subject.to_vec();
    let mut next = Vec::with_capacity(2 * poly.len());
    for e in 0..clipper.len() {
        let a = &clipper[e];
        let b = &clipper[(e + 1) % clipper.len()];
        let (pn, pd) = edge_plane(a, b, n);
        let inside = |p: &[f64; 3]| dot3(&sub3(p, a), &pn) > -MINVAL;
        next.clear();
        for i in 0..poly.len() {
            let p = poly[i];
            let q = poly[(i + 1) % poly.len()];
            let (ip, iq) = (inside(&p), inside(&q));
            if !ip && !iq {
                continue;
            }
            if ip && iq {
                next.push(q);
                continue;
            }
            let pq = sub3(&q, &p);
            let den = dot3(&pn, &pq);
            if den != 0.0 {
                let t = (pd - dot3(&pn, &p)) / den;
                if (0.0..=1.0).contains(&t) {
                    next.push(add3(&p, &scl3(&pq, t)));
                }
            }
            if iq {
                next.push(q);
            }
        }
        std::mem::swap(&mut poly, &mut next);
        if poly.is_empty() {
            break;
        }
    }
    poly
}

/// Dimension of the feature of box `g` holding the surface point `x` (1 vertex, 2 edge,
/// 3 face) and the local point; `None` for other types.
fn box_feature(g: &Geom, x: &[f64; 3]) -> Option<(usize, [f64; 3])> {
    if g.ty != GeomType::Box {
        return None;
    }
    let l = mul_mat_t_vec3(&g.mat, &sub3(x, &g.pos));
    let eps = 1e-9 * g.size.iter().fold(0.0f64, |a, &b| a.max(b));
    let free = (0..3).filter(|&i| l[i].abs() < g.size[i] - eps).count();
    Some((1 + free, l))
}

/// Edges of box `g` through its vertex or edge point `l` (local): the world endpoints, the
/// given point's end first.
fn box_edges(g: &Geom, l: &[f64; 3]) -> Vec<[[f64; 3]; 2]> {
    let s = &g.size;
    let eps = 1e-9 * s.iter().fold(0.0f64, |a, &b| a.max(b));
    let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
    let snap = |i: usize| if l[i] >= 0.0 { s[i] } else { -s[i] };
    let corner = [snap(0), snap(1), snap(2)];
    let free: Vec<usize> = (0..3).filter(|&i| l[i].abs() < s[i] - eps).collect();
    let axes: Vec<usize> = if free.is_empty() { vec![0, 1, 2] } else { free };
    axes.iter()
        .map(|&k| {
            let mut b = corner;
            b[k] = -corner[k];
            [world(corner), world(b)]
        })
        .collect()
}

/// Keeps the clipped vertices within `spread` of the lowest (`heights` over the reference
/// face) and prunes to four.
fn keep(pairs: Vec<([f64; 3], [f64; 3])>, heights: &[f64], spread: f64) -> Vec<([f64; 3], [f64; 3])> {
    let low = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let kept: Vec<([f64; 3], [f64; 3])> =
        pairs.into_iter().zip(heights).filter(|(_, &h)| h - low <= spread).map(|(p, _)| p).collect();
    if kept.len() <= 4 {
        return kept;
    }
    let pts: Vec<[f64; 3]> = kept.iter().map(|k| k.1).collect();
    polygon_quad_40(&pts).iter().map(|&i| kept[i]).collect()
}

/// Feature dimension (1 vertex, 2 edge, 3 face or curved) of `g` at its surface point `x` and
/// the edges through it, as world endpoints: a box's edges through a vertex or edge point, a
/// capsule's segment moved by its radius along `toward`.
fn edge_feature(g: &Geom, x: &[f64; 3], toward: &[f64; 3]) -> (usize, Vec<[[f64; 3]; 2]>) {
    match g.ty {
        GeomType::Box => match box_feature(g, x) {
            Some((dim, l)) if dim < 3 => (dim, box_edges(g, &l)),
            _ => (3, Vec::new()),
        },
        GeomType::Capsule => {
            let r = scl3(toward, g.size[0]);
            let end = |z: f64| add3(&add3(&g.pos, &mul_mat_vec3(&g.mat, &[0.0, 0.0, z])), &r);
            (2, vec![[end(-g.size[1]), end(g.size[1])]])
        }
        _ => (3, Vec::new()),
    }
}

/// The first of `edges` lying within [`EDGE_TOL`] of the plane of the face `(face, nf)` of the
/// other geom, clipped by that face's edge planes: pairs `(on the edge, on the face)`, the face
/// points being the edge points moved along `nf` onto it.
fn edge_on_face(
    edges: &[[[f64; 3]; 2]],
    face: &[[f64; 3]],
    nf: &[f64; 3],
    spread: f64,
) -> Option<Vec<([f64; 3], [f64; 3])>> {
    let edge = edges.iter().find(|e| {
        let d = sub3(&e[1], &e[0]);
        let len = dot3(&d, &d).sqrt();
        len > 0.0 && (dot3(&d, nf) / len).abs() < EDGE_TOL
    })?;
    let seg = clip_polygon(face, nf, edge);
    if seg.is_empty() {
        return None;
    }
    let seg = if seg.len() > 2 { farthest_two(&seg) } else { seg };
    let heights: Vec<f64> = seg.iter().map(|v| dot3(&sub3(v, &face[0]), nf)).collect();
    let pairs = seg.iter().zip(&heights).map(|(v, &h)| (*v, sub3(v, &scl3(nf, h)))).collect();
    Some(keep(pairs, &heights, spread))
}

/// The two most distant points of a clipped edge (clipping can repeat its ends).
fn farthest_two(p: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let (mut bi, mut bj, mut best) = (0, 1, 0.0);
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            let d = sub3(&p[j], &p[i]);
            let d2 = dot3(&d, &d);
            if d2 > best {
                (bi, bj, best) = (i, j, d2);
            }
        }
    }
    vec![p[bi], p[bj]]
}

/// The pair `(x1, x2)` for a clipped vertex `v` of geom 2's face at height `h` over geom 1's
/// face `(n1)`: `x1 = v - h n1` on geom 1's face and its orthogonal projection onto geom 2's face
/// plane `(face2, n2)`, then pushed apart along `n + n2` by `lift` (`x1` back, `x2` forward; see
/// the module notes for the measurements).
fn face_pair(
    v: &[f64; 3],
    h: f64,
    n1: &[f64; 3],
    face2: &[[f64; 3]],
    n2: &[f64; 3],
    n: &[f64; 3],
    lift: f64,
) -> ([f64; 3], [f64; 3]) {
    let x1 = sub3(v, &scl3(n1, h));
    let x2 = sub3(&x1, &scl3(n2, dot3(&sub3(&x1, &face2[0]), n2)));
    let shift = scl3(&add3(n, n2), lift);
    (sub3(&x1, &shift), add3(&x2, &shift))
}

/// Surface point pairs `(on g1, on g2)` of the touching features at the advanced pose when
/// they are nearly parallel faces (geom 2's face clipped by geom 1's) or an edge lying in the
/// other geom's face (the edge clipped by the face); `n` is the unit normal from geom 1 to
/// geom 2, `x1`, `x2` the witness points there and `dist` their distance. `None` when neither
/// applies.
pub fn face_points(
    g1: &Geom,
    g2: &Geom,
    n: &[f64; 3],
    x1: &[f64; 3],
    x2: &[f64; 3],
    dist: f64,
    spread: f64,
) -> Option<Vec<([f64; 3], [f64; 3])>> {
    let neg = scl3(n, -1.0);
    let face1 = facing_face(g1, n);
    let face2 = facing_face(g2, &neg);
    if let (Some((f1, n1)), Some((f2, n2))) = (&face1, &face2) {
        if dot3(n1, n2) < -FACE_TOL {
            let poly = clip_polygon(f1, n1, f2);
            if poly.is_empty() {
                return None;
            }
            let heights: Vec<f64> = poly.iter().map(|v| dot3(&sub3(v, &f1[0]), n1)).collect();
            // half-way between the distance at t and the reach of the rest of the step
            let lift = 0.5 * (spread + dist);
            let pairs = poly.iter().zip(&heights).map(|(v, &h)| face_pair(v, h, n1, f2, n2, n, lift)).collect();
            return Some(keep(pairs, &heights, spread));
        }
    }
    // MuJoCo tries geom 1's edge when its feature is not of higher dimension than geom 2's
    let (d1, e1) = edge_feature(g1, x1, n);
    let (d2, e2) = edge_feature(g2, x2, &neg);
    if d1 < 3 && d1 <= d2 {
        let (f2, n2) = face2?;
        return edge_on_face(&e1, &f2, &n2, spread);
    }
    if d2 < 3 {
        let (f1, n1) = face1?;
        let pts = edge_on_face(&e2, &f1, &n1, spread)?;
        return Some(pts.into_iter().map(|(a, b)| (b, a)).collect());
    }
    None
}
