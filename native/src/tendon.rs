//! Fixed and spatial tendons on the native route: the model's tendon arrays in `mjModel`'s
//! layout, the tendon state (`mj_tendon`'s outputs, wrap points and `tendon_efcadr`), the
//! engine views of both, and the tendon lengths `mj_setConst` takes from a kinematics pass
//! (`docs/measurements.md` D45, D46, D58).

use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::constraint::tendon::TendonRowModel;
use specula_engine::dynamics::constraint::ConstraintModel;
use specula_engine::dynamics::reference::sparse_dot;
use specula_engine::dynamics::tendon::{tendon, TendonModel, TendonOutput, TendonScratch, TendonState};
use specula_engine::dynamics::PassiveModel;
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::{NativeError, DSBL_FRICTIONLOSS, DSBL_LIMIT};

/// The tendon arrays the engine reads, flattened as `mjModel` holds them.
#[derive(Clone, Debug, Default)]
pub struct TendonFlat {
    /// `tendon_limited` as bytes.
    pub limited: Vec<u8>,
    /// `tendon_range` (`2 ntendon`).
    pub range: Vec<f64>,
    /// `tendon_solref_lim` (`2 ntendon`).
    pub solref_lim: Vec<f64>,
    /// `tendon_solimp_lim` (`5 ntendon`).
    pub solimp_lim: Vec<f64>,
    /// `tendon_solref_fri` (`2 ntendon`).
    pub solref_fri: Vec<f64>,
    /// `tendon_solimp_fri` (`5 ntendon`).
    pub solimp_fri: Vec<f64>,
    /// `jnt_qposadr` as `i32`.
    pub jnt_qposadr: Vec<i32>,
    /// `jnt_dofadr` as `i32`.
    pub jnt_dofadr: Vec<i32>,
    /// `tendon_stiffnesspoly` (`2 ntendon`).
    pub stiffnesspoly: Vec<f64>,
    /// `tendon_dampingpoly` (`2 ntendon`).
    pub dampingpoly: Vec<f64>,
    /// `tendon_lengthspring` (`2 ntendon`).
    pub lengthspring: Vec<f64>,
}

impl TendonFlat {
    /// The flat arrays of `m`'s tendons.
    pub fn new(m: &Model) -> TendonFlat {
        TendonFlat {
            limited: m.tendon_limited.iter().map(|&l| u8::from(l)).collect(),
            range: m.tendon_range.concat(),
            solref_lim: m.tendon_solref_lim.concat(),
            solimp_lim: m.tendon_solimp_lim.concat(),
            solref_fri: m.tendon_solref_fri.concat(),
            solimp_fri: m.tendon_solimp_fri.concat(),
            jnt_qposadr: m.jnt_qposadr.iter().map(|&a| a as i32).collect(),
            jnt_dofadr: m.jnt_dofadr.iter().map(|&a| a as i32).collect(),
            stiffnesspoly: m.tendon_stiffnesspoly.concat(),
            dampingpoly: m.tendon_dampingpoly.concat(),
            lengthspring: m.tendon_lengthspring.concat(),
        }
    }
}

/// The tendon state.
#[derive(Clone, Debug, Default)]
pub struct TendonData {
    /// Length of each tendon (`ntendon`).
    pub ten_length: Vec<f64>,
    /// Jacobian non-zeros (`nJten`).
    pub ten_j: Vec<f64>,
    /// First wrap point of each tendon (`ntendon`).
    pub ten_wrapadr: Vec<i32>,
    /// Number of wrap points of each tendon (`ntendon`).
    pub ten_wrapnum: Vec<i32>,
    /// First constraint row of each tendon, -1 for none (`ntendon`).
    pub tendon_efcadr: Vec<i32>,
    /// Velocity of each tendon, `ten_J qvel` (`ntendon`).
    pub ten_velocity: Vec<f64>,
    /// Object of each wrap point (`2 nwrap`).
    pub wrap_obj: Vec<i32>,
    /// Position of each wrap point (`6 nwrap`).
    pub wrap_xpos: Vec<f64>,
    /// `mj_tendon`'s work arrays.
    pub scratch: TendonScratch,
    /// `mj_tendonBias`'s work arrays.
    pub dot: specula_engine::dynamics::tendon_dot::TendonDotScratch,
}

