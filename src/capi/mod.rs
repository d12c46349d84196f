//! specula's collision as a drop-in for MuJoCo C and Python programs: `libspecula.so`.
//!
//! `cargo build --release` builds this crate also as a C shared library
//! (`target/release/libspecula.so`). It defines `mj_collision` ([`crate::mj::collision`]); loaded
//! ahead of libmujoco (`LD_PRELOAD`, or linked with `-lspecula` before `-lmujoco`), that
//! definition receives every collision call MuJoCo makes, RK4's inner ones included, and runs:
//!
//! - `c`: MuJoCo's own collision (the default);
//! - `rust`: specula's Rust stage ([`crate::route::RustStage`]) on a collision model read from
//!   the C `mjModel` ([`crate::mj::from_c`]), its contacts handed to MuJoCo in MuJoCo's order.
//!   What it cannot serve goes to MuJoCo's collision, counted: models with flexes or a
//!   contact-filter callback, and any call the engine's driver refuses (today: speculative
//!   contacts and sleep); height-field and SDF pairs go to MuJoCo's pair function, per pair;
//! - `diff`: MuJoCo's collision (its contacts are kept), then the Rust stage on the same state,
//!   compared with [`crate::diff::compare_contacts`]; disagreeing calls are counted and the first
//!   few are described in the report.
//!
//! # Configuration, and who is affected
//! The environment is read once (first collision call or first call of the C API):
//! `SPECULA_COLLISION=rust|c|diff`, `SPECULA_SPECULATIVE=compat|robust` (robust: specula's
//! tunnel-proof mode, in `rust` mode; `diff` mode always compares MuJoCo-compatible contacts), `SPECULA_REPORT=<path>` (JSON summary written at
//! exit, registered with `atexit`), and the test hook `SPECULA_TEST_BREAK=1` (diff mode only:
//! adds 1e-3 to the distance of every Rust contact before the comparison, to prove a broken
//! collider is caught). An invalid value prints one line on stderr and selects mode `c`.
//!
//! The same `mj_collision` is linked statically into the `specula` CLI and the test binaries.
//! There the environment is **ignored**: [`config`] reads it only when this code runs from a
//! shared object ([`crate::mj::from_c::running_from_shared_object`], which compares the load
//! base of this code with the main program's). So `SPECULA_COLLISION=rust cargo test` changes
//! nothing, and the CLI keeps using its own `with_collision` routes. The C API setters
//! ([`api`]) work everywhere: a statically linked program that calls them asks for it.
//!
//! # Threads and models
//! The mode and the counters are process-wide atomics. Rust stages are cached per thread and
//! per model pointer, so threads stepping their own `mjData` against one `mjModel` never share
//! scratch buffers. A cached stage re-reads the model's cheap arrays on every call (so edits a
//! program makes to `mjModel` between steps are honoured) and rebuilds its mesh hulls only when
//! the model's fingerprint (buffer address and sizes) changes. A thread keeps at most
//! 16 stages (`STAGES_PER_THREAD` in `run.rs`) and drops the least recently used one beyond that (MuJoCo
//! does not tell `mj_collision` when a model is deleted; the report counts `stage_evictions`).
//! When a program has edited a model's sizes, margins or gaps to values the Rust stage does not
//! reproduce (negative or non-finite sizes, non-finite margins or gaps beyond 1e10), the call goes
//! to MuJoCo's own collision, counted as an `unsupported` fallback with its reason, so the
//! contacts (or MuJoCo's error) are MuJoCo's.
//!
//! Nothing here lets a panic unwind into C: each entry point catches it, falls back to MuJoCo's
//! collision and counts the call under `fallback_error`.

pub mod api;
pub(crate) mod export;
pub use export::mj_collision;
pub mod patch;
mod run;
mod stats;

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::OnceLock;

pub use run::collide;
pub use stats::{report_json, snapshot, write_report, Stats};

/// Which collision runs for a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// MuJoCo's own collision.
    C = 0,
    /// specula's Rust stage (with counted fallbacks).
    Rust = 1,
    /// Both; MuJoCo's contacts are kept and compared with specula's.
    Diff = 2,
}

impl Mode {
    /// The mode with this number (`SPECULA_MODE_*` in specula.h).
    pub fn from_index(i: i32) -> Option<Mode> {
        [Mode::C, Mode::Rust, Mode::Diff].get(usize::try_from(i).ok()?).copied()
    }

