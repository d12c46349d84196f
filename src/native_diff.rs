//! The native route against MuJoCo C (`specula diff --route native`): the same scene stepped by
//! specula's native step and by `mj_step`, from the same start, compared after every step array
//! by array, bit for bit; the first step, array and entry that differ are reported.

use specula_native::{Native, NativeError};

use crate::mj::{Data, Model};
use crate::report::Start;

/// The arrays compared after every step, by MuJoCo's names: the state and the forward pass's
/// results (the time and the number of contacts are compared too).
pub const FIELDS: [&str; 21] = [
    "qpos",
    "qvel",
    "qacc",
    "qacc_smooth",
    "qfrc_smooth",
    "qfrc_bias",
    "qfrc_passive",
    "qfrc_spring",
    "qfrc_damper",
    "qfrc_constraint",
    "M",
    "qLD",
    "qLDiagInv",
    "qacc_warmstart",
    "xpos",
    "xquat",
    "xipos",
    "subtree_com",
    "cvel",
    "cdof_dot",
    "sensordata",
];

/// What to compare.
#[derive(Clone, Debug)]
pub struct NativeDiffOptions {
    /// Steps to run on both routes.
    pub steps: usize,
    /// Initial state of both.
    pub start: Start,
    /// Test hook: before this step (1-based), flip the lowest bit of the native route's
    /// `qvel[0]`, so a check can see the comparison fail.
    pub tamper: Option<usize>,
}

/// The first entry whose bits differ between the routes.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeDifference {
    /// The step after which it differs (1-based).
    pub step: usize,
    /// The array, by MuJoCo's name (or `time`).
    pub field: &'static str,
    /// The entry.
    pub index: usize,
    /// The native route's value.
    pub native: f64,
    /// MuJoCo's value.
    pub c: f64,
}

/// The outcome of [`diff_native`].
#[derive(Clone, Debug, PartialEq)]
pub struct NativeDiffReport {
    /// Steps run on both routes.
    pub steps: usize,
    /// Values compared bit for bit.
    pub values: u64,
    /// Contacts the native route made over the compared steps (each step's count is compared
    /// with MuJoCo's `ncon`).
    pub contacts: u64,
    /// The first difference, if any.
    pub first: Option<NativeDifference>,
    /// Both routes found a diverged state (NaN or beyond `mjMAXVAL`) in the same step and the
    /// comparison stopped there: what the native route said.
    pub stopped: Option<String>,
}

impl NativeDiffReport {
    /// Whether every compared value was equal bit for bit.
    pub fn matches(&self) -> bool {
        self.first.is_none()
    }

    /// The report as the JSON object `specula diff --route native --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        let first = self.first.as_ref().map(
            |d| serde_json::json!({"step": d.step, "field": d.field, "index": d.index, "native": d.native, "c": d.c}),
        );
        serde_json::json!({
            "route": "native",
            "verdict": if self.matches() { "match" } else { "differ" },
            "steps": self.steps,
            "fields": FIELDS,
            "values": self.values,
            "contacts": self.contacts,
            "first": first,
            "stopped": self.stopped,
        })
    }
}

/// The native data's array `name` (one of [`FIELDS`]; empty for another name).
pub fn native_field<'a>(d: &'a specula_native::Data, name: &str) -> &'a [f64] {
    match name {
        "qpos" => &d.qpos,
        "qvel" => &d.qvel,
        "qacc" => &d.qacc,
        "qacc_smooth" => &d.qacc_smooth,
        "qfrc_smooth" => &d.qfrc_smooth,
        "qfrc_bias" => &d.qfrc_bias,
        "qfrc_passive" => &d.qfrc_passive,
        "qfrc_spring" => &d.qfrc_spring,
        "qfrc_damper" => &d.qfrc_damper,
        "qfrc_constraint" => &d.qfrc_constraint,
        "M" => &d.m,
        "qLD" => &d.qld,
        "qLDiagInv" => &d.qld_diag_inv,
        "qacc_warmstart" => &d.qacc_warmstart,
        "xpos" => &d.xpos,
        "xquat" => &d.xquat,
        "xipos" => &d.xipos,
        "subtree_com" => &d.subtree_com,
        "cvel" => &d.cvel,
        "cdof_dot" => &d.cdof_dot,
        "sensordata" => &d.sensor.sensordata,
        _ => &[],
    }
}

