//! `mj_tendonDot` and `mj_tendonBias` as MuJoCo 4.0.0 computes them for spatial tendons whose
//! path is made of sites (pulleys split it; `docs/measurements.md` D87): the bias force
//! `a J' (dJ/dt qvel)` a tendon's armature `a` adds to `qfrc_bias` after `mj_rne`.
//!
//! Per pair of consecutive sites on different bodies (unit direction `u` from the first to the
//! second, length `l`, endpoint velocity difference `w`), with the dense point Jacobians `Jp`
//! and their derivatives `Jp'`: `s += ((Jp2' - Jp1')' u) . qvel / div` then
//! `s += ((Jp2 - Jp1)' u') . qvel / div`, with `u' = (w - (u . w) u) / l` (zero below
//! `mjMINVAL`) and `div` the last pulley's divisor.

use super::constraint::equality::{EqualityModel, EqualityState};
use super::constraint::equality_jdot::jac_dot;
use super::constraint::jacobian::{jac, JacModel};
use super::reference::dot;
use super::rne_post::transform_motion;
use super::solver::products::mul_mat_t_vec;
use super::tendon::WRAP_JOINT;
use super::tendon_spatial::WRAP_PULLEY;
use crate::math::{dot3, normalize3, sub3, MINVAL};

/// The tendon and site arrays [`tendon_dot`] reads (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonDotModel<'a> {
    /// First path object of each tendon.
    pub tendon_adr: &'a [i32],
    /// Number of path objects of each tendon.
    pub tendon_num: &'a [i32],
    /// Type of each path object (`mjtWrap`).
    pub wrap_type: &'a [i32],
    /// Site (or joint, geom) of each path object.
    pub wrap_objid: &'a [i32],
    /// Parameter of each path object (a pulley's divisor).
    pub wrap_prm: &'a [f64],
    /// Body of each site.
    pub site_bodyid: &'a [i32],
}

/// Buffers reused from call to call (sized when `nv` grows).
#[derive(Clone, Debug, Default)]
pub struct TendonDotScratch {
    /// The two endpoints' Jacobians (or their derivatives) and their difference (`3 nv` each).
    jac: [Vec<f64>; 3],
    /// The difference times a direction (`nv`).
    tmp: Vec<f64>,
}

impl TendonDotScratch {
    fn resize(&mut self, nv: usize) {
        for j in &mut self.jac {
            j.resize(3 * nv, 0.0);
        }
        self.tmp.resize(nv, 0.0);
    }
}

/// The linear velocity of site `id` at its origin in world axes (`mj_objectVelocity`, zero on
/// a body welded to the world).
fn site_velocity(t: &TendonDotModel, jm: &JacModel, st: &EqualityState, id: usize) -> [f64; 3] {
    let body = t.site_bodyid[id] as usize;
    if jm.body_dofnum[jm.body_weldid[body] as usize] == 0 {
        return [0.0; 3];
    }
    let root = jm.body_rootid[body] as usize;
    let com = [st.jac.subtree_com[3 * root], st.jac.subtree_com[3 * root + 1], st.jac.subtree_com[3 * root + 2]];
    let v = transform_motion(&st.cvel[6 * body..6 * body + 6], &site_pos(st, id), &com, None);
    [v[3], v[4], v[5]]
}

/// The world position of site `id`.
fn site_pos(st: &EqualityState, id: usize) -> [f64; 3] {
    [st.site_xpos[3 * id], st.site_xpos[3 * id + 1], st.site_xpos[3 * id + 2]]
}

