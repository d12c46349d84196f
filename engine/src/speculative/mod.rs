//! Speculative contacts (MuJoCo 4.0.0's `speculative` enable flag): contacts created one step
//! *before* a fast geom would reach another, so that it cannot tunnel through thin geoms.
//!
//! The pipeline, per geom pair (docs: `doc/computation/speculative.rst`):
//! 1. [`sweep`]: each geom's step motion from the pre-step velocities (`dx = h v(centre)`,
//!    `dw = h omega`), its sweep distance `s = |dx| + |dw| rbound`, the pair gating rule, the
//!    swept bounding-sphere / plane filters and the swept broadphase interval.
//! 2. [`advance`](mod@advance): when the ordinary narrowphase found no contact and the pair is fast,
//!    conservative advancement to the time of impact `t` in [0, 1), stopping 2% of the initial
//!    gap short of the margin, in at most 16 steps plus one extrapolated step (MuJoCo 4.0.0's
//!    `mjc_advanceGeomPair`, read from the released library).
//! 3. [`sight`]: three segments per contact point (each geom's own path to the time of impact,
//!    and the gap there) must not be hidden by another geom (`sight::ray_occluded`).
//! 4. [`contact_distance`] (in this file): an effective `dist` that makes the solver remove
//!    `(1 - t)` of the closing speed during this step and land the geoms on each other at its end
//!    (`docs/measurements.md` S3, S4).
//!
//! Where MuJoCo 4.0.0 differs from its documentation (gating, spheres, the effective distance,
//! the discrete integrator, the contact position, advancement, several contacts, line of
//! sight, the swept filters) is written down once, with ids and how each was found, in
//! `docs/measurements.md` (S1 to S14).
//!
//! Known differences from MuJoCo 4.0.0: none on the project's scenes and on the route
//! comparison of every sweep preset; mesh pairs share the hull-polygon gap of the narrowphase.
//!
//! The driver makes one call per pair, [`pair_contacts`], which runs compat (the kernel
//! [`speculative_contacts`], whose documentation describes the wiring) or robust mode ([`robust`]).

pub mod advance;
pub mod mesh_ray;
pub mod robust;
pub mod sight;
pub mod sweep;

use crate::collision::model::{CollisionModel, DSBL_MULTICCD, DSBL_NATIVECCD, DSBL_REFSAFE};
use crate::math::{dist3, frame_from_normal, MINVAL};
use crate::narrowphase::convex::{speculative_points, ConvexObj, Core, PointPairs};
use crate::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

pub use advance::{advance, Impact};
pub use specula_model::types::Integrator;
pub use sweep::{pair_is_fast, pair_threshold, sweep_distance, GeomMotion, Motions};

/// Most speculative contacts of one pair ("up to four contact points", docs).
pub(crate) const MAX_POINTS: usize = 4;

/// One geom of a pair as the speculative stage needs it: pose and shape, step motion, and its
/// smallest local AABB half-extent (`min(geom_aabb[3..6])`, infinite for planes).
#[derive(Clone, Copy, Debug)]
pub struct SweptGeom<'a> {
    /// The geom at t = 0 (narrowphase view).
    pub geom: Geom<'a>,
    /// Its motion over the step.
    pub motion: GeomMotion,
    /// Smallest half-extent of its local AABB ([`sweep::min_half_extent`]).
    pub min_half: f64,
}

impl SweptGeom<'_> {
    /// Sweep distance of this geom over the step.
    pub fn sweep(&self) -> f64 {
        sweep_distance(&self.motion, self.geom.ty, self.geom.rbound)
    }

    /// Whether the speculative stages can handle this geom: height fields and SDFs have no
    /// support function for the advancement (for height fields MuJoCo 4.0.0 makes none
    /// either, `docs/measurements.md` C10).
    pub fn supported(&self) -> bool {
        !matches!(self.geom.ty, GeomType::Hfield | GeomType::Sdf)
    }
}

/// The pair's contact parameters that shape the effective distance (after mixing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairParams {
    /// Pair margin (sum of the geoms' margins, or the explicit pair's).
    pub margin: f64,
    /// Mixed `solref`.
    pub solref: [f64; 2],
    /// Mixed `solimp`.
    pub solimp: [f64; 5],
}

