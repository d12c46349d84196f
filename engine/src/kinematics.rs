//! Forward kinematics: world poses of bodies, joints, geoms and sites from `qpos`, as MuJoCo's
//! `mj_kinematics` defines them.
//!
//! Algorithm (bodies are stored parents first, so one pass suffices):
//! 1. The world body sits at the origin with identity orientation.
//! 2. A body whose only joint is free takes its pose straight from `qpos` (quaternion normalised).
//! 3. Any other body starts at its parent's pose composed with its own offset (`body_pos`,
//!    `body_quat`, or the mocap pose for mocap bodies); then each joint in order moves it: a slide
//!    translates along the joint axis by `qpos - qpos0`; a hinge rotates by `qpos - qpos0` about its
//!    axis, a ball by the normalised `qpos` quaternion, both about the joint anchor (the body is
//!    shifted so the anchor stays put).
//! 4. The body quaternion is normalised and turned into a matrix; inertial frames, geoms and sites
//!    are placed relative to their body, copying the body frame where the compiler found them to
//!    coincide (`*_sameframe`), exactly where MuJoCo copies instead of multiplying.
//!
//! The operations and their order follow MuJoCo's, so results agree to the last bit or nearly.

use specula_model::types::{JointType, SameFrame};
use specula_model::Model;

use crate::math::{
    add3, axis_angle2quat, cross, mul_mat_vec3, mul_quat, normalize4, quat2mat, rot_vec_quat, scl3, sub3, MINVAL,
};

/// World poses computed by [`kinematics`], in MuJoCo's `mjData` layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Poses {
    /// Body frame positions (`xpos`).
    pub xpos: Vec<[f64; 3]>,
    /// Body frame orientations (`xquat`).
    pub xquat: Vec<[f64; 4]>,
    /// Body frame orientations as matrices (`xmat`).
    pub xmat: Vec<[f64; 9]>,
    /// Body inertial frame positions (`xipos`).
    pub xipos: Vec<[f64; 3]>,
    /// Body inertial frame orientations (`ximat`).
    pub ximat: Vec<[f64; 9]>,
    /// Joint anchors (`xanchor`).
    pub xanchor: Vec<[f64; 3]>,
    /// Joint axes (`xaxis`).
    pub xaxis: Vec<[f64; 3]>,
    /// Geom positions (`geom_xpos`).
    pub geom_xpos: Vec<[f64; 3]>,
    /// Geom orientations (`geom_xmat`).
    pub geom_xmat: Vec<[f64; 9]>,
    /// Site positions (`site_xpos`).
    pub site_xpos: Vec<[f64; 3]>,
    /// Site orientations (`site_xmat`).
    pub site_xmat: Vec<[f64; 9]>,
}

const IDENTITY: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// Places a frame given relative to body `b` (MuJoCo's `mj_local2Global`).
fn local_to_global(p: &Poses, b: usize, pos: &[f64; 3], quat: &[f64; 4], same: SameFrame) -> ([f64; 3], [f64; 9]) {
    let xpos = match same {
        SameFrame::None | SameFrame::BodyRot | SameFrame::InertiaRot => {
            add3(&mul_mat_vec3(&p.xmat[b], pos), &p.xpos[b])
        }
        SameFrame::Body => p.xpos[b],
        SameFrame::Inertia => p.xipos[b],
    };
    let xmat = match same {
        SameFrame::None => quat2mat(&mul_quat(&p.xquat[b], quat)),
        SameFrame::Body | SameFrame::BodyRot => p.xmat[b],
        SameFrame::Inertia | SameFrame::InertiaRot => p.ximat[b],
    };
    (xpos, xmat)
}

/// Poses of the mocap bodies, in mocap order: positions and quaternions.
pub type MocapPoses<'a> = (&'a [[f64; 3]], &'a [[f64; 4]]);

