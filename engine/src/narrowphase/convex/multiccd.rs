//! Extra contacts for convex pairs.
//!
//! Two mechanisms, as in MuJoCo 4.0.0:
//! - [`multicontact`] (native CCD's single-pass multi-contact): after GJK (and EPA), look at the
//!   features (vertex, edge or face) each shape contributed to the final simplex or EPA face;
//!   when a face of one is nearly anti-parallel to a face of the other, or an edge of one lies in
//!   a face of the other, clip one against the other and return the clipped points as contacts
//!   (more than four pruned to a quad of maximal area, an edge to its two ends).
//! - [`perturbed_contacts`] (`mjc_Convex`, only when the single pass may return one contact):
//!   tilt geom 1 by +-1e-3 rad about each tangent axis of the contact frame (and geom 2 by the
//!   inverse rotation), both about the contact point, and re-run CCD. Each new contact point
//!   that is not within `1e-3 * min(rbound)` of an earlier one is kept, with the depth of the
//!   first contact.
//!
//! Provenance of [`multicontact`]: MuJoCo 4.0.0's version (rewritten after the 3.12 source we
//! learned from) was read from the released library and re-implemented; a C model of it agreed
//! bit for bit with the library on 1300 near-aligned poses per pair (cylinder, box, mesh cube,
//! irregular mesh, capsule; margins 0 and 0.01), and this code agrees with MuJoCo's own pair
//! functions on the random poses of `tests/narrowphase_oracle.rs`.

use super::features::{edge_normals, face_normals, face_vertices, EdgeList, Features, EDGE_TOL, FACE_TOL};
use super::gjk::{Status, MINVAL};
use super::polygon::polygon_quad;
use super::support::ConvexObj;
use super::{perturb_tolerance, PERTURB_ANGLE};
use crate::math::{
    axis_angle2quat, cross, dist3, dot3, mul_mat_mat3, mul_mat_vec3, normalize3, quat2mat, sub3, transpose3,
};
use crate::narrowphase::{ContactPoint, Geom, GeomType};

/// Rotate a frame in place by `rot` about the world point `origin`.
fn rotate_about(origin: &[f64; 3], rot: &[f64; 9], mat: &mut [f64; 9], pos: &mut [f64; 3]) {
    *mat = mul_mat_mat3(rot, mat);
    let rel = sub3(origin, pos);
    let moved = sub3(&mul_mat_vec3(rot, &rel), &rel);
    *pos = sub3(pos, &moved);
}

/// Add contacts found by tilting the pair about the first contact; returns the new count.
pub(crate) fn perturbed_contacts<F>(
    g1: &Geom,
    g2: &Geom,
    out: &mut [ContactPoint],
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    mut pen: F,
) -> usize
where
    F: FnMut(&mut ConvexObj, &mut ConvexObj, &mut [ContactPoint]) -> usize,
{
    let first = out[0];
    let tol = perturb_tolerance(g1, g2);
    let axes = [[first.frame[3], first.frame[4], first.frame[5]], [first.frame[6], first.frame[7], first.frame[8]]];
    let mut ncon = 1;
    for axis in &axes {
        for angle in [-PERTURB_ANGLE, PERTURB_ANGLE] {
            if ncon >= out.len() {
                return ncon;
            }
            let rot = quat2mat(&axis_angle2quat(axis, angle));
            rotate_about(&first.pos, &rot, &mut o1.mat, &mut o1.pos);
            let inv = transpose3(&rot);
            rotate_about(&first.pos, &inv, &mut o2.mat, &mut o2.pos);

            let n = pen(o1, o2, &mut out[ncon..ncon + 1]);
            if n > 0 {
                let p = out[ncon].pos;
                if out[..ncon].iter().all(|c| dist3(&c.pos, &p) > tol) {
                    out[ncon].dist = first.dist;
                    ncon += 1;
                }
            }
            o1.pos = g1.pos;
            o1.mat = g1.mat;
            o2.pos = g2.pos;
            o2.mat = g2.mat;
        }
    }
    ncon
}

