//! specula's `robust` speculative mode: contacts that let nothing pass through anything.
//!
//! MuJoCo 4.0.0's speculative contacts (the `compat` mode, [`super::speculative_contacts`])
//! still let bodies through (`docs/measurements.md`, R1). The failures have
//! three causes, and robust mode answers each:
//!
//! 1. **Gating on travel.** A pair is only speculated while a geom travels more per step than
//!    the thinner geom's smallest half-extent. After a speculative step the body sits just short
//!    of the surface still moving at `t v`; if `t v h` is under the threshold the next step has
//!    no contact at all, and the soft contact must absorb `t v`: a 10 mm ball sinks about 7 mm
//!    per m/s with the default `solref`, so it passes whenever that residual speed is between the
//!    soft contact's pass speed and the threshold speed.
//!    *Robust mode gates on what the contact can absorb instead*: a pair is speculated whenever
//!    it can reach contact within the step (conservative advancement, no travel threshold) *and*
//!    closes faster than `v_safe`, the speed the pair's soft contact stops within a safe depth
//!    (half the thinner geom's smallest half-extent): `v_safe = depth / tau`, with `tau` the
//!    time scale of the contact's spring-damper (`tc / e` for a critically damped `solref`, the
//!    time of its largest excursion; `1 / b` for a pure damper).
//! 2. **Landing at speed.** The compat contact removes `(1 - t)` of the closing speed so the
//!    body lands on the surface at the end of the step with `t v` left. *Robust mode leaves at
//!    most `v_safe`*: the effective distance is computed for the kept fraction
//!    `tau = min(t, v_safe / v_n)`, so the body either lands at the surface slowly enough, or
//!    stops short and falls the rest of the way on the next steps (it never stops in mid-air:
//!    only the excess speed is removed, gravity still acts).
//! 3. **Penetration that is never speculated.** Once a pair overlaps, MuJoCo treats it as an
//!    ordinary soft contact whatever its closing speed (the tilted coin: spin from a one-point hit
//!    turns into penetration that no speculative contact ever sees). *Robust mode persists*: a
//!    touching or penetrating contact whose contact point still closes faster than the contact
//!    can still absorb (`v_safe` at the surface, less the deeper it already is, nothing at the
//!    safe depth) gets the same arresting effective distance (deeper than its true one, never
//!    shallower).
//!
//! Closing speeds are taken at the contact point, rotation included, from the pre-step
//! velocities and, where the body was accelerating in the previous step (a driven paddle), from
//! the velocity extrapolated over one step (the larger of the two): the pre-step velocity alone
//! misses a body re-accelerated within the step, which is how MuJoCo's driven paddle tunnels.
//!
//! Nothing changes for slow contacts: below `v_safe` robust mode adds no contact and leaves
//! ordinary ones alone, so resting bodies settle exactly where they would without it, and a
//! scene at rest costs what it costs with speculation off (the swept filters reduce to the
//! static ones when nothing moves).
//!
//! Against a plane, robust mode's points are the corners of the face that faces the plane
//! ([`plane_points`]), not MuJoCo's multi-contact.

use super::advance::{advanced_geom, distance, map_back};
use super::sweep::{effective_motion, rotation_radius};
use super::{effective_distance, step_damping_stiffness, GeomMotion, PairParams, SpeculativeOptions, SweptGeom};
use crate::math::{add3, cross, dot3, frame_from_normal, mul_mat_t_vec3, mul_mat_vec3, norm3, scl3, sub3};
use crate::narrowphase::{table, ContactPoint, Geom, GeomType, MAX_CONTACTS};

/// Most advancement steps (robust mode has no 16-step limit: it converges or stops at t = 1).
const MAX_STEPS: usize = 64;
// Clearance and convergence of the advancement, and the points per pair, as MuJoCo's (and
// compat's): one definition each.
use super::advance::{TARGET_FRACTION, TOLERANCE_FRACTION};
use super::MAX_POINTS;

/// Time scale over which a pair's soft contact stops a closing body, from its mixed `solref`:
/// the time of the largest excursion of the spring-damper (`tc / e` for a critically damped
/// standard reference, `1 / b` for a direct reference without stiffness).
pub fn stop_time(solref: &[f64; 2], h: f64, refsafe: bool) -> f64 {
    if solref[0] > 0.0 {
        let tc = if refsafe { solref[0].max(2.0 * h) } else { solref[0] };
        tc / std::f64::consts::E
    } else {
        let (k, b) = (-solref[0], -solref[1]);
        let rate = b.max(2.0 * k.sqrt());
        if rate > 0.0 {
            1.0 / rate
        } else {
            f64::INFINITY
        }
    }
}

