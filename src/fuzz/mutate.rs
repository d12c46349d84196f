//! The mutation fuzzer (`specula fuzz --mutate`): seeded mutations of MJCF files, each run
//! through `specula check` and, when both compilers accept it, `specula run --route rust` and
//! `specula diff`, every one in a child process under a timeout and an address-space cap.
//!
//! A case is its seed: the seed picks a base ([`super::mutate_base`]) and draws 1 to 4
//! mutations ([`super::mutate_tree`]), so the same seed and base list give the same bytes. Each
//! stage's end is read into rows of one table ([`Row`]): both compilers reject (specula's
//! message with or without `file:line:col`), both compile and check matches, and the failing
//! rows: one compiler accepts what the other rejects, check differs, no answer in time (per
//! stage), a signal, a panic, or no verdict at all. A failing case is shrunk (elements and
//! attributes dropped while it fails the same way) and written out under its seed.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use super::mutate_base::{Base, Bases};
use super::mutate_child::{ended, has_location, run_child, Ended, Limits};
use super::mutate_tree::{self, Mutated};
use super::scene::Rng;

/// A stage of a case, each its own child process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// `specula check FILE --json`.
    Check,
    /// `specula run FILE --route rust --steps K --json`.
    Run,
    /// `specula diff FILE --steps K --json`.
    Diff,
}

impl Stage {
    /// The subcommand's name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Check => "check",
            Stage::Run => "run",
            Stage::Diff => "diff",
        }
    }
}

/// A row of the outcome table; a case counts in every row one of its stages reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    /// Both compilers reject the file, specula's message naming `file:line:col`.
    BothRejectLocated,
    /// Both reject it, specula's message without a location.
    BothRejectUnlocated,
    /// Both compile it and check matches.
    CheckMatches,
    /// specula compiles a file MuJoCo rejects.
    SpeculaAccepts,
    /// MuJoCo compiles a file specula rejects.
    MujocoAccepts,
    /// Both compile it and check differs.
    CheckDiffers,
    /// The stage gave no answer in the timeout and was killed.
    Hang(Stage),
    /// The stage was ended by a signal (SIGSEGV, SIGABRT, ...).
    Crash(Stage),
    /// The stage panicked.
    Panic(Stage),
    /// The stage exited with no verdict it can give (an exit code or output it never gives).
    NoVerdict(Stage),
    /// Not failing: `diff` differs on a mutated scene (reported for a look).
    DiffDiffers,
    /// Not failing: `run` or `diff` stopped with an error (MuJoCo's, or a refused setting).
    Stopped(Stage),
}

impl Row {
    /// Whether the row is a failure (a bold row of the table).
    pub fn failing(self) -> bool {
        !matches!(
            self,
            Row::BothRejectLocated | Row::BothRejectUnlocated | Row::CheckMatches | Row::DiffDiffers | Row::Stopped(_)
        )
    }

    /// A short name for JSON and signatures.
    pub fn key(self) -> String {
        match self {
            Row::BothRejectLocated => "both_reject_located".into(),
            Row::BothRejectUnlocated => "both_reject_unlocated".into(),
            Row::CheckMatches => "check_matches".into(),
            Row::SpeculaAccepts => "specula_accepts".into(),
            Row::MujocoAccepts => "mujoco_accepts".into(),
            Row::CheckDiffers => "check_differs".into(),
            Row::Hang(s) => format!("hang_{}", s.name()),
            Row::Crash(s) => format!("crash_{}", s.name()),
            Row::Panic(s) => format!("panic_{}", s.name()),
            Row::NoVerdict(s) => format!("no_verdict_{}", s.name()),
            Row::DiffDiffers => "diff_differs".into(),
            Row::Stopped(s) => format!("stopped_{}", s.name()),
        }
    }

    /// Every row, in table order.
    pub fn all() -> Vec<Row> {
        let mut v = vec![
            Row::BothRejectLocated,
            Row::BothRejectUnlocated,
            Row::CheckMatches,
            Row::SpeculaAccepts,
            Row::MujocoAccepts,
            Row::CheckDiffers,
        ];
        for f in [Row::Hang, Row::Crash, Row::Panic, Row::NoVerdict] {
            v.extend([Stage::Check, Stage::Run, Stage::Diff].map(f));
        }
        v.extend([Row::DiffDiffers, Row::Stopped(Stage::Run), Row::Stopped(Stage::Diff)]);
        v
    }
}

