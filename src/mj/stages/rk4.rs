//! `mj_RungeKutta(m, d, 4)` in Rust inside MuJoCo's step (`mj_step` calls it through the PLT;
//! `docs/measurements.md` K9, K10): the stage states, the Munthe-Kaas correction, the weighted
//! sums and the advance are the Rust stage's; the three forward passes between the stages stay
//! calls of MuJoCo's `mj_forwardSkip` (whose own calls reach the other stages). The stage's
//! scratch is on MuJoCo's stack, allocated in the library's order with its own functions, so
//! that the forward passes find the stack, and leave its high-water marks, as in the library.

use mujoco_sys as sys;
use specula_engine::dynamics::integrate::{advance_with, EulerState};
use specula_engine::dynamics::rk4::{combine, correct, stage_state, stage_times, RK4_A, RK4_B};

use super::euler::advance_out_of_scope;
use super::fields::Field;
use super::stack::stack_marks;
use super::{byte, slice, slice_mut, views, Fallback};

/// `mjDYN_DCMOTOR`: the library keeps `actuator_velocity` aside over the stages for it.
const DYN_DCMOTOR: i32 = 5;
/// The only order the library has a tableau for.
const ORDER: i32 = 4;

/// The sizes of the stage's stack vectors in the library's order (bytes): `dX`, then each
/// stage's state and rates, then with a DC motor the actuator velocities kept aside; and how
/// many there are.
fn stack_sizes(m: &sys::mjModel) -> ([usize; 10], usize) {
    let (nq, nv, na) = (m.nq as usize, m.nv as usize, m.na as usize);
    let (x, f) = (8 * (nq + nv + na), 8 * (nv + na));
    let sizes = [8 * (2 * nv + na), x, f, x, f, x, f, x, f, 8 * m.nout as usize];
    (sizes, if has_dcmotor(m) { 10 } else { 9 })
}

/// Whether some actuator has DC-motor dynamics (the library then keeps `actuator_velocity`
/// aside over the stages, K9).
fn has_dcmotor(m: &sys::mjModel) -> bool {
    // SAFETY: the actuator array of its documented length, read only.
    unsafe { slice(m.actuator_dyntype, m.nactuator as usize) }.contains(&DYN_DCMOTOR)
}

/// Why `mj_RungeKutta` is left to the library: an order other than 4 (the library reports an
/// error), the advance's reasons (history buffers also make it compute sensors, plasticity
/// keep poses aside; K9; a DC motor's bristle, which the advance integrates with the velocity
/// kept aside, through the advance's reasons), the locked stack and
/// a stack too small for the stage's vectors.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData, order: i32) -> Option<Fallback> {
    if order != ORDER {
        return Some(Fallback::Integrator);
    }
    if let Some(why) = advance_out_of_scope(m) {
        return Some(why);
    }
    // SAFETY: the flag's byte, read as a byte.
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    let (sizes, n) = stack_sizes(m);
    stack_marks(d, &sizes[..n]).is_none().then_some(Fallback::StackFull)
}

