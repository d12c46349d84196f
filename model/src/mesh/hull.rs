//! 3-D convex hull (quickhull) and MuJoCo's `mesh_graph` encoding of it.
//!
//! MuJoCo builds the hull with qhull (options `Qt`: triangulated output, coplanar facets
//! merged within round-off), keeps only the points that are true corners of the hull, and
//! stores the triangulated hull as a graph. This module computes the same polytope with its own
//! quickhull; the triangulation of flat facets and the order of vertices may differ from
//! qhull's, but the vertex *set*, the volume and every mass property agree.
//!
//! Algorithm:
//! 1. Initial tetrahedron as qhull picks it: the points of least and greatest x, then the
//!    candidate (first among the per-axis extreme points, then among all points) that makes
//!    the largest triangle, then the one that makes the largest tetrahedron.
//! 2. Every other point goes to the outside set of the first face it is above by more than
//!    the tolerance `eps` (a few units of round-off at the scale of the coordinates).
//! 3. Repeatedly take a face with a non-empty outside set and its farthest point `p`; find
//!    the faces visible from `p` (connected, above by more than `eps`), delete them, join each
//!    horizon edge to `p`, and hand the orphaned outside points to the new faces. Each face
//!    knows its three neighbours ([`Edges::Adjacent`]), which is exact while the surface stays a
//!    closed manifold; a step whose horizon passes a vertex twice (nearly flat input) starts the
//!    build over with a map from directed edges to faces ([`Edges::Map`]), the general form.
//! 4. Corner filter: group adjacent triangles whose far vertex lies within `eps` of the other
//!    triangle's plane (they belong to one flat facet). A hull point that touches fewer than
//!    three facets lies inside a facet or an edge and is not a corner; if there are such
//!    points, drop them and rebuild from the corners alone (same polytope, clean triangulation).
//!
//! With `maxhullvert`, as qhull's `Q9 TA(n-4)`, step 3 always takes the farthest point over all
//! outside sets and stops after `maxhullvert - 4` points have been added.
//!
//! Face order: without `maxhullvert`, [`convex_hull`] returns the faces in qhull's facet-list
//! order and rotation (as MuJoCo stores them in `mesh_graph`) whenever [`super::qhull`] can
//! replay qhull's build, including the coplanar-horizon merges and `Qt` triangulation of flat
//! facets (boxes, pyramids, dodecahedra); cases it does not replay keep this module's own order
//! and triangulation.

use super::fasthash::IdMap;
use super::mass::{cross, dot3};

/// A triangulated convex hull; all indices refer to the input point array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hull {
    /// Hull vertices (corners), ascending input indices.
    pub vert: Vec<usize>,
    /// Triangles, counter-clockwise seen from outside (normals point out).
    pub face: Vec<[usize; 3]>,
    /// qhull's vertex-list order and per-triangle corner order, when the hull is qhull's (they
    /// decide the order of MuJoCo's graph, see [`Hull::graph`]).
    pub qhull_order: Option<QhullOrder>,
}

/// The orders of qhull's build that decide MuJoCo's graph (see [`Hull::graph`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QhullOrder {
    /// Hull vertices (input indices) in qhull's vertex-list order.
    pub vertices: Vec<usize>,
    /// Each triangle's corners (input indices) in qhull's order (decreasing vertex id).
    pub corners: Vec<[usize; 3]>,
    /// For each of `vertices`, its triangles (indices into `corners`) in the order of qhull's
    /// vertex-neighbour set, when the replay knows it.
    pub vertex_faces: Option<Vec<Vec<usize>>>,
}

/// Why no hull could be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HullError {
    /// Fewer than four points, or all points within round-off of a plane (qhull fails).
    Degenerate,
}

