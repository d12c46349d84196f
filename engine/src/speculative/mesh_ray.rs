//! Rays against a mesh's own triangles, as MuJoCo 4.0.0's line-of-sight test casts them.
//!
//! MuJoCo's `isRayOccluded` asks `mj_rayMesh` whether a mesh hides a segment, and `mj_rayMesh`
//! intersects the mesh's triangles (`mesh_face`), not its convex hull: a finger lying in the
//! hollow of a palm mesh is not hidden by the palm (`docs/measurements.md` S11). This module keeps
//! each mesh's triangles in its geom frame with a bounding-volume tree over them, and answers the
//! same question with the same arithmetic.
//!
//! Algorithm (`MeshSurface::ray`):
//! 1. Reject the ray when it misses the geom's box `geom_size` (a box about the geom origin that
//!    holds the mesh), as `mj_rayMesh` does first.
//! 2. Map the ray into the geom frame and build two unit vectors `b0`, `b1` spanning the plane
//!    normal to the ray direction.
//! 3. Walk the tree, skipping boxes the ray does not enter before the nearest hit so far; for each
//!    triangle, project its corners (relative to the ray origin) on `b0`, `b1`: the ray passes
//!    through the triangle when the origin of that plane lies inside the projected triangle
//!    (barycentric coordinates from a 2x2 solve); the distance is then where the ray meets the
//!    triangle's plane.
//! 4. Return the nearest non-negative distance, in units of the ray vector, or -1.
//!
//! The tree is specula's own (MuJoCo walks the compiler's mesh tree), which changes the order in
//! which triangles are visited but not the nearest distance.

use crate::math::{cross, dot3, mul_mat_t_vec3, sub3, MINVAL};

/// Triangles per tree leaf.
const LEAF_SIZE: usize = 4;

/// A tree node: its box, and either two children or a range of `MeshSurface::order`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Node {
    /// Lower corner of the box (slightly grown, so rounding never hides a hit triangle).
    lo: [f64; 3],
    /// Upper corner of the box.
    hi: [f64; 3],
    /// Children (`right` = 0 for a leaf, whose triangles are `order[first..first + count]`).
    left: u32,
    right: u32,
    first: u32,
    count: u32,
}

/// One mesh's triangles in its geom frame (`mesh_vert` widened to `f64`, `mesh_face`), with a
/// tree for ray casts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshSurface {
    vert: Vec<[f64; 3]>,
    face: Vec<[u32; 3]>,
    /// Triangle ids, grouped by leaf.
    order: Vec<u32>,
    nodes: Vec<Node>,
}

