//! The `rust` route: specula's collision stage producing MuJoCo's contacts inside MuJoCo's step.
//!
//! Each collision call MuJoCo makes (through the exported `mj_collision`, see
//! [`crate::mj::collision`]) runs [`RustStage::replace`]: the same reset MuJoCo's collision does,
//! the Rust broadphase and narrowphase on the geom poses of the current position stage, and the
//! contacts handed to MuJoCo in MuJoCo's order with `mj_addContact`. Geom pairs the Rust stage has
//! no collider for (height fields, SDFs) are computed by MuJoCo's own pair function and counted
//! as fallbacks, in the place MuJoCo would have put them.

use mujoco_sys as sys;
use specula_engine::collision::{CollideError, CollisionModel, CollisionStage, SleepState, SpeculativeInput, State};
use specula_engine::contact::Contact;
use specula_engine::narrowphase::ContactPoint;

use crate::mj::collision::{
    add_contacts, body_inertial_poses, geom_poses, library_pair_contacts, reset_collision_outputs, sleep_state,
    speculative_inputs,
};

/// Why the Rust stage could not serve a collision call (the caller then runs MuJoCo's own).
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// The engine's driver refused the call (inconsistent model or state, flexes, a full
    /// broadphase buffer, missing speculative or sleep inputs, a pair neither it nor MuJoCo
    /// has a function for).
    #[error(transparent)]
    Collide(#[from] CollideError),
}

/// Counters of a Rust stage over its life.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageStats {
    /// Collision calls served.
    pub calls: u64,
    /// Contacts produced.
    pub contacts: u64,
    /// Geom pairs computed by MuJoCo's own pair function (no Rust collider).
    pub fallback_pairs: u64,
    /// Contacts MuJoCo refused because its arena was full.
    pub dropped: u64,
    /// Meshes whose hull the stage takes from MuJoCo's `mjModel` (graph and polygon table)
    /// because specula's compiler could not put it in qhull's order (see
    /// `specula_model::Model::mesh_qhull_order`).
    pub mujoco_hulls: u64,
}

/// specula's collision stage for one model, with its reusable buffers.
pub struct RustStage {
    model: CollisionModel,
    stage: CollisionStage,
    contacts: Vec<Contact>,
    /// Meshes still to take from MuJoCo's model at the first call (see [`StageStats::mujoco_hulls`]).
    pending_hulls: Vec<usize>,
    /// What the stage has done so far.
    pub stats: StageStats,
}

impl RustStage {
    /// A stage for specula's compiled model.
    pub fn new(model: &specula_model::Model) -> RustStage {
        let mut stage = RustStage::from_collision_model(CollisionModel::from(model));
        // A hull specula could not put in qhull's order is the same polytope in another order;
        // MuJoCo's collisions depend on the order (support ties, multi-contact walks), so the
        // stage uses MuJoCo's own table for it, counted and reported.
        stage.pending_hulls = (0..model.mesh_qhull_order.len())
            .filter(|&i| !model.mesh_qhull_order[i] && stage.model.hulls.get(i).is_some_and(Option::is_some))
            .collect();
        stage
    }

    /// A stage for an already-built collision model.
    pub fn from_collision_model(model: CollisionModel) -> RustStage {
        RustStage {
            model,
            stage: CollisionStage::new(),
            contacts: Vec::new(),
            pending_hulls: Vec::new(),
            stats: StageStats::default(),
        }
    }

    /// Turns specula's robust speculative mode on or off (see `specula_engine::speculative::robust`).
    pub fn set_robust(&mut self, on: bool) {
        self.model.opt.robust = on;
    }

    /// The collision model the stage runs on.
    pub fn model(&self) -> &CollisionModel {
        &self.model
    }

    /// Mutable access to the collision model (e.g. to mirror a change the program made to `mjModel`).
    pub fn model_mut(&mut self) -> &mut CollisionModel {
        &mut self.model
    }

    /// Computes the contacts of `d`'s current position stage without touching `d`'s contact list.
    pub fn compute(&mut self, m: &sys::mjModel, d: &mut sys::mjData) -> Result<&[Contact], StageError> {
        for i in std::mem::take(&mut self.pending_hulls) {
            if let Some(h) = crate::mj::from_c::mesh_hull(m, i) {
                self.model.hulls[i] = Some(h);
                self.stats.mujoco_hulls += 1;
            }
        }
        let dp: *mut sys::mjData = d;
        // SAFETY: the state's slices point into mjData's buffer, which MuJoCo's pair functions
        // (the fallback) never write: they use only the arena stack and its counters. No
        // reference to the mjData struct itself is used after the fallback has run.
        let d: &sys::mjData = unsafe { &*dp };
        let (xpos, xmat) = geom_poses(m, d);
        let (xipos, ximat) = body_inertial_poses(m, d);
        let (body_awake, nbody_awake) = sleep_state(m, d);
        // Pairs without a Rust collider: MuJoCo's own pair function, in the driver, in place.
        let fallback = |g1: usize, g2: usize, margin: f64, out: &mut Vec<ContactPoint>| {
            // SAFETY: a valid model and data, as MuJoCo passed them to this collision call.
            library_pair_contacts(m, unsafe { &mut *dp }, g1, g2, margin, out)
        };
        let mut state = State::new(xpos, xmat);
        state.body_xipos = Some(xipos);
        state.body_ximat = Some(ximat);
        state.sleep = Some(SleepState { body_awake, nbody_awake });
        let (qvel, subtree_com, cdof, qacc) = speculative_inputs(m, d);
        state.speculative = Some(SpeculativeInput { qvel, subtree_com, cdof, qacc: Some(qacc) });
        state.fallback = Some(&fallback);
        let report = self.stage.collide(&self.model, &state, &mut self.contacts)?;
        self.stats.fallback_pairs += report.fallback_pairs as u64;
        Ok(&self.contacts)
    }

    /// Replaces MuJoCo's collision for one call: reset, compute, hand the contacts to MuJoCo.
    pub fn replace(&mut self, m: &sys::mjModel, d: &mut sys::mjData) -> Result<(), StageError> {
        self.replace_with(m, d, &mut |_| {})
    }

    /// [`RustStage::replace`], or MuJoCo's own collision when the stage refuses the call (the
    /// first refusal is kept in `error`, for the caller to report after the step).
    pub fn replace_or_library(&mut self, m: &sys::mjModel, d: &mut sys::mjData, error: &mut Option<StageError>) {
        if let Err(e) = self.replace(m, d) {
            error.get_or_insert(e);
            crate::mj::collision::run_library_collision(m, d);
        }
    }

    /// [`RustStage::replace`], with `tamper` applied to the contacts before MuJoCo gets them
    /// (for tests that prove a wrong collider is noticed).
    pub fn replace_with(
        &mut self,
        m: &sys::mjModel,
        d: &mut sys::mjData,
        tamper: &mut dyn FnMut(&mut Vec<Contact>),
    ) -> Result<(), StageError> {
        reset_collision_outputs(d);
        self.stats.calls += 1;
        self.compute(m, d)?;
        tamper(&mut self.contacts);
        let added = add_contacts(m, d, &self.contacts);
        self.stats.contacts += added as u64;
        self.stats.dropped += (self.contacts.len() - added) as u64;
        Ok(())
    }
}