/// The closing speed a pair's soft contact absorbs within `depth`: `depth / stop_time`.
pub fn safe_speed(solref: &[f64; 2], depth: f64, h: f64, refsafe: bool) -> f64 {
    let t = stop_time(solref, h, refsafe);
    if t.is_finite() && t > 0.0 {
        depth / t
    } else {
        0.0
    }
}

/// The safe depth of a pair: half of the thinner geom's smallest half-extent.
pub fn safe_depth(min_half1: f64, min_half2: f64) -> f64 {
    0.5 * min_half1.min(min_half2)
}

/// Effective distance that leaves at most `v_safe` of the closing speed `h_vn / h`, for a
/// contact reached at fraction `t` of the step (`t = 0`: already touching).
pub fn arresting_distance(
    margin: f64,
    t: f64,
    h_vn: f64,
    v_safe: f64,
    pair: &PairParams,
    opt: &SpeculativeOptions,
) -> f64 {
    kept_distance(margin, keep_fraction(t, h_vn, v_safe, opt.timestep), h_vn, pair, opt)
}

/// Effective distance that leaves the fraction `keep` of the closing displacement `h_vn`.
fn kept_distance(margin: f64, keep: f64, h_vn: f64, pair: &PairParams, opt: &SpeculativeOptions) -> f64 {
    let (b0, k0) = step_damping_stiffness(&pair.solref, opt.timestep, opt.refsafe);
    effective_distance(margin, keep, h_vn, b0, k0, pair.solimp[2], opt.integrator)
}

/// Fraction of the closing displacement `h_vn` an arrest at time of impact `t` leaves: what
/// reaches the surface, at most `v_safe h`.
fn keep_fraction(t: f64, h_vn: f64, v_safe: f64, h: f64) -> f64 {
    if h_vn > 0.0 {
        (v_safe * h / h_vn).min(t.max(0.0))
    } else {
        t
    }
}

/// Displacement over the step of the material point at `x` of a geom centred at `c`.
fn point_motion(m: &GeomMotion, c: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
    add3(&m.dx, &cross(&m.dw, &sub3(x, c)))
}

/// Closing displacement over the step, along `normal` (geom 1 to geom 2), of the material points
/// at `x` on two geoms with the given motions (positive: approaching).
pub fn closing(g1: &Geom, m1: &GeomMotion, g2: &Geom, m2: &GeomMotion, x: &[f64; 3], normal: &[f64; 3]) -> f64 {
    let v1 = point_motion(m1, &g1.pos, x);
    let v2 = point_motion(m2, &g2.pos, x);
    dot3(normal, &sub3(&v1, &v2))
}

/// Where robust advancement stopped: time, distance, normal and witnesses at t and at t = 0.
struct Hit {
    t: f64,
    dist: f64,
    dist0: f64,
    normal: [f64; 3],
    x_0: [[f64; 3]; 2],
    closing_at_t: f64,
}

/// Conservative advancement with the rotation bound throughout, up to the end of the step.
///
/// Unlike MuJoCo's advancement (which `compat` reproduces), the clearance kept at the time of
/// impact is never below what the distance query resolves: GJK reports 0 for gaps under about
/// `ccd_tolerance`, and an iterate that lands there would be taken for an overlap and the
/// impact lost. A 2 mm coin falling flat at 4.43 m/s 12.6 um above a pane (h = 1.25 ms, sweep
/// run 1098 of preset b) has a 2% target of 0.25 um: the first iterate reads 0 and the coin
/// went through with no speculative contact. So the target is at least `2 ccd_tolerance` above
/// the margin and the convergence band at least `ccd_tolerance`; a pair already within that band
/// at t = 0 impacts at t = 0, and an iterate that still reads 0 falls back to the previous one.
fn advance_robust(s1: &SweptGeom, s2: &SweptGeom, margin: f64, opt: &SpeculativeOptions) -> Option<Hit> {
    let (g1, g2) = (&s1.geom, &s2.geom);
    let (m1, m2) = (effective_motion(g1.ty, &s1.motion), effective_motion(g2.ty, &s2.motion));
    let (d0, _, _) = distance(g1, g2, &opt.collide)?;
    if d0 <= margin {
        return None;
    }
    let eps = opt.collide.ccd_tolerance.max(0.0);
    let gap = d0 - margin;
    let target = margin + (TARGET_FRACTION * gap).max(2.0 * eps).min(gap);
    let tol = (TOLERANCE_FRACTION * gap).max(eps);
    let rot = norm3(&m1.dw) * rotation_radius(g1.ty, g1.rbound) + norm3(&m2.dw) * rotation_radius(g2.ty, g2.rbound);
    let rel = sub3(&m1.dx, &m2.dx);
    let mut t = 0.0;
    let mut last: Option<Hit> = None;
    for _ in 0..MAX_STEPS {
        let (a1, q1) = advanced_geom(g1, &m1, t);
        let (a2, q2) = advanced_geom(g2, &m2, t);
        let (d, x1, x2) = distance(&a1, &a2, &opt.collide)?;
        if d <= 0.0 {
            // below what GJK resolves (or a bound that did not hold): the previous iterate is
            // the last pose known to be separated
            return last;
        }
        let n = scl3(&sub3(&x2, &x1), 1.0 / d);
        let x_0 = [map_back(g1, &m1, t, &q1, &x1), map_back(g2, &m2, t, &q2, &x2)];
        let closing_at_t = dot3(&n, &sub3(&point_motion(&m1, &a1.pos, &x1), &point_motion(&m2, &a2.pos, &x2)));
        let hit = Hit { t, dist: d, dist0: d0, normal: n, x_0, closing_at_t };
        if d - target < tol {
            return Some(hit);
        }
        let vb = dot3(&n, &rel) + rot;
        if vb <= 0.0 {
            return None;
        }
        last = Some(hit);
        t += (d - target) / vb;
        if t >= 1.0 {
            return None;
        }
    }
    None
}

