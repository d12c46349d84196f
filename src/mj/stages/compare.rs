//! Comparing the Rust stages with MuJoCo's functions on the same inputs, call by call
//! ([`with_comparison`]; `specula::diff::diff_stages` steps a scene under it).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::{self, ComOutput};

use super::fields::{self, Field};
use super::*;

thread_local! {
    pub(super) static COMPARISON: RefCell<Comparison> = RefCell::new(Comparison::default());
}

/// The first array element where a Rust stage and MuJoCo's function disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct StageDifference {
    /// Step during which it happened (0 for the calls before the first step).
    pub step: usize,
    /// The stage.
    pub stage: Stage,
    /// The `mjData` field (`crb`, `M`, `qLD`, `qLDiagInv`, `warning[mjWARN_INERTIA]`, `cvel`,
    /// `cdof_dot`, `qfrc_bias`, `qfrc_smooth`, `qacc_smooth`, `subtree_com`, `cinert`, `cdof`).
    pub field: &'static str,
    /// Index in that field.
    pub index: usize,
    /// MuJoCo's value.
    pub c: f64,
    /// specula's value.
    pub rust: f64,
}

/// What a comparison of the Rust stages with MuJoCo's functions found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageDiffReport {
    /// Steps run.
    pub steps: usize,
    /// Calls compared, per stage (indexed as [`Stage::ALL`]).
    pub compared: [u64; NSTAGE],
    /// Calls not compared because the state was outside the stage's scope, per stage.
    pub skipped: [u64; NSTAGE],
    /// Elements that differed, per stage.
    pub differing: [u64; NSTAGE],
    /// The first difference, if any.
    pub first: Option<StageDifference>,
}

impl StageDiffReport {
    /// Whether every compared call agreed bit for bit.
    pub fn matches(&self) -> bool {
        self.first.is_none()
    }
}

/// Comparison state of [`with_comparison`] on this thread.
#[derive(Default)]
pub(super) struct Comparison {
    step: usize,
    report: StageDiffReport,
    tamper: Option<Stage>,
    crb: Vec<f64>,
    mass: Vec<f64>,
    diag_inv: Vec<f64>,
    cvel: Vec<f64>,
    cdof_dot: Vec<f64>,
    rne: Vec<f64>,
}