/// Options of the speculative stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeculativeOptions {
    /// `opt.timestep`.
    pub timestep: f64,
    /// `opt.integrator`.
    pub integrator: Integrator,
    /// False when `mjDSBL_REFSAFE` is set.
    pub refsafe: bool,
    /// Narrowphase options (`multiccd`, CCD iterations and tolerance).
    pub collide: CollideOptions,
}

/// Speculative contacts of one geom pair, written to `out`; returns how many (0 when the pair
/// is not fast, cannot reach each other within the step, or is occluded).
///
/// How the driver calls it (only with `mjENBL_SPECULATIVE`): in the geom-pair loop, after the
/// ordinary narrowphase of a pair returned no contact, with `s1`, `s2` in the narrowphase order
/// (lower type first), their motions from [`sweep::geom_motion`] (bodies without dofs:
/// [`GeomMotion::ZERO`]) and `min_half` from `geom_aabb`. The pair must have reached this point
/// through the swept filters ([`sweep::swept_sphere_prune`] / [`sweep::swept_plane_prune`] with
/// margin + gap instead of the static sphere test, no mid-phase or oriented-box pruning) when it
/// is fast; slow pairs return 0 here anyway.
/// `occluded(k, a, b)` must return true when the segment `a`-`b` is hidden from geom `k` of the
/// pair (0 or 1) by another geom, as MuJoCo 4.0.0's `isRayOccluded` decides it (see
/// `sight::ray_occluded`). The returned points carry the shared effective `dist`, the
/// position and the frame; the driver fills the parameters as for an ordinary contact
/// (`includemargin` = margin; measured 0 with gap 0.01) but must set `exclude = 0` even when
/// `dist >= includemargin` (measured: `dist` +0.0392 with a pair gap of 0.01 stays in the solver).
///
/// MuJoCo 4.0.0 (`collisionTask` and `mjc_advanceGeomPair`, read from the released library):
/// - a pair is swept when one of its non-plane geoms has a positive sweep at least the
///   threshold, the smaller of both geoms' smallest AABB half-extents (planes excepted);
/// - the contact points are taken at the pose of the last evaluation ([`Impact::t`]) and spread
///   by `W = 2 max(dist, 0) + (1 - t') h|v_n| + ccd_tolerance` (both objects inflated by `W / 2`);
///   with several points (multiccd on, or a plane in the pair) a single witness point is the
///   witness moved out by `W / 2` along the normal and back, as the inflation does;
/// - each point is mapped back to t = 0 on both geoms (`X1`, `X2`) and dropped when any of three
///   segments is hidden: `X1 -> x1(t)` from geom 1, `X2 -> x2(t)` from geom 2 and
///   `x1(t) -> x2(t)` from the faster geom (`s1 >= s2`: geom 1);
/// - the position blends the mapped-back points, `X1 s1 / (s1 + s2) + X2 s2 / (s1 + s2)`.
pub fn speculative_contacts<F>(
    s1: &SweptGeom,
    s2: &SweptGeom,
    pair: &PairParams,
    opt: &SpeculativeOptions,
    mut occluded: F,
    out: &mut [ContactPoint],
) -> usize
where
    F: FnMut(usize, &[f64; 3], &[f64; 3]) -> bool,
{
    if out.is_empty() || !s1.supported() || !s2.supported() {
        return 0;
    }
    let w1 = advance::compat_sweep(s1.geom.ty, s1.geom.rbound, &s1.motion);
    let w2 = advance::compat_sweep(s2.geom.ty, s2.geom.rbound, &s2.motion);
    let thr = pair_threshold(s1.min_half, s2.min_half);
    let fast = |g: &SweptGeom, w: f64| g.geom.ty != GeomType::Plane && w >= thr && w > 0.0;
    if !(fast(s1, w1) || fast(s2, w2)) {
        return 0;
    }
    let Some(imp) = advance(&s1.geom, &s1.motion, &s2.geom, &s2.motion, pair.margin, &opt.collide) else {
        return 0;
    };
    let h_vn = imp.h_vn();
    let tp = imp.t_impact;
    let dist =
        contact_distance(pair.margin, tp, h_vn, &pair.solref, &pair.solimp, opt.timestep, opt.integrator, opt.refsafe);
    let dpos = if imp.dist <= 0.0 { 0.0 } else { imp.dist };
    let spread = ((dpos + dpos) + h_vn * (1.0 - tp)) + opt.collide.ccd_tolerance;
    let wsum = w1 + w2;
    let (f1, f2) = (w1 / wsum, w2 / wsum);
    let n = imp.normal;

    let multi = opt.collide.multiccd || s1.geom.ty == GeomType::Plane || s2.geom.ty == GeomType::Plane;
    let (pairs, npairs) = if multi { multi_points(s1, s2, &imp, spread) } else { ([(imp.x_t[0], imp.x_t[1]); 4], 1) };
    let fast_k = if w1 >= w2 { 0 } else { 1 };
    let mut kept = 0;
    for (p1, p2) in pairs[..npairs].iter().take(MAX_POINTS) {
        if kept == out.len() {
            break;
        }
        let x1 = advance::pull_back(&s1.geom, &imp.pose[0].0, &imp.pose[0].1, p1);
        let x2 = advance::pull_back(&s2.geom, &imp.pose[1].0, &imp.pose[1].1, p2);
        if occluded(0, &x1, p1) || occluded(1, &x2, p2) || occluded(fast_k, p1, p2) {
            continue;
        }
        let pos = [x1[0] * f1 + x2[0] * f2, x1[1] * f1 + x2[1] * f2, x1[2] * f1 + x2[2] * f2];
        out[kept] = ContactPoint { dist, pos, frame: frame_from_normal(&n) };
        kept += 1;
    }
    kept
}

