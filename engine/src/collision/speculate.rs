//! The driver's side of speculative contacts: per-geom step motions for one collision call, the
//! swept filters the broadphase and pair filters use, and the call into
//! [`crate::speculative::speculative_contacts`] for pairs whose narrowphase found nothing.
//!
//! What is measured and what is chosen here (the kernels carry their own measurements):
//! - A geom's motion comes from its body's spatial velocity, `cvel = sum cdof * qvel` over the
//!   dofs from the root down (MuJoCo's `mj_comVel` recursion, evaluated in the position stage
//!   from the pre-step `qvel`), moved from the root's `subtree_com` to the geom centre.
//! - Filters: a pair with a moving geom uses the swept bounding-sphere (or plane) test instead of
//!   the static one, and a body pair with a *fast* geom (its own sweep above its own smallest
//!   AABB half-extent, the docs' definition) bypasses the mid-phase trees (docs: "mid-phase BVH
//!   traversal is bypassed for body pairs containing a fast-moving geom"). The swept tests
//!   include the static ones, so slow pairs keep exactly the contacts they had.

use super::filter::MAXVAL;
use super::model::{CollisionModel, DSBL_FILTERPARENT, DSBL_MULTICCD, DSBL_NATIVECCD, DSBL_REFSAFE, ENBL_OVERRIDE};
use super::state::State;
use crate::math::dist3;
use crate::narrowphase::{table, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};
use crate::speculative::sweep::{geom_motion, min_half_extent, swept_plane_prune, swept_sphere_prune};
use crate::speculative::{
    robust, sight, speculative_contacts, GeomMotion, Integrator, PairParams, SpeculativeOptions, SweptGeom,
};

/// Per-call speculative data, kept in the stage's scratch (no allocation once grown).
#[derive(Clone, Debug, Default)]
pub struct Motions {
    /// Step motion of each geom (zero for bodies without dofs).
    pub motion: Vec<GeomMotion>,
    /// Sweep distance of each geom.
    pub sweep: Vec<f64>,
    /// Largest sweep of each body's solid geoms (sphere to mesh; planes, height fields and
    /// SDFs do not count), for [`Motions::fast_pair`].
    pub body_sweep: Vec<f64>,
    /// Smallest local-box half-extent of each body's solid geoms (1e10 when it has none).
    pub body_half: Vec<f64>,
    extrapolated: Vec<f64>,
    cvel: Vec<[f64; 6]>,
    cvel_end: Vec<[f64; 6]>,
    moves: Vec<bool>,
}

impl Motions {
    /// Whether robust mode can skip every pair's separated, predicted and persisting contacts:
    /// the two largest geom sweeps together stay within what the softest contact of the model
    /// absorbs at the smallest safe depth, so [`robust::can_matter`] is false for every pair
    /// (a resting scene then costs what the compatible mode costs). Conservative: false when any
    /// contact reference is a direct (negative) one, whose mixing is not bounded this way.
    pub fn robust_idle(&self, m: &CollisionModel) -> bool {
        let (mut top1, mut top2) = (0.0f64, 0.0f64);
        let mut depth = f64::INFINITY;
        for g in 0..m.ngeom().min(self.sweep.len()) {
            let sw = self.sweep[g];
            if sw > top1 {
                top2 = top1;
                top1 = sw;
            } else if sw > top2 {
                top2 = sw;
            }
            depth = depth.min(robust::safe_depth(half_extent(m, g), f64::INFINITY));
        }
        let h = m.opt.timestep;
        let refsafe = !m.opt.disabled(DSBL_REFSAFE);
        let override_ref = m.opt.enabled(ENBL_OVERRIDE).then_some(m.opt.o_solref);
        let mut stop: f64 = 0.0;
        for r in m.geom_solref.iter().chain(&m.pair_solref).chain(override_ref.iter()) {
            if r[0] <= 0.0 {
                return false;
            }
            stop = stop.max(robust::stop_time(r, h, refsafe));
        }
        if !(stop > 0.0 && stop.is_finite()) {
            return false;
        }
        // a hair of slack for the rounding of mixed references
        top1 + top2 <= depth / stop * h * (1.0 - 1e-9)
    }

