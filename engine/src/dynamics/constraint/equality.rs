//! The equality rows of `mj_makeConstraint` (`connect`, `weld`, `joint`), counted and then
//! appended as MuJoCo 4.0.0's counting pass and `mj_instantiateEquality` build them, and their
//! inverse inertia and impedance position (`docs/measurements.md` D50). Tendon and flex
//! equalities are the library's: the caller keeps those models away.
//!
//! Algorithm (per active equality, in id order):
//! 1. `connect` and `weld`: the two anchor points in the world (a body's anchor through its
//!    frame, a site's own position); the error is the first minus the second. The Jacobian is
//!    `mj_jacDifPair` of the second body at its point against the first at its point, over the
//!    union of both dof chains (no shared dof is skipped, unlike contacts).
//! 2. `weld` adds three rotation rows: with `q` the first frame (times the relative pose for
//!    bodies, the site's frame for sites) and `n` the conjugate of the second, the error is the
//!    vector part of `n q` and each rotation column `c` becomes half the vector part of
//!    `(n c) q`, all scaled by the torque scale.
//! 3. `joint`: `q1 - q1_0 - p(q2 - q2_0)` for the polynomial `p` of `data[0..5]` (without the
//!    second joint `q1 - q1_0 - data[0]`), the row `e1 - p'(q2 - q2_0) e2`.
// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use super::jacobian::{self, JacModel, JacState, PairBuffers};
use super::limits::RowCount;
use super::{cnstr, count_rows, EfcRows, Rows};
use crate::math::{mul_mat_vec3, mul_quat, neg_quat};

/// `mjEQ_CONNECT`.
pub const CONNECT: i32 = 0;
/// `mjEQ_WELD`.
pub const WELD: i32 = 1;
/// `mjEQ_JOINT`.
pub const JOINT: i32 = 2;
/// `mjOBJ_SITE`.
pub(super) const OBJ_SITE: i32 = 6;
/// `mjNEQDATA` in 4.0.0.
pub const NEQDATA: usize = 12;

/// The model arrays the equality rows read (MuJoCo's names; `neq` = `eq_type.len()`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EqualityModel<'a> {
    /// Equality rows are made: `mjDSBL_EQUALITY` is clear and `nemax > 0`.
    pub on: bool,
    /// Type of each equality (`mjtEq`).
    pub eq_type: &'a [i32],
    /// First object of each equality.
    pub eq_obj1id: &'a [i32],
    /// Second object of each equality (-1 for none).
    pub eq_obj2id: &'a [i32],
    /// Object type of each equality (`mjtObj`).
    pub eq_objtype: &'a [i32],
    /// Reference of each equality (`2 neq`).
    pub eq_solref: &'a [f64],
    /// Impedance of each equality (`5 neq`).
    pub eq_solimp: &'a [f64],
    /// Data of each equality (`12 neq`).
    pub eq_data: &'a [f64],
    /// Body of each site.
    pub site_bodyid: &'a [i32],
    /// Orientation of each site in its body (`4 nsite`).
    pub site_quat: &'a [f64],
    /// Reference configuration (`nq`).
    pub qpos0: &'a [f64],
    /// First `qpos` entry of each joint.
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint.
    pub jnt_dofadr: &'a [i32],
    /// Type of each joint (`mjtJoint`; for `mj_jacDot`'s quaternion dofs).
    pub jnt_type: &'a [i32],
    /// Joint of each dof.
    pub dof_jntid: &'a [i32],
    /// Body of each dof.
    pub dof_bodyid: &'a [i32],
}

/// The data the equality rows read.
#[derive(Clone, Copy, Debug, Default)]
pub struct EqualityState<'a> {
    /// Whether each equality is active (`mjtByte`).
    pub eq_active: &'a [u8],
    /// Joint positions.
    pub qpos: &'a [f64],
    /// Body positions (`3 nbody`).
    pub xpos: &'a [f64],
    /// Body orientations as matrices (`9 nbody`).
    pub xmat: &'a [f64],
    /// Body orientations as quaternions (`4 nbody`).
    pub xquat: &'a [f64],
    /// Site positions (`3 nsite`).
    pub site_xpos: &'a [f64],
    /// `cdof` and `subtree_com`.
    pub jac: JacState<'a>,
    /// Joint velocities (for `mj_Jdotv`).
    pub qvel: &'a [f64],
    /// Body velocities about the subtree com, rotation first (`6 nbody`).
    pub cvel: &'a [f64],
    /// Time derivative of each `cdof` (`6 nv`).
    pub cdof_dot: &'a [f64],
}

