//! MuJoCo 4.0.0's two fluid models of `mj_passive` (`docs/measurements.md` D74, D75): the
//! inertia-box model (`mj_inertiaBoxFluidModel`: drag and viscosity of the box with the body's
//! inertia) and the ellipsoid model (`mj_ellipsoidFluidModel`: added mass, Magnus and
//! Kutta-Joukowski lift, viscous and quadratic drag of each geom's ellipsoid).
//!
//! Both work in a local frame: the object's velocity from `cvel` (`mj_objectVelocity`) minus
//! the wind seen from it (`mju_transformSpatial` of `(0, wind)`), forces computed there,
//! rotated to the world and applied at the object's centre (`mj_applyFT`).
// `x = y + x` keeps the library's operand order.
#![allow(clippy::assign_op_pattern)]

use super::apply_ft::{apply_ft, ApplyFtScratch};
use super::passive_body::{v3, BodyForceModel, BodyForceState};
use crate::math::{cross, mul_mat_t_vec3, mul_mat_vec3, MINVAL, PI};

/// The two axes other than axis `k`, in increasing order (the box faces across axis `k`).
const OTHER_AXES: [(usize, usize); 3] = [(1, 2), (0, 2), (0, 1)];

/// A 3x3 block of `v` from `i`.
pub(super) fn m9(v: &[f64], i: usize) -> [f64; 9] {
    std::array::from_fn(|k| v[i + k])
}

