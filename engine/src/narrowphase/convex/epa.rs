//! EPA: penetration depth, normal and witness points of two overlapping convex shapes.
//!
//! Algorithm (expanding polytope, as in MuJoCo 4.0.0's `engine_collision_gjk.c`):
//! 1. Build an initial polytope around the origin from GJK's final simplex: a tetrahedron is
//!    used as is; a triangle gets two apexes (support points along both face normals), a segment
//!    gets three support points spaced 120 degrees around it (a triangular bipyramid).
//! 2. Each face stores the projection `v` of the origin on its plane (outward) and `|v|^2`.
//! 3. Repeatedly take the face nearest the origin, query the support point `w` along its normal,
//!    and stop once the upper bound `v.w/|v|` is within tolerance of the lower bound `|v|`
//!    (or, for polytopes, when `w` repeats a vertex already in the polytope).
//! 4. Otherwise delete every face visible from `w` (the horizon is found by a depth-first walk
//!    over face adjacency) and fan new faces from `w` to the horizon edges.
//! 5. The witness points are the barycentric combination, on the final face, of the per-geom
//!    support points; the depth is `-|v|`.

use super::gjk::{
    area_cofactors, det3, largest_minor, lincomb, project_origin_plane, support_pair, Status, Vertex, MAX_LIMIT, MINVAL,
};
use super::support::ConvexObj;
use crate::math::{add3, cross, dot3 as dot, mul_mat_vec3, norm3 as norm, scl3, sub3};

/// Squared distance below which the origin counts as lying on an initial face.
const MINDIST2: f64 = MINVAL * MINVAL;

/// Why building the initial polytope failed (MuJoCo's `mjEPAStatus`); kept for debugging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PolytopeError {
    /// Segment bipyramid not convex.
    P2NonConvex,
    /// Degenerate triangle.
    P3BadNormal,
    /// An apex lies in the triangle.
    P3InvalidApex,
    /// The bipyramid misses the origin.
    P3MissingOrigin,
    /// The origin lies on an initial face.
    P3OriginOnFace,
    /// The tetrahedron misses the origin.
    P4MissingOrigin,
}

/// One triangular face of the polytope.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Face {
    /// Vertex indices (counter-clockwise seen from outside).
    pub verts: [usize; 3],
    /// Neighbouring faces across edges (v0,v1), (v1,v2), (v2,v0).
    pub adj: [usize; 3],
    /// Projection of the origin on the face plane (points outward).
    pub v: [f64; 3],
    /// `|v|^2`.
    pub dist2: f64,
    /// Slot in the candidate map; -1 not a candidate, -2 deleted.
    pub index: i32,
}

/// The expanding polytope.
#[derive(Debug, Default)]
pub(crate) struct Polytope {
    /// Vertices.
    pub verts: Vec<Vertex>,
    /// Faces, live and deleted.
    pub faces: Vec<Face>,
    /// Candidate faces (indices into `faces`).
    pub map: Vec<usize>,
    /// Centre used to orient face normals outward.
    center: [f64; 3],
    /// Horizon: (face, edge) pairs bounding the visible region.
    horizon: Vec<(usize, usize)>,
    /// Face budget (MuJoCo allots six faces per iteration).
    max_faces: usize,
}

impl Polytope {
    /// An empty polytope sized for `iterations` EPA steps.
    pub fn new(iterations: usize) -> Self {
        Polytope { max_faces: 6 * iterations, ..Default::default() }
    }

    /// Add a vertex, return its index.
    fn insert(&mut self, v: Vertex) -> usize {
        self.verts.push(v);
        self.verts.len() - 1
    }

    /// Add the support vertex along `d` (of length `dnorm`; +x if too short), return its index.
    fn support(&mut self, o1: &mut ConvexObj, o2: &mut ConvexObj, d: &[f64; 3], dnorm: f64) -> usize {
        let (mut dir, mut neg) = ([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]);
        if dnorm > MINVAL {
            dir = [d[0] / dnorm, d[1] / dnorm, d[2] / dnorm];
            neg = scl3(&dir, -1.0);
        }
        let v = support_pair(o1, o2, &dir, &neg);
        self.insert(v)
    }