/// Computes world poses for configuration `qpos` (length `nq`); `mocap` gives the mocap bodies'
/// poses, or `None` to use their model poses (as after `mj_resetData`).
pub fn kinematics(m: &Model, qpos: &[f64], mocap: Option<MocapPoses>) -> Poses {
    let mut p = Poses {
        xpos: vec![[0.0; 3]; m.nbody],
        xquat: vec![[1.0, 0.0, 0.0, 0.0]; m.nbody],
        xmat: vec![IDENTITY; m.nbody],
        xipos: vec![[0.0; 3]; m.nbody],
        ximat: vec![IDENTITY; m.nbody],
        xanchor: vec![[0.0; 3]; m.njnt],
        xaxis: vec![[0.0; 3]; m.njnt],
        geom_xpos: vec![[0.0; 3]; m.ngeom],
        geom_xmat: vec![IDENTITY; m.ngeom],
        site_xpos: vec![[0.0; 3]; m.nsite],
        site_xmat: vec![IDENTITY; m.nsite],
    };
    let q = |i: usize| qpos.get(i).copied().unwrap_or(0.0);
    for b in 1..m.nbody {
        let jntadr = m.body_jntadr[b].max(0) as usize;
        let jntnum = m.body_jntnum[b];
        let (mut xpos, mut xquat);
        if jntnum == 1 && m.jnt_type[jntadr] == JointType::Free {
            let a = m.jnt_qposadr[jntadr];
            xpos = [q(a), q(a + 1), q(a + 2)];
            xquat = [q(a + 3), q(a + 4), q(a + 5), q(a + 6)];
            normalize4(&mut xquat);
            p.xanchor[jntadr] = xpos;
            p.xaxis[jntadr] = m.jnt_axis[jntadr];
        } else {
            let parent = m.body_parentid[b];
            let (bpos, bquat) = match (m.body_mocapid[b], mocap) {
                (id, Some((mp, mq))) if id >= 0 => {
                    let mut quat = mq[id as usize];
                    normalize4(&mut quat);
                    (mp[id as usize], quat)
                }
                (id, None) if id >= 0 => {
                    let mut quat = m.body_quat[b];
                    normalize4(&mut quat);
                    (m.body_pos[b], quat)
                }
                _ => (m.body_pos[b], m.body_quat[b]),
            };
            if parent != 0 {
                xpos = add3(&mul_mat_vec3(&p.xmat[parent], &bpos), &p.xpos[parent]);
                xquat = mul_quat(&p.xquat[parent], &bquat);
            } else {
                xpos = bpos;
                xquat = bquat;
            }
            for j in jntadr..jntadr + jntnum {
                let a = m.jnt_qposadr[j];
                let xaxis = rot_vec_quat(&m.jnt_axis[j], &xquat);
                let xanchor = add3(&rot_vec_quat(&m.jnt_pos[j], &xquat), &xpos);
                match m.jnt_type[j] {
                    JointType::Slide => {
                        let s = q(a) - m.qpos0[a];
                        xpos = [xpos[0] + xaxis[0] * s, xpos[1] + xaxis[1] * s, xpos[2] + xaxis[2] * s];
                    }
                    JointType::Ball | JointType::Hinge => {
                        let qloc = if m.jnt_type[j] == JointType::Ball {
                            let mut l = [q(a), q(a + 1), q(a + 2), q(a + 3)];
                            normalize4(&mut l);
                            l
                        } else {
                            axis_angle2quat(&m.jnt_axis[j], q(a) - m.qpos0[a])
                        };
                        xquat = mul_quat(&xquat, &qloc);
                        // Keep the anchor fixed: the body origin moves around it. A rotation
                        // that is not finite moves it to NaN even at a zero offset, which the
                        // zero-vector shortcut of rot_vec_quat would hide (measured with 4.0.0:
                        // a hinge of axis "0 1 nan" or angle inf, a ball of quaternion NaN or
                        // inf: xpos NaN).
                        xpos = if xquat.iter().all(|c| c.is_finite()) {
                            sub3(&xanchor, &rot_vec_quat(&m.jnt_pos[j], &xquat))
                        } else {
                            [f64::NAN; 3]
                        };
                    }
                    // A free joint that is not the body's only joint cannot be compiled.
                    JointType::Free => {}
                }
                p.xanchor[j] = xanchor;
                p.xaxis[j] = xaxis;
            }
        }
        normalize4(&mut xquat);
        p.xquat[b] = xquat;
        p.xpos[b] = xpos;
        p.xmat[b] = quat2mat(&xquat);
    }
    for b in 1..m.nbody {
        (p.xipos[b], p.ximat[b]) = local_to_global(&p, b, &m.body_ipos[b], &m.body_iquat[b], m.body_sameframe[b]);
    }
    for g in 0..m.ngeom {
        (p.geom_xpos[g], p.geom_xmat[g]) =
            local_to_global(&p, m.geom_bodyid[g], &m.geom_pos[g], &m.geom_quat[g], m.geom_sameframe[g]);
    }
    for s in 0..m.nsite {
        (p.site_xpos[s], p.site_xmat[s]) =
            local_to_global(&p, m.site_bodyid[s], &m.site_pos[s], &m.site_quat[s], m.site_sameframe[s]);
    }
    p
}

/// Centre-of-mass quantities of the position stage (MuJoCo's `mj_comPos`, without `cinert`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ComFrames {
    /// Centre of mass of each body's subtree (`subtree_com`).
    pub subtree_com: Vec<[f64; 3]>,
    /// Each dof's motion axis `[rotation; translation]` in the world frame, expressed at the
    /// subtree centre of mass of its tree's root (`cdof`).
    pub cdof: Vec<[f64; 6]>,
}

