//! Hull polygons: coplanar hull triangles merged into faces with ordered vertex loops.
//!
//! MuJoCo stores these per mesh (`mesh_polyvert`, `mesh_polynormal`, `mesh_polymap`), and the
//! paths that use them (plane-vs-mesh contacts, flat multi-contact) depend on their order, on
//! where each loop starts and on the normals' last bits. A [`ConvexHull`] built from a compiled
//! model carries that table ([`crate::narrowphase::PolygonTable`]) and it is served as is; for a
//! hull without one (made by hand, or from triangles only) the polygons are rebuilt here from
//! the hull triangles. Each loop runs counter-clockwise seen from outside, i.e. around the
//! outward normal by the right-hand rule, as MuJoCo's do.

use crate::math::{cross, dot3, sub3};
use crate::narrowphase::ConvexHull;

/// Faces are grouped when their normals fall in the same 0.01 rad bucket of azimuth and polar
/// angle (MuJoCo's `kAngleTol` in `mjCMesh::MakePolygons`).
const ANGLE_TOL: f64 = 0.01;
/// Hulls without usable triangles are rebuilt from their adjacency only up to this size.
const MAX_REBUILD: usize = 256;

/// One polygonal face of a hull.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Polygon {
    /// Hull vertex indices, counter-clockwise about `normal`.
    pub verts: Vec<usize>,
    /// Outward unit normal in the hull frame.
    pub normal: [f64; 3],
}

/// A hull's polygons, built once and shared by every collision of that hull.
#[derive(Debug, PartialEq)]
pub(crate) struct HullPolygons {
    /// Every polygon, grouped as [`hull_polygons`] returns them.
    pub polys: Vec<Polygon>,
    /// Per hull vertex, the polygons whose loop passes through it, in polygon order.
    pub polymap: Vec<Vec<usize>>,
    /// Per hull vertex, whether a polygon group with at least one polygon has a triangle on it
    /// (then `hull_polygons(h, Some(&[v]))` is not empty). Only the tests read it now, to check
    /// the table against the reference build.
    #[cfg_attr(not(test), allow(dead_code))]
    pub touched: Vec<bool>,
    /// Per polygon, the (sorted) vertices of the triangles of its group (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    group_verts: Vec<std::rc::Rc<[usize]>>,
}

impl HullPolygons {
    /// The polygon table of `h`: the compiler's if the hull carries one, else rebuilt.
    fn new(h: &ConvexHull) -> Self {
        match &h.polygons {
            Some(t) => Self::from_table(h.vert.len(), t),
            None => Self::rebuild(h),
        }
    }

    /// The compiler's table; `polymap` lists, per vertex, the polygons through it in polygon
    /// order (how MuJoCo fills `mesh_polymap`).
    fn from_table(n: usize, t: &crate::narrowphase::PolygonTable) -> Self {
        let polys: Vec<Polygon> = t
            .verts
            .iter()
            .zip(&t.normals)
            .map(|(v, &normal)| Polygon { verts: v.iter().map(|&k| k as usize).collect(), normal })
            .collect();
        let mut polymap = vec![Vec::new(); n];
        let mut touched = vec![false; n];
        let mut group_verts = Vec::with_capacity(polys.len());
        for (p, poly) in polys.iter().enumerate() {
            for &v in &poly.verts {
                if let Some(list) = polymap.get_mut(v) {
                    list.push(p);
                    touched[v] = true;
                }
            }
            let mut g = poly.verts.clone();
            g.sort_unstable();
            group_verts.push(g.into());
        }
        HullPolygons { polys, polymap, touched, group_verts }
    }

