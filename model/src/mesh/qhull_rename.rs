//! Renaming of shared vertices after a step's merges (qhull's `qh_rename_sharedvertex` in 3-d),
//! for [`super`].
//!
//! After the coplanar-horizon merges of a step, a vertex of a merged facet that only one other
//! facet shares lies on the straight edge between the two (e.g. a point in the middle of a CAD
//! edge, or lattice points). qhull then renames it to another vertex of that edge, so that it
//! disappears from the hull:
//!
//! * Only vertices that were on a deleted ridge qualify (qhull's `delridge` mark): the base
//!   vertices of a single new facet merged into its horizon, the base vertices and apex of a
//!   merged cycle, and the vertex left by a ridge that a rename deletes.
//! * The merged facets are visited in list order and their vertices in set order; after a
//!   rename the same slot is examined again (the renamed vertex left it).
//! * The ridges that change are the facet's ridges (in its ridge order) that hold the vertex and
//!   lead to the other facet. The candidates are the vertices both facets share, in decreasing
//!   id, kept only if on one of those ridges, ordered by how many of them hold the candidate
//!   (fewest first, ties keeping the id order). The first candidate whose renaming would not
//!   duplicate one of its own explicit ridges is chosen; without one, nothing is renamed.
//! * In each changed ridge the vertex is replaced by the candidate (vertex ids kept decreasing);
//!   a ridge that then holds the candidate twice is deleted from both facets' ridge sets (last
//!   element into the slot) and marks the candidate. The vertex leaves both facets (order kept)
//!   and the hull.
//!
//! A facet left redundant or degenerate by a rename would be merged next by qhull, which is
//! not replayed (`bail`).

use super::Qh;

impl Qh<'_> {
    /// Live facets (in no particular order) whose vertex sets hold vertex id `v`.
    fn holders(&self, v: usize) -> Vec<usize> {
        self.live_holders(v, |_| false).collect()
    }

    /// The other facet of ridge `r` than `f`.
    fn across(&self, r: usize, f: usize) -> usize {
        let [a, b] = self.ridges[r].f;
        if a == f {
            b
        } else {
            a
        }
    }

    /// qhull's shared-vertex renames over the facets merged in this step (`news`, list order).
    pub(in crate::mesh) fn rename_shared(&mut self, news: &[usize]) {
        for &f in news {
            let mut i = 0;
            while !self.facets[f].visible && i < self.facets[f].vid.len() {
                let v = self.facets[f].vid[i];
                if !self.delridge.contains(&v) || !self.rename_one(v, f) {
                    i += 1;
                }
                if self.bail {
                    return;
                }
            }
        }
    }

    /// Renames vertex `v` of merged facet `f` when only one other facet shares it; returns
    /// whether it did.
    fn rename_one(&mut self, v: usize, f: usize) -> bool {
        // `f` holds `v` and is live, so it is one of the two.
        let hold = self.holders(v);
        if hold.len() != 2 {
            return false;
        }
        let a = if hold[0] == f { hold[1] } else { hold[0] };
        let fr = self.facets[f].ridges.clone().unwrap_or_default();
        let ridges: Vec<usize> =
            fr.into_iter().filter(|&r| self.across(r, f) == a && self.ridges[r].v.contains(&v)).collect();
        let (fv, av) = (&self.facets[f].vid, &self.facets[a].vid);
        if !fv.windows(2).all(|w| w[0] > w[1]) || !av.windows(2).all(|w| w[0] > w[1]) {
            self.bail = true;
            return false;
        }
        let mut cands: Vec<(usize, usize)> = fv
            .iter()
            .copied()
            .filter(|&c| c != v && av.contains(&c))
            .map(|c| (c, ridges.iter().filter(|&&r| self.ridges[r].v.contains(&c)).count()))
            .filter(|&(_, n)| n > 0)
            .collect();
        cands.sort_by_key(|&(_, n)| n);
        // The far ends of the ridges that change: renaming onto a candidate that already has an
        // explicit ridge to one of them would duplicate that ridge.
        let ends: Vec<(usize, usize)> = ridges
            .iter()
            .map(|&r| {
                let [x, y] = self.ridges[r].v;
                (r, if x == v { y } else { x })
            })
            .collect();
        let mut chosen = None;
        for &(c, _) in &cands {
            let mut clash = false;
            for g in self.holders(c) {
                for &r in self.facets[g].ridges.iter().flatten() {
                    let [x, y] = self.ridges[r].v;
                    if x != c && y != c {
                        continue;
                    }
                    let other = if x == c { y } else { x };
                    if ends.iter().any(|&(h, e)| h != r && e == other) {
                        clash = true;
                    }
                }
            }
            if !clash {
                chosen = Some(c);
                break;
            }
        }
        let Some(c) = chosen else { return false };
        for &r in &ridges {
            let [x, y] = self.ridges[r].v;
            let other = if x == v { y } else { x };
            if other == c {
                for g in self.ridges[r].f {
                    if let Some(rs) = self.facets[g].ridges.as_mut() {
                        if let Some(pos) = rs.iter().position(|&q| q == r) {
                            rs.swap_remove(pos);
                        }
                    }
                }
                if !self.delridge.contains(&c) {
                    self.delridge.push(c);
                }
            } else {
                self.ridges[r].v = [c.max(other), c.min(other)];
            }
        }
        for g in [f, a] {
            self.vid_delete(g, v);
        }
        // A facet left redundant (its vertices within a neighbour's) or degenerate (fewer than
        // three neighbours or vertices) would be merged next.
        for g in [a, f] {
            let fc = &self.facets[g];
            let redundant = fc.nb.iter().any(|&n| fc.vid.iter().all(|x| self.facets[n].vid.contains(x)));
            if redundant || fc.nb.len() < 3 || fc.vid.len() < 3 {
                self.bail = true;
            }
        }
        true
    }
}
