//! The site-based rows of `mj_transmission`: site transmissions (the gear as a wrench in the
//! site's frame, or, with a reference site, the site's pose relative to it) and slider-cranks,
//! each a dense moment row over all dofs compressed to its non-zeros (`docs/measurements.md` D60).
// Indexed loops walk several arrays in step, as the library does; `x = x + y` keeps its operand
// order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::constraint::jacobian::{jac, merge_chain, merge_chain_all, JacModel, JacState};
use super::transmission::rotation_vector;
use crate::math::{dot3, mul_mat_t_vec3, mul_mat_vec3, mul_quat, neg_quat, sub3};

/// The model arrays the site rows read besides the actuator view.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteModel<'a> {
    /// Body of each site.
    pub site_bodyid: &'a [i32],
    /// Orientation of each site in its body's frame.
    pub site_quat: &'a [f64],
    /// Crank (rod) length of each slider-crank actuator (`nactuator`).
    pub actuator_cranklength: &'a [f64],
    /// The Jacobians' view of the tree.
    pub jac: JacModel<'a>,
}

/// The state the site rows read.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteState<'a> {
    /// Global position of each site.
    pub site_xpos: &'a [f64],
    /// Global orientation (row-major 3x3) of each site.
    pub site_xmat: &'a [f64],
    /// Global orientation of each body.
    pub xquat: &'a [f64],
    /// `cdof` and `subtree_com`, for the site Jacobians.
    pub jac: JacState<'a>,
}

/// Scratch of the site rows: three `3 nv` Jacobians, a rotation Jacobian, the dense row and a
/// dof chain.
#[derive(Clone, Debug, Default)]
pub struct SiteScratch {
    jac: Vec<f64>,
    jac_r: Vec<f64>,
    jac_ref: Vec<f64>,
    jac_a: Vec<f64>,
    row: Vec<f64>,
    chain: Vec<i32>,
}

impl SiteScratch {
    /// Sizes the buffers for `nv` dofs (allocates only when `nv` grows).
    pub fn resize(&mut self, nv: usize) {
        for v in [&mut self.jac, &mut self.jac_r, &mut self.jac_ref, &mut self.jac_a] {
            v.resize(3 * nv, 0.0);
        }
        self.row.resize(nv, 0.0);
        self.chain.resize(2 * nv, 0);
    }
}

/// Three consecutive values of `v` from `3 i`.
fn at3(v: &[f64], i: usize) -> [f64; 3] {
    [v[3 * i], v[3 * i + 1], v[3 * i + 2]]
}

/// Nine consecutive values of `v` from `9 i`.
fn at9(v: &[f64], i: usize) -> [f64; 9] {
    v[9 * i..9 * i + 9].try_into().expect("nine values")
}

/// Four consecutive values of `v` from `4 i`.
fn at4(v: &[f64], i: usize) -> [f64; 4] {
    v[4 * i..4 * i + 4].try_into().expect("four values")
}

/// `mju_mulMatTVec` of a `3 x nv` matrix: `res = mat' v`, a row whose factor is zero skipped.
fn mul_t3(res: &mut [f64], mat: &[f64], v: [f64; 3], nv: usize) {
    res[..nv].fill(0.0);
    for (k, &s) in v.iter().enumerate() {
        if s == 0.0 {
            continue;
        }
        for (r, &a) in res[..nv].iter_mut().zip(&mat[k * nv..k * nv + nv]) {
            *r = *r + a * s;
        }
    }
}

/// `mju_isZero`: every value is exactly zero.
fn is_zero(v: &[f64]) -> bool {
    v.iter().all(|&x| x == 0.0)
}

/// The site's Jacobians (translation into `jacp`, rotation into `jacr`).
fn site_jac(sm: &SiteModel, st: &SiteState, jacp: &mut [f64], jacr: Option<&mut [f64]>, site: usize) {
    let body = sm.site_bodyid[site] as usize;
    jac(&sm.jac, &st.jac, jacp, jacr, &at3(st.site_xpos, site), body);
}

