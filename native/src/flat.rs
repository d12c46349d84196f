//! specula's compiled model in `mjModel`'s flat layout (ids as `i32`, vectors as consecutive
//! `f64`, enums as their MuJoCo numbers), the form the engine's stage views read.

use specula_model::Model;

/// Flattens per-item arrays (`[f64; N]` each) into one slice.
fn flat<const N: usize>(v: &[[f64; N]]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

/// Ids and counts as MuJoCo's `int`.
fn ints(v: &[usize]) -> Vec<i32> {
    v.iter().map(|&x| x as i32).collect()
}

/// The arrays of one model the native route reads, in `mjModel`'s layout (MuJoCo's names).
#[derive(Clone, Debug, Default)]
pub struct Flat {
    /// Parent of each body.
    pub body_parentid: Vec<i32>,
    /// Root body of each body's tree.
    pub body_rootid: Vec<i32>,
    /// Top body each body is welded to.
    pub body_weldid: Vec<i32>,
    /// Number of joints of each body.
    pub body_jntnum: Vec<i32>,
    /// First joint of each body, -1 for none.
    pub body_jntadr: Vec<i32>,
    /// Number of dofs of each body.
    pub body_dofnum: Vec<i32>,
    /// First dof of each body, -1 for none.
    pub body_dofadr: Vec<i32>,
    /// Inertial-frame alignment of each body (`mjtSameFrame`).
    pub body_sameframe: Vec<u8>,
    /// Body offsets from the parent (`3 nbody`).
    pub body_pos: Vec<f64>,
    /// Body orientations relative to the parent (`4 nbody`).
    pub body_quat: Vec<f64>,
    /// Inertial frame offsets (`3 nbody`).
    pub body_ipos: Vec<f64>,
    /// Inertial frame orientations (`4 nbody`).
    pub body_iquat: Vec<f64>,
    /// Principal inertias (`3 nbody`).
    pub body_inertia: Vec<f64>,
    /// Type of each joint (`mjtJoint`).
    pub jnt_type: Vec<i32>,
    /// First `qpos` entry of each joint.
    pub jnt_qposadr: Vec<i32>,
    /// First dof of each joint.
    pub jnt_dofadr: Vec<i32>,
    /// Body of each joint.
    pub jnt_bodyid: Vec<i32>,
    /// Joint anchors in the body frame (`3 njnt`).
    pub jnt_pos: Vec<f64>,
    /// Joint axes in the body frame (`3 njnt`).
    pub jnt_axis: Vec<f64>,
    /// Higher-order stiffness coefficients (`2 njnt`).
    pub jnt_stiffnesspoly: Vec<f64>,
    /// `-1` per joint: specula's compiler has no plastic state.
    pub jnt_plasticadr: Vec<i32>,
    /// `-1` per joint: the native route takes no actuators.
    pub jnt_actuatorid: Vec<i32>,
    /// Body of each dof.
    pub dof_bodyid: Vec<i32>,
    /// Joint of each dof.
    pub dof_jntid: Vec<i32>,
    /// Higher-order damping coefficients (`2 nv`).
    pub dof_dampingpoly: Vec<f64>,
    /// Body of each geom.
    pub geom_bodyid: Vec<i32>,
    /// Frame alignment of each geom (`mjtSameFrame`).
    pub geom_sameframe: Vec<u8>,
    /// Geom offsets in the body frame (`3 ngeom`).
    pub geom_pos: Vec<f64>,
    /// Geom orientations in the body frame (`4 ngeom`).
    pub geom_quat: Vec<f64>,
    /// Body of each site.
    pub site_bodyid: Vec<i32>,
    /// Frame alignment of each site (`mjtSameFrame`).
    pub site_sameframe: Vec<u8>,
    /// Site offsets in the body frame (`3 nsite`).
    pub site_pos: Vec<f64>,
    /// Site orientations in the body frame (`4 nsite`).
    pub site_quat: Vec<f64>,
}

impl Flat {
    /// The flat arrays of `m`.
    pub fn new(m: &Model) -> Flat {
        let frames = |v: &[specula_model::types::SameFrame]| v.iter().map(|&s| s as u8).collect();
        Flat {
            body_parentid: ints(&m.body_parentid),
            body_rootid: ints(&m.body_rootid),
            body_weldid: ints(&m.body_weldid),
            body_jntnum: ints(&m.body_jntnum),
            body_jntadr: m.body_jntadr.clone(),
            body_dofnum: ints(&m.body_dofnum),
            body_dofadr: m.body_dofadr.clone(),
            body_sameframe: frames(&m.body_sameframe),
            body_pos: flat(&m.body_pos),
            body_quat: flat(&m.body_quat),
            body_ipos: flat(&m.body_ipos),
            body_iquat: flat(&m.body_iquat),
            body_inertia: flat(&m.body_inertia),
            jnt_type: m.jnt_type.iter().map(|&t| t as i32).collect(),
            jnt_qposadr: ints(&m.jnt_qposadr),
            jnt_dofadr: ints(&m.jnt_dofadr),
            jnt_bodyid: ints(&m.jnt_bodyid),
            jnt_pos: flat(&m.jnt_pos),
            jnt_axis: flat(&m.jnt_axis),
            jnt_stiffnesspoly: flat(&m.jnt_stiffnesspoly),
            jnt_plasticadr: vec![-1; m.njnt],
            jnt_actuatorid: vec![-1; m.njnt],
            dof_bodyid: ints(&m.dof_bodyid),
            dof_jntid: ints(&m.dof_jntid),
            dof_dampingpoly: flat(&m.dof_dampingpoly),
            geom_bodyid: ints(&m.geom_bodyid),
            geom_sameframe: frames(&m.geom_sameframe),
            geom_pos: flat(&m.geom_pos),
            geom_quat: flat(&m.geom_quat),
            site_bodyid: ints(&m.site_bodyid),
            site_sameframe: frames(&m.site_sameframe),
            site_pos: flat(&m.site_pos),
            site_quat: flat(&m.site_quat),
        }
    }
}
