//! Simulation state (`mjData`) for a [`Model`], with every MuJoCo call guarded.

use mujoco_sys as sys;

use super::boundary;
use super::error::{guard, take_warnings, MjError};
use super::model::{Model, ObjType};

/// One contact of `mjData.contact`, viewed in place.
#[repr(transparent)]
pub struct Contact(sys::mjContact);

impl Contact {
    /// Signed distance (negative when penetrating; speculative contacts carry an effective value).
    pub fn dist(&self) -> f64 {
        self.0.dist
    }
    /// Contact position in world coordinates.
    pub fn pos(&self) -> [f64; 3] {
        self.0.pos
    }
    /// Contact frame, row-major; row 0 is the normal from geom 0 to geom 1.
    pub fn frame(&self) -> [f64; 9] {
        self.0.frame
    }
    /// The normal (first row of the frame).
    pub fn normal(&self) -> [f64; 3] {
        [self.0.frame[0], self.0.frame[1], self.0.frame[2]]
    }
    /// The two geom ids (-1 for flex contacts).
    pub fn geom(&self) -> [i32; 2] {
        self.0.geom
    }
    /// Contact dimensionality (1, 3, 4 or 6).
    pub fn dim(&self) -> i32 {
        self.0.dim
    }
    /// Friction coefficients: tangent 1, tangent 2, spin, roll 1, roll 2.
    pub fn friction(&self) -> [f64; 5] {
        self.0.friction
    }
    /// Normal solver reference (`solref`).
    pub fn solref(&self) -> [f64; 2] {
        self.0.solref
    }
    /// Friction solver reference (`solreffriction`).
    pub fn solreffriction(&self) -> [f64; 2] {
        self.0.solreffriction
    }
    /// Solver impedance (`solimp`).
    pub fn solimp(&self) -> [f64; 5] {
        self.0.solimp
    }
    /// Margin minus gap: the distance below which the constraint is active.
    pub fn includemargin(&self) -> f64 {
        self.0.includemargin
    }
    /// 1 when the contact is in the gap (excluded from the solver), 0 otherwise.
    pub fn exclude(&self) -> i32 {
        self.0.exclude
    }
    /// The raw `mjContact`.
    pub fn raw(&self) -> &sys::mjContact {
        &self.0
    }
}

/// A world pose: position and unit quaternion (w, x, y, z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position.
    pub pos: [f64; 3],
    /// Orientation as a unit quaternion (w, x, y, z).
    pub quat: [f64; 4],
}

/// Simulation state for one model (`mjData`). Send, not Sync.
pub struct Data {
    model: Model,
    ptr: *mut sys::mjData,
    warnings: Vec<String>,
}

// SAFETY: mjData is plain memory owned by this value; MuJoCo keeps no thread affinity for it.
unsafe impl Send for Data {}

impl Drop for Data {
    fn drop(&mut self) {
        // SAFETY: the pointer came from mj_makeData and is freed once.
        let _ = guard(|| unsafe { sys::mj_deleteData(self.ptr) });
    }
}

/// Borrows `len` items at `p` (an empty slice for null or zero length).
///
/// # Safety
/// `p` must point at `len` valid items that outlive the returned slice.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    if p.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(p, len) }
    }
}

impl Data {
    /// Allocates state for `model` and resets it to `qpos0`.
    pub fn new(model: &Model) -> Result<Data, MjError> {
        // SAFETY: valid model pointer.
        let ptr = unsafe { boundary::make_data(model.raw()) }?;
        if ptr.is_null() {
            return Err(MjError::Mujoco("mj_makeData could not allocate the data".into()));
        }
        Ok(Data { model: model.clone(), ptr, warnings: take_warnings() })
    }

    /// The model this state belongs to.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The raw `mjData` pointer (for FFI).
    pub fn raw(&self) -> *mut sys::mjData {
        self.ptr
    }

    /// The `mjData` struct.
    pub fn mj(&self) -> &sys::mjData {
        // SAFETY: valid for the life of self; mutation needs &mut self.
        unsafe { &*self.ptr }
    }

    /// Runs `f` on (model, data) under the error guard; on a MuJoCo error the stack bookkeeping
    /// the aborted call left behind is rolled back, so the data stays usable.
    pub fn call<R>(&mut self, f: impl FnOnce(*const sys::mjModel, *mut sys::mjData) -> R) -> Result<R, MjError> {
        self.call_fallible(|m, d| Ok(f(m, d)))
    }

