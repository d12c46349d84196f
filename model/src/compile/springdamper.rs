//! Joint `springdamper="timeconst dampratio"`: stiffness and damping from the joint's inverse
//! inertia at the default pose, as MuJoCo's compiler derives them (from `dof_invweight0`).
//!
//! Algorithm:
//! 1. Pose every body at qpos0. Hinge and slide joints sit at their reference there and free
//!    joints at the body's own pose, so this is the static composition of body poses.
//! 2. Build the joint-space inertia M = Σ_b m_b Jv_bᵀ Jv_b + Jw_bᵀ I_b Jw_b (+ armature) from
//!    each body's centre-of-mass Jacobian, dense.
//! 3. Per joint, A = (M⁻¹) restricted to its dofs (Cholesky solves); invweight = A's diagonal
//!    averaged as MuJoCo does (translational and rotational thirds of a free joint separately);
//!    a body that is `simple` with sliders only uses 1/mass.
//! 4. inertia = ndof / Σ invweight; stiffness = inertia / (tc² dr²); damping = 2 inertia / tc.
//!
//! The numbers agree with MuJoCo to rounding (not bit for bit: MuJoCo factors a sparse M).

use super::math::{mulquat, quat2mat, rot_vec_quat, MINVAL};
use crate::model::Model;
use crate::types::JointType;

/// World pose of every body and its centre of mass at qpos0.
struct Poses {
    xpos: Vec<[f64; 3]>,
    xquat: Vec<[f64; 4]>,
    xipos: Vec<[f64; 3]>,
    xiquat: Vec<[f64; 4]>,
}

fn poses(m: &Model) -> Poses {
    let n = m.nbody;
    let mut p = Poses {
        xpos: vec![[0.0; 3]; n],
        xquat: vec![[1.0, 0.0, 0.0, 0.0]; n],
        xipos: vec![[0.0; 3]; n],
        xiquat: vec![[1.0, 0.0, 0.0, 0.0]; n],
    };
    for b in 1..n {
        let par = m.body_parentid[b];
        let v = rot_vec_quat(&m.body_pos[b], &p.xquat[par]);
        p.xpos[b] = [p.xpos[par][0] + v[0], p.xpos[par][1] + v[1], p.xpos[par][2] + v[2]];
        p.xquat[b] = mulquat(&p.xquat[par], &m.body_quat[b]);
        // A slide moves its body by axis x (qpos0 - qpos0) even at qpos0, which is zero unless
        // the axis is not finite: then NaN, and MuJoCo's later qpos0 quantities carry it.
        let adr = m.body_jntadr[b].max(0) as usize;
        for j in adr..adr + m.body_jntnum[b] {
            if m.jnt_type[j] == JointType::Slide {
                let axis = rot_vec_quat(&m.jnt_axis[j], &p.xquat[b]);
                for (x, a) in p.xpos[b].iter_mut().zip(axis) {
                    *x += a * 0.0;
                }
            }
        }
        let w = rot_vec_quat(&m.body_ipos[b], &p.xquat[b]);
        p.xipos[b] = [p.xpos[b][0] + w[0], p.xpos[b][1] + w[1], p.xpos[b][2] + w[2]];
        p.xiquat[b] = mulquat(&p.xquat[b], &m.body_iquat[b]);
    }
    p
}

/// World position and orientation of every body at qpos0 (for `mj_setConst`'s equality data).
pub(super) fn body_poses(m: &Model) -> (Vec<[f64; 3]>, Vec<[f64; 4]>) {
    let p = poses(m);
    (p.xpos, p.xquat)
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Per dof: (angular axis, linear direction, anchor point) in world coordinates; the linear
/// velocity of a point x of a moving body is `lin + ang × (x - anchor)`.
fn dof_axes(m: &Model, p: &Poses) -> Vec<([f64; 3], [f64; 3], [f64; 3])> {
    let mut out = vec![([0.0; 3], [0.0; 3], [0.0; 3]); m.nv];
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j];
        let r = quat2mat(&p.xquat[b]);
        let col = |k: usize| [r[k], r[3 + k], r[6 + k]];
        let a = rot_vec_quat(&m.jnt_pos[j], &p.xquat[b]);
        let anchor = [p.xpos[b][0] + a[0], p.xpos[b][1] + a[1], p.xpos[b][2] + a[2]];
        let axis = rot_vec_quat(&m.jnt_axis[j], &p.xquat[b]);
        let d = m.jnt_dofadr[j];
        match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    let mut e = [0.0; 3];
                    e[k] = 1.0;
                    out[d + k] = ([0.0; 3], e, anchor);
                    out[d + 3 + k] = (col(k), [0.0; 3], anchor);
                }
            }
            JointType::Ball => {
                for k in 0..3 {
                    out[d + k] = (col(k), [0.0; 3], anchor);
                }
            }
            JointType::Hinge => out[d] = (axis, [0.0; 3], anchor),
            JointType::Slide => out[d] = ([0.0; 3], axis, anchor),
        }
    }
    out
}

