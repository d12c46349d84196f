//! `specula bench`: time the Rust collision stage and MuJoCo C's on the same recorded states.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use specula::bench::native::bench_native;
use specula::bench::stages::bench_stages;
use specula::bench::{bench, suite};
use specula::mj::stages::StageSet;
use specula::report::Start;
use specula::sim::load_pair;

use specula_model::types::{Integrator, SpeculativeMode};

/// Arguments of `specula bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// MJCF scene (not with --suite).
    #[arg(required_unless_present = "suite", conflicts_with = "suite")]
    pub scene: Option<PathBuf>,
    /// Run the benchmark set instead (project scenes, `benches/scenes/`, and the corpus humanoid
    /// and box stack when MuJoCo's corpus is beside the repository) and print its tables.
    #[arg(long)]
    pub suite: bool,
    /// Steps to record (each recorded state is collided once per pass).
    #[arg(long, default_value_t = 500)]
    pub steps: usize,
    /// Start from this keyframe (name or index) instead of qpos0.
    #[arg(long)]
    pub key: Option<String>,
    /// Override the scene's integrator.
    #[arg(long, value_enum)]
    pub integrator: Option<Integrator>,
    /// Override the scene's speculative flag.
    #[arg(long, value_enum)]
    pub speculative: Option<SpeculativeMode>,
    /// Passes over the recorded states (the median pass is reported).
    #[arg(long, default_value_t = 7)]
    pub passes: usize,
    /// Time these Rust dynamics stages against MuJoCo's functions instead of the collision
    /// stage (a comma-separated list of stage names, or `all`).
    #[arg(long, value_name = "STAGES", conflicts_with = "suite")]
    pub stages: Option<StageSet>,
    /// `native`: time specula's native step (pure Rust) against MuJoCo's `mj_step`, step by step
    /// from the same states, instead of the collision stage (with --suite: on the set's 50-box
    /// pile, 200-sphere impact and corpus humanoid).
    #[arg(long, value_enum, conflicts_with = "stages")]
    pub route: Option<super::RouteArg>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `specula bench`.
