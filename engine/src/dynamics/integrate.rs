//! `mj_EulerSkip`: the semi-implicit Euler step, implicit in the joint damping, and the advance
//! that ends every integrator (activations, velocities, positions, time, warm start), as MuJoCo
//! 4.0.0 computes them (`docs/measurements.md` K4 to K7).
//!
//! Algorithm:
//! 1. With damping (some dof has `dof_damping > 0`, a polynomial damping term, or an actuator on
//!    its joint) and the damper and Euler-damping flags on: `qH = M + h B` with `B` the diagonal
//!    of each dof's damping linearised at its velocity, factorised as `M` is (`mj_factorI`), unless
//!    the caller asks to reuse the last factor; then `qacc = qH^-1 (qfrc_smooth +
//!    qfrc_constraint)`. Without damping `qacc` is the forward pass's.
//! 2. Advance: each activation moves by its rate (exactly for `filterexact`) and is clamped to its
//!    range; `qvel += h qacc`; `qpos` integrates `qvel` over `h` (quaternions on the sphere);
//!    `time += h`; `qacc_warmstart = qacc` (the forward pass's acceleration).

use super::actuation::{next_activation, ActuatorModel};
use super::jnt::{BALL, FREE};
use super::passive::{actuator_damping, DampedObject, PassiveModel};
use super::{factor_i, solve_ld, TreeModel};
use crate::math::{normalize4, MINVAL};

/// `mjDSBL_DAMPER | mjDSBL_EULERDAMP`: either flag turns the implicit damping off.
const NO_IMPLICIT_DAMPING: i32 = 64 | 32768;
/// `mjDSBL_ACTUATION`.
const DSBL_ACTUATION: i32 = 2048;

/// The model arrays the integrators read besides the mass-matrix, damping and actuator views.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntegratorModel<'a> {
    /// Time step.
    pub timestep: f64,
    /// `mjOption.disableflags`.
    pub disableflags: i32,
    /// Number of joints of each body.
    pub body_jntnum: &'a [i32],
    /// First joint of each body.
    pub body_jntadr: &'a [i32],
    /// Type of each joint.
    pub jnt_type: &'a [i32],
    /// First `qpos` entry of each joint.
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint.
    pub jnt_dofadr: &'a [i32],
    /// Joint of each dof.
    pub dof_jntid: &'a [i32],
    /// Linear damping of each dof.
    pub dof_damping: &'a [f64],
    /// Polynomial damping of each dof (`2 nv`).
    pub dof_dampingpoly: &'a [f64],
    /// Non-zeros of each row of the velocity derivative `qDeriv` (`nv`).
    pub d_rownnz: &'a [i32],
    /// Start of each row of `qDeriv` (`nv`).
    pub d_rowadr: &'a [i32],
    /// Column of each non-zero of `qDeriv` (`nD`).
    pub d_colind: &'a [i32],
    /// Position of the diagonal in each row of `qDeriv` (`nv`).
    pub d_diag: &'a [i32],
    /// Element of `qDeriv` for each element of `M` (`nC`; empty when the two coincide).
    pub map_d2m: &'a [i32],
}

/// The state an Euler step reads and writes (MuJoCo's arrays).
#[derive(Debug)]
pub struct EulerState<'a> {
    /// Joint-space inertia (`nC`), read.
    pub mass: &'a [f64],
    /// Smooth and constraint forces (`nv` each), read.
    pub qfrc_smooth: &'a [f64],
    /// Constraint forces (`nv`), read.
    pub qfrc_constraint: &'a [f64],
    /// Forward acceleration (`nv`), read.
    pub qacc: &'a [f64],
    /// Activation rates (`na`), read.
    pub act_dot: &'a [f64],
    /// `M + h B` and its factor (`nC`), written when factorised.
    pub qh: &'a mut [f64],
    /// `1 / D` of that factor (`nv`).
    pub qh_diag_inv: &'a mut [f64],
    /// Activations (`na`).
    pub act: &'a mut [f64],
    /// Velocities (`nv`).
    pub qvel: &'a mut [f64],
    /// Positions (`nq`).
    pub qpos: &'a mut [f64],
    /// Simulation time.
    pub time: &'a mut f64,
    /// Warm start of the next step's solver (`nv`).
    pub qacc_warmstart: &'a mut [f64],
}

