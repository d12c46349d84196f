//! The compiler's actuator length ranges (MuJoCo's `mjCModel::LengthRange` and
//! `mj_setLengthRange`, `docs/measurements.md` D65): for each actuator the `<compiler>
//! <lengthrange>` mode selects (muscles by default) and that has no range of its own, the range
//! of a limited joint or tendon when `uselimit` is set, else the extreme lengths reached by two
//! simulations that pull the actuator one way and then the other with a force of constant
//! acceleration, velocities damped, contacts, gravity, springs, dampers, friction loss and
//! actuation off.
//!
//! The simulation is the native step ([`crate::step`]) on a copy of the model with those
//! options, so it runs where the native route runs (a model outside it is refused by name). It
//! lives in this crate, not in the compiler's (`specula_model`), because it needs the step;
//! [`crate::Native::new`] and the root crate's `check` call [`set_length_ranges`].

use specula_engine::dynamics::reference::dot;
use specula_engine::dynamics::solve_ld;
use specula_model::compile::lengthrange::{mode, LengthRangeOpt};
use specula_model::types::Integrator;
use specula_model::Model;
use thiserror::Error;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::{NativeError, DSBL_CONTACT, DSBL_DAMPER, DSBL_FRICTIONLOSS, DSBL_GRAVITY, DSBL_SPRING};

/// `mjMINVAL`.
const MINVAL: f64 = 1e-15;
/// `mjDSBL_ACTUATION`.
const DSBL_ACTUATION: u32 = 1 << 11;
/// `mjGAIN_MUSCLE` / `mjBIAS_MUSCLE`.
const MUSCLE: i32 = 2;
/// `mjGAIN_USER`.
const GAIN_USER: i32 = 6;
/// `mjBIAS_USER`.
const BIAS_USER: i32 = 5;

/// Why a length range could not be computed (MuJoCo's compile errors, worded and formatted as
/// MuJoCo's, and the native route's refusal).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LengthRangeError {
    /// The simulation went back to time 0 (MuJoCo resets the data of a diverged step).
    #[error("Unstable lengthrange simulation in actuator {0}")]
    Unstable(usize),
    /// The range found is empty or reversed.
    #[error("Invalid lengthrange ({}, {}) in actuator {actuator}", g(*lo), g(*hi))]
    Invalid {
        /// Actuator index.
        actuator: usize,
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// The length still moved by more than `tolrange` of the range over the last interval of
    /// side `side` (MuJoCo indents the range line of side 1 by one space only).
    #[error(
        "Lengthrange computation did not converge in actuator {actuator}:\n  eval ({}, {})\n{}range ({}, {})",
        g(*lo), g(*hi), if *side == 0 { "  " } else { " " }, g(*rlo), g(*rhi)
    )]
    NotConverged {
        /// Actuator index.
        actuator: usize,
        /// The side (0: pulled shorter, 1: longer).
        side: usize,
        /// Smallest length over the interval.
        lo: f64,
        /// Largest length over the interval.
        hi: f64,
        /// Lower end of the range.
        rlo: f64,
        /// Upper end of the range.
        rhi: f64,
    },
    /// The native route cannot run the simulation for this model.
    #[error("the lengthrange simulation needs the native route: {0}")]
    Native(#[from] NativeError),
}

