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
create_exception!(
    _native,
    MJCFError,
    PyValueError,
    "specula's MJCF compiler rejected the file (the message names file, line and column)."
);
create_exception!(_native, MuJoCoError, PyRuntimeError, "MuJoCo C rejected the file, or failed while it ran.");

/// A tool's error as the Python exception of its kind.
fn tool_error(e: specula::Error) -> PyErr {
    match e {
        specula::Error::Mjcf(e) => MJCFError::new_err(e.to_string()),
        specula::Error::MuJoCo(e) => MuJoCoError::new_err(e.to_string()),
        // the native route's refusals and failures (the bindings do not run that route yet)
        specula::Error::Native(e) => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A missing file as Python's own error for it (the tools would otherwise report a compile error).
fn existing(path: &str) -> PyResult<&std::path::Path> {
    let p = std::path::Path::new(path);
    if p.is_file() {
        Ok(p)
    } else {
        Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!("{path}: no such file")))
    }
}

/// `specula check --json` on `path`: both compilers' verdicts and every field compared.
#[pyfunction]
fn check_json(py: Python<'_>, path: &str) -> PyResult<String> {
    let p = existing(path)?;
    let outcome = py.detach(|| specula::check::check_file(p));
    Ok(outcome.to_json().to_string())
}

/// `specula diff --json` on `path`: `steps` steps from `key` (or qpos0), speculative mode
/// `speculative` (`off`, `compat`, `robust`; `None`: the scene's own).
#[pyfunction]
#[pyo3(signature = (path, steps, key=None, speculative=None))]
fn diff_json(
    py: Python<'_>,
    path: &str,
    steps: usize,
    key: Option<&str>,
    speculative: Option<&str>,
) -> PyResult<String> {
    let p = existing(path)?;
    let mode = match speculative {
        None => None,
        Some(n) => Some(SpeculativeMode::parse(n).ok_or_else(|| {
            PyValueError::new_err(format!("speculative={n:?} is not one of 'off', 'compat', 'robust', None"))
        })?),
    };
    let report = with_slot(|| {
        py.detach(|| {
            let scene = specula::Scene::load(p)?;
            let scene = match mode {
                Some(m) => scene.with_speculative(m)?,
                None => scene,
            };
            scene.diff(steps, key)
        })
    })?;
    Ok(report.map_err(tool_error)?.to_json().to_string())
}

/// Runs `f` with libmujoco's collision slot redirected to specula's entry point. The tools'
/// rust route installs its stage per thread behind that entry point, which libmujoco's own calls
/// reach only through the slot; when `enable()` has not redirected it, it is redirected for the
/// run (mode c meanwhile: other threads see MuJoCo's collision) and restored after.
fn with_slot<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    let redirected_here = !patch::installed();
    if redirected_here {
        patch::install().map_err(patch_error)?;
    }
    let out = f();
    if redirected_here {
        patch::uninstall().map_err(patch_error)?;
    }
    Ok(out)
}