/// Buffers reused from call to call (sized when `nv` grows).
#[derive(Debug, Default)]
pub struct EqualityScratch {
    /// The rows being built (`6 nv`).
    jac: Vec<f64>,
    /// The second joint's row (`nv`).
    jac2: Vec<f64>,
    /// The pair's Jacobians and differences.
    pair: PairBuffers,
    /// The merged dof chain (`nv`).
    chain: Vec<i32>,
}

impl EqualityScratch {
    fn resize(&mut self, nv: usize) {
        self.jac.resize(6 * nv, 0.0);
        self.jac2.resize(nv, 0.0);
        self.pair.resize(nv);
        self.chain.resize(nv.max(2), 0);
    }
}

pub(super) fn v3(a: &[f64], k: usize) -> [f64; 3] {
    [a[3 * k], a[3 * k + 1], a[3 * k + 2]]
}

pub(super) fn q4(a: &[f64], k: usize) -> [f64; 4] {
    [a[4 * k], a[4 * k + 1], a[4 * k + 2], a[4 * k + 3]]
}

fn m9(a: &[f64], k: usize) -> [f64; 9] {
    let mut m = [0.0; 9];
    m.copy_from_slice(&a[9 * k..9 * k + 9]);
    m
}

/// The two bodies a connect or weld acts on (a site's body for sites).
pub(super) fn bodies(m: &EqualityModel, i: usize) -> (usize, usize) {
    let (o1, o2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i] as usize);
    if m.eq_objtype[i] == OBJ_SITE {
        (m.site_bodyid[o1] as usize, m.site_bodyid[o2] as usize)
    } else {
        (o1, o2)
    }
}

/// The world anchor points of connect or weld `i` (`mj_equalityAnchors`): a connect's first
/// anchor is `data[0..3]` and its second `data[3..6]`, a weld's the other way round.
pub fn anchors(m: &EqualityModel, st: &EqualityState, i: usize) -> ([f64; 3], [f64; 3]) {
    let (o1, o2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i] as usize);
    if m.eq_objtype[i] == OBJ_SITE {
        return (v3(st.site_xpos, o1), v3(st.site_xpos, o2));
    }
    let d = &m.eq_data[NEQDATA * i..NEQDATA * (i + 1)];
    let (a1, a2) = if m.eq_type[i] == CONNECT { (&d[0..3], &d[3..6]) } else { (&d[3..6], &d[0..3]) };
    let point = |b: usize, a: &[f64]| {
        let w = mul_mat_vec3(&m9(st.xmat, b), &[a[0], a[1], a[2]]);
        let x = v3(st.xpos, b);
        [w[0] + x[0], w[1] + x[1], w[2] + x[2]]
    };
    (point(o1, a1), point(o2, a2))
}

/// The rows of equality `i` (3, 6 or 1).
fn size(m: &EqualityModel, i: usize) -> usize {
    match m.eq_type[i] {
        CONNECT => 3,
        WELD => 6,
        _ => 1,
    }
}

/// The active equalities, in order.
fn active<'s>(m: &'s EqualityModel, st: &'s EqualityState) -> impl Iterator<Item = usize> + 's {
    let n = if m.on { m.eq_type.len() } else { 0 };
    (0..n).filter(move |&i| st.eq_active[i] != 0)
}

/// The equality rows and sparse Jacobian non-zeros of the counting pass.
pub fn count(
    m: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    sparse: bool,
    scratch: &mut EqualityScratch,
) -> RowCount {
    let mut n = RowCount::default();
    scratch.resize(jm.nv);
    for i in active(m, st) {
        let size = size(m, i);
        let nn = if !sparse {
            0
        } else if m.eq_type[i] == JOINT {
            let d1 = m.jnt_dofadr[m.eq_obj1id[i] as usize];
            let j2 = m.eq_obj2id[i];
            if j2 >= 0 && m.jnt_dofadr[j2 as usize] != d1 {
                2
            } else {
                1
            }
        } else {
            let (b1, b2) = bodies(m, i);
            jacobian::pair_columns_all(jm, &mut scratch.chain, b2, b1, true)
        };
        n.rows += count_rows(sparse, jm.nv, size, nn);
        n.nnz += size * nn;
    }
    n
}