/// Robust speculative contacts of a separated pair (the narrowphase found none): written to
/// `out`, each with its own arresting effective distance (see `point_distance`); 0 when the
/// pair cannot reach contact within the step, closes slower than its contact can absorb, or is
/// occluded.
pub fn separated_points<F>(
    s1: &SweptGeom,
    s2: &SweptGeom,
    pair: &PairParams,
    opt: &SpeculativeOptions,
    mut occluded: F,
    out: &mut [ContactPoint],
) -> usize
where
    F: FnMut(&[f64; 3], &[f64; 3]) -> bool,
{
    if out.is_empty() || !s1.supported() || !s2.supported() {
        return 0;
    }
    if s1.motion.is_zero() && s2.motion.is_zero() {
        return 0;
    }
    let Some(hit) = advance_robust(s1, s2, pair.margin, opt) else { return 0 };
    let h = opt.timestep;
    // an impact at t = 0 has no gap closed per unit time: the witnesses' closing speed alone
    let closed = if hit.t > 0.0 { (hit.dist0 - hit.dist) / hit.t } else { hit.closing_at_t };
    // a pair that separates at the impact (closing_at_t < 0 with t = 0) has nothing to arrest
    let h_vn = closed.max(hit.closing_at_t);
    let v_safe = safe_speed(&pair.solref, safe_depth(s1.min_half, s2.min_half), h, opt.refsafe);
    if h_vn <= v_safe * h {
        return 0;
    }
    if occluded(&hit.x_0[0], &hit.x_0[1]) {
        return 0;
    }
    let dist = arresting_distance(pair.margin, hit.t, h_vn, v_safe, pair, opt);
    let (w1, w2) = (s1.sweep(), s2.sweep());
    let wsum = w1 + w2;
    let blend = |x1: &[f64; 3], x2: &[f64; 3]| {
        if wsum > 0.0 {
            add3(&scl3(x1, w1 / wsum), &scl3(x2, w2 / wsum))
        } else {
            scl3(&add3(x1, x2), 0.5)
        }
    };
    let frame = frame_from_normal(&hit.normal);
    // Several points where the touching features are flat (a box face, a cylinder cap): one
    // point would let the impulse spin the body about it (the tilted coin).
    let (pts, npts) = touching_points(s1, s2, &hit, h_vn, opt);
    if npts == 0 {
        out[0] = ContactPoint { dist, pos: blend(&hit.x_0[0], &hit.x_0[1]), frame };
        return 1;
    }
    let (e1, e2) = (effective_motion(s1.geom.ty, &s1.motion), effective_motion(s2.geom.ty, &s2.motion));
    let allow = keep_fraction(hit.t, h_vn, v_safe, h) * h_vn;
    let n = npts.min(out.len());
    for (c, (x1, x2)) in out.iter_mut().zip(&pts[..n]) {
        let d = point_distance(s1, &e1, s2, &e2, (x1, x2), &hit.normal, allow, h_vn - allow, pair, opt);
        *c = ContactPoint { dist: d, pos: blend(x1, x2), frame };
    }
    n
}

