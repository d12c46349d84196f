//! `specula bench --route native`: the native step (the whole [`Native::step`], pure Rust)
//! against MuJoCo C's `mj_step`, timed step by step from the same states.
//!
//! Method: in several passes, each route is reset to the same start and stepped `steps` times,
//! the two routes alternating which goes first from pass to pass, and each step timed on its
//! own. In MuJoCo-compatible mode the native step is MuJoCo's step bit for bit (`specula diff
//! --route native`), so step `k` of either route starts from the same state; the bench checks
//! that the two trajectories end equal and says so. A route's time is the sum over the steps of
//! each step's median over the passes, divided by the steps (the median per step rather than
//! per pass, for the reason given in [`super::stages`]: on a shared machine a scheduler tick
//! falls in one pass of a step and the median drops it). A native step that is refused (a
//! state outside the native subset) ends the timed steps of both routes there, and the report
//! names the step and the reason.

use std::time::Instant;

use specula_native::{Native, NativeError};

use crate::mj::{Data, MjError, Model};
use crate::report::Start;

/// The native step against `mj_step`.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeStepReport {
    /// MuJoCo C's `mj_step`, ns per step (the sum of the per-step medians over the timed steps).
    pub c_ns: f64,
    /// The native step, ns per step.
    pub native_ns: f64,
    /// `native_ns / c_ns`: below 1 means the native step is faster.
    pub ratio: f64,
    /// Steps timed (all those asked for, unless the native route refused one).
    pub steps: usize,
    /// Passes per route.
    pub passes: usize,
    /// Whether both routes ended every pass with the same `qpos`, `qvel` and time, bit for bit.
    pub same_trajectory: bool,
    /// The step (1-based) at which the native route refused the state, and why.
    pub refused: Option<(usize, String)>,
}

/// Why the native bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum NativeBenchError {
    /// MuJoCo failed (loading, resetting or stepping).
    #[error(transparent)]
    Mj(#[from] MjError),
    /// The native route refuses the model, or its start.
    #[error(transparent)]
    Native(#[from] crate::native::Error),
    /// The native route refused the very first step: there is nothing to time.
    #[error("the native route refuses the first step: {0}")]
    FirstStep(NativeError),
}

/// Times `steps` native steps and `steps` `mj_step`s of the same scene (`c` and `native`, two
/// compilations of it set to the same options) from `start`, in `passes` interleaved passes.
pub fn bench_native(
    c: &Model,
    native: &mut Native,
    start: &Start,
    steps: usize,
    passes: usize,
) -> Result<NativeStepReport, NativeBenchError> {
    let mut data = Data::new(c)?;
    let passes = passes.max(1);
    // per step: the time of each pass, C and native
    let mut c_t: Vec<Vec<f64>> = vec![Vec::with_capacity(passes); steps];
    let mut n_t: Vec<Vec<f64>> = vec![Vec::with_capacity(passes); steps];
    // steps the native route takes before a refusal
    let mut timed = steps;
    let mut refused = None;
    let mut same_trajectory = true;
    for pass in 0..passes {
        for route in [pass % 2, 1 - pass % 2] {
            if route == 0 {
                crate::sim::start(&mut data, start)?;
                for t in c_t.iter_mut().take(timed) {
                    let clock = Instant::now();
                    data.step()?;
                    t.push(clock.elapsed().as_nanos() as f64);
                }
            } else {
                crate::native::start(native, start)?;
                for (k, t) in n_t.iter_mut().enumerate().take(timed) {
                    let clock = Instant::now();
                    let r = native.step();
                    t.push(clock.elapsed().as_nanos() as f64);
                    if let Err(e) = r {
                        if k == 0 {
                            return Err(NativeBenchError::FirstStep(e));
                        }
                        refused = Some((k + 1, e.to_string()));
                        timed = k;
                        break;
                    }
                }
            }
        }
        let d = &native.data;
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        same_trajectory &= refused.is_none()
            && bits(&d.qpos) == bits(data.qpos())
            && bits(&d.qvel) == bits(data.qvel())
            && d.time.to_bits() == data.time().to_bits();
    }
    let total = |t: &mut [Vec<f64>]| t.iter_mut().take(timed).map(|s| median(s)).sum::<f64>();
    let n = timed.max(1) as f64;
    let (c_ns, native_ns) = (total(&mut c_t) / n, total(&mut n_t) / n);
    Ok(NativeStepReport { c_ns, native_ns, ratio: native_ns / c_ns, steps: timed, passes, same_trajectory, refused })
}

/// The median of `v` (the upper one of an even count; `v` has at least one entry).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
