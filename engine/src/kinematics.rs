//! Forward kinematics: world poses of bodies, joints, geoms and sites from `qpos`, as MuJoCo
//! 4.0.0's `mj_kinematics` computes them, bit for bit ([`kinematics_into`] on MuJoCo's flat
//! arrays, which the `kinematics` stage runs inside MuJoCo's step; [`kinematics`] on specula's
//! model, for the collision model and `specula check`).
//!
//! Algorithm (bodies are stored parents first, so one pass suffices):
//! 1. The world body sits at the origin with identity orientation.
//! 2. A body whose only joint is free takes its pose straight from `qpos` (quaternion normalised).
//! 3. Any other body starts at its parent's pose composed with its own offset (`body_pos`,
//!    `body_quat`, or the normalised mocap pose for mocap bodies); then each joint in order moves
//!    it: a slide translates along the joint axis by `qpos - qpos0`; a hinge rotates by
//!    `qpos - qpos0` about its axis, a ball by the normalised `qpos` quaternion, both about the
//!    joint anchor (the body is shifted so the anchor stays put).
//! 4. The body quaternion is normalised and turned into a matrix; inertial frames, geoms and sites
//!    are placed relative to their body, copying the body frame where the compiler found them to
//!    coincide (`*_sameframe`), exactly where MuJoCo copies instead of multiplying.

use specula_model::types::{JointType, SameFrame};
use specula_model::Model;

use crate::math::{add3, axis_angle2quat, cross, mul_mat_vec3, mul_quat, normalize4, quat2mat, scl3, sub3, MINVAL};

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

/// Poses of the mocap bodies, in mocap order: positions and quaternions.
pub type MocapPoses<'a> = (&'a [[f64; 3]], &'a [[f64; 4]]);

/// Computes world poses for configuration `qpos` (length `nq`; missing entries read as 0);
/// `mocap` gives the mocap bodies' poses, or `None` to use their model poses (as after
/// `mj_resetData`). The same computation as [`kinematics_into`], on specula's model.
pub fn kinematics(m: &Model, qpos: &[f64], mocap: Option<MocapPoses>) -> Poses {
    let ints = |v: &[usize]| -> Vec<i32> { v.iter().map(|&x| x as i32).collect() };
    let frames = |v: &[SameFrame]| -> Vec<u8> { v.iter().map(|&f| f as u8).collect() };
    let (mut mocap_pos, mut mocap_quat) = (vec![0.0; 3 * m.nmocap], vec![0.0; 4 * m.nmocap]);
    for b in 0..m.nbody {
        if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
            let (pos, quat) = match mocap {
                Some((mp, mq)) => (mp[id], mq[id]),
                None => (m.body_pos[b], m.body_quat[b]),
            };
            put(&mut mocap_pos, id, &pos);
            put(&mut mocap_quat, id, &quat);
        }
    }
    let jnt_type: Vec<i32> = m.jnt_type.iter().map(|&t| t as i32).collect();
    let (body_parentid, body_jntnum, jnt_qposadr) =
        (ints(&m.body_parentid), ints(&m.body_jntnum), ints(&m.jnt_qposadr));
    let (geom_bodyid, site_bodyid) = (ints(&m.geom_bodyid), ints(&m.site_bodyid));
    let (body_sameframe, geom_sameframe, site_sameframe) =
        (frames(&m.body_sameframe), frames(&m.geom_sameframe), frames(&m.site_sameframe));
    let view = KinematicsModel {
        body_parentid: &body_parentid,
        body_jntnum: &body_jntnum,
        body_jntadr: &m.body_jntadr,
        body_mocapid: &m.body_mocapid,
        body_pos: m.body_pos.as_flattened(),
        body_quat: m.body_quat.as_flattened(),
        body_ipos: m.body_ipos.as_flattened(),
        body_iquat: m.body_iquat.as_flattened(),
        body_sameframe: &body_sameframe,
        jnt_type: &jnt_type,
        jnt_qposadr: &jnt_qposadr,
        jnt_pos: m.jnt_pos.as_flattened(),
        jnt_axis: m.jnt_axis.as_flattened(),
        qpos0: &m.qpos0,
        geom_bodyid: &geom_bodyid,
        geom_pos: m.geom_pos.as_flattened(),
        geom_quat: m.geom_quat.as_flattened(),
        geom_sameframe: &geom_sameframe,
        site_bodyid: &site_bodyid,
        site_pos: m.site_pos.as_flattened(),
        site_quat: m.site_quat.as_flattened(),
        site_sameframe: &site_sameframe,
    };
    let mut q = vec![0.0; m.nq.max(qpos.len())];
    q[..qpos.len()].copy_from_slice(qpos);
    let state = KinematicsState { qpos: &q, mocap_pos: &mocap_pos, mocap_quat: &mocap_quat };
    let (nb, nj, ng, ns) = (m.nbody, m.njnt, m.ngeom, m.nsite);
    let mut p = Poses {
        xpos: vec![[0.0; 3]; nb],
        xquat: vec![[0.0; 4]; nb],
        xmat: vec![[0.0; 9]; nb],
        xipos: vec![[0.0; 3]; nb],
        ximat: vec![[0.0; 9]; nb],
        xanchor: vec![[0.0; 3]; nj],
        xaxis: vec![[0.0; 3]; nj],
        geom_xpos: vec![[0.0; 3]; ng],
        geom_xmat: vec![[0.0; 9]; ng],
        site_xpos: vec![[0.0; 3]; ns],
        site_xmat: vec![[0.0; 9]; ns],
    };
    let (mut xiquat, mut geom_xquat, mut site_xquat) = (vec![0.0; 4 * nb], vec![0.0; 4 * ng], vec![0.0; 4 * ns]);
    let mut out = PoseOutput {
        xpos: p.xpos.as_flattened_mut(),
        xquat: p.xquat.as_flattened_mut(),
        xmat: p.xmat.as_flattened_mut(),
        xipos: p.xipos.as_flattened_mut(),
        xiquat: &mut xiquat,
        ximat: p.ximat.as_flattened_mut(),
        xanchor: p.xanchor.as_flattened_mut(),
        xaxis: p.xaxis.as_flattened_mut(),
        geom_xpos: p.geom_xpos.as_flattened_mut(),
        geom_xquat: &mut geom_xquat,
        geom_xmat: p.geom_xmat.as_flattened_mut(),
        site_xpos: p.site_xpos.as_flattened_mut(),
        site_xquat: &mut site_xquat,
        site_xmat: p.site_xmat.as_flattened_mut(),
    };
    kinematics_into(&view, &state, &mut out);
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

