//! Stage 1: how far each geom moves over one step, which geoms are "fast", which pairs are
//! worth sweeping, and how far a fast geom's broadphase box must grow.
//!
//! Everything here is extrapolated from the pre-step velocities (`qvel`): MuJoCo's speculative
//! sweeps ignore acceleration (the collision stage runs before forces are known).
//!
//! Measured facts this file depends on (MuJoCo 4.0.0 through its Python bindings):
//! - The linear velocity is the body's spatial velocity evaluated at the geom *centre*
//!   (`geom_xpos`), not at the body's centre of mass: a hinge arm with a 0.01 m sphere at 0.2 m
//!   and a counterweight of 100 kg or 1 g at -0.2 m (com near the counterweight or near the
//!   sphere) gives the same contact (`dist` -3.0912 for 100 rad/s, gap 10 mm).
//! - The advanced pose is the centre moved along the straight line `c + t dx` (not the arc):
//!   the same hinge case lands on `t = 0.98 gap / (h v)` exactly.
//! - Gating: a pair is swept when the sweep distance `s` of *one of its geoms* (its own, not the
//!   relative motion) exceeds the smaller of the two geoms' smallest local AABB half-extents.
//!   Two r = 10 mm spheres closing at 4.1 m/s each (relative travel 10.25 mm per 1.25 ms step)
//!   are not swept; one sphere at 8.1 m/s against a resting one is. A 50 mm sphere moving at
//!   8.1 m/s (10.1 mm) towards a resting 10 mm sphere is swept: the threshold is the minimum
//!   over both geoms, not the moving geom's own 50 mm (the docs' per-geom wording is wrong).
//! - Spheres carry no rotational term: a sphere spinning at up to 3e5 rad/s next to a wall gives
//!   the same contact as without spin (its surface does not move when it turns).

use super::robust;
use crate::collision::filter::MAXVAL;
use crate::collision::model::{CollisionModel, DSBL_NATIVECCD, DSBL_REFSAFE, ENBL_OVERRIDE};
use crate::collision::state::State;
use crate::math::{add3, cross, dot3, norm3, scl3, sub3};
use crate::narrowphase::GeomType;

/// A geom's motion over one step: linear displacement of its centre and rotation vector, both
/// in world coordinates (`dx = h v(centre)`, `dw = h omega`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GeomMotion {
    /// Displacement of the geom centre over the step, `h v`.
    pub dx: [f64; 3],
    /// Rotation over the step (world frame), `h omega`.
    pub dw: [f64; 3],
}

impl GeomMotion {
    /// A geom that does not move (static, or on a body at rest).
    pub const ZERO: GeomMotion = GeomMotion { dx: [0.0; 3], dw: [0.0; 3] };

    /// True when the geom does not move at all.
    pub fn is_zero(&self) -> bool {
        self.dx == [0.0; 3] && self.dw == [0.0; 3]
    }
}

/// A body's spatial velocity `[omega; v]` in MuJoCo's com-based convention (`mjData.cvel`):
/// the sum of `cdof_j * qvel_j` over every dof from the root down to the body.
///
/// `chain` lists the dofs of the body and all its ancestors, root first, in dof order (what
/// walking `dof_parentid` from the body's last dof yields, reversed). Summing root first mirrors
/// MuJoCo's recursive `cvel[b] = cvel[parent] + sum cdof * qvel` (`mj_comVel`).
pub fn body_cvel(cdof: &[[f64; 6]], qvel: &[f64], chain: &[usize]) -> [f64; 6] {
    let mut cvel = [0.0; 6];
    for &j in chain {
        let (Some(c), Some(&q)) = (cdof.get(j), qvel.get(j)) else {
            continue;
        };
        for k in 0..6 {
            cvel[k] += c[k] * q;
        }
    }
    cvel
}

/// The step motion of a geom from its body's `cvel` (com-based, expressed at `com` =
/// `subtree_com` of the body's root), the geom centre and the timestep.
///
/// Formula: `omega = cvel[0..3]`, `v(centre) = cvel[3..6] - (xpos - com) x omega` (MuJoCo's
/// `mju_transformSpatial` moving a motion vector from `com` to `xpos`), then `dx = h v`,
/// `dw = h omega`.
pub fn geom_motion(cvel: &[f64; 6], com: &[f64; 3], xpos: &[f64; 3], h: f64) -> GeomMotion {
    let w = [cvel[0], cvel[1], cvel[2]];
    let lin = [cvel[3], cvel[4], cvel[5]];
    let dif = sub3(xpos, com);
    let v = sub3(&lin, &cross(&dif, &w));
    GeomMotion { dx: scl3(&v, h), dw: scl3(&w, h) }
}