/// Subtree centres of mass and dof motion axes for poses `p` (MuJoCo's `mj_comPos`).
///
/// Algorithm: each body's mass moment `m xipos` is accumulated into its parent in one backward
/// pass (children come after parents) and divided by the subtree mass; then each joint's dofs are
/// written as motions about the root's subtree centre: a hinge `[axis; axis x (com - anchor)]`, a
/// slide `[0; axis]`, a ball (and a free joint's rotation) one hinge per body-frame axis, a free
/// joint's translation the three world axes.
pub fn com_pos(m: &Model, p: &Poses) -> ComFrames {
    let mut com: Vec<[f64; 3]> = (0..m.nbody).map(|b| scl3(&p.xipos[b], m.body_mass[b])).collect();
    for b in (1..m.nbody).rev() {
        let parent = m.body_parentid[b];
        com[parent] = add3(&com[parent], &com[b]);
    }
    for (b, c) in com.iter_mut().enumerate() {
        let mass = m.body_subtreemass[b];
        *c = if mass < MINVAL { p.xipos[b] } else { scl3(c, 1.0 / mass) };
    }
    let mut cdof = vec![[0.0; 6]; m.nv];
    let hinge = |axis: &[f64; 3], offset: &[f64; 3]| {
        let c = cross(axis, offset);
        [axis[0], axis[1], axis[2], c[0], c[1], c[2]]
    };
    for b in 1..m.nbody {
        let start = m.body_jntadr[b].max(0) as usize;
        for j in start..start + m.body_jntnum[b] {
            let da = m.jnt_dofadr[j];
            let offset = sub3(&com[m.body_rootid[b]], &p.xanchor[j]);
            let xmat = &p.xmat[b];
            let body_axis = |k: usize| [xmat[k], xmat[k + 3], xmat[k + 6]];
            match m.jnt_type[j] {
                JointType::Free => {
                    for k in 0..3 {
                        let mut d = [0.0; 6];
                        d[3 + k] = 1.0;
                        cdof[da + k] = d;
                        cdof[da + 3 + k] = hinge(&body_axis(k), &offset);
                    }
                }
                JointType::Ball => {
                    for k in 0..3 {
                        cdof[da + k] = hinge(&body_axis(k), &offset);
                    }
                }
                JointType::Slide => {
                    let a = p.xaxis[j];
                    cdof[da] = [0.0, 0.0, 0.0, a[0], a[1], a[2]];
                }
                JointType::Hinge => cdof[da] = hinge(&p.xaxis[j], &offset),
            }
        }
    }
    ComFrames { subtree_com: com, cdof }
}

/// Body spatial velocities `[omega; v]` at the root's subtree centre of mass (MuJoCo's `cvel`,
/// from `mj_comVel`): each body's is its parent's plus its own dofs' `cdof * qvel`, summed per
/// joint as MuJoCo groups them (a free joint's translation, then its rotation, as two groups of 3).
pub fn com_vel(m: &Model, c: &ComFrames, qvel: &[f64]) -> Vec<[f64; 6]> {
    let mut cvel = vec![[0.0; 6]; m.nbody];
    for b in 1..m.nbody {
        let mut v = cvel[m.body_parentid[b]];
        let adr = m.body_dofadr[b].max(0) as usize;
        let n = m.body_dofnum[b];
        let mut j = 0;
        while j < n {
            let jt = m.jnt_type[m.dof_jntid[adr + j]];
            let group = match jt {
                JointType::Free | JointType::Ball => 3,
                _ => 1,
            };
            // tmp = sum over the group of cdof * qvel, then added to the velocity. A single dof
            // is scaled (mju_scl: 0 * NaN is NaN); a group of three goes through
            // mju_mulMatTVec, which starts from zero and skips the dofs whose qvel is zero (so
            // a NaN or infinite cdof of a body at rest gives 0, as in MuJoCo: fuzz --mutate
            // seed 66928, a free body at pos="x y nan").
            let mut tmp = [0.0; 6];
            for (i, d) in (adr + j..adr + j + group).enumerate() {
                let q = qvel.get(d).copied().unwrap_or(0.0);
                if group > 1 && q == 0.0 {
                    continue;
                }
                for (t, &a) in tmp.iter_mut().zip(&c.cdof[d]) {
                    *t = if i == 0 && group == 1 { a * q } else { *t + a * q };
                }
            }
            for (vk, tk) in v.iter_mut().zip(&tmp) {
                *vk += tk;
            }
            j += group;
        }
        cvel[b] = v;
    }
    cvel
}
