//! Emulation of qhull's facet order, for hulls in general position and hulls with flat facets.
//!
//! MuJoCo stores the hull triangles in the order of qhull's facet list, each rotated by qhull's
//! vertex order (vertices sorted by decreasing vertex id, the first two swapped when the facet
//! is `toporient`). The polygon table depends on that order, so this module replays the steps
//! of qhull (options `Qt`, default premerge `C-0`) that decide it:
//!
//! 1. Extreme points per axis (strict comparisons; the minimum is only updated when the point
//!    is not a new maximum), then the initial simplex: least and greatest x among them, then
//!    the point of largest |det| among the extremes (first wins ties; qhull's `det3_` expansion,
//!    whose rounding decides ties between symmetric points), scanning all points in input order
//!    when the best is nearly zero or below 1e-3 of the expected size (the previous det times
//!    the widest extent; the first "det" is the x extent of the first edge), and stopping at the
//!    first point above 10 times that ratio. Vertex ids 1..4 go to the simplex points in that
//!    order.
//! 2. The four initial facets omit the vertices in decreasing-id order; facet list = that order.
//! 3. Partition: each facet in list order takes the remaining points that are at least
//!    `distoutside` above it (furthest point kept last); the points left over are partitioned
//!    one by one by scanning all facets; the facet of the overall furthest point moves first.
//! 4. Loop: the first facet (from `facet_next`) with outside points gives its last point. The
//!    visible facets are found breadth-first in neighbour order and moved to the end of the
//!    list; a neighbour within `MINvisible` of the point is a coplanar horizon. For each visible
//!    facet in that order, new facets are appended: one per ridge with a horizon facet (in ridge
//!    order) when the facet has explicit ridges, then one per horizon neighbour without a ridge
//!    (neighbour order, apex first). New facets on a coplanar horizon merge into it
//!    ([`super::qhull_merge`]). The outside points of each visible facet go, in set order, to the
//!    new facet found by a greedy walk from its replacement (qh_findbest), then the best horizon
//!    facet search; after a merge (a non-simplicial new facet) all new facets are scanned
//!    (qh_findbestnew). A facet that receives its first outside point moves behind
//!    `facet_next`.
//! 5. Output (`Qt`): simplicial facets in list order, then the fans of the merged facets.
//!
//! Planes and distances use qhull's arithmetic bit for bit (qh_sethyperplane_det with its
//! Gaussian-elimination fallback for thin triangles, qh_normalize2, qh_distplane's summation
//! order): nearly coplanar facets make ties that the last bit decides (measured on MuJoCo's
//! `supersphere` meshes of model/surfacevel/carousel.xml, where the previous `dot + offset`
//! order picked another facet in a findbest walk and the face order diverged after ~1300
//! facets).
//!
//! After the merges of a step, a vertex of a merged facet that only one other facet shares (a
//! point on a straight hull edge: CAD edges, lattice points, makemesh's `supertorus` and
//! `supersphere` with flat parts) is renamed away as qhull's qh_rename_sharedvertex does
//! ([`qhull_rename`]).
//!
//! A step whose new facets are all clearly convex by their vertices does no premerge at all
//! (qh_checkzero); otherwise new facets whose centrums are within the centrum radius of a
//! neighbour merge as coplanar facets ([`super::qhull_nonconvex`]).
//!
//! Not replayed (then [`qhull_faces`] returns `None` and the caller keeps [`super::hull`]'s own
//! order): concave merges and the coplanar ones listed in [`super::qhull_nonconvex`],
//! redundant or degenerate neighbours (also after a rename), zero pivots.
//!
//! Cost: a step costs what it touches, not the size of the hull, so a hull of n corners takes
//! about n log n (issue 16: a closed sphere mesh whose every vertex is a corner took 0.7 s at 5k
//! vertices and 89 s at 40k; now 200k take about MuJoCo's time, `cargo bench --bench load`). The
//! facet list and the vertex list are linked lists ([`qhull_list`]), the first new facet is
//! kept (new facets are always the end of the list), searches mark facets with a visit number
//! as qhull does, "which live facets hold this vertex" is an incidence table built at the first
//! merge, a merged facet's vertices are marked rather than searched, and the per-facet data that
//! every distance test reads (the plane) sits in its own dense array. None of it changes an
//! order: the replay's decisions, and so its output, are the same as before.
//!
//! Validated against Python `mujoco` 4.0.0 (`mesh_graph` faces and `mesh_poly*`): identical for
//! all 60 hulls of the MJCF corpus (boxes, cubelets, pyramid, dodecahedron, icosahedron,
//! carousel's bags and ring, bunnies, dice, makemesh's builtins), for random normal clouds,
//! regular prisms and antiprisms, and random points on box surfaces; and against MuJoCo 4.0.0
//! through FFI (`tests/mesh_qhull_real.rs`) for the CAD meshes of robosuite's robots and
//! gymnasium-robotics' hand and fetch (90 of 93 hulls replayed, each identical; the other
//! three needed non-convex merges: robosuite's xarm7 `link3` and `link5` are replayed since
//! the coplanar premerge, docs/measurements.md M4) and generated CAD-like shapes.

