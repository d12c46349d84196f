//! `specula bench`: the Rust collision stage against MuJoCo C's `mj_collision`, timed on the same
//! recorded states.
//!
//! Method: step the scene on the C route and record the integration state after every step;
//! then, in several passes, restore each state, recompute its position-stage kinematics, and time
//! one collision call of each stage (alternating which goes first from pass to pass, so cache and
//! frequency effects fall on both alike). Each pass gives a total per stage; the medians over the
//! passes, divided by the number of states, are the reported times per call. Build with
//! `--release` for numbers that mean anything.

pub mod native;
pub mod stages;
pub mod suite;

use std::time::Instant;

use crate::mj::collision::{library_collision, run_library_collision, with_collision};
use crate::mj::{state, Data, MjError, Model};
use crate::route::RustStage;
use crate::sim::{self, Start};

/// Bench results.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Median time of MuJoCo C's `mj_collision`, per call.
    pub c_ns: f64,
    /// Median time of the Rust stage (reset, collide, hand over contacts), per call.
    pub rust_ns: f64,
    /// rust_ns / c_ns: below 1 means the Rust stage is faster.
    pub ratio: f64,
    /// Number of recorded states.
    pub states: usize,
    /// Passes over all states.
    pub passes: usize,
}

/// The integration state after each of `steps` C-route steps from `start`.
pub fn record_states(model: &Model, start: &Start, steps: usize) -> Result<Vec<Vec<f64>>, MjError> {
    let mut data = Data::new(model)?;
    sim::start(&mut data, start)?;
    let mut states = Vec::with_capacity(steps);
    for _ in 0..steps {
        data.step()?;
        states.push(data.state(state::INTEGRATION));
    }
    Ok(states)
}

/// Records `steps` states of the C route from `start` and times both stages on them (the Rust
/// stage in robust mode when `robust`; the states are always the C route's).
pub fn bench(
    model: &Model,
    rust: &specula_model::Model,
    steps: usize,
    start: &Start,
    passes: usize,
    robust: bool,
) -> Result<BenchReport, MjError> {
    if library_collision().is_none() {
        return Err(MjError::Invalid("libmujoco is not loaded".into()));
    }
    let states = record_states(model, start, steps)?;
    let mut data = Data::new(model)?;
    let mut stage = RustStage::new(rust);
    stage.set_robust(robust);
    let passes = passes.max(1);
    let (mut c_tot, mut r_tot) = (Vec::with_capacity(passes), Vec::with_capacity(passes));
    let mut error = None;
    for pass in 0..passes {
        let (mut c_ns, mut r_ns) = (0u128, 0u128);
        for s in &states {
            data.set_state(state::INTEGRATION, s)?;
            data.position_kinematics()?;
            let mut time_c = |data: &mut Data| -> Result<(), MjError> {
                let t = Instant::now();
                data.with_mj(run_library_collision)?;
                c_ns += t.elapsed().as_nanos();
                Ok(())
            };
            let mut time_r = |data: &mut Data| -> Result<(), MjError> {
                let t = Instant::now();
                let r = data.with_mj(|m, d| stage.replace(m, d))?;
                r_ns += t.elapsed().as_nanos();
                if let Err(e) = r {
                    error.get_or_insert(e);
                }
                Ok(())
            };
            if pass % 2 == 0 {
                time_c(&mut data)?;
                time_r(&mut data)?;
            } else {
                time_r(&mut data)?;
                time_c(&mut data)?;
            }
        }
        c_tot.push(c_ns as f64);
        r_tot.push(r_ns as f64);
    }
    if let Some(e) = error {
        return Err(MjError::Invalid(format!("rust collision stage: {e}")));
    }
    let n = states.len().max(1) as f64;
    let (c_ns, rust_ns) = (median(&mut c_tot) / n, median(&mut r_tot) / n);
    Ok(BenchReport { c_ns, rust_ns, ratio: rust_ns / c_ns, states: states.len(), passes })
}

/// Whole-step timing of both routes.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// Median time of a step on the C route (MuJoCo's `mj_step` as it is).
    pub c_ns: f64,
    /// Median time of a step on the rust route (the same `mj_step`, specula's collision stage).
    pub rust_ns: f64,
    /// rust_ns / c_ns.
    pub ratio: f64,
    /// Steps per pass.
    pub steps: usize,
    /// Passes per route.
    pub passes: usize,
}

/// Times `steps` whole steps from `start` on the C route and on the rust route, in `passes`
/// interleaved passes (alternating which route goes first), and reports the medians per step.
pub fn bench_step(
    model: &Model,
    rust: &specula_model::Model,
    steps: usize,
    start: &Start,
    passes: usize,
) -> Result<StepReport, MjError> {
    if library_collision().is_none() {
        return Err(MjError::Invalid("libmujoco is not loaded".into()));
    }
    let mut data = Data::new(model)?;
    let mut stage = RustStage::new(rust);
    let passes = passes.max(1);
    let (mut c_tot, mut r_tot) = (Vec::with_capacity(passes), Vec::with_capacity(passes));
    let mut error = None;
    for pass in 0..passes {
        for route in [pass % 2, 1 - pass % 2] {
            sim::start(&mut data, start)?;
            let t = Instant::now();
            if route == 0 {
                for _ in 0..steps {
                    data.step()?;
                }
                c_tot.push(t.elapsed().as_nanos() as f64);
            } else {
                let mut replace =
                    |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| stage.replace_or_library(m, d, &mut error);
                let (r, _) = with_collision(model.raw(), &mut replace, || (0..steps).try_for_each(|_| data.step()));
                r?;
                r_tot.push(t.elapsed().as_nanos() as f64);
            }
        }
    }
    if let Some(e) = error {
        return Err(MjError::Invalid(format!("rust collision stage: {e}")));
    }
    let n = steps.max(1) as f64;
    let (c_ns, rust_ns) = (median(&mut c_tot) / n, median(&mut r_tot) / n);
    Ok(StepReport { c_ns, rust_ns, ratio: rust_ns / c_ns, steps, passes })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len() / 2;
    if v.len() % 2 == 1 {
        v[k]
    } else {
        0.5 * (v[k - 1] + v[k])
    }
}
