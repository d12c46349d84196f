//! `mj_Jdotv`: the `Jdot v` correction `mj_referenceConstraint` subtracts from the reference
//! acceleration of connect and weld rows, as MuJoCo 4.0.0 computes it (`docs/measurements.md`
//! D51). Joint equality rows have a constant Jacobian and get none.
//!
//! Algorithm (per connect or weld, in row order):
//! 1. Each body's point Jacobian derivative (`mj_jacDot`, or `mj_jacDotSparse` over the union
//!    of both dof chains): per dof of the body's chain, the rotation row is `cdof_dot` (for a
//!    ball or a free joint's rotation, `cvel x cdof` of the dof's body instead), the translation
//!    row `cdof_dot_lin + cdof_dot_rot x offset + cdof_rot x v_point`, with `offset` the point
//!    from the tree's com and `v_point` the body's velocity moved to the point.
//! 2. `Jdot v` of each point (rows against `qvel`); the three translation rows lose
//!    `jdv1 - jdv2`.
//! 3. A weld's rotation rows lose half the vector part of the time derivative of
//!    `n (J1 - J2) v q` (`q` the first frame times the relative pose, `n` the conjugate of the
//!    second frame), by the product rule: `n' w q + n (Jr1' - Jr2') v q + n w q'` with
//!    `w = omega1 - omega2`, times the torque scale.
// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use super::equality::{
    anchors, bodies, mul_quat_axis, q4, v3, EqualityModel, EqualityState, CONNECT, NEQDATA, OBJ_SITE, WELD,
};
use super::jacobian::{self, JacModel};
use crate::dynamics::reference::{dot, sparse_dot};
use crate::dynamics::spatial::cross_motion;
use crate::math::{cross, mul_quat, neg_quat, sub3};

/// `mjJNT_FREE`.
const JNT_FREE: i32 = 0;
/// `mjJNT_BALL`.
const JNT_BALL: i32 = 1;

/// Buffers reused from call to call (sized when `nv` grows).
#[derive(Debug, Default)]
pub struct JdotScratch {
    /// Translation and rotation Jacobian derivatives of both points (`3 nv` each).
    jac: [Vec<f64>; 4],
    /// The merged dof chain (`nv`).
    chain: Vec<i32>,
}

/// `mju_derivQuat`: the time derivative of `q` turning at `vel`.
fn deriv_quat(q: &[f64; 4], vel: &[f64; 3]) -> [f64; 4] {
    [
        0.5 * (-vel[0] * q[1] - vel[1] * q[2] - vel[2] * q[3]),
        0.5 * (vel[0] * q[0] + vel[1] * q[3] - vel[2] * q[2]),
        0.5 * (-vel[0] * q[3] + vel[1] * q[0] + vel[2] * q[1]),
        0.5 * (vel[0] * q[2] - vel[1] * q[1] + vel[2] * q[0]),
    ]
}

/// `mj_jacDot` (`chain` `None`) or `mj_jacDotSparse` over `chain`: the `3 x n` derivatives of
/// the translation (`jacp`) and rotation (`jacr`, when given) Jacobians of `point` on `body`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn jac_dot(
    m: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    jacp: &mut [f64],
    mut jacr: Option<&mut [f64]>,
    point: &[f64; 3],
    body: usize,
    chain: Option<&[i32]>,
) {
    let n = chain.map_or(jm.nv, <[i32]>::len);
    jacp[..3 * n].fill(0.0);
    let root = jm.body_rootid[body] as usize;
    let com = v3(st.jac.subtree_com, root);
    let offset = sub3(point, &com);
    let cv = &st.cvel[6 * body..6 * body + 6];
    let pvel = sub3(&[cv[3], cv[4], cv[5]], &cross(&offset, &[cv[0], cv[1], cv[2]]));
    if let Some(r) = jacr.as_deref_mut() {
        r[..3 * n].fill(0.0);
    }
    let w = jm.body_weldid[body] as usize;
    if jm.body_dofnum[w] == 0 {
        return;
    }
    let mut da = jm.body_dofadr[w] + jm.body_dofnum[w] - 1;
    let mut ci = n as isize - 1;
    while da >= 0 {
        let d = da as usize;
        let k = match chain {
            None => d,
            Some(c) => {
                while ci >= 0 && c[ci as usize] > da {
                    ci -= 1;
                }
                if ci < 0 || c[ci as usize] != da {
                    // not in the chain: the library's error, cannot occur for a merged chain
                    da = jm.dof_parentid[d];
                    continue;
                }
                ci as usize
            }
        };
        let cdof = &st.jac.cdof[6 * d..6 * d + 6];
        let mut cdot = [0.0; 6];
        cdot.copy_from_slice(&st.cdof_dot[6 * d..6 * d + 6]);
        let j = m.dof_jntid[d] as usize;
        let ty = m.jnt_type[j];
        if ty == JNT_BALL || (ty == JNT_FREE && da >= m.jnt_dofadr[j] + 3) {
            let b = m.dof_bodyid[d] as usize;
            let mut vel = [0.0; 6];
            vel.copy_from_slice(&st.cvel[6 * b..6 * b + 6]);
            cdot = cross_motion(&vel, cdof);
        }
        if let Some(r) = jacr.as_deref_mut() {
            for a in 0..3 {
                r[k + a * n] += cdot[a];
            }
        }
        let t1 = cross(&[cdot[0], cdot[1], cdot[2]], &offset);
        let t2 = cross(&[cdof[0], cdof[1], cdof[2]], &pvel);
        for a in 0..3 {
            jacp[k + a * n] += cdot[3 + a] + t1[a] + t2[a];
        }
        da = jm.dof_parentid[d];
    }
}