/// `specula sweep --json`: the sweep `options` describe (a JSON object with the fields of
/// [`specula::sweep::request::Request`], plus `jobs`), run on `jobs` threads (0: one per core).
#[pyfunction]
fn sweep_json(py: Python<'_>, options: &str) -> PyResult<String> {
    use specula::sweep::request::{Request, RequestError};
    let o: serde_json::Value = serde_json::from_str(options).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let text = |k: &str| o[k].as_str().map(str::to_string);
    let float = |k: &str| o[k].as_f64();
    let int = |k: &str| o[k].as_u64();
    let routes = match o["routes"].as_array() {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|n| match n.as_str() {
                    Some("c") => Ok(specula::sim::Route::C),
                    Some("rust") => Ok(specula::sim::Route::Rust),
                    _ => Err(PyValueError::new_err(format!("route {n} is not one of 'c', 'rust'"))),
                })
                .collect::<PyResult<Vec<_>>>()?,
        ),
    };
    let scene = text("scene").map(std::path::PathBuf::from);
    if let Some(p) = &scene {
        // specula's compiler first: its errors name the file, line and column
        existing(&p.to_string_lossy())?;
        py.detach(|| specula_model::load_file(p)).map_err(|e| MJCFError::new_err(e.to_string()))?;
    }
    let request = Request {
        scene,
        preset: text("preset"),
        bodies: o["bodies"]
            .as_array()
            .map_or(Vec::new(), |b| b.iter().filter_map(|n| n.as_str().map(str::to_string)).collect()),
        speeds: text("speeds"),
        direction: text("direction"),
        toward: text("toward"),
        offsets: int("offsets").map(|n| n as usize),
        dense: o["dense"].as_bool().unwrap_or(false),
        gap: float("gap"),
        tilt: float("tilt"),
        jitter: float("jitter"),
        seed: int("seed"),
        draws: int("draws"),
        timesteps: text("timesteps"),
        duration: float("duration"),
        key: text("key"),
        routes,
        modes: text("modes"),
        refine: o["refine"].as_bool().unwrap_or(false),
    };
    let jobs = int("jobs").unwrap_or(0) as usize;
    let doc = with_slot(|| {
        py.detach(|| -> Result<serde_json::Value, RequestError> {
            let sweep = request.sweep()?;
            let runs = sweep.runs();
            if runs.is_empty() {
                return Err(RequestError::Invalid(
                    "no runs: the robust mode runs only on the rust route (add 'rust' to routes)".into(),
                ));
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                .build()
                .map_err(|e| RequestError::Invalid(format!("could not start the worker threads: {e}")))?;
            let results =
                pool.install(|| specula::sweep::run_refined(&sweep, &runs, runs.len(), &|_| {}, &|_, _| {}))?;
            Ok(specula::sweep::report::to_json(&results, &sweep, (1, 1)))
        })
    })?;
    match doc {
        Ok(doc) => Ok(doc.to_string()),
        Err(RequestError::Invalid(m)) => Err(PyValueError::new_err(m)),
        Err(RequestError::Scene(e)) => Err(MuJoCoError::new_err(e.to_string())),
    }
}

/// One array of specula's compiled model: (MuJoCo's name, values per row, the values as
/// little-endian float64 bytes).
type ArrayRow = (String, usize, Vec<u8>);

/// specula's compilation of `path`: every array `check` compares, by MuJoCo's names.
#[pyfunction]
fn load_arrays(py: Python<'_>, path: &str) -> PyResult<Vec<ArrayRow>> {
    let p = existing(path)?;
    let model = py.detach(|| specula_model::load_file(p)).map_err(|e| MJCFError::new_err(e.to_string()))?;
    Ok(specula::check::model_arrays(&model)
        .into_iter()
        .map(|f| (f.name, f.cols, f.values.iter().flat_map(|v| v.to_le_bytes()).collect()))
        .collect())
}

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
        unsafe { specula::capi::mj_collision(model as *const mujoco_sys::mjModel, data as *mut mujoco_sys::mjData) }
    });
    Ok(())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SpeculaError", m.py().get_type::<SpeculaError>())?;
    m.add("MJCFError", m.py().get_type::<MJCFError>())?;
    m.add("MuJoCoError", m.py().get_type::<MuJoCoError>())?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_function(wrap_pyfunction!(diff_json, m)?)?;
    m.add_function(wrap_pyfunction!(load_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_json, m)?)?;
    m.add("SONAME", patch::SONAME)?;
    m.add_function(wrap_pyfunction!(enable, m)?)?;
    m.add_function(wrap_pyfunction!(disable, m)?)?;
    m.add_function(wrap_pyfunction!(state, m)?)?;
    m.add_function(wrap_pyfunction!(slots, m)?)?;
    m.add_function(wrap_pyfunction!(stats_json, m)?)?;
    m.add_function(wrap_pyfunction!(collision, m)?)?;
    Ok(())
}
