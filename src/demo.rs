//! The built-in scene: a small steel ball thrown fast at a thin plate, with speculative contacts
//! off and on, and what happened to the ball in plain words.

use crate::mj::{MjError, Model};
use crate::sim::{run, BodyReport, Route, RunOptions, RunReport, Start};

/// The scene (also shipped as `scenes/ball_plate.xml`).
pub const BALL_PLATE_XML: &str = include_str!("../scenes/ball_plate.xml");

/// Plate top and bottom heights and the ball radius in the built-in scene.
const PLATE_TOP: f64 = 0.3;
const PLATE_BOTTOM: f64 = 0.298;
const BALL_RADIUS: f64 = 0.01;
/// Half a second of simulated time at the scene's 1.25 ms step.
const STEPS: usize = 400;

/// What the ball did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// It ended below the plate: it went through.
    WentThrough,
    /// It rests on the plate top, `depth` metres into the soft contact.
    Landed {
        /// How far the ball's lowest point sits below the plate top.
        depth: f64,
    },
    /// It is above the plate but not resting.
    Bounced,
    /// It ended inside the plate.
    Stuck,
}

impl Outcome {
    /// Classifies the ball's final state.
    pub fn of(ball: &BodyReport) -> Outcome {
        let low = ball.pos[2] - BALL_RADIUS;
        if ball.pos[2] + BALL_RADIUS < PLATE_BOTTOM {
            Outcome::WentThrough
        } else if (low - PLATE_TOP).abs() < 1e-3 {
            Outcome::Landed { depth: PLATE_TOP - low }
        } else if low > PLATE_TOP {
            Outcome::Bounced
        } else {
            Outcome::Stuck
        }
    }

    /// A sentence saying what happened.
    pub fn describe(self) -> String {
        match self {
            Outcome::WentThrough => "the ball went through the plate and fell to the floor".into(),
            Outcome::Landed { depth } => {
                format!("the ball landed on the plate and rests on it ({:.3} mm into the soft contact)", depth * 1e3)
            }
            Outcome::Bounced => "the ball bounced off the plate and is still in the air".into(),
            Outcome::Stuck => "the ball ended stuck inside the plate".into(),
        }
    }
}

/// One run of the built-in scene.
#[derive(Clone, Debug)]
pub struct DemoRun {
    /// Whether speculative contacts were on.
    pub speculative: bool,
    /// The run's report.
    pub report: RunReport,
    /// What the ball did.
    pub outcome: Outcome,
}

/// Runs the built-in scene twice on `route`: speculative contacts off, then on.
pub fn run_demo(route: Route) -> Result<Vec<DemoRun>, MjError> {
    [false, true]
        .into_iter()
        .map(|speculative| {
            let mut model = Model::from_xml_str(BALL_PLATE_XML)?;
            model.set_speculative(speculative)?;
            let mut rust = specula_model::load_str(BALL_PLATE_XML, std::path::Path::new("."), "ball_plate.xml")
                .map_err(|e| MjError::Invalid(e.to_string()))?;
            let bit = mujoco_sys::mjENBL_SPECULATIVE;
            rust.opt.enableflags = if speculative { rust.opt.enableflags | bit } else { rust.opt.enableflags & !bit };
            let opts = RunOptions { route, steps: STEPS, start: Start::Key("throw".into()), robust: false };
            let report = run(&model, Some(&rust), &opts)?;
            let ball = report
                .bodies
                .iter()
                .find(|b| b.name == "ball")
                .ok_or_else(|| MjError::Invalid("the built-in scene has no body named 'ball'".into()))?;
            let outcome = Outcome::of(ball);
            Ok(DemoRun { speculative, report, outcome })
        })
        .collect()
}