    /// Rebuilt from the hull's triangles (see [`polygon_groups`]).
    fn rebuild(h: &ConvexHull) -> Self {
        let n = h.vert.len();
        let mut polys = Vec::new();
        let mut touched = vec![false; n];
        let mut group_verts = Vec::new();
        for (verts, group) in polygon_groups(h) {
            if group.is_empty() {
                continue;
            }
            for &v in &verts {
                if let Some(t) = touched.get_mut(v) {
                    *t = true;
                }
            }
            let verts: std::rc::Rc<[usize]> = verts.into();
            group_verts.extend(std::iter::repeat_n(verts, group.len()));
            polys.extend(group);
        }
        let mut polymap = vec![Vec::new(); n];
        for (p, poly) in polys.iter().enumerate() {
            for &v in &poly.verts {
                polymap[v].push(p);
            }
        }
        HullPolygons { polys, polymap, touched, group_verts }
    }

    /// Whether polygon `p` belongs to a group with a triangle on one of the vertices `ids`
    /// (i.e. `hull_polygons(h, Some(ids))` would return it).
    #[cfg(test)]
    pub fn through(&self, p: usize, ids: &[usize]) -> bool {
        self.group_verts.get(p).is_some_and(|g| ids.iter().any(|v| g.binary_search(v).is_ok()))
    }

    /// Whether some polygon group touches one of the vertices `ids`.
    #[cfg(test)]
    pub fn touches(&self, ids: &[usize]) -> bool {
        ids.iter().any(|&v| self.touched.get(v).copied().unwrap_or(false))
    }
}

/// What the narrowphase derives from a hull once and reuses on every call: MuJoCo computes
/// these in its compiler (`mesh_extrema`, `mesh_polyvert`); rebuilding them per collision call
/// (a pass over the vertices, atan2/acos per triangle) dominated mesh-mesh scenes.
#[derive(Debug)]
pub(crate) struct HullData {
    /// Hill-climbing seeds (see `ConvexObj`), for hulls that hill-climb.
    pub extrema: Option<[u32; 27]>,
    /// Hull vertex ids in the order of the mesh's own vertex list (`ConvexHull::mesh_id`), the
    /// order of the exhaustive support search; empty when that is the hull's order.
    pub scan: Vec<usize>,
    /// Polygon table, built on first use.
    polys: std::cell::OnceCell<HullPolygons>,
}

impl HullData {
    /// The polygon table of hull `h` (the hull this data was made for).
    pub fn polygons(&self, h: &ConvexHull) -> &HullPolygons {
        self.polys.get_or_init(|| HullPolygons::new(h))
    }
}

/// Most hulls whose data is kept at once (per thread).
const CACHE_SIZE: usize = 64;

/// How many values of each hull array [`fingerprint`] reads: all of a small hull's, and evenly
/// spread ones of a big hull's, so a lookup costs the same whatever the hull's size.
const FINGERPRINT_SAMPLES: usize = 256;

/// A cached hull: its address, the fingerprint of what the derived data depends on, and the
/// data.
struct CacheEntry {
    /// Address of the `ConvexHull` the data was made for.
    addr: usize,
    /// [`fingerprint`] of that hull when the data was made.
    fingerprint: u64,
    /// The [`with_fixed_hulls`] scope in which the fingerprint was last checked (0: none).
    checked_in: u64,
    /// The derived data.
    data: std::rc::Rc<HullData>,
}

/// FNV-1a step over one 64-bit word.
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x0000_0100_0000_01b3)
}

/// Indices of up to `most` elements of an array of `n`, evenly spread, first and last included
/// (every index when `n` is at most that).
fn samples(n: usize, most: usize) -> impl Iterator<Item = usize> {
    let k = n.min(most);
    (0..k).map(move |i| if k == n { i } else { i * (n - 1) / (k - 1).max(1) })
}

