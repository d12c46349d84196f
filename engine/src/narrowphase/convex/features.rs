//! Features of one object for multi-contact: the face normals, edge directions and face polygons
//! around the vertices it contributed to the last GJK simplex or EPA face.
//!
//! Everything here follows MuJoCo 4.0.0's multi-contact (read from the released library and
//! confirmed bit for bit against it on near-aligned poses of every box/mesh/cylinder/capsule
//! pair, with and without margins). The arithmetic is written in the order MuJoCo evaluates it
//! (dot products summed left to right, `mat * p` summed before adding the position), because
//! the clipped contacts inherit every rounding.

use super::gjk::{Status, Vertex};
use super::polygon::HullPolygons;
use super::support::{to_global, to_local, ConvexObj};
use crate::math::{dot3, mul_mat_vec3, normalize3, sub3};
use crate::narrowphase::GeomType;

/// Two faces count as facing each other when their normals' dot product is below `-FACE_TOL`.
pub(crate) const FACE_TOL: f64 = 0.996;
/// An edge lies in a face when `|edge . normal|` is below this.
pub(crate) const EDGE_TOL: f64 = 0.0888;

/// A cylinder cap is clipped as a 16-gon. MuJoCo 4.0.0 takes the corners' cosines and sines from
/// a table of 15-significant-digit constants (not the correctly rounded values; note the 547/548
/// endings), found in the library's read-only data; the exact contact positions depend on them.
#[allow(clippy::approx_constant)] // deliberately MuJoCo's truncated values, not `FRAC_1_SQRT_2`
const COS16: [f64; 16] = [
    1.0,
    0.923879532511287,
    0.707106781186548,
    0.38268343236509,
    0.0,
    -0.38268343236509,
    -0.707106781186547,
    -0.923879532511287,
    -1.0,
    -0.923879532511287,
    -0.707106781186548,
    -0.38268343236509,
    0.0,
    0.38268343236509,
    0.707106781186547,
    0.923879532511287,
];
/// Sines of the 16-gon corners: the cosine table shifted by a quarter turn (the same constants).
const SIN16: [f64; 16] = {
    let mut s = [0.0; 16];
    let mut k = 0;
    while k < 16 {
        s[k] = COS16[(k + 12) % 16];
        k += 1;
    }
    s
};

/// The support points (and their vertex ids) one object contributed to the last GJK simplex or
/// EPA face.
///
/// MuJoCo 4.0.0 keeps these per object: GJK leaves its final simplex there, and EPA, when it
/// finds a face, overwrites them with that face's three vertices. Multi-contact therefore works
/// from the EPA face for penetrating shapes and from the GJK simplex for shapes that only touch
/// once radii or margins are added back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Features {
    /// Support points (including the margin inflation the support query added).
    pub v: [[f64; 3]; 4],
    /// Vertex ids (box corner bits, hull vertex, cylinder cap 0 top / 1 bottom, -1 for none).
    pub i: [i32; 4],
    /// How many are set.
    pub n: usize,
}

impl Features {
    /// Both objects' sides of a list of Minkowski vertices.
    fn of(verts: &[Vertex]) -> (Features, Features) {
        let mut f1 = Features { n: verts.len(), ..Features::default() };
        let mut f2 = f1;
        for (k, v) in verts.iter().enumerate() {
            f1.v[k] = v.vert1;
            f1.i[k] = v.index1;
            f2.v[k] = v.vert2;
            f2.i[k] = v.index2;
        }
        (f1, f2)
    }

    /// A single support point (what a distance query against a plane leaves on the other
    /// shape).
    pub fn single(v: [f64; 3], i: i32) -> Features {
        let mut f = Features { n: 1, ..Features::default() };
        f.v[0] = v;
        f.i[0] = i;
        f
    }

    /// The final GJK simplex.
    pub fn from_simplex(st: &Status) -> (Features, Features) {
        Features::of(&st.simplex[..st.nsimplex.min(4)])
    }

    /// The final EPA face, in the face's vertex order.
    pub fn from_face(verts: [Vertex; 3]) -> (Features, Features) {
        Features::of(&verts)
    }

    /// The (up to three) distinct feature vertices: ids and points with duplicates moved to the
    /// back, and how many are distinct (1 vertex, 2 edge, 3 face).
    pub fn distinct(&self) -> ([i32; 3], [[f64; 3]; 3], usize) {
        // the first, second (if any) and third (if any, else the first again) entries
        let s = (self.n != 1) as usize;
        let t = if self.n >= 3 { 2 } else { 0 };
        let mut vi = [self.i[0], self.i[s], self.i[t]];
        let mut v = [self.v[0], self.v[s], self.v[t]];
        let dim = if vi[0] == vi[1] {
            if vi[0] == vi[2] {
                1
            } else {
                vi[1] = vi[2];
                v[1] = v[2];
                2
            }
        } else if vi[2] == vi[0] || vi[2] == vi[1] {
            2
        } else {
            3
        };
        (vi, v, dim)
    }
}