/// Whether the Euler step is implicit in damping: flags on and some dof damped (K4).
pub fn euler_damped(im: &IntegratorModel, jnt_actuatorid: &[i32]) -> bool {
    if im.disableflags & NO_IMPLICIT_DAMPING != 0 {
        return false;
    }
    (0..im.dof_damping.len()).any(|i| {
        // `> 0` for the linear term (NaN is not damping), `!= 0` for the polynomial (NaN is)
        im.dof_damping[i] > 0.0
            || im.dof_dampingpoly[2 * i] != 0.0
            || im.dof_dampingpoly[2 * i + 1] != 0.0
            || jnt_actuatorid[im.dof_jntid[i] as usize] != -1
    })
}

/// `mj_EulerSkip` on all dofs (sleep off). `qacc` is scratch of `nv` entries for the
/// acceleration it integrates; `skipfactor` reuses the `qH` factor already in the state. Returns
/// the dof of a near-singular pivot of `qH` (MuJoCo's `mjWARN_INERTIA`).
pub fn euler(
    tm: &TreeModel,
    pm: &PassiveModel,
    am: &ActuatorModel,
    im: &IntegratorModel,
    skipfactor: bool,
    s: &mut EulerState,
    qacc: &mut [f64],
) -> Option<usize> {
    let nv = tm.nv();
    let mut singular = None;
    if euler_damped(im, pm.jnt_actuatorid) {
        if !skipfactor {
            let nc = tm.nc();
            s.qh[..nc].copy_from_slice(&s.mass[..nc]);
            for i in 0..nv {
                let v = s.qvel[i];
                let mut poly = [im.dof_dampingpoly[2 * i], im.dof_dampingpoly[2 * i + 1]];
                let act = actuator_damping(pm, DampedObject::Joint, im.dof_jntid[i] as usize, &mut poly);
                // the damping force's derivative in the velocity: b + 2 p0 |v| + 3 p1 v^2
                let b = 3.0 * poly[1] * (v * v) + ((poly[0] + poly[0]) * v.abs() + (act + im.dof_damping[i]));
                let diag = (tm.m_rowadr[i] + tm.m_rownnz[i] - 1) as usize;
                s.qh[diag] += b * im.timestep;
            }
            singular = factor_i(&mut s.qh[..nc], &mut s.qh_diag_inv[..nv], tm.m_rownnz, tm.m_rowadr, tm.m_colind);
        }
        for ((q, &a), &b) in qacc[..nv].iter_mut().zip(s.qfrc_smooth).zip(s.qfrc_constraint) {
            *q = a + b;
        }
        solve_ld(&mut qacc[..nv], s.qh, s.qh_diag_inv, tm.m_rownnz, tm.m_rowadr, tm.m_colind);
    } else {
        qacc[..nv].copy_from_slice(&s.qacc[..nv]);
    }
    advance(tm, am, im, s, &qacc[..nv]);
    singular
}

/// The end of every integrator step (the library's local `advance` without history buffers,
/// plugins, plasticity or sleep, K5): activations, `qvel += h qacc`, positions, time, warm start.
pub fn advance(tm: &TreeModel, am: &ActuatorModel, im: &IntegratorModel, s: &mut EulerState, qacc: &[f64]) {
    advance_with(tm, am, im, s, qacc, None);
}

/// [`advance`] with the positions integrated by `pos_vel` rather than the updated `qvel` when
/// given (RK4 passes its weighted sum of stage velocities, K9).
pub fn advance_with(
    tm: &TreeModel,
    am: &ActuatorModel,
    im: &IntegratorModel,
    s: &mut EulerState,
    qacc: &[f64],
    pos_vel: Option<&[f64]>,
) {
    let h = im.timestep;
    if !s.act.is_empty() && im.disableflags & DSBL_ACTUATION == 0 {
        for a in 0..am.actuator_actnum.len() {
            let adr = am.actuator_actadr[a].max(0) as usize;
            let group = am.actuator_group[a];
            let off = (0..=30).contains(&group) && am.disableactuator & (1 << group) != 0;
            for j in adr..adr + am.actuator_actnum[a].max(0) as usize {
                let rate = if off { 0.0 } else { s.act_dot[j] };
                s.act[j] = next_activation(am, s.act, a, j, rate);
            }
        }
    }
    for (v, &a) in s.qvel.iter_mut().zip(qacc) {
        *v += a * h;
    }
    integrate_pos(im, s.qpos, pos_vel.unwrap_or(s.qvel), h);
    *s.time += h;
    s.qacc_warmstart.copy_from_slice(&s.qacc[..tm.nv()]);
}