    /// Append a face; returns its squared distance to the origin (0 if degenerate).
    fn attach(&mut self, v1: usize, v2: usize, v3: usize, adj: [usize; 3]) -> f64 {
        let mut face = Face { verts: [v1, v2, v3], adj, v: [0.0; 3], dist2: 0.0, index: -1 };
        let p = project_origin_plane(&self.verts[v3].vert, &self.verts[v2].vert, &self.verts[v1].vert);
        let Some(mut v) = p else {
            self.faces.push(face);
            return 0.0;
        };
        // orient the projection away from the polytope's interior
        let out = sub3(&self.verts[v1].vert, &self.center);
        if dot(&v, &out) < 0.0 {
            v = scl3(&v, -1.0);
        }
        face.v = v;
        face.dist2 = dot(&v, &v);
        self.faces.push(face);
        face.dist2
    }

    /// Make the first `n` faces the candidate set.
    fn fill_map(&mut self, n: usize) {
        self.map = (0..n).collect();
        for (i, f) in self.faces.iter_mut().enumerate().take(n) {
            f.index = i as i32;
        }
    }

    /// Remove a face from the candidate map and mark it deleted.
    fn delete(&mut self, f: usize) {
        let idx = self.faces[f].index;
        if idx >= 0 {
            let last = self.map.pop().unwrap_or(f);
            if (idx as usize) < self.map.len() {
                self.map[idx as usize] = last;
                self.faces[last].index = idx;
            }
        }
        self.faces[f].index = -2;
    }

    /// Depth-first horizon search from face `f` entered across edge `e`; true if `f` is visible.
    ///
    /// Visible means `w` lies beyond the face's plane by more than `1e-15 max(1, |v|)` (MuJoCo
    /// 4.0.0 scales the 3.x tolerance of 1e-15 with the face's distance, read from its library).
    fn horizon_rec(&mut self, w: &[f64; 3], f: usize, e: usize) -> bool {
        let face = self.faces[f];
        let tol = (MINVAL * face.dist2.sqrt()).max(MINVAL);
        if dot(&face.v, w) - face.dist2 > tol {
            self.delete(f);
            for k in 1..3 {
                let i = (e + k) % 3;
                let a = face.adj[i];
                if self.faces[a].index > -2 {
                    let ae = edge_of(&self.faces[a], face.verts[(i + 1) % 3]);
                    if !self.horizon_rec(w, a, ae) {
                        self.horizon.push((a, ae));
                    }
                }
            }
            return true;
        }
        false
    }

    /// Delete the faces visible from `w`, starting at face `f`, collecting the horizon.
    fn build_horizon(&mut self, w: &[f64; 3], f: usize) {
        self.delete(f);
        let face = self.faces[f];
        for i in 0..3 {
            let a = face.adj[i];
            let ae = edge_of(&self.faces[a], face.verts[(i + 1) % 3]);
            if (i == 0 || self.faces[a].index > -2) && !self.horizon_rec(w, a, ae) {
                self.horizon.push((a, ae));
            }
        }
    }
}

/// Which edge of `face` starts at vertex `v`.
fn edge_of(face: &Face, v: usize) -> usize {
    if face.verts[0] == v {
        0
    } else if face.verts[1] == v {
        1
    } else {
        2
    }
}

/// True if the origin and `p3` lie strictly on the same side of the plane `(p0, p1, p2)`.
fn same_side(p0: &[f64; 3], p1: &[f64; 3], p2: &[f64; 3], p3: &[f64; 3]) -> bool {
    let n = cross(&sub3(p1, p0), &sub3(p2, p0));
    let d1 = dot(&n, &sub3(p3, p0));
    let d2 = dot(&n, &scl3(p0, -1.0));
    (d1 > 0.0 && d2 > 0.0) || (d1 < 0.0 && d2 < 0.0)
}

/// True if the origin is inside the tetrahedron.
fn test_tetra(p0: &[f64; 3], p1: &[f64; 3], p2: &[f64; 3], p3: &[f64; 3]) -> bool {
    same_side(p0, p1, p2, p3) && same_side(p1, p2, p3, p0) && same_side(p2, p3, p0, p1) && same_side(p3, p0, p1, p2)
}

