//! The C++ exception boundary around the MuJoCo calls that can throw (`boundary.c`).
//!
//! libmujoco is C++ inside, and its loader and compiler throw C++ exceptions for some bad inputs
//! (`std::bad_optional_access` for an empty `anchor`, `std::length_error` for a huge builtin mesh,
//! `std::bad_alloc`). Those exceptions are unwound by the library's own, statically linked
//! unwinder, which cannot pass a Rust frame (or a g++ catch); `boundary.c` explains why and stops
//! them in a hand-written frame just above the MuJoCo call. Here each stopped exception becomes an
//! `Err` carrying its type and `what()` text. The boundary sits inside [`super::error::guard`]:
//! MuJoCo's `mju_error` (a Rust unwind) passes through it unchanged.

use std::os::raw::{c_char, c_int};

use mujoco_sys as sys;

use super::error::{guard, MjError};

/// A MuJoCo function taking (model, data), as `mj_step`.
pub(crate) type MdFn = unsafe extern "C-unwind" fn(*const sys::mjModel, *mut sys::mjData);
/// A MuJoCo function taking (model, data, int), as `mj_resetDataKeyframe`.
pub(crate) type MdiFn = unsafe extern "C-unwind" fn(*const sys::mjModel, *mut sys::mjData, c_int);

// The thunks of boundary.c: each returns 1 when the call threw, with the exception described in
// `msg`, and 0 otherwise. `C-unwind` because `mju_error` unwinds through them.
extern "C-unwind" {
    fn specula_load_xml(
        file: *const c_char,
        vfs: *const sys::mjVFS,
        err: *mut c_char,
        err_len: c_int,
        model: *mut *mut sys::mjModel,
        msg: *mut c_char,
        len: usize,
    ) -> c_int;
    fn specula_make_data(
        model: *const sys::mjModel,
        data: *mut *mut sys::mjData,
        msg: *mut c_char,
        len: usize,
    ) -> c_int;
    fn specula_call_md(f: MdFn, m: *const sys::mjModel, d: *mut sys::mjData, msg: *mut c_char, len: usize) -> c_int;
    fn specula_call_mdi(
        f: MdiFn,
        m: *const sys::mjModel,
        d: *mut sys::mjData,
        i: c_int,
        msg: *mut c_char,
        len: usize,
    ) -> c_int;
}

const MSG_LEN: usize = 1024;

/// Runs one boundary thunk under the `mju_error` guard; a C++ exception becomes
/// `MjError::Mujoco("C++ exception <type>: <what>")`.
fn cxx(f: impl FnOnce(*mut c_char, usize) -> c_int) -> Result<(), MjError> {
    let mut msg = [0u8; MSG_LEN];
    let threw = guard(|| f(msg.as_mut_ptr() as *mut c_char, MSG_LEN))?;
    if threw == 0 {
        return Ok(());
    }
    let end = msg.iter().position(|&b| b == 0).unwrap_or(MSG_LEN);
    Err(MjError::Mujoco(format!("C++ exception {}", String::from_utf8_lossy(&msg[..end]))))
}

/// `mj_loadXML` behind the boundary (null model: MuJoCo wrote its error into `err`).
///
/// # Safety
/// `file` is NUL-terminated, `vfs` null or valid, `err` holds `err_len` bytes.
pub(crate) unsafe fn load_xml(
    file: *const c_char,
    vfs: *const sys::mjVFS,
    err: *mut c_char,
    err_len: c_int,
) -> Result<*mut sys::mjModel, MjError> {
    let mut model = std::ptr::null_mut();
    // SAFETY: guaranteed by the caller; `model` outlives the call.
    cxx(|msg, len| unsafe { specula_load_xml(file, vfs, err, err_len, &mut model, msg, len) })?;
    Ok(model)
}

/// `mj_makeData` behind the boundary.
///
/// # Safety
/// `model` is a live model.
pub(crate) unsafe fn make_data(model: *const sys::mjModel) -> Result<*mut sys::mjData, MjError> {
    let mut data = std::ptr::null_mut();
    // SAFETY: guaranteed by the caller.
    cxx(|msg, len| unsafe { specula_make_data(model, &mut data, msg, len) })?;
    Ok(data)
}

/// `f(m, d)` behind the boundary (without the guard: the caller holds one).
///
/// # Safety
/// `f` is a MuJoCo function and `m`, `d` are valid for it.
pub(crate) unsafe fn call_md(f: MdFn, m: *const sys::mjModel, d: *mut sys::mjData) -> Result<(), MjError> {
    // SAFETY: guaranteed by the caller.
    cxx(|msg, len| unsafe { specula_call_md(f, m, d, msg, len) })
}

/// `f(m, d, i)` behind the boundary.
///
/// # Safety
/// `f` is a MuJoCo function and `m`, `d`, `i` are valid for it.
pub(crate) unsafe fn call_mdi(f: MdiFn, m: *const sys::mjModel, d: *mut sys::mjData, i: c_int) -> Result<(), MjError> {
    // SAFETY: guaranteed by the caller.
    cxx(|msg, len| unsafe { specula_call_mdi(f, m, d, i, msg, len) })
}
