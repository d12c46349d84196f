//! specula's Rust dynamics stages in place of MuJoCo's own functions, inside MuJoCo's step.
//!
//! As with `mj_collision` ([`super::collision`]), libmujoco calls `mj_crb`, `mj_factorM`,
//! `mj_comVel`, `mj_rne`, `mj_fwdAcceleration` and `mj_comPos` through its symbol table (from
//! `mj_fwdPosition`, `mj_fwdKinematics`, `mj_fwdVelocity` and the inverse and constant-setting
//! passes; `docs/measurements.md` D0), and likewise `mj_fwdKinematics`, `mj_EulerSkip`,
//! `mj_implicitSkip` and `mj_RungeKutta` (K1, K4, K8, K9; `mj_kinematics` itself is not on the
//! step's path, so the `kinematics` stage runs inside the exported `mj_fwdKinematics`,
//! `kinematics.rs`), so the
//! definitions the root crate exports (`crate::capi::export`) replace every internal call, RK4's
//! inner passes included. Each exported function asks this module what to do on the current
//! thread:
//! - run MuJoCo's own function (the default; the drop-in library reads `SPECULA_STAGES`);
//! - run the Rust stage ([`with_stages`]), or MuJoCo's where the model is outside the stage's
//!   scope (counted in [`StageCounts`] with the reason, a [`Fallback`]);
//! - run both on the same inputs and compare every array the stage writes, bit for bit
//!   ([`with_comparison`], in `compare.rs`; `specula::diff::diff_stages` steps a scene under it).

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use mujoco_sys as sys;
use specula_engine::dynamics::{self, ComOutput, PoseInput, RneInput, RneScratch, SmoothForces, TreeModel};

use super::data::slice;

mod actuation;
mod compare;
mod constraint;
mod constraint_contact;
mod constraint_equality;
mod constraint_tendon;
mod euler;
mod fallback;
mod fields;
mod implicit;
mod implicit_full;
mod island;
mod kinematics;
mod passive;
mod reference;
mod rk4;
mod set;
mod snapshot;
mod solver;
mod solver_newton_sparse;
mod solver_noslip;
mod solver_pgs;
mod solver_sparse;
mod sparse_lib;
mod stack;
mod tendon;
mod transmission;
pub(crate) mod views;

use compare::{compare, panicked};
pub use compare::{with_comparison, StageDiffReport, StageDifference, Tamper, TrajectoryDifference};
pub use fallback::{reasons, reasons_json, Fallback, FallbackCounts, NFALLBACK};
pub(crate) use kinematics::fwd_kinematics;
pub use set::{StageSet, UnknownStage};

/// One of MuJoCo's functions that specula can run in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// `mj_crb`: composite inertias `crb` and the inertia matrix `M`.
    Crb,
    /// `mj_factorM`: `qLD` and `qLDiagInv`, the sparse `L'DL` factor of `M`.
    FactorM,
    /// `mj_comVel`: body velocities `cvel` and dof-axis derivatives `cdof_dot`.
    ComVel,
    /// `mj_rne`: recursive Newton-Euler, the bias forces `qfrc_bias` in MuJoCo's step.
    Rne,
    /// `mj_fwdAcceleration`: `qfrc_smooth` and the unconstrained acceleration `qacc_smooth`.
    FwdAcceleration,
    /// `mj_comPos`: `subtree_com`, the com-based inertias `cinert` and dof axes `cdof`.
    ComPos,
    /// `mj_passive`: joint springs and dampers, `qfrc_spring`, `qfrc_damper`, `qfrc_passive`.
    Passive,
    /// `mj_transmission`: actuator lengths and moments for joint transmissions.
    Transmission,
    /// `mj_fwdActuation`: activation derivatives, actuator forces and `qfrc_actuator`.
    FwdActuation,
    /// `mj_makeConstraint`: the constraint rows (`efc_*`), Jacobian and impedance.
    MakeConstraint,
    /// `mj_island`: the constraint islands and their dof and row maps.
    Island,
    /// `mj_projectConstraint`: `efc_Y`, `efc_AR` and exact diagonals for the dual solvers.
    ProjectConstraint,
    /// `mj_referenceConstraint`: constraint velocities `efc_vel` and reference accelerations
    /// `efc_aref`.
    ReferenceConstraint,
    // position stage and integrators (issue 15)
    /// `mj_kinematics`: body, joint, inertial, geom and site poses (reached in the step through
    /// the exported `mj_fwdKinematics`, `kinematics.rs`).
    Kinematics,
    /// `mj_EulerSkip`: the Euler step, implicit in damping, and the advance (`qvel`, `qpos`,
    /// `act`, `time`, `qacc_warmstart`).
    Euler,
    /// `mj_implicitSkip` for `implicitfast`: the velocity derivative `qDeriv`, `qH = M - h
    /// qDeriv` and its factor, and the advance.
    Implicit,
    /// `mj_fwdConstraint`: the constraint solver, `efc_force`, `qfrc_constraint` and `qacc`.
    FwdConstraint,
    /// `mj_RungeKutta`: RK4's stage states, orientation correction and weighted sums around
    /// MuJoCo's forward passes, and the advance.
    RungeKutta,
    /// `mj_tendon`: fixed tendons' lengths `ten_length` and sparse Jacobian `ten_J`.
    Tendon,
}