/// `x` as C's `%g`: six significant digits, trailing zeros dropped, exponent form below 1e-4
/// and from 1e6.
fn g(x: f64) -> String {
    if !x.is_finite() {
        let s = if x.is_nan() { "nan" } else { "inf" };
        return if x.is_sign_negative() { format!("-{s}") } else { s.to_string() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{x:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        trim(&format!("{x:.*}", (5 - exp) as usize))
    }
}

/// Whether the options select actuator `i` for the computation (mode and `useexisting`).
fn selected(m: &Model, o: &LengthRangeOpt, i: usize) -> bool {
    let (g, b) = (m.actuator_gaintype[i], m.actuator_biastype[i]);
    let muscle = g == MUSCLE || b == MUSCLE;
    let user = g == GAIN_USER || b == BIAS_USER;
    let wanted = match o.mode {
        mode::NONE => false,
        mode::MUSCLE => muscle,
        mode::MUSCLEUSER => muscle || user,
        _ => true,
    };
    let r = m.actuator_lengthrange[i];
    wanted && !(o.useexisting && r[0] < r[1])
}

/// Computes the length range of every actuator `m.lropt` selects, in place, after the damping
/// ratios ([`set_dampratio`]). A model whose actuators were not compiled
/// (`actuator_unsupported`) is left alone.
pub fn set_length_ranges(m: &mut Model) -> Result<(), LengthRangeError> {
    if m.actuator_unsupported.is_some() || m.actuator_trntype.len() != m.nactuator {
        return Ok(());
    }
    set_dampratio(m);
    let o = m.lropt.clone();
    let todo: Vec<usize> = (0..m.nactuator).filter(|&i| selected(m, &o, i)).collect();
    if todo.is_empty() {
        return Ok(());
    }
    let mut sim: Option<NativeModel> = None;
    for i in todo {
        let target = m.actuator_trnid[i][0] as usize;
        // joint (0, 1) and tendon (3) transmissions may take the limits of their target
        if o.uselimit {
            let limit = match m.actuator_trntype[i] {
                0 | 1 if m.jnt_limited[target] => Some(m.jnt_range[target]),
                3 if m.tendon_limited[target] => Some(m.tendon_range[target]),
                _ => None,
            };
            if let Some(r) = limit {
                m.actuator_lengthrange[i] = r;
                continue;
            }
        }
        if sim.is_none() {
            sim = Some(simulation_model(m, &o)?);
        }
        let nm = sim.as_ref().expect("set above");
        m.actuator_lengthrange[i] = simulate(nm, &o, i)?;
    }
    Ok(())
}

/// The model the simulations run on: MuJoCo's options for them (only the constraint-side flags
/// of the model kept, the timestep from the options when positive; RK4, which `mj_step2` does
/// not run, replaced by its Euler step).
fn simulation_model(m: &Model, o: &LengthRangeOpt) -> Result<NativeModel, NativeError> {
    let mut sm = m.clone();
    sm.opt.disableflags = DSBL_FRICTIONLOSS | DSBL_CONTACT | DSBL_SPRING | DSBL_DAMPER | DSBL_GRAVITY | DSBL_ACTUATION;
    if o.timestep > 0.0 {
        sm.opt.timestep = o.timestep;
    }
    if sm.opt.integrator == Integrator::Rk4 {
        sm.opt.integrator = Integrator::Euler;
    }
    inert_actuators(&mut sm);
    drop_sensors(&mut sm);
    crate::scope::check(&sm)?;
    Ok(NativeModel::new(sm))
}

/// Makes every actuator of `sm` a stateless one-control motor on its transmission. With
/// actuation off, MuJoCo's step leaves the actuators out of the forces: their activations and
/// controls never reach the positions the simulation measures, and only the transmissions (the
/// lengths and moments `eval` reads) matter, so DC motors, PID controllers and multi-input
/// actuators beside the one measured need no dynamics of their own here.
fn inert_actuators(sm: &mut Model) {
    let n = sm.nactuator;
    sm.actuator_dyntype = vec![0; n];
    sm.actuator_gaintype = vec![0; n];
    sm.actuator_biastype = vec![0; n];
    sm.actuator_actadr = vec![-1; n];
    sm.actuator_actnum = vec![0; n];
    sm.actuator_ctrladr = (0..n as i32).collect();
    sm.actuator_ctrlnum = vec![1; n];
    sm.actuator_ctrlspec = vec![0; n];
    sm.actuator_ctrlrange = vec![[0.0; 2]; n];
    sm.actuator_ctrllimited = vec![false; n];
    sm.actuator_actlimited = vec![false; n];
    sm.actuator_actearly = vec![false; n];
    sm.na = 0;
    sm.nu = n;
    sm.key_act = Vec::new();
    sm.key_ctrl = vec![0.0; sm.nkey * n];
}

/// Removes every sensor of `sm` (M18): sensor values never reach the positions the simulations
/// measure, so a sensor the native step does not cover (history buffers, energy, ...) must not
/// keep MuJoCo's verdict on the ranges from being reproduced.
fn drop_sensors(sm: &mut Model) {
    sm.nsensor = 0;
    sm.nsensordata = 0;
    sm.sensor_unsupported = None;
    sm.sensor_type.clear();
    sm.sensor_datatype.clear();
    sm.sensor_needstage.clear();
    sm.sensor_objtype.clear();
    sm.sensor_objid.clear();
    sm.sensor_reftype.clear();
    sm.sensor_refid.clear();
    sm.sensor_intprm.clear();
    sm.sensor_dim.clear();
    sm.sensor_adr.clear();
    sm.sensor_cutoff.clear();
    sm.sensor_noise.clear();
    sm.sensor_user.clear();
    sm.sensor_names.clear();
}

/// The two simulations of actuator `i`: `[lo, hi]`, checked for size and convergence.
fn simulate(nm: &NativeModel, o: &LengthRangeOpt, i: usize) -> Result<[f64; 2], LengthRangeError> {
    let mut range = [0.0; 2];
    let mut spread = [[0.0; 2]; 2];
    for side in 0..2 {
        let mut d = Data::new(nm);
        let (mut lo, mut hi, mut updated) = (0.0, 0.0, false);
        while o.inttotal > d.time {
            let len = eval(nm, &mut d, o, i, side)?;
            #[allow(clippy::float_cmp)]
            if d.time == 0.0 {
                return Err(LengthRangeError::Unstable(i));
            }
            if d.time > o.inttotal - o.interval {
                lo = if len < lo {
                    len
                } else if updated {
                    lo
                } else {
                    len
                };
                hi = if hi < len {
                    len
                } else if updated {
                    hi
                } else {
                    len
                };
                updated = true;
            }
        }
        range[side] = if side == 0 { lo } else { hi };
        spread[side] = [lo, hi];
    }
    let dif = range[1] - range[0];
    if 0.0 >= dif {
        return Err(LengthRangeError::Invalid { actuator: i, lo: range[0], hi: range[1] });
    }
    for (side, [lo, hi]) in spread.into_iter().enumerate() {
        if hi - lo > o.tolrange * dif {
            return Err(LengthRangeError::NotConverged { actuator: i, side, lo, hi, rlo: range[0], rhi: range[1] });
        }
    }
    Ok(range)
}

/// One step of a simulation (`evalAct`): damps the velocities, sets `qfrc_applied` along the
/// actuator's moment to give acceleration `accel` (towards shorter lengths on side 0), capped
/// at `maxforce`, steps, and returns the actuator length before the step.
fn eval(nm: &NativeModel, d: &mut Data, o: &LengthRangeOpt, i: usize, side: usize) -> Result<f64, NativeError> {
    let nv = nm.model.nv;
    let decay = (-nm.model.opt.timestep / if 0.01 > o.timeconst { 0.01 } else { o.timeconst }).exp();
    for v in &mut d.qvel {
        *v *= decay;
    }
    // the position stage up to the actuator moments (mj_step1 ends later; nothing below reads
    // what it computes beyond these)
    crate::step::forward(nm, d)?;
    let ad = &d.actuation;
    let out = i;
    let mut moment = vec![0.0; nv];
    let adr = ad.moment_rowadr[out] as usize;
    for j in adr..adr + ad.moment_rownnz[out] as usize {
        moment[ad.moment_colind[j] as usize] = ad.actuator_moment[j];
    }
    let len = ad.actuator_length[out];
    let f = &mut d.qfrc_applied;
    f.copy_from_slice(&moment);
    let l = &nm.layout.m;
    solve_ld(f, &d.qld, &d.qld_diag_inv, &l.rownnz, &l.rowadr, &l.colind);
    let nrm = dot(f, f).sqrt();
    let accel = if side == 0 { -o.accel } else { o.accel };
    let s = accel / if MINVAL > nrm { MINVAL } else { nrm };
    for (x, &mv) in f.iter_mut().zip(&moment) {
        *x = s * mv;
    }
    let nrm = dot(f, f).sqrt();
    if o.maxforce > 0.0 && nrm > o.maxforce {
        let s = o.maxforce / if MINVAL > nrm { MINVAL } else { nrm };
        for x in f.iter_mut() {
            *x *= s;
        }
    }
    crate::step::step(nm, d)?;
    Ok(len)
}

/// `actuator_acc0` of `mj_setConst`: the norm of `M^-1` times each actuator's moment at the
/// pose of `d` (`solve` applies `M^-1` with the factor at that pose, no contacts); zeros when a
/// transmission is outside `mj_transmission`'s subset.
pub(crate) fn actuator_acc0(nm: &NativeModel, d: &Data, solve: &dyn Fn(&mut [f64])) -> Vec<f64> {
    let n = nm.model.nactuator;
    let Some(ad) = (n > 0).then(|| crate::actuation::transmission_at(nm, d)).flatten() else {
        return vec![0.0; n];
    };
    (0..ad.actuator_length.len())
        .map(|k| {
            let mut x = vec![0.0; nm.model.nv];
            let adr = ad.moment_rowadr[k] as usize;
            for j in adr..adr + ad.moment_rownnz[k] as usize {
                x[ad.moment_colind[j] as usize] = ad.actuator_moment[j];
            }
            solve(&mut x);
            dot(&x, &x).sqrt()
        })
        .collect()
}

/// `moment M^-1 moment` of each actuator at the pose of `d`, averaged over its outputs (the
/// inverse mass `mj_setCompiledConst` converts a damping ratio with); zeros when a
/// transmission is outside `mj_transmission`'s subset.
pub(crate) fn actuator_invmass(nm: &NativeModel, d: &Data, solve: &dyn Fn(&mut [f64])) -> Vec<f64> {
    let n = nm.model.nactuator;
    let Some(ad) = (n > 0).then(|| crate::actuation::transmission_at(nm, d)).flatten() else {
        return vec![0.0; n];
    };
    (0..n)
        .map(|i| {
            let (adr, num) = (nm.model.actuator_outadr[i] as usize, nm.model.actuator_outnum[i]);
            let mut sum = 0.0;
            for k in adr..adr + num.max(0) as usize {
                let mut moment = vec![0.0; nm.model.nv];
                let r = ad.moment_rowadr[k] as usize;
                for j in r..r + ad.moment_rownnz[k] as usize {
                    moment[ad.moment_colind[j] as usize] = ad.actuator_moment[j];
                }
                let mut x = moment.clone();
                solve(&mut x);
                sum += dot(&moment, &x);
            }
            sum / f64::from(num)
        })
        .collect()
}

/// `mjGAIN_PID`.
const GAIN_PID: i32 = 5;

/// Converts the damping ratio of every position-like servo (`gainprm[0] = -biasprm[1]`) and
/// PID (stiffness `-biasprm[1]`) with a positive `biasprm[2]` into the damping
/// `-2 ratio sqrt(kp mass)` (stored negated, as a `kv`), the mass the inverse of
/// [`actuator_invmass`] at `qpos0` (0 below `mjMINVAL`), as 4.0.0's `mj_setCompiledConst` does.
/// The compiler leaves the ratio in `biasprm[2]`; this runs before the length ranges.
pub fn set_dampratio(m: &mut Model) {
    let wants = |m: &Model, i: usize| {
        let (g, b) = (&m.actuator_gainprm[i], &m.actuator_biasprm[i]);
        #[allow(clippy::float_cmp)]
        let servo = m.actuator_gaintype[i] == GAIN_PID || g[0] == -b[1];
        servo && b[2] > 0.0
    };
    if !(0..m.actuator_biasprm.len()).any(|i| wants(m, i)) {
        return;
    }
    let invmass = NativeModel::new(m.clone()).consts.actuator_invmass;
    for (i, &inv) in invmass.iter().enumerate() {
        if !wants(m, i) {
            continue;
        }
        let mass = if inv > MINVAL { 1.0 / inv } else { 0.0 };
        let kp = if m.actuator_gaintype[i] == GAIN_PID { -m.actuator_biasprm[i][1] } else { m.actuator_gainprm[i][0] };
        let b2 = m.actuator_biasprm[i][2];
        m.actuator_biasprm[i][2] = (b2 + b2) * -(kp * mass).sqrt();
    }
}

#[cfg(test)]
mod tests {
    use super::g;

    #[test]
    fn numbers_print_as_c_percent_g() {
        let cases = [
            (-181.0027413207507, "-181.003"),
            (135.30084050462185, "135.301"),
            (0.4, "0.4"),
            (1e-5, "1e-05"),
            (123456789.0, "1.23457e+08"),
            (0.0001, "0.0001"),
            (999999.5, "1e+06"),
            (2.0, "2"),
            (-0.0, "-0"),
        ];
        for (x, want) in cases {
            assert_eq!(g(x), want, "{x}");
        }
    }
}
