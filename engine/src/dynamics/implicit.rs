//! `mj_implicitSkip` for the `implicitfast` integrator: the velocity derivative of the actuator
//! and damping forces (`mjd_smooth_vel` without its RNE part), `qH = M - h qDeriv` factorised as
//! `M` is, the solve and the advance, as MuJoCo 4.0.0 computes them (`docs/measurements.md` K8).
//!
//! Algorithm:
//! 1. `f = qfrc_smooth + qfrc_constraint`.
//! 2. Unless the caller reuses the last factor: `qDeriv = 0`; each actuator whose force responds
//!    to velocity (and is not held at a force limit) adds `v m m'` over its moment rows, with `v`
//!    its gain's velocity term times its input plus its bias's velocity term; each dof's damping
//!    subtracts its linearisation from the diagonal; `qH = (-h) qDeriv + M` on `M`'s pattern;
//!    `L'DL` factor of `qH` (`mj_factorI`).
//!    The rows of a lone free body (its tree's only joint) are `M`'s.
//! 3. `qacc = qH^-1 f`; each lone free body's six accelerations replaced by the solve of its own
//!    6x6 block with the bias forces' derivative ([`super::free_body`], K14); then the advance
//!    ([`super::integrate::advance`]).

use super::actuation::{next_activation, ActuatorModel};
use super::free_body::{factor_lu6, free_mhat, lone_free_joints, solve_lu6, FreeBodyFrames};
use super::integrate::{advance, EulerState, IntegratorModel};
use super::passive::{actuator_damping, DampedObject, PassiveModel};
use super::passive_deriv::{fluid_vel, tendon_damping_vel, PassiveDerivState};
use super::{factor_i, solve_ld, TreeModel};

/// `mjDSBL_SPRING | mjDSBL_DAMPER`: with both off the passive derivative is skipped.
const SPRING_AND_DAMPER: i32 = 32 | 64;
/// `mjDSBL_DAMPER`.
const DSBL_DAMPER: i32 = 64;
/// `mjDSBL_CLAMPCTRL`.
const DSBL_CLAMPCTRL: i32 = 256;
/// `mjDSBL_ACTUATION`.
const DSBL_ACTUATION: i32 = 2048;

/// The actuator state the derivative reads (MuJoCo's arrays).
#[derive(Clone, Copy, Debug)]
pub struct DerivInput<'a> {
    /// Controls (`nu`).
    pub ctrl: &'a [f64],
    /// Actuator forces (`nu`).
    pub actuator_force: &'a [f64],
    /// Actuator forces in joint space (`nv`).
    pub qfrc_actuator: &'a [f64],
    /// Non-zeros of each moment row (`nu`).
    pub moment_rownnz: &'a [i32],
    /// Start of each moment row (`nu`).
    pub moment_rowadr: &'a [i32],
    /// Column of each moment entry.
    pub moment_colind: &'a [i32],
    /// Moment entries.
    pub actuator_moment: &'a [f64],
    /// Tendon and body state of the passive derivative beyond joint damping.
    pub passive: PassiveDerivState<'a>,
}

/// The input of actuator `a` its gain multiplies: its last activation (advanced first when it
/// acts early) or its control, clamped unless clamping is off (`actuatorInput`, K8).
fn input(am: &ActuatorModel, s: &EulerState, x: &DerivInput, a: usize) -> f64 {
    if am.actuator_dyntype[a] != 0 {
        let j = (am.actuator_actadr[a] + am.actuator_actnum[a] - 1) as usize;
        return if am.actuator_actearly[a] == 1 { next_activation(am, s.act, a, j, s.act_dot[j]) } else { s.act[j] };
    }
    let c = am.actuator_ctrladr[a] as usize;
    let u = x.ctrl[c];
    if am.disableflags & DSBL_CLAMPCTRL != 0 || am.actuator_ctrllimited[c] != 1 {
        return u;
    }
    let (lo, hi) = (am.actuator_ctrlrange[2 * c], am.actuator_ctrlrange[2 * c + 1]);
    if u < lo {
        lo
    } else if hi < u {
        hi
    } else {
        u
    }
}

