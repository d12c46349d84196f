//! `mj_passive`'s body-level and contact terms on the native route: the arrays of gravity
//! compensation and the fluid models in `mjModel`'s layout, their views, and the contacts'
//! adhesion (`docs/measurements.md` N29).

use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::passive_adhesion::AdhesiveContact;
use specula_engine::dynamics::passive_body::{BodyForceModel, BodyForceState};
use specula_engine::dynamics::{self, PassiveForces, PassiveScratch, PassiveState};
use specula_model::types::Jacobian;
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::{unsupported, NativeError};

/// Refuses fluid forces under `implicit` or `implicitfast` whose velocity derivatives
/// (`mjd_passive_vel`) the native route lacks: the ellipsoid model's, and the inertia-box
/// model's on a sparse Jacobian (D86 covers the dense one).
pub(crate) fn check(m: &Model) -> Result<(), NativeError> {
    use specula_engine::dynamics::passive_deriv::{fluid_vel_on, needs_ellipsoid_vel};
    use specula_model::types::Integrator;
    if !matches!(m.opt.integrator, Integrator::Implicit | Integrator::ImplicitFast)
        || m.opt.disableflags & (crate::scope::DSBL_SPRING | crate::scope::DSBL_DAMPER)
            == crate::scope::DSBL_SPRING | crate::scope::DSBL_DAMPER
    {
        return Ok(());
    }
    let nm = NativeModel::new(m.clone());
    let body = nm.body_passive();
    if !fluid_vel_on(&body) {
        return Ok(());
    }
    if needs_ellipsoid_vel(&body) {
        unsupported(
            format!("ellipsoid fluid forces with integrator {:?}", m.opt.integrator),
            "the ellipsoid model's velocity derivative in mjd_passive_vel (mjd_ellipsoidFluid)",
        )?;
    }
    if body.sparse {
        unsupported(
            format!("fluid forces with integrator {:?} on a sparse Jacobian", m.opt.integrator),
            "the inertia-box model's sparse velocity derivative in mjd_passive_vel",
        )?;
    }
    Ok(())
}

/// The arrays gravity compensation and the fluid models read that [`crate::flat::Flat`] lacks.
#[derive(Clone, Debug, Default)]
pub struct PassiveFlat {
    /// `body_geomnum`.
    body_geomnum: Vec<i32>,
    /// `geom_type`.
    geom_type: Vec<i32>,
    /// `geom_size`, flat.
    geom_size: Vec<f64>,
    /// `geom_fluid`, flat (12 per geom).
    geom_fluid: Vec<f64>,
    /// `jnt_actgravcomp` as bytes.
    jnt_actgravcomp: Vec<u8>,
}

impl PassiveFlat {
    /// The arrays of `m`.
    pub fn new(m: &Model) -> PassiveFlat {
        PassiveFlat {
            body_geomnum: m.body_geomnum.iter().map(|&n| n as i32).collect(),
            geom_type: m.geom_type.iter().map(|&t| t as i32).collect(),
            geom_size: m.geom_size.iter().flatten().copied().collect(),
            geom_fluid: m.geom_fluid.iter().flatten().copied().collect(),
            jnt_actgravcomp: m.jnt_actgravcomp.iter().map(|&a| u8::from(a)).collect(),
        }
    }
}

impl NativeModel {
    /// The body-level view of `mj_passive`.
    pub(crate) fn body_passive(&self) -> BodyForceModel<'_> {
        let (m, f, p) = (&self.model, &self.flat, &self.passive);
        let opt = &m.opt;
        BodyForceModel {
            gravity: opt.gravity,
            wind: opt.wind,
            density: opt.density,
            viscosity: opt.viscosity,
            disable_gravity: opt.disableflags & crate::scope::DSBL_GRAVITY != 0,
            flg_gravcomp: u8::from(m.flg_gravcomp),
            sparse: opt.jacobian == Jacobian::Sparse || (opt.jacobian == Jacobian::Auto && m.nv >= 60),
            body_mass: &m.body_mass,
            body_gravcomp: &m.body_gravcomp,
            body_inertia: &f.body_inertia,
            body_geomnum: &p.body_geomnum,
            body_geomadr: &m.body_geomadr,
            geom_type: &p.geom_type,
            geom_size: &p.geom_size,
            geom_fluid: &p.geom_fluid,
            jnt_actgravcomp: &p.jnt_actgravcomp,
            jac: self.jac(),
        }
    }
}

/// `mj_passive`'s buffers on the native route.
#[derive(Clone, Debug, Default)]
pub(crate) struct PassiveData {
    /// The engine's scratch.
    scratch: PassiveScratch,
    /// The contacts' fields adhesion reads.
    contacts: Vec<AdhesiveContact>,
}

/// `mj_passive`: springs, dampers, gravity compensation, fluid forces and adhesion into `d`.
pub(crate) fn passive(nm: &NativeModel, d: &mut Data) {
    let PassiveData { mut scratch, mut contacts } = std::mem::take(&mut d.passive);
    contacts.clear();
    // the collision stage's adhesion with the exclusion mj_makeConstraint left
    contacts.extend(d.collided.iter().zip(&d.contacts).map(|(c, r)| AdhesiveContact {
        pos: c.pos,
        frame: c.frame,
        geom: c.geom,
        adhesion: c.adhesion,
        exclude: r.exclude,
    }));
    let t = &d.tendon;
    let body = BodyForceState {
        cvel: &d.cvel,
        xipos: &d.xipos,
        ximat: &d.ximat,
        geom_xpos: &d.geom_xpos,
        geom_xmat: &d.geom_xmat,
        jac: JacState { cdof: &d.cdof, subtree_com: &d.subtree_com },
    };
    let state = PassiveState {
        qpos: &d.qpos,
        qvel: &d.qvel,
        ten_length: &t.ten_length,
        ten_velocity: &t.ten_velocity,
        ten_j: &t.ten_j,
        body,
        contacts: &contacts,
        ..PassiveState::default()
    };
    let mut forces = PassiveForces {
        qfrc_spring: &mut d.qfrc_spring,
        qfrc_damper: &mut d.qfrc_damper,
        qfrc_gravcomp: &mut d.qfrc_gravcomp,
        qfrc_fluid: &mut d.qfrc_fluid,
        qfrc_adhesion: &mut d.qfrc_adhesion,
        qfrc_passive: &mut d.qfrc_passive,
    };
    dynamics::passive(&nm.passive(), &state, &mut forces, &mut scratch);
    d.passive = PassiveData { scratch, contacts };
}