/// Appends the rows of every active equality to `rows` (MuJoCo's `mj_instantiateEquality`).
pub fn instantiate(
    m: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    sparse: bool,
    rows: &mut EfcRows,
    scratch: &mut EqualityScratch,
) {
    let nv = jm.nv;
    scratch.resize(nv);
    for i in active(m, st) {
        let mut cpos = [0.0; 6];
        let (size, nn) = match m.eq_type[i] {
            CONNECT | WELD => {
                let weld = m.eq_type[i] == WELD;
                let (p1, p2) = anchors(m, st, i);
                let (b1, b2) = bodies(m, i);
                for k in 0..3 {
                    cpos[k] = p1[k] - p2[k];
                }
                let EqualityScratch { jac, pair, chain, .. } = scratch;
                let nn = jacobian::pair_columns_all(jm, chain, b2, b1, sparse);
                if nn > 0 {
                    jacobian::dif_pair(jm, &st.jac, chain, nn, b2, b1, &p2, &p1, pair, weld, sparse);
                }
                jac[..3 * nn].copy_from_slice(&pair.jacdifp[..3 * nn]);
                if weld {
                    jac[3 * nn..6 * nn].copy_from_slice(&pair.jacdifr[..3 * nn]);
                    weld_rotation(m, st, i, &mut jac[3 * nn..6 * nn], &mut cpos, nn);
                }
                (if weld { 6 } else { 3 }, nn)
            }
            _ => joint_row(m, st, i, nv, sparse, &mut cpos[0], scratch),
        };
        let chain = if sparse { &scratch.chain[..nn] } else { &[][..] };
        let width = if sparse { nn } else { nv };
        rows.add(Rows {
            jac: &scratch.jac[..size * width],
            pos: Some(&cpos[..size]),
            margin: None,
            frictionloss: 0.0,
            size,
            ty: cnstr::EQUALITY,
            id: i as i32,
            chain,
        });
    }
}

/// `mju_mulQuatAxis` as 4.0.0 orders it: each component sums its three products in axis order.
pub(super) fn mul_quat_axis(q: &[f64; 4], a: &[f64; 3]) -> [f64; 4] {
    [
        -q[1] * a[0] + -q[2] * a[1] + -q[3] * a[2],
        q[0] * a[0] + -q[3] * a[1] + q[2] * a[2],
        q[3] * a[0] + q[0] * a[1] + -q[1] * a[2],
        -q[2] * a[0] + q[1] * a[1] + q[0] * a[2],
    ]
}

/// A weld's rotation error into `cpos[3..6]` and its rotation rows `rot` (`3 x nn`, the
/// Jacobian difference on entry), as step 2 of the module's algorithm.
fn weld_rotation(m: &EqualityModel, st: &EqualityState, i: usize, rot: &mut [f64], cpos: &mut [f64; 6], nn: usize) {
    let d = &m.eq_data[NEQDATA * i..NEQDATA * (i + 1)];
    let torquescale = d[10];
    let (o1, o2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i] as usize);
    let (quat, neg1) = if m.eq_objtype[i] == OBJ_SITE {
        let (b1, b2) = bodies(m, i);
        let q = mul_quat(&q4(st.xquat, b1), &q4(m.site_quat, o1));
        let s2 = mul_quat(&q4(st.xquat, b2), &q4(m.site_quat, o2));
        (q, neg_quat(&s2))
    } else {
        (mul_quat(&q4(st.xquat, o1), &[d[6], d[7], d[8], d[9]]), neg_quat(&q4(st.xquat, o2)))
    };
    let err = mul_quat(&neg1, &quat);
    for k in 0..3 {
        cpos[3 + k] = err[1 + k] * torquescale;
    }
    for j in 0..nn {
        let axis = [rot[j], rot[nn + j], rot[2 * nn + j]];
        let q3 = mul_quat(&mul_quat_axis(&neg1, &axis), &quat);
        rot[j] = 0.5 * q3[1];
        rot[nn + j] = 0.5 * q3[2];
        rot[2 * nn + j] = 0.5 * q3[3];
    }
    for v in &mut rot[..3 * nn] {
        *v *= torquescale;
    }
}

