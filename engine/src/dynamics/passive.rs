//! `mj_passive` for rigid models: joint springs (linear and polynomial, about `qpos_spring` or
//! the plastic state), joint dampers (with the damping of the actuators on each joint) and
//! tendon springs and dampers, as MuJoCo 4.0.0 computes them (`docs/measurements.md` D7), and
//! the body-level terms ([`super::passive_body`]: gravity compensation and the fluid models,
//! D73 to D75). Flexes, the effective metric, callbacks, plugins and asleep trees are the
//! library's: the caller keeps those models away.
// `x = y + x` keeps the library's operand order (the NaN it returns depends on it), and the
// indexed loops walk several arrays in step, as the library does.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

use super::apply_ft::ApplyFtScratch;
use super::constraint::contact::ContactModel;
use super::jnt;
use super::passive_adhesion::{adhesion, AdhesionScratch, AdhesiveContact};
use super::passive_body::{fluid_forces, gravcomp, BodyForceModel, BodyForceState};
use crate::math::{normalize4, MINVAL, PI};

/// Largest joint transmission type: `mjTRN_JOINT` (0) and `mjTRN_JOINTINPARENT` (1).
const TRN_JOINT_MAX: u32 = 1;
/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;

/// The model arrays [`passive`] reads (MuJoCo's names; the counts from their lengths: `nbody`
/// from `body_jntnum`, `nv` from `dof_jntid`, `ntendon` from `tendon_stiffness`, `nu` from
/// `actuator_trntype`). Polynomial coefficients are `mjNPOLY` = 2 per object.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassiveModel<'a> {
    /// `opt.disableflags` has `mjDSBL_SPRING`.
    pub disable_spring: bool,
    /// `opt.disableflags` has `mjDSBL_DAMPER`.
    pub disable_damper: bool,
    /// Number of joints of each body (`nbody`).
    pub body_jntnum: &'a [i32],
    /// First joint of each body (`nbody`).
    pub body_jntadr: &'a [i32],
    /// Type of each joint (`njnt`).
    pub jnt_type: &'a [i32],
    /// First `qpos` entry of each joint (`njnt`).
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Start of each joint's spring reference in the plastic state, -1 for `qpos_spring` (`njnt`).
    pub jnt_plasticadr: &'a [i32],
    /// Actuator on each joint: -1 none, -2 several (`njnt`).
    pub jnt_actuatorid: &'a [i32],
    /// Linear stiffness of each joint (`njnt`).
    pub jnt_stiffness: &'a [f64],
    /// Higher-order stiffness coefficients (`2 njnt`).
    pub jnt_stiffnesspoly: &'a [f64],
    /// Spring reference pose (`nq`).
    pub qpos_spring: &'a [f64],
    /// Joint of each dof (`nv`).
    pub dof_jntid: &'a [i32],
    /// Linear damping of each dof (`nv`).
    pub dof_damping: &'a [f64],
    /// Higher-order damping coefficients (`2 nv`).
    pub dof_dampingpoly: &'a [f64],
    /// Linear stiffness of each tendon (`ntendon`).
    pub tendon_stiffness: &'a [f64],
    /// Higher-order stiffness coefficients (`2 ntendon`).
    pub tendon_stiffnesspoly: &'a [f64],
    /// Rest length range of each tendon's spring (`2 ntendon`).
    pub tendon_lengthspring: &'a [f64],
    /// Start of each tendon's rest range in the plastic state, -1 for `tendon_lengthspring`
    /// (`ntendon`).
    pub tendon_plasticadr: &'a [i32],
    /// Linear damping of each tendon (`ntendon`).
    pub tendon_damping: &'a [f64],
    /// Higher-order damping coefficients (`2 ntendon`).
    pub tendon_dampingpoly: &'a [f64],
    /// Actuator on each tendon: -1 none, -2 several (`ntendon`).
    pub tendon_actuatorid: &'a [i32],
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// Start of each row in `ten_J` (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each non-zero (`nJten`).
    pub ten_j_colind: &'a [i32],
    /// Transmission type of each actuator (`nu`).
    pub actuator_trntype: &'a [i32],
    /// Transmission targets, two per actuator (`2 nu`).
    pub actuator_trnid: &'a [i32],
    /// First force output of each actuator (`nu`).
    pub actuator_outadr: &'a [i32],
    /// Gear of each force output, six per output (`6 nout`).
    pub actuator_gear: &'a [f64],
    /// Linear damping of each actuator (`nu`).
    pub actuator_damping: &'a [f64],
    /// Higher-order damping coefficients (`2 nu`).
    pub actuator_dampingpoly: &'a [f64],
    /// What gravity compensation and the fluid models read.
    pub body: BodyForceModel<'a>,
    /// `flg_adhesion` as a byte (the library compares it with 1).
    pub flg_adhesion: u8,
    /// What contact adhesion reads (the geoms' bodies, the contact switch, the Jacobians).
    pub contact: ContactModel<'a>,
}