    /// The name used in the environment and the report.
    pub fn name(self) -> &'static str {
        match self {
            Mode::C => "c",
            Mode::Rust => "rust",
            Mode::Diff => "diff",
        }
    }
}

pub use specula_model::types::SpeculativeMode;

/// The mode with the C API's number (`SPECULA_SPECULATIVE_*` in specula.h: 0 compat, 1 robust;
/// speculative contacts off is the model's own flag, not a drop-in setting).
pub fn speculative_from_index(i: i32) -> Option<SpeculativeMode> {
    [SpeculativeMode::Compat, SpeculativeMode::Robust].get(usize::try_from(i).ok()?).copied()
}

/// `SPECULATIVE`'s stored form of a mode, and back.
fn speculative_code(s: SpeculativeMode) -> u8 {
    s as u8
}
fn speculative_of_code(c: u8) -> SpeculativeMode {
    SpeculativeMode::ALL.get(usize::from(c)).copied().unwrap_or(SpeculativeMode::Compat)
}

/// What the environment said, read once.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Whether the environment was read (only inside the shared library).
    pub from_env: bool,
    /// `SPECULA_REPORT`.
    pub report: Option<String>,
    /// `SPECULA_TEST_BREAK=1` (diff mode only).
    pub test_break: bool,
    /// Problems with the environment, as printed on stderr.
    pub problems: Vec<String>,
    /// Whether `SPECULA_SPECULATIVE` named a mode.
    pub speculative_chosen: bool,
}

static MODE: AtomicU8 = AtomicU8::new(Mode::C as u8);
static SPECULATIVE: AtomicU8 = AtomicU8::new(SpeculativeMode::Compat as u8);
/// Whether the mode was chosen (`SPECULA_SPECULATIVE` or `specula_set_speculative`); if not,
/// a model that asks for robust mode itself gets it.
static SPECULATIVE_CHOSEN: AtomicBool = AtomicBool::new(false);

/// The configuration; the first call reads the environment (inside the shared library only),
/// sets the mode and registers the exit report.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        if !crate::mj::from_c::running_from_shared_object() {
            return Config::default();
        }
        let (cfg, mode, spec) = read_env(&|k| std::env::var_os(k));
        for p in &cfg.problems {
            eprintln!("specula: {p}");
        }
        MODE.store(mode as u8, Ordering::Relaxed);
        SPECULATIVE.store(speculative_code(spec), Ordering::Relaxed);
        SPECULATIVE_CHOSEN.store(cfg.speculative_chosen, Ordering::Relaxed);
        if cfg.report.is_some() && !crate::mj::from_c::at_exit(stats::report_at_exit) {
            eprintln!("specula: cannot register the exit handler; SPECULA_REPORT will not be written");
        }
        cfg
    })
}

