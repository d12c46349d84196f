//! One collision call of the drop-in library: pick the mode, run the Rust stage from the
//! per-thread cache, fall back to MuJoCo's collision when needed, compare in diff mode.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use mujoco_sys as sys;
use specula_engine::collision::CollideError;
use specula_engine::contact::Contact;

use super::stats::{self, add, Fallback, COUNTERS};
use super::Mode;
use crate::diff::{compare_contacts, DiffReport, TOL_EXACT, TOL_GJK};
use crate::mj::collision::{call_library, contacts_of};
use crate::mj::from_c::{self, Fingerprint};
use crate::route::{RustStage, StageError};

/// A cached stage for one model on one thread.
struct Entry {
    fingerprint: Fingerprint,
    stage: RustStage,
    /// Whether the model asks for robust mode itself (read once, when the stage is built).
    asks_robust: bool,
    /// The cache's clock at this entry's last use (least recently used goes first).
    used: u64,
}

/// Stages a thread keeps. MuJoCo frees a model without telling `mj_collision` (and
/// `mj_deleteModel` cannot be interposed from here without wrapping MuJoCo's own symbol), so
/// entries of deleted models can only be aged out: a program that loads 50 models 20 times
/// grew RSS linearly (85 to 166 MB in rust mode, 82 to 241 MB robust) with an unbounded cache.
/// A freed model's address is often reused by the next one; the fingerprint (buffer address
/// and sizes) tells them apart. 16 covers the models one thread steps in turn in every program
/// we have seen; a 17th costs a rebuild (about a millisecond on corpus models), not a result.
pub const STAGES_PER_THREAD: usize = 16;

/// The stages of one thread, by model address, with a use clock.
#[derive(Default)]
struct Cache {
    entries: HashMap<usize, Entry>,
    clock: u64,
}

thread_local! {
    /// Stages by model address, for this thread.
    static STAGES: RefCell<Cache> = RefCell::new(Cache::default());
}

/// What the Rust part of a call produced.
enum Outcome {
    /// The Rust stage served the call (rust mode: contacts added to `d`).
    Served,
    /// Diff mode: the Rust contacts, to compare with MuJoCo's.
    Computed(Vec<Contact>, Vec<specula_model::GeomType>),
    /// Not served; MuJoCo's collision must run.
    Fallback(Fallback, String),
}

/// One collision call in `mode` (`None`: the current mode). Never panics: a panic anywhere in
/// specula's part becomes an error fallback to MuJoCo's collision (which resets the outputs
/// first, so whatever was half-done is discarded).
pub fn collide(m: &sys::mjModel, d: &mut sys::mjData, mode: Option<Mode>) {
    if catch_unwind(AssertUnwindSafe(|| collide_unguarded(m, d, mode))).is_err() {
        let _ = catch_unwind(|| stats::fallback(Fallback::Error, "internal error (panic) in specula"));
        add(&COUNTERS.c_calls, 1);
        call_library(m, d);
    }
}

fn collide_unguarded(m: &sys::mjModel, d: &mut sys::mjData, mode: Option<Mode>) {
    let mode = mode.unwrap_or_else(super::mode);
    add(&COUNTERS.calls, 1);
    if mode == Mode::C {
        // The pass-through (also every collision call of the CLI's c route): two counter
        // increments, no clock, so `specula bench` measures MuJoCo and not this hook.
        add(&COUNTERS.c_calls, 1);
        call_library(m, d);
        return;
    }
    let start = Instant::now();
    match mode {
        Mode::C => {}
        Mode::Rust => match guarded(m, d, false) {
            Outcome::Served => add(&COUNTERS.rust_calls, 1),
            Outcome::Fallback(kind, why) => {
                stats::fallback(kind, &why);
                add(&COUNTERS.c_calls, 1);
                call_library(m, d);
            }
            // Not produced in rust mode (the stage adds its contacts itself).
            Outcome::Computed(..) => {}
        },
        Mode::Diff => {
            call_library(m, d);
            add(&COUNTERS.c_calls, 1);
            match guarded(m, d, true) {
                Outcome::Computed(mut rust, types) => {
                    if super::config().test_break {
                        // Test hook (SPECULA_TEST_BREAK=1): a deliberately wrong collider.
                        for c in &mut rust {
                            c.dist += 1e-3;
                        }
                    }
                    compare(d, &rust, &types);
                }
                Outcome::Fallback(kind, why) => {
                    // MuJoCo's contacts are already in place; count what could not be compared.
                    stats::fallback(kind, &why);
                }
                Outcome::Served => {}
            }
        }
    }
    add(&COUNTERS.nanos, start.elapsed().as_nanos() as u64);
}