use super::mass::{cross, dot3};
use super::qhull_simplex::{det_simplex, maxmin};

use super::qhull_vertices;

#[path = "qhull_ids.rs"]
mod qhull_ids;
#[path = "qhull_list.rs"]
mod qhull_list;
#[path = "qhull_log.rs"]
mod qhull_log;
#[path = "qhull_rename.rs"]
mod qhull_rename;
#[path = "qhull_run.rs"]
mod qhull_run;

pub(super) use qhull_ids::{set_del, Ids};
use qhull_list::{Chains, IdList};
pub(super) use qhull_log::log_replay;
pub use qhull_log::{with_replay_log, ReplayOutcome};
pub use qhull_run::{qhull_faces, qhull_hull, QhullHull};

/// A facet: vertex ids (decreasing), neighbours and ridges in qhull's set order.
pub(super) struct Facet {
    pub(super) vid: Ids,
    /// Neighbour facets; for a simplicial facet neighbour `i` is opposite vertex `i`.
    pub(super) nb: Ids,
    /// Explicit ridges (`None` until qhull allocates the set).
    pub(super) ridges: Option<Vec<usize>>,
    pub(super) simplicial: bool,
    /// False for a new facet that will merge into its coplanar horizon (qhull makes no plane).
    pub(super) has_plane: bool,
    pub(super) outside: Vec<usize>,
    pub(super) furthest: f64,
    pub(super) visible: bool,
    pub(super) newfacet: bool,
    pub(super) replace: Option<usize>,
    pub(super) coplanarhorizon: bool,
    pub(super) mergehorizon: bool,
    /// Merged in the current step (qhull's `newmerge`).
    pub(super) newmerge: bool,
    /// Next facet of the cycle of new facets sharing one coplanar horizon.
    pub(super) samecycle: Option<usize>,
    pub(super) newcycle: Option<usize>,
    pub(super) seen: bool,
}

/// A facet's hyperplane: unit normal (pointing out) and offset, the signed distance of `x` being
/// `offset + x . normal`. Kept apart from [`Facet`] in one dense array: every distance test of
/// the build reads one, and a 200k-vertex hull makes over a million facets.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Plane {
    pub(super) normal: [f64; 3],
    pub(super) offset: f64,
}

/// A ridge (edge) between two facets, vertex ids decreasing.
pub(super) struct Ridge {
    pub(super) v: [usize; 2],
    pub(super) f: [usize; 2],
}