    /// Computes every geom's motion for this call; false (and no motions) when the state lacks
    /// the speculative inputs.
    pub fn compute(&mut self, m: &CollisionModel, s: &State) -> bool {
        let ng = m.ngeom();
        let nb = m.nbody();
        self.motion.clear();
        self.sweep.clear();
        self.body_sweep.clear();
        self.body_sweep.resize(nb, 0.0);
        self.body_half.clear();
        self.body_half.resize(nb, MAXVAL);
        let Some(spec) = s.speculative else { return false };
        let h = m.opt.timestep;
        // Robust mode also looks at the velocity at the end of the step, extrapolated with the
        // previous step's acceleration, and keeps whichever sweeps farther. Only the smooth
        // acceleration (actuators, applied and passive forces, gravity): the constraint forces of
        // the previous step include the arrest of a fast body, and extrapolating that deceleration
        // turned a ball stopped 2 um above a pane into one leaving it at 12 m/s (sweep preset b,
        // run 544), which the next arrest then pushed there.
        self.extrapolated.clear();
        if let (true, Some(qacc)) = (m.opt.robust, spec.qacc) {
            self.extrapolated.extend(spec.qvel.iter().zip(qacc).map(|(v, a)| v + h * a));
        }
        let have_dofs = m.body_dofadr.len() == nb && m.body_rootid.len() == nb;
        // Body velocities once per body, parents first: the parent's sum, then the body's own dofs
        // one by one (the same additions, in the same order, as summing the whole chain from the
        // root for every geom).
        let end = self.extrapolated.len() == spec.qvel.len();
        self.cvel.clear();
        self.cvel.resize(nb, [0.0; 6]);
        self.cvel_end.clear();
        self.cvel_end.resize(nb, [0.0; 6]);
        self.moves.clear();
        self.moves.resize(nb, false);
        // With weld ids the velocities are summed again below in MuJoCo's order, so this
        // root-first pass only finds which bodies move (and the extrapolated velocities).
        let weld_sum = m.body_weldid.len() == nb;
        if have_dofs {
            for b in 1..nb {
                let parent = m.body_parentid[b];
                let (mut v, mut ve, mut any) = (self.cvel[parent], self.cvel_end[parent], self.moves[parent]);
                let adr = m.body_dofadr[b];
                if adr >= 0 {
                    for j in adr as usize..adr as usize + m.body_dofnum[b] {
                        let (Some(c), Some(&q)) = (spec.cdof.get(j), spec.qvel.get(j)) else { continue };
                        any = true;
                        if !weld_sum {
                            for k in 0..6 {
                                v[k] += c[k] * q;
                            }
                        }
                        if end {
                            let qe = self.extrapolated[j];
                            for k in 0..6 {
                                ve[k] += c[k] * qe;
                            }
                        }
                    }
                }
                (self.cvel[b], self.cvel_end[b], self.moves[b]) = (v, ve, any);
            }
            // The step motion itself sums as MuJoCo 4.0.0's `mjc_geomStepMotion` does (read from
            // the released library): from the body's weld body up to the root, each body's dofs
            // in order, skipping zero velocities. Same value as the root-first sum above up to
            // rounding.
            if weld_sum {
                for b in 1..nb {
                    let mut v = [0.0; 6];
                    let mut k = m.body_weldid[b];
                    while k > 0 {
                        if let Ok(adr) = usize::try_from(m.body_dofadr[k]) {
                            for j in adr..adr + m.body_dofnum[k] {
                                let (Some(c), Some(&q)) = (spec.cdof.get(j), spec.qvel.get(j)) else { continue };
                                if q != 0.0 {
                                    for i in 0..6 {
                                        v[i] += q * c[i];
                                    }
                                }
                            }
                        }
                        k = m.body_parentid[k];
                    }
                    self.cvel[b] = v;
                }
            }
        }
        for g in 0..ng {
            let b = m.geom_bodyid[g];
            let mut motion = GeomMotion::ZERO;
            if have_dofs && b > 0 && self.moves[b] {
                let root = m.body_rootid[b];
                if let Some(com) = spec.subtree_com.get(root) {
                    motion = geom_motion(&self.cvel[b], com, &s.geom_xpos[g], h);
                    if end {
                        let moved = geom_motion(&self.cvel_end[b], com, &s.geom_xpos[g], h);
                        let ty = m.geom_type[g];
                        let r = m.geom_rbound[g];
                        if crate::speculative::sweep_distance(&moved, ty, r)
                            > crate::speculative::sweep_distance(&motion, ty, r)
                        {
                            motion = moved;
                        }
                    }
                }
            }
            let ty = m.geom_type[g];
            let sweep = crate::speculative::sweep_distance(&motion, ty, m.geom_rbound[g]);
            if solid(ty) {
                self.body_half[b] = self.body_half[b].min(half_extent(m, g));
                self.body_sweep[b] = self.body_sweep[b].max(sweep);
            }
            self.motion.push(motion);
            self.sweep.push(sweep);
        }
        true
    }