/// `dJ/dt qvel` of tendon `id` (zero for a fixed tendon). The path must hold sites and pulleys
/// only (the caller refuses geom wrapping), and the Jacobians are dense (`mj_jacDot`).
pub fn tendon_dot(
    t: &TendonDotModel,
    em: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    id: usize,
    s: &mut TendonDotScratch,
) -> f64 {
    let adr = t.tendon_adr[id] as usize;
    if t.wrap_type[adr] == WRAP_JOINT {
        return 0.0;
    }
    let nv = jm.nv;
    s.resize(nv);
    let num = t.tendon_num[id] as usize;
    let (mut sum, mut divisor) = (0.0, 1.0);
    for j in 0..num.saturating_sub(1) {
        let (t0, t1) = (t.wrap_type[adr + j], t.wrap_type[adr + j + 1]);
        if t0 == WRAP_PULLEY || t1 == WRAP_PULLEY {
            if t0 == WRAP_PULLEY {
                divisor = t.wrap_prm[adr + j];
            }
            continue;
        }
        let (s0, s1) = (t.wrap_objid[adr + j] as usize, t.wrap_objid[adr + j + 1] as usize);
        let (b0, b1) = (t.site_bodyid[s0] as usize, t.site_bodyid[s1] as usize);
        let (p0, p1) = (site_pos(st, s0), site_pos(st, s1));
        let (v0, v1) = (site_velocity(t, jm, st, s0), site_velocity(t, jm, st, s1));
        if b0 == b1 {
            continue;
        }
        let mut u = sub3(&p1, &p0);
        let len = normalize3(&mut u);
        let w = sub3(&v1, &v0);
        let uw = dot3(&u, &w);
        // the direction's derivative; the library tests `len > MINVAL` here but `len < MINVAL`
        // in the normalisation, so a length of exactly MINVAL gives a unit `u` and a zero `u'`
        let inv = if len > MINVAL { 1.0 / len } else { 0.0 };
        let du = [inv * (w[0] - u[0] * uw), inv * (w[1] - u[1] * uw), inv * (w[2] - u[2] * uw)];
        let [j1, j2, dif] = &mut s.jac;
        jac_dot(em, jm, st, j1, None, &p0, b0, None);
        jac_dot(em, jm, st, j2, None, &p1, b1, None);
        for ((d, &a), &b) in dif.iter_mut().zip(j2.iter()).zip(j1.iter()) {
            *d = a - b;
        }
        mul_mat_t_vec(&mut s.tmp, dif, &u);
        let first = dot(&s.tmp, st.qvel);
        jac(jm, &st.jac, j1, None, &p0, b0);
        jac(jm, &st.jac, j2, None, &p1, b1);
        for ((d, &a), &b) in dif.iter_mut().zip(j2.iter()).zip(j1.iter()) {
            *d = a - b;
        }
        mul_mat_t_vec(&mut s.tmp, dif, &du);
        let second = dot(&s.tmp, st.qvel);
        sum = (sum + first / divisor) + second / divisor;
    }
    sum
}

/// The tendons' Jacobian rows and armature [`tendon_bias`] reads (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonBiasModel<'a> {
    /// Armature of each tendon, the tendon's own plus its actuators' (`ntendon`).
    pub armature: &'a [f64],
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// First non-zero of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each Jacobian non-zero (`nJten`).
    pub ten_j_colind: &'a [i32],
}

/// `mj_tendonBias` (every tree awake): adds `a (dJ/dt qvel) J'` of each tendon with armature `a`
/// to `qfrc` (`qfrc_bias`), `ten_j` being the Jacobians' non-zeros (`d->ten_J`).
#[allow(clippy::too_many_arguments)]
pub fn tendon_bias(
    t: &TendonDotModel,
    b: &TendonBiasModel,
    em: &EqualityModel,
    jm: &JacModel,
    st: &EqualityState,
    ten_j: &[f64],
    s: &mut TendonDotScratch,
    qfrc: &mut [f64],
) {
    for (k, &arm) in b.armature.iter().enumerate() {
        if arm == 0.0 {
            continue;
        }
        let coef = tendon_dot(t, em, jm, st, k, s) * arm;
        if coef == 0.0 {
            continue;
        }
        let (adr, nnz) = (b.ten_j_rowadr[k] as usize, b.ten_j_rownnz[k] as usize);
        for (&dof, &jk) in b.ten_j_colind[adr..adr + nnz].iter().zip(&ten_j[adr..adr + nnz]) {
            let q = &mut qfrc[dof as usize];
            *q += coef * jk;
        }
    }
}
