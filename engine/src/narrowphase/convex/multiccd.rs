//! Extra contacts for flat convex pairs.
//!
//! Two mechanisms, as in MuJoCo 4.0.0:
//! - [`perturbed_contacts`] (`mjc_Convex`): after one contact is found, tilt geom 1 by +-1e-3 rad
//!   about each tangent axis of the contact frame (and geom 2 by the inverse rotation), both about
//!   the contact point, and re-run CCD. Each new contact point that is not within
//!   `1e-3 * min(rbound)` of an earlier one is kept, with the depth of the first contact.
//! - [`multicontact`] (`multicontact` in `engine_collision_gjk.c`): for box/mesh pairs without
//!   margin, the features (face, edge or vertex) of both shapes touching the EPA face are found;
//!   when two faces are nearly parallel (or a face and an edge), one is clipped against the other
//!   and the clipped vertices become contacts (pruned to four by maximal area).

use super::gjk::Status;
use super::polygon::{polygon_quad, HullData};
use super::support::{to_global, ConvexObj};
use super::{epa::Polytope, perturb_tolerance, PERTURB_ANGLE};
use crate::math::{
    add_scl3, axis_angle2quat, cross, dist3, dot3, mul_mat_mat3, mul_mat_t_vec3, mul_mat_vec3, norm3, normalize3,
    quat2mat, scl3, sub3, transpose3,
};
use crate::narrowphase::{ContactPoint, ConvexHull, Geom, GeomType, MAX_CONTACTS};
use std::rc::Rc;

/// Two face normals are "facing" when their dot product is below `-FACE_TOL` (about 5.1 deg).
const FACE_TOL: f64 = 0.996;
/// An edge lies in a face when |edge . normal| is below this (about 5.1 deg).
const EDGE_TOL: f64 = 0.0888;
/// Smallest value allowed in a denominator (`mjMINVAL`).
const MINVAL: f64 = 1e-15;
/// Sides of the polygon standing in for a cylinder cap.
const CYL_SIDES: usize = 16;
/// Contacts kept from a clipped polygon (MuJoCo's per-pass cap for box/mesh pairs).
const MAX_CLIP_CONTACTS: usize = 4;

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

/// A box or mesh seen as a polytope with faces, for feature matching.
enum Solid<'a> {
    /// Box half-sizes and pose.
    Box { size: [f64; 3], pos: [f64; 3], mat: [f64; 9] },
    /// Cylinder (radius, half-height) whose caps are treated as regular polygons.
    Cylinder { size: [f64; 3], pos: [f64; 3], mat: [f64; 9] },
    /// Hull with its polygons and, per vertex, the polygons through it.
    Mesh { hull: &'a ConvexHull, data: Rc<HullData>, pos: [f64; 3], mat: [f64; 9] },
}

impl<'a> Solid<'a> {
    /// Wrap a box, cylinder or mesh object; for meshes only the polygons through the hull
    /// vertices `through` are built. `None` for other shapes or meshes without faces.
    fn new(o: &ConvexObj<'a>, through: &[i32]) -> Option<Self> {
        match o.ty {
            GeomType::Box => Some(Solid::Box { size: o.size, pos: o.pos, mat: o.mat }),
            GeomType::Cylinder => Some(Solid::Cylinder { size: o.size, pos: o.pos, mat: o.mat }),
            GeomType::Mesh => {
                let hull = o.hull?;
                // the hull's full polygon table: every lookup below goes through the vertices
                // in `through`, whose polygons keep their relative order in the full table
                let data = o.data.clone()?;
                let tab = data.polygons(hull);
                let mut ids = [0usize; 3];
                let mut n = 0;
                for &v in through.iter().filter(|&&v| v >= 0).take(3) {
                    ids[n] = v as usize;
                    n += 1;
                }
                if !tab.touches(&ids[..n]) {
                    return None;
                }
                Some(Solid::Mesh { hull, data, pos: o.pos, mat: o.mat })
            }
            _ => None,
        }
    }

