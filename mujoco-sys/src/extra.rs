//! Functions exported by `libmujoco.so.4.0.0` but not declared in its headers.
//!
//! Signatures were read from the 4.0.0 call sites (see `../shared/reference/mujoco-4.0-pipeline.md`).
//! They let a caller run MuJoCo's step with the collision stage split out. Pinned to 4.0.0.

use crate::{mjData, mjModel};

extern "C-unwind" {
    /// Integration-only part of `mj_step` (skip stages up to `skipstage`).
    pub fn mj_stepSkip(
        m: *const mjModel,
        d: *mut mjData,
        skipstage: ::std::os::raw::c_int,
        skipsensor: ::std::os::raw::c_int,
    );
    /// Semi-implicit Euler integration; `skipfactor=0` is `mj_Euler`.
    pub fn mj_EulerSkip(m: *const mjModel, d: *mut mjData, skipfactor: ::std::os::raw::c_int);
    /// Implicit(fast) integration; `skipfactor=0` is `mj_implicit`.
    pub fn mj_implicitSkip(m: *const mjModel, d: *mut mjData, skipfactor: ::std::os::raw::c_int);
    /// Re-derives sleep bookkeeping after trees were woken.
    pub fn mj_updateSleep(m: *const mjModel, d: *mut mjData);
}