/// A vector of MuJoCo's stack as a slice.
///
/// # Safety
/// `p` is a live allocation of `len` doubles on `d`'s stack, not otherwise borrowed.
unsafe fn vector<'a>(p: *mut f64, len: usize) -> &'a mut [f64] {
    // SAFETY: guaranteed by the caller.
    unsafe { slice_mut(p, len) }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_RungeKutta(m, d, 4)`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let (nq, nv, na) = (m.nq as usize, m.nv as usize, m.na as usize);
    let (nx, nf) = (nq + nv + na, nv + na);
    let h = m.opt.timestep;
    let time = d.time;
    let dp: *mut sys::mjData = d;
    // the library's vectors, in its order, on its stack
    // SAFETY: MuJoCo's stack functions on its data; the scope test made sure they fit.
    let (dxp, xp, fp, aside) = unsafe {
        sys::mj_markStack(dp);
        let dxp = sys::mj_stackAllocNum(dp, 2 * nv + na);
        let (mut xp, mut fp) = ([std::ptr::null_mut(); 4], [std::ptr::null_mut(); 4]);
        for i in 0..4 {
            xp[i] = sys::mj_stackAllocNum(dp, nx);
            fp[i] = sys::mj_stackAllocNum(dp, nf);
        }
        // a DC motor's velocities are kept aside and put back before the advance (K9)
        let aside = if has_dcmotor(m) {
            let p = sys::mj_stackAllocNum(dp, m.nout as usize);
            vector(p, m.nout as usize).copy_from_slice(slice(d.actuator_velocity, m.nout as usize));
            Some(p)
        } else {
            None
        };
        (dxp, xp, fp, aside)
    };
    let t = stage_times(d.time, h);
    // SAFETY (every block below): the stack vectors are distinct allocations of the lengths
    // given, and MuJoCo's arrays have their documented lengths; no slice is held across a call
    // into MuJoCo.
    unsafe {
        let (x0, f0) = (vector(xp[0], nx), vector(fp[0], nf));
        x0[..nq].copy_from_slice(slice(d.qpos, nq));
        x0[nq..nq + nv].copy_from_slice(slice(d.qvel, nv));
        f0[..nv].copy_from_slice(slice(d.qacc, nv));
        x0[nq + nv..].copy_from_slice(slice(d.act, na));
        f0[nv..].copy_from_slice(slice(d.act_dot, na));
    }
    for i in 1..4 {
        unsafe {
            let dx = vector(dxp, 2 * nv + na);
            let x: [&[f64]; 4] = std::array::from_fn(|j| &*vector(xp[j], if j < i { nx } else { 0 }));
            let f: [&[f64]; 4] = std::array::from_fn(|j| &*vector(fp[j], if j < i { nf } else { 0 }));
            combine(&RK4_A[3 * (i - 1)..3 * (i - 1) + i], &x[..i], &f[..i], (nq, nv), dx);
            let (x0, xi) = (x[0], vector(xp[i], nx));
            views::with(m, |v| stage_state(&v.integrator, (nq, nv), x0, dx, h, xi));
            slice_mut(d.qpos, nq).copy_from_slice(&xi[..nq]);
            slice_mut(d.qvel, nv).copy_from_slice(&xi[nq..nq + nv]);
            slice_mut(d.act, na).copy_from_slice(&xi[nq + nv..]);
            d.time = t[i - 1];
            // (the forward pass reads the velocities above; the stored ones are corrected)
            views::with(m, |v| correct(&v.integrator, &mut xi[nq..nq + nv], &dx[..nv], h));
            sys::mj_forwardSkip(m, dp, sys::mjSTAGE_NONE as i32, 1);
            let fi = vector(fp[i], nf);
            fi[..nv].copy_from_slice(slice(d.qacc, nv));
            fi[nv..].copy_from_slice(slice(d.act_dot, na));
        }
    }
    unsafe {
        let dx = vector(dxp, 2 * nv + na);
        let x: [&[f64]; 4] = std::array::from_fn(|j| &*vector(xp[j], nx));
        let f: [&[f64]; 4] = std::array::from_fn(|j| &*vector(fp[j], nf));
        combine(&RK4_B, &x, &f, (nq, nv), dx);
        d.time = time;
        slice_mut(d.qpos, nq).copy_from_slice(&x[0][..nq]);
        slice_mut(d.qvel, nv).copy_from_slice(&x[0][nq..nq + nv]);
        slice_mut(d.act, na).copy_from_slice(&x[0][nq + nv..]);
        if let Some(p) = aside {
            let nout = m.nout as usize;
            slice_mut(d.actuator_velocity, nout).copy_from_slice(vector(p, nout));
        }
        let (vel, rest) = dx.split_at(nv);
        let (acc, act_dot) = rest.split_at(nv);
        let nc = m.nC as usize;
        let mut s = EulerState {
            mass: slice(d.M, nc),
            qfrc_smooth: slice(d.qfrc_smooth, nv),
            qfrc_constraint: slice(d.qfrc_constraint, nv),
            qacc: slice(d.qacc, nv),
            act_dot,
            qh: &mut [],
            qh_diag_inv: &mut [],
            act: slice_mut(d.act, na),
            qvel: slice_mut(d.qvel, nv),
            qpos: slice_mut(d.qpos, nq),
            time: &mut d.time,
            qacc_warmstart: slice_mut(d.qacc_warmstart, nv),
        };
        views::with(m, |v| advance_with(&v.tree, &v.actuator, &v.integrator, &mut s, acc, Some(vel)));
        // K9: the step's acceleration is the weighted one, the warm start the last stage's
        slice_mut(d.qacc, nv).copy_from_slice(acc);
        slice_mut(d.qacc_warmstart, nv).copy_from_slice(&f[3][..nv]);
        sys::mj_freeStack(dp);
    }
}

/// The arrays `mj_RungeKutta` itself writes (the forward passes' are compared as bytes).
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nq, nv, na) = (m.nq as usize, m.nv as usize, m.na as usize);
    vec![
        Field::f64("act", d.act, na),
        Field::f64("qpos", d.qpos, nq),
        Field::f64("qacc", d.qacc, nv),
        Field::f64("qacc_warmstart", d.qacc_warmstart, nv),
        // put back for a DC motor, as the last forward pass left it otherwise
        Field::f64("actuator_velocity", d.actuator_velocity, m.nout as usize),
        // last: the test hooks move its last element
        Field::f64("qvel", d.qvel, nv),
    ]
}