/// Number of stages.
pub const NSTAGE: usize = 19;

/// The arguments a stage's function takes besides the model and data (only `mj_rne` has any).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Args {
    /// `mj_rne`'s `flg_acc`: include `qacc`.
    pub flg_acc: i32,
    /// `mj_rne`'s `result` (`nv`).
    pub result: *mut f64,
    /// `mj_EulerSkip`'s and `mj_implicitSkip`'s `skipfactor`: reuse the last factor of `qH`.
    pub skipfactor: i32,
    /// `mj_RungeKutta`'s order `N`.
    pub order: i32,
}

impl Args {
    /// A function of the model and data only.
    pub const NONE: Args = Args { flg_acc: 0, result: std::ptr::null_mut(), skipfactor: 0, order: 0 };
}

impl Stage {
    /// Every stage, in the order they were written (a step runs `comPos` first).
    pub const ALL: [Stage; NSTAGE] = [
        Stage::Crb,
        Stage::FactorM,
        Stage::ComVel,
        Stage::Rne,
        Stage::FwdAcceleration,
        Stage::ComPos,
        Stage::Passive,
        Stage::Transmission,
        Stage::FwdActuation,
        Stage::MakeConstraint,
        Stage::Island,
        Stage::ProjectConstraint,
        Stage::ReferenceConstraint,
        Stage::Kinematics,
        Stage::Euler,
        Stage::Implicit,
        Stage::FwdConstraint,
        Stage::RungeKutta,
        Stage::Tendon,
    ];

    /// The stage's name: MuJoCo's function without `mj_`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Crb => "crb",
            Stage::FactorM => "factorM",
            Stage::ComVel => "comVel",
            Stage::Rne => "rne",
            Stage::FwdAcceleration => "fwdAcceleration",
            Stage::ComPos => "comPos",
            Stage::Passive => "passive",
            Stage::Transmission => "transmission",
            Stage::FwdActuation => "fwdActuation",
            Stage::MakeConstraint => "makeConstraint",
            Stage::Island => "island",
            Stage::ProjectConstraint => "projectConstraint",
            Stage::ReferenceConstraint => "referenceConstraint",
            Stage::Kinematics => "kinematics",
            Stage::Euler => "euler",
            Stage::Implicit => "implicit",
            Stage::FwdConstraint => "fwdConstraint",
            Stage::RungeKutta => "RungeKutta",
            Stage::Tendon => "tendon",
        }
    }

    fn symbol(self) -> &'static CStr {
        match self {
            Stage::Crb => c"mj_crb",
            Stage::FactorM => c"mj_factorM",
            Stage::ComVel => c"mj_comVel",
            Stage::Rne => c"mj_rne",
            Stage::FwdAcceleration => c"mj_fwdAcceleration",
            Stage::ComPos => c"mj_comPos",
            Stage::Passive => c"mj_passive",
            Stage::Transmission => c"mj_transmission",
            Stage::FwdActuation => c"mj_fwdActuation",
            Stage::MakeConstraint => c"mj_makeConstraint",
            Stage::Island => c"mj_island",
            Stage::ProjectConstraint => c"mj_projectConstraint",
            Stage::ReferenceConstraint => c"mj_referenceConstraint",
            Stage::Kinematics => c"mj_kinematics",
            Stage::Euler => c"mj_EulerSkip",
            Stage::Implicit => c"mj_implicitSkip",
            Stage::FwdConstraint => c"mj_fwdConstraint",
            Stage::RungeKutta => c"mj_RungeKutta",
            Stage::Tendon => c"mj_tendon",
        }
    }

    /// Position in [`Stage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How often each stage ran in Rust and how often, and why, it fell back to MuJoCo's function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageCounts {
    /// Calls run by the Rust stage, per stage (indexed as [`Stage::ALL`]).
    pub rust: [u64; NSTAGE],
    /// Calls left to MuJoCo's function because the model or state was outside the stage's
    /// scope (asleep trees; for `fwdAcceleration` also `xfrc_applied` or an effective metric;
    /// for `passive`, `transmission` and `fwdActuation` what `docs/measurements.md` D7 to D9
    /// leave to the library), per stage.
    pub fallback: [u64; NSTAGE],
    /// The fallbacks per stage and reason (each row sums to `fallback`).
    pub why: FallbackCounts,
}

