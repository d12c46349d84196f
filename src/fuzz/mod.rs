//! The differential scene generator (`specula fuzz`): seeded random scenes ([`gen`]), each
//! compiled by both compilers and run through [`crate::diff`] against MuJoCo C; a scene that
//! fails is shrunk (parts dropped while it still fails the same way) and written out under its
//! seed.
//!
//! A scene's verdict is one of: both compilers reject it (not counted as a failure: the
//! generator drew something MuJoCo refuses), the compilers disagree on accepting it, the diff
//! differs, or the diff could not run. Only the first kind is not a failure.

pub mod dynamics;
pub mod gen;
pub mod mutate;
pub mod mutate_base;
pub mod mutate_child;
pub mod mutate_tree;
pub mod native;
pub mod scene;
pub mod stress;
pub mod subset;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use specula_engine::contact::Contact;

use crate::diff::{diff_stages, StageDiffOptions};
use crate::diff::{diff_tampered, DiffOptions, DiffReport, TOL_EXACT, TOL_GJK};
use crate::mj::stages::StageSet;
use crate::mj::Model;
use crate::sim::Start;
use scene::Scene;
use specula_engine::narrowphase::GeomType;

/// A file or folder the fuzzers cannot read or write (a scene, a base, the output directory).
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct FuzzError {
    /// The file or folder.
    pub path: PathBuf,
    /// What went wrong with it.
    pub message: String,
}

impl FuzzError {
    /// `path` and what went wrong with it.
    pub fn new(path: &Path, message: impl std::fmt::Display) -> FuzzError {
        FuzzError { path: path.to_path_buf(), message: message.to_string() }
    }
}

/// What one scene gave.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Both compilers accept it and `diff` matches.
    Match,
    /// Both compilers reject it (the generator drew something MuJoCo refuses).
    BothReject(String),
    /// One compiler accepts what the other rejects.
    CompileDisagree(String),
    /// `diff` differs: its first problem and summary.
    Differ(String),
    /// `diff` could not run.
    Error(String),
    /// The native route refuses the scene (`fuzz --route native`): what it lacks.
    NativeRefused(String),
}

impl Verdict {
    /// Whether this verdict is a failure of specula.
    pub fn failed(&self) -> bool {
        !matches!(self, Verdict::Match | Verdict::BothReject(_) | Verdict::NativeRefused(_))
    }
    /// The verdict's kind in one word.
    pub fn kind(&self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::BothReject(_) => "both-reject",
            Verdict::CompileDisagree(_) => "compile",
            Verdict::Differ(_) => "differ",
            Verdict::Error(_) => "error",
            Verdict::NativeRefused(_) => "native-refused",
        }
    }
    /// The detail, in words.
    pub fn detail(&self) -> &str {
        match self {
            Verdict::Match => "",
            Verdict::BothReject(s)
            | Verdict::CompileDisagree(s)
            | Verdict::Differ(s)
            | Verdict::Error(s)
            | Verdict::NativeRefused(s) => s,
        }
    }
}

/// How to run the generator.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Steps per scene.
    pub steps: usize,
    /// Shrink failing scenes.
    pub shrink: bool,
    /// Test hook: alters the Rust stage's contacts, to show that a wrong collider is caught.
    #[doc(hidden)]
    pub tamper: Option<fn(&mut Vec<Contact>)>,
    /// Dynamics stages also compared call by call with MuJoCo's functions
    /// ([`crate::diff::diff_stages`]) on every scene whose collision diff matched.
    pub stages: StageSet,
    /// Test hook: moves one output of this stage by one ulp in the stage comparison.
    #[doc(hidden)]
    pub stage_tamper: Option<crate::mj::stages::Stage>,
    /// Compare the native route with `mj_step` instead of the Rust collision stage
    /// ([`native::run_xml`]).
    pub native: bool,
    /// Draw scenes in the native route's subset ([`subset::native_subset`]).
    pub subset: bool,
    /// Test hook of the native comparison: flips a bit of the native `qvel` before this step.
    #[doc(hidden)]
    pub native_tamper: Option<usize>,
    /// Draw the speculative-stress variant of each scene ([`stress::speculative_stress`]).
    pub stress: bool,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            steps: 120,
            shrink: true,
            tamper: None,
            stages: StageSet::NONE,
            stage_tamper: None,
            native: false,
            subset: false,
            native_tamper: None,
            stress: false,
        }
    }
}

