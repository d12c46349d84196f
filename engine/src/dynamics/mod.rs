//! MuJoCo 4.0.0's smooth dynamics, stage by stage, on plain slices in MuJoCo's vocabulary: each
//! stage reads and writes the arrays MuJoCo's function of the same name does, in its operation
//! order, so that it can replace that function inside MuJoCo's step bit for bit (the root crate
//! points these views at `mjModel`/`mjData`) and, later, run on specula's own data.
//!
//! Stages so far, each in its own module: [`crb`](mod@crb) (`mj_crb`: composite inertias and
//! the joint-space inertia `M`), [`factor`] (`mj_factorM`: its sparse `L'DL` factorisation),
//! [`com_vel`](mod@com_vel) (`mj_comVel`: body velocities and dof-axis derivatives),
//! [`rne`](mod@rne) (`mj_rne`: bias forces), [`acceleration`] (`mj_fwdAcceleration`: the
//! unconstrained acceleration) and [`com_pos`](mod@com_pos) (`mj_comPos`: centres of mass,
//! com-based inertias and dof axes), [`passive`](mod@passive) (`mj_passive`: joint and tendon
//! springs and dampers), [`transmission`](mod@transmission) (`mj_transmission`: actuator lengths
//! and moments) and [`actuation`] (`mj_fwdActuation`: actuator forces). What was read from the
//! released library for each is written once, in `docs/measurements.md` (D1 to D9).

pub mod acceleration;
pub mod actuation;
pub mod apply_ft;
pub mod arena;
pub(crate) mod avx;
pub mod com_pos;
pub mod com_vel;
pub mod constraint;
pub mod crb;
pub mod dcmotor;
pub mod derivative;
pub mod factor;
pub mod fluid;
pub mod free_body;
pub mod implicit;
pub mod implicit_full;
pub mod integrate;
pub mod island;
pub mod island_equality;
pub mod island_scan;
pub mod muscle;
pub mod passive;
pub mod passive_adhesion;
pub mod passive_body;
pub mod passive_deriv;
pub mod pid;
pub mod project;
pub mod project_sparse;
pub mod reference;
pub mod rk4;
pub mod rne;
pub mod rne_post;
pub mod solver;
mod spatial;
pub mod tendon;
pub mod tendon_armature;
pub mod tendon_dot;
pub mod tendon_spatial;
pub mod transmission;
pub mod transmission_body;
pub mod transmission_site;
pub mod wrap;

pub use acceleration::{fwd_acceleration, solve_ld, SmoothForces};
pub use actuation::{actuation_in_scope, fwd_actuation, ActuationInput, ActuationOutput, ActuatorModel};
pub use com_pos::{com_pos, ComOutput, PoseInput};
pub use com_vel::com_vel;
pub use crb::{actuator_armature, crb};
pub use factor::{factor_i, factor_m};
pub use passive::{passive, PassiveForces, PassiveModel, PassiveScratch, PassiveState};
pub use rne::{rne, RneInput, RneScratch};
pub use transmission::{
    transmission, transmission_in_scope, transmission_in_scope_with, transmission_with, TransmissionModel,
    TransmissionOutput, TransmissionScratch, TransmissionState,
};

/// MuJoCo's `mjtJoint` values.
pub(crate) mod jnt {
    /// `mjJNT_FREE`.
    pub const FREE: i32 = 0;
    /// `mjJNT_BALL`.
    pub const BALL: i32 = 1;
    /// `mjJNT_SLIDE`.
    pub const SLIDE: i32 = 2;
    /// `mjJNT_HINGE`.
    pub const HINGE: i32 = 3;
}

/// The model arrays the mass-matrix stages read (MuJoCo's names; `nv`, `nbody` from the lengths
/// of `dof_bodyid` and `body_parentid`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TreeModel<'a> {
    /// Parent of each body (`nbody`).
    pub body_parentid: &'a [i32],
    /// First dof of each body (`nbody`).
    pub body_dofadr: &'a [i32],
    /// Number of dofs of each body (`nbody`).
    pub body_dofnum: &'a [i32],
    /// Root body of each body's tree (`nbody`).
    pub body_rootid: &'a [i32],
    /// Mass of each body (`nbody`).
    pub body_mass: &'a [f64],
    /// Mass of each body's subtree, from the compiler (`nbody`).
    pub body_subtreemass: &'a [f64],
    /// Principal inertia of each body (`3 nbody`).
    pub body_inertia: &'a [f64],
    /// Type of each joint (`njnt`).
    pub jnt_type: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Body of each joint (`njnt`).
    pub jnt_bodyid: &'a [i32],
    /// Body of each dof (`nv`).
    pub dof_bodyid: &'a [i32],
    /// Joint of each dof (`nv`).
    pub dof_jntid: &'a [i32],
    /// Parent dof of each dof, -1 for none (`nv`).
    pub dof_parentid: &'a [i32],
    /// Consecutive simple dofs starting at each dof (`nv`).
    pub dof_simplenum: &'a [i32],
    /// Joint armature of each dof (`nv`).
    pub dof_armature: &'a [f64],
    /// Diagonal inertia at `qpos0` of each dof, used for simple dofs (`nv`).
    pub dof_m0: &'a [f64],
    /// Non-zeros of each row of the lower-triangular inertia (`nv`).
    pub m_rownnz: &'a [i32],
    /// Start of each row in `M` (`nv`).
    pub m_rowadr: &'a [i32],
    /// Column of each non-zero (`nC`).
    pub m_colind: &'a [i32],
    /// Actuator that adds armature to each joint: -1 none, -2 several (`njnt`).
    pub jnt_actuatorid: &'a [i32],
    /// Transmission type of each actuator (`nactuator`).
    pub actuator_trntype: &'a [i32],
    /// Transmission targets, two per actuator (`2 nactuator`).
    pub actuator_trnid: &'a [i32],
    /// First force output of each actuator (`nactuator`).
    pub actuator_outadr: &'a [i32],
    /// Gear of each force output, six per output (`6 nout`).
    pub actuator_gear: &'a [f64],
    /// Armature each actuator adds to its target (`nactuator`).
    pub actuator_armature: &'a [f64],
}

impl TreeModel<'_> {
    /// Number of degrees of freedom.
    pub fn nv(&self) -> usize {
        self.dof_bodyid.len()
    }

    /// Number of bodies, the world included.
    pub fn nbody(&self) -> usize {
        self.body_parentid.len()
    }

    /// Number of non-zeros of the inertia matrix.
    pub fn nc(&self) -> usize {
        self.m_colind.len()
    }
}