// (by hand: the standard library derives `Default` for arrays of at most 32 elements)
impl Default for StageCounts {
    fn default() -> Self {
        StageCounts { rust: [0; NSTAGE], fallback: [0; NSTAGE], why: [[0; NFALLBACK]; NSTAGE] }
    }
}

impl StageCounts {
    /// One line per stage that was asked for: `makeConstraint: 300 in Rust, 200 fell back (200
    /// asleep trees)`.
    pub fn summary(&self, set: StageSet) -> Vec<String> {
        set.stages()
            .map(|s| {
                let i = s.index();
                let why = if self.fallback[i] > 0 { format!(" ({})", reasons(&self.why[i])) } else { String::new() };
                format!("{}: {} in Rust, {} fell back{why}", s.name(), self.rust[i], self.fallback[i])
            })
            .collect()
    }

    /// Records one call of `stage`: in Rust, or left to MuJoCo for `why`.
    fn count(&mut self, stage: Stage, why: Option<Fallback>) {
        let i = stage.index();
        match why {
            None => self.rust[i] += 1,
            Some(f) => {
                self.fallback[i] += 1;
                self.why[i][f.index()] += 1;
            }
        }
    }
}

/// What the exported functions do on this thread.
#[derive(Clone, Copy)]
enum Mode {
    /// The stages of the set in Rust (the second: a stage whose results are tampered with).
    Replace(StageSet, Option<Stage>),
    Compare(StageSet),
}

thread_local! {
    static MODE: Cell<Option<Mode>> = const { Cell::new(None) };
    static COUNTS: RefCell<StageCounts> = RefCell::new(StageCounts::default());
    static RNE_SCRATCH: RefCell<RneScratch> = RefCell::new(RneScratch::default());
}

/// The stages the drop-in library runs in Rust where no program chose: `SPECULA_STAGES`
/// (`crb,factorM`, `all`); unset means none. A value that does not parse is reported once on
/// stderr and ignored.
fn default_stages() -> StageSet {
    static DEFAULT: OnceLock<StageSet> = OnceLock::new();
    *DEFAULT.get_or_init(|| match std::env::var("SPECULA_STAGES") {
        Err(std::env::VarError::NotPresent) => StageSet::NONE,
        Err(std::env::VarError::NotUnicode(_)) => {
            eprintln!("specula: SPECULA_STAGES is not valid UTF-8; MuJoCo's own functions run");
            StageSet::NONE
        }
        Ok(text) => text.parse().unwrap_or_else(|e| {
            eprintln!("specula: SPECULA_STAGES: {e}; MuJoCo's own functions run");
            StageSet::NONE
        }),
    })
}

/// Calls made under `SPECULA_STAGES` (the drop-in library), per stage: in Rust, fallen back.
static PROCESS_COUNTS: [[AtomicU64; 2]; NSTAGE] = [const { [const { AtomicU64::new(0) }; 2] }; NSTAGE];
/// The drop-in library's fallbacks per stage and reason.
static PROCESS_WHY: [[AtomicU64; NFALLBACK]; NSTAGE] = [const { [const { AtomicU64::new(0) }; NFALLBACK] }; NSTAGE];

/// The stages `SPECULA_STAGES` selects and the calls made under it in this process (for the
/// drop-in library's report).
pub fn environment_counts() -> (StageSet, StageCounts) {
    let mut counts = StageCounts::default();
    for (i, c) in PROCESS_COUNTS.iter().enumerate() {
        counts.rust[i] = c[0].load(Ordering::Relaxed);
        counts.fallback[i] = c[1].load(Ordering::Relaxed);
        for (n, w) in counts.why[i].iter_mut().zip(&PROCESS_WHY[i]) {
            *n = w.load(Ordering::Relaxed);
        }
    }
    (default_stages(), counts)
}

