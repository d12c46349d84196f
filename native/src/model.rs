//! [`NativeModel`]: specula's compiled model with the fields MuJoCo computes at the end of
//! compilation, and the engine's stage views of it.

use specula_engine::collision::CollisionModel;
use specula_engine::dynamics::constraint::jacobian::JacModel;
use specula_engine::dynamics::constraint::ConstraintModel;
use specula_engine::dynamics::integrate::IntegratorModel;
use specula_engine::dynamics::island::IslandModel;
use specula_engine::dynamics::{PassiveModel, TreeModel};
use specula_engine::kinematics::KinematicsModel;
use specula_model::Model;

use crate::consts::Consts;
use crate::flat::Flat;
use crate::layout::{Layout, Pattern};

/// A compiled model ready for the native route: specula's [`Model`], its flat arrays, the
/// compiler's sparse layouts and the constants of the pass at `qpos0`.
#[derive(Clone, Debug)]
pub struct NativeModel {
    /// specula's compiled model.
    pub model: Model,
    /// Its arrays in `mjModel`'s layout.
    pub flat: Flat,
    /// The sparse layouts.
    pub layout: Layout,
    /// `dof_M0`, the inverse weights and the statistics.
    pub consts: Consts,
    /// The collision stage's model, built from specula's model as the C route's `rust`
    /// collision builds it.
    pub collision: CollisionModel,
    /// `mjModel.flg_adhesion`: some geom or pair has adhesion.
    pub flg_adhesion: bool,
    /// The actuator arrays in `mjModel`'s layout.
    pub actuators: crate::actuation::Actuators,
    /// The equality arrays in `mjModel`'s layout.
    pub equalities: crate::equality::Equalities,
    /// The tendon arrays in `mjModel`'s layout.
    pub tendons: crate::tendon::TendonFlat,
    /// The arrays of gravity compensation and the fluid models in `mjModel`'s layout.
    pub passive: crate::passive::PassiveFlat,
}

/// No actuator arrays: the native route takes models without actuators.
const NO_I32: &[i32] = &[];
/// No actuator or tendon values.
const NO_F64: &[f64] = &[];

impl NativeModel {
    /// Derives every constant field of `model` (layouts, then the pass at `qpos0`).
    pub fn new(model: Model) -> NativeModel {
        let flat = Flat::new(&model);
        let layout = Layout::new(&model);
        let collision = CollisionModel::from(&model);
        let flg_adhesion = model.geom_adhesion.iter().chain(&model.pair_adhesion).any(|&a| a != 0.0);
        let actuators = crate::actuation::Actuators::new(&model);
        let tendons = crate::tendon::TendonFlat::new(&model);
        let passive = crate::passive::PassiveFlat::new(&model);
        let mut nm = NativeModel {
            model,
            flat,
            layout,
            consts: Consts::default(),
            collision,
            flg_adhesion,
            actuators,
            equalities: Default::default(),
            tendons,
            passive,
        };
        crate::tendon::set_lengths(&mut nm);
        crate::actuation::set_lengths(&mut nm);
        nm.consts = Consts::new(&nm);
        nm.actuators.acc0.clone_from(&nm.consts.actuator_acc0);
        let mut eqs = crate::equality::Equalities::new(&nm);
        if !eqs.eq_type.is_empty() {
            // mj_setConst's equality data, from the pose at qpos0
            let mut d = crate::data::Data::new(&nm);
            crate::step::position(&nm, &mut d);
            eqs.set_const(&d);
        }
        nm.equalities = eqs;
        nm
    }

    /// The mass-matrix stages' view over the pattern `pat` with the diagonal inertias `dof_m0`.
    pub(crate) fn tree_with<'a>(&'a self, pat: &'a Pattern, simplenum: &'a [i32], dof_m0: &'a [f64]) -> TreeModel<'a> {
        let (m, f) = (&self.model, &self.flat);
        TreeModel {
            body_parentid: &f.body_parentid,
            body_dofadr: &f.body_dofadr,
            body_dofnum: &f.body_dofnum,
            body_rootid: &f.body_rootid,
            body_mass: &m.body_mass,
            body_subtreemass: &m.body_subtreemass,
            body_inertia: &f.body_inertia,
            jnt_type: &f.jnt_type,
            jnt_dofadr: &f.jnt_dofadr,
            jnt_bodyid: &f.jnt_bodyid,
            dof_bodyid: &f.dof_bodyid,
            dof_jntid: &f.dof_jntid,
            dof_parentid: &m.dof_parentid,
            dof_simplenum: simplenum,
            dof_armature: &m.dof_armature,
            dof_m0,
            m_rownnz: &pat.rownnz,
            m_rowadr: &pat.rowadr,
            m_colind: &pat.colind,
            jnt_actuatorid: &f.jnt_actuatorid,
            actuator_trntype: NO_I32,
            actuator_trnid: NO_I32,
            actuator_outadr: NO_I32,
            actuator_gear: NO_F64,
            actuator_armature: NO_F64,
        }
    }

