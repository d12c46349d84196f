//! The tunneling matrix: parts × obstacles × speeds × start offsets × timesteps × routes × speculative
//! modes, run in parallel and labelled as the MuJoCo 4.0 measurements label them.
//!
//! * [`scene`] writes the scenes as MJCF (scene A: a ball or cube thrown onto a static plate; scene B:
//!   thin parts dropped onto a 5 mm pane with seeded perturbations) and places the part.
//! * [`exec`] runs one cell and labels it PASS, LAND, BOUNCE or STUCK, with its dip and rest height.
//! * [`preset`] holds the built-in grids (`a1`, `a5`, `a3`, `b`, `b-stiff`, `quick`).
//! * [`user`] sweeps a free body of the user's own scene (placed by [`shape`]'s support functions).
//! * [`def`] is a sweep's whole definition, presets and scenes alike, with its canonical JSON and
//!   hash; [`merge`] writes and reads shard files and puts shards back together.
//! * [`report`] writes CSV or JSON and the summary tables, [`verdict`] the scene summary and its
//!   verdict in words; [`svg`] draws pass rate against speed; [`progress`] is the progress bar.
//!
//! A run list is a plain `Vec<RunSpec>` in a fixed order, so `--shard I/N` (every N-th run from the
//! I-th) splits it the same way on every machine.

pub mod def;
pub mod exec;
pub mod merge;
pub mod preset;
pub mod progress;
pub mod report;
pub mod request;
pub mod scene;
pub mod shape;
pub mod svg;
pub mod user;
pub mod verdict;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use crate::mj::{MjError, Model};
use crate::sim::Route;
use crate::tunnel::TunnelDetector;

pub use exec::{Outcome, RunResult};
pub use scene::{Part, SceneKind};

pub use specula_model::types::SpeculativeMode;

/// One run of the matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// Position in the full (unsharded) run list.
    pub index: usize,
    /// Which scene family.
    pub scene: SceneKind,
    /// Row label, as the reference tables name it (e.g. `10/2`, `cube/10`, `coin 2 mm tilted 12°`).
    pub case: String,
    /// The moving part.
    pub part: Part,
    /// Plate or pane thickness (m).
    pub plate: f64,
    /// Speed towards the plate at the start (m/s).
    pub speed: f64,
    /// Start gap as a fraction of one step's travel (`gap = offset·v·h`).
    pub offset: f64,
    /// Timestep (s).
    pub timestep: f64,
    /// Whether contacts are stiff (`solref = 2h`) instead of MuJoCo's default.
    pub stiff: bool,
    /// Collision route.
    pub route: Route,
    /// Speculative mode.
    pub mode: SpeculativeMode,
    /// Perturbation draw of scene B (run number within its cell); 0 for scene A.
    pub seed: u64,
    /// Simulated time (s); the run stops early once the part is completely below the plate.
    pub duration: f64,
    /// A user's scene: its body and how its runs start (`None` for the built-in scenes).
    pub user: Option<Arc<user::Case>>,
}

/// Key of the compiled model a run needs: everything but the initial state.
fn model_key(r: &RunSpec) -> String {
    match &r.user {
        Some(c) => format!("{}|{}|{}|{:?}|{}", c.scene.display(), c.body, r.mode.name(), r.route, r.timestep),
        None => format!("{}|{}|{:?}|{}", scene::mjcf(r), r.mode.name(), r.route, r.timestep),
    }
}

/// A scene compiled for one (scene, mode, route, timestep), shared by its runs.
pub struct Compiled {
    /// MuJoCo's compilation, set up for the mode and timestep.
    pub model: Model,
    /// specula's compilation of the same scene (rust and native routes).
    pub rust: Option<specula_model::Model>,
    /// A fresh tunnel detector for the model.
    pub detector: TunnelDetector,
    /// A user's scene: its case checked against the model.
    pub setup: Option<user::Setup>,
}