/// The state [`passive`] reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassiveState<'a> {
    /// Joint positions (`nq`).
    pub qpos: &'a [f64],
    /// Joint velocities (`nv`).
    pub qvel: &'a [f64],
    /// Plastic state (`nplastic`).
    pub plastic: &'a [f64],
    /// Tendon lengths (`ntendon`).
    pub ten_length: &'a [f64],
    /// Tendon velocities (`ntendon`).
    pub ten_velocity: &'a [f64],
    /// Tendon Jacobian values (`nJten`).
    pub ten_j: &'a [f64],
    /// What gravity compensation and the fluid models read.
    pub body: BodyForceState<'a>,
    /// The contacts (`ncon`), for adhesion.
    pub contacts: &'a [AdhesiveContact],
}

/// Buffers [`passive`] reuses from call to call.
#[derive(Clone, Debug, Default)]
pub struct PassiveScratch {
    /// `mj_applyFT`'s Jacobians.
    pub ft: ApplyFtScratch,
    /// Adhesion's Jacobians.
    pub adhesion: AdhesionScratch,
}

/// The arrays [`passive`] writes (`nv` each).
#[derive(Debug)]
pub struct PassiveForces<'a> {
    /// Spring forces.
    pub qfrc_spring: &'a mut [f64],
    /// Damper forces.
    pub qfrc_damper: &'a mut [f64],
    /// Gravity compensation.
    pub qfrc_gravcomp: &'a mut [f64],
    /// Fluid forces.
    pub qfrc_fluid: &'a mut [f64],
    /// Contact adhesion (zero here).
    pub qfrc_adhesion: &'a mut [f64],
    /// Their total.
    pub qfrc_passive: &'a mut [f64],
}

/// What an actuator's damping is applied to (`mj_actuatorDamping`'s object type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DampedObject {
    /// A joint (`mjOBJ_JOINT`): joint and joint-in-parent transmissions count.
    Joint,
    /// A tendon (`mjOBJ_TENDON`): tendon transmissions count.
    Tendon,
}

/// Linear damping the actuators add to joint or tendon `id`, returned, and their polynomial
/// coefficients added into `poly` (`mj_actuatorDamping`: each term scaled by the square of the
/// actuator's first gear).
pub fn actuator_damping(m: &PassiveModel, object: DampedObject, id: usize, poly: &mut [f64; 2]) -> f64 {
    let actuator = match object {
        DampedObject::Joint => m.jnt_actuatorid[id],
        DampedObject::Tendon => m.tendon_actuatorid[id],
    };
    // one actuator's share: poly += g^2 dampingpoly, and g^2 damping returned
    let term = |a: usize, poly: &mut [f64; 2]| {
        let g = m.actuator_gear[6 * m.actuator_outadr[a] as usize];
        let g2 = g * g;
        poly[0] = g2 * m.actuator_dampingpoly[2 * a] + poly[0];
        poly[1] = g2 * m.actuator_dampingpoly[2 * a + 1] + poly[1];
        g2 * m.actuator_damping[a]
    };
    match actuator {
        -1 => 0.0,
        a if a >= 0 => term(a as usize, poly),
        _ => {
            let mut sum = 0.0;
            for a in 0..m.actuator_trntype.len() {
                if m.actuator_trnid[2 * a] != id as i32 {
                    continue;
                }
                let trntype = m.actuator_trntype[a];
                // the library compares the joint types unsigned: a negative type is not a joint
                let counts = match object {
                    DampedObject::Joint => trntype as u32 <= TRN_JOINT_MAX,
                    DampedObject::Tendon => trntype == TRN_TENDON,
                };
                if counts {
                    sum = term(a, poly) + sum;
                }
            }
            sum
        }
    }
}

