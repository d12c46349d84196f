//! The spatial tendons of `mj_tendon` (`docs/measurements.md` D58): a path of sites, with
//! wrapping geoms (sphere, cylinder) between two sites and pulleys dividing it into branches.
//!
//! Algorithm, per tendon, walking its path objects `j` in order with a divisor starting at 1:
//! 1. A pulley object sets the divisor to its `wrap_prm` and adds a wrap point at the origin
//!    with object -2; any step whose first or second object is a pulley only advances.
//! 2. Otherwise the step runs from the site `j` to the next site: directly, or around the geom
//!    in between ([`super::wrap::wrap`], side site from the geom's `wrap_prm`), which gives 2
//!    or 4 points. The length grows by the step's length (straight parts plus arc) over the
//!    divisor.
//! 3. For each pair of consecutive points on different bodies: the unit direction between them,
//!    the difference of their point Jacobians over the merged dof chain of the two bodies
//!    (`mj_jacDifPair`, sparse, shared dofs kept), its transpose times the direction, added
//!    over the divisor to the tendon's stored Jacobian row at the common columns
//!    (`mju_combineSparseInc`).
//! 4. The step's first point (and tangent points, object = the geom) are appended as wrap
//!    points with object -1 for a site; the last site before a pulley or the path's end too.
// Indexed loops walk several arrays in step, as the library does; `x = x + y` keeps its operand
// order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::constraint::jacobian::{dif_pair, pair_columns_all};
use super::tendon::{TendonModel, TendonOutput, TendonScratch, TendonState};
use super::wrap::{wrap, WrapGeom, WRAP_CYLINDER, WRAP_SPHERE};
use crate::math::{dist3, normalize3, sub3};

/// `mjWRAP_PULLEY`.
pub const WRAP_PULLEY: i32 = 2;

/// The 3-vector at `3 i` of `a`.
#[inline]
fn vec3(a: &[f64], i: usize) -> [f64; 3] {
    [a[3 * i], a[3 * i + 1], a[3 * i + 2]]
}

/// Appends one wrap point.
fn push_point(out: &mut TendonOutput, ten: usize, wrapcount: &mut usize, p: &[f64; 3], obj: i32) {
    out.wrap_xpos[3 * *wrapcount..3 * *wrapcount + 3].copy_from_slice(p);
    out.wrap_obj[*wrapcount] = obj;
    out.ten_wrapnum[ten] += 1;
    *wrapcount += 1;
}