    /// World normals (and face ids) of the faces that may contain the feature spanned by the
    /// `dim` distinct vertex ids in `vi`; `dir` helps when a box feature is ambiguous.
    fn normals(&self, dim: usize, vi: &[i32; 3], dir: &[f64; 3]) -> Vec<([f64; 3], usize)> {
        match self {
            Solid::Box { mat, .. } => box_normals(mat, dim, vi, dir),
            Solid::Cylinder { mat, .. } => {
                // a cap, when the contact direction is within FACE_TOL of the axis
                let mut l = mul_mat_t_vec3(mat, dir);
                normalize3(&mut l);
                if l[2] > FACE_TOL {
                    vec![(mul_mat_vec3(mat, &[0.0, 0.0, 1.0]), 0)]
                } else if l[2] < -FACE_TOL {
                    vec![(mul_mat_vec3(mat, &[0.0, 0.0, -1.0]), 1)]
                } else {
                    Vec::new()
                }
            }
            Solid::Mesh { hull, data, mat, .. } => {
                let tab = data.polygons(hull);
                let (polys, polymap) = (&tab.polys, &tab.polymap);
                let map = |v: i32| polymap.get(v as usize).map(Vec::as_slice).unwrap_or(&[]);
                let ids: Vec<usize> = match dim {
                    3 => {
                        let e = common(map(vi[0]), map(vi[1]));
                        common(&e, map(vi[2])).into_iter().take(1).collect()
                    }
                    2 => common(map(vi[0]), map(vi[1])),
                    1 => map(vi[0]).to_vec(),
                    _ => Vec::new(),
                };
                ids.into_iter().map(|f| (mul_mat_vec3(mat, &polys[f].normal), f)).collect()
            }
        }
    }

    /// Candidate edges at the feature as (unit direction, start, end): the edge itself when
    /// `dim == 2`, every hull edge arriving at the vertex when `dim == 1`; for a cylinder, the
    /// side line through the support point, from cap to cap.
    fn edge_normals(&self, dim: usize, v: &[[f64; 3]; 3], v1i: i32) -> Vec<([f64; 3], [f64; 3], [f64; 3])> {
        let edge = |end: [f64; 3]| {
            let mut d = sub3(&end, &v[0]);
            normalize3(&mut d);
            (d, v[0], end)
        };
        if let Solid::Cylinder { size, pos, mat } = self {
            // the rim point below the (possibly margin-inflated) support point
            let l = mul_mat_t_vec3(mat, &sub3(&v[0], pos));
            let rxy = (l[0] * l[0] + l[1] * l[1]).sqrt();
            let s = if rxy > MINVAL { size[0] / rxy } else { 0.0 };
            let bottom = to_global(mat, pos, &[l[0] * s, l[1] * s, -size[1]]);
            let top = to_global(mat, pos, &[l[0] * s, l[1] * s, size[1]]);
            return vec![(mul_mat_vec3(mat, &[0.0, 0.0, 1.0]), bottom, top)];
        }
        if dim == 2 {
            return vec![edge(v[1])];
        }
        if dim != 1 {
            return Vec::new();
        }
        match self {
            Solid::Cylinder { .. } => Vec::new(),
            Solid::Box { size, pos, mat } => {
                let s = |bit: i32, h: f64| if v1i & bit != 0 { h } else { -h };
                let (x, y, z) = (s(1, size[0]), s(2, size[1]), s(4, size[2]));
                [[-x, y, z], [x, -y, z], [x, y, -z]].iter().map(|l| edge(to_global(mat, pos, l))).collect()
            }
            Solid::Mesh { hull, data, pos, mat } => {
                let tab = data.polygons(hull);
                let (polys, polymap) = (&tab.polys, &tab.polymap);
                let v1 = v1i as usize;
                let mut out = Vec::new();
                for &f in polymap.get(v1).map(Vec::as_slice).unwrap_or(&[]) {
                    let loop_ = &polys[f].verts;
                    if let Some(j) = loop_.iter().position(|&u| u == v1) {
                        // the edge arriving at v1 along the face's counter-clockwise loop
                        let k = if j == 0 { loop_.len() - 1 } else { j - 1 };
                        out.push(edge(to_global(mat, pos, &hull.vert[loop_[k]])));
                    }
                }
                out
            }
        }
    }