/// Effective distance of one point of a separated pair's arrest (material points `x1`, `x2` at
/// t = 0, closing along `normal`), when the arrest at the impact removes `removal` of the
/// closing displacement and leaves `allow`.
///
/// Every point gets the impact's arrest, but none is pushed past its own closing: a point that
/// closes by `c` keeps at least `c - removal` and at least `allow`. One distance shared by all
/// points (as MuJoCo shares one per pair) pushes a point that closes slower, or already
/// separates, as hard as the fastest one needs, which is work the impact never had: a 2 mm coin
/// tilted 12 degrees hitting a pane at 12.29 m/s (h = 0.156 ms, sweep preset b) spun up to
/// 955 rad/s on its first arrest, and the second arrest, shared by rim points its spin was
/// already lifting, sent it up at 11.6 m/s with 13% more energy than it came with. Points that
/// close as fast as the impact are still all stopped together (a box landing almost flat stops
/// flat instead of pivoting about its first edge and sliding away).
#[allow(clippy::too_many_arguments)]
fn point_distance(
    s1: &SweptGeom,
    e1: &GeomMotion,
    s2: &SweptGeom,
    e2: &GeomMotion,
    x: (&[f64; 3], &[f64; 3]),
    normal: &[f64; 3],
    allow: f64,
    removal: f64,
    pair: &PairParams,
    opt: &SpeculativeOptions,
) -> f64 {
    let (x1, x2) = x;
    let c = dot3(normal, &sub3(&point_motion(e1, &s1.geom.pos, x1), &point_motion(e2, &s2.geom.pos, x2)));
    let allow_here = allow.max(c - removal);
    if c > 0.0 {
        kept_distance(pair.margin, allow_here / c, c, pair, opt)
    } else {
        limiting_distance(pair.margin, c, allow_here, pair, opt)
    }
}

/// Surface point pairs of the touching features at the time of impact, mapped back to t = 0.
fn touching_points(
    s1: &SweptGeom,
    s2: &SweptGeom,
    hit: &Hit,
    h_vn: f64,
    opt: &SpeculativeOptions,
) -> crate::narrowphase::convex::PointPairs {
    let e1 = effective_motion(s1.geom.ty, &s1.motion);
    let e2 = effective_motion(s2.geom.ty, &s2.motion);
    let (a1, q1) = advanced_geom(&s1.geom, &e1, hit.t);
    let (a2, q2) = advanced_geom(&s2.geom, &e2, hit.t);
    // the first MAX_POINTS pairs found are kept
    let mut pairs = ([([0.0; 3], [0.0; 3]); MAX_POINTS], 0);
    let mut push = |p: ([f64; 3], [f64; 3])| {
        if pairs.1 < MAX_POINTS {
            pairs.0[pairs.1] = p;
            pairs.1 += 1;
        }
    };
    // The arresting contacts act over the whole step, so every vertex that the step's closing
    // displacement brings to the face takes part, not only those reached in the `(1 - t)` left
    // after the impact (MuJoCo's reach): vertices on one side of the centre of mass alone
    // cannot stop a body without spinning it. A 4 mm coin tilted 1.9 degrees hitting a pane at
    // 4.43 m/s (h = 1.25 ms, impact at t = 0.98) kept the four lowest cap vertices, all on one
    // side, and left at 338 rad/s and 1.3 m/s sideways; it slid off the pane.
    let spread = hit.dist + h_vn + opt.collide.ccd_tolerance;
    if a1.ty == GeomType::Plane {
        let n = [a1.mat[2], a1.mat[5], a1.mat[8]];
        if let Some((pts, k)) = plane_points(&a1, &a2, spread) {
            for (p, hgt) in &pts[..k] {
                push((sub3(p, &scl3(&n, *hgt)), *p));
            }
        }
    } else if let Some((plane, box_first)) = box_face_plane(&a1, &a2, &hit.normal) {
        // The impact is on a box face: every point of the other geom's facing feature that the
        // remaining motion brings to that face is a contact, as against a plane (a tilted coin
        // hitting a pane with its rim must not pivot about that single point).
        let other = if box_first { &a2 } else { &a1 };
        let n = [plane.mat[2], plane.mat[5], plane.mat[8]];
        if let Some((pts, k)) = plane_points(&plane, other, spread) {
            for &(p, hgt) in &pts[..k] {
                let on_face = sub3(&p, &scl3(&n, hgt));
                push(if box_first { (on_face, p) } else { (p, on_face) });
            }
        }
    } else {
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        let mut o = opt.collide;
        o.multiccd = true;
        let k = table::collide(&a1, &a2, hit.dist + spread, &o, &mut buf).unwrap_or(0);
        for b in &buf[..k] {
            let nrm = b.normal();
            push((sub3(&b.pos, &scl3(&nrm, 0.5 * b.dist)), add3(&b.pos, &scl3(&nrm, 0.5 * b.dist))));
        }
    }
    for (x1, x2) in &mut pairs.0[..pairs.1] {
        (*x1, *x2) = (map_back(&s1.geom, &e1, hit.t, &q1, x1), map_back(&s2.geom, &e2, hit.t, &q2, x2));
    }
    pairs
}

