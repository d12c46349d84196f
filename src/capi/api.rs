//! The C functions of `include/specula.h`. Each catches panics at the boundary: nothing unwinds
//! into C.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

use mujoco_sys as sys;

use super::{Mode, Stats};

/// `specula_collision`: specula's Rust stage for one call whatever the mode (counted fallbacks).
///
/// # Safety
/// `m` and `d` are null or a valid model and its data, as for `mj_collision`.
#[no_mangle]
pub unsafe extern "C" fn specula_collision(m: *const sys::mjModel, d: *mut sys::mjData) {
    if m.is_null() || d.is_null() {
        return;
    }
    // SAFETY: non-null pointers to a valid model and data, by the caller's contract.
    let (m, d) = unsafe { (&*m, &mut *d) };
    // `collide` catches the Rust stage's panics itself; this guard covers the rest.
    let _ = catch_unwind(AssertUnwindSafe(|| super::collide(m, d, Some(Mode::Rust))));
}

/// `specula_set_mode`: 0 c, 1 rust, 2 diff; returns 0, or -1 for an unknown mode.
#[no_mangle]
pub extern "C" fn specula_set_mode(mode: c_int) -> c_int {
    catch_unwind(|| match Mode::from_index(mode) {
        Some(m) => {
            super::set_mode(m);
            0
        }
        None => -1,
    })
    .unwrap_or(-1)
}

/// `specula_mode`: the current mode (0 c, 1 rust, 2 diff).
#[no_mangle]
pub extern "C" fn specula_mode() -> c_int {
    catch_unwind(|| super::mode() as c_int).unwrap_or(0)
}

/// `specula_set_speculative`: 0 compat, 1 robust (in rust mode); 0 or -1.
#[no_mangle]
pub extern "C" fn specula_set_speculative(mode: c_int) -> c_int {
    catch_unwind(|| match super::speculative_from_index(mode) {
        Some(s) => {
            super::set_speculative(s);
            0
        }
        None => -1,
    })
    .unwrap_or(-1)
}

/// `specula_stats`: copies the counters into `*out` (nothing when null).
///
/// # Safety
/// `out` is null or points to a writable `specula_stats_t`.
#[no_mangle]
pub unsafe extern "C" fn specula_stats(out: *mut Stats) {
    if out.is_null() {
        return;
    }
    let s = catch_unwind(super::snapshot).unwrap_or_default();
    // SAFETY: non-null and writable by the caller's contract; Stats is repr(C) like specula_stats_t.
    unsafe { out.write(s) };
}

/// `specula_write_report`: writes the JSON report to `path`; 0, or -1 on failure.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn specula_write_report(path: *const c_char) -> c_int {
    if path.is_null() {
        return -1;
    }
    // SAFETY: a NUL-terminated string by the caller's contract.
    let path = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
    match catch_unwind(|| super::write_report(&path)) {
        Ok(Ok(())) => 0,
        _ => -1,
    }
}
