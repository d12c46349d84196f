//! What a run reports, whichever route stepped it: the route, the initial state, and where the
//! bodies went. Free of MuJoCo C, so the native-only build (no `mujoco` feature) has it too.

/// How a scene is stepped: MuJoCo's step with one of two collision stages, or specula's own
/// step with no MuJoCo at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// MuJoCo C's own `mj_collision`.
    C,
    /// specula's Rust collision stage inside MuJoCo's step.
    Rust,
    /// specula's native step ([`specula_native`]): pure Rust, no call into libmujoco.
    Native,
}

impl Route {
    /// The route's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Route::C => "c",
            Route::Rust => "rust",
            Route::Native => "native",
        }
    }
}

/// How a run starts: from `qpos0` or from a keyframe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The model's reference configuration (`mj_resetData`).
    Qpos0,
    /// A keyframe given by name or index (`mj_resetDataKeyframe`).
    Key(String),
}

/// The most steps a run may take: a timestep of 1e-12 s over the default 1 s would otherwise
/// ask for 10^12 steps, which looks like a hang (about 10^8 steps of a small scene fit in a
/// few minutes).
pub const MAX_STEPS: usize = 100_000_000;

/// One passage of a body through another (the tunnel detector of the MuJoCo routes finds them).
#[derive(Clone, Debug, PartialEq)]
pub struct Tunnel {
    /// The body that went through (the one whose tracked point crossed).
    pub body: String,
    /// The body it went through (for geoms on the world body, the geom's name when it has one).
    pub through: String,
    /// The step (1-based: the n-th `mj_step`) during which it crossed or entered.
    pub step: usize,
    /// The tracked point's speed relative to the obstacle over that step, in m/s.
    pub speed: f64,
}

/// One named body at the end of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyReport {
    /// Body name.
    pub name: String,
    /// World position after the last step.
    pub pos: [f64; 3],
    /// World orientation (w, x, y, z) after the last step.
    pub quat: [f64; 4],
    /// Lowest z the body origin reached (initial state included).
    pub min_z: f64,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// Route used.
    pub route: Route,
    /// Steps taken.
    pub steps: usize,
    /// Model timestep.
    pub timestep: f64,
    /// Whether the model's `speculative` flag was on.
    pub speculative: bool,
    /// Whether specula's robust mode ran (rust route).
    pub robust: bool,
    /// Largest number of contacts seen after any step.
    pub ncon_max: usize,
    /// Rust route: geom pairs computed by MuJoCo's own pair function because specula has no
    /// collider for them (height fields, SDFs); 0 on the C route.
    pub fallback_pairs: u64,
    /// Rust route: meshes whose hull came from MuJoCo's model because specula could not put it
    /// in qhull's order; 0 on the C route.
    pub mujoco_hulls: u64,
    /// Warnings MuJoCo emitted.
    pub warnings: Vec<String>,
    /// What specula noticed about the states (non-finite or huge values: which body or field,
    /// which step), in words; `run --json` lists them in `warnings` after MuJoCo's.
    pub state_notes: Vec<String>,
    /// Every named body.
    pub bodies: Vec<BodyReport>,
    /// Every time a body passed through another ([`crate::tunnel`]).
    pub tunnels: Vec<Tunnel>,
}

impl RunReport {
    /// The report as the JSON object `specula run --json` prints.
    pub fn to_json(&self) -> serde_json::Value {
        let bodies: Vec<serde_json::Value> = self
            .bodies
            .iter()
            .map(|b| serde_json::json!({"name": b.name, "pos": b.pos, "quat": b.quat, "min_z": b.min_z}))
            .collect();
        let tunnels: Vec<serde_json::Value> = self
            .tunnels
            .iter()
            .map(|t| serde_json::json!({"body": t.body, "through": t.through, "step": t.step, "speed": t.speed}))
            .collect();
        serde_json::json!({
            "route": self.route.name(),
            "steps": self.steps,
            "timestep": self.timestep,
            "speculative": self.speculative,
            "robust": self.robust,
            "ncon_max": self.ncon_max,
            "fallback_pairs": self.fallback_pairs,
            "mujoco_hulls": self.mujoco_hulls,
            "warnings": self.warnings.iter().chain(&self.state_notes).collect::<Vec<_>>(),
            "bodies": bodies,
            "tunnels": tunnels,
        })
    }
}
