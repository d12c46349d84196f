//! Stage 2: conservative advancement to the time of impact, as MuJoCo 4.0.0 runs it
//! (`mjc_advanceGeomPair`, read from the released library; the notes below are what it does,
//! in our words).
//!
//! 1. Each geom is prepared as for GJK, a sphere as its centre point and a capsule as its axis
//!    segment, their radii added to the witnesses afterwards ([`pair_distance`]). `d0` is the
//!    distance at t = 0 with the geom centres as the initial GJK guesses. No contact when
//!    `d0 <= margin` or `d0 - margin > s1 + s2` (the isotropic sweeps cannot close the gap; for
//!    a straight approach this is where the measured "t <= 0.98" comes from: the target is 2%
//!    of the gap short of contact).
//! 2. Target clearance `margin + 0.02 (d0 - margin)`, tolerance
//!    `max(0.01 (d0 - margin), ccd_tolerance)`; a gap below `ccd_tolerance / 0.98` converges at
//!    t = 0 (measured: bisected to 1.0204e-6, 1.0204e-5, 1.0204e-7 for ccd_tolerance 1e-6,
//!    1e-5, 1e-7). The rotation bound is `(s1 - |dx1|) + (s2 - |dx2|)`, by subtraction.
//! 3. At most [`MAX_STEPS`] evaluations: converged when `dist - target <= tol`; otherwise the
//!    bound `v = n . (dx1 - dx2) + rot` (no contact when `v <= 1e-15`), `t += (dist - target) /
//!    v` (no contact once `t >= 1`). The poses move *incrementally*: centre `p += dt dx`,
//!    orientation `R = rot(axis, dt |dw|) R` (skipped when `dt |dw| < 1e-15`), and GJK starts
//!    from the previous witnesses carried along rigidly (this picks among non-unique witnesses,
//!    e.g. a cylinder cap parallel to a box face). After each evaluation: no contact when
//!    `dist - margin > (1 - t)(s1 + s2)`.
//! 4. After the 16th evaluation, without testing convergence first: if it has not converged,
//!    one last step `t' = t + (dist - target) / closing` with the witnesses' own closing speed
//!    `closing = n . ((dx1 + dw1 x (x1 - p1)) - (dx2 + dw2 x (x2 - p2)))`, guarded by
//!    `closing > 1e-15` and `dist - margin <= (1 - t) closing`. The geometry stays at the 16th
//!    pose; `t'` only enters the effective distance and the contact spread. This is what the
//!    earlier measurements could not pin down (a coin spinning at 156 rad/s over the floor:
//!    -0.04737; a cube spinning past a wall with c >= 2.95, see below; the newton cradle under
//!    the discrete integrator, steps 7 and 10).
//! 5. `h|v_n| = max((d0 - dist) / max(t, 1e-15), closing)`, with `t` (not `t'`); no contact
//!    when it is not positive.
//!
//! Measurements (box of half 10 mm moving at 10 m/s towards a wall 10 mm away, h = 1.25 ms,
//! spinning about the wall normal at c times the linear sweep, `c = |dw| rbound / |dx|`, so
//! each step shrinks the remaining gap by `c / (1 + c)` exactly): the implied number of steps is
//! 2, 5, 7, 12, 16 for c = 0.1, 0.5, 1, 2, 3, which is the tolerance `0.01 (d0 - margin)`
//! (the same counts for gaps of 10, 5 and 2 mm, so it is relative); c = 3.2 (17 steps needed)
//! and above give exactly the translation-only time `0.98 gap / |dx|` (the final step with the
//! witness closing speed, which is the translation alone for a face parallel to the wall).
//! Spinning about an axis in the wall plane (c = 0.25 ... 6) matched the 16-step iteration to
//! 1e-14 in `contact.dist`; c = 2.95, 3, 3.05, 3.1 and 3.8 gave -2.05132, -1.96045, -1.83486,
//! -1.64350 and -2.06377 (the final step), and c = 3.2, 3.4, 3.6 no contact (its guard).

use crate::math::{
    add3, axis_angle2quat, cross, dot3, mul_mat_mat3, mul_mat_t_vec3, mul_mat_vec3, norm3, quat2mat, scl3, sub3,
};
use crate::narrowphase::convex::{geom_distance, run_gjk, CcdFeatures, ConvexObj, Core, Status};
use crate::narrowphase::{CollideOptions, Geom, GeomType};

