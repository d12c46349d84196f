//! How far each geom of a compiled model reaches along a world direction (its support function),
//! for placing a user's body at a gap from its target and for telling where it went.
//!
//! Primitives are exact; a mesh uses its vertices (MuJoCo stores them in the geom's frame); height
//! fields and SDFs use the geom's local bounding box. A plane is a half-space below its surface, so
//! it reaches without bound along any direction that is not its outward normal.

use mujoco_sys as sys;

use crate::mj::Model;

/// One geom's shape, in its own frame.
#[derive(Clone, Debug)]
enum Kind {
    Sphere(f64),
    Capsule {
        r: f64,
        half: f64,
    },
    Ellipsoid([f64; 3]),
    Cylinder {
        r: f64,
        half: f64,
    },
    Box([f64; 3]),
    Points(Vec<[f64; 3]>),
    /// A local bounding box: centre and half sizes.
    Bounds([f64; 3], [f64; 3]),
    Plane,
}

/// The shapes of every geom of a model, with their collision masks.
#[derive(Clone, Debug)]
pub struct Shapes {
    kinds: Vec<Kind>,
    collides: Vec<bool>,
    body: Vec<usize>,
}

/// A model array by name (empty when the model has none).
pub(crate) fn array(model: &Model, name: &str) -> Vec<f64> {
    crate::mj::fields::array(model.mj(), name).map(|(v, _)| v).unwrap_or_default()
}

impl Shapes {
    /// Reads the shapes of `model`'s geoms.
    pub fn new(model: &Model) -> Shapes {
        let ngeom = model.ngeom();
        let (gtype, size, aabb) = (array(model, "geom_type"), array(model, "geom_size"), array(model, "geom_aabb"));
        let (dataid, contype, conaff) =
            (array(model, "geom_dataid"), array(model, "geom_contype"), array(model, "geom_conaffinity"));
        let (vertadr, vertnum, vert) =
            (array(model, "mesh_vertadr"), array(model, "mesh_vertnum"), array(model, "mesh_vert"));
        let kinds = (0..ngeom)
            .map(|g| {
                let s = [size[3 * g], size[3 * g + 1], size[3 * g + 2]];
                let a = &aabb[6 * g..6 * g + 6];
                match gtype[g] as u32 {
                    sys::mjGEOM_PLANE => Kind::Plane,
                    sys::mjGEOM_SPHERE => Kind::Sphere(s[0]),
                    sys::mjGEOM_CAPSULE => Kind::Capsule { r: s[0], half: s[1] },
                    sys::mjGEOM_ELLIPSOID => Kind::Ellipsoid(s),
                    sys::mjGEOM_CYLINDER => Kind::Cylinder { r: s[0], half: s[1] },
                    sys::mjGEOM_BOX => Kind::Box(s),
                    sys::mjGEOM_MESH if dataid[g] >= 0.0 => {
                        let m = dataid[g] as usize;
                        let (from, n) = (vertadr[m] as usize, vertnum[m] as usize);
                        Kind::Points(
                            vert[3 * from..3 * (from + n)].chunks_exact(3).map(|v| [v[0], v[1], v[2]]).collect(),
                        )
                    }
                    _ => Kind::Bounds([a[0], a[1], a[2]], [a[3], a[4], a[5]]),
                }
            })
            .collect();
        let collides = (0..ngeom).map(|g| contype[g] != 0.0 || conaff[g] != 0.0).collect();
        let body = array(model, "geom_bodyid").into_iter().map(|b| b as usize).collect();
        Shapes { kinds, collides, body }
    }

    /// Whether geom `g` takes part in collisions (non-zero contype or conaffinity).
    pub fn collides(&self, g: usize) -> bool {
        self.collides[g]
    }

    /// The body geom `g` belongs to.
    pub fn body(&self, g: usize) -> usize {
        self.body[g]
    }

    /// Number of geoms.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether the model has no geoms.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Whether geom `g` is a plane.
    pub fn is_plane(&self, g: usize) -> bool {
        matches!(self.kinds[g], Kind::Plane)
    }