/// Runs `f` with the stages of `set` in Rust on this thread (MuJoCo's own functions for the
/// others), and says how often each ran.
pub fn with_stages<R>(set: StageSet, f: impl FnOnce() -> R) -> (R, StageCounts) {
    with_stages_tampered(set, None, f)
}

/// [`with_stages`] with one element of `tamper`'s outputs moved by one ulp after each of its
/// calls in Rust: a test hook, to see a trajectory comparison fail.
pub(crate) fn with_stages_tampered<R>(set: StageSet, tamper: Option<Stage>, f: impl FnOnce() -> R) -> (R, StageCounts) {
    let before = MODE.with(|m| m.replace(Some(Mode::Replace(set, tamper))));
    COUNTS.with(|c| *c.borrow_mut() = StageCounts::default());
    let out = f();
    MODE.with(|m| m.set(before));
    (out, COUNTS.with(|c| std::mem::take(&mut *c.borrow_mut())))
}

/// Address of libmujoco's own definition of `name`, 0 if the library is not loaded.
fn library_symbol(name: &CStr) -> usize {
    extern "C" {
        fn dlopen(filename: *const c_char, flags: i32) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    const RTLD_NOW_NOLOAD: i32 = 2 | 4;
    // SAFETY: plain libc calls with NUL-terminated strings; RTLD_NOLOAD never loads anything.
    unsafe {
        let h = dlopen(c"libmujoco.so.4.0.0".as_ptr(), RTLD_NOW_NOLOAD);
        if h.is_null() {
            0
        } else {
            dlsym(h, name.as_ptr()) as usize
        }
    }
}

type StageFn = unsafe extern "C" fn(*const sys::mjModel, *mut sys::mjData);
type RneFn = unsafe extern "C" fn(*const sys::mjModel, *mut sys::mjData, i32, *mut f64);
type SkipFn = unsafe extern "C" fn(*const sys::mjModel, *mut sys::mjData, i32);

/// Runs MuJoCo's own function for `stage`.
fn library(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) {
    static ADDR: [OnceLock<usize>; NSTAGE] = [const { OnceLock::new() }; NSTAGE];
    let addr = *ADDR[stage.index()].get_or_init(|| library_symbol(stage.symbol()));
    if addr == 0 {
        return;
    }
    // SAFETY: a non-zero address from dlsym for this name is MuJoCo's function of this
    // signature; the model, data and arguments are MuJoCo's.
    unsafe {
        match stage {
            Stage::Rne => std::mem::transmute::<usize, RneFn>(addr)(m, d, args.flg_acc, args.result),
            Stage::Euler | Stage::Implicit => std::mem::transmute::<usize, SkipFn>(addr)(m, d, args.skipfactor),
            Stage::RungeKutta => std::mem::transmute::<usize, SkipFn>(addr)(m, d, args.order),
            _ => std::mem::transmute::<usize, StageFn>(addr)(m, d),
        }
    }
}

/// Why a call is outside the Rust stage's scope, if it is: with sleep on and some trees asleep
/// MuJoCo runs these stages over the awake bodies and dofs only; `mj_fwdAcceleration` also
/// needs no Cartesian applied force (`xfrc_applied`, which goes through `mj_applyFT`) and no
/// effective metric (`efm_active`); the other stages say what they leave to the library.
fn out_of_scope(stage: Stage, m: &sys::mjModel, d: &sys::mjData, args: Args) -> Option<Fallback> {
    match stage {
        Stage::Passive => passive::out_of_scope(m, d),
        Stage::Transmission => actuation::transmission_out_of_scope(m, d),
        Stage::FwdActuation => actuation::actuation_out_of_scope(m, d),
        Stage::MakeConstraint => constraint::out_of_scope(m, d),
        Stage::Island => island::out_of_scope(m, d),
        Stage::ProjectConstraint => reference::project_out_of_scope(m, d),
        Stage::ReferenceConstraint => reference::reference_out_of_scope(m, d),
        Stage::Kinematics => kinematics::out_of_scope(m, d),
        Stage::Euler => euler::out_of_scope(m, d),
        Stage::Implicit => implicit::out_of_scope(m, d),
        Stage::FwdConstraint => solver::out_of_scope(m, d),
        Stage::RungeKutta => rk4::out_of_scope(m, d, args.order),
        Stage::Tendon => tendon::out_of_scope(m, d),
        Stage::Crb | Stage::FactorM | Stage::ComVel | Stage::Rne | Stage::FwdAcceleration | Stage::ComPos => {
            tree_out_of_scope(stage, m, d)
        }
    }
}

/// [`out_of_scope`] for the stages of the mass matrix and bias forces.
#[inline]
fn tree_out_of_scope(stage: Stage, m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    let asleep = match stage {
        Stage::Crb | Stage::FactorM | Stage::FwdAcceleration => (d.nv_awake as i64) < m.nv,
        Stage::ComVel | Stage::ComPos => (d.nbody_awake as i64) < m.nbody,
        // rne
        _ => (d.nbody_awake as i64) < m.nbody || (d.nv_awake as i64) < m.nv,
    };
    if m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && asleep {
        return Some(Fallback::Asleep);
    }
    if stage != Stage::FwdAcceleration {
        None
    } else if d.efm_active != 0 {
        Some(Fallback::EffectiveMetric)
    } else {
        cartesian_forces(m, d).then_some(Fallback::CartesianForce)
    }
}

/// Whether any body but the world has an `xfrc_applied` entry other than zero (NaN included),
/// which the library would apply.
fn cartesian_forces(m: &sys::mjModel, d: &sys::mjData) -> bool {
    let nbody = m.nbody as usize;
    // SAFETY: xfrc_applied has 6 nbody entries.
    let xfrc = unsafe { slice(d.xfrc_applied, 6 * nbody) };
    xfrc.iter().skip(6).any(|&v| v != 0.0)
}

/// The exported functions' body: what this thread's mode says for `stage`.
///
/// # Safety
/// `m` and `d` are null or MuJoCo's valid model and data.
pub(crate) unsafe fn run(stage: Stage, m: *const sys::mjModel, d: *mut sys::mjData, args: Args) {
    if m.is_null() || d.is_null() || (stage == Stage::Rne && args.result.is_null()) {
        return;
    }
    // SAFETY: valid, as the caller guarantees; MuJoCo holds no other reference during the call.
    let (m, d) = unsafe { (&*m, &mut *d) };
    let (mode, from_env) = mode();
    match mode {
        Mode::Replace(set, tamper) if set.contains(stage) => {
            let why = try_rust(stage, m, d, args).err();
            if why.is_some() {
                library(stage, m, d, args);
            } else if tamper == Some(stage) {
                if let Some(f) = fields::tamper_target(stage, m, d) {
                    f.tamper();
                }
            }
            count(stage, why, from_env);
        }
        Mode::Compare(set) if set.contains(stage) => {
            if !catch(|| compare(stage, m, d, args)) {
                panicked(stage);
            }
        }
        _ => library(stage, m, d, args),
    }
}

/// This thread's mode, or the drop-in library's (`SPECULA_STAGES`, the second value true).
fn mode() -> (Mode, bool) {
    match MODE.with(Cell::get) {
        Some(mode) => (mode, false),
        None => (Mode::Replace(default_stages(), None), true),
    }
}

/// Records one call of `stage` run in Rust or left to MuJoCo for `why` (for the drop-in
/// library, in the process-wide counts: no thread-local scope collects them).
fn count(stage: Stage, why: Option<Fallback>, from_env: bool) {
    if from_env {
        let i = stage.index();
        PROCESS_COUNTS[i][usize::from(why.is_some())].fetch_add(1, Ordering::Relaxed);
        if let Some(f) = why {
            PROCESS_WHY[i][f.index()].fetch_add(1, Ordering::Relaxed);
        }
        return;
    }
    COUNTS.with(|c| c.borrow_mut().count(stage, why));
}

/// Whether this thread's mode runs or compares `stage` in Rust.
fn selected(stage: Stage) -> bool {
    match mode().0 {
        Mode::Replace(set, _) | Mode::Compare(set) => set.contains(stage),
    }
}

/// Records a call of `stage` that a caller other than [`run`] left to MuJoCo for `why` (counted,
/// or not compared).
fn note_fallback(stage: Stage, why: Fallback) {
    match mode() {
        (Mode::Replace(..), from_env) => count(stage, Some(why), from_env),
        (Mode::Compare(..), _) => compare::skipped(stage, why),
    }
}

/// Runs `stage` once on `d` as MuJoCo's function (`rust` false) or as the Rust stage, for
/// timing; `mj_rne` writes `qfrc_bias` without accelerations, as in MuJoCo's step. False when
/// the state is outside the Rust stage's scope.
pub fn run_once(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, rust: bool) -> bool {
    let args = Args { result: d.qfrc_bias, order: 4, ..Args::NONE };
    let implicit = [sys::mjINT_IMPLICIT as i32, sys::mjINT_IMPLICITFAST as i32].contains(&m.opt.integrator);
    if stage == Stage::Implicit && !implicit {
        // MuJoCo's `mj_implicitSkip` raises an error for any other integrator
        return false;
    }
    if rust {
        try_rust(stage, m, d, args).is_ok()
    } else {
        library(stage, m, d, args);
        true
    }
}

/// Runs the Rust stage in place of MuJoCo's function; the reason (nothing left to trust in the
/// stage's outputs) when the state is outside its scope or the stage panicked.
fn try_rust(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) -> Result<(), Fallback> {
    let mut why = None;
    if !catch(|| why = scope_and_run(stage, m, d, args)) {
        return Err(Fallback::Panicked);
    }
    why.map_or(Ok(()), Err)
}

/// The scope test and the Rust stage in one pass, each stage on a path of its own: on the small
/// scenes a call costs tens of nanoseconds, and testing the scope through one function for every
/// stage, then running through another, cost as much as the stage (`bench --stages`). The stages
/// whose test needs the view, inputs or stack marks the stage then uses build them once. Nothing
/// is written when the call is outside the scope (the reason is returned).
fn scope_and_run(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) -> Option<Fallback> {
    match stage {
        Stage::Transmission => actuation::try_transmission(m, d),
        Stage::FwdActuation => actuation::try_fwd_actuation(m, d),
        Stage::ProjectConstraint => reference::try_project(m, d),
        Stage::ReferenceConstraint => reference::try_reference(m, d),
        Stage::Crb | Stage::FactorM | Stage::ComVel | Stage::Rne | Stage::FwdAcceleration | Stage::ComPos => {
            try_tree(stage, m, d, args)
        }
        Stage::Passive
        | Stage::MakeConstraint
        | Stage::Island
        | Stage::Kinematics
        | Stage::Euler
        | Stage::Implicit
        | Stage::FwdConstraint
        | Stage::RungeKutta
        | Stage::Tendon => {
            let why = out_of_scope(stage, m, d, args);
            if why.is_none() {
                replace(stage, m, d, args);
            }
            why
        }
    }
}

/// [`scope_and_run`] for the stages of the mass matrix and bias forces.
#[inline(never)]
fn try_tree(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) -> Option<Fallback> {
    let why = tree_out_of_scope(stage, m, d);
    if why.is_none() {
        views::with(m, |v| replace_tree(stage, &v.tree, m, d, args));
    }
    why
}

/// Runs `f`, true unless it panicked (a panic must not unwind into MuJoCo).
fn catch(f: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok()
}

/// Sizes of the arrays the stages touch.
struct Sizes {
    nv: usize,
    nbody: usize,
    nc: usize,
}

fn sizes(m: &sys::mjModel) -> Sizes {
    Sizes { nv: m.nv as usize, nbody: m.nbody as usize, nc: m.nC as usize }
}

/// The stages' view of MuJoCo's model.
fn tree_model(m: &sys::mjModel) -> TreeModel<'_> {
    let Sizes { nv, nbody, nc } = sizes(m);
    let (njnt, nact, nout) = (m.njnt as usize, m.nactuator as usize, m.nout as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        TreeModel {
            body_parentid: slice(m.body_parentid, nbody),
            body_dofadr: slice(m.body_dofadr, nbody),
            body_dofnum: slice(m.body_dofnum, nbody),
            body_rootid: slice(m.body_rootid, nbody),
            body_mass: slice(m.body_mass, nbody),
            body_subtreemass: slice(m.body_subtreemass, nbody),
            body_inertia: slice(m.body_inertia, 3 * nbody),
            jnt_type: slice(m.jnt_type, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            jnt_bodyid: slice(m.jnt_bodyid, njnt),
            dof_bodyid: slice(m.dof_bodyid, nv),
            dof_jntid: slice(m.dof_jntid, nv),
            dof_parentid: slice(m.dof_parentid, nv),
            dof_simplenum: slice(m.dof_simplenum, nv),
            dof_armature: slice(m.dof_armature, nv),
            dof_m0: slice(m.dof_M0, nv),
            m_rownnz: slice(m.M_rownnz, nv),
            m_rowadr: slice(m.M_rowadr, nv),
            m_colind: slice(m.M_colind, nc),
            jnt_actuatorid: slice(m.jnt_actuatorid, njnt),
            actuator_trntype: slice(m.actuator_trntype, nact),
            actuator_trnid: slice(m.actuator_trnid, 2 * nact),
            actuator_outadr: slice(m.actuator_outadr, nact),
            actuator_gear: slice(m.actuator_gear, 6 * nout),
            actuator_armature: slice(m.actuator_armature, nact),
        }
    }
}

/// A mutable `mjData` array of `len` elements.
///
/// # Safety
/// `p` points to at least `len` elements no other reference aliases during the borrow.
unsafe fn slice_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [T] {
    if p.is_null() || len == 0 {
        &mut []
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts_mut(p, len) }
    }
}

