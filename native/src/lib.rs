//! specula's native route: a scene stepped entirely in Rust from specula's own compiled
//! [`specula_model::Model`], with no call into libmujoco.
//!
//! What it covers so far:
//! - [`NativeModel`]: the model fields MuJoCo 4.0.0 computes at the end of compilation, for any
//!   model: the sparse layouts ([`layout`]: `dof_simplenum`, `M_*`, `D_*`, `B_*`, `mapM2D`,
//!   `mapD2M`, `mapM2M`) and the pass at `qpos0` ([`consts`]: `dof_M0`, `body_invweight0`,
//!   `dof_invweight0`, `dof_length` and the statistics).
//! - [`Native`]: a [`Data`] with MuJoCo's arrays and `mj_forward`/`mj_step` ([`step`]) for the
//!   rigid subset: kinematics, comPos, crb, factorM, collision ([`collision`]), makeConstraint,
//!   island ([`constraint`]), comVel, passive (joint springs and dampers), referenceConstraint,
//!   rne, transmission and fwdActuation ([`actuation`]: affine and muscle actuators on hinge and slide
//!   joints driven by `ctrl`), fwdAcceleration with `qfrc_applied`, fwdConstraint (no rows, or
//!   Newton, CG or PGS over islands), and the Euler step implicit in joint damping, `implicitfast`,
//!   `implicit` (the full velocity derivative, `implicit`) and RK4 (`rk4`); fixed and spatial
//!   tendons ([`tendon`]: lengths, Jacobians, wrapping and pulleys, springs, limit and
//!   friction-loss rows); connect, weld and joint equalities ([`equality`]); sensors
//!   ([`sensor`], [`sensor_acc`]); muscles, with the compiler's length ranges found by
//!   simulation on this step ([`lengthrange`]) and `actuator_acc0` from the pass at `qpos0`.
//!
//! Everything else is refused by [`scope::check`] with a [`NativeError`] naming what is missing:
//! other actuators ([`actuation::check`]), tendon dampers under the implicit integrators
//! ([`tendon::check`]), actuator armature on tendons ([`tendon_armature::check`]),
//! sensors outside [`sensor::check`]'s subset, tendon or flex equalities (specula's compiler does
//! not produce their parameters yet), noslip on a sparse Jacobian and the other solver options the
//! Rust solver does not cover, adhesion, gravity compensation, fluid forces, a tree falling asleep
//! ([`sleep`] counts towards it), discrete
//! integration, and (from the MJCF, [`Native::load_file`]) plasticity. A step the engine cannot
//! finish (Newton iterations on a sparse Jacobian, a geom pair without a Rust collider) is
//! refused at that step.

pub mod actuation;
mod asleep;
pub mod collision;
pub mod constraint;
pub mod consts;
pub mod data;
pub mod equality;
pub mod flat;
mod implicit;
pub mod layout;
pub mod lengthrange;
pub mod model;
mod passive;
mod project_sparse;
mod rk4;
pub mod scope;
pub mod sensor;
pub mod sensor_acc;
pub mod sleep;
pub mod step;
pub mod tendon;
pub mod tendon_armature;

pub use consts::{Consts, Statistic};
pub use data::Data;
pub use layout::{Layout, Pattern};
pub use model::NativeModel;
pub use scope::NativeError;

/// A model and its data on the native route: checked, derived, reset.
#[derive(Debug)]
pub struct Native {
    /// The model with its derived fields.
    pub model: NativeModel,
    /// The state.
    pub data: Data,
}

impl Native {
    /// Reads and compiles an MJCF file for the native route ([`scope::check_mjcf`], then
    /// [`Native::new`]).
    pub fn load_file(path: &std::path::Path) -> Result<Native, NativeError> {
        let tree = specula_model::xml::parse_file(path)?;
        scope::check_mjcf(&tree)?;
        Native::checked(specula_model::load_file(path)?, &tree)
    }

    /// [`Native::load_file`] on MJCF text; `base_dir` resolves included files and assets.
    pub fn load_str(xml: &str, base_dir: &std::path::Path, name: &str) -> Result<Native, NativeError> {
        let tree = specula_model::xml::parse_str(xml, base_dir, name)?;
        scope::check_mjcf(&tree)?;
        Native::checked(specula_model::load_str(xml, base_dir, name)?, &tree)
    }

