//! `specula sweep`: the tunneling matrix of a preset or of the user's own scene, run in parallel
//! (sharded across machines), with CSV/JSON rows, a summary, a verdict and an SVG chart; and
//! `specula sweep merge`, which puts shards back together.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use specula::sweep::def::{Source, Sweep};
use specula::sweep::progress::{Progress, When};
use specula::sweep::request::Request;
use specula::sweep::{merge, report, run_refined, shard, svg, verdict, Compiled, RunResult, SceneKind};

use super::sweep_args;
use super::RouteArg;

/// Output format of the per-run rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One CSV row per run, with a header.
    Csv,
    /// One JSON object with a `runs` array.
    Json,
}

/// When to draw the progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// When stderr is a terminal.
    Auto,
    /// Always, even into a file or a pipe.
    Always,
    /// Never.
    Never,
}

/// Arguments of `specula sweep`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    /// `merge`: put shard files back together.
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    /// The sweep's options (boxed: they are many, and the command enum holds every subcommand's).
    #[command(flatten)]
    pub opts: Box<SweepOpts>,
}

/// The options of a sweep.
#[derive(Args, Debug)]
pub struct SweepOpts {
    /// MJCF scene whose free bodies to sweep (instead of a preset).
    pub scene: Option<PathBuf>,
    /// Built-in grid: a1 (table A1/A2), a5 (stiff contacts), a3 (timesteps), b, b-stiff (thin
    /// parts), c (two balls head-on), quick (a few runs of each scene; the default).
    #[arg(long, conflicts_with = "scene")]
    pub preset: Option<String>,
    /// Scene: a free body to throw (several allowed; each is swept on its own).
    #[arg(long)]
    pub body: Vec<String>,
    /// Speeds in m/s: start:stop:step (inclusive) or a comma list [scene: 1:40:0.5].
    #[arg(long)]
    pub speeds: Option<String>,
    /// Scene: direction of the throw, x,y,z [default: the scene's gravity].
    #[arg(long, allow_hyphen_values = true, conflicts_with = "toward")]
    pub direction: Option<String>,
    /// Scene: throw toward this geom (then the target) or site.
    #[arg(long)]
    pub toward: Option<String>,
    /// Start offsets per speed: the gap grows by (k+0.5)/N of one step's travel (3 gives 1/6, 1/2,
    /// 5/6) [scene: 3].
    #[arg(long)]
    pub offsets: Option<usize>,
    /// 20 start offsets instead of 3 (the reference's "dense" sweep).
    #[arg(long, conflicts_with = "offsets")]
    pub dense: bool,
    /// Scene: gap in metres, along the direction, between the body's foremost point and the target's
    /// nearest point, before the offset's share of a step's travel is added [default: 0].
    #[arg(long)]
    pub gap: Option<f64>,
    /// Scene: random tilt of up to DEG degrees about an axis across the direction.
    #[arg(long, value_name = "DEG")]
    pub tilt: Option<f64>,
    /// Scene: random sideways speed of up to M/S along each axis across the direction.
    #[arg(long, value_name = "M/S")]
    pub jitter: Option<f64>,
    /// Scene: seed of the tilt and jitter draws [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Scene: perturbed runs per start offset [default: 1].
    #[arg(long)]
    pub draws: Option<u64>,
    /// Timesteps, e.g. 1.25ms,0.625ms [scene: its own].
    #[arg(long)]
    pub timesteps: Option<String>,
    /// Simulated seconds per run [scene: 0.5].
    #[arg(long)]
    pub duration: Option<f64>,
    /// Scene: start from this keyframe (name or index) instead of qpos0.
    #[arg(long)]
    pub key: Option<String>,
    /// Collision routes (comma-separated) [preset: c; scene: c for off and compat, rust for robust].
    #[arg(long, value_enum, value_delimiter = ',')]
    pub route: Option<Vec<RouteArg>>,
    /// Speculative modes (comma-separated): off, compat (MuJoCo 4.0's), robust (specula's, rust
    /// route) [preset: off,compat; scene: off,compat,robust].
    #[arg(long)]
    pub modes: Option<String>,
    /// Run only shard I of N (1-based): every N-th run of the list from the I-th. Without it, a
    /// Slurm array task takes its shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.
    #[arg(long)]
    pub shard: Option<String>,
    /// Format of the per-run rows.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: Format,
    /// Write the rows to FILE (and the summary to stdout) instead of the rows to stdout (and the
    /// summary to stderr).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also draw pass rate against speed into this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Presets: after the grid, add runs at 0.05 m/s steps in the 0.5 m/s just below each row's first
    /// PASS (as the reference sweep does; its "runs PASS, 3 offsets" counts include these runs).
    #[arg(long, conflicts_with = "shard")]
    pub refine: bool,
    /// Print the number of runs instead of running them.
    #[arg(long)]
    pub count: bool,
    /// Scene: print run INDEX's start state as an MJCF <key> (to replay it with `specula run`).
    #[arg(long, value_name = "INDEX")]
    pub start_of: Option<usize>,
    /// The progress bar on stderr.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
}