/// The scene of `seed` as `opts` asks: [`gen::generate`], its speculative-stress variant with
/// [`FuzzOptions::stress`], restricted to the native subset with [`FuzzOptions::subset`].
pub fn scene(seed: u64, opts: &FuzzOptions) -> Scene {
    let mut sc = gen::generate(seed, opts.steps);
    if opts.stress {
        sc = stress::speculative_stress(seed, sc);
    }
    if opts.subset {
        subset::native_subset(sc)
    } else {
        sc
    }
}

/// One failing scene, shrunk.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The seed.
    pub seed: u64,
    /// The verdict of the scene as generated.
    pub verdict: Verdict,
    /// The scene as generated.
    pub full: Scene,
    /// The shrunk scene (the generated one when shrinking is off) and its verdict.
    pub shrunk: Scene,
    /// Verdict of the shrunk scene.
    pub shrunk_verdict: Verdict,
    /// Steps the shrunk scene needs to fail.
    pub steps: usize,
    /// Whether it failed on the native route (`--route native`).
    pub native: bool,
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct FuzzSummary {
    /// Scenes run.
    pub scenes: usize,
    /// Scenes that matched.
    pub matched: usize,
    /// Scenes both compilers rejected.
    pub both_reject: usize,
    /// Scenes on which the compilers disagreed.
    pub compile: usize,
    /// Scenes whose diff differed.
    pub differ: usize,
    /// Scenes whose diff could not run.
    pub errors: usize,
    /// Scenes with speculative contacts on.
    pub speculative: usize,
    /// Why both compilers rejected scenes: MuJoCo's message (numbers left out) and how often.
    pub reject_reasons: std::collections::BTreeMap<String, usize>,
    /// Scenes per integrator, in [`scene::INTEGRATORS`] order.
    pub integrators: [usize; 5],
    /// Contacts compared over all matched and differing scenes.
    pub contacts: u64,
    /// Dynamics-stage calls compared bit for bit (with [`FuzzOptions::stages`]).
    pub stage_calls: u64,
    /// Scenes with actuators.
    pub actuated: usize,
    /// Scenes in which the Rust stage took a mesh hull from MuJoCo's model (specula's
    /// compiler could not put it in qhull's order).
    pub mujoco_hulls: usize,
    /// Scenes the native route refused (`--route native`).
    pub native_refused: usize,
    /// What the native route lacked for them (numbers left out) and how often.
    pub native_reasons: std::collections::BTreeMap<String, usize>,
    /// Native comparisons: steps run on both routes, and values compared bit for bit.
    pub native_steps: u64,
    /// Values the native comparisons compared bit for bit.
    pub native_values: u64,
    /// Native comparisons that stopped where both routes found a diverged state.
    pub native_stopped: usize,
    /// Contacts the native route made in its comparisons.
    pub native_contacts: u64,
    /// Native comparisons that ran (matched or differed) per feature ([`native::features`]).
    pub native_features: std::collections::BTreeMap<&'static str, usize>,
    /// The failing scenes.
    pub failures: Vec<Failure>,
}

impl FuzzSummary {
    /// Failing scenes.
    pub fn failed(&self) -> usize {
        self.compile + self.differ + self.errors
    }
}

/// MuJoCo's XML loader keeps global state (its VFS and the parser's error buffers); scenes are
/// loaded one at a time.
static LOAD: Mutex<()> = Mutex::new(());

/// Compiles and diffs one scene; also returns the diff's report when there is one.
pub fn run_scene(sc: &Scene, steps: usize, opts: &FuzzOptions) -> (Verdict, Option<DiffReport>) {
    let start = if sc.has_dofs() { Start::Key("start".into()) } else { Start::Qpos0 };
    if opts.native {
        return (run_native_scene(sc, steps, opts).0, None);
    }
    let stages = (opts.stages, opts.stage_tamper);
    run_xml(&sc.to_mjcf(), &format!("fuzz-{}.xml", sc.seed), start, steps, opts.tamper, stages)
}

/// [`native::run_xml`] on a generated scene, from its start keyframe when it has one.
pub fn run_native_scene(sc: &Scene, steps: usize, opts: &FuzzOptions) -> (Verdict, native::NativeCounts) {
    let start = if sc.has_dofs() { Start::Key("start".into()) } else { Start::Qpos0 };
    native::run_xml(&sc.to_mjcf(), &format!("fuzz-{}.xml", sc.seed), start, steps, opts.native_tamper)
}

