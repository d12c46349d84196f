//! The exported `mj_collision` symbol and those of the dynamics stages (`mj_crb`, `mj_factorM`,
//! `mj_comVel`, `mj_rne`, `mj_fwdAcceleration`, `mj_comPos`, `mj_passive`, `mj_transmission`, `mj_fwdActuation`): every internal call of libmujoco to them lands
//! here (`build.rs` exports them from each binary of this package; libspecula.so exports them
//! too).

use mujoco_sys as sys;

/// The exported `mj_collision`: the replacement installed on this thread for this model
/// ([`crate::mj::collision::with_collision`]), or else what the drop-in library's mode says
/// (mode `c`, MuJoCo's own collision, unless libspecula.so was configured or a program asked).
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_collision(m: *const sys::mjModel, d: *mut sys::mjData) {
    // SAFETY: MuJoCo passes a valid model and data (null pointers are left alone below).
    if unsafe { crate::mj::collision::run_installed(m, d) } || m.is_null() || d.is_null() {
        return;
    }
    // `collide` never panics, so nothing unwinds into C from here.
    // SAFETY: MuJoCo passes a valid model and data.
    super::collide(unsafe { &*m }, unsafe { &mut *d }, None)
}

/// The exported `mj_crb`: specula's Rust stage where this thread (or `SPECULA_STAGES`) asks for
/// it, MuJoCo's own otherwise ([`crate::mj::stages`]).
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_crb(m: *const sys::mjModel, d: *mut sys::mjData) {
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { crate::mj::stages::run(crate::mj::stages::Stage::Crb, m, d, crate::mj::stages::Args::NONE) }
}

/// The exported `mj_factorM`: as [`mj_crb`], for the factorisation of the inertia matrix.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_factorM(m: *const sys::mjModel, d: *mut sys::mjData) {
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { crate::mj::stages::run(crate::mj::stages::Stage::FactorM, m, d, crate::mj::stages::Args::NONE) }
}

/// The exported `mj_comVel`: as [`mj_crb`], for body velocities and dof-axis derivatives.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_comVel(m: *const sys::mjModel, d: *mut sys::mjData) {
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { crate::mj::stages::run(crate::mj::stages::Stage::ComVel, m, d, crate::mj::stages::Args::NONE) }
}

/// The exported `mj_rne`: as [`mj_crb`], for recursive Newton-Euler (`result` of `nv` entries).
///
/// # Safety
/// Called by MuJoCo with a valid model and data and a result array of `nv` entries.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_rne(m: *const sys::mjModel, d: *mut sys::mjData, flg_acc: i32, result: *mut f64) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model, data and result array.
    unsafe { run(Stage::Rne, m, d, Args { flg_acc, result, ..Args::NONE }) }
}

/// The exported `mj_fwdAcceleration`: as [`mj_crb`], for the unconstrained acceleration.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_fwdAcceleration(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::FwdAcceleration, m, d, Args::NONE) }
}

/// The exported `mj_comPos`: as [`mj_crb`], for centres of mass, com-based inertias and dof axes.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_comPos(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::ComPos, m, d, Args::NONE) }
}

/// The exported `mj_passive`: as [`mj_crb`], for joint springs and dampers.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_passive(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Passive, m, d, Args::NONE) }
}

/// The exported `mj_transmission`: as [`mj_crb`], for actuator lengths and moments.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_transmission(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Transmission, m, d, Args::NONE) }
}

/// The exported `mj_fwdActuation`: as [`mj_crb`], for actuator forces and activation derivatives.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_fwdActuation(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::FwdActuation, m, d, Args::NONE) }
}

/// The exported `mj_makeConstraint`: as [`mj_crb`], for the constraint rows, Jacobian and impedance.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_makeConstraint(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::MakeConstraint, m, d, Args::NONE) }
}

/// The exported `mj_island`: as [`mj_crb`], for the constraint islands.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_island(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Island, m, d, Args::NONE) }
}

/// The exported `mj_projectConstraint`: as [`mj_crb`], for the dual solvers' projected constraint matrices.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_projectConstraint(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::ProjectConstraint, m, d, Args::NONE) }
}

