//! Support functions: the point of a geom farthest along a direction, in world coordinates.
//!
//! These mirror MuJoCo's native-CCD support functions (`engine_collision_convex.c`): the
//! direction is rotated into the geom frame, the extreme point is found there and mapped back
//! with `mat * p + pos`. Margins are not added here; GJK inflates each support point by half the
//! margin along the query direction. Spheres and capsules can be shrunk to their core (a point
//! or a segment) with [`Core`], which is how MuJoCo's GJK treats them before re-inflating.

use super::polygon::{hull_data, HullData};
use crate::math::dot3 as dot;
use crate::narrowphase::{ConvexHull, Geom, GeomType, HILLCLIMB_MIN};
use std::rc::Rc;

/// Below this squared length a direction cannot be normalised (MuJoCo's `mjMINVAL^2`).
const MINVAL2: f64 = 1e-30;

/// What part of the geom the support function describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Core {
    /// The full shape.
    Full,
    /// Only the centre (a sphere without its radius).
    Point,
    /// Only the axis segment (a capsule without its radius).
    Segment,
}

/// A geom prepared for support queries, with the caches MuJoCo keeps between queries.
#[derive(Clone, Debug)]
pub(crate) struct ConvexObj<'a> {
    /// Geom type.
    pub ty: GeomType,
    /// `geom_size`.
    pub size: [f64; 3],
    /// World position.
    pub pos: [f64; 3],
    /// World orientation (row-major).
    pub mat: [f64; 9],
    /// Margin inflating the shape (half of it on each side of a pair).
    pub margin: f64,
    /// Mesh hull, if a mesh.
    pub hull: Option<&'a ConvexHull>,
    /// Index of the last support vertex (box corner bits or hull vertex), -1 if none.
    pub vertindex: i32,
    /// Warm start for hill climbing on the hull.
    meshindex: i32,
    /// Data derived once per hull: the hill-climbing seeds (for each of the 27 directions
    /// (-1, 0, 1)^3, x slowest, the first hull vertex farthest along it: MuJoCo's
    /// `mesh_extrema`, computed in single precision) and the hull polygons.
    pub data: Option<Rc<HullData>>,
    /// Which core the support function describes.
    pub core: Core,
    /// For a height-field prism (`ty == Hfield`): its six corners in the height field's frame,
    /// bottom triangle first, then the top one above it (MuJoCo's `data.hfield.prism`).
    pub prism: [[f64; 3]; 6],
}

impl<'a> ConvexObj<'a> {
    /// Prepare `g` with the given margin.
    pub fn new(g: &Geom<'a>, margin: f64) -> Self {
        ConvexObj {
            ty: g.ty,
            size: g.size,
            pos: g.pos,
            mat: g.mat,
            margin,
            hull: g.hull,
            vertindex: -1,
            meshindex: -1,
            data: g.hull.map(data_of),
            core: Core::Full,
            prism: [[0.0; 3]; 6],
        }
    }

    /// The point GJK starts from: the geom's position, or a prism's centroid (`mjc_center`).
    pub fn center(&self) -> [f64; 3] {
        if self.ty != GeomType::Hfield {
            return self.pos;
        }
        // summed corner by corner from zero, then scaled by 1/6 (not divided), as 4.0.0 does
        let mut c = [0.0; 3];
        for v in &self.prism {
            c = [c[0] + v[0], c[1] + v[1], c[2] + v[2]];
        }
        let sixth = 1.0 / 6.0;
        [c[0] * sixth, c[1] * sixth, c[2] * sixth]
    }