/// [`run_scene`] for a scene file (a written failure, say), from its first keyframe if it has one.
pub fn run_file(path: &Path, steps: usize) -> Result<Verdict, FuzzError> {
    let xml = std::fs::read_to_string(path).map_err(|e| FuzzError::new(path, e))?;
    let start = if xml.contains("<key") { Start::Key("0".into()) } else { Start::Qpos0 };
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok(run_xml(&xml, &name, start, steps, None, (StageSet::NONE, None)).0)
}

/// Compiles an MJCF text with both compilers and diffs it.
fn run_xml(
    xml: &str,
    name: &str,
    start: Start,
    steps: usize,
    tamper: Option<fn(&mut Vec<Contact>)>,
    (stages, stage_tamper): (StageSet, Option<crate::mj::stages::Stage>),
) -> (Verdict, Option<DiffReport>) {
    let (c, rust) = {
        let _guard = LOAD.lock().unwrap_or_else(|p| p.into_inner());
        (Model::from_xml_str(xml), specula_model::load_str(xml, Path::new("."), name))
    };
    let (c, rust) = match (c, rust) {
        (Ok(c), Ok(r)) => (c, r),
        (Err(c), Err(r)) => return (Verdict::BothReject(format!("MuJoCo: {c}; specula: {r}")), None),
        (Ok(_), Err(r)) => return (Verdict::CompileDisagree(format!("MuJoCo accepts, specula rejects: {r}")), None),
        (Err(c), Ok(_)) => return (Verdict::CompileDisagree(format!("specula accepts, MuJoCo rejects: {c}")), None),
    };
    let opts = DiffOptions { steps, start: start.clone() };
    let mut hook = |v: &mut Vec<Contact>| {
        if let Some(t) = tamper {
            t(v);
        }
    };
    match diff_tampered(&c, &rust, &opts, &mut hook) {
        Ok(rep) if rep.matches() && stages != StageSet::NONE => {
            let sopts =
                StageDiffOptions { steps, start, stages, tamper: stage_tamper.map(crate::mj::stages::Tamper::Output) };
            match diff_stages(&c, &sopts) {
                Ok(s) => match (&s.first, &s.trajectory) {
                    (None, None) => (Verdict::Match, Some(DiffReport { stage_calls: s.compared.iter().sum(), ..rep })),
                    (None, Some(t)) => (
                        Verdict::Differ(format!(
                            "step {}: the trajectory with the stages in Rust differs at state[{}]: MuJoCo {:e}, specula {:e}",
                            t.step, t.index, t.c, t.rust
                        )),
                        Some(rep),
                    ),
                    (Some(d), _) => (
                        Verdict::Differ(format!(
                            "step {}: stage {} differs at {}[{}]: MuJoCo {:e}, specula {:e}",
                            d.step,
                            d.stage.name(),
                            d.field,
                            d.index,
                            d.c,
                            d.rust
                        )),
                        Some(rep),
                    ),
                },
                Err(e) => (Verdict::Error(format!("stage diff: {e}")), Some(rep)),
            }
        }
        Ok(rep) if rep.matches() => (Verdict::Match, Some(rep)),
        Ok(rep) => {
            let what = rep.first_problem.clone().unwrap_or_else(|| worst_pair(&rep));
            (Verdict::Differ(format!("{what} ({} unmatched of {} contacts)", rep.unmatched(), rep.contacts)), Some(rep))
        }
        Err(e) => (stop_verdict(&c, &rust, &opts, &e.to_string()), None),
    }
}