/// `mat * l` (a local direction in world coordinates).
fn rot(mat: &[f64; 9], l: [f64; 3]) -> [f64; 3] {
    mul_mat_vec3(mat, &l)
}

/// World normals of the faces (with their face ids) that may contain an object's feature of
/// dimension `dim` with vertex ids `vi`. `dir` (pointing away from the other object) settles
/// ambiguous box features. Capsules and spheres have no faces; a cylinder has its cap only when
/// the feature is a single vertex. Written to `out` (cleared first).
pub(crate) fn face_normals(
    o: &ConvexObj,
    tab: Option<&HullPolygons>,
    dim: usize,
    vi: &[i32; 3],
    dir: &[f64; 3],
    out: &mut Vec<([f64; 3], usize)>,
) {
    out.clear();
    match o.ty {
        GeomType::Box => box_normals(&o.mat, dim, vi, dir, out),
        GeomType::Mesh => {
            if let Some(t) = tab {
                mesh_normals(&o.mat, t, dim, vi, out)
            }
        }
        GeomType::Cylinder if dim == 1 => {
            // the cap the vertex lies on (id 0 top, 1 bottom); the zero terms are kept because
            // they decide the sign of a zero component, as in MuJoCo's product
            let m = &o.mat;
            let s = if vi[0] == 0 { 1.0 } else { -1.0 };
            let n = [
                (0.0 * m[0] + 0.0 * m[1]) + s * m[2],
                (0.0 * m[3] + 0.0 * m[4]) + s * m[5],
                (0.0 * m[6] + 0.0 * m[7]) + s * m[8],
            ];
            out.push((n, vi[0].max(0) as usize))
        }
        _ => {}
    }
}

/// The box face whose normal is within `FACE_TOL` of `n`, if any (first in the order +x, -x,
/// +y, -y, +z, -z).
fn box_face_near(mat: &[f64; 9], n: &[f64; 3], out: &mut Vec<([f64; 3], usize)>) {
    let l = to_local(mat, n);
    let inv = 1.0 / dot3(&l, &l).sqrt();
    let l = [l[0] * inv, l[1] * inv, l[2] * inv];
    const NORMALS: [[f64; 3]; 6] =
        [[1., 0., 0.], [-1., 0., 0.], [0., 1., 0.], [0., -1., 0.], [0., 0., 1.], [0., 0., -1.]];
    for (i, nn) in NORMALS.iter().enumerate() {
        if dot3(&l, nn) > FACE_TOL {
            out.push((rot(mat, *nn), i));
            return;
        }
    }
}

/// Box faces containing the feature spanned by corners `vi` (corner bits: +x=1, +y=2, +z=4).
fn box_normals(mat: &[f64; 9], dim: usize, vi: &[i32; 3], dir: &[f64; 3], out: &mut Vec<([f64; 3], usize)>) {
    // +1 if every corner has the bit, -1 if none has it, else 0
    let shared =
        |bit: i32, vs: &[i32]| (vs.iter().all(|v| v & bit != 0) as i32 - vs.iter().all(|v| v & bit == 0) as i32) as f64;
    match dim {
        3 => {
            let vs = &vi[..3];
            let (x, y, z) = (shared(1, vs), shared(2, vs), shared(4, vs));
            let mut axes = [x, y, z].into_iter().enumerate().filter(|(_, s)| *s != 0.0).map(|(a, _)| a);
            let (Some(axis), None) = (axes.next(), axes.next()) else { return box_face_near(mat, dir, out) };
            let neg = (x + y + z) < 0.0;
            out.push((rot(mat, [x, y, z]), 2 * axis + neg as usize))
        }
        2 => {
            // MuJoCo 4.0.0 lists every face shared by the edge's two corners (one or two) and
            // falls back to the face along `dir` only when there is none (3.17 required two and
            // wrote the z normal to the second slot regardless)
            let vs = &vi[..2];
            let s = [shared(1, vs), shared(2, vs), shared(4, vs)];
            for (a, &sa) in s.iter().enumerate() {
                if sa != 0.0 {
                    let mut l = [0.0; 3];
                    l[a] = sa;
                    out.push((rot(mat, l), 2 * a + (sa < 0.0) as usize));
                }
            }
            if out.is_empty() {
                box_face_near(mat, dir, out)
            }
        }
        1 => out.extend((0..3).map(|a| {
            let s = if vi[0] & (1 << a) != 0 { 1.0 } else { -1.0 };
            let mut l = [0.0; 3];
            l[a] = s;
            (rot(mat, l), 2 * a + (s < 0.0) as usize)
        })),
        _ => {}
    }
}