/// One thing a case's stage gave: its row and the message behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The row.
    pub row: Row,
    /// Both compilers' messages, the panic, the signal and last line of stderr, ...
    pub message: String,
}

impl Finding {
    /// What a failure is, for the shrinker: its row and, for a panic its location, for a crash
    /// its signal, for a check difference its first field, so that shrinking keeps the failure.
    pub fn signature(&self) -> String {
        let m = &self.message;
        let detail = match self.row {
            Row::Panic(_) => m.split("panicked at ").nth(1).and_then(|s| s.split(':').next()).unwrap_or("").to_string(),
            Row::Crash(_) => m.split(':').next().unwrap_or("").to_string(),
            Row::CheckDiffers => m.split(['[', ' ']).next().unwrap_or("").to_string(),
            // the rejecting compiler's complaint, so that shrinking does not drift to another one
            Row::SpeculaAccepts => complaint(m.split(" | specula:").next().unwrap_or("")),
            Row::MujocoAccepts => complaint(m.split(" | specula: ").nth(1).unwrap_or("")),
            _ => String::new(),
        };
        format!("{} {detail}", self.row.key())
    }
}

/// What a compiler's message complains of: the text after the file's name (and specula's
/// line and column) and before MuJoCo's "Element ..." trailer, without digits.
fn complaint(m: &str) -> String {
    let m = m.strip_prefix("MuJoCo: ").unwrap_or(m);
    let m = m.split(" Element ").next().unwrap_or(m);
    let m = match m.find(".xml:") {
        Some(i) => &m[i + 5..],
        None => m,
    };
    m.chars().filter(|c| !c.is_ascii_digit()).collect::<String>().trim_start_matches([':', ' ']).to_string()
}

/// A deliberate fault in the check stage, so tests can see each failing row reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Break {
    /// Check compares a Rust model whose timestep is 1 s off.
    Check,
    /// The check child sleeps forever.
    Hang,
    /// The check child panics.
    Panic,
    /// The check child is killed by SIGSEGV.
    Segv,
}

impl std::str::FromStr for Break {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "check" => Ok(Break::Check),
            "hang" => Ok(Break::Hang),
            "panic" => Ok(Break::Panic),
            "segv" => Ok(Break::Segv),
            _ => Err(format!("'{s}' is not a fault (check, hang, panic, segv)")),
        }
    }
}

impl Break {
    /// The name the child's command line takes.
    pub fn name(self) -> &'static str {
        match self {
            Break::Check => "check",
            Break::Hang => "hang",
            Break::Panic => "panic",
            Break::Segv => "segv",
        }
    }
}

/// How to run the mutation fuzzer.
#[derive(Clone, Debug)]
pub struct MutateOptions {
    /// The `specula` binary the stages run in.
    pub exe: PathBuf,
    /// Steps of `run` and `diff`.
    pub steps: usize,
    /// Time and memory per child.
    pub limits: Limits,
    /// Shrink failing cases.
    pub shrink: bool,
    /// Scratch folder for the cases' files (created; removed by the caller).
    pub work: PathBuf,
    /// Test hook: a deliberate fault in the check stage.
    pub brk: Option<Break>,
}

/// A case: its seed, its base and its mutations.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed.
    pub seed: u64,
    /// The base's label.
    pub base: String,
    /// The folder the base's relative references resolve in.
    pub dir: Option<PathBuf>,
    /// The mutated file.
    pub mutated: Mutated,
}

/// The case of `seed` over `bases`.
pub fn case(seed: u64, bases: &Bases) -> Case {
    // a stream of its own, apart from the scene generator's for the same seed
    let mut r = Rng::new(seed ^ 0x6D75_7461_7465_0000);
    let base = bases.pick(&mut r);
    let text = base.text(&mut r);
    let mutated = mutate_tree::mutate(&text, &mut r);
    Case { seed, base: base.label.clone(), dir: base.dir().map(Path::to_path_buf), mutated }
}