impl MeshSurface {
    /// The surface of one mesh: `vert` its vertices (as `mjModel` stores them, `f32`), `face`
    /// its triangles as indices into `vert`. `None` when a face names a vertex that is not there.
    pub fn new(vert: &[[f32; 3]], face: &[[i32; 3]]) -> Option<MeshSurface> {
        let vert: Vec<[f64; 3]> = vert.iter().map(|v| [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])]).collect();
        let n = vert.len();
        let face: Option<Vec<[u32; 3]>> = face
            .iter()
            .map(|f| {
                let ok = |i: i32| usize::try_from(i).ok().filter(|&i| i < n).map(|i| i as u32);
                Some([ok(f[0])?, ok(f[1])?, ok(f[2])?])
            })
            .collect();
        let mut s = MeshSurface { vert, face: face?, order: Vec::new(), nodes: Vec::new() };
        s.order = (0..s.face.len() as u32).collect();
        if !s.face.is_empty() {
            s.build(0, s.face.len());
        }
        Some(s)
    }

    /// Number of triangles.
    pub fn nface(&self) -> usize {
        self.face.len()
    }

    /// The corners of triangle `f`.
    fn corners(&self, f: u32) -> [[f64; 3]; 3] {
        let t = self.face[f as usize];
        [self.vert[t[0] as usize], self.vert[t[1] as usize], self.vert[t[2] as usize]]
    }

    /// Builds the subtree over `order[first..first + count]` and returns its node index: split
    /// at the median centroid along the widest axis of the centroids.
    fn build(&mut self, first: usize, count: usize) -> u32 {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        let (mut clo, mut chi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &f in &self.order[first..first + count] {
            let c = self.corners(f);
            for i in 0..3 {
                for p in &c {
                    lo[i] = lo[i].min(p[i]);
                    hi[i] = hi[i].max(p[i]);
                }
                let mid = (c[0][i] + c[1][i] + c[2][i]) / 3.0;
                clo[i] = clo[i].min(mid);
                chi[i] = chi[i].max(mid);
            }
        }
        // grow the box a little: a hit found by the triangle test may sit a rounding error
        // outside the triangle's exact box
        let grow = 1e-9 * (0..3).map(|i| (hi[i] - lo[i]).abs()).fold(0.0, f64::max) + 1e-12;
        for i in 0..3 {
            lo[i] -= grow;
            hi[i] += grow;
        }
        let index = self.nodes.len();
        self.nodes.push(Node { lo, hi, left: 0, right: 0, first: first as u32, count: count as u32 });
        let axis = (0..3).fold(0, |a, i| if chi[i] - clo[i] > chi[a] - clo[a] { i } else { a });
        if count <= LEAF_SIZE || (chi[axis] - clo[axis]).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return index as u32;
        }
        let key = |f: &u32| {
            let c = self.corners(*f);
            (c[0][axis] + c[1][axis] + c[2][axis]) / 3.0
        };
        let half = count / 2;
        let mut part: Vec<u32> = self.order[first..first + count].to_vec();
        part.select_nth_unstable_by(half, |a, b| key(a).total_cmp(&key(b)));
        self.order[first..first + count].copy_from_slice(&part);
        let left = self.build(first, half);
        let right = self.build(first + half, count - half);
        let node = &mut self.nodes[index];
        node.left = left;
        node.right = right;
        index as u32
    }

    /// Nearest intersection of the ray `pnt + x vec` (world frame) with the mesh of a geom at
    /// `pos`, `mat` whose box is `size`: the smallest `x >= 0`, or -1 (MuJoCo's `mj_rayMesh`).
    pub fn ray(&self, size: &[f64; 3], pos: &[f64; 3], mat: &[f64; 9], pnt: &[f64; 3], vec: &[f64; 3]) -> f64 {
        // Step 1: the box about the geom origin.
        if super::sight::ray_box(pos, mat, size, pnt, vec) < 0.0 || self.nodes.is_empty() {
            return -1.0;
        }
        let p = mul_mat_t_vec3(mat, &sub3(pnt, pos));
        let v = mul_mat_t_vec3(mat, vec);
        // Step 2: the plane normal to the ray.
        let Some((b0, b1)) = normal_plane(&v) else { return -1.0 };
        // Step 3: the tree.
        let inv = [1.0 / v[0], 1.0 / v[1], 1.0 / v[2]];
        let mut best = -1.0;
        let mut stack = [0u32; 64];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let node = &self.nodes[stack[depth] as usize];
            let reach = if best >= 0.0 { best } else { f64::INFINITY };
            if !slab(node, &p, &inv, reach) {
                continue;
            }
            if node.right == 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                for &f in &self.order[range] {
                    let x = ray_triangle(&self.corners(f), &p, &v, &b0, &b1);
                    if x >= 0.0 && (best < 0.0 || x < best) {
                        best = x;
                    }
                }
            } else if depth + 2 <= stack.len() {
                stack[depth] = node.left;
                stack[depth + 1] = node.right;
                depth += 2;
            } else {
                // deeper than any median-split tree of a real mesh gets: test the leaves below
                best = self.ray_all(node, &p, &v, &b0, &b1, best);
            }
        }
        best
    }

    /// The triangles under `node`, without the tree (a fallback for very deep trees).
    fn ray_all(&self, node: &Node, p: &[f64; 3], v: &[f64; 3], b0: &[f64; 3], b1: &[f64; 3], mut best: f64) -> f64 {
        let range = node.first as usize..(node.first + node.count) as usize;
        for &f in &self.order[range] {
            let x = ray_triangle(&self.corners(f), p, v, b0, b1);
            if x >= 0.0 && (best < 0.0 || x < best) {
                best = x;
            }
        }
        best
    }
}