/// The verdict when MuJoCo stops a run with an error: both stop if specula's stage, run on
/// every collision call before MuJoCo's, reports the same condition (today: the broadphase
/// buffer MuJoCo overflows); otherwise a failure.
fn stop_verdict(c: &Model, rust: &specula_model::Model, opts: &DiffOptions, mujoco: &str) -> Verdict {
    use crate::mj::collision::{run_library_collision, with_collision};
    let mut stage = crate::route::RustStage::new(rust);
    let mut last = None::<crate::route::StageError>;
    let ran = (|| -> Result<(), crate::mj::MjError> {
        let mut data = crate::mj::Data::new(c)?;
        crate::sim::start(&mut data, &opts.start)?;
        let mut hook = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
            last = stage.compute(m, d).err();
            run_library_collision(m, d);
        };
        with_collision(c.raw(), &mut hook, || -> Result<(), crate::mj::MjError> {
            for _ in 0..opts.steps {
                data.step()?;
            }
            Ok(())
        })
        .0
    })();
    use crate::route::StageError;
    use specula_engine::collision::CollideError;
    let full = matches!(last, Some(StageError::Collide(CollideError::BroadphaseFull)));
    let said = last.as_ref().map_or("no error".to_string(), |e| e.to_string());
    match ran {
        // MuJoCo's words for the same condition (its error text, `mjERROR` in mj_collision)
        Err(_) if full && mujoco.contains("broadphase buffer full") => {
            Verdict::BothReject(format!("both stop: MuJoCo: {mujoco}; specula: {said}"))
        }
        _ => Verdict::Error(format!("{mujoco} (specula's stage: {said})")),
    }
}

/// The worst contact error of a report, or its trajectory divergence, in words.
fn worst_pair(rep: &DiffReport) -> String {
    let tol = |a: (GeomType, GeomType)| if crate::diff::uses_gjk(a.0, a.1) { TOL_GJK } else { TOL_EXACT };
    let worst = rep
        .pairs
        .iter()
        .map(|(k, p)| (k, p.max_err.dist.max(p.max_err.pos).max(p.max_err.frame).max(p.max_err.params), tol(*k)))
        .filter(|(_, e, t)| e > t)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match worst {
        Some(((a, b), e, t)) => format!("{a:?}-{b:?} contacts differ by {e:.3e} (tolerance {t:.0e})").to_lowercase(),
        None => format!("trajectories diverge: {:.3e} (noise floor {:.3e})", rep.qpos_divergence, rep.noise_floor),
    }
}

/// The step of a diff's first problem ("step N: ..."), if it names one.
fn problem_step(v: &Verdict) -> Option<usize> {
    let d = v.detail();
    let rest = d.strip_prefix("step ")?;
    rest.split(':').next()?.trim().parse().ok()
}

/// Every scene one removal (or simplification) away from `sc`.
fn simpler(sc: &Scene) -> Vec<Scene> {
    let mut out = Vec::new();
    let mut push = |mut s: Scene| {
        s.tidy();
        if &s != sc {
            out.push(s);
        }
    };
    for k in 0..sc.bodies.len() {
        let mut s = sc.clone();
        s.bodies.remove(k);
        push(s);
    }
    for k in 0..sc.obstacles.len() {
        let mut s = sc.clone();
        s.obstacles.remove(k);
        push(s);
    }
    if sc.floor.is_some() {
        let mut s = sc.clone();
        s.floor = None;
        push(s);
    }
    for (k, b) in sc.bodies.iter().enumerate() {
        for j in 0..b.geoms.len() {
            if b.geoms.len() > 1 {
                let mut s = sc.clone();
                s.bodies[k].geoms.remove(j);
                push(s);
            }
        }
    }
    for (k, b) in sc.bodies.iter().enumerate() {
        for j in 0..b.links.len() {
            let mut s = sc.clone();
            s.bodies[k].links.truncate(j);
            push(s);
            if b.links[j].joint != scene::Joint::Weld {
                let mut s = sc.clone();
                s.bodies[k].links[j].joint = scene::Joint::Weld;
                push(s);
            }
        }
        if b.root != scene::Joint::Free {
            let mut s = sc.clone();
            s.bodies[k].root = scene::Joint::Free;
            push(s);
        }
    }
    for k in 0..sc.pairs.len() {
        let mut s = sc.clone();
        s.pairs.remove(k);
        push(s);
    }
    for k in 0..sc.dynamics.actuators.len() {
        let mut s = sc.clone();
        s.dynamics.actuators.remove(k);
        push(s);
    }
    for j in sc.dynamics.joints.keys() {
        let mut s = sc.clone();
        s.dynamics.joints.remove(j);
        push(s);
    }
    for k in 0..sc.excludes.len() {
        let mut s = sc.clone();
        s.excludes.remove(k);
        push(s);
    }
    if sc.opt.override_.is_some() {
        let mut s = sc.clone();
        s.opt.override_ = None;
        push(s);
    }
    // contact settings back to defaults, one geom at a time
    let plain = scene::Surface::default();
    for k in 0..sc.obstacles.len() {
        if sc.obstacles[k].geom.surface != plain {
            let mut s = sc.clone();
            s.obstacles[k].geom.surface = plain.clone();
            push(s);
        }
    }
    for (k, b) in sc.bodies.iter().enumerate() {
        for j in 0..b.geoms.len() {
            if b.geoms[j].surface != plain {
                let mut s = sc.clone();
                s.bodies[k].geoms[j].surface = plain.clone();
                push(s);
            }
        }
    }
    if let Some(fl) = &sc.floor {
        if fl.surface != plain {
            let mut s = sc.clone();
            if let Some(f) = s.floor.as_mut() {
                f.surface = plain.clone();
            }
            push(s);
        }
    }
    // stop the spin
    for (k, b) in sc.bodies.iter().enumerate() {
        if b.spin != [0.0; 3] {
            let mut s = sc.clone();
            s.bodies[k].spin = [0.0; 3];
            push(s);
        }
    }
    out
}