/// Up to two entries common to both lists, in the order of `a` (the array and how many).
fn common(a: &[usize], b: &[usize]) -> ([usize; 2], usize) {
    let mut out = ([0; 2], 0);
    for x in a {
        for y in b {
            if x == y {
                out.0[out.1] = *x;
                out.1 += 1;
                if out.1 == 2 {
                    return out;
                }
            }
        }
    }
    out
}

/// Hull polygons containing the feature: the first polygon shared by all three vertices, the
/// (up to two) polygons on an edge, or every polygon through a vertex.
fn mesh_normals(mat: &[f64; 9], tab: &HullPolygons, dim: usize, vi: &[i32; 3], out: &mut Vec<([f64; 3], usize)>) {
    let map = |v: i32| tab.polymap.get(v as usize).map(Vec::as_slice).unwrap_or(&[]);
    let (pair, one);
    let ids: &[usize] = match dim {
        3 => {
            let e = common(map(vi[0]), map(vi[1]));
            one = common(&e.0[..e.1], map(vi[2]));
            &one.0[..one.1.min(1)]
        }
        2 => {
            pair = common(map(vi[0]), map(vi[1]));
            &pair.0[..pair.1]
        }
        1 => map(vi[0]),
        _ => &[],
    };
    out.extend(ids.iter().map(|&f| (rot(mat, tab.polys[f].normal), f)));
}

/// Candidate edges: unit directions and end points (buffers kept between calls).
#[derive(Debug, Default)]
pub(crate) struct EdgeList {
    /// Unit directions.
    pub dirs: Vec<[f64; 3]>,
    /// End points.
    pub ends: Vec<[f64; 3]>,
}

/// Candidate edges at an object's feature: unit directions `E` and end points, starting at
/// `v[0]` (which is recomputed here, so it is the bare shape's point).
///
/// - box, mesh: the edge itself when `dim == 2`; otherwise every edge leaving the vertex (the
///   three box edges; for a mesh, per polygon through the vertex, the edge to the previous
///   polygon vertex);
/// - cylinder: the side line from the feature's rim point to the other cap (the point is moved
///   onto the rim first when the cylinder has a margin, since the support point was inflated);
/// - capsule: the surface line parallel to the axis through the witness point `x`.
///
/// Written to `edges` (cleared first).
pub(crate) fn edge_normals(
    o: &ConvexObj,
    tab: Option<&HullPolygons>,
    dim: usize,
    v: &mut [[f64; 3]; 3],
    vi: &[i32; 3],
    x: &[f64; 3],
    edges: &mut EdgeList,
) {
    let EdgeList { dirs, ends } = edges;
    dirs.clear();
    ends.clear();
    let (mat, pos, size) = (&o.mat, &o.pos, &o.size);
    let unit = |a: &[f64; 3], b: &[f64; 3]| {
        let mut d = sub3(b, a);
        normalize3(&mut d);
        d
    };
    match o.ty {
        GeomType::Capsule => {
            let a = [mat[2], mat[5], mat[8]];
            let s = ((x[0] - pos[0]) * a[0] + (x[1] - pos[1]) * a[1]) + (x[2] - pos[2]) * a[2];
            let (t0, t1) = (-s - size[1], size[1] - s);
            v[0] = [t0 * a[0] + x[0], t0 * a[1] + x[1], t0 * a[2] + x[2]];
            let end = [t1 * a[0] + x[0], t1 * a[1] + x[1], t1 * a[2] + x[2]];
            dirs.push(a);
            ends.push(end);
        }
        GeomType::Cylinder => {
            // from the top cap (id 0) the side runs down the axis, from the bottom cap up
            let s = if vi[0] == 0 { -1.0 } else { 1.0 };
            let e = [s * mat[2], s * mat[5], s * mat[8]];
            if o.margin > 0.0 {
                let d = sub3(&v[0], pos);
                let (mut lx, mut ly) =
                    (mat[0] * d[0] + mat[3] * d[1] + mat[6] * d[2], mat[1] * d[0] + mat[4] * d[1] + mat[7] * d[2]);
                let n2 = lx * lx + ly * ly;
                let scl = if n2 >= 1e-30 { size[0] / n2.sqrt() } else { 0.0 };
                lx *= scl;
                ly *= scl;
                let lz = (-s) * size[1];
                v[0] = [
                    (mat[0] * lx + mat[1] * ly) + lz * mat[2] + pos[0],
                    (mat[3] * lx + mat[4] * ly) + lz * mat[5] + pos[1],
                    (mat[6] * lx + mat[7] * ly) + lz * mat[8] + pos[2],
                ];
            }
            let h = size[1] + size[1];
            let end = [h * e[0] + v[0][0], h * e[1] + v[0][1], h * e[2] + v[0][2]];
            dirs.push(e);
            ends.push(end);
        }
        GeomType::Box => {
            let corner = |id: i32| {
                let c = |bit: i32, h: f64| if id & bit != 0 { h } else { -h };
                [c(1, size[0]), c(2, size[1]), c(4, size[2])]
            };
            let [x0, y0, z0] = corner(vi[0]);
            v[0] = to_global(mat, pos, &[x0, y0, z0]);
            if dim == 2 {
                v[1] = to_global(mat, pos, &corner(vi[1]));
                dirs.push(unit(&v[0], &v[1]));
                ends.push(v[1]);
                return;
            }
            ends.extend([[-x0, y0, z0], [x0, -y0, z0], [x0, y0, -z0]].iter().map(|l| to_global(mat, pos, l)));
            dirs.extend(ends.iter().map(|e| unit(&v[0], e)));
        }
        GeomType::Mesh => {
            let (Some(h), Some(tab)) = (o.hull, tab) else { return };
            let vert = |i: i32| h.vert.get(i as usize).map_or([0.0; 3], |p| to_global(mat, pos, p));
            v[0] = vert(vi[0]);
            if dim == 2 {
                v[1] = vert(vi[1]);
                dirs.push(unit(&v[0], &v[1]));
                ends.push(v[1]);
                return;
            }
            let v0 = vi[0] as usize;
            for &p in tab.polymap.get(v0).map(Vec::as_slice).unwrap_or(&[]) {
                let lp = &tab.polys[p].verts;
                if let Some(j) = lp.iter().position(|&u| u == v0) {
                    let k = if j == 0 { lp.len() - 1 } else { j - 1 };
                    let end = vert(lp[k] as i32);
                    dirs.push(unit(&v[0], &end));
                    ends.push(end);
                }
            }
        }
        _ => {}
    }
}

