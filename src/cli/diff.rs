//! `specula diff`: the Rust collision stage against MuJoCo C's, contact by contact and step by step.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use specula::diff::{diff, DiffOptions, DiffReport};
use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{reasons, reasons_json, Stage, StageDiffReport, StageSet, Tamper};
use specula::native_diff::{diff_native, NativeDiffOptions, NativeDiffReport, FIELDS};
use specula::sim::{load_pair, Start};
use specula_model::types::{Cone, Integrator, Jacobian, Solver, SpeculativeMode};

/// Arguments of `specula diff`.
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// MJCF scene.
    pub scene: PathBuf,
    /// Steps to run.
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
    /// Override the scene's constraint solver (with `--stages` or `--route native`).
    #[arg(long, value_enum)]
    pub solver: Option<Solver>,
    /// Override the scene's friction cone (with `--stages` or `--route native`).
    #[arg(long, value_enum)]
    pub cone: Option<Cone>,
    /// Override the scene's constraint Jacobian (with `--stages`).
    #[arg(long, value_enum)]
    pub jacobian: Option<Jacobian>,
    /// Override the scene's noslip iterations (with `--stages`; 0 turns noslip off).
    #[arg(long, value_name = "N")]
    pub noslip: Option<u32>,
    /// Set these solver disable flags (with `--stages`; comma-separated: `island`, `warmstart`).
    #[arg(long, value_name = "FLAGS", value_delimiter = ',')]
    pub disable: Vec<String>,
    /// Set these solver enable flags (with `--stages`; comma-separated: `diagexact`).
    #[arg(long, value_name = "FLAGS", value_delimiter = ',')]
    pub enable: Vec<String>,
    /// Compare these Rust dynamics stages with MuJoCo's functions instead of the collision
    /// stages: at every call, both on the same inputs, every array the stage writes bit for bit
    /// (a comma-separated list of stage names, or `all`).
    #[arg(long, value_name = "STAGES")]
    pub stages: Option<StageSet>,
    /// The route compared with MuJoCo C: `rust` (the default: the Rust collision stage, contact
    /// by contact) or `native` (specula's native step against `mj_step`, every array after every
    /// step, bit for bit).
    #[arg(long, value_enum, conflicts_with = "stages")]
    pub route: Option<super::RouteArg>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `specula diff`: exit 0 on match, 1 on differ, 2 on error.