/// Subcommands of `specula sweep`.
#[derive(Subcommand, Debug)]
pub enum SweepCommand {
    /// Check that shard files make one whole sweep and write its rows, summary and plot.
    Merge(MergeArgs),
}

/// Arguments of `specula sweep merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shard files (CSV or JSON, as `specula sweep --shard` wrote them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Format of the merged rows.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: Format,
    /// Write the rows to FILE (and the summary to stdout) instead of to stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also draw pass rate against speed into this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// The sweep the arguments define, checked (`specula::sweep::request`): bad input is one line on
/// stderr and nothing is written.
fn definition(a: &SweepOpts) -> Result<Sweep, String> {
    if a.scene.is_none() && a.start_of.is_some() {
        return Err("--start-of needs a SCENE: the presets place their own parts".into());
    }
    let request = Request {
        scene: a.scene.clone(),
        preset: a.preset.clone(),
        bodies: a.body.clone(),
        speeds: a.speeds.clone(),
        direction: a.direction.clone(),
        toward: a.toward.clone(),
        offsets: a.offsets,
        dense: a.dense,
        gap: a.gap,
        tilt: a.tilt,
        jitter: a.jitter,
        seed: a.seed,
        draws: a.draws,
        timesteps: a.timesteps.clone(),
        duration: a.duration,
        key: a.key.clone(),
        routes: a.route.as_ref().map(|r| r.iter().map(|&r| r.into()).collect()),
        modes: a.modes.clone(),
        refine: a.refine,
    };
    request.sweep().map_err(|e| e.to_string())
}

/// Which shard this process runs: `--shard`, else the Slurm array task's, else all of it.
fn which_shard(a: &SweepOpts) -> Result<Option<(usize, usize)>, String> {
    match &a.shard {
        Some(s) => sweep_args::parse_shard(s).map(Some),
        None => sweep_args::slurm_shard(|k| std::env::var(k).ok()),
    }
}

/// The rows in the chosen format. A shard written to a file (`merge_total`: the sweep's number of
/// runs) is made to be merged: its CSV starts with the sweep header and keeps every digit (JSON
/// always carries both). Printed, a shard's CSV rows are plain rows, as before shards had headers.
fn rows(
    results: &[RunResult],
    sweep: &Sweep,
    format: Format,
    shard: (usize, usize),
    merge_total: Option<usize>,
) -> String {
    match (format, merge_total) {
        (Format::Csv, Some(total)) => {
            merge::header(sweep, shard, results.len(), total) + &report::to_csv_exact(results)
        }
        (Format::Csv, None) => report::to_csv(results),
        (Format::Json, _) => format!("{}\n", report::to_json(results, sweep, shard)),
    }
}