/// One triangle of the hull under construction.
struct Face {
    v: [usize; 3],
    normal: [f64; 3],
    offset: f64,
    outside: Vec<usize>,
    alive: bool,
    /// The last [`Builder::add_point`] that tested this face, and whether the point saw it.
    seen_by: usize,
    visible: bool,
    /// With [`Edges::Adjacent`], the face across edge `k` (from `v[k]` to `v[(k + 1) % 3]`).
    adj: [usize; 3],
}

/// How the builder finds the face across an edge.
enum Edges {
    /// Each face holds its three neighbours. Exact while the surface is a closed manifold,
    /// which every step keeps unless a horizon passes a vertex twice (nearly degenerate
    /// input); the build then starts over with [`Edges::Map`].
    Adjacent,
    /// A map from each directed edge to the face that last took it: the general form.
    Map(IdMap<(usize, usize), usize>),
}

/// A step met a horizon that passes a vertex twice (see [`Edges::Adjacent`]).
struct NotManifold;

/// Quickhull state: the points, the faces and how to step across an edge.
struct Builder<'a> {
    pts: &'a [f64],
    eps: f64,
    faces: Vec<Face>,
    edges: Edges,
    /// Points added so far (marks [`Face::seen_by`]).
    added: usize,
    /// Per point, the step and the new face whose horizon edge starts there, and the same for
    /// the horizon edge that ends there ([`Edges::Adjacent`]'s stitching of a new cone).
    starts: Vec<(usize, usize)>,
    ends: Vec<(usize, usize)>,
    /// Buffers of [`Builder::add_point`], kept between steps.
    scratch: Scratch,
}

/// The lists one step of the build fills (kept to save their allocations).
#[derive(Default)]
struct Scratch {
    visible: Vec<usize>,
    horizon: Vec<(usize, usize, Option<usize>)>,
    orphans: Vec<usize>,
    new: Vec<usize>,
}

/// Point `i` of a flat xyz array.
fn pt(pts: &[f64], i: usize) -> [f64; 3] {
    [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]]
}

/// `a - b`.
fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Euclidean norm.
fn norm(a: &[f64; 3]) -> f64 {
    dot3(a, a).sqrt()
}

impl<'a> Builder<'a> {
    /// A builder without faces, finding neighbours with `edges`.
    fn new(pts: &'a [f64], eps: f64, edges: Edges) -> Self {
        let n = pts.len() / 3;
        let (starts, ends) = match edges {
            Edges::Adjacent => (vec![(0, 0); n], vec![(0, 0); n]),
            Edges::Map(_) => (Vec::new(), Vec::new()),
        };
        // (a hull of n corners has 2n - 4 faces)
        let faces = Vec::with_capacity(2 * n);
        Builder { pts, eps, faces, edges, added: 0, starts, ends, scratch: Scratch::default() }
    }

    /// Signed distance of point `p` above face `f`.
    fn dist(&self, f: usize, p: usize) -> f64 {
        let face = &self.faces[f];
        dot3(&face.normal, &pt(self.pts, p)) - face.offset
    }

    /// The face across edge `k` of face `f`, if any.
    fn across(&self, f: usize, k: usize) -> Option<usize> {
        match &self.edges {
            Edges::Adjacent => Some(self.faces[f].adj[k]),
            Edges::Map(m) => {
                let v = self.faces[f].v;
                m.get(&(v[(k + 1) % 3], v[k])).copied()
            }
        }
    }

    /// Adds triangle (a, b, c) (counter-clockwise from outside) and returns its id.
    fn add_face(&mut self, a: usize, b: usize, c: usize) -> usize {
        let pa = pt(self.pts, a);
        let mut n = cross(&sub(&pt(self.pts, b), &pa), &sub(&pt(self.pts, c), &pa));
        let len = norm(&n);
        if len > 0.0 {
            n = [n[0] / len, n[1] / len, n[2] / len];
        }
        let id = self.faces.len();
        let offset = dot3(&n, &pa);
        let adj = [usize::MAX; 3];
        let face =
            Face { v: [a, b, c], normal: n, offset, outside: Vec::new(), alive: true, seen_by: 0, visible: false, adj };
        self.faces.push(face);
        if let Edges::Map(m) = &mut self.edges {
            for (x, y) in [(a, b), (b, c), (c, a)] {
                m.insert((x, y), id);
            }
        }
        id
    }

