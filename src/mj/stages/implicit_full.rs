//! `mj_implicitSkip` in Rust inside MuJoCo's step for the `implicit` integrator
//! (`docs/measurements.md` K8, K11, K12): the full velocity derivative with the RNE part,
//! `qLU = M - h qDeriv`, its sparse LU factor, the solve and the advance, with the library's
//! warning, timer and stack marks (as the `implicitfast` path, `implicit.rs`).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::derivative::{BodyPattern, RneVelInput};
use specula_engine::dynamics::implicit_full::{implicit_full, FullImplicitModel, FullImplicitScratch};

use super::stack::memory;
use super::{clock, slice, slice_mut, views};

thread_local! {
    /// The force and acceleration of the solve and the derivative's arrays (MuJoCo's are on
    /// its stack).
    static SCRATCH: RefCell<(Vec<f64>, Vec<f64>, FullImplicitScratch)> =
        RefCell::new((Vec::new(), Vec::new(), FullImplicitScratch::default()));
}

/// The stack high-water marks `mj_implicitSkip` leaves for `implicit` (K11): its two `nv`
/// vectors; unless `skipfactor`, the RNE derivative's own frame (`6 nD`, three `6 nB` and one
/// `nv` doubles) and the factor's `nv` integers. `None` when the library would run out.
pub(super) fn stack(m: &sys::mjModel, d: &sys::mjData, skipfactor: bool) -> Option<(i64, i64)> {
    let (nv, nd, nb) = (m.nv as usize, m.nD as usize, m.nB as usize);
    let mut a = memory(d);
    a.mark().ok()?;
    a.stack_alloc(8 * nv, 8).ok()?;
    a.stack_alloc(8 * nv, 8).ok()?;
    if !skipfactor {
        super::implicit::fluid_frames(m, &mut a).ok()?;
        a.frame(&[(48 * nd, 8), (48 * nb, 8), (48 * nb, 8), (48 * nb, 8), (8 * nv, 8)]).ok()?;
        a.stack_alloc(4 * nv, 4).ok()?;
    }
    Some((a.maxuse_stack as i64, a.maxuse_arena as i64))
}

/// The model arrays `implicit` reads besides the cached views.
fn full_model(m: &sys::mjModel) -> FullImplicitModel<'_> {
    let nbody = m.nbody as usize;
    // SAFETY: model arrays of their documented lengths, read only.
    unsafe {
        FullImplicitModel {
            bodies: BodyPattern {
                body_weldid: slice(m.body_weldid, nbody),
                b_rownnz: slice(m.B_rownnz, nbody),
                b_rowadr: slice(m.B_rowadr, nbody),
                b_colind: slice(m.B_colind, m.nB as usize),
            },
            map_m2d: slice(m.mapM2D, m.nD as usize),
        }
    }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_implicitSkip(m, d, skipfactor)` for
/// the `implicit` integrator.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData, skipfactor: bool) {
    let t0 = clock();
    let (nv, nbody) = (m.nv as usize, m.nbody as usize);
    let Some((stack, arena)) = stack(m, d, skipfactor) else { return };
    let time = d.time;
    let fm = full_model(m);
    // SAFETY: the inputs are read, qDeriv and qLU written (and, through the Euler state, act,
    // qvel, qpos and qacc_warmstart); the derivative takes the velocities from that state.
    let (x, qderiv) = unsafe { super::implicit::deriv_input(m, d) };
    let (rv, qlu) = unsafe {
        let rv = RneVelInput {
            qvel: &[],
            cdof: slice(d.cdof, 6 * nv),
            cdof_dot: slice(d.cdof_dot, 6 * nv),
            cinert: slice(d.cinert, 10 * nbody),
            cvel: slice(d.cvel, 6 * nbody),
        };
        (rv, slice_mut(d.qLU, m.nD as usize))
    };
    let mut s = super::euler::state(m, d);
    let singular = SCRATCH.with(|sc| {
        let (qfrc, qacc, scratch) = &mut *sc.borrow_mut();
        qfrc.resize(nv, 0.0);
        qacc.resize(nv, 0.0);
        views::with(m, |v| {
            let views = (&v.tree, &v.passive, &v.actuator, &v.integrator);
            implicit_full(views, &fm, skipfactor, (&x, &rv), (qderiv, qlu), scratch, &mut s, (qfrc, qacc))
        })
    });
    super::euler::finish(d, singular, time, (stack, arena), t0);
}