/// When one geom is a box and the impact normal (geom 1 to geom 2) is one of its face normals,
/// that face as a plane geom (normal pointing at the other geom), and whether the box is geom 1.
fn box_face_plane<'a>(a1: &Geom<'a>, a2: &Geom<'a>, normal: &[f64; 3]) -> Option<(Geom<'a>, bool)> {
    let (bx, outward, box_first) = if a1.ty == GeomType::Box {
        (a1, *normal, true)
    } else if a2.ty == GeomType::Box {
        (a2, scl3(normal, -1.0), false)
    } else {
        return None;
    };
    for k in 0..3 {
        let axis = [bx.mat[k], bx.mat[3 + k], bx.mat[6 + k]];
        let c = dot3(&axis, &outward);
        if c.abs() > 0.999 {
            let n = if c > 0.0 { axis } else { scl3(&axis, -1.0) };
            let centre = add3(&bx.pos, &scl3(&n, bx.size[k]));
            let f = frame_from_normal(&n);
            // a plane's normal is its frame's z axis (third column of the row-major matrix)
            let mat = [f[3], f[6], f[0], f[4], f[7], f[1], f[5], f[8], f[2]];
            let plane = Geom {
                ty: GeomType::Plane,
                size: [0.0, 0.0, 1.0],
                pos: centre,
                mat,
                rbound: 0.0,
                hull: None,
                hfield: None,
            };
            return Some((plane, box_first));
        }
    }
    None
}

/// Robust mode on a contact the narrowphase found (touching or penetrating): the effective
/// distance to use instead of `dist`, when the contact point still closes faster than the
/// pair's contact can absorb (never shallower than `dist`); `None` to leave it as it is.
///
/// What the contact can absorb shrinks with the depth already reached: `v_safe` at the surface,
/// down to nothing at the safe depth (`v_safe (1 - depth / safe_depth)`, the speed the soft
/// contact stops within the depth left). Allowing `v_safe` at any depth let a body that keeps
/// pressing its contact point in sink by `v_safe h` every step: a 2 mm coin tipping over on its
/// rim (sweep run 1210 of preset b, h = 0.3125 ms) sank 21 um per step, 3.6 mm into the 5 mm
/// pane.
pub fn persisting_distance(
    s1: &SweptGeom,
    s2: &SweptGeom,
    contact: &ContactPoint,
    pair: &PairParams,
    opt: &SpeculativeOptions,
) -> Option<f64> {
    let normal = contact.normal();
    let h_vn = closing(&s1.geom, &s1.motion, &s2.geom, &s2.motion, &contact.pos, &normal);
    let h = opt.timestep;
    let depth = safe_depth(s1.min_half, s2.min_half);
    let v_safe = safe_speed(&pair.solref, depth, h, opt.refsafe);
    let reached = (pair.margin - contact.dist).max(0.0);
    let v_left = if depth > 0.0 { v_safe * (1.0 - reached / depth).max(0.0) } else { 0.0 };
    if h_vn <= 0.0 || h_vn <= v_left * h {
        return None;
    }
    // The body is at the surface already: only the excess speed matters (kept fraction
    // v_left / v_n of the step, t = 1). The effective penetration is never less than the true
    // one, so the contact pushes at least as hard as before.
    let arrest = arresting_distance(pair.margin, 1.0, h_vn, v_left, pair, opt);
    let dist = arrest.min(contact.dist);
    (dist < contact.dist).then_some(dist)
}

/// Effective distance of a contact that may close by at most `allow` (displacement over the
/// step) while the pair currently closes by `h_vn`: the solver removes `h_vn - allow` of the
/// closing displacement, or lets the pair close faster up to `allow` (no force) when it closes
/// slower. Generalises the speculative inversion to any allowed approach, including a pair at
/// rest that something else may push together within the step (impact chains).
pub fn limiting_distance(margin: f64, h_vn: f64, allow: f64, pair: &PairParams, opt: &SpeculativeOptions) -> f64 {
    let h = opt.timestep;
    let (b0, k0) = step_damping_stiffness(&pair.solref, h, opt.refsafe);
    if k0 < crate::math::MINVAL {
        return margin - pair.solimp[2];
    }
    // h a = (h_vn - allow)/h removed: b0 h_vn/h + k0 delta/h^2 = (h_vn - allow)/h
    let delta = ((h_vn - allow) - b0 * h_vn) / k0;
    margin - delta
}