    /// World vertices of face `idx`, clockwise about its outward normal.
    fn face(&self, idx: usize) -> Vec<[f64; 3]> {
        match self {
            Solid::Box { size, pos, mat } => {
                // sign patterns of the four corners of each face, in MuJoCo's order
                const F: [[[f64; 3]; 4]; 6] = [
                    [[1., 1., 1.], [1., 1., -1.], [1., -1., -1.], [1., -1., 1.]],
                    [[-1., 1., -1.], [-1., 1., 1.], [-1., -1., 1.], [-1., -1., -1.]],
                    [[-1., 1., -1.], [1., 1., -1.], [1., 1., 1.], [-1., 1., 1.]],
                    [[-1., -1., 1.], [1., -1., 1.], [1., -1., -1.], [-1., -1., -1.]],
                    [[-1., 1., 1.], [1., 1., 1.], [1., -1., 1.], [-1., -1., 1.]],
                    [[1., 1., -1.], [-1., 1., -1.], [-1., -1., -1.], [1., -1., -1.]],
                ];
                F.get(idx)
                    .map(|f| {
                        f.iter()
                            .map(|s| to_global(mat, pos, &[s[0] * size[0], s[1] * size[1], s[2] * size[2]]))
                            .collect()
                    })
                    .unwrap_or_default()
            }
            Solid::Cylinder { size, pos, mat } => {
                // cap polygon, clockwise about the cap's outward normal, from angle 0; ids 2
                // and 3 are the same caps counter-clockwise from 247.5 deg (used when the cap is
                // the clipped polygon, see `multicontact`)
                let step = 2.0 * std::f64::consts::PI / CYL_SIDES as f64;
                let (z, sgn, k0) = match idx {
                    0 => (size[1], -1.0, 0),
                    1 => (-size[1], 1.0, 0),
                    2 => (size[1], 1.0, 11),
                    _ => (-size[1], -1.0, 11),
                };
                (0..CYL_SIDES)
                    .map(|k| {
                        let a = ((k0 as f64) + sgn * (k as f64)) * step;
                        to_global(mat, pos, &[size[0] * a.cos(), size[0] * a.sin(), z])
                    })
                    .collect()
            }
            Solid::Mesh { hull, data, pos, mat } => {
                data.polygons(hull).polys[idx].verts.iter().rev().map(|&v| to_global(mat, pos, &hull.vert[v])).collect()
            }
        }
    }
}

/// World position of a box corner (bits +x=1, +y=2, +z=4) or hull vertex, without margin.
fn bare_vertex(o: &ConvexObj, id: i32) -> Option<[f64; 3]> {
    if id < 0 {
        return None;
    }
    match o.ty {
        GeomType::Box => {
            let s = |bit: i32, h: f64| if id & bit != 0 { h } else { -h };
            Some(to_global(&o.mat, &o.pos, &[s(1, o.size[0]), s(2, o.size[1]), s(4, o.size[2])]))
        }
        GeomType::Mesh => o.hull?.vert.get(id as usize).map(|v| to_global(&o.mat, &o.pos, v)),
        _ => None,
    }
}

/// Up to two values common to both lists, in the order of `a`.
fn common(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    for x in a {
        if b.contains(x) {
            out.push(*x);
            if out.len() == 2 {
                break;
            }
        }
    }
    out
}