    /// [`Native::new`] after the MJCF's arena check where the model can have constraint rows.
    fn checked(model: specula_model::Model, tree: &specula_model::xml::Element) -> Result<Native, NativeError> {
        if scope::rows_possible(&model) {
            scope::check_mjcf_arena(tree)?;
        }
        Native::new(model)
    }

    /// Checks `model` against the native subset, derives its constant fields and resets the data.
    /// A [`specula_model::Model`] does not carry `springyield`: prefer [`Native::load_file`],
    /// which refuses it.
    pub fn new(mut model: specula_model::Model) -> Result<Native, NativeError> {
        scope::check(&model)?;
        lengthrange::set_length_ranges(&mut model).map_err(|e| match e {
            lengthrange::LengthRangeError::Native(n) => n,
            other => NativeError::LengthRange(other.to_string()),
        })?;
        let model = NativeModel::new(model);
        let data = Data::new(&model);
        Ok(Native { model, data })
    }

    /// `mj_resetData`: the state back to `qpos0`, zero velocities, forces and time.
    pub fn reset(&mut self) {
        self.data = Data::new(&self.model);
    }

    /// `mj_resetDataKeyframe`: the reset state, then time, positions, velocities, activations,
    /// controls and mocap poses from keyframe `key`.
    pub fn reset_keyframe(&mut self, key: usize) -> Result<(), NativeError> {
        let m = &self.model.model;
        if key >= m.nkey {
            return Err(NativeError::NoKeyframe { key, nkey: m.nkey });
        }
        self.reset();
        let (m, d) = (&self.model.model, &mut self.data);
        let (nq, nv, nmocap, na, nu) = (m.nq, m.nv, m.nmocap, m.na, m.nu);
        d.time = m.key_time[key];
        d.qpos.copy_from_slice(&m.key_qpos[key * nq..(key + 1) * nq]);
        d.qvel.copy_from_slice(&m.key_qvel[key * nv..(key + 1) * nv]);
        // activations and controls too, as mj_resetDataKeyframe does
        d.act.copy_from_slice(&m.key_act[key * na..(key + 1) * na]);
        d.actuation.ctrl.copy_from_slice(&m.key_ctrl[key * nu..(key + 1) * nu]);
        d.mocap_pos.copy_from_slice(&m.key_mpos[3 * key * nmocap..3 * (key + 1) * nmocap]);
        d.mocap_quat.copy_from_slice(&m.key_mquat[4 * key * nmocap..4 * (key + 1) * nmocap]);
        Ok(())
    }

    /// Turns specula's robust speculative mode on or off for this model's collisions (the
    /// engine's `speculative::robust`; off, the MuJoCo-compatible mode, by default).
    pub fn set_robust(&mut self, on: bool) {
        self.model.collision.opt.robust = on;
    }

    /// Sets the speculative-contact mode of this model's collisions: off, MuJoCo-compatible, or
    /// specula's robust mode (which, as on the C routes, also turns the speculative flag on).
    pub fn set_speculative(&mut self, mode: specula_model::types::SpeculativeMode) {
        use specula_model::types::SpeculativeMode;
        /// `mjENBL_SPECULATIVE`.
        const ENBL_SPECULATIVE: u32 = 128;
        let on = mode != SpeculativeMode::Off;
        for flags in [&mut self.model.model.opt.enableflags, &mut self.model.collision.opt.enableflags] {
            *flags = if on { *flags | ENBL_SPECULATIVE } else { *flags & !ENBL_SPECULATIVE };
        }
        self.set_robust(mode == SpeculativeMode::Robust);
    }

    /// `mj_kinematics` and `mj_comPos`: the world poses of the current `qpos` (a step leaves
    /// those of the state before it).
    pub fn kinematics(&mut self) {
        step::position(&self.model, &mut self.data)
    }

    /// `mj_forward`: every stage of the step but the integration.
    pub fn forward(&mut self) -> Result<(), NativeError> {
        step::forward(&self.model, &mut self.data)
    }

    /// `mj_step` with the model's integrator (Euler or implicitfast). After an error the data
    /// is partway through the step: reset it before stepping again.
    pub fn step(&mut self) -> Result<(), NativeError> {
        step::step(&self.model, &mut self.data)
    }
}