    /// [`Data::call`] for an `f` that can fail itself (a call behind the C++ exception boundary).
    fn call_fallible<R>(
        &mut self,
        f: impl FnOnce(*const sys::mjModel, *mut sys::mjData) -> Result<R, MjError>,
    ) -> Result<R, MjError> {
        let (m, d) = (self.model.raw(), self.ptr);
        // SAFETY: d is valid; these are plain fields.
        let (pstack, pbase) = unsafe { ((*d).pstack, (*d).pbase) };
        let r = guard(|| f(m, d)).and_then(|r| r);
        if r.is_err() {
            // SAFETY: as above; restoring the values from before the call releases the frames
            // the aborted call had marked on MuJoCo's stack.
            unsafe {
                (*d).pstack = pstack;
                (*d).pbase = pbase;
            }
        }
        self.warnings.extend(take_warnings());
        r
    }

    /// Runs `f` on the model and data structs (guarded like every call into MuJoCo).
    pub fn with_mj<R>(&mut self, f: impl FnOnce(&sys::mjModel, &mut sys::mjData) -> R) -> Result<R, MjError> {
        // SAFETY: both pointers are valid and uniquely borrowed for the call.
        self.call(|m, d| f(unsafe { &*m }, unsafe { &mut *d }))
    }

    /// The position-stage quantities collision reads: kinematics and centres of mass
    /// (`mj_kinematics`, `mj_comPos`).
    pub fn position_kinematics(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe {
            boundary::call_md(sys::mj_kinematics, m, d)?;
            boundary::call_md(sys::mj_comPos, m, d)
        })
    }

    /// Body spatial velocities from `qvel` (`mj_comVel`; needs [`Data::position_kinematics`]).
    pub fn velocity_kinematics(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe { boundary::call_md(sys::mj_comVel, m, d) })
    }

    /// Resets to the model's default state (`mj_resetData`).
    pub fn reset(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe { boundary::call_md(sys::mj_resetData, m, d) })
    }

    /// Resets to keyframe `key` (`mj_resetDataKeyframe`).
    pub fn reset_keyframe(&mut self, key: usize) -> Result<(), MjError> {
        if key >= self.model.nkey() {
            return Err(MjError::Invalid(format!(
                "keyframe {key} does not exist (the model has {})",
                self.model.nkey()
            )));
        }
        // SAFETY: valid pointers, key in range.
        self.call_fallible(|m, d| unsafe { boundary::call_mdi(sys::mj_resetDataKeyframe, m, d, key as i32) })
    }

    /// Advances the simulation by one timestep (`mj_step`).
    pub fn step(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe { boundary::call_md(sys::mj_step, m, d) })
    }

    /// Computes everything that depends on the state, without integrating (`mj_forward`).
    pub fn forward(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe { boundary::call_md(sys::mj_forward, m, d) })
    }

    /// Updates world poses of bodies, geoms and sites from `qpos` (`mj_kinematics`).
    pub fn kinematics(&mut self) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        self.call_fallible(|m, d| unsafe { boundary::call_md(sys::mj_kinematics, m, d) })
    }

    /// The state components selected by `sig` (a mask of `mjSTATE_*` bits), as `mj_getState`.
    pub fn state(&self, sig: u32) -> Vec<f64> {
        let (m, d) = (self.model.raw(), self.ptr);
        // SAFETY: valid pointers; the buffer has the size MuJoCo asks for.
        let n = guard(|| unsafe { sys::mj_stateSize(m, sig as i32) }).unwrap_or(0).max(0) as usize;
        let mut out = vec![0.0; n];
        let _ = guard(|| unsafe { sys::mj_getState(m, d, out.as_mut_ptr(), sig as i32) });
        out
    }

    /// Sets the state components selected by `sig` from `state` (`mj_setState`).
    pub fn set_state(&mut self, sig: u32, state: &[f64]) -> Result<(), MjError> {
        // SAFETY: valid pointers.
        let n = guard(|| unsafe { sys::mj_stateSize(self.model.raw(), sig as i32) })?.max(0) as usize;
        if state.len() != n {
            return Err(MjError::Invalid(format!("state has {} values, signature {sig:#x} needs {n}", state.len())));
        }
        // SAFETY: sizes checked above.
        self.call(|m, d| unsafe { sys::mj_setState(m, d, state.as_ptr(), sig as i32) })
    }

    /// Simulation time.
    pub fn time(&self) -> f64 {
        self.mj().time
    }

    /// Generalized positions.
    pub fn qpos(&self) -> &[f64] {
        // SAFETY: MuJoCo allocates nq values.
        unsafe { slice(self.mj().qpos, self.model.mj().nq as usize) }
    }

    /// Generalized velocities.
    pub fn qvel(&self) -> &[f64] {
        // SAFETY: MuJoCo allocates nv values.
        unsafe { slice(self.mj().qvel, self.model.mj().nv as usize) }
    }

    /// Mutable generalized positions.
    pub fn qpos_mut(&mut self) -> &mut [f64] {
        let n = self.model.mj().nq as usize;
        // SAFETY: MuJoCo allocates nq values; &mut self makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut((*self.ptr).qpos, n) }
    }

    /// Mutable generalized velocities.
    pub fn qvel_mut(&mut self) -> &mut [f64] {
        let n = self.model.mj().nv as usize;
        // SAFETY: MuJoCo allocates nv values; &mut self makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut((*self.ptr).qvel, n) }
    }

    /// The contacts found by the last collision pass.
    pub fn contacts(&self) -> &[Contact] {
        let d = self.mj();
        // SAFETY: `contact` holds `ncon` contacts; Contact is a transparent wrapper.
        unsafe { slice(d.contact as *const Contact, d.ncon.max(0) as usize) }
    }

    /// World pose of body `id` from the last kinematics pass.
    pub fn body_pose_id(&self, id: usize) -> Option<Pose> {
        if id >= self.model.nbody() {
            return None;
        }
        let d = self.mj();
        // SAFETY: xpos/xquat hold nbody rows; id checked above.
        let (p, q) = unsafe { (slice(d.xpos, 3 * self.model.nbody()), slice(d.xquat, 4 * self.model.nbody())) };
        Some(Pose {
            pos: [p[3 * id], p[3 * id + 1], p[3 * id + 2]],
            quat: [q[4 * id], q[4 * id + 1], q[4 * id + 2], q[4 * id + 3]],
        })
    }

    /// World pose of the body called `name`.
    pub fn body_pose(&self, name: &str) -> Option<Pose> {
        self.body_pose_id(self.model.id(ObjType::Body, name)?)
    }

    /// World pose of geom `id`, with the orientation converted from `geom_xmat`.
    pub fn geom_pose_id(&self, id: usize) -> Option<Pose> {
        if id >= self.model.ngeom() {
            return None;
        }
        let d = self.mj();
        let n = self.model.ngeom();
        // SAFETY: geom_xpos/geom_xmat hold ngeom rows; id checked above.
        let (p, m) = unsafe { (slice(d.geom_xpos, 3 * n), slice(d.geom_xmat, 9 * n)) };
        let mut quat = [0.0; 4];
        // SAFETY: the pointers are to 9 and 4 valid doubles.
        let _ = guard(|| unsafe { sys::mju_mat2Quat(quat.as_mut_ptr(), m[9 * id..].as_ptr()) });
        Some(Pose { pos: [p[3 * id], p[3 * id + 1], p[3 * id + 2]], quat })
    }

    /// World pose of the geom called `name`.
    pub fn geom_pose(&self, name: &str) -> Option<Pose> {
        self.geom_pose_id(self.model.id(ObjType::Geom, name)?)
    }

    /// Body positions from the last kinematics pass (`xpos`, 3 per body).
    pub fn xpos(&self) -> &[f64] {
        self.rows(self.mj().xpos, 3 * self.model.nbody())
    }
    /// Body orientations (`xquat`, 4 per body).
    pub fn xquat(&self) -> &[f64] {
        self.rows(self.mj().xquat, 4 * self.model.nbody())
    }
    /// Body orientation matrices (`xmat`, 9 per body).
    pub fn xmat(&self) -> &[f64] {
        self.rows(self.mj().xmat, 9 * self.model.nbody())
    }
    /// Body inertial-frame positions (`xipos`, 3 per body).
    pub fn xipos(&self) -> &[f64] {
        self.rows(self.mj().xipos, 3 * self.model.nbody())
    }
    /// Geom positions (`geom_xpos`, 3 per geom).
    pub fn geom_xpos(&self) -> &[f64] {
        self.rows(self.mj().geom_xpos, 3 * self.model.ngeom())
    }
    /// Geom orientation matrices (`geom_xmat`, 9 per geom).
    pub fn geom_xmat(&self) -> &[f64] {
        self.rows(self.mj().geom_xmat, 9 * self.model.ngeom())
    }

    /// Subtree centres of mass (`subtree_com`, 3 per body).
    pub fn subtree_com(&self) -> &[f64] {
        self.rows(self.mj().subtree_com, 3 * self.model.nbody())
    }
    /// Dof motion axes (`cdof`, 6 per dof).
    pub fn cdof(&self) -> &[f64] {
        self.rows(self.mj().cdof, 6 * self.model.mj().nv as usize)
    }
    /// Body spatial velocities (`cvel`, 6 per body).
    pub fn cvel(&self) -> &[f64] {
        self.rows(self.mj().cvel, 6 * self.model.nbody())
    }

    fn rows(&self, p: *const f64, len: usize) -> &[f64] {
        // SAFETY: callers pass an mjData array with its model-given length; it lives as long as self.
        unsafe { slice(p, len) }
    }

    /// Warnings MuJoCo emitted during this data's calls.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}
