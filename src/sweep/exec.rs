//! Running one cell of the matrix and labelling what the part did.
//!
//! Labels follow §0 of the MuJoCo 4.0 measurements:
//! * **PASS**: the part is completely below the plate's bottom face (the run stops there);
//! * **LAND**: at the end it rests on the plate: speed below 0.05 m/s and lowest point within 1 mm of
//!   the top face;
//! * **BOUNCE**: at the end it is above the plate (its centre above the top face) but not at rest;
//! * **STUCK**: its centre is at or below the top face, yet it is not completely below the plate:
//!   embedded in it, or skewered through it;
//! * **OFF** (specula's own label): it ended below the plate, but its centre was outside the
//!   plate's footprint when it got there: it left over an edge (skidding or bouncing sideways),
//!   it did not go through. The measurements have no such runs; specula's robust mode can throw
//!   a fast tilted coin sideways off the pane.
//!
//! The measurements do not spell out where BOUNCE ends and STUCK begins. Judging by the centre
//! reproduces table A5's BOUNCE counts (14 for 10/5 with speculation off; judging by the lowest point
//! gives 13 BOUNCE + 1 STUCK: a ball rebounding at 11.8 m/s that is 2.1 mm into the plate at 0.5 s),
//! and calls a capsule hanging through the pane STUCK, not BOUNCE.
//!
//! **dip** is the deepest the lowest point went below the top face (mm), kept for LAND and BOUNCE;
//! **rest** is the final lowest point minus the top face (mm; negative is penetration).
//!
//! Scene C (two balls head-on) has its own two labels, as in measurements §C2: **SWAP** when the balls
//! end in the opposite order along x (they passed through each other), **STOP** otherwise; its
//! **closest** is the smallest centre distance seen after any step (mm).

use crate::mj::collision::with_collision;
use crate::mj::{Data, MjError, Model, ObjType};
use crate::route::RustStage;
use crate::sim::Route;
use crate::tunnel::TunnelDetector;
use specula_native::Native;

use super::scene::{self, Part, SceneKind, PLATE_HALF, PLATE_TOP};
use super::RunSpec;

/// Speed below which a part counts as at rest (m/s).
const REST_SPEED: f64 = 0.05;
/// How close to the top face a resting part's lowest point must be (m).
const REST_BAND: f64 = 1e-3;

/// What the part did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Went through: ended completely below the plate.
    Pass,
    /// Rests on the plate.
    Land,
    /// Above the plate, still moving.
    Bounce,
    /// Embedded in the plate.
    Stuck,
    /// Ended below the plate after leaving it over an edge.
    Off,
    /// Scene C: the two bodies passed through each other.
    Swap,
    /// Scene C: they did not.
    Stop,
}

impl Outcome {
    /// The label as the reference tables spell it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Land => "LAND",
            Outcome::Bounce => "BOUNCE",
            Outcome::Stuck => "STUCK",
            Outcome::Off => "OFF",
            Outcome::Swap => "SWAP",
            Outcome::Stop => "STOP",
        }
    }

    /// The label called `name` (as [`Outcome::name`] spells it).
    pub fn parse(name: &str) -> Option<Outcome> {
        [Outcome::Pass, Outcome::Land, Outcome::Bounce, Outcome::Stuck, Outcome::Off, Outcome::Swap, Outcome::Stop]
            .into_iter()
            .find(|o| o.name() == name)
    }

    /// Whether the part went through (PASS or SWAP).
    pub fn went_through(self) -> bool {
        matches!(self, Outcome::Pass | Outcome::Swap)
    }
}

/// The result of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// What was run.
    pub spec: RunSpec,
    /// Its label.
    pub outcome: Outcome,
    /// Deepest dip of the lowest point below the top face (mm), for LAND and BOUNCE.
    pub dip: Option<f64>,
    /// Final lowest point minus the top face (mm).
    pub rest: f64,
    /// Steps taken.
    pub steps: usize,
    /// Passages through another body that [`crate::tunnel`] reported.
    pub tunnels: usize,
    /// Scene C: smallest centre distance after any step (mm).
    pub closest: Option<f64>,
    /// A user's scene: what its body did beyond the shared fields.
    pub user: Option<super::user::UserResult>,
}

