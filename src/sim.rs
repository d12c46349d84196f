//! Running a scene: stepping a model through a route and recording what its bodies did.

use crate::mj::collision::with_collision;
use crate::mj::{Data, MjError, Model, ObjType};
use crate::route::RustStage;
use crate::tunnel::{Tunnel, TunnelDetector};

pub use crate::report::{BodyReport, Route, RunReport, Start, MAX_STEPS};
use specula_model::types::{Integrator, SpeculativeMode};

/// What to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Collision route.
    pub route: Route,
    /// Number of `mj_step` calls.
    pub steps: usize,
    /// Initial state.
    pub start: Start,
    /// specula's robust speculative mode (rust route only).
    pub robust: bool,
}

/// Magnitude from which a state value is reported as huge: a tenth of MuJoCo's `mjMAXVAL`
/// (1e10), beyond which `mj_checkPos` and `mj_checkVel` warn and reset the state.
pub const HUGE_STATE: f64 = 1e9;

/// Sets both compilations of a scene up for a speculative mode: the `speculative` flag cleared
/// for `Off`, set for `Compat` and `Robust` (robust mode is the Rust stage's own setting, chosen
/// with [`RunOptions::robust`]; the model's flag stays on for it).
pub fn apply_speculative(
    mode: SpeculativeMode,
    model: &mut Model,
    rust: Option<&mut specula_model::Model>,
) -> Result<(), MjError> {
    let on = mode != SpeculativeMode::Off;
    if let Some(r) = rust {
        let bit = mujoco_sys::mjENBL_SPECULATIVE;
        r.opt.enableflags = if on { r.opt.enableflags | bit } else { r.opt.enableflags & !bit };
    }
    model.set_speculative(on)
}

/// Loads both models of a scene (MuJoCo's and specula's), with optional integrator and
/// speculative overrides applied to both.
pub fn load_pair(
    scene: &std::path::Path,
    integrator: Option<Integrator>,
    speculative: Option<SpeculativeMode>,
) -> Result<(Model, specula_model::Model), crate::Error> {
    let mut c = Model::from_xml_path(scene)?;
    let mut rust = specula_model::load_file(scene)?;
    if let Some(i) = integrator {
        c.set_integrator(i as i32)?;
        rust.opt.integrator = i;
    }
    if let Some(s) = speculative {
        apply_speculative(s, &mut c, Some(&mut rust))?;
    }
    Ok((c, rust))
}

/// Refuses a model timestep that cannot advance a run: zero, negative, NaN or infinite.
pub fn check_timestep(timestep: f64) -> Result<(), MjError> {
    if timestep.is_finite() && timestep > 0.0 {
        Ok(())
    } else {
        Err(MjError::Invalid(format!("the timestep is {timestep}: it must be a positive, finite number of seconds")))
    }
}

/// The first non-finite (or, with `huge`, finite but huge) value of a state: body positions
/// and orientations (named after the body), then `qpos` and `qvel` (by index).
pub fn state_problem(data: &Data, huge: bool) -> Option<String> {
    let bad = |x: f64| if huge { x.is_finite() && x.abs() >= HUGE_STATE } else { !x.is_finite() };
    let model = data.model();
    let body = |b: usize| match model.name(ObjType::Body, b) {
        n if n.is_empty() => format!("body {b}"),
        n => format!("body '{n}'"),
    };
    for (field, values, width) in [("position", data.xpos(), 3), ("orientation", data.xquat(), 4)] {
        if let Some(k) = values.iter().position(|&x| bad(x)) {
            let b = k / width;
            let v: Vec<String> = values[b * width..(b + 1) * width].iter().map(|&x| show(x)).collect();
            return Some(format!("{} {field} is [{}]", body(b), v.join(", ")));
        }
    }
    for (field, values) in [("qpos", data.qpos()), ("qvel", data.qvel())] {
        if let Some(k) = values.iter().position(|&x| bad(x)) {
            return Some(format!("{field}[{k}] is {}", show(values[k])));
        }
    }
    None
}

