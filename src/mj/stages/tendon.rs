//! `mj_tendon` in Rust inside MuJoCo's step, for models whose tendons are all fixed
//! (`specula_engine::dynamics::tendon`, `docs/measurements.md` D45). The library calls it
//! through its symbol table from `mj_fwdKinematics` (and `mj_setConst`); specula's own
//! `mj_fwdKinematics` calls the exported one too (`kinematics.rs`).

use mujoco_sys as sys;
use specula_engine::dynamics::tendon::{tendon, TendonModel, TendonOutput};

use super::fields::Field;
use super::{slice, slice_mut, Fallback};

/// The stage's view of MuJoCo's model.
fn tendon_model(m: &sys::mjModel) -> TendonModel<'_> {
    let (nt, nwrap, njnt, njten) = (m.ntendon as usize, m.nwrap as usize, m.njnt as usize, m.nJten as usize);
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
        }
    }
}

/// The stack frame `mj_tendon` takes when the model has tendons: three `3 x nv` Jacobians, an
/// `nv` vector and an `nv` dof chain.
fn frame(nv: usize) -> [(usize, usize); 5] {
    [(24 * nv, 8), (24 * nv, 8), (24 * nv, 8), (8 * nv, 8), (4 * nv, 4)]
}

/// Why `mj_tendon` must stay MuJoCo's: asleep trees with sleep on (it skips their tendons),
/// spatial tendons (sites, wrapping geoms, pulleys), a locked or full stack.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.ntendon == 0 {
        return None;
    }
    if m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && (d.ntree_awake as i64) < m.ntree {
        return Some(Fallback::Asleep);
    }
    if !tendon_model(m).all_fixed() {
        return Some(Fallback::SpatialTendon);
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
    let nt = m.ntendon as usize;
    // SAFETY: mjData's tendon arrays of the documented lengths, distinct from the qpos read.
    let (qpos, mut out) = unsafe {
        (
            slice(d.qpos, m.nq as usize),
            TendonOutput {
                ten_length: slice_mut(d.ten_length, nt),
                ten_j: slice_mut(d.ten_J, m.nJten as usize),
                ten_wrapadr: slice_mut(d.ten_wrapadr, nt),
                ten_wrapnum: slice_mut(d.ten_wrapnum, nt),
            },
        )
    };
    tendon(&tendon_model(m), qpos, &mut out);
}

/// The arrays `mj_tendon` writes (for fixed tendons).
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nt = m.ntendon as usize;
    vec![
        Field::i32("ten_wrapadr", d.ten_wrapadr, nt),
        Field::i32("ten_wrapnum", d.ten_wrapnum, nt),
        Field::f64("ten_J", d.ten_J, m.nJten as usize),
        Field::f64("ten_length", d.ten_length, nt),
    ]
}
