//! `mj_kinematics` in Rust inside MuJoCo's step. The step does not call it: `mj_fwdKinematics`
//! runs the library's local `mj_kinematics1`, `mj_wake`, `mj_kinematics2` and then `mj_comPos`,
//! `mj_camlight`, the flexes, `mj_tendon` and `mj_wakeTendon` (`docs/measurements.md` K1). So
//! specula exports `mj_fwdKinematics` too ([`fwd_kinematics`]): where the wake and flex steps
//! are no-ops it runs the `kinematics` stage (Rust, compared, or the library's `mj_kinematics`,
//! which is `kinematics1`, `mj_wake`, `kinematics2`), then the exported `mj_comPos`,
//! `mj_camlight` and `mj_tendon` as the library would; elsewhere the library's whole function.

use mujoco_sys as sys;
use specula_engine::kinematics::{kinematics_into, KinematicsModel, KinematicsState, PoseOutput};

use super::fields::Field;
use super::{bytes, library_symbol, slice, slice_mut, Fallback, Stage};

/// The stage's view of MuJoCo's model.
pub(super) fn kinematics_model(m: &sys::mjModel) -> KinematicsModel<'_> {
    let (nbody, njnt, ngeom, nsite) = (m.nbody as usize, m.njnt as usize, m.ngeom as usize, m.nsite as usize);
    // SAFETY: every array has the length mjmodel.h gives it; the frame flags are read as bytes.
    unsafe {
        KinematicsModel {
            body_parentid: slice(m.body_parentid, nbody),
            body_jntnum: slice(m.body_jntnum, nbody),
            body_jntadr: slice(m.body_jntadr, nbody),
            body_mocapid: slice(m.body_mocapid, nbody),
            body_pos: slice(m.body_pos, 3 * nbody),
            body_quat: slice(m.body_quat, 4 * nbody),
            body_ipos: slice(m.body_ipos, 3 * nbody),
            body_iquat: slice(m.body_iquat, 4 * nbody),
            body_sameframe: bytes(m.body_sameframe.cast(), nbody),
            jnt_type: slice(m.jnt_type, njnt),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_pos: slice(m.jnt_pos, 3 * njnt),
            jnt_axis: slice(m.jnt_axis, 3 * njnt),
            qpos0: slice(m.qpos0, m.nq as usize),
            geom_bodyid: slice(m.geom_bodyid, ngeom),
            geom_pos: slice(m.geom_pos, 3 * ngeom),
            geom_quat: slice(m.geom_quat, 4 * ngeom),
            geom_sameframe: bytes(m.geom_sameframe.cast(), ngeom),
            site_bodyid: slice(m.site_bodyid, nsite),
            site_pos: slice(m.site_pos, 3 * nsite),
            site_quat: slice(m.site_quat, 4 * nsite),
            site_sameframe: bytes(m.site_sameframe.cast(), nsite),
        }
    }
}

/// Whether sleep is enabled.
fn sleep_enabled(m: &sys::mjModel) -> bool {
    m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0
}

