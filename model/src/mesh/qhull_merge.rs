//! Cone construction with explicit ridges, coplanar-horizon merges and the `Qt` triangulation
//! of merged facets, for [`super::qhull`].
//!
//! When a new point lies on the plane of a horizon facet (within qhull's `MINvisible`), the new
//! facets built on that horizon merge into it (qhull's premerge of a "coplanar horizon"). The
//! order of the final triangles depends on the bookkeeping of these merges, replayed here:
//!
//! * A simplicial facet gets explicit ridges (edges) the first time it takes part in a merge,
//!   one per neighbour in neighbour order, and stops being simplicial (even with 3 vertices).
//! * A single new facet merges by qh_mergesimplex; several new facets on one horizon (made from
//!   the ridges of a merged visible facet) form a cycle merged by qh_mergecycle (neighbours,
//!   then ridges, then vertices). The merged (horizon) facet moves to the end of the facet list
//!   and counts as new; the absorbed facets are deleted and point to it.
//! * A vertex of a merged new facet that is left in the horizon facet alone is inside the
//!   merged facet and leaves it at once (qh_mergevertex_del, replayed with qhull's per-vertex
//!   facet sets in [`super::qhull`]'s `qhull_vertices`; it decided 6 of 300 random point sets
//!   on box faces whose faces differed from MuJoCo's before).
//! * After the merges of a step, each merged facet drops the vertices on none of its ridges
//!   (qh_remove_extravertices, including qhull's skip of the next vertex after one that is left
//!   in no facet).
//! * qhull's set deletions move the last element into the freed slot (`swap_remove`); its
//!   compactions keep the order (`retain`).
//! * `Qt`: every non-simplicial facet, in list order, is replaced at the end of the list by a
//!   fan from its highest vertex id to each of its ridges (in ridge-set order) that does not
//!   contain that vertex; simplicial facets keep their place.
//!
//! * Then the shared vertices of the merged facets are renamed (`qhull_rename.rs`).
//!
//! Cases not replayed set `bail` (the caller then keeps its own order): redundant or degenerate
//! neighbours, and the non-convex merges that [`super::qhull_nonconvex`] does not cover.

use super::qhull::{plane_dist, set_del, Ids, Qh, Ridge};

/// A new facet's neighbour set: its horizon facet, with room for the two new facets beside it.
fn neighbours(horizon: usize) -> Ids {
    Ids::from_slice(&[horizon])
}

/// Replaces the first occurrence of `old` in a qhull set by `new`.
fn set_replace(set: &mut [usize], old: usize, new: usize) {
    if let Some(pos) = set.iter().position(|&y| y == old) {
        set[pos] = new;
    }
}