/// What identifies a hull's derived data: the address and length of each of its arrays, the
/// mesh vertex count, and the values of up to [`FINGERPRINT_SAMPLES`] entries of each array (all
/// of them in a hull that small; of each sampled polygon of a bigger table, its length and four
/// of its vertices). A hull freed and replaced at the same address, or edited in place (scaled,
/// reshaped, given another polygon table), gets another fingerprint; only an edit confined to
/// unsampled entries of a big hull, keeping every array where it was, would be served the old
/// data (the stage replaces hulls whole, so it never does that). The lookup used to compare a
/// copy of the whole hull, which for a big mesh cost more than the collision call it served
/// (issue 16: a scene with a duplicated 40k-vertex mesh geom spent a third of its time there).
fn fingerprint(h: &ConvexHull) -> u64 {
    let mut f = 0xcbf2_9ce4_8422_2325;
    for w in [h.vert.len(), h.face.len(), h.adjacency.len(), h.mesh_id.len(), h.mesh_nvert] {
        f = mix(f, w as u64);
    }
    for p in [h.vert.as_ptr() as usize, h.face.as_ptr() as usize, h.mesh_id.as_ptr() as usize] {
        f = mix(f, p as u64);
    }
    for i in samples(h.vert.len(), FINGERPRINT_SAMPLES) {
        for x in h.vert[i] {
            f = mix(f, x.to_bits());
        }
    }
    for i in samples(h.face.len(), FINGERPRINT_SAMPLES) {
        let [a, b, c] = h.face[i];
        f = mix(f, (a as u64) << 32 | b as u64);
        f = mix(f, c as u64);
    }
    for i in samples(h.mesh_id.len(), FINGERPRINT_SAMPLES) {
        f = mix(f, h.mesh_id[i] as u64);
    }
    match &h.polygons {
        None => mix(f, u64::MAX),
        Some(t) => {
            f = mix(f, t.verts.len() as u64);
            f = mix(f, t.normals.len() as u64);
            f = mix(f, t.verts.as_ptr() as usize as u64);
            let per_polygon = if t.verts.len() <= FINGERPRINT_SAMPLES { usize::MAX } else { 4 };
            for i in samples(t.verts.len(), FINGERPRINT_SAMPLES) {
                let p = &t.verts[i];
                f = mix(f, p.len() as u64);
                for k in samples(p.len(), per_polygon) {
                    f = mix(f, p[k] as u64);
                }
            }
            for i in samples(t.normals.len(), FINGERPRINT_SAMPLES) {
                for x in t.normals[i] {
                    f = mix(f, x.to_bits());
                }
            }
            f
        }
    }
}

thread_local! {
    /// Data of recently seen hulls, oldest first.
    static CACHE: std::cell::RefCell<Vec<CacheEntry>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The [`with_fixed_hulls`] scope running on this thread (0: none).
    static SCOPE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Runs `f` as a scope in which no hull changes (a collision call, during which the model is
/// borrowed immutably): a hull's fingerprint is then checked once per scope rather than once
/// per lookup. A lookup made for a pair reads the whole fingerprint (hundreds of dependent
/// hash steps for a small mesh), which cost about as much as MuJoCo's whole mesh collision.
pub fn with_fixed_hulls<R>(f: impl FnOnce() -> R) -> R {
    with_hull_scope(new_hull_scope(), f)
}

/// A scope id no scope has used.
pub fn new_hull_scope() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// [`with_fixed_hulls`] with a scope id of the caller's (from [`new_hull_scope`]): a caller that
/// owns its hulls can run several calls in one scope, as long as none of the hulls changes
/// between them (it takes a new id when one may have).
pub fn with_hull_scope<R>(id: u64, f: impl FnOnce() -> R) -> R {
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPE.with(|s| s.replace(id)));
    f()
}

/// The derived data of `h`, made on first use (`extrema` computes the seeds) and then taken
/// from a per-thread cache, found by the hull's address and [`fingerprint`] (checked once per
/// [`with_fixed_hulls`] scope).
pub(crate) fn hull_data(
    h: &ConvexHull,
    extrema: impl FnOnce(&ConvexHull) -> Option<[u32; 27]>,
) -> std::rc::Rc<HullData> {
    let addr = h as *const ConvexHull as usize;
    let scope = SCOPE.with(std::cell::Cell::get);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if scope != 0 {
            if let Some(e) = c.iter().find(|e| e.addr == addr && e.checked_in == scope) {
                return e.data.clone();
            }
        }
        let fp = fingerprint(h);
        if let Some(e) = c.iter_mut().find(|e| e.addr == addr && e.fingerprint == fp) {
            e.checked_in = scope;
            return e.data.clone();
        }
        let data =
            std::rc::Rc::new(HullData { extrema: extrema(h), scan: scan_order(h), polys: std::cell::OnceCell::new() });
        if c.len() >= CACHE_SIZE {
            c.remove(0);
        }
        c.push(CacheEntry { addr, fingerprint: fp, checked_in: scope, data: data.clone() });
        data
    })
}

