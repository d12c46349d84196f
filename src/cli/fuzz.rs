//! `specula fuzz`: the differential scene generator against MuJoCo C, and with `--mutate` the
//! mutation fuzzer of MJCF files (`specula::fuzz::mutate`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use specula::fuzz::mutate::{self, Break, Row};
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
    /// Write the scene (with --mutate: the case) of the first seed to stdout and run nothing.
    #[arg(long)]
    pub print: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also compare these dynamics stages call by call with MuJoCo's functions on every scene
    /// (`all`, or a list as `run --rust-stages` takes).
    #[arg(long, default_value = "none")]
    pub stages: specula::mj::stages::StageSet,
    /// What is compared with MuJoCo C: `rust` (the Rust collision stage in MuJoCo's step, contact by
    /// contact; the default) or `native` (the native route's whole step against `mj_step`, every
    /// array after every step, bit for bit).
    #[arg(long, value_enum)]
    pub route: Option<super::RouteArg>,
    /// Draw scenes in the native route's subset (Euler or implicitfast, Newton or PGS, more
    /// mechanisms, no actuator damping or armature); for `--route native`.
    #[arg(long)]
    pub native_subset: bool,
    /// Draw each seed's speculative-stress variant: speculative contacts on, native CCD off in
    /// 40 % of the scenes, `override`, margins and gaps, thin plates, faster bodies.
    #[arg(long)]
    pub speculative_stress: bool,
    /// Test hook: add 1e-3 to every Rust contact's distance (shows that a wrong collider is caught).
    #[arg(long, hide = true)]
    pub break_collider: bool,
    /// Mutate MJCF files (templates, generated scenes, the project's scenes and `--base` files)
    /// and run each through check, run --route rust and diff in child processes.
    #[arg(long)]
    pub mutate: bool,
    /// With --mutate: more base files, or folders searched for *.xml (repeatable).
    #[arg(long, requires = "mutate")]
    pub base: Vec<PathBuf>,
    /// With --mutate: seconds each child may take before it is killed and counted as a hang.
    #[arg(long, default_value_t = 30.0, requires = "mutate", value_parser = positive)]
    pub timeout: f64,
    /// With --mutate: address-space cap of each child, GiB.
    #[arg(long, default_value_t = 8.0, requires = "mutate", value_parser = positive)]
    pub mem_limit: f64,
    /// With --mutate: run these files as they are (no mutation) and classify them.
    #[arg(long, requires = "mutate", num_args = 1..)]
    pub replay: Vec<PathBuf>,
    /// Test hook for --mutate: a deliberate fault in the check stage (check, hang, panic, segv).
    #[arg(long = "break", hide = true)]
    pub brk: Option<Break>,
    /// Internal: one stage of a mutation case, in the child process (check, load-c, load-rust).
    #[arg(long, hide = true, num_args = 2, value_names = ["STAGE", "FILE"])]
    pub child: Vec<String>,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a positive number")),
    }
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
    if let [stage, file] = args.child.as_slice() {
        return child(stage, std::path::Path::new(file), args.brk);
    }
    if args.mutate {
        return run_mutate(&args);
    }
    let steps = args.steps as usize;
    let native = match args.route {
        None | Some(super::RouteArg::Rust) => false,
        Some(super::RouteArg::Native) => true,
        Some(super::RouteArg::C) => {
            return Err("fuzz compares a route with the c route: --route rust (the default) or native".into())
        }
    };
    if native && (args.stages != specula::mj::stages::StageSet::NONE || args.break_collider) {
        return Err("--stages and --break-collider belong to the rust route, not --route native".into());
    }
    // test hook (`FuzzOptions::native_tamper`), as `diff --route native` has it:
    // SPECULA_TAMPER_NATIVE=STEP flips a bit of the native qvel before that step
    let native_tamper = std::env::var("SPECULA_TAMPER_NATIVE").ok().and_then(|s| s.parse().ok()).filter(|_| native);
    let opts = FuzzOptions {
        steps,
        shrink: !args.no_shrink,
        tamper: args.break_collider.then_some(break_contacts as fn(&mut Vec<_>)),
        stages: args.stages,
        stage_tamper: None,
        native,
        subset: args.native_subset,
        native_tamper,
        stress: args.speculative_stress,
    };
    if args.print {
        outln!("{}", fuzz::scene(args.seeds.start, &opts).to_mjcf());
        return Ok(ExitCode::SUCCESS);
    }
    fuzz::prepare_dir(&args.out).map_err(|e| e.to_string())?;
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
        files.push(fuzz::write_failure(&args.out, f, steps).map_err(|e| e.to_string())?);
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
            "mujoco_hulls": sum.mujoco_hulls, "stages": args.stages.to_string(),
            "stage_calls": sum.stage_calls, "actuated": sum.actuated,
            "route": if native { "native" } else { "rust" }, "native_subset": args.native_subset,
            "native_refused": sum.native_refused, "native_reasons": sum.native_reasons,
            "native_steps": sum.native_steps, "native_values": sum.native_values,
            "native_stopped": sum.native_stopped, "native_contacts": sum.native_contacts,
            "native_features": sum.native_features, "reject_reasons": sum.reject_reasons,
            "seconds": secs, "failures": failures,
        });
        outln!("{j}");
    } else if native {
        print_native(&args, steps, &sum, secs);
    } else {
        outln!(
            "fuzz: {}, {} refused by both (both compilers reject it, or both routes stop with the same error); {} contacts compared; {:.1} s",
            counts(&args, steps, &sum),
            sum.both_reject,
            sum.contacts,
            secs
        );
        if args.stages != specula::mj::stages::StageSet::NONE {
            outln!(
                "  stages {}: {} calls compared bit for bit with MuJoCo's functions; {} scenes with actuators",
                args.stages,
                sum.stage_calls,
                sum.actuated
            );
        }
        if sum.mujoco_hulls > 0 {
            outln!(
                "  {} scenes used MuJoCo's hull for a mesh specula's compiler could not put in qhull's order",
                sum.mujoco_hulls
            );
        }
        print_reasons(&sum);
    }
    for (f, p) in sum.failures.iter().zip(&files).filter(|_| !args.json) {
        outln!("  seed {}: {}: {}", f.seed, f.verdict.kind(), f.verdict.detail());
        outln!("    shrunk ({} steps): {} -> {}", f.steps, f.shrunk_verdict.detail(), p.display());
    }
    Ok(if sum.failed() == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The seeds and the verdict counts of a run, as text.
fn counts(args: &FuzzArgs, steps: usize, sum: &fuzz::FuzzSummary) -> String {
    format!(
        "seeds {}..{}, {steps} steps each: {} scenes, {} match, {} failing ({} compile, {} differ, {} errors)",
        args.seeds.start,
        args.seeds.end,
        sum.scenes,
        sum.matched,
        sum.failed(),
        sum.compile,
        sum.differ,
        sum.errors
    )
}

/// The counts of a `--route native` run, as text.
fn print_native(args: &FuzzArgs, steps: usize, sum: &fuzz::FuzzSummary, secs: f64) {
    outln!(
        "fuzz --route native{}: {}, {} refused by the native route, {} refused by both; {} steps and {} values compared bit for bit with mj_step, {} contacts ({} runs stopped where both routes diverged); {:.1} s",
        if args.native_subset { " --native-subset" } else { "" },
        counts(args, steps, sum),
        sum.native_refused,
        sum.both_reject,
        sum.native_steps,
        sum.native_values,
        sum.native_contacts,
        sum.native_stopped,
        secs
    );
    let feats: Vec<String> = sum.native_features.iter().map(|(k, n)| format!("{k} {n}")).collect();
    outln!("  scenes compared with: {}", feats.join(", "));
    let mut reasons: Vec<_> = sum.native_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (why, n) in reasons {
        outln!("  refused by the native route ({n}): {why}");
    }
    print_reasons(sum);
}

/// The commonest reasons both compilers refused scenes.
fn print_reasons(sum: &fuzz::FuzzSummary) {
    let mut reasons: Vec<_> = sum.reject_reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1));
    for (why, n) in reasons.iter().take(3) {
        outln!("  refused by both ({n}): {why}");
    }
}