/// Which pair of features is clipped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pairing {
    /// Face `i` of geom 1 against face `j` of geom 2.
    Faces(usize, usize),
    /// Edge `e` of geom 1 lying in face `f` of geom 2.
    Edge1(usize, usize),
    /// Edge `e` of geom 2 lying in face `f` of geom 1.
    Edge2(usize, usize),
}

/// The index of the first edge lying within `EDGE_TOL` of the first face (of those facing
/// along `dir`) that has one: `(face, edge)`.
fn edge_in_face(faces: &[([f64; 3], usize)], edges: &[[f64; 3]], dir: &[f64; 3]) -> Option<(usize, usize)> {
    for (f, (n, _)) in faces.iter().enumerate() {
        if dot3(dir, n) <= MINVAL {
            continue;
        }
        if let Some(e) = edges.iter().position(|e| dot3(n, e).abs() < EDGE_TOL) {
            return Some((f, e));
        }
    }
    None
}

/// Work buffers of [`multicontact`], kept from call to call so that it allocates nothing once
/// they have grown (see `super::Scratch`).
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    /// Candidate face normals (with face ids) of geom 1 and geom 2.
    n1: Vec<([f64; 3], usize)>,
    n2: Vec<([f64; 3], usize)>,
    /// World vertices of the faces clipped.
    face1: Vec<[f64; 3]>,
    face2: Vec<[f64; 3]>,
    /// Candidate edges.
    edges: EdgeList,
    /// The clipper's own.
    clip: Clip,
}

/// Work buffers of [`polygon_clip`]: side planes, the polygon and its next cut.
#[derive(Debug, Default)]
struct Clip {
    planes: Vec<[f64; 3]>,
    poly: Vec<[f64; 3]>,
    next: Vec<[f64; 3]>,
}