/// `mju_transformSpatial` of a motion vector (rotation, then translation) from `old` to `new`,
/// expressed in the frame `rot` (new to world): `(R^T w, R^T (v - (new - old) x w))`.
fn transform_motion(vec: &[f64; 6], new: &[f64; 3], old: &[f64; 3], rot: &[f64; 9]) -> [f64; 6] {
    let w = [vec[0], vec[1], vec[2]];
    let dif = [new[0] - old[0], new[1] - old[1], new[2] - old[2]];
    let c = cross(&dif, &w);
    let lin = [vec[3] - c[0], vec[4] - c[1], vec[5] - c[2]];
    let (a, b) = (mul_mat_t_vec3(rot, &w), mul_mat_t_vec3(rot, &lin));
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

/// The velocity of a frame at `pos` with orientation `rot` moving with `body`, in that frame
/// (`mj_objectVelocity` with `flg_local`), minus the wind seen from it.
pub(super) fn local_velocity(
    m: &BodyForceModel,
    s: &BodyForceState,
    body: usize,
    pos: &[f64; 3],
    rot: &[f64; 9],
) -> [f64; 6] {
    let root = m.jac.body_rootid[body] as usize;
    let com = v3(s.jac.subtree_com, 3 * root);
    // a body welded to the world has no velocity: the library writes zeros without transforming
    let w = m.jac.body_weldid[body] as usize;
    let mut lvel = if m.jac.body_dofnum[w] == 0 {
        [0.0; 6]
    } else {
        let cvel: [f64; 6] = std::array::from_fn(|k| s.cvel[6 * body + k]);
        transform_motion(&cvel, pos, &com, rot)
    };
    let wind = [0.0, 0.0, 0.0, m.wind[0], m.wind[1], m.wind[2]];
    let lwind = transform_motion(&wind, pos, &com, rot);
    for k in 3..6 {
        lvel[k] = lvel[k] - lwind[k];
    }
    lvel
}

/// Rotates the local force `lfrc` (torque, then force) by `rot` and applies it at `point`.
fn apply_local(
    m: &BodyForceModel,
    s: &BodyForceState,
    lfrc: &[f64; 6],
    (rot, point, body): (&[f64; 9], &[f64; 3], usize),
    scratch: &mut ApplyFtScratch,
    qfrc: &mut [f64],
) {
    let torque = mul_mat_vec3(rot, &[lfrc[0], lfrc[1], lfrc[2]]);
    let force = mul_mat_vec3(rot, &[lfrc[3], lfrc[4], lfrc[5]]);
    apply_ft(&m.jac, &s.jac, m.sparse, &force, &torque, point, body, scratch, qfrc);
}

/// Side of the box with the body's principal inertia along axis `k`, from the other two
/// moments: `sqrt(max(mjMINVAL, (Ia + Ib) - Ik) / mass * 6)`.
pub(super) fn box_side(inertia: &[f64; 3], k: usize, mass: f64) -> f64 {
    let (a, b) = (inertia[(k + 1) % 3], inertia[(k + 2) % 3]);
    let x = (a + b) - inertia[k];
    let x = if MINVAL > x { MINVAL } else { x };
    (x / mass * 6.0).sqrt()
}

/// The inertia-box model of body `b` into `qfrc` (`mj_inertiaBoxFluidModel`).
///
/// Algorithm:
/// 1. The box sides from the principal inertia and mass.
/// 2. The local velocity at the centre of mass in the inertial frame, minus the wind.
/// 3. Viscosity (`viscosity > 0`): torque `-pi d^3 visc w`, force `-3 pi d visc v`, with `d`
///    the mean side.
/// 4. Density (`density > 0`): per axis, force `-0.5 rho A |v| v` with `A` the face across the
///    axis, torque `-rho s_k (s_a^4 + s_b^4) |w| w / 64`.
/// 5. Rotated to the world, applied at the centre of mass.
pub fn inertia_box(m: &BodyForceModel, s: &BodyForceState, b: usize, scratch: &mut ApplyFtScratch, qfrc: &mut [f64]) {
    let inertia = v3(m.body_inertia, 3 * b);
    let mass = m.body_mass[b];
    let side = [box_side(&inertia, 0, mass), box_side(&inertia, 1, mass), box_side(&inertia, 2, mass)];
    let (pos, rot) = (v3(s.xipos, 3 * b), m9(s.ximat, 9 * b));
    let lvel = local_velocity(m, s, b, &pos, &rot);
    let mut lfrc = [0.0; 6];
    let visc = m.viscosity;
    if visc > 0.0 {
        let d = ((side[0] + side[1]) + side[2]) / 3.0;
        let ang = ((-PI * d) * d) * d * visc;
        let lin = (-3.0 * PI) * d * visc;
        for k in 0..3 {
            lfrc[k] = lvel[k] * ang;
            lfrc[3 + k] = lvel[3 + k] * lin;
        }
    }
    let rho = m.density;
    if rho > 0.0 {
        let half = rho * 0.5;
        for k in 0..3 {
            let (i, j) = OTHER_AXES[k];
            let v = lvel[3 + k];
            lfrc[3 + k] = lfrc[3 + k] - half * side[i] * side[j] * v.abs() * v;
        }
        let p4 = |x: f64| x * x * x * x;
        for k in 0..3 {
            let (i, j) = OTHER_AXES[k];
            let w = lvel[k];
            lfrc[k] = lfrc[k] - rho * side[k] * (p4(side[i]) + p4(side[j])) * w.abs() * w * 0.015625;
        }
    }
    apply_local(m, s, &lfrc, (&rot, &pos, b), scratch, qfrc);
}

/// `if b <= a { a } else { b }`: the library's larger of two (its comparison decides which of
/// two equal zeros, and a NaN `a` gives `b`).
fn max_le(a: f64, b: f64) -> f64 {
    if b <= a {
        a
    } else {
        b
    }
}

/// `(x x) (x x)`.
fn pow4(x: f64) -> f64 {
    let x2 = x * x;
    x2 * x2
}

/// The semi-axes of a geom's ellipsoid (`mju_geomSemiAxes`): a sphere's radius thrice, a
/// capsule's `(r, r, r + h)`, a cylinder's `(r, r, h)`, otherwise the size.
fn semi_axes(ty: i32, size: [f64; 3]) -> [f64; 3] {
    match ty {
        2 => [size[0]; 3],
        3 => [size[0], size[0], size[0] + size[1]],
        5 => [size[0], size[0], size[1]],
        _ => size,
    }
}

/// `1 / x` when `x > mjMINVAL`, else 0 (NaN gives 0).
fn inv_above_minval(x: f64) -> f64 {
    if x > MINVAL {
        1.0 / x
    } else {
        0.0
    }
}

/// The ellipsoid's shape terms of [`ellipsoid_force`] that do not depend on the velocity.
struct Shape {
    /// Volume `4/3 pi s0 s1 s2`.
    volume: f64,
    /// Diameter of the sphere of the same mean radius, `2/3 (s0 + s1 + s2)`.
    eq_d: f64,
    /// Largest semi-axis.
    d_max: f64,
    /// Middle semi-axis.
    d_mid: f64,
    /// Squared products of the other two scaled semi-axes, per axis.
    p: [f64; 3],
    /// Moment of inertia about each axis of the ellipsoid against the largest (`II`).
    ii: [f64; 3],
    /// Largest such moment (`I_max`).
    i_max: f64,
}

impl Shape {
    /// The shape terms of semi-axes `s`.
    fn new(s: [f64; 3]) -> Shape {
        const EIGHT_FIFTEENTHS_PI: f64 = 8.0 / 15.0 * PI;
        let max01 = max_le(s[0], s[1]);
        let d_max = max_le(max01, s[2]);
        let min01 = if s[0] <= s[1] { s[0] } else { s[1] };
        let d_min = if min01 <= s[2] { min01 } else { s[2] };
        let sum = (s[0] + s[1]) + s[2];
        let d_mid = (sum - d_max) - d_min;
        // the projected-area terms use the semi-axes over the largest one (4.0.0, D75)
        let inv = inv_above_minval(d_max);
        let n = [inv * s[0], inv * s[1], inv * s[2]];
        let sq = |x: f64| x * x;
        Shape {
            volume: 4.0 / 3.0 * PI * s[0] * s[1] * s[2],
            eq_d: 2.0 / 3.0 * sum,
            d_max,
            d_mid,
            p: [sq(n[1] * n[2]), sq(n[0] * n[2]), sq(n[0] * n[1])],
            ii: [
                EIGHT_FIFTEENTHS_PI * s[0] * pow4(max_le(s[1], s[2])),
                EIGHT_FIFTEENTHS_PI * s[1] * pow4(max_le(s[2], s[0])),
                EIGHT_FIFTEENTHS_PI * s[2] * pow4(max01),
            ],
            i_max: EIGHT_FIFTEENTHS_PI * d_mid * pow4(d_max),
        }
    }
}

/// `a x b` with each component summed as `a_i b_j + a_j (-b_i)`, the library's form for the
/// lift terms.
fn cross_neg(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[1] * b[2] + a[2] * -b[1], a[2] * b[0] + a[0] * -b[2], a[0] * b[1] + a[1] * -b[0]]
}