/// How a run advances MuJoCo's data by one step: `mj_step` (with the route's collision stage
/// installed around the whole run by [`on_route`]), or specula's native step.
pub enum Stepper<'a> {
    /// MuJoCo's `mj_step`.
    Mj,
    /// The native step: the data's time, `qpos` and `qvel` are handed to the native route,
    /// stepped there and handed back, so the run reads MuJoCo's data as on the other routes
    /// (its poses recomputed by `mj_kinematics`, which the run calls after every step).
    Native(&'a mut Native),
}

impl Stepper<'_> {
    /// One step of `data` on this route.
    pub fn step(&mut self, data: &mut Data) -> Result<(), MjError> {
        let Stepper::Native(native) = self else { return data.step() };
        let n = &mut native.data;
        n.qpos.copy_from_slice(data.qpos());
        n.qvel.copy_from_slice(data.qvel());
        n.time = data.time();
        native.step().map_err(|e| MjError::Invalid(format!("native step: {e}")))?;
        let n = &native.data;
        data.qpos_mut().copy_from_slice(&n.qpos);
        data.qvel_mut().copy_from_slice(&n.qvel);
        let time = n.time;
        data.with_mj(|_, d| d.time = time)
    }
}

/// Runs `r` on `model` (compiled from [`scene::mjcf`] and set up for `r.mode`); the rust route
/// needs specula's compilation of the same scene (`rust`).
pub fn run_one(
    model: &Model,
    rust: Option<&specula_model::Model>,
    detector: TunnelDetector,
    r: &RunSpec,
) -> Result<RunResult, MjError> {
    let go = |stepper: &mut Stepper| match r.scene {
        SceneKind::A | SceneKind::B => run_plate(model, detector, r, stepper),
        SceneKind::C => run_two_body(model, detector, r, stepper),
        SceneKind::User => Err(MjError::Invalid("a scene run needs its setup (user::Setup::run)".into())),
    };
    on_route(rust, r, model, go)
}

/// Calls `go` with `r`'s route installed on `model`: MuJoCo's own collision, specula's Rust
/// collision stage, or the native step (both from `rust`, specula's compilation of the same
/// scene), in `r`'s mode.
pub fn on_route(
    rust: Option<&specula_model::Model>,
    r: &RunSpec,
    model: &Model,
    go: impl FnOnce(&mut Stepper) -> Result<RunResult, MjError>,
) -> Result<RunResult, MjError> {
    match (r.route, rust) {
        (Route::C, _) => go(&mut Stepper::Mj),
        (Route::Rust, Some(rust)) => {
            let mut stage = RustStage::new(rust);
            stage.set_robust(r.mode == super::SpeculativeMode::Robust);
            let error = std::cell::RefCell::new(None::<crate::route::StageError>);
            let mut replace = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
                stage.replace_or_library(m, d, &mut error.borrow_mut())
            };
            let out = with_collision(model.raw(), &mut replace, || go(&mut Stepper::Mj)).0;
            match error.into_inner() {
                Some(e) => Err(MjError::Invalid(format!("rust collision stage: {e}"))),
                None => out,
            }
        }
        (Route::Native, Some(rust)) => {
            let mut native = Native::new(rust.clone()).map_err(|e| MjError::Invalid(format!("native route: {e}")))?;
            native.set_speculative(r.mode);
            go(&mut Stepper::Native(&mut native))
        }
        (Route::Rust | Route::Native, None) => {
            Err(MjError::Invalid(format!("the {} route needs specula's compiled model", r.route.name())))
        }
    }
}

