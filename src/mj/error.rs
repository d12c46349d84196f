//! Turning MuJoCo's errors and warnings into Rust values.
//!
//! MuJoCo reports a fatal error by calling `mju_error`, which never returns to its caller. specula
//! installs an error callback that unwinds (the bindings use the `C-unwind` ABI and libmujoco
//! carries unwind tables) back to the [`guard`] around the call, which returns it as
//! [`MjError::Mujoco`]. `resume_unwind` is used rather than `panic!` so the panic hook never runs:
//! nothing is printed. Warnings are collected per thread, not printed. While these legacy handlers
//! are set, MuJoCo 4.0.0 routes errors and warnings to them instead of its log handler, so no log
//! file is written either (measured: installing a 4.0 log handler instead swallows `mju_error` and
//! lets the failing call return garbage, e.g. `mj_stateSize` returned 0).

use std::cell::RefCell;
use std::ffi::CStr;
use std::os::raw::c_char;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use mujoco_sys as sys;

/// An error from MuJoCo or from using it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MjError {
    /// The MJCF compiler rejected a model; the message is MuJoCo's.
    #[error("{file}: {message}")]
    Compile {
        /// The file (or pseudo-name) that was being loaded.
        file: String,
        /// MuJoCo's error message.
        message: String,
    },
    /// MuJoCo raised a fatal error (`mju_error`) inside a call.
    #[error("MuJoCo error: {0}")]
    Mujoco(String),
    /// A request the wrapper refused before calling MuJoCo (bad name, index, size, ...).
    #[error("{0}")]
    Invalid(String),
}

/// The payload carried by an unwinding MuJoCo error.
struct MujocoAbort(String);

thread_local! {
    /// Warnings MuJoCo emitted on this thread since the last [`take_warnings`].
    static WARNINGS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

static INSTALL: Once = Once::new();

fn c_text(msg: *const c_char) -> String {
    if msg.is_null() {
        return String::new();
    }
    // SAFETY: MuJoCo passes a NUL-terminated message that lives for the duration of the call.
    unsafe { CStr::from_ptr(msg) }.to_string_lossy().trim().to_string()
}

unsafe extern "C-unwind" fn on_error(msg: *const c_char) {
    panic::resume_unwind(Box::new(MujocoAbort(c_text(msg))));
}

unsafe extern "C-unwind" fn on_warning(msg: *const c_char) {
    let text = c_text(msg);
    WARNINGS.with(|w| w.borrow_mut().push(text));
}

/// Installs specula's handlers once per process.
pub(crate) fn install_handlers() {
    INSTALL.call_once(|| {
        // SAFETY: the handler globals are written once, before any MuJoCo call made through this
        // crate; the handlers themselves are thread-safe (thread-local state only).
        unsafe {
            sys::mju_user_error = Some(on_error);
            sys::mju_user_warning = Some(on_warning);
        }
    });
}

/// Runs `f` (which calls into MuJoCo) and returns MuJoCo's fatal error, if any, as `Err`.
pub(crate) fn guard<R>(f: impl FnOnce() -> R) -> Result<R, MjError> {
    install_handlers();
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => match payload.downcast::<MujocoAbort>() {
            Ok(abort) => Err(MjError::Mujoco(abort.0)),
            Err(other) => panic::resume_unwind(other),
        },
    }
}

/// Takes the warnings MuJoCo emitted on this thread since the last call.
pub fn take_warnings() -> Vec<String> {
    WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}
