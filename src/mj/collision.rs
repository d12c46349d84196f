//! Running another collision stage in place of MuJoCo's `mj_collision`, inside MuJoCo's own step.
//!
//! libmujoco calls `mj_collision` through its symbol table, so a definition exported by the
//! executable (or by a library loaded first with `LD_PRELOAD`) replaces every internal call:
//! `mj_step`'s, RK4's three inner ones, `mj_forward`'s, and the compiler's. The root crate defines
//! that symbol (in `crate::capi::export`) and `build.rs` exports it from every binary of this
//! package. [`with_collision`] installs a replacement for one model on the current thread while a
//! closure runs; the exported symbol runs it ([`run_installed`]), and otherwise the drop-in
//! library's mode decides: MuJoCo's own collision unless libspecula.so was configured. This
//! module does not depend on the drop-in: the exported symbol calls into here, not the reverse.
//!
//! This relies on a measured fact (`docs/measurements.md`, P1): feeding contacts through
//! `mj_addContact` after the same reset `mj_collision` does first gives trajectories
//! bitwise-equal to MuJoCo's, provided the contacts and their order are identical.

use std::cell::Cell;
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};
use std::sync::OnceLock;

use mujoco_sys as sys;

/// Signature of `mj_collision`.
pub type CollisionFn = unsafe extern "C-unwind" fn(*const sys::mjModel, *mut sys::mjData);

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
const RTLD_NOLOAD: c_int = 4;

/// Address of the library's own `mj_collision` (never the replacement), or `None` if
/// libmujoco.so.4.0.0 is not loaded in this process.
pub fn library_collision() -> Option<CollisionFn> {
    static REAL: OnceLock<usize> = OnceLock::new();
    let addr = *REAL.get_or_init(|| {
        // SAFETY: plain libc calls with NUL-terminated strings; RTLD_NOLOAD never loads anything,
        // it returns the handle of the already-loaded library, whose own definition dlsym finds.
        unsafe {
            let h = dlopen(c"libmujoco.so.4.0.0".as_ptr(), RTLD_NOW | RTLD_NOLOAD);
            if h.is_null() {
                return 0;
            }
            dlsym(h, c"mj_collision".as_ptr()) as usize
        }
    });
    // SAFETY: a non-zero address from dlsym for this name is the library's mj_collision.
    (addr != 0).then(|| unsafe { std::mem::transmute::<usize, CollisionFn>(addr) })
}

/// Runs the library's own `mj_collision` on `m`, `d` (never the replacement); false if the
/// library is not loaded.
pub fn run_library_collision(m: &sys::mjModel, d: &mut sys::mjData) -> bool {
    match library_collision() {
        Some(real) => {
            // SAFETY: valid model and data, MuJoCo's own function.
            unsafe { real(m, d) };
            true
        }
        None => false,
    }
}

/// A replacement active on this thread: the model it is for, and the stage to call.
type Active = (*const sys::mjModel, *mut dyn FnMut(&sys::mjModel, &mut sys::mjData));

thread_local! {
    static ACTIVE: Cell<Option<Active>> = const { Cell::new(None) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// Runs the replacement [`with_collision`] installed on this thread, if it is for `m`; false
/// (nothing run) otherwise. The exported `mj_collision` (`crate::capi::export`) asks this first.
///
/// # Safety
/// `m` and `d` are MuJoCo's valid model and data, as passed to `mj_collision`.
pub(crate) unsafe fn run_installed(m: *const sys::mjModel, d: *mut sys::mjData) -> bool {
    match ACTIVE.with(Cell::get) {
        Some((model, stage)) if model == m && !m.is_null() && !d.is_null() => {
            CALLS.with(|c| c.set(c.get() + 1));
            // SAFETY: the stage outlives the `with_collision` call that installed it, and MuJoCo
            // passes valid pointers; the active entry is cleared while it runs so a nested
            // collision call (none is expected) would go to the library.
            ACTIVE.with(|a| a.set(None));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*stage)(&*m, &mut *d) }));
            ACTIVE.with(|a| a.set(Some((model, stage))));
            if let Err(payload) = result {
                std::panic::resume_unwind(payload);
            }
            true
        }
        _ => false,
    }
}