/// Scene C: both balls start `offset` of one step's relative travel apart (2·v·h), closing at v each.
fn run_two_body(
    model: &Model,
    mut detector: TunnelDetector,
    r: &RunSpec,
    stepper: &mut Stepper,
) -> Result<RunResult, MjError> {
    let radius = match r.part {
        Part::Ball { r } => r,
        _ => return Err(MjError::Invalid("scene C runs two balls".into())),
    };
    let gap = r.offset * 2.0 * r.speed * r.timestep;
    let x = radius + gap / 2.0;
    let mut data = Data::new(model)?;
    let q = data.qpos_mut();
    q[..7].copy_from_slice(&[-x, 0.0, scene::C_HEIGHT, 1.0, 0.0, 0.0, 0.0]);
    q[7..14].copy_from_slice(&[x, 0.0, scene::C_HEIGHT, 1.0, 0.0, 0.0, 0.0]);
    let v = data.qvel_mut();
    v[0] = r.speed;
    v[6] = -r.speed;
    data.kinematics()?;
    detector.observe(&data);
    let total = (r.duration / r.timestep).round() as usize;
    let mut closest = f64::INFINITY;
    for _ in 0..total {
        stepper.step(&mut data)?;
        data.kinematics()?;
        detector.observe(&data);
        let q = data.qpos();
        let d = [q[7] - q[0], q[8] - q[1], q[9] - q[2]];
        closest = closest.min((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
    }
    let q = data.qpos();
    let outcome = if q[0] > q[7] { Outcome::Swap } else { Outcome::Stop };
    let tunnels = detector.finish().len();
    Ok(RunResult {
        spec: r.clone(),
        outcome,
        dip: None,
        rest: 0.0,
        steps: total,
        tunnels,
        closest: Some(closest * 1e3),
        user: None,
    })
}

/// Scenes A and B: a part onto a static plate.
fn run_plate(
    model: &Model,
    mut detector: TunnelDetector,
    r: &RunSpec,
    stepper: &mut Stepper,
) -> Result<RunResult, MjError> {
    let part = model
        .id(ObjType::Body, "part")
        .ok_or_else(|| MjError::Invalid("the sweep scene has no body named 'part'".into()))?;
    let bottom = PLATE_TOP - r.plate;
    let start = scene::start(r);
    let mut data = Data::new(model)?;
    start.apply(&mut data);
    data.kinematics()?;
    detector.observe(&data);

    // lowest and highest point of the part, and whether its centre is over the plate
    let extent = |data: &Data| {
        let pose = data.body_pose_id(part).expect("the part's id is in range");
        let h = scene::half_height(r.part, pose.quat);
        let over = pose.pos[0].abs() <= PLATE_HALF && pose.pos[1].abs() <= PLATE_HALF;
        (pose.pos[2] - h, pose.pos[2] + h, over)
    };
    let total = (r.duration / r.timestep).round() as usize;
    let mut dip: f64 = 0.0;
    let mut steps = 0;
    // set once the part is completely below the plate (the run stops there)
    let mut below = None;
    while steps < total {
        stepper.step(&mut data)?;
        // mj_step leaves the pre-step poses; recompute them for the new state.
        data.kinematics()?;
        detector.observe(&data);
        steps += 1;
        let (low, high, over) = extent(&data);
        dip = dip.max(PLATE_TOP - low);
        if high < bottom {
            below = Some(if over { Outcome::Pass } else { Outcome::Off });
            break;
        }
    }
    let (low, high, _) = extent(&data);
    let centre = 0.5 * (low + high);
    let v = data.qvel();
    let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let outcome = if let Some(o) = below {
        o
    } else if speed < REST_SPEED && (low - PLATE_TOP).abs() <= REST_BAND {
        Outcome::Land
    } else if centre > PLATE_TOP {
        Outcome::Bounce
    } else {
        Outcome::Stuck
    };
    let held = matches!(outcome, Outcome::Land | Outcome::Bounce);
    let tunnels = detector.finish().iter().filter(|t| t.body == "part" && t.through == "plate").count();
    Ok(RunResult {
        spec: RunSpec { offset: start.offset, ..r.clone() },
        outcome,
        dip: held.then_some(dip * 1e3),
        rest: (low - PLATE_TOP) * 1e3,
        steps,
        tunnels,
        closest: None,
        user: None,
    })
}