/// Whether actuator `a`'s derivative is left out: its group disabled, or its force or its
/// joint's actuator force held at a limit (`mjd_actuatorDerivSkip` on joint transmissions).
fn held(am: &ActuatorModel, x: &DerivInput, a: usize) -> bool {
    let group = am.actuator_group[a];
    if (0..=30).contains(&group) && am.disableactuator & (1 << group) != 0 {
        return true;
    }
    if am.actuator_forcelimited[a] == 1 {
        let f = x.actuator_force[am.actuator_outadr[a] as usize];
        if am.actuator_forcerange[2 * a] >= f || f >= am.actuator_forcerange[2 * a + 1] {
            return true;
        }
    }
    // only a joint transmission's id is a joint
    if !matches!(am.actuator_trntype[a], 0 | 1) {
        return false;
    }
    let j = am.actuator_trnid[2 * a] as usize;
    if am.jnt_actfrclimited[j] == 1 {
        let f = x.qfrc_actuator[am.jnt_dofadr[j] as usize];
        if am.jnt_actfrcrange[2 * j] >= f || f >= am.jnt_actfrcrange[2 * j + 1] {
            return true;
        }
    }
    false
}

/// `mjd_actuator_vel` for fixed and affine gains and biases on joint transmissions: adds
/// `v m m'` to `qdv` for each actuator, over the entries `qDeriv`'s pattern has.
fn actuator_vel(am: &ActuatorModel, im: &IntegratorModel, s: &EulerState, x: &DerivInput, qdv: &mut [f64]) {
    if am.disableflags & DSBL_ACTUATION != 0 {
        return;
    }
    for a in 0..am.actuator_trntype.len() {
        if held(am, x, a) {
            continue;
        }
        let p = 10 * a;
        let bias = if am.actuator_biastype[a] == 1 { am.actuator_biasprm[p + 2] } else { 0.0 };
        let gain = am.actuator_gainprm[p + 2];
        #[allow(clippy::float_cmp)]
        let v = if am.actuator_gaintype[a] == 1 && gain != 0.0 { input(am, s, x, a) * gain + bias } else { bias };
        #[allow(clippy::float_cmp)]
        if v == 0.0 {
            continue;
        }
        let outadr = am.actuator_outadr[a] as usize;
        for row in outadr..outadr + am.actuator_outnum[a] as usize {
            let (adr, nnz) = (x.moment_rowadr[row] as usize, x.moment_rownnz[row].max(0) as usize);
            let (cols, mom) = (&x.moment_colind[adr..adr + nnz], &x.actuator_moment[adr..adr + nnz]);
            for (&c1, &m1) in cols.iter().zip(mom) {
                let c1 = c1 as usize;
                let dn = im.d_rownnz[c1].max(0) as usize;
                if dn == 0 {
                    continue;
                }
                let base = im.d_rowadr[c1] as usize;
                let scaled = v * m1;
                // merge the moment row's columns with the derivative row's
                let (mut i, mut k) = (0, 0);
                while i < nnz && k < dn {
                    let (mc, dc) = (cols[i], im.d_colind[base + k]);
                    if mc == dc {
                        qdv[base + k] += scaled * mom[i];
                        i += 1;
                        k += 1;
                    } else if mc > dc {
                        k += 1;
                    } else {
                        i += 1;
                    }
                }
            }
        }
    }
}

/// `mjd_passive_vel`: the fluid models' derivative, then each dof's damping `b + 2 p0 |v| +
/// 3 p1 v^2` (actuator damping on its joint included) subtracted from its diagonal, then the
/// tendon dampers' `-b J' J`.
fn passive_vel(pm: &PassiveModel, im: &IntegratorModel, qvel: &[f64], x: &PassiveDerivState, qdv: &mut [f64]) {
    if im.disableflags & SPRING_AND_DAMPER == SPRING_AND_DAMPER {
        return;
    }
    fluid_vel(&pm.body, im, &x.body, qdv);
    if im.disableflags & DSBL_DAMPER != 0 {
        return;
    }
    for (i, &v) in qvel.iter().enumerate().take(im.d_rownnz.len()) {
        let mut poly = [im.dof_dampingpoly[2 * i], im.dof_dampingpoly[2 * i + 1]];
        let act = actuator_damping(pm, DampedObject::Joint, im.dof_jntid[i] as usize, &mut poly);
        let b = 3.0 * poly[1] * (v * v) + ((poly[0] + poly[0]) * v.abs() + (act + im.dof_damping[i]));
        let at = (im.d_rowadr[i] + im.d_diag[i]) as usize;
        qdv[at] -= b;
    }
    tendon_damping_vel(pm, im, x, qdv);
}

