//! `specula._native`: the native half of the Python package `specula` (its Python half,
//! `specula/__init__.py`, is the documented API and imports `mujoco` before this module).
//!
//! The module is linked against libmujoco by soname only (`NEEDED libmujoco.so.4.0.0`, no rpath,
//! no copy of the library in the wheel): the `mujoco` package has already loaded that library
//! when this module is imported, so the loader binds it to that copy. It redirects libmujoco's own
//! calls of `mj_collision` to the drop-in stage of the root crate through
//! [`specula::capi::patch`], and runs that stage's modes, counters and report.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use specula::capi::{self, patch, Mode, SpeculativeMode};

create_exception!(
    _native,
    SpeculaError,
    PyRuntimeError,
    "specula could not redirect (or restore) MuJoCo's collision calls."
);

/// The collision mode named `name` (`rust`, `diff` or `c`).
fn mode_of(name: &str) -> PyResult<Mode> {
    [Mode::Rust, Mode::Diff, Mode::C]
        .into_iter()
        .find(|m| m.name() == name)
        .ok_or_else(|| PyValueError::new_err(format!("collision={name:?} is not one of 'rust', 'diff', 'c'")))
}

/// The speculative mode named `name` (`compat` or `robust`; `None`: each model's own request).
fn speculative_of(name: Option<&str>) -> PyResult<Option<SpeculativeMode>> {
    name.map(|n| {
        [SpeculativeMode::Compat, SpeculativeMode::Robust]
            .into_iter()
            .find(|s| s.name() == n)
            .ok_or_else(|| PyValueError::new_err(format!("speculative={n:?} is not one of 'compat', 'robust', None")))
    })
    .transpose()
}

fn patch_error(e: patch::PatchError) -> PyErr {
    SpeculaError::new_err(e.to_string())
}

/// Redirects libmujoco's collision calls to specula (idempotent) and selects the modes; returns
/// (slots written by this call, copies of libmujoco found).
#[pyfunction]
#[pyo3(signature = (collision, speculative=None))]
fn enable(collision: &str, speculative: Option<&str>) -> PyResult<(usize, usize)> {
    let mode = mode_of(collision)?;
    let spec = speculative_of(speculative)?;
    let outcome = patch::install().map_err(patch_error)?;
    capi::set_mode(mode);
    match spec {
        Some(s) => capi::set_speculative(s),
        None => patch::unset_speculative(),
    }
    Ok((outcome.changed, outcome.copies))
}

/// Restores MuJoCo's own collision (idempotent) and sets mode c; returns the slots restored.
#[pyfunction]
fn disable() -> PyResult<usize> {
    let outcome = patch::uninstall().map_err(patch_error)?;
    capi::set_mode(Mode::C);
    Ok(outcome.changed)
}

/// Whether the calls are redirected, and the modes: (enabled, collision, speculative or None
/// when each model decides).
#[pyfunction]
fn state() -> (bool, &'static str, Option<&'static str>) {
    (patch::installed(), capi::mode().name(), patch::speculative_choice().map(SpeculativeMode::name))
}

/// One loaded copy of libmujoco: (object, slot address, value, MuJoCo's own mj_collision,
/// specula's entry point).
type SlotRow = (String, usize, usize, usize, usize);

/// Every loaded copy of libmujoco and its `mj_collision` slot.
#[pyfunction]
fn slots() -> PyResult<Vec<SlotRow>> {
    let slots = patch::slots().map_err(patch_error)?;
    Ok(slots.into_iter().map(|s| (s.object, s.address, s.value, s.own, patch::entry())).collect())
}

/// The drop-in report (`specula_write_report`'s JSON), as text.
#[pyfunction]
fn stats_json() -> PyResult<String> {
    serde_json::to_string(&capi::report_json()).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// One collision call through specula's entry point, in the current mode (the wrapper that
/// replaces `mujoco.mj_collision`); `model` and `data` are the addresses of a live `mjModel` and
/// its `mjData` (`MjModel._address`, `MjData._address`). The GIL is released meanwhile.
#[pyfunction]
fn collision(py: Python<'_>, model: usize, data: usize) -> PyResult<()> {
    if model == 0 || data == 0 {
        return Err(PyValueError::new_err("null mjModel or mjData"));
    }
    py.detach(|| {
        // SAFETY: the Python wrapper passes the addresses of a live MjModel and MjData, which it
        // keeps referenced for the duration of the call; the entry point never unwinds a panic.
        unsafe {
            specula::capi::mj_collision(model as *const mujoco_sys::mjModel, data as *mut mujoco_sys::mjData)
        }
    });
    Ok(())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SpeculaError", m.py().get_type::<SpeculaError>())?;
    m.add("SONAME", patch::SONAME)?;
    m.add_function(wrap_pyfunction!(enable, m)?)?;
    m.add_function(wrap_pyfunction!(disable, m)?)?;
    m.add_function(wrap_pyfunction!(state, m)?)?;
    m.add_function(wrap_pyfunction!(slots, m)?)?;
    m.add_function(wrap_pyfunction!(stats_json, m)?)?;
    m.add_function(wrap_pyfunction!(collision, m)?)?;
    Ok(())
}
