//! `mj_RungeKutta(m, d, 4)` on the native route (`docs/measurements.md` K9, K10): the engine's
//! tableau, stage states, Munthe-Kaas correction and weighted sums ([`specula_engine::dynamics::rk4`])
//! with the native forward pass (without its state checks) between the stages, then the advance.

use specula_engine::dynamics::integrate::{advance_with, EulerState};
use specula_engine::dynamics::rk4::{combine, correct, stage_state, stage_times, RK4_A, RK4_B};

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// RK4's vectors, kept from step to step: `dX` (`2 nv + na`), the four stage states
/// (`nq + nv + na`), the four stage rates (`nv + na`) and the first pass's actuator velocities.
#[derive(Debug, Default, Clone)]
pub(crate) struct Rk4Scratch {
    dx: Vec<f64>,
    x: [Vec<f64>; 4],
    f: [Vec<f64>; 4],
    /// `actuator_velocity` of the caller's forward pass (`nactuator`), put back for DC motors.
    vel0: Vec<f64>,
}

impl Rk4Scratch {
    /// The vectors for a model of `nq` positions, `nv` dofs, `na` activations and `nact`
    /// actuators.
    pub(crate) fn new(nq: usize, nv: usize, na: usize, nact: usize) -> Rk4Scratch {
        Rk4Scratch {
            dx: vec![0.0; 2 * nv + na],
            x: std::array::from_fn(|_| vec![0.0; nq + nv + na]),
            f: std::array::from_fn(|_| vec![0.0; nv + na]),
            vel0: vec![0.0; nact],
        }
    }
}

/// The state `x = (qpos, qvel, act)` written into `d`.
fn set_state(d: &mut Data, x: &[f64], (nq, nv): (usize, usize)) {
    d.qpos.copy_from_slice(&x[..nq]);
    d.qvel.copy_from_slice(&x[nq..nq + nv]);
    d.act.copy_from_slice(&x[nq + nv..]);
}

/// The rates `f = (qacc, act_dot)` read from `d`.
fn get_rates(d: &Data, f: &mut [f64], nv: usize) {
    f[..nv].copy_from_slice(&d.qacc);
    f[nv..].copy_from_slice(&d.act_dot);
}

/// The RK4 step after `mj_step`'s own forward pass (the caller's): three stage states, each
/// followed by a forward pass, the weighted sum and the advance.
pub(crate) fn rk4(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    // the vectors leave `d` for the step so that the forward passes can borrow it whole
    let mut sc = std::mem::take(&mut d.rk4);
    let result = stages(nm, d, &mut sc);
    d.rk4 = sc;
    result
}

fn stages(nm: &NativeModel, d: &mut Data, sc: &mut Rk4Scratch) -> Result<(), NativeError> {
    let m = &nm.model;
    let (nq, nv) = (m.nq, m.nv);
    let h = m.opt.timestep;
    let time = d.time;
    let t = stage_times(time, h);
    let Rk4Scratch { dx, x, f, vel0 } = sc;
    // K9: with a DC motor the advance sees the first pass's actuator velocities, not the last
    // stage's
    let dc = m.actuator_dyntype.contains(&5) || m.actuator_gaintype.contains(&3) || m.actuator_biastype.contains(&3);
    let dc = dc && vel0.len() == d.actuation.actuator_velocity.len();
    if dc {
        vel0.copy_from_slice(&d.actuation.actuator_velocity);
    }
    x[0][..nq].copy_from_slice(&d.qpos);
    x[0][nq..nq + nv].copy_from_slice(&d.qvel);
    x[0][nq + nv..].copy_from_slice(&d.act);
    get_rates(d, &mut f[0], nv);
    let im = nm.integrator();
    for i in 1..4 {
        {
            let xs: [&[f64]; 4] = std::array::from_fn(|j| &x[j][..]);
            let fs: [&[f64]; 4] = std::array::from_fn(|j| &f[j][..]);
            combine(&RK4_A[3 * (i - 1)..3 * (i - 1) + i], &xs[..i], &fs[..i], (nq, nv), dx);
        }
        let (head, tail) = x.split_at_mut(i);
        let xi = &mut tail[0];
        stage_state(&im, (nq, nv), &head[0], dx, h, xi);
        set_state(d, xi, (nq, nv));
        d.time = t[i - 1];
        // the forward pass reads the velocities just set; the stored ones are corrected (K9)
        correct(&im, &mut xi[nq..nq + nv], &dx[..nv], h);
        crate::step::forward_skip(nm, d)?;
        get_rates(d, &mut f[i], nv);
    }
    {
        let xs: [&[f64]; 4] = std::array::from_fn(|j| &x[j][..]);
        let fs: [&[f64]; 4] = std::array::from_fn(|j| &f[j][..]);
        combine(&RK4_B, &xs, &fs, (nq, nv), dx);
    }
    d.time = time;
    set_state(d, &x[0], (nq, nv));
    if dc {
        d.actuation.actuator_velocity.copy_from_slice(vel0);
    }
    // mj_advance's sleep count: the restored velocities, the last stage's islands
    let falls = crate::sleep::count(nm, d);
    if falls {
        crate::sleep::save(d);
    }
    let (vel, rest) = dx.split_at(nv);
    let (acc, act_dot) = rest.split_at(nv);
    let mut s = EulerState {
        mass: &d.m,
        qfrc_smooth: &d.qfrc_smooth,
        qfrc_constraint: &d.qfrc_constraint,
        qacc: &d.qacc,
        act_dot,
        qh: &mut [],
        qh_diag_inv: &mut [],
        act: &mut d.act,
        qvel: &mut d.qvel,
        qpos: &mut d.qpos,
        time: &mut d.time,
        qacc_warmstart: &mut d.qacc_warmstart,
    };
    advance_with(&nm.tree(), &nm.actuator_model(), &im, &mut s, acc, Some(vel));
    if falls {
        crate::sleep::fall_asleep(nm, d, acc, Some(vel))?;
    }
    // K9: the step's acceleration is the weighted one, the warm start the last stage's
    d.qacc.copy_from_slice(acc);
    d.qacc_warmstart.copy_from_slice(&f[3][..nv]);
    Ok(())
}