/// Robust contacts predicted at the end of the step: the pair's narrowphase at the poses the
/// motions reach at t = 1; every predicted contact point whose material points close faster
/// than the contact can absorb becomes a contact now (t = 0), at those points, limiting the
/// approach over the step to the current separation there plus `v_safe h`.
///
/// This catches what a time of impact cannot: rotation that swings the far side of a body into
/// a surface it already touches (the tilted coin), and pairs that are at rest relative to each
/// other but close fast once the solver stops one of them (a chain of links, a cradle).
pub fn predicted_points(
    s1: &SweptGeom,
    s2: &SweptGeom,
    pair: &PairParams,
    opt: &SpeculativeOptions,
    out: &mut [ContactPoint],
) -> usize {
    if out.is_empty() || !s1.supported() || !s2.supported() {
        return 0;
    }
    let e1 = effective_motion(s1.geom.ty, &s1.motion);
    let e2 = effective_motion(s2.geom.ty, &s2.motion);
    let (a1, q1) = advanced_geom(&s1.geom, &e1, 1.0);
    let (a2, q2) = advanced_geom(&s2.geom, &e2, 1.0);
    let mut buf = [ContactPoint::default(); MAX_CONTACTS];
    let mut o = opt.collide;
    o.multiccd = true;
    let Some(k) = table::collide(&a1, &a2, pair.margin, &o, &mut buf) else { return 0 };
    let h = opt.timestep;
    let v_safe = safe_speed(&pair.solref, safe_depth(s1.min_half, s2.min_half), h, opt.refsafe);
    let mut n = 0;
    for c in &buf[..k] {
        if n >= out.len() || n >= MAX_POINTS {
            break;
        }
        let nrm = c.normal();
        let x1 = map_back(&s1.geom, &e1, 1.0, &q1, &sub3(&c.pos, &scl3(&nrm, 0.5 * c.dist)));
        let x2 = map_back(&s2.geom, &e2, 1.0, &q2, &add3(&c.pos, &scl3(&nrm, 0.5 * c.dist)));
        // separation of these material points now, and how much it shrinks over the step
        let s0 = dot3(&nrm, &sub3(&x2, &x1));
        let h_vn = s0 - c.dist;
        if h_vn <= v_safe * h {
            continue;
        }
        let allow = (1.0 - TARGET_FRACTION) * (s0 - pair.margin).max(0.0) + v_safe * h;
        let dist = limiting_distance(pair.margin, h_vn, allow, pair, opt).min(s0);
        out[n] = ContactPoint { dist, pos: scl3(&add3(&x1, &x2), 0.5), frame: frame_from_normal(&nrm) };
        n += 1;
    }
    n
}

/// A limiting contact for a separated pair that its own motion does not bring together but
/// that could meet within the step if the solver changed either velocity (each geom's sweep
/// covers the gap): at the closest points now, allowing an approach of 98% of the gap plus
/// `v_safe h` over the step. It exerts no force unless the step would close the pair faster
/// than that: an impact chain (a link stopped by the link above while the one below still falls).
pub fn limiting_point(
    s1: &SweptGeom,
    s2: &SweptGeom,
    pair: &PairParams,
    opt: &SpeculativeOptions,
) -> Option<ContactPoint> {
    if !s1.supported() || !s2.supported() {
        return None;
    }
    let (d0, x1, x2) = distance(&s1.geom, &s2.geom, &opt.collide)?;
    if d0 <= pair.margin || d0 - pair.margin >= s1.sweep() + s2.sweep() {
        return None;
    }
    let normal = scl3(&sub3(&x2, &x1), 1.0 / d0);
    let h = opt.timestep;
    let h_vn = closing(&s1.geom, &s1.motion, &s2.geom, &s2.motion, &scl3(&add3(&x1, &x2), 0.5), &normal);
    let v_safe = safe_speed(&pair.solref, safe_depth(s1.min_half, s2.min_half), h, opt.refsafe);
    let allow = (1.0 - TARGET_FRACTION) * (d0 - pair.margin) + v_safe * h;
    let dist = limiting_distance(pair.margin, h_vn, allow, pair, opt);
    Some(ContactPoint { dist, pos: scl3(&add3(&x1, &x2), 0.5), frame: frame_from_normal(&normal) })
}

/// Whether robust mode can change anything for this pair this step: no point of either geom
/// moves more than its sweep, so a pair whose sweeps together stay under what the contact absorbs
/// (`v_safe h`) needs no robust contact (this keeps resting scenes as cheap as without it).
pub fn can_matter(s1: &SweptGeom, s2: &SweptGeom, pair: &PairParams, opt: &SpeculativeOptions) -> bool {
    let h = opt.timestep;
    let v_safe = safe_speed(&pair.solref, safe_depth(s1.min_half, s2.min_half), h, opt.refsafe);
    s1.sweep() + s2.sweep() > v_safe * h
}

// Points against a plane: the vertices of the face of a geom that faces the plane (a box face, a
// cylinder cap as a 16-gon, or the two ends of a capsule or of a cylinder's side line), kept when
// within reach of the lowest one and pruned to four. (The compatible mode takes its points from
// MuJoCo's multi-contact, `narrowphase::convex::speculative_points`.)

