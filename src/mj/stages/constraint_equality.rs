//! The equality part of `mj_makeConstraint`, `mj_referenceConstraint` and `mj_island` inside
//! MuJoCo's step: the views of MuJoCo's model and data the engine's equality rows read
//! (`docs/measurements.md` D50).

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::equality::{self, EqualityModel, EqualityState, NEQDATA};
use specula_engine::dynamics::island_equality::{IslandEquality, RowJacobian};

use super::constraint_contact::contact_state;
use super::{bytes, slice};

/// Whether every equality is one the Rust rows cover (connect, weld or joint).
pub(super) fn equalities_in_scope(m: &sys::mjModel) -> bool {
    // SAFETY: eq_type has neq entries.
    let ty = unsafe { slice(m.eq_type, m.neq.max(0) as usize) };
    ty.iter().all(|&t| matches!(t, equality::CONNECT | equality::WELD | equality::JOINT))
}

/// The equality rows' view of MuJoCo's model.
pub(super) fn equality_model(m: &sys::mjModel) -> EqualityModel<'_> {
    let (neq, nsite, nq, njnt) = (m.neq.max(0) as usize, m.nsite as usize, m.nq as usize, m.njnt as usize);
    let (nref, nimp) = (sys::mjNREF as usize, sys::mjNIMP as usize);
    let on = m.opt.disableflags & sys::mjDSBL_EQUALITY as i32 == 0 && m.nemax != 0;
    debug_assert_eq!(sys::mjNEQDATA as usize, NEQDATA);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        EqualityModel {
            on,
            eq_type: slice(m.eq_type, neq),
            eq_obj1id: slice(m.eq_obj1id, neq),
            eq_obj2id: slice(m.eq_obj2id, neq),
            eq_objtype: slice(m.eq_objtype, neq),
            eq_solref: slice(m.eq_solref, nref * neq),
            eq_solimp: slice(m.eq_solimp, nimp * neq),
            eq_data: slice(m.eq_data, NEQDATA * neq),
            site_bodyid: slice(m.site_bodyid, nsite),
            site_quat: slice(m.site_quat, 4 * nsite),
            qpos0: slice(m.qpos0, nq),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            jnt_type: slice(m.jnt_type, njnt),
            dof_jntid: slice(m.dof_jntid, m.nv as usize),
            dof_bodyid: slice(m.dof_bodyid, m.nv as usize),
        }
    }
}

/// The equality rows' view of MuJoCo's data.
pub(super) fn equality_state<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> EqualityState<'a> {
    let (neq, nbody, nsite, nq) = (m.neq.max(0) as usize, m.nbody as usize, m.nsite as usize, m.nq as usize);
    // SAFETY: every array has the length mjdata.h gives it.
    unsafe {
        EqualityState {
            eq_active: bytes(d.eq_active, neq),
            qpos: slice(d.qpos, nq),
            xpos: slice(d.xpos, 3 * nbody),
            xmat: slice(d.xmat, 9 * nbody),
            xquat: slice(d.xquat, 4 * nbody),
            site_xpos: slice(d.site_xpos, 3 * nsite),
            jac: contact_state(m, d).jac,
            qvel: slice(d.qvel, m.nv as usize),
            cvel: slice(d.cvel, 6 * nbody),
            cdof_dot: slice(d.cdof_dot, 6 * m.nv as usize),
        }
    }
}

/// The island stage's view of the equalities.
pub(super) fn island_equality(m: &sys::mjModel) -> IslandEquality<'_> {
    let (neq, nsite, ntree) = (m.neq.max(0) as usize, m.nsite as usize, m.ntree as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        IslandEquality {
            eq_type: slice(m.eq_type, neq),
            eq_obj1id: slice(m.eq_obj1id, neq),
            eq_obj2id: slice(m.eq_obj2id, neq),
            eq_objtype: slice(m.eq_objtype, neq),
            site_bodyid: slice(m.site_bodyid, nsite),
            tree_dofadr: slice(m.tree_dofadr, ntree),
        }
    }
}

