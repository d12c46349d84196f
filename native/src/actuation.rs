//! Actuators on the native route: joint- (every joint type) and tendon-transmission actuators driven by `ctrl`,
//! through the engine's `mj_transmission` and `mj_fwdActuation` stages.
//!
//! What is taken: actuators specula's compiler compiles (`Model::actuator_unsupported` is
//! `None`) on joints or tendons, with affine or muscle gain and bias and no, integrator, filter,
//! exact-filter or muscle dynamics (a muscle gain not under an implicit integrator), PID
//! controllers, and DC motors (not under an implicit integrator, no LuGre bristle), adding
//! neither armature nor damping to their joint
//! (`jnt_actuatorid` all -1). Everything else is refused by [`check`].
//!
//! Per step ([`forward_actuation`]): lengths and moments from `qpos` (`mj_transmission`), then
//! the velocities `actuator_velocity = moment qvel` (`mj_fwdVelocity`'s sparse row products), then `act_dot`, `actuator_force` and
//! `qfrc_actuator` (`mj_fwdActuation`).

use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::reference::sparse_dot;
use specula_engine::dynamics::transmission_body::{BodyModel, BodyState};
use specula_engine::dynamics::transmission_site::{SiteModel, SiteState};
use specula_engine::dynamics::{
    actuation_in_scope, fwd_actuation, transmission_in_scope_with, transmission_with, ActuationInput, ActuationOutput,
    ActuatorModel, TransmissionModel, TransmissionOutput, TransmissionScratch, TransmissionState,
};
use specula_model::types::{Integrator, JointType};
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// The actuator arrays of `mjModel` the two stages read, in its integer and byte layout.
#[derive(Clone, Debug, Default)]
pub struct Actuators {
    /// Joint force limits, as bytes.
    jnt_actfrclimited: Vec<u8>,
    /// Joint force ranges (`2 njnt`).
    jnt_actfrcrange: Vec<f64>,
    /// Joint gravity compensation through actuators, as bytes.
    jnt_actgravcomp: Vec<u8>,
    /// `actuator_trntype`, `dyntype`, `gaintype`, `biastype`, `ctrladr`, `ctrlnum`, `outadr`,
    /// `outnum`, `actadr`, `actnum`, `group`, `plugin` (`nactuator` each).
    ints: [Vec<i32>; 12],
    /// `actuator_trnid` (`2 nactuator`).
    trnid: Vec<i32>,
    /// `actuator_dynprm`, `gainprm`, `biasprm` (`10 nactuator` each).
    prm: [Vec<f64>; 3],
    /// `actuator_actlimited`, `actearly`, `forcelimited`, `ctrllimited` as bytes.
    flags: [Vec<u8>; 4],
    /// `actuator_actrange`, `forcerange`, `ctrlrange` (`2 nactuator` each).
    ranges: [Vec<f64>; 3],
    /// `actuator_delay` (all zero).
    delay: Vec<f64>,
    /// `actuator_gear` (`6 nactuator`).
    gear: Vec<f64>,
    /// `actuator_acc0` (`nactuator`).
    pub(crate) acc0: Vec<f64>,
    /// `actuator_lengthrange` (`2 nactuator`).
    lengthrange: Vec<f64>,
    /// `tendon_actfrclimited`, as bytes.
    ten_actfrclimited: Vec<u8>,
    /// Moment non-zeros (`nJmom`).
    njmom: usize,
}

/// `nJmom`: the moment non-zeros of `m`'s actuators (a joint its dofs, a tendon its Jacobian
/// row, a body every dof).
fn moment_nnz(m: &Model) -> usize {
    let row = |i: usize| match (m.actuator_trntype[i], m.actuator_trnid[i][0] as usize) {
        (3, t) => m.ten_j_rownnz.get(t).map_or(0, |&n| n as usize),
        // a site, slider-crank or body row is at most every dof
        (2 | 4 | 5, _) => m.nv,
        (_, j) => match m.jnt_type.get(j) {
            Some(JointType::Free) => 6,
            Some(JointType::Ball) => 3,
            _ => 1,
        },
    };
    (0..m.actuator_trntype.len()).map(row).sum()
}