/// Sides of the polygon standing in for a cylinder cap.
const CYL_SIDES: usize = 16;
/// MuJoCo's tolerance for an edge to count as lying in a face (`mjEDGE_TOL`, |cos| of the angle
/// between the edge and the face normal).
const EDGE_TOL: f64 = 0.0888;

/// Sign patterns of the four corners of each box face, in MuJoCo's order: faces +x, -x, +y, -y,
/// +z, -z.
pub(crate) const BOX_FACES: [[[f64; 3]; 4]; 6] = [
    [[1.0, 1.0, 1.0], [1.0, 1.0, -1.0], [1.0, -1.0, -1.0], [1.0, -1.0, 1.0]],
    [[-1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0], [-1.0, -1.0, -1.0]],
    [[-1.0, 1.0, -1.0], [1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, 1.0]],
    [[-1.0, -1.0, 1.0], [1.0, -1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]],
    [[-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]],
    [[1.0, 1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, -1.0], [1.0, -1.0, -1.0]],
];

/// The size measure robust mode's pruning maximises over quadrilaterals a-b-c-d: half the norm
/// of the sum of two diagonal cross products. Not the area (it is 0 for a square), unlike the
/// narrowphase's `polygon::area4`; kept because robust mode's outcomes were measured with it:
/// the true area changes 383 of sweep preset B's 8,640 runs (none passes either way, one more
/// part slides off the pane), so switching is a behaviour change to make on its own evidence.
fn area4(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
    let e = cross(&sub3(d, a), &sub3(b, d));
    let f = cross(&sub3(c, b), &sub3(a, c));
    0.5 * norm3(&add3(&e, &f))
}

/// Indices of four vertices of `poly` spanning a large quadrilateral: starting from the first
/// four, each corner in turn is walked forward around the polygon while the area grows (the
/// greedy search MuJoCo uses to prune clipped polygons). Returned in ascending order.
pub fn polygon_quad(poly: &[[f64; 3]]) -> [usize; 4] {
    let n = poly.len();
    if n <= 4 {
        return [0, 1.min(n - 1), 2.min(n - 1), 3.min(n - 1)];
    }
    let nx = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut best = [0, 1, 2, 3];
    let mut m = area4(&poly[0], &poly[1], &poly[2], &poly[3]);
    for a in 0..n {
        loop {
            let grown = area4(&poly[a], &poly[b], &poly[c], &poly[nx(d)]);
            if grown <= m {
                break;
            }
            m = grown;
            d = nx(d);
            best = [a, b, c, d];
            loop {
                let grown = area4(&poly[a], &poly[b], &poly[nx(c)], &poly[d]);
                if grown <= m {
                    break;
                }
                m = grown;
                c = nx(c);
                best = [a, b, c, d];
            }
            loop {
                let grown = area4(&poly[a], &poly[nx(b)], &poly[c], &poly[d]);
                if grown <= m {
                    break;
                }
                m = grown;
                b = nx(b);
                best = [a, b, c, d];
            }
        }
        // the next start must not overtake the other corners
        if b == a {
            b = nx(b);
            if c == b {
                c = nx(c);
                if d == c {
                    d = nx(d);
                }
            }
        }
    }
    best.sort_unstable();
    best
}

/// Buffers of [`plane_points`], kept per thread from call to call so that a collision call
/// allocates nothing once they have grown.
#[derive(Default)]
struct Buffers {
    poly: Vec<[f64; 3]>,
    keyed: Vec<(f64, [f64; 3])>,
    kept: Vec<([f64; 3], f64)>,
    pts: Vec<[f64; 3]>,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::new(Buffers::default());
}

