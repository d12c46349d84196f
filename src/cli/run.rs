//! `specula run`: simulate a scene and report what its bodies did.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
#[cfg(feature = "mujoco")]
use specula::demo::run_demo;
#[cfg(feature = "mujoco")]
use specula::mj::stages::{with_stages, StageSet};
#[cfg(feature = "mujoco")]
use specula::mj::Model;
use specula::report::{RunReport, MAX_STEPS};
#[cfg(feature = "mujoco")]
use specula::sim::{self, RunOptions, Start};

use specula_model::types::SpeculativeMode;

use super::RouteArg;

/// What `--rust-stages` parses to (a native-only build has no stages to name, and refuses it).
#[cfg(feature = "mujoco")]
type StagesArg = StageSet;
/// What `--rust-stages` parses to (a native-only build has no stages to name, and refuses it).
#[cfg(not(feature = "mujoco"))]
type StagesArg = String;

/// Passes through a body listed one per line; `--json` lists them all.
const SHOWN_TUNNELS: usize = 10;

/// Arguments of `specula run`.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// MJCF scene to simulate; without it, the built-in ball-and-plate scene runs twice
    /// (speculative contacts off, then on).
    pub scene: Option<PathBuf>,
    /// Route: MuJoCo C's collision, specula's inside MuJoCo's step, or specula's native step
    /// with no MuJoCo (default: c, or rust with `--speculative robust`; native in a build
    /// without the `mujoco` feature).
    #[arg(long, value_enum)]
    pub route: Option<RouteArg>,
    /// Number of steps.
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<usize>,
    /// Simulated time in seconds (rounded to whole steps); default 1 s.
    #[arg(long)]
    pub duration: Option<f64>,
    /// Start from this keyframe (name or index) instead of qpos0.
    #[arg(long)]
    pub key: Option<String>,
    /// Override the scene's speculative flag.
    #[arg(long, value_enum)]
    pub speculative: Option<SpeculativeMode>,
    /// Run these of MuJoCo's functions in Rust inside its step: a comma-separated list of stage
    /// names (`crb`, `factorM`, `comVel`, `rne`, `fwdAcceleration`, `comPos`, `passive`,
    /// `transmission`, `fwdActuation`, `makeConstraint`, `island`, `projectConstraint`,
    /// `referenceConstraint`) or `all` (MuJoCo's own where a state is outside a stage's scope,
    /// counted with the reason).
    #[arg(long, value_name = "STAGES")]
    pub rust_stages: Option<StagesArg>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `specula run`.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let Some(scene) = &args.scene else {
        return demo(&args);
    };
    if args.route == Some(RouteArg::Native) || (args.route.is_none() && !cfg!(feature = "mujoco")) {
        return super::run_native::run(scene, &args);
    }
    run_mujoco(scene, &args)
}

/// The number of steps `args` asks for at `timestep` (`--steps`, or `--duration`, default 1 s).
pub(super) fn step_count(args: &RunArgs, timestep: f64, file: &str) -> Result<usize, String> {
    // a zero or tiny timestep would make the default duration an endless run, a negative or NaN
    // one a run of 0 steps that looks like success
    if !(timestep.is_finite() && timestep > 0.0) {
        return Err(format!("{file}: the timestep is {timestep}: it must be a positive, finite number of seconds"));
    }
    Ok(match (args.steps, args.duration) {
        (Some(n), _) => n,
        (None, d) => {
            let d = d.unwrap_or(1.0);
            if !d.is_finite() || d < 0.0 {
                return Err(format!("{file}: --duration must be a finite, non-negative number of seconds"));
            }
            let n = (d / timestep).round();
            if n > MAX_STEPS as f64 {
                return Err(format!(
                    "{file}: {d} s at a timestep of {timestep:e} s is {n:.3e} steps, more than the {MAX_STEPS} a run may take"
                ));
            }
            n as usize
        }
    })
}

/// The c or rust route without MuJoCo C: refused.
#[cfg(not(feature = "mujoco"))]
fn run_mujoco(scene: &std::path::Path, args: &RunArgs) -> Result<ExitCode, String> {
    let route = args.route.unwrap_or(RouteArg::C).name();
    Err(format!("{}: the {route} route {}", scene.display(), super::unavailable::NEEDS_MUJOCO))
}