    /// The mass-matrix stages' view (MuJoCo's reduced `M`).
    pub fn tree(&self) -> TreeModel<'_> {
        self.tree_with(&self.layout.m, &self.layout.dof_simplenum, &self.consts.dof_m0)
    }

    /// `mj_kinematics`' view.
    pub fn kinematics(&self) -> KinematicsModel<'_> {
        let (m, f) = (&self.model, &self.flat);
        KinematicsModel {
            body_parentid: &f.body_parentid,
            body_jntnum: &f.body_jntnum,
            body_jntadr: &f.body_jntadr,
            body_mocapid: &m.body_mocapid,
            body_pos: &f.body_pos,
            body_quat: &f.body_quat,
            body_ipos: &f.body_ipos,
            body_iquat: &f.body_iquat,
            body_sameframe: &f.body_sameframe,
            jnt_type: &f.jnt_type,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_pos: &f.jnt_pos,
            jnt_axis: &f.jnt_axis,
            qpos0: &m.qpos0,
            geom_bodyid: &f.geom_bodyid,
            geom_pos: &f.geom_pos,
            geom_quat: &f.geom_quat,
            geom_sameframe: &f.geom_sameframe,
            site_bodyid: &f.site_bodyid,
            site_pos: &f.site_pos,
            site_quat: &f.site_quat,
            site_sameframe: &f.site_sameframe,
        }
    }

    /// `mj_passive`'s view (joint springs and dampers; no tendons or actuators).
    pub fn passive(&self) -> PassiveModel<'_> {
        let (m, f) = (&self.model, &self.flat);
        let flags = m.opt.disableflags;
        PassiveModel {
            disable_spring: flags & crate::scope::DSBL_SPRING != 0,
            disable_damper: flags & crate::scope::DSBL_DAMPER != 0,
            body_jntnum: &f.body_jntnum,
            body_jntadr: &f.body_jntadr,
            jnt_type: &f.jnt_type,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_dofadr: &f.jnt_dofadr,
            jnt_plasticadr: &f.jnt_plasticadr,
            jnt_actuatorid: &f.jnt_actuatorid,
            jnt_stiffness: &m.jnt_stiffness,
            jnt_stiffnesspoly: &f.jnt_stiffnesspoly,
            qpos_spring: &m.qpos_spring,
            dof_jntid: &f.dof_jntid,
            dof_damping: &m.dof_damping,
            dof_dampingpoly: &f.dof_dampingpoly,
            body: self.body_passive(),
            flg_adhesion: u8::from(self.flg_adhesion),
            contact: crate::constraint::contact_model(self),
            ..self.tendon_passive()
        }
    }

    /// The integrators' view.
    pub fn integrator(&self) -> IntegratorModel<'_> {
        let (m, f, l) = (&self.model, &self.flat, &self.layout);
        IntegratorModel {
            timestep: m.opt.timestep,
            disableflags: m.opt.disableflags as i32,
            body_jntnum: &f.body_jntnum,
            body_jntadr: &f.body_jntadr,
            jnt_type: &f.jnt_type,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_dofadr: &f.jnt_dofadr,
            dof_jntid: &f.dof_jntid,
            dof_damping: &m.dof_damping,
            dof_dampingpoly: &f.dof_dampingpoly,
            d_rownnz: &l.d.rownnz,
            d_rowadr: &l.d.rowadr,
            d_colind: &l.d.colind,
            d_diag: &l.d_diag,
            map_d2m: &l.map_d2m,
        }
    }

    /// The Jacobians' view.
    pub(crate) fn jac(&self) -> JacModel<'_> {
        let (m, f) = (&self.model, &self.flat);
        JacModel {
            nv: m.nv,
            body_weldid: &f.body_weldid,
            body_rootid: &f.body_rootid,
            body_dofnum: &f.body_dofnum,
            body_dofadr: &f.body_dofadr,
            body_simple: &m.body_simple,
            dof_parentid: &m.dof_parentid,
        }
    }

    /// `mj_makeConstraint`'s view (friction loss, limits, impedance).
    pub(crate) fn constraint(&self) -> ConstraintModel<'_> {
        let (m, f, k) = (&self.model, &self.flat, &self.consts);
        let flags = m.opt.disableflags;
        ConstraintModel {
            nv: m.nv,
            disable_frictionloss: flags & crate::scope::DSBL_FRICTIONLOSS != 0,
            disable_limit: flags & crate::scope::DSBL_LIMIT != 0,
            disable_refsafe: flags & crate::scope::DSBL_REFSAFE != 0,
            discrete: m.opt.integrator == specula_model::types::Integrator::Discrete,
            timestep: m.opt.timestep,
            impratio: m.opt.impratio,
            dof_frictionloss: &m.dof_frictionloss,
            dof_solref: &f.dof_solref,
            dof_solimp: &f.dof_solimp,
            dof_invweight0: &k.dof_invweight0,
            jnt_type: &f.jnt_type,
            jnt_limited: &f.jnt_limited,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_dofadr: &f.jnt_dofadr,
            jnt_range: &f.jnt_range,
            jnt_margin: &m.jnt_margin,
            jnt_solref: &f.jnt_solref,
            jnt_solimp: &f.jnt_solimp,
            body_invweight0: &k.body_invweight0,
            geom_bodyid: &f.geom_bodyid,
            equality: self.equality(),
            ..self.tendon_constraint()
        }
    }

    /// `mj_island`'s view.
    pub(crate) fn island(&self) -> IslandModel<'_> {
        let (m, f) = (&self.model, &self.flat);
        IslandModel {
            dof_treeid: &f.dof_treeid,
            jnt_dofadr: &f.jnt_dofadr,
            body_treeid: &m.body_treeid,
            geom_bodyid: &f.geom_bodyid,
            tree_dofnum: &f.tree_dofnum,
            equality: self.island_equality(),
        }
    }
}
