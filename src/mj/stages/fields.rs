//! The `mjData` arrays a stage writes, by name: what a comparison saves, restores and compares
//! for the stages that are compared in place (`compare.rs`).

use mujoco_sys as sys;

use super::{actuation, constraint, euler, implicit, island, kinematics, passive, reference, rk4, solver, Stage};

/// One array of `mjData`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Array {
    /// Doubles.
    F64(*mut f64),
    /// Integers.
    I32(*mut i32),
}

/// One array a stage writes: its name in `mjData`, where it is and how long.
#[derive(Clone, Copy, Debug)]
pub(super) struct Field {
    /// The `mjData` field's name.
    pub name: &'static str,
    /// Where its elements are.
    pub array: Array,
    /// Its number of elements.
    pub len: usize,
}

impl Field {
    /// A field of `len` doubles.
    pub fn f64(name: &'static str, p: *mut f64, len: usize) -> Field {
        Field { name, array: Array::F64(p), len: if p.is_null() { 0 } else { len } }
    }

    /// A field of `len` integers.
    pub fn i32(name: &'static str, p: *mut i32, len: usize) -> Field {
        Field { name, array: Array::I32(p), len: if p.is_null() { 0 } else { len } }
    }

    /// The field's elements as doubles (integers converted exactly), read from its bytes.
    pub fn decode(&self, bytes: &[u8]) -> Vec<f64> {
        match self.array {
            Array::F64(_) => {
                bytes.chunks_exact(8).map(|b| f64::from_ne_bytes(b.try_into().expect("8 bytes"))).collect()
            }
            Array::I32(_) => {
                bytes.chunks_exact(4).map(|b| f64::from(i32::from_ne_bytes(b.try_into().expect("4 bytes")))).collect()
            }
        }
    }

    /// Moves the last double of the field by one ulp (the comparison's self-test).
    pub fn tamper(&self) {
        if let (Array::F64(p), true) = (self.array, self.len > 0) {
            // SAFETY: the pointer has `len` elements (an mjData array of its documented length), none
            // borrowed elsewhere during the call.
            unsafe {
                let v = p.add(self.len - 1);
                *v = f64::from_bits((*v).to_bits() + 1);
            }
        }
    }
}

/// Whether `stage` is compared in place (`compare.rs`), with the arrays [`outputs`] names.
pub(super) fn in_place(stage: Stage) -> bool {
    !matches!(stage, Stage::Crb | Stage::FactorM | Stage::ComVel | Stage::Rne | Stage::FwdAcceleration | Stage::ComPos)
}

/// The arrays `stage` writes, read after MuJoCo's function ran (the stages compared in place;
/// empty for the others).
pub(super) fn outputs(stage: Stage, m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    match stage {
        Stage::Passive => passive::outputs(m, d),
        Stage::Transmission => actuation::transmission_outputs(m, d),
        Stage::FwdActuation => actuation::actuation_outputs(m, d),
        Stage::MakeConstraint => constraint::outputs(m, d),
        Stage::Island => island::outputs(m, d),
        Stage::ProjectConstraint => reference::project_outputs(m, d),
        Stage::ReferenceConstraint => reference::reference_outputs(m, d),
        Stage::Kinematics => kinematics::outputs(m, d),
        Stage::Euler => euler::outputs(m, d),
        Stage::Implicit => implicit::outputs(m, d),
        Stage::FwdConstraint => solver::outputs(m, d),
        Stage::RungeKutta => rk4::outputs(m, d),
        Stage::Tendon => super::tendon::outputs(m, d),
        _ => Vec::new(),
    }
}

/// The double array a test hook moves by one ulp in `stage`'s results: the last of its
/// in-place outputs, or the main result of the six stages compared on copies; `None` when the
/// stage wrote no double (islands).
pub(super) fn tamper_target(stage: Stage, m: &sys::mjModel, d: &sys::mjData) -> Option<Field> {
    let (nv, nbody) = (m.nv as usize, m.nbody as usize);
    let main = match stage {
        Stage::Crb => Field::f64("M", d.M, m.nC as usize),
        Stage::FactorM => Field::f64("qLD", d.qLD, m.nC as usize),
        Stage::ComVel => Field::f64("cvel", d.cvel, 6 * nbody),
        Stage::Rne => Field::f64("qfrc_bias", d.qfrc_bias, nv),
        Stage::FwdAcceleration => Field::f64("qacc_smooth", d.qacc_smooth, nv),
        Stage::ComPos => Field::f64("cdof", d.cdof, 6 * nv),
        _ => return outputs(stage, m, d).into_iter().rev().find(|f| matches!(f.array, Array::F64(_)) && f.len > 0),
    };
    (main.len > 0).then_some(main)
}