/// The last dof both sites' bodies move with (their deepest shared ancestor dof), if any.
fn common_dof(jm: &JacModel, b0: usize, b1: usize) -> i32 {
    let last = |b: usize| {
        let w = jm.body_weldid[b] as usize;
        jm.body_dofadr[w] + jm.body_dofnum[w] - 1
    };
    let (mut d0, mut d1) = (last(b0), last(b1));
    if d0 < 0 || d1 < 0 {
        return -1;
    }
    while d0 != d1 {
        if d0 < d1 {
            d1 = jm.dof_parentid[d1 as usize];
        } else {
            d0 = jm.dof_parentid[d0 as usize];
        }
        if d0 == -1 || d1 == -1 {
            return -1;
        }
    }
    d0
}

/// Zeroes the columns of dof `da` and its ancestors in a `3 x nv` Jacobian.
fn clear_chain(jm: &JacModel, j: &mut [f64], mut da: i32) {
    let nv = jm.nv;
    while da >= 0 {
        let d = da as usize;
        j[d] = 0.0;
        j[nv + d] = 0.0;
        j[2 * nv + d] = 0.0;
        da = jm.dof_parentid[d];
    }
}

/// The most non-zeros a site row of sites `site` and `refsite` (-1: none) can have: the dofs
/// moving the site, or, with a reference, those moving either but not both.
pub fn site_row_bound(sm: &SiteModel, chain: &mut [i32], site: usize, refsite: i32) -> usize {
    let b0 = sm.site_bodyid[site] as usize;
    if refsite < 0 {
        merge_chain_all(&sm.jac, chain, b0, b0)
    } else {
        merge_chain(&sm.jac, chain, b0, sm.site_bodyid[refsite as usize] as usize)
    }
}

/// The most non-zeros a slider-crank row of sites `crank` and `slider` can have.
pub fn slider_crank_row_bound(sm: &SiteModel, chain: &mut [i32], crank: usize, slider: usize) -> usize {
    merge_chain_all(&sm.jac, chain, sm.site_bodyid[crank] as usize, sm.site_bodyid[slider] as usize)
}

/// Scratch dof chain of `2 nv` entries, for the row bounds.
pub(super) fn chain(s: &mut SiteScratch) -> &mut [i32] {
    &mut s.chain
}

/// Compresses the dense row `row` (scaled by `scale` when given) into `moment`/`colind` from
/// `adr`; returns the number of non-zeros.
fn compress(row: &[f64], scale: Option<f64>, moment: &mut [f64], colind: &mut [i32], adr: usize) -> i32 {
    let mut n = 0;
    for (j, &r) in row.iter().enumerate() {
        if r != 0.0 {
            moment[adr + n] = match scale {
                Some(g) => r * g,
                None => r,
            };
            colind[adr + n] = j as i32;
            n += 1;
        }
    }
    n as i32
}

/// A site transmission's length and moment row at `adr`: site `site`, reference site `refsite`
/// (-1: none), gear `gear`; returns (length, non-zeros).
#[allow(clippy::too_many_arguments)]
pub fn site_row(
    sm: &SiteModel,
    st: &SiteState,
    s: &mut SiteScratch,
    site: usize,
    refsite: i32,
    gear: &[f64],
    moment: &mut [f64],
    colind: &mut [i32],
    adr: usize,
) -> (f64, i32) {
    let nv = sm.jac.nv;
    site_jac(sm, st, &mut s.jac, Some(&mut s.jac_r), site);
    let mut length = 0.0;
    let xmat = at9(st.site_xmat, site);
    if refsite < 0 {
        let g: [f64; 3] = [gear[0], gear[1], gear[2]];
        let w_t = mul_mat_vec3(&xmat, &g);
        let w_r = mul_mat_vec3(&xmat, &[gear[3], gear[4], gear[5]]);
        mul_t3(&mut s.row, &s.jac, w_t, nv);
        mul_t3(&mut s.jac, &s.jac_r, w_r, nv);
        for (r, &a) in s.row[..nv].iter_mut().zip(&s.jac[..nv]) {
            *r = *r + a;
        }
    } else {
        let r = refsite as usize;
        let ref_xmat = at9(st.site_xmat, r);
        let common = common_dof(&sm.jac, sm.site_bodyid[site] as usize, sm.site_bodyid[r] as usize);
        s.row[..nv].fill(0.0);
        if !is_zero(&gear[0..3]) {
            let g = [gear[0], gear[1], gear[2]];
            let v = mul_mat_t_vec3(&ref_xmat, &sub3(&at3(st.site_xpos, site), &at3(st.site_xpos, r)));
            length = length + dot3(&v, &g);
            site_jac(sm, st, &mut s.jac_ref, None, r);
            for (a, &b) in s.jac[..3 * nv].iter_mut().zip(&s.jac_ref[..3 * nv]) {
                *a = *a - b;
            }
            clear_chain(&sm.jac, &mut s.jac, common);
            mul_t3(&mut s.row, &s.jac, mul_mat_vec3(&ref_xmat, &g), nv);
        }
        if !is_zero(&gear[3..6]) {
            let g = [gear[3], gear[4], gear[5]];
            let body_quat = |i: usize| at4(st.xquat, sm.site_bodyid[i] as usize);
            // the sites' global orientations, body then site (not through their matrices)
            let q = mul_quat(&body_quat(site), &at4(sm.site_quat, site));
            let q_ref = mul_quat(&body_quat(r), &at4(sm.site_quat, r));
            let v = rotation_vector(mul_quat(&neg_quat(&q_ref), &q));
            length = length + dot3(&v, &g);
            // the reference's translation Jacobian is not needed: it lands in scratch
            site_jac(sm, st, &mut s.jac_a, Some(&mut s.jac_ref), r);
            for (a, &b) in s.jac_r[..3 * nv].iter_mut().zip(&s.jac_ref[..3 * nv]) {
                *a = *a - b;
            }
            clear_chain(&sm.jac, &mut s.jac_r, common);
            mul_t3(&mut s.jac, &s.jac_r, mul_mat_vec3(&ref_xmat, &g), nv);
            for (r, &a) in s.row[..nv].iter_mut().zip(&s.jac[..nv]) {
                *r = *r + a;
            }
        }
    }
    (length, compress(&s.row[..nv], None, moment, colind, adr))
}