/// Each of the three rows of `jac` (`3 x n`) against `qvel`, dense or over `chain`.
fn rows_dot(jac: &[f64], qvel: &[f64], chain: Option<&[i32]>) -> [f64; 3] {
    let mut out = [0.0; 3];
    match chain {
        None => {
            let n = qvel.len();
            for (a, o) in out.iter_mut().enumerate() {
                *o = dot(&jac[a * n..(a + 1) * n], qvel);
            }
        }
        Some(c) => {
            let n = c.len();
            for (a, o) in out.iter_mut().enumerate() {
                *o = sparse_dot(&jac[a * n..(a + 1) * n], c, qvel);
            }
        }
    }
    out
}

/// `mj_Jdotv`: subtracts the `Jdot v` term of every connect and weld among the first `ne` rows
/// (`efc_id[..ne]`) from `aref`.
pub fn jdotv(
    m: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    sparse: bool,
    efc_id: &[i32],
    aref: &mut [f64],
    scratch: &mut JdotScratch,
) {
    let (nv, ne) = (jm.nv, efc_id.len());
    if ne == 0 || nv == 0 {
        return;
    }
    for b in &mut scratch.jac {
        b.resize(3 * nv, 0.0);
    }
    scratch.chain.resize(nv, 0);
    let mut row = 0;
    while row < ne {
        let id = efc_id[row] as usize;
        let ty = m.eq_type[id];
        if ty != CONNECT && ty != WELD {
            while row < ne && efc_id[row] as usize == id {
                row += 1;
            }
            continue;
        }
        let weld = ty == WELD;
        let (p1, p2) = anchors(m, st, id);
        let (b1, b2) = bodies(m, id);
        let [jp1, jp2, jr1, jr2] = &mut scratch.jac;
        let (mut jdv1, mut jdv2, mut jrdv1, mut jrdv2) = ([0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]);
        let nn = if sparse { jacobian::merge_chain_all(jm, &mut scratch.chain, b1, b2) } else { nv };
        if nn > 0 {
            let chain = sparse.then(|| &scratch.chain[..nn]);
            jac_dot(m, jm, st, jp1, weld.then_some(&mut jr1[..]), &p1, b1, chain);
            jac_dot(m, jm, st, jp2, weld.then_some(&mut jr2[..]), &p2, b2, chain);
            jdv1 = rows_dot(jp1, st.qvel, chain);
            jdv2 = rows_dot(jp2, st.qvel, chain);
            if weld {
                jrdv1 = rows_dot(jr1, st.qvel, chain);
                jrdv2 = rows_dot(jr2, st.qvel, chain);
            }
        }
        for k in 0..3 {
            aref[row + k] -= jdv1[k] - jdv2[k];
        }
        row += 3;
        if weld {
            weld_jdotv(m, st, id, (b1, b2), &sub3(&jrdv1, &jrdv2), &mut aref[row..row + 3]);
            row += 3;
        }
    }
}

/// Step 3 of the module's algorithm for weld `id` on bodies `b`, with `djrdv` the rotation
/// Jacobians' derivatives' difference times `qvel`.
fn weld_jdotv(m: &EqualityModel, st: &EqualityState, id: usize, b: (usize, usize), djrdv: &[f64; 3], out: &mut [f64]) {
    let d = &m.eq_data[NEQDATA * id..NEQDATA * (id + 1)];
    let torquescale = d[10];
    let (o1, o2) = (m.eq_obj1id[id] as usize, m.eq_obj2id[id] as usize);
    let omega = |body: usize| [st.cvel[6 * body], st.cvel[6 * body + 1], st.cvel[6 * body + 2]];
    let (w1, w2) = (omega(b.0), omega(b.1));
    let (x1, x2) = (q4(st.xquat, b.0), q4(st.xquat, b.1));
    let site = m.eq_objtype[id] == OBJ_SITE;
    let (q0r, negq1, qdot0r, negqdot1) = if site {
        let f0 = mul_quat(&x1, &q4(m.site_quat, o1));
        let f1 = mul_quat(&x2, &q4(m.site_quat, o2));
        (f0, neg_quat(&f1), deriv_quat(&f0, &w1), neg_quat(&deriv_quat(&f1, &w2)))
    } else {
        let relpose = [d[6], d[7], d[8], d[9]];
        let qdot0 = deriv_quat(&x1, &w1);
        (mul_quat(&x1, &relpose), neg_quat(&x2), mul_quat(&qdot0, &relpose), neg_quat(&deriv_quat(&x2, &w2)))
    };
    let domega = sub3(&w1, &w2);
    let t1 = mul_quat(&mul_quat_axis(&negqdot1, &domega), &q0r);
    let t2 = mul_quat(&mul_quat_axis(&negq1, djrdv), &q0r);
    let t3 = mul_quat(&mul_quat_axis(&negq1, &domega), &qdot0r);
    for k in 0..3 {
        out[k] -= 0.5 * (t1[k + 1] + t2[k + 1] + t3[k + 1]) * torquescale;
    }
}
