//! `mj_transmission` and `mj_fwdActuation` in Rust inside MuJoCo's step: the views of MuJoCo's
//! model and data that `specula_engine::dynamics::{transmission, actuation}` read and write, the
//! models left to the library, and what the library does besides its arrays (the bad-control
//! warning, the actuation timer, the stack high-water marks).

use std::cell::RefCell;
use std::ffi::CString;

use mujoco_sys as sys;
use specula_engine::dynamics::{self, ActuationInput, ActuationOutput, ActuatorModel, TransmissionOutput};

use super::fields::Field;
use super::stack::stack_marks;
use super::transmission::{transmission_marks, transmission_model, transmission_state, with_contacts, with_scratch};
use super::views;
use super::{byte, bytes, clock, slice, slice_mut, Fallback};

/// Controls up to which the clamped copy is kept on the stack.
const SMALL_CTRL: usize = 8;

thread_local! {
    /// The clamped copy of the controls `mj_fwdActuation` works on (MuJoCo's is on its stack)
    /// when there are more than [`SMALL_CTRL`].
    static CTRL: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// The stages' view of MuJoCo's actuator model.
pub(super) fn actuator_model(m: &sys::mjModel) -> ActuatorModel<'_> {
    let (nact, nu, nout, njnt) = (m.nactuator as usize, m.nu as usize, m.nout as usize, m.njnt as usize);
    let ntendon = m.ntendon as usize;
    // SAFETY: every array has the length mjmodel.h gives it; flg_gravcomp is read as its byte.
    unsafe {
        ActuatorModel {
            nq: m.nq as usize,
            nv: m.nv as usize,
            nu,
            na: m.na as usize,
            nout,
            njmom: m.nJmom as usize,
            ntendon,
            timestep: m.opt.timestep,
            disableflags: m.opt.disableflags,
            disableactuator: m.opt.disableactuator,
            gravity: m.opt.gravity,
            flg_gravcomp: byte(&raw const m.flg_gravcomp) != 0,
            jnt_type: slice(m.jnt_type, njnt),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            jnt_actfrclimited: bytes(m.jnt_actfrclimited, njnt),
            jnt_actfrcrange: slice(m.jnt_actfrcrange, 2 * njnt),
            jnt_actgravcomp: bytes(m.jnt_actgravcomp, njnt),
            tendon_actfrclimited: bytes(m.tendon_actfrclimited, ntendon),
            actuator_trntype: slice(m.actuator_trntype, nact),
            actuator_dyntype: slice(m.actuator_dyntype, nact),
            actuator_gaintype: slice(m.actuator_gaintype, nact),
            actuator_biastype: slice(m.actuator_biastype, nact),
            actuator_ctrladr: slice(m.actuator_ctrladr, nact),
            actuator_ctrlnum: slice(m.actuator_ctrlnum, nact),
            actuator_ctrlspec: slice(m.actuator_ctrlspec, nact),
            actuator_outadr: slice(m.actuator_outadr, nact),
            actuator_outnum: slice(m.actuator_outnum, nact),
            actuator_actadr: slice(m.actuator_actadr, nact),
            actuator_actnum: slice(m.actuator_actnum, nact),
            actuator_trnid: slice(m.actuator_trnid, 2 * nact),
            actuator_group: slice(m.actuator_group, nact),
            actuator_plugin: slice(m.actuator_plugin, nact),
            actuator_dynprm: slice(m.actuator_dynprm, 10 * nact),
            actuator_gainprm: slice(m.actuator_gainprm, 10 * nact),
            actuator_biasprm: slice(m.actuator_biasprm, 10 * nact),
            actuator_actlimited: bytes(m.actuator_actlimited, nact),
            actuator_actrange: slice(m.actuator_actrange, 2 * nact),
            actuator_actearly: bytes(m.actuator_actearly, nact),
            actuator_delay: slice(m.actuator_delay, nact),
            actuator_forcelimited: bytes(m.actuator_forcelimited, nact),
            actuator_forcerange: slice(m.actuator_forcerange, 2 * nact),
            actuator_ctrllimited: bytes(m.actuator_ctrllimited, nu),
            actuator_ctrlrange: slice(m.actuator_ctrlrange, 2 * nu),
            actuator_gear: slice(m.actuator_gear, 6 * nout),
            actuator_acc0: slice(m.actuator_acc0, nout),
            actuator_lengthrange: slice(m.actuator_lengthrange, 2 * nout),
        }
    }
}

