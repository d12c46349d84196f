//! qhull's premerge of new facets that are not clearly convex to a neighbour, for
//! [`super::qhull`]: the coplanar case (qh_getmergeset_initial, qh_all_merges,
//! qh_merge_nonconvex, qh_mergesimplex without the apex, qh_getmergeset).
//!
//! With qhull's default `C-0` (MuJoCo's options `Qt`), a step whose new facets are not all
//! clearly convex by their vertices (see `clearly_convex` in [`super::qhull_merge`]) tests every
//! new facet against each neighbour by centrums: a centrum within the centrum radius (the
//! replay's `min_visible`, `2 DISTround`) of the other facet's plane makes a coplanar merge, one
//! above it a concave merge. On tessellated CAD surfaces (robosuite's xarm7 `link3` and `link5`)
//! two new triangles a few 1e-16 off one plane merge this way; the merged facet keeps the
//! plane of the facet it merged into, becomes non-simplicial and is triangulated by `Qt` at
//! the end of the list, which moves every later triangle of MuJoCo's hull and so its polygon
//! table (docs/measurements.md M4).
//!
//! Replayed: a step's single coplanar merge of a three-vertex facet (qh_mergesimplex), then a
//! retest of the merged facet (qh_getmergeset) that must find nothing. The facet merged away
//! may be an old one merged into a new one; its outside points are then partitioned before the
//! visible facets' (`merged_away`, docs/measurements.md M4 item 3). Not replayed (`bail`):
//! concave merges, several merges in one set (the sort by distance and qhull's
//! `MERGEindependent` skips are written out below, but a two-merge case did not give qhull's
//! neighbour order), chains (a retest that finds another merge), merging a facet of more than
//! three vertices, best-neighbour searches by centrum (more than 18 vertices), and merges that
//! leave a degenerate, redundant or duplicate-ridge facet.

use super::qhull::{plane_dist, Qh};

/// A pending coplanar merge of `facet` and `neighbor` (qhull's `mergeT`) and its distance.
#[derive(Clone, Copy, Debug)]
pub(super) struct Merge {
    facet: usize,
    neighbor: usize,
    dist: f64,
}

/// Most vertices of a facet whose best neighbour qhull finds by vertex distances alone
/// (`hull_dim + qh_BESTnonconvex`); beyond it nonconvex ridges come first.
const BEST_BY_VERTICES: usize = 3 + 15;

