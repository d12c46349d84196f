//! The noslip pass of `mj_fwdConstraint` in Rust (`docs/measurements.md` D35-D37): run by the
//! solver dispatch (`solver.rs`, `solver_pgs.rs`) after whichever main solver ran, on that
//! solver's outputs, then `mj_dualFinish`; its stack frames follow the solver's in the replay.

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::arena::{Arena, StackOverflow};
use specula_engine::dynamics::reference::Jacobian;
use specula_engine::dynamics::solver::frame::{FrameInput, FrameModel};
use specula_engine::dynamics::solver::noslip::{dual_finish, noslip, NoslipModel, NoslipParts, NoslipScratch};
use specula_engine::dynamics::solver::pgs::Unsupported;

thread_local! {
    /// The pass's work arrays and stack frames (reused from call to call).
    static SCRATCH: RefCell<NoslipScratch> = RefCell::default();
}

/// The noslip options; `use_islands` is the dispatch's island test (D13).
pub(super) fn model(m: &sys::mjModel, use_islands: bool) -> NoslipModel {
    NoslipModel { iterations: m.opt.noslip_iterations, tolerance: m.opt.noslip_tolerance, use_islands }
}

/// After the main solver: the noslip pass on its outputs and, when it ran, `qfrc_constraint` and `qacc`
/// from the new forces (`mj_dualFinish`). Without noslip nothing is touched.
pub(super) fn after_solver(
    fm: &FrameModel,
    nm: &NoslipModel,
    inp: &FrameInput,
    ar: Option<&Jacobian>,
    (mut st, qfrc_constraint, qacc): NoslipParts,
) -> Result<(), Unsupported> {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        s.frames.clear();
        if nm.iterations <= 0 {
            return Ok(());
        }
        // the library computes efc_AR whenever noslip is on (mj_isDual)
        let ar = ar.ok_or(Unsupported::NoDiagonal)?;
        noslip(fm, nm, inp, ar, s, &mut st)?;
        dual_finish(fm, inp, st.efc_force, qfrc_constraint, qacc);
        Ok(())
    })
}

/// The main solver's stack frames then the last noslip pass's, replayed on `d`'s counters.
pub(super) fn replay<const N: usize>(d: &sys::mjData, frames: &[[(usize, usize); N]]) -> Result<Arena, StackOverflow> {
    let mut arena = super::stack::replay(d, frames)?;
    SCRATCH.with(|s| {
        for f in &s.borrow().frames {
            arena.frame(f)?;
        }
        Ok(arena)
    })
}

#[cfg(test)]
mod tests {
    use specula_engine::dynamics::solver::qcqp::qcqp;

    use super::super::solver::tests::Stream;

    use super::super::sparse_lib::mju_QCQP2;

    /// `mju_QCQP2` and the local `mju_QCQP` in libmujoco.so.4.0.0's symbol table (`nm`, D35).
    const QCQP2_AT: usize = 0x352080;
    const QCQP_AT: usize = 0x352490;

    /// The library's general `mju_QCQP(res, A, b, d, r, n)`, a local symbol: found from the
    /// exported `mju_QCQP2` at the offsets of this build, the load base checked first.
    fn library_qcqp() -> unsafe extern "C" fn(*mut f64, *const f64, *const f64, *const f64, f64, i32) -> i32 {
        let exported = mju_QCQP2 as *const libc::c_void;
        let mut info = libc::Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        // SAFETY: dladdr only reads the loader's tables for an address of a loaded function.
        assert_ne!(unsafe { libc::dladdr(exported, &mut info) }, 0, "dladdr");
        // SAFETY: dli_sname is the loader's NUL-terminated name of the symbol at `exported`.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_sname) };
        assert_eq!(name.to_bytes(), b"mju_QCQP2");
        let base = info.dli_fbase as usize;
        assert_eq!(base + QCQP2_AT, exported as usize, "not the 4.0.0 build these offsets were read from");
        // SAFETY: the local mju_QCQP of the same build (its address read with nm), with the
        // signature read from its call sites in solPGS and solNoSlip.
        unsafe { std::mem::transmute(base + QCQP_AT) }
    }

    #[test]
    fn the_general_qcqp_is_the_librarys_mujoco() {
        let theirs_fn = library_qcqp();
        let mut s = Stream(0x0bad_cafe_1234_5678);
        let (mut active, mut free, mut singular) = (0, 0, 0);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for case in 0..4000 {
            let n = [5, 5, 4, 3, 2, 1][case % 6];
            // B B' + shift: positive definite, or indefinite for a negative shift
            let shift = if case % 7 == 0 { -2.0 } else { 0.01 };
            let k = if case % 11 == 0 { n - 1 } else { n };
            let bm: Vec<f64> = (0..n * k).map(|_| s.next() * 3.0).collect();
            let mut a = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    let mut sum = 0.0;
                    for c in 0..k {
                        sum += bm[i * k + c] * bm[j * k + c];
                    }
                    a[i * n + j] = sum + if i == j { shift } else { 0.0 };
                }
            }
            let b: Vec<f64> = (0..n).map(|_| s.next()).collect();
            let d: Vec<f64> = (0..n).map(|_| 1.0 + 0.9 * s.next()).collect();
            let r = [0.01, 0.3, 1.0, 30.0][case % 4];
            let mut ours = vec![0.0; n];
            let act = qcqp(&mut ours, &a, &b, &d, r).expect("n <= 5");
            let mut theirs = vec![f64::NAN; n];
            // SAFETY: arrays of n, n x n entries as the function reads and writes them.
            let c = unsafe { theirs_fn(theirs.as_mut_ptr(), a.as_ptr(), b.as_ptr(), d.as_ptr(), r, n as i32) };
            assert_eq!((i32::from(act), bits(&ours)), (c, bits(&theirs)), "case {case}, n {n}");
            if act {
                active += 1;
            } else if ours.iter().all(|&x| x == 0.0) {
                singular += 1;
            } else {
                free += 1;
            }
        }
        assert!(active > 1000 && free > 1000 && singular > 100, "{active} active, {free} free, {singular} singular");
    }
}
