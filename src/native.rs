//! The native route from a program: an MJCF file stepped by specula's own step
//! ([`specula_native`], pure Rust, no call into libmujoco) and reported like the runs of the
//! MuJoCo routes ([`RunReport`]). Present in every build, the native-only one included.
//!
//! ```
//! use specula::native;
//! use specula::report::Start;
//!
//! let xml = r#"<mujoco>
//!   <worldbody>
//!     <body name="arm" pos="0 0 1">
//!       <joint type="hinge" axis="0 1 0" damping="0.1"/>
//!       <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" contype="0" conaffinity="0"/>
//!     </body>
//!   </worldbody>
//! </mujoco>"#;
//! let mut arm = specula_native::Native::load_str(xml, std::path::Path::new("."), "arm.xml")?;
//! let report = native::run(&mut arm, 500, &Start::Qpos0)?;
//! assert_eq!(report.route.name(), "native");
//! assert!(report.bodies.iter().any(|b| b.name == "arm"));
//! # Ok::<(), specula::native::Error>(())
//! ```

use std::path::Path;

use specula_model::types::Integrator;
pub use specula_native::{Native, NativeError};

use crate::report::{BodyReport, Route, RunReport, Start, MAX_STEPS};

/// `mjENBL_SPECULATIVE`: the model's speculative-contacts flag.
const ENBL_SPECULATIVE: u32 = 128;

/// Why a native run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The native route refuses the model (naming what it lacks), the file does not compile,
    /// or a step met a state MuJoCo would reset.
    #[error(transparent)]
    Native(#[from] NativeError),
    /// The keyframe asked for is neither a name nor an index of the model's keyframes.
    #[error("no keyframe named or numbered '{key}' (the model has {nkey} keyframes)")]
    NoKey {
        /// The name or index asked for.
        key: String,
        /// Number of keyframes.
        nkey: usize,
    },
    /// A run that cannot advance or would not end: a bad timestep or too many steps.
    #[error("{0}")]
    Invalid(String),
}

/// Reads, compiles and checks an MJCF file for the native route (as [`Native::load_file`]), with
/// the scene's integrator replaced by `integrator` when one is given.
pub fn load(path: &Path, integrator: Option<Integrator>) -> Result<Native, NativeError> {
    specula_native::scope::check_mjcf(&specula_model::xml::parse_file(path)?)?;
    let mut model = specula_model::load_file(path)?;
    if let Some(i) = integrator {
        model.opt.integrator = i;
    }
    Native::new(model)
}

/// Puts `native` in the run's initial state (`mj_resetData` or `mj_resetDataKeyframe`, the
/// keyframe by name or index) and computes its poses.
pub fn start(native: &mut Native, start: &Start) -> Result<(), Error> {
    match start {
        Start::Qpos0 => native.reset(),
        Start::Key(k) => {
            let m = &native.model.model;
            let id = m.key_names.iter().position(|n| !n.is_empty() && n == k);
            let id = id.or_else(|| k.parse::<usize>().ok().filter(|&i| i < m.nkey));
            let id = id.ok_or_else(|| Error::NoKey { key: k.clone(), nkey: m.nkey })?;
            native.reset_keyframe(id)?;
        }
    }
    native.kinematics();
    Ok(())
}

/// Steps `native` `steps` times from `start` and reports where its named bodies went, as the
/// MuJoCo routes' runs do (the most contacts of a step; no fallbacks, and no pass detection,
/// whose detector reads MuJoCo's data).
pub fn run(native: &mut Native, steps: usize, from: &Start) -> Result<RunReport, Error> {
    let timestep = native.model.model.opt.timestep;
    if !(timestep.is_finite() && timestep > 0.0) {
        return Err(Error::Invalid(format!(
            "the timestep is {timestep}: it must be a positive, finite number of seconds"
        )));
    }
    if steps > MAX_STEPS {
        return Err(Error::Invalid(format!("{steps} steps asked for, more than the {MAX_STEPS} a run may take")));
    }
    start(native, from)?;
    let m = &native.model.model;
    let named: Vec<(usize, String)> =
        m.body_names.iter().enumerate().filter(|(_, n)| !n.is_empty()).map(|(b, n)| (b, n.clone())).collect();
    let speculative = m.opt.enableflags & ENBL_SPECULATIVE != 0;
    let mut min_z: Vec<f64> = named.iter().map(|(b, _)| native.data.xpos[3 * b + 2]).collect();
    let mut ncon_max = 0;
    for i in 0..steps {
        native.step().map_err(|e| match e {
            NativeError::BadState { .. } => Error::Invalid(format!("step {}: {e}", i + 1)),
            e => Error::Native(e),
        })?;
        // the step leaves the poses of the state before it, as mj_step does: recompute them
        ncon_max = ncon_max.max(native.data.contacts.len());
        native.kinematics();
        for (z, (b, _)) in min_z.iter_mut().zip(&named) {
            *z = z.min(native.data.xpos[3 * b + 2]);
        }
    }
    let d = &native.data;
    let bodies = named
        .into_iter()
        .zip(min_z)
        .map(|((b, name), min_z)| {
            let (p, q) = (&d.xpos[3 * b..3 * b + 3], &d.xquat[4 * b..4 * b + 4]);
            BodyReport { name, pos: [p[0], p[1], p[2]], quat: [q[0], q[1], q[2], q[3]], min_z }
        })
        .collect();
    Ok(RunReport {
        route: Route::Native,
        steps,
        timestep,
        speculative,
        robust: native.model.collision.opt.robust,
        ncon_max,
        fallback_pairs: 0,
        mujoco_hulls: 0,
        warnings: Vec::new(),
        state_notes: Vec::new(),
        bodies,
        tunnels: Vec::new(),
    })
}