/// Reads the option scalars and the gravity-compensation flag of a cached view afresh (a program
/// may change them between steps).
pub(super) fn refresh(view: &mut ActuatorModel<'_>, m: &sys::mjModel) {
    view.timestep = m.opt.timestep;
    view.disableflags = m.opt.disableflags;
    view.disableactuator = m.opt.disableactuator;
    view.gravity = m.opt.gravity;
    // SAFETY: the flag's byte, read as a byte.
    view.flg_gravcomp = unsafe { byte(&raw const m.flg_gravcomp) } != 0;
}

/// `mj_fwdActuation`'s inputs in MuJoCo's data.
#[inline]
fn actuation_input<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> ActuationInput<'a> {
    let (nv, nu, na, nout, njmom) = (m.nv as usize, m.nu as usize, m.na as usize, m.nout as usize, m.nJmom as usize);
    // SAFETY: mjData's arrays of the documented lengths, read only.
    unsafe {
        ActuationInput {
            ctrl: slice(d.ctrl, nu),
            act: slice(d.act, na),
            actuator_length: slice(d.actuator_length, nout),
            actuator_velocity: slice(d.actuator_velocity, nout),
            moment_rownnz: slice(d.moment_rownnz, nout),
            moment_rowadr: slice(d.moment_rowadr, nout),
            moment_colind: slice(d.moment_colind, njmom),
            actuator_moment: slice(d.actuator_moment, njmom),
            qfrc_gravcomp: slice(d.qfrc_gravcomp, nv),
        }
    }
}

/// Whether `mj_sleepState` reports the joint of every actuator asleep-free: with sleep on, each
/// actuator must have a joint transmission whose body is not asleep (any other transmission is
/// left to the library). The actuators' joints were checked to exist.
fn actuators_awake(m: &sys::mjModel, d: &sys::mjData, am: &ActuatorModel) -> bool {
    // SAFETY: model and data arrays of their documented lengths, read only.
    let (jnt_bodyid, body_awake) =
        unsafe { (slice(m.jnt_bodyid, m.njnt as usize), slice(d.body_awake, m.nbody as usize)) };
    (0..am.nactuator()).all(|i| {
        let trn = am.actuator_trntype[i];
        let j = am.actuator_trnid[2 * i];
        (trn == 0 || trn == 1)
            && j >= 0
            && jnt_bodyid
                .get(j as usize)
                .and_then(|&b| body_awake.get(usize::try_from(b).ok()?))
                .is_some_and(|&s| s != 0)
    })
}

/// Whether sleep is on.
fn sleep_on(m: &sys::mjModel) -> bool {
    m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0
}

/// Why `mj_transmission` must stay MuJoCo's for this model and state, if it must: a
/// transmission other than a joint's, an output layout other than one output per actuator,
/// asleep actuators, or a stack the library would overflow.
pub(super) fn transmission_out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.nactuator == 0 {
        return None;
    }
    let marks = transmission_marks(m, d);
    views::with(m, |v| transmission_fallback(m, d, &v.actuator, marks.is_some()))
}

/// [`transmission_out_of_scope`] on the view the stage uses (`stack`: whether the library's
/// stack has room).
fn transmission_fallback(m: &sys::mjModel, d: &sys::mjData, am: &ActuatorModel, stack: bool) -> Option<Fallback> {
    let tm = transmission_model(m);
    if !with_scratch(|s| dynamics::transmission_in_scope_with(am, &tm, s)) {
        return Some(Fallback::Transmission);
    }
    if !stack {
        return Some(Fallback::StackFull);
    }
    // the library asks each actuator's sleep state only when some dof is asleep
    (sleep_on(m) && (d.nv_awake as i64) < m.nv && !actuators_awake(m, d, am)).then_some(Fallback::Asleep)
}