    /// Removes face `f` from the edge map and marks it dead.
    fn kill(&mut self, f: usize) {
        if let Edges::Map(m) = &mut self.edges {
            let [a, b, c] = self.faces[f].v;
            for (x, y) in [(a, b), (b, c), (c, a)] {
                if m.get(&(x, y)) == Some(&f) {
                    m.remove(&(x, y));
                }
            }
        }
        self.faces[f].alive = false;
    }

    /// Puts each point into the outside set of the first of `faces` it is above.
    fn assign(&mut self, points: &[usize], faces: &[usize]) {
        for &p in points {
            for &f in faces {
                if self.dist(f, p) > self.eps {
                    self.faces[f].outside.push(p);
                    break;
                }
            }
        }
    }

    /// Adds point `p`, which is above face `start`, to the hull.
    fn add_point(&mut self, start: usize, p: usize) -> Result<(), NotManifold> {
        // Visible faces: connected region around `start` that `p` is above.
        self.added += 1;
        let mark = self.added;
        let Scratch { mut visible, mut horizon, mut orphans, mut new } = std::mem::take(&mut self.scratch);
        visible.clear();
        horizon.clear();
        orphans.clear();
        new.clear();
        visible.push(start);
        self.faces[start].seen_by = mark;
        self.faces[start].visible = true;
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            for e in 0..3 {
                if let Some(g) = self.across(f, e) {
                    if self.faces[g].seen_by != mark {
                        let vis = self.dist(g, p) > self.eps;
                        self.faces[g].seen_by = mark;
                        self.faces[g].visible = vis;
                        if vis {
                            visible.push(g);
                        }
                    }
                }
            }
        }
        // Horizon: edges of visible faces whose neighbour is not visible, with that neighbour.
        for &f in &visible {
            let v = self.faces[f].v;
            for e in 0..3 {
                let across = self.across(f, e);
                let seen_visible = |g: usize| self.faces[g].seen_by == mark && self.faces[g].visible;
                if !across.is_some_and(seen_visible) {
                    horizon.push((v[e], v[(e + 1) % 3], across));
                }
            }
        }
        for &f in &visible {
            // (taken, not appended from, so that the dead face frees its list)
            orphans.extend_from_slice(&std::mem::take(&mut self.faces[f].outside));
            self.kill(f);
        }
        new.extend(horizon.iter().map(|&(x, y, _)| self.add_face(x, y, p)));
        if let Edges::Adjacent = self.edges {
            self.stitch(&horizon, &new)?;
        }
        orphans.retain(|&q| q != p);
        self.assign(&orphans, &new);
        self.scratch = Scratch { visible, horizon, orphans, new };
        Ok(())
    }

    /// [`Edges::Adjacent`]: links the new faces `new` (one per edge of `horizon`, with the
    /// face across it) to the faces across the horizon and to each other.
    fn stitch(&mut self, horizon: &[(usize, usize, Option<usize>)], new: &[usize]) -> Result<(), NotManifold> {
        let step = self.added;
        for (&(x, y, _), &nf) in horizon.iter().zip(new) {
            if self.starts[x].0 == step || self.ends[y].0 == step {
                return Err(NotManifold);
            }
            self.starts[x] = (step, nf);
            self.ends[y] = (step, nf);
        }
        for (&(x, y, across), &nf) in horizon.iter().zip(new) {
            let g = across.ok_or(NotManifold)?;
            // Face g holds the edge (y, x); the new face (x, y, p) takes its place there.
            let gv = self.faces[g].v;
            let slot = (0..3).find(|&e| gv[e] == y && gv[(e + 1) % 3] == x).ok_or(NotManifold)?;
            self.faces[g].adj[slot] = nf;
            // Edge (y, p) is shared with the new face of the horizon edge from y, edge (p, x)
            // with that of the horizon edge into x.
            let (next, prev) = (self.starts[y], self.ends[x]);
            if next.0 != step || prev.0 != step {
                return Err(NotManifold);
            }
            self.faces[nf].adj = [g, next.1, prev.1];
        }
        Ok(())
    }

    /// Live faces.
    fn live(&self) -> impl Iterator<Item = &Face> {
        self.faces.iter().filter(|f| f.alive)
    }
}