/// The model arrays MuJoCo 4.0.0's `mj_kinematics` reads, in `mjModel`'s flat layout (sizes from
/// the lengths: `nbody` of `body_parentid`, `njnt` of `jnt_type`, `ngeom` of `geom_bodyid`,
/// `nsite` of `site_bodyid`).
#[derive(Clone, Copy, Debug, Default)]
pub struct KinematicsModel<'a> {
    /// Parent of each body.
    pub body_parentid: &'a [i32],
    /// Number of joints of each body.
    pub body_jntnum: &'a [i32],
    /// First joint of each body.
    pub body_jntadr: &'a [i32],
    /// Mocap index of each body, -1 for none.
    pub body_mocapid: &'a [i32],
    /// Body frame offsets from the parent (`3 nbody`).
    pub body_pos: &'a [f64],
    /// Body frame orientations relative to the parent (`4 nbody`).
    pub body_quat: &'a [f64],
    /// Inertial frame offsets (`3 nbody`).
    pub body_ipos: &'a [f64],
    /// Inertial frame orientations (`4 nbody`).
    pub body_iquat: &'a [f64],
    /// Whether the inertial frame coincides with the body frame (`mjtSameFrame`).
    pub body_sameframe: &'a [u8],
    /// Type of each joint (`mjtJoint`).
    pub jnt_type: &'a [i32],
    /// First `qpos` entry of each joint.
    pub jnt_qposadr: &'a [i32],
    /// Joint anchors in the body frame (`3 njnt`).
    pub jnt_pos: &'a [f64],
    /// Joint axes in the body frame (`3 njnt`).
    pub jnt_axis: &'a [f64],
    /// Reference configuration (`nq`).
    pub qpos0: &'a [f64],
    /// Body of each geom.
    pub geom_bodyid: &'a [i32],
    /// Geom offsets in the body frame (`3 ngeom`).
    pub geom_pos: &'a [f64],
    /// Geom orientations in the body frame (`4 ngeom`).
    pub geom_quat: &'a [f64],
    /// Geom frame coincidences (`mjtSameFrame`).
    pub geom_sameframe: &'a [u8],
    /// Body of each site.
    pub site_bodyid: &'a [i32],
    /// Site offsets in the body frame (`3 nsite`).
    pub site_pos: &'a [f64],
    /// Site orientations in the body frame (`4 nsite`).
    pub site_quat: &'a [f64],
    /// Site frame coincidences (`mjtSameFrame`).
    pub site_sameframe: &'a [u8],
}