/// The Rust part of a call, with panics turned into a fallback (and the model's cache entry
/// dropped, since its scratch state is unknown after a panic).
fn guarded(m: &sys::mjModel, d: &mut sys::mjData, diff: bool) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| rust_part(m, d, diff))) {
        Ok(outcome) => outcome,
        Err(_) => {
            let _ = STAGES.try_with(|s| s.try_borrow_mut().map(|mut s| s.entries.remove(&(m as *const _ as usize))));
            Outcome::Fallback(Fallback::Error, "internal error (panic) in the Rust collision stage".into())
        }
    }
}

fn rust_part(m: &sys::mjModel, d: &mut sys::mjData, diff: bool) -> Outcome {
    if m.nflex > 0 {
        return Outcome::Fallback(Fallback::Unsupported, "the model has flexes".into());
    }
    if from_c::contact_filter_installed() {
        return Outcome::Fallback(Fallback::Unsupported, "mjcb_contactfilter is installed".into());
    }
    let key = m as *const sys::mjModel as usize;
    let fingerprint = from_c::fingerprint(m);
    let result = STAGES.try_with(|stages| {
        let Ok(mut cache) = stages.try_borrow_mut() else {
            return Outcome::Fallback(Fallback::Error, "re-entrant collision call".into());
        };
        let t = Instant::now();
        cache.clock += 1;
        let now = cache.clock;
        let fresh = cache.entries.get(&key).is_some_and(|e| e.fingerprint == fingerprint);
        if !fresh {
            let cm = match from_c::collision_model(m) {
                Ok(cm) => cm,
                Err(e) => return Outcome::Fallback(Fallback::Error, e.to_string()),
            };
            add(&COUNTERS.model_builds, 1);
            let stage = RustStage::from_collision_model(cm);
            let entry = Entry { fingerprint, stage, asks_robust: from_c::asks_robust(m), used: now };
            if cache.entries.insert(key, entry).is_some() {
                // a new model at a freed one's address (or the same model resized)
                add(&COUNTERS.stage_evictions, 1);
            }
            while cache.entries.len() > STAGES_PER_THREAD {
                let Some(oldest) = cache.entries.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| *k) else { break };
                cache.entries.remove(&oldest);
                add(&COUNTERS.stage_evictions, 1);
            }
        }
        let Some(entry) = cache.entries.get_mut(&key) else {
            return Outcome::Fallback(Fallback::Error, "stage cache".into());
        };
        entry.used = now;
        if fresh {
            if let Err(e) = from_c::refresh(entry.stage.model_mut(), m) {
                return Outcome::Fallback(Fallback::Error, e.to_string());
            }
        }
        add(&COUNTERS.refresh_nanos, t.elapsed().as_nanos() as u64);
        if let Some(why) = invalid_values(entry.stage.model()) {
            // MuJoCo's own collision on these values is the reference (no contact for a negative
            // size, an error for a 1e308 margin): run it rather than guess its outcome
            return Outcome::Fallback(Fallback::Unsupported, why);
        }
        let robust = super::speculative_for(entry.asks_robust) == super::SpeculativeMode::Robust;
        let stage = &mut entry.stage;
        // Robust mode replaces MuJoCo's behaviour; diff mode compares with it, so it stays compat.
        stage.set_robust(!diff && robust);
        let before = stage.stats.clone();
        let result =
            if diff { stage.compute(m, d).map(|c| c.to_vec()) } else { stage.replace(m, d).map(|()| Vec::new()) };
        add(&COUNTERS.fallback_pairs, stage.stats.fallback_pairs - before.fallback_pairs);
        match result {
            Ok(contacts) if diff => Outcome::Computed(contacts, stage.model().geom_type.clone()),
            Ok(_) => {
                add(&COUNTERS.contacts, stage.stats.contacts - before.contacts);
                Outcome::Served
            }
            Err(e) => {
                let kind = match e {
                    StageError::Collide(CollideError::MissingSpeculativeInput) => Fallback::Speculative,
                    StageError::Collide(CollideError::MissingSleepState) => Fallback::Sleep,
                    _ => Fallback::Error,
                };
                Outcome::Fallback(kind, e.to_string())
            }
        }
    });
    result.unwrap_or_else(|_| Outcome::Fallback(Fallback::Error, "thread is exiting".into()))
}

