//! qhull's vertex list and per-vertex facet sets (`vertex->neighbors`), which decide the order
//! of MuJoCo's `mesh_graph` (vertices in vertex-list order, each vertex's neighbours as met
//! through its facet set after `Qt` triangulation), for [`super`].
//!
//! Without merges qhull only builds the facet sets at the end, from the final facet list (then
//! they follow the facet list). With merges it builds them at the first merge, from the facet
//! list of that moment, and then maintains them, so their order records the build:
//!
//! * Cone of a new point (qh_update_vertexneighbors_cone): each vertex moved to the end of the
//!   vertex list in this step drops its visible facets (a deleted slot takes the set's last
//!   element, and is examined again), then every new facet is appended to its vertices' sets in
//!   list order, then the other vertices of visible facets drop them (last element into the slot).
//! * Merge of one new facet into its coplanar horizon (qh_mergesimplex): the apex's entry is
//!   renamed to the horizon facet when the apex is new to it, the other vertices drop the new
//!   facet (last element into the slot); one left in the horizon facet alone is inside the
//!   merged facet and leaves it (qh_mergevertex_del). Before the apex joins, a horizon facet
//!   that is not yet new moves its vertices to the end of the vertex list.
//! * Merge of a cycle of new facets (qh_mergecycle_vneighbors): each base vertex, then the apex,
//!   drops the cycle facets *and* the horizon facet (order kept) and appends the horizon facet.
//!   The horizon facet then moves its vertices to the end of the vertex list if it was not new.
//! * Dropping a vertex that is on no ridge of a merged facet: last element into the slot.
//! * `Qt` (qh_triangulate): each non-simplicial facet in list order is replaced by a fan from
//!   its first vertex to each of its ridges in ridge order, including the ridges through that
//!   vertex (null triangles, deleted afterwards). Each fan triangle moves its vertices to the end
//!   of the vertex list (at most once per vertex over the whole triangulation, since qhull does
//!   not clear the "new" marks between facets) and is appended to its vertices' sets; then the
//!   non-simplicial facets and null triangles leave the sets (order kept).
//!
//! Cases that these rules do not cover (a cycle merge that would leave its apex in one facet,
//! or set bookkeeping that disagrees with the facet replay) only mark the order as unknown.
//!
//! Checked against Python `mujoco` 4.0.0's `mesh_graph` (vertex ids and every vertex's edge
//! list): identical for all 56 corpus hulls whose faces are replayed (of 60) (boxes, cubelet, pyramid,
//! dodecahedron, icosahedra, carousel's ring and bags, bunny, makemesh's builtins) and for every
//! replayed hull of 2,800 random clouds (normal, box corners, prisms, points on box faces,
//! lattices, rounded normal and sphere points), most of them with merges.

use super::qhull::{set_del, Qh};

/// qhull's `vertex->neighbors` sets while the replay runs.
#[derive(Default)]
pub(super) struct VertexSets {
    /// qh.VERTEXneighbors: the sets exist (from the first merge on).
    on: bool,
    /// Facet ids of each vertex id, in set order.
    nb: Vec<Vec<usize>>,
    /// A step was met that the replay does not cover: the order is not known.
    bad: bool,
}