/// Flattens rows of `N` values.
fn rows<const N: usize>(v: &[[f64; N]]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

/// Booleans as the bytes `mjModel` stores.
fn bytes(v: &[bool]) -> Vec<u8> {
    v.iter().map(|&b| u8::from(b)).collect()
}

impl Actuators {
    /// The arrays of a model [`check`] accepted.
    pub fn new(m: &Model) -> Actuators {
        let n = m.nactuator;
        Actuators {
            jnt_actfrclimited: bytes(&m.jnt_actfrclimited),
            jnt_actfrcrange: rows(&m.jnt_actfrcrange),
            jnt_actgravcomp: bytes(&m.jnt_actgravcomp),
            ints: [
                m.actuator_trntype.clone(),
                m.actuator_dyntype.clone(),
                m.actuator_gaintype.clone(),
                m.actuator_biastype.clone(),
                m.actuator_ctrladr.clone(),
                m.actuator_ctrlnum.clone(),
                m.actuator_outadr.clone(),
                m.actuator_outnum.clone(),
                m.actuator_actadr.clone(),
                m.actuator_actnum.clone(),
                m.actuator_group.clone(),
                vec![-1; n],
            ],
            trnid: m.actuator_trnid.iter().flatten().copied().collect(),
            prm: [rows(&m.actuator_dynprm), rows(&m.actuator_gainprm), rows(&m.actuator_biasprm)],
            flags: [
                bytes(&m.actuator_actlimited),
                bytes(&m.actuator_actearly),
                bytes(&m.actuator_forcelimited),
                bytes(&m.actuator_ctrllimited),
            ],
            ranges: [rows(&m.actuator_actrange), rows(&m.actuator_forcerange), rows(&m.actuator_ctrlrange)],
            delay: vec![0.0; n],
            gear: rows(&m.actuator_gear),
            acc0: vec![0.0; n],
            lengthrange: rows(&m.actuator_lengthrange),
            ten_actfrclimited: bytes(&m.tendon_actfrclimited),
            njmom: moment_nnz(m),
        }
    }
}

impl NativeModel {
    /// `mj_transmission`'s view of the tendons, sites and bodies.
    pub(crate) fn transmission_model(&self) -> TransmissionModel<'_> {
        let (m, f) = (&self.model, &self.flat);
        TransmissionModel {
            ten_j_rownnz: &m.ten_j_rownnz,
            ten_j_rowadr: &m.ten_j_rowadr,
            ten_j_colind: &m.ten_j_colind,
            nsite: m.nsite,
            site: SiteModel {
                site_bodyid: &f.site_bodyid,
                site_quat: &f.site_quat,
                actuator_cranklength: &m.actuator_cranklength,
                jac: self.jac(),
            },
            body: BodyModel {
                geom_bodyid: &f.geom_bodyid,
                nbody: m.nbody,
                elliptic: m.opt.cone as i32 != 0,
                sparse: crate::constraint::is_sparse(self),
            },
        }
    }

    /// The actuator stages' view.
    pub fn actuator_model(&self) -> ActuatorModel<'_> {
        let (m, f, a) = (&self.model, &self.flat, &self.actuators);
        let opt = &m.opt;
        let [trntype, dyntype, gaintype, biastype, ctrladr, ctrlnum, outadr, outnum, actadr, actnum, group, plugin] =
            &a.ints;
        ActuatorModel {
            nq: m.nq,
            nv: m.nv,
            nu: m.nu,
            na: m.na,
            nout: m.nactuator,
            njmom: a.njmom,
            ntendon: m.ntendon,
            timestep: opt.timestep,
            disableflags: opt.disableflags as i32,
            disableactuator: opt.disableactuator as i32,
            gravity: opt.gravity,
            flg_gravcomp: m.flg_gravcomp,
            jnt_type: &f.jnt_type,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_dofadr: &f.jnt_dofadr,
            jnt_actfrclimited: &a.jnt_actfrclimited,
            jnt_actfrcrange: &a.jnt_actfrcrange,
            jnt_actgravcomp: &a.jnt_actgravcomp,
            tendon_actfrclimited: &a.ten_actfrclimited,
            actuator_trntype: trntype,
            actuator_dyntype: dyntype,
            actuator_gaintype: gaintype,
            actuator_biastype: biastype,
            actuator_ctrladr: ctrladr,
            actuator_ctrlnum: ctrlnum,
            actuator_ctrlspec: &m.actuator_ctrlspec,
            actuator_outadr: outadr,
            actuator_outnum: outnum,
            actuator_actadr: actadr,
            actuator_actnum: actnum,
            actuator_trnid: &a.trnid,
            actuator_group: group,
            actuator_plugin: plugin,
            actuator_dynprm: &a.prm[0],
            actuator_gainprm: &a.prm[1],
            actuator_biasprm: &a.prm[2],
            actuator_actlimited: &a.flags[0],
            actuator_actrange: &a.ranges[0],
            actuator_actearly: &a.flags[1],
            actuator_delay: &a.delay,
            actuator_forcelimited: &a.flags[2],
            actuator_forcerange: &a.ranges[1],
            actuator_ctrllimited: &a.flags[3],
            actuator_ctrlrange: &a.ranges[2],
            actuator_gear: &a.gear,
            actuator_acc0: &a.acc0,
            actuator_lengthrange: &a.lengthrange,
        }
    }
}