/// The box face whose normal is within `FACE_TOL` of `n`, if any.
fn box_face_near(mat: &[f64; 9], n: &[f64; 3]) -> Vec<([f64; 3], usize)> {
    let mut l = mul_mat_t_vec3(mat, n);
    l = scl3(&l, 1.0 / dot3(&l, &l).sqrt());
    // the face normals in MuJoCo's order: +x, -x, +y, -y, +z, -z
    let normals = [[1., 0., 0.], [-1., 0., 0.], [0., 1., 0.], [0., -1., 0.], [0., 0., 1.], [0., 0., -1.]];
    for (i, nn) in normals.iter().enumerate() {
        if dot3(&l, nn) > FACE_TOL {
            return vec![(mul_mat_vec3(mat, nn), i)];
        }
    }
    Vec::new()
}

/// Box faces that may contain the feature spanned by corners `vi` (corner bits: +x=1, +y=2, +z=4).
fn box_normals(mat: &[f64; 9], dim: usize, vi: &[i32; 3], dir: &[f64; 3]) -> Vec<([f64; 3], usize)> {
    // +1 if every corner has the bit, -1 if none has it, else 0
    let shared =
        |bit: i32, vs: &[i32]| (vs.iter().all(|v| v & bit != 0) as i32 - vs.iter().all(|v| v & bit == 0) as i32) as f64;
    let axis_normal = |axis: usize, s: f64| {
        let mut l = [0.0; 3];
        l[axis] = s;
        (mul_mat_vec3(mat, &l), 2 * axis + (s < 0.0) as usize)
    };
    match dim {
        3 | 2 => {
            let vs = &vi[..dim];
            let s = [shared(1, vs), shared(2, vs), shared(4, vs)];
            let out: Vec<_> = (0..3).filter(|&a| s[a] != 0.0).map(|a| axis_normal(a, s[a])).collect();
            let want = if dim == 3 { 1 } else { 2 };
            if out.len() == want {
                out
            } else {
                box_face_near(mat, dir)
            }
        }
        1 => (0..3).map(|a| axis_normal(a, if vi[0] & (1 << a) != 0 { 1.0 } else { -1.0 })).collect(),
        _ => Vec::new(),
    }
}

/// Number of distinct vertices (1-3) among the face's ids, moving them to the front.
fn simplex_dim(vi: &mut [i32; 3], v: &mut [[f64; 3]; 3]) -> usize {
    if vi[0] == vi[1] {
        if vi[0] == vi[2] {
            return 1;
        }
        vi[1] = vi[2];
        v[1] = v[2];
        return 2;
    }
    if vi[2] == vi[0] || vi[2] == vi[1] {
        2
    } else {
        3
    }
}

/// The pair of faces (index into `n1`, index into `n2`) whose normals are most nearly opposed,
/// if any pair is within `FACE_TOL`; faces not facing the other shape along `dir` (from geom 1
/// to geom 2) are skipped.
fn aligned_faces(n1: &[([f64; 3], usize)], n2: &[([f64; 3], usize)], dir: &[f64; 3]) -> Option<(usize, usize)> {
    let dir_tol = EDGE_TOL * norm3(dir);
    let mut best = -FACE_TOL;
    let mut found = None;
    for (i, a) in n1.iter().enumerate() {
        if dot3(&a.0, dir) >= -dir_tol {
            continue;
        }
        for (j, b) in n2.iter().enumerate() {
            if dot3(&b.0, dir) <= dir_tol {
                continue;
            }
            let d = dot3(&a.0, &b.0);
            if d < best {
                best = d;
                found = Some((i, j));
            }
        }
    }
    found
}

