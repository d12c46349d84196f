//! Tunnel detection: noticing, during a run, that a body passed through another one.
//!
//! MuJoCo's contacts push a body out of an obstacle along the shortest way. Once a point deep inside
//! the body (its centre) is past the obstacle's middle, the shortest way out is the far side, and the
//! body is pushed through. That is true of soft contacts that let a body sink too far and of discrete
//! steps that skip the near surface alike, so one test covers both: **a tracked point of a moving body
//! crosses the mid-surface of another body's geom, inside that geom's cross-section.**
//!
//! Algorithm, once per step, on positions only (`geom_xpos` / `geom_xmat` after `mj_kinematics`):
//!
//! 1. Tracked points. For every collidable geom of a moving body (one not welded to the world): its
//!    centre and, when the geom is a rod (longest half-size of its local AABB more than twice the
//!    second longest: a capsule, a pin, a long box), the two points on its long axis that sit the
//!    shortest half-size in from its ends. A capsule's are the centres of its caps.
//! 2. Pairs. Each tracked point against every collidable geom of another body that MuJoCo could make it
//!    collide with: `contype`/`conaffinity` match, not the same weld group, not filtered as parent and
//!    child, not both static. Obstacles can be static or moving. Planes are not obstacles: MuJoCo's
//!    plane is a half-space whose contact always pushes along its normal, so it has no far side to come
//!    out of (measured: a steel ball hitting the floor at 8 m/s with default contacts sinks its centre
//!    below the plane and is pushed back up). Height fields and SDFs are skipped too.
//! 3. Mid-surface crossing, with the point's start and end of the step expressed in the obstacle
//!    geom's frame at the start and at the end of the step (so a moving or turning obstacle counts):
//!    * sphere: the straight path passes the centre's perpendicular within the radius (its closest
//!      approach to the centre lies inside the step and inside the sphere);
//!    * capsule: the same in the plane across the axis, with the closest approach within the axis;
//!    * box, ellipsoid, mesh (by its local AABB) and cylinder: the path crosses the mid-plane across a
//!      thinnest axis, at a point inside the face there (the disc for a cylinder's flat faces).
//!      Only the thinnest axes count: a point that slides inside a thin wall along its plane has not
//!      passed through it.
//! 4. Ended inside. A point that enters an obstacle and is still inside it when the run ends also
//!    counts, as of the step it entered (a part skewered through a pane, stuck).
//! 5. One report per passage: after a report the pair of bodies is latched until every tracked point
//!    of one is clear of the other's bounding sphere again, so the several points of a capsule, or the
//!    two balls of a head-on swap that each cross the other, give one [`Tunnel`].
//!
//! Cost: a sweep and prune along the axis where the geoms spread most picks the obstacles whose
//! bounding sphere (`geom_rbound`) overlaps a point's path on that axis; an exact reject keeps only
//! those whose bounding sphere the point's path relative to the obstacle enters, and only those are
//! filtered, transformed and tested. State is kept only for pairs that came near (a hash map, pruned
//! every 256 steps), so memory does not grow with the square of the number of bodies. Measured on 200
//! balls falling onto a plate (scene S2 of the measurements; `detector_cost_on_200_balls` in
//! `tests/tunnel.rs`): about a tenth of the samples of step + kinematics + detector under `perf`
//! (wall clock on a loaded 2-core machine: 140 µs against 580 µs per step). A first version that
//! kept every pair in a list cost 1 ms per step there.
//!
//! A crossing is reported when it happens, without waiting to see whether the body comes back: in
//! the `b-stiff` sweep, 7 flat capsules whose lower cap went right through the pane (lowest point
//! 21-25 mm below its top) were then shot back up by the stiff contact and ended BOUNCE, yet are
//! reported; and a part left skewered through a pane (STUCK) is reported too.
//!
//! Resting and bouncing bodies are never flagged: their centres stay on the near side of the middle.
//! A body that slides off an edge and falls past is not flagged either (it never crossed inside the
//! face). Not seen: a corner of a wide body clipping a thin edge between tracked points.

use std::collections::HashMap;

use mujoco_sys as sys;

use crate::mj::{Data, Model, ObjType};

pub use crate::report::Tunnel;

/// How an obstacle geom's mid-surface is tested.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Sphere {
        r: f64,
    },
    Capsule {
        r: f64,
        half_len: f64,
    },
    /// A box-like extent around `center` (local frame) with half sizes `half`; `disc` for a cylinder
    /// whose flat faces are its thinnest: its cross-section is a disc of radius `half[0]`.
    Block {
        center: [f64; 3],
        half: [f64; 3],
        disc: bool,
    },
}