/// The state `mj_kinematics` reads.
#[derive(Clone, Copy, Debug)]
pub struct KinematicsState<'a> {
    /// Joint positions (`nq`).
    pub qpos: &'a [f64],
    /// Mocap body positions (`3 nmocap`).
    pub mocap_pos: &'a [f64],
    /// Mocap body orientations (`4 nmocap`).
    pub mocap_quat: &'a [f64],
}

/// The arrays `mj_kinematics` writes, in `mjData`'s flat layout.
#[derive(Debug)]
pub struct PoseOutput<'a> {
    /// Body positions (`3 nbody`).
    pub xpos: &'a mut [f64],
    /// Body orientations (`4 nbody`).
    pub xquat: &'a mut [f64],
    /// Body orientation matrices (`9 nbody`).
    pub xmat: &'a mut [f64],
    /// Inertial frame positions (`3 nbody`).
    pub xipos: &'a mut [f64],
    /// Inertial frame orientations (`4 nbody`).
    pub xiquat: &'a mut [f64],
    /// Inertial frame matrices (`9 nbody`).
    pub ximat: &'a mut [f64],
    /// Joint anchors (`3 njnt`).
    pub xanchor: &'a mut [f64],
    /// Joint axes (`3 njnt`).
    pub xaxis: &'a mut [f64],
    /// Geom positions (`3 ngeom`).
    pub geom_xpos: &'a mut [f64],
    /// Geom orientations (`4 ngeom`).
    pub geom_xquat: &'a mut [f64],
    /// Geom matrices (`9 ngeom`).
    pub geom_xmat: &'a mut [f64],
    /// Site positions (`3 nsite`).
    pub site_xpos: &'a mut [f64],
    /// Site orientations (`4 nsite`).
    pub site_xquat: &'a mut [f64],
    /// Site matrices (`9 nsite`).
    pub site_xmat: &'a mut [f64],
}

#[inline(always)]
fn v3(a: &[f64], i: usize) -> [f64; 3] {
    // one length check for the three entries
    a[3 * i..3 * i + 3].try_into().expect("three entries")
}

#[inline(always)]
fn v4(a: &[f64], i: usize) -> [f64; 4] {
    a[4 * i..4 * i + 4].try_into().expect("four entries")
}

#[inline(always)]
fn m9(a: &[f64], i: usize) -> [f64; 9] {
    a[9 * i..9 * i + 9].try_into().expect("nine entries")
}

/// One frame given relative to body `b`, placed in the world: position, quaternion and matrix
/// (the library's local `mj_local2GlobalQuat`, `docs/measurements.md` K3).
#[inline]
fn place_frame(o: &PoseOutput, b: usize, pos: [f64; 3], quat: [f64; 4], same: u8) -> ([f64; 3], [f64; 4], [f64; 9]) {
    const BODY: u8 = SameFrame::Body as u8;
    const INERTIA: u8 = SameFrame::Inertia as u8;
    const BODYROT: u8 = SameFrame::BodyRot as u8;
    const INERTIAROT: u8 = SameFrame::InertiaRot as u8;
    let xpos = match same {
        BODY => v3(o.xpos, b),
        INERTIA => v3(o.xipos, b),
        _ => add3(&mul_mat_vec3(&m9(o.xmat, b), &pos), &v3(o.xpos, b)),
    };
    let (xquat, xmat) = match same {
        BODY | BODYROT => (v4(o.xquat, b), m9(o.xmat, b)),
        INERTIA | INERTIAROT => (v4(o.xiquat, b), m9(o.ximat, b)),
        _ => {
            let q = mul_quat(&v4(o.xquat, b), &quat);
            (q, quat2mat(&q))
        }
    };
    (xpos, xquat, xmat)
}

/// Writes `n`-vector `v` at element `i` of `a`.
fn put<const N: usize>(a: &mut [f64], i: usize, v: &[f64; N]) {
    a[N * i..N * i + N].copy_from_slice(v);
}

