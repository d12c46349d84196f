//! Emulation of qhull's facet order for convex hulls in general position.
//!
//! MuJoCo stores the hull triangles in the order of qhull's facet list, each rotated by qhull's
//! vertex order (vertices sorted by decreasing vertex id, the first two swapped when the facet
//! is `toporient`). The polygon table depends on that order, so this module replays the steps
//! of qhull (options `Qt`, default premerge `C-0`) that decide it:
//!
//! 1. Extreme points per axis (strict comparisons; the minimum is only updated when the point
//!    is not a new maximum), then the initial simplex: least and greatest x among them, then
//!    the point of largest |det| among the extremes (first wins ties), falling back to all
//!    points when the best is degenerate. Vertex ids 1..4 go to the simplex points in that order.
//! 2. The four initial facets omit the vertices in decreasing-id order; facet list = that order.
//! 3. Partition: each facet in list order takes the remaining points that are at least
//!    `distoutside` above it (furthest point kept last); the facet of the overall furthest point
//!    is moved to the front.
//! 4. Loop: the first facet (from `facet_next`) with outside points gives its last point. The
//!    visible facets are found breadth-first in neighbour order (neighbour `i` is opposite vertex
//!    `i`) and moved to the end of the list; for each visible facet in that order, each horizon
//!    neighbour in neighbour order gets a new facet appended (apex first). The outside points of
//!    each visible facet go, in set order, to the new facet found by a greedy walk from the last
//!    facet made for that visible facet (qh_findbest), then the best horizon facet search.
//!    A facet that receives its first outside point is moved behind `facet_next`.
//!
//! Merging of coplanar facets and the triangulation of merged facets (`Qt`) are not emulated:
//! [`qhull_faces`] returns `None` whenever a point comes within qhull's merge tolerances of a
//! facet plane, and the caller falls back to [`super::hull`]'s own order.

use std::collections::HashMap;

use super::mass::{cross, dot3};

/// A simplicial facet: vertex ids (decreasing) and their points.
struct Facet {
    vid: [usize; 3],
    normal: [f64; 3],
    offset: f64,
    outside: Vec<usize>,
    furthest: f64,
    alive: bool,
    visible: bool,
    newfacet: bool,
    replace: Option<usize>,
}

/// The emulated qhull state.
struct Qh<'a> {
    pts: &'a [f64],
    /// Point index of each vertex id.
    vpoint: Vec<usize>,
    facets: Vec<Facet>,
    /// Facet list order (qh.facet_list).
    list: Vec<usize>,
    /// Index into `list` of qh.facet_next (`list.len()` = tail).
    next: usize,
    /// Live facets on each undirected edge (by vertex id).
    edges: HashMap<(usize, usize), Vec<usize>>,
    interior: [f64; 3],
    min_visible: f64,
    min_outside: f64,
    /// Set when a tolerance case arises that needs qhull's merging.
    bail: bool,
    /// qh.findbestnew: partition by scanning all new facets (set when the cone is sharp).
    scan_new: bool,
    /// qh.findbest_notsharp: the cone was tested and is not sharp.
    notsharp: bool,
    /// qh.vertex_list: vertex ids in list order.
    vlist: Vec<usize>,
    /// Vertices already moved to the end of `vlist` by the current point's new facets.
    moved: Vec<usize>,
}

/// Point `i` of a flat xyz array.
fn pt(pts: &[f64], i: usize) -> [f64; 3] {
    [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]]
}