impl Qh<'_> {
    /// The facet set of vertex id `v` (growing the table for new vertices).
    fn vset(&mut self, v: usize) -> &mut Vec<usize> {
        if self.vsets.nb.len() <= v {
            self.vsets.nb.resize(v + 1, Vec::new());
        }
        &mut self.vsets.nb[v]
    }

    /// qh_vertexneighbors: builds the sets from the facet list (skipping visible facets) the
    /// first time a merge happens.
    pub(in crate::mesh) fn vn_build(&mut self) {
        if self.vsets.on {
            return;
        }
        self.vsets.on = true;
        for f in self.list.iter().collect::<Vec<_>>() {
            if self.facets[f].visible {
                continue;
            }
            for v in self.facets[f].vid.clone() {
                self.vset(v).push(f);
            }
        }
    }

    /// qh_update_vertexneighbors_cone after the new facets `first_new_id..` were made for the
    /// facets `visible`.
    pub(super) fn vn_cone(&mut self, first_new_id: usize, visible: &[usize]) {
        if !self.vsets.on {
            return;
        }
        for v in self.moved.clone() {
            let mut set = std::mem::take(self.vset(v));
            let mut i = 0;
            while i < set.len() {
                if self.facets[set[i]].visible {
                    set.swap_remove(i);
                } else {
                    i += 1;
                }
            }
            self.vsets.nb[v] = set;
        }
        for f in first_new_id..self.facets.len() {
            for v in self.facets[f].vid.clone() {
                self.vset(v).push(f);
            }
        }
        for &f in visible {
            for v in self.facets[f].vid.clone() {
                if self.is_moved(v) {
                    continue;
                }
                self.vset(v);
                let keep = self.vsets.nb[v].iter().any(|&g| !self.facets[g].visible);
                if keep {
                    set_del(self.vset(v), f);
                }
            }
        }
    }

    /// Start of qh_mergesimplex of new facet `f1` into its horizon `f2` (before the apex
    /// joins `f2`): builds the sets if needed and renews `f2`'s vertices.
    pub(in crate::mesh) fn vn_simplex_start(&mut self, f2: usize) {
        self.vn_build();
        if !self.facets[f2].newfacet {
            let vid = self.facets[f2].vid.clone();
            self.touch(&vid);
        }
    }

    /// qh_mergesimplex's set updates once `apex` is in `f2` (`isnew`: it was added now).
    pub(in crate::mesh) fn vn_simplex(&mut self, f1: usize, f2: usize, apex: usize, isnew: bool) {
        for v in self.facets[f1].vid.clone() {
            if v == apex && isnew {
                if let Some(x) = self.vset(v).iter_mut().find(|x| **x == f1) {
                    *x = f2;
                }
            } else {
                set_del(self.vset(v), f1);
                // Left in `f2` alone, the vertex is inside the merged facet: qhull deletes it
                // (qh_mergevertex_del).
                if self.vset(v).len() < 2 {
                    self.vid_delete(f2, v);
                }
            }
        }
    }

    /// qh_mergecycle_vneighbors for the cycle `cyc` merging into `nf`: returns the base
    /// vertices qhull deletes (those left in no other facet).
    pub(in crate::mesh) fn vn_cycle(&mut self, cyc: &[usize], nf: usize, base: &[usize], apex: usize) -> Vec<usize> {
        self.vn_build();
        let mut gone = Vec::new();
        for &v in base.iter().chain(std::iter::once(&apex)) {
            let set = self.vset(v);
            set.retain(|g| *g != nf && !cyc.contains(g));
            set.push(nf);
            if set.len() < 2 {
                gone.push(v);
            }
        }
        if gone.contains(&apex) {
            self.vsets.bad = true;
        }
        gone
    }

    /// Marks the order unknown unless the facet replay's decision `replay` equals qhull's.
    pub(in crate::mesh) fn vn_check(&mut self, replay: bool, qhull: bool) {
        if replay != qhull {
            self.vsets.bad = true;
        }
    }

    /// qh_remove_extravertices drops vertex `v` from facet `f`: returns whether `v` is left in
    /// no facet (qhull then deletes it).
    pub(in crate::mesh) fn vn_extra(&mut self, v: usize, f: usize) -> bool {
        let set = self.vset(v);
        set_del(set, f);
        set.is_empty()
    }

    /// Replays `Qt` on the vertex list and the sets for the output triangles `tris` (from
    /// [`Qh::triangulate`]) and returns the hull vertices (point indices, vertex-list order)
    /// with, when known, each one's triangles (indices into `tris`) in set order.
    pub(super) fn vertex_order(&mut self, tris: &[(usize, [usize; 3])]) -> (Vec<usize>, Option<Vec<Vec<usize>>>) {
        // Set entries at or above `base` stand for output triangle `entry - base`.
        let base = self.facets.len();
        let mut slot = vec![usize::MAX; base];
        let mut k = 0;
        while k < tris.len() && self.facets[tris[k].0].simplicial {
            slot[tris[k].0] = k;
            k += 1;
        }
        self.clear_moved();
        let mut merged = vec![false; base];
        for f in self.list.iter().collect::<Vec<_>>() {
            if self.facets[f].simplicial {
                continue;
            }
            merged[f] = true;
            let apex = self.facets[f].vid[0];
            for r in self.facets[f].ridges.clone().unwrap_or_default() {
                let [a, b] = self.ridges[r].v;
                self.touch(&[apex, a, b]);
                if a == apex || b == apex {
                    continue;
                }
                if tris.get(k) != Some(&(f, [apex, a, b])) {
                    self.vsets.bad = true;
                }
                if self.vsets.on {
                    for v in [apex, a, b] {
                        self.vset(v).push(base + k);
                    }
                }
                k += 1;
            }
        }
        if k != tris.len() {
            self.vsets.bad = true;
        }
        if self.vsets.on {
            for set in &mut self.vsets.nb {
                set.retain(|&g| g >= base || !merged[g]);
            }
        } else {
            // No merge: qhull builds the sets now, from the final facet list.
            for (i, (_, vid)) in tris.iter().enumerate() {
                for &v in vid {
                    self.vset(v).push(base + i);
                }
            }
        }
        let mut used = vec![false; self.vpoint.len()];
        for (_, vid) in tris {
            for &v in vid {
                used[v] = true;
            }
        }
        // vertices left inside the hull (or dropped by merges) are no longer in the list
        let order: Vec<usize> = self.vlist.iter().filter(|&v| used[v]).collect();
        let points = order.iter().map(|&v| self.vpoint[v]).collect();
        let mut sets = Vec::with_capacity(order.len());
        for &v in &order {
            let mut out = Vec::new();
            for &g in self.vset(v).iter() {
                let t = if g >= base { g - base } else { slot[g] };
                out.push(t);
            }
            if out.iter().any(|&t| t >= tris.len() || !tris[t].1.contains(&v)) {
                self.vsets.bad = true;
            }
            sets.push(out);
        }
        (points, if self.vsets.bad { None } else { Some(sets) })
    }
}