/// A state value in few characters: exponent notation from 1e6 on.
fn show(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Watches a run's states and says, once each, when they became non-finite and when they
/// became huge (see [`HUGE_STATE`]).
#[derive(Debug, Default)]
pub struct StateWatch {
    nonfinite: bool,
    huge: bool,
    /// What was seen, in words, in order.
    pub notes: Vec<String>,
}

impl StateWatch {
    /// Looks at the state after `step` steps (0: the initial state).
    pub fn observe(&mut self, data: &Data, step: usize) {
        let when = if step == 0 { "in the initial state".to_string() } else { format!("after step {step}") };
        if !self.nonfinite {
            if let Some(p) = state_problem(data, false) {
                self.nonfinite = true;
                self.notes.push(format!("non-finite state {when}: {p}"));
            }
        }
        if !self.huge && !self.nonfinite {
            if let Some(p) = state_problem(data, true) {
                self.huge = true;
                self.notes.push(format!("huge state {when} (|value| >= {HUGE_STATE:e}): {p}"));
            }
        }
    }

    /// Whether a non-finite state was seen.
    pub fn nonfinite(&self) -> bool {
        self.nonfinite
    }
}

/// Resolves a keyframe given by name or by index.
pub fn resolve_key(model: &Model, key: &str) -> Result<usize, MjError> {
    if let Some(id) = model.id(ObjType::Key, key) {
        return Ok(id);
    }
    match key.parse::<usize>() {
        Ok(i) if i < model.nkey() => Ok(i),
        _ => Err(MjError::Invalid(format!(
            "no keyframe named or numbered '{key}' (the model has {} keyframes)",
            model.nkey()
        ))),
    }
}

/// Puts `data` in the run's initial state and computes its kinematics.
pub fn start(data: &mut Data, start: &Start) -> Result<(), MjError> {
    match start {
        Start::Qpos0 => data.reset()?,
        Start::Key(k) => {
            let key = resolve_key(data.model(), k)?;
            data.reset_keyframe(key)?
        }
    }
    data.kinematics()
}

/// Steps `model` as `opts` says and reports the final poses and lowest heights of named bodies;
/// the `rust` route needs specula's own compilation of the same scene (`rust`).
pub fn run(model: &Model, rust: Option<&specula_model::Model>, opts: &RunOptions) -> Result<RunReport, MjError> {
    check_timestep(model.timestep())?;
    if opts.steps > MAX_STEPS {
        return Err(MjError::Invalid(format!(
            "{} steps asked for, more than the {MAX_STEPS} a run may take",
            opts.steps
        )));
    }
    match opts.route {
        Route::C if opts.robust => Err(MjError::Invalid("robust speculative mode needs the rust route".into())),
        Route::C => run_steps(model, opts, &mut |data| data.step()),
        Route::Native => Err(MjError::Invalid(
            "the native route does not run inside MuJoCo's step: use specula::native::run or Scene::run".into(),
        )),
        Route::Rust => {
            let rust = rust.ok_or_else(|| MjError::Invalid("the rust route needs specula's compiled model".into()))?;
            let mut stage = RustStage::new(rust);
            stage.set_robust(opts.robust);
            let error: std::cell::RefCell<Option<crate::route::StageError>> = Default::default();
            // A refused call keeps the step consistent with MuJoCo's own collision; the run fails after it.
            let mut replace = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
                stage.replace_or_library(m, d, &mut error.borrow_mut())
            };
            let raw = model.raw();
            let report = with_collision(raw, &mut replace, || {
                run_steps(model, opts, &mut |data| {
                    data.step()?;
                    match error.borrow_mut().take() {
                        Some(e) => Err(MjError::Invalid(format!("rust collision stage: {e}"))),
                        None => Ok(()),
                    }
                })
            })
            .0;
            report.map(|r| RunReport {
                fallback_pairs: stage.stats.fallback_pairs,
                mujoco_hulls: stage.stats.mujoco_hulls,
                ..r
            })
        }
    }
}

/// Steps `model` with `step` and reports what its named bodies did.
fn run_steps(
    model: &Model,
    opts: &RunOptions,
    step: &mut dyn FnMut(&mut Data) -> Result<(), MjError>,
) -> Result<RunReport, MjError> {
    let mut data = Data::new(model)?;
    start(&mut data, &opts.start)?;
    let named: Vec<(usize, String)> =
        (0..model.nbody()).map(|b| (b, model.name(ObjType::Body, b))).filter(|(_, n)| !n.is_empty()).collect();
    let height = |data: &Data, b: usize| data.body_pose_id(b).map_or(f64::INFINITY, |p| p.pos[2]);
    let mut min_z: Vec<f64> = named.iter().map(|(b, _)| height(&data, *b)).collect();
    let mut ncon_max = 0;
    let mut tunnels = TunnelDetector::new(model);
    tunnels.observe(&data);
    let mut watch = StateWatch::default();
    watch.observe(&data, 0);
    for i in 0..opts.steps {
        step(&mut data)?;
        ncon_max = ncon_max.max(data.contacts().len());
        // mj_step leaves the poses of the state before the step; recompute them for the new one.
        data.kinematics()?;
        tunnels.observe(&data);
        watch.observe(&data, i + 1);
        for (z, (b, _)) in min_z.iter_mut().zip(&named) {
            *z = z.min(height(&data, *b));
        }
    }
    let bodies = named
        .iter()
        .zip(min_z)
        .map(|((b, name), min_z)| {
            let pose = data.body_pose_id(*b).expect("named bodies are in range");
            BodyReport { name: name.clone(), pos: pose.pos, quat: pose.quat, min_z }
        })
        .collect();
    let robust = opts.robust && opts.route == Route::Rust;
    let tunnels = tunnels.finish();
    let mut notes = watch.notes;
    if robust {
        notes.extend(robust_bound_note(&tunnels));
    }
    Ok(RunReport {
        route: opts.route,
        steps: opts.steps,
        timestep: model.timestep(),
        speculative: model.speculative(),
        robust,
        ncon_max,
        fallback_pairs: 0,
        mujoco_hulls: 0,
        warnings: data.warnings().to_vec(),
        state_notes: notes,
        bodies,
        tunnels,
    })
}

/// The warning a robust run gives when something passed through anyway: robust mode holds
/// within a bound (README, "Where robust mode holds"), and a run beyond it must say so.
fn robust_bound_note(tunnels: &[Tunnel]) -> Option<String> {
    let first = tunnels.first()?;
    Some(format!(
        "robust mode let {} pass{} through (first: {} through {} at step {}, {:.3} m/s): the run is beyond the \
         bound robust mode holds within (README, 'Where robust mode holds'); a smaller timestep helps",
        tunnels.len(),
        if tunnels.len() == 1 { "" } else { "es" },
        first.body,
        first.through,
        first.step,
        first.speed
    ))
}