/// Radius that the rotation term multiplies: `rbound` except for spheres (and planes), whose
/// surface a rotation about the centre does not move (measured, see the module notes).
pub fn rotation_radius(ty: GeomType, rbound: f64) -> f64 {
    match ty {
        GeomType::Sphere | GeomType::Plane => 0.0,
        _ => rbound,
    }
}

/// The motion the advancement uses: spheres (and planes) lose their rotation, which moves
/// none of their surface.
pub fn effective_motion(ty: GeomType, m: &GeomMotion) -> GeomMotion {
    match ty {
        GeomType::Sphere | GeomType::Plane => GeomMotion { dx: m.dx, dw: [0.0; 3] },
        _ => *m,
    }
}

/// Sweep distance `s = |dx| + |dw| r_rot`: a bound on how far any surface point travels.
pub fn sweep_distance(motion: &GeomMotion, ty: GeomType, rbound: f64) -> f64 {
    norm3(&motion.dx) + norm3(&motion.dw) * rotation_radius(ty, rbound)
}

/// Smallest half-extent of a geom's local AABB (MuJoCo's `geom_aabb[3..6]`); planes are
/// unbounded (`f64::INFINITY`), so they never lower a pair's threshold.
pub fn min_half_extent(ty: GeomType, aabb_half: &[f64; 3]) -> f64 {
    if ty == GeomType::Plane {
        return f64::INFINITY;
    }
    aabb_half[0].min(aabb_half[1]).min(aabb_half[2])
}

/// Local AABB half-extents of a primitive geom from `geom_size` (what MuJoCo stores in
/// `geom_aabb[3..6]`); meshes, height fields and SDFs must take theirs from the model.
pub fn primitive_half_extents(ty: GeomType, size: &[f64; 3]) -> Option<[f64; 3]> {
    match ty {
        GeomType::Sphere => Some([size[0]; 3]),
        GeomType::Capsule => Some([size[0], size[0], size[0] + size[1]]),
        GeomType::Ellipsoid | GeomType::Box => Some(*size),
        GeomType::Cylinder => Some([size[0], size[0], size[1]]),
        _ => None,
    }
}

/// Pair threshold: the smaller of the two geoms' smallest AABB half-extents (measured; the docs
/// say each geom's own).
pub fn pair_threshold(min_half1: f64, min_half2: f64) -> f64 {
    min_half1.min(min_half2)
}

/// True when the pair must be swept: one geom's own sweep distance reaches the pair threshold.
///
/// Measured at the boundary: a 10 mm ball over a 5 mm plate (threshold 2.5 mm) at exactly
/// 2.0 m/s and h = 1.25 ms sweeps exactly 2.5 mm and MuJoCo 4.0.0 speculates it (dist -0.2464 at
/// half a step's gap); at 1.99 m/s it does not. So the comparison includes equality.
pub fn pair_is_fast(s1: f64, s2: f64, threshold: f64) -> bool {
    s1 >= threshold || s2 >= threshold
}

/// Swept bounding-sphere filter (docs, "Swept bounding-sphere filter"): true when the two
/// bounding spheres stay farther apart than `r1 + r2 + margin + gap` over the whole step, so
/// the pair can be pruned. `p1`, `p2` are the centres at t = 0.
pub fn swept_sphere_prune(
    p1: &[f64; 3],
    dx1: &[f64; 3],
    r1: f64,
    p2: &[f64; 3],
    dx2: &[f64; 3],
    r2: f64,
    margin_gap: f64,
) -> bool {
    let p = sub3(p2, p1);
    let v = sub3(dx2, dx1);
    let vv = dot3(&v, &v);
    // closest approach of r(t) = p + t v on [0, 1]
    let tau = if vv > 0.0 { (-dot3(&p, &v) / vv).clamp(0.0, 1.0) } else { 0.0 };
    let r = add3(&p, &scl3(&v, tau));
    norm3(&r) > r1 + r2 + margin_gap
}

/// Swept plane filter: true when a geom of bounding radius `rbound`, whose centre is at signed
/// height `d0` over the plane at t = 0 and moves by `dx`, stays above `rbound + margin + gap` at
/// both ends of the step (`min(d0, d0 + n . dx)`), so the pair can be pruned.
pub fn swept_plane_prune(normal: &[f64; 3], d0: f64, dx: &[f64; 3], rbound: f64, margin_gap: f64) -> bool {
    let d1 = d0 + dot3(normal, dx);
    d0.min(d1) > rbound + margin_gap
}