/// Runs the library's own `mj_collision`; false (with one message on stderr) if libmujoco is not
/// loaded, which cannot happen when MuJoCo itself called the hook.
pub fn call_library(m: &sys::mjModel, d: &mut sys::mjData) -> bool {
    match library_collision() {
        Some(real) => {
            // SAFETY: MuJoCo's own function on a valid model and data.
            unsafe { real(m, d) };
            true
        }
        None => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| eprintln!("specula: libmujoco.so.4.0.0 is not loaded; collision skipped"));
            false
        }
    }
}

/// Runs `body` with `stage` replacing `mj_collision` for `model` on this thread; returns what
/// `body` returned and how many times the stage ran.
pub fn with_collision<R>(
    model: *const sys::mjModel,
    stage: &mut dyn FnMut(&sys::mjModel, &mut sys::mjData),
    body: impl FnOnce() -> R,
) -> (R, u64) {
    struct Restore(Option<Active>, u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
            CALLS.with(|c| c.set(self.1));
        }
    }
    // SAFETY of the lifetime erasure: the pointer is removed (by Restore) before `stage`'s borrow ends.
    let stage: *mut (dyn FnMut(&sys::mjModel, &mut sys::mjData) + '_) = stage;
    let stage: *mut dyn FnMut(&sys::mjModel, &mut sys::mjData) = unsafe { std::mem::transmute(stage) };
    let restore = Restore(ACTIVE.with(|a| a.replace(Some((model, stage)))), CALLS.with(|c| c.replace(0)));
    let r = body();
    let calls = CALLS.with(Cell::get);
    drop(restore);
    (r, calls)
}

/// Clears what MuJoCo's `mj_collision` clears before it collides: contact and constraint counts,
/// every arena pointer, and the arena itself (4.0.0, read from its disassembly; see the pipeline
/// reference). A replacement stage must start with this, even when it adds no contact.
pub fn reset_collision_outputs(d: &mut sys::mjData) {
    d.ncon = 0;
    zero_constraint_sizes(d);
    null_arena_pointers(d);
    d.contact = d.arena as *mut sys::mjContact;
    d.parena = 0;
}

/// Zeroes the sizes of everything the constraint stages put in the arena after the contacts
/// (`ne` to `nidof`), as the library's reset and its out-of-arena path do.
pub(crate) fn zero_constraint_sizes(d: &mut sys::mjData) {
    (d.ne, d.nf, d.nl, d.nefc, d.nJ) = (0, 0, 0, 0, 0);
    (d.efm_active, d.nefmK, d.nefmcon, d.nefmT, d.nefmA, d.nefmdof, d.nefmL) = (0, 0, 0, 0, 0, 0, 0);
    (d.nY, d.nA, d.nisland, d.nidof) = (0, 0, 0, 0);
}