/// The byte behind an `mjtByte` flag (the library compares flags with 0 or 1, so any byte value
/// is legal and none may be read as a Rust `bool`).
///
/// # Safety
/// `p` points to a flag of MuJoCo's model or data.
unsafe fn byte(p: *const bool) -> u8 {
    // SAFETY: one readable byte, as the caller guarantees.
    unsafe { p.cast::<u8>().read() }
}

/// An `mjtBool` array as bytes (as [`byte`]).
///
/// # Safety
/// As [`slice`].
unsafe fn bytes<'a>(p: *const bool, len: usize) -> &'a [u8] {
    // SAFETY: guaranteed by the caller; u8 has bool's layout and accepts every bit pattern.
    unsafe { slice(p.cast::<u8>(), len) }
}

/// Runs the Rust stage on MuJoCo's data in place of MuJoCo's function.
fn replace(stage: Stage, m: &sys::mjModel, d: &mut sys::mjData, args: Args) {
    match stage {
        Stage::Passive => passive::replace(m, d),
        Stage::Transmission => actuation::transmission(m, d),
        Stage::FwdActuation => actuation::fwd_actuation(m, d),
        Stage::MakeConstraint => constraint::replace(m, d),
        Stage::Island => island::replace(m, d),
        Stage::ProjectConstraint => reference::project(m, d),
        Stage::ReferenceConstraint => reference::reference(m, d),
        Stage::Kinematics => kinematics::replace(m, d),
        Stage::Euler => euler::replace(m, d, args.skipfactor != 0),
        Stage::Implicit => implicit::replace(m, d, args.skipfactor != 0),
        Stage::FwdConstraint => solver::replace(m, d),
        Stage::RungeKutta => rk4::replace(m, d),
        Stage::Tendon => tendon::replace(m, d),
        _ => views::with(m, |v| replace_tree(stage, &v.tree, m, d, args)),
    }
}

