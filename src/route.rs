//! The `rust` route: specula's collision stage producing MuJoCo's contacts inside MuJoCo's step.
//!
//! Each collision call MuJoCo makes (through the exported `mj_collision`, see
//! [`crate::mj::collision`]) runs [`RustStage::replace`]: the same reset MuJoCo's collision does,
//! the Rust broadphase and narrowphase on the geom poses of the current position stage, and the
//! contacts handed to MuJoCo in MuJoCo's order with `mj_addContact`. Geom pairs the Rust stage has
//! no collider for (height fields, SDFs) are computed by MuJoCo's own pair function and counted
//! as fallbacks, in the place MuJoCo would have put them.

use mujoco_sys as sys;
use specula_engine::collision::{
    CollideError, CollisionModel, CollisionStage, ContactSink, SleepState, SpeculativeInput, State,
};
use specula_engine::contact::Contact;
use specula_engine::narrowphase::ContactPoint;

use crate::mj::collision::{
    add_contacts, body_inertial_poses, geom_poses, library_pair_contacts, reset_collision_outputs, sleep_state,
    speculative_inputs, to_mj_contact,
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
        // the model is the stage's own: its hulls change only through `model_mut` and the
        // first call's hull replacement, which both tell the stage
        let mut stage = CollisionStage::new();
        stage.keep_hull_scope();
        RustStage { model, stage, contacts: Vec::new(), pending_hulls: Vec::new(), stats: StageStats::default() }
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
        self.stage.hulls_changed();
        &mut self.model
    }

    /// Computes the contacts of `d`'s current position stage without touching `d`'s contact list.
    pub fn compute(&mut self, m: &sys::mjModel, d: &mut sys::mjData) -> Result<&[Contact], StageError> {
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.clear();
        let result = self.compute_into(m, d, &mut contacts);
        self.contacts = contacts;
        result?;
        Ok(&self.contacts)
    }

    /// [`RustStage::compute`], appending the contacts to `out`.
    fn compute_into(
        &mut self,
        m: &sys::mjModel,
        d: &mut sys::mjData,
        out: &mut impl ContactSink,
    ) -> Result<(), StageError> {
        for i in std::mem::take(&mut self.pending_hulls) {
            if let Some(h) = crate::mj::from_c::mesh_hull(m, i) {
                self.model.hulls[i] = Some(h);
                self.stats.mujoco_hulls += 1;
                self.stage.hulls_changed();
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
        let report = self.stage.collide_into(&self.model, &state, out)?;
        self.stats.fallback_pairs += report.fallback_pairs as u64;
        Ok(())
    }

    /// Replaces MuJoCo's collision for one call: reset, compute, hand the contacts to MuJoCo.
    ///
    /// The contacts are written straight into MuJoCo's contact arena as they are found (what
    /// [`add_contacts`] would write, in the same slots), unless a pair could need MuJoCo's own
    /// pair function (its stack shares the arena) or they do not all fit; then they are
    /// collected and handed over by [`add_contacts`] (whose overflow warning is MuJoCo's).
    pub fn replace(&mut self, m: &sys::mjModel, d: &mut sys::mjData) -> Result<(), StageError> {
        if self.model.may_fall_back() {
            return self.replace_with(m, d, &mut |_| {});
        }
        reset_collision_outputs(d);
        let Some(mut sink) = ArenaSink::new(d) else {
            self.stats.calls += 1;
            return self.hand_over(m, d, &mut |_| {});
        };
        self.stats.calls += 1;
        self.compute_into(m, d, &mut sink)?;
        if sink.n <= sink.cap {
            // SAFETY: the sink wrote slots base..base + n of the arena, which has room for them.
            let added = unsafe { sink.finish(m, d) };
            self.stats.contacts += added as u64;
            self.stats.dropped += (sink.n - added) as u64;
            return Ok(());
        }
        // more contacts than the arena holds: MuJoCo's own path, contact by contact
        self.hand_over(m, d, &mut |_| {})
    }

    /// Computes the contacts into the stage's list and hands them to MuJoCo with [`add_contacts`].
    fn hand_over(
        &mut self,
        m: &sys::mjModel,
        d: &mut sys::mjData,
        tamper: &mut dyn FnMut(&mut Vec<Contact>),
    ) -> Result<(), StageError> {
        self.compute(m, d)?;
        tamper(&mut self.contacts);
        let added = add_contacts(m, d, &self.contacts);
        self.stats.contacts += added as u64;
        self.stats.dropped += (self.contacts.len() - added) as u64;
        Ok(())
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
        self.hand_over(m, d, tamper)
    }
}

/// MuJoCo's contact arena as a [`ContactSink`]: contact `k` goes to slot `base + k` while the
/// arena has room for it; beyond that the contacts are only counted.
struct ArenaSink {
    /// The arena's first contact slot (`d.contact`).
    contact: *mut sys::mjContact,
    /// Contacts already in `d` (`d.ncon`).
    base: usize,
    /// Contacts the free arena holds after `base`.
    cap: usize,
    /// Contacts appended.
    n: usize,
}

impl ArenaSink {
    /// A sink on `d`'s arena; `None` when the contact array is not where `add_contacts` would
    /// write in place (null or misaligned).
    fn new(d: &sys::mjData) -> Option<ArenaSink> {
        let size = std::mem::size_of::<sys::mjContact>();
        let ptr = d.contact as usize;
        if d.contact.is_null() || ptr % 8 != 0 {
            return None;
        }
        let free = (d.narena as usize).saturating_sub(d.pstack);
        let base = d.ncon.max(0) as usize;
        Some(ArenaSink { contact: d.contact, base, cap: (free / size).saturating_sub(base), n: 0 })
    }

    /// Hands the written contacts to MuJoCo: all but the last are in place, the last goes
    /// through `mj_addContact`, which does the arena bookkeeping for the final count (as
    /// [`add_contacts`] does). Returns how many MuJoCo holds.
    ///
    /// # Safety
    /// `d` is the data the sink was made for, with `n <= cap` contacts written.
    unsafe fn finish(&self, m: &sys::mjModel, d: &mut sys::mjData) -> usize {
        if self.n == 0 {
            return 0;
        }
        d.ncon = (self.base + self.n - 1) as i32;
        // SAFETY: slot base + n - 1 was written by `push` and lies inside the arena.
        let last = unsafe { self.contact.add(self.base + self.n - 1).read() };
        // SAFETY: valid model, data and contact record; the arena has room for it.
        if unsafe { sys::mj_addContact(m, d, &last) } != 0 {
            return self.n - 1;
        }
        self.n
    }
}

impl ContactSink for ArenaSink {
    fn len(&self) -> usize {
        self.n
    }

    #[inline]
    fn push(&mut self, c: &Contact) {
        if self.n < self.cap {
            // SAFETY: the arena holds `cap` contacts after `base` (checked in `new`), so slot
            // `base + n` lies inside it, past the contacts already there.
            unsafe { self.contact.add(self.base + self.n).write(to_mj_contact(c)) };
        }
        self.n += 1;
    }
}