impl Qh<'_> {
    /// qh_makenew_nonsimplicial: a new facet for each ridge of `vis` with a horizon facet.
    pub(super) fn makenew_nonsimplicial(&mut self, vis: usize, apex: usize) -> Option<usize> {
        let mut last = None;
        let ridges = self.facets[vis].ridges.clone().unwrap_or_default();
        for r in ridges {
            let [a, b] = self.ridges[r].f;
            let nbr = if a == vis { b } else { a };
            if !self.facets[nbr].visible {
                let rv = self.ridges[r].v;
                let nf = self.make([apex, rv[0], rv[1]], neighbours(nbr));
                last = Some(nf);
                if self.facets[nbr].coplanarhorizon {
                    self.facets[nf].mergehorizon = true;
                    if !self.facets[nbr].seen {
                        self.facets[nf].samecycle = Some(nf);
                        self.facets[nbr].newcycle = Some(nf);
                    } else {
                        let head = self.facets[nbr].newcycle.expect("cycle head");
                        self.facets[nf].samecycle = self.facets[head].samecycle;
                        self.facets[head].samecycle = Some(nf);
                    }
                }
                if self.facets[nbr].seen {
                    self.facets[nbr].nb.push(nf);
                } else if let Some(pos) = self.facets[nbr].nb.iter().position(|&g| g == vis) {
                    self.facets[nbr].nb[pos] = nf;
                }
                if self.facets[nbr].simplicial {
                    if let Some(rs) = self.facets[nbr].ridges.as_mut() {
                        if let Some(pos) = rs.iter().position(|&x| x == r) {
                            rs.swap_remove(pos);
                        }
                    }
                } else {
                    self.facets[nf].ridges.get_or_insert_with(Vec::new).push(r);
                    let rf = &mut self.ridges[r].f;
                    *rf = if rf[0] == vis { [nf, rf[1]] } else { [rf[0], nf] };
                }
            }
            self.facets[nbr].seen = true;
        }
        last
    }

    /// qh_makenew_simplicial: a new facet for each horizon neighbour of `vis` without a ridge.
    pub(super) fn makenew_simplicial(&mut self, vis: usize, apex: usize) -> Option<usize> {
        let mut last = None;
        for i in 0..self.facets[vis].nb.len() {
            let g = self.facets[vis].nb[i];
            if self.facets[g].seen || self.facets[g].visible {
                continue;
            }
            let v = &self.facets[vis].vid;
            let rest = [v[usize::from(i == 0)], v[if i == 2 { 1 } else { 2 }]];
            let nf = self.make([apex, rest[0], rest[1]], neighbours(g));
            last = Some(nf);
            if self.facets[g].coplanarhorizon {
                self.facets[nf].samecycle = Some(nf);
                self.facets[nf].mergehorizon = true;
            }
            if let Some(pos) = self.facets[g].nb.iter().position(|&x| x == vis) {
                self.facets[g].nb[pos] = nf;
            }
        }
        last
    }

    /// qh_makeridges: explicit ridges for a simplicial facet's neighbours that have none.
    pub(in crate::mesh) fn makeridges(&mut self, f: usize) {
        if !self.facets[f].simplicial {
            return;
        }
        self.facets[f].simplicial = false;
        let have: Vec<usize> = self.facets[f]
            .ridges
            .iter()
            .flatten()
            .map(|&r| {
                let [a, b] = self.ridges[r].f;
                if a == f {
                    b
                } else {
                    a
                }
            })
            .collect();
        let nb = self.facets[f].nb.clone();
        for (i, &g) in nb.iter().enumerate() {
            if have.contains(&g) {
                continue;
            }
            let v = &self.facets[f].vid;
            let rest: Vec<usize> = (0..3).filter(|&k| k != i).map(|k| v[k]).collect();
            let r = self.ridges.len();
            self.ridges.push(Ridge { v: [rest[0], rest[1]], f: [f, g] });
            self.facets[f].ridges.get_or_insert_with(Vec::new).push(r);
            self.facets[g].ridges.get_or_insert_with(Vec::new).push(r);
        }
    }

    /// qh_mergefacet of the simplicial new facet `f1` into its coplanar horizon `f2`
    /// (qh_mergesimplex with the apex).
    fn merge_into_horizon(&mut self, f1: usize, f2: usize) {
        self.vfacets_build();
        self.makeridges(f1);
        self.makeridges(f2);
        let apex = self.facets[f1].vid[0];
        for &v in &self.facets[f1].vid[1..] {
            if !self.delridge.contains(&v) {
                self.delridge.push(v);
            }
        }
        self.vn_simplex_start(f2);
        let isnew = self.facets[f2].vid[0] != apex;
        if isnew {
            self.vid_push_front(f2, apex);
        }
        self.vn_simplex(f1, f2, apex, isnew);
        self.move_ridges(f1, f2);
        self.move_to_end(f2);
        self.mark_new(f2);
        self.facets[f2].newmerge = true;
        self.merges += 1;
        self.facets[f1].visible = true;
        self.facets[f1].replace = Some(f2);
        self.remove(f1);
        self.merged_away.push(f1);
    }

    /// The end of qh_mergesimplex: `f1`'s ridges go to `f2` (the one they share is deleted)
    /// and `f1`'s neighbours become `f2`'s.
    pub(in crate::mesh) fn move_ridges(&mut self, f1: usize, f2: usize) {
        let mut marked: Vec<usize> = self.facets[f2].nb.to_vec();
        let mut i = 0;
        while i < self.facets[f1].ridges.as_ref().map_or(0, |r| r.len()) {
            let r = self.facets[f1].ridges.as_ref().expect("ridges")[i];
            let [a, b] = self.ridges[r].f;
            let other = if a == f1 { b } else { a };
            if other == f2 {
                // The shared ridge disappears; the slot gets the last ridge, visited next.
                for g in [f1, f2] {
                    if let Some(rs) = self.facets[g].ridges.as_mut() {
                        set_del(rs, r);
                    }
                }
                set_del(&mut self.facets[f2].nb, f1);
                continue;
            }
            self.facets[f2].ridges.get_or_insert_with(Vec::new).push(r);
            if !marked.contains(&other) {
                self.facets[f2].nb.push(other);
                set_replace(&mut self.facets[other].nb, f1, f2);
                marked.push(other);
            } else {
                self.makeridges(other);
                if self.facets[other].nb.first() == Some(&f1) {
                    set_del(&mut self.facets[other].nb, f2);
                    set_replace(&mut self.facets[other].nb, f1, f2);
                } else {
                    set_del(&mut self.facets[other].nb, f1);
                }
            }
            let rf = &mut self.ridges[r].f;
            *rf = if rf[0] == f1 { [f2, rf[1]] } else { [rf[0], f2] };
            i += 1;
        }
    }

    /// The facets of the cycle through `head`, in qhull's order (from the one after `head`,
    /// ending with `head`).
    fn cycle(&self, head: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut same = self.facets[head].samecycle.expect("cycle");
        loop {
            out.push(same);
            if same == head || out.len() > self.facets.len() {
                break;
            }
            same = self.facets[same].samecycle.expect("cycle");
        }
        out
    }

    /// qh_mergecycle: merges the cycle of new facets through `head` (all on the coplanar
    /// horizon `nf`) into `nf`: neighbours, then ridges, then the apex, then the list.
    fn merge_cycle(&mut self, head: usize, nf: usize) {
        self.vfacets_build();
        let cyc = self.cycle(head);
        let apex = self.facets[head].vid[0];
        self.makeridges(nf);
        // qh_mergecycle_neighbors: drop the cycle from nf's neighbours (order kept), then add
        // each cycle facet's other neighbours.
        self.facets[nf].nb.retain(|g| !cyc.contains(g));
        let mut marked: Vec<usize> = self.facets[nf].nb.to_vec();
        marked.push(nf);
        for &same in &cyc {
            for nbr in self.facets[same].nb.clone() {
                if cyc.contains(&nbr) {
                    continue;
                }
                if self.facets[nbr].simplicial {
                    if !marked.contains(&nbr) {
                        self.facets[nf].nb.push(nbr);
                        set_replace(&mut self.facets[nbr].nb, same, nf);
                        marked.push(nbr);
                        let rs = self.facets[nbr].ridges.clone().unwrap_or_default();
                        if let Some(&r) = rs.iter().find(|&&r| self.ridges[r].f.contains(&same)) {
                            let rf = &mut self.ridges[r].f;
                            *rf = if rf[0] == same { [nf, rf[1]] } else { [rf[0], nf] };
                        }
                    } else {
                        self.makeridges(nbr);
                        set_del(&mut self.facets[nbr].nb, same);
                    }
                } else {
                    set_del(&mut self.facets[nbr].nb, same);
                    if !marked.contains(&nbr) {
                        self.facets[nbr].nb.push(nf);
                        self.facets[nf].nb.push(nbr);
                        marked.push(nbr);
                    }
                }
            }
        }
        // qh_mergecycle_ridges.
        let other = |qh: &Self, r: usize, f: usize| {
            let [a, b] = qh.ridges[r].f;
            if a == f {
                b
            } else {
                a
            }
        };
        let keep: Vec<usize> =
            self.facets[nf].ridges.iter().flatten().copied().filter(|&r| !cyc.contains(&other(self, r, nf))).collect();
        self.facets[nf].ridges = Some(keep);
        for &same in &cyc {
            for r in self.facets[same].ridges.clone().unwrap_or_default() {
                let [a, b] = self.ridges[r].f;
                let nbr = if a == same {
                    self.ridges[r].f = [nf, b];
                    b
                } else if b == same {
                    self.ridges[r].f = [a, nf];
                    a
                } else {
                    // Already moved to nf by the neighbour pass.
                    self.facets[nf].ridges.get_or_insert_with(Vec::new).push(r);
                    continue;
                };
                if nbr == nf {
                    continue;
                }
                if cyc.contains(&nbr) {
                    if let Some(rs) = self.facets[nbr].ridges.as_mut() {
                        set_del(rs, r);
                    }
                } else {
                    self.facets[nf].ridges.get_or_insert_with(Vec::new).push(r);
                }
            }
            if let Some(rs) = self.facets[same].ridges.as_mut() {
                rs.clear();
            }
            if !self.facets[same].simplicial {
                continue;
            }
            for (i, nbr) in self.facets[same].nb.clone().into_iter().enumerate() {
                if !cyc.contains(&nbr) && self.facets[nbr].simplicial {
                    let v = &self.facets[same].vid;
                    let rest: Vec<usize> = (0..3).filter(|&k| k != i).map(|k| v[k]).collect();
                    let r = self.ridges.len();
                    self.ridges.push(Ridge { v: [rest[0], rest[1]], f: [nf, nbr] });
                    self.facets[nf].ridges.get_or_insert_with(Vec::new).push(r);
                    self.facets[nbr].ridges.get_or_insert_with(Vec::new).push(r);
                }
            }
        }
        // qh_mergecycle_vneighbors: a base vertex of the cycle left in no other facet (now
        // inside the merged facet) is deleted from it.
        let mut base: Vec<usize> = Vec::new();
        for &same in &cyc {
            for &v in &self.facets[same].vid[1..] {
                if !base.contains(&v) {
                    base.push(v);
                }
            }
        }
        for &v in base.iter().chain(std::iter::once(&apex)) {
            if !self.delridge.contains(&v) {
                self.delridge.push(v);
            }
        }
        let gone = self.vn_cycle(&cyc, nf, &base, apex);
        for v in base {
            let elsewhere = self.live_holders(v, |g| g == nf || cyc.contains(&g)).next().is_some();
            self.vn_check(!elsewhere, gone.contains(&v));
            if !elsewhere {
                self.vid_delete(nf, v);
            }
        }
        if self.facets[nf].vid[0] != apex {
            self.vid_push_front(nf, apex);
        }
        // A horizon facet that was not new yet moves its vertices to the end of the vertex list.
        if !self.facets[nf].newfacet {
            let vid = self.facets[nf].vid.clone();
            self.touch(&vid);
        }
        // qh_mergecycle_facets.
        self.move_to_end(nf);
        self.mark_new(nf);
        let fc = &mut self.facets[nf];
        fc.simplicial = false;
        fc.newmerge = true;
        self.merges += 1;
        for &same in &cyc {
            self.facets[same].visible = true;
            self.facets[same].replace = Some(nf);
            self.remove(same);
            self.merged_away.push(same);
        }
    }

    /// qh_reducevertices (3-d part): each facet merged in this step, in list order, drops the
    /// vertices that are on none of its ridges. As in qhull, a dropped vertex that is left
    /// in no facet makes the scan skip the vertex after it. Returns the merged facets (list
    /// order), whose shared vertices are renamed next.
    fn remove_extravertices(&mut self) -> Vec<usize> {
        // Merged facets are new, so they are at the end of the list.
        let news: Vec<usize> = self.new_facets().filter(|&g| self.facets[g].newmerge).collect();
        for &f in &news {
            self.facets[f].newmerge = false;
            // The vertices on f's ridges, marked.
            let on_ridge = self.new_visit();
            if self.vmark.len() < self.vpoint.len() {
                self.vmark.resize(self.vpoint.len(), 0);
            }
            for &r in self.facets[f].ridges.iter().flatten() {
                for v in self.ridges[r].v {
                    self.vmark[v] = on_ridge;
                }
            }
            let mut i = 0;
            while i < self.facets[f].vid.len() {
                let v = self.facets[f].vid[i];
                if self.vmark[v] == on_ridge {
                    i += 1;
                    continue;
                }
                self.vid_delete(f, v);
                let elsewhere = self.live_holders(v, |g| g == f).next().is_some();
                let gone = self.vn_extra(v, f);
                self.vn_check(!elsewhere, gone);
                if !elsewhere {
                    i += 1;
                }
            }
        }
        news
    }

    /// qh_premerge after new facets `first_new_id..` were made.
    pub(super) fn premerge(&mut self, first_new_id: usize) {
        let merges_before = self.merges;
        self.delridge.clear();
        if self.clearly_convex() {
            return;
        }
        // (a new facet without a plane is one to merge; the others are skipped below anyway)
        let new: Vec<usize> = self.new_facets().filter(|&g| g >= first_new_id && !self.facets[g].has_plane).collect();
        for f in new {
            if self.facets[f].has_plane || self.facets[f].visible {
                continue;
            }
            let horizon = self.facets[f].nb[0];
            if self.facets[f].samecycle == Some(f) {
                self.merge_into_horizon(f, horizon);
            } else {
                self.merge_cycle(f, horizon);
                if self.bail {
                    return;
                }
            }
        }
        let mut merged = if self.merges > merges_before { self.remove_extravertices() } else { Vec::new() };
        // Redundant or degenerate neighbours of merged facets would be merged next. (The checks
        // below change no list: they walk it.)
        let mut at = self.newlist;
        while let Some(f) = at {
            at = self.list.after(f);
            if !self.facets[f].coplanarhorizon {
                continue;
            }
            if self.facets[f].nb.len() < 3 {
                self.bail = true;
                return;
            }
            // f's vertices marked, so that each neighbour is tested in the time of its own
            // vertex count (a merged facet can have thousands: a cylinder's cap).
            let mark = self.mark_vertices(f);
            for &g in &self.facets[f].nb {
                if self.facets[g].vid.iter().all(|&v| self.vmark[v] == mark) {
                    self.bail = true;
                    return;
                }
            }
        }
        // qh_getmergeset_initial and qh_all_merges (`qhull_nonconvex.rs`): coplanar pairs merge.
        let merges = self.initial_merges();
        if self.bail {
            return;
        }
        if !merges.is_empty() {
            self.all_merges(merges);
            if self.bail {
                return;
            }
            // qh_reducevertices runs over every facet merged in the step, in list order.
            let more = self.remove_extravertices();
            merged = self.new_facets().filter(|g| merged.contains(g) || more.contains(g)).collect();
        }
        // qh_reducevertices then renames the vertices that lie on a straight edge.
        self.rename_shared(&merged);
    }

    /// qh_checkzero for the new facets (qhull's `C-0` default, `ZEROcentrum`): whether every new
    /// facet is clearly convex to its neighbours, judged by vertices, in which case qhull's
    /// premerge stops before any merge or centrum test.
    ///
    /// Each new facet must have a simplicial horizon (first neighbour) and a plane (a facet
    /// bound to merge into a coplanar horizon has none); then for each other neighbour `i` the
    /// facet's vertex `i` (the one opposite it) must lie more than `2 DISTround` (the
    /// replay's `min_visible`) below that neighbour, and the first vertex of the horizon that
    /// is not one of those tested must lie that far below the facet. A centrum is a third as
    /// far from a neighbour as the opposite vertex, so a pair can pass here and still fail the
    /// centrum test that follows otherwise (measured: MuJoCo 4.0.0's hulls of robosuite's
    /// xarm7 `link3`/`link5` and Fourier hand meshes, docs/measurements.md M4).
    fn clearly_convex(&mut self) -> bool {
        let mut at = self.newlist;
        while let Some(f) = at {
            at = self.list.after(f);
            let fc = &self.facets[f];
            if !fc.has_plane || !self.facets[fc.nb[0]].simplicial {
                return false;
            }
        }
        let limit = -self.min_visible;
        let mut at = self.newlist;
        while let Some(f) = at {
            at = self.list.after(f);
            let mark = self.new_visit();
            if self.vmark.len() < self.vpoint.len() {
                self.vmark.resize(self.vpoint.len(), 0);
            }
            for i in 1..self.facets[f].nb.len() {
                let (g, v) = (self.facets[f].nb[i], self.facets[f].vid[i]);
                self.vmark[v] = mark;
                let gp = self.planes[g];
                if plane_dist(&gp.normal, gp.offset, &self.vp(v)) >= limit {
                    return false;
                }
            }
            let horizon = self.facets[f].nb[0];
            let fp = self.planes[f];
            if let Some(&v) = self.facets[horizon].vid.iter().find(|&&v| self.vmark[v] != mark) {
                if plane_dist(&fp.normal, fp.offset, &self.vp(v)) >= limit {
                    return false;
                }
            }
        }
        true
    }

    /// Facet `f`'s centrum: its vertex mean projected to its plane (computed once).
    pub(in crate::mesh) fn centrum(&mut self, f: usize) -> [f64; 3] {
        if let Some(c) = self.centrums[f] {
            return c;
        }
        let c = self.centrum_of(f);
        self.centrums[f] = Some(c);
        c
    }

    /// [`Qh::centrum`] computed.
    fn centrum_of(&self, f: usize) -> [f64; 3] {
        let fc = &self.facets[f];
        let mut c = [0.0; 3];
        for &v in &fc.vid {
            for (ck, xk) in c.iter_mut().zip(self.vp(v)) {
                *ck += xk;
            }
        }
        let nv = fc.vid.len() as f64;
        c = c.map(|x| x / nv);
        let pl = &self.planes[f];
        let d = plane_dist(&pl.normal, pl.offset, &c);
        for (ck, nk) in c.iter_mut().zip(pl.normal) {
            *ck -= d * nk;
        }
        c
    }

    /// The triangles of the final facet list with `Qt` (vertex ids, decreasing), or `None`
    /// when a merged facet is not a plain polygon of ridges.
    pub(super) fn triangulate(&self) -> Option<Vec<(usize, [usize; 3])>> {
        let mut out = Vec::new();
        for f in self.list.iter() {
            let fc = &self.facets[f];
            if fc.simplicial {
                out.push((f, [fc.vid[0], fc.vid[1], fc.vid[2]]));
            }
        }
        for f in self.list.iter() {
            let fc = &self.facets[f];
            if fc.simplicial {
                continue;
            }
            let ridges = fc.ridges.as_ref()?;
            // Every vertex must be a polygon corner: on exactly two ridges.
            let mut ends: Vec<usize> = ridges.iter().flat_map(|&r| self.ridges[r].v).collect();
            ends.sort_unstable();
            let on = |v: &usize| ends.partition_point(|x| x <= v) - ends.partition_point(|x| x < v);
            if fc.vid.iter().any(|v| on(v) != 2) {
                return None;
            }
            if ridges.len() != fc.vid.len() {
                return None;
            }
            let apex = fc.vid[0];
            for &r in ridges {
                let [a, b] = self.ridges[r].v;
                if a != apex && b != apex {
                    out.push((f, [apex, a, b]));
                }
            }
        }
        Some(out)
    }
}