/// `a - b`.
fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Undirected edge key.
fn ekey(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl<'a> Qh<'a> {
    /// Coordinates of vertex id `v`.
    fn vp(&self, v: usize) -> [f64; 3] {
        pt(self.pts, self.vpoint[v])
    }

    /// Signed distance of point `p` above facet `f`.
    fn dist(&self, f: usize, p: usize) -> f64 {
        let x = pt(self.pts, p);
        dot3(&self.facets[f].normal, &x) + self.facets[f].offset
    }

    /// Creates facet with vertex ids `vid` (decreasing), oriented away from the interior point.
    fn make(&mut self, vid: [usize; 3]) -> usize {
        let (a, b, c) = (self.vp(vid[0]), self.vp(vid[1]), self.vp(vid[2]));
        let mut n = cross(&sub(&b, &a), &sub(&c, &a));
        let len = dot3(&n, &n).sqrt();
        n = [n[0] / len, n[1] / len, n[2] / len];
        if dot3(&n, &sub(&self.interior, &a)) > 0.0 {
            n = [-n[0], -n[1], -n[2]];
        }
        let id = self.facets.len();
        self.facets.push(Facet {
            vid,
            normal: n,
            offset: -dot3(&n, &a),
            outside: Vec::new(),
            furthest: 0.0,
            alive: true,
            visible: false,
            newfacet: true,
            replace: None,
        });
        for (x, y) in [(vid[0], vid[1]), (vid[1], vid[2]), (vid[0], vid[2])] {
            self.edges.entry(ekey(x, y)).or_default().push(id);
        }
        self.list.push(id);
        // qhull moves each vertex of a new facet to the end of its vertex list, once per added
        // point (apex first, then the others in the facet's decreasing-id order).
        for v in vid {
            if !self.moved.contains(&v) {
                self.vlist.retain(|&x| x != v);
                self.vlist.push(v);
                self.moved.push(v);
            }
        }
        id
    }

    /// Neighbours of `f` in qhull's order (neighbour `i` is opposite vertex `i`).
    fn neighbors(&self, f: usize) -> [Option<usize>; 3] {
        let v = self.facets[f].vid;
        let mut out = [None; 3];
        for (i, o) in out.iter_mut().enumerate() {
            let (x, y) = match i {
                0 => (v[1], v[2]),
                1 => (v[0], v[2]),
                _ => (v[0], v[1]),
            };
            *o = self.edges.get(&ekey(x, y)).and_then(|l| l.iter().copied().find(|&g| g != f));
        }
        out
    }

    /// Removes facet `f` from the list (advancing `facet_next` past it).
    fn remove(&mut self, f: usize) {
        let pos = self.list.iter().position(|&g| g == f).expect("facet in list");
        self.list.remove(pos);
        if pos < self.next {
            self.next -= 1;
        }
    }

    /// Moves facet `f` to the end of the list.
    fn move_to_end(&mut self, f: usize) {
        self.remove(f);
        self.list.push(f);
    }

    /// Whether the normals of the new facets (list order from the first new facet) leave
    /// the sign pattern of the first one (qh_sharpnewfacets).
    fn sharp(&self) -> bool {
        let first = self.list.iter().position(|&g| self.facets[g].newfacet).unwrap_or(self.list.len());
        let q = |g: usize| self.facets[g].normal.map(|x| x > 0.0);
        let Some(&f0) = self.list.get(first) else { return false };
        self.list[first..].iter().any(|&g| q(g) != q(f0))
    }

    /// qh_findbestnew: scan the new facets from `start` (wrapping to the first new facet),
    /// early out when clearly outside, then the horizon search.
    fn findbestnew(&self, p: usize, start: usize) -> (usize, f64) {
        let first = self.list.iter().position(|&g| self.facets[g].newfacet).unwrap_or(self.list.len());
        let s = self.list.iter().position(|&g| g == start).unwrap_or(first);
        let order = self.list[s..].iter().chain(self.list[first.min(s)..s].iter());
        let distoutside = 2.0 * self.min_outside;
        let mut best: Option<usize> = None;
        let mut bestdist = f64::MIN / 2.0;
        for &g in order {
            let d = self.dist(g, p);
            if d > bestdist {
                best = Some(g);
                if d >= distoutside {
                    return (g, d);
                }
                bestdist = d;
            }
        }
        self.findbesthorizon(p, best.unwrap_or(start), bestdist)
    }

    /// qh_findbest for a point after new facets were made (no merges).
    fn findbest(&mut self, p: usize, start: usize) -> (usize, f64) {
        if self.scan_new {
            return self.findbestnew(p, start);
        }
        let mut visited = vec![start];
        let d = self.dist(start, p);
        if d >= self.min_outside {
            return (start, d);
        }
        let (mut best, mut bestdist) = (start, d);
        let mut facet = Some(start);
        while let Some(f) = facet {
            facet = None;
            for g in self.neighbors(f).into_iter().flatten() {
                if !self.facets[g].newfacet || visited.contains(&g) {
                    continue;
                }
                visited.push(g);
                let d = self.dist(g, p);
                if d > bestdist {
                    if d >= self.min_outside {
                        return (g, d);
                    }
                    best = g;
                    bestdist = d;
                    facet = Some(g);
                    break;
                }
            }
        }
        if !self.notsharp && bestdist < -0.5 * self.min_visible {
            if self.sharp() {
                self.scan_new = true;
                return self.findbestnew(p, best);
            }
            self.notsharp = true;
        }
        self.findbesthorizon(p, best, bestdist)
    }

    /// qh_findbesthorizon: searches neighbours that are better or nearly as good.
    fn findbesthorizon(&self, p: usize, start: usize, mut bestdist: f64) -> (usize, f64) {
        let searchdist = self.min_visible + self.min_visible;
        let mut minsearch = bestdist - searchdist;
        let mut best = start;
        let mut visited = vec![start];
        let mut stack: Vec<usize> = Vec::new();
        let mut facet = Some(start);
        let mut nextfacet: Option<usize> = None;
        while let Some(f) = facet {
            for g in self.neighbors(f).into_iter().flatten() {
                if visited.contains(&g) {
                    continue;
                }
                visited.push(g);
                let d = self.dist(g, p);
                if d > bestdist {
                    minsearch = d - searchdist;
                    if d > bestdist + searchdist {
                        stack.clear();
                    }
                    best = g;
                    bestdist = d;
                } else if d < minsearch {
                    continue;
                }
                if let Some(n) = nextfacet {
                    stack.push(n);
                }
                nextfacet = Some(g);
            }
            facet = nextfacet.take().or_else(|| stack.pop());
        }
        (best, bestdist)
    }

    /// qh_partitionpoint into the new facets, starting at `start`.
    fn partition(&mut self, p: usize, start: usize) {
        let (best, d) = self.findbest(p, start);
        if d < self.min_outside {
            if d > 0.0 {
                self.bail = true;
            }
            return;
        }
        let f = &mut self.facets[best];
        let mut isnew = false;
        if f.outside.is_empty() {
            f.outside.push(p);
            f.furthest = d;
            isnew = true;
        } else if f.furthest < d {
            f.outside.push(p);
            f.furthest = d;
        } else {
            let n = f.outside.len();
            f.outside.insert(n - 1, p);
        }
        let next_facet = self.list.get(self.next).copied();
        if isnew && next_facet != Some(best) {
            if self.facets[best].newfacet {
                if next_facet.is_some_and(|n| self.facets[n].newfacet) {
                    self.next = self.list.iter().position(|&g| self.facets[g].newfacet).unwrap_or(self.list.len());
                }
            } else {
                self.move_to_end(best);
                self.facets[best].newfacet = true;
            }
        }
    }

    /// qh_addpoint for point `p`, the furthest point of facet `start`.
    fn addpoint(&mut self, p: usize, start: usize) {
        self.moved.clear();
        // Horizon: visible facets breadth-first, moved to the end of the list.
        self.move_to_end(start);
        let mut visible = vec![start];
        self.facets[start].visible = true;
        let mut seen = vec![start];
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            for g in self.neighbors(f).into_iter().flatten() {
                if seen.contains(&g) {
                    continue;
                }
                seen.push(g);
                let d = self.dist(g, p);
                if d > self.min_visible {
                    self.move_to_end(g);
                    self.facets[g].visible = true;
                    visible.push(g);
                } else if d >= -self.min_visible {
                    // Coplanar horizon: qhull would merge.
                    self.bail = true;
                }
            }
        }
        let apex = self.vpoint.len();
        self.vpoint.push(p);
        // Drop visible facets from the edge map, then create the new facets in order.
        for &f in &visible {
            let v = self.facets[f].vid;
            for (x, y) in [(v[0], v[1]), (v[1], v[2]), (v[0], v[2])] {
                if let Some(l) = self.edges.get_mut(&ekey(x, y)) {
                    l.retain(|&g| g != f);
                }
            }
            self.facets[f].alive = false;
        }
        for &f in &visible {
            let v = self.facets[f].vid;
            let mut last = None;
            for i in 0..3 {
                let (x, y) = match i {
                    0 => (v[1], v[2]),
                    1 => (v[0], v[2]),
                    _ => (v[0], v[1]),
                };
                let horizon = self.edges.get(&ekey(x, y)).and_then(|l| {
                    l.iter()
                        .copied()
                        .find(|&g| !self.facets[g].visible && self.facets[g].alive && !self.facets[g].newfacet)
                });
                if horizon.is_none() {
                    continue;
                }
                last = Some(self.make([apex, x, y]));
            }
            self.facets[f].replace = last;
        }
        // Partition the outside points of the visible facets.
        let first_new = self.list.iter().position(|&g| self.facets[g].newfacet).unwrap_or(self.list.len());
        for &f in &visible {
            let outside = std::mem::take(&mut self.facets[f].outside);
            if outside.is_empty() {
                continue;
            }
            let start = self.facets[f].replace.unwrap_or(self.list[first_new]);
            for q in outside {
                self.partition(q, start);
            }
        }
        self.scan_new = false;
        self.notsharp = false;
        for &f in &visible {
            self.remove(f);
        }
        for &g in &self.list {
            self.facets[g].newfacet = false;
        }
    }
}