/// `qpos` moved by `qvel` over `h` for every joint (`mj_integratePos`, K7): hinges and slides
/// add; a ball's quaternion, normalised, is turned by the rotation `h qvel`; a free joint moves
/// its position, then turns as a ball.
pub fn integrate_pos(im: &IntegratorModel, qpos: &mut [f64], qvel: &[f64], h: f64) {
    for b in 1..im.body_jntnum.len() {
        let adr = im.body_jntadr[b].max(0) as usize;
        for j in adr..adr + im.body_jntnum[b].max(0) as usize {
            let (mut qa, mut da) = (im.jnt_qposadr[j] as usize, im.jnt_dofadr[j] as usize);
            let t = im.jnt_type[j];
            if t != FREE && t != BALL {
                qpos[qa] += h * qvel[da];
                continue;
            }
            if t == FREE {
                for k in 0..3 {
                    qpos[qa + k] += h * qvel[da + k];
                }
                (qa, da) = (qa + 3, da + 3);
            }
            let rot = rotation(&qvel[da..da + 3], h);
            let mut q = [qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]];
            normalize4(&mut q);
            qpos[qa..qa + 4].copy_from_slice(&crate::math::mul_quat(&q, &rot));
        }
    }
}

/// The quaternion of the rotation by angular velocity `w` over `h` (the library's inlined form:
/// the identity for a zero angle, the axis `(1, 0, 0)` for a velocity shorter than `mjMINVAL`,
/// otherwise `w` times `1 / |w|` without `mju_normalize3`'s near-unit shortcut).
fn rotation(w: &[f64], h: f64) -> [f64; 4] {
    let norm = ((w[0] * w[0] + w[1] * w[1]) + w[2] * w[2]).sqrt();
    let angle = h * norm;
    if angle == 0.0 {
        return [1.0, 0.0, 0.0, 0.0];
    }
    let inv = 1.0 / norm;
    let axis = if MINVAL > norm { [1.0, 0.0, 0.0] } else { [w[0] * inv, w[1] * inv, w[2] * inv] };
    let half = angle * 0.5;
    let (s, c) = (half.sin(), half.cos());
    [c, s * axis[0], s * axis[1], s * axis[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One body per joint type: free (7 qpos, 6 dofs), ball, slide, hinge.
    fn model<'a>(jnt_type: &'a [i32], qposadr: &'a [i32], dofadr: &'a [i32]) -> IntegratorModel<'a> {
        IntegratorModel {
            timestep: 0.5,
            body_jntnum: &[0, 1, 1, 1, 1],
            body_jntadr: &[-1, 0, 1, 2, 3],
            jnt_type,
            jnt_qposadr: qposadr,
            jnt_dofadr: dofadr,
            ..IntegratorModel::default()
        }
    }

    #[test]
    fn positions_integrate_per_joint_type_hand() {
        let m = model(&[FREE, BALL, 2, 3], &[0, 7, 11, 12], &[0, 6, 9, 10]);
        let mut qpos = [1.0, 2.0, 3.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.25, -1.0];
        // the free body translates by h v and turns by pi about z; the ball does not turn
        let qvel = [2.0, 0.0, -2.0, 0.0, 0.0, 2.0 * std::f64::consts::PI, 0.0, 0.0, 0.0, 4.0, 1.0];
        integrate_pos(&m, &mut qpos, &qvel, 0.5);
        assert_eq!(qpos[..3], [2.0, 2.0, 2.0]);
        // the stored quaternion (2, 0, 0, 0) is normalised first, then turned half a turn about z
        assert!((qpos[3]).abs() < 1e-15 && (qpos[6] - 1.0).abs() < 1e-15, "{qpos:?}");
        assert_eq!(qpos[7..11], [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(qpos[11..], [2.25, -0.5]);
    }
}