/// One geom pair as the driver hands it to the speculative stage (geoms in narrowphase order).
pub struct Pair<'a, 'b> {
    /// The collision model.
    pub model: &'a CollisionModel,
    /// This call's geom motions.
    pub motions: &'b Motions,
    /// The two geom ids.
    pub geoms: [usize; 2],
    /// Their narrowphase views at t = 0.
    pub views: [Geom<'a>; 2],
    /// The pair's mixed contact parameters (override applied).
    pub params: PairParams,
    /// The narrowphase view of any geom (`None` for a mesh without a hull), for line of sight.
    pub world: &'b dyn Fn(usize) -> Option<Geom<'a>>,
}

/// The speculative stage of one pair, the driver's only call into it: `points` holds the
/// `found` contacts of the ordinary narrowphase; returns how many contacts the pair has now and
/// whether they are speculative (kept in the solver whatever their distance).
///
/// - **compat** (MuJoCo 4.0.0, read from its collision task): a pair is speculated unless one
///   of its contacts lies within the margin (contacts in the gap band alone do not stop it, and
///   are replaced if speculation finds contacts), and never with MuJoCo's own GJK/EPA disabled;
/// - **robust** ([`robust`]): a separated pair gets its arrest, predicted or limiting contacts;
///   a touching one has its contacts that still close too fast arrested, and places the motion
///   brings into contact by the end of the step added.
pub fn pair_contacts(p: &Pair, found: usize, points: &mut [ContactPoint]) -> (usize, bool) {
    let m = p.model;
    let found = found.min(points.len());
    if m.opt.robust {
        return if found == 0 { (robust_points(p, points), true) } else { robust_touching(p, found, points) };
    }
    let margin = p.params.margin;
    // a contact closer than the margin stops speculation; a NaN distance does not (S14)
    if m.opt.disabled(DSBL_NATIVECCD) || points[..found].iter().any(|c| margin > c.dist) {
        return (found, false);
    }
    // the gap-band contacts stay if speculation finds nothing
    let mut kept = [ContactPoint::default(); MAX_CONTACTS];
    let nk = found.min(MAX_CONTACTS);
    kept[..nk].copy_from_slice(&points[..nk]);
    let k = pair_points(p, points);
    if found > 0 && k == 0 {
        points[..nk].copy_from_slice(&kept[..nk]);
        (nk, false)
    } else {
        (k, k > 0)
    }
}

/// Narrowphase options of a call.
fn collide_options(m: &CollisionModel) -> CollideOptions {
    CollideOptions {
        ccd_iterations: m.opt.ccd_iterations,
        ccd_tolerance: m.opt.ccd_tolerance,
        multiccd: !m.opt.disabled(DSBL_MULTICCD),
        nativeccd: !m.opt.disabled(DSBL_NATIVECCD),
    }
}

/// The model's integrator (an unknown number counts as Euler: the formulas differ only for
/// the discrete integrator).
fn integrator(n: i32) -> Integrator {
    Integrator::from_mj(n).unwrap_or(Integrator::Euler)
}

/// The speculative view of a pair: swept geoms and options.
fn setup<'a>(p: &Pair<'a, '_>) -> (SweptGeom<'a>, SweptGeom<'a>, SpeculativeOptions) {
    let (m, mo, [g1, g2], [a, b]) = (p.model, p.motions, p.geoms, p.views);
    let half = |g: usize| sweep::half_extent(m, g);
    let s1 = SweptGeom { geom: a, motion: mo.motion[g1], min_half: half(g1) };
    let s2 = SweptGeom { geom: b, motion: mo.motion[g2], min_half: half(g2) };
    let opt = SpeculativeOptions {
        timestep: m.opt.timestep,
        integrator: integrator(m.opt.integrator),
        refsafe: !m.opt.disabled(DSBL_REFSAFE),
        collide: collide_options(m),
    };
    (s1, s2, opt)
}