    /// Whether a body pair bypasses the mid-phase trees because a geom moves fast: MuJoCo 4.0.0
    /// (read from `mj_collision`; docs: "bypassed for body pairs containing a fast-moving geom")
    /// calls a pair fast when some solid geom of either body sweeps at least the smallest
    /// half-extent of all the solid geoms of *both* bodies, so a slow ball next to a 1 mm plate
    /// on the world body is fast (measured: issue 10's ball over a world plate and floor).
    pub fn fast_pair(&self, b1: usize, b2: usize) -> bool {
        let half = self.body_half[b1].min(self.body_half[b2]);
        let sweep = self.body_sweep[b1].max(self.body_sweep[b2]);
        half < MAXVAL && sweep >= half && sweep > 0.0
    }

    /// Whether geom `g` moves at all this step.
    pub fn moving(&self, g: usize) -> bool {
        self.sweep.get(g).is_some_and(|&s| s > 0.0)
    }
}

/// Geom types MuJoCo's fast-pair test looks at (sphere to mesh).
fn solid(ty: GeomType) -> bool {
    !matches!(ty, GeomType::Plane | GeomType::Hfield | GeomType::Sdf)
}

/// The swept version of the bounding-sphere filter: true to prune the pair. Compatible mode
/// follows MuJoCo 4.0.0 ([`compat_sphere_prune`]); robust mode sweeps every moving geom.
pub fn swept_prune(m: &CollisionModel, s: &State, mo: &Motions, g1: usize, g2: usize, bound: f64) -> bool {
    if !m.opt.robust {
        return compat_sphere_prune(m, s, mo, g1, g2, bound);
    }
    let (r1, r2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
    let (p1, p2) = (&s.geom_xpos[g1], &s.geom_xpos[g2]);
    let (d1, d2) = (&mo.motion[g1].dx, &mo.motion[g2].dx);
    if r1 > 0.0 && r2 > 0.0 {
        return swept_sphere_prune(p1, d1, r1, p2, d2, r2, bound);
    }
    let plane = |gp: usize, go: usize, r: f64| {
        let mat = &s.geom_xmat[gp];
        let n = [mat[2], mat[5], mat[8]];
        let rel = [
            s.geom_xpos[go][0] - s.geom_xpos[gp][0],
            s.geom_xpos[go][1] - s.geom_xpos[gp][1],
            s.geom_xpos[go][2] - s.geom_xpos[gp][2],
        ];
        let d0 = n[0] * rel[0] + n[1] * rel[1] + n[2] * rel[2];
        let dx = &mo.motion[go].dx;
        swept_plane_prune(&n, d0, dx, r, bound)
    };
    if m.geom_type[g1] == GeomType::Plane && r2 > 0.0 {
        return plane(g1, g2, r2);
    }
    if m.geom_type[g2] == GeomType::Plane && r1 > 0.0 {
        return plane(g2, g1, r1);
    }
    false
}

/// Smallest half-extent of geom `g`'s local box (infinite for planes), as MuJoCo's fast-pair
/// tests take it.
fn half_extent(m: &CollisionModel, g: usize) -> f64 {
    let a = &m.geom_aabb[g];
    min_half_extent(m.geom_type[g], &[a[3], a[4], a[5]])
}

/// MuJoCo 4.0.0's `mj_filterSphere` (read from the released library): true to prune.
///
/// With speculative contacts on (and native CCD), a geom's step motion counts only when it is
/// fast for the pair: its sweep (`mjc_geomStepMotion`'s) at least the smaller of both geoms'
/// smallest half-extents (planes excepted). A slow geom is taken at rest, so a fast small ball
/// that a slow big one would meet within the step is pruned (measured: fuzz seed 898, the two
/// spheres of `tests/fuzz_cases/two_spheres_slow_partner.xml`, where MuJoCo makes no contact
/// until the big sphere's own sweep reaches the small one's radius). Then, as without
/// speculation: two bounding spheres are compared by squared distance at the closest approach
/// of their centres over the step (`tau` clamped to [0, 1], 0 when the relative motion is below
/// `mjMINVAL`), or at t = 0 when neither moves; a plane against a bounded geom by the geom
/// centre's height at both ends of the step.
fn compat_sphere_prune(m: &CollisionModel, s: &State, mo: &Motions, g1: usize, g2: usize, bound: f64) -> bool {
    const MINVAL: f64 = 1e-15;
    let thr = half_extent(m, g1).min(half_extent(m, g2));
    let native = !m.opt.disabled(DSBL_NATIVECCD);
    let motion = |g: usize| -> ([f64; 3], f64) {
        let ty = m.geom_type[g];
        if !native || !solid(ty) {
            return ([0.0; 3], 0.0);
        }
        let mm = crate::speculative::advance::compat_motion(ty, &mo.motion[g]);
        let sweep = crate::speculative::advance::compat_sweep(ty, m.geom_rbound[g], &mo.motion[g]);
        if thr > sweep {
            ([0.0; 3], 0.0)
        } else {
            (mm.dx, sweep)
        }
    };
    let ((d1, s1), (d2, s2)) = (motion(g1), motion(g2));
    let (r1, r2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
    let (x1, x2) = (&s.geom_xpos[g1], &s.geom_xpos[g2]);
    if r1 > 0.0 && r2 > 0.0 {
        let reach = bound + (r1 + r2);
        let p = [x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]];
        let r = if s2 == 0.0 && s1 == 0.0 {
            p
        } else {
            let v = [d2[0] - d1[0], d2[1] - d1[1], d2[2] - d1[2]];
            let vv = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
            let mut tau = 0.0;
            if vv > MINVAL {
                let t = -((p[0] * v[0] + p[1] * v[1]) + p[2] * v[2]) / vv;
                tau = t.clamp(0.0, 1.0);
            }
            [tau * v[0] + p[0], tau * v[1] + p[1], tau * v[2] + p[2]]
        };
        return (r[0] * r[0] + r[1] * r[1]) + r[2] * r[2] > reach * reach;
    }
    // a plane and a bounded geom: the geom centre's height over the plane at t = 0 and t = 1
    let plane = |gp: usize, go: usize, r: f64, d: &[f64; 3], sw: f64| {
        let x = &s.geom_xmat[gp];
        let n = [x[2], x[5], x[8]];
        let (o, q) = (&s.geom_xpos[go], &s.geom_xpos[gp]);
        let p = [o[0] - q[0], o[1] - q[1], o[2] - q[2]];
        let mut h = (p[0] * n[0] + p[1] * n[1]) + p[2] * n[2];
        if sw > 0.0 {
            let end = ((n[0] * d[0] + n[1] * d[1]) + n[2] * d[2]) + h;
            h = if h <= end { h } else { end };
        }
        h > bound + r
    };
    if m.geom_type[g1] == GeomType::Plane && r2 > 0.0 && plane(g1, g2, r2, &d2, s2) {
        return true;
    }
    r1 > 0.0 && m.geom_type[g2] == GeomType::Plane && plane(g2, g1, r1, &d1, s1)
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

/// The speculative view of a pair: swept geoms, parameters and options.
fn setup<'a>(
    m: &'a CollisionModel,
    mo: &Motions,
    g1: usize,
    g2: usize,
    a: Geom<'a>,
    b: Geom<'a>,
) -> (SweptGeom<'a>, SweptGeom<'a>, SpeculativeOptions) {
    let half = |g: usize| half_extent(m, g);
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

/// Whether the segment `p`-`q` (between the pair's witness points) is hidden by another geom.
///
/// The occluder must be able to collide with the fast geom and sit on neither geom's body, the
/// world body excepted (measured; see `speculative`): a ball with a small sphere of its own body
/// just below it keeps its floor contact, the same small sphere on a body of its own hides it;
/// the capsules of a chain link do not hide that link from the next link; a plate on the world
/// body hides the world's floor. An occluder already in contact with either geom of the pair
/// hides nothing (measured on the cradle: a box crossing the segment hides the point unless it
/// penetrates one of the two plates). Only geoms that can collide count: a plate on the world
/// body sunk into the world's floor still hides the floor.
#[allow(clippy::too_many_arguments)]
fn occluded<'a>(
    m: &'a CollisionModel,
    (g1, a): (usize, &Geom<'a>),
    (g2, b): (usize, &Geom<'a>),
    fast: usize,
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    opt: &SpeculativeOptions,
    p: &[f64; 3],
    q: &[f64; 3],
) -> bool {
    let own = |g: usize| {
        let body = m.geom_bodyid[g];
        body != 0 && (body == m.geom_bodyid[g1] || body == m.geom_bodyid[g2])
    };
    let can_touch = |g: usize, other: usize| {
        let (bg, bo) = (m.geom_bodyid[g], m.geom_bodyid[other]);
        m.body_weldid.get(bg) != m.body_weldid.get(bo)
            && ((m.geom_contype[g] & m.geom_conaffinity[other]) != 0
                || (m.geom_contype[other] & m.geom_conaffinity[g]) != 0)
    };
    let touches = |g: usize, og: &Geom| {
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        [(g1, a), (g2, b)]
            .iter()
            .any(|(o, pg)| can_touch(g, *o) && table::collide(og, pg, 0.0, &opt.collide, &mut buf).unwrap_or(0) > 0)
    };
    (0..m.ngeom()).filter(|&g| g != g1 && g != g2 && !own(g)).any(|g| {
        let compatible =
            (m.geom_contype[g] & m.geom_conaffinity[fast]) != 0 || (m.geom_contype[fast] & m.geom_conaffinity[g]) != 0;
        compatible && geom(g).is_some_and(|og| sight::segment_hits(&og, p, q) && !touches(g, &og))
    })
}

/// MuJoCo 4.0.0's line-of-sight test (`isRayOccluded`, read from the released library): true
/// when the segment `a`-`b`, seen from geom `ga` of a pair with `gb`, is hidden by another geom.
///
/// - The segment is shortened by 1e-5 of its length at both ends; a segment shorter than 1e-15
///   hides nothing.
/// - Candidates: planes and sphere to mesh types (height fields and SDFs never occlude), other
///   than `ga` and `gb`, whose bounding sphere (when `rbound > 0`) reaches the segment's
///   bounding sphere; not welded to `ga`'s weld body (even the world), nor to `gb`'s unless that
///   is the world; either joined to `ga` by an explicit pair, or collidable with `ga` (contype /
///   conaffinity, the excluded body pairs, and the parent filter unless disabled or a weld body
///   is the world).
/// - Planes are tested analytically as infinite two-sided planes (a crossing, with a 1e-5 dead
///   band at the plane); the other types by ray casting, a hit counting at ray parameter 0 to 1.
/// - A hit geom within `margin + ccd_tolerance` of `ga` (the pair margin of `ga` and it, the
///   override margin under override) does not occlude; two planes always do.
///
/// Measured with the earlier single-segment reading and consistent with these rules: a plate on
/// the world body hides the world's floor from a falling ball; a plate that cannot touch the ball
/// hides nothing; a static box over one of two edge points of a plate pair removes that point.
#[allow(clippy::too_many_arguments)]
fn ray_occluded<'a>(
    m: &'a CollisionModel,
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    opt: &SpeculativeOptions,
    ga: usize,
    gb: usize,
    a: &[f64; 3],
    b: &[f64; 3],
) -> bool {
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let len2 = (ab[0] * ab[0] + ab[1] * ab[1]) + ab[2] * ab[2];
    if 1e-30 > len2 {
        return false;
    }
    let start = [ab[0] * 1e-5 + a[0], ab[1] * 1e-5 + a[1], ab[2] * 1e-5 + a[2]];
    let vec = [ab[0] * 0.99998, ab[1] * 0.99998, ab[2] * 0.99998];
    let mid = [ab[0] * 0.5 + a[0], ab[1] * 0.5 + a[1], ab[2] * 0.5 + a[2]];
    let half = len2.sqrt() * 0.5;
    let weld = |g: usize| m.body_weldid[m.geom_bodyid[g]];
    let (wa, wb) = (weld(ga), weld(gb));
    let wa_parent = m.body_weldid[m.body_parentid[wa]];
    let parent_filter = !m.opt.disabled(DSBL_FILTERPARENT) && wa != 0;
    let ba = m.geom_bodyid[ga];
    for g in 0..m.ngeom() {
        if g == ga || g == gb {
            continue;
        }
        let ty = m.geom_type[g];
        if !matches!(
            ty,
            GeomType::Plane
                | GeomType::Sphere
                | GeomType::Capsule
                | GeomType::Ellipsoid
                | GeomType::Cylinder
                | GeomType::Box
                | GeomType::Mesh
        ) {
            continue;
        }
        // the geom at t = 0 (a mesh without a hull cannot be tested)
        let Some(og) = geom(g) else { continue };
        let rb = m.geom_rbound[g];
        if rb > 0.0 {
            let p = &og.pos;
            let d = [p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]];
            let reach = half + rb;
            if (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2] > reach * reach {
                continue;
            }
        }
        let wg = weld(g);
        if wg == wa || (wb != 0 && wg == wb) {
            continue;
        }
        let pair = (0..m.pair_geom1.len()).find(|&p| {
            let (p1, p2) = (m.pair_geom1[p], m.pair_geom2[p]);
            (p1 == ga && p2 == g) || (p1 == g && p2 == ga)
        });
        if pair.is_none() {
            let collide = (m.geom_conaffinity[g] & m.geom_contype[ga]) | (m.geom_contype[g] & m.geom_conaffinity[ga]);
            if collide == 0 {
                continue;
            }
            let bg = m.geom_bodyid[g];
            let sig = ((ba.min(bg) as u32) << 16) + bg.max(ba) as u32;
            if m.exclude_signature.contains(&sig) {
                continue;
            }
            if wg != 0 && parent_filter && (wa == m.body_weldid[m.body_parentid[wg]] || wg == wa_parent) {
                continue;
            }
        }
        let hit = if ty == GeomType::Plane {
            let (p, x) = (&og.pos, &og.mat);
            let z = [x[2], x[5], x[8]];
            let rel = [a[0] - p[0], a[1] - p[1], a[2] - p[2]];
            let along = (ab[0] * z[0] + ab[1] * z[1]) + ab[2] * z[2];
            let above = (rel[0] * z[0] + rel[1] * z[1]) + rel[2] * z[2];
            let end = along + above;
            (above * end).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
                && (above.abs() > 1e-5 || end.abs() > 1e-5)
        } else {
            let x = sight::ray_geom(&og, &start, &vec);
            (0.0..=1.0).contains(&x)
        };
        if !hit {
            continue;
        }
        let mut margin = match pair {
            Some(p) => m.pair_margin[p],
            None => m.geom_margin[ga] + m.geom_margin[g],
        };
        if m.opt.enabled(ENBL_OVERRIDE) {
            margin = m.opt.o_margin;
        }
        if m.geom_type[ga] == GeomType::Plane && ty == GeomType::Plane {
            return true;
        }
        let reach = margin + opt.collide.ccd_tolerance;
        let Some(pa) = geom(ga) else { return true };
        if reach < crate::speculative::advance::fresh_distance(&pa, &og, reach, &opt.collide) {
            return true;
        }
    }
    false
}

/// The pair as robust mode sees it, or `None` when robust mode cannot change anything for it:
/// neither geom moves, or together they sweep less than the pair's contact absorbs.
fn robust_setup<'a>(
    m: &'a CollisionModel,
    mo: &Motions,
    (g1, g2): (usize, usize),
    a: Geom<'a>,
    b: Geom<'a>,
    pair: &PairParams,
) -> Option<(SweptGeom<'a>, SweptGeom<'a>, SpeculativeOptions)> {
    if !(mo.moving(g1) || mo.moving(g2)) {
        return None;
    }
    let (s1, s2, opt) = setup(m, mo, g1, g2, a, b);
    robust::can_matter(&s1, &s2, pair, &opt).then_some((s1, s2, opt))
}