/// MuJoCo 4.0.0's `mj_kinematics` with sleep off (`docs/measurements.md` K1 to K3): body, joint,
/// inertial, geom and site frames from `qpos` and the mocap poses, in the library's operation
/// order. Joint types outside free, ball, slide and hinge leave the body where its parent put it
/// (MuJoCo raises an error there).
pub fn kinematics_into(m: &KinematicsModel, s: &KinematicsState, o: &mut PoseOutput) {
    use crate::dynamics::jnt::{FREE, HINGE, SLIDE};
    use crate::dynamics::transmission::{rotate, unit_quat};
    let nbody = m.body_parentid.len();
    put(o.xpos, 0, &[0.0; 3]);
    put(o.xquat, 0, &[1.0, 0.0, 0.0, 0.0]);
    put(o.xipos, 0, &[0.0; 3]);
    put(o.xiquat, 0, &[1.0, 0.0, 0.0, 0.0]);
    put(o.xmat, 0, &IDENTITY);
    put(o.ximat, 0, &IDENTITY);
    for b in 1..nbody {
        let jntadr = m.body_jntadr[b].max(0) as usize;
        let jntnum = m.body_jntnum[b].max(0) as usize;
        let (mut xpos, mut xquat);
        if jntnum == 1 && m.jnt_type[jntadr] == FREE {
            let a = m.jnt_qposadr[jntadr] as usize;
            xpos = v3(&s.qpos[a..], 0);
            xquat = unit_quat(s.qpos, a + 3);
            put(o.xanchor, jntadr, &xpos);
            put(o.xaxis, jntadr, &v3(m.jnt_axis, jntadr));
        } else {
            let (pos, quat) = match m.body_mocapid[b] {
                id if id >= 0 => (v3(s.mocap_pos, id as usize), unit_quat(s.mocap_quat, 4 * id as usize)),
                _ => (v3(m.body_pos, b), v4(m.body_quat, b)),
            };
            let parent = m.body_parentid[b] as usize;
            if parent != 0 {
                xpos = add3(&mul_mat_vec3(&m9(o.xmat, parent), &pos), &v3(o.xpos, parent));
                xquat = mul_quat(&v4(o.xquat, parent), &quat);
            } else {
                xpos = pos;
                xquat = quat;
            }
            for j in jntadr..jntadr + jntnum {
                let a = m.jnt_qposadr[j] as usize;
                let xaxis = rotate(v3(m.jnt_axis, j), xquat);
                let xanchor = add3(&rotate(v3(m.jnt_pos, j), xquat), &xpos);
                match m.jnt_type[j] {
                    SLIDE => {
                        let d = s.qpos[a] - m.qpos0[a];
                        xpos = [xpos[0] + xaxis[0] * d, xpos[1] + xaxis[1] * d, xpos[2] + xaxis[2] * d];
                    }
                    t => {
                        let qloc = if t == HINGE {
                            axis_angle2quat(&v3(m.jnt_axis, j), s.qpos[a] - m.qpos0[a])
                        } else {
                            unit_quat(s.qpos, a)
                        };
                        // the body turns about the anchor, which stays where it is
                        xquat = mul_quat(&xquat, &qloc);
                        xpos = sub3(&xanchor, &rotate(v3(m.jnt_pos, j), xquat));
                    }
                }
                put(o.xanchor, j, &xanchor);
                put(o.xaxis, j, &xaxis);
            }
        }
        normalize4(&mut xquat);
        put(o.xquat, b, &xquat);
        put(o.xpos, b, &xpos);
        put(o.xmat, b, &quat2mat(&xquat));
    }
    for b in 1..nbody {
        let (p, q, r) = place_frame(o, b, v3(m.body_ipos, b), v4(m.body_iquat, b), m.body_sameframe[b]);
        put(o.xipos, b, &p);
        put(o.xiquat, b, &q);
        put(o.ximat, b, &r);
    }
    for g in 0..m.geom_bodyid.len() {
        let b = m.geom_bodyid[g] as usize;
        let (p, q, r) = place_frame(o, b, v3(m.geom_pos, g), v4(m.geom_quat, g), m.geom_sameframe[g]);
        put(o.geom_xpos, g, &p);
        put(o.geom_xquat, g, &q);
        put(o.geom_xmat, g, &r);
    }
    for i in 0..m.site_bodyid.len() {
        let b = m.site_bodyid[i] as usize;
        let (p, q, r) = place_frame(o, b, v3(m.site_pos, i), v4(m.site_quat, i), m.site_sameframe[i]);
        put(o.site_xpos, i, &p);
        put(o.site_xquat, i, &q);
        put(o.site_xmat, i, &r);
    }
}