/// Length, Jacobian row and wrap points of spatial tendon `ten`.
pub(crate) fn spatial(
    m: &TendonModel,
    st: &TendonState,
    scratch: &mut TendonScratch,
    out: &mut TendonOutput,
    ten: usize,
    wrapcount: &mut usize,
) {
    let adr = m.tendon_adr[ten] as usize;
    let num = m.tendon_num[ten] as usize;
    let mut divisor = 1.0;
    let mut j = 0;
    while j + 1 < num {
        let (type0, type1) = (m.wrap_type[adr + j], m.wrap_type[adr + j + 1]);
        let (id0, mut id1) = (m.wrap_objid[adr + j] as usize, m.wrap_objid[adr + j + 1] as usize);
        if type0 == WRAP_PULLEY || type1 == WRAP_PULLEY {
            if type0 == WRAP_PULLEY {
                divisor = m.wrap_prm[adr + j];
                push_point(out, ten, wrapcount, &[0.0; 3], -2);
            }
            j += 1;
            continue;
        }
        // up to four points: start site, two tangent points, end site
        let mut pts = [[0.0; 3]; 4];
        let mut bodies = [0i32; 4];
        pts[0] = vec3(st.site_xpos, id0);
        bodies[0] = m.site_bodyid[id0];
        let mut wlen = -1.0;
        let mut geom = None;
        if type1 == WRAP_SPHERE || type1 == WRAP_CYLINDER {
            let g = id1;
            geom = Some(g);
            id1 = m.wrap_objid[adr + j + 2] as usize;
            let side = m.wrap_prm[adr + j + 1].round() as i32;
            let side_pos = (side >= 0).then(|| vec3(st.site_xpos, side as usize));
            let xmat: [f64; 9] = std::array::from_fn(|k| st.geom_xmat[9 * g + k]);
            let xpos = vec3(st.geom_xpos, g);
            let wg = WrapGeom { xpos: &xpos, xmat: &xmat, radius: m.geom_size[3 * g], kind: type1 };
            let mut w = [0.0; 6];
            wlen = wrap(&mut w, &pts[0], &vec3(st.site_xpos, id1), &wg, side_pos.as_ref());
            if wlen >= 0.0 {
                pts[1] = [w[0], w[1], w[2]];
                pts[2] = [w[3], w[4], w[5]];
            }
        }
        let end = vec3(st.site_xpos, id1);
        let nseg = if wlen < 0.0 {
            pts[1] = end;
            bodies[1] = m.site_bodyid[id1];
            out.ten_length[ten] += dist3(&pts[0], &pts[1]) / divisor;
            1
        } else {
            pts[3] = end;
            let gb = m.geom_bodyid[geom.unwrap_or(0)];
            bodies[1] = gb;
            bodies[2] = gb;
            bodies[3] = m.site_bodyid[id1];
            out.ten_length[ten] += (dist3(&pts[0], &pts[1]) + wlen + dist3(&pts[2], &pts[3])) / divisor;
            3
        };
        for k in 0..nseg {
            if bodies[k] != bodies[k + 1] {
                add_segment(m, st, scratch, out, ten, [bodies[k], bodies[k + 1]], &pts[k], &pts[k + 1], divisor);
            }
        }
        push_point(out, ten, wrapcount, &pts[0], -1);
        if let (Some(g), true) = (geom, wlen >= 0.0) {
            push_point(out, ten, wrapcount, &pts[1], g as i32);
            push_point(out, ten, wrapcount, &pts[2], g as i32);
        }
        j += if geom.is_some() { 2 } else { 1 };
        if j + 1 == num || m.wrap_type[adr + j + 1] == WRAP_PULLEY {
            push_point(out, ten, wrapcount, &end, -1);
        }
    }
}

/// Adds the Jacobian of one straight segment `p0 p1` (on `bodies`) over `divisor` to the row.
#[allow(clippy::too_many_arguments)]
fn add_segment(
    m: &TendonModel,
    st: &TendonState,
    scratch: &mut TendonScratch,
    out: &mut TendonOutput,
    ten: usize,
    bodies: [i32; 2],
    p0: &[f64; 3],
    p1: &[f64; 3],
    divisor: f64,
) {
    let mut dif = sub3(p1, p0);
    normalize3(&mut dif);
    let (b0, b1) = (bodies[0] as usize, bodies[1] as usize);
    let TendonScratch { chain, bufs, tmp } = scratch;
    let nn = pair_columns_all(&m.jac, chain, b0, b1, true);
    if nn == 0 {
        return;
    }
    dif_pair(&m.jac, &st.jac, chain, nn, b0, b1, p0, p1, bufs, false, true);
    // the direction times the 3 x nn difference, row by row, skipping zero factors
    let jd = &bufs.jacdifp;
    tmp[..nn].fill(0.0);
    for r in 0..3 {
        let s = dif[r];
        if s == 0.0 {
            continue;
        }
        for c in 0..nn {
            tmp[c] = tmp[c] + jd[r * nn + c] * s;
        }
    }
    // add at the columns both the row's pattern and the chain hold (both increasing)
    let b = 1.0 / divisor;
    let (radr, rnnz) = (m.ten_j_rowadr[ten] as usize, m.ten_j_rownnz[ten] as usize);
    let cols = &m.ten_j_colind[radr..radr + rnnz];
    let row = &mut out.ten_j[radr..radr + rnnz];
    let (mut di, mut si) = (0, 0);
    while di < rnnz && si < nn {
        match cols[di].cmp(&chain[si]) {
            std::cmp::Ordering::Equal => {
                row[di] = row[di] + b * tmp[si];
                di += 1;
                si += 1;
            }
            std::cmp::Ordering::Less => di += 1,
            std::cmp::Ordering::Greater => si += 1,
        }
    }
}