/// Replace the single EPA contact in `st` by the clipped contact polygon, when the touching
/// features of two boxes/meshes are parallel faces or an edge lying in a face.
///
/// Returns true if the contacts were replaced. Distances are between the bare faces; the
/// caller accounts for margins.
pub(crate) fn multicontact(pt: &Polytope, face: usize, st: &mut Status, o1: &ConvexObj, o2: &ConvexObj) -> bool {
    // with margins, faces up to the summed half margins apart are in contact
    let keep = 0.5 * o1.margin + 0.5 * o2.margin;
    let fv = pt.faces[face].verts;
    let mut v1i = fv.map(|i| pt.verts[i].index1);
    let mut v2i = fv.map(|i| pt.verts[i].index2);
    let (Some(s1), Some(s2)) = (Solid::new(o1, &v1i), Solid::new(o2, &v2i)) else {
        return false;
    };
    // the polytope stores margin-inflated support points; features need the bare vertices
    let mut v1 = fv.map(|i| bare_vertex(o1, pt.verts[i].index1).unwrap_or(pt.verts[i].vert1));
    let mut v2 = fv.map(|i| bare_vertex(o2, pt.verts[i].index2).unwrap_or(pt.verts[i].vert2));
    let dim1 = simplex_dim(&mut v1i, &mut v1);
    let dim2 = simplex_dim(&mut v2i, &mut v2);

    let dir = sub3(&st.x2[0], &st.x1[0]);
    let dir_neg = sub3(&st.x1[0], &st.x2[0]);
    let n1 = s1.normals(dim1, &v1i, &dir_neg);
    let n2 = s2.normals(dim2, &v2i, &dir);

    // face-face: the first pair of opposed normals
    let faces = aligned_faces(&n1, &n2, &dir);
    if let Some((i, j)) = faces {
        let f1 = s1.face(n1[i].1);
        let f2 = s2.face(n2[j].1);
        if matches!(s1, Solid::Cylinder { .. }) && !matches!(s2, Solid::Cylinder { .. }) {
            // a cylinder cap against a polytope face: MuJoCo 4.0.0 keeps the cap's own vertices
            // and measures depth along the polytope face normal (measured, see the tests)
            let wit = scl3(&n2[j].0, -1.0);
            let f1 = s1.face(n1[i].1 + 2);
            let done = clip(st, &f2, &f1, &n2[j].0, &wit, keep);
            if done {
                for k in 0..st.nx {
                    std::mem::swap(&mut st.x1[k], &mut st.x2[k]);
                }
            }
            return done;
        }
        return clip(st, &f1, &f2, &n1[i].0, &n2[j].0, keep);
    }

    // an edge of one shape lying in a face of the other
    let in_face = |edges: &[([f64; 3], [f64; 3], [f64; 3])], fnorm: &[([f64; 3], usize)], d: &[f64; 3]| {
        fnorm.iter().enumerate().find_map(|(fi, f)| {
            // faces turned away from the other shape cannot hold the edge (MuJoCo 4.0.0)
            if dot3(&f.0, d) <= MINVAL {
                return None;
            }
            edges.iter().position(|e| dot3(&e.0, &f.0).abs() < EDGE_TOL).map(|ei| (ei, fi))
        })
    };
    if dim1 < 3 && dim1 <= dim2 {
        let e1 = s1.edge_normals(dim1, &v1, v1i[0]);
        let Some((ei, fj)) = in_face(&e1, &n2, &dir) else { return false };
        let edge = [e1[ei].1, e1[ei].2];
        let f2 = s2.face(n2[fj].1);
        let wit = scl3(&n2[fj].0, -1.0);
        let done = clip(st, &f2, &edge, &n2[fj].0, &wit, keep);
        // the clip ran with the shapes' roles exchanged
        if done {
            for k in 0..st.nx {
                std::mem::swap(&mut st.x1[k], &mut st.x2[k]);
            }
        }
        done
    } else if dim2 < 3 {
        let e2 = s2.edge_normals(dim2, &v2, v2i[0]);
        let Some((ei, fj)) = in_face(&e2, &n1, &dir_neg) else { return false };
        let edge = [e2[ei].1, e2[ei].2];
        let f1 = s1.face(n1[fj].1);
        let wit = scl3(&n1[fj].0, -1.0);
        clip(st, &f1, &edge, &n1[fj].0, &wit, keep)
    } else {
        false
    }
}