/// The emulated qhull state.
pub(super) struct Qh<'a> {
    pub(super) pts: &'a [f64],
    /// Point index of each vertex id.
    pub(super) vpoint: Vec<usize>,
    /// Coordinates of each vertex id (the point of [`Qh::vpoint`], kept dense).
    vpos: Vec<[f64; 3]>,
    pub(super) facets: Vec<Facet>,
    /// Each facet's hyperplane (zero until [`Qh::set_plane`]).
    pub(super) planes: Vec<Plane>,
    /// Each facet's centrum once computed (qhull's `facet->center`; cleared when its vertices
    /// or plane change).
    pub(super) centrums: Vec<Option<[f64; 3]>>,
    pub(super) ridges: Vec<Ridge>,
    /// Facet list order (qh.facet_list), without visible facets once they are deleted.
    pub(super) list: IdList,
    /// qh.facet_next (`None`: the end of the list; the next facet appended becomes it).
    pub(super) next: Option<usize>,
    /// qh.newfacet_list: the first new facet. New facets are always the end of the list (each
    /// is appended or moved to the end when it becomes new, and the flags are cleared together
    /// at the end of a step), so this is the first facet of the list whose `newfacet` is set.
    pub(super) newlist: Option<usize>,
    pub(super) interior: [f64; 3],
    pub(super) min_visible: f64,
    pub(super) min_outside: f64,
    /// qh.max_outside (raised by coplanar horizons above a facet).
    pub(super) max_outside: f64,
    /// Number of merges so far (qhull widens its searches after 50).
    pub(super) merges: usize,
    /// Set when a case arises that this emulation does not cover.
    pub(super) bail: bool,
    /// Facets merged away in this step's premerge, in merge order (qh_willdelete prepends each
    /// to qhull's visible list, so their outside sets are partitioned first, last one first).
    pub(super) merged_away: Vec<usize>,
    /// qh.findbestnew: partition by scanning all new facets (set when the cone is sharp).
    scan_new: bool,
    /// qh.findbest_notsharp: the cone was tested and is not sharp.
    notsharp: bool,
    /// qh.vertex_list: vertex ids in list order.
    pub(super) vlist: IdList,
    /// Vertices already moved to the end of `vlist` by the current point's new facets.
    pub(super) moved: Vec<usize>,
    /// `moved` as a flag per vertex id.
    moved_flag: Vec<bool>,
    /// For each vertex id, the facets (any, in no particular order) whose `vid` holds it: the
    /// "which live facets hold this vertex" questions of the merges and renames look here
    /// instead of scanning the facet list. Built at the first merge ([`Qh::vfacets_build`]),
    /// as only merges ask.
    vfacets: Chains,
    vfacets_on: bool,
    /// Per facet, the last search that visited it (qhull's `visitid`), and that search's mark.
    pub(super) visit: Vec<u64>,
    visit_id: u64,
    /// Per vertex id, the last [`Qh::mark_vertices`] that marked it.
    pub(super) vmark: Vec<u64>,
    /// Facets marked `coplanarhorizon` in this step (cleared with the new facets' flags).
    horizon_marked: Vec<usize>,
    /// qh_matchnewfacets' table: per base vertex id, the apex of the step that last wrote it,
    /// how many new facets hold it and the first two of them.
    by_ridge: Vec<(usize, usize, [usize; 2])>,
    /// qhull's per-vertex facet sets ([`qhull_vertices`]).
    pub(super) vsets: qhull_vertices::VertexSets,
    /// Vertex ids on a ridge deleted by this step's merges (qhull's `delridge`), the ones
    /// whose renaming is tried ([`qhull_rename`]).
    pub(super) delridge: Vec<usize>,
}

/// Point `i` of a flat xyz array.
pub(super) fn pt(pts: &[f64], i: usize) -> [f64; 3] {
    [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]]
}

/// qh_sethyperplane_gauss for a triangle (rows `p1 - p0`, `p2 - p0`): partial pivoting,
/// back substitution from a last normal component of 1, normalisation and qhull's offset sum.
/// The sign is fixed by the caller (negation is exact). `None` for a zero pivot.
fn gauss_plane(p0: &[f64; 3], p1: &[f64; 3], p2: &[f64; 3]) -> Option<([f64; 3], f64)> {
    let mut rows = [sub(p1, p0), sub(p2, p0)];
    if rows[1][0].abs() > rows[0][0].abs() {
        rows.swap(0, 1);
    }
    let pivot = rows[0][0];
    if pivot == 0.0 {
        return None;
    }
    let m = rows[1][0] / pivot;
    let r0 = rows[0];
    for (x, y) in rows[1].iter_mut().zip(r0).skip(1) {
        *x -= m * y;
    }
    let mut n = [0.0, 0.0, 1.0];
    for i in (0..2).rev() {
        let mut v = 0.0;
        for j in i + 1..3 {
            v -= rows[i][j] * n[j];
        }
        if rows[i][i] == 0.0 {
            return None;
        }
        n[i] = v / rows[i][i];
    }
    let norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    n = n.map(|x| x / norm);
    let mut offset = -(p0[0] * n[0]);
    offset -= p0[1] * n[1];
    offset -= p0[2] * n[2];
    Some((n, offset))
}

/// Signed distance of `x` above the plane (normal `n`, offset `off`), summed as qh_distplane.
pub(super) fn plane_dist(n: &[f64; 3], off: f64, x: &[f64; 3]) -> f64 {
    off + x[0] * n[0] + x[1] * n[1] + x[2] * n[2]
}

/// `a - b`.
pub(super) fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