/// Hull vertex ids sorted by their mesh vertex id (empty if the hull carries no ids, or they
/// are already in order).
fn scan_order(h: &ConvexHull) -> Vec<usize> {
    if h.mesh_id.len() != h.vert.len() || h.mesh_id.windows(2).all(|w| w[0] < w[1]) {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..h.vert.len()).collect();
    order.sort_by_key(|&k| h.mesh_id[k]);
    order
}

/// The hull's polygons through at least one of the vertices in `through` (all if `None`),
/// built from scratch (the collision paths use [`cached_polygons`]; this is the reference).
#[cfg(test)]
pub(crate) fn hull_polygons(h: &ConvexHull, through: Option<&[usize]>) -> Vec<Polygon> {
    let mut out = Vec::new();
    for (verts, group) in polygon_groups(h) {
        if let Some(vs) = through {
            if !verts.iter().any(|v| vs.contains(v)) {
                continue;
            }
        }
        out.extend(group);
    }
    out
}

/// The hull's polygon groups: per group, the vertices of its triangles and its polygons.
///
/// Algorithm (as MuJoCo's compiler builds `mesh_polyvert`):
/// 1. Take the hull triangles, outward wound (rebuilt from the adjacency when `face` does not
///    use hull vertex ids).
/// 2. Key each triangle by its normal's azimuth and polar angle, rounded to 0.01 rad; triangles
///    with equal keys form one polygon (near-coplanar faces merge, as in MuJoCo).
/// 3. Insert the triangles of a group one by one, cancelling shared edges; the remaining edges,
///    followed head to tail, give the boundary loop(s).
/// 4. The polygon normal is that of its first three loop vertices.
///
/// MuJoCo keys the faces in the mesh's original frame, before aligning it with its inertia
/// frame; here the (rotated) hull frame is used, which can differ only for faces whose normal
/// lies within rounding of a bucket boundary.
///
/// This is the fallback for hulls without the compiler's table. Known differences from MuJoCo
/// 4.0.0's table, which multi-contact depends on (measured on the 8-vertex mesh of
/// `tests/narrowphase_oracle.rs`): MuJoCo lists the polygons in the iteration order of its
/// compiler's hash map of keys, and each loop starts where that map's merge left it, while here
/// polygons come in order of their first triangle; and MuJoCo's normals come from the
/// double-precision vertices (they differ from ones computed from the stored float vertices by
/// ~1e-8). With MuJoCo's own table substituted, mesh pairs agreed with its pair functions on
/// 1500 of 1500 poses within 1e-9; with this one, 95-98% within 1e-6.
fn polygon_groups(h: &ConvexHull) -> Vec<(Vec<usize>, Vec<Polygon>)> {
    let Some(faces) = local_faces(h) else {
        return Vec::new();
    };
    // group faces by their angle key, in order of first appearance
    let mut keys: Vec<(i64, i64)> = Vec::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (fi, f) in faces.iter().enumerate() {
        let Some(k) = angle_key(&h.vert[f[0]], &h.vert[f[1]], &h.vert[f[2]]) else {
            continue;
        };
        match keys.iter().position(|&x| x == k) {
            Some(g) => groups[g].push(fi),
            None => {
                keys.push(k);
                groups.push(vec![fi]);
            }
        }
    }
    let mut out = Vec::with_capacity(groups.len());
    for g in &groups {
        let mut verts: Vec<usize> = g.iter().flat_map(|&fi| faces[fi]).collect();
        verts.sort_unstable();
        verts.dedup();
        let mut poly = Merger::new(faces[g[0]]);
        for &fi in &g[1..] {
            poly.insert(faces[fi]);
        }
        let mut polys = Vec::new();
        for path in poly.paths() {
            if path.len() < 3 {
                continue;
            }
            let normal = make_normal(&h.vert[path[0]], &h.vert[path[1]], &h.vert[path[2]]);
            polys.push(Polygon { verts: path, normal });
        }
        out.push((verts, polys));
    }
    out
}