use super::sweep::GeomMotion;

/// Most GJK evaluations of the advancement (the 16th is followed by one extrapolated step).
pub const MAX_STEPS: usize = 16;
/// Fraction of the initial gap (above margin) kept as clearance at the time of impact.
pub const TARGET_FRACTION: f64 = 0.02;
/// Convergence tolerance on `dist(t) - target`, as a fraction of the initial gap.
pub const TOLERANCE_FRACTION: f64 = 0.01;
/// Distance cap handed to GJK by robust mode (far beyond any pair that passed the swept filters).
const DIST_CAP: f64 = 1e10;
/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// Where conservative advancement stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Time of the last evaluation, as a fraction of the step, in [0, 1): the pose of `x_t`.
    pub t: f64,
    /// Time of impact for the effective distance: `t`, or after 16 unconverged evaluations the
    /// extrapolated `t'` (module notes, item 4).
    pub t_impact: f64,
    /// Distance between the geoms at `t`.
    pub dist: f64,
    /// Unit normal at `t`, from geom 1 to geom 2.
    pub normal: [f64; 3],
    /// Witness points at `t` on geom 1 and geom 2.
    pub x_t: [[f64; 3]; 2],
    /// The same material points at the t = 0 poses.
    pub x_0: [[f64; 3]; 2],
    /// Both geoms' poses (centre, orientation) at `t`.
    pub pose: [([f64; 3], [f64; 9]); 2],
    /// Distance at t = 0.
    pub dist0: f64,
    /// Advancement steps taken.
    pub steps: usize,
    /// Closing speed (per step) of the two witness points along the normal at `t`:
    /// `n . (v1(x1) - v2(x2))` with `v_i(x) = dx_i + dw_i x (x - p_i(t))`.
    pub closing_at_t: f64,
    /// Relative normal displacement over the whole step, `h |v_n|` (module notes, item 5).
    pub hvn: f64,
    /// The features the last distance query left on each geom (for multi-contact).
    pub(crate) features: [CcdFeatures; 2],
}

impl Impact {
    /// Relative normal displacement over the whole step, `h |v_n|`: the larger of the gap
    /// closed per unit of `t`, `(dist0 - dist) / t`, and the closing speed of the witness
    /// points at `t` ([`Impact::closing_at_t`]).
    ///
    /// Measured on 60 random drops (spheres, capsules, boxes, cylinders, ellipsoids with spin onto
    /// planes, boxes and spheres) plus the spinning-box and tumbling-box scenes: every
    /// `contact.dist` agrees to 1e-10 with this maximum.
    pub fn h_vn(&self) -> f64 {
        self.hvn
    }
}

/// The motion the advancement uses: MuJoCo 4.0.0's step motion gives a sphere no rotation
/// (`mjc_geomStepMotion`), every other type (planes included) keeps it.
pub fn compat_motion(ty: GeomType, m: &GeomMotion) -> GeomMotion {
    match ty {
        GeomType::Sphere => GeomMotion { dx: m.dx, dw: [0.0; 3] },
        _ => *m,
    }
}

/// Sweep distance as `mjc_geomStepMotion` returns it: `|dw| rbound + |dx|` of the
/// [`compat_motion`].
pub fn compat_sweep(ty: GeomType, rbound: f64, m: &GeomMotion) -> f64 {
    let m = compat_motion(ty, m);
    norm3(&m.dw) * rbound + norm3(&m.dx)
}

/// The radius a geom's GJK object leaves out (spheres and capsules run as point and segment).
fn core_radius(g: &Geom) -> f64 {
    match g.ty {
        GeomType::Sphere | GeomType::Capsule => g.size[0],
        _ => 0.0,
    }
}

/// A geom as the distance queries see it: the GJK object (core for spheres and capsules) and
/// the radius left out.
pub(crate) struct Probe<'a> {
    obj: ConvexObj<'a>,
    radius: f64,
    /// What the last distance query left on this object for multi-contact: its side of the
    /// final GJK simplex, or the support point against a plane.
    feat: CcdFeatures,
}

