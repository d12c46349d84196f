//! Speculative contacts (MuJoCo 4.0.0's `speculative` enable flag): contacts created one step
//! *before* a fast geom would reach another, so that it cannot tunnel through thin geoms.
//!
//! The pipeline, per geom pair (docs: `doc/computation/speculative.rst`):
//! 1. [`sweep`]: each geom's step motion from the pre-step velocities (`dx = h v(centre)`,
//!    `dw = h omega`), its sweep distance `s = |dx| + |dw| rbound`, the pair gating rule, the
//!    swept bounding-sphere / plane filters and the swept broadphase interval.
//! 2. [`advance`](mod@advance): when the ordinary narrowphase found no contact and the pair is fast,
//!    conservative advancement to the time of impact `t` in [0, 1), stopping 2% of the initial
//!    gap short of the margin; the rest of the step must close what is left.
//! 3. [`sight`]: the segment between the two t = 0 points of each contact must not cross
//!    another collidable geom.
//! 4. [`distance`]: an effective `dist` that makes the solver remove `(1 - t)` of the closing
//!    speed during this step.
//!
//! Where MuJoCo 4.0.0 differs from its documentation (all measured through the Python
//! bindings; each fact is repeated next to the code that depends on it, with its probe):
//! - **Gating** uses the smaller of *both* geoms' smallest AABB half-extents as the threshold
//!   for either geom's own sweep distance (docs: each geom against its own extents).
//! - **Spheres** have no rotational sweep term (spin never makes a sphere fast nor slows the
//!   advancement).
//! - **Effective distance**: the docs' `b0`, `k0` are the damping and stiffness *without*
//!   impedance (`b0 = 2h/tc`, `k0 = h^2/(tc dr)^2`); `k0 < 1e-15` gives `margin - solimp[2]`;
//!   `h |v_n|` is the larger of the gap closed per unit time `(d0 - d(t)) / t` and the closing
//!   speed of the witness points at `t` (see [`Impact::h_vn`]). The measurements' impedance form
//!   `((1-t)/d - h B)/(h^2 K d)` is the same number.
//! - **Discrete integrator**: `((1 - t) - t (b0 + k0)) / k0 * h|v_n|` (as documented, with the
//!   same reading of `b0`, `k0`): -1.7839 against Euler's -1.5456 in the measured case.
//! - **Contact position**: `w1 x1(0) + w2 x2(0)` with `w_i = s_i / (s1 + s2)` as documented
//!   (two balls closing at 20 m/s each put it half-way between the t = 0 witnesses; a static
//!   obstacle puts it on the moving geom, which is the measurements' "moving geom's witness").
//! - **Advancement** stops when `dist(t) - target < 0.01 (d0 - margin)` or `< ccd_tolerance`
//!   (also at t = 0: a gap below `ccd_tolerance / 0.98` impacts at t = 0) and allows 16 steps;
//!   what MuJoCo does after 16 steps is not reproduced (see [`advance`](mod@advance)). No
//!   contact when `dist(t) - margin > (1 - t) h|v_n|` (the rest of the step does not close the
//!   gap; two cradle plates stopping at t = 0.97972 with 50.8 um left, closing 39 um).
//! - **Several contacts** (when `multiccd` is on, or against a plane): all of a pair's contacts
//!   share one `dist` and one normal. Against a plane, the facing box face / cylinder cap
//!   (16-gon) / capsule ends at the advanced pose keep the vertices within
//!   `dist(t) + (1 - t) h|v_n| + ccd_tolerance` of the lowest one, pruned to 4 ([`manifold`]); a
//!   2 cm cube tilted 10 degrees gives 4 contacts at a 5 mm gap and 2 at a 10 mm gap (10 m/s,
//!   h = 1.25 ms). Other pairs: nearly parallel faces (box faces, cylinder caps, within
//!   MuJoCo's face tolerance) are clipped, an edge (box edge, capsule segment) lying in the other
//!   geom's face is clipped by that face ([`faces`]); meshes still run their narrowphase at the
//!   advanced pose with a margin just above the distance there; anything else (two parallel
//!   capsules, box edges crossing) keeps the single witness contact. Positions are the points
//!   mapped back to the t = 0 poses and blended; for clipped faces the two points are not the
//!   clipped vertex and its projection but are pushed apart along `n + n2` (pair normal plus
//!   geom 2's face normal) by `(dist(t) + spread) / 2` (see [`faces`]).
//! - **Line of sight**: an occluder must be bitmask-compatible with the *fast* geom; whether it
//!   can collide with the other one does not matter, nor does sharing its body (a plate on the
//!   world body hides the world's floor from a falling ball; a plate that cannot touch the ball
//!   hides nothing; a plate that can touch the ball but not the floor still hides the floor).
//!   With several points, each point's own pair of surface points is tested and only occluded
//!   points are dropped (a static box over one of two edge points of a plate pair removes that
//!   point; a plate between the two plates but off the points' segments hides nothing).
//!   Geoms on either geom's body (the world body excepted) and geoms in contact with either
//!   geom never occlude; the driver applies these two rules (`collision::speculate`).
//!
//! Known differences from MuJoCo 4.0.0 (measured, not reproduced):
//! - advancement that needs more than 16 steps (spin much faster than the approach, e.g. a 2 cm
//!   cube at 10 m/s spinning at 1700 rad/s about an axis in the wall plane: MuJoCo -1.9604, this
//!   module -2.0071; a spinning coin over the floor: -0.04737 against -0.04663; two cradle
//!   plates under the discrete integrator, step 10: MuJoCo has a contact, this module none);
//!   see [`advance`](mod@advance);
//! - mesh hull faces are not clipped (the pair's own narrowphase stands in);
//! - which four vertices survive the pruning of a cylinder cap (more than four within reach):
//!   MuJoCo keeps evenly spaced ones (a flat cap: 0, 67.5, 157.5, 247.5 degrees; a tilted cap
//!   with vertices 2..11 in reach: 2, 5, 8, 11), the greedy walk here gives 270 instead of
//!   247.5 degrees and 2, 4, 8, 11; over a box face MuJoCo's picks depend on rounding (two
//!   identical coins: 157.5, 90, 0, 270 for both, here one of them gets the set turned by one
//!   vertex); box faces (4 vertices) are unaffected;
//! - the position of a single contact whose witness is not unique (a cylinder's flat cap parallel
//!   to a box face: GJK picks another point of the face, 3e-5 away) and the order of two
//!   edge contacts of box-box pairs;
//! - bit-exactness: `t` comes from GJK, so `dist` agrees to about 1e-14 relative, not bitwise.
//!
//! The entry point is [`speculative_contacts`]; the driver wiring is described there.