/// A point tracked on a moving geom: the geom and the offset in its frame.
#[derive(Clone, Copy, Debug)]
struct Point {
    geom: usize,
    body: usize,
    offset: [f64; 3],
}

/// What is remembered between steps about a tracked point near an obstacle geom.
#[derive(Clone, Debug)]
struct PairState {
    /// The last step at which the point's path came within the obstacle's bounding sphere.
    last_near: usize,
    /// The step and speed at which the point entered the obstacle, while it is inside.
    inside_since: Option<(usize, f64)>,
}

/// What MuJoCo's collision filters need to know about a geom.
#[derive(Clone, Copy, Debug)]
struct Filter {
    contype: i32,
    conaffinity: i32,
    body: usize,
    weld: i32,
    weldparent: i32,
}

impl Filter {
    /// Whether MuJoCo could make these two geoms collide: masks match, different weld groups, not
    /// both static, not parent and child (unless that filter is disabled).
    fn can_collide(a: Filter, b: Filter, filter_parent: bool) -> bool {
        let masks = (a.contype & b.conaffinity) != 0 || (b.contype & a.conaffinity) != 0;
        let parented =
            filter_parent && a.weld != 0 && b.weld != 0 && (a.weld == b.weldparent || b.weld == a.weldparent);
        masks && a.weld != b.weld && !(a.weld == 0 && b.weld == 0) && !parented
    }
}

/// Per pair of bodies: whether a report is allowed, and the last step any of their pairs was near.
#[derive(Clone, Copy, Debug)]
struct Latch {
    armed: bool,
    last_near: usize,
}

/// How often (in steps) state about pairs that are no longer near is dropped.
const PRUNE_EVERY: usize = 256;

/// Watches a run for bodies passing through each other; feed it every step with [`TunnelDetector::observe`].
#[derive(Clone, Debug)]
pub struct TunnelDetector {
    timestep: f64,
    shapes: Vec<Option<Shape>>,
    rbound: Vec<f64>,
    /// Obstacle geoms, and the bounding-sphere diameter above which one is always examined instead of
    /// being sorted into the sweep-and-prune list.
    obstacles: Vec<usize>,
    wide: f64,
    points: Vec<Point>,
    filters: Vec<Filter>,
    filter_parent: bool,
    /// State of (point, obstacle geom) pairs that have been near, and of pairs of bodies.
    pairs: HashMap<(usize, usize), PairState>,
    latches: HashMap<(usize, usize), Latch>,
    body_names: Vec<String>,
    geom_labels: Vec<String>,
    /// World position and rotation matrix of every geom, at the last observed state and at this one.
    prev: Vec<[f64; 12]>,
    now: Vec<[f64; 12]>,
    /// Scratch for the broadphase: (low, high, geom) of the narrow obstacles, and the wide ones.
    sorted: Vec<(f64, f64, usize)>,
    always: Vec<(f64, f64, usize)>,
    step: usize,
    found: Vec<Tunnel>,
}

/// A model array by its MuJoCo name, as f64 values (empty if the model has none).
fn model_array(m: &sys::mjModel, name: &str) -> Vec<f64> {
    crate::mj::fields::array(m, name).map(|(v, _)| v).unwrap_or_default()
}

/// An integer model array by its MuJoCo name (ids, types and bitmasks are exact in f64).
fn model_ints(m: &sys::mjModel, name: &str) -> Vec<i32> {
    model_array(m, name).into_iter().map(|v| v as i32).collect()
}

