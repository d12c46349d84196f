//! `mj_transmission`: actuator lengths and the sparse actuator moments (`moment_rownnz`,
//! `moment_rowadr`, `moment_colind`, `actuator_moment`), as MuJoCo 4.0.0 computes them for
//! hinge, slide, ball and free joints (in the joint's frame or its parent's), tendons, sites
//! (with or without a reference site), slider-cranks (`docs/measurements.md`, "Dynamics
//! stages", D60) and bodies (adhesion, D77).

use super::actuation::{dof_count, ActuatorModel};
use super::jnt;
use super::transmission_body::{body_in_scope, body_row, BodyModel, BodyScratch, BodyState};
use super::transmission_site::{
    chain, site_row, site_row_bound, slider_crank_row, slider_crank_row_bound, SiteModel, SiteScratch, SiteState,
};
use crate::math::{normalize4, MINVAL, PI};

/// `mjTRN_JOINT`: the gear is in the joint's frame (`mjTRN_JOINTINPARENT` rotates it).
const TRN_JOINT: i32 = 0;
/// `mjTRN_JOINTINPARENT`.
const TRN_JOINTINPARENT: i32 = 1;
/// `mjTRN_SLIDERCRANK`.
const TRN_SLIDERCRANK: i32 = 2;
/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;
/// `mjTRN_SITE`.
const TRN_SITE: i32 = 4;
/// `mjTRN_BODY`.
const TRN_BODY: i32 = 5;

/// The model arrays `mj_transmission` reads besides the actuator view: the tendon Jacobians'
/// sparsity and the site rows' model (all empty: joint transmissions only).
#[derive(Clone, Copy, Debug, Default)]
pub struct TransmissionModel<'a> {
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// Start of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each tendon Jacobian non-zero (`nJten`).
    pub ten_j_colind: &'a [i32],
    /// Number of sites.
    pub nsite: usize,
    /// The site rows' model.
    pub site: SiteModel<'a>,
    /// The body rows' model.
    pub body: BodyModel<'a>,
}

/// The state `mj_transmission` reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct TransmissionState<'a> {
    /// Joint positions.
    pub qpos: &'a [f64],
    /// Tendon lengths (`ntendon`).
    pub ten_length: &'a [f64],
    /// Tendon Jacobian non-zeros (`nJten`).
    pub ten_j: &'a [f64],
    /// The site rows' state.
    pub site: SiteState<'a>,
    /// The body rows' state.
    pub body: BodyState<'a>,
}

/// Scratch of `mj_transmission` (reused call to call).
#[derive(Clone, Debug, Default)]
pub struct TransmissionScratch {
    site: SiteScratch,
    body: BodyScratch,
}

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

/// Whether `mj_transmission` can run here for this model with joint transmissions only (see
/// [`transmission_in_scope_with`]).
pub fn transmission_in_scope(m: &ActuatorModel) -> bool {
    transmission_in_scope_with(m, &TransmissionModel::default(), &mut TransmissionScratch::default())
}

/// The most non-zeros the moment row of actuator `i` (a tendon, site or slider-crank
/// transmission) can have, `None` when its target is not valid.
fn row_bound(m: &ActuatorModel, tm: &TransmissionModel, s: &mut TransmissionScratch, i: usize) -> Option<i64> {
    let (id, id2) = (m.actuator_trnid[2 * i], m.actuator_trnid[2 * i + 1]);
    let site_ok = |k: i32| k >= 0 && (k as usize) < tm.nsite;
    s.site.resize(m.nv);
    match m.actuator_trntype[i] {
        TRN_TENDON => {
            let t = usize::try_from(id).ok().filter(|&t| t < tm.ten_j_rownnz.len())?;
            let (n, a) = (tm.ten_j_rownnz[t] as i64, tm.ten_j_rowadr[t] as i64);
            (n >= 0 && a >= 0 && a + n <= tm.ten_j_colind.len() as i64).then_some(n)
        }
        TRN_SITE if site_ok(id) && (id2 == -1 || site_ok(id2)) => {
            Some(site_row_bound(&tm.site, chain(&mut s.site), id as usize, id2) as i64)
        }
        TRN_SLIDERCRANK if site_ok(id) && site_ok(id2) && i < tm.site.actuator_cranklength.len() => {
            Some(slider_crank_row_bound(&tm.site, chain(&mut s.site), id as usize, id2 as usize) as i64)
        }
        // a body row is at most every dof
        TRN_BODY if body_in_scope(&tm.body, id) => Some(m.nv as i64),
        _ => None,
    }
}

