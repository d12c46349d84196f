//! `mj_tendon` in Rust inside MuJoCo's step, fixed and spatial tendons
//! (`specula_engine::dynamics::tendon`, `docs/measurements.md` D45, D57, D58). The library calls it
//! through its symbol table from `mj_fwdKinematics` (and `mj_setConst`); specula's own
//! `mj_fwdKinematics` calls the exported one too (`kinematics.rs`).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::tendon::{tendon, TendonModel, TendonOutput, TendonScratch, TendonState};

use super::fields::Field;
use super::{slice, slice_mut, Fallback};

thread_local! {
    /// The stage's work arrays, reused from call to call.
    static SCRATCH: RefCell<TendonScratch> = RefCell::new(TendonScratch::default());
}

/// The stage's view of MuJoCo's model.
fn tendon_model(m: &sys::mjModel) -> TendonModel<'_> {
    let (nt, nwrap, njnt, njten) = (m.ntendon as usize, m.nwrap as usize, m.njnt as usize, m.nJten as usize);
    let (nsite, ngeom) = (m.nsite as usize, m.ngeom as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        TendonModel {
            tendon_adr: slice(m.tendon_adr, nt),
            tendon_num: slice(m.tendon_num, nt),
            wrap_type: slice(m.wrap_type, nwrap),
            wrap_objid: slice(m.wrap_objid, nwrap),
            wrap_prm: slice(m.wrap_prm, nwrap),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            ten_j_rownnz: slice(m.ten_J_rownnz, nt),
            ten_j_rowadr: slice(m.ten_J_rowadr, nt),
            ten_j_colind: slice(m.ten_J_colind, njten),
            site_bodyid: slice(m.site_bodyid, nsite),
            geom_bodyid: slice(m.geom_bodyid, ngeom),
            geom_size: slice(m.geom_size, 3 * ngeom),
            jac: super::constraint_contact::contact_model(m).jac,
        }
    }
}

/// The stack frame `mj_tendon` takes when the model has tendons: three `3 x nv` Jacobians, an
/// `nv` vector and an `nv` dof chain.
fn frame(nv: usize) -> [(usize, usize); 5] {
    [(24 * nv, 8), (24 * nv, 8), (24 * nv, 8), (8 * nv, 8), (4 * nv, 4)]
}

/// Why `mj_tendon` must stay MuJoCo's: asleep trees with sleep on (it skips their tendons), a
/// locked or full stack.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.ntendon == 0 {
        return None;
    }
    if m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && (d.ntree_awake as i64) < m.ntree {
        return Some(Fallback::Asleep);
    }
    // SAFETY: the flag's byte, read as a byte.
    if unsafe { super::byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    super::stack::replay(d, &[frame(m.nv as usize)]).is_err().then_some(Fallback::StackFull)
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_tendon`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    if m.ntendon == 0 {
        return;
    }
    if let Ok(mem) = super::stack::replay(d, &[frame(m.nv as usize)]) {
        d.maxuse_stack = mem.maxuse_stack as sys::mjtSize;
        d.maxuse_arena = mem.maxuse_arena as sys::mjtSize;
    }
    let (nt, nwrap, nv, nbody) = (m.ntendon as usize, m.nwrap as usize, m.nv as usize, m.nbody as usize);
    let (nsite, ngeom) = (m.nsite as usize, m.ngeom as usize);
    // SAFETY: mjData's tendon and wrap arrays of the documented lengths, distinct from the
    // positions and Jacobian inputs read.
    let (st, mut out) = unsafe {
        (
            TendonState {
                qpos: slice(d.qpos, m.nq as usize),
                site_xpos: slice(d.site_xpos, 3 * nsite),
                geom_xpos: slice(d.geom_xpos, 3 * ngeom),
                geom_xmat: slice(d.geom_xmat, 9 * ngeom),
                jac: JacState { cdof: slice(d.cdof, 6 * nv), subtree_com: slice(d.subtree_com, 3 * nbody) },
            },
            TendonOutput {
                ten_length: slice_mut(d.ten_length, nt),
                ten_j: slice_mut(d.ten_J, m.nJten as usize),
                ten_wrapadr: slice_mut(d.ten_wrapadr, nt),
                ten_wrapnum: slice_mut(d.ten_wrapnum, nt),
                wrap_obj: slice_mut(d.wrap_obj, 2 * nwrap),
                wrap_xpos: slice_mut(d.wrap_xpos, 6 * nwrap),
            },
        )
    };
    SCRATCH.with_borrow_mut(|s| {
        s.resize(nv);
        tendon(&tendon_model(m), &st, s, &mut out);
    });
}

/// The arrays `mj_tendon` writes.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nt, nwrap) = (m.ntendon as usize, m.nwrap as usize);
    vec![
        Field::i32("ten_wrapadr", d.ten_wrapadr, nt),
        Field::i32("ten_wrapnum", d.ten_wrapnum, nt),
        Field::i32("wrap_obj", d.wrap_obj, 2 * nwrap),
        Field::f64("wrap_xpos", d.wrap_xpos, 6 * nwrap),
        Field::f64("ten_J", d.ten_J, m.nJten as usize),
        Field::f64("ten_length", d.ten_length, nt),
    ]
}
