//! The views of MuJoCo's model and data that the tendon, site, slider-crank and body rows of
//! `specula_engine::dynamics::transmission` read, their scratch, and the stack `mj_transmission`
//! takes for them (`docs/measurements.md` D60, D77).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::arena::Arena;
use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::constraint::Contact;
use specula_engine::dynamics::transmission_body::{BodyModel, BodyState};
use specula_engine::dynamics::transmission_site::{SiteModel, SiteState};
use specula_engine::dynamics::{TransmissionModel, TransmissionScratch, TransmissionState};

use super::constraint_contact::{jac_model, read_contacts};
use super::slice;
use super::stack::memory;

/// `mjTRN_SLIDERCRANK`, `mjTRN_SITE`, `mjTRN_BODY`.
const TRN_SLIDERCRANK: i32 = 2;
const TRN_SITE: i32 = 4;
const TRN_BODY: i32 = 5;

thread_local! {
    /// The Jacobians and dense row of the site and slider-crank rows (MuJoCo's are on its stack).
    static SCRATCH: RefCell<TransmissionScratch> = RefCell::new(TransmissionScratch::default());
    /// The library's contacts, copied for the body rows.
    static CONTACTS: RefCell<Vec<Contact>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `d`'s contacts copied into this thread's buffer (reused call to call).
pub(super) fn with_contacts<R>(d: &sys::mjData, f: impl FnOnce(&[Contact]) -> R) -> R {
    CONTACTS.with(|c| match c.try_borrow_mut() {
        Ok(mut c) => {
            read_contacts(d, &mut c);
            f(&c)
        }
        Err(_) => {
            let mut c = Vec::new();
            read_contacts(d, &mut c);
            f(&c)
        }
    })
}

/// Runs `f` with this thread's transmission scratch.
pub(super) fn with_scratch<R>(f: impl FnOnce(&mut TransmissionScratch) -> R) -> R {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        // nested use (not expected): a fresh scratch for this call
        Err(_) => f(&mut TransmissionScratch::default()),
    })
}

/// The tendon and site arrays of MuJoCo's model `mj_transmission` reads.
pub(super) fn transmission_model(m: &sys::mjModel) -> TransmissionModel<'_> {
    let (nsite, ntendon) = (m.nsite as usize, m.ntendon as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        TransmissionModel {
            ten_j_rownnz: slice(m.ten_J_rownnz, ntendon),
            ten_j_rowadr: slice(m.ten_J_rowadr, ntendon),
            ten_j_colind: slice(m.ten_J_colind, m.nJten as usize),
            nsite,
            site: SiteModel {
                site_bodyid: slice(m.site_bodyid, nsite),
                site_quat: slice(m.site_quat, 4 * nsite),
                actuator_cranklength: slice(m.actuator_cranklength, m.nactuator as usize),
                jac: jac_model(m),
            },
            body: BodyModel {
                geom_bodyid: slice(m.geom_bodyid, m.ngeom as usize),
                nbody: m.nbody as usize,
                elliptic: m.opt.cone == sys::mjCONE_ELLIPTIC as i32,
                sparse: sparse(m),
            },
        }
    }
}

/// `mj_isSparse`: a sparse Jacobian, or the automatic choice with 60 dofs or more.
fn sparse(m: &sys::mjModel) -> bool {
    let j = m.opt.jacobian;
    j == sys::mjJAC_SPARSE as i32 || (j == sys::mjJAC_AUTO as i32 && m.nv >= 60)
}