/// What one case gave: every finding, in stage order.
#[derive(Clone, Debug, Default)]
pub struct CaseResult {
    /// The findings (one for check; one each for run and diff when they found something).
    pub findings: Vec<Finding>,
}

impl CaseResult {
    /// The first failing finding, if any.
    pub fn failure(&self) -> Option<&Finding> {
        self.findings.iter().find(|f| f.row.failing())
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(400).collect()
}

/// A stage that crashed, hung or panicked, as a finding; `None` for a normal exit.
fn abnormal(stage: Stage, e: &Ended, secs: f64) -> Option<Finding> {
    match e {
        Ended::Hang => Some(Finding { row: Row::Hang(stage), message: format!("no answer in {secs} s") }),
        Ended::Crash(sig, last) => {
            Some(Finding { row: Row::Crash(stage), message: one_line(&format!("{sig}: {last}")) })
        }
        Ended::Panic(p) => Some(Finding { row: Row::Panic(stage), message: one_line(p) }),
        Ended::Exited(..) => None,
    }
}

/// The check stage's finding from its exit code and JSON.
fn read_check(code: i32, out: &str, err: &str) -> Finding {
    let j: Option<serde_json::Value> = serde_json::from_str(out.trim()).ok();
    let Some(j) = j.filter(|_| code == 0 || code == 1) else {
        let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Finding { row: Row::NoVerdict(Stage::Check), message: one_line(&format!("exit {code}: {last}")) };
    };
    let c = j.get("c_error").and_then(|v| v.as_str());
    let r = j.get("rust_error").and_then(|v| v.as_str());
    let (row, message) = match (c, r) {
        (Some(c), Some(r)) => {
            let row = if has_location(r) { Row::BothRejectLocated } else { Row::BothRejectUnlocated };
            (row, format!("MuJoCo: {c} | specula: {r}"))
        }
        (Some(c), None) => (Row::SpeculaAccepts, format!("MuJoCo: {c} | specula: compiled")),
        (None, Some(r)) => (Row::MujocoAccepts, format!("MuJoCo: compiled | specula: {r}")),
        (None, None) if j.get("verdict").and_then(|v| v.as_str()) == Some("match") => {
            (Row::CheckMatches, String::new())
        }
        (None, None) => {
            let list = j.get("mismatches").and_then(|m| m.as_array()).cloned().unwrap_or_default();
            let first = list.first().map_or_else(String::new, |m| {
                format!(
                    "{}[{}] c {} rust {}",
                    m.get("field").and_then(|f| f.as_str()).unwrap_or("?"),
                    m.get("index").map_or(String::new(), |i| i.to_string()),
                    m.get("c").map_or(String::new(), |i| i.to_string()),
                    m.get("rust").map_or(String::new(), |i| i.to_string())
                )
            });
            (Row::CheckDiffers, format!("{first} ({} mismatches)", list.len()))
        }
    };
    Finding { row, message: one_line(&message) }
}

/// The run or diff stage's finding from its exit code, if it found something.
fn read_sim(stage: Stage, code: i32, out: &str, err: &str) -> Option<Finding> {
    let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    match (stage, code) {
        (_, 0) => None,
        (Stage::Diff, 1) => {
            let j: Option<serde_json::Value> = serde_json::from_str(out.trim()).ok();
            let said = j.as_ref().map_or(String::new(), |j| {
                format!(
                    "{} ({} unmatched of {} contacts)",
                    j.get("problem").and_then(|p| p.as_str()).unwrap_or("trajectories diverge"),
                    j.get("unmatched").map_or(String::new(), |v| v.to_string()),
                    j.get("contacts").map_or(String::new(), |v| v.to_string())
                )
            });
            Some(Finding { row: Row::DiffDiffers, message: one_line(&said) })
        }
        (_, 2) => Some(Finding { row: Row::Stopped(stage), message: one_line(last) }),
        _ => Some(Finding { row: Row::NoVerdict(stage), message: one_line(&format!("exit {code}: {last}")) }),
    }
}

/// The arguments of a stage's child for `file`.
fn stage_args(stage: Stage, file: &Path, opts: &MutateOptions) -> Vec<OsString> {
    let f = file.as_os_str().to_os_string();
    let steps = opts.steps.to_string();
    let v: Vec<OsString> = match (stage, opts.brk) {
        (Stage::Check, Some(b)) => {
            vec!["fuzz".into(), "--child".into(), "check".into(), f, "--break".into(), b.name().into()]
        }
        (Stage::Check, None) => vec!["check".into(), f, "--json".into()],
        (Stage::Run, _) => {
            vec!["run".into(), f, "--route".into(), "rust".into(), "--steps".into(), steps.into(), "--json".into()]
        }
        (Stage::Diff, _) => vec!["diff".into(), f, "--steps".into(), steps.into(), "--json".into()],
    };
    v
}

/// Runs one stage; an error starting the child is a finding with no verdict.
fn stage(stage: Stage, file: &Path, opts: &MutateOptions) -> Ended {
    match run_child(&opts.exe, &stage_args(stage, file, opts), opts.limits) {
        Ok(run) => ended(run),
        Err(e) => Ended::Exited(-1, String::new(), format!("cannot start {}: {e}", opts.exe.display())),
    }
}

/// Runs every stage on `file` (check; run and diff when both compilers accepted it).
pub fn evaluate_file(file: &Path, opts: &MutateOptions) -> CaseResult {
    let secs = opts.limits.timeout.as_secs_f64();
    let check = stage(Stage::Check, file, opts);
    let f = match &check {
        Ended::Exited(code, out, err) => read_check(*code, out, err),
        other => {
            abnormal(Stage::Check, other, secs).unwrap_or(Finding { row: Row::CheckMatches, message: String::new() })
        }
    };
    let compiled = matches!(f.row, Row::CheckMatches | Row::CheckDiffers);
    let mut res = CaseResult { findings: vec![f] };
    if compiled {
        for st in [Stage::Run, Stage::Diff] {
            let e = stage(st, file, opts);
            let found = match &e {
                Ended::Exited(code, out, err) => read_sim(st, *code, out, err),
                other => abnormal(st, other, secs),
            };
            res.findings.extend(found);
        }
    }
    res
}

/// A folder for one case's file: with links to everything beside the base file, so includes,
/// meshes and textures named relative to it are found.
struct CaseDir {
    dir: PathBuf,
    file: PathBuf,
}

impl CaseDir {
    fn new(work: &Path, seed: u64, base_dir: Option<&Path>) -> std::io::Result<CaseDir> {
        let dir = work.join(format!("case-{seed}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let name = format!("mutate-{seed}.xml");
        if let Some(bd) = base_dir {
            for e in std::fs::read_dir(bd)?.flatten() {
                if e.file_name() != name.as_str() {
                    let target = std::fs::canonicalize(e.path())?;
                    std::os::unix::fs::symlink(target, dir.join(e.file_name()))?;
                }
            }
        }
        Ok(CaseDir { file: dir.join(name), dir })
    }

    fn evaluate(&self, bytes: &[u8], opts: &MutateOptions) -> CaseResult {
        if let Err(e) = std::fs::write(&self.file, bytes) {
            let message = format!("{}: cannot write the case: {e}", self.file.display());
            return CaseResult { findings: vec![Finding { row: Row::NoVerdict(Stage::Check), message }] };
        }
        let mut res = evaluate_file(&self.file, opts);
        // messages name the file as it will be written out, not the scratch copy
        let (full, short) = (
            self.file.display().to_string(),
            self.file.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        );
        for f in &mut res.findings {
            f.message = f.message.replace(&full, &short);
        }
        res
    }
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One failing case, shrunk.
#[derive(Clone, Debug)]
pub struct CaseFailure {
    /// The seed.
    pub seed: u64,
    /// The base's label.
    pub base: String,
    /// The folder the base's references resolve in (the shrunk file may still need it).
    pub dir: Option<PathBuf>,
    /// The mutations, in words.
    pub changes: Vec<String>,
    /// The failing finding of the case as drawn.
    pub finding: Finding,
    /// The case as drawn.
    pub full: Vec<u8>,
    /// The shrunk case and its finding (the drawn one when shrinking is off).
    pub shrunk: Vec<u8>,
    /// The shrunk case's failing finding.
    pub shrunk_finding: Finding,
    /// Cases the shrinker ran.
    pub shrink_runs: usize,
    /// For a check stage that hung, crashed, panicked or gave no verdict: what each compiler
    /// does alone with the shrunk file ([`attribute`]); empty otherwise.
    pub attributed: String,
}

/// At most this many cases run while shrinking one failure, and for at most this long: a hang
/// costs the whole timeout per try.
const SHRINK_RUNS: usize = 400;
const SHRINK_SECS: f64 = 120.0;

/// Shrinks a failing case: drops elements (largest first) and attributes while it fails with the
/// same [`Finding::signature`], then lines (for a malformed file, which has no tree).
fn shrink(cd: &CaseDir, m: &Mutated, f: &Finding, opts: &MutateOptions) -> (Vec<u8>, Finding, usize) {
    let sig = f.signature();
    let t0 = Instant::now();
    let mut runs = 0usize;
    let mut best_f = f.clone();
    let attempt = |bytes: &[u8], runs: &mut usize| -> Option<Finding> {
        if *runs >= SHRINK_RUNS || t0.elapsed().as_secs_f64() > SHRINK_SECS {
            return None;
        }
        *runs += 1;
        cd.evaluate(bytes, opts).failure().filter(|g| g.signature() == sig).cloned()
    };
    let mut bytes = m.to_bytes();
    if let (Ok(doc), true) = (&m.doc, m.byte_ops.is_empty()) {
        let mut best = doc.clone();
        'outer: loop {
            for cand in mutate_tree::simpler(&best) {
                if runs >= SHRINK_RUNS || t0.elapsed().as_secs_f64() > SHRINK_SECS {
                    break 'outer;
                }
                if let Some(g) = attempt(&cand.to_bytes(), &mut runs) {
                    best = cand;
                    best_f = g;
                    continue 'outer;
                }
            }
            break;
        }
        bytes = best.to_bytes();
    } else {
        let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        let mut k = 0;
        while k < lines.len() && lines.len() > 1 {
            let mut cand = lines.clone();
            cand.remove(k);
            match attempt(&cand.join(&b'\n'), &mut runs) {
                Some(g) => {
                    lines = cand;
                    best_f = g;
                }
                None => k += 1,
            }
        }
        bytes = lines.join(&b'\n');
    }
    (bytes, best_f, runs)
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct MutateSummary {
    /// Cases run.
    pub cases: usize,
    /// Cases per row.
    pub counts: BTreeMap<Row, usize>,
    /// The failing cases, by seed.
    pub failures: Vec<CaseFailure>,
    /// Not-failing findings of run and diff, by row and message (numbers left out): how many,
    /// and the first seed.
    pub notes: BTreeMap<(Row, String), (usize, u64)>,
}

impl MutateSummary {
    /// Cases in failing rows.
    pub fn failed(&self) -> usize {
        self.failures.len()
    }

    /// Cases counted in `row`.
    pub fn count(&self, row: Row) -> usize {
        self.counts.get(&row).copied().unwrap_or(0)
    }
}

/// A message without its numbers and paths, to group findings of one kind.
pub fn kind_of(message: &str) -> String {
    let no_paths: String =
        message.split_whitespace().map(|w| if w.contains('/') { "FILE" } else { w }).collect::<Vec<_>>().join(" ");
    no_paths.chars().filter(|c| !c.is_ascii_digit()).take(160).collect()
}

/// Runs the cases of `seeds` over `bases` (in parallel on the current rayon pool), shrinking
/// the failing ones; `progress` is called after each case with the cases done and failed.
pub fn run(
    seeds: std::ops::Range<u64>,
    bases: &Bases,
    opts: &MutateOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> MutateSummary {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let (done, failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let seeds: Vec<u64> = seeds.collect();
    let results: Vec<(u64, CaseResult, Option<CaseFailure>)> = seeds
        .into_par_iter()
        // one seed per task: a case that hangs or shrinks for minutes must not hold back the
        // seeds queued behind it on its thread while the other threads idle
        .with_max_len(1)
        .map(|seed| {
            let (res, failure) = run_case(&case(seed, bases), opts);
            let n = done.fetch_add(1, Relaxed) + 1;
            let k = failed.fetch_add(usize::from(failure.is_some()), Relaxed) + usize::from(failure.is_some());
            progress(n, k);
            (seed, res, failure)
        })
        .collect();
    summarize(results)
}

/// Runs `files` as they are (numbered from 0 in the summary's seeds), without shrinking.
pub fn replay(files: &[PathBuf], opts: &MutateOptions, progress: &(dyn Fn(usize, usize) + Sync)) -> MutateSummary {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let (done, failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let results: Vec<(u64, CaseResult, Option<CaseFailure>)> = files
        .par_iter()
        .enumerate()
        .with_max_len(1)
        .map(|(i, file)| {
            let res = evaluate_file(file, opts);
            let failure = res.failure().cloned().map(|f| {
                let bytes = std::fs::read(file).unwrap_or_default();
                let attributed = if needs_attribution(f.row) { attribute(file, opts) } else { String::new() };
                CaseFailure {
                    seed: i as u64,
                    base: file.display().to_string(),
                    dir: file.parent().map(Path::to_path_buf),
                    changes: Vec::new(),
                    finding: f.clone(),
                    full: bytes.clone(),
                    shrunk: bytes,
                    shrunk_finding: f,
                    shrink_runs: 0,
                    attributed,
                }
            });
            let n = done.fetch_add(1, Relaxed) + 1;
            let k = failed.fetch_add(usize::from(failure.is_some()), Relaxed) + usize::from(failure.is_some());
            progress(n, k);
            (i as u64, res, failure)
        })
        .collect();
    summarize(results)
}

/// Whether a failing row is one of the check stage's that [`attribute`] explains.
fn needs_attribution(row: Row) -> bool {
    matches!(
        row,
        Row::Hang(Stage::Check) | Row::Crash(Stage::Check) | Row::Panic(Stage::Check) | Row::NoVerdict(Stage::Check)
    )
}

/// Runs one case and, if it fails, shrinks it.
fn run_case(c: &Case, opts: &MutateOptions) -> (CaseResult, Option<CaseFailure>) {
    let bytes = c.mutated.to_bytes();
    let failure =
        |f: Finding, shrunk: Vec<u8>, shrunk_finding: Finding, shrink_runs: usize, attributed: String| CaseFailure {
            seed: c.seed,
            base: c.base.clone(),
            dir: c.dir.clone(),
            changes: c.mutated.changes.clone(),
            finding: f,
            full: bytes.clone(),
            shrunk,
            shrunk_finding,
            shrink_runs,
            attributed,
        };
    let cd = match CaseDir::new(&opts.work, c.seed, c.dir.as_deref()) {
        Ok(cd) => cd,
        Err(e) => {
            let f =
                Finding { row: Row::NoVerdict(Stage::Check), message: format!("cannot make the case's folder: {e}") };
            let res = CaseResult { findings: vec![f.clone()] };
            return (res, Some(failure(f.clone(), bytes.clone(), f, 0, String::new())));
        }
    };
    let res = cd.evaluate(&bytes, opts);
    let Some(f) = res.failure().cloned() else { return (res, None) };
    let (shrunk, shrunk_finding, runs) =
        if opts.shrink { shrink(&cd, &c.mutated, &f, opts) } else { (bytes.clone(), f.clone(), 0) };
    let attributed = if needs_attribution(shrunk_finding.row) && std::fs::write(&cd.file, &shrunk).is_ok() {
        let short = cd.file.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        attribute(&cd.file, opts).replace(&cd.file.display().to_string(), &short)
    } else {
        String::new()
    };
    (res, Some(failure(f, shrunk, shrunk_finding, runs, attributed)))
}

fn summarize(results: Vec<(u64, CaseResult, Option<CaseFailure>)>) -> MutateSummary {
    let mut sum = MutateSummary::default();
    for (seed, res, failure) in results {
        sum.cases += 1;
        for f in &res.findings {
            *sum.counts.entry(f.row).or_default() += 1;
            if matches!(f.row, Row::DiffDiffers | Row::Stopped(_)) {
                sum.notes.entry((f.row, kind_of(&f.message))).or_insert((0, seed)).0 += 1;
            }
        }
        sum.failures.extend(failure);
    }
    sum
}

/// The command that reruns `stage` on `file`.
pub fn reproduce(stage: Stage, file: &str, steps: usize) -> String {
    match stage {
        Stage::Check => format!("specula check {file} --json"),
        Stage::Run => format!("specula run {file} --route rust --steps {steps} --json"),
        Stage::Diff => format!("specula diff {file} --steps {steps} --json"),
    }
}

/// The stage a row belongs to.
pub fn stage_of(row: Row) -> Stage {
    match row {
        Row::Hang(s) | Row::Crash(s) | Row::Panic(s) | Row::NoVerdict(s) | Row::Stopped(s) => s,
        Row::DiffDiffers => Stage::Diff,
        _ => Stage::Check,
    }
}

/// `bytes` with an XML comment `note` put where a comment may go: after the declaration if
/// there is one, else first.
fn with_comment(bytes: &[u8], note: &str) -> Vec<u8> {
    let comment = format!("<!-- {} -->\n", note.replace("--", "- -"));
    let at =
        if bytes.starts_with(b"<?xml") { bytes.windows(2).position(|w| w == b"?>").map_or(0, |p| p + 2) } else { 0 };
    let mut out = bytes[..at].to_vec();
    if at > 0 {
        out.push(b'\n');
    }
    out.extend(comment.as_bytes());
    out.extend(&bytes[at..]);
    out
}

/// Writes a failure as `mutate-SEED.xml` (shrunk) and `mutate-SEED-full.xml` in `dir`, each with
/// a comment saying what failed and how to reproduce it; if the comment changes what the shrunk
/// file does (a malformed file may read differently), the file is written as it failed and the
/// note goes to `mutate-SEED.txt`. `base_args` are the `--base` arguments of the run. Returns the
/// shrunk file's path.
pub fn write_failure(
    dir: &Path,
    f: &CaseFailure,
    opts: &MutateOptions,
    base_args: &str,
) -> Result<PathBuf, super::FuzzError> {
    let name = format!("mutate-{}.xml", f.seed);
    let path = dir.join(&name);
    let st = stage_of(f.shrunk_finding.row);
    let needs = match &f.dir {
        Some(d) if f.shrunk.windows(5).any(|w| w == b"file=") => {
            format!(" (it names files beside {}: copy it there first)", d.display())
        }
        _ => String::new(),
    };
    let note = format!(
        "specula fuzz --mutate, seed {} (base {}; {}): {}: {}\n     reproduce: {}{needs}\n     or: specula fuzz --mutate --seeds {}{base_args}",
        f.seed,
        f.base,
        f.changes.join("; "),
        f.shrunk_finding.row.key(),
        f.shrunk_finding.message,
        reproduce(st, &name, opts.steps),
        f.seed,
    );
    let w = |p: &Path, b: &[u8]| std::fs::write(p, b).map_err(|e| super::FuzzError::new(p, e));
    w(&dir.join(format!("mutate-{}-full.xml", f.seed)), &with_comment(&f.full, &note))?;
    let noted = with_comment(&f.shrunk, &note);
    w(&path, &noted)?;
    let again = evaluate_file(&path, opts);
    if again.failure().map(Finding::signature) != Some(f.shrunk_finding.signature()) {
        w(&path, &f.shrunk)?;
        w(&dir.join(format!("mutate-{}.txt", f.seed)), note.as_bytes())?;
    }
    Ok(path)
}

/// For a check stage that hung, crashed, panicked or gave no verdict: which compiler did it,
/// each loaded alone in its own child (`specula fuzz --child load-c|load-rust FILE`).
pub fn attribute(file: &Path, opts: &MutateOptions) -> String {
    let side = |which: &str| -> String {
        let args: Vec<OsString> = vec!["fuzz".into(), "--child".into(), which.into(), file.as_os_str().into()];
        match run_child(&opts.exe, &args, opts.limits).map(ended) {
            Ok(Ended::Hang) => format!("no answer in {} s", opts.limits.timeout.as_secs_f64()),
            Ok(Ended::Crash(sig, last)) => one_line(&format!("{sig}: {last}")),
            Ok(Ended::Panic(p)) => one_line(&p),
            Ok(Ended::Exited(0, out, _)) => one_line(&out),
            Ok(Ended::Exited(c, _, err)) => one_line(&format!("exit {c}: {err}")),
            Err(e) => format!("cannot start: {e}"),
        }
    };
    format!("MuJoCo alone: {}; specula alone: {}", side("load-c"), side("load-rust"))
}