/// Initial simplex as qhull chooses it; `None` if the points are (nearly) flat.
fn initial_simplex(pts: &[f64], idx: &[usize], eps: f64) -> Option<[usize; 4]> {
    let first = |better: &dyn Fn(f64, f64) -> bool, axis: usize| {
        let mut best = idx[0];
        for &i in idx {
            if better(pts[3 * i + axis], pts[3 * best + axis]) {
                best = i;
            }
        }
        best
    };
    let mut extremes = Vec::new();
    for axis in 0..3 {
        extremes.push(first(&|a, b| a < b, axis));
        extremes.push(first(&|a, b| a > b, axis));
    }
    let (p0, p1) = (extremes[0], extremes[1]);
    let a = pt(pts, p0);
    let e1 = sub(&pt(pts, p1), &a);
    let area = |i: usize| norm(&cross(&e1, &sub(&pt(pts, i), &a)));
    let pick = |score: &dyn Fn(usize) -> f64, tol: f64| -> Option<usize> {
        for set in [&extremes[..], idx] {
            let mut best: Option<(usize, f64)> = None;
            for &i in set {
                let s = score(i);
                if !best.is_some_and(|(_, b)| s <= b) {
                    best = Some((i, s));
                }
            }
            if let Some((i, s)) = best {
                if s > tol {
                    return Some(i);
                }
            }
        }
        None
    };
    let len1 = norm(&e1);
    let p2 = pick(&area, eps * len1)?;
    let n = cross(&e1, &sub(&pt(pts, p2), &a));
    let nn = norm(&n);
    let height = |i: usize| (dot3(&n, &sub(&pt(pts, i), &a)) / nn).abs();
    let p3 = pick(&height, eps)?;
    Some([p0, p1, p2, p3])
}

/// Round-off tolerance for distances among these points.
fn tolerance(pts: &[f64], idx: &[usize]) -> f64 {
    let mut maxabs = [0.0f64; 3];
    for &i in idx {
        for k in 0..3 {
            maxabs[k] = maxabs[k].max(pts[3 * i + k].abs());
        }
    }
    // About qhull's DISTround for 3-D input: a few machine epsilons times the coordinate sums.
    10.0 * f64::EPSILON * (maxabs[0] + maxabs[1] + maxabs[2])
}

/// Quickhull over the points `idx`; returns the live faces.
fn quickhull(pts: &[f64], idx: &[usize], maxadd: Option<usize>) -> Result<Vec<[usize; 3]>, HullError> {
    if idx.len() < 4 {
        return Err(HullError::Degenerate);
    }
    let eps = tolerance(pts, idx);
    let simplex = initial_simplex(pts, idx, eps).ok_or(HullError::Degenerate)?;
    // Face adjacency gives the same faces as the edge map whenever every step keeps the
    // surface a manifold; otherwise build again with the map.
    match build(Builder::new(pts, eps, Edges::Adjacent), idx, simplex, maxadd) {
        Ok(faces) => Ok(faces),
        Err(NotManifold) => {
            let mut map = IdMap::default();
            map.reserve(6 * idx.len());
            build(Builder::new(pts, eps, Edges::Map(map)), idx, simplex, maxadd)
                .map_err(|NotManifold| unreachable!("the edge map takes any surface"))
        }
    }
}

