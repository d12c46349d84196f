//! The tendon rows' view of MuJoCo's model and data for `mj_makeConstraint`
//! (`specula_engine::dynamics::constraint::tendon`, `docs/measurements.md` D46).

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::tendon::{TendonRowModel, TendonRowState};

use super::{bytes, slice};

/// The tendon rows' view of MuJoCo's model.
pub(super) fn tendon_row_model(m: &sys::mjModel) -> TendonRowModel<'_> {
    let (nt, njten) = (m.ntendon as usize, m.nJten as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        TendonRowModel {
            nv: m.nv as usize,
            disable_frictionloss: m.opt.disableflags & sys::mjDSBL_FRICTIONLOSS as i32 != 0,
            disable_limit: m.opt.disableflags & sys::mjDSBL_LIMIT as i32 != 0,
            tendon_limited: bytes(m.tendon_limited, nt),
            tendon_frictionloss: slice(m.tendon_frictionloss, nt),
            tendon_range: slice(m.tendon_range, 2 * nt),
            tendon_margin: slice(m.tendon_margin, nt),
            ten_j_rownnz: slice(m.ten_J_rownnz, nt),
            ten_j_rowadr: slice(m.ten_J_rowadr, nt),
            ten_j_colind: slice(m.ten_J_colind, njten),
        }
    }
}

/// The tendon state (`mj_tendon`'s outputs) in MuJoCo's data.
pub(super) fn tendon_row_state<'a>(m: &sys::mjModel, d: &sys::mjData) -> TendonRowState<'a> {
    // SAFETY: ten_length has ntendon entries, ten_J nJten.
    unsafe {
        TendonRowState { ten_length: slice(d.ten_length, m.ntendon as usize), ten_j: slice(d.ten_J, m.nJten as usize) }
    }
}