impl TendonData {
    /// Zeroed state for `m`.
    pub fn new(m: &Model) -> TendonData {
        let nt = m.ntendon;
        TendonData {
            ten_length: vec![0.0; nt],
            ten_j: vec![0.0; m.njten],
            ten_wrapadr: vec![0; nt],
            ten_wrapnum: vec![0; nt],
            tendon_efcadr: vec![-1; nt],
            ten_velocity: vec![0.0; nt],
            wrap_obj: vec![0; 2 * m.nwrap],
            wrap_xpos: vec![0.0; 6 * m.nwrap],
            dot: Default::default(),
            scratch: {
                let mut s = TendonScratch::default();
                s.resize(m.nv);
                s
            },
        }
    }
}

impl NativeModel {
    /// `mj_tendon`'s view.
    pub(crate) fn tendon(&self) -> TendonModel<'_> {
        let (m, t) = (&self.model, &self.tendons);
        TendonModel {
            tendon_adr: &m.tendon_adr,
            tendon_num: &m.tendon_num,
            wrap_type: &m.wrap_type,
            wrap_objid: &m.wrap_objid,
            wrap_prm: &m.wrap_prm,
            jnt_qposadr: &t.jnt_qposadr,
            jnt_dofadr: &t.jnt_dofadr,
            ten_j_rownnz: &m.ten_j_rownnz,
            ten_j_rowadr: &m.ten_j_rowadr,
            ten_j_colind: &m.ten_j_colind,
            site_bodyid: &self.flat.site_bodyid,
            geom_bodyid: &self.flat.geom_bodyid,
            geom_size: m.geom_size.as_flattened(),
            jac: self.jac(),
        }
    }

    /// The tendon rows' view.
    pub(crate) fn tendon_rows(&self) -> TendonRowModel<'_> {
        let (m, t) = (&self.model, &self.tendons);
        TendonRowModel {
            nv: m.nv,
            disable_frictionloss: m.opt.disableflags & DSBL_FRICTIONLOSS != 0,
            disable_limit: m.opt.disableflags & DSBL_LIMIT != 0,
            tendon_limited: &t.limited,
            tendon_frictionloss: &m.tendon_frictionloss,
            tendon_range: &t.range,
            tendon_margin: &m.tendon_margin,
            ten_j_rownnz: &m.ten_j_rownnz,
            ten_j_rowadr: &m.ten_j_rowadr,
            ten_j_colind: &m.ten_j_colind,
        }
    }

    /// The tendon fields of the impedance's view (the rest default).
    pub(crate) fn tendon_constraint(&self) -> ConstraintModel<'_> {
        let t = &self.tendons;
        ConstraintModel {
            tendon_invweight0: &self.consts.tendon_invweight0,
            tendon_solref_lim: &t.solref_lim,
            tendon_solimp_lim: &t.solimp_lim,
            tendon_solref_fri: &t.solref_fri,
            tendon_solimp_fri: &t.solimp_fri,
            ..ConstraintModel::default()
        }
    }
}

impl NativeModel {
    /// The tendon fields of `mj_passive`'s view (the rest default).
    pub(crate) fn tendon_passive(&self) -> PassiveModel<'_> {
        let (m, t) = (&self.model, &self.tendons);
        PassiveModel {
            tendon_stiffness: &m.tendon_stiffness,
            tendon_stiffnesspoly: &t.stiffnesspoly,
            tendon_lengthspring: &t.lengthspring,
            tendon_plasticadr: &m.tendon_plasticadr,
            tendon_damping: &m.tendon_damping,
            tendon_dampingpoly: &t.dampingpoly,
            tendon_actuatorid: &m.tendon_actuatorid,
            ten_j_rownnz: &m.ten_j_rownnz,
            ten_j_rowadr: &m.ten_j_rowadr,
            ten_j_colind: &m.ten_j_colind,
            ..PassiveModel::default()
        }
    }
}

