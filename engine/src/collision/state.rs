//! The per-call input of the collision stage: the position-stage results it reads, borrowed.
//!
//! MuJoCo's `mj_collision` is a pure function of the model, these kinematic quantities and the
//! sleep state (`docs/measurements.md`, P2), so this is all a
//! caller must provide. Slices are indexed like the `mjData` arrays they mirror.

use crate::narrowphase::ContactPoint;

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

/// What speculative contacts and robust mode read (`mjENBL_SPECULATIVE`, robust mode): the
/// velocities the geom motions are predicted from.
#[derive(Clone, Copy, Debug)]
pub struct SpeculativeInput<'a> {
    /// `mjData.qvel` (nv).
    pub qvel: &'a [f64],
    /// `mjData.subtree_com` (nbody).
    pub subtree_com: &'a [[f64; 3]],
    /// `mjData.cdof` (nv): com-based motion axes.
    pub cdof: &'a [[f64; 6]],
    /// `mjData.qacc_smooth` (nv) as the collision stage finds it: the previous step's
    /// acceleration without constraint forces (robust mode only, to catch bodies that actuators
    /// or applied forces re-accelerate within the step).
    pub qacc: Option<&'a [f64]>,
}

/// A user contact filter in the role of MuJoCo's `mjcb_contactfilter`: called with the two
/// geoms of a candidate pair (not explicit pairs), returns true to discard it. When set, it
/// replaces the geom bitmask test (the body-level bitmask tests of the broadphase still apply).
pub type ContactFilter<'a> = &'a dyn Fn(usize, usize) -> bool;

/// Computes the contact points of geoms `g1`, `g2` (narrowphase order) within `margin` into
/// `out` (cleared by the caller); false when it has no function for the pair either.
pub type PairFallback<'a> = &'a dyn Fn(usize, usize, f64, &mut Vec<ContactPoint>) -> bool;

/// Borrowed position-stage state for one collision call.
#[derive(Clone, Copy)]
pub struct State<'a> {
    /// `mjData.geom_xpos` (ngeom): world position of each geom frame.
    pub geom_xpos: &'a [[f64; 3]],
    /// `mjData.geom_xmat` (ngeom): world orientation of each geom, row-major.
    pub geom_xmat: &'a [[f64; 9]],
    /// `mjData.xipos` (nbody): body inertial-frame positions, for the mid-phase trees.
    pub body_xipos: Option<&'a [[f64; 3]]>,
    /// `mjData.ximat` (nbody): body inertial-frame orientations, for the mid-phase trees.
    /// Without these two (or without trees in the model) the mid-phase tests every collidable
    /// geom pair of the two bodies instead (see `CollisionModel::bvh_aabb`).
    pub body_ximat: Option<&'a [[f64; 9]]>,
    /// Sleep state; required when the model enables sleep.
    pub sleep: Option<SleepState<'a>>,
    /// Inputs of speculative contacts; required when `mjENBL_SPECULATIVE` or robust mode is on.
    pub speculative: Option<SpeculativeInput<'a>>,
    /// Optional `mjcb_contactfilter` replacement.
    pub contact_filter: Option<ContactFilter<'a>>,
    /// Contacts of the pairs the engine has no collider for (height fields, SDFs), computed in
    /// their place in the list; without it they are reported in
    /// [`crate::collision::CollideReport::unsupported`].
    pub fallback: Option<PairFallback<'a>>,
}

impl std::fmt::Debug for State<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("geom_xpos", &self.geom_xpos)
            .field("geom_xmat", &self.geom_xmat)
            .field("body_xipos", &self.body_xipos)
            .field("body_ximat", &self.body_ximat)
            .field("sleep", &self.sleep)
            .field("speculative", &self.speculative)
            .field("contact_filter", &self.contact_filter.map(|_| "fn"))
            .field("fallback", &self.fallback.map(|_| "fn"))
            .finish()
    }
}

impl<'a> State<'a> {
    /// A state with geom poses only (no body frames, sleep, speculative inputs, contact filter or
    /// fallback).
    pub fn new(geom_xpos: &'a [[f64; 3]], geom_xmat: &'a [[f64; 9]]) -> Self {
        State {
            geom_xpos,
            geom_xmat,
            body_xipos: None,
            body_ximat: None,
            sleep: None,
            speculative: None,
            contact_filter: None,
            fallback: None,
        }
    }
}