/// The summary tables, and for a scene the verdict in words.
fn summary(results: &[RunResult]) -> String {
    let mut out = report::summary(results);
    if results.iter().any(|r| r.spec.scene == SceneKind::User) {
        out.push_str(&format!("\nVerdict: {}\n", verdict::verdict(results)));
    }
    out
}

/// Writes rows, summary and plot; rows go to `out` (summary on stdout) or to stdout (summary on
/// stderr).
fn emit(
    rows: String,
    summary: String,
    results: &[RunResult],
    out: &Option<PathBuf>,
    svg_path: &Option<PathBuf>,
) -> Result<(), String> {
    match out {
        Some(path) => {
            std::fs::write(path, rows).map_err(|e| format!("{}: {e}", path.display()))?;
            print!("{summary}");
        }
        None => {
            print!("{rows}");
            eprint!("{summary}");
        }
    }
    if let Some(path) = svg_path {
        std::fs::write(path, svg::chart(results)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn describe(sweep: &Sweep) -> String {
    match &sweep.source {
        Source::Preset(p) => format!("--preset {}", p.name()),
        Source::Scene { path, .. } => path.display().to_string(),
    }
}

/// Runs `specula sweep`.
pub fn run(args: SweepArgs) -> Result<ExitCode, String> {
    if let Some(SweepCommand::Merge(m)) = args.command {
        return run_merge(m);
    }
    let args = *args.opts;
    let sweep = definition(&args)?;
    let all = sweep.runs();
    if all.is_empty() {
        return Err("no runs: the robust mode runs only on the rust route (add --route rust)".into());
    }
    let sharded = which_shard(&args)?;
    if sharded.is_some() && args.refine {
        return Err("--refine cannot be sharded: its runs depend on the whole grid's results".into());
    }
    let (i, n) = sharded.unwrap_or((1, 1));
    if let Some(index) = args.start_of {
        let r = all.get(index).ok_or_else(|| format!("--start-of {index}: the sweep has {} runs", all.len()))?;
        let c = Compiled::new(r).map_err(|e| e.to_string())?;
        let key =
            c.setup.as_ref().expect("scene runs have a setup").start_key(&c.model, r).map_err(|e| e.to_string())?;
        print!("{key}");
        return Ok(ExitCode::SUCCESS);
    }
    let runs = shard(&all, i, n);
    if args.count {
        println!("{} runs (shard {i}/{n} of {})", runs.len(), all.len());
        return Ok(ExitCode::SUCCESS);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("could not start the worker threads: {e}"))?;
    let when = match args.progress {
        ProgressArg::Auto => When::Auto,
        ProgressArg::Always => When::Always,
        ProgressArg::Never => When::Never,
    };
    let started = Instant::now();
    let progress = Progress::new(when, runs.len());
    let results = pool
        .install(|| run_refined(&sweep, &runs, all.len(), &|n| progress.add(n), &|_, _| progress.tick()))
        .map_err(|e| e.to_string())?;
    progress.finish();
    let merge_total = (sharded.is_some() && args.out.is_some()).then_some(all.len());
    let text = rows(&results, &sweep, args.format, (i, n), merge_total);
    let summary = format!(
        "specula sweep {} (shard {i}/{n}): {} runs in {:.1} s\n{}",
        describe(&sweep),
        results.len(),
        started.elapsed().as_secs_f64(),
        summary(&results)
    );
    emit(text, summary, &results, &args.out, &args.svg)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `specula sweep merge`.
fn run_merge(m: MergeArgs) -> Result<ExitCode, String> {
    let (sweep, results) = merge::merge(&m.files).map_err(|e| e.to_string())?;
    let text = rows(&results, &sweep, m.format, (1, 1), None);
    let summary = format!(
        "specula sweep merge of {} shards of {}: {} runs\n{}",
        m.files.len(),
        describe(&sweep),
        results.len(),
        summary(&results)
    );
    emit(text, summary, &results, &m.out, &m.svg)?;
    Ok(ExitCode::SUCCESS)
}
