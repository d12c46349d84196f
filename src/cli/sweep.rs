//! `specula sweep`: the tunneling matrix, run in parallel, with CSV/JSON, a summary and an SVG chart.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use clap::{Args, ValueEnum};
use specula::sweep::preset::{self, Preset};
use specula::sweep::{report, run_all, shard, svg, SpecMode};

use super::RouteArg;

/// Output format of the per-run rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One CSV row per run, with a header.
    Csv,
    /// One JSON object with a `runs` array.
    Json,
}

/// Arguments of `specula sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Built-in grid: a1 (table A1/A2), a5 (stiff contacts), a3 (timesteps), b, b-stiff (thin
    /// parts), c (two balls head-on), quick (a few runs of each scene).
    #[arg(long, default_value = "quick", value_parser = parse_preset)]
    pub preset: Preset,
    /// Scene A: 20 start offsets (k+0.5)/20 instead of 1/6, 1/2, 5/6 (the "dense" sweep).
    #[arg(long, conflicts_with = "offsets")]
    pub dense: bool,
    /// Scene A: this many start offsets (k+0.5)/N (3 gives 1/6, 1/2, 5/6).
    #[arg(long)]
    pub offsets: Option<usize>,
    /// Collision routes (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "c")]
    pub route: Vec<RouteArg>,
    /// Speculative modes (comma-separated): off (disabled), compat (MuJoCo 4.0's).
    #[arg(long, value_delimiter = ',', default_value = "off,compat", value_parser = parse_mode)]
    pub modes: Vec<SpecMode>,
    /// Run only shard I of N (1-based): every N-th run of the list from the I-th.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
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
    /// Scene A: after the grid, add runs at 0.05 m/s steps in the 0.5 m/s just below each row's first
    /// PASS (as the reference sweep does; its "runs PASS, 3 offsets" counts include these runs).
    #[arg(long, conflicts_with = "shard")]
    pub refine: bool,
    /// Print the number of runs instead of running them.
    #[arg(long)]
    pub count: bool,
}

fn parse_preset(s: &str) -> Result<Preset, String> {
    Preset::parse(s).ok_or_else(|| {
        let names: Vec<_> = Preset::ALL.iter().map(|p| p.name()).collect();
        format!("unknown preset '{s}' (expected one of {})", names.join(", "))
    })
}

fn parse_mode(s: &str) -> Result<SpecMode, String> {
    SpecMode::parse(s).ok_or_else(|| {
        let names: Vec<_> = SpecMode::ALL.iter().map(|m| m.name()).collect();
        format!("unknown mode '{s}' (expected one of {})", names.join(", "))
    })
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{s}' is not a shard I/N with 1 <= I <= N");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// A progress bar on stderr, redrawn at most every 1% (only when stderr is a terminal).
struct Progress {
    tty: bool,
    last: Mutex<usize>,
    started: Instant,
}

impl Progress {
    fn tick(&self, done: usize, total: usize) {
        if !self.tty || total == 0 {
            return;
        }
        let pct = done * 100 / total;
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if pct == *last && done != total {
            return;
        }
        *last = pct;
        let width = 40;
        let filled = done * width / total;
        let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
        let secs = self.started.elapsed().as_secs_f64();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r[{bar}] {done}/{total} ({pct}%) {secs:.0} s");
        if done == total {
            let _ = writeln!(err);
        }
    }
}

/// Runs `specula sweep`.
pub fn run(args: SweepArgs) -> Result<ExitCode, String> {
    let offsets = match (args.dense, args.offsets) {
        (true, _) => Some(preset::offsets(20)),
        (false, Some(0)) => return Err("--offsets must be at least 1".into()),
        (false, Some(n)) => Some(preset::offsets(n)),
        (false, None) => None,
    };
    let routes: Vec<_> = dedup(args.route.iter().map(|&r| r.into()).collect());
    let modes: Vec<SpecMode> = dedup(args.modes.clone());
    let all = preset::runs(args.preset, offsets.as_deref(), &routes, &modes);
    if all.is_empty() {
        return Err("no runs: the robust mode runs only on the rust route (add --route rust)".into());
    }
    let (i, n) = args.shard.unwrap_or((1, 1));
    let runs = shard(&all, i, n);
    if args.count {
        println!("{} runs (shard {i}/{n} of {})", runs.len(), all.len());
        return Ok(ExitCode::SUCCESS);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("could not start the worker threads: {e}"))?;
    let progress =
        Progress { tty: std::io::stderr().is_terminal(), last: Mutex::new(usize::MAX), started: Instant::now() };
    let mut results = pool.install(|| run_all(&runs, &|d, t| progress.tick(d, t))).map_err(|e| e.to_string())?;
    if args.refine {
        let extra = preset::refinement(&results, all.len());
        let more = pool.install(|| run_all(&extra, &|d, t| progress.tick(d, t))).map_err(|e| e.to_string())?;
        results.extend(more);
    }

    let rows = match args.format {
        Format::Csv => report::to_csv(&results),
        Format::Json => format!("{}\n", report::to_json(&results, args.preset.name(), (i, n))),
    };
    let summary = format!(
        "specula sweep --preset {} (shard {i}/{n}): {} runs in {:.1} s\n{}",
        args.preset.name(),
        results.len(),
        progress.started.elapsed().as_secs_f64(),
        report::summary(&results)
    );
    match &args.out {
        Some(path) => {
            std::fs::write(path, rows).map_err(|e| format!("{}: {e}", path.display()))?;
            print!("{summary}");
        }
        None => {
            print!("{rows}");
            eprint!("{summary}");
        }
    }
    if let Some(path) = &args.svg {
        std::fs::write(path, svg::chart(&results)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn dedup<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}
