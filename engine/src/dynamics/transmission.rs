//! `mj_transmission` for joint transmissions: actuator lengths and the sparse actuator moments
//! (`moment_rownnz`, `moment_rowadr`, `moment_colind`, `actuator_moment`), as MuJoCo 4.0.0
//! computes them for hinge, slide, ball and free joints, in the joint's frame or its parent's
//! (`docs/measurements.md`, "Dynamics stages").

use super::actuation::{dof_count, ActuatorModel};
use super::jnt;
use crate::math::{normalize4, MINVAL, PI};

/// `mjTRN_JOINT`: the gear is in the joint's frame (`mjTRN_JOINTINPARENT` rotates it).
const TRN_JOINT: i32 = 0;
/// `mjTRN_JOINTINPARENT`.
const TRN_JOINTINPARENT: i32 = 1;

/// The arrays `mj_transmission` writes.
#[derive(Debug)]
pub struct TransmissionOutput<'a> {
    /// Length of each force output (`nout`).
    pub actuator_length: &'a mut [f64],
    /// Non-zeros of each moment row (`nout`).
    pub moment_rownnz: &'a mut [i32],
    /// Start of each moment row (`nout`).
    pub moment_rowadr: &'a mut [i32],
    /// Dof of each moment non-zero (`nJmom`).
    pub moment_colind: &'a mut [i32],
    /// Moment non-zeros (`nJmom`).
    pub actuator_moment: &'a mut [f64],
}

/// Position coordinates of a joint type.
fn qpos_count(jnt_type: i32) -> i32 {
    match jnt_type {
        jnt::FREE => 7,
        jnt::BALL => 4,
        _ => 1,
    }
}

/// Whether `mj_transmission` can run here for this model: every actuator has a joint
/// transmission (in the joint's frame or its parent's) on a valid joint, a single force output
/// with outputs numbered as actuators, and the moment rows fit in `nJmom`.
pub fn transmission_in_scope(m: &ActuatorModel) -> bool {
    let nact = m.nactuator();
    if nact > 0 && m.nout != nact {
        return false;
    }
    let mut adr: i64 = 0;
    for i in 0..nact {
        let id = m.actuator_trnid[2 * i];
        if !matches!(m.actuator_trntype[i], TRN_JOINT | TRN_JOINTINPARENT)
            || m.actuator_outnum[i] != 1
            || m.actuator_outadr[i] != i as i32
            || id < 0
            || id as usize >= m.njnt()
        {
            return false;
        }
        let j = id as usize;
        let Some(nnz) = dof_count(m.jnt_type[j]) else { return false };
        let (qadr, dadr) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
        if qadr < 0
            || qadr as i64 + qpos_count(m.jnt_type[j]) as i64 > m.nq as i64
            || dadr < 0
            || dadr as i64 + nnz as i64 > m.nv as i64
        {
            return false;
        }
        adr += nnz as i64;
    }
    adr <= m.njmom as i64
}

/// The rotation by unit quaternion `q` of `v`, in the inlined form `mj_transmission` uses: the
/// identity quaternion copies `v`, anything else (a zero `v` included) goes through
/// (`mj_kinematics` inlines the same form, `docs/measurements.md` K2)
/// `v + 2 q_xyz x (w v + q_xyz x v)`.
pub(crate) fn rotate(v: [f64; 3], q: [f64; 4]) -> [f64; 3] {
    #[allow(clippy::float_cmp)]
    if q[0] == 1.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0 {
        return v;
    }
    let t = [
        (q[0] * v[0] + q[2] * v[2]) - q[3] * v[1],
        (q[0] * v[1] + q[3] * v[0]) - q[1] * v[2],
        (q[0] * v[2] + q[1] * v[1]) - q[2] * v[0],
    ];
    let twice = |x: f64| x + x;
    [
        twice(q[2] * t[2] - q[3] * t[1]) + v[0],
        twice(q[3] * t[0] - q[1] * t[2]) + v[1],
        twice(q[1] * t[1] - q[2] * t[0]) + v[2],
    ]
}

