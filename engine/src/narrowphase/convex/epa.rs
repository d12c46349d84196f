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
    area_cofactors, det3, largest_minor, lincomb, project_origin_plane, s2d, support_pair, Status, Vertex, MAX_LIMIT,
    MINVAL,
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
    /// Empties the polytope (keeping its buffers) and sizes it for `iterations` EPA steps.
    pub fn reset(&mut self, iterations: usize) {
        self.verts.clear();
        self.faces.clear();
        self.map.clear();
        self.horizon.clear();
        self.center = [0.0; 3];
        self.max_faces = 6 * iterations;
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
        self.map.clear();
        self.map.extend(0..n);
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
    set_simplex(pt, st, &tri);
    polytope3(pt, st, o1, o2)
}

/// Make the given polytope vertices GJK's simplex and empty the polytope.
fn set_simplex(pt: &mut Polytope, st: &mut Status, idx: &[usize]) {
    st.nsimplex = idx.len();
    for (m, &i) in idx.iter().enumerate() {
        st.simplex[m] = pt.verts[i];
    }
    pt.faces.clear();
    pt.verts.clear();
    pt.map.clear();
}

/// The better of the two triangles `(i1, a, b)` and `(i2, b, a)` on either side of a failed
/// bipyramid face, made the simplex (MuJoCo 4.0.0): a degenerate one loses, otherwise the one
/// whose closest point to the origin is nearer, the first on ties.
fn restart_from_best_triangle(pt: &mut Polytope, st: &mut Status, i1: usize, i2: usize, a: usize, b: usize) {
    let (p1, p2, pa, pb) = (pt.verts[i1].vert, pt.verts[i2].vert, pt.verts[a].vert, pt.verts[b].vert);
    let c1 = cross(&sub3(&pa, &p1), &sub3(&pb, &p1));
    let c2 = cross(&sub3(&pb, &p2), &sub3(&pa, &p2));
    let (flat1, flat2) = (dot(&c1, &c1) < MINVAL, dot(&c2, &c2) < MINVAL);
    let second = if flat1 != flat2 {
        flat1
    } else {
        let closest = |t: [[f64; 3]; 3]| {
            let l = s2d(&t[0], &t[1], &t[2]);
            let x = lincomb(&l, 3, &t);
            dot(&x, &x)
        };
        closest([p1, pa, pb]) > closest([p2, pb, pa])
    };
    let tri = if second { [i2, b, a] } else { [i1, a, b] };
    set_simplex(pt, st, &tri);
}

/// True if the origin lies on the segment `a`-`b` (within 1e-15), seen from `b`.
fn origin_on_edge(a: &[f64; 3], b: &[f64; 3]) -> bool {
    // (a NaN product also gives false)
    if dot(a, b).partial_cmp(&0.0) != Some(std::cmp::Ordering::Less) {
        return false;
    }
    let e = sub3(b, a);
    let ee = dot(&e, &e);
    if ee < MINDIST2 {
        return false;
    }
    let s = -(dot(b, &e) / ee);
    let x = [s * e[0] + b[0], s * e[1] + b[1], s * e[2] + b[2]];
    dot(&x, &x) < MINDIST2
}

/// The three signed volumes of [`ray_triangle`], `(a, b)`, `(b, c)` and `(c, a)` edges of the
/// triangle against the segment direction `d`, all relative to `o`.
fn side_volumes(o: &[f64; 3], d: &[f64; 3], a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    let (ra, rb, rc) = (sub3(a, o), sub3(b, o), sub3(c, o));
    [det3(&ra, &rb, d), det3(&rb, &rc, d), det3(&rc, &ra, d)]
}

/// All three at least `thr`, or all at most `-thr`.
fn one_sided(v: &[f64; 3], thr: f64) -> bool {
    v.iter().all(|&x| x >= thr) || v.iter().all(|&x| x <= -thr)
}

