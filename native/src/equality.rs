//! Equality constraints on the native route (`connect`, `weld`, `joint`): the `eq_*` arrays in
//! `mjModel`'s layout with the data `mj_setConst` derives at `qpos0` recomputed from the
//! native route's own pose there (bit for bit, `docs/measurements.md` N23), and the engine's
//! equality views of the model and data.

use specula_engine::dynamics::constraint::equality::{EqualityModel, EqualityScratch, CONNECT, NEQDATA, WELD};
use specula_engine::dynamics::constraint::equality_jdot::JdotScratch;
use specula_engine::dynamics::island_equality::IslandEquality;
use specula_engine::math::{mul_mat_t_vec3, mul_mat_vec3, mul_quat, neg_quat};

use crate::data::Data;
use crate::model::NativeModel;

/// `mjOBJ_BODY`.
const OBJ_BODY: i32 = 1;

/// The equality arrays in `mjModel`'s layout.
#[derive(Clone, Debug, Default)]
pub struct Equalities {
    /// `mjDSBL_EQUALITY` is clear and some equality exists (`nemax > 0`).
    pub on: bool,
    /// Type of each equality.
    pub eq_type: Vec<i32>,
    /// First object of each equality.
    pub eq_obj1id: Vec<i32>,
    /// Second object of each equality.
    pub eq_obj2id: Vec<i32>,
    /// Object type of each equality.
    pub eq_objtype: Vec<i32>,
    /// Initial activity of each equality.
    pub eq_active0: Vec<u8>,
    /// References (`2 neq`).
    pub eq_solref: Vec<f64>,
    /// Impedances (`5 neq`).
    pub eq_solimp: Vec<f64>,
    /// Data (`12 neq`), as `mj_setConst` leaves it.
    pub eq_data: Vec<f64>,
    /// First dof of each tree (for the island stage's Jacobian scan).
    pub tree_dofadr: Vec<i32>,
}

/// The equality stages' buffers, reused from step to step.
#[derive(Debug, Default)]
pub struct EqualityBuffers {
    /// `mj_instantiateEquality`'s.
    pub(crate) rows: EqualityScratch,
    /// `mj_Jdotv`'s.
    pub(crate) jdot: JdotScratch,
}

impl Equalities {
    /// The arrays of `nm`'s model, `eq_data` as compiled (see [`Equalities::set_const`]).
    pub fn new(nm: &NativeModel) -> Equalities {
        let m = &nm.model;
        let disabled = m.opt.disableflags & crate::scope::DSBL_EQUALITY != 0;
        Equalities {
            on: !disabled && !m.eq_type.is_empty(),
            eq_type: m.eq_type.clone(),
            eq_obj1id: m.eq_obj1id.clone(),
            eq_obj2id: m.eq_obj2id.clone(),
            eq_objtype: m.eq_objtype.clone(),
            eq_active0: m.eq_active0.clone(),
            eq_solref: m.eq_solref.iter().flatten().copied().collect(),
            eq_solimp: m.eq_solimp.iter().flatten().copied().collect(),
            eq_data: m.eq_data.iter().flatten().copied().collect(),
            tree_dofadr: m.tree_dofadr.iter().map(|&a| a as i32).collect(),
        }
    }

    /// `mj_setConst`'s equality data from the poses at `qpos0` in `d`: a body connect's second
    /// anchor in the second body's frame, and a body weld's (marked by `data[11] = 1`) first
    /// anchor point and relative orientation in the first body's frame.
    pub fn set_const(&mut self, d: &Data) {
        let v3 = |a: &[f64], k: usize| [a[3 * k], a[3 * k + 1], a[3 * k + 2]];
        let m9 = |k: usize| {
            let mut r = [0.0; 9];
            r.copy_from_slice(&d.xmat[9 * k..9 * k + 9]);
            r
        };
        let q4 = |k: usize| [d.xquat[4 * k], d.xquat[4 * k + 1], d.xquat[4 * k + 2], d.xquat[4 * k + 3]];
        for i in 0..self.eq_type.len() {
            let ty = self.eq_type[i];
            let data = &mut self.eq_data[NEQDATA * i..NEQDATA * (i + 1)];
            if self.eq_objtype[i] != OBJ_BODY || !(ty == CONNECT || (ty == WELD && data[11] == 1.0)) {
                continue;
            }
            let (b1, b2) = (self.eq_obj1id[i] as usize, self.eq_obj2id[i] as usize);
            // the anchor's body, and the body whose frame it is seen from
            let (from, to) = if ty == CONNECT { (b1, b2) } else { (b2, b1) };
            let local = v3(data, 0);
            let w = mul_mat_vec3(&m9(from), &local);
            let x = v3(&d.xpos, from);
            let mut pos = [w[0] + x[0], w[1] + x[1], w[2] + x[2]];
            let o = v3(&d.xpos, to);
            for k in 0..3 {
                pos[k] -= o[k];
            }
            data[3..6].copy_from_slice(&mul_mat_t_vec3(&m9(to), &pos));
            if ty == WELD {
                data[6..10].copy_from_slice(&mul_quat(&neg_quat(&q4(b1)), &q4(b2)));
            }
        }
    }
}

impl NativeModel {
    /// The equality rows' view of the model.
    pub(crate) fn equality(&self) -> EqualityModel<'_> {
        let (e, f, m) = (&self.equalities, &self.flat, &self.model);
        EqualityModel {
            on: e.on,
            eq_type: &e.eq_type,
            eq_obj1id: &e.eq_obj1id,
            eq_obj2id: &e.eq_obj2id,
            eq_objtype: &e.eq_objtype,
            eq_solref: &e.eq_solref,
            eq_solimp: &e.eq_solimp,
            eq_data: &e.eq_data,
            site_bodyid: &f.site_bodyid,
            site_quat: &f.site_quat,
            qpos0: &m.qpos0,
            jnt_qposadr: &f.jnt_qposadr,
            jnt_dofadr: &f.jnt_dofadr,
            jnt_type: &f.jnt_type,
            dof_jntid: &f.dof_jntid,
            dof_bodyid: &f.dof_bodyid,
        }
    }

    /// The island stage's view of the equalities.
    pub(crate) fn island_equality(&self) -> IslandEquality<'_> {
        let (e, f) = (&self.equalities, &self.flat);
        IslandEquality {
            eq_type: &e.eq_type,
            eq_obj1id: &e.eq_obj1id,
            eq_obj2id: &e.eq_obj2id,
            eq_objtype: &e.eq_objtype,
            site_bodyid: &f.site_bodyid,
            tree_dofadr: &e.tree_dofadr,
        }
    }
}

/// The equality rows' view of a [`Data`] (a macro so that the caller keeps its other fields
/// borrowable).
macro_rules! equality_state {
    ($d:expr) => {
        specula_engine::dynamics::constraint::equality::EqualityState {
            eq_active: &$d.eq_active,
            qpos: &$d.qpos,
            xpos: &$d.xpos,
            xmat: &$d.xmat,
            xquat: &$d.xquat,
            site_xpos: &$d.site_xpos,
            jac: specula_engine::dynamics::constraint::jacobian::JacState {
                cdof: &$d.cdof,
                subtree_com: &$d.subtree_com,
            },
            qvel: &$d.qvel,
            cvel: &$d.cvel,
            cdof_dot: &$d.cdof_dot,
        }
    };
}
pub(crate) use equality_state;