/// The rotation vector (axis times angle, the angle in `(-pi, pi]` for angles up to `2 pi`) of a
/// unit quaternion (`mju_quat2Vel` over a unit time step).
fn rotation_vector(q: [f64; 4]) -> [f64; 3] {
    let sin_half = ((q[1] * q[1] + q[2] * q[2]) + q[3] * q[3]).sqrt();
    let inv = 1.0 / sin_half;
    let tiny = MINVAL > sin_half;
    let axis = if tiny { [1.0, 0.0, 0.0] } else { [q[1] * inv, q[2] * inv, q[3] * inv] };
    let half = sin_half.atan2(q[0]);
    let mut angle = half + half;
    if PI < angle {
        angle += -2.0 * PI;
    }
    [angle * axis[0], angle * axis[1], angle * axis[2]]
}

/// The quaternion at `qpos[adr..adr + 4]`, normalised as `mju_normalize4` does.
pub(crate) fn unit_quat(qpos: &[f64], adr: usize) -> [f64; 4] {
    let mut q = [qpos[adr], qpos[adr + 1], qpos[adr + 2], qpos[adr + 3]];
    normalize4(&mut q);
    q
}

/// The quaternion's conjugate (`mju_negQuat`).
fn conjugate(q: [f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Writes the lengths and moments of a model [`transmission_in_scope`] accepts, all actuators
/// awake, from the joint positions `qpos`.
pub fn transmission(m: &ActuatorModel, qpos: &[f64], out: &mut TransmissionOutput) {
    for i in 0..m.nactuator() {
        let k = m.actuator_outadr[i] as usize;
        // each row starts where the previous output's ended
        let adr = if k == 0 { 0 } else { out.moment_rownnz[k - 1].wrapping_add(out.moment_rowadr[k - 1]) };
        out.moment_rowadr[k] = adr;
        let adr = adr as usize;
        let j = m.actuator_trnid[2 * i] as usize;
        let in_parent = m.actuator_trntype[i] == TRN_JOINTINPARENT;
        let gear = &m.actuator_gear[6 * k..6 * k + 6];
        let (qadr, dofadr) = (m.jnt_qposadr[j] as usize, m.jnt_dofadr[j]);
        match m.jnt_type[j] {
            jnt::SLIDE | jnt::HINGE => {
                out.moment_rownnz[k] = 1;
                out.moment_colind[adr] = dofadr;
                out.actuator_length[k] = qpos[qadr] * gear[0];
                out.actuator_moment[adr] = gear[0];
            }
            jnt::BALL => {
                let q = unit_quat(qpos, qadr);
                let axis = rotation_vector(q);
                let g = [gear[0], gear[1], gear[2]];
                let g = if in_parent { rotate(g, conjugate(q)) } else { g };
                out.actuator_length[k] = (axis[0] * g[0] + axis[1] * g[1]) + axis[2] * g[2];
                for (c, d) in out.moment_colind[adr..adr + 3].iter_mut().zip(0..) {
                    *c = dofadr + d;
                }
                out.moment_rownnz[k] = 3;
                out.actuator_moment[adr..adr + 3].copy_from_slice(&g);
            }
            _ => {
                // a free joint has no meaningful length
                out.actuator_length[k] = 0.0;
                let g = [gear[3], gear[4], gear[5]];
                let g = if in_parent { rotate(g, conjugate(unit_quat(qpos, qadr + 3))) } else { g };
                for (c, d) in out.moment_colind[adr..adr + 6].iter_mut().zip(0..) {
                    *c = dofadr + d;
                }
                out.moment_rownnz[k] = 6;
                out.actuator_moment[adr..adr + 3].copy_from_slice(&gear[0..3]);
                out.actuator_moment[adr + 3..adr + 6].copy_from_slice(&g);
            }
        }
    }
}