impl Qh<'_> {
    /// qh_test_centrum_merge of `f` and its neighbour `g`: the merge when either centrum is
    /// within the radius of the other's plane; sets `bail` when one is above it (concave).
    fn test_centrum(&mut self, f: usize, g: usize) -> Option<Merge> {
        let radius = self.min_visible;
        let cf = self.centrum(f);
        let gp = self.planes[g];
        let dist = plane_dist(&gp.normal, gp.offset, &cf);
        let (mut concave, mut coplanar) = (false, false);
        if dist > radius {
            concave = true;
        } else if dist >= -radius {
            coplanar = true;
        }
        let cg = self.centrum(g);
        let fp = self.planes[f];
        let dist2 = plane_dist(&fp.normal, fp.offset, &cg);
        if dist2 > radius {
            concave = true;
        } else if !coplanar && dist2 >= -radius {
            coplanar = true;
        }
        if concave {
            self.bail = true;
            return None;
        }
        coplanar.then(|| Merge { facet: f, neighbor: g, dist: dist.abs().min(dist2.abs()) })
    }

    /// qh_getmergeset_initial: each facet of the new list against each neighbour not tested
    /// yet, in list and neighbour order.
    pub(super) fn initial_merges(&mut self) -> Vec<Merge> {
        let done = self.new_visit();
        let mut out = Vec::new();
        let mut at = self.newlist;
        while let Some(f) = at {
            at = self.list.after(f);
            self.visit[f] = done;
            for i in 0..self.facets[f].nb.len() {
                let g = self.facets[f].nb[i];
                if self.visit[g] == done {
                    continue;
                }
                out.extend(self.test_centrum(f, g));
                if self.bail {
                    return out;
                }
            }
        }
        out
    }

    /// qh_all_merges (premerge, coplanar merges only) from the initial merge set.
    pub(super) fn all_merges(&mut self, mut merges: Vec<Merge>) {
        // Facets merged into since the last test (qhull's `tested` cleared).
        let mut untested: Vec<usize> = Vec::new();
        while !merges.is_empty() {
            // qh_compare_facetmerge sorts by decreasing distance and the last is taken first;
            // equal distances would leave the order to the C library's qsort.
            // Several merges in one set (the later ones may be dropped for a facet merged or
            // merged into meanwhile) are not replayed: on a synthetic dome whose first set held
            // two, the faces came out as qhull's but the neighbour order of two graph vertices
            // did not.
            if merges.len() > 1 {
                self.bail = true;
                return;
            }
            merges.sort_by(|a, b| b.dist.total_cmp(&a.dist));
            if merges.windows(2).any(|w| w[0].dist == w[1].dist) {
                self.bail = true;
                return;
            }
            while let Some(m) = merges.pop() {
                let (f, g) = (m.facet, m.neighbor);
                if self.facets[f].visible || self.facets[g].visible {
                    continue;
                }
                let fresh = |x: usize| untested.contains(&x) && self.facets[x].newfacet;
                if fresh(f) || fresh(g) {
                    continue;
                }
                let into = self.merge_nonconvex(f, g);
                if self.bail {
                    return;
                }
                untested.push(into);
            }
            merges = self.retest(&untested);
            untested.clear();
            // A merged facet found coplanar to a neighbour again (a chain of merges) is not
            // replayed: on synthetic flat-bottom domes the chain's result differed from qhull's.
            if !merges.is_empty() {
                self.bail = true;
            }
            if self.bail {
                return;
            }
        }
    }

    /// qh_getmergeset: the facets merged into (in list order) against their neighbours across
    /// their ridges (each neighbour once; a neighbour retested in this pass is skipped).
    fn retest(&mut self, untested: &[usize]) -> Vec<Merge> {
        let mark = self.new_visit();
        let mut out = Vec::new();
        let mut at = self.newlist;
        while let Some(f) = at {
            at = self.list.after(f);
            if !untested.contains(&f) {
                continue;
            }
            self.visit[f] = mark;
            let mut seen: Vec<usize> = Vec::new();
            for r in self.facets[f].ridges.clone().unwrap_or_default() {
                let [a, b] = self.ridges[r].f;
                let g = if a == f { b } else { a };
                if seen.contains(&g) || self.visit[g] == mark {
                    continue;
                }
                seen.push(g);
                out.extend(self.test_centrum(f, g));
                if self.bail {
                    return out;
                }
            }
        }
        out
    }

    /// qh_getdistance: the largest excursion of `f`'s vertices off `g`'s plane (those not in
    /// `g`), with the lowest and highest distances (both start at 0).
    fn excursion(&mut self, f: usize, g: usize) -> (f64, f64, f64) {
        let mark = self.mark_vertices(g);
        let gp = self.planes[g];
        let (mut mind, mut maxd) = (0.0f64, 0.0f64);
        for i in 0..self.facets[f].vid.len() {
            let v = self.facets[f].vid[i];
            if self.vmark[v] == mark {
                continue;
            }
            let d = plane_dist(&gp.normal, gp.offset, &self.vp(v));
            if d < mind {
                mind = d;
            } else if d > maxd {
                maxd = d;
            }
        }
        let dist = if maxd > -mind { maxd } else { -mind };
        (dist, mind, maxd)
    }

    /// qh_findbestneighbor by vertex distances: the first neighbour of least excursion, with
    /// it and the highest distance; `None` (and `bail`) beyond [`BEST_BY_VERTICES`].
    fn best_neighbor(&mut self, f: usize) -> Option<(usize, f64, f64)> {
        if self.facets[f].vid.len() > BEST_BY_VERTICES {
            self.bail = true;
            return None;
        }
        let mut best: Option<(usize, f64, f64)> = None;
        for i in 0..self.facets[f].nb.len() {
            let g = self.facets[f].nb[i];
            let (d, _, maxd) = self.excursion(f, g);
            if best.is_none_or(|(_, bd, _)| d < bd) {
                best = Some((g, d, maxd));
            }
        }
        best
    }

    /// qh_merge_nonconvex of a coplanar pair: the new facet of the two (or the other, when its
    /// best neighbour is strictly closer) merges into its best neighbour. Returns the facet
    /// merged into.
    fn merge_nonconvex(&mut self, f: usize, g: usize) -> usize {
        let (first, second) = if self.facets[f].newfacet { (f, g) } else { (g, f) };
        let Some((n1, d1, max1)) = self.best_neighbor(first) else { return first };
        let Some((n2, d2, max2)) = self.best_neighbor(second) else { return first };
        let (merging, into, maxd) = if d1 < d2 { (first, n1, max1) } else { (second, n2, max2) };
        if self.facets[merging].vid.len() != 3 {
            self.bail = true;
            return into;
        }
        self.max_outside = self.max_outside.max(maxd);
        self.merge_simplex(merging, into);
        into
    }

    /// qh_mergefacet of the three-vertex facet `f1` into `f2` by qh_mergesimplex without the
    /// apex: `f1`'s vertex off their shared ridge joins `f2` (in decreasing-id place), then
    /// vertex sets, ridges and neighbours move; `f2` keeps its plane and goes to the end of
    /// the list as a new, merged facet.
    fn merge_simplex(&mut self, f1: usize, f2: usize) {
        self.vfacets_build();
        self.makeridges(f1);
        self.makeridges(f2);
        let shared = self.facets[f1].ridges.iter().flatten().copied().find(|&r| {
            let [a, b] = self.ridges[r].f;
            (a == f1 && b == f2) || (a == f2 && b == f1)
        });
        let Some(shared) = shared else {
            self.bail = true;
            return;
        };
        let rv = self.ridges[shared].v;
        for v in rv {
            if !self.delridge.contains(&v) {
                self.delridge.push(v);
            }
        }
        let Some(opposite) = self.facets[f1].vid.iter().copied().find(|v| !rv.contains(v)) else {
            self.bail = true;
            return;
        };
        self.vn_build();
        let vid = &self.facets[f2].vid;
        let pos = vid.iter().position(|&v| v <= opposite).unwrap_or(vid.len());
        let isnew = vid.get(pos) != Some(&opposite);
        if isnew {
            self.vid_insert(f2, pos, opposite);
        }
        self.centrums[f2] = None;
        if self.facets[f2].newfacet {
            self.touch(&[opposite]);
        } else {
            let vid = self.facets[f2].vid.to_vec();
            self.touch(&vid);
        }
        self.vn_simplex(f1, f2, opposite, isnew);
        self.move_ridges(f1, f2);
        self.move_to_end(f2);
        self.mark_new(f2);
        self.facets[f2].newmerge = true;
        self.merges += 1;
        self.check_merged(f1, f2);
        self.facets[f1].visible = true;
        self.facets[f1].replace = Some(f2);
        self.remove(f1);
        self.merged_away.push(f1);
    }

    /// The checks qh_mergefacet ends with (redundant and degenerate neighbours, a redundant
    /// or degenerate merged facet, duplicate ridges): any hit is a merge not replayed.
    fn check_merged(&mut self, f1: usize, f2: usize) {
        let degenerate = |q: &Self, g: usize| q.facets[g].nb.len() < 3;
        if degenerate(self, f2) || self.facets[f1].nb.iter().any(|&g| !self.facets[g].visible && degenerate(self, g)) {
            self.bail = true;
            return;
        }
        let mark = self.mark_vertices(f2);
        for i in 0..self.facets[f2].nb.len() {
            let g = self.facets[f2].nb[i];
            if self.facets[g].vid.iter().all(|&v| self.vmark[v] == mark) {
                self.bail = true;
                return;
            }
        }
        for i in 0..self.facets[f2].nb.len() {
            let g = self.facets[f2].nb[i];
            let mark = self.mark_vertices(g);
            if self.facets[f2].vid.iter().all(|&v| self.vmark[v] == mark) {
                self.bail = true;
                return;
            }
        }
        let mut pairs: Vec<[usize; 2]> = self.facets[f2].ridges.iter().flatten().map(|&r| self.ridges[r].v).collect();
        pairs.sort_unstable();
        if pairs.windows(2).any(|w| w[0] == w[1]) {
            self.bail = true;
        }
    }
}
