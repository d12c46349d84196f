//! `specula bench --stages`: each Rust dynamics stage against MuJoCo's function of the same
//! name, timed on the same recorded states (the method of the collision bench: restore each
//! state, `mj_forward` it so every input is there, then time both, alternating which goes first
//! from pass to pass). Each call is repeated [`REPEATS`] times in a row so that the clock's own
//! cost is small against a stage of a few hundred nanoseconds. A stage's time is the sum over
//! the states of each state's median over the passes: on a machine shared with other work, the
//! process is taken off the core for whole scheduler ticks (4 ms, more than a pass of a small
//! stage), and a median of per-pass totals let the ticks of several passes through (a stage
//! 2 to 9 times slower in one run than the next, on either side); per state, a tick falls in one
//! pass of that state and the median drops it.

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
    let passes = passes.max(1);
    // per stage and state: the time of each pass, C and Rust (NaN: outside the Rust stage's scope)
    let mut times = vec![vec![(Vec::with_capacity(passes), Vec::with_capacity(passes)); states.len()]; stages.len()];
    for pass in 0..passes {
        for (i, s) in states.iter().enumerate() {
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
                let t = &mut times[k][i];
                t.0.push(c);
                t.1.push(if inside { rust } else { f64::NAN });
            }
        }
    }
    Ok(stages
        .iter()
        .zip(times)
        .map(|(&stage, per_state)| {
            let (mut c_ns, mut rust_ns, mut skipped) = (0.0, 0.0, 0);
            for (c, r) in per_state {
                if r.iter().any(|t| t.is_nan()) {
                    skipped += 1;
                } else {
                    c_ns += median(c);
                    rust_ns += median(r);
                }
            }
            let calls = ((states.len() - skipped) * REPEATS).max(1) as f64;
            let (c_ns, rust_ns) = (c_ns / calls, rust_ns / calls);
            StageTiming { stage, c_ns, rust_ns, ratio: rust_ns / c_ns, skipped }
        })
        .collect())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