/// The actuator part of the state: controls (the caller's input) and what the two stages write.
#[derive(Clone, Debug, Default)]
pub struct ActuatorData {
    /// Controls (`nu`), an input the caller sets.
    pub ctrl: Vec<f64>,
    /// Actuator lengths (`nu`).
    pub actuator_length: Vec<f64>,
    /// Actuator velocities (`nu`).
    pub actuator_velocity: Vec<f64>,
    /// Actuator forces (`nu`).
    pub actuator_force: Vec<f64>,
    /// Non-zeros of each moment row (`nu`).
    pub moment_rownnz: Vec<i32>,
    /// Start of each moment row (`nu`).
    pub moment_rowadr: Vec<i32>,
    /// Dof of each moment non-zero (`nJmom`).
    pub moment_colind: Vec<i32>,
    /// Moment non-zeros (`nJmom`).
    pub actuator_moment: Vec<f64>,
    /// The clamped copy of the controls `mj_fwdActuation` works on.
    ctrl_work: Vec<f64>,
    /// `mj_transmission`'s scratch.
    scratch: TransmissionScratch,
}

impl ActuatorData {
    /// Zeroed arrays for `m`.
    pub fn new(m: &Model) -> ActuatorData {
        let n = m.nactuator;
        ActuatorData {
            ctrl: vec![0.0; m.nu],
            actuator_length: vec![0.0; n],
            actuator_velocity: vec![0.0; n],
            actuator_force: vec![0.0; n],
            moment_rownnz: vec![0; n],
            moment_rowadr: vec![0; n],
            moment_colind: vec![0; moment_nnz(m)],
            actuator_moment: vec![0.0; moment_nnz(m)],
            ctrl_work: vec![0.0; m.nu],
            scratch: TransmissionScratch::default(),
        }
    }
}