    /// The largest projection on the unit world direction `d` of a point of geom `g` at pose
    /// `pos`, `mat` (row-major rotation), relative to `pos·d`; infinite for a plane unless `d` is
    /// its outward normal.
    pub fn reach(&self, g: usize, mat: &[f64], d: [f64; 3]) -> f64 {
        // The direction in the geom's frame: Rᵀ d.
        let u = [
            mat[0] * d[0] + mat[3] * d[1] + mat[6] * d[2],
            mat[1] * d[0] + mat[4] * d[1] + mat[7] * d[2],
            mat[2] * d[0] + mat[5] * d[1] + mat[8] * d[2],
        ];
        let across = |x: f64, y: f64| (x * x + y * y).sqrt();
        match &self.kinds[g] {
            Kind::Sphere(r) => *r,
            Kind::Capsule { r, half } => r + half * u[2].abs(),
            Kind::Ellipsoid(s) => across(across(s[0] * u[0], s[1] * u[1]), s[2] * u[2]),
            Kind::Cylinder { r, half } => half * u[2].abs() + r * across(u[0], u[1]),
            Kind::Box(h) => h[0] * u[0].abs() + h[1] * u[1].abs() + h[2] * u[2].abs(),
            Kind::Points(p) => {
                p.iter().map(|v| v[0] * u[0] + v[1] * u[1] + v[2] * u[2]).fold(f64::NEG_INFINITY, f64::max)
            }
            Kind::Bounds(c, h) => {
                c[0] * u[0] + c[1] * u[1] + c[2] * u[2] + h[0] * u[0].abs() + h[1] * u[1].abs() + h[2] * u[2].abs()
            }
            Kind::Plane => {
                if u[0].abs() < 1e-12 && u[1].abs() < 1e-12 && u[2] > 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
        }
    }

    /// Where the ray from `p` along the unit direction `d` enters geom `g` (pose `pos`, `mat`), as
    /// the distance along the ray; `None` when it misses or starts inside. Solids are tested by
    /// their bounding box in the geom's frame (a superset of the shape), planes exactly.
    pub fn ray_entry(&self, g: usize, pos: &[f64], mat: &[f64], p: [f64; 3], d: [f64; 3]) -> Option<f64> {
        let w = [p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]];
        let local = |v: [f64; 3]| {
            [
                mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2],
                mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2],
                mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2],
            ]
        };
        let (o, u) = (local(w), local(d));
        let (c, h) = match &self.kinds[g] {
            Kind::Plane => {
                // The half-space z <= 0: entered from above while moving down.
                return (o[2] > 0.0 && u[2] < 0.0).then(|| -o[2] / u[2]);
            }
            Kind::Sphere(r) => ([0.0; 3], [*r; 3]),
            Kind::Capsule { r, half } => ([0.0; 3], [*r, *r, r + half]),
            Kind::Ellipsoid(s) => ([0.0; 3], *s),
            Kind::Cylinder { r, half } => ([0.0; 3], [*r, *r, *half]),
            Kind::Box(s) => ([0.0; 3], *s),
            Kind::Points(_) | Kind::Bounds(..) => {
                // Both have a finite local bounding box; for a mesh, its vertices' extent.
                let (lo, hi) = self.local_box(g);
                let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, (lo[2] + hi[2]) / 2.0];
                (c, [(hi[0] - lo[0]) / 2.0, (hi[1] - lo[1]) / 2.0, (hi[2] - lo[2]) / 2.0])
            }
        };
        let (mut enter, mut exit) = (f64::NEG_INFINITY, f64::INFINITY);
        for k in 0..3 {
            let (lo, hi) = (c[k] - h[k] - o[k], c[k] + h[k] - o[k]);
            if u[k].abs() < 1e-15 {
                if lo > 0.0 || hi < 0.0 {
                    return None;
                }
                continue;
            }
            let (a, b) = (lo / u[k], hi / u[k]);
            enter = enter.max(a.min(b));
            exit = exit.min(a.max(b));
        }
        (enter <= exit && enter > 0.0).then_some(enter)
    }

    /// Whether the world point `p` is inside geom `g` (pose `pos`, `mat`): exactly for spheres,
    /// capsules, cylinders, boxes and planes (the half-space below), by the local bounding box for
    /// the others.
    pub fn contains(&self, g: usize, pos: &[f64], mat: &[f64], p: [f64; 3]) -> bool {
        let w = [p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]];
        let q = [
            mat[0] * w[0] + mat[3] * w[1] + mat[6] * w[2],
            mat[1] * w[0] + mat[4] * w[1] + mat[7] * w[2],
            mat[2] * w[0] + mat[5] * w[1] + mat[8] * w[2],
        ];
        let in_box = |c: [f64; 3], h: [f64; 3]| (0..3).all(|k| (q[k] - c[k]).abs() < h[k]);
        match &self.kinds[g] {
            Kind::Plane => q[2] < 0.0,
            Kind::Sphere(r) => q[0] * q[0] + q[1] * q[1] + q[2] * q[2] < r * r,
            Kind::Capsule { r, half } => {
                let z = q[2].clamp(-half, *half);
                q[0] * q[0] + q[1] * q[1] + (q[2] - z) * (q[2] - z) < r * r
            }
            Kind::Cylinder { r, half } => q[0] * q[0] + q[1] * q[1] < r * r && q[2].abs() < *half,
            Kind::Box(h) => in_box([0.0; 3], *h),
            Kind::Ellipsoid(s) => (0..3).map(|k| (q[k] / s[k]) * (q[k] / s[k])).sum::<f64>() < 1.0,
            Kind::Points(_) | Kind::Bounds(..) => {
                let (lo, hi) = self.local_box(g);
                let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, (lo[2] + hi[2]) / 2.0];
                in_box(c, [(hi[0] - lo[0]) / 2.0, (hi[1] - lo[1]) / 2.0, (hi[2] - lo[2]) / 2.0])
            }
        }
    }

    /// The local bounding box (low, high corners) of a mesh's vertices or of a bounds shape.
    fn local_box(&self, g: usize) -> ([f64; 3], [f64; 3]) {
        match &self.kinds[g] {
            Kind::Points(p) => p.iter().fold(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]), |(lo, hi), v| {
                (
                    [lo[0].min(v[0]), lo[1].min(v[1]), lo[2].min(v[2])],
                    [hi[0].max(v[0]), hi[1].max(v[1]), hi[2].max(v[2])],
                )
            }),
            Kind::Bounds(c, h) => ([c[0] - h[0], c[1] - h[1], c[2] - h[2]], [c[0] + h[0], c[1] + h[1], c[2] + h[2]]),
            _ => ([0.0; 3], [0.0; 3]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_reach_as_their_support_functions_say() {
        let xml = r#"<mujoco><worldbody>
            <geom type="box" size="0.1 0.2 0.3"/>
            <geom type="capsule" size="0.01 0.05" euler="0 90 0"/>
            <geom type="cylinder" size="0.02 0.001"/>
            <geom type="plane" size="1 1 0.1"/>
        </worldbody></mujoco>"#;
        let model = Model::from_xml_str(xml).unwrap();
        let shapes = Shapes::new(&model);
        let mut data = crate::mj::Data::new(&model).unwrap();
        data.kinematics().unwrap();
        let m = |g: usize| data.geom_xmat()[9 * g..9 * g + 9].to_vec();
        let down = [0.0, 0.0, -1.0];
        assert!((shapes.reach(0, &m(0), down) - 0.3).abs() < 1e-12);
        // The capsule lies along x: down it reaches its radius, along x its half length more.
        assert!((shapes.reach(1, &m(1), down) - 0.01).abs() < 1e-12);
        assert!((shapes.reach(1, &m(1), [1.0, 0.0, 0.0]) - 0.06).abs() < 1e-12);
        assert!((shapes.reach(2, &m(2), [1.0, 0.0, 0.0]) - 0.02).abs() < 1e-12);
        // A plane reaches 0 along its normal and without bound against it.
        assert_eq!(shapes.reach(3, &m(3), [0.0, 0.0, 1.0]), 0.0);
        assert_eq!(shapes.reach(3, &m(3), down), f64::INFINITY);
        // A ray from above enters the box at its top face and the plane at z = 0.
        let p = [0.0, 0.0, 1.0];
        assert!((shapes.ray_entry(0, &[0.0; 3], &m(0), p, down).unwrap() - 0.7).abs() < 1e-12);
        assert!((shapes.ray_entry(3, &[0.0; 3], &m(3), p, down).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(shapes.ray_entry(0, &[0.0; 3], &m(0), p, [0.0, 0.0, 1.0]), None);
    }
}