impl<'a> Qh<'a> {
    /// Coordinates of vertex id `v`.
    pub(super) fn vp(&self, v: usize) -> [f64; 3] {
        self.vpos[v]
    }

    /// Signed distance of point `p` above facet `f`.
    pub(super) fn dist(&self, f: usize, p: usize) -> f64 {
        let pl = &self.planes[f];
        plane_dist(&pl.normal, pl.offset, &pt(self.pts, p))
    }

    /// qhull's DISToutside: how far above a facet a point is certainly outside.
    fn dist_outside(&self) -> f64 {
        let k = if self.merges > 50 { 2.0 } else { 1.0 };
        k * (2.0 * self.min_outside).max(self.max_outside)
    }

    /// qhull's SEARCHdist for the horizon search.
    fn search_dist(&self) -> f64 {
        let k = if self.merges > 50 { 2.0 } else { 1.0 };
        k * (self.max_outside + self.min_visible + self.min_visible)
    }

    /// Creates a simplicial facet with vertex ids `vid` (decreasing) appended to the list.
    pub(super) fn make(&mut self, vid: [usize; 3], nb: Ids) -> usize {
        let id = self.facets.len();
        self.facets.push(Facet {
            vid: Ids::from_slice(&vid),
            nb,
            ridges: None,
            simplicial: true,
            has_plane: false,
            outside: Vec::new(),
            furthest: 0.0,
            visible: false,
            newfacet: true,
            replace: None,
            coplanarhorizon: false,
            mergehorizon: false,
            newmerge: false,
            samecycle: None,
            newcycle: None,
            seen: false,
        });
        self.visit.push(0);
        self.planes.push(Plane::default());
        self.centrums.push(None);
        if self.vfacets_on {
            for &v in &vid {
                self.vfacets.add(v, id);
            }
        }
        self.append(id);
        self.touch(&vid);
        id
    }

    /// qhull moves each vertex of a new facet to the end of its vertex list, once per added
    /// point (apex first, then the others in the facet's decreasing-id order).
    pub(super) fn touch(&mut self, vid: &[usize]) {
        for &v in vid {
            if !self.is_moved(v) {
                self.vlist.move_to_back(v);
                if self.moved_flag.len() <= v {
                    self.moved_flag.resize(v + 1, false);
                }
                self.moved_flag[v] = true;
                self.moved.push(v);
            }
        }
    }

    /// Whether vertex id `v` was moved to the end of the vertex list in this step.
    pub(super) fn is_moved(&self, v: usize) -> bool {
        self.moved_flag.get(v).copied().unwrap_or(false)
    }

    /// Forgets which vertices were moved (a new step).
    pub(super) fn clear_moved(&mut self) {
        for &v in &self.moved {
            self.moved_flag[v] = false;
        }
        self.moved.clear();
    }

    /// Starts [`Qh::vfacets`] from the facets' vertex sets, once.
    pub(super) fn vfacets_build(&mut self) {
        if self.vfacets_on {
            return;
        }
        self.vfacets_on = true;
        for (f, fc) in self.facets.iter().enumerate() {
            for &v in &fc.vid {
                self.vfacets.add(v, f);
            }
        }
    }

