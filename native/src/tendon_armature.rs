//! Tendon armature on the native route: `mj_makeM`'s second half (after `mj_crb`), which adds
//! each tendon's armature through its Jacobian to the inertia `M`, in the step and in the
//! constants' pass at `qpos0` (`docs/measurements.md` D59); and `mj_tendonBias` after `mj_rne`,
//! the bias force of armature on spatial tendons of sites (D87).

use specula_engine::dynamics::tendon::WRAP_JOINT;
use specula_engine::dynamics::tendon_armature::{tendon_armature, TendonArmatureModel};
use specula_engine::dynamics::tendon_dot::{tendon_bias, TendonBiasModel, TendonDotModel};
use specula_engine::dynamics::tendon_spatial::WRAP_PULLEY;
use specula_engine::dynamics::wrap::{WRAP_CYLINDER, WRAP_SPHERE};
use specula_engine::dynamics::TreeModel;
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;

/// Adds the tendon armature to `mass` (`d->M` in `tree`'s layout) at the tendon Jacobians
/// `ten_j`; nothing without tendon armature.
pub(crate) fn add(nm: &NativeModel, tree: &TreeModel, ten_j: &[f64], mass: &mut [f64]) {
    let m = &nm.model;
    if !m.tendon_armature.iter().any(|&a| a != 0.0) {
        return;
    }
    let t = TendonArmatureModel {
        armature: &m.tendon_armature,
        ten_j_rownnz: &m.ten_j_rownnz,
        ten_j_rowadr: &m.ten_j_rowadr,
        ten_j_colind: &m.ten_j_colind,
    };
    tendon_armature(tree, &t, ten_j, mass);
}

/// `mj_tendonBias`: adds the armature bias force of spatial tendons to `qfrc_bias`; nothing
/// without tendon armature ([`check`] keeps the tendons to sites and dense Jacobians).
pub(crate) fn bias(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    if !m.tendon_armature.iter().any(|&a| a != 0.0) {
        return;
    }
    let t = TendonDotModel {
        tendon_adr: &m.tendon_adr,
        tendon_num: &m.tendon_num,
        wrap_type: &m.wrap_type,
        wrap_objid: &m.wrap_objid,
        wrap_prm: &m.wrap_prm,
        site_bodyid: &nm.flat.site_bodyid,
    };
    let b = TendonBiasModel {
        armature: &m.tendon_armature,
        ten_j_rownnz: &m.ten_j_rownnz,
        ten_j_rowadr: &m.ten_j_rowadr,
        ten_j_colind: &m.ten_j_colind,
    };
    let (em, jm, st) = (nm.equality(), nm.jac(), crate::equality::equality_state!(d));
    tendon_bias(&t, &b, &em, &jm, &st, &d.tendon.ten_j, &mut d.tendon.dot, &mut d.qfrc_bias);
}

/// Refuses armature that actuators add to tendons (`mj_actuatorArmature` on a tendon), which
/// [`add`] does not include, and armature on spatial tendons that [`bias`] does not cover: geom
/// wrapping (`mj_tendonDot` has no derivative of the wrap), pulleys (not compared yet) and sparse
/// Jacobians (`mj_jacDotSparse`'s order).
pub fn check(m: &Model) -> Result<(), NativeError> {
    // a spatial tendon whose Jacobian pattern is empty (every point of its path on a body welded
    // to the world) has no bias force and adds nothing to M
    let moves = |k: usize| m.ten_j_rownnz.get(k).is_none_or(|&n| n > 0);
    let path = |k: usize| {
        let adr = m.tendon_adr[k] as usize;
        &m.wrap_type[adr..adr + m.tendon_num[k] as usize]
    };
    let spatial = |k: usize| path(k)[0] != WRAP_JOINT;
    let armed = |k: usize| m.tendon_armature[k] != 0.0 && spatial(k) && moves(k);
    let jacobian = m.opt.jacobian as i32;
    let sparse = jacobian == 1 || (jacobian == 2 && m.nv >= 60);
    for k in (0..m.ntendon).filter(|&k| armed(k)) {
        let why = if path(k).iter().any(|&w| w == WRAP_SPHERE || w == WRAP_CYLINDER) {
            "mj_tendonDot of a wrapping geom (MuJoCo errors)"
        } else if path(k).contains(&WRAP_PULLEY) {
            "mj_tendonDot through a pulley"
        } else if sparse {
            "mj_tendonDot with sparse Jacobians (mj_jacDotSparse)"
        } else {
            continue;
        };
        return Err(NativeError::Unsupported { what: format!("armature on spatial tendon {k}"), needs: why });
    }
    let on_tendon = |a: usize| m.actuator_trntype.get(a) == Some(&TRN_TENDON);
    match m.actuator_armature.iter().enumerate().position(|(a, &x)| x != 0.0 && on_tendon(a)) {
        Some(a) => Err(NativeError::Unsupported {
            what: format!("armature of actuator {a} on a tendon"),
            needs: "actuator armature on tendons in mj_makeM",
        }),
        None => Ok(()),
    }
}