/// Replace the single contact in `st` (witnesses `x1[0]`, `x2[0]`, distance `dist[0]`, margins
/// already added) by the contacts of the touching features; returns the new contact count
/// (1 when the features do not touch along a face).
///
/// Algorithm (MuJoCo 4.0.0):
/// 1. The distinct feature vertices give each shape's feature dimension (vertex, edge, face)
///    and the normals of the faces containing it ([`face_normals`]).
/// 2. Of the face pairs facing each other along the contact direction (`dir . n1 < -t`,
///    `dir . n2 > t`, `t = 0.0888 |dir|`), take the most anti-parallel one with
///    `n1 . n2 < -0.996`.
/// 3. Otherwise look for an edge of one shape within 0.0888 of a face of the other (facing the
///    first shape): the shape with the smaller feature first (geom 2's edge if geom 1 has no
///    faces), then the other. MuJoCo 4.0.0 tries both sides; 3.17 gave up after the first.
/// 4. Clip ([`polygon_clip`]) and add the margins back along the face normal.
pub(crate) fn multicontact(
    st: &mut Status,
    o1: &ConvexObj,
    o2: &ConvexObj,
    f1: &Features,
    f2: &Features,
    max_contacts: usize,
    buf: &mut Buffers,
) -> usize {
    let Buffers { n1, n2, face1, face2, edges, clip } = buf;
    let (plane1, plane2) = (o1.ty == GeomType::Plane, o2.ty == GeomType::Plane);
    if (!plane1 && f1.n == 0) || (!plane2 && f2.n == 0) {
        return 1;
    }
    let d1 = o1.hull.zip(o1.data.as_ref());
    let d2 = o2.hull.zip(o2.data.as_ref());
    let tab1 = d1.map(|(h, d)| d.polygons(h));
    let tab2 = d2.map(|(h, d)| d.polygons(h));
    let no_polys = |o: &ConvexObj, t: Option<&super::polygon::HullPolygons>| {
        o.ty == GeomType::Mesh && t.is_none_or(|t| t.polys.is_empty())
    };
    if no_polys(o1, tab1) || no_polys(o2, tab2) {
        return 1;
    }

    // a plane (MuJoCo 4.0.0, the speculative stage's only caller with one) has no features: its
    // one face is its z axis through its position, and the direction is fixed by that axis
    let (v1i, mut v1, dim1) = if plane1 { ([0; 3], [[0.0; 3]; 3], 3) } else { f1.distinct() };
    let (v2i, mut v2, dim2) = if plane2 { ([0; 3], [[0.0; 3]; 3], 3) } else { f2.distinct() };
    let zaxis = |o: &ConvexObj| [o.mat[2], o.mat[5], o.mat[8]];
    let (dir, dir_neg) = if plane1 {
        let z = zaxis(o1);
        ([-z[0], -z[1], -z[2]], z)
    } else if plane2 {
        let z = zaxis(o2);
        (z, [-z[0], -z[1], -z[2]])
    } else {
        (sub3(&st.x2[0], &st.x1[0]), sub3(&st.x1[0], &st.x2[0]))
    };
    if plane1 {
        n1.clear();
        n1.push((zaxis(o1), 0));
    } else {
        face_normals(o1, tab1, dim1, &v1i, &dir_neg, n1);
    }
    if plane2 {
        n2.clear();
        n2.push((zaxis(o2), 0));
    } else {
        face_normals(o2, tab2, dim2, &v2i, &dir, n2);
    }
    let faces = |o: &ConvexObj, t, idx, out: &mut Vec<[f64; 3]>| {
        if o.ty == GeomType::Plane {
            out.clear();
            out.push(o.pos);
        } else {
            face_vertices(o, t, idx, out)
        }
    };

    // 2. the most anti-parallel pair of faces that face each other
    let mut pairing = None;
    if !n1.is_empty() && !n2.is_empty() {
        let thr = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt() * EDGE_TOL;
        // with a plane any anti-parallel pair qualifies
        let mut best = if plane1 || plane2 { -0.0 } else { -FACE_TOL };
        for (i, a) in n1.iter().enumerate() {
            if dot3(&dir, &a.0) >= -thr {
                continue;
            }
            for (j, b) in n2.iter().enumerate() {
                if thr >= dot3(&dir, &b.0) {
                    continue;
                }
                let d = dot3(&a.0, &b.0);
                if best > d {
                    best = d;
                    pairing = Some(Pairing::Faces(i, j));
                }
            }
        }
    }

    // 3. an edge of one shape lying in a face of the other
    let mut edge = ([0.0; 3], [0.0; 3]);
    if pairing.is_none() {
        let edge1_ok = dim1 != 3 && !n2.is_empty();
        let edge2_ok = dim2 != 3 && !n1.is_empty();
        let prefer2 = edge2_ok && (n2.is_empty() || dim2 < dim1);
        let order = if prefer2 { [2, 1] } else { [1, 2] };
        for side in order {
            if side == 1 && edge1_ok {
                edge_normals(o1, tab1, dim1, &mut v1, &v1i, &st.x1[0], edges);
                if let Some((f, k)) = edge_in_face(n2, &edges.dirs, &dir) {
                    edge = (v1[0], edges.ends[k]);
                    pairing = Some(Pairing::Edge1(k, f));
                    break;
                }
            } else if side == 2 && edge2_ok {
                edge_normals(o2, tab2, dim2, &mut v2, &v2i, &st.x2[0], edges);
                if let Some((f, k)) = edge_in_face(n1, &edges.dirs, &dir_neg) {
                    edge = (v2[0], edges.ends[k]);
                    pairing = Some(Pairing::Edge2(k, f));
                    break;
                }
            }
        }
    }
    let Some(pairing) = pairing else { return 1 };

    // 4. clip, with the half margins of the shapes whose faces are clipped (a capsule's edge
    // line already lies on its inflated surface)
    let half = |o: &ConvexObj| if o.ty == GeomType::Capsule { 0.0 } else { 0.5 * o.margin };
    let (m1, m2) = (half(o1), half(o2));
    let margin = m1 + m2;
    let neg = |n: &[f64; 3]| [-n[0], -n[1], -n[2]];
    let (k, idir) = match pairing {
        // a plane's one-point face is the clipping face: the other shape's face is only pruned
        // by its height over the plane, as an edge lying in a face is (MuJoCo 4.0.0)
        Pairing::Faces(i, j) if plane1 => {
            face_vertices(o2, tab2, n2[j].1, face2);
            let wit = neg(&n1[i].0);
            let (xa, xb) = (&mut st.x1, &mut st.x2);
            let k = polygon_clip(xa, xb, &mut st.dist, max_contacts, &[o1.pos], face2, &n1[i].0, &wit, margin, clip);
            (k, n1[i].0)
        }
        Pairing::Faces(i, j) if plane2 => {
            face_vertices(o1, tab1, n1[i].1, face1);
            let wit = neg(&n2[j].0);
            let (xa, xb) = (&mut st.x2, &mut st.x1);
            let k = polygon_clip(xa, xb, &mut st.dist, max_contacts, &[o2.pos], face1, &n2[j].0, &wit, margin, clip);
            (k, wit)
        }
        Pairing::Faces(i, j) => {
            face_vertices(o1, tab1, n1[i].1, face1);
            face_vertices(o2, tab2, n2[j].1, face2);
            let (xa, xb) = (&mut st.x1, &mut st.x2);
            let k = polygon_clip(xa, xb, &mut st.dist, max_contacts, face1, face2, &n1[i].0, &n2[j].0, margin, clip);
            (k, neg(&n2[j].0))
        }
        Pairing::Edge1(_, f) => {
            // the face of geom 2 clips the edge; the witnesses come out on geom 2's side first
            faces(o2, tab2, n2[f].1, face2);
            let wit = neg(&n2[f].0);
            let (xa, xb) = (&mut st.x2, &mut st.x1);
            let e = [edge.0, edge.1];
            let k = polygon_clip(xa, xb, &mut st.dist, max_contacts, face2, &e, &n2[f].0, &wit, margin, clip);
            (k, wit)
        }
        Pairing::Edge2(_, f) => {
            faces(o1, tab1, n1[f].1, face1);
            let wit = neg(&n1[f].0);
            let (xa, xb) = (&mut st.x1, &mut st.x2);
            let e = [edge.0, edge.1];
            let k = polygon_clip(xa, xb, &mut st.dist, max_contacts, face1, &e, &n1[f].0, &wit, margin, clip);
            (k, n1[f].0)
        }
    };
    if k == 0 {
        return 1;
    }
    inflate_along(st, k, m1, m2, &idir);
    k
}