/// `stiffness + p0 x + p1 x^2`, summed as the library does.
fn polynomial(x: f64, stiffness: f64, p: &[f64]) -> f64 {
    (x * x) * p[1] + (x * p[0] + stiffness)
}

/// The rotation vector from `reference` to the normalised `quat` (`mju_subQuat`: the product
/// of the conjugate reference and the quaternion, then `mju_quat2Vel` over unit time), with the
/// library's vectorised sums.
fn sub_quat(quat: &[f64], reference: &[f64]) -> [f64; 3] {
    let mut q = [quat[0], quat[1], quat[2], quat[3]];
    normalize4(&mut q);
    let n = [reference[0], -reference[1], -reference[2], -reference[3]];
    // each component is two products summed, plus two more summed, as the library's lanes do
    let d0 = (q[0] * n[0] - q[1] * n[1]) + (q[2] * -n[2] + q[3] * -n[3]);
    let d1 = (q[1] * n[0] + q[0] * n[1]) + (q[3] * n[2] + q[2] * -n[3]);
    let d2 = (q[2] * n[0] - q[3] * n[1]) + (q[0] * n[2] + q[1] * n[3]);
    let d3 = (q[3] * n[0] + q[2] * n[1]) + (q[1] * -n[2] + q[0] * n[3]);
    let sin_half = (d3 * d3 + (d1 * d1 + d2 * d2)).sqrt();
    let inv = 1.0 / sin_half;
    let axis = if MINVAL > sin_half { [1.0, 0.0, 0.0] } else { [d1 * inv, d2 * inv, d3 * inv] };
    let half = sin_half.atan2(d0);
    let mut speed = half + half;
    if PI < speed {
        speed -= 2.0 * PI;
    }
    [speed * axis[0], speed * axis[1], speed * axis[2]]
}

/// Euclidean norm of three values, summed as the library does.
fn norm3(v: [f64; 3]) -> f64 {
    (v[2] * v[2] + (v[0] * v[0] + v[1] * v[1])).sqrt()
}

/// Adds a ball joint's spring (rotation from `reference` to `quat`) into `spring` (3 dofs).
fn ball_spring(quat: &[f64], reference: &[f64], stiffness: f64, poly: &[f64], spring: &mut [f64]) {
    let dif = sub_quat(quat, reference);
    let k = polynomial(norm3(dif), stiffness, poly);
    for (f, d) in spring.iter_mut().zip(dif) {
        *f -= d * k;
    }
}

/// The joint springs into `spring` (`nv`, zeroed): per body, per joint with a non-zero
/// stiffness coefficient (NaN counts), about the plastic state or `qpos_spring`.
fn joint_springs(m: &PassiveModel, s: &PassiveState, spring: &mut [f64]) {
    for b in 0..m.body_jntnum.len() {
        let first = m.body_jntadr[b].max(0) as usize;
        for j in first..first + m.body_jntnum[b].max(0) as usize {
            let (stiffness, poly) = (m.jnt_stiffness[j], &m.jnt_stiffnesspoly[2 * j..2 * j + 2]);
            if stiffness == 0.0 && poly[0] == 0.0 && poly[1] == 0.0 {
                continue;
            }
            let qadr = m.jnt_qposadr[j] as usize;
            let dof = m.jnt_dofadr[j] as usize;
            let reference = match m.jnt_plasticadr[j] {
                adr if adr >= 0 => &s.plastic[adr as usize..],
                _ => &m.qpos_spring[qadr..],
            };
            match m.jnt_type[j] {
                jnt::SLIDE | jnt::HINGE => {
                    let dif = s.qpos[qadr] - reference[0];
                    spring[dof] = polynomial(dif, stiffness, poly) * -dif;
                }
                jnt::FREE => {
                    let dif = [0, 1, 2].map(|i| s.qpos[qadr + i] - reference[i]);
                    let k = polynomial(norm3(dif), stiffness, poly);
                    for (f, d) in spring[dof..dof + 3].iter_mut().zip(dif) {
                        *f -= d * k;
                    }
                    let rot = &mut spring[dof + 3..dof + 6];
                    ball_spring(&s.qpos[qadr + 3..qadr + 7], &reference[3..7], stiffness, poly, rot);
                }
                jnt::BALL => {
                    let quat = &s.qpos[qadr..qadr + 4];
                    ball_spring(quat, &reference[..4], stiffness, poly, &mut spring[dof..dof + 3]);
                }
                _ => {}
            }
        }
    }
}