    /// Live facets (in the list, not visible) other than those `skip` accepts whose vertex
    /// sets hold vertex id `v`, in no particular order.
    pub(super) fn live_holders<'s>(
        &'s self,
        v: usize,
        skip: impl Fn(usize) -> bool + 's,
    ) -> impl Iterator<Item = usize> + 's {
        debug_assert!(self.vfacets_on, "vertex holders asked before the first merge");
        self.vfacets.values(v).filter(move |&g| !skip(g) && self.list.contains(g) && !self.facets[g].visible)
    }

    /// Puts vertex id `v` first in facet `f`'s vertex set.
    pub(super) fn vid_push_front(&mut self, f: usize, v: usize) {
        self.facets[f].vid.insert(0, v);
        self.centrums[f] = None;
        if self.vfacets_on {
            self.vfacets.add(v, f);
        }
    }

    /// Inserts vertex id `v` at position `i` of facet `f`'s vertex set.
    pub(super) fn vid_insert(&mut self, f: usize, i: usize, v: usize) {
        self.facets[f].vid.insert(i, v);
        self.centrums[f] = None;
        if self.vfacets_on {
            self.vfacets.add(v, f);
        }
    }

    /// Deletes vertex id `v` from facet `f`'s vertex set (order kept).
    pub(super) fn vid_delete(&mut self, f: usize, v: usize) {
        self.centrums[f] = None;
        let vid = &mut self.facets[f].vid;
        let before = vid.len();
        vid.retain(|&x| x != v);
        if vid.len() != before && self.vfacets_on {
            self.vfacets.remove(v, f);
        }
    }

    /// A fresh mark for a facet search (qhull's `visit_id`).
    pub(super) fn new_visit(&mut self) -> u64 {
        self.visit_id += 1;
        self.visit_id
    }

    /// Marks the vertices of facet `f` in [`Qh::vmark`] with a fresh mark, and returns it.
    pub(super) fn mark_vertices(&mut self, f: usize) -> u64 {
        let mark = self.new_visit();
        if self.vmark.len() < self.vpoint.len() {
            self.vmark.resize(self.vpoint.len(), 0);
        }
        for &v in &self.facets[f].vid {
            self.vmark[v] = mark;
        }
        mark
    }

    /// Marks facet `f` visited by search `mark`; returns whether it already was.
    fn visited(&mut self, f: usize, mark: u64) -> bool {
        std::mem::replace(&mut self.visit[f], mark) == mark
    }

    /// Sets the hyperplane of facet `f` through its first three vertices, oriented away from
    /// the interior point, with qhull's arithmetic (qh_sethyperplane_det, qh_normalize2):
    /// distances that decide ties between nearly coplanar facets depend on the last bit.
    fn set_plane(&mut self, f: usize) {
        let v = &self.facets[f].vid;
        let (p0, p1, p2) = (self.vp(v[0]), self.vp(v[1]), self.vp(v[2]));
        let d1 = sub(&p1, &p0);
        let d2 = sub(&p2, &p0);
        let mut n = [d2[1] * d1[2] - d2[2] * d1[1], d1[0] * d2[2] - d1[2] * d2[0], d2[0] * d1[1] - d2[1] * d1[0]];
        let mut norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        // qhull picks the sign from the facet's orientation flag; the result is the normal
        // pointing away from the interior, and negating the divisor negates exactly.
        let out = sub(&p0, &self.interior);
        if n[0] * out[0] + n[1] * out[1] + n[2] * out[2] < 0.0 {
            norm = -norm;
        }
        n = [n[0] / norm, n[1] / norm, n[2] / norm];
        let offset = -(p0[0] * n[0] + p0[1] * n[1] + p0[2] * n[2]);
        // A plane that misses its own vertices by more than the round-off is recomputed by
        // Gaussian elimination (qh_sethyperplane_gauss), as qhull does for thin triangles.
        let (mut n, mut offset) = (n, offset);
        let near = [p1, p2]
            .iter()
            .any(|q| (offset + (q[0] * n[0] + q[1] * n[1] + q[2] * n[2])).abs() > 0.5 * self.min_visible);
        if near {
            match gauss_plane(&p0, &p1, &p2) {
                Some((gn, go)) => {
                    let inside = plane_dist(&gn, go, &self.interior);
                    (n, offset) = if inside > 0.0 { (gn.map(|x| -x), -go) } else { (gn, go) };
                }
                None => self.bail = true,
            }
        }
        self.planes[f] = Plane { normal: n, offset };
        self.centrums[f] = None;
        self.facets[f].has_plane = true;
    }

    /// Appends facet `f` to the list (qh_appendfacet): a `facet_next` or `newfacet_list` at
    /// the end of the list now points at it.
    fn append(&mut self, f: usize) {
        self.list.push_back(f);
        if self.next.is_none() {
            self.next = Some(f);
        }
        if self.newlist.is_none() && self.facets[f].newfacet {
            self.newlist = Some(f);
        }
    }

    /// Removes facet `f` from the list (advancing `facet_next` and `newfacet_list` past it).
    pub(super) fn remove(&mut self, f: usize) {
        assert!(self.list.contains(f), "facet in list");
        let after = self.list.after(f);
        if self.next == Some(f) {
            self.next = after;
        }
        if self.newlist == Some(f) {
            self.newlist = after;
        }
        self.list.unlink(f);
    }

    /// Moves facet `f` to the end of the list.
    pub(super) fn move_to_end(&mut self, f: usize) {
        self.remove(f);
        self.append(f);
    }

    /// Flags facet `f`, just moved to the end of the list, as new.
    pub(super) fn mark_new(&mut self, f: usize) {
        self.facets[f].newfacet = true;
        if self.newlist.is_none() {
            self.newlist = Some(f);
        }
    }

    /// The new facets, in list order.
    pub(super) fn new_facets(&self) -> qhull_list::Iter<'_> {
        self.list.from(self.newlist)
    }

    /// Whether the normals of the new facets (list order from the first new facet) leave
    /// the sign pattern of the first one (qh_sharpnewfacets).
    fn sharp(&self) -> bool {
        let q = |g: usize| self.planes[g].normal.map(|x| x > 0.0);
        let Some(f0) = self.newlist else { return false };
        self.new_facets().any(|g| q(g) != q(f0))
    }

    /// qh_findbestnew: scan the new facets from `start` (wrapping to the first new facet),
    /// early out when clearly outside, then the horizon search.
    fn findbestnew(&mut self, p: usize, start: usize) -> (usize, f64) {
        // From `start` to the end of the list, then, when `start` is one of the new facets
        // (the end of the list), from the first new facet up to `start`; a `start` not in
        // the list scans the new facets.
        let (from, wrap) = if self.list.contains(start) {
            (Some(start), if self.facets[start].newfacet { self.newlist } else { None })
        } else {
            (self.newlist, None)
        };
        let order = self.list.from(from).chain(self.list.from(wrap).take_while(|&g| g != start));
        let distoutside = self.dist_outside();
        let mut best: Option<usize> = None;
        let mut bestdist = f64::MIN / 2.0;
        for g in order {
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

    /// qh_findbest for a point after new facets were made.
    fn findbest(&mut self, p: usize, start: usize) -> (usize, f64) {
        if self.scan_new {
            return self.findbestnew(p, start);
        }
        let d = self.dist(start, p);
        if d >= self.min_outside {
            return (start, d);
        }
        let mark = self.new_visit();
        self.visit[start] = mark;
        let (mut best, mut bestdist) = (start, d);
        let mut facet = Some(start);
        while let Some(f) = facet {
            facet = None;
            for &g in &self.facets[f].nb {
                if !self.facets[g].newfacet || self.visit[g] == mark {
                    continue;
                }
                self.visit[g] = mark;
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
    fn findbesthorizon(&mut self, p: usize, start: usize, mut bestdist: f64) -> (usize, f64) {
        let searchdist = self.search_dist();
        let mut minsearch = bestdist - searchdist;
        let mut best = start;
        let mark = self.new_visit();
        self.visit[start] = mark;
        let mut stack: Vec<usize> = Vec::new();
        let mut facet = Some(start);
        let mut nextfacet: Option<usize> = None;
        while let Some(f) = facet {
            for &g in &self.facets[f].nb {
                if self.visit[g] == mark {
                    continue;
                }
                self.visit[g] = mark;
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
            // A coplanar point (qh_partitioncoplanar) is dropped, but raises qh.max_outside.
            if d >= -self.min_visible && d > self.max_outside {
                self.max_outside = d;
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
        let next_facet = self.next;
        if isnew && next_facet != Some(best) {
            if self.facets[best].newfacet {
                if next_facet.is_some_and(|n| self.facets[n].newfacet) {
                    self.next = self.newlist;
                }
            } else {
                self.move_to_end(best);
                self.mark_new(best);
            }
        }
    }

    /// qh_findhorizon: visible facets breadth-first in neighbour order, moved to the end of
    /// the list; marks coplanar horizon facets.
    fn findhorizon(&mut self, p: usize, start: usize) -> Vec<usize> {
        self.move_to_end(start);
        let mut visible = vec![start];
        self.facets[start].visible = true;
        let mark = self.new_visit();
        self.visit[start] = mark;
        let mut k = 0;
        while k < visible.len() {
            let f = visible[k];
            k += 1;
            for i in 0..self.facets[f].nb.len() {
                let g = self.facets[f].nb[i];
                if self.visited(g, mark) {
                    continue;
                }
                let d = self.dist(g, p);
                if d > self.min_visible {
                    self.move_to_end(g);
                    self.facets[g].visible = true;
                    visible.push(g);
                } else if d >= -self.min_visible {
                    self.facets[g].coplanarhorizon = true;
                    self.horizon_marked.push(g);
                    if d > 0.0 {
                        self.max_outside = self.max_outside.max(d);
                    }
                } else {
                    self.facets[g].coplanarhorizon = false;
                }
            }
        }
        visible
    }

    /// qh_addpoint for point `p`, the furthest point of facet `start`.
    fn addpoint(&mut self, p: usize, start: usize) {
        self.clear_moved();
        let visible = self.findhorizon(p, start);
        let apex = self.vpoint.len();
        self.vpoint.push(p);
        self.vpos.push(pt(self.pts, p));
        let first_new_id = self.facets.len();
        // qh_makenewfacets: note that both "last new facet" variables persist across
        // visible facets, as in qhull.
        let (mut nf_simp, mut nf_non) = (None, None);
        for &f in &visible {
            for i in 0..self.facets[f].nb.len() {
                let g = self.facets[f].nb[i];
                self.facets[g].seen = false;
            }
            if self.facets[f].ridges.is_some() {
                nf_non = self.makenew_nonsimplicial(f, apex);
            }
            if self.facets[f].simplicial {
                nf_simp = self.makenew_simplicial(f, apex);
            }
            if nf_non.is_some() {
                nf_simp = nf_non;
            }
            if nf_simp.is_some() {
                self.facets[f].replace = nf_simp;
            }
        }
        // qh_matchnewfacets: neighbour i of a new facet is the new facet across the ridge
        // opposite vertex i.
        // The ridge through the apex and base vertex `v` is shared by the new facets that hold
        // `v`: exactly two of them, or the cone is not a simple fan (not replayed).
        if self.by_ridge.len() < self.vpoint.len() {
            self.by_ridge.resize(self.vpoint.len(), (usize::MAX, 0, [0; 2]));
        }
        for nf in first_new_id..self.facets.len() {
            for k in 1..3 {
                let slot = &mut self.by_ridge[self.facets[nf].vid[k]];
                if slot.0 != apex {
                    *slot = (apex, 0, [0; 2]);
                }
                if slot.1 < 2 {
                    slot.2[slot.1] = nf;
                }
                slot.1 += 1;
            }
        }
        for nf in first_new_id..self.facets.len() {
            let v = [self.facets[nf].vid[0], self.facets[nf].vid[1], self.facets[nf].vid[2]];
            for k in 1..3 {
                let (_, count, pair) = self.by_ridge[v[3 - k]];
                if count != 2 {
                    self.bail = true;
                    return;
                }
                let m = if pair[0] == nf { pair[1] } else { pair[0] };
                self.facets[nf].nb.push(m);
            }
            if !self.facets[nf].mergehorizon {
                self.set_plane(nf);
            }
        }
        self.vn_cone(first_new_id, &visible);
        self.premerge(first_new_id);
        if self.bail {
            return;
        }
        // After merges qhull partitions by scanning all new facets (qh_findbestnew) when a new
        // facet is not simplicial or after 50 merges.
        if self.merges > 50 || self.new_facets().any(|g| !self.facets[g].simplicial) {
            self.scan_new = true;
        }
        // qh_partitionvisible: outside points of each visible facet, from its replacement. The
        // facets merged away by the premerge head qhull's visible list (qh_willdelete prepends
        // them); an old facet merged into a new one has outside points of its own
        // (docs/measurements.md M4).
        let merged_away = std::mem::take(&mut self.merged_away);
        for &f in merged_away.iter().rev().chain(&visible) {
            let outside = std::mem::take(&mut self.facets[f].outside);
            if outside.is_empty() {
                continue;
            }
            let mut start = self.facets[f].replace;
            while let Some(s) = start.filter(|&s| self.facets[s].visible) {
                start = self.facets[s].replace;
            }
            let start = start.unwrap_or_else(|| self.newlist.expect("a new facet"));
            for q in outside {
                self.partition(q, start);
            }
        }
        self.scan_new = false;
        self.notsharp = false;
        for &f in &visible {
            self.remove(f);
        }
        // The step's flags: the new facets (the end of the list) and the coplanar horizon.
        let mut at = self.newlist;
        while let Some(g) = at {
            at = self.list.after(g);
            let fc = &mut self.facets[g];
            fc.newfacet = false;
            fc.coplanarhorizon = false;
        }
        self.newlist = None;
        for i in 0..self.horizon_marked.len() {
            let g = self.horizon_marked[i];
            if self.list.contains(g) {
                self.facets[g].coplanarhorizon = false;
            }
        }
        self.horizon_marked.clear();
    }
}