/// One sweep axis `u` of a fast geom's swept broadphase interval (docs, "Swept broadphase
/// AABBs"), in the terms of the driver's per-geom box (`makeAAMM`): the static interval is the
/// intersection of the bounding-sphere interval `r_cen +- rbound` and the rotated local box
/// `aabb_cen +- aabb_half`. For a fast geom the box half is first grown by the rotation sweep
/// `|dw| r_rot` (still clipped by the bounding sphere, which no rotation about the centre can
/// leave), then the interval is extended on the side the centre moves, `dx . u`, and padded by
/// `margin` (margin + gap, as for the static box).
#[allow(clippy::too_many_arguments)]
pub fn swept_interval(
    r_cen: f64,
    rbound: f64,
    aabb_cen: f64,
    aabb_half: f64,
    motion: &GeomMotion,
    r_rot: f64,
    u: &[f64; 3],
    margin: f64,
) -> (f64, f64) {
    let grow = norm3(&motion.dw) * r_rot;
    let lo = (r_cen - rbound).max(aabb_cen - aabb_half - grow);
    let hi = (r_cen + rbound).min(aabb_cen + aabb_half + grow);
    let along = dot3(&motion.dx, u);
    (lo + along.min(0.0) - margin, hi + along.max(0.0) + margin)
}

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
    /// The two largest geom sweeps of this call (largest first), for [`Motions::robust_idle`].
    top: (f64, f64),
    /// The smallest safe depth over all geoms of the model, for [`Motions::robust_idle`].
    depth: f64,
}

impl Motions {
    /// Whether robust mode can skip every pair's separated, predicted and persisting contacts:
    /// the two largest geom sweeps together stay within what the softest contact of the model
    /// absorbs at the smallest safe depth, so [`robust::can_matter`] is false for every pair
    /// (a resting scene then costs what the compatible mode costs). Conservative: false when any
    /// contact reference is a direct (negative) one, whose mixing is not bounded this way.
    pub fn robust_idle(&self, m: &CollisionModel) -> bool {
        if self.sweep.len() != m.ngeom() {
            return false;
        }
        // the geom loop of `compute` found the sweeps' top two and the smallest depth
        let ((top1, top2), depth) = (self.top, self.depth);
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
        let (mut top1, mut top2) = (0.0f64, 0.0f64);
        let mut depth = f64::INFINITY;
        for g in 0..ng {
            let b = m.geom_bodyid[g];
            let (ty, r) = (m.geom_type[g], m.geom_rbound[g]);
            let mut motion = GeomMotion::ZERO;
            // each motion's sweep is computed once and kept with it (the same value the
            // comparison and the stored sweep would recompute)
            let mut sweep = None;
            if have_dofs && b > 0 && self.moves[b] {
                let root = m.body_rootid[b];
                if let Some(com) = spec.subtree_com.get(root) {
                    motion = geom_motion(&self.cvel[b], com, &s.geom_xpos[g], h);
                    let now = sweep_distance(&motion, ty, r);
                    sweep = Some(now);
                    if end {
                        let moved = geom_motion(&self.cvel_end[b], com, &s.geom_xpos[g], h);
                        let later = sweep_distance(&moved, ty, r);
                        if later > now {
                            (motion, sweep) = (moved, Some(later));
                        }
                    }
                }
            }
            let sweep = sweep.unwrap_or_else(|| sweep_distance(&motion, ty, r));
            let half = half_extent(m, g);
            if solid(ty) {
                self.body_half[b] = self.body_half[b].min(half);
                self.body_sweep[b] = self.body_sweep[b].max(sweep);
            }
            if sweep > top1 {
                top2 = top1;
                top1 = sweep;
            } else if sweep > top2 {
                top2 = sweep;
            }
            depth = depth.min(robust::safe_depth(half, f64::INFINITY));
            self.motion.push(motion);
            self.sweep.push(sweep);
        }
        (self.top, self.depth) = ((top1, top2), depth);
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
pub(crate) fn half_extent(m: &CollisionModel, g: usize) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hinge_point_velocity() {
        // a body spinning at 100 rad/s about z through the origin (com at the origin): a geom
        // at (0.2, 0, 0) moves along +y at 20 m/s
        let cvel = [0.0, 0.0, 100.0, 0.0, 0.0, 0.0];
        let m = geom_motion(&cvel, &[0.0; 3], &[0.2, 0.0, 0.0], 0.00125);
        assert!((m.dx[1] - 0.025).abs() < 1e-15 && m.dx[0] == 0.0);
        assert_eq!(m.dw, [0.0, 0.0, 0.125]);
    }

    #[test]
    fn swept_sphere_head_on() {
        // two unit spheres 10 apart crossing each other in one step: they meet half-way
        let prune =
            swept_sphere_prune(&[0.0; 3], &[10.0, 0.0, 0.0], 1.0, &[10.0, 0.0, 0.0], &[-10.0, 0.0, 0.0], 1.0, 0.0);
        assert!(!prune);
        let prune = swept_sphere_prune(&[0.0; 3], &[0.0; 3], 1.0, &[10.0, 3.0, 0.0], &[-20.0, 0.0, 0.0], 1.0, 0.0);
        assert!(prune);
    }
}