/// `b + p0 |v| + p1 v^2` times `-v`, summed as the library does.
fn damper_force(v: f64, b: f64, poly: &[f64; 2]) -> f64 {
    let f = poly[0] * v.abs() + b;
    let f = (v * v) * poly[1] + f;
    f * -v
}

/// The joint dampers into `damper` (`nv`, zeroed): each dof with a non-zero coefficient, its
/// own plus its joint's actuators'.
fn joint_dampers(m: &PassiveModel, s: &PassiveState, damper: &mut [f64]) {
    for i in 0..m.dof_jntid.len() {
        let mut poly = [m.dof_dampingpoly[2 * i], m.dof_dampingpoly[2 * i + 1]];
        let damping = m.dof_damping[i];
        let b = actuator_damping(m, DampedObject::Joint, m.dof_jntid[i] as usize, &mut poly) + damping;
        if b == 0.0 && poly[0] == 0.0 && poly[1] == 0.0 {
            continue;
        }
        damper[i] = damper_force(s.qvel[i], b, &poly);
    }
}

/// One tendon's spring and damper forces along its length (`mj_tendonSpringDamper`): the
/// spring acts outside the rest range only.
pub fn tendon_spring_damper(m: &PassiveModel, s: &PassiveState, t: usize) -> (f64, f64) {
    let (mut spring, mut damper) = (0.0, 0.0);
    if !m.disable_spring {
        let stiffness = m.tendon_stiffness[t];
        let poly = &m.tendon_stiffnesspoly[2 * t..2 * t + 2];
        if !(stiffness == 0.0 && poly[0] == 0.0 && poly[1] == 0.0) {
            let length = s.ten_length[t];
            let range = match m.tendon_plasticadr[t] {
                adr if adr >= 0 => &s.plastic[adr as usize..adr as usize + 2],
                _ => &m.tendon_lengthspring[2 * t..2 * t + 2],
            };
            // NaN is inside the range: no stretch
            let dif = if length > range[1] {
                length - range[1]
            } else if length < range[0] {
                length - range[0]
            } else {
                0.0
            };
            spring = polynomial(dif, stiffness, poly) * -dif;
        }
    }
    if !m.disable_damper {
        let mut poly = [m.tendon_dampingpoly[2 * t], m.tendon_dampingpoly[2 * t + 1]];
        let b = m.tendon_damping[t] + actuator_damping(m, DampedObject::Tendon, t, &mut poly);
        if !(b == 0.0 && poly[0] == 0.0 && poly[1] == 0.0) {
            damper = damper_force(s.ten_velocity[t], b, &poly);
        }
    }
    (spring, damper)
}

/// The tendon forces through each tendon's Jacobian row into `spring` and `damper` (`nv`), for
/// tendons with either force non-zero (NaN counts).
fn tendon_forces(m: &PassiveModel, s: &PassiveState, spring: &mut [f64], damper: &mut [f64]) {
    for t in 0..m.tendon_stiffness.len() {
        let (fs, fd) = tendon_spring_damper(m, s, t);
        if fs == 0.0 && fd == 0.0 {
            continue;
        }
        let adr = m.ten_j_rowadr[t].max(0) as usize;
        for k in adr..adr + m.ten_j_rownnz[t].max(0) as usize {
            let (j, col) = (s.ten_j[k], m.ten_j_colind[k] as usize);
            spring[col] = j * fs + spring[col];
            damper[col] = j * fd + damper[col];
        }
    }
}