/// Rounded (azimuth, polar) angle of a triangle's normal; `None` if degenerate.
fn angle_key(v1: &[f64; 3], v2: &[f64; 3], v3: &[f64; 3]) -> Option<(i64, i64)> {
    let n = cross(&sub3(v2, v1), &sub3(v3, v1));
    let norm = dot3(&n, &n).sqrt();
    if norm < 1e-15 {
        return None;
    }
    // adding 0.0 turns -0.0 into +0.0, which matters to atan2
    let n = [n[0] / norm + 0.0, n[1] / norm + 0.0, n[2] / norm + 0.0];
    if n[2].abs() > 1.0 - 1e-7 {
        let phi = if n[2] < 0.0 { (std::f64::consts::PI / ANGLE_TOL).round() } else { 0.0 };
        return Some((0, phi as i64));
    }
    let theta = (n[1].atan2(n[0]) / ANGLE_TOL).round();
    let phi = (n[2].acos() / ANGLE_TOL).round();
    Some((theta as i64, phi as i64))
}

/// Unit normal of the plane through three points (x axis if degenerate).
fn make_normal(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    let mut n = cross(&sub3(b, a), &sub3(c, a));
    let norm = dot3(&n, &n).sqrt();
    if norm < 1e-14 {
        return [1.0, 0.0, 0.0];
    }
    n = [n[0] / norm, n[1] / norm, n[2] / norm];
    n
}

/// Outward-wound hull triangles in hull vertex ids: `face` if it is consistent with the
/// adjacency (every edge of every triangle is a hull edge), otherwise rebuilt from the adjacency
/// (triangles of mutually adjacent vertices whose plane supports the hull), for hulls of up to
/// `MAX_REBUILD` vertices.
fn local_faces(h: &ConvexHull) -> Option<Vec<[usize; 3]>> {
    let corners = h.corners();
    let n = corners.len();
    let has_adj = h.adjacency.len() == h.vert.len();
    let adj = |a: usize, b: usize| h.adjacency[a].contains(&(b as u32));
    let consistent = !h.face.is_empty()
        && h.face.iter().all(|f| {
            let t = f.map(|i| i as usize);
            t.iter().all(|&i| i < n) && (!has_adj || (adj(t[0], t[1]) && adj(t[1], t[2]) && adj(t[2], t[0])))
        });
    if n == 0 {
        return None;
    }
    let mut c = [0.0; 3];
    for v in corners {
        c = [c[0] + v[0], c[1] + v[1], c[2] + v[2]];
    }
    c = [c[0] / n as f64, c[1] / n as f64, c[2] / n as f64];
    if consistent {
        // MuJoCo's graph faces are wound outward already; fix any that are not
        let outward = |t: [usize; 3]| {
            let nrm = cross(&sub3(&h.vert[t[1]], &h.vert[t[0]]), &sub3(&h.vert[t[2]], &h.vert[t[0]]));
            if dot3(&nrm, &sub3(&h.vert[t[0]], &c)) < 0.0 {
                [t[0], t[2], t[1]]
            } else {
                t
            }
        };
        return Some(h.face.iter().map(|f| outward(f.map(|i| i as usize))).collect());
    }
    if !has_adj || !(4..=MAX_REBUILD).contains(&n) {
        return None;
    }
    let scale = corners.iter().map(|v| dot3(&sub3(v, &c), &sub3(v, &c))).fold(0.0, f64::max).sqrt();
    let tol = 1e-9 * scale.max(1e-300);
    let mut out = Vec::new();
    for a in 0..n {
        for &b in &h.adjacency[a] {
            let b = b as usize;
            for &d in &h.adjacency[a] {
                let d = d as usize;
                if b <= a || d <= b || b >= n || d >= n || !adj(b, d) {
                    continue;
                }
                let mut t = [a, b, d];
                let mut nrm = cross(&sub3(&h.vert[b], &h.vert[a]), &sub3(&h.vert[d], &h.vert[a]));
                let len = dot3(&nrm, &nrm).sqrt();
                if len == 0.0 {
                    continue;
                }
                nrm = [nrm[0] / len, nrm[1] / len, nrm[2] / len];
                if dot3(&nrm, &sub3(&h.vert[a], &c)) < 0.0 {
                    nrm = [-nrm[0], -nrm[1], -nrm[2]];
                    t.swap(1, 2);
                }
                let off = dot3(&nrm, &h.vert[a]);
                if corners.iter().all(|x| dot3(&nrm, x) - off <= tol) {
                    out.push(t);
                }
            }
        }
    }
    Some(out)
}

