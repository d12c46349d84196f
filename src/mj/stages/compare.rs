//! Comparing the Rust stages with MuJoCo's functions on the same inputs, call by call
//! ([`with_comparison`]; `specula::diff::diff_stages` steps a scene under it).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::{self, ComOutput};

use super::fields::{self, Field};
use super::snapshot::{place, struct_field, Place, Snapshot};
use super::views;
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
#[derive(Clone, Debug, PartialEq)]
pub struct StageDiffReport {
    /// Steps run.
    pub steps: usize,
    /// Calls compared, per stage (indexed as [`Stage::ALL`]).
    pub compared: [u64; NSTAGE],
    /// Calls not compared because the state was outside the stage's scope, per stage.
    pub skipped: [u64; NSTAGE],
    /// The calls not compared, per stage and reason (each row sums to `skipped`).
    pub skipped_why: FallbackCounts,
    /// Elements that differed, per stage.
    pub differing: [u64; NSTAGE],
    /// The first difference, if any.
    pub first: Option<StageDifference>,
    /// The trajectory with the stages in Rust against MuJoCo's own: the first step after which
    /// some element of the integration state (`mjSTATE_INTEGRATION`) differs in any bit (NaN
    /// against NaN counts as equal), or `None` when every step agrees.
    pub trajectory: Option<TrajectoryDifference>,
    /// The calls the Rust run made in Rust and left to MuJoCo.
    pub trajectory_counts: StageCounts,
}

// (by hand: the standard library derives `Default` for arrays of at most 32 elements)
impl Default for StageDiffReport {
    fn default() -> Self {
        StageDiffReport {
            steps: 0,
            compared: [0; NSTAGE],
            skipped: [0; NSTAGE],
            skipped_why: [[0; NFALLBACK]; NSTAGE],
            differing: [0; NSTAGE],
            first: None,
            trajectory: None,
            trajectory_counts: StageCounts::default(),
        }
    }
}

/// The first state element where the trajectory with the Rust stages left MuJoCo's.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectoryDifference {
    /// Step after which it differs (1 for the first step).
    pub step: usize,
    /// Index in the integration state (`mj_getState` order: time, qpos, qvel, act, ...).
    pub index: usize,
    /// MuJoCo's value.
    pub c: f64,
    /// The value with the Rust stages.
    pub rust: f64,
}

impl StageDiffReport {
    /// Whether every compared call, and every step of the trajectory, agreed bit for bit.
    pub fn matches(&self) -> bool {
        self.first.is_none() && self.trajectory.is_none()
    }
}

/// A test hook of [`with_comparison`]: one thing changed in a Rust stage's result, so that a
/// test can see the comparison fail and name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tamper {
    /// One element of the stage's outputs moved by one ulp.
    Output(Stage),
    /// `maxuse_arena` raised by one: a scalar of the `mjData` struct outside the outputs (stages
    /// compared in place only).
    Struct(Stage),
    /// `qvel[0]` moved by one ulp: a byte of the buffer outside the outputs (stages compared in
    /// place only).
    Buffer(Stage),
    /// One element of the stage's outputs moved by one ulp in the run with the stages in Rust
    /// (not in the call-by-call comparison): the trajectory comparison must see it.
    Trajectory(Stage),
}

impl Tamper {
    /// The stage tampered with.
    pub fn stage(self) -> Stage {
        match self {
            Tamper::Output(s) | Tamper::Struct(s) | Tamper::Buffer(s) | Tamper::Trajectory(s) => s,
        }
    }
}

/// Comparison state of [`with_comparison`] on this thread.
#[derive(Default)]
pub(super) struct Comparison {
    step: usize,
    report: StageDiffReport,
    tamper: Option<Tamper>,
    /// Bytes of free arena filled before each side of an in-place comparison, per stage (twice
    /// the most MuJoCo's function allocated so far).
    reach: [usize; NSTAGE],
    crb: Vec<f64>,
    mass: Vec<f64>,
    diag_inv: Vec<f64>,
    cvel: Vec<f64>,
    cdof_dot: Vec<f64>,
    rne: Vec<f64>,
    /// Above 0 while MuJoCo's side of a stage that calls other stages runs: their comparisons
    /// are not recorded (see [`quietly`]).
    quiet: u32,
}

