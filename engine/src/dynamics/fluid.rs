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

/// A 3x3 block of `v` from `i`.
fn m9(v: &[f64], i: usize) -> [f64; 9] {
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
fn local_velocity(m: &BodyForceModel, s: &BodyForceState, body: usize, pos: &[f64; 3], rot: &[f64; 9]) -> [f64; 6] {
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
fn box_side(inertia: &[f64; 3], k: usize, mass: f64) -> f64 {
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
            let (i, j) = if k == 0 {
                (1, 2)
            } else if k == 1 {
                (0, 2)
            } else {
                (0, 1)
            };
            let v = lvel[3 + k];
            lfrc[3 + k] = lfrc[3 + k] - half * side[i] * side[j] * v.abs() * v;
        }
        let p4 = |x: f64| x * x * x * x;
        for k in 0..3 {
            let (i, j) = if k == 0 {
                (1, 2)
            } else if k == 1 {
                (0, 2)
            } else {
                (0, 1)
            };
            let w = lvel[k];
            lfrc[k] = lfrc[k] - rho * side[k] * (p4(side[i]) + p4(side[j])) * w.abs() * w * 0.015625;
        }
    }
    apply_local(m, s, &lfrc, (&rot, &pos, b), scratch, qfrc);
}