impl<'a> Probe<'a> {
    /// The object of `g` at its current pose, without margin.
    pub(crate) fn new(g: &Geom<'a>) -> Self {
        let mut obj = ConvexObj::new(g, 0.0);
        obj.core = match g.ty {
            GeomType::Sphere => Core::Point,
            GeomType::Capsule => Core::Segment,
            _ => Core::Full,
        };
        Probe { obj, radius: core_radius(g), feat: CcdFeatures::default() }
    }
}

/// Distance between two probes (MuJoCo 4.0.0's `evalGeomPairDist`): `x1`, `x2` are the initial
/// GJK guesses on entry and the surface witnesses on return, `n` the unit normal from geom 1 to
/// geom 2. GJK alone (no penetration depth) with the distance cutoff `cutoff + r1 + r2`; the
/// normal is `(0, 0, 1)` unless the witnesses are within the cutoff and apart, `(1, 0, 0)` when
/// closer than 1e-15. A plane is not run through GJK: the other geom's support point against
/// the plane normal, moved down by its radius, and its projection onto the plane.
pub(crate) fn pair_distance<'a>(
    p1: &mut Probe<'a>,
    p2: &mut Probe<'a>,
    x1: &mut [f64; 3],
    x2: &mut [f64; 3],
    n: &mut [f64; 3],
    cutoff: f64,
    opt: &CollideOptions,
) -> f64 {
    *n = [0.0, 0.0, 1.0];
    let plane1 = p1.obj.ty == GeomType::Plane;
    if plane1 || p2.obj.ty == GeomType::Plane {
        let (plane, other, sgn) = if plane1 { (&p1.obj, &mut *p2, 1.0) } else { (&p2.obj, &mut *p1, -1.0) };
        let z = [plane.mat[2], plane.mat[5], plane.mat[8]];
        let s = other.obj.support(&[-z[0], -z[1], -z[2]]);
        other.feat = CcdFeatures::single(s, other.obj.vertindex);
        let r = other.radius;
        let po = [s[0] - r * z[0], s[1] - r * z[1], s[2] - r * z[2]];
        let pp = &plane.pos;
        let dd = ((po[0] * z[0] + po[1] * z[1]) + po[2] * z[2]) - ((pp[0] * z[0] + pp[1] * z[1]) + pp[2] * z[2]);
        let on = [po[0] - dd * z[0], po[1] - dd * z[1], po[2] - dd * z[2]];
        *n = [z[0] * sgn, z[1] * sgn, z[2] * sgn];
        if plane1 {
            (*x1, *x2) = (on, po);
        } else {
            (*x1, *x2) = (po, on);
        }
        return dd;
    }
    let (r1, r2) = (p1.radius, p2.radius);
    let limit = (cutoff + r1) + r2;
    let mut st = Status::new(opt.ccd_iterations, opt.ccd_tolerance, limit);
    st.x1[0] = *x1;
    st.x2[0] = *x2;
    run_gjk(&mut st, &mut p1.obj, &mut p2.obj);
    (p1.feat, p2.feat) = CcdFeatures::from_simplex(&st);
    *x1 = st.x1[0];
    *x2 = st.x2[0];
    let dc = st.dist[0];
    if dc <= limit {
        let d = sub3(x2, x1);
        let sq = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
        if sq > 0.0 {
            let len = sq.sqrt();
            *n = if MINVAL > len {
                [1.0, 0.0, 0.0]
            } else {
                let inv = 1.0 / len;
                [d[0] * inv, d[1] * inv, d[2] * inv]
            };
        }
        for k in 0..3 {
            x1[k] += n[k] * r1;
            x2[k] -= n[k] * r2;
        }
    }
    dc - (r1 + r2)
}

/// Distance between two geoms at their poses with fresh probes started from the centres (what
/// the line-of-sight test uses to ignore occluders within reach of the ray's own geom).
pub fn fresh_distance(g1: &Geom, g2: &Geom, cutoff: f64, opt: &CollideOptions) -> f64 {
    let (mut p1, mut p2) = (Probe::new(g1), Probe::new(g2));
    let (mut x1, mut x2, mut n) = (g1.pos, g2.pos, [0.0; 3]);
    pair_distance(&mut p1, &mut p2, &mut x1, &mut x2, &mut n, cutoff, opt)
}

/// `R^T (x - p)`, each row summed left to right (`mju_mulMatTVec3` of the difference).
fn to_local(p: &[f64; 3], r: &[f64; 9], x: &[f64; 3]) -> [f64; 3] {
    mul_mat_t_vec3(r, &sub3(x, p))
}