/// Incremental merge of the triangles of one polygon (MuJoCo's `MeshPolygon`): directed edges
/// that meet their reverse cancel; `islands` tracks which connected piece each edge is in.
struct Merger {
    /// Remaining directed edges.
    edges: Vec<(usize, usize)>,
    /// Island of each edge.
    islands: Vec<usize>,
    /// Number of islands.
    nisland: usize,
}

impl Merger {
    /// Start from one triangle.
    fn new(t: [usize; 3]) -> Self {
        Merger { edges: vec![(t[0], t[1]), (t[1], t[2]), (t[2], t[0])], islands: vec![0; 3], nisland: 1 }
    }

    /// Renumber island `b` into `a`, keeping island ids dense; `a` becomes the smaller id.
    fn combine(&mut self, a: &mut usize, b: &mut usize) {
        if *b < *a {
            std::mem::swap(a, b);
        }
        for k in self.islands.iter_mut() {
            if *k == *b {
                *k = *a;
            } else if *k > *b {
                *k -= 1;
            }
        }
    }

    /// Add a triangle, cancelling each of its edges whose reverse is present.
    fn insert(&mut self, t: [usize; 3]) {
        let mut island: Option<usize> = None;
        let mut add = [true; 3];
        for e in 0..3 {
            let (p, q) = (t[e], t[(e + 1) % 3]);
            if let Some(i) = self.edges.iter().position(|&(a, b)| a == q && b == p) {
                let mut other = self.islands[i];
                match island {
                    None => island = Some(other),
                    Some(mut cur) if cur != other => {
                        self.nisland -= 1;
                        self.combine(&mut cur, &mut other);
                        island = Some(cur);
                    }
                    _ => {}
                }
                add[e] = false;
                self.edges.remove(i);
                self.islands.remove(i);
            }
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for e in 0..3 {
            if add[e] {
                self.edges.push((t[e], t[(e + 1) % 3]));
                self.islands.push(island);
            }
        }
    }

    /// The boundary loops, one per island, each starting at its island's first edge.
    fn paths(&self) -> Vec<Vec<usize>> {
        if self.edges.len() == 3 {
            return vec![vec![self.edges[0].0, self.edges[1].0, self.edges[2].0]];
        }
        let mut paths = Vec::new();
        for i in 0..self.nisland {
            let Some(j) = self.islands.iter().position(|&k| k == i) else { continue };
            let mut path = vec![self.edges[j].0, self.edges[j].1];
            let mut next = self.edges[j].1;
            for _ in 0..self.edges.len() {
                // MuJoCo scans from the second edge on
                let Some(k) = (1..self.edges.len()).find(|&k| self.islands[k] == i && self.edges[k].0 == next) else {
                    break;
                };
                next = self.edges[k].1;
                if next == path[0] {
                    paths.push(path);
                    break;
                }
                path.push(next);
            }
        }
        paths
    }
}

/// Area of the quadrilateral `a, b, c, d`: half the norm of the cross product of its diagonals.
///
/// MuJoCo 3.12's pruning used a different expression that is not the area for general quads
/// (it ties a trapezoid with a rectangle in a regular hexagon); the choices MuJoCo 4.0.0 makes
/// for hexagonal and octagonal faces (see the plane-mesh tests) match the true area with ties
/// left unadvanced, which is what this gives.
pub(crate) fn area4(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
    let g = cross(&sub3(c, a), &sub3(d, b));
    0.5 * dot3(&g, &g).sqrt()
}

/// Indices of four vertices of a convex polygon (in loop order, at least four vertices) that
/// span a quadrilateral of maximal area.
///
/// Algorithm (rotating-calipers style, as MuJoCo's multi-contact pruning): keep a quad
/// `(a, b, c, d)`; for each `a`, advance `d` while the area grows, and after each step of `d`
/// advance `c` and then `b` while the area grows; finally keep the four pointers distinct.
pub(crate) fn polygon_quad(p: &[[f64; 3]]) -> [usize; 4] {
    let n = p.len();
    let next = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut best = [0, 1, 2, 3];
    let mut m = area4(&p[0], &p[1], &p[2], &p[3]);
    for a in 0..n {
        loop {
            let mn = area4(&p[a], &p[b], &p[c], &p[next(d)]);
            if mn <= m {
                break;
            }
            m = mn;
            d = next(d);
            best = [a, b, c, d];
            loop {
                let mn = area4(&p[a], &p[b], &p[next(c)], &p[d]);
                if mn <= m {
                    break;
                }
                m = mn;
                c = next(c);
                best = [a, b, c, d];
            }
            loop {
                let mn = area4(&p[a], &p[next(b)], &p[c], &p[d]);
                if mn <= m {
                    break;
                }
                m = mn;
                b = next(b);
                best = [a, b, c, d];
            }
        }
        if b == a {
            b = next(b);
            if c == b {
                c = next(c);
                if d == c {
                    d = next(d);
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    #[test]
    fn cap_prune_keeps_mujocos_vertices() {
        // MuJoCo 4.0.0 measured (speculative contacts of a coin): a flat cap keeps the vertices
        // at 0, 67.5, 157.5 and 247.5 degrees; a tilted cap whose vertices at 45 to 247.5 degrees
        // are in reach (walked in the opposite direction, as the clockwise top cap is) keeps 45,
        // 112.5, 180 and 247.5. The regular polygon is full of area ties, so rounding takes part:
        // these are unit-radius caps at the origin.
        let step = 2.0 * crate::math::PI / 16.0;
        let cap: Vec<[f64; 3]> = (0..16).map(|k| [(k as f64 * step).cos(), (k as f64 * step).sin(), 0.0]).collect();
        let mut flat = polygon_quad(&cap);
        flat.sort_unstable();
        assert_eq!(flat, [0, 3, 7, 11]);
        let reach: Vec<[f64; 3]> = (2..12).rev().map(|k| cap[k]).collect();
        let mut tilted = polygon_quad(&reach).map(|i| 11 - i);
        tilted.sort_unstable();
        assert_eq!(tilted, [2, 5, 8, 11]);
    }

    use super::*;

    /// A square pyramid: apex over a unit square base (two base triangles merge into a quad).
    fn pyramid() -> ConvexHull {
        let vert = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]];
        let face = vec![[0, 2, 1], [0, 3, 2], [0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]];
        let adjacency = vec![vec![1, 2, 3, 4], vec![0, 2, 4], vec![0, 1, 3, 4], vec![0, 2, 4], vec![0, 1, 2, 3]];
        ConvexHull { vert, adjacency, face, polygons: None, mesh_id: Vec::new(), mesh_nvert: 0, nhull: 0 }
    }

    /// The cache key of a hull too big to read whole changes with every kind of edit the tests
    /// make in place (and stays put without one).
    #[test]
    fn a_hull_scope_checks_each_hull_once_and_a_new_scope_sees_edits() {
        let mut h = pyramid();
        let get = |h: &ConvexHull, scope: u64| with_hull_scope(scope, || hull_data(h, |_| None));
        let a = new_hull_scope();
        let first = get(&h, a);
        // unchanged: the same data, in the same scope and in a new one (fingerprint equal)
        assert!(std::rc::Rc::ptr_eq(&first, &get(&h, a)));
        assert!(std::rc::Rc::ptr_eq(&first, &get(&h, new_hull_scope())));
        let b = new_hull_scope();
        let before = get(&h, b);
        h.vert[0][2] += 0.5;
        // within scope `b` the hull is taken as unchanged (the caller's promise) ...
        assert!(std::rc::Rc::ptr_eq(&before, &get(&h, b)));
        // ... a new scope checks it again and rebuilds the data; outside any scope, every lookup does
        let after = get(&h, new_hull_scope());
        assert!(!std::rc::Rc::ptr_eq(&before, &after));
        h.vert[0][2] -= 0.25;
        assert!(!std::rc::Rc::ptr_eq(&after, &hull_data(&h, |_| None)));
    }

    #[test]
    fn fingerprint_of_a_big_hull_sees_edits_in_place() {
        let n = 1000;
        let vert: Vec<[f64; 3]> = (0..n).map(|i| [i as f64, (i * i) as f64, 1.0]).collect();
        let face: Vec<[u32; 3]> = (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
        let mut h = ConvexHull { vert, face, mesh_nvert: n, ..Default::default() };
        let fp = fingerprint(&h);
        assert_eq!(fingerprint(&h), fp);
        for v in &mut h.vert {
            *v = [v[0] * 0.5, v[1] * 0.5, v[2] * 0.5];
        }
        let scaled = fingerprint(&h);
        assert_ne!(scaled, fp);
        h.vert[n - 1][2] += 1.0;
        assert_ne!(fingerprint(&h), scaled);
        let last = fingerprint(&h);
        h.mesh_nvert += 1;
        assert_ne!(fingerprint(&h), last);
        let nvert = fingerprint(&h);
        h.polygons =
            Some(crate::narrowphase::PolygonTable { verts: vec![vec![0, 1, 2]], normals: vec![[0.0, 0.0, 1.0]] });
        assert_ne!(fingerprint(&h), nvert);
    }

    /// The cached table holds exactly the polygons the from-scratch build gives, and for each
    /// vertex the polygons through it in the same order.
    #[test]
    fn cached_table_matches_reference() {
        let h = pyramid();
        let data = hull_data(&h, |_| None);
        let tab = data.polygons(&h);
        assert_eq!(tab.polys, hull_polygons(&h, None));
        // hand-derived: one quad base and four triangular sides
        assert_eq!(tab.polys.len(), 5);
        assert_eq!(tab.polys.iter().filter(|p| p.verts.len() == 4).count(), 1);
        for v in 0..h.vert.len() {
            let subset = hull_polygons(&h, Some(&[v]));
            let via_table: Vec<Polygon> =
                (0..tab.polys.len()).filter(|&p| tab.through(p, &[v])).map(|p| tab.polys[p].clone()).collect();
            assert_eq!(via_table, subset, "vertex {v}");
            assert!(tab.touches(&[v]));
            let loops: Vec<&Polygon> = subset.iter().filter(|p| p.verts.contains(&v)).collect();
            let mapped: Vec<&Polygon> = tab.polymap[v].iter().map(|&p| &tab.polys[p]).collect();
            assert_eq!(mapped, loops, "vertex {v}");
        }
        // the apex lies on the four sides only
        assert_eq!(tab.polymap[4].len(), 4);
    }
}