/// Rotation by 120 degrees about `axis` (Rodrigues' formula with fixed sine and cosine).
fn rot120(axis: &[f64; 3]) -> [f64; 9] {
    let n = norm(axis);
    let (u1, u2, u3) = (axis[0] / n, axis[1] / n, axis[2] / n);
    let s = 0.86602540378;
    let c = -0.5;
    [
        c + u1 * u1 * (1.0 - c),
        u1 * u2 * (1.0 - c) - u3 * s,
        u1 * u3 * (1.0 - c) + u2 * s,
        u2 * u1 * (1.0 - c) + u3 * s,
        c + u2 * u2 * (1.0 - c),
        u2 * u3 * (1.0 - c) - u1 * s,
        u1 * u3 * (1.0 - c) - u2 * s,
        u2 * u3 * (1.0 - c) + u1 * s,
        c + u3 * u3 * (1.0 - c),
    ]
}

/// Ray `v1 -> v2` against triangle `(v3, v4, v5)`: 1/-1 if it passes through (either
/// orientation), 0 if it misses.
fn ray_triangle(v1: &[f64; 3], v2: &[f64; 3], v3: &[f64; 3], v4: &[f64; 3], v5: &[f64; 3]) -> i32 {
    let d12 = sub3(v2, v1);
    let d13 = sub3(v3, v1);
    let d14 = sub3(v4, v1);
    let d15 = sub3(v5, v1);
    let a = det3(&d13, &d14, &d12);
    let b = det3(&d14, &d15, &d12);
    let c = det3(&d15, &d13, &d12);
    if a >= 0.0 && b >= 0.0 && c >= 0.0 {
        1
    } else if a <= 0.0 && b <= 0.0 && c <= 0.0 {
        -1
    } else {
        0
    }
}

/// Barycentric coordinates of `p` on the triangle's plane: the sub-areas over their sum
/// (MuJoCo 4.0.0; 3.x divided by the largest minor).
fn tri_affine(v1: &[f64; 3], v2: &[f64; 3], v3: &[f64; 3], p: &[f64; 3]) -> [f64; 3] {
    let (_, x, y) = largest_minor(v1, v2, v3);
    let c = area_cofactors(v1, v2, v3, p, x, y);
    let sum = c[0] + c[1] + c[2];
    [c[0] / sum, c[1] / sum, c[2] / sum]
}

/// True if `p` lies on the triangle (within `MINVAL`).
fn tri_point(v1: &[f64; 3], v2: &[f64; 3], v3: &[f64; 3], p: &[f64; 3]) -> bool {
    let l = tri_affine(v1, v2, v3, p);
    if l[0] < 0.0 || l[1] < 0.0 || l[2] < 0.0 {
        return false;
    }
    let pr = [
        v1[0] * l[0] + v2[0] * l[1] + v3[0] * l[2],
        v1[1] * l[0] + v2[1] * l[1] + v3[1] * l[2],
        v1[2] * l[0] + v2[2] * l[1] + v3[2] * l[2],
    ];
    norm(&sub3(&pr, p)) < MINVAL
}

/// Restart from a triangle of the current polytope (the origin lies on it).
fn restart_from_triangle(
    pt: &mut Polytope,
    st: &mut Status,
    tri: [usize; 3],
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
) -> Result<(), PolytopeError> {
    st.nsimplex = 3;
    for (m, &i) in tri.iter().enumerate() {
        st.simplex[m] = pt.verts[i];
    }
    pt.faces.clear();
    pt.verts.clear();
    pt.map.clear();
    polytope3(pt, st, o1, o2)
}

/// Initial polytope from a segment simplex: a bipyramid of three support points around it.
pub(crate) fn polytope2(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
) -> Result<(), PolytopeError> {
    let v1 = st.simplex[0].vert;
    let v2 = st.simplex[1].vert;
    pt.center = scl3(&add3(&v1, &v2), 0.5);
    let diff = sub3(&v2, &v1);

    // the coordinate axis least aligned with the segment gives the best-conditioned normal
    let mut value = MAX_LIMIT;
    let mut index = 0;
    for (i, d) in diff.iter().enumerate() {
        if d.abs() < value {
            value = d.abs();
            index = i;
        }
    }
    let mut e = [0.0; 3];
    e[index] = 1.0;
    let d1 = cross(&e, &diff);
    let r = rot120(&diff);
    let d2 = mul_mat_vec3(&r, &d1);
    let d3 = mul_mat_vec3(&r, &d2);

    let v1i = pt.insert(st.simplex[0]);
    let v2i = pt.insert(st.simplex[1]);
    let v3i = pt.support(o1, o2, &d1, norm(&d1));
    let v4i = pt.support(o1, o2, &d2, norm(&d2));
    let v5i = pt.support(o1, o2, &d3, norm(&d3));

    let faces = [
        ([v1i, v3i, v4i], [1, 3, 2]),
        ([v1i, v5i, v3i], [2, 4, 0]),
        ([v1i, v4i, v5i], [0, 5, 1]),
        ([v2i, v4i, v3i], [5, 0, 4]),
        ([v2i, v3i, v5i], [3, 1, 5]),
        ([v2i, v5i, v4i], [4, 2, 3]),
    ];
    for (t, adj) in faces {
        if pt.attach(t[0], t[1], t[2], adj) < MINDIST2 {
            return restart_from_triangle(pt, st, t, o1, o2);
        }
    }
    let (a, b, c, d, e) =
        (pt.verts[v1i].vert, pt.verts[v2i].vert, pt.verts[v3i].vert, pt.verts[v4i].vert, pt.verts[v5i].vert);
    if ray_triangle(&a, &b, &c, &d, &e) == 0 {
        return Err(PolytopeError::P2NonConvex);
    }
    pt.fill_map(6);
    Ok(())
}