/// The constraint Jacobian `mj_makeConstraint` wrote, for the island stage's scans.
pub(super) fn row_jacobian<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> RowJacobian<'a> {
    let (nefc, nj) = (d.nefc.max(0) as usize, d.nJ.max(0) as usize);
    // SAFETY: the arena's efc arrays of nefc rows and nJ non-zeros, read only.
    unsafe {
        RowJacobian {
            sparse: super::reference::is_sparse(m),
            efc_j: slice(d.efc_J, nj),
            rownnz: slice(d.efc_J_rownnz, nefc),
            rowadr: slice(d.efc_J_rowadr, nefc),
            colind: slice(d.efc_J_colind, nj),
        }
    }
}

/// The stack blocks `mj_Jdotv` takes in its frame, as `(bytes, alignment)`, in its order: a
/// chain when sparse, two `3 nv` translation blocks at the first connect or weld, two rotation
/// blocks at the first weld; `None` when it returns before marking the stack.
pub(super) fn jdotv_stack(m: &sys::mjModel, d: &sys::mjData, sparse: bool) -> Option<([(usize, usize); 5], usize)> {
    let (nv, ne) = (m.nv.max(0) as usize, d.ne.max(0) as usize);
    if ne == 0 || nv == 0 {
        return None;
    }
    let em = equality_model(m);
    // SAFETY: efc_id has nefc >= ne rows.
    let ids = unsafe { slice(d.efc_id, ne) };
    let mut blocks = [(0, 4); 5];
    let mut n = 0;
    if sparse {
        blocks[0] = (4 * nv, 4);
        n = 1;
    }
    let block = (24 * nv, 8);
    let (mut tran, mut rot) = (false, false);
    for &id in ids {
        let ty = em.eq_type[id as usize];
        if (ty == equality::CONNECT || ty == equality::WELD) && !tran {
            tran = true;
            blocks[n] = block;
            blocks[n + 1] = block;
            n += 2;
        }
        if ty == equality::WELD && !rot {
            rot = true;
            blocks[n] = block;
            blocks[n + 1] = block;
            n += 2;
        }
    }
    Some((blocks, n))
}

#[cfg(test)]
mod tests {
    //! The equality rows in `mj_makeConstraint`, `mj_island` and `mj_referenceConstraint`
    //! (`mj_Jdotv`) against the library, call by call and bit for bit, on the project's equality
    //! scene with a dense and a sparse Jacobian; a changed output of each stage is seen.
    use super::super::compare::Tamper;
    use super::super::{Stage, StageSet};
    use crate::diff::{diff_stages, StageDiffOptions};
    use crate::mj::Model;
    use crate::sim::Start;

    const STAGES: [Stage; 3] = [Stage::MakeConstraint, Stage::Island, Stage::ReferenceConstraint];

    fn scene(jacobian: &str) -> Model {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/equality.xml");
        let xml = std::fs::read_to_string(path).expect("scene");
        Model::from_xml_str(&xml.replacen("<option ", &format!("<option jacobian=\"{jacobian}\" "), 1)).expect("model")
    }

    fn set() -> StageSet {
        STAGES.iter().fold(StageSet::NONE, |s, &st| s.with(st))
    }

    #[test]
    fn equality_rows_islands_and_jdotv_match_the_library() {
        for jacobian in ["dense", "sparse"] {
            let opts = StageDiffOptions { steps: 300, start: Start::Key("swing".into()), stages: set(), tamper: None };
            let r = diff_stages(&scene(jacobian), &opts).expect("run");
            assert!(r.matches(), "{jacobian}: {:?}", r.first);
            for st in STAGES {
                let i = Stage::ALL.iter().position(|&s| s == st).expect("stage");
                assert_eq!((r.compared[i], r.skipped[i]), (300, 0), "{jacobian} {st:?}");
            }
        }
    }

    #[test]
    fn the_comparison_sees_a_changed_equality_output() {
        for st in STAGES {
            let opts = StageDiffOptions {
                steps: 3,
                start: Start::Key("swing".into()),
                stages: set(),
                tamper: Some(Tamper::Output(st)),
            };
            let first = diff_stages(&scene("sparse"), &opts).expect("run").first.expect("a difference");
            assert_eq!(first.stage, st);
        }
    }
}
