//! Process-wide counters of the drop-in library and its JSON report.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Why a call went to MuJoCo's collision instead of the Rust stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// Speculative contacts are enabled and the engine's driver refused them.
    Speculative,
    /// Sleep is enabled and the engine's driver refused it.
    Sleep,
    /// Flexes or a contact-filter callback.
    Unsupported,
    /// A malformed model or state, or a panic.
    Error,
}

/// Counters since the library was loaded; the layout of `specula_stats_t` in specula.h.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Collision calls that reached specula (any mode).
    pub calls: u64,
    /// Calls whose contacts came from the Rust stage.
    pub rust_calls: u64,
    /// Calls served by MuJoCo's collision (mode c, diff, or a fallback).
    pub c_calls: u64,
    /// Calls the Rust stage could not serve.
    pub fallback_calls: u64,
    /// Fallbacks because of speculative contacts.
    pub fallback_speculative: u64,
    /// Fallbacks because of sleep.
    pub fallback_sleep: u64,
    /// Fallbacks because of flexes or a contact-filter callback.
    pub fallback_unsupported: u64,
    /// Fallbacks because of a malformed model/state or an internal error.
    pub fallback_error: u64,
    /// Geom pairs computed by MuJoCo's pair function inside Rust calls.
    pub fallback_pairs: u64,
    /// Contacts handed to MuJoCo by the Rust stage.
    pub contacts: u64,
    /// Calls compared in diff mode.
    pub diff_calls: u64,
    /// Diff calls whose contact lists disagreed.
    pub mismatches: u64,
    /// Wall time of the calls made in modes rust and diff (MuJoCo's part of diff included), nanoseconds.
    pub nanos: u64,
}

/// The live counters: one atomic per field of [`Stats`] (the four fallback kinds indexed by
/// [`Fallback`]), plus matched contacts of diff calls, time spent reading the model and the
/// number of collision models built.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) calls: AtomicU64,
    pub(crate) rust_calls: AtomicU64,
    pub(crate) c_calls: AtomicU64,
    pub(crate) fallback: [AtomicU64; 4],
    pub(crate) fallback_pairs: AtomicU64,
    pub(crate) contacts: AtomicU64,
    pub(crate) diff_calls: AtomicU64,
    pub(crate) mismatches: AtomicU64,
    pub(crate) diff_contacts: AtomicU64,
    pub(crate) nanos: AtomicU64,
    pub(crate) refresh_nanos: AtomicU64,
    pub(crate) model_builds: AtomicU64,
    pub(crate) stage_evictions: AtomicU64,
}

pub(crate) static COUNTERS: Counters = Counters {
    calls: AtomicU64::new(0),
    rust_calls: AtomicU64::new(0),
    c_calls: AtomicU64::new(0),
    fallback: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
    fallback_pairs: AtomicU64::new(0),
    contacts: AtomicU64::new(0),
    diff_calls: AtomicU64::new(0),
    mismatches: AtomicU64::new(0),
    diff_contacts: AtomicU64::new(0),
    nanos: AtomicU64::new(0),
    refresh_nanos: AtomicU64::new(0),
    model_builds: AtomicU64::new(0),
    stage_evictions: AtomicU64::new(0),
};

/// How many mismatch descriptions and fallback reasons the report keeps.
const MAX_NOTES: usize = 20;

/// First mismatches (diff mode) and first fallback reasons, in words.
static NOTES: Mutex<(Vec<String>, Vec<String>)> = Mutex::new((Vec::new(), Vec::new()));