/// Initial polytope from a triangle simplex: two apexes along the face normals.
pub(crate) fn polytope3(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
) -> Result<(), PolytopeError> {
    let (v1, v2, v3) = (st.simplex[0].vert, st.simplex[1].vert, st.simplex[2].vert);
    pt.center = scl3(&add3(&add3(&v1, &v2), &v3), 1.0 / 3.0);
    let n = cross(&sub3(&v2, &v1), &sub3(&v3, &v1));
    let nn = norm(&n);
    if nn < MINVAL {
        return Err(PolytopeError::P3BadNormal);
    }
    let nneg = scl3(&n, -1.0);
    let v1i = pt.insert(st.simplex[0]);
    let v2i = pt.insert(st.simplex[1]);
    let v3i = pt.insert(st.simplex[2]);
    let v5i = pt.support(o1, o2, &nneg, nn);
    let v4i = pt.support(o1, o2, &n, nn);
    let v4 = pt.verts[v4i].vert;
    let v5 = pt.verts[v5i].vert;
    if tri_point(&v1, &v2, &v3, &v4) || tri_point(&v1, &v2, &v3, &v5) {
        return Err(PolytopeError::P3InvalidApex);
    }
    // when the origin is off the triangle, one of the two tetrahedra must enclose it
    if st.dist[0] > 10.0 * MINVAL && !test_tetra(&v1, &v2, &v3, &v4) && !test_tetra(&v1, &v2, &v3, &v5) {
        return Err(PolytopeError::P3MissingOrigin);
    }
    let faces = [
        ([v4i, v1i, v2i], [1, 3, 2]),
        ([v4i, v3i, v1i], [2, 4, 0]),
        ([v4i, v2i, v3i], [0, 5, 1]),
        ([v5i, v2i, v1i], [5, 0, 4]),
        ([v5i, v1i, v3i], [3, 1, 5]),
        ([v5i, v3i, v2i], [4, 2, 3]),
    ];
    for (t, adj) in faces {
        if pt.attach(t[0], t[1], t[2], adj) < MINDIST2 {
            return Err(PolytopeError::P3OriginOnFace);
        }
    }
    pt.fill_map(6);
    Ok(())
}

/// Initial polytope from GJK's enclosing tetrahedron.
pub(crate) fn polytope4(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
) -> Result<(), PolytopeError> {
    let v1 = pt.insert(st.simplex[0]);
    let v2 = pt.insert(st.simplex[1]);
    let v3 = pt.insert(st.simplex[2]);
    let v4 = pt.insert(st.simplex[3]);
    let c = add3(&add3(&add3(&pt.verts[v1].vert, &pt.verts[v2].vert), &pt.verts[v3].vert), &pt.verts[v4].vert);
    pt.center = scl3(&c, 0.25);
    let faces =
        [([v1, v2, v3], [1, 3, 2]), ([v1, v4, v2], [2, 3, 0]), ([v1, v3, v4], [0, 3, 1]), ([v4, v3, v2], [2, 0, 1])];
    for (t, adj) in faces {
        if pt.attach(t[0], t[1], t[2], adj) < MINDIST2 {
            return restart_from_triangle(pt, st, t, o1, o2);
        }
    }
    let p: [[f64; 3]; 4] = std::array::from_fn(|i| pt.verts[i].vert);
    if !test_tetra(&p[0], &p[1], &p[2], &p[3]) {
        return Err(PolytopeError::P4MissingOrigin);
    }
    pt.fill_map(4);
    Ok(())
}