/// Initial polytope from a segment simplex: a bipyramid of three support points around it.
///
/// MuJoCo 4.0.0 (read from its library, confirmed side by side on its `mjc_ccd`): when the three
/// points do not wind strictly around the segment (a side volume within `1e-15 |d|^3` of zero
/// or of the wrong sign), the pair of points with the smallest volume between them is widened:
/// one more support point is taken just off that side, and it replaces the first of the two
/// points, the second, or the third point that makes all three volumes one-sided. The centre
/// that orients the faces is the mean of all five vertices, and a face through the origin
/// restarts from the better of the two triangles on either side of it.
pub(crate) fn polytope2(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
) -> Result<(), PolytopeError> {
    let diff = sub3(&st.simplex[1].vert, &st.simplex[0].vert);

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

    let v1 = pt.verts[v1i].vert;
    let d = sub3(&pt.verts[v2i].vert, &v1);
    let dd = dot(&d, &d);
    let thr = (dd * MINVAL) * dd.sqrt();
    let vol = side_volumes(&v1, &d, &pt.verts[v3i].vert, &pt.verts[v4i].vert, &pt.verts[v5i].vert);
    if !one_sided(&vol, thr) {
        // the side (p, q) with the smallest volume and the remaining point s
        let (p, q, s) = if vol[0] <= vol[1] && vol[0] <= vol[2] {
            (v3i, v4i, v5i)
        } else if vol[1] > vol[0] || vol[1] > vol[2] {
            (v5i, v3i, v4i)
        } else {
            (v4i, v5i, v3i)
        };
        let (pv, qv) = (sub3(&pt.verts[p].vert, &v1), sub3(&pt.verts[q].vert, &v1));
        let sv = sub3(&pt.verts[s].vert, &v1);
        let edge = sub3(&pt.verts[q].vert, &pt.verts[p].vert);
        let n = cross(&edge, &d);
        let sigma = if 0.5 * dd <= dot(&sv, &d) { 0.001 } else { -0.001 };
        let k = norm(&edge) * sigma;
        let dir = [d[0] * k + n[0], n[1] + d[1] * k, d[2] * k + n[2]];
        let wi = pt.support(o1, o2, &dir, norm(&dir));
        let w = pt.verts.pop().expect("the vertex just added");
        debug_assert_eq!(wi, pt.verts.len());
        let wv = sub3(&w.vert, &v1);
        let candidates = [
            (p, [det3(&wv, &qv, &d), det3(&qv, &sv, &d), det3(&sv, &wv, &d)]),
            (q, [det3(&pv, &wv, &d), det3(&wv, &sv, &d), det3(&sv, &pv, &d)]),
            (s, [det3(&pv, &qv, &d), det3(&qv, &wv, &d), det3(&wv, &pv, &d)]),
        ];
        if let Some(&(slot, _)) = candidates.iter().find(|(_, v)| one_sided(v, thr)) {
            pt.verts[slot] = w;
        }
    }

    let p: [[f64; 3]; 5] = [v1i, v2i, v3i, v4i, v5i].map(|i| pt.verts[i].vert);
    pt.center = scl3(&add3(&add3(&add3(&add3(&p[0], &p[1]), &p[2]), &p[3]), &p[4]), 0.2);

    // each face with the side (a, b) of the triangles to restart from if it holds the origin
    let faces = [
        ([v1i, v3i, v4i], [1, 3, 2], (v3i, v4i)),
        ([v1i, v5i, v3i], [2, 4, 0], (v5i, v3i)),
        ([v1i, v4i, v5i], [0, 5, 1], (v4i, v5i)),
        ([v2i, v4i, v3i], [5, 0, 4], (v3i, v4i)),
        ([v2i, v3i, v5i], [3, 1, 5], (v5i, v3i)),
        ([v2i, v5i, v4i], [4, 2, 3], (v4i, v5i)),
    ];
    for (t, adj, (a, b)) in faces {
        if pt.attach(t[0], t[1], t[2], adj) < MINDIST2 {
            restart_from_best_triangle(pt, st, v1i, v2i, a, b);
            return polytope3_from(pt, st, o1, o2, false);
        }
    }
    if ray_triangle(&p[0], &p[1], &p[2], &p[3], &p[4]) == 0 {
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
    polytope3_from(pt, st, o1, o2, true)
}

/// [`polytope3`]; `may_restart` allows the fall-back to a segment through the origin (not when
/// called from [`polytope2`]'s own fall-back).
///
/// MuJoCo 4.0.0 (read from its library, confirmed side by side): an apex closer than `1e-15 |n|`
/// to the triangle's plane fails; when the segment between the apexes misses the triangle, the
/// polytope is the bipyramid over the triangle rotated so that the segment crosses it if exactly
/// one side volume is positive (the other two below -1e-15), else the tetrahedron of the
/// smallest-volume edge and both apexes; the orienting centre is the mean of the solid's
/// vertices; a face through the origin restarts from an edge of the triangle that holds the
/// origin; and a face whose plane separates its opposite vertex from the origin (farther than
/// the tolerance) means the solid misses the origin.
fn polytope3_from(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    may_restart: bool,
) -> Result<(), PolytopeError> {
    let v1i = pt.insert(st.simplex[0]);
    let v2i = pt.insert(st.simplex[1]);
    let v3i = pt.insert(st.simplex[2]);
    let (v1, v2, v3) = (pt.verts[v1i].vert, pt.verts[v2i].vert, pt.verts[v3i].vert);
    let n = cross(&sub3(&v2, &v1), &sub3(&v3, &v1));
    let nn = norm(&n);
    if nn < MINVAL {
        return Err(PolytopeError::P3BadNormal);
    }
    let nneg = scl3(&n, -1.0);
    let v5i = pt.support(o1, o2, &nneg, nn);
    let v4i = pt.support(o1, o2, &n, nn);
    let v4 = pt.verts[v4i].vert;
    let v5 = pt.verts[v5i].vert;
    if tri_point(&v1, &v2, &v3, &v4) || tri_point(&v1, &v2, &v3, &v5) {
        return Err(PolytopeError::P3InvalidApex);
    }
    if dot(&sub3(&v4, &v1), &n) < MINVAL * nn || dot(&sub3(&v5, &v1), &nneg) < MINVAL * nn {
        return Err(PolytopeError::P3OriginOnFace);
    }

    // the solid: a bipyramid [base0, base1, base2, apex, apex] or a tetrahedron
    let mut idx = [v1i, v2i, v3i, v4i, v5i];
    let mut hexa = true;
    let d45 = sub3(&v5, &v4);
    let vol = side_volumes(&v4, &d45, &v1, &v2, &v3);
    if ray_triangle(&v4, &v5, &v1, &v2, &v3) == 0 {
        let neg = |x: f64| x < -MINVAL;
        if vol[0] > 0.0 && neg(vol[1]) && neg(vol[2]) {
            idx = [v3i, v5i, v4i, v1i, v2i];
        } else if vol[1] > 0.0 && neg(vol[0]) && neg(vol[2]) {
            idx = [v1i, v5i, v4i, v2i, v3i];
        } else if neg(vol[0]) && neg(vol[1]) && vol[2] > 0.0 {
            idx = [v2i, v5i, v4i, v3i, v1i];
        } else {
            hexa = false;
            let (a, b) = if vol[0] <= vol[1] && vol[0] <= vol[2] {
                (v1i, v2i)
            } else if vol[1] <= vol[2] {
                (v2i, v3i)
            } else {
                (v3i, v1i)
            };
            idx[0] = a;
            idx[1] = b;
        }
    }
    let p: [[f64; 3]; 5] = idx.map(|i| pt.verts[i].vert);
    let [i0, i1, i2, i3, i4] = idx;
    let bipyramid: [([usize; 3], [usize; 3], [f64; 3]); 6];
    let tetrahedron: [([usize; 3], [usize; 3], [f64; 3]); 4];
    let faces: &[([usize; 3], [usize; 3], [f64; 3])] = if hexa {
        pt.center = scl3(&add3(&add3(&add3(&add3(&p[0], &p[1]), &p[2]), &p[3]), &p[4]), 0.2);
        bipyramid = [
            ([i3, i0, i1], [1, 3, 2], p[2]),
            ([i3, i2, i0], [2, 4, 0], p[1]),
            ([i3, i1, i2], [0, 5, 1], p[0]),
            ([i4, i1, i0], [5, 0, 4], p[2]),
            ([i4, i0, i2], [3, 1, 5], p[1]),
            ([i4, i2, i1], [4, 2, 3], p[0]),
        ];
        &bipyramid
    } else {
        pt.center = scl3(&add3(&add3(&add3(&p[0], &p[1]), &p[3]), &p[4]), 0.25);
        tetrahedron = [
            ([i0, i1, i3], [1, 3, 2], p[4]),
            ([i0, i4, i1], [2, 3, 0], p[3]),
            ([i0, i3, i4], [0, 3, 1], p[1]),
            ([i4, i3, i1], [2, 0, 1], p[0]),
        ];
        &tetrahedron
    };
    // every face is attached before any is checked
    let mut dist2 = [0.0; 6];
    for (d, (t, adj, _)) in dist2.iter_mut().zip(faces) {
        *d = pt.attach(t[0], t[1], t[2], *adj);
    }
    let dist2 = &dist2[..faces.len()];
    if dist2.iter().any(|&d| d < MINDIST2) {
        if may_restart {
            for (a, b) in [(v1i, v2i), (v2i, v3i), (v3i, v1i)] {
                if origin_on_edge(&pt.verts[a].vert, &pt.verts[b].vert) {
                    set_simplex(pt, st, &[a, b]);
                    return polytope2(pt, st, o1, o2);
                }
            }
        }
        return Err(PolytopeError::P3OriginOnFace);
    }
    let tol2 = st.tolerance * st.tolerance;
    for ((t, _, opposite), &d2) in faces.iter().zip(dist2) {
        let [a, b, c] = t.map(|i| pt.verts[i].vert);
        if !same_side(&a, &b, &c, opposite) && d2 >= tol2 {
            return Err(PolytopeError::P3MissingOrigin);
        }
    }
    pt.fill_map(faces.len());
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

/// How many horizon edges MuJoCo 4.0.0's EPA has room for: `max(ccd_iterations, 35) - 11`, read
/// from the buffer sizes `mjc_ccd` allots (docs/measurements.md, C2).
fn horizon_capacity(iterations: usize) -> usize {
    iterations.max(35) - 11
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
        if nedges > horizon_capacity(st.max_iterations) {
            // MuJoCo 4.0.0 stores the horizon in a fixed buffer and, when it overflows, warns
            // ("set ccd_iterations to at least ...") and reports no contact (docs/measurements.md, C2)
            face = None;
            break;
        }
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