/// Refuses actuators the native route does not take yet (see the module documentation).
pub fn check(m: &Model) -> Result<(), NativeError> {
    if m.nactuator == 0 {
        return Ok(());
    }
    let refuse = |what: String| Err(NativeError::Unsupported { what, needs: "actuators beyond affine joint ones" });
    if let Some(why) = &m.actuator_unsupported {
        return refuse(format!("actuators specula's compiler does not compile: {why}"));
    }
    // each actuator's control block is checked against nu by the engine's scope below (DC motors
    // and PID actuators take several)
    if m.actuator_trntype.len() != m.nactuator || m.actuator_ctrlnum.len() != m.nactuator {
        return refuse("actuators without compiled arrays".into());
    }
    if let Some(j) = m.jnt_actuatorid.iter().position(|&a| a != -1) {
        return refuse(format!("actuator armature or damping on joint {j}"));
    }
    // 4.0.0's mjd_actuator_vel differentiates the muscle gain in velocity, which the engine's
    // implicit integrators do not (they take fixed and affine gains); with actuation off (the
    // length-range simulations) it adds nothing
    let implicit = matches!(m.opt.integrator, Integrator::Implicit | Integrator::ImplicitFast)
        && m.opt.disableflags & (1 << 11) == 0;
    if implicit && m.actuator_gaintype.contains(&2) {
        return Err(NativeError::Unsupported {
            what: "a muscle actuator under an implicit integrator".into(),
            needs: "the muscle gain's velocity derivative of mjd_actuator_vel",
        });
    }
    // DC motors (D88-D90): mjd_actuator_vel has terms of its own for them, and the advance
    // integrates a DC motor's bristle with the actuator velocity (D90); a PID's velocity
    // derivative is its affine bias's alone (D91), which the implicit stage takes
    let dc = |i: usize| m.actuator_dyntype[i] == 5 || m.actuator_gaintype[i] == 3 || m.actuator_biastype[i] == 3;
    if implicit && (0..m.nactuator).any(dc) {
        return Err(NativeError::Unsupported {
            what: "a DC motor actuator under an implicit integrator".into(),
            needs: "their velocity derivatives in mjd_actuator_vel",
        });
    }
    if let Some(i) = (0..m.nactuator).find(|&i| m.actuator_dyntype[i] == 5 && m.actuator_dynprm[i][5] > 0.0) {
        return Err(NativeError::Unsupported {
            what: format!("a DC motor with a LuGre bristle (actuator {i})"),
            needs: "the actuator velocity in the advance's mj_nextActivation",
        });
    }
    let nm = NativeModel::new(m.clone());
    let am = nm.actuator_model();
    if !transmission_in_scope_with(&am, &nm.transmission_model(), &mut TransmissionScratch::default()) {
        return refuse("a transmission outside mj_transmission's joint subset".into());
    }
    let d = ActuatorData::new(m);
    let qfrc_gravcomp = vec![0.0; m.nv];
    let input = ActuationInput {
        ctrl: &d.ctrl,
        act: &[],
        actuator_length: &d.actuator_length,
        actuator_velocity: &d.actuator_velocity,
        moment_rownnz: &d.moment_rownnz,
        moment_rowadr: &d.moment_rowadr,
        moment_colind: &d.moment_colind,
        actuator_moment: &d.actuator_moment,
        qfrc_gravcomp: &qfrc_gravcomp,
    };
    if !actuation_in_scope(&am, &input) {
        return refuse("dynamics, gain or bias outside mj_fwdActuation's affine and muscle subset".into());
    }
    Ok(())
}

/// The state `mj_transmission` reads from `d` (positions, tendons, sites, contacts and rows).
pub(crate) fn transmission_state<'a>(nm: &NativeModel, d: &'a Data) -> TransmissionState<'a> {
    let e = &d.efc;
    let sparse = crate::constraint::is_sparse(nm);
    let none: &[i32] = &[];
    TransmissionState {
        qpos: &d.qpos,
        ten_length: &d.tendon.ten_length,
        ten_j: &d.tendon.ten_j,
        site: SiteState {
            site_xpos: &d.site_xpos,
            site_xmat: &d.site_xmat,
            xquat: &d.xquat,
            jac: JacState { cdof: &d.cdof, subtree_com: &d.subtree_com },
        },
        body: BodyState {
            contacts: &d.contacts,
            nefc: e.nefc,
            efc_j: &e.efc_j,
            efc_j_rownnz: if sparse { &e.efc_j_rownnz } else { none },
            efc_j_rowadr: if sparse { &e.efc_j_rowadr } else { none },
            efc_j_colind: if sparse { &e.efc_j_colind } else { none },
        },
    }
}

/// `mj_transmission` at the state of `d` into `ad`'s lengths and moment rows.
fn transmit(nm: &NativeModel, am: &ActuatorModel, d: &Data, ad: &mut ActuatorData) {
    let mut t = TransmissionOutput {
        actuator_length: &mut ad.actuator_length,
        moment_rownnz: &mut ad.moment_rownnz,
        moment_rowadr: &mut ad.moment_rowadr,
        moment_colind: &mut ad.moment_colind,
        actuator_moment: &mut ad.actuator_moment,
    };
    transmission_with(am, &nm.transmission_model(), &transmission_state(nm, d), &mut ad.scratch, &mut t);
}