pub fn run(args: BenchArgs) -> Result<ExitCode, String> {
    if cfg!(debug_assertions) {
        eprintln!("specula bench: this is a debug build; build with --release for meaningful times");
    }
    let native = match args.route {
        None => false,
        Some(super::RouteArg::Native) => true,
        Some(_) => {
            return Err("bench --route takes native (without it, the rust collision stage is timed against C's)".into())
        }
    };
    let Some(scene) = &args.scene else {
        return if native { run_native_suite(&args) } else { run_suite(&args) };
    };
    let file = scene.display().to_string();
    if native {
        return run_native(scene, &args);
    }
    let (c, rust) = load_pair(scene, args.integrator, args.speculative).map_err(|e| e.to_string())?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    if let Some(set) = args.stages {
        return stages(&file, &c, &start, set, &args);
    }
    let robust = args.speculative == Some(SpeculativeMode::Robust);
    let r = bench(&c, &rust, args.steps, &start, args.passes, robust).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"c_ns": r.c_ns, "rust_ns": r.rust_ns, "ratio": r.ratio, "states": r.states, "passes": r.passes})
        );
    } else {
        outln!(
            "{file}: mj_collision {:.0} ns, specula {:.0} ns per call: ratio {:.2} ({} states, median of {} passes)",
            r.c_ns,
            r.rust_ns,
            r.ratio,
            r.states,
            r.passes
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The benchmark set, after checking that no option overrides what it sets per scene; a line on
/// stderr for each scene left out.
fn suite_scenes(args: &BenchArgs) -> Result<Vec<suite::SuiteScene>, String> {
    if args.key.is_some() || args.integrator.is_some() || args.speculative.is_some() {
        return Err(
            "--suite sets each scene's keyframe and modes itself: drop --key, --integrator and --speculative".into()
        );
    }
    let (scenes, skipped) = suite::scenes(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    for s in &skipped {
        eprintln!("specula bench --suite: {s}");
    }
    Ok(scenes)
}

/// Runs `specula bench --suite`: every scene of the set, a line of progress each on stderr, then
/// the tables (or one JSON array).
fn run_suite(args: &BenchArgs) -> Result<ExitCode, String> {
    let scenes = suite_scenes(args)?;
    let mut rows = Vec::with_capacity(scenes.len());
    for s in &scenes {
        eprintln!("specula bench --suite: {} ({} states, {} passes)", s.name, s.steps, args.passes);
        rows.push(suite::run_scene(s, args.passes).map_err(|e| format!("{}: {e}", s.path.display()))?);
    }
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|r| {
                let b = |b: &specula::bench::BenchReport| serde_json::json!({"c_ns": b.c_ns, "rust_ns": b.rust_ns, "ratio": b.ratio});
                serde_json::json!({
                    "scene": r.scene.name, "states": r.off.states, "passes": r.off.passes,
                    "off": b(&r.off), "compat": b(&r.compat), "robust": b(&r.robust),
                    "robust_over_off": r.robust_over_off(),
                    "step": r.step.as_ref().map(|s| serde_json::json!({"c_ns": s.c_ns, "rust_ns": s.rust_ns, "ratio": s.ratio, "steps": s.steps})),
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(json));
    } else {
        outln!("{}", suite::table(&rows));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `specula bench SCENE --route native`: the native step against `mj_step`, one line (or
/// JSON object).
fn run_native(scene: &std::path::Path, args: &BenchArgs) -> Result<ExitCode, String> {
    let file = scene.display().to_string();
    let (c, mut native) = super::load_native_pair(scene, args.integrator, args.speculative, Default::default())?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    let r = bench_native(&c, &mut native, &start, args.steps, args.passes).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        let refused = r.refused.as_ref().map(|(k, e)| serde_json::json!({"step": k, "reason": e}));
        outln!(
            "{}",
            serde_json::json!({"scene": file, "route": "native", "c_ns": r.c_ns, "native_ns": r.native_ns, "ratio": r.ratio,
                "steps": r.steps, "passes": r.passes, "same_trajectory": r.same_trajectory, "refused": refused})
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{file}: mj_step {:.0} ns, native step {:.0} ns per step: ratio {:.2} ({} steps, each the median of {} passes; trajectories {})",
        r.c_ns,
        r.native_ns,
        r.ratio,
        r.steps,
        r.passes,
        if r.same_trajectory { "equal bit for bit" } else { "differ" }
    );
    if let Some((k, e)) = &r.refused {
        outln!("  the native route refused step {k} ({e}): only the {} steps before it are timed", r.steps);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `specula bench --suite --route native`: the native step on the set's scenes that have
/// a native row, as a table (or one JSON array).
fn run_native_suite(args: &BenchArgs) -> Result<ExitCode, String> {
    let scenes = suite_scenes(args)?;
    let mut rows = Vec::new();
    for s in scenes.iter().filter(|s| s.native_row) {
        eprintln!("specula bench --suite --route native: {} ({} steps, {} passes)", s.name, s.steps, args.passes);
        rows.push(suite::run_native_scene(s, args.passes).map_err(|e| format!("{}: {e}", s.path.display()))?);
    }
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|(s, r)| match r {
                Ok(r) => serde_json::json!({
                    "scene": s.name, "steps": r.steps, "passes": r.passes, "c_ns": r.c_ns, "native_ns": r.native_ns,
                    "ratio": r.ratio, "same_trajectory": r.same_trajectory,
                    "refused": r.refused.as_ref().map(|(k, e)| serde_json::json!({"step": k, "reason": e})),
                }),
                Err(e) => serde_json::json!({"scene": s.name, "refused": {"step": null, "reason": e}}),
            })
            .collect();
        outln!("{}", serde_json::Value::Array(json));
    } else {
        outln!("{}", suite::native_table(&rows));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `specula bench SCENE --stages`: one line (or JSON object) per stage.
fn stages(
    file: &str,
    c: &specula::mj::Model,
    start: &Start,
    set: StageSet,
    args: &BenchArgs,
) -> Result<ExitCode, String> {
    let rows = bench_stages(c, start, args.steps, args.passes, set).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|r| serde_json::json!({"stage": r.stage.name(), "c_ns": r.c_ns, "rust_ns": r.rust_ns, "ratio": r.ratio, "skipped": r.skipped}))
            .collect();
        outln!("{}", serde_json::json!({"scene": file, "states": args.steps, "passes": args.passes, "stages": rows}));
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{file}: Rust stages against MuJoCo's functions ({} states, each state the median of {} passes)",
        args.steps,
        args.passes
    );
    for r in &rows {
        let skip = if r.skipped > 0 { format!(", {} states outside its scope", r.skipped) } else { String::new() };
        outln!(
            "  mj_{:<16} {:>8.0} ns, specula {:>8.0} ns per call: ratio {:.2}{skip}",
            r.stage.name(),
            r.c_ns,
            r.rust_ns,
            r.ratio
        );
    }
    Ok(ExitCode::SUCCESS)
}
