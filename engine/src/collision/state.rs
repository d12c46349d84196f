//! The per-call input of the collision stage: the position-stage results it reads, borrowed.
//!
//! MuJoCo's `mj_collision` is a pure function of the model, these kinematic quantities and the
//! sleep state (see `shared/reference/mujoco-4.0-pipeline.md`, mode CP), so this is all a
//! caller must provide. Slices are indexed like the `mjData` arrays they mirror.

/// `mjS_ASLEEP` in `body_awake`.
pub const SLEEP_ASLEEP: i32 = 0;
/// `mjS_AWAKE` in `body_awake`.
pub const SLEEP_AWAKE: i32 = 1;

/// Sleep state, needed only when `mjENBL_SLEEP` is set.
#[derive(Clone, Copy, Debug)]
pub struct SleepState<'a> {
    /// `mjData.body_awake` (nbody): -1 static, 0 asleep, 1 awake (`mjtSleepState`).
    pub body_awake: &'a [i32],
    /// `mjData.nbody_awake`: awake dynamic and static bodies.
    pub nbody_awake: usize,
}

/// What speculative contacts will read (`mjENBL_SPECULATIVE`); unused by the driver until the
/// speculative stage is connected, kept here so callers fill it in one place.
#[derive(Clone, Copy, Debug)]
pub struct SpeculativeInput<'a> {
    /// `mjData.qvel` (nv).
    pub qvel: &'a [f64],
    /// `mjData.subtree_com` (nbody).
    pub subtree_com: &'a [[f64; 3]],
    /// `mjData.cdof` (nv): com-based motion axes.
    pub cdof: &'a [[f64; 6]],
}

/// Borrowed position-stage state for one collision call.
#[derive(Clone, Copy, Debug)]
pub struct State<'a> {
    /// `mjData.geom_xpos` (ngeom): world position of each geom frame.
    pub geom_xpos: &'a [[f64; 3]],
    /// `mjData.geom_xmat` (ngeom): world orientation of each geom, row-major.
    pub geom_xmat: &'a [[f64; 9]],
    /// Sleep state; required when the model enables sleep.
    pub sleep: Option<SleepState<'a>>,
    /// Inputs of speculative contacts; required once `mjENBL_SPECULATIVE` is supported.
    pub speculative: Option<SpeculativeInput<'a>>,
}

impl<'a> State<'a> {
    /// A state with geom poses only (no sleep, no speculative inputs).
    pub fn new(geom_xpos: &'a [[f64; 3]], geom_xmat: &'a [[f64; 9]]) -> Self {
        State { geom_xpos, geom_xmat, sleep: None, speculative: None }
    }
}
