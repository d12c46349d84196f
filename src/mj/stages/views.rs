//! The stages' views of MuJoCo's model, built once per model and thread rather than on every
//! call: on a one-body scene, building a view of twenty-odd arrays cost more than MuJoCo's whole
//! `mj_crb` (`bench --stages`). A model's arrays and sizes never move while it lives, except
//! through `mj_deleteModel`, `mj_copyModel` into it, `mjv_copyModel` and `mj_recompile`; specula
//! exports those four too (`crate::capi::export`) and each one invalidates every cached view
//! before MuJoCo's runs. The option scalars a view carries are read afresh on every call, as a
//! program may change them between steps.

use std::cell::RefCell;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use mujoco_sys as sys;
use specula_engine::dynamics::integrate::IntegratorModel;
use specula_engine::dynamics::{ActuatorModel, PassiveModel, TreeModel};
use specula_engine::kinematics::KinematicsModel;

use super::{actuation, euler, kinematics, passive, tree_model};

/// Bumped whenever a model may have been freed or laid out anew.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Marks every cached view stale (called before MuJoCo frees or re-lays out a model).
fn models_changed() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// libmujoco's own definition of one of the four model-lifetime functions, for the exported
/// wrappers; `None` when the library is not loaded.
fn library_fn(name: &CStr, slot: &OnceLock<usize>) -> Option<usize> {
    let addr = *slot.get_or_init(|| super::library_symbol(name));
    (addr != 0).then_some(addr)
}

/// `mj_deleteModel`: invalidates the cached views, then MuJoCo's.
///
/// # Safety
/// As MuJoCo's `mj_deleteModel`.
pub(crate) unsafe fn delete_model(m: *mut sys::mjModel) {
    static F: OnceLock<usize> = OnceLock::new();
    models_changed();
    if let Some(f) = library_fn(c"mj_deleteModel", &F) {
        // SAFETY: MuJoCo's function of this signature, called with the caller's arguments.
        unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(*mut sys::mjModel)>(f)(m) }
    }
}

/// `mj_copyModel`: invalidates the cached views when copying into an existing model, then
/// MuJoCo's.
///
/// # Safety
/// As MuJoCo's `mj_copyModel`.
pub(crate) unsafe fn copy_model(dest: *mut sys::mjModel, src: *const sys::mjModel) -> *mut sys::mjModel {
    static F: OnceLock<usize> = OnceLock::new();
    if !dest.is_null() {
        models_changed();
    }
    let Some(f) = library_fn(c"mj_copyModel", &F) else { return std::ptr::null_mut() };
    type CopyFn = unsafe extern "C" fn(*mut sys::mjModel, *const sys::mjModel) -> *mut sys::mjModel;
    // SAFETY: MuJoCo's function of this signature, called with the caller's arguments.
    unsafe { std::mem::transmute::<usize, CopyFn>(f)(dest, src) }
}

/// `mjv_copyModel`: invalidates the cached views, then MuJoCo's.
///
/// # Safety
/// As MuJoCo's `mjv_copyModel`.
pub(crate) unsafe fn copy_model_visual(dest: *mut sys::mjModel, src: *const sys::mjModel) {
    static F: OnceLock<usize> = OnceLock::new();
    models_changed();
    if let Some(f) = library_fn(c"mjv_copyModel", &F) {
        type CopyFn = unsafe extern "C" fn(*mut sys::mjModel, *const sys::mjModel);
        // SAFETY: MuJoCo's function of this signature, called with the caller's arguments.
        unsafe { std::mem::transmute::<usize, CopyFn>(f)(dest, src) }
    }
}

/// `mj_recompile`: invalidates the cached views, then MuJoCo's (which may re-lay out `m`).
///
/// # Safety
/// As MuJoCo's `mj_recompile`.
pub(crate) unsafe fn recompile(
    s: *mut sys::mjSpec,
    vfs: *const sys::mjVFS,
    m: *mut sys::mjModel,
    d: *mut sys::mjData,
) -> i32 {
    static F: OnceLock<usize> = OnceLock::new();
    models_changed();
    let Some(f) = library_fn(c"mj_recompile", &F) else { return -1 };
    type RecompileFn =
        unsafe extern "C" fn(*mut sys::mjSpec, *const sys::mjVFS, *mut sys::mjModel, *mut sys::mjData) -> i32;
    // SAFETY: MuJoCo's function of this signature, called with the caller's arguments.
    let r = unsafe { std::mem::transmute::<usize, RecompileFn>(f)(s, vfs, m, d) };
    models_changed();
    r
}

/// The views of one model.
pub(super) struct Views<'a> {
    /// The mass-matrix stages' view.
    pub tree: TreeModel<'a>,
    /// `mj_passive`'s view.
    pub passive: PassiveModel<'a>,
    /// `mj_transmission`'s and `mj_fwdActuation`'s view.
    pub actuator: ActuatorModel<'a>,
    /// `mj_kinematics`' view.
    pub kinematics: KinematicsModel<'a>,
    /// The integrators' view.
    pub integrator: IntegratorModel<'a>,
}

/// The cached views, the model they are of and the generation they were built in.
struct Cached {
    model: usize,
    generation: u64,
    // Only ever handed out while `model` is alive: the generation check above guarantees it.
    views: Views<'static>,
}

thread_local! {
    static CACHE: RefCell<Option<Box<Cached>>> = const { RefCell::new(None) };
}

fn build(m: &sys::mjModel) -> Views<'_> {
    Views {
        tree: tree_model(m),
        passive: passive::passive_model(m),
        actuator: actuation::actuator_model(m),
        kinematics: kinematics::kinematics_model(m),
        integrator: euler::integrator_model(m),
    }
}

/// Builds the views of `m` into the cache (out of line: it runs once per model and thread).
#[cold]
#[inline(never)]
fn rebuild(slot: &mut Option<Box<Cached>>, m: &sys::mjModel, generation: u64) {
    // SAFETY: the views are of `m`, which outlives the calls they are handed to; they are stored
    // with a 'static lifetime but only handed out (with `m`'s) while key and generation match,
    // that is, while the model they point into has not been freed or re-laid out.
    let views = unsafe { std::mem::transmute::<Views<'_>, Views<'static>>(build(m)) };
    *slot = Some(Box::new(Cached { model: m as *const sys::mjModel as usize, generation, views }));
}

/// Runs `f` with views of `m` built for this call (out of line: only nested calls need it).
#[cold]
#[inline(never)]
fn uncached<'m, R>(m: &'m sys::mjModel, f: impl FnOnce(&Views<'m>) -> R) -> R {
    f(&build(m))
}

/// Runs `f` with the views of `m` (cached; built on this thread's first call for the model).
#[inline]
pub(super) fn with<'m, R>(m: &'m sys::mjModel, f: impl FnOnce(&Views<'m>) -> R) -> R {
    let generation = GENERATION.load(Ordering::Acquire);
    let key = m as *const sys::mjModel as usize;
    CACHE.with(|cache| {
        let Ok(mut slot) = cache.try_borrow_mut() else {
            // a view is in use further up this thread's stack: build one for this call
            return uncached(m, f);
        };
        if !matches!(&*slot, Some(c) if c.model == key && c.generation == generation) {
            rebuild(&mut slot, m, generation);
        }
        let cached = slot.as_mut().expect("just filled");
        passive::refresh(&mut cached.views.passive, m);
        actuation::refresh(&mut cached.views.actuator, m);
        euler::refresh(&mut cached.views.integrator, m);
        let views: &Views<'m> = &cached.views;
        f(views)
    })
}
