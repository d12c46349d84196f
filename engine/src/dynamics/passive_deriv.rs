//! The parts of `mjd_passive_vel` beyond joint damping, as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D85, D86): each tendon damper's velocity derivative `-b J' J`, and
//! the inertia-box fluid model's `J' B J` per body (`B` diagonal in the body's inertial frame),
//! added to `qDeriv` where its pattern has room.

use std::cell::RefCell;

use super::constraint::jacobian::jac;
use super::fluid::{box_side, local_velocity, m9};
use super::integrate::IntegratorModel;
use super::passive::{actuator_damping, DampedObject, PassiveModel};
use super::passive_body::{uses_ellipsoid, v3, BodyForceModel, BodyForceState};
use crate::math::{with_thread_buffers, MINVAL, PI};

thread_local! {
    /// The world Jacobian of a body (rotation rows, then translation) and the same in its
    /// inertial frame, `6 nv` each (MuJoCo's are on its stack); kept from call to call.
    static JACOBIANS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// The state `mjd_passive_vel` reads beyond `qvel`: tendon Jacobians and velocities, and the
/// body frames and velocities of the fluid models (empty slices when the model has none).
#[derive(Clone, Copy, Debug, Default)]
pub struct PassiveDerivState<'a> {
    /// Tendon Jacobians, sparse on the model's `ten_J` pattern (`nJten`).
    pub ten_j: &'a [f64],
    /// Tendon velocities (`ntendon`).
    pub ten_velocity: &'a [f64],
    /// Frames and velocities of the bodies and geoms (the fluid models).
    pub body: BodyForceState<'a>,
}

/// Tendon damping's derivative: per tendon, `b = damping + actuator damping + 2 p0 |v| + 3 p1
/// v^2` and, unless zero, `(-b J_i) J_j` added to `qDeriv` at each pair of its Jacobian's
/// columns the `D` pattern holds (a merge of the tendon's columns with `D`'s row `i`).
pub(super) fn tendon_damping_vel(pm: &PassiveModel, im: &IntegratorModel, x: &PassiveDerivState, qdv: &mut [f64]) {
    for k in 0..x.ten_velocity.len() {
        let v = x.ten_velocity[k];
        let mut poly = [pm.tendon_dampingpoly[2 * k], pm.tendon_dampingpoly[2 * k + 1]];
        let act = actuator_damping(pm, DampedObject::Tendon, k, &mut poly);
        let b = 3.0 * poly[1] * (v * v) + ((poly[0] + poly[0]) * v.abs() + (act + pm.tendon_damping[k]));
        let minus_b = -b;
        #[allow(clippy::float_cmp)]
        if b == minus_b {
            continue;
        }
        let (adr, nnz) = (pm.ten_j_rowadr[k] as usize, pm.ten_j_rownnz[k].max(0) as usize);
        let (cols, jac) = (&pm.ten_j_colind[adr..adr + nnz], &x.ten_j[adr..adr + nnz]);
        for (&c1, &j1) in cols.iter().zip(jac) {
            let c1 = c1 as usize;
            let dn = im.d_rownnz[c1].max(0) as usize;
            if dn == 0 {
                continue;
            }
            let base = im.d_rowadr[c1] as usize;
            let scaled = minus_b * j1;
            let (mut i, mut n) = (0, 0);
            while i < nnz && n < dn {
                let (tc, dc) = (cols[i], im.d_colind[base + n]);
                if tc == dc {
                    qdv[base + n] += scaled * jac[i];
                    i += 1;
                    n += 1;
                } else if tc > dc {
                    n += 1;
                } else {
                    i += 1;
                }
            }
        }
    }
}

/// Whether `mjd_passive_vel` runs a fluid model: `viscosity > 0` or `density > 0`.
pub fn fluid_vel_on(m: &BodyForceModel) -> bool {
    m.viscosity > 0.0 || m.density > 0.0
}

/// Whether some body the fluid derivative visits (mass not under `mjMINVAL`) takes the
/// ellipsoid model, whose derivative (`mjd_ellipsoidFluid`) is not in Rust.
pub fn needs_ellipsoid_vel(m: &BodyForceModel) -> bool {
    (0..m.body_mass.len()).any(|b| (m.body_mass[b] >= MINVAL || m.body_mass[b].is_nan()) && uses_ellipsoid(m, b))
}