/// MuJoCo's array `name` (one of [`FIELDS`]) with `len` entries (empty for another name or an
/// empty array).
pub fn c_field<'a>(d: &'a Data, name: &str, len: usize) -> &'a [f64] {
    let raw = d.mj();
    let p = match name {
        "qpos" => raw.qpos,
        "qvel" => raw.qvel,
        "qacc" => raw.qacc,
        "qacc_smooth" => raw.qacc_smooth,
        "qfrc_smooth" => raw.qfrc_smooth,
        "qfrc_bias" => raw.qfrc_bias,
        "qfrc_passive" => raw.qfrc_passive,
        "qfrc_spring" => raw.qfrc_spring,
        "qfrc_damper" => raw.qfrc_damper,
        "qfrc_constraint" => raw.qfrc_constraint,
        "M" => raw.M,
        "qLD" => raw.qLD,
        "qLDiagInv" => raw.qLDiagInv,
        "qacc_warmstart" => raw.qacc_warmstart,
        "xpos" => raw.xpos,
        "xquat" => raw.xquat,
        "xipos" => raw.xipos,
        "subtree_com" => raw.subtree_com,
        "cvel" => raw.cvel,
        "cdof_dot" => raw.cdof_dot,
        "sensordata" => raw.sensordata,
        _ => return &[],
    };
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: both routes size these arrays from the same model (nq, nv, nbody, and the
    // reduced nnz of M, whose layout the native route derives as MuJoCo does, and
    // nsensordata), so MuJoCo's
    // holds at least the native array's `len` entries; `diff_native` checked nq, nv and nbody.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// Steps `native` and MuJoCo's `mj_step` on `c` (two compilations of the same scene) side by
/// side from `opts.start` and compares [`FIELDS`] and the time after every step, bit for bit.
pub fn diff_native(c: &Model, native: &mut Native, opts: &NativeDiffOptions) -> Result<NativeDiffReport, crate::Error> {
    let m = &native.model.model;
    let sizes = |cm: &mujoco_sys::mjModel| (cm.nq as usize, cm.nv as usize, cm.nbody as usize);
    if sizes(c.mj()) != (m.nq, m.nv, m.nbody) || c.mj().nsensordata as usize != native.data.sensor.sensordata.len() {
        return Err(crate::native::Error::Invalid(format!(
            "the two compilations differ in size: (nq, nv, nbody, nsensordata) {:?} in MuJoCo's, {:?} in specula's",
            (sizes(c.mj()), c.mj().nsensordata),
            ((m.nq, m.nv, m.nbody), native.data.sensor.sensordata.len())
        ))
        .into());
    }
    if c.mj().ntree as usize != m.ntree {
        let msg =
            format!("the two compilations differ in ntree: {} in MuJoCo's, {} in specula's", c.mj().ntree, m.ntree);
        return Err(crate::native::Error::Invalid(msg).into());
    }
    let mut cd = Data::new(c)?;
    crate::sim::start(&mut cd, &opts.start)?;
    crate::native::start(native, &opts.start)?;
    let mut report = NativeDiffReport { steps: 0, values: 0, contacts: 0, first: None, stopped: None };
    for step in 1..=opts.steps {
        if opts.tamper == Some(step) {
            if let Some(v) = native.data.qvel.first_mut() {
                *v = f64::from_bits(v.to_bits() ^ 1);
            }
        }
        // what mj_checkPos and mj_checkVel find in MuJoCo's state before this step
        let pre_bad = ["qpos", "qvel"].into_iter().find_map(|f| {
            let len = if f == "qpos" { native.data.qpos.len() } else { native.data.qvel.len() };
            c_field(&cd, f, len).iter().position(|x| x.is_nan() || x.abs() > 1e10).map(|i| (f, i))
        });
        let ours = native.step();
        let theirs = cd.step();
        // a state the native route refuses is not compared, whatever MuJoCo made of it (its
        // arena may run out in the same step)
        if let Err(e @ NativeError::Unsupported { .. }) = ours {
            return Err(crate::native::Error::Native(e).into());
        }
        theirs?;
        report.steps = step;
        if let Err(e) = ours {
            let NativeError::BadState { field, index, .. } = e else {
                return Err(crate::native::Error::Native(e).into());
            };
            // the native route stops where MuJoCo warns and resets: MuJoCo must have warned
            // about the same array in this very step. Its counter says so, unless a later check
            // of the same step warned again: the reset after that warning clears the counters,
            // so a bad qpos or qvel entry MuJoCo's state held before the step stands for its
            // warning (its checks of them are the native route's)
            let warning = match field {
                "qpos" => mujoco_sys::mjWARN_BADQPOS,
                "qvel" => mujoco_sys::mjWARN_BADQVEL,
                _ => mujoco_sys::mjWARN_BADQACC,
            };
            let warned = cd.mj().warning[warning as usize].number > 0 || pre_bad == Some((field, index));
            if warned {
                report.stopped = Some(format!("step {step}: {e}; MuJoCo warned about {field} in the same step"));
            } else {
                let bad = native_field(&native.data, field);
                let index = bad.iter().position(|x| x.is_nan() || x.abs() > 1e10).unwrap_or(0);
                let theirs = c_field(&cd, field, bad.len());
                let (n, c) = (bad.get(index).copied().unwrap_or(f64::NAN), theirs.get(index).copied().unwrap_or(0.0));
                report.first = Some(NativeDifference { step, field, index, native: n, c });
            }
            return Ok(report);
        }
        for field in FIELDS {
            let ours = native_field(&native.data, field);
            let theirs = c_field(&cd, field, ours.len());
            report.values += ours.len() as u64;
            if let Some(i) = ours.iter().zip(theirs).position(|(a, b)| a.to_bits() != b.to_bits()) {
                report.first = Some(NativeDifference { step, field, index: i, native: ours[i], c: theirs[i] });
                return Ok(report);
            }
        }
        let (nn, nc) = (native.data.contacts.len(), cd.mj().ncon.max(0) as usize);
        report.values += 1;
        report.contacts += nn as u64;
        if nn != nc {
            report.first = Some(NativeDifference { step, field: "ncon", index: 0, native: nn as f64, c: nc as f64 });
            return Ok(report);
        }
        let (tn, tc) = (native.data.time, cd.time());
        report.values += 1;
        if tn.to_bits() != tc.to_bits() {
            report.first = Some(NativeDifference { step, field: "time", index: 0, native: tn, c: tc });
            return Ok(report);
        }
        if let Some(first) = sleep_difference(&native.data.sleep, &cd, step, &mut report.values) {
            report.first = Some(first);
            return Ok(report);
        }
    }
    Ok(report)
}

/// The first difference in the sleep state (`tree_asleep`, `body_awake`, `dof_awake_ind` and
/// the awake counts), counting the values compared into `values`.
fn sleep_difference(
    s: &specula_native::sleep::SleepData,
    cd: &Data,
    step: usize,
    values: &mut u64,
) -> Option<NativeDifference> {
    let raw = cd.mj();
    let counts = [
        ("ntree_awake", s.ntree_awake, raw.ntree_awake),
        ("nbody_awake", s.nbody_awake, raw.nbody_awake),
        ("nparent_awake", s.nparent_awake, raw.nparent_awake),
        ("nv_awake", s.nv_awake, raw.nv_awake),
    ];
    for (field, n, c) in counts {
        *values += 1;
        if n as i64 != c as i64 {
            return Some(NativeDifference { step, field, index: 0, native: n as f64, c: c as f64 });
        }
    }
    let arrays: [(&'static str, &[i32], *const i32); 3] = [
        ("tree_asleep", &s.tree_asleep, raw.tree_asleep),
        ("body_awake", &s.body_awake, raw.body_awake),
        ("dof_awake_ind", &s.dof_awake_ind[..s.nv_awake], raw.dof_awake_ind),
    ];
    for (field, ours, p) in arrays {
        if ours.is_empty() || p.is_null() {
            continue;
        }
        // SAFETY: ntree, nbody and nv are the same in both compilations (checked by
        // diff_native), and MuJoCo sizes these arrays by them
        let theirs = unsafe { std::slice::from_raw_parts(p, ours.len()) };
        *values += ours.len() as u64;
        if let Some(i) = ours.iter().zip(theirs).position(|(a, b)| a != b) {
            return Some(NativeDifference { step, field, index: i, native: ours[i] as f64, c: theirs[i] as f64 });
        }
    }
    None
}
