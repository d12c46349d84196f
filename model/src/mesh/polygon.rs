//! Flat polygons of the convex hull (`mesh_polyvert`, `mesh_polynormal`, `mesh_polymap`).
//!
//! MuJoCo merges hull triangles whose normals agree after rounding their spherical angles to
//! multiples of 0.01 rad, and stores each merged region as a vertex cycle.
//!
//! Algorithm:
//! 1. For each hull triangle (raw, untransformed vertices, in the hull's face order), the key is
//!    `(round(atan2(ny, nx) / 0.01), round(acos(nz) / 0.01))` of its unit normal, with the
//!    azimuth forced to 0 near the poles (|nz| > 1 - 1e-7) and the polar angle 314 for the south
//!    pole. Degenerate triangles are skipped.
//! 2. Triangles with equal keys are merged edge by edge: an edge shared with the reverse of a
//!    boundary edge removes it, otherwise it is added. Pieces not yet connected are tracked as
//!    islands and renumbered when a triangle joins two of them.
//! 3. The keys are listed in the iteration order of the compiler's hash map (see [`HashOrder`]);
//!    each key's islands give one boundary cycle each, starting at the island's first remaining
//!    edge; only cycles of three or more vertices are kept.
//! 4. The stored normal is recomputed from the first three vertices of the cycle in the final
//!    (centred, rotated) frame.
//!
//! Measured from MuJoCo 4.0.0's released library (`libmujoco.so.4.0.0`, disassembly of
//! `mjCMesh::Process`), where it differs from the pre-4.0 source: the table is a libc++
//! `std::unordered_map` (the wheel is built with clang and a static libc++, not libstdc++), whose
//! key hash is a boost-style combine of the two angles' bit patterns, `h1 ^ (h2 + 0x9e3779b9 +
//! (h1 << 6) + (h1 >> 2))` with `hi` = the double's bits (0 for +-0.0); `std::round` is compiled
//! as `trunc(x + copysign(0.49999999999999994, x))`. With MuJoCo's own hull faces
//! (`mesh_graph`) as input, this order reproduced `mesh_polyvert` of the 8-vertex mesh of
//! `tests/narrowphase_oracle.rs` exactly, where the libstdc++ order did not.
//!
//! What still differs from MuJoCo: for the hulls that [`super::qhull`] cannot replay (see its
//! docs) the faces come from [`super::hull`]'s own quickhull, whose face order and vertex
//! rotation are not qhull's, and both the map order and each cycle's start depend on them. The
//! set of cycles (up to rotation) and their normals (to rounding) agree.

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
        let phi = if n[2] < 0.0 { c_round(std::f64::consts::PI / ANGLE_TOL) } else { 0.0 };
        return Some((0.0, phi));
    }
    Some((c_round(n[1].atan2(n[0]) / ANGLE_TOL), c_round(n[2].acos() / ANGLE_TOL)))
}

/// `std::round` as MuJoCo 4.0.0's library computes it (clang's lowering: add the largest double
/// below one half, with the sign of `x`, then truncate).
fn c_round(x: f64) -> f64 {
    (x + 0.499_999_999_999_999_94_f64.copysign(x)).trunc()
}

/// A polygon under construction: its boundary edges, each with its island.
struct Piece {
    /// Boundary edges `(from, to)` and the island of each.
    edges: Vec<((usize, usize), usize)>,
    nisland: usize,
}

impl Piece {
    /// A polygon made of one triangle.
    fn new(a: usize, b: usize, c: usize) -> Piece {
        Piece { edges: vec![((a, b), 0), ((b, c), 0), ((c, a), 0)], nisland: 1 }
    }