    /// Support point along the unit direction `dir` (world frame), without margin.
    pub fn support(&mut self, dir: &[f64; 3]) -> [f64; 3] {
        match self.core {
            Core::Point => return self.pos,
            Core::Segment => {
                let m = &self.mat;
                let along = m[2] * dir[0] + m[5] * dir[1] + m[8] * dir[2];
                let h = if along >= 0.0 { self.size[1] } else { -self.size[1] };
                return [m[2] * h + self.pos[0], m[5] * h + self.pos[1], m[8] * h + self.pos[2]];
            }
            Core::Full => {}
        }
        if self.ty == GeomType::Hfield {
            return self.prism_support(dir);
        }
        let l = to_local(&self.mat, dir);
        let s = &self.size;
        let local = match self.ty {
            GeomType::Sphere => {
                return [s[0] * dir[0] + self.pos[0], s[0] * dir[1] + self.pos[1], s[0] * dir[2] + self.pos[2]]
            }
            GeomType::Capsule => {
                let mut p = [l[0] * s[0], l[1] * s[0], l[2] * s[0]];
                p[2] += if l[2] >= 0.0 { s[1] } else { -s[1] };
                p
            }
            GeomType::Ellipsoid => {
                let p = [l[0] * s[0], l[1] * s[1], l[2] * s[2]];
                let n2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
                if n2 < MINVAL2 {
                    // degenerate direction: MuJoCo answers with the tip of the local x axis
                    let m = &self.mat;
                    return [m[0] * s[0] + self.pos[0], m[3] * s[0] + self.pos[1], m[6] * s[0] + self.pos[2]];
                }
                let inv = 1.0 / n2.sqrt();
                [p[0] * (inv * s[0]), p[1] * (inv * s[1]), p[2] * (inv * s[2])]
            }
            GeomType::Cylinder => {
                let n2 = l[0] * l[0] + l[1] * l[1];
                let scl = if n2 >= MINVAL2 { s[0] / n2.sqrt() } else { 0.0 };
                // feature id for multi-contact: the cap the point is on (0 top, 1 bottom)
                self.vertindex = (l[2] < 0.0) as i32;
                [scl * l[0], scl * l[1], if l[2] >= 0.0 { s[1] } else { -s[1] }]
            }
            GeomType::Box => {
                let p = [
                    if l[0] >= 0.0 { s[0] } else { -s[0] },
                    if l[1] >= 0.0 { s[1] } else { -s[1] },
                    if l[2] >= 0.0 { s[2] } else { -s[2] },
                ];
                // corner id: bit i set when the corner is on the + side of axis i
                self.vertindex = (p[0] > 0.0) as i32 | ((p[1] > 0.0) as i32) << 1 | ((p[2] > 0.0) as i32) << 2;
                p
            }
            GeomType::Mesh => match self.hull {
                Some(h) if !h.vert.is_empty() => {
                    let i = self.hull_support(h, &l);
                    self.vertindex = i as i32;
                    h.vert[i]
                }
                _ => [0.0; 3],
            },
            // planes, height fields and SDFs never reach the convex path
            _ => [0.0; 3],
        };
        to_global(&self.mat, &self.pos, &local)
    }

    /// A height-field prism's support (`mjc_prism_support`): the corner farthest along `dir`
    /// among the top three when `dir` points up or sideways (`dir[2] >= 0`, NaN included),
    /// the bottom three otherwise; the first of equals wins. No frame change: the prism and
    /// the query share the height field's frame (`docs/measurements.md`, C8).
    fn prism_support(&self, dir: &[f64; 3]) -> [f64; 3] {
        let start = if dir[2] < 0.0 { 0 } else { 3 };
        let (mut best, mut ibest) = (dot(&self.prism[start], dir), start);
        for i in start + 1..start + 3 {
            let d = dot(&self.prism[i], dir);
            if d > best {
                best = d;
                ibest = i;
            }
        }
        self.prism[ibest]
    }

    /// Index of the hull vertex farthest along the local direction `l`.
    fn hull_support(&mut self, h: &ConvexHull, l: &[f64; 3]) -> usize {
        let n = h.vert.len();
        if !hill_climbs(h) {
            // exhaustive search, warm-started at the previous answer, over the vertices in the
            // mesh's own order: MuJoCo scans `mesh_vert`, and on an exact tie (two vertices of a
            // face the direction is normal to) the first one in that order wins. Found on the
            // oracle's 8-vertex mesh: a sphere's GJK ended on a face whose vertices tied, and
            // scanning in hull (`mesh_graph`) order reordered the simplex, moving the witness by
            // an ulp (8 of 4500 sphere/capsule/box-mesh poses); a C model scanning `mesh_vert`
            // reproduced MuJoCo 4.0.0 exactly.
            let scan = self.data.as_ref().map_or(&[][..], |d| &d.scan[..]);
            let first = if scan.len() == n { scan[0] } else { 0 };
            let (mut best, mut imax) = (f64::from(f32::MIN), first);
            if self.vertindex >= 0 && (self.vertindex as usize) < n {
                imax = self.vertindex as usize;
                best = dot(l, &h.vert[imax]);
            }
            let mut visit = |i: usize| {
                let d = dot(l, &h.vert[i]);
                if d > best {
                    best = d;
                    imax = i;
                }
            };
            if scan.len() == n {
                scan.iter().for_each(|&i| visit(i));
            } else {
                (0..n).for_each(visit);
            }
            return imax;
        }
        // hill climbing over the hull graph, seeded from the grid cell of the direction (or the
        // previous answer when that is already better)
        let cell = |x: f64| (x > 0.4) as usize + 1 - (x < -0.4) as usize;
        let seed = self
            .data
            .as_ref()
            .and_then(|d| d.extrema)
            .map_or(0, |e| e[cell(l[0]) * 9 + cell(l[1]) * 3 + cell(l[2])] as usize)
            .min(n - 1);
        let mut imax = seed;
        if self.meshindex >= 0 {
            let cached = self.meshindex as usize;
            if dot(l, &h.vert[seed]) <= dot(l, &h.vert[cached]) {
                imax = cached;
            }
        }
        let mut best = dot(l, &h.vert[imax]);
        loop {
            let prev = imax;
            for &j in &h.adjacency[prev] {
                let j = j as usize;
                if j < n {
                    let d = dot(l, &h.vert[j]);
                    if d > best {
                        best = d;
                        imax = j;
                    }
                }
            }
            if imax == prev {
                break;
            }
        }
        self.meshindex = imax as i32;
        imax
    }
}