/// Steps 2 and 3 of the module docs from the initial `simplex`.
fn build(
    mut b: Builder,
    idx: &[usize],
    simplex: [usize; 4],
    maxadd: Option<usize>,
) -> Result<Vec<[usize; 3]>, NotManifold> {
    let pts = b.pts;
    let [p0, p1, p2, p3] = simplex;
    // Orient the base (p0, p1, p2) so that p3 lies below it.
    let a = pt(pts, p0);
    let n = cross(&sub(&pt(pts, p1), &a), &sub(&pt(pts, p2), &a));
    let (q1, q2) = if dot3(&n, &sub(&pt(pts, p3), &a)) > 0.0 { (p2, p1) } else { (p1, p2) };
    let f0 = b.add_face(p0, q1, q2);
    let f1 = b.add_face(p0, p3, q1);
    let f2 = b.add_face(q1, p3, q2);
    let f3 = b.add_face(q2, p3, p0);
    if let Edges::Adjacent = b.edges {
        // Each face's edge (x, y) meets the one face of the four with (y, x).
        for f in [f0, f1, f2, f3] {
            let v = b.faces[f].v;
            for e in 0..3 {
                let (x, y) = (v[e], v[(e + 1) % 3]);
                let twin = [f0, f1, f2, f3].into_iter().find(|&g| {
                    let w = b.faces[g].v;
                    (0..3).any(|k| w[k] == y && w[(k + 1) % 3] == x)
                });
                b.faces[f].adj[e] = twin.ok_or(NotManifold)?;
            }
        }
    }
    let rest: Vec<usize> = idx.iter().copied().filter(|i| !simplex.contains(i)).collect();
    b.assign(&rest, &[f0, f1, f2, f3]);

    let mut added = 0;
    // Faces only receive outside points when they are created, so a face that is dead or empty
    // stays so: without `maxhullvert` the scan can resume where it last stopped.
    let mut cursor = 0;
    loop {
        if maxadd.is_some_and(|m| added >= m) {
            break;
        }
        // Next point: farthest over all outside sets with `maxhullvert`, otherwise the
        // farthest point of the first face that has any.
        let mut next: Option<(usize, usize, f64)> = None;
        let first = if maxadd.is_none() { cursor } else { 0 };
        for f in first..b.faces.len() {
            if !b.faces[f].alive || b.faces[f].outside.is_empty() {
                continue;
            }
            cursor = f;
            for &p in &b.faces[f].outside {
                let d = b.dist(f, p);
                if !next.is_some_and(|(_, _, bd)| d <= bd) {
                    next = Some((f, p, d));
                }
            }
            if maxadd.is_none() {
                break;
            }
        }
        let Some((f, p, _)) = next else { break };
        b.add_point(f, p)?;
        added += 1;
    }
    Ok(b.live().map(|f| f.v).collect())
}