/// A slider-crank's length and moment row at `adr`: crank site `crank`, slider site `slider`,
/// rod length `rod`, gear ratio `gear`; returns (length, non-zeros).
#[allow(clippy::too_many_arguments)]
pub fn slider_crank_row(
    sm: &SiteModel,
    st: &SiteState,
    s: &mut SiteScratch,
    crank: usize,
    slider: usize,
    rod: f64,
    gear: f64,
    moment: &mut [f64],
    colind: &mut [i32],
    adr: usize,
) -> (f64, i32) {
    let nv = sm.jac.nv;
    let sx = at9(st.site_xmat, slider);
    let axis = [sx[2], sx[5], sx[8]];
    let vec = sub3(&at3(st.site_xpos, crank), &at3(st.site_xpos, slider));
    let av = dot3(&vec, &axis);
    let det = av * av + rod * rod - dot3(&vec, &vec);
    // past the dead point (no real root) the length is the projection and the derivatives are
    // those of the projection
    let (length, dlda, dldv) = if det <= 0.0 {
        (av, vec, axis)
    } else {
        let sdet = det.sqrt();
        let f = 1.0 - av / sdet;
        let inv = 1.0 / sdet;
        let dldv = [axis[0] * f + vec[0] * inv, axis[1] * f + vec[1] * inv, axis[2] * f + vec[2] * inv];
        (av - sdet, [vec[0] * f, vec[1] * f, vec[2] * f], dldv)
    };
    // jac_r: the slider's point Jacobian, jac_a: its axis Jacobian
    let sb = sm.site_bodyid[slider] as usize;
    jac(&sm.jac, &st.jac, &mut s.jac_r, Some(&mut s.jac_ref), &at3(st.site_xpos, slider), sb);
    for i in 0..nv {
        let r = [s.jac_ref[i], s.jac_ref[nv + i], s.jac_ref[2 * nv + i]];
        s.jac_a[i] = r[1] * axis[2] - r[2] * axis[1];
        s.jac_a[nv + i] = r[2] * axis[0] - r[0] * axis[2];
        s.jac_a[2 * nv + i] = r[0] * axis[1] - r[1] * axis[0];
    }
    site_jac(sm, st, &mut s.jac, None, crank);
    for (a, &b) in s.jac[..3 * nv].iter_mut().zip(&s.jac_r[..3 * nv]) {
        *a = *a - b;
    }
    for j in 0..nv {
        let mut r = 0.0;
        for k in 0..3 {
            r = r + (dlda[k] * s.jac_a[k * nv + j] + dldv[k] * s.jac[k * nv + j]);
        }
        s.row[j] = r;
    }
    (length * gear, compress(&s.row[..nv], Some(gear), moment, colind, adr))
}