/// The tendon velocities `ten_J qvel` (`mj_fwdVelocity`: a sparse row product per tendon).
pub(crate) fn tendon_velocity(nm: &NativeModel, qvel: &[f64], t: &mut TendonData) {
    let m = &nm.model;
    for (i, v) in t.ten_velocity.iter_mut().enumerate() {
        let (adr, nnz) = (m.ten_j_rowadr[i] as usize, m.ten_j_rownnz[i] as usize);
        *v = sparse_dot(&t.ten_j[adr..adr + nnz], &m.ten_j_colind[adr..adr + nnz], qvel);
    }
}

/// Fills the tendon lengths the compiler left to the kinematics
/// ([`Model::tendon_length_pending`]): `tendon_length0` of spatial tendons at `qpos0`, and every
/// `tendon_lengthspring` still at `(-1, -1)` with the length at `qpos_spring`, as `mj_setConst`
/// does (`docs/measurements.md` D58), and the `actuator_length0` of actuators on them.
pub(crate) fn set_lengths(nm: &mut NativeModel) {
    if !nm.model.tendon_length_pending {
        return;
    }
    let mut d = Data::new(nm);
    d.qpos.copy_from_slice(&nm.model.qpos0);
    crate::step::position(nm, &mut d);
    let len0 = d.tendon.ten_length.clone();
    d.qpos.copy_from_slice(&nm.model.qpos_spring);
    crate::step::position(nm, &mut d);
    let m = &mut nm.model;
    for (i, &l0) in len0.iter().enumerate() {
        if m.wrap_type[m.tendon_adr[i] as usize] != specula_engine::dynamics::tendon::WRAP_JOINT {
            m.tendon_length0[i] = l0;
        }
        if m.tendon_lengthspring[i] == [-1.0, -1.0] {
            m.tendon_lengthspring[i] = [d.tendon.ten_length[i]; 2];
        }
    }
    m.tendon_length_pending = false;
    // a tendon actuator's length0 is its tendon's length0 times its gear (M11)
    specula_model::compile::actuator_params::tendon_actuator_lengths(m);
    nm.tendons = TendonFlat::new(&nm.model);
}

/// `mj_tendon` at the data's positions (after kinematics and `mj_comPos`).
pub(crate) fn tendon_step(nm: &NativeModel, d: &mut Data) {
    let st = TendonState {
        qpos: &d.qpos,
        site_xpos: &d.site_xpos,
        geom_xpos: &d.geom_xpos,
        geom_xmat: &d.geom_xmat,
        jac: JacState { cdof: &d.cdof, subtree_com: &d.subtree_com },
    };
    let t = &mut d.tendon;
    let mut out = TendonOutput {
        ten_length: &mut t.ten_length,
        ten_j: &mut t.ten_j,
        ten_wrapadr: &mut t.ten_wrapadr,
        ten_wrapnum: &mut t.ten_wrapnum,
        wrap_obj: &mut t.wrap_obj,
        wrap_xpos: &mut t.wrap_xpos,
    };
    tendon(&nm.tendon(), &st, &mut t.scratch, &mut out);
}

/// Refuses tendons outside the native subset: any specula's compiler left uncompiled (springs,
/// dampers under every integrator, D61 and D85, and armature, D59, are taken).
pub fn check(m: &Model) -> Result<(), NativeError> {
    if m.ntendon == 0 {
        return Ok(());
    }
    if let Some(why) = &m.tendon_unsupported {
        return Err(NativeError::Unsupported {
            what: format!("{} tendons ({why})", m.ntendon),
            needs: "these tendons in specula's compiler",
        });
    }
    crate::tendon_armature::check(m)
}