/// The c or rust route: MuJoCo's step, with its collision or specula's.
#[cfg(feature = "mujoco")]
fn run_mujoco(scene: &std::path::Path, args: &RunArgs) -> Result<ExitCode, String> {
    let file = scene.display().to_string();
    let mut model = Model::from_xml_path(scene).map_err(|e| e.to_string())?;
    let steps = step_count(args, model.timestep(), &file)?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    // A model may ask for robust mode itself (custom numeric `specula_robust`); an explicit
    // --speculative wins, and so does an explicit --route c (MuJoCo ignores the request).
    let robust = match args.speculative {
        Some(s) => s == SpeculativeMode::Robust,
        None => model.asks_robust() && args.route != Some(RouteArg::C),
    };
    let route = args.route.unwrap_or(if robust { RouteArg::Rust } else { RouteArg::C });
    if robust && route == RouteArg::C {
        return Err(format!("{file}: --speculative robust runs specula's collision stage: use --route rust"));
    }
    let opts = RunOptions { route: route.into(), steps, start, robust };
    let mut rust = match opts.route {
        sim::Route::Rust => Some(specula_model::load_file(scene).map_err(|e| e.to_string())?),
        sim::Route::C | sim::Route::Native => None,
    };
    if let Some(s) = args.speculative {
        sim::apply_speculative(s, &mut model, rust.as_mut()).map_err(|e| e.to_string())?;
    }
    let stages = args.rust_stages.unwrap_or_default();
    let (report, counts) = with_stages(stages, || sim::run(&model, rust.as_ref(), &opts));
    let report = report.map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        let mut json = report.to_json();
        if stages != StageSet::NONE {
            json["rust_stages"] = serde_json::Value::from(counts.summary(stages));
        }
        outln!("{json}");
    } else {
        print_head(&file, &report);
        super::print_stage_notes(report.mujoco_hulls, report.fallback_pairs);
        for line in counts.summary(stages) {
            outln!("  rust stage {line}");
        }
        print_tail(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The first lines of a run's text report: the run, then each named body.
pub(super) fn print_head(file: &str, report: &RunReport) {
    outln!(
        "{file}: {} steps of {} s on the {} route (speculative {}), up to {} contacts",
        report.steps,
        report.timestep,
        report.route.name(),
        if report.speculative { "on" } else { "off" },
        report.ncon_max
    );
    for b in &report.bodies {
        outln!("  {:<16} pos [{:.6}, {:.6}, {:.6}]  lowest z {:.6}", b.name, b.pos[0], b.pos[1], b.pos[2], b.min_z);
    }
}

/// The last lines of a run's text report: passes and warnings.
pub(super) fn print_tail(report: &RunReport) {
    // The passes are what a thin-parts user runs this for: say them, not only in --json.
    for t in report.tunnels.iter().take(SHOWN_TUNNELS) {
        outln!("  passed: {} through {} at step {} ({:.3} m/s)", t.body, t.through, t.step, t.speed);
    }
    if report.tunnels.len() > SHOWN_TUNNELS {
        outln!("  passed: {} more (run --json lists them all)", report.tunnels.len() - SHOWN_TUNNELS);
    }
    for w in &report.warnings {
        outln!("  warning: {w}");
    }
    for n in &report.state_notes {
        outln!("  warning: {n}");
    }
}

/// The built-in scene without MuJoCo C: refused.
#[cfg(not(feature = "mujoco"))]
fn demo(_args: &RunArgs) -> Result<ExitCode, String> {
    Err(format!(
        "the built-in scene has contacts, which the native route does not implement yet, so it {}",
        super::unavailable::NEEDS_MUJOCO
    ))
}

/// The built-in scene: speculative contacts off and on, said in words (or as JSON).
#[cfg(feature = "mujoco")]
fn demo(args: &RunArgs) -> Result<ExitCode, String> {
    if args.steps.is_some()
        || args.duration.is_some()
        || args.key.is_some()
        || args.speculative.is_some()
        || args.rust_stages.is_some()
    {
        return Err(
            "--steps, --duration, --key, --speculative and --rust-stages need a SCENE; the built-in scene runs both ways".into()
        );
    }
    if args.route == Some(RouteArg::Native) {
        return Err(
            "the built-in scene has contacts, which the native route does not implement yet: give a SCENE".into()
        );
    }
    let runs = run_demo(args.route.unwrap_or(RouteArg::C).into()).map_err(|e| format!("built-in scene: {e}"))?;
    if args.json {
        let runs: Vec<_> = runs
            .iter()
            .map(|r| {
                let mut j = r.report.to_json();
                j["outcome"] = serde_json::Value::String(r.outcome.describe());
                j
            })
            .collect();
        outln!("{}", serde_json::json!({ "scene": "built-in ball_plate", "runs": runs }));
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "A 10 mm steel ball is thrown down at 10 m/s onto a 2 mm steel plate (timestep 1.25 ms, {} route).",
        args.route.unwrap_or(RouteArg::C).name()
    );
    for r in &runs {
        let label = if r.speculative { "speculative contacts on: " } else { "speculative contacts off:" };
        outln!("  {label} {}.", r.outcome.describe());
    }
    Ok(ExitCode::SUCCESS)
}

impl RouteArg {
    fn name(self) -> &'static str {
        specula::Route::from(self).name()
    }
}
