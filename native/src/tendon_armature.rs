//! Tendon armature on the native route: `mj_makeM`'s second half (after `mj_crb`), which adds
//! each tendon's armature through its Jacobian to the inertia `M`, in the step and in the
//! constants' pass at `qpos0` (`docs/measurements.md` D59).

use specula_engine::dynamics::tendon::WRAP_JOINT;
use specula_engine::dynamics::tendon_armature::{tendon_armature, TendonArmatureModel};
use specula_engine::dynamics::TreeModel;
use specula_model::Model;

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

/// Refuses armature that actuators add to tendons (`mj_actuatorArmature` on a tendon), which
/// [`add`] does not include, and armature on spatial tendons: their bias force
/// `armature J' (dJ/dt qvel)` (`mj_tendonBias` after `mj_rne`) is not on the native route (a
/// fixed tendon's Jacobian is constant, so it adds nothing there).
pub fn check(m: &Model) -> Result<(), NativeError> {
    let spatial = |k: usize| m.wrap_type[m.tendon_adr[k] as usize] != WRAP_JOINT;
    // a spatial tendon whose Jacobian pattern is empty (every point of its path on a body welded
    // to the world) has no bias force and adds nothing to M
    let moves = |k: usize| m.ten_j_rownnz.get(k).is_none_or(|&n| n > 0);
    if let Some(k) = (0..m.ntendon).find(|&k| m.tendon_armature[k] != 0.0 && spatial(k) && moves(k)) {
        return Err(NativeError::Unsupported {
            what: format!("armature on spatial tendon {k}"),
            needs: "the tendon bias force of mj_tendonBias (mj_tendonDot)",
        });
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