impl TunnelDetector {
    /// Sets up the tracked points and pairs of `model`.
    pub fn new(model: &Model) -> TunnelDetector {
        let m = model.mj();
        let (ngeom, nbody) = (model.ngeom(), model.nbody());
        let gtype = model_ints(m, "geom_type");
        let contype = model_ints(m, "geom_contype");
        let conaff = model_ints(m, "geom_conaffinity");
        let gbody = model_ints(m, "geom_bodyid");
        let size = model_array(m, "geom_size");
        let aabb = model_array(m, "geom_aabb");
        let rbound = model_array(m, "geom_rbound");
        let weld = model_ints(m, "body_weldid");
        let parent = model_ints(m, "body_parentid");
        let filter_parent = m.opt.disableflags & sys::mjDSBL_FILTERPARENT as i32 == 0;

        let collidable = |g: usize| contype[g] != 0 || conaff[g] != 0;
        let local_box = |g: usize| {
            let a = &aabb[6 * g..6 * g + 6];
            ([a[0], a[1], a[2]], [a[3], a[4], a[5]])
        };
        let shapes: Vec<Option<Shape>> = (0..ngeom)
            .map(|g| {
                let s = &size[3 * g..3 * g + 3];
                let (center, half) = local_box(g);
                match gtype[g] as u32 {
                    _ if !collidable(g) => None,
                    sys::mjGEOM_SPHERE => Some(Shape::Sphere { r: s[0] }),
                    sys::mjGEOM_CAPSULE => Some(Shape::Capsule { r: s[0], half_len: s[1] }),
                    sys::mjGEOM_CYLINDER => Some(Shape::Block { center, half, disc: s[1] <= s[0] }),
                    sys::mjGEOM_BOX | sys::mjGEOM_ELLIPSOID | sys::mjGEOM_MESH => {
                        Some(Shape::Block { center, half, disc: false })
                    }
                    _ => None,
                }
            })
            .collect();

        // Tracked points on moving geoms.
        let mut points = Vec::new();
        for g in 0..ngeom {
            let b = gbody[g] as usize;
            if weld[b] == 0 || shapes[g].is_none() {
                continue;
            }
            let (c, h) = local_box(g);
            points.push(Point { geom: g, body: b, offset: c });
            let mut order = [0, 1, 2];
            order.sort_by(|&i, &j| h[i].total_cmp(&h[j]));
            let (short, second, long) = (h[order[0]], h[order[1]], order[2]);
            // A rod (one axis much longer than the other two), not a disc or a slab: a coin has no
            // single long axis, and points on one of its diameters would flag a coin that lands
            // tilted on its rim (measured in the `b` sweep: 4 mm coins at 12.29 m/s that landed).
            if h[long] > 2.0 * second {
                for sign in [-1.0, 1.0] {
                    let mut o = c;
                    o[long] += sign * (h[long] - short);
                    points.push(Point { geom: g, body: b, offset: o });
                }
            }
        }

        // Collision filters, checked when a pair first comes near.
        let filters: Vec<Filter> = (0..ngeom)
            .map(|g| {
                let body = gbody[g] as usize;
                let w = weld[body];
                Filter {
                    contype: contype[g],
                    conaffinity: conaff[g],
                    body,
                    weld: w,
                    weldparent: weld[parent[w as usize] as usize],
                }
            })
            .collect();
        let obstacles: Vec<usize> = (0..ngeom).filter(|&g| shapes[g].is_some()).collect();
        // Obstacles much larger than the typical one (a table under many small parts) would make every
        // sweep-and-prune window wide; they are examined against every point instead.
        let mut diameters: Vec<f64> = obstacles.iter().map(|&g| 2.0 * rbound[g]).collect();
        diameters.sort_by(f64::total_cmp);
        let wide = diameters.get(diameters.len() / 2).map_or(f64::INFINITY, |d| 4.0 * d);

        let body_names = (0..nbody).map(|b| model.name(ObjType::Body, b)).collect();
        let geom_labels = (0..ngeom)
            .map(|g| {
                let b = gbody[g] as usize;
                let gname = model.name(ObjType::Geom, g);
                if b == 0 && !gname.is_empty() {
                    gname
                } else {
                    model.name(ObjType::Body, b)
                }
            })
            .collect();
        TunnelDetector {
            timestep: model.timestep(),
            shapes,
            rbound,
            obstacles,
            wide,
            points,
            filters,
            filter_parent,
            pairs: HashMap::new(),
            latches: HashMap::new(),
            body_names,
            geom_labels,
            prev: Vec::new(),
            now: Vec::new(),
            sorted: Vec::new(),
            always: Vec::new(),
            step: 0,
            found: Vec::new(),
        }
    }