/// [`replace`] for the stages of the mass matrix and bias forces (their view is `tm`).
fn replace_tree(stage: Stage, tm: &TreeModel, m: &sys::mjModel, d: &mut sys::mjData, args: Args) {
    let Sizes { nv, nbody, nc } = sizes(m);
    match stage {
        Stage::Crb => {
            // SAFETY: mjData's arrays of the documented lengths; crb and M are written only here.
            let (cinert, cdof, crb, mass) = unsafe {
                (slice(d.cinert, 10 * nbody), slice(d.cdof, 6 * nv), slice_mut(d.crb, 10 * nbody), slice_mut(d.M, nc))
            };
            dynamics::crb(tm, cinert, cdof, crb, mass);
        }
        Stage::FactorM => {
            let t0 = clock();
            // SAFETY: as above; M is read, qLD and qLDiagInv written.
            let (mass, qld, diag_inv) = unsafe { (slice(d.M, nc), slice_mut(d.qLD, nc), slice_mut(d.qLDiagInv, nv)) };
            if let Some(dof) = dynamics::factor_m(tm, mass, qld, diag_inv) {
                warn_inertia(d, dof, d.time);
            }
            // mj_factorM adds its time to the inertia timer (`docs/measurements.md` D2)
            let t = &mut d.timer[sys::mjTIMER_POS_INERTIA as usize];
            t.duration += clock() - t0;
        }
        Stage::ComVel => {
            // SAFETY: as above; cdof and qvel are read, cvel and cdof_dot written.
            let (cdof, qvel, cvel, cdof_dot) = unsafe {
                (slice(d.cdof, 6 * nv), slice(d.qvel, nv), slice_mut(d.cvel, 6 * nbody), slice_mut(d.cdof_dot, 6 * nv))
            };
            dynamics::com_vel(tm, cdof, qvel, cvel, cdof_dot);
        }
        Stage::Rne => {
            // SAFETY: `result` is MuJoCo's caller's array of nv entries, none of the inputs.
            let result = unsafe { slice_mut(args.result, nv) };
            RNE_SCRATCH.with(|s| dynamics::rne(tm, &rne_input(m, d), args.flg_acc != 0, &mut s.borrow_mut(), result));
        }
        Stage::FwdAcceleration => {
            // SAFETY: as above; the four forces and the factor are read, the two results written.
            let (qfrc_smooth, qacc_smooth) = unsafe { (slice_mut(d.qfrc_smooth, nv), slice_mut(d.qacc_smooth, nv)) };
            let (forces, qld, diag_inv) = smooth_input(m, d);
            dynamics::fwd_acceleration(tm, &forces, qld, diag_inv, qfrc_smooth, qacc_smooth);
        }
        Stage::ComPos => {
            // SAFETY: as above; the poses are read, subtree_com, cinert and cdof written.
            let mut out = unsafe {
                ComOutput {
                    subtree_com: slice_mut(d.subtree_com, 3 * nbody),
                    cinert: slice_mut(d.cinert, 10 * nbody),
                    cdof: slice_mut(d.cdof, 6 * nv),
                }
            };
            dynamics::com_pos(tm, &pose_input(m, d), &mut out);
        }
        _ => unreachable!("not a mass-matrix stage"),
    }
}