/// Hull points that are not corners (they touch fewer than three flat facets).
fn non_corners(pts: &[f64], faces: &[[usize; 3]], eps: f64) -> Vec<usize> {
    // Union-find over triangles, joining coplanar neighbours.
    let mut parent: Vec<usize> = (0..faces.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let plane = |f: &[usize; 3]| {
        let a = pt(pts, f[0]);
        let n = cross(&sub(&pt(pts, f[1]), &a), &sub(&pt(pts, f[2]), &a));
        let len = norm(&n);
        let n = [n[0] / len, n[1] / len, n[2] / len];
        (n, dot3(&n, &a))
    };
    let planes: Vec<([f64; 3], f64)> = faces.iter().map(plane).collect();
    // Each edge (x, y) of face i meets the face j across it, the one holding (y, x) (the last
    // of them, in face and edge order, should a directed edge repeat, as a map filled in that
    // order would keep it); j joins i when j's far corner is on i's plane. The edges sorted by
    // their ends put each edge beside its twin; the joins commute, so their order is free.
    let mut edges: Vec<(usize, usize, bool, usize, usize)> = Vec::with_capacity(3 * faces.len());
    for (i, f) in faces.iter().enumerate() {
        for k in 0..3 {
            let (x, y) = (f[k], f[(k + 1) % 3]);
            edges.push((x.min(y), x.max(y), x < y, i, k));
        }
    }
    edges.sort_unstable();
    for group in edges.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        for &(lo, hi, up, i, _) in group {
            let Some(&(.., j, _)) = group.iter().rev().find(|e| e.2 != up) else { continue };
            let (x, y) = if up { (lo, hi) } else { (hi, lo) };
            let (n, off) = planes[i];
            let far = faces[j].iter().copied().find(|&v| v != x && v != y).unwrap_or(x);
            if (dot3(&n, &pt(pts, far)) - off).abs() <= eps {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri] = rj;
            }
        }
    }
    // The flat facets at each vertex: distinct (vertex, facet root) pairs.
    let mut touch: Vec<(usize, usize)> = Vec::with_capacity(3 * faces.len());
    for (i, f) in faces.iter().enumerate() {
        let r = root(&mut parent, i);
        touch.extend(f.iter().map(|&v| (v, r)));
    }
    touch.sort_unstable();
    touch.dedup();
    let mut out = Vec::new();
    for run in touch.chunk_by(|a, b| a.0 == b.0) {
        if run.len() < 3 {
            out.push(run[0].0);
        }
    }
    out
}

/// Convex hull of the xyz points `pts`; `maxhullvert` limits the corners as in qhull `TA`.
pub fn convex_hull(pts: &[f64], maxhullvert: Option<usize>) -> Result<Hull, HullError> {
    let n = pts.len() / 3;
    let mut idx: Vec<usize> = (0..n).collect();
    let maxadd = maxhullvert.map(|m| m.saturating_sub(4));
    let mut faces = quickhull(pts, &idx, maxadd)?;
    for _ in 0..8 {
        let eps = tolerance(pts, &idx);
        let drop = non_corners(pts, &faces, eps);
        let mut used: Vec<usize> = faces.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        if drop.is_empty() && used.len() == idx.len() {
            break;
        }
        idx = used.into_iter().filter(|v| drop.binary_search(v).is_err()).collect();
        faces = quickhull(pts, &idx, None)?;
    }
    let mut vert: Vec<usize> = faces.iter().flatten().copied().collect();
    vert.sort_unstable();
    vert.dedup();
    // Replay qhull's facet order (see `super::qhull`); keep it only if it found the same
    // polytope, or a closed hull of all points that differs from the one above only in
    // which nearly coplanar points count as corners (the quickhull's own tolerance decides
    // those differently from qhull's merges; measured on CAD meshes of robosuite's iiwa,
    // kinova3 and jaco, where the replay is MuJoCo's hull bit for bit).
    if maxhullvert.is_none() {
        if let Some(q) = super::qhull::qhull_hull(pts) {
            let qfaces = q.faces;
            let mut qv: Vec<usize> = qfaces.iter().flatten().copied().collect();
            qv.sort_unstable();
            qv.dedup();
            // Same corners (by coordinates: with repeated points qhull may keep another copy
            // than the quickhull above) and the same number of triangles.
            let coords = |v: &[usize]| {
                let mut c: Vec<[u64; 3]> = v.iter().map(|&i| pt(pts, i).map(f64::to_bits)).collect();
                c.sort_unstable();
                c
            };
            let same = qfaces.len() == faces.len() && coords(&qv) == coords(&vert);
            if same || encloses(pts, &qfaces, qv.len(), tolerance(pts, &idx)) {
                let order =
                    QhullOrder { vertices: q.vertices, corners: q.facet_vertices, vertex_faces: q.vertex_facets };
                let o = super::qhull::ReplayOutcome { nvert: qv.len(), nface: qfaces.len(), replayed: true };
                super::qhull::log_replay(o);
                return Ok(Hull { vert: qv, face: qfaces, qhull_order: Some(order) });
            }
        }
    }
    super::qhull::log_replay(super::qhull::ReplayOutcome { nvert: vert.len(), nface: faces.len(), replayed: false });
    Ok(Hull { vert, face: faces, qhull_order: None })
}