    /// Looks at the state in `data` (poses must be current: call after `mj_kinematics`). The first call
    /// records the initial state; each later call is one step further.
    pub fn observe(&mut self, data: &Data) {
        std::mem::swap(&mut self.prev, &mut self.now);
        self.now.clear();
        let (xpos, xmat) = (data.geom_xpos(), data.geom_xmat());
        self.now.extend(xpos.chunks_exact(3).zip(xmat.chunks_exact(9)).map(|(p, r)| {
            let mut f = [0.0; 12];
            f[..3].copy_from_slice(p);
            f[3..].copy_from_slice(r);
            f
        }));
        if self.prev.is_empty() {
            return;
        }
        self.step += 1;

        // Broadphase: sweep and prune along the axis on which the geoms spread most. An obstacle's
        // interval covers its bounding sphere at both ends of the step; a point's covers its path.
        let axis = (0..3)
            .map(|k| {
                let (lo, hi) =
                    self.now.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), f| (l.min(f[k]), h.max(f[k])));
                (hi - lo, k)
            })
            .fold((f64::NEG_INFINITY, 0), |a, b| if b.0 > a.0 { b } else { a })
            .1;
        self.sorted.clear();
        self.always.clear();
        for &g in &self.obstacles {
            let (a, b) = (self.prev[g][axis], self.now[g][axis]);
            let iv = (a.min(b) - self.rbound[g], a.max(b) + self.rbound[g], g);
            if 2.0 * self.rbound[g] > self.wide {
                self.always.push(iv);
            } else {
                self.sorted.push(iv);
            }
        }
        self.sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
        let reach = self.sorted.iter().fold(0.0f64, |w, iv| w.max(iv.1 - iv.0));

        for (pi, point) in self.points.iter().enumerate() {
            let p0 = world_point(&self.prev[point.geom], point.offset);
            let p1 = world_point(&self.now[point.geom], point.offset);
            let (a, b) = (p0[axis].min(p1[axis]), p0[axis].max(p1[axis]));
            let from = self.sorted.partition_point(|iv| iv.0 < a - reach);
            let to = self.sorted.partition_point(|iv| iv.0 <= b);
            let candidates = self.sorted[from..to.max(from)].iter().chain(&self.always);
            for &(_, hi, g) in candidates {
                if hi < a {
                    continue;
                }
                let (o0, o1) = (&self.prev[g], &self.now[g]);
                // Exact reject: the relative path never comes within the obstacle's bounding sphere.
                let rel0 = sub(p0, [o0[0], o0[1], o0[2]]);
                let rel1 = sub(p1, [o1[0], o1[1], o1[2]]);
                if segment_origin_distance(rel0, rel1) > self.rbound[g] {
                    continue;
                }
                if !Filter::can_collide(self.filters[point.geom], self.filters[g], self.filter_parent) {
                    continue;
                }
                let pair = self.pairs.entry((pi, g)).or_insert(PairState { last_near: 0, inside_since: None });
                // A point that was not near at the previous step cannot have been inside then.
                if pair.last_near + 1 != self.step {
                    pair.inside_since = None;
                }
                pair.last_near = self.step;
                let other = self.filters[g].body;
                let key = (point.body.min(other), point.body.max(other));
                let latch = self.latches.entry(key).or_insert(Latch { armed: true, last_near: 0 });
                // A pair of bodies re-arms once it has been clear of each other for a step.
                if latch.last_near + 1 < self.step {
                    latch.armed = true;
                }
                latch.last_near = self.step;
                let shape = self.shapes[g].expect("obstacles have a shape");
                let q0 = to_local(o0, p0);
                let q1 = to_local(o1, p1);
                let speed = norm(sub(q1, q0)) / self.timestep;
                if latch.armed && crosses(shape, q0, q1) {
                    latch.armed = false;
                    self.found.push(Tunnel {
                        body: self.body_names[point.body].clone(),
                        through: self.geom_labels[g].clone(),
                        step: self.step,
                        speed,
                    });
                }
                if inside(shape, q1) {
                    pair.inside_since.get_or_insert((self.step, speed));
                } else {
                    pair.inside_since = None;
                }
            }
        }
        if self.step % PRUNE_EVERY == 0 {
            let step = self.step;
            self.pairs.retain(|_, p| p.last_near + 1 >= step);
            self.latches.retain(|_, l| l.last_near + 1 >= step || !l.armed);
        }
    }

    /// Passages found so far, in the order they happened (without the "ended inside" ones).
    pub fn found(&self) -> &[Tunnel] {
        &self.found
    }

    /// Ends the run: adds bodies that entered another and are still inside it, and returns every passage.
    pub fn finish(mut self) -> Vec<Tunnel> {
        let mut ended: Vec<(usize, usize, usize, f64)> = self
            .pairs
            .iter()
            .filter(|(_, p)| p.last_near == self.step)
            .filter_map(|(&(pi, g), p)| p.inside_since.map(|(step, speed)| (step, pi, g, speed)))
            .collect();
        ended.sort_by_key(|a| (a.0, a.1, a.2));
        for (step, pi, g, speed) in ended {
            let body = self.points[pi].body;
            let other = self.filters[g].body;
            let Some(latch) = self.latches.get_mut(&(body.min(other), body.max(other))) else { continue };
            if !latch.armed {
                continue;
            }
            latch.armed = false;
            self.found.push(Tunnel {
                body: self.body_names[body].clone(),
                through: self.geom_labels[g].clone(),
                step,
                speed,
            });
        }
        self.found.sort_by_key(|t| t.step);
        self.found
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// World position of `offset` (geom frame) for a geom pose `[pos(3), xmat(9) row-major]`.
fn world_point(f: &[f64; 12], o: [f64; 3]) -> [f64; 3] {
    let r = &f[3..];
    [
        f[0] + r[0] * o[0] + r[1] * o[1] + r[2] * o[2],
        f[1] + r[3] * o[0] + r[4] * o[1] + r[5] * o[2],
        f[2] + r[6] * o[0] + r[7] * o[1] + r[8] * o[2],
    ]
}

/// World point `p` in the frame of a geom pose: `Rᵀ (p − pos)`.
fn to_local(f: &[f64; 12], p: [f64; 3]) -> [f64; 3] {
    let r = &f[3..];
    let v = [p[0] - f[0], p[1] - f[1], p[2] - f[2]];
    [
        r[0] * v[0] + r[3] * v[1] + r[6] * v[2],
        r[1] * v[0] + r[4] * v[1] + r[7] * v[2],
        r[2] * v[0] + r[5] * v[1] + r[8] * v[2],
    ]
}

/// Distance from the origin to the segment `a`–`b`.
fn segment_origin_distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    let u = sub(b, a);
    let uu = dot(u, u);
    let s = if uu > 0.0 { (-dot(a, u) / uu).clamp(0.0, 1.0) } else { 0.0 };
    norm([a[0] + s * u[0], a[1] + s * u[1], a[2] + s * u[2]])
}