/// Move the first `n` witness pairs outward by the half margins `m1`, `m2` along the unit
/// direction `dir` (from geom 1 towards geom 2) and deepen their distances accordingly.
pub(crate) fn inflate_along(st: &mut Status, n: usize, m1: f64, m2: f64, dir: &[f64; 3]) {
    if m1 == 0.0 && m2 == 0.0 {
        return;
    }
    for i in 0..n {
        if m1 != 0.0 {
            for (x, d) in st.x1[i].iter_mut().zip(dir) {
                *x += m1 * d;
            }
        }
        if m2 != 0.0 {
            for (x, d) in st.x2[i].iter_mut().zip(dir) {
                *x += (-m2) * d;
            }
        }
        st.dist[i] -= m1 + m2;
    }
}

/// Clip polygon (or edge) `face2` against the prism over the clipping face `face1` (outward
/// normal `n`), keep the points at most `margin` in front of `face1`, and write them as witness
/// pairs: `xa` on `face1`'s plane, `xb` displaced from it along `wit`, `dist` the signed length.
/// Returns how many pairs were written (0: nothing to clip or nothing left).
///
/// Algorithm (Sutherland-Hodgman): each edge of `face1` with `n` spans a plane; the polygon is
/// cut by each plane in turn, keeping the inner side and the crossing points. MuJoCo 4.0.0
/// measures the crossing from the signed heights `dP`, `dQ` of the segment ends
/// (`t = dP / (dP - dQ)`; 3.17 used the plane offset instead). More than four points (when at
/// most four contacts are wanted) are pruned to a quad of maximal area; an edge keeps its two
/// farthest points; otherwise the first `max_contacts` points are kept.
#[allow(clippy::too_many_arguments)]
fn polygon_clip(
    xa: &mut [[f64; 3]],
    xb: &mut [[f64; 3]],
    dist: &mut [f64],
    max_contacts: usize,
    face1: &[[f64; 3]],
    face2: &[[f64; 3]],
    n: &[f64; 3],
    wit: &[f64; 3],
    margin: f64,
    buf: &mut Clip,
) -> usize {
    let Clip { planes: pn, poly, next } = buf;
    let nf1 = face1.len();
    // a plane's "face" is its one point: nothing clips the other polygon, which is only pruned
    // by its height over the plane (MuJoCo 4.0.0's `polygonClip` with no clipping vertices)
    let clips = nf1 != 1;
    if clips && nf1 < 3 {
        return 0;
    }
    // side planes: through each edge of face1, containing the normal, pointing inward
    pn.clear();
    pn.extend((0..if clips { nf1 } else { 0 }).map(|i| {
        let (a, b) = (&face1[i], &face1[(i + 1) % nf1]);
        let up = [a[0] + n[0], a[1] + n[1], a[2] + n[2]];
        let mut p = cross(&sub3(b, a), &sub3(&up, a));
        normalize3(&mut p);
        p
    }));

    poly.clear();
    poly.extend_from_slice(face2);
    for (a, pe) in face1.iter().zip(pn.iter()) {
        let height = |p: &[f64; 3]| ((p[0] - a[0]) * pe[0] + (p[1] - a[1]) * pe[1]) + (p[2] - a[2]) * pe[2];
        next.clear();
        let np = poly.len();
        for i in 0..np {
            let (p, q) = (poly[i], poly[if i + 1 < np { i + 1 } else { 0 }]);
            let (dp, dq) = (height(&p), height(&q));
            let (in1, in2) = (dp > -MINVAL, dq > -MINVAL);
            if !in1 && !in2 {
                continue;
            }
            if in1 && in2 {
                next.push(q);
                continue;
            }
            let denom = dp - dq;
            if denom != 0.0 {
                let t = dp / denom;
                if (0.0..=1.0).contains(&t) {
                    let pq = sub3(&q, &p);
                    next.push([t * pq[0] + p[0], t * pq[1] + p[1], t * pq[2] + p[2]]);
                }
            }
            if in2 {
                next.push(q);
            }
        }
        std::mem::swap(poly, next);
    }

    // only points behind face1 (or in front of it within the margin) touch
    poly.retain(|p| dot3(&sub3(p, &face1[0]), n) <= margin);
    if poly.is_empty() {
        return 0;
    }
    let room = xa.len();
    let mut write = |k: usize, v: &[f64; 3]| {
        // the point projected onto face1's plane, and its partner along `wit`
        let h = dot3(&sub3(v, &face1[0]), n);
        let a = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
        let e = dot3(&sub3(&a, v), wit);
        xa[k] = a;
        xb[k] = [a[0] - e * wit[0], a[1] - e * wit[1], a[2] - e * wit[2]];
        dist[k] = e;
    };
    if max_contacts < 5 && poly.len() >= 5 {
        for (k, &i) in polygon_quad(poly).iter().enumerate() {
            write(k, &poly[i]);
        }
        return 4;
    }
    if face2.len() == 2 && poly.len() >= 3 {
        // an edge touches at its two ends: keep the farthest pair (first on ties)
        let (mut b1, mut b2, mut best) = (0, 1, 0.0);
        for i in 0..poly.len() {
            for j in i + 1..poly.len() {
                let d = sub3(&poly[j], &poly[i]);
                let d2 = dot3(&d, &d);
                if d2 > best {
                    best = d2;
                    b1 = i;
                    b2 = j;
                }
            }
        }
        write(0, &poly[b1]);
        write(1, &poly[b2]);
        return 2;
    }
    let k = poly.len().min(max_contacts).min(room);
    for (i, v) in poly.iter().take(k).enumerate() {
        write(i, v);
    }
    k
}