/// Dense joint-space inertia at qpos0, row-major nv×nv.
fn mass_matrix(m: &Model, p: &Poses) -> Vec<f64> {
    let nv = m.nv;
    let axes = dof_axes(m, p);
    let mut mm = vec![0.0; nv * nv];
    for b in 1..m.nbody {
        // dofs moving body b: those of b and of its ancestors
        let mut dofs = Vec::new();
        let mut a = b;
        while a > 0 {
            if let Ok(adr) = usize::try_from(m.body_dofadr[a]) {
                dofs.extend(adr..adr + m.body_dofnum[a]);
            }
            a = m.body_parentid[a];
        }
        let r = quat2mat(&p.xiquat[b]);
        let inert = m.body_inertia[b];
        // world inertia R diag(I) Rᵀ
        let mut iw = [0.0; 9];
        for i in 0..3 {
            for k in 0..3 {
                iw[3 * i + k] = (0..3).map(|l| r[3 * i + l] * inert[l] * r[3 * k + l]).sum();
            }
        }
        let jac: Vec<(usize, [f64; 3], [f64; 3])> = dofs
            .iter()
            .map(|&d| {
                let (w, v, anchor) = axes[d];
                let rel = [p.xipos[b][0] - anchor[0], p.xipos[b][1] - anchor[1], p.xipos[b][2] - anchor[2]];
                let c = cross(&w, &rel);
                (d, w, [v[0] + c[0], v[1] + c[1], v[2] + c[2]])
            })
            .collect();
        for &(di, wi, vi) in &jac {
            let iwi = [
                iw[0] * wi[0] + iw[1] * wi[1] + iw[2] * wi[2],
                iw[3] * wi[0] + iw[4] * wi[1] + iw[5] * wi[2],
                iw[6] * wi[0] + iw[7] * wi[1] + iw[8] * wi[2],
            ];
            for &(dk, wk, vk) in &jac {
                let lin = vi[0] * vk[0] + vi[1] * vk[1] + vi[2] * vk[2];
                let ang = iwi[0] * wk[0] + iwi[1] * wk[1] + iwi[2] * wk[2];
                mm[di * nv + dk] += m.body_mass[b] * lin + ang;
            }
        }
    }
    for d in 0..nv {
        mm[d * nv + d] += m.dof_armature[d];
    }
    mm
}

/// Cholesky factor (lower, row-major) of a symmetric positive definite matrix.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if s <= 0.0 {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves L Lᵀ x = e_d and returns x.
fn solve_unit(l: &[f64], n: usize, d: usize) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut s = if i == d { 1.0 } else { 0.0 };
        for k in 0..i {
            s -= l[i * n + k] * y[k];
        }
        y[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = y[i];
        for k in i + 1..n {
            s -= l[k * n + i] * y[k];
        }
        y[i] = s / l[i * n + i];
    }
    y
}

/// Sets stiffness and damping of joints with a positive `springdamper` (indexed by joint).
pub fn apply(m: &mut Model, springdamper: &[[f64; 2]]) {
    if !springdamper.iter().any(|s| s[0] > 0.0 && s[1] > 0.0) || m.nv == 0 {
        return;
    }
    let p = poses(m);
    let l = cholesky(&mass_matrix(m, &p), m.nv);
    for (j, &[tc, dr]) in springdamper.iter().enumerate().take(m.njnt) {
        if tc <= 0.0 || dr <= 0.0 {
            continue;
        }
        let t = m.jnt_type[j];
        let (adr, ndim) = (m.jnt_dofadr[j], t.nv());
        let b = m.jnt_bodyid[j];
        let mut inv = vec![0.0; ndim];
        if m.body_simple[b] == 2 {
            inv[0] = 1.0 / MINVAL.max(m.body_mass[b]);
        } else if let Some(l) = &l {
            let diag: Vec<f64> = (0..ndim).map(|k| solve_unit(l, m.nv, adr + k)[adr + k]).collect();
            match ndim {
                6 => {
                    let (tr, rot) = ((diag[0] + diag[1] + diag[2]) / 3.0, (diag[3] + diag[4] + diag[5]) / 3.0);
                    inv = vec![tr, tr, tr, rot, rot, rot];
                }
                3 => inv = vec![(diag[0] + diag[1] + diag[2]) / 3.0; 3],
                _ => inv[0] = diag[0],
            }
        }
        let sum: f64 = inv.iter().sum();
        let inertia = ndim as f64 / MINVAL.max(sum);
        let stiffness = inertia / MINVAL.max(tc * tc * dr * dr);
        let damping = 2.0 * inertia / MINVAL.max(tc);
        m.jnt_stiffness[j] = stiffness;
        for k in 0..ndim {
            m.dof_damping[adr + k] = damping;
        }
    }
}
