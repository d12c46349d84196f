//! `specula bench`: time the Rust collision stage and MuJoCo C's on the same recorded states.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use specula::bench::bench;
use specula::sim::Start;

use specula_model::types::{Integrator, SpeculativeMode};

use super::diff::load_pair;

/// Arguments of `specula bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// MJCF scene.
    pub scene: PathBuf,
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
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `specula bench`.
pub fn run(args: BenchArgs) -> Result<ExitCode, String> {
    let file = args.scene.display().to_string();
    let (c, rust) = load_pair(&args.scene, args.integrator, args.speculative)?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    let robust = args.speculative == Some(SpeculativeMode::Robust);
    let r = bench(&c, &rust, args.steps, &start, args.passes, robust).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"c_ns": r.c_ns, "rust_ns": r.rust_ns, "ratio": r.ratio, "states": r.states, "passes": r.passes})
        );
    } else {
        if cfg!(debug_assertions) {
            eprintln!("specula bench: this is a debug build; build with --release for meaningful times");
        }
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