/// Clip polygon (or edge) `subject` against the prism over face `clipper` (outward normal `n`),
/// keep the points behind the face (or in front by at most `keep`, the margins) and write them
/// as witness pairs (`wit` gives the direction
/// from each point to its partner on the clipping face's side).
///
/// Algorithm (Sutherland-Hodgman): for each clipper edge, the plane through it containing `n`
/// splits the current polygon; kept runs are joined by the edge crossings. Points in front of
/// the clipping face are then dropped; more than four are pruned to a maximal-area quad, and an
/// edge keeps only its two extreme points.
fn clip(st: &mut Status, clipper: &[[f64; 3]], subject: &[[f64; 3]], n: &[f64; 3], wit: &[f64; 3], keep: f64) -> bool {
    if clipper.len() < 3 {
        return false;
    }
    let nc = clipper.len();
    let planes: Vec<([f64; 3], f64)> = (0..nc)
        .map(|i| {
            let a = &clipper[i];
            let b = &clipper[(i + 1) % nc];
            let up = [a[0] + n[0], a[1] + n[1], a[2] + n[2]];
            let mut pn = cross(&sub3(b, a), &sub3(&up, a));
            normalize3(&mut pn);
            (pn, dot3(&pn, a))
        })
        .collect();

    let mut poly: Vec<[f64; 3]> = subject.to_vec();
    for (e, (pn, pd)) in planes.iter().enumerate() {
        let a = &clipper[e];
        let inside = |p: &[f64; 3]| dot3(&sub3(p, a), pn) > -MINVAL;
        let mut next = Vec::with_capacity(poly.len() * 2);
        for i in 0..poly.len() {
            let p = poly[i];
            let q = poly[(i + 1) % poly.len()];
            let (in1, in2) = (inside(&p), inside(&q));
            if !in1 && !in2 {
                continue;
            }
            if in1 && in2 {
                next.push(q);
                continue;
            }
            let pq = sub3(&q, &p);
            let den = dot3(pn, &pq);
            if den != 0.0 {
                let t = (pd - dot3(pn, &p)) / den;
                if (0.0..=1.0).contains(&t) {
                    next.push(add_scl3(&p, &pq, t));
                }
            }
            if in2 {
                next.push(q);
            }
        }
        poly = next;
    }

    // only points behind the clipping face are in contact
    poly.retain(|p| dot3(&sub3(p, &clipper[0]), n) <= keep);
    if poly.is_empty() {
        return false;
    }
    let mut write = |k: usize, v: &[f64; 3]| {
        // MuJoCo 4.0.0 projects the clipped point onto the clipping face's plane along that
        // face's normal, measures the distance along `wit` (the other face's normal) and puts
        // the partner there; 3.12 slid the point along `wit` by its height over the plane. The
        // two differ when the faces are not exactly parallel (see `convex_mujoco.rs`,
        // `tilted_faces_project_onto_clipping_face`).
        let h = dot3(&sub3(v, &clipper[0]), n);
        let on_face = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
        let dist = dot3(&sub3(&on_face, v), wit);
        let partner = [on_face[0] - dist * wit[0], on_face[1] - dist * wit[1], on_face[2] - dist * wit[2]];
        // for points in front of the face (separated within the margins) the pair is stored
        // the other way round, so that x1 - x2 keeps pointing from geom 1 to geom 2
        if dist > 0.0 {
            st.x1[k] = partner;
            st.x2[k] = on_face;
        } else {
            st.x1[k] = on_face;
            st.x2[k] = partner;
        }
        st.dist[k] = dist;
    };
    if poly.len() > MAX_CLIP_CONTACTS {
        let q = polygon_quad(&poly);
        for (k, &i) in q.iter().enumerate() {
            write(k, &poly[i]);
        }
        st.nx = 4;
        return true;
    }
    if subject.len() == 2 && poly.len() > 2 {
        // an edge can only touch at its two ends: keep the farthest pair
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
        st.nx = 2;
        return true;
    }
    let m = poly.len().min(MAX_CONTACTS);
    for (k, v) in poly.iter().take(m).enumerate() {
        write(k, v);
    }
    st.nx = m;
    true
}