/// One stage of a mutation case in the child process: `check` (only with a `--break` fault;
/// otherwise the fuzzer runs `specula check` itself), or `load-c` / `load-rust`, which load the
/// file with one compiler alone, to say which of the two hung or crashed.
fn child(stage: &str, file: &std::path::Path, brk: Option<Break>) -> Result<ExitCode, String> {
    match (stage, brk) {
        ("check", Some(Break::Hang)) => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        ("check", Some(Break::Panic)) => panic!("deliberate panic (fuzz --break panic)"),
        ("check", Some(Break::Segv)) => {
            // SAFETY: resetting a handler and raising a signal have no memory effects. Rust's
            // own SIGSEGV handler (its stack-overflow check) would return from a raised signal,
            // so the default action, which ends the process, is put back first.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
            Ok(ExitCode::from(3))
        }
        ("check", _) => {
            // the JSON `specula check --json` prints, for a Rust model whose timestep is 1 s off
            // when the fault is `check` (a relative 1e-6 was within check's absolute 1e-9 for
            // timesteps up to 1 ms)
            let tamper = |m: &mut specula_model::Model| {
                if brk == Some(Break::Check) {
                    m.opt.timestep += 1.0;
                }
            };
            let outcome = specula::check::check_file_tampered(file, tamper);
            let j = outcome.to_json();
            outln!("{j}");
            Ok(if outcome.agrees() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        ("load-c", _) => {
            match specula::mj::Model::from_xml_path(file) {
                Ok(_) => outln!("compiled"),
                Err(e) => outln!("rejected: {e}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        ("load-rust", _) => {
            match specula_model::load_file(file) {
                Ok(_) => outln!("compiled"),
                Err(e) => outln!("rejected: {e}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(format!("'{stage}' is not a child stage (check, load-c, load-rust)")),
    }
}

/// The table's rows as printed: label, and the rows counted on the line (one, or one per stage).
fn table_lines() -> Vec<(&'static str, Vec<Row>)> {
    use mutate::Stage::{Check, Diff, Run};
    vec![
        ("both compilers reject, specula's message with file:line:col", vec![Row::BothRejectLocated]),
        ("both compilers reject, specula's message without file:line:col", vec![Row::BothRejectUnlocated]),
        ("both compile, check matches", vec![Row::CheckMatches]),
        ("specula accepts a file MuJoCo rejects", vec![Row::SpeculaAccepts]),
        ("MuJoCo accepts a file specula rejects", vec![Row::MujocoAccepts]),
        ("both compile, check differs", vec![Row::CheckDiffers]),
        ("no answer in time: check / run / diff", vec![Row::Hang(Check), Row::Hang(Run), Row::Hang(Diff)]),
        ("SIGSEGV/abort: check / run / diff", vec![Row::Crash(Check), Row::Crash(Run), Row::Crash(Diff)]),
        ("panic: check / run / diff", vec![Row::Panic(Check), Row::Panic(Run), Row::Panic(Diff)]),
        (
            "no verdict (an exit no stage gives): check / run / diff",
            vec![Row::NoVerdict(Check), Row::NoVerdict(Run), Row::NoVerdict(Diff)],
        ),
        ("(not failing) both compile, diff differs", vec![Row::DiffDiffers]),
        ("(not failing) stopped with an error: run / diff", vec![Row::Stopped(Run), Row::Stopped(Diff)]),
    ]
}

/// Runs `specula fuzz --mutate`: exit 0 when no case is in a failing row, 1 otherwise, 2 on
/// bad input.
fn run_mutate(args: &FuzzArgs) -> Result<ExitCode, String> {
    use mutate::{Bases, MutateOptions};
    use specula::fuzz::mutate_child::Limits;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the specula binary to run cases in: {e}"))?;
    let work = std::env::temp_dir().join(format!("specula-mutate-{}", std::process::id()));
    let opts = MutateOptions {
        exe,
        steps: args.steps as usize,
        limits: Limits {
            timeout: std::time::Duration::from_secs_f64(args.timeout),
            mem_bytes: (args.mem_limit * (1u64 << 30) as f64) as u64,
        },
        shrink: !args.no_shrink,
        work: work.clone(),
        brk: args.brk,
    };
    // the project's scenes and kept cases, when the binary runs where it was built
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bases = Bases::collect(Some(repo), &args.base).map_err(|e| e.to_string())?;
    if args.print {
        // the case's bytes as they are (they may not be UTF-8), and what was done, on stderr
        let c = mutate::case(args.seeds.start, &bases);
        eprintln!("seed {}: base {}; {}", c.seed, c.base, c.mutated.changes.join("; "));
        use std::io::Write as _;
        let _ = std::io::stdout().write_all(&c.mutated.to_bytes());
        return Ok(ExitCode::SUCCESS);
    }
    fuzz::prepare_dir(&args.out).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: cannot create the scratch folder: {e}", work.display()))?;
    let replaying = !args.replay.is_empty();
    let total = if replaying { args.replay.len() } else { (args.seeds.end - args.seeds.start) as usize };
    let tty = std::io::stderr().is_terminal();
    let t0 = Instant::now();
    let progress = |done: usize, failed: usize| {
        if (tty && done % 10 == 0) || done % 1000 == 0 || done == total {
            let rate = done as f64 / t0.elapsed().as_secs_f64().max(1e-9);
            eprint!(
                "{}fuzz --mutate: {done}/{total} cases, {failed} failing, {rate:.1}/s",
                if tty { "\r" } else { "" }
            );
            if !tty || done == total {
                eprintln!();
            }
        }
    };
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(args.jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let sum = pool.install(|| {
        if replaying {
            mutate::replay(&args.replay, &opts, &progress)
        } else {
            mutate::run(args.seeds.clone(), &bases, &opts, &progress)
        }
    });
    let base_args: String = args.base.iter().map(|b| format!(" --base {}", b.display())).collect();
    let mut files = Vec::new();
    for f in &sum.failures {
        files.push(if replaying {
            None
        } else {
            Some(mutate::write_failure(&args.out, f, &opts, &base_args).map_err(|e| e.to_string())?)
        });
    }
    let _ = std::fs::remove_dir_all(&work);
    let secs = t0.elapsed().as_secs_f64();
    let what = if replaying {
        format!("{} files replayed", args.replay.len())
    } else {
        format!("seeds {}..{}", args.seeds.start, args.seeds.end)
    };
    if args.json {
        let counts: serde_json::Map<String, serde_json::Value> =
            Row::all().into_iter().map(|r| (r.key(), sum.count(r).into())).collect();
        let failures: Vec<_> = sum
            .failures
            .iter()
            .zip(&files)
            .map(|(f, p)| {
                serde_json::json!({"seed": f.seed, "base": f.base, "changes": f.changes,
                    "row": f.finding.row.key(), "message": f.finding.message,
                    "shrunk_row": f.shrunk_finding.row.key(), "shrunk_message": f.shrunk_finding.message,
                    "attributed": f.attributed, "shrink_runs": f.shrink_runs,
                    "file": p.as_ref().map(|p| p.display().to_string())})
            })
            .collect();
        let notes: Vec<_> = sum
            .notes
            .iter()
            .map(|((row, kind), (n, seed))| serde_json::json!({"row": row.key(), "kind": kind, "cases": n, "first_seed": seed}))
            .collect();
        let j = serde_json::json!({
            "run": what, "cases": sum.cases, "steps": opts.steps, "timeout": args.timeout,
            "mem_limit_gib": args.mem_limit, "bases": bases.described, "counts": counts,
            "failed": sum.failed(), "failures": failures, "notes": notes, "seconds": secs,
        });
        outln!("{j}");
    } else {
        outln!(
            "fuzz --mutate: {what}, {} cases, {} steps for run and diff, {} s and {} GiB per child; {:.1} s",
            sum.cases,
            opts.steps,
            args.timeout,
            args.mem_limit,
            secs
        );
        if !replaying {
            outln!("  bases: {}", bases.described.join("; "));
        }
        for (label, rows) in table_lines() {
            let mark = if rows[0].failing() { "*" } else { " " };
            let n: Vec<String> = rows.iter().map(|&r| sum.count(r).to_string()).collect();
            outln!("{mark} {label:<62} {:>12}", n.join(" / "));
        }
        outln!("  {} failing cases (rows marked *)", sum.failed());
        for (f, p) in sum.failures.iter().zip(&files) {
            let at = p.as_ref().map_or(String::new(), |p| format!(" -> {}", p.display()));
            outln!("  seed {} [{}] {}: {}{at}", f.seed, f.shrunk_finding.row.key(), f.base, f.shrunk_finding.message);
            if !f.attributed.is_empty() {
                outln!("    {}", f.attributed);
            }
        }
        let mut notes: Vec<_> = sum.notes.iter().collect();
        notes.sort_by_key(|n| std::cmp::Reverse(n.1 .0));
        for ((row, kind), (n, seed)) in notes.iter().take(8) {
            outln!("  {} ({n}, first seed {seed}): {kind}", row.key());
        }
    }
    Ok(if sum.failed() == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