pub fn run(args: DiffArgs) -> Result<ExitCode, String> {
    let file = args.scene.display().to_string();
    match args.route {
        Some(super::RouteArg::Native) => return run_native(&args),
        Some(super::RouteArg::C) => {
            return Err("diff compares a route with the c route: --route rust (the default) or native".into())
        }
        _ => {}
    }
    let (mut c, rust) = load_pair(&args.scene, args.integrator, args.speculative).map_err(|e| e.to_string())?;
    let options = (args.solver, args.cone, args.jacobian, args.noslip);
    if options != (None, None, None, None) || !args.disable.is_empty() || !args.enable.is_empty() {
        if args.stages.is_none() {
            return Err(
                "--solver, --cone, --jacobian, --noslip, --disable and --enable apply to `diff --stages` only".into()
            );
        }
        let m = c.raw_mut().ok_or("the model is shared")?;
        if let Some(s) = args.solver {
            m.opt.solver = s as i32;
        }
        if let Some(k) = args.cone {
            m.opt.cone = k as i32;
        }
        if let Some(j) = args.jacobian {
            m.opt.jacobian = j as i32;
        }
        if let Some(n) = args.noslip {
            m.opt.noslip_iterations = i32::try_from(n).map_err(|_| "--noslip: too many iterations")?;
        }
        for name in &args.disable {
            m.opt.disableflags |= flag_bit(name, &[("island", 1 << 18), ("warmstart", 1 << 9)], "--disable")?;
        }
        for name in &args.enable {
            m.opt.enableflags |= flag_bit(name, &[("diagexact", 1 << 5)], "--enable")?;
        }
    }
    if let Some(stages) = args.stages {
        let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
        let opts = StageDiffOptions { steps: args.steps, start, stages, tamper: tamper_stage() };
        let report = diff_stages(&c, &opts).map_err(|e| format!("{file}: {e}"))?;
        print_stage_report(&file, stages, &report, args.json);
        return Ok(if report.matches() { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let opts = DiffOptions { steps: args.steps, start: args.key.clone().map_or(Start::Qpos0, Start::Key) };
    let report = diff(&c, &rust, &opts).map_err(|e| format!("{file}: {e}"))?;
    print_report(&file, &report, args.json);
    Ok(if report.matches() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The bit of the flag `name` (`mjDSBL_ISLAND`, `mjDSBL_WARMSTART`, `mjENBL_DIAGEXACT`).
fn flag_bit(name: &str, table: &[(&str, i32)], option: &str) -> Result<i32, String> {
    let known = || table.iter().map(|t| t.0).collect::<Vec<_>>().join(", ");
    table
        .iter()
        .find(|t| t.0 == name)
        .map(|t| t.1)
        .ok_or_else(|| format!("{option}: unknown flag {name:?} (known: {})", known()))
}

/// `specula diff SCENE --route native`: exit 0 on match, 1 on differ, 2 on error (a refused
/// scene among them, with what the native route lacks named).
fn run_native(args: &DiffArgs) -> Result<ExitCode, String> {
    let file = args.scene.display().to_string();
    if args.speculative == Some(SpeculativeMode::Robust) {
        return Err(format!(
            "{file}: --speculative robust has no counterpart in MuJoCo's mj_step to compare the native route with"
        ));
    }
    if args.jacobian.is_some() || args.noslip.is_some() || !args.disable.is_empty() || !args.enable.is_empty() {
        return Err("--route native takes --solver and --cone; --jacobian, --noslip, --disable and --enable apply to `diff --stages` only".into());
    }
    let over = super::SolverOverrides { solver: args.solver, cone: args.cone };
    let (c, mut sim) = super::load_native_pair(&args.scene, args.integrator, args.speculative, over)?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    // test hook (`NativeDiffOptions::tamper`): SPECULA_TAMPER_NATIVE=STEP flips a bit of the
    // native qvel before that step, so the tests can see this diff fail
    let tamper = std::env::var("SPECULA_TAMPER_NATIVE").ok().and_then(|s| s.parse().ok());
    let opts = NativeDiffOptions { steps: args.steps, start, tamper };
    let report = diff_native(&c, &mut sim, &opts).map_err(|e| format!("{file}: {e}"))?;
    print_native_report(&file, &report, args.json);
    Ok(if report.matches() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Prints a native diff report, as text or as one JSON object.
fn print_native_report(file: &str, r: &NativeDiffReport, json: bool) {
    if json {
        let mut j = r.to_json();
        j["scene"] = serde_json::Value::from(file);
        outln!("{j}");
        return;
    }
    let verdict = if r.matches() { "match" } else { "differ" };
    outln!(
        "{file}: {verdict}: {} steps, the native route against MuJoCo C's mj_step: {} arrays, the contact count and the time after every step, {} values compared bit for bit",
        r.steps,
        FIELDS.len(),
        r.values
    );
    if let Some(d) = &r.first {
        outln!(
            "  first difference: after step {}, {}[{}] = {:e} on the native route (MuJoCo {:e}); the {} steps before it are equal",
            d.step,
            d.field,
            d.index,
            d.native,
            d.c,
            d.step - 1
        );
    }
    if let Some(s) = &r.stopped {
        outln!("  stopped: {s}");
    }
}

fn print_report(file: &str, r: &DiffReport, json: bool) {
    let verdict = if r.matches() { "match" } else { "differ" };
    if json {
        outln!("{}", r.to_json());
        return;
    }
    outln!(
        "{file}: {verdict}: {} steps, {} collision calls, {} contacts compared, {} unmatched ({} missing, {} extra)",
        r.steps,
        r.calls,
        r.contacts,
        r.unmatched(),
        r.missing,
        r.extra
    );
    outln!(
        "  analytic pairs: |Δdist| {:.3e}  |Δpos| {:.3e}  frame {:.3e}  params {:.3e}  (tolerance 1e-9)",
        r.max_err.dist,
        r.max_err.pos,
        r.max_err.frame,
        r.max_err.params
    );
    outln!(
        "  GJK/EPA pairs:  |Δdist| {:.3e}  |Δpos| {:.3e}  frame {:.3e}  params {:.3e}  (tolerance 1e-6)",
        r.max_err_gjk.dist,
        r.max_err_gjk.pos,
        r.max_err_gjk.frame,
        r.max_err_gjk.params
    );
    outln!(
        "  trajectories: max |Δqpos| rust vs c {:.3e}, noise floor {:.3e} (allowed {:.3e}){}",
        r.qpos_divergence,
        r.noise_floor,
        10.0 * r.noise_floor + 1e-12,
        if r.unstable { "; not compared: MuJoCo reports the simulation unstable" } else { "" }
    );
    if let Some(p) = &r.first_problem {
        outln!("  first problem: {p}");
    }
    if r.nonfinite {
        outln!("  note: the state became non-finite; NaN contacts compare as equal, so agreement means little there");
    }
    for n in &r.state_notes {
        outln!("  warning: {n}");
    }
    // MuJoCo repeats some warnings once per object or step: each message once, with its count
    let mut seen: Vec<(&String, usize)> = Vec::new();
    for w in &r.warnings {
        match seen.iter_mut().find(|(m, _)| *m == w) {
            Some((_, n)) => *n += 1,
            None => seen.push((w, 1)),
        }
    }
    for (w, n) in seen {
        let times = if n > 1 { format!(" ({n} times)") } else { String::new() };
        outln!("  MuJoCo warned: {w}{times}");
    }
    super::print_stage_notes(r.mujoco_hulls, r.fallback_pairs);
    for ((a, b), p) in &r.pairs {
        outln!(
            "  {:>9}-{:<9} {:>8} contacts, {} missing, {} extra; |Δdist| {:.1e} |Δpos| {:.1e} frame {:.1e} params {:.1e}",
            format!("{a:?}").to_lowercase(),
            format!("{b:?}").to_lowercase(),
            p.contacts,
            p.missing,
            p.extra,
            p.max_err.dist,
            p.max_err.pos,
            p.max_err.frame,
            p.max_err.params
        );
    }
}

/// Test hook: `SPECULA_TAMPER_STAGE=crb` moves one element of that Rust stage's output by one
/// ulp, `struct:passive` and `buffer:passive` change a byte outside its outputs,
/// `trajectory:crb` moves one of its outputs in the run with the stages in Rust, so that the
/// tests can see `diff --stages` fail.
fn tamper_stage() -> Option<Tamper> {
    let text = std::env::var("SPECULA_TAMPER_STAGE").ok()?;
    let (kind, name) = text.split_once(':').unwrap_or(("output", &text));
    let stage = Stage::ALL.into_iter().find(|s| s.name() == name)?;
    match kind {
        "output" => Some(Tamper::Output(stage)),
        "struct" => Some(Tamper::Struct(stage)),
        "buffer" => Some(Tamper::Buffer(stage)),
        "trajectory" => Some(Tamper::Trajectory(stage)),
        _ => None,
    }
}

/// The stages of `set` with their index in [`Stage::ALL`].
fn stages_in(set: StageSet) -> impl Iterator<Item = (usize, Stage)> {
    set.stages().map(|s| (s.index(), s))
}

fn print_stage_report(file: &str, set: StageSet, r: &StageDiffReport, json: bool) {
    let verdict = if r.matches() { "match" } else { "differ" };
    let per_stage: Vec<_> = stages_in(set)
        .map(|(i, s)| (s.name(), r.compared[i], r.skipped[i], r.differing[i], &r.skipped_why[i]))
        .collect();
    if json {
        let first = r.first.as_ref().map(|d| {
            serde_json::json!({"step": d.step, "stage": d.stage.name(), "field": d.field, "index": d.index, "c": d.c, "rust": d.rust})
        });
        let stages: Vec<_> = per_stage
            .iter()
            .map(|(n, c, s, d, why)| {
                let why = reasons_json(why);
                serde_json::json!({"stage": n, "compared": c, "skipped": s, "skipped_why": why, "differing": d})
            })
            .collect();
        let trajectory = match &r.trajectory {
            None => serde_json::json!({"identical": true}),
            Some(t) => {
                serde_json::json!({"identical": false, "step": t.step, "index": t.index, "c": t.c, "rust": t.rust})
            }
        };
        let runs: serde_json::Map<String, serde_json::Value> = stages_in(set)
            .map(|(i, s)| {
                let (rust, fallback) = (r.trajectory_counts.rust[i], r.trajectory_counts.fallback[i]);
                let why = reasons_json(&r.trajectory_counts.why[i]);
                (s.name().to_string(), serde_json::json!({"rust": rust, "fallback": fallback, "why": why}))
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({"scene": file, "verdict": verdict, "steps": r.steps, "stages": stages, "first": first,
                "trajectory": trajectory, "trajectory_calls": runs})
        );
        return;
    }
    outln!("{file}: {verdict}: {} steps, Rust stages against MuJoCo's functions, bit for bit", r.steps);
    for (name, compared, skipped, differing, why) in per_stage {
        let skip = if skipped > 0 { format!(", {skipped} left to MuJoCo ({})", reasons(why)) } else { String::new() };
        outln!("  {name}: {compared} calls compared, {differing} elements differ{skip}");
    }
    let ran: u64 = stages_in(set).map(|(i, _)| r.trajectory_counts.rust[i]).sum();
    let fell: u64 = stages_in(set).map(|(i, _)| r.trajectory_counts.fallback[i]).sum();
    match &r.trajectory {
        None => outln!(
            "  trajectory with the stages in Rust ({ran} calls in Rust, {fell} left to MuJoCo): MuJoCo's, bit for bit, every step"
        ),
        Some(t) => outln!(
            "  trajectory with the stages in Rust ({ran} calls in Rust, {fell} left to MuJoCo): differs after step {}, state[{}] = {:e} (MuJoCo {:e})",
            t.step,
            t.index,
            t.rust,
            t.c
        ),
    }
    if let Some(d) = &r.first {
        outln!(
            "  first difference: step {}, {} wrote {}[{}] = {:e} (MuJoCo {:e})",
            d.step,
            d.stage.name(),
            d.field,
            d.index,
            d.rust,
            d.c
        );
    }
}
