//! `specula bench --stages`: each Rust dynamics stage against MuJoCo's function of the same
//! name, timed on the same recorded states (the method of the collision bench: restore each
//! state, `mj_forward` it so every input is there, then time both, alternating which goes first
//! from pass to pass; medians of the per-pass totals). Each call is repeated [`REPEATS`] times
//! in a row so that the clock's own cost is small against a stage of a few hundred nanoseconds.

use std::time::Instant;

use crate::mj::stages::{run_once, Stage, StageSet};
use crate::mj::{state, Data, MjError, Model};
use crate::sim::Start;

/// Calls of a stage timed together on one state.
pub const REPEATS: usize = 10;

/// One stage's times per call.
#[derive(Clone, Debug, PartialEq)]
pub struct StageTiming {
    /// The stage.
    pub stage: Stage,
    /// MuJoCo's function, median ns per call.
    pub c_ns: f64,
    /// The Rust stage, median ns per call.
    pub rust_ns: f64,
    /// `rust_ns / c_ns`.
    pub ratio: f64,
    /// States on which the Rust stage was outside its scope (not timed).
    pub skipped: usize,
}

/// Times every stage of `set` on the states of `steps` C-route steps from `start`.
pub fn bench_stages(
    model: &Model,
    start: &Start,
    steps: usize,
    passes: usize,
    set: StageSet,
) -> Result<Vec<StageTiming>, MjError> {
    let states = super::record_states(model, start, steps)?;
    let mut data = Data::new(model)?;
    let stages: Vec<Stage> = set.stages().collect();
    let mut totals = vec![(Vec::new(), Vec::new()); stages.len()];
    let mut skipped = vec![0; stages.len()];
    for pass in 0..passes.max(1) {
        let mut c_ns = vec![0.0; stages.len()];
        let mut rust_ns = vec![0.0; stages.len()];
        for s in &states {
            data.set_state(state::INTEGRATION, s)?;
            data.forward()?;
            for (k, &stage) in stages.iter().enumerate() {
                let (c, rust, inside) = data.with_mj(|m, d| {
                    let mut time = |rust: bool| {
                        let t = Instant::now();
                        let mut inside = true;
                        for _ in 0..REPEATS {
                            inside &= run_once(stage, m, d, rust);
                        }
                        (t.elapsed().as_nanos() as f64, inside)
                    };
                    if pass % 2 == 0 {
                        let c = time(false).0;
                        let (r, inside) = time(true);
                        (c, r, inside)
                    } else {
                        let (r, inside) = time(true);
                        (time(false).0, r, inside)
                    }
                })?;
                if inside {
                    c_ns[k] += c;
                    rust_ns[k] += rust;
                } else if pass == 0 {
                    skipped[k] += 1;
                }
            }
        }
        for (k, t) in totals.iter_mut().enumerate() {
            t.0.push(c_ns[k]);
            t.1.push(rust_ns[k]);
        }
    }
    Ok(stages
        .iter()
        .zip(totals)
        .zip(skipped)
        .map(|((&stage, (c, r)), skipped)| {
            let calls = ((states.len() - skipped) * REPEATS).max(1) as f64;
            let (c_ns, rust_ns) = (median(c) / calls, median(r) / calls);
            StageTiming { stage, c_ns, rust_ns, ratio: rust_ns / c_ns, skipped }
        })
        .collect())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