/// `R l + p` (`mju_mulMatVec3`, then the translation).
fn to_world(p: &[f64; 3], r: &[f64; 9], l: &[f64; 3]) -> [f64; 3] {
    add3(&mul_mat_vec3(r, l), p)
}

/// Maps a point of a geom at its advanced pose `(p, r)` back to its t = 0 pose `g0`
/// (`pullbackGeomPoint`): the local coordinates at the advanced pose, placed with the t = 0
/// pose.
pub fn pull_back(g0: &Geom, p: &[f64; 3], r: &[f64; 9], x: &[f64; 3]) -> [f64; 3] {
    to_world(&g0.pos, &g0.mat, &to_local(p, r, x))
}

/// One geom's side of the advancement: its step, sweep and current pose.
struct Side {
    dx: [f64; 3],
    dw: [f64; 3],
    /// `|dw|` and the rotation axis `dw / |dw|` (not finite when `dw = 0`, then unused).
    dw_len: f64,
    axis: [f64; 3],
}

impl Side {
    fn new(m: &GeomMotion) -> Self {
        let w = &m.dw;
        let dw_len = ((w[0] * w[0] + w[1] * w[1]) + w[2] * w[2]).sqrt();
        let inv = 1.0 / dw_len;
        Side { dx: m.dx, dw: m.dw, dw_len, axis: [w[0] * inv, w[1] * inv, w[2] * inv] }
    }

    /// Moves the object by `dt` of the step: centre along `dx`, orientation turned about the
    /// fixed axis by `dt |dw|`, composed on the left.
    fn advance(&self, obj: &mut ConvexObj, dt: f64) {
        for k in 0..3 {
            obj.pos[k] += dt * self.dx[k];
        }
        let angle = dt * self.dw_len;
        if angle.partial_cmp(&MINVAL) != Some(std::cmp::Ordering::Less) {
            let half = angle * 0.5;
            let (s, c) = (half.sin(), half.cos());
            let q = [c, s * self.axis[0], s * self.axis[1], s * self.axis[2]];
            obj.mat = mul_mat_mat3(&quat2mat(&q), &obj.mat);
        }
    }

    /// Displacement over the step of the material point at `x` (centre `p`).
    fn point_motion(&self, p: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
        add3(&self.dx, &cross(&self.dw, &sub3(x, p)))
    }
}