/// Whether the triangles `faces` (over `nvert` corners) close a convex polytope (every directed
/// edge once, with its reverse; Euler's count) that holds every point of `pts` within `eps` of
/// its planes: a hull of the points, up to the choice of nearly coplanar corners.
fn encloses(pts: &[f64], faces: &[[usize; 3]], nvert: usize, eps: f64) -> bool {
    if nvert < 4 || faces.len() != 2 * nvert - 4 {
        return false;
    }
    let mut edges: IdMap<(usize, usize), usize> = IdMap::default();
    for f in faces {
        for k in 0..3 {
            *edges.entry((f[k], f[(k + 1) % 3])).or_default() += 1;
        }
    }
    if edges.iter().any(|(&(a, b), &n)| n != 1 || edges.get(&(b, a)) != Some(&1)) {
        return false;
    }
    let n = pts.len() / 3;
    faces.iter().all(|f| {
        let a = pt(pts, f[0]);
        let nrm = cross(&sub(&pt(pts, f[1]), &a), &sub(&pt(pts, f[2]), &a));
        let len = dot3(&nrm, &nrm).sqrt();
        if len == 0.0 {
            return false;
        }
        (0..n).all(|i| dot3(&nrm, &sub(&pt(pts, i), &a)) <= 100.0 * eps * len)
    })
}