/// Parses the variables (`get` returns a variable's value); an invalid value is a problem and
/// selects mode `c`. A value that is not UTF-8 is invalid too, and is shown lossily in the
/// message (it used to be taken for an unset variable, silently).
fn read_env(get: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> (Config, Mode, SpeculativeMode) {
    let get = |k: &str| {
        get(k).filter(|v| !v.is_empty()).map(|v| v.into_string().unwrap_or_else(|v| v.to_string_lossy().into_owned()))
    };
    let mut cfg = Config { from_env: true, ..Config::default() };
    let mut mode = match get("SPECULA_COLLISION").as_deref() {
        None | Some("c") => Mode::C,
        Some("rust") => Mode::Rust,
        Some("diff") => Mode::Diff,
        Some(other) => {
            cfg.problems
                .push(format!("SPECULA_COLLISION={other:?} is not one of rust, c, diff; using MuJoCo's own collision"));
            Mode::C
        }
    };
    let spec = match get("SPECULA_SPECULATIVE").as_deref() {
        None | Some("compat") => SpeculativeMode::Compat,
        Some("robust") => SpeculativeMode::Robust,
        Some(other) => {
            cfg.problems.push(format!(
                "SPECULA_SPECULATIVE={other:?} is not one of compat, robust; using MuJoCo's own collision"
            ));
            mode = Mode::C;
            SpeculativeMode::Compat
        }
    };
    cfg.speculative_chosen = matches!(get("SPECULA_SPECULATIVE").as_deref(), Some("compat" | "robust"));
    cfg.report = get("SPECULA_REPORT");
    if let Some(path) = cfg.report.as_ref().filter(|p| p.contains('\u{FFFD}')) {
        // std::fs would write to the lossy name, not the one asked for
        cfg.problems.push(format!("SPECULA_REPORT={path:?} is not a UTF-8 path; no report will be written"));
        cfg.report = None;
    }
    cfg.test_break = get("SPECULA_TEST_BREAK").as_deref() == Some("1");
    (cfg, mode, spec)
}

/// The current mode.
pub fn mode() -> Mode {
    config();
    Mode::from_index(i32::from(MODE.load(Ordering::Relaxed))).unwrap_or(Mode::C)
}

/// Sets the mode for every thread.
pub fn set_mode(mode: Mode) {
    config();
    MODE.store(mode as u8, Ordering::Relaxed);
}

/// The current speculative-contact mode.
pub fn speculative() -> SpeculativeMode {
    config();
    speculative_of_code(SPECULATIVE.load(Ordering::Relaxed))
}

/// The speculative-contact mode for a model that does (`asks_robust`) or does not ask for robust
/// mode itself (custom numeric `specula_robust`): the chosen mode if one was chosen, else the
/// model's request, else compat.
pub fn speculative_for(asks_robust: bool) -> SpeculativeMode {
    config();
    if SPECULATIVE_CHOSEN.load(Ordering::Relaxed) || !asks_robust {
        speculative()
    } else {
        SpeculativeMode::Robust
    }
}

/// Sets the speculative-contact mode (`Robust` applies in `rust` mode).
pub fn set_speculative(s: SpeculativeMode) {
    config();
    SPECULATIVE.store(speculative_code(s), Ordering::Relaxed);
    SPECULATIVE_CHOSEN.store(true, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)]) -> (Config, Mode, SpeculativeMode) {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        read_env(&|k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.into()))
    }

    #[test]
    fn values_that_are_not_utf8_are_invalid_values() {
        use std::os::unix::ffi::OsStringExt;
        let bad = || std::ffi::OsString::from_vec(vec![b'r', 0xff, b's']);
        let (cfg, mode, _) = read_env(&|k| (k == "SPECULA_COLLISION").then(bad));
        assert_eq!((mode, cfg.problems.len()), (Mode::C, 1), "{:?}", cfg.problems);
        assert!(cfg.problems[0].starts_with("SPECULA_COLLISION=\"r\u{fffd}s\" is not one of"), "{:?}", cfg.problems);
        let (cfg, _, _) = read_env(&|k| (k == "SPECULA_REPORT").then(bad));
        assert_eq!((cfg.report, cfg.problems.len()), (None, 1), "{:?}", cfg.problems);
        assert!(cfg.problems[0].contains("not a UTF-8 path"), "{:?}", cfg.problems);
    }

    #[test]
    fn environment_is_parsed_and_invalid_values_select_c() {
        let (cfg, mode, spec) = parse(&[]);
        assert_eq!((mode, spec, cfg.problems.len()), (Mode::C, SpeculativeMode::Compat, 0));
        let (cfg, mode, spec) = parse(&[("SPECULA_COLLISION", "diff"), ("SPECULA_SPECULATIVE", "robust")]);
        assert_eq!((mode, spec, cfg.problems.len()), (Mode::Diff, SpeculativeMode::Robust, 0));
        let (cfg, mode, _) = parse(&[("SPECULA_COLLISION", "fast"), ("SPECULA_REPORT", "/tmp/r.json")]);
        assert_eq!((mode, cfg.problems.len(), cfg.report.as_deref()), (Mode::C, 1, Some("/tmp/r.json")));
        assert!(cfg.problems[0].contains("SPECULA_COLLISION=\"fast\""), "{:?}", cfg.problems);
        let (cfg, mode, _) = parse(&[("SPECULA_COLLISION", "rust"), ("SPECULA_SPECULATIVE", "maybe")]);
        assert_eq!((mode, cfg.problems.len()), (Mode::C, 1));
        let (cfg, _, _) = parse(&[("SPECULA_TEST_BREAK", "1")]);
        assert!(cfg.test_break);
    }

    #[test]
    fn stats_have_the_layout_of_specula_stats_t() {
        // include/specula.h: thirteen uint64_t fields, in the order of `Stats`.
        assert_eq!(std::mem::size_of::<Stats>(), 13 * 8);
        assert_eq!(std::mem::align_of::<Stats>(), 8);
    }

    #[test]
    fn the_environment_is_ignored_in_a_statically_linked_binary() {
        // This test binary links specula statically: whatever SPECULA_COLLISION says, the hook
        // stays in mode c unless the program sets a mode itself.
        assert!(!crate::mj::from_c::running_from_shared_object());
        assert!(!config().from_env);
    }
}