/// Whether either geom of the pair moves this step.
fn moving(p: &Pair) -> bool {
    p.motions.moving(p.geoms[0]) || p.motions.moving(p.geoms[1])
}

/// The pair as robust mode sees it, or `None` when robust mode cannot change anything for it:
/// neither geom moves, or together they sweep less than the pair's contact absorbs.
fn robust_setup<'a>(p: &Pair<'a, '_>) -> Option<(SweptGeom<'a>, SweptGeom<'a>, SpeculativeOptions)> {
    if !moving(p) {
        return None;
    }
    let (s1, s2, opt) = setup(p);
    robust::can_matter(&s1, &s2, &p.params, &opt).then_some((s1, s2, opt))
}

/// Robust-mode contact points of a separated pair (see [`crate::speculative::robust`]).
fn robust_points(p: &Pair, out: &mut [ContactPoint]) -> usize {
    let Some((s1, s2, opt)) = robust_setup(p) else { return 0 };
    let (m, [g1, g2], pair) = (p.model, p.geoms, &p.params);
    let fast = if p.motions.sweep[g1] >= p.motions.sweep[g2] { g1 } else { g2 };
    let n = robust::separated_points(
        &s1,
        &s2,
        pair,
        &opt,
        |a, b| sight::occluded(m, (g1, &s1.geom), (g2, &s2.geom), fast, p.world, &opt, a, b),
        out,
    );
    if n > 0 {
        return n;
    }
    let n = robust::predicted_points(&s1, &s2, pair, &opt, out);
    if n > 0 {
        return n;
    }
    match robust::limiting_point(&s1, &s2, pair, &opt) {
        Some(c) => {
            out[0] = c;
            1
        }
        None => 0,
    }
}

/// Robust mode on a pair the narrowphase found touching, with its `have` contacts in `out`:
/// contacts that still close faster than the pair's contact absorbs get an arresting distance,
/// and contacts predicted at the end of the step are appended unless one already covers their
/// place. Returns the new total and whether any contact was changed or added.
fn robust_touching(p: &Pair, have: usize, out: &mut [ContactPoint]) -> (usize, bool) {
    let have = have.min(out.len());
    let Some((s1, s2, opt)) = robust_setup(p) else { return (have, false) };
    let pair = &p.params;
    let mut changed = false;
    for c in &mut out[..have] {
        if let Some(d) = robust::persisting_distance(&s1, &s2, c, pair, &opt) {
            c.dist = d;
            changed = true;
        }
    }
    if have >= out.len() {
        return (have, changed);
    }
    let mut extra = [ContactPoint::default(); 4];
    let k = robust::predicted_points(&s1, &s2, pair, &opt, &mut extra);
    let near = 2.0 * robust::safe_depth(s1.min_half, s2.min_half);
    let mut n = have;
    for e in &extra[..k] {
        let close = out[..have].iter().any(|c| dist3(&c.pos, &e.pos) < near);
        if !close && n < out.len() {
            out[n] = *e;
            n += 1;
        }
    }
    (n, changed || n > have)
}