    /// Merges islands `a` and `b` (into the smaller number) and renumbers the rest.
    fn merge(&mut self, a: &mut usize, b: &mut usize) {
        if *b < *a {
            std::mem::swap(a, b);
        }
        for (_, k) in self.edges.iter_mut() {
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
            let Some(i) = self.edges.iter().position(|&(e, _)| e == (b, a)) else { continue };
            let mut other = self.edges[i].1;
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
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for (slot, e) in [(v1, v2), (v2, v3), (v3, v1)].into_iter().enumerate() {
            if add[slot] {
                self.edges.push((e, island));
            }
        }
    }

    /// Closed boundary cycles, one per island.
    ///
    /// Every cycle is walked edge to edge, three-edge ones too: a triangle left by merging
    /// (three hull triangles around a vertex inside them) keeps its edges out of cycle order,
    /// and listing their start points reversed it (the bunny of `bunnies.xml`, polygon 303:
    /// MuJoCo 4.0.0 has (1912, 1905, 1713)).
    fn paths(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for i in 0..self.nisland {
            let Some(j) = self.edges.iter().position(|&(_, k)| k == i) else { continue };
            let ((from, to), _) = self.edges[j];
            let mut path = vec![from, to];
            let mut next = to;
            // MuJoCo's walk skips edge 0 when looking for the continuation.
            for _ in 0..self.edges.len() {
                let step = (1..self.edges.len()).find(|&k| self.edges[k].1 == i && self.edges[k].0 .0 == next);
                let Some(k) = step else { continue };
                next = self.edges[k].0 .1;
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

/// Polygons of the hull `faces` (raw vertices `raw`), each a vertex cycle, in MuJoCo's order.
pub fn make_polygons(raw: &[f64], faces: &[[usize; 3]]) -> Vec<Vec<usize>> {
    // The pieces in key order of first use, with their keys; `order` is the compiler's map.
    let mut keys: Vec<(u64, u64)> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut order = HashOrder::default();
    for f in faces {
        let p = |i: usize| &raw[3 * f[i]..3 * f[i] + 3];
        let Some((theta, phi)) = key(p(0), p(1), p(2)) else { continue };
        // The compiler's map compares keys with `==`, so a rounded -0.0 (an azimuth just
        // below zero) is the same key as +0.0: adding 0.0 folds both into +0.0 (measured on
        // the dodecahedron of mjx's convex.xml, whose pentagon (9, 8, 5, 0, 3) has
        // azimuths of both signs and is one polygon in MuJoCo 4.0.0).
        // (Equal keys have equal hashes: the hash also takes both zeros as one.)
        let bits = ((theta + 0.0).to_bits(), (phi + 0.0).to_bits());
        let h = key_hash(theta, phi);
        match order.find(h, |k| keys[k] == bits) {
            Some(k) => pieces[k].insert(f[0], f[1], f[2]),
            None => {
                keys.push(bits);
                pieces.push(Piece::new(f[0], f[1], f[2]));
                order.insert(h);
            }
        }
    }
    order.iter().flat_map(|k| pieces[k].paths()).filter(|path| path.len() >= 3).collect()
}

/// Bits of a double as libc++'s `std::hash<double>` returns them (both zeros hash to 0).
fn double_hash(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

/// Hash of a polygon key in MuJoCo 4.0.0 (boost-style combine of the two angle hashes).
fn key_hash(theta: f64, phi: f64) -> u64 {
    let h1 = double_hash(theta);
    h1 ^ double_hash(phi).wrapping_add(0x9e37_79b9).wrapping_add(h1 << 6).wrapping_add(h1 >> 2)
}

/// No node / empty bucket.
const NIL: usize = usize::MAX;

/// The iteration order of a libc++ `std::unordered_map` with unique keys, max load factor 1,
/// filled by inserting keys of the given hashes one by one (each new; lookups do not reorder).
///
/// libc++ keeps all nodes in one singly linked list that starts at a sentinel (node 0 here);
/// each bucket remembers the node *before* its first node. A key whose bucket is empty goes to
/// the front of the list; otherwise it goes right before its bucket's first node. When the
/// size would exceed the bucket count, the table grows to the next prime at or above
/// `max(2 * count + 1, size)` (2 for the first insertion) and relinks the list in one pass:
/// a node stays where it is if its new bucket is the previous node's or is still empty,
/// otherwise it moves right before that bucket's first node. Bucket index: `hash % count`
/// (`hash & (count - 1)` for powers of two).
#[derive(Default)]
pub struct HashOrder {
    /// Hash of each node (index 0 is the sentinel).
    hash: Vec<u64>,
    /// Next node of each node.
    next: Vec<usize>,
    /// Per bucket, the node before its first node.
    bucket: Vec<usize>,
}

impl HashOrder {
    /// Bucket of hash `h` for the current bucket count.
    fn index(&self, h: u64) -> usize {
        constrain(h, self.bucket.len())
    }

    /// Inserts a new key with hash `h`; its insertion number is its index in [`HashOrder::iter`].
    pub fn insert(&mut self, h: u64) {
        if self.hash.is_empty() {
            self.hash.push(0);
            self.next.push(NIL);
        }
        let size = self.hash.len() - 1;
        let bc = self.bucket.len();
        // libc++ compares in float: size + 1 > bc * max_load_factor
        if bc == 0 || (size + 1) as f32 > bc as f32 {
            let pow2 = bc > 2 && bc.is_power_of_two();
            self.rehash((2 * bc + usize::from(!pow2)).max(size + 1));
        }
        let node = self.hash.len();
        self.hash.push(h);
        self.next.push(NIL);
        let b = self.index(h);
        let before = self.bucket[b];
        if before == NIL {
            self.next[node] = self.next[0];
            self.next[0] = node;
            self.bucket[b] = 0;
            let after = self.next[node];
            if after != NIL {
                let ab = self.index(self.hash[after]);
                self.bucket[ab] = node;
            }
        } else {
            self.next[node] = self.next[before];
            self.next[before] = node;
        }
    }

    /// Grows to `n` buckets (rounded up to a prime unless a power of two).
    fn rehash(&mut self, n: usize) {
        let n = if n == 1 {
            2
        } else if n.is_power_of_two() {
            n
        } else {
            next_prime(n)
        };
        if n <= self.bucket.len() {
            return;
        }
        self.bucket = vec![NIL; n];
        let mut pp = 0;
        let mut cp = self.next[0];
        if cp == NIL {
            return;
        }
        let mut phash = self.index(self.hash[cp]);
        self.bucket[phash] = pp;
        pp = cp;
        cp = self.next[cp];
        while cp != NIL {
            let chash = self.index(self.hash[cp]);
            if chash == phash {
                pp = cp;
            } else if self.bucket[chash] == NIL {
                self.bucket[chash] = pp;
                pp = cp;
                phash = chash;
            } else {
                let before = self.bucket[chash];
                self.next[pp] = self.next[cp];
                self.next[cp] = self.next[before];
                self.next[before] = cp;
            }
            cp = self.next[pp];
        }
    }

    /// The insertion number of a key of hash `h` that `is` (given insertion numbers) accepts:
    /// the map's own lookup, which walks `h`'s bucket (its nodes follow each other in the list).
    pub fn find(&self, h: u64, is: impl Fn(usize) -> bool) -> Option<usize> {
        if self.bucket.is_empty() {
            return None;
        }
        let b = self.index(h);
        let before = self.bucket[b];
        if before == NIL {
            return None;
        }
        let mut cur = self.next[before];
        while cur != NIL && self.index(self.hash[cur]) == b {
            if self.hash[cur] == h && is(cur - 1) {
                return Some(cur - 1);
            }
            cur = self.next[cur];
        }
        None
    }

    /// Insertion numbers (0-based) in iteration order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut cur = self.next.first().copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let k = cur - 1;
            cur = self.next[cur];
            Some(k)
        })
    }
}

/// libc++'s bucket index.
fn constrain(h: u64, bc: usize) -> usize {
    let bc = bc as u64;
    if bc.is_power_of_two() {
        (h & (bc - 1)) as usize
    } else if h < bc {
        h as usize
    } else {
        (h % bc) as usize
    }
}

/// Smallest prime at or above `n` (n >= 2).
fn next_prime(mut n: usize) -> usize {
    let is_prime = |n: usize| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
    while !is_prime(n) {
        n += 1;
    }
    n
}

/// Unit normal of the polygon with corners `cycle` (indices into the xyz array `vert`), as
/// MuJoCo 4.0.0's compiler computes `mesh_polynormal`: Newell's sum over all edges, in cycle
/// order, normalised when its length is at least 1e-14, else (1, 0, 0).
///
/// Read from the released library (the inlined loop in `mjCMesh::Process`); the source snapshot
/// instead took the cross product of the first three corners, which differs in the last bits
/// (checked: the 12 normals of the oracle's 8-point mesh are bit for bit MuJoCo's this way, 1 of
/// 12 the other).
pub fn newell_normal(vert: &[f64], cycle: &[usize]) -> [f64; 3] {
    let (mut nx, mut ny, mut nz) = (0.0, 0.0, 0.0);
    for (i, &a) in cycle.iter().enumerate() {
        let b = cycle[(i + 1) % cycle.len()];
        let (p, q) = (&vert[3 * a..3 * a + 3], &vert[3 * b..3 * b + 3]);
        nx += (p[1] - q[1]) * (p[2] + q[2]);
        ny += (p[2] - q[2]) * (p[0] + q[0]);
        nz += (p[0] - q[0]) * (p[1] + q[1]);
    }
    let len = (nz * nz + (nx * nx + ny * ny)).sqrt();
    if len < 1e-14 {
        return [1.0, 0.0, 0.0];
    }
    [nx / len, ny / len, nz / len]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 8-point mesh of `tests/narrowphase_oracle.rs` with MuJoCo 4.0.0's own hull faces
    /// (`mesh_graph` of that model, mesh-vertex ids): the polygons come out as MuJoCo 4.0.0 lists
    /// them (`mesh_polyvert`, probed with the Python bindings), in libc++ hash-map order.
    #[test]
    fn order_of_mujoco_hull_faces() {
        let raw: Vec<f64> = [
            0.2, 0.0, 0.0, -0.15, 0.1, 0.05, 0.0, -0.18, 0.1, 0.0, 0.05, -0.2, 0.1, 0.12, 0.15, -0.1, -0.1, -0.1, 0.05,
            0.2, -0.05, -0.2, 0.02, 0.12,
        ]
        .iter()
        .map(|&x: &f64| f64::from(x as f32))
        .collect();
        let faces = [
            [3, 6, 0],
            [6, 4, 0],
            [2, 4, 7],
            [4, 2, 0],
            [3, 1, 6],
            [4, 1, 7],
            [1, 4, 6],
            [5, 3, 0],
            [2, 5, 0],
            [5, 2, 7],
            [1, 5, 7],
            [5, 1, 3],
        ];
        let expected = [
            [5, 1, 3],
            [5, 3, 0],
            [4, 1, 7],
            [3, 6, 0],
            [3, 1, 6],
            [1, 4, 6],
            [4, 2, 0],
            [2, 4, 7],
            [1, 5, 7],
            [5, 2, 7],
            [2, 5, 0],
            [6, 4, 0],
        ];
        let got = make_polygons(&raw, &faces);
        assert_eq!(got, expected.map(|p| p.to_vec()).to_vec());
    }

    /// Hand-derived libc++ behaviour: 0 and 1 fill the two initial buckets, each going to the
    /// front ([1, 0]); the third key grows the table to 5 buckets, the relink keeps [1, 0]
    /// (each lands in a new bucket), and 2 goes to the empty bucket 2, i.e. to the front.
    #[test]
    fn hash_order_small() {
        let mut o = HashOrder::default();
        for h in [0, 1, 2] {
            o.insert(h);
        }
        assert_eq!(o.iter().collect::<Vec<_>>(), vec![2, 1, 0]);
        // a key in a non-empty bucket goes right before that bucket's first node (5 % 5 = 0)
        o.insert(5);
        assert_eq!(o.iter().collect::<Vec<_>>(), vec![2, 1, 3, 0]);
    }

    /// The rounding matches C's `round` (half away from zero) on the values that matter.
    #[test]
    fn c_round_is_half_away_from_zero() {
        for (x, r) in [(0.5, 1.0), (-0.5, -1.0), (2.5, 3.0), (0.49999999999999994, 0.0), (-314.159, -314.0)] {
            assert_eq!(c_round(x), r, "{x}");
        }
    }
}