/// The fluid models' derivative, body by body (bodies with mass under `mjMINVAL` skipped): the
/// inertia-box model's on a dense Jacobian ([`inertia_box_vel`]). The caller keeps bodies
/// with the ellipsoid model ([`needs_ellipsoid_vel`]) and sparse Jacobians away.
pub(super) fn fluid_vel(m: &BodyForceModel, im: &IntegratorModel, s: &BodyForceState, qdv: &mut [f64]) {
    if !fluid_vel_on(m) {
        return;
    }
    with_thread_buffers(&JACOBIANS, |buf| {
        buf.resize(12 * m.jac.nv, 0.0);
        for b in 0..m.body_mass.len() {
            if MINVAL > m.body_mass[b] {
                continue;
            }
            inertia_box_vel(m, im, s, b, buf, qdv);
        }
    });
}

/// `mjd_inertiaBoxFluid` for body `b` (dense): the Jacobian of its centre of mass rotated into
/// its inertial frame, then `J_r' B_r J_r` per row `r` for each force term, viscous (rotation
/// rows, then translation) before quadratic drag, `B_r` the term's derivative in the local
/// velocity `lvel[r]`.
fn inertia_box_vel(
    m: &BodyForceModel,
    im: &IntegratorModel,
    s: &BodyForceState,
    b: usize,
    buf: &mut [f64],
    qdv: &mut [f64],
) {
    let nv = m.jac.nv;
    let inertia = v3(m.body_inertia, 3 * b);
    let mass = m.body_mass[b];
    let side = [box_side(&inertia, 0, mass), box_side(&inertia, 1, mass), box_side(&inertia, 2, mass)];
    let (pos, rot) = (v3(s.xipos, 3 * b), m9(s.ximat, 9 * b));
    let lvel = local_velocity(m, s, b, &pos, &rot);
    let (world, local) = buf.split_at_mut(6 * nv);
    {
        let (jr, jp) = world.split_at_mut(3 * nv);
        jac(&m.jac, &s.jac, jp, Some(jr), &pos, b);
    }
    // local = R' world per block of three rows (`mju_mulMatTMat`: rows of R in order, zero
    // entries skipped, each added to a zeroed result)
    for blk in 0..2 {
        let (src, dst) = (&world[3 * nv * blk..3 * nv * (blk + 1)], &mut local[3 * nv * blk..3 * nv * (blk + 1)]);
        dst.fill(0.0);
        for i in 0..3 {
            for r in 0..3 {
                let a = rot[3 * i + r];
                #[allow(clippy::float_cmp)]
                if a == 0.0 {
                    continue;
                }
                for k in 0..nv {
                    dst[r * nv + k] += a * src[i * nv + k];
                }
            }
        }
    }
    let row = |r: usize| &local[r * nv..(r + 1) * nv];
    let visc = m.viscosity;
    if visc > 0.0 {
        let d = ((side[0] + side[1]) + side[2]) / 3.0;
        let ang = ((-PI * d) * d) * d * visc;
        let lin = (-3.0 * PI) * d * visc;
        for r in 0..3 {
            add_jtbj(im, row(r), ang, qdv);
        }
        for r in 3..6 {
            add_jtbj(im, row(r), lin, qdv);
        }
    }
    let rho = m.density;
    if rho > 0.0 {
        const OTHER_AXES: [(usize, usize); 3] = [(1, 2), (0, 2), (0, 1)];
        let p4 = |x: f64| x * x * x * x;
        for k in 0..3 {
            let (i, j) = OTHER_AXES[k];
            let t = rho * side[k] * (p4(side[i]) + p4(side[j]));
            add_jtbj(im, row(k), (t + t) * lvel[k].abs() * -0.015625, qdv);
        }
        for k in 0..3 {
            let (i, j) = OTHER_AXES[k];
            let t = -0.5 * rho * side[i] * side[j];
            add_jtbj(im, row(3 + k), (t + t) * lvel[3 + k].abs(), qdv);
        }
    }
}

/// `qDeriv += J' B J` for one dense Jacobian row `j` (`nv`) and a scalar `B` (the local
/// `addJTBJ`): nothing for `B == 0`; for each non-zero `J_k`, row `k` of `qDeriv` gets
/// `J_c (J_k B)` at each column `c` of its `D` pattern.
fn add_jtbj(im: &IntegratorModel, j: &[f64], b: f64, qdv: &mut [f64]) {
    #[allow(clippy::float_cmp)]
    if b == 0.0 {
        return;
    }
    for (k, &jk) in j.iter().enumerate() {
        #[allow(clippy::float_cmp)]
        if jk == 0.0 {
            continue;
        }
        let scale = jk * b;
        let (adr, n) = (im.d_rowadr[k] as usize, im.d_rownnz[k].max(0) as usize);
        for (q, &c) in qdv[adr..adr + n].iter_mut().zip(&im.d_colind[adr..adr + n]) {
            *q += j[c as usize] * scale;
        }
    }
}