/// Witness points and signed distance from a final face.
fn witness(pt: &Polytope, f: &Face) -> ([f64; 3], [f64; 3], f64) {
    let [a, b, c] = f.verts.map(|i| pt.verts[i]);
    let l = tri_affine(&a.vert, &b.vert, &c.vert, &f.v);
    let x1 = lincomb(&l, 3, &[a.vert1, b.vert1, c.vert1]);
    let x2 = lincomb(&l, 3, &[a.vert2, b.vert2, c.vert2]);
    (x1, x2, -f.dist2.sqrt())
}

/// Expand the polytope; on success the depth and witnesses are in `st` and the index of the
/// final face is returned.
pub(crate) fn epa(st: &mut Status, pt: &mut Polytope, o1: &mut ConvexObj, o2: &mut ConvexObj) -> Option<usize> {
    let mut upper = MAX_LIMIT;
    let mut upper2 = MAX_LIMIT;
    let mut face: Option<usize> = None;
    let disc = super::gjk::discrete(o1, o2);
    // for polytopes a tiny positive tolerance avoids chasing rounding noise
    let tolerance = if disc { MINVAL } else { st.tolerance };
    let kmax = st.max_iterations.min(1000);

    for k in 0..kmax {
        let prev = face;
        let mut lower2 = MAX_LIMIT;
        for &i in &pt.map {
            if pt.faces[i].dist2 < lower2 {
                face = Some(i);
                lower2 = pt.faces[i].dist2;
            }
        }
        if lower2 > upper2 || face.is_none() {
            face = prev;
            break;
        }
        let Some(fi) = face else { break };
        if lower2 <= 0.0 {
            // origin on a face plane; keep this face
            break;
        }

        let lower = lower2.sqrt();
        let fv = pt.faces[fi].v;
        let wi = pt.support(o1, o2, &fv, lower);
        let w = pt.verts[wi];
        let upper_k = dot(&fv, &w.vert) / lower;
        if upper_k < upper {
            upper = upper_k;
            upper2 = upper * upper;
        }
        // MuJoCo 4.0.0 tests this iteration's bound (3.x: the best bound so far), and a first
        // bound below the nearest face by more than the tolerance means no contact
        if upper_k - lower < tolerance {
            if k == 0 && upper < lower - tolerance {
                face = None;
            }
            break;
        }

        // a repeated polytope vertex means no further progress is possible
        if disc {
            let n = pt.verts.len() - 1;
            if pt.verts[..n].iter().any(|v| v.index1 == w.index1 && v.index2 == w.index2) {
                break;
            }
        }

        pt.horizon.clear();
        pt.build_horizon(&w.vert, fi);
        let nedges = pt.horizon.len();
        if nedges < 3 {
            face = None;
            break;
        }
        let nfaces = pt.faces.len();
        if nedges > pt.max_faces.saturating_sub(nfaces) {
            // face budget exhausted: keep the current best face
            break;
        }

        // fan new faces from w to every horizon edge, linked in a ring
        let mut degenerate = false;
        for i in 0..nedges {
            let (hf, he) = pt.horizon[i];
            let cur = nfaces + i;
            let prev_face = if i == 0 { nfaces + nedges - 1 } else { cur - 1 };
            let next = nfaces + (i + 1) % nedges;
            let hv = pt.faces[hf].verts;
            let (a, b) = (hv[he], hv[(he + 1) % 3]);
            pt.faces[hf].adj[he] = cur;
            let d2 = pt.attach(wi, b, a, [prev_face, hf, next]);
            if d2 == 0.0 {
                // a degenerate new face ends the expansion; MuJoCo 4.0.0 keeps the face being
                // expanded as the answer (3.x reported no contact)
                degenerate = true;
                break;
            }
            if d2 >= lower2 && d2 <= upper2 {
                pt.map.push(cur);
                pt.faces[cur].index = (pt.map.len() - 1) as i32;
            }
        }
        if degenerate {
            break;
        }
        if pt.map.is_empty() {
            break;
        }
    }

    if let Some(fi) = face {
        let f = pt.faces[fi];
        let (x1, x2, d) = witness(pt, &f);
        st.x1[0] = x1;
        st.x2[0] = x2;
        st.dist[0] = d;
        st.nx = 1;
    } else {
        st.nx = 0;
        st.dist[0] = 0.0;
    }
    face
}