impl Compiled {
    /// Compiles the scene of run `r` for its mode, route and timestep.
    pub fn new(r: &RunSpec) -> Result<Compiled, MjError> {
        let (mut model, mut rust) = match &r.user {
            None => {
                let xml = scene::mjcf(r);
                let model = Model::from_xml_str(&xml)?;
                let (dir, name) = (std::path::Path::new("."), "sweep.xml");
                let rust = match r.route {
                    Route::Rust => {
                        Some(specula_model::load_str(&xml, dir, name).map_err(|e| MjError::Invalid(e.to_string()))?)
                    }
                    Route::Native => Some(native_model(specula_model::xml::parse_str(&xml, dir, name), || {
                        specula_model::load_str(&xml, dir, name)
                    })?),
                    Route::C => None,
                };
                (model, rust)
            }
            Some(case) => {
                let mut model = Model::from_xml_path(&case.scene)?;
                let mut rust = match r.route {
                    Route::Rust => {
                        Some(specula_model::load_file(&case.scene).map_err(|e| MjError::Invalid(e.to_string()))?)
                    }
                    Route::Native => Some(native_model(specula_model::xml::parse_file(&case.scene), || {
                        specula_model::load_file(&case.scene)
                    })?),
                    Route::C => None,
                };
                // The run's timestep replaces the scene's (both compilations: the Rust stage sweeps
                // with its own copy of the options).
                model.raw_mut().expect("a fresh model is not shared").opt.timestep = r.timestep;
                if let Some(m) = rust.as_mut() {
                    m.opt.timestep = r.timestep;
                }
                (model, rust)
            }
        };
        crate::sim::apply_speculative(r.mode, &mut model, rust.as_mut())?;
        let setup = r.user.as_deref().map(|case| user::Setup::new(&model, case)).transpose()?;
        let detector = TunnelDetector::new(&model);
        Ok(Compiled { model, rust, detector, setup })
    }

    /// Runs `r` (whose scene this is).
    pub fn run(&self, r: &RunSpec) -> Result<RunResult, MjError> {
        match &self.setup {
            None => exec::run_one(&self.model, self.rust.as_ref(), self.detector.clone(), r),
            Some(setup) => exec::on_route(self.rust.as_ref(), r, &self.model, |stepper| {
                setup.run(&self.model, self.detector.clone(), r, stepper)
            }),
        }
    }
}

/// specula's compilation of an MJCF scene (`tree` parsed, `compile` to compile it) for the
/// native route, after the route's checks of the MJCF itself (plugins, plasticity, a small
/// arena), which the compiled model does not show.
fn native_model(
    tree: Result<specula_model::xml::Element, specula_model::MjcfError>,
    compile: impl FnOnce() -> Result<specula_model::Model, specula_model::MjcfError>,
) -> Result<specula_model::Model, MjError> {
    let invalid = |e: &dyn std::fmt::Display| MjError::Invalid(format!("native route: {e}"));
    let tree = tree.map_err(|e| invalid(&e))?;
    specula_native::scope::check_mjcf(&tree).map_err(|e| invalid(&e))?;
    let model = compile().map_err(|e| invalid(&e))?;
    if specula_native::scope::rows_possible(&model) {
        specula_native::scope::check_mjcf_arena(&tree).map_err(|e| invalid(&e))?;
    }
    Ok(model)
}

/// The runs of shard `i` of `n` (1-based): every n-th run starting with the i-th.
pub fn shard(runs: &[RunSpec], i: usize, n: usize) -> Vec<RunSpec> {
    if n == 0 || i == 0 || i > n {
        return Vec::new();
    }
    runs.iter().skip(i - 1).step_by(n).cloned().collect()
}

/// Runs every spec in parallel (on the current rayon pool) and returns the results in input order.
/// `progress` is called after each finished run with (done, total).
pub fn run_all(runs: &[RunSpec], progress: &(dyn Fn(usize, usize) + Sync)) -> Result<Vec<RunResult>, MjError> {
    // Compile each distinct model once; runs share it.
    let mut keys: Vec<(String, &RunSpec)> = Vec::new();
    let mut seen = HashMap::new();
    for r in runs {
        let k = model_key(r);
        if !seen.contains_key(&k) {
            seen.insert(k.clone(), keys.len());
            keys.push((k, r));
        }
    }
    let compiled: Vec<Compiled> = keys.par_iter().map(|(_, r)| Compiled::new(r)).collect::<Result<_, MjError>>()?;
    let done = AtomicUsize::new(0);
    runs.par_iter()
        .map(|r| {
            let out = compiled[seen[&model_key(r)]].run(r);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, runs.len());
            out
        })
        .collect()
}

/// Runs `runs` (all of `sweep`'s runs, or one shard of them) like [`run_all`]; a sweep that
/// refines then gets its refinement runs (numbered from `total`, the unsharded run count), of
/// which `more` is told the number before they run.
pub fn run_refined(
    sweep: &def::Sweep,
    runs: &[RunSpec],
    total: usize,
    more: &dyn Fn(usize),
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<RunResult>, MjError> {
    let mut results = run_all(runs, progress)?;
    if sweep.refine {
        let extra = preset::refinement(&results, total);
        more(extra.len());
        results.extend(run_all(&extra, progress)?);
    }
    Ok(results)
}
