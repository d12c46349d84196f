//! The acceleration-stage sensors of [`crate::sensor`]: actuator, joint and tendon actuator
//! forces and limit forces (`docs/measurements.md` N27).

use specula_model::compile::sensor::kind;
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;

/// `mjCNSTR_LIMIT_JOINT`.
const LIMIT_JOINT: i32 = 3;
/// `mjCNSTR_LIMIT_TENDON`.
const LIMIT_TENDON: i32 = 4;
/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;

/// `mj_rnePostConstraint`'s outputs (computed at most once per forward pass).
#[derive(Debug, Default)]
pub struct PostConstraint {
    /// Whether it ran in this pass.
    pub(crate) done: bool,
}

impl PostConstraint {
    /// Buffers for `m`.
    pub fn new(_m: &Model) -> PostConstraint {
        PostConstraint::default()
    }
}

/// One acceleration-stage sensor.
pub(crate) fn acceleration_sensor(nm: &NativeModel, d: &mut Data, i: usize, s: &mut [f64]) {
    use kind::*;
    let m = &nm.model;
    let (ty, id) = (m.sensor_type[i], m.sensor_objid[i] as usize);
    let force = &d.actuation.actuator_force;
    match ty {
        ACTUATORFRC => {
            let adr = m.actuator_outadr[id] as usize;
            s.copy_from_slice(&force[adr..adr + s.len()]);
        }
        JOINTACTFRC => s[0] = d.qfrc_actuator[m.jnt_dofadr[id]],
        TENDONACTFRC => {
            let mut f = 0.0;
            for j in 0..m.nactuator {
                if m.actuator_trntype[j] == TRN_TENDON && m.actuator_trnid[j][0] == id as i32 {
                    f += force[m.actuator_outadr[j] as usize];
                }
            }
            s[0] = f;
        }
        JOINTLIMITFRC | TENDONLIMITFRC => {
            let e = &d.efc;
            let t = if ty == JOINTLIMITFRC { LIMIT_JOINT } else { LIMIT_TENDON };
            let row = (e.ne + e.nf..e.nefc).find(|&j| e.efc_type[j] == t && e.efc_id[j] == id as i32);
            s[0] = row.map_or(0.0, |j| e.efc_force[j]);
        }
        _ => unreachable!("sensor kinds outside the native subset are refused by check"),
    }
}
