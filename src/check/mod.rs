//! `specula check`: compile a scene with specula's Rust compiler and with MuJoCo C, and compare
//! every field both hold, then the world poses kinematics gives at `qpos0` and at random poses.

mod compare;
mod fields;
mod flat;
mod tendon_fields;

pub use compare::{close, Comparison, Field, FieldKind, Mismatch, TOL};

use std::path::Path;

use crate::mj;

/// What `specula check` found.
#[derive(Debug)]
pub enum CheckOutcome {
    /// Both compiled; the comparison of their fields.
    Compared(Comparison),
    /// Both rejected the file (MuJoCo's message, specula's message).
    BothRejected {
        /// MuJoCo's error.
        c: String,
        /// specula's error (with file, line and column).
        rust: String,
    },
    /// Only one side rejected the file.
    OneRejected {
        /// MuJoCo's error, if it rejected the file.
        c: Option<String>,
        /// specula's error, if it rejected the file.
        rust: Option<String>,
    },
}

impl CheckOutcome {
    /// Whether the two compilers agree (fields match, or both reject).
    pub fn agrees(&self) -> bool {
        match self {
            CheckOutcome::Compared(c) => c.matched(),
            CheckOutcome::BothRejected { .. } => true,
            CheckOutcome::OneRejected { .. } => false,
        }
    }
}

/// JSON has no NaN: missing or non-finite values are null.
fn num(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

impl CheckOutcome {
    /// The outcome as the JSON object `specula check --json` prints (and Python's
    /// `specula.check` returns).
    pub fn to_json(&self) -> serde_json::Value {
        let verdict = if self.agrees() { "match" } else { "differ" };
        match self {
            CheckOutcome::Compared(cmp) => {
                let list: Vec<_> = cmp
                    .mismatches
                    .iter()
                    .map(
                        |m| serde_json::json!({"field": m.field, "index": m.index, "c": num(m.c), "rust": num(m.rust)}),
                    )
                    .collect();
                serde_json::json!({"fields": cmp.fields, "values": cmp.values, "mismatches": list, "verdict": verdict,
                    "notes": cmp.notes})
            }
            CheckOutcome::BothRejected { c, rust } => serde_json::json!({"fields": 0, "values": 0, "mismatches": [],
                "verdict": verdict, "c_error": c, "rust_error": rust}),
            CheckOutcome::OneRejected { c, rust } => serde_json::json!({"fields": 0, "values": 0, "mismatches": [],
                "verdict": verdict, "c_error": c, "rust_error": rust}),
        }
    }
}

/// Every array of specula's compiled model that `check` compares, by MuJoCo's `mjModel` name,
/// as `f64` rows of `cols` values (what Python's `specula.load` returns).
pub fn model_arrays(m: &specula_model::Model) -> Vec<Field> {
    fields::rust_model_fields(m)
}

/// Specula's model with the tendon and actuator lengths its compiler leaves to the kinematics
/// (spatial tendons, `tendon_length_pending`; reference sites and slider-cranks,
/// `actuator_length_pending`) filled in by the native route's pass at `qpos0` and
/// `qpos_spring`, as `mj_setConst` fills MuJoCo's.
fn with_tendon_lengths(rm: specula_model::Model, cmp: &mut Comparison) -> specula_model::Model {
    if !rm.tendon_length_pending && !rm.actuator_length_pending {
        return rm;
    }
    if rm.tendon_length_pending {
        cmp.notes.push(
            "spatial tendon lengths (tendon_length0, tendon_lengthspring) from the native route's kinematics".into(),
        );
    }
    if rm.actuator_length_pending {
        cmp.notes.push("reference-site and slider-crank actuator_length0 from the native route's kinematics".into());
    }
    specula_native::NativeModel::new(rm).model
}

/// Number of random configurations (besides `qpos0`) at which kinematics is compared.
pub const RANDOM_POSES: usize = 5;

/// Compiles `path` with both compilers and compares them.
pub fn check_file(path: &Path) -> CheckOutcome {
    check_file_tampered(path, |_| {})
}

/// [`check_file`] with `tamper` altering the Rust model before the comparison: a test hook, to
/// prove that a difference is caught.
#[doc(hidden)]
pub fn check_file_tampered(path: &Path, tamper: impl FnOnce(&mut specula_model::Model)) -> CheckOutcome {
    let c = mj::Model::from_xml_path(path);
    // the compiler's length ranges come from a simulation, which the native crate runs; its
    // failures are compile errors, as in MuJoCo, except a model the native route cannot step
    let mut lengthrange_note = None;
    let rust = specula_model::load_file(path).map_err(|e| e.to_string()).and_then(|mut m| {
        match specula_native::lengthrange::set_length_ranges(&mut m) {
            Ok(()) => Ok(m),
            Err(specula_native::lengthrange::LengthRangeError::Native(e)) => {
                lengthrange_note = Some(e.to_string());
                Ok(m)
            }
            Err(e) => Err(e.to_string()),
        }
    });
    match (c, rust) {
        (Err(c), Err(r)) => CheckOutcome::BothRejected { c: c.to_string(), rust: r },
        (Err(c), Ok(_)) => CheckOutcome::OneRejected { c: Some(c.to_string()), rust: None },
        (Ok(_), Err(r)) => CheckOutcome::OneRejected { c: None, rust: Some(r) },
        (Ok(cm), Ok(rm)) => {
            let mut cmp = Comparison::default();
            if let Some(e) = lengthrange_note {
                cmp.notes.push(format!("actuator length ranges not computed: {e}"));
            }
            let mut rm = with_tendon_lengths(rm, &mut cmp);
            tamper(&mut rm);
            let rust_fields = fields::rust_model_fields(&rm);
            let names: Vec<&str> = rust_fields.iter().map(|f| f.name.as_str()).collect();
            cmp.add_all(&fields::c_model_fields(&cm, &names), &rust_fields);
            fields::compare_kinematics(&cm, &rm, RANDOM_POSES, &mut cmp);
            if let Some(why) = &rm.actuator_unsupported {
                cmp.notes.push(format!("actuator parameters not compared: {why}"));
            }
            if let Some(why) = &rm.eq_unsupported {
                cmp.notes.push(format!("equality parameters not compared: {why}"));
            }
            if let Some(why) = &rm.tendon_unsupported {
                cmp.notes.push(format!("tendon parameters not compared: {why}"));
            }
            if let Some(why) = &rm.sensor_unsupported {
                cmp.notes.push(format!("sensor parameters not compared: {why}"));
            }
            CheckOutcome::Compared(cmp)
        }
    }
}