/// The closest approach of the path `a`→`b` to the origin, when it lies inside the step (the path
/// passes the origin's perpendicular), as the point and its parameter along the path.
fn passing_point(a: [f64; 3], b: [f64; 3]) -> Option<([f64; 3], f64)> {
    let u = sub(b, a);
    let (da, db) = (dot(a, u), dot(b, u));
    if !(da < 0.0 && db >= 0.0) {
        return None;
    }
    let s = -da / dot(u, u);
    Some(([a[0] + s * u[0], a[1] + s * u[1], a[2] + s * u[2]], s))
}

/// Whether the path `q0`→`q1` (obstacle frame) crosses the obstacle's mid-surface inside it.
fn crosses(shape: Shape, q0: [f64; 3], q1: [f64; 3]) -> bool {
    match shape {
        Shape::Sphere { r } => passing_point(q0, q1).is_some_and(|(m, _)| norm(m) < r),
        Shape::Capsule { r, half_len } => {
            // Across the axis: the path projected on the xy plane passes the axis within the radius,
            // at a height along the axis within the cylinder part.
            passing_point([q0[0], q0[1], 0.0], [q1[0], q1[1], 0.0]).is_some_and(|(m, s)| {
                let z = q0[2] + s * (q1[2] - q0[2]);
                norm(m) < r && z.abs() <= half_len
            })
        }
        Shape::Block { center, half, disc } => {
            let (a, b) = (sub(q0, center), sub(q1, center));
            let thin = half.iter().cloned().fold(f64::INFINITY, f64::min) * (1.0 + 1e-9);
            (0..3).filter(|&k| half[k] <= thin).any(|k| {
                if (a[k] > 0.0) == (b[k] > 0.0) {
                    return false;
                }
                let t = a[k] / (a[k] - b[k]);
                let m = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])];
                if disc && k == 2 {
                    m[0] * m[0] + m[1] * m[1] <= half[0] * half[0]
                } else {
                    (0..3).filter(|&j| j != k).all(|j| m[j].abs() <= half[j])
                }
            })
        }
    }
}

/// Whether `q` (obstacle frame) is inside the obstacle.
fn inside(shape: Shape, q: [f64; 3]) -> bool {
    match shape {
        Shape::Sphere { r } => norm(q) < r,
        Shape::Capsule { r, half_len } => {
            let z = q[2].clamp(-half_len, half_len);
            norm([q[0], q[1], q[2] - z]) < r
        }
        Shape::Block { center, half, disc } => {
            let a = sub(q, center);
            if disc {
                a[0] * a[0] + a[1] * a[1] < half[0] * half[0] && a[2].abs() < half[2]
            } else {
                (0..3).all(|j| a[j].abs() < half[j])
            }
        }
    }
}