/// Conservative advancement of a pair over one step, as MuJoCo 4.0.0 does it (module notes);
/// `None` when there is no speculative contact: overlapping within `margin` at t = 0, not
/// closing, or not reaching the target within the step.
pub fn advance(
    g1: &Geom,
    m1: &GeomMotion,
    g2: &Geom,
    m2: &GeomMotion,
    margin: f64,
    opt: &CollideOptions,
) -> Option<Impact> {
    if g1.ty == GeomType::Plane && g2.ty == GeomType::Plane {
        return None;
    }
    let (m1, m2) = (compat_motion(g1.ty, m1), compat_motion(g2.ty, m2));
    let (s1, s2) = (compat_sweep(g1.ty, g1.rbound, &m1), compat_sweep(g2.ty, g2.rbound, &m2));
    let sweep = s1 + s2;
    if MINVAL > sweep {
        return None;
    }
    let (a, b) = (Side::new(&m1), Side::new(&m2));
    let (mut p1, mut p2) = (Probe::new(g1), Probe::new(g2));
    let (mut x1, mut x2, mut n) = (g1.pos, g2.pos, [0.0; 3]);
    let cutoff = margin + sweep;
    let d0 = pair_distance(&mut p1, &mut p2, &mut x1, &mut x2, &mut n, cutoff, opt);
    if margin >= d0 || d0 - margin > sweep {
        return None;
    }
    let (r1, r2) = (p1.radius, p2.radius);
    let len = |v: &[f64; 3]| ((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]).sqrt();
    let rot = (s1 - len(&m1.dx)) + (s2 - len(&m2.dx));
    let target = margin + (d0 - margin) * TARGET_FRACTION;
    let half = (target - margin) * 0.5;
    let tol = if half <= opt.ccd_tolerance { opt.ccd_tolerance } else { half };
    let rel = sub3(&m1.dx, &m2.dx);

    let (mut t, mut d, mut steps) = (0.0, d0, 0);
    let mut converged = false;
    for _ in 0..MAX_STEPS {
        let e = d - target;
        if tol >= e {
            converged = true;
            break;
        }
        let vb = ((n[0] * rel[0] + n[1] * rel[1]) + n[2] * rel[2]) + rot;
        if MINVAL >= vb {
            return None;
        }
        let dt = e / vb;
        t += dt;
        if t >= 1.0 {
            return None;
        }
        steps += 1;
        // the witnesses' core points, carried along with their geoms as the next GJK guesses
        let c1 = [-r1 * n[0] + x1[0], -r1 * n[1] + x1[1], -r1 * n[2] + x1[2]];
        let c2 = [r2 * n[0] + x2[0], r2 * n[1] + x2[1], r2 * n[2] + x2[2]];
        let l1 = to_local(&p1.obj.pos, &p1.obj.mat, &c1);
        let l2 = to_local(&p2.obj.pos, &p2.obj.mat, &c2);
        a.advance(&mut p1.obj, dt);
        b.advance(&mut p2.obj, dt);
        x1 = to_world(&p1.obj.pos, &p1.obj.mat, &l1);
        x2 = to_world(&p2.obj.pos, &p2.obj.mat, &l2);
        d = pair_distance(&mut p1, &mut p2, &mut x1, &mut x2, &mut n, cutoff, opt);
        if d - margin > (1.0 - t) * sweep {
            return None;
        }
    }
    let e = d - target;
    let v1 = a.point_motion(&p1.obj.pos, &x1);
    let v2 = b.point_motion(&p2.obj.pos, &x2);
    let dv = sub3(&v1, &v2);
    let closing = (n[0] * dv[0] + n[1] * dv[1]) + n[2] * dv[2];
    let mut t_impact = t;
    if !converged && e > tol {
        if MINVAL >= closing || d - margin > (1.0 - t) * closing {
            return None;
        }
        t_impact = t + e / closing;
    }
    let gap_rate = (d0 - d) / t.max(MINVAL);
    let hvn = if gap_rate <= closing { closing } else { gap_rate };
    if 0.0 >= hvn {
        return None;
    }
    let pose = [(p1.obj.pos, p1.obj.mat), (p2.obj.pos, p2.obj.mat)];
    let x_0 = [pull_back(g1, &pose[0].0, &pose[0].1, &x1), pull_back(g2, &pose[1].0, &pose[1].1, &x2)];
    Some(Impact {
        t,
        t_impact,
        dist: d,
        normal: n,
        x_t: [x1, x2],
        x_0,
        pose,
        dist0: d0,
        steps,
        closing_at_t: closing,
        hvn,
        features: [p1.feat, p2.feat],
    })
}

/// Rotation matrix of the rotation vector `t dw` (`exp` of it), exact identity for no rotation.
pub fn step_rotation(dw: &[f64; 3], t: f64) -> [f64; 9] {
    let mut axis = *dw;
    let len = norm3(&axis);
    if len == 0.0 || t == 0.0 {
        return crate::math::IDENTITY9;
    }
    axis = scl3(&axis, 1.0 / len);
    quat2mat(&axis_angle2quat(&axis, t * len))
}

/// The geom at fraction `t` of the step: centre `pos + t dx`, orientation `exp(t dw) mat`.
pub fn advanced_geom<'a>(g: &Geom<'a>, m: &GeomMotion, t: f64) -> (Geom<'a>, [f64; 9]) {
    let q = step_rotation(&m.dw, t);
    let mut out = *g;
    out.pos = add3(&g.pos, &scl3(&m.dx, t));
    out.mat = mul_mat_mat3(&q, &g.mat);
    (out, q)
}

/// Map a point of the geom at its advanced pose back to the t = 0 pose (same material point).
pub fn map_back(g0: &Geom, m: &GeomMotion, t: f64, q: &[f64; 9], x: &[f64; 3]) -> [f64; 3] {
    let ct = add3(&g0.pos, &scl3(&m.dx, t));
    add3(&g0.pos, &mul_mat_t_vec3(q, &sub3(x, &ct)))
}