/// Contacts of a capsule (geom 1, shallow: `st` holds the inflated core witnesses) lying along a
/// face of a box or mesh: the capsule's lowest line, clipped against that face, gives its two
/// ends. `n` points from the capsule core towards geom 2. Returns false (leaving `st`) when the
/// capsule is not within the face and edge tolerances of a face.
pub(crate) fn capsule_contacts(st: &mut Status, o1: &ConvexObj, o2: &ConvexObj, n: &[f64; 3]) -> bool {
    let mut n = *n;
    normalize3(&mut n);
    // the face touching the capsule contains geom 2's support vertex towards the capsule
    let seed = o2.hull.map_or(-1, |h| {
        let l = mul_mat_t_vec3(&o2.mat, &scl3(&n, -1.0));
        let mut best = (0, f64::MIN);
        for (i, v) in h.vert.iter().enumerate() {
            let d = dot3(&l, v);
            if d > best.1 {
                best = (i, d);
            }
        }
        best.0 as i32
    });
    let Some(s2) = Solid::new(o2, &[seed]) else { return false };
    // the face of geom 2 most squarely facing the capsule
    let faces: Vec<([f64; 3], usize)> = match &s2 {
        Solid::Box { mat, .. } => (0..6)
            .map(|i| {
                let mut l = [0.0; 3];
                l[i / 2] = if i % 2 == 0 { 1.0 } else { -1.0 };
                (mul_mat_vec3(mat, &l), i)
            })
            .collect(),
        Solid::Mesh { hull, data, mat, .. } => {
            let tab = data.polygons(hull);
            // the polygons of the groups on the seed vertex, in table order
            let seed = [seed as usize];
            let through = |i: &usize| seed[0] < tab.touched.len() && tab.through(*i, &seed);
            (0..tab.polys.len()).filter(through).map(|i| (mul_mat_vec3(mat, &tab.polys[i].normal), i)).collect()
        }
        Solid::Cylinder { mat, .. } => {
            vec![(mul_mat_vec3(mat, &[0.0, 0.0, 1.0]), 0), (mul_mat_vec3(mat, &[0.0, 0.0, -1.0]), 1)]
        }
    };
    let Some(&(nf, fi)) = faces.iter().fold(None, |acc: Option<&([f64; 3], usize)>, f| match acc {
        Some(b) if -dot3(&b.0, &n) >= -dot3(&f.0, &n) => acc,
        _ => Some(f),
    }) else {
        return false;
    };
    let axis = [o1.mat[2], o1.mat[5], o1.mat[8]];
    if -dot3(&nf, &n) <= FACE_TOL || dot3(&axis, &nf).abs() >= EDGE_TOL {
        return false;
    }
    // the capsule's surface line nearest the face
    let (r, h) = (o1.size[0], o1.size[1]);
    let end = |s: f64| {
        let e = add_scl3(&o1.pos, &axis, s * h);
        add_scl3(&e, &nf, -r)
    };
    let edge = [end(-1.0), end(1.0)];
    let face = s2.face(fi);
    let wit = scl3(&nf, -1.0);
    let keep = 0.5 * o1.margin + 0.5 * o2.margin;
    let done = clip(st, &face, &edge, &nf, &wit, keep);
    if done {
        for k in 0..st.nx {
            std::mem::swap(&mut st.x1[k], &mut st.x2[k]);
        }
    }
    done
}