/// The local force (torque, then force) of one geom's ellipsoid moving at `lvel` (`c`: its 12
/// `geom_fluid` coefficients), before the interaction coefficient scales it.
///
/// Algorithm (4.0.0's order, D75):
/// 1. Added mass: momenta `rho m_k v_k`, `rho I_k w_k`; torque `p x v + L x w`, force `p x w`.
/// 2. Magnus lift `(rho magnus volume) (w x v)`.
/// 3. Kutta lift: with `u = v / |v|` and the scaled semi-axes, `N_k = P_k / Q u_k`,
///    `Q = sum P_k u_k^2`, `R = sum (P_k / Q)^2 u_k^2`, projected area
///    `A = pi d_max^2 sqrt(R Q)`, circulation `(N x v) A rho kutta / R`, force `circ x v`.
/// 4. Drag: linear `visc 3 pi D + rho |v| (A blunt + slender (A_max - A))`, angular
///    `visc pi D^3 + rho |w_k (ang II_k + slender (I_max - II_k))|`.
fn ellipsoid_force(rho: f64, visc: f64, c: &[f64], s: &Shape, lvel: &[f64; 6]) -> [f64; 6] {
    let w = [lvel[0], lvel[1], lvel[2]];
    let v = [lvel[3], lvel[4], lvel[5]];
    let (blunt, slender, ang, kutta, magnus) = (c[1], c[2], c[3], c[4], c[5]);
    // added mass
    let mom: [f64; 3] = std::array::from_fn(|k| rho * c[6 + k] * v[k]);
    let amom: [f64; 3] = std::array::from_fn(|k| rho * c[9 + k] * w[k]);
    let t1 = cross(&mom, &v);
    let t2 = cross(&amom, &w);
    let amf = cross_neg(&mom, &w);
    let mut lfrc = [0.0; 6];
    for k in 0..3 {
        lfrc[k] = (lfrc[k] + t1[k]) + t2[k];
        lfrc[3 + k] = amf[k] + lfrc[3 + k];
    }
    // Magnus
    let mag_coef = rho * magnus * s.volume;
    let mag = cross_neg(&w, &v).map(|x| mag_coef * x);
    // Kutta-Joukowski, on the unit velocity and the scaled semi-axes
    let speed = ((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]).sqrt();
    let inv_speed = inv_above_minval(speed);
    let u = [v[0] * inv_speed, v[1] * inv_speed, v[2] * inv_speed];
    let q = ((s.p[0] * u[0]) * u[0] + (s.p[1] * u[1]) * u[1]) + (s.p[2] * u[2]) * u[2];
    let inv_q = inv_above_minval(q);
    let x = [inv_q * s.p[0], inv_q * s.p[1], inv_q * s.p[2]];
    let r = ((x[0] * x[0] * u[0]) * u[0] + (x[1] * x[1] * u[1]) * u[1]) + (x[2] * x[2] * u[2]) * u[2];
    let a_proj = PI * s.d_max * s.d_max * (r * q).sqrt();
    let normal = [x[0] * u[0], x[1] * u[1], x[2] * u[2]];
    let circ_coef = a_proj * (rho * kutta * inv_above_minval(r));
    let circ = cross_neg(&normal, &v).map(|k| k * circ_coef);
    let kf = cross_neg(&circ, &v);
    // drag
    let a_max = PI * s.d_max * s.d_mid;
    let drag_lin = visc * (s.eq_d * (3.0 * PI)) + rho * speed * (a_proj * blunt + slender * (a_max - a_proj));
    let mv: [f64; 3] = std::array::from_fn(|k| w[k] * (slender * (s.i_max - s.ii[k]) + ang * s.ii[k]));
    let mv_norm = ((mv[0] * mv[0] + mv[1] * mv[1]) + mv[2] * mv[2]).sqrt();
    let torq_coef = PI * s.eq_d * s.eq_d * s.eq_d;
    let drag_ang = visc * torq_coef + rho * mv_norm;
    for k in 0..3 {
        lfrc[k] = lfrc[k] - drag_ang * w[k];
        lfrc[3 + k] = ((mag[k] + kf[k]) - drag_lin * v[k]) + lfrc[3 + k];
    }
    lfrc
}