/// What a failure is, for the shrinker: its kind and, for a diff, which problem (a missing
/// or an extra contact, the type pair whose contacts differ, or the trajectories), so that
/// shrinking does not drift from one difference to another.
fn signature(v: &Verdict) -> String {
    let d = v.detail();
    let what = if let Some(i) = d.find(" contacts differ by") {
        d[..i].to_string()
    } else if d.contains("MuJoCo has a contact") {
        "missing".into()
    } else if d.contains("specula has a contact") {
        "extra".into()
    } else if d.contains("trajectories diverge") {
        "trajectories".into()
    } else if let Some(i) = d.find("] differs: native") {
        // the native route's array (`step N: qacc[3] differs: ...`)
        d[..i].rsplit(": ").next().and_then(|a| a.split('[').next()).unwrap_or("").to_string()
    } else {
        String::new()
    };
    format!("{} {what}", v.kind())
}

/// Shrinks a failing scene: drops parts while it still fails the same way ([`signature`]),
/// then cuts the run to the step where it first fails.
pub fn shrink(sc: &Scene, verdict: &Verdict, steps: usize, opts: &FuzzOptions) -> (Scene, Verdict, usize) {
    let kind = signature(verdict);
    let (mut best, mut best_v, mut best_steps) = (sc.clone(), verdict.clone(), steps);
    // bounded: every accepted step removes something, and the candidates are finite
    for _ in 0..200 {
        let mut improved = false;
        for cand in simpler(&best) {
            let (v, _) = run_scene(&cand, best_steps, opts);
            if signature(&v) == kind {
                best = cand;
                best_v = v;
                improved = true;
                break;
            }
        }
        if !improved {
            break;
        }
    }
    if let Some(step) = problem_step(&best_v) {
        let shorter = (step + 1).min(best_steps);
        if shorter < best_steps {
            let (v, _) = run_scene(&best, shorter, opts);
            if signature(&v) == kind {
                best_v = v;
                best_steps = shorter;
            }
        }
    }
    (best, best_v, best_steps)
}

/// One scene's result inside [`run`].
struct SceneOutcome {
    scene: Scene,
    verdict: Verdict,
    failure: Option<Failure>,
    /// Contacts compared.
    contacts: u64,
    /// Whether the Rust stage took a hull from MuJoCo's model.
    mujoco_hulls: bool,
    /// Dynamics-stage calls compared.
    stage_calls: u64,
    /// What the native comparison counted.
    native: native::NativeCounts,
}