/// The exported `mj_referenceConstraint`: as [`mj_crb`], for constraint velocities and reference accelerations.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_referenceConstraint(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::ReferenceConstraint, m, d, Args::NONE) }
}

/// The exported `mj_fwdConstraint`: as [`mj_crb`], for the constraint solver and the constrained acceleration.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_fwdConstraint(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::FwdConstraint, m, d, Args::NONE) }
}

/// The exported `mj_deleteModel`: forgets specula's cached views of the model (see
/// `src/mj/stages/views.rs`), then frees it with MuJoCo's.
///
/// # Safety
/// As MuJoCo's `mj_deleteModel`.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_deleteModel(m: *mut sys::mjModel) {
    // SAFETY: the caller's arguments, passed on.
    unsafe { crate::mj::stages::views::delete_model(m) }
}

/// The exported `mj_copyModel`: as [`mj_deleteModel`] when copying into an existing model.
///
/// # Safety
/// As MuJoCo's `mj_copyModel`.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_copyModel(dest: *mut sys::mjModel, src: *const sys::mjModel) -> *mut sys::mjModel {
    // SAFETY: the caller's arguments, passed on.
    unsafe { crate::mj::stages::views::copy_model(dest, src) }
}

/// The exported `mjv_copyModel`: as [`mj_deleteModel`], then MuJoCo's partial copy.
///
/// # Safety
/// As MuJoCo's `mjv_copyModel`.
#[no_mangle]
pub unsafe extern "C-unwind" fn mjv_copyModel(dest: *mut sys::mjModel, src: *const sys::mjModel) {
    // SAFETY: the caller's arguments, passed on.
    unsafe { crate::mj::stages::views::copy_model_visual(dest, src) }
}

/// The exported `mj_recompile`: as [`mj_deleteModel`], then MuJoCo's recompilation in place.
///
/// # Safety
/// As MuJoCo's `mj_recompile`.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_recompile(
    s: *mut sys::mjSpec,
    vfs: *const sys::mjVFS,
    m: *mut sys::mjModel,
    d: *mut sys::mjData,
) -> i32 {
    // SAFETY: the caller's arguments, passed on.
    unsafe { crate::mj::stages::views::recompile(s, vfs, m, d) }
}

/// The exported `mj_kinematics`: as [`mj_crb`], for the body, joint, geom and site poses.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_kinematics(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Kinematics, m, d, Args::NONE) }
}

/// The exported `mj_fwdKinematics` (what `mj_fwdPosition` calls): the `kinematics` stage and
/// the exported functions after it where asked and possible, MuJoCo's own function otherwise.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_fwdKinematics(m: *const sys::mjModel, d: *mut sys::mjData) {
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { crate::mj::stages::fwd_kinematics(m, d) }
}

/// The exported `mj_EulerSkip` (what `mj_step` calls for the Euler integrator): as [`mj_crb`],
/// for the Euler step and the advance.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_EulerSkip(m: *const sys::mjModel, d: *mut sys::mjData, skipfactor: i32) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Euler, m, d, Args { skipfactor, ..Args::NONE }) }
}

/// The exported `mj_implicitSkip` (what `mj_step` calls for the implicit integrators): as
/// [`mj_crb`], for `implicitfast`'s step and the advance.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_implicitSkip(m: *const sys::mjModel, d: *mut sys::mjData, skipfactor: i32) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Implicit, m, d, Args { skipfactor, ..Args::NONE }) }
}

/// The exported `mj_RungeKutta` (what `mj_step` calls for the RK4 integrator): as [`mj_crb`],
/// for RK4's own arithmetic around MuJoCo's forward passes.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_RungeKutta(m: *const sys::mjModel, d: *mut sys::mjData, n: i32) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::RungeKutta, m, d, Args { order: n, ..Args::NONE }) }
}

/// The exported `mj_tendon`: as [`mj_crb`], for tendon lengths and Jacobians.
///
/// # Safety
/// Called by MuJoCo with a valid model and data.
#[no_mangle]
pub unsafe extern "C-unwind" fn mj_tendon(m: *const sys::mjModel, d: *mut sys::mjData) {
    use crate::mj::stages::{run, Args, Stage};
    // SAFETY: MuJoCo passes a valid model and data.
    unsafe { run(Stage::Tendon, m, d, Args::NONE) }
}