/// Sets every arena pointer of `mjData` to null (MuJoCo 4.0.0's `MJDATA_ARENA_POINTERS`, mjxmacro.h).
pub(crate) fn null_arena_pointers(d: &mut sys::mjData) {
    d.contact = std::ptr::null_mut();
    d.efc_type = std::ptr::null_mut();
    d.efc_id = std::ptr::null_mut();
    d.efc_J_rownnz = std::ptr::null_mut();
    d.efc_J_rowadr = std::ptr::null_mut();
    d.efc_J_rowsuper = std::ptr::null_mut();
    d.efc_J_colind = std::ptr::null_mut();
    d.efc_J = std::ptr::null_mut();
    d.efc_pos = std::ptr::null_mut();
    d.efc_margin = std::ptr::null_mut();
    d.efc_frictionloss = std::ptr::null_mut();
    d.efc_diagA = std::ptr::null_mut();
    d.efc_KBIP = std::ptr::null_mut();
    d.efc_D = std::ptr::null_mut();
    d.efc_R = std::ptr::null_mut();
    d.tendon_efcadr = std::ptr::null_mut();
    d.efc_vel = std::ptr::null_mut();
    d.efc_aref = std::ptr::null_mut();
    d.efc_b = std::ptr::null_mut();
    d.efc_state = std::ptr::null_mut();
    d.efc_force = std::ptr::null_mut();
    d.efc_Y_rownnz = std::ptr::null_mut();
    d.efc_Y_rowadr = std::ptr::null_mut();
    d.efc_Y_colind = std::ptr::null_mut();
    d.efc_Y = std::ptr::null_mut();
    d.efc_AR_rownnz = std::ptr::null_mut();
    d.efc_AR_rowadr = std::ptr::null_mut();
    d.efc_AR_colind = std::ptr::null_mut();
    d.efc_AR = std::ptr::null_mut();
    d.tree_island = std::ptr::null_mut();
    d.island_ntree = std::ptr::null_mut();
    d.island_itreeadr = std::ptr::null_mut();
    d.map_itree2tree = std::ptr::null_mut();
    d.dof_island = std::ptr::null_mut();
    d.island_nv = std::ptr::null_mut();
    d.island_idofadr = std::ptr::null_mut();
    d.island_dofadr = std::ptr::null_mut();
    d.map_dof2idof = std::ptr::null_mut();
    d.map_idof2dof = std::ptr::null_mut();
    d.ifrc_smooth = std::ptr::null_mut();
    d.iacc_smooth = std::ptr::null_mut();
    d.iacc = std::ptr::null_mut();
    d.efc_island = std::ptr::null_mut();
    d.island_ne = std::ptr::null_mut();
    d.island_nf = std::ptr::null_mut();
    d.island_nefc = std::ptr::null_mut();
    d.island_iefcadr = std::ptr::null_mut();
    d.map_efc2iefc = std::ptr::null_mut();
    d.map_iefc2efc = std::ptr::null_mut();
    d.iefc_type = std::ptr::null_mut();
    d.iefc_id = std::ptr::null_mut();
    d.iefc_frictionloss = std::ptr::null_mut();
    d.iefc_D = std::ptr::null_mut();
    d.iefc_R = std::ptr::null_mut();
    d.iefc_aref = std::ptr::null_mut();
    d.iefc_state = std::ptr::null_mut();
    d.iefc_force = std::ptr::null_mut();
    d.ifrc_constraint = std::ptr::null_mut();
    d.efm_c = std::ptr::null_mut();
    d.efm_diag = std::ptr::null_mut();
    d.efm_ck = std::ptr::null_mut();
    d.efm_sdiag = std::ptr::null_mut();
    d.efm_fluid = std::ptr::null_mut();
    d.efm_tid = std::ptr::null_mut();
    d.efm_ts = std::ptr::null_mut();
    d.efm_tk = std::ptr::null_mut();
    d.efm_aid = std::ptr::null_mut();
    d.efm_as = std::ptr::null_mut();
    d.efm_ak = std::ptr::null_mut();
    d.efm_ca = std::ptr::null_mut();
    d.efm_K_rownnz = std::ptr::null_mut();
    d.efm_K_rowadr = std::ptr::null_mut();
    d.efm_K_colind = std::ptr::null_mut();
    d.efm_K_val = std::ptr::null_mut();
    d.efm_dofid = std::ptr::null_mut();
    d.efm_con_ind = std::ptr::null_mut();
    d.efm_con_val = std::ptr::null_mut();
    d.efm_L = std::ptr::null_mut();
}

/// The geom poses of the current position stage, as the Rust collision stage reads them.
pub fn geom_poses<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> (&'a [[f64; 3]], &'a [[f64; 9]]) {
    let n = m.ngeom.max(0) as usize;
    // SAFETY: mjData holds ngeom rows of 3 and 9 doubles here, laid out like [[f64; 3]] and
    // [[f64; 9]]; they live as long as `d` and are not changed while borrowed.
    unsafe {
        (super::data::slice(d.geom_xpos as *const [f64; 3], n), super::data::slice(d.geom_xmat as *const [f64; 9], n))
    }
}