/// Extreme points per axis as qhull's qh_maxmin lists them (min x, max x, min y, ...).
fn maxmin(pts: &[f64], n: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for k in 0..3 {
        let (mut lo, mut hi) = (0, 0);
        for i in 0..n {
            if pts[3 * hi + k] < pts[3 * i + k] {
                hi = i;
            } else if pts[3 * lo + k] > pts[3 * i + k] {
                lo = i;
            }
        }
        out.push(lo);
        out.push(hi);
    }
    out
}

/// |det| of the simplex rows (simplex points - apex), 2 or 3 rows.
fn det_simplex(pts: &[f64], apex: usize, simplex: &[usize]) -> f64 {
    let a = pt(pts, apex);
    let r: Vec<[f64; 3]> = simplex.iter().map(|&s| sub(&pt(pts, s), &a)).collect();
    if r.len() == 2 {
        (r[0][0] * r[1][1] - r[0][1] * r[1][0]).abs()
    } else {
        dot3(&r[0], &cross(&r[1], &r[2])).abs()
    }
}

/// The hull as qhull leaves it, in point indices.
#[derive(Clone, Debug, PartialEq)]
pub struct QhullHull {
    /// Triangles in facet-list order, counter-clockwise from outside (MuJoCo's `mesh_graph`
    /// faces).
    pub faces: Vec<[usize; 3]>,
    /// Corners in qhull's vertex-list order (MuJoCo's `vert_globalid`).
    pub vertices: Vec<usize>,
    /// Each triangle's corners in qhull's own order (decreasing vertex id), which decides the
    /// order of each corner's neighbours in MuJoCo's graph.
    pub facet_vertices: Vec<[usize; 3]>,
}