/// Speculative contact points of a pair whose narrowphase found none (geoms in narrowphase
/// order), MuJoCo 4.0.0's line of sight deciding the occlusion.
fn pair_points(p: &Pair, out: &mut [ContactPoint]) -> usize {
    if !moving(p) {
        return 0;
    }
    let (s1, s2, opt) = setup(p);
    let (m, [g1, g2]) = (p.model, p.geoms);
    let occluded = |k: usize, a: &[f64; 3], b: &[f64; 3]| {
        let (ga, gb) = if k == 0 { (g1, g2) } else { (g2, g1) };
        sight::ray_occluded(m, p.world, &opt, ga, gb, a, b)
    };
    speculative_contacts(&s1, &s2, &p.params, &opt, occluded, out)
}

/// Contact point pairs `(on geom 1, on geom 2)` at the pose of the last evaluation: MuJoCo
/// 4.0.0's multi-contact on the features of the last distance query, with both geoms inflated
/// by `spread / 2` (see `narrowphase::convex::speculative_points`). A single pair when the
/// touching features are not a face or an edge lying in a face.
fn multi_points(s1: &SweptGeom, s2: &SweptGeom, imp: &Impact, spread: f64) -> PointPairs {
    let (mut a1, mut a2) = (s1.geom, s2.geom);
    (a1.pos, a1.mat) = imp.pose[0];
    (a2.pos, a2.mat) = imp.pose[1];
    let (mut o1, mut o2) = (ConvexObj::new(&a1, 0.0), ConvexObj::new(&a2, 0.0));
    for (o, g) in [(&mut o1, &a1), (&mut o2, &a2)] {
        o.core = match g.ty {
            GeomType::Sphere => Core::Point,
            GeomType::Capsule => Core::Segment,
            _ => Core::Full,
        };
    }
    let [f1, f2] = &imp.features;
    speculative_points(&mut o1, &mut o2, f1, f2, &imp.x_t[0], &imp.x_t[1], &imp.normal, imp.dist, spread)
}

// Stage 4: the effective contact distance. With the single-step damping `b0` and stiffness `k0`
// of the contact *without* impedance (`b0 = 2h / tc`, `k0 = h^2 / (tc dr)^2` for a standard
// `solref = (tc, dr)`, `tc >= 2h` unless refsafe is off; `b0 = -h solref[1]`, `k0 = -h^2
// solref[0]` for a direct one), `dist = margin - delta` with `delta = ((1 - t) - b0) / k0 h|v_n|`
// (discrete integrator: `((1 - t) - t (b0 + k0)) / k0 h|v_n|`), and `margin - solimp[2]` without
// stiffness. How that was measured: `docs/measurements.md` S3, S4.

/// Single-step damping and stiffness `(b0, k0)` of a contact without impedance.
///
/// `refsafe` is true unless `mjDSBL_REFSAFE` is set: then a standard time constant is raised to
/// at least `2h`.
pub fn step_damping_stiffness(solref: &[f64; 2], h: f64, refsafe: bool) -> (f64, f64) {
    if solref[0] > 0.0 {
        let tc = if refsafe { solref[0].max(2.0 * h) } else { solref[0] };
        let dr = solref[1];
        (2.0 * h / tc, h * h / (tc * tc * dr * dr))
    } else {
        (-h * solref[1], -h * h * solref[0])
    }
}

/// Effective `contact.dist` of a speculative contact: `margin - delta` (see the module notes).
///
/// `h_vn` is the closing normal displacement over the whole step, `h |v_n|` (see
/// [`advance::Impact::h_vn`]), `t` the time of impact, `width` is `solimp[2]`.
pub fn effective_distance(margin: f64, t: f64, h_vn: f64, b0: f64, k0: f64, width: f64, integrator: Integrator) -> f64 {
    if k0 < MINVAL {
        return margin - width;
    }
    let num = match integrator {
        Integrator::Discrete => (1.0 - t) - t * (b0 + k0),
        _ => (1.0 - t) - b0,
    };
    margin - num / k0 * h_vn
}