/// World vertices of face `idx` of a box, mesh or cylinder, clockwise about the outward normal
/// (box faces in MuJoCo's fixed corner order, hull polygons reversed, a cylinder cap as a 16-gon
/// from local angle 0), written to `out` (cleared first).
pub(crate) fn face_vertices(o: &ConvexObj, tab: Option<&HullPolygons>, idx: usize, out: &mut Vec<[f64; 3]>) {
    out.clear();
    let (mat, pos, size) = (&o.mat, &o.pos, &o.size);
    match o.ty {
        GeomType::Box => {
            // corner sign patterns of each face
            const F: [[[f64; 3]; 4]; 6] = [
                [[1., 1., 1.], [1., 1., -1.], [1., -1., -1.], [1., -1., 1.]],
                [[-1., 1., -1.], [-1., 1., 1.], [-1., -1., 1.], [-1., -1., -1.]],
                [[-1., 1., -1.], [1., 1., -1.], [1., 1., 1.], [-1., 1., 1.]],
                [[-1., -1., 1.], [1., -1., 1.], [1., -1., -1.], [-1., -1., -1.]],
                [[-1., 1., 1.], [1., 1., 1.], [1., -1., 1.], [-1., -1., 1.]],
                [[1., 1., -1.], [-1., 1., -1.], [-1., -1., -1.], [1., -1., -1.]],
            ];
            if let Some(f) = F.get(idx) {
                out.extend(f.iter().map(|s| to_global(mat, pos, &[s[0] * size[0], s[1] * size[1], s[2] * size[2]])));
            }
        }
        GeomType::Mesh => {
            if let (Some(h), Some(t)) = (o.hull, tab) {
                out.extend(t.polys[idx].verts.iter().rev().map(|&v| to_global(mat, pos, &h.vert[v])));
            }
        }
        GeomType::Cylinder => {
            // the bottom cap is the top cap mirrored through the xz plane and lowered
            let sgn = if idx == 0 { 1.0 } else { -1.0 };
            out.extend((0..16).map(|k| {
                let lx = size[0] * COS16[k];
                let ly = sgn * (size[0] * (-SIN16[k]));
                let lz = sgn * size[1];
                [
                    (mat[0] * lx + mat[1] * ly) + mat[2] * lz + pos[0],
                    (mat[3] * lx + mat[4] * ly) + mat[5] * lz + pos[1],
                    (mat[6] * lx + mat[7] * ly) + mat[8] * lz + pos[2],
                ]
            }))
        }
        _ => {}
    }
}