/// Whether the ray `p + x v` (`inv` = 1 / v) enters the node's box for some `x` in `[0, reach]`.
fn slab(node: &Node, p: &[f64; 3], inv: &[f64; 3], reach: f64) -> bool {
    let (mut tmin, mut tmax) = (0.0f64, reach);
    for i in 0..3 {
        let a = (node.lo[i] - p[i]) * inv[i];
        let b = (node.hi[i] - p[i]) * inv[i];
        let (near, far) = if a < b { (a, b) } else { (b, a) };
        // a NaN (ray parallel to and on a slab face) keeps the ray in: never hide a hit
        if near > tmin {
            tmin = near;
        }
        if far < tmax {
            tmax = far;
        }
    }
    tmin <= tmax
}

/// Two unit vectors spanning the plane normal to `v`, or `None` for a zero `v`: start from
/// `(1, 1, 1)` with the component of `v`'s largest entry zeroed, remove its part along `v`, then
/// complete with the cross product (the construction `mj_rayMesh` uses).
fn normal_plane(v: &[f64; 3]) -> Option<([f64; 3], [f64; 3])> {
    let a = [v[0].abs(), v[1].abs(), v[2].abs()];
    let mut b0 = [1.0, 1.0, 1.0];
    if a[0] >= a[1] && a[0] >= a[2] {
        b0[0] = 0.0;
    } else if a[1] >= a[2] {
        b0[1] = 0.0;
    } else {
        b0[2] = 0.0;
    }
    let vv = dot3(v, v);
    // (also refuses a NaN direction)
    if vv.partial_cmp(&(MINVAL * MINVAL)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let s = -dot3(v, &b0) / vv;
    let b1 = normalized([b0[0] + v[0] * s, b0[1] + v[1] * s, b0[2] + v[2] * s]);
    let b0 = normalized(cross(&b1, v));
    Some((b0, b1))
}

/// `v / |v|` (MuJoCo's `mju_normalize3`: a vector shorter than `mjMINVAL` becomes `(1, 0, 0)`).
fn normalized(v: [f64; 3]) -> [f64; 3] {
    let n = dot3(&v, &v).sqrt();
    if n < MINVAL {
        return [1.0, 0.0, 0.0];
    }
    let k = 1.0 / n;
    [v[0] * k, v[1] * k, v[2] * k]
}

/// Where the ray `p + x v` meets triangle `t`, or -1: the projections of the corners on the
/// plane `b0`, `b1` normal to the ray must surround the origin.
fn ray_triangle(t: &[[f64; 3]; 3], p: &[f64; 3], v: &[f64; 3], b0: &[f64; 3], b1: &[f64; 3]) -> f64 {
    let d = [sub3(&t[0], p), sub3(&t[1], p), sub3(&t[2], p)];
    let u = [dot3(b0, &d[0]), dot3(b0, &d[1]), dot3(b0, &d[2])];
    let w = [dot3(b1, &d[0]), dot3(b1, &d[1]), dot3(b1, &d[2])];
    // all corners on one side of either axis: the origin is outside
    let one_side = |c: &[f64; 3]| (c[0] > 0.0 && c[1] > 0.0 && c[2] > 0.0) || (c[0] < 0.0 && c[1] < 0.0 && c[2] < 0.0);
    if one_side(&u) || one_side(&w) {
        return -1.0;
    }
    // barycentric coordinates of the origin: [u0-u2 u1-u2; w0-w2 w1-w2] s = -(u2, w2)
    let (a00, a01, a10, a11) = (u[0] - u[2], u[1] - u[2], w[0] - w[2], w[1] - w[2]);
    let (r0, r1) = (-u[2], -w[2]);
    let det = a00 * a11 - a01 * a10;
    if det.abs() < MINVAL {
        return -1.0;
    }
    let s0 = (a11 * r0 - a01 * r1) / det;
    let s1 = (-a10 * r0 + a00 * r1) / det;
    if s0 < 0.0 || s1 < 0.0 || s0 + s1 > 1.0 {
        return -1.0;
    }
    // the plane of the triangle
    let n = cross(&sub3(&t[0], &t[2]), &sub3(&t[1], &t[2]));
    let denom = dot3(v, &n);
    if denom.abs() < MINVAL {
        return -1.0;
    }
    -dot3(&sub3(p, &t[2]), &n) / denom
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A U-shaped channel: floor z in [0, 0.1], walls x in [-1, -0.9] and [0.9, 1], y in [-1, 1],
    /// height 1; its hull is the full box [-1, 1] x [-1, 1] x [0, 1].
    fn channel() -> MeshSurface {
        let boxes = [
            ([-1.0, -1.0, 0.0], [1.0, 1.0, 0.1]),
            ([-1.0, -1.0, 0.0], [-0.9, 1.0, 1.0]),
            ([0.9, -1.0, 0.0], [1.0, 1.0, 1.0]),
        ];
        let (mut vert, mut face) = (Vec::new(), Vec::new());
        for (lo, hi) in boxes {
            let base = vert.len() as i32;
            for k in 0..8 {
                let pick = |i: usize, bit: usize| if k >> bit & 1 == 1 { hi[i] } else { lo[i] };
                vert.push([pick(0, 0) as f32, pick(1, 1) as f32, pick(2, 2) as f32]);
            }
            for q in [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] {
                face.push([base + q[0], base + q[1], base + q[2]]);
                face.push([base + q[0], base + q[2], base + q[3]]);
            }
        }
        MeshSurface::new(&vert, &face).expect("valid faces")
    }

    const SIZE: [f64; 3] = [1.0, 1.0, 1.0];
    const POS: [f64; 3] = [0.0, 0.0, 0.0];
    const EYE: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    #[test]
    fn a_segment_in_the_hollow_of_a_mesh_misses_it() {
        let s = channel();
        // along y, inside the channel, above the floor: the hull would hide it, the mesh not
        let x = s.ray(&SIZE, &POS, &EYE, &[0.0, -2.0, 0.5], &[0.0, 4.0, 0.0]);
        assert_eq!(x, -1.0);
    }

    #[test]
    fn a_ray_down_into_the_channel_hits_the_floor_top() {
        let s = channel();
        let x = s.ray(&SIZE, &POS, &EYE, &[0.2, 0.3, 2.0], &[0.0, 0.0, -1.0]);
        assert!((x - 1.9).abs() < 1e-6, "{x}");
    }

    #[test]
    fn the_nearest_wall_is_found_through_the_tree() {
        let s = channel();
        assert!(s.nodes.len() > 1, "the channel's 36 triangles make a tree");
        let x = s.ray(&SIZE, &POS, &EYE, &[-3.0, 0.5, 0.5], &[1.0, 0.0, 0.0]);
        assert!((x - 2.0).abs() < 1e-6, "{x}");
        // from inside a wall, its far face
        let x = s.ray(&SIZE, &POS, &EYE, &[0.95, 0.5, 0.5], &[1.0, 0.0, 0.0]);
        assert!((x - 0.05).abs() < 1e-6, "{x}");
    }

    #[test]
    fn a_ray_that_misses_the_geom_box_is_rejected_first() {
        let s = channel();
        let x = s.ray(&SIZE, &POS, &EYE, &[0.0, 0.0, 5.0], &[0.0, 0.0, 1.0]);
        assert_eq!(x, -1.0);
    }

    #[test]
    fn a_face_naming_a_missing_vertex_gives_no_surface() {
        assert!(MeshSurface::new(&[[0.0; 3]; 3], &[[0, 1, 3]]).is_none());
    }
}