impl Comparison {
    /// Counts one compared call of `stage` and the elements that differed (field, index, MuJoCo's
    /// value, specula's), keeping the first difference of the run.
    fn record(&mut self, stage: Stage, found: &[(&'static str, usize, f64, f64)]) {
        if self.quiet > 0 {
            return;
        }
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
/// sets the step number the differences are reported under. `tamper` is a test hook (see
/// [`Tamper`]).
pub fn with_comparison<R>(
    set: StageSet,
    tamper: Option<Tamper>,
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

/// Records a call of `stage` not compared because the state was outside its scope (`why`).
pub(super) fn skipped(stage: Stage, why: Fallback) {
    COMPARISON.with(|c| {
        let c = &mut *c.borrow_mut();
        if c.quiet > 0 {
            return;
        }
        let report = &mut c.report;
        report.skipped[stage.index()] += 1;
        report.skipped_why[stage.index()][why.index()] += 1;
    });
}

/// Records a Rust stage that panicked during a comparison as a difference (a panic is a bug).
pub(super) fn panicked(stage: Stage) {
    COMPARISON.with(|c| {
        let c = &mut *c.borrow_mut();
        if c.quiet > 0 {
            return;
        }
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
    if let Some(why) = out_of_scope(stage, m, d, args) {
        library(stage, m, d, args);
        skipped(stage, why);
        return;
    }
    if fields::in_place(stage) {
        return compare_in_place(stage, m, d, args);
    }
    let warned = d.warning[sys::mjWARN_INERTIA as usize];
    library(stage, m, d, args);
    views::with(m, |v| compare_tree(stage, &v.tree, m, d, args, warned));
}

/// [`compare`] for the mass-matrix stages, once MuJoCo's function ran (`warned`: the singular
/// pivot warning before it).
fn compare_tree(
    stage: Stage,
    tm: &TreeModel,
    m: &sys::mjModel,
    d: &sys::mjData,
    args: Args,
    warned: sys::mjWarningStat,
) {
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
        let tamper = c.tamper == Some(Tamper::Output(stage));
        match stage {
            Stage::Crb => {
                c.crb.resize(10 * nbody, 0.0);
                c.mass.resize(nc, 0.0);
                // SAFETY: mjData's arrays of the documented lengths, read only.
                let (cinert, cdof, crb, mass) = unsafe {
                    (slice(d.cinert, 10 * nbody), slice(d.cdof, 6 * nv), slice(d.crb, 10 * nbody), slice(d.M, nc))
                };
                dynamics::crb(tm, cinert, cdof, &mut c.crb, &mut c.mass);
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
                let singular = dynamics::factor_m(tm, mass, &mut c.mass, &mut c.diag_inv);
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
                dynamics::com_vel(tm, cdof, qvel, &mut c.cvel, &mut c.cdof_dot);
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
                    .with(|s| dynamics::rne(tm, &rne_input(m, d), args.flg_acc != 0, &mut s.borrow_mut(), &mut c.rne));
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
                dynamics::fwd_acceleration(tm, &forces, qld, diag_inv, &mut c.mass, &mut c.diag_inv);
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
                dynamics::com_pos(tm, &pose_input(m, d), &mut out);
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

/// Compares a stage in place: MuJoCo's function runs on the data, its results are put aside and
/// the inputs restored, the Rust stage runs on the same data, and the two are compared on every
/// array the stage writes (element by element, NaN equal to NaN; the arrays are read after
/// MuJoCo's call, as the constraint stages allocate theirs in the arena) and on every other byte
/// of the `mjData` struct, its buffer, the used arena and the callers' stack frames (nothing else
/// may change). MuJoCo's results are kept.
fn compare_in_place(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) {
    // a set of copies per nesting level: RK4's Rust side compares the stages of its forward passes
    let mut set = SNAPSHOTS.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    compare_with(stage, m, d, args, &mut set);
    SNAPSHOTS.with(|s| s.borrow_mut().push(set));
}

/// [`compare_in_place`] with one set of copies (before, MuJoCo's, specula's).
fn compare_with(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args, set: &mut [Snapshot; 3]) {
    {
        let [before, theirs, ours] = set;
        before.take(d);
        // the free arena the stage may allocate from is filled with one pattern before each side
        // runs, so that an array the Rust stage allocates but forgets to write shows as the
        // pattern against MuJoCo's values (rather than MuJoCo's own bytes left from its run)
        let i = stage.index();
        let mut reach = COMPARISON.with(|c| c.borrow().reach[i]);
        before.poison(d, reach);
        quietly(stage, || library(stage, m, d, args));
        let grown = d.parena.saturating_sub(before.parena());
        if grown > reach {
            // MuJoCo allocated beyond the filled part: run it again with more of it filled
            reach = 2 * grown;
            COMPARISON.with(|c| c.borrow_mut().reach[i] = reach);
            before.restore(d);
            before.poison(d, reach);
            quietly(stage, || library(stage, m, d, args));
        }
        theirs.take(d);
        let outputs = fields::outputs(stage, m, d);
        before.restore(d);
        before.poison(d, reach);
        let ran = catch(|| replace(stage, m, d, args));
        let tamper = COMPARISON.with(|c| c.borrow().tamper.filter(|t| t.stage() == stage));
        match tamper {
            _ if !ran => {}
            Some(Tamper::Output(_)) => {
                if let Some(f) = fields::tamper_target(stage, m, d) {
                    f.tamper();
                }
            }
            Some(Tamper::Struct(_)) => d.maxuse_arena += 1,
            // SAFETY: qvel has nv > 0 entries.
            Some(Tamper::Buffer(_)) if m.nv > 0 => unsafe { *d.qvel = f64::from_bits((*d.qvel).to_bits() + 1) },
            Some(Tamper::Buffer(_) | Tamper::Trajectory(_)) => {}
            None => {}
        }
        let found = if ran {
            ours.take(d);
            differences(&outputs, d, theirs, ours)
        } else {
            Vec::new()
        };
        theirs.restore(d);
        if !ran {
            panicked(stage);
            return;
        }
        COMPARISON.with(|c| c.borrow_mut().record(stage, &found));
    }
}

/// Runs `f`, MuJoCo's side of `stage`'s comparison, without recording the comparisons of the
/// stages `stage` calls (RK4's forward passes): both sides run them alike (the same copies,
/// fills and results, MuJoCo's kept), so each is recorded once, from the Rust side; MuJoCo's
/// side may also run twice (when the arena grew past the filled part).
fn quietly<R>(stage: Stage, f: impl FnOnce() -> R) -> R {
    if stage != Stage::RungeKutta {
        return f();
    }
    struct Loud;
    impl Drop for Loud {
        fn drop(&mut self) {
            COMPARISON.with(|c| c.borrow_mut().quiet -= 1);
        }
    }
    COMPARISON.with(|c| c.borrow_mut().quiet += 1);
    let _loud = Loud;
    f()
}

thread_local! {
    /// Before, MuJoCo's and specula's copies of the data, one set per nesting level in use
    /// (reused from call to call).
    static SNAPSHOTS: RefCell<Vec<[Snapshot; 3]>> = const { RefCell::new(Vec::new()) };
}

/// The differences between MuJoCo's results and specula's: output arrays element by element,
/// then the first differing byte elsewhere in the struct, the buffer, the used arena and the
/// stack.
fn differences(
    outputs: &[Field],
    d: &sys::mjData,
    theirs: &mut Snapshot,
    ours: &mut Snapshot,
) -> Vec<(&'static str, usize, f64, f64)> {
    let mut found: Vec<(&'static str, usize, f64, f64)> = Vec::new();
    for f in outputs {
        let Some(place) = place(f, d) else { continue };
        let (o, t, span) = match place {
            Place::Buffer(span) => (&mut ours.buffer, &theirs.buffer, span),
            Place::Arena(span) => (&mut ours.arena, &theirs.arena, span),
        };
        let n = o.len().min(t.len()).min(span.end);
        let span = span.start.min(n)..n;
        let (mine, c) = (f.decode(&o[span.clone()]), f.decode(&t[span.clone()]));
        // compared element by element: left out of the byte comparison below
        o[span.clone()].copy_from_slice(&t[span]);
        for (i, (&r, &cv)) in mine.iter().zip(&c).enumerate() {
            if r.to_bits() != cv.to_bits() && !(r.is_nan() && cv.is_nan()) {
                found.push((f.name, i, cv, r));
            }
        }
    }
    let first = |a: &[u8], b: &[u8]| {
        a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then(|| a.len().min(b.len())))
    };
    if let Some(at) = first(&ours.raw, &theirs.raw) {
        let v = |x: &Vec<u8>| x.get(at).map_or(-1.0, |&v| f64::from(v));
        found.push((struct_field(at), at, v(&theirs.raw), v(&ours.raw)));
    }
    for (name, a, b) in [
        ("mjData buffer byte (outside the stage's outputs)", &ours.buffer, &theirs.buffer),
        ("mjData arena byte (outside the stage's outputs)", &ours.arena, &theirs.arena),
        ("mjData stack byte (a caller's frame)", &ours.stack, &theirs.stack),
    ] {
        if let Some(at) = first(a, b) {
            let v = |x: &Vec<u8>| x.get(at).map_or(-1.0, |&v| f64::from(v));
            found.push((name, at, v(b), v(a)));
        }
    }
    found
}