impl Comparison {
    /// Counts one compared call of `stage` and the elements that differed (field, index, MuJoCo's
    /// value, specula's), keeping the first difference of the run.
    fn record(&mut self, stage: Stage, found: &[(&'static str, usize, f64, f64)]) {
        let i = stage.index();
        self.report.compared[i] += 1;
        self.report.differing[i] += found.len() as u64;
        if self.report.first.is_none() {
            if let Some(&(field, index, c, rust)) = found.first() {
                self.report.first = Some(StageDifference { step: self.step, stage, field, index, c, rust });
            }
        }
    }
}

/// Runs `f` with the stages of `set` compared against MuJoCo's functions on this thread (MuJoCo's
/// results are kept), and returns what the comparison found. `f` is given a function that
/// sets the step number the differences are reported under. `tamper` is a test hook: one
/// output element of that stage's Rust result is moved by one ulp.
pub fn with_comparison<R>(
    set: StageSet,
    tamper: Option<Stage>,
    f: impl FnOnce(&dyn Fn(usize)) -> R,
) -> (R, StageDiffReport) {
    COMPARISON.with(|c| {
        *c.borrow_mut() = Comparison { tamper, ..Comparison::default() };
    });
    let before = MODE.with(|m| m.replace(Some(Mode::Compare(set))));
    let mark = |step: usize| COMPARISON.with(|c| c.borrow_mut().step = step);
    let out = f(&mark);
    MODE.with(|m| m.set(before));
    (out, COMPARISON.with(|c| std::mem::take(&mut c.borrow_mut().report)))
}

/// Records a Rust stage that panicked during a comparison as a difference (a panic is a bug).
pub(super) fn panicked(stage: Stage) {
    COMPARISON.with(|c| {
        let c = &mut *c.borrow_mut();
        c.report.differing[stage.index()] += 1;
        if c.report.first.is_none() {
            let step = c.step;
            c.report.first = Some(StageDifference { step, stage, field: "panicked", index: 0, c: 0.0, rust: f64::NAN });
        }
    });
}

/// Runs MuJoCo's function, then the Rust stage on copies of the same inputs, and records the
/// first element where they differ.
pub(super) fn compare(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) {
    if out_of_scope(stage, m, d) {
        library(stage, m, d, args);
        COMPARISON.with(|c| c.borrow_mut().report.skipped[stage.index()] += 1);
        return;
    }
    let outputs = fields::outputs(stage, m, d);
    if !outputs.is_empty() {
        return compare_in_place(stage, m, d, args, &outputs);
    }
    let warned = d.warning[sys::mjWARN_INERTIA as usize];
    library(stage, m, d, args);
    let tm = view(stage, m);
    let Sizes { nv, nbody, nc } = sizes(m);
    COMPARISON.with(|c| {
        let c = &mut *c.borrow_mut();
        let mut found: Vec<(&'static str, usize, f64, f64)> = Vec::new();
        let mut check = |field: &'static str, ours: &[f64], theirs: &[f64]| {
            for (i, (&r, &cv)) in ours.iter().zip(theirs).enumerate() {
                // NaN against NaN is a match: which NaN an operation returns depends on its
                // operands' order, and the state is already invalid (MuJoCo warns of it)
                if r.to_bits() != cv.to_bits() && !(r.is_nan() && cv.is_nan()) {
                    found.push((field, i, cv, r));
                }
            }
        };
        let tamper = c.tamper == Some(stage);
        match stage {
            Stage::Crb => {
                c.crb.resize(10 * nbody, 0.0);
                c.mass.resize(nc, 0.0);
                // SAFETY: mjData's arrays of the documented lengths, read only.
                let (cinert, cdof, crb, mass) = unsafe {
                    (slice(d.cinert, 10 * nbody), slice(d.cdof, 6 * nv), slice(d.crb, 10 * nbody), slice(d.M, nc))
                };
                dynamics::crb(&tm, cinert, cdof, &mut c.crb, &mut c.mass);
                if tamper && nc > 0 {
                    c.mass[nc - 1] = f64::from_bits(c.mass[nc - 1].to_bits() + 1);
                }
                check("crb", &c.crb, crb);
                check("M", &c.mass, mass);
            }
            Stage::FactorM => {
                c.mass.resize(nc, 0.0);
                c.diag_inv.resize(nv, 0.0);
                // SAFETY: as above.
                let (mass, qld, diag_inv) = unsafe { (slice(d.M, nc), slice(d.qLD, nc), slice(d.qLDiagInv, nv)) };
                let singular = dynamics::factor_m(&tm, mass, &mut c.mass, &mut c.diag_inv);
                if tamper && nv > 0 {
                    c.diag_inv[0] = f64::from_bits(c.diag_inv[0].to_bits() + 1);
                }
                check("qLD", &c.mass, qld);
                check("qLDiagInv", &c.diag_inv, diag_inv);
                let now = d.warning[sys::mjWARN_INERTIA as usize];
                let c_warned = (now.number != warned.number).then_some(now.lastinfo as f64);
                let r_warned = singular.map(|k| k as f64);
                if c_warned != r_warned {
                    found.push(("warning[mjWARN_INERTIA]", 0, c_warned.unwrap_or(-1.0), r_warned.unwrap_or(-1.0)));
                }
            }
            Stage::ComVel => {
                c.cvel.resize(6 * nbody, 0.0);
                c.cdof_dot.resize(6 * nv, 0.0);
                // SAFETY: as above.
                let (cdof, qvel) = unsafe { (slice(d.cdof, 6 * nv), slice(d.qvel, nv)) };
                dynamics::com_vel(&tm, cdof, qvel, &mut c.cvel, &mut c.cdof_dot);
                if tamper && nbody > 1 {
                    c.cvel[6] = f64::from_bits(c.cvel[6].to_bits() + 1);
                }
                // SAFETY: as above.
                let (cvel, cdof_dot) = unsafe { (slice(d.cvel, 6 * nbody), slice(d.cdof_dot, 6 * nv)) };
                check("cvel", &c.cvel, cvel);
                check("cdof_dot", &c.cdof_dot, cdof_dot);
            }
            Stage::Rne => {
                c.rne.resize(nv, 0.0);
                RNE_SCRATCH
                    .with(|s| dynamics::rne(&tm, &rne_input(m, d), args.flg_acc != 0, &mut s.borrow_mut(), &mut c.rne));
                if tamper && nv > 0 {
                    c.rne[nv - 1] = f64::from_bits(c.rne[nv - 1].to_bits() + 1);
                }
                // SAFETY: MuJoCo's caller's result array, nv entries, read only here.
                let theirs = unsafe { slice(args.result, nv) };
                let field = if args.result == d.qfrc_bias { "qfrc_bias" } else { "rne result" };
                check(field, &c.rne, theirs);
            }
            Stage::FwdAcceleration => {
                c.mass.resize(nv, 0.0);
                c.diag_inv.resize(nv, 0.0);
                let (forces, qld, diag_inv) = smooth_input(m, d);
                dynamics::fwd_acceleration(&tm, &forces, qld, diag_inv, &mut c.mass, &mut c.diag_inv);
                if tamper && nv > 0 {
                    c.diag_inv[0] = f64::from_bits(c.diag_inv[0].to_bits() + 1);
                }
                // SAFETY: as above.
                let (qfrc_smooth, qacc_smooth) = unsafe { (slice(d.qfrc_smooth, nv), slice(d.qacc_smooth, nv)) };
                check("qfrc_smooth", &c.mass, qfrc_smooth);
                check("qacc_smooth", &c.diag_inv, qacc_smooth);
            }
            Stage::ComPos => {
                c.cvel.resize(3 * nbody, 0.0);
                c.crb.resize(10 * nbody, 0.0);
                c.cdof_dot.resize(6 * nv, 0.0);
                let mut out = ComOutput { subtree_com: &mut c.cvel, cinert: &mut c.crb, cdof: &mut c.cdof_dot };
                dynamics::com_pos(&tm, &pose_input(m, d), &mut out);
                if tamper && nbody > 1 {
                    c.crb[10] = f64::from_bits(c.crb[10].to_bits() + 1);
                }
                // SAFETY: as above.
                let (com, cinert, cdof) =
                    unsafe { (slice(d.subtree_com, 3 * nbody), slice(d.cinert, 10 * nbody), slice(d.cdof, 6 * nv)) };
                check("subtree_com", &c.cvel, com);
                check("cinert", &c.crb, cinert);
                check("cdof", &c.cdof_dot, cdof);
            }
            _ => unreachable!("compared in place"),
        }
        c.record(stage, &found);
    });
}

/// `mjData`'s main buffer (every array of `mjmodel.h`'s sizes lives in it).
fn buffer(d: &mut sys::mjData) -> &mut [u8] {
    // SAFETY: MuJoCo's buffer of `nbuffer` bytes, borrowed with the data.
    unsafe { std::slice::from_raw_parts_mut(d.buffer.cast::<u8>(), d.nbuffer as usize) }
}

/// Compares a stage in place: MuJoCo's function runs on the data, its results are put aside and
/// the inputs restored, the Rust stage runs on the same data, and the two are compared on every
/// array the stage writes (element by element, NaN equal to NaN) and on every other byte of the
/// data's buffer and its warnings (nothing else may change). MuJoCo's results are kept.
fn compare_in_place(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args, outputs: &[Field]) {
    let before = buffer(d).to_vec();
    let warnings = d.warning;
    library(stage, m, d, args);
    let theirs = buffer(d).to_vec();
    let their_warnings = d.warning;
    buffer(d).copy_from_slice(&before);
    d.warning = warnings;
    let ran = catch(|| replace(stage, m, d, args));
    let tamper = COMPARISON.with(|c| c.borrow().tamper == Some(stage));
    if tamper {
        outputs.iter().rev().find(|f| matches!(f.array, fields::Array::F64(_)) && f.len > 0).map(Field::tamper);
    }
    let mut found: Vec<(&'static str, usize, f64, f64)> = Vec::new();
    if ran {
        let mut ours = buffer(d).to_vec();
        let base = d.buffer as usize;
        for f in outputs {
            let span = f.span(base);
            let (rust, c) = (f.decode(&ours[span.clone()]), f.decode(&theirs[span.clone()]));
            for (i, (&r, &cv)) in rust.iter().zip(&c).enumerate() {
                if r.to_bits() != cv.to_bits() && !(r.is_nan() && cv.is_nan()) {
                    found.push((f.name, i, cv, r));
                }
            }
            // compared element by element: left out of the byte comparison below
            ours[span.clone()].copy_from_slice(&theirs[span]);
        }
        if let Some(at) = ours.iter().zip(&theirs).position(|(a, b)| a != b) {
            found.push((
                "mjData buffer byte (outside the stage's outputs)",
                at,
                f64::from(theirs[at]),
                f64::from(ours[at]),
            ));
        }
        for (i, (r, cw)) in d.warning.iter().zip(&their_warnings).enumerate() {
            if (r.number, r.lastinfo) != (cw.number, cw.lastinfo) {
                found.push(("warning", i, f64::from(cw.number), f64::from(r.number)));
            }
        }
    }
    buffer(d).copy_from_slice(&theirs);
    d.warning = their_warnings;
    if !ran {
        panicked(stage);
        return;
    }
    COMPARISON.with(|c| c.borrow_mut().record(stage, &found));
}