/// The lengths and moment rows `mj_transmission` gives at the state of `d` (`mj_setConst`'s
/// pass: no collision has run, so a body row is empty), `None` when a transmission is outside
/// its subset.
pub(crate) fn transmission_at(nm: &NativeModel, d: &Data) -> Option<ActuatorData> {
    let am = nm.actuator_model();
    if !transmission_in_scope_with(&am, &nm.transmission_model(), &mut TransmissionScratch::default()) {
        return None;
    }
    let mut ad = ActuatorData::new(&nm.model);
    transmit(nm, &am, d, &mut ad);
    Some(ad)
}

/// Fills the `actuator_length0` the compiler left to the kinematics
/// ([`Model::actuator_length_pending`]: reference-site and slider-crank transmissions) with the
/// lengths `mj_transmission` gives at `qpos0`, as `mj_setConst` does.
pub(crate) fn set_lengths(nm: &mut NativeModel) {
    if !nm.model.actuator_length_pending {
        return;
    }
    let mut d = Data::new(nm);
    d.qpos.copy_from_slice(&nm.model.qpos0);
    crate::step::position(nm, &mut d);
    let Some(ad) = transmission_at(nm, &d) else { return };
    let m = &mut nm.model;
    for (i, &len) in ad.actuator_length.iter().enumerate() {
        if matches!(m.actuator_trntype[i], 2 | 4) {
            m.actuator_length0[i] = len;
        }
    }
    m.actuator_length_pending = false;
}

/// `mj_transmission`, the actuator velocities of `mj_fwdVelocity` and `mj_fwdActuation`:
/// writes `act_dot`, `actuator_*` and `qfrc_actuator` of `d` from its positions, velocities,
/// activations, contacts, controls and the gravity compensation of joints that take it through
/// their actuators.
pub(crate) fn forward_actuation(nm: &NativeModel, d: &mut Data) {
    let am = nm.actuator_model();
    let mut ad = std::mem::take(&mut d.actuation);
    let mut act_dot = std::mem::take(&mut d.act_dot);
    let mut qfrc_actuator = std::mem::take(&mut d.qfrc_actuator);
    actuate(nm, &am, d, &mut ad, &mut act_dot, &mut qfrc_actuator);
    (d.actuation, d.act_dot, d.qfrc_actuator) = (ad, act_dot, qfrc_actuator);
}

/// [`forward_actuation`]'s body, with the arrays it writes taken out of `d`.
fn actuate(
    nm: &NativeModel,
    am: &ActuatorModel,
    d: &Data,
    ad: &mut ActuatorData,
    act_dot: &mut [f64],
    qfrc_actuator: &mut [f64],
) {
    let (qvel, act, qfrc_gravcomp) = (&d.qvel[..], &d.act[..], &d.qfrc_gravcomp[..]);
    transmit(nm, am, d, ad);
    for k in 0..am.nout {
        let (adr, nnz) = (ad.moment_rowadr[k] as usize, ad.moment_rownnz[k] as usize);
        ad.actuator_velocity[k] =
            sparse_dot(&ad.actuator_moment[adr..adr + nnz], &ad.moment_colind[adr..adr + nnz], qvel);
    }
    let input = ActuationInput {
        ctrl: &ad.ctrl,
        act,
        actuator_length: &ad.actuator_length,
        actuator_velocity: &ad.actuator_velocity,
        moment_rownnz: &ad.moment_rownnz,
        moment_rowadr: &ad.moment_rowadr,
        moment_colind: &ad.moment_colind,
        actuator_moment: &ad.actuator_moment,
        qfrc_gravcomp,
    };
    let mut out = ActuationOutput { act_dot, actuator_force: &mut ad.actuator_force, qfrc_actuator };
    // a bad control is zeroed inside, as MuJoCo does (its warning is not kept on this route)
    let _ = fwd_actuation(am, &input, &mut ad.ctrl_work, &mut out);
}
