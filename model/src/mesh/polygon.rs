//! Flat polygons of the convex hull (`mesh_polyvert`, `mesh_polynormal`, `mesh_polymap`).
//!
//! MuJoCo merges hull triangles whose normals agree after rounding their spherical angles to
//! multiples of 0.01 rad, and stores each merged region as a vertex cycle.
//!
//! Algorithm:
//! 1. For each hull triangle (raw, untransformed vertices), the key is
//!    `(round(atan2(ny, nx) / 0.01), round(acos(nz) / 0.01))` of its unit normal, with the
//!    azimuth forced to 0 near the poles (|nz| > 1 - 1e-7) and the polar angle pi for the south
//!    pole. Degenerate triangles are skipped.
//! 2. Triangles with equal keys are merged edge by edge: an edge shared with the reverse of a
//!    boundary edge removes it, otherwise it is added. Pieces not yet connected are tracked as
//!    islands and renumbered when a triangle joins two of them.
//! 3. Each island's boundary edges are chained into a vertex cycle; only cycles that close
//!    are kept.
//! 4. The stored normal is recomputed from the first three vertices of the cycle in the final
//!    (centred, rotated) frame.
//!
//! MuJoCo iterates its polygon table in hash order, and its cycles start where qhull's
//! triangulation puts them; here polygons come in order of their first triangle and cycles
//! start at the first boundary edge, so the *set* of polygons agrees but not their order.

use std::collections::HashMap;

use super::eig3::MJ_EPS;
use super::mass::{cross, dot3, MJ_MINVAL};

/// Angle quantum used to decide that two triangle normals are the same.
const ANGLE_TOL: f64 = 0.01;

/// Rounded spherical angles of the triangle's normal, or `None` if it is degenerate.
fn key(v1: &[f64], v2: &[f64], v3: &[f64]) -> Option<(f64, f64)> {
    let d12 = [v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]];
    let d13 = [v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2]];
    let n = cross(&d12, &d13);
    let norm = dot3(&n, &n).sqrt();
    if norm < MJ_MINVAL {
        return None;
    }
    // Adding 0.0 turns -0.0 into +0.0, which matters to atan2.
    let n = [n[0] / norm + 0.0, n[1] / norm + 0.0, n[2] / norm + 0.0];
    if n[2].abs() > 1.0 - 1e-7 {
        let phi = if n[2] < 0.0 { (std::f64::consts::PI / ANGLE_TOL).round() } else { 0.0 };
        return Some((0.0, phi));
    }
    Some(((n[1].atan2(n[0]) / ANGLE_TOL).round(), (n[2].acos() / ANGLE_TOL).round()))
}

/// A polygon under construction: its boundary edges and the island of each edge.
struct Piece {
    edges: Vec<(usize, usize)>,
    island: Vec<usize>,
    nisland: usize,
}

impl Piece {
    /// A polygon made of one triangle.
    fn new(a: usize, b: usize, c: usize) -> Piece {
        Piece { edges: vec![(a, b), (b, c), (c, a)], island: vec![0, 0, 0], nisland: 1 }
    }

    /// Merges islands `a` and `b` (into the smaller number) and renumbers the rest.
    fn merge(&mut self, a: &mut usize, b: &mut usize) {
        if *b < *a {
            std::mem::swap(a, b);
        }
        for k in self.island.iter_mut() {
            if *k == *b {
                *k = *a;
            } else if *k > *b {
                *k -= 1;
            }
        }
    }

    /// Adds triangle (v1, v2, v3): shared edges cancel, new edges join the boundary.
    fn insert(&mut self, v1: usize, v2: usize, v3: usize) {
        let mut island: Option<usize> = None;
        let mut add = [true; 3];
        for (slot, (a, b)) in [(v1, v2), (v2, v3), (v3, v1)].into_iter().enumerate() {
            let Some(i) = self.edges.iter().position(|&e| e == (b, a)) else { continue };
            let mut other = self.island[i];
            match island {
                None => island = Some(other),
                Some(mut cur) if cur != other => {
                    self.nisland -= 1;
                    self.merge(&mut cur, &mut other);
                    island = Some(cur);
                }
                _ => {}
            }
            add[slot] = false;
            self.edges.remove(i);
            self.island.remove(i);
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for (slot, e) in [(v1, v2), (v2, v3), (v3, v1)].into_iter().enumerate() {
            if add[slot] {
                self.edges.push(e);
                self.island.push(island);
            }
        }
    }

    /// Closed boundary cycles, one per island.
    fn paths(&self) -> Vec<Vec<usize>> {
        if self.edges.len() == 3 {
            return vec![self.edges.iter().map(|e| e.0).collect()];
        }
        let mut out = Vec::new();
        for i in 0..self.nisland {
            let Some(j) = self.island.iter().position(|&k| k == i) else { continue };
            let mut path = vec![self.edges[j].0, self.edges[j].1];
            let mut next = self.edges[j].1;
            // MuJoCo's walk skips edge 0 when looking for the continuation.
            for _ in 0..self.edges.len() {
                let step = (1..self.edges.len()).find(|&k| self.island[k] == i && self.edges[k].0 == next);
                let Some(k) = step else { continue };
                next = self.edges[k].1;
                if next == path[0] {
                    out.push(path);
                    break;
                }
                path.push(next);
            }
        }
        out
    }
}

/// Polygons of the hull `faces` (raw vertices `raw`), each a vertex cycle.
pub fn make_polygons(raw: &[f64], faces: &[[usize; 3]]) -> Vec<Vec<usize>> {
    let mut index: HashMap<(u64, u64), usize> = HashMap::new();
    let mut pieces: Vec<Piece> = Vec::new();
    for f in faces {
        let p = |i: usize| &raw[3 * f[i]..3 * f[i] + 3];
        let Some((theta, phi)) = key(p(0), p(1), p(2)) else { continue };
        match index.get(&(theta.to_bits(), phi.to_bits())) {
            Some(&k) => pieces[k].insert(f[0], f[1], f[2]),
            None => {
                index.insert((theta.to_bits(), phi.to_bits()), pieces.len());
                pieces.push(Piece::new(f[0], f[1], f[2]));
            }
        }
    }
    pieces.iter().flat_map(|p| p.paths()).filter(|path| path.len() >= 3).collect()
}

/// Unit normal of the triangle (a, b, c), or (1, 0, 0) if degenerate (MuJoCo's `makenormal`).
pub fn polygon_normal(a: &[f64], b: &[f64], c: &[f64]) -> [f64; 3] {
    let n = cross(&[b[0] - a[0], b[1] - a[1], b[2] - a[2]], &[c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
    let nrm = dot3(&n, &n).sqrt();
    if nrm < MJ_EPS {
        return [1.0, 0.0, 0.0];
    }
    [n[0] / nrm, n[1] / nrm, n[2] / nrm]
}