/// Point of a convex geom farthest along `dir` (world frame). Planes have none (`None`).
///
/// Robust mode's plane distances use it (any length of `dir`, the support computed in the
/// geom's frame and mapped back); the narrowphase's `ConvexObj::support` takes a unit direction
/// with MuJoCo's operation order, which rounds differently, so robust's measured outcomes keep
/// this one.
pub fn support(g: &Geom, dir: &[f64; 3]) -> Option<[f64; 3]> {
    let l = mul_mat_t_vec3(&g.mat, dir);
    let s = &g.size;
    let sgn = |v: f64| if v >= 0.0 { 1.0 } else { -1.0 };
    let local = match g.ty {
        GeomType::Sphere => {
            let mut u = l;
            let n = norm3(&u);
            if n > 0.0 {
                u = scl3(&u, s[0] / n);
            }
            u
        }
        GeomType::Capsule => {
            let n = norm3(&l);
            let u = if n > 0.0 { scl3(&l, s[0] / n) } else { [0.0; 3] };
            [u[0], u[1], u[2] + sgn(l[2]) * s[1]]
        }
        GeomType::Ellipsoid => {
            let a = [s[0] * s[0] * l[0], s[1] * s[1] * l[1], s[2] * s[2] * l[2]];
            let n = (a[0] * l[0] + a[1] * l[1] + a[2] * l[2]).sqrt();
            if n > 0.0 {
                scl3(&a, 1.0 / n)
            } else {
                [0.0; 3]
            }
        }
        GeomType::Cylinder => {
            let r = (l[0] * l[0] + l[1] * l[1]).sqrt();
            let (x, y) = if r > 0.0 { (s[0] * l[0] / r, s[0] * l[1] / r) } else { (0.0, 0.0) };
            [x, y, sgn(l[2]) * s[1]]
        }
        GeomType::Box => [sgn(l[0]) * s[0], sgn(l[1]) * s[1], sgn(l[2]) * s[2]],
        GeomType::Mesh => {
            let hull = g.hull?;
            let corners = hull.corners();
            let mut best = *corners.first()?;
            let mut bd = dot3(&best, &l);
            for v in &corners[1..] {
                let d = dot3(v, &l);
                if d > bd {
                    bd = d;
                    best = *v;
                }
            }
            best
        }
        _ => return None,
    };
    Some(add3(&g.pos, &mul_mat_vec3(&g.mat, &local)))
}

/// Distance and witness points between two geoms at their given poses; a plane (always
/// geom 1, MuJoCo puts the lower type first) is handled by the support point of the other geom.
pub fn distance(g1: &Geom, g2: &Geom, opt: &CollideOptions) -> Option<(f64, [f64; 3], [f64; 3])> {
    if g1.ty == GeomType::Plane {
        let n = [g1.mat[2], g1.mat[5], g1.mat[8]];
        let x2 = support(g2, &scl3(&n, -1.0))?;
        let d = dot3(&n, &sub3(&x2, &g1.pos));
        let x1 = sub3(&x2, &scl3(&n, d));
        return Some((d, x1, x2));
    }
    if g2.ty == GeomType::Plane {
        let (d, x2, x1) = distance(g2, g1, opt)?;
        return Some((d, x1, x2));
    }
    let (d, ft) = geom_distance(g1, g2, DIST_CAP, opt);
    Some((d, [ft[0], ft[1], ft[2]], [ft[3], ft[4], ft[5]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::IDENTITY9;

    fn sphere(pos: [f64; 3], r: f64) -> Geom<'static> {
        Geom { ty: GeomType::Sphere, size: [r, 0.0, 0.0], pos, mat: IDENTITY9, rbound: r, hull: None, hfield: None }
    }

    #[test]
    fn two_spheres_closed_form() {
        // gap 10 mm closing at 25 mm per step: one step lands on the target, t = 0.98 * 0.4
        let g1 = sphere([0.0; 3], 0.01);
        let g2 = sphere([0.03, 0.0, 0.0], 0.01);
        let m1 = GeomMotion { dx: [0.025, 0.0, 0.0], dw: [0.0; 3] };
        let imp = advance(&g1, &m1, &g2, &GeomMotion::ZERO, 0.0, &CollideOptions::default()).unwrap();
        assert!((imp.t - 0.392).abs() < 1e-12, "{}", imp.t);
        assert!((imp.h_vn() - 0.025).abs() < 1e-12);
    }
}