/// The cached per-hull data (seeds only for hulls large enough to hill-climb).
pub(crate) fn data_of(h: &ConvexHull) -> Rc<HullData> {
    hull_data(h, |h| hill_climbs(h).then(|| extrema(h)))
}

/// Whether MuJoCo hill-climbs this hull: it has a graph and the *mesh* has at least
/// `HILLCLIMB_MIN` vertices, interior ones included (`docs/measurements.md`, C1).
fn hill_climbs(h: &ConvexHull) -> bool {
    let nmesh = if h.mesh_nvert > 0 { h.mesh_nvert } else { h.vert.len() };
    nmesh >= HILLCLIMB_MIN && !h.vert.is_empty() && h.adjacency.len() == h.vert.len()
}

/// Hill-climbing seeds of a hull (see [`ConvexObj`]'s `data`).
fn extrema(h: &ConvexHull) -> [u32; 27] {
    let mut best = [f32::MIN; 27];
    let mut ext = [0u32; 27];
    for (i, v) in h.vert.iter().enumerate() {
        let (x, y, z) = (v[0] as f32, v[1] as f32, v[2] as f32);
        let mut k = 0;
        for cx in [-1.0f32, 0.0, 1.0] {
            for cy in [-1.0f32, 0.0, 1.0] {
                for cz in [-1.0f32, 0.0, 1.0] {
                    let d = x * cx + y * cy + z * cz;
                    if d > best[k] {
                        best[k] = d;
                        ext[k] = i as u32;
                    }
                    k += 1;
                }
            }
        }
    }
    ext
}

/// `mat^T * v`: world direction into the geom frame.
pub(crate) fn to_local(m: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
        m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
        m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
    ]
}

/// `mat * p + pos`: geom-frame point into the world (sum first, then the offset, as MuJoCo).
pub(crate) fn to_global(m: &[f64; 9], pos: &[f64; 3], p: &[f64; 3]) -> [f64; 3] {
    let mut r = [
        m[0] * p[0] + m[1] * p[1] + m[2] * p[2],
        m[3] * p[0] + m[4] * p[1] + m[5] * p[2],
        m[6] * p[0] + m[7] * p[1] + m[8] * p[2],
    ];
    r[0] += pos[0];
    r[1] += pos[1];
    r[2] += pos[2];
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vertices 0 and 1 tie along +x. The exhaustive search keeps the first in the mesh's
    /// vertex order (MuJoCo scans `mesh_vert`), which is the hull order unless `mesh_id` says
    /// otherwise.
    #[test]
    fn exhaustive_search_breaks_ties_in_mesh_order() {
        let support_x = |mesh_id: Vec<u32>| {
            let hull = ConvexHull {
                vert: vec![[1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                mesh_id,
                ..ConvexHull::default()
            };
            let g = Geom {
                ty: GeomType::Mesh,
                size: [0.0; 3],
                pos: [0.0; 3],
                mat: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                rbound: 2.0,
                hull: Some(&hull),
                hfield: None,
            };
            let mut o = ConvexObj::new(&g, 0.0);
            o.support(&[1.0, 0.0, 0.0]);
            o.vertindex
        };
        assert_eq!(support_x(Vec::new()), 0);
        assert_eq!(support_x(vec![0, 1, 2, 3]), 0);
        assert_eq!(support_x(vec![2, 0, 1, 3]), 1);
    }
}
