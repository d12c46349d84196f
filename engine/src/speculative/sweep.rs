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