/// Why `mj_fwdActuation` must stay MuJoCo's for this model and state, if it must: actuators
/// outside the affine kinds (`specula_engine::dynamics::actuation_in_scope`), plugins, asleep
/// actuators or transmissions other than joints under sleep, or a stack the library would
/// overflow.
pub(super) fn actuation_out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.nactuator == 0 || m.opt.disableflags & sys::mjDSBL_ACTUATION as i32 != 0 {
        return None;
    }
    let input = actuation_input(m, d);
    let marks = stack_marks(d, &[8 * m.nu as usize]);
    views::with(m, |v| actuation_fallback(m, d, &v.actuator, &input, marks.is_some()))
}

/// [`actuation_out_of_scope`] on the view and inputs the stage uses (`stack`: whether the
/// library's stack has room).
fn actuation_fallback(
    m: &sys::mjModel,
    d: &sys::mjData,
    am: &ActuatorModel,
    input: &ActuationInput,
    stack: bool,
) -> Option<Fallback> {
    if m.nplugin > 0 {
        Some(Fallback::Plugin)
    } else if !dynamics::actuation_in_scope(am, input) {
        Some(Fallback::Actuator)
    } else if !stack {
        Some(Fallback::StackFull)
    } else if sleep_on(m) && !actuators_awake(m, d, am) {
        Some(Fallback::Asleep)
    } else {
        None
    }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_transmission`.
pub(super) fn transmission(m: &sys::mjModel, d: &mut sys::mjData) {
    if m.nactuator == 0 {
        return;
    }
    views::with(m, |v| write_transmission(m, d, &v.actuator));
    if let Some((stack, arena)) = transmission_marks(m, d) {
        (d.maxuse_stack, d.maxuse_arena) = (stack, arena);
    }
}

/// Runs the Rust stage in place of `mj_transmission` if the model and state are inside its
/// scope (as [`transmission_out_of_scope`], tested on the view and stack marks the stage then
/// uses); the reason, with nothing written, when they are not.
#[inline(never)]
pub(super) fn try_transmission(m: &sys::mjModel, d: &mut sys::mjData) -> Option<Fallback> {
    if m.nactuator == 0 {
        return None;
    }
    let marks = transmission_marks(m, d);
    views::with(m, |v| {
        let am = &v.actuator;
        if let Some(why) = transmission_fallback(m, d, am, marks.is_some()) {
            return Some(why);
        }
        write_transmission(m, d, am);
        if let Some((stack, arena)) = marks {
            (d.maxuse_stack, d.maxuse_arena) = (stack, arena);
        }
        None
    })
}

/// `mj_transmission`'s arrays, written by the Rust stage through the view `am`.
fn write_transmission(m: &sys::mjModel, d: &mut sys::mjData, am: &ActuatorModel) {
    let (nout, njmom) = (m.nout as usize, m.nJmom as usize);
    let tm = transmission_model(m);
    with_contacts(d, |contacts| {
        let st = transmission_state(m, d, contacts);
        // SAFETY: mjData's output arrays of the documented lengths, none of which the state reads,
        // written only here.
        let mut out = unsafe {
            TransmissionOutput {
                actuator_length: slice_mut(d.actuator_length, nout),
                moment_rownnz: slice_mut(d.moment_rownnz, nout),
                moment_rowadr: slice_mut(d.moment_rowadr, nout),
                moment_colind: slice_mut(d.moment_colind, njmom),
                actuator_moment: slice_mut(d.actuator_moment, njmom),
            }
        };
        with_scratch(|s| dynamics::transmission_with(am, &tm, &st, s, &mut out));
    });
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_fwdActuation`.
pub(super) fn fwd_actuation(m: &sys::mjModel, d: &mut sys::mjData) {
    run_actuation(m, d, false);
}

/// Runs the Rust stage in place of `mj_fwdActuation` if the model and state are inside its
/// scope (as [`actuation_out_of_scope`], tested on the same view and inputs the stage then
/// uses); the reason, with nothing written, when they are not.
#[inline(never)]
pub(super) fn try_fwd_actuation(m: &sys::mjModel, d: &mut sys::mjData) -> Option<Fallback> {
    run_actuation(m, d, true)
}

fn run_actuation(m: &sys::mjModel, d: &mut sys::mjData, check: bool) -> Option<Fallback> {
    let t0 = clock();
    let working = m.nactuator > 0 && m.opt.disableflags & sys::mjDSBL_ACTUATION as i32 == 0;
    let (nv, na, nout) = (m.nv as usize, m.na as usize, m.nout as usize);
    if !working {
        // the library's idle path (as the engine's): no forces; the view is not needed
        // SAFETY: mjData's arrays of the documented lengths, written only here.
        unsafe {
            slice_mut(d.actuator_force, nout).fill(0.0);
            slice_mut(d.qfrc_actuator, nv).fill(0.0);
        }
    } else {
        let marks = stack_marks(d, &[8 * m.nu as usize]);
        let bad = views::with(m, |v| {
            let input = actuation_input(m, d);
            if check {
                if let Some(why) = actuation_fallback(m, d, &v.actuator, &input, marks.is_some()) {
                    return Err(why);
                }
            }
            // SAFETY: mjData's arrays of the documented lengths, none of them an input.
            let mut out = unsafe {
                ActuationOutput {
                    act_dot: slice_mut(d.act_dot, na),
                    actuator_force: slice_mut(d.actuator_force, nout),
                    qfrc_actuator: slice_mut(d.qfrc_actuator, nv),
                }
            };
            let nu = m.nu as usize;
            if nu <= SMALL_CTRL {
                // the usual few controls: a copy on this stack, no thread-local lookup
                let mut ctrl = [0.0; SMALL_CTRL];
                return Ok(dynamics::fwd_actuation(&v.actuator, &input, &mut ctrl[..nu], &mut out));
            }
            Ok(CTRL.with(|c| {
                let mut c = c.borrow_mut();
                if c.len() < nu {
                    c.resize(nu, 0.0);
                }
                dynamics::fwd_actuation(&v.actuator, &input, &mut c[..nu], &mut out)
            }))
        });
        let bad = match bad {
            Ok(bad) => bad,
            Err(why) => return Some(why),
        };
        if let Some(i) = bad {
            warn_ctrl(d, i);
        }
        if let Some((stack, arena)) = marks {
            (d.maxuse_stack, d.maxuse_arena) = (stack, arena);
        }
    }
    // mj_fwdActuation times itself in 4.0.0: duration and count of mjTIMER_ACTUATION
    let t = &mut d.timer[sys::mjTIMER_ACTUATION as usize];
    t.duration += clock() - t0;
    t.number = t.number.wrapping_add(1);
    None
}

/// MuJoCo's `mjWARN_BADCTRL` for control `i`: the warning's info and count, and the message on
/// its first occurrence.
fn warn_ctrl(d: &mut sys::mjData, i: usize) {
    let w = &mut d.warning[sys::mjWARN_BADCTRL as usize];
    w.lastinfo = i as i32;
    if w.number == 0 {
        let text = format!("Nan, Inf or huge value in CTRL at ACTUATOR {i}. The simulation is unstable.");
        let text = CString::new(text).expect("no NUL in the message");
        // SAFETY: MuJoCo's printf-style warning with a matching string and double argument.
        unsafe { sys::mju_warning(c"%s Time = %.4f.".as_ptr(), text.as_ptr(), d.time) };
    }
    w.number = w.number.wrapping_add(1);
}

/// The arrays `mj_transmission` writes.
pub(super) fn transmission_outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nout = m.nout as usize;
    vec![
        Field::f64("actuator_length", d.actuator_length, nout),
        Field::i32("moment_rownnz", d.moment_rownnz, nout),
        Field::i32("moment_rowadr", d.moment_rowadr, nout),
        Field::i32("moment_colind", d.moment_colind, m.nJmom as usize),
        Field::f64("actuator_moment", d.actuator_moment, m.nJmom as usize),
    ]
}

/// The arrays `mj_fwdActuation` writes (`ctrl` is only read: the library clamps a copy).
pub(super) fn actuation_outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nv, na, nout) = (m.nv as usize, m.na as usize, m.nout as usize);
    vec![
        Field::f64("act_dot", d.act_dot, na),
        Field::f64("actuator_force", d.actuator_force, nout),
        Field::f64("qfrc_actuator", d.qfrc_actuator, nv),
    ]
}