/// Runs the scenes of `seeds` (in parallel), shrinking the failing ones; `progress` is called
/// after each scene with the number done and failed so far.
pub fn run(seeds: std::ops::Range<u64>, opts: &FuzzOptions, progress: &(dyn Fn(usize, usize) + Sync)) -> FuzzSummary {
    use rayon::prelude::*;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<SceneOutcome> = seeds
        .into_par_iter()
        .map(|seed| {
            let sc = scene(seed, opts);
            let (v, rep, native) = if opts.native {
                let (v, n) = run_native_scene(&sc, opts.steps, opts);
                (v, None, n)
            } else {
                let (v, rep) = run_scene(&sc, opts.steps, opts);
                (v, rep, native::NativeCounts::default())
            };
            let (contacts, mujoco_hulls, stage_calls) =
                rep.map_or((0, false, 0), |r| (r.contacts, r.mujoco_hulls > 0, r.stage_calls));
            let failure = v.failed().then(|| {
                let (shrunk, shrunk_verdict, steps) =
                    if opts.shrink { shrink(&sc, &v, opts.steps, opts) } else { (sc.clone(), v.clone(), opts.steps) };
                Failure {
                    seed,
                    verdict: v.clone(),
                    full: sc.clone(),
                    shrunk,
                    shrunk_verdict,
                    steps,
                    native: opts.native,
                }
            });
            use std::sync::atomic::Ordering::Relaxed;
            let n = done.fetch_add(1, Relaxed) + 1;
            let f = failed.fetch_add(usize::from(failure.is_some()), Relaxed) + usize::from(failure.is_some());
            progress(n, f);
            SceneOutcome { scene: sc, verdict: v, failure, contacts, mujoco_hulls, stage_calls, native }
        })
        .collect();
    let mut sum = FuzzSummary::default();
    for SceneOutcome { scene: sc, verdict: v, failure, contacts, mujoco_hulls: hulls, stage_calls, native } in results {
        sum.scenes += 1;
        sum.native_steps += native.steps;
        sum.native_values += native.values;
        sum.native_stopped += usize::from(native.stopped);
        sum.native_contacts += native.contacts;
        if opts.native && matches!(v, Verdict::Match | Verdict::Differ(_)) {
            for f in native::features(&sc) {
                *sum.native_features.entry(f).or_default() += 1;
            }
        }
        sum.stage_calls += stage_calls;
        sum.actuated += usize::from(!sc.dynamics.actuators.is_empty());
        sum.contacts += contacts;
        sum.mujoco_hulls += usize::from(hulls);
        sum.speculative += usize::from(sc.opt.speculative);
        if let Some(i) = scene::INTEGRATORS.iter().position(|&n| n == sc.opt.integrator) {
            sum.integrators[i] += 1;
        }
        match v {
            Verdict::Match => sum.matched += 1,
            Verdict::BothReject(why) => {
                sum.both_reject += 1;
                let key: String = why
                    .split("; specula")
                    .next()
                    .unwrap_or("")
                    .chars()
                    .filter(|c| !c.is_ascii_digit())
                    .take(90)
                    .collect();
                *sum.reject_reasons.entry(key).or_default() += 1;
            }
            Verdict::CompileDisagree(_) => sum.compile += 1,
            Verdict::Differ(_) => sum.differ += 1,
            Verdict::Error(_) => sum.errors += 1,
            Verdict::NativeRefused(why) => {
                sum.native_refused += 1;
                *sum.native_reasons.entry(native::reason_key(&why)).or_default() += 1;
            }
        }
        sum.failures.extend(failure);
    }
    sum
}

/// Checks that failing scenes can be written under `dir` (created if missing), before any run.
pub fn prepare_dir(dir: &Path) -> Result<(), FuzzError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| FuzzError::new(dir, format!("cannot create the output directory: {e}")))?;
    let probe = dir.join(".specula-fuzz-probe");
    std::fs::write(&probe, b"")
        .map_err(|e| FuzzError::new(dir, format!("cannot write in the output directory: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes a failure's shrunk and full scenes as `fuzz-SEED.xml` and `fuzz-SEED-full.xml`, each
/// with a comment saying what failed and how to reproduce it; returns the shrunk file's path.
pub fn write_failure(dir: &Path, f: &Failure, steps: usize) -> Result<PathBuf, FuzzError> {
    let write = |path: PathBuf, sc: &Scene, v: &Verdict, n: usize| -> Result<PathBuf, FuzzError> {
        let mut key = if sc.has_dofs() { " --key start".to_string() } else { String::new() };
        if f.native {
            key.push_str(" --route native");
        }
        let head = format!(
            "<!-- specula fuzz, seed {}: {} ({})\n     reproduce: specula diff {}{key} --steps {n} -->\n",
            f.seed,
            v.kind(),
            v.detail().replace("--", "- -"),
            path.file_name().map_or(String::new(), |p| p.to_string_lossy().into_owned()),
        );
        std::fs::write(&path, head + &sc.to_mjcf()).map_err(|e| FuzzError::new(&path, e))?;
        Ok(path)
    };
    write(dir.join(format!("fuzz-{}-full.xml", f.seed)), &f.full, &f.verdict, steps)?;
    write(dir.join(format!("fuzz-{}.xml", f.seed)), &f.shrunk, &f.shrunk_verdict, f.steps)
}
