//! `specula fuzz`: the differential scene generator against MuJoCo C.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use specula::fuzz::{self, FuzzOptions};

/// Arguments of `specula fuzz`.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Seeds to run: `N` (one scene), `A..B` (B excluded) or `A..=B`.
    #[arg(long, default_value = "0..200", value_parser = parse_seeds)]
    pub seeds: std::ops::Range<u64>,
    /// Steps per scene.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub steps: u64,
    /// Write failing scenes (shrunk and full) into this directory.
    #[arg(long, default_value = "fuzz-failures")]
    pub out: PathBuf,
    /// Do not shrink failing scenes.
    #[arg(long)]
    pub no_shrink: bool,
    /// Write the scene of the first seed to stdout as MJCF and run nothing.
    #[arg(long)]
    pub print: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Test hook: add 1e-3 to every Rust contact's distance (shows that a wrong collider is caught).
    #[arg(long, hide = true)]
    pub break_collider: bool,
}

fn parse_seeds(s: &str) -> Result<std::ops::Range<u64>, String> {
    let num = |t: &str| {
        t.trim().parse::<u64>().map_err(|_| format!("'{t}' is not a seed (a whole number from 0 to {})", u64::MAX))
    };
    let r = if let Some((a, b)) = s.split_once("..=") {
        let b = num(b)?;
        num(a)?..b.checked_add(1).ok_or("the last seed is too large")?
    } else if let Some((a, b)) = s.split_once("..") {
        num(a)?..num(b)?
    } else {
        let a = num(s)?;
        a..a.checked_add(1).ok_or("the seed is too large")?
    };
    if r.is_empty() {
        return Err(format!("'{s}' holds no seed (write A..B with A < B)"));
    }
    Ok(r)
}

fn break_contacts(v: &mut Vec<specula_engine::contact::Contact>) {
    for c in v {
        c.dist += 1e-3;
    }
}

/// Runs `specula fuzz`: exit 0 when every scene matches, 1 when some fail, 2 on error.
pub fn run(args: FuzzArgs) -> Result<ExitCode, String> {
    let steps = args.steps as usize;
    if args.print {
        outln!("{}", fuzz::gen::generate(args.seeds.start, steps).to_mjcf());
        return Ok(ExitCode::SUCCESS);
    }
    fuzz::prepare_dir(&args.out)?;
    let opts = FuzzOptions {
        steps,
        shrink: !args.no_shrink,
        tamper: args.break_collider.then_some(break_contacts as fn(&mut Vec<_>)),
    };
    let total = (args.seeds.end - args.seeds.start) as usize;
    let tty = std::io::stderr().is_terminal();
    let t0 = Instant::now();
    let progress = |done: usize, failed: usize| {
        if (tty && done % 10 == 0) || done % 1000 == 0 || done == total {
            let rate = done as f64 / t0.elapsed().as_secs_f64().max(1e-9);
            eprint!("{}fuzz: {done}/{total} scenes, {failed} failing, {rate:.1}/s", if tty { "\r" } else { "" });
            if !tty || done == total {
                eprintln!();
            }
        }
    };
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let seeds = args.seeds.clone();
    let sum = pool.install(|| fuzz::run(seeds, &opts, &progress));
    let mut files = Vec::new();
    for f in &sum.failures {
        files.push(fuzz::write_failure(&args.out, f, steps)?);
    }
    let secs = t0.elapsed().as_secs_f64();
    if args.json {
        let failures: Vec<_> = sum
            .failures
            .iter()
            .zip(&files)
            .map(|(f, p)| {
                serde_json::json!({"seed": f.seed, "kind": f.verdict.kind(), "problem": f.verdict.detail(),
                    "shrunk_problem": f.shrunk_verdict.detail(), "steps": f.steps, "file": p.display().to_string()})
            })
            .collect();
        let j = serde_json::json!({
            "seeds": [args.seeds.start, args.seeds.end], "steps": steps, "scenes": sum.scenes,
            "matched": sum.matched, "both_reject": sum.both_reject, "compile": sum.compile,
            "differ": sum.differ, "errors": sum.errors, "failed": sum.failed(),
            "speculative": sum.speculative, "integrators": sum.integrators, "contacts": sum.contacts,
            "mujoco_hulls": sum.mujoco_hulls,
            "seconds": secs, "failures": failures,
        });
        outln!("{j}");
    } else {
        outln!(
            "fuzz: seeds {}..{}, {} steps each: {} scenes, {} match, {} failing ({} compile, {} differ, {} errors), {} refused by both (both compilers reject it, or both routes stop with the same error); {} contacts compared; {:.1} s",
            args.seeds.start,
            args.seeds.end,
            steps,
            sum.scenes,
            sum.matched,
            sum.failed(),
            sum.compile,
            sum.differ,
            sum.errors,
            sum.both_reject,
            sum.contacts,
            secs
        );
        if sum.mujoco_hulls > 0 {
            outln!(
                "  {} scenes used MuJoCo's hull for a mesh specula's compiler could not put in qhull's order",
                sum.mujoco_hulls
            );
        }
        let mut reasons: Vec<_> = sum.reject_reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1));
        for (why, n) in reasons.iter().take(3) {
            outln!("  refused by both ({n}): {why}");
        }
        for (f, p) in sum.failures.iter().zip(&files) {
            outln!("  seed {}: {}: {}", f.seed, f.verdict.kind(), f.verdict.detail());
            outln!("    shrunk ({} steps): {} -> {}", f.steps, f.shrunk_verdict.detail(), p.display());
        }
    }
    Ok(if sum.failed() == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
