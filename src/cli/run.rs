//! `specula run`: simulate a scene and report what its bodies did.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use specula::demo::run_demo;
use specula::mj::stages::{with_stages, StageSet};
use specula::mj::Model;
use specula::sim::{self, RunOptions, Start};

use specula_model::types::SpeculativeMode;

use super::RouteArg;

/// Passes through a body listed one per line; `--json` lists them all.
const SHOWN_TUNNELS: usize = 10;

/// Arguments of `specula run`.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// MJCF scene to simulate; without it, the built-in ball-and-plate scene runs twice
    /// (speculative contacts off, then on).
    pub scene: Option<PathBuf>,
    /// Collision route (default: c, or rust with `--speculative robust`).
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
    pub rust_stages: Option<StageSet>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `specula run`.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let Some(scene) = &args.scene else {
        return demo(&args);
    };
    let file = scene.display().to_string();
    let mut model = Model::from_xml_path(scene).map_err(|e| e.to_string())?;
    // a zero or tiny timestep would make the default duration an endless run, a negative or NaN
    // one a run of 0 steps that looks like success
    sim::check_timestep(model.timestep()).map_err(|e| format!("{file}: {e}"))?;
    let steps = match (args.steps, args.duration) {
        (Some(n), _) => n,
        (None, d) => {
            let d = d.unwrap_or(1.0);
            if !d.is_finite() || d < 0.0 {
                return Err(format!("{file}: --duration must be a finite, non-negative number of seconds"));
            }
            let n = (d / model.timestep()).round();
            if n > sim::MAX_STEPS as f64 {
                return Err(format!(
                    "{file}: {d} s at a timestep of {:e} s is {n:.3e} steps, more than the {} a run may take",
                    model.timestep(),
                    sim::MAX_STEPS
                ));
            }
            n as usize
        }
    };
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
        sim::Route::C => None,
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
        super::print_stage_notes(report.mujoco_hulls, report.fallback_pairs);
        for line in counts.summary(stages) {
            outln!("  rust stage {line}");
        }
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
    Ok(ExitCode::SUCCESS)
}

/// The built-in scene: speculative contacts off and on, said in words (or as JSON).
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
        specula::sim::Route::from(self).name()
    }
}