/// Body inertial frames of the current position stage (`xipos`, `ximat`), for the mid-phase trees.
pub fn body_inertial_poses<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> (&'a [[f64; 3]], &'a [[f64; 9]]) {
    let n = m.nbody.max(0) as usize;
    // SAFETY: mjData holds nbody rows of 3 and 9 doubles, laid out like the arrays returned.
    unsafe { (super::data::slice(d.xipos as *const [f64; 3], n), super::data::slice(d.ximat as *const [f64; 9], n)) }
}

/// What speculative sweeps read from the position stage: `qvel` (nv), `subtree_com` (nbody),
/// `cdof` (nv rows of 6), and the previous step's unconstrained acceleration `qacc_smooth` (nv).
#[allow(clippy::type_complexity)]
pub fn speculative_inputs<'a>(
    m: &sys::mjModel,
    d: &'a sys::mjData,
) -> (&'a [f64], &'a [[f64; 3]], &'a [[f64; 6]], &'a [f64]) {
    let (nv, nb) = (m.nv.max(0) as usize, m.nbody.max(0) as usize);
    // SAFETY: mjData holds these arrays with these sizes; the layouts match.
    unsafe {
        (
            super::data::slice(d.qvel as *const f64, nv),
            super::data::slice(d.subtree_com as *const [f64; 3], nb),
            super::data::slice(d.cdof as *const [f64; 6], nv),
            super::data::slice(d.qacc_smooth as *const f64, nv),
        )
    }
}

/// The sleep state collision filters on (`body_awake`, `nbody_awake`).
pub fn sleep_state<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> (&'a [i32], usize) {
    let n = m.nbody.max(0) as usize;
    // SAFETY: mjData holds nbody sleep states.
    (unsafe { super::data::slice(d.body_awake as *const i32, n) }, d.nbody_awake.max(0) as usize)
}

/// MuJoCo's contact record for an engine contact (solver fields cleared as MuJoCo leaves them).
#[inline]
pub fn to_mj_contact(c: &specula_engine::contact::Contact) -> sys::mjContact {
    sys::mjContact {
        dist: c.dist,
        pos: c.pos,
        frame: c.frame,
        includemargin: c.includemargin,
        friction: c.friction,
        solref: c.solref,
        solreffriction: c.solreffriction,
        solimp: c.solimp,
        adhesion: c.adhesion,
        surfacevel: c.surfacevel,
        mu: 0.0,
        H: [0.0; 36],
        dim: c.dim,
        geom1: c.geom[0],
        geom2: c.geom[1],
        geom: c.geom,
        flex: [-1, -1],
        elem: [-1, -1],
        vert: [-1, -1],
        exclude: c.exclude,
        efc_address: -1,
    }
}

/// An engine contact from MuJoCo's record (for comparisons).
pub fn from_mj_contact(c: &sys::mjContact) -> specula_engine::contact::Contact {
    specula_engine::contact::Contact {
        dist: c.dist,
        pos: c.pos,
        frame: c.frame,
        includemargin: c.includemargin,
        friction: c.friction,
        solref: c.solref,
        solreffriction: c.solreffriction,
        solimp: c.solimp,
        adhesion: c.adhesion,
        surfacevel: c.surfacevel,
        dim: c.dim,
        geom: c.geom,
        exclude: c.exclude,
    }
}