/// `mj_comPos`'s inputs in MuJoCo's data: the poses `mj_kinematics` wrote.
fn pose_input<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> PoseInput<'a> {
    let (nbody, njnt) = (m.nbody as usize, m.njnt as usize);
    // SAFETY: mjData's arrays of the documented lengths, read only.
    unsafe {
        PoseInput {
            xmat: slice(d.xmat, 9 * nbody),
            xipos: slice(d.xipos, 3 * nbody),
            ximat: slice(d.ximat, 9 * nbody),
            xanchor: slice(d.xanchor, 3 * njnt),
            xaxis: slice(d.xaxis, 3 * njnt),
        }
    }
}

/// `mj_fwdAcceleration`'s inputs in MuJoCo's data: the forces and the factor of `M`.
fn smooth_input<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> (SmoothForces<'a>, &'a [f64], &'a [f64]) {
    let Sizes { nv, nc, .. } = sizes(m);
    // SAFETY: mjData's arrays of the documented lengths, read only.
    unsafe {
        let forces = SmoothForces {
            qfrc_passive: slice(d.qfrc_passive, nv),
            qfrc_bias: slice(d.qfrc_bias, nv),
            qfrc_applied: slice(d.qfrc_applied, nv),
            qfrc_actuator: slice(d.qfrc_actuator, nv),
        };
        (forces, slice(d.qLD, nc), slice(d.qLDiagInv, nv))
    }
}