/// Why `mj_kinematics` is left to the library: with sleep enabled it skips asleep bodies and wakes
/// trees whose pose moved; with it off but trees still marked asleep, `mj_wake` wakes them all
/// (K1).
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if sleep_enabled(m) {
        Some(Fallback::Sleep)
    } else if (d.ntree_awake as i64) < m.ntree {
        Some(Fallback::Asleep)
    } else {
        None
    }
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_kinematics`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let (nbody, njnt, ngeom, nsite) = (m.nbody as usize, m.njnt as usize, m.ngeom as usize, m.nsite as usize);
    let nmocap = m.nmocap as usize;
    // SAFETY: mjData's arrays of the documented lengths; the state is read, the fourteen pose
    // arrays (distinct from it and from each other) written only here.
    let (state, mut out) = unsafe {
        let state = KinematicsState {
            qpos: slice(d.qpos, m.nq as usize),
            mocap_pos: slice(d.mocap_pos, 3 * nmocap),
            mocap_quat: slice(d.mocap_quat, 4 * nmocap),
        };
        let out = PoseOutput {
            xpos: slice_mut(d.xpos, 3 * nbody),
            xquat: slice_mut(d.xquat, 4 * nbody),
            xmat: slice_mut(d.xmat, 9 * nbody),
            xipos: slice_mut(d.xipos, 3 * nbody),
            xiquat: slice_mut(d.xiquat, 4 * nbody),
            ximat: slice_mut(d.ximat, 9 * nbody),
            xanchor: slice_mut(d.xanchor, 3 * njnt),
            xaxis: slice_mut(d.xaxis, 3 * njnt),
            geom_xpos: slice_mut(d.geom_xpos, 3 * ngeom),
            geom_xquat: slice_mut(d.geom_xquat, 4 * ngeom),
            geom_xmat: slice_mut(d.geom_xmat, 9 * ngeom),
            site_xpos: slice_mut(d.site_xpos, 3 * nsite),
            site_xquat: slice_mut(d.site_xquat, 4 * nsite),
            site_xmat: slice_mut(d.site_xmat, 9 * nsite),
        };
        (state, out)
    };
    super::views::with(m, |v| kinematics_into(&v.kinematics, &state, &mut out));
}

/// The arrays `mj_kinematics` writes.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nbody, njnt, ngeom, nsite) = (m.nbody as usize, m.njnt as usize, m.ngeom as usize, m.nsite as usize);
    vec![
        Field::f64("xpos", d.xpos, 3 * nbody),
        Field::f64("xquat", d.xquat, 4 * nbody),
        Field::f64("xmat", d.xmat, 9 * nbody),
        Field::f64("xiquat", d.xiquat, 4 * nbody),
        Field::f64("ximat", d.ximat, 9 * nbody),
        Field::f64("xanchor", d.xanchor, 3 * njnt),
        Field::f64("xaxis", d.xaxis, 3 * njnt),
        Field::f64("geom_xpos", d.geom_xpos, 3 * ngeom),
        Field::f64("geom_xquat", d.geom_xquat, 4 * ngeom),
        Field::f64("geom_xmat", d.geom_xmat, 9 * ngeom),
        Field::f64("site_xpos", d.site_xpos, 3 * nsite),
        Field::f64("site_xquat", d.site_xquat, 4 * nsite),
        Field::f64("site_xmat", d.site_xmat, 9 * nsite),
        // last: the test hooks move its last element, which the dynamics read (`mj_comPos`)
        Field::f64("xipos", d.xipos, 3 * nbody),
    ]
}

/// Why `mj_fwdKinematics` cannot be run as its exported parts: flexes (the library's local
/// `mj_flexSkip` does work) or, with sleep enabled, tendons (its local `mj_wakeTendon` may wake
/// trees).
fn composite_out_of_scope(m: &sys::mjModel) -> Option<Fallback> {
    if m.nflex > 0 {
        Some(Fallback::Flex)
    } else if sleep_enabled(m) && m.ntendon > 0 {
        Some(Fallback::Sleep)
    } else {
        None
    }
}

type StageFn = unsafe extern "C" fn(*const sys::mjModel, *mut sys::mjData);

/// The library's own definition of `name` (a function of the model and data).
fn library_fn(name: &std::ffi::CStr, slot: &std::sync::OnceLock<usize>) -> Option<StageFn> {
    let addr = *slot.get_or_init(|| library_symbol(name));
    // SAFETY: a non-zero address from dlsym for these names is MuJoCo's function of this type.
    (addr != 0).then(|| unsafe { std::mem::transmute::<usize, StageFn>(addr) })
}

/// The exported `mj_fwdKinematics`: the `kinematics` stage and the exported functions after it
/// where this thread asks for the stage and the model allows, MuJoCo's own function otherwise.
///
/// # Safety
/// `m` and `d` are null or MuJoCo's valid model and data.
pub(crate) unsafe fn fwd_kinematics(m: *const sys::mjModel, d: *mut sys::mjData) {
    static WHOLE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    static CAMLIGHT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    if m.is_null() || d.is_null() {
        return;
    }
    let wanted = super::selected(Stage::Kinematics);
    // SAFETY: valid, as the caller guarantees.
    let why = composite_out_of_scope(unsafe { &*m });
    if !wanted || why.is_some() {
        if let (Some(why), true) = (why, wanted) {
            super::note_fallback(Stage::Kinematics, why);
        }
        if let Some(f) = library_fn(c"mj_fwdKinematics", &WHOLE) {
            // SAFETY: MuJoCo's function, called with the caller's model and data.
            unsafe { f(m, d) }
        }
        return;
    }
    // SAFETY: as above; each call is the exported function MuJoCo's own makes at this point
    // (`mj_comPos` and `mj_tendon` through this binary's exports, so their stages run where
    // asked).
    unsafe {
        super::run(Stage::Kinematics, m, d, super::Args::NONE);
        crate::capi::export::mj_comPos(m, d);
        if let Some(f) = library_fn(c"mj_camlight", &CAMLIGHT) {
            f(m, d);
        }
        crate::capi::export::mj_tendon(m, d);
    }
}