/// Joint springs and dampers and tendon springs and dampers into `spring` and `damper` (`nv`,
/// zeroed), as `mj_springdamper` adds them for a model without flexes.
pub fn spring_damper(m: &PassiveModel, s: &PassiveState, spring: &mut [f64], damper: &mut [f64]) {
    if !m.disable_spring {
        joint_springs(m, s, spring);
    }
    if !m.disable_damper {
        joint_dampers(m, s, damper);
    }
    tendon_forces(m, s, spring, damper);
}

/// Writes every array of `out` (`mj_passive` on a model with no flex, effective metric,
/// callback or plugin, every tree awake): all six zeroed; unless both springs and dampers are
/// disabled, the springs and dampers, gravity compensation, fluid forces and adhesion, and
/// `qfrc_passive` = spring + damper, plus the fluid forces when the fluid models ran, plus
/// adhesion when it ran, plus gravity compensation (when any body has it) on dofs whose joint
/// does not take it through its actuators.
pub fn passive(m: &PassiveModel, s: &PassiveState, out: &mut PassiveForces, scratch: &mut PassiveScratch) {
    let nv = m.dof_jntid.len();
    for a in [
        &mut *out.qfrc_spring,
        &mut *out.qfrc_damper,
        &mut *out.qfrc_gravcomp,
        &mut *out.qfrc_fluid,
        &mut *out.qfrc_adhesion,
        &mut *out.qfrc_passive,
    ] {
        a[..nv].fill(0.0);
    }
    if m.disable_spring && m.disable_damper {
        return;
    }
    spring_damper(m, s, out.qfrc_spring, out.qfrc_damper);
    let has_gravcomp = gravcomp(&m.body, &s.body, &mut scratch.ft, out.qfrc_gravcomp);
    let has_fluid = fluid_forces(&m.body, &s.body, &mut scratch.ft, out.qfrc_fluid);
    let flags = (m.flg_adhesion, m.body.sparse);
    let has_adhesion = adhesion(&m.contact, flags, &s.body.jac, s.contacts, &mut scratch.adhesion, out.qfrc_adhesion);
    let p = &mut out.qfrc_passive[..nv];
    for ((p, &fs), &fd) in p.iter_mut().zip(&out.qfrc_spring[..nv]).zip(&out.qfrc_damper[..nv]) {
        *p = fs + fd;
    }
    if has_fluid {
        for (p, &f) in p.iter_mut().zip(&out.qfrc_fluid[..nv]) {
            *p = f + *p;
        }
    }
    if has_adhesion {
        for (p, &f) in p.iter_mut().zip(&out.qfrc_adhesion[..nv]) {
            *p = f + *p;
        }
    }
    if has_gravcomp {
        for (i, (p, &g)) in p.iter_mut().zip(&out.qfrc_gravcomp[..nv]).enumerate() {
            if m.body.jnt_actgravcomp[m.dof_jntid[i] as usize] == 0 {
                *p = g + *p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`passive`] and returns spring, damper and passive.
    fn run(m: &PassiveModel, s: &PassiveState) -> [Vec<f64>; 3] {
        let nv = m.dof_jntid.len();
        let mut a: [Vec<f64>; 6] = std::array::from_fn(|_| vec![f64::NAN; nv]);
        let [sp, da, gc, fl, ad, pa] = &mut a;
        let mut out = PassiveForces {
            qfrc_spring: sp,
            qfrc_damper: da,
            qfrc_gravcomp: gc,
            qfrc_fluid: fl,
            qfrc_adhesion: ad,
            qfrc_passive: pa,
        };
        passive(m, s, &mut out, &mut PassiveScratch::default());
        assert!(a[2..5].iter().all(|v| v.iter().all(|&x| x.to_bits() == 0)));
        let [sp, da, _, _, _, pa] = a;
        [sp, da, pa]
    }

    /// One body with one joint of `jtype` (hinge when 3), stiffness `k`, damping `b`.
    fn one_joint(jtype: i32, nq: usize, nv: usize) -> PassiveModel<'static> {
        let leak_f = |v: Vec<f64>| -> &'static [f64] { Vec::leak(v) };
        let leak_i = |v: Vec<i32>| -> &'static [i32] { Vec::leak(v) };
        PassiveModel {
            body_jntnum: &[0, 1],
            body_jntadr: &[-1, 0],
            jnt_type: leak_i(vec![jtype]),
            jnt_qposadr: &[0],
            jnt_dofadr: &[0],
            jnt_plasticadr: &[-1],
            jnt_actuatorid: &[-1],
            jnt_stiffness: &[2.0],
            jnt_stiffnesspoly: &[0.0, 0.0],
            qpos_spring: leak_f(match nq {
                1 => vec![0.5],
                4 => vec![1.0, 0.0, 0.0, 0.0],
                _ => vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            }),
            dof_jntid: leak_i(vec![0; nv]),
            dof_damping: leak_f(vec![3.0; nv]),
            dof_dampingpoly: leak_f(vec![0.0; 2 * nv]),
            ..PassiveModel::default()
        }
    }

    #[test]
    fn hinge_spring_and_damper() {
        let m = one_joint(jnt::HINGE, 1, 1);
        let s = PassiveState { qpos: &[1.5], qvel: &[-2.0], ..PassiveState::default() };
        let [sp, da, pa] = run(&m, &s);
        assert_eq!((sp[0], da[0], pa[0]), (-2.0, 6.0, 4.0));
    }

    #[test]
    fn both_disabled_only_zeroes() {
        let m = PassiveModel { disable_spring: true, disable_damper: true, ..one_joint(jnt::HINGE, 1, 1) };
        let s = PassiveState { qpos: &[1.5], qvel: &[-2.0], ..PassiveState::default() };
        let [sp, da, pa] = run(&m, &s);
        assert!([sp[0], da[0], pa[0]].iter().all(|x| x.to_bits() == 0));
    }

    #[test]
    fn ball_spring_is_minus_stiffness_times_rotation() {
        let m = one_joint(jnt::BALL, 4, 3);
        let h = 0.25f64;
        let q = [h.cos(), 0.0, 0.0, h.sin()];
        let s = PassiveState { qpos: &q, qvel: &[0.0; 3], ..PassiveState::default() };
        let [sp, _, _] = run(&m, &s);
        assert!((sp[2] + 2.0 * 0.5).abs() < 1e-12 && sp[0] == 0.0 && sp[1] == 0.0);
    }

    #[test]
    fn free_joint_and_odd_values_do_not_panic() {
        let m = one_joint(jnt::FREE, 7, 6);
        for v in [f64::NAN, f64::INFINITY, -f64::INFINITY, 0.0, -0.0, 1e300, -1e-300] {
            let q = [v, 1.0, -v, v, 0.0, v, 0.0];
            let s = PassiveState { qpos: &q, qvel: &[v; 6], ..PassiveState::default() };
            let _ = run(&m, &s);
        }
    }

    #[test]
    fn actuators_add_gear_squared_damping() {
        let m = PassiveModel {
            jnt_actuatorid: &[-2],
            actuator_trntype: &[0, 3, 1],
            actuator_trnid: &[0, -1, 0, -1, 0, -1],
            actuator_outadr: &[0, 1, 2],
            actuator_gear: &[2.0, 0., 0., 0., 0., 0., 5.0, 0., 0., 0., 0., 0., 3.0, 0., 0., 0., 0., 0.],
            actuator_damping: &[1.0, 1.0, 1.0],
            actuator_dampingpoly: &[1.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            ..one_joint(jnt::HINGE, 1, 1)
        };
        let mut poly = [0.0; 2];
        assert_eq!(actuator_damping(&m, DampedObject::Joint, 0, &mut poly), 13.0);
        assert_eq!(poly, [4.0, 9.0]);
    }
}