/// `mj_rne`'s inputs in MuJoCo's data.
fn rne_input<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> RneInput<'a> {
    let Sizes { nv, nbody, .. } = sizes(m);
    let gravity = (m.opt.disableflags & sys::mjDSBL_GRAVITY as i32 == 0).then_some(m.opt.gravity);
    // SAFETY: mjData's arrays of the documented lengths, read only.
    unsafe {
        RneInput {
            qvel: slice(d.qvel, nv),
            qacc: slice(d.qacc, nv),
            cinert: slice(d.cinert, 10 * nbody),
            cvel: slice(d.cvel, 6 * nbody),
            cdof: slice(d.cdof, 6 * nv),
            cdof_dot: slice(d.cdof_dot, 6 * nv),
            gravity,
        }
    }
}

/// `mjcb_time`'s reading, 0 without a timer callback (as MuJoCo's timers read it).
fn clock() -> f64 {
    // SAFETY: reading MuJoCo's global callback pointer; a set callback takes no arguments.
    unsafe { sys::mjcb_time.map_or(0.0, |f| f()) }
}

/// MuJoCo's `mjWARN_INERTIA` for a near-singular pivot at `dof`: the warning's info and count,
/// and the message on its first occurrence.
fn warn_inertia(d: &mut sys::mjData, dof: usize, time: f64) {
    let w = &mut d.warning[sys::mjWARN_INERTIA as usize];
    w.lastinfo = dof as i32;
    if w.number == 0 {
        let text = format!(
            "Inertia matrix is too close to singular, or the effective-metric solve failed to converge, at DOF {dof}. Check model."
        );
        let text = CString::new(text).expect("no NUL in the message");
        // SAFETY: MuJoCo's printf-style warning with a matching string and double argument.
        unsafe { sys::mju_warning(c"%s Time = %.4f.".as_ptr(), text.as_ptr(), time) };
    }
    w.number += 1;
}