/// A joint equality's row into `scratch.jac` (and its dofs into `scratch.chain` when sparse)
/// and its error into `cpos`; returns (1, columns).
fn joint_row(
    m: &EqualityModel,
    st: &EqualityState,
    i: usize,
    nv: usize,
    sparse: bool,
    cpos: &mut f64,
    scratch: &mut EqualityScratch,
) -> (usize, usize) {
    let d = &m.eq_data[NEQDATA * i..NEQDATA * (i + 1)];
    let (j1, j2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i]);
    let q1 = m.jnt_qposadr[j1] as usize;
    let dof1 = m.jnt_dofadr[j1];
    let EqualityScratch { jac, chain, .. } = scratch;
    let mut nn = 1;
    if sparse {
        jac[0] = 1.0;
        chain[0] = dof1;
    } else {
        jac[..nv].fill(0.0);
        jac[dof1 as usize] = 1.0;
    }
    if j2 < 0 {
        *cpos = st.qpos[q1] - m.qpos0[q1] - d[0];
        return (1, if sparse { nn } else { nv });
    }
    let (j2, dof2) = (j2 as usize, m.jnt_dofadr[j2 as usize]);
    let q2 = m.jnt_qposadr[j2] as usize;
    let dif = st.qpos[q2] - m.qpos0[q2];
    let poly = d[1] * dif + d[2] * dif * dif + d[3] * dif * dif * dif + d[4] * dif * dif * dif * dif;
    *cpos = st.qpos[q1] - m.qpos0[q1] - d[0] - poly;
    let deriv = d[1] + 2.0 * d[2] * dif + 3.0 * d[3] * dif * dif + 4.0 * d[4] * dif * dif * dif;
    if sparse {
        // dst = 1 dst + (-deriv) src over the merged pattern of the two dofs
        let b = -deriv;
        if dof1 == dof2 {
            jac[0] = 1.0 * jac[0] + b * 1.0;
        } else if dof1 < dof2 {
            jac[1] = b * 1.0;
            chain[1] = dof2;
            nn = 2;
        } else {
            jac[1] = jac[0];
            jac[0] = b * 1.0;
            chain[1] = dof1;
            chain[0] = dof2;
            nn = 2;
        }
        (1, nn)
    } else {
        let jac2 = &mut scratch.jac2;
        jac2[..nv].fill(0.0);
        jac2[dof2 as usize] = 1.0;
        let b = -deriv;
        for k in 0..nv {
            jac[k] += jac2[k] * b;
        }
        (1, nv)
    }
}

/// The rows of the equality constraint starting at a row of equality `id` and the distance
/// its impedance is taken at (`getposdim`): the norm of a connect's or weld's errors.
pub fn pos_dim(m: &EqualityModel, id: usize, efc_pos: &[f64]) -> (usize, f64) {
    match m.eq_type[id] {
        CONNECT => (3, crate::dynamics::reference::dot(&efc_pos[..3], &efc_pos[..3]).sqrt()),
        WELD => (6, crate::dynamics::reference::dot(&efc_pos[..6], &efc_pos[..6]).sqrt()),
        _ => (1, efc_pos[0]),
    }
}

/// Approximate inverse inertia of the equality rows starting at row `i` of equality `id`,
/// written to `diag_a[..rows]`: translation weights of both bodies (rotation for a weld's last
/// three rows), a joint's dof weights.
pub fn diag_approx(m: &EqualityModel, dof_invweight0: &[f64], body_invweight0: &[f64], id: usize, diag_a: &mut [f64]) {
    match m.eq_type[id] {
        CONNECT | WELD => {
            let (b1, b2) = bodies(m, id);
            for r in 0..size(m, id) {
                let k = usize::from(r > 2);
                diag_a[r] = body_invweight0[2 * b1 + k] + body_invweight0[2 * b2 + k];
            }
        }
        _ => {
            let mut v = dof_invweight0[m.jnt_dofadr[m.eq_obj1id[id] as usize] as usize];
            let j2 = m.eq_obj2id[id];
            if j2 >= 0 {
                v += dof_invweight0[m.jnt_dofadr[j2 as usize] as usize];
            }
            diag_a[0] = v;
        }
    }
}

/// The reference and impedance of equality `id`.
pub fn sol_params(m: &EqualityModel, id: usize) -> ([f64; 2], [f64; 5]) {
    let r = &m.eq_solref[2 * id..2 * id + 2];
    let s = &m.eq_solimp[5 * id..5 * id + 5];
    ([r[0], r[1]], [s[0], s[1], s[2], s[3], s[4]])
}