impl Hull {
    /// MuJoCo's `mesh_graph` block for this hull.
    ///
    /// Layout: `numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert],
    /// edge_localid[numvert + 3*numface], face_globalid[3*numface]`. For hull vertex `i`,
    /// `edge_localid[vert_edgeadr[i]..]` lists its neighbours (as hull-local indices) and ends
    /// with -1; `vert_globalid` and `face_globalid` are indices into the mesh vertices.
    ///
    /// For a hull from qhull's build ([`Hull::qhull_order`]) the vertices come in qhull's
    /// vertex-list order and each vertex's neighbours as MuJoCo's compiler meets them: its
    /// triangles in the order of qhull's vertex-neighbour set (the final facet list when qhull
    /// merged nothing, otherwise the order the build left, see `qhull_vertices.rs`), each
    /// triangle's corners in qhull's order (checked against MuJoCo 4.0.0's `mesh_graph`,
    /// `tests/mesh_qhull.rs`; equal on every corpus hull whose faces are replayed). Without the
    /// set order the triangles are taken in facet-list order. The order matters to the
    /// collision: multi-contact walks a vertex's edges in this order and keeps the first that
    /// fits.
    pub fn graph(&self) -> Vec<i32> {
        let (vert, corners) = match &self.qhull_order {
            Some(q) => (q.vertices.as_slice(), q.corners.as_slice()),
            None => (self.vert.as_slice(), self.face.as_slice()),
        };
        let nv = vert.len();
        let nf = self.face.len();
        // Hull-local index of each mesh vertex (usize::MAX for those not on the hull).
        let mut local = vec![usize::MAX; vert.iter().max().map_or(0, |&m| m + 1)];
        for (i, &v) in vert.iter().enumerate() {
            local[v] = i;
        }
        let local = |v: usize| match local.get(v) {
            Some(&i) if i != usize::MAX => i,
            _ => panic!("triangle corner {v} is not a hull vertex"),
        };
        // Neighbours of each vertex in the order its faces are met.
        let mut nbr: Vec<Vec<i32>> = vec![Vec::new(); nv];
        let sets = self.qhull_order.as_ref().and_then(|q| q.vertex_faces.as_ref());
        if let Some(sets) = sets {
            // qhull's vertex-neighbour sets: each triangle's corners in qhull's order.
            for (i, set) in sets.iter().enumerate() {
                for &t in set {
                    for &c in &corners[t] {
                        let o = local(c) as i32;
                        if c != vert[i] && !nbr[i].contains(&o) {
                            nbr[i].push(o);
                        }
                    }
                }
            }
        }
        // Otherwise the triangles in facet-list order.
        for f in corners.iter().filter(|_| sets.is_none()) {
            for k in 0..3 {
                let me = local(f[k]);
                // qhull's corner order as it is; otherwise around the triangle from this corner
                let others = if self.qhull_order.is_some() {
                    [f[if k == 0 { 1 } else { 0 }], f[if k == 2 { 1 } else { 2 }]]
                } else {
                    [f[(k + 1) % 3], f[(k + 2) % 3]]
                };
                for other in others {
                    let o = local(other) as i32;
                    if !nbr[me].contains(&o) {
                        nbr[me].push(o);
                    }
                }
            }
        }
        let mut g = Vec::with_capacity(2 + 3 * nv + 6 * nf);
        g.push(nv as i32);
        g.push(nf as i32);
        let mut adr = 0;
        for list in &nbr {
            g.push(adr);
            adr += list.len() as i32 + 1;
        }
        g.extend(vert.iter().map(|&v| v as i32));
        for list in &nbr {
            g.extend_from_slice(list);
            g.push(-1);
        }
        for f in &self.face {
            g.extend(f.iter().map(|&v| v as i32));
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64* in [0, 1).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Triangles of a build.
    type Faces = Vec<[usize; 3]>;

    /// The quickhull on `pts` with each way of finding neighbours; `None` for the adjacency when
    /// a step left the manifold (the build then takes the edge map).
    fn both(pts: &[f64], maxadd: Option<usize>) -> Option<(Option<Faces>, Faces)> {
        let idx: Vec<usize> = (0..pts.len() / 3).collect();
        let eps = tolerance(pts, &idx);
        let simplex = initial_simplex(pts, &idx, eps)?;
        let adjacent = build(Builder::new(pts, eps, Edges::Adjacent), &idx, simplex, maxadd).ok();
        let map = build(Builder::new(pts, eps, Edges::Map(IdMap::default())), &idx, simplex, maxadd).ok()?;
        Some((adjacent, map))
    }

    #[test]
    fn face_adjacency_builds_the_edge_maps_hull() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let (mut same, mut fallback) = (0, 0);
        for case in 0..4000 {
            let n = 5 + (rng.next() * 200.0) as usize;
            // Clouds in general position, on a sphere, snapped to a coarse grid (coplanar,
            // collinear and repeated points) and nearly flat (horizons that pass a vertex twice:
            // the adjacency gives up and the build takes the edge map), some with a vertex budget.
            let pts: Vec<f64> = (0..n)
                .flat_map(|_| {
                    let p = [rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5];
                    let l = p.iter().map(|x| x * x).sum::<f64>().sqrt();
                    match case % 4 {
                        0 => p,
                        1 => p.map(|x| x / l),
                        2 => p.map(|x| (x * 4.0).round()),
                        _ => [p[0], p[1], p[2] * 1e-13],
                    }
                    .map(|x| x as f32 as f64)
                })
                .collect();
            let maxadd = (case % 5 == 0).then_some(4 + case % 13);
            let Some((adjacent, map)) = both(&pts, maxadd) else { continue };
            match adjacent {
                Some(faces) => {
                    assert_eq!(faces, map, "case {case}");
                    same += 1;
                }
                None => {
                    let idx: Vec<usize> = (0..n).collect();
                    assert_eq!(quickhull(&pts, &idx, maxadd), Ok(map), "case {case}");
                    fallback += 1;
                }
            }
        }
        // measured: 3,997 compared, 1 fallback (case 2,839, a nearly flat cloud)
        assert!(same > 2500 && fallback > 0, "{same} builds compared, {fallback} fell back to the edge map");
    }
}