/// The state `mj_transmission` reads in MuJoCo's data (`contacts`: its contacts, copied).
pub(super) fn transmission_state<'a>(
    m: &sys::mjModel,
    d: &'a sys::mjData,
    contacts: &'a [Contact],
) -> TransmissionState<'a> {
    let (nv, nbody, nsite) = (m.nv as usize, m.nbody as usize, m.nsite as usize);
    let nefc = d.nefc.max(0) as usize;
    let is_sparse = sparse(m);
    let (nj, nrow) = if is_sparse { (d.nJ.max(0) as usize, nefc) } else { (nefc * nv, 0) };
    // SAFETY: mjData's arrays of the documented lengths, read only.
    unsafe {
        TransmissionState {
            qpos: slice(d.qpos, m.nq as usize),
            ten_length: slice(d.ten_length, m.ntendon as usize),
            ten_j: slice(d.ten_J, m.nJten as usize),
            site: SiteState {
                site_xpos: slice(d.site_xpos, 3 * nsite),
                site_xmat: slice(d.site_xmat, 9 * nsite),
                xquat: slice(d.xquat, 4 * nbody),
                jac: JacState { cdof: slice(d.cdof, 6 * nv), subtree_com: slice(d.subtree_com, 3 * nbody) },
            },
            body: BodyState {
                contacts,
                nefc,
                efc_j: slice(d.efc_J, nj),
                efc_j_rownnz: slice(d.efc_J_rownnz, nrow),
                efc_j_rowadr: slice(d.efc_J_rowadr, nrow),
                efc_j_colind: slice(d.efc_J_colind, nj),
            },
        }
    }
}

/// The stack high-water marks `mj_transmission` leaves: three `3 nv` Jacobians, then, as the
/// actuators come, one dense row at the first site transmission, one more `3 nv` Jacobian at
/// the first reference site, and for each slider-crank a `3 nv` rotation Jacobian inside its
/// own frame and a dense row; a body row the dense row, the row weights, the gap sum, three
/// `3 nv` pair Jacobians and, sparse, a dof chain (D77). `None` when the library would run out
/// of stack.
pub(super) fn transmission_marks(m: &sys::mjModel, d: &sys::mjData) -> Option<(i64, i64)> {
    // SAFETY: the flag's byte and the actuator arrays of their documented lengths.
    let (locked, trntype, trnid) = unsafe {
        (
            super::byte(&raw const d.threadlock) != 0,
            slice(m.actuator_trntype, m.nactuator as usize),
            slice(m.actuator_trnid, 2 * m.nactuator as usize),
        )
    };
    if locked {
        return None;
    }
    let (jac, row) = (3 * 8 * m.nv as usize, 8 * m.nv as usize);
    let mut a: Arena = memory(d);
    a.mark().ok()?;
    for _ in 0..3 {
        a.stack_alloc(jac, 8).ok()?;
    }
    let (mut have_row, mut have_ref, mut have_weights) = (false, false, false);
    let (nefc, is_sparse) = (d.nefc.max(0) as usize, sparse(m));
    for (i, &t) in trntype.iter().enumerate() {
        match t {
            TRN_SITE => {
                if !have_row {
                    a.stack_alloc(row, 8).ok()?;
                    have_row = true;
                }
                if trnid[2 * i + 1] >= 0 && !have_ref {
                    a.stack_alloc(jac, 8).ok()?;
                    have_ref = true;
                }
            }
            TRN_SLIDERCRANK => {
                a.frame(&[(jac, 8)]).ok()?;
                a.stack_alloc(row, 8).ok()?;
                have_row = true;
            }
            TRN_BODY => {
                if !have_row {
                    a.stack_alloc(row, 8).ok()?;
                    have_row = true;
                }
                // the row weights, the gap sum, three pair Jacobians and (sparse) a dof chain,
                // taken again by each body row while the weights are empty (no rows: NULL)
                if !have_weights {
                    a.stack_alloc(8 * nefc, 8).ok()?;
                    have_weights = nefc > 0;
                    a.stack_alloc(row, 8).ok()?;
                    for _ in 0..3 {
                        a.stack_alloc(jac, 8).ok()?;
                    }
                    if is_sparse {
                        a.stack_alloc(4 * m.nv as usize, 4).ok()?;
                    }
                }
            }
            _ => {}
        }
    }
    Some((a.maxuse_stack as i64, a.maxuse_arena as i64))
}