/// Appends `contacts` to `d` in order, leaving `d` as calling `mj_addContact` for each would;
/// returns how many fit in the arena (MuJoCo warns when it is full, as its own collision does).
///
/// `mj_addContact` in 4.0.0 marks every contact already in `d` with `efc_address = -1` before
/// appending (`docs/measurements.md`, P3), so one call per contact is quadratic: 8,865 contacts
/// per step spent 91 % of a step there. The contacts given here all carry `efc_address = -1`
/// already, so when they all fit, all but the last are written in place and the last goes
/// through `mj_addContact`, which does the reset, the marking pass (a no-op) and the arena
/// bookkeeping once, for the final count. When they do not all fit, each goes through
/// `mj_addContact`, whose overflow warning then is MuJoCo's own.
pub fn add_contacts(m: &sys::mjModel, d: &mut sys::mjData, contacts: &[specula_engine::contact::Contact]) -> usize {
    let size = std::mem::size_of::<sys::mjContact>();
    let ptr = d.contact as usize;
    let pad = if ptr % 8 == 0 { 0 } else { 8 - ptr % 8 };
    let free = (d.narena as usize).saturating_sub(d.pstack);
    let base = d.ncon.max(0) as usize;
    let all_fit = !d.contact.is_null() && pad == 0 && (base + contacts.len()) * size <= free;
    if let (true, Some((last, head))) = (all_fit, contacts.split_last()) {
        for (i, c) in head.iter().enumerate() {
            // SAFETY: the arena holds `free` bytes from `contact` on (checked above), so slot
            // `base + i` lies inside it and past the contacts already there.
            unsafe { d.contact.add(base + i).write(to_mj_contact(c)) };
        }
        d.ncon = (base + head.len()) as i32;
        let con = to_mj_contact(last);
        // SAFETY: valid model, data and contact record; the arena has room for it.
        if unsafe { sys::mj_addContact(m, d, &con) } != 0 {
            return head.len();
        }
        return contacts.len();
    }
    for (i, c) in contacts.iter().enumerate() {
        let con = to_mj_contact(c);
        // SAFETY: valid model, data and contact record.
        if unsafe { sys::mj_addContact(m, d, &con) } != 0 {
            return i;
        }
    }
    contacts.len()
}

/// The contacts currently in `d`, converted.
pub fn contacts_of(d: &sys::mjData) -> Vec<specula_engine::contact::Contact> {
    // SAFETY: `contact` holds `ncon` records.
    let cs = unsafe { super::data::slice(d.contact as *const sys::mjContact, d.ncon.max(0) as usize) };
    cs.iter().map(from_mj_contact).collect()
}

/// Runs MuJoCo's own narrowphase function for geoms `g1`, `g2` (in MuJoCo's order, lower type
/// first) with `margin`; the geometric part of each contact it finds is pushed to `out`.
/// Returns false when MuJoCo has no function for the pair.
pub fn library_pair_contacts(
    m: &sys::mjModel,
    d: &mut sys::mjData,
    g1: usize,
    g2: usize,
    margin: f64,
    out: &mut Vec<specula_engine::narrowphase::ContactPoint>,
) -> bool {
    let ng = m.ngeom.max(0) as usize;
    if g1 >= ng || g2 >= ng {
        return false;
    }
    // SAFETY: geom_type holds ngeom entries; indices checked above.
    let (t1, t2) = unsafe { (*m.geom_type.add(g1), *m.geom_type.add(g2)) };
    // SAFETY: the table is a static 9x9 array of the library; types are valid geom types.
    let Some(f) =
        (unsafe { sys::mjCOLLISIONFUNC }).get(t1 as usize).and_then(|row| row.get(t2 as usize)).copied().flatten()
    else {
        return false;
    };
    let mut buf = [sys::mjPreContact::default(); specula_engine::narrowphase::MAX_CONTACTS];
    // SAFETY: MuJoCo's pair function writes at most mjMAXCONPAIR contacts into `buf`.
    let n = unsafe { f(m, d, buf.as_mut_ptr(), g1 as i32, g2 as i32, margin) };
    for c in &buf[..n.clamp(0, buf.len() as i32) as usize] {
        // The driver completes the frame from normal (and tangent, when the pair gives one).
        out.push(specula_engine::narrowphase::ContactPoint::from_normal(c.dist, c.pos, &c.normal, &c.tangent));
    }
    true
}