/// Largest margin or gap the Rust stage takes at its word: margins enter sums and squares in
/// the filters (1e308 overflows to inf there, where MuJoCo 4.0.0 stops with an error), and no
/// scene in metres needs more than MuJoCo's own `mjMAXVAL`.
const MAX_MARGIN: f64 = 1e10;

/// Why the model's current values are outside what the Rust stage reproduces (a program edited
/// them between steps): a negative or non-finite size or bounding radius, a non-finite or huge
/// margin or gap. `None` when they are fine.
fn invalid_values(cm: &specula_engine::collision::model::CollisionModel) -> Option<String> {
    let bad_size = |x: f64| !x.is_finite() || x < 0.0;
    let bad_margin = |x: f64| !x.is_finite() || x.abs() > MAX_MARGIN;
    for g in 0..cm.ngeom() {
        if cm.geom_size[g].iter().any(|&x| bad_size(x)) || bad_size(cm.geom_rbound[g]) {
            return Some(format!("geom {g} has a negative or non-finite size ({:?})", cm.geom_size[g]));
        }
        if bad_margin(cm.geom_margin[g]) || bad_margin(cm.geom_gap[g]) {
            return Some(format!(
                "geom {g} has a non-finite or huge margin or gap ({:e}, {:e})",
                cm.geom_margin[g], cm.geom_gap[g]
            ));
        }
    }
    None
}

/// Compares MuJoCo's contacts (now in `d`) with the Rust stage's; counts a mismatch when any
/// contact is unmatched or differs beyond the diff tolerances.
fn compare(d: &sys::mjData, rust: &[Contact], types: &[specula_model::GeomType]) {
    add(&COUNTERS.diff_calls, 1);
    let c = contacts_of(d);
    let geom_type = |g: i32| usize::try_from(g).ok().and_then(|g| types.get(g).copied());
    let mut rep = DiffReport::default();
    compare_contacts(&c, rust, &geom_type, &mut rep);
    add(&COUNTERS.diff_contacts, rep.contacts);
    let e = &rep.max_err;
    let g = &rep.max_err_gjk;
    let worst = e.dist.max(e.pos).max(e.frame).max(e.params);
    let worst_gjk = g.dist.max(g.pos).max(g.frame).max(g.params);
    if rep.unmatched() > 0 || worst > TOL_EXACT || worst_gjk > TOL_GJK {
        let call = COUNTERS.diff_calls.load(std::sync::atomic::Ordering::Relaxed);
        stats::mismatch(format!(
            "call {call} (time {}): {} MuJoCo contacts, {} specula; missing {}, extra {}; worst error {worst:.3e} \
             (GJK pairs {worst_gjk:.3e}){}",
            d.time,
            c.len(),
            rust.len(),
            rep.missing,
            rep.extra,
            rep.first_problem.map(|p| format!("; {p}")).unwrap_or_default()
        ));
    }
}
