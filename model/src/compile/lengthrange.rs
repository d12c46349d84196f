//! The `<compiler><lengthrange>` options (MuJoCo's `mjLROpt`): which actuators get their length
//! range computed at compile time, and the parameters of the simulation that finds it. The
//! simulation itself needs a step, so it is not in this crate: the native crate runs it
//! (`specula_native::lengthrange`).

use super::attrs::{boolean, keyword, num, Res};
use crate::xml::Element;

/// `mjtLRMode`: which actuators the length-range computation processes.
pub mod mode {
    /// None.
    pub const NONE: i32 = 0;
    /// Muscles (gain or bias of muscle type).
    pub const MUSCLE: i32 = 1;
    /// Muscles and user-typed actuators.
    pub const MUSCLEUSER: i32 = 2;
    /// Every actuator.
    pub const ALL: i32 = 3;
}

/// MuJoCo's `mjLROpt`.
#[derive(Clone, Debug, PartialEq)]
pub struct LengthRangeOpt {
    /// Which actuators to process (`mjtLRMode`).
    pub mode: i32,
    /// Keep a given length range (`lengthrange[0] < lengthrange[1]`).
    pub useexisting: bool,
    /// Take the range of a limited joint or tendon instead of simulating.
    pub uselimit: bool,
    /// Target acceleration the applied force produces.
    pub accel: f64,
    /// Largest applied force, 0 for no limit.
    pub maxforce: f64,
    /// Time constant of the velocity damping (at least 0.01).
    pub timeconst: f64,
    /// Simulation timestep, 0 for the model's.
    pub timestep: f64,
    /// Simulated time.
    pub inttotal: f64,
    /// Time at the end over which the extreme lengths are taken.
    pub interval: f64,
    /// Largest spread of the lengths over that interval, relative to the range.
    pub tolrange: f64,
}

impl Default for LengthRangeOpt {
    /// `mj_defaultLROpt` (read from 4.0.0's binary).
    fn default() -> Self {
        LengthRangeOpt {
            mode: mode::MUSCLE,
            useexisting: true,
            uselimit: false,
            accel: 20.0,
            maxforce: 0.0,
            timeconst: 1.0,
            timestep: 0.01,
            inttotal: 10.0,
            interval: 2.0,
            tolrange: 0.05,
        }
    }
}

/// Reads a `lengthrange` element (child of `compiler`) on top of `o`.
pub fn read_lengthrange(el: &Element, o: &mut LengthRangeOpt) -> Res<()> {
    let modes = [("none", mode::NONE), ("muscle", mode::MUSCLE), ("muscleuser", mode::MUSCLEUSER), ("all", mode::ALL)];
    if let Some(m) = keyword(el, "mode", &modes)? {
        o.mode = m;
    }
    boolean(el, "useexisting", &mut o.useexisting)?;
    boolean(el, "uselimit", &mut o.uselimit)?;
    num(el, "accel", &mut o.accel)?;
    num(el, "maxforce", &mut o.maxforce)?;
    num(el, "timeconst", &mut o.timeconst)?;
    num(el, "timestep", &mut o.timestep)?;
    num(el, "inttotal", &mut o.inttotal)?;
    num(el, "interval", &mut o.interval)?;
    num(el, "tolrange", &mut o.tolrange)?;
    Ok(())
}