/// Triangles of the hull of `pts` in MuJoCo's `mesh_graph` order (counter-clockwise from
/// outside), or `None` if the input needs qhull's facet merging (see the module docs).
pub fn qhull_faces(pts: &[f64]) -> Option<Vec<[usize; 3]>> {
    qhull_hull(pts).map(|h| h.faces)
}

/// The hull of `pts` as qhull builds it (see [`QhullHull`]), or `None` if the input needs
/// qhull's facet merging (see the module docs).
pub fn qhull_hull(pts: &[f64]) -> Option<QhullHull> {
    let n = pts.len() / 3;
    if n < 4 {
        return None;
    }
    let maxp = maxmin(pts, n);
    let mut maxabs = [0.0f64; 3];
    let mut width = 0.0f64;
    for k in 0..3 {
        let (lo, hi) = (pts[3 * maxp[2 * k] + k], pts[3 * maxp[2 * k + 1] + k]);
        maxabs[k] = hi.max(-lo);
        width = width.max(hi - lo);
    }
    let maxabs_all = maxabs[0].max(maxabs[1]).max(maxabs[2]);
    let maxsum = maxabs[0] + maxabs[1] + maxabs[2];
    let distround = f64::EPSILON * (3.0 * (3f64.sqrt() * maxabs_all).min(maxsum) * 1.01 + maxabs_all);
    let min_visible = 2.0 * distround;
    let min_outside = 2.0 * min_visible;
    // Initial simplex.
    let (mut minx, mut maxx) = (maxp[0], maxp[0]);
    for &p in &maxp {
        if pts[3 * maxx] < pts[3 * p] {
            maxx = p;
        }
        if pts[3 * minx] > pts[3 * p] {
            minx = p;
        }
    }
    if minx == maxx {
        return None;
    }
    let mut simplex = vec![minx, maxx];
    let mut prevdet = width;
    for i in 2..4 {
        let mut best: Option<(usize, f64)> = None;
        for &p in &maxp {
            if simplex.contains(&p) || best.is_some_and(|(b, _)| b == p) {
                continue;
            }
            let d = det_simplex(pts, p, &simplex[..i]);
            if best.is_none_or(|(_, bd)| d > bd) {
                best = Some((p, d));
            }
        }
        let target = prevdet * width;
        let ok = best.is_some_and(|(_, d)| d > 0.0 && d / target >= 1e-3);
        if !ok {
            // qhull then scans all points; keep it simple and let the caller fall back.
            return None;
        }
        let (p, d) = best?;
        simplex.push(p);
        prevdet = d;
    }
    let mut interior = [0.0; 3];
    for &s in &simplex {
        let x = pt(pts, s);
        for k in 0..3 {
            interior[k] += x[k] / 4.0;
        }
    }
    // Vertex id 0 is qhull's sentinel; ids 1..4 follow the simplex order.
    let mut vpoint = vec![usize::MAX];
    vpoint.extend_from_slice(&simplex);
    let mut qh = Qh {
        pts,
        vpoint,
        facets: Vec::new(),
        list: Vec::new(),
        next: 0,
        edges: HashMap::new(),
        interior,
        min_visible,
        min_outside,
        bail: false,
        scan_new: false,
        notsharp: false,
        vlist: vec![1, 2, 3, 4],
        moved: vec![1, 2, 3, 4],
    };
    let desc = [4, 3, 2, 1];
    for skip in 0..4 {
        let v: Vec<usize> = desc.iter().copied().filter(|&x| x != desc[skip]).collect();
        qh.make([v[0], v[1], v[2]]);
    }
    // Partition all other points.
    let distoutside = 2.0 * min_outside;
    let mut rest: Vec<usize> = (0..n).filter(|i| !simplex.contains(i)).collect();
    for &f in &qh.list.clone() {
        let mut keep = Vec::new();
        let mut best: Option<(usize, f64)> = None;
        for &p in &rest {
            let d = qh.dist(f, p);
            if d < distoutside {
                keep.push(p);
                continue;
            }
            match best {
                None => best = Some((p, d)),
                Some((b, bd)) if d > bd => {
                    qh.facets[f].outside.push(b);
                    best = Some((p, d));
                }
                _ => qh.facets[f].outside.push(p),
            }
        }
        if let Some((b, bd)) = best {
            qh.facets[f].outside.push(b);
            qh.facets[f].furthest = bd;
        }
        rest = keep;
    }
    for &p in &rest {
        let max = qh.list.iter().map(|&f| qh.dist(f, p)).fold(f64::MIN, f64::max);
        if max >= -min_visible {
            return None;
        }
    }
    for &g in &qh.list {
        qh.facets[g].newfacet = false;
    }
    // The facet with the furthest point goes first.
    let mut best: Option<(usize, f64)> = None;
    for &f in &qh.list {
        if !qh.facets[f].outside.is_empty() && best.is_none_or(|(_, d)| qh.facets[f].furthest > d) {
            best = Some((f, qh.facets[f].furthest));
        }
    }
    if let Some((f, _)) = best {
        qh.remove(f);
        qh.list.insert(0, f);
    }
    qh.next = 0;
    loop {
        while qh.next < qh.list.len() && qh.facets[qh.list[qh.next]].outside.is_empty() {
            qh.next += 1;
        }
        if qh.next >= qh.list.len() {
            break;
        }
        let f = qh.list[qh.next];
        let p = qh.facets[f].outside.pop()?;
        qh.addpoint(p, f);
        if qh.bail {
            return None;
        }
    }
    // Output: vertex order with the orientation made counter-clockwise from outside.
    let mut faces = Vec::new();
    let mut facet_vertices = Vec::new();
    let mut used = vec![false; qh.vpoint.len()];
    for &f in &qh.list {
        let fc = &qh.facets[f];
        let [a, b, c] = fc.vid.map(|v| qh.vpoint[v]);
        let (pa, pb, pc) = (pt(pts, a), pt(pts, b), pt(pts, c));
        let nrm = cross(&sub(&pb, &pa), &sub(&pc, &pa));
        faces.push(if dot3(&nrm, &fc.normal) > 0.0 { [a, b, c] } else { [b, a, c] });
        facet_vertices.push([a, b, c]);
        for v in fc.vid {
            used[v] = true;
        }
    }
    // vertices left inside the hull were deleted from the list
    let vertices = qh.vlist.iter().filter(|&&v| used[v]).map(|&v| qh.vpoint[v]).collect();
    Some(QhullHull { faces, vertices, facet_vertices })
}