pub mod advance;
pub mod distance;
pub mod faces;
pub mod manifold;
pub mod robust;
pub mod sight;
pub mod sweep;

use crate::math::{add3, frame_from_normal, scl3, sub3};
use crate::narrowphase::{table, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

pub use advance::{advance, Impact};
pub use distance::{effective_distance, step_damping_stiffness, Integrator};
pub use sweep::{pair_is_fast, pair_threshold, sweep_distance, GeomMotion};

/// Most speculative contacts of one pair ("up to four contact points", docs).
const MAX_POINTS: usize = 4;

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
/// is fast ([`sweep::pair_is_fast`]); slow pairs return 0 here anyway.
/// `occluded(a, b)` must return true when the segment `a`-`b` crosses a collidable geom other
/// than the pair's two that is bitmask-compatible with the fast geom (see
/// [`sight::segment_occluded`]). The returned points carry the shared effective `dist`, the
/// position and the frame; the driver fills the parameters as for an ordinary contact
/// (`includemargin` = margin; measured 0 with gap 0.01) but must set `exclude = 0` even when
/// `dist >= includemargin` (measured: `dist` +0.0392 with a pair gap of 0.01 stays in the solver).
pub fn speculative_contacts<F>(
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
    let unsupported = |t: GeomType| matches!(t, GeomType::Hfield | GeomType::Sdf);
    if out.is_empty() || unsupported(s1.geom.ty) || unsupported(s2.geom.ty) {
        return 0;
    }
    let (w1, w2) = (s1.sweep(), s2.sweep());
    if !pair_is_fast(w1, w2, pair_threshold(s1.min_half, s2.min_half)) {
        return 0;
    }
    let Some(imp) = advance(&s1.geom, &s1.motion, &s2.geom, &s2.motion, pair.margin, &opt.collide) else {
        return 0;
    };
    let h = opt.timestep;
    let h_vn = imp.h_vn();
    // the rest of the step must close the remaining gap (measured: two cradle plates closing
    // at 1.93 mm per step with 50.8 um left at t = 0.97972 get no contact; for a straight
    // approach this is the `t <= 0.98` rule of `advance`)
    if imp.dist - pair.margin > (1.0 - imp.t) * h_vn {
        return 0;
    }
    let (b0, k0) = step_damping_stiffness(&pair.solref, h, opt.refsafe);
    let dist = effective_distance(pair.margin, imp.t, h_vn, b0, k0, pair.solimp[2], opt.integrator);
    let wsum = w1 + w2;
    let blend = |x1: &[f64; 3], x2: &[f64; 3]| add3(&scl3(x1, w1 / wsum), &scl3(x2, w2 / wsum));

    let multi = opt.collide.multiccd || s1.geom.ty == GeomType::Plane || s2.geom.ty == GeomType::Plane;
    let n = if multi { multi_points(s1, s2, &imp, h_vn, opt, out) } else { 0 };
    if n == 0 {
        if occluded(&imp.x_0[0], &imp.x_0[1]) {
            return 0;
        }
        out[0] = ContactPoint { dist, pos: blend(&imp.x_0[0], &imp.x_0[1]), frame: frame_from_normal(&imp.normal) };
        return 1;
    }
    // each point has its own line of sight (measured: a static box hiding one of the two edge
    // points of a plate pair removes that point only)
    let mut kept = 0;
    for k in 0..n {
        // `pos` holds the geom-1 point, `frame[3..6]` the geom-2 point (both at t = 0)
        let x1 = out[k].pos;
        let x2 = [out[k].frame[3], out[k].frame[4], out[k].frame[5]];
        if occluded(&x1, &x2) {
            continue;
        }
        out[kept] = ContactPoint { dist, pos: blend(&x1, &x2), frame: frame_from_normal(&imp.normal) };
        kept += 1;
    }
    kept
}

/// Contact points at the advanced pose, mapped back to t = 0: for each point, `pos` is set to
/// the geom-1 surface point and `frame[3..6]` to the geom-2 surface point (scratch use of the
/// output, finished by the caller).
fn multi_points(
    s1: &SweptGeom,
    s2: &SweptGeom,
    imp: &Impact,
    h_vn: f64,
    opt: &SpeculativeOptions,
    out: &mut [ContactPoint],
) -> usize {
    let e1 = sweep::effective_motion(s1.geom.ty, &s1.motion);
    let e2 = sweep::effective_motion(s2.geom.ty, &s2.motion);
    let (a1, q1) = advance::advanced_geom(&s1.geom, &e1, imp.t);
    let (a2, q2) = advance::advanced_geom(&s2.geom, &e2, imp.t);
    // surface point pairs (geom 1, geom 2) at the advanced pose
    let mut pairs: Vec<([f64; 3], [f64; 3])> = Vec::new();
    if a1.ty == GeomType::Plane {
        let spread = imp.dist + (1.0 - imp.t) * h_vn + opt.collide.ccd_tolerance;
        let n = [a1.mat[2], a1.mat[5], a1.mat[8]];
        if let Some(pts) = manifold::plane_points(&a1, &a2, spread) {
            pairs.extend(pts.iter().map(|(p, h)| (sub3(p, &scl3(&n, *h)), *p)));
        } else if a2.ty == GeomType::Mesh {
            collider_points(&a1, &a2, imp.dist + spread, opt, &mut pairs);
        }
    } else {
        // points on the touching features only; the docs allow at most four per pair
        // nearly parallel faces: geom 2's face clipped by geom 1's (see [`faces`])
        let spread = imp.dist + (1.0 - imp.t) * h_vn + opt.collide.ccd_tolerance;
        if let Some(pts) = faces::face_points(&a1, &a2, &imp.normal, &imp.x_t[0], &imp.x_t[1], imp.dist, spread) {
            pairs.extend(pts);
        } else if a1.ty == GeomType::Mesh || a2.ty == GeomType::Mesh {
            // hull faces are not clipped here yet: the pair's own multi-contact narrowphase
            let reach = imp.dist + advance::TOLERANCE_FRACTION * (imp.dist0 - imp.dist);
            collider_points(&a1, &a2, reach, opt, &mut pairs);
        }
        // anything else keeps the single witness contact (measured: two parallel capsules of a
        // falling chain, end to end or side by side, get one contact each)
        pairs.truncate(MAX_POINTS);
    }
    let n = pairs.len().min(out.len());
    for (c, (x1t, x2t)) in out.iter_mut().zip(&pairs[..n]) {
        let x1 = advance::map_back(&s1.geom, &e1, imp.t, &q1, x1t);
        let x2 = advance::map_back(&s2.geom, &e2, imp.t, &q2, x2t);
        let mut frame = [0.0; 9];
        frame[3..6].copy_from_slice(&x2);
        *c = ContactPoint { dist: 0.0, pos: x1, frame };
    }
    n
}

/// Surface point pairs from the pair's narrowphase run with margin `reach`: each contact's
/// midpoint moved half its distance back along the normal onto either surface.
fn collider_points(a1: &Geom, a2: &Geom, reach: f64, opt: &SpeculativeOptions, pairs: &mut Vec<([f64; 3], [f64; 3])>) {
    let mut buf = [ContactPoint::default(); MAX_CONTACTS];
    let n = table::collide(a1, a2, reach, &opt.collide, &mut buf).unwrap_or(0);
    for b in &buf[..n] {
        let nrm = b.normal();
        pairs.push((sub3(&b.pos, &scl3(&nrm, 0.5 * b.dist)), add3(&b.pos, &scl3(&nrm, 0.5 * b.dist))));
    }
}