/// The ellipsoid model of body `b` into `qfrc` (`mj_ellipsoidFluidModel`): per geom of the
/// body whose interaction coefficient `geom_fluid[0]` is not `== 0`, the local force of its
/// ellipsoid at the geom's velocity minus the wind, scaled by that coefficient, rotated to the
/// world and applied at the geom's centre.
pub fn ellipsoid(m: &BodyForceModel, s: &BodyForceState, b: usize, scratch: &mut ApplyFtScratch, qfrc: &mut [f64]) {
    let adr = m.body_geomadr[b].max(0) as usize;
    for g in adr..adr + m.body_geomnum[b].max(0) as usize {
        let c = &m.geom_fluid[12 * g..12 * g + 12];
        if c[0] == 0.0 {
            continue;
        }
        let shape = Shape::new(semi_axes(m.geom_type[g], v3(m.geom_size, 3 * g)));
        let (pos, rot) = (v3(s.geom_xpos, 3 * g), m9(s.geom_xmat, 9 * g));
        let lvel = local_velocity(m, s, b, &pos, &rot);
        let lfrc = ellipsoid_force(m.density, m.viscosity, c, &shape, &lvel).map(|f| c[0] * f);
        apply_local(m, s, &lfrc, (&rot, &pos, b), scratch, qfrc);
    }
}