/// Robust-mode contact points of a separated pair (see [`crate::speculative::robust`]).
#[allow(clippy::too_many_arguments)]
pub fn robust_points<'a>(
    m: &'a CollisionModel,
    mo: &Motions,
    g1: usize,
    g2: usize,
    a: Geom<'a>,
    b: Geom<'a>,
    pair: PairParams,
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    out: &mut [ContactPoint],
) -> usize {
    let Some((s1, s2, opt)) = robust_setup(m, mo, (g1, g2), a, b, &pair) else { return 0 };
    let fast = if mo.sweep[g1] >= mo.sweep[g2] { g1 } else { g2 };
    let n = robust::separated_points(
        &s1,
        &s2,
        &pair,
        &opt,
        |p, q| occluded(m, (g1, &s1.geom), (g2, &s2.geom), fast, geom, &opt, p, q),
        out,
    );
    if n > 0 {
        return n;
    }
    let n = robust::predicted_points(&s1, &s2, &pair, &opt, out);
    if n > 0 {
        return n;
    }
    match robust::limiting_point(&s1, &s2, &pair, &opt) {
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
#[allow(clippy::too_many_arguments)]
pub fn robust_touching<'a>(
    m: &'a CollisionModel,
    mo: &Motions,
    g1: usize,
    g2: usize,
    a: Geom<'a>,
    b: Geom<'a>,
    pair: PairParams,
    have: usize,
    out: &mut [ContactPoint],
) -> (usize, bool) {
    let have = have.min(out.len());
    let Some((s1, s2, opt)) = robust_setup(m, mo, (g1, g2), a, b, &pair) else { return (have, false) };
    let mut changed = false;
    for c in &mut out[..have] {
        if let Some(d) = robust::persisting_distance(&s1, &s2, c, &pair, &opt) {
            c.dist = d;
            changed = true;
        }
    }
    if have >= out.len() {
        return (have, changed);
    }
    let mut extra = [ContactPoint::default(); 4];
    let k = robust::predicted_points(&s1, &s2, &pair, &opt, &mut extra);
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
/// order); `geom` builds the narrowphase view of any geom (for the occlusion test).
#[allow(clippy::too_many_arguments)]
pub fn pair_points<'a>(
    m: &'a CollisionModel,
    mo: &Motions,
    g1: usize,
    g2: usize,
    a: Geom<'a>,
    b: Geom<'a>,
    margin: f64,
    solref: [f64; 2],
    solimp: [f64; 5],
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    out: &mut [ContactPoint],
) -> usize {
    if !(mo.moving(g1) || mo.moving(g2)) {
        return 0;
    }
    let (s1, s2, opt) = setup(m, mo, g1, g2, a, b);
    let occluded = |k: usize, p: &[f64; 3], q: &[f64; 3]| {
        let (ga, gb) = if k == 0 { (g1, g2) } else { (g2, g1) };
        ray_occluded(m, geom, &opt, ga, gb, p, q)
    };
    speculative_contacts(&s1, &s2, &PairParams { margin, solref, solimp }, &opt, occluded, out)
}