/// `f = qfrc_smooth + qfrc_constraint`, the force both implicit integrators solve for.
pub(super) fn total_force(s: &EulerState, f: &mut [f64]) {
    for ((f, &a), &b) in f.iter_mut().zip(s.qfrc_smooth).zip(s.qfrc_constraint) {
        *f = a + b;
    }
}

/// `mjd_smooth_vel` without the bias part: `qDeriv` cleared, then the actuators' and the
/// dampers' velocity derivatives.
pub(super) fn smooth_vel(
    pm: &PassiveModel,
    am: &ActuatorModel,
    im: &IntegratorModel,
    s: &EulerState,
    x: &DerivInput,
    qderiv: &mut [f64],
) {
    qderiv.fill(0.0);
    actuator_vel(am, im, s, x, qderiv);
    passive_vel(pm, im, s.qvel, &x.passive, qderiv);
}

/// `mj_implicitSkip` for `implicitfast` on all dofs (sleep off), lone free bodies solved on their
/// own with `frames` (K14). `qfrc` and `qacc` are scratch of `nv` entries; `qderiv` is MuJoCo's
/// `qDeriv` (`nD`). Returns the dof of a near-singular pivot.
#[allow(clippy::too_many_arguments)]
pub fn implicit_fast(
    tm: &TreeModel,
    pm: &PassiveModel,
    am: &ActuatorModel,
    im: &IntegratorModel,
    skipfactor: bool,
    (x, frames): (&DerivInput, &FreeBodyFrames),
    qderiv: &mut [f64],
    s: &mut EulerState,
    (qfrc, qacc): (&mut [f64], &mut [f64]),
) -> Option<usize> {
    let (nv, nc) = (tm.nv(), tm.nc());
    total_force(s, &mut qfrc[..nv]);
    let mut singular = None;
    if !skipfactor {
        smooth_vel(pm, am, im, s, x, qderiv);
        if im.map_d2m.is_empty() {
            s.qh[..nc].copy_from_slice(&qderiv[..nc]);
        } else {
            for (h, &k) in s.qh[..nc].iter_mut().zip(im.map_d2m) {
                *h = qderiv[k as usize];
            }
        }
        let minus_h = -im.timestep;
        for (h, &mk) in s.qh[..nc].iter_mut().zip(s.mass) {
            *h = minus_h * *h + mk;
        }
        // a lone free body's rows stay M's (its block is solved below)
        for j in lone_free_joints(tm, im) {
            let adr = im.jnt_dofadr[j] as usize;
            for r in adr..adr + 6 {
                let (ra, rn) = (tm.m_rowadr[r] as usize, tm.m_rownnz[r] as usize);
                s.qh[ra..ra + rn].copy_from_slice(&s.mass[ra..ra + rn]);
            }
        }
        singular = factor_i(&mut s.qh[..nc], &mut s.qh_diag_inv[..nv], tm.m_rownnz, tm.m_rowadr, tm.m_colind);
    }
    qacc[..nv].copy_from_slice(&qfrc[..nv]);
    solve_ld(&mut qacc[..nv], s.qh, s.qh_diag_inv, tm.m_rownnz, tm.m_rowadr, tm.m_colind);
    for j in lone_free_joints(tm, im) {
        let mut a = free_mhat(tm, im, frames, s, qderiv, j);
        let mut pivot = [0; 6];
        if factor_lu6(&mut a, &mut pivot) {
            let adr = im.jnt_dofadr[j] as usize;
            qacc[adr..adr + 6].copy_from_slice(&solve_lu6(&a, &qfrc[adr..adr + 6], &pivot));
        }
    }
    advance(tm, am, im, s, &qacc[..nv]);
    singular
}