/// Effective `contact.dist` of a speculative contact as MuJoCo 4.0.0 computes it
/// (`contactDist`, read from the released library), `t` being the time of impact and `hvn` the
/// closing displacement `h |v_n|`:
/// - a `solref` whose two entries differ in sign is replaced by the default `(0.02, 1)`;
/// - `width = max(1e-4, solimp[2])`; a non-positive timestep or `k0 <= 1e-15` gives
///   `margin - width`;
/// - standard `solref`: `tc = solref[0]` raised to `2h` (refsafe) except under the discrete
///   integrator or with refsafe disabled, where it is only kept above 1e-15; `dr =
///   max(1e-15, solref[1])`; `b0 = 2h / tc`, `k0 = h^2 / max(1e-15, tc^2 dr^2)`;
///   direct `solref`: `b0 = -h solref[1]`, `k0 = -h^2 solref[0]`;
/// - discrete integrator with a standard `solref` and refsafe on: when `k0` exceeds
///   `dmax = min(0.9999, max(1e-4, solimp[1]))`, `k0 = dmax` and `b0` becomes the smaller of
///   `b0 / sqrt(k0 / dmax)` and `dmax max(0, 0.9999 (1 - dmax) / max(1e-15, dmax 1e-4) - 2)`
///   (the largest damping that keeps the update stable);
/// - then as [`effective_distance`]: `margin - ((1 - t) - b0) / k0 hvn`, or under the discrete
///   integrator `margin - ((1 - t) - t (b0 + k0)) / k0 hvn`.
#[allow(clippy::too_many_arguments)]
pub fn contact_distance(
    margin: f64,
    t: f64,
    hvn: f64,
    solref: &[f64; 2],
    solimp: &[f64; 5],
    h: f64,
    integrator: Integrator,
    refsafe: bool,
) -> f64 {
    let (mut r0, mut r1) = (solref[0], solref[1]);
    if (r0 > 0.0) != (r1 > 0.0) {
        (r0, r1) = (0.02, 1.0);
    }
    let width = if 1e-4 >= solimp[2] { 1e-4 } else { solimp[2] };
    if h <= 0.0 {
        return margin - width;
    }
    let discrete = integrator == Integrator::Discrete;
    let (mut b0, mut k0);
    if r0 > 0.0 {
        let h2 = h + h;
        let tc = if !refsafe || discrete {
            r0.max(MINVAL)
        } else if r0 <= h2 {
            h2
        } else {
            r0
        };
        let dr = r1.max(MINVAL);
        b0 = h2 / tc;
        k0 = (h * h) / (dr * ((tc * tc) * dr)).max(MINVAL);
    } else {
        b0 = h * -r1;
        k0 = h * (h * -r0);
    }
    if discrete {
        if r0 > 0.0 {
            let dmax = solimp[1].clamp(1e-4, 0.9999);
            if k0 > dmax && refsafe {
                let limit = ((1.0 - dmax) * 0.9999) / (dmax * 9.999999999998899e-05).max(MINVAL) + -2.0;
                let limit = dmax * if limit <= 0.0 { 0.0 } else { limit };
                let scaled = b0 / (k0 / dmax).sqrt();
                b0 = if scaled <= limit { scaled } else { limit };
                k0 = dmax;
            }
        }
        if k0 <= MINVAL {
            return margin - width;
        }
        return margin - (((1.0 - t) - t * (b0 + k0)) / k0) * hvn;
    }
    if k0 <= MINVAL {
        return margin - width;
    }
    margin - (((1.0 - t) - b0) / k0) * hvn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_plate_case() {
        // 10 mm ball, 20 m/s, gap 10 mm, h = 1.25 ms: t = 0.392, h|v_n| = 0.025
        let (b0, k0) = step_damping_stiffness(&[0.02, 1.0], 0.00125, true);
        let d = effective_distance(0.0, 0.392, 0.025, b0, k0, 0.001, Integrator::Euler);
        assert!((d + 3.0912).abs() < 1e-12, "{d}");
    }
}