/// Whether `mj_transmission` can run here for this model: every actuator has a joint
/// transmission (in the joint's frame or its parent's) on a valid joint, or a tendon, site,
/// slider-crank or body one on valid targets that `tm` describes, a single force output with outputs
/// numbered as actuators, and the moment rows fit in `nJmom`.
pub fn transmission_in_scope_with(m: &ActuatorModel, tm: &TransmissionModel, s: &mut TransmissionScratch) -> bool {
    let nact = m.nactuator();
    if nact > 0 && m.nout != nact {
        return false;
    }
    let mut adr: i64 = 0;
    for i in 0..nact {
        let id = m.actuator_trnid[2 * i];
        if m.actuator_outnum[i] != 1 || m.actuator_outadr[i] != i as i32 {
            return false;
        }
        if !matches!(m.actuator_trntype[i], TRN_JOINT | TRN_JOINTINPARENT) {
            let Some(n) = row_bound(m, tm, s, i) else { return false };
            adr += n;
            continue;
        }
        if id < 0 || id as usize >= m.njnt() {
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
pub(crate) fn rotation_vector(q: [f64; 4]) -> [f64; 3] {
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
    let st = TransmissionState { qpos, ..TransmissionState::default() };
    transmission_with(m, &TransmissionModel::default(), &st, &mut TransmissionScratch::default(), out);
}

/// Writes the lengths and moments of a model [`transmission_in_scope_with`] accepts, all
/// actuators awake, from the state `st` (positions, tendons and sites computed).
pub fn transmission_with(
    m: &ActuatorModel,
    tm: &TransmissionModel,
    st: &TransmissionState,
    s: &mut TransmissionScratch,
    out: &mut TransmissionOutput,
) {
    let qpos = st.qpos;
    for i in 0..m.nactuator() {
        let k = m.actuator_outadr[i] as usize;
        // each row starts where the previous output's ended
        let adr = if k == 0 { 0 } else { out.moment_rownnz[k - 1].wrapping_add(out.moment_rowadr[k - 1]) };
        out.moment_rowadr[k] = adr;
        let adr = adr as usize;
        let gear = &m.actuator_gear[6 * k..6 * k + 6];
        let (id, id2) = (m.actuator_trnid[2 * i] as usize, m.actuator_trnid[2 * i + 1]);
        match m.actuator_trntype[i] {
            TRN_TENDON => {
                out.actuator_length[k] = st.ten_length[id] * gear[0];
                let (n, a) = (tm.ten_j_rownnz[id] as usize, tm.ten_j_rowadr[id] as usize);
                out.moment_rownnz[k] = n as i32;
                out.moment_colind[adr..adr + n].copy_from_slice(&tm.ten_j_colind[a..a + n]);
                for (o, &j) in out.actuator_moment[adr..adr + n].iter_mut().zip(&st.ten_j[a..a + n]) {
                    *o = j * gear[0];
                }
                continue;
            }
            TRN_SITE => {
                s.site.resize(m.nv);
                let (len, n) = site_row(
                    &tm.site,
                    &st.site,
                    &mut s.site,
                    id,
                    id2,
                    gear,
                    out.actuator_moment,
                    out.moment_colind,
                    adr,
                );
                (out.actuator_length[k], out.moment_rownnz[k]) = (len, n);
                continue;
            }
            TRN_SLIDERCRANK => {
                s.site.resize(m.nv);
                let rod = tm.site.actuator_cranklength[i];
                let (len, n) = slider_crank_row(
                    &tm.site,
                    &st.site,
                    &mut s.site,
                    id,
                    id2 as usize,
                    rod,
                    gear[0],
                    out.actuator_moment,
                    out.moment_colind,
                    adr,
                );
                (out.actuator_length[k], out.moment_rownnz[k]) = (len, n);
                continue;
            }
            TRN_BODY => {
                let n = body_row(
                    &tm.body,
                    &tm.site.jac,
                    &st.site.jac,
                    &st.body,
                    &mut s.body,
                    id,
                    out.actuator_moment,
                    out.moment_colind,
                    adr,
                );
                (out.actuator_length[k], out.moment_rownnz[k]) = (0.0, n);
                continue;
            }
            _ => {}
        }
        let j = id;
        let in_parent = m.actuator_trntype[i] == TRN_JOINTINPARENT;
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