/// Adds `n` to a counter.
pub(crate) fn add(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

/// Counts a fallback and remembers its reason (the first few).
pub(crate) fn fallback(kind: Fallback, why: &str) {
    add(&COUNTERS.fallback[kind as usize], 1);
    if let Ok(mut notes) = NOTES.lock() {
        if notes.1.len() < MAX_NOTES && !notes.1.iter().any(|n| n == why) {
            notes.1.push(why.to_string());
        }
    }
}

/// Counts a mismatching diff call and keeps its description (the first few).
pub(crate) fn mismatch(what: String) {
    add(&COUNTERS.mismatches, 1);
    if let Ok(mut notes) = NOTES.lock() {
        if notes.0.len() < MAX_NOTES {
            notes.0.push(what);
        }
    }
}

/// The counters now.
pub fn snapshot() -> Stats {
    let c = &COUNTERS;
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let fb: Vec<u64> = c.fallback.iter().map(get).collect();
    Stats {
        calls: get(&c.calls),
        rust_calls: get(&c.rust_calls),
        c_calls: get(&c.c_calls),
        fallback_calls: fb.iter().sum(),
        fallback_speculative: fb[Fallback::Speculative as usize],
        fallback_sleep: fb[Fallback::Sleep as usize],
        fallback_unsupported: fb[Fallback::Unsupported as usize],
        fallback_error: fb[Fallback::Error as usize],
        fallback_pairs: get(&c.fallback_pairs),
        contacts: get(&c.contacts),
        diff_calls: get(&c.diff_calls),
        mismatches: get(&c.mismatches),
        nanos: get(&c.nanos),
    }
}

/// The report as JSON.
pub fn report_json() -> serde_json::Value {
    let s = snapshot();
    let cfg = super::config();
    let spec = super::speculative();
    let (mismatches, reasons) = NOTES.lock().map(|n| n.clone()).unwrap_or_default();
    let secs = |n: u64| n as f64 * 1e-9;
    serde_json::json!({
        "mode": super::mode().name(),
        "speculative": spec.name(),
        "speculative_note": match spec {
            super::SpeculativeMode::Robust => "specula's robust mode (rust mode only; diff mode compares MuJoCo-compatible contacts)",
            super::SpeculativeMode::Compat => "as MuJoCo 4.0.0",
            // not a drop-in setting (the model's flag is): never stored
            super::SpeculativeMode::Off => "off",
        },
        "configured_by_environment": cfg.from_env,
        "environment_problems": cfg.problems,
        "test_break": cfg.test_break,
        "calls": s.calls,
        "rust_calls": s.rust_calls,
        "c_calls": s.c_calls,
        "fallback_calls": s.fallback_calls,
        "fallbacks": {
            "speculative": s.fallback_speculative,
            "sleep": s.fallback_sleep,
            "unsupported": s.fallback_unsupported,
            "error": s.fallback_error,
        },
        "fallback_reasons": reasons,
        "fallback_pairs": s.fallback_pairs,
        "contacts": s.contacts,
        "diff_calls": s.diff_calls,
        "mismatches": s.mismatches,
        "diff_contacts": COUNTERS.diff_contacts.load(Ordering::Relaxed),
        "mismatch_examples": mismatches,
        "model_builds": COUNTERS.model_builds.load(Ordering::Relaxed),
        "stage_evictions": COUNTERS.stage_evictions.load(Ordering::Relaxed),
        "stages_per_thread": super::run::STAGES_PER_THREAD,
        "stages": stages_json(),
        "seconds": secs(s.nanos),
        "seconds_reading_model": secs(COUNTERS.refresh_nanos.load(Ordering::Relaxed)),
    })
}

/// The dynamics stages `SPECULA_STAGES` selected and how their calls went.
fn stages_json() -> serde_json::Value {
    use crate::mj::stages::{environment_counts, reasons_json};
    let (set, counts) = environment_counts();
    let per_stage: serde_json::Map<String, serde_json::Value> = set
        .stages()
        .map(|st| {
            let i = st.index();
            let why = reasons_json(&counts.why[i]);
            (
                st.name().to_string(),
                serde_json::json!({"rust": counts.rust[i], "fallback": counts.fallback[i], "why": why}),
            )
        })
        .collect();
    serde_json::json!({"selected": set.to_string(), "calls": per_stage})
}

/// Writes the report to `path`.
pub fn write_report(path: &str) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(&report_json()).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}

/// The `atexit` handler: writes `SPECULA_REPORT`; never unwinds.
pub(crate) extern "C" fn report_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(path) = &super::config().report {
            if let Err(e) = write_report(path) {
                eprintln!("specula: cannot write the report {path}: {e}");
            }
        }
    });
}