/// The polygon (world frame, at the given pose) of geom `g` facing a plane of normal `n`, written
/// to `out`; false for types handled elsewhere (spheres, ellipsoids, meshes without a hull).
fn facing_polygon(g: &Geom, n: &[f64; 3], out: &mut Vec<[f64; 3]>, keyed: &mut Vec<(f64, [f64; 3])>) -> bool {
    out.clear();
    let l = mul_mat_t_vec3(&g.mat, n);
    let s = &g.size;
    let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
    match g.ty {
        GeomType::Box => {
            // the face whose outward normal points most against n
            let k = (0..3).fold(0, |k, i| if l[i].abs() > l[k].abs() { i } else { k });
            let face = 2 * k + usize::from(l[k] > 0.0);
            out.extend(BOX_FACES[face].iter().map(|c| world([c[0] * s[0], c[1] * s[1], c[2] * s[2]])));
        }
        GeomType::Cylinder => {
            let radial = (l[0] * l[0] + l[1] * l[1]).sqrt();
            // the cap unless the axis lies within MuJoCo's edge tolerance of the plane (a coin
            // tilted 84.9054 degrees, |cos| = 0.0888, gives 4 cap vertices, steeper 2 side
            // points; bisected)
            if l[2].abs() >= EDGE_TOL {
                let z = if l[2] > 0.0 { -s[1] } else { s[1] };
                let step = 2.0 * crate::math::PI / CYL_SIDES as f64;
                out.extend((0..CYL_SIDES).map(|k| {
                    let a = k as f64 * step;
                    world([s[0] * a.cos(), s[0] * a.sin(), z])
                }));
            } else {
                let (x, y) = (-s[0] * l[0] / radial, -s[0] * l[1] / radial);
                out.extend([world([x, y, -s[1]]), world([x, y, s[1]])]);
            }
        }
        GeomType::Capsule => {
            let down = scl3(n, -s[0]);
            out.extend([add3(&world([0.0, 0.0, -s[1]]), &down), add3(&world([0.0, 0.0, s[1]]), &down)]);
        }
        GeomType::Mesh => {
            // every hull vertex, ordered around the direction n so that the quad reduction walks
            // a polygon: the height filter of `plane_points` keeps the facing ones. Without this
            // a mesh landing face down got one arresting point and the impulse spun it off (a
            // 1 cm tetrahedron at 10 m/s onto a 2 mm plate left at 16 m/s sideways; issue 13's
            // sweep of a user scene found it)
            let Some(h) = g.hull else { return false };
            out.extend(h.corners().iter().map(|v| world(*v)));
            around(out, n, keyed);
        }
        _ => return false,
    }
    true
}

/// Sorts `pts` by their angle about the axis `n` through their centroid (ties keep order).
fn around(pts: &mut [[f64; 3]], n: &[f64; 3], keyed: &mut Vec<(f64, [f64; 3])>) {
    let k = pts.len().max(1) as f64;
    let c = pts.iter().fold([0.0; 3], |a, p| add3(&a, p));
    let c = scl3(&c, 1.0 / k);
    // an in-plane basis: any vector not parallel to n, made perpendicular
    let pick = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let u = cross(n, &pick);
    let v = cross(n, &u);
    keyed.clear();
    keyed.extend(pts.iter().map(|p| {
        let d = sub3(p, &c);
        (dot3(&d, &v).atan2(dot3(&d, &u)), *p)
    }));
    // stable, as the sort of a collected list was: ties keep their order
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (p, (_, q)) in pts.iter_mut().zip(keyed.iter()) {
        *p = *q;
    }
}

/// Up to four `(point, height)` pairs and how many there are.
pub type PlanePoints = ([([f64; 3], f64); 4], usize);

/// Points of `g` (at its advanced pose) that the rest of the step brings onto the plane `plane`
/// (also at its advanced pose), as `(point on g, height over the plane)`, at most four.
/// `spread` is how far above the lowest vertex a vertex may be: `dist(t) + (1 - t) h|v_n| +
/// ccd_tolerance`. `None` when the type has no polygon.
pub fn plane_points(plane: &Geom, g: &Geom, spread: f64) -> Option<PlanePoints> {
    crate::math::with_thread_buffers(&BUFFERS, |b| plane_points_in(plane, g, spread, b))
}

/// [`plane_points`] in the given buffers.
fn plane_points_in(plane: &Geom, g: &Geom, spread: f64, b: &mut Buffers) -> Option<PlanePoints> {
    let n = [plane.mat[2], plane.mat[5], plane.mat[8]];
    if !facing_polygon(g, &n, &mut b.poly, &mut b.keyed) {
        return None;
    }
    let height = |p: &[f64; 3]| dot3(&n, &sub3(p, &plane.pos));
    let low = b.poly.iter().map(height).fold(f64::INFINITY, f64::min);
    b.kept.clear();
    b.kept.extend(b.poly.iter().map(|p| (*p, height(p))).filter(|&(_, h)| h - low <= spread));
    let mut out = ([([0.0; 3], 0.0); 4], 0);
    if b.kept.len() <= 4 {
        out.0[..b.kept.len()].copy_from_slice(&b.kept);
        out.1 = b.kept.len();
        return Some(out);
    }
    b.pts.clear();
    b.pts.extend(b.kept.iter().map(|k| k.0));
    for (slot, &i) in out.0.iter_mut().zip(polygon_quad(&b.pts).iter()) {
        *slot = b.kept[i];
    }
    out.1 = 4;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_sixteen_gon_prune() {
        // a regular polygon is full of area ties; at unit radius the walk happens to pick
        // MuJoCo's set for a flat cap (0, 3, 7, 11), at 1 cm rounding makes it pick 12
        let step = 2.0 * crate::math::PI / 16.0;
        let poly: Vec<[f64; 3]> = (0..16).map(|k| [(k as f64 * step).cos(), (k as f64 * step).sin(), 0.0]).collect();
        assert_eq!(polygon_quad(&poly), [0, 3, 7, 11]);
    }
}
