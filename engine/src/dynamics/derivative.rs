//! The velocity derivative of the bias forces (`mjd_rne_vel`, inlined in 4.0.0's
//! `mjd_smooth_vel` when `flg_bias` is set; `docs/measurements.md` K11): `qDeriv -= d qfrc_bias
//! / d qvel` on the `D` pattern, through the derivatives of `cvel`, `cdof_dot`, `cacc` and
//! `cfrc_body` stored as 6-vectors on the body-dof pattern `B` (dof-dof pattern `D` for
//! `cdof_dot`).
//!
//! Algorithm (no sleep):
//! 1. Forward over bodies: each body's `Dcvel` row starts as its parent's over the shared
//!    ancestor dofs; per dof, a free joint's translations add their `cdof` to `Dcvel`; a ball
//!    (and a free joint's rotations) and a hinge or slide set `Dcdofdot` row `j` to `Dcvel`
//!    times the transposed derivative of `cvel x cdof_j` in `cvel`, then add `cdof_j`.
//! 2. Forward over bodies: `Dcacc` from the parent's, plus `cdof_dot_j` and `qvel_j Dcdofdot_j`
//!    per dof; `Dcfrcbody = Dcacc (d I v / d v)' + Dcvel (d (v x* I v) / d v)'`.
//! 3. Backward over bodies: each `Dcfrcbody` row added to its parent's.
//! 4. Per dof `j` of body `i`: `qDeriv` row `j -= Dcfrcbody_i cdof_j`.

// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps its order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::constraint::jacobian::mul_mat_mat;
use super::integrate::IntegratorModel;
use super::jnt::{BALL, FREE};
use super::reference::dot;
use super::spatial::mul_inert_vec;
use super::TreeModel;

/// The body-dof pattern `B` and the weld bodies the derivative walks.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyPattern<'a> {
    /// Weld body of each body (`nbody`).
    pub body_weldid: &'a [i32],
    /// Non-zeros of each body's row (`nbody`).
    pub b_rownnz: &'a [i32],
    /// Start of each body's row (`nbody`).
    pub b_rowadr: &'a [i32],
    /// Dof of each non-zero (`nB`).
    pub b_colind: &'a [i32],
}

/// The state the derivative reads (MuJoCo's arrays after the velocity stage).
#[derive(Clone, Copy, Debug)]
pub struct RneVelInput<'a> {
    /// Joint velocities (`nv`).
    pub qvel: &'a [f64],
    /// Dof motion axes (`6 nv`).
    pub cdof: &'a [f64],
    /// Their time derivatives (`6 nv`).
    pub cdof_dot: &'a [f64],
    /// Body inertias in the com frame (`10 nbody`).
    pub cinert: &'a [f64],
    /// Body velocities (`6 nbody`).
    pub cvel: &'a [f64],
}

/// The library's stack arrays of the derivative, kept from call to call.
#[derive(Clone, Debug, Default)]
pub struct RneVelScratch {
    dcdofdot: Vec<f64>,
    dcvel: Vec<f64>,
    dcacc: Vec<f64>,
    dcfrcbody: Vec<f64>,
    row: Vec<f64>,
}

/// `D` (row-major 6x6) of `v -> v x u` at `u`: the derivative of `cvel x cdof` in `cvel`.
fn cross_motion_vel(u: &[f64]) -> [f64; 36] {
    let mut d = [0.0; 36];
    (d[2], d[1]) = (-u[1], u[2]);
    (d[8], d[6]) = (u[0], -u[2]);
    (d[13], d[12]) = (-u[0], u[1]);
    (d[20], d[19], d[23], d[22]) = (-u[4], u[5], -u[1], u[2]);
    (d[26], d[24], d[29], d[27]) = (u[3], -u[5], u[0], -u[2]);
    (d[31], d[30], d[34], d[33]) = (-u[3], u[4], -u[0], u[1]);
    d
}

/// `D` of `v -> v x* f` at the force `f` (derivative in the motion vector).
fn cross_force_vel(f: &[f64; 6]) -> [f64; 36] {
    let mut d = [0.0; 36];
    (d[2], d[1], d[5], d[4]) = (-f[1], f[2], -f[4], f[5]);
    (d[8], d[6], d[11], d[9]) = (f[0], -f[2], f[3], -f[5]);
    (d[13], d[12], d[16], d[15]) = (-f[0], f[1], -f[3], f[4]);
    (d[20], d[19]) = (-f[4], f[5]);
    (d[26], d[24]) = (f[3], -f[5]);
    (d[31], d[30]) = (-f[3], f[4]);
    d
}

/// `D` of `f -> v x* f` at the motion vector `v` (derivative in the force).
fn cross_force_frc(v: &[f64]) -> [f64; 36] {
    let mut d = [0.0; 36];
    (d[1], d[2], d[4], d[5]) = (-v[2], v[1], -v[5], v[4]);
    (d[6], d[8], d[9], d[11]) = (v[2], -v[0], v[5], -v[3]);
    (d[12], d[13], d[15], d[16]) = (-v[1], v[0], -v[4], v[3]);
    (d[22], d[23]) = (-v[2], v[1]);
    (d[27], d[29]) = (v[2], -v[0]);
    (d[33], d[34]) = (-v[1], v[0]);
    d
}

/// `D` of `v -> I v` for the inertia `i` (10-number layout).
fn mul_inert_vec_vel(i: &[f64]) -> [f64; 36] {
    let mut d = [0.0; 36];
    (d[0], d[1], d[2], d[4], d[5]) = (i[0], i[3], i[4], -i[8], i[7]);
    (d[6], d[7], d[8], d[9], d[11]) = (i[3], i[1], i[5], i[8], -i[6]);
    (d[12], d[13], d[14], d[15], d[16]) = (i[4], i[5], i[2], -i[7], i[6]);
    (d[19], d[20], d[21]) = (i[8], -i[7], i[9]);
    (d[26], d[24], d[28]) = (i[6], -i[8], i[9]);
    (d[30], d[31], d[35]) = (i[7], -i[6], i[9]);
    d
}

/// The transpose of a 6x6 matrix.
fn transpose6(m: &[f64; 36]) -> [f64; 36] {
    std::array::from_fn(|k| m[(k % 6) * 6 + k / 6])
}

/// Number of ancestor dofs of dof `j` (the library takes it from the legacy `dof_Madr` layout,
/// whose block for `j` is its diagonal and its ancestors; `M`'s rows may be shorter for
/// simple dofs).
fn ancestors(tm: &TreeModel, j: usize) -> usize {
    let (mut n, mut p) = (0, tm.dof_parentid[j]);
    while p >= 0 {
        n += 1;
        p = tm.dof_parentid[p as usize];
    }
    n
}

/// Body `n`'s rows of `mat` set to its parent's over the ancestors' dofs (none when the parent
/// is welded to the world).
fn copy_from_parent(tm: &TreeModel, bp: &BodyPattern, mat: &mut [f64], n: usize) {
    let parent = tm.body_parentid[n] as usize;
    let mut np = bp.body_weldid[parent] as usize;
    if n == 0 || np == 0 {
        return;
    }
    let mut ndof = 0;
    while np > 0 {
        ndof += tm.body_dofnum[np] as usize;
        np = bp.body_weldid[tm.body_parentid[np] as usize] as usize;
    }
    let (dst, src) = (6 * bp.b_rowadr[n] as usize, 6 * bp.b_rowadr[parent] as usize);
    mat.copy_within(src..src + 6 * ndof, dst);
}

/// Body `n`'s rows of `mat` added to its parent's where their dofs meet.
fn add_to_parent(tm: &TreeModel, bp: &BodyPattern, mat: &mut [f64], n: usize) {
    let np = tm.body_parentid[n] as usize;
    if n == 0 || bp.body_weldid[np] == 0 {
        return;
    }
    let (an, ap) = (bp.b_rowadr[n] as usize, bp.b_rowadr[np] as usize);
    let (nn, npn) = (bp.b_rownnz[n] as usize, bp.b_rownnz[np] as usize);
    let (mut i, mut ip) = (0, 0);
    while i < nn && ip < npn {
        let (c, cp) = (bp.b_colind[an + i], bp.b_colind[ap + ip]);
        if c == cp {
            for k in 0..6 {
                let v = mat[6 * (an + i) + k];
                mat[6 * (ap + ip) + k] += v;
            }
            i += 1;
            ip += 1;
        } else if c > cp {
            ip += 1;
        } else {
            // a child's dof its parent lacks: not a pattern the compiler makes
            return;
        }
    }
}

/// `rows x 6` times the 6x6 `mat`, into `dst` (`mju_mulMatMat`).
fn rows_times(dst: &mut [f64], src: &[f64], mat: &[f64; 36], rows: usize) {
    mul_mat_mat(dst, src, mat, rows, 6, 6);
}

/// `mjd_comVel_vel`: `Dcvel` and `Dcdofdot` over all bodies.
fn com_vel_vel(
    tm: &TreeModel,
    im: &IntegratorModel,
    bp: &BodyPattern,
    x: &RneVelInput,
    dcvel: &mut [f64],
    dcdofdot: &mut [f64],
) {
    for b in 1..tm.nbody() {
        copy_from_parent(tm, bp, dcvel, b);
        let badr = bp.b_rowadr[b] as usize;
        let first = tm.body_dofadr[b].max(0) as usize;
        let last = first + tm.body_dofnum[b] as usize;
        let mut j = first;
        while j < last {
            let mut jadr = ancestors(tm, j);
            let t = tm.jnt_type[tm.dof_jntid[j] as usize];
            if t == FREE {
                for k in 0..3 {
                    add6(&mut dcvel[6 * (badr + jadr + k)..], &x.cdof[6 * (j + k)..]);
                }
                j += 3;
                jadr += 3;
            }
            if t == FREE || t == BALL {
                for dj in 0..3 {
                    let mat = transpose6(&cross_motion_vel(&x.cdof[6 * (j + dj)..]));
                    let at = 6 * im.d_rowadr[j + dj] as usize;
                    let n = jadr + dj;
                    rows_times(&mut dcdofdot[at..at + 6 * n], &dcvel[6 * badr..6 * (badr + n)], &mat, n);
                }
                for k in 0..3 {
                    add6(&mut dcvel[6 * (badr + jadr + k)..], &x.cdof[6 * (j + k)..]);
                }
                j += 3;
            } else {
                let mat = transpose6(&cross_motion_vel(&x.cdof[6 * j..]));
                let at = 6 * im.d_rowadr[j] as usize;
                rows_times(&mut dcdofdot[at..at + 6 * jadr], &dcvel[6 * badr..6 * (badr + jadr)], &mat, jadr);
                add6(&mut dcvel[6 * (badr + jadr)..], &x.cdof[6 * j..]);
                j += 1;
            }
        }
    }
}

/// `dst[..6] += src[..6]` (`mju_addTo`).
fn add6(dst: &mut [f64], src: &[f64]) {
    for k in 0..6 {
        dst[k] += src[k];
    }
}

/// `qderiv -= d qfrc_bias / d qvel` on the `D` pattern (`mjd_rne_vel` without sleep).
pub fn rne_vel(
    tm: &TreeModel,
    im: &IntegratorModel,
    bp: &BodyPattern,
    x: &RneVelInput,
    sc: &mut RneVelScratch,
    qderiv: &mut [f64],
) {
    let (nv, nbody) = (tm.nv(), tm.nbody());
    let nd = im.d_colind.len();
    let nb = bp.b_colind.len();
    let RneVelScratch { dcdofdot, dcvel, dcacc, dcfrcbody, row } = sc;
    for (v, n) in [(&mut *dcdofdot, 6 * nd), (&mut *dcvel, 6 * nb), (&mut *dcacc, 6 * nb), (&mut *dcfrcbody, 6 * nb)] {
        v.clear();
        v.resize(n, 0.0);
    }
    row.resize(nv, 0.0);
    com_vel_vel(tm, im, bp, x, dcvel, dcdofdot);
    for b in 1..nbody {
        copy_from_parent(tm, bp, dcacc, b);
        let (badr, bnnz) = (bp.b_rowadr[b] as usize, bp.b_rownnz[b] as usize);
        let first = tm.body_dofadr[b].max(0) as usize;
        for j in first..first + tm.body_dofnum[b] as usize {
            let jadr = ancestors(tm, j);
            add6(&mut dcacc[6 * (badr + jadr)..], &x.cdof_dot[6 * j..]);
            // Dcacc's row and Dcdofdot's row j share their pattern
            let dadr = 6 * im.d_rowadr[j] as usize;
            let q = x.qvel[j];
            for k in 0..6 * bnnz {
                dcacc[6 * badr + k] += dcdofdot[dadr + k] * q;
            }
        }
        let span = 6 * badr..6 * (badr + bnnz);
        let dmul = mul_inert_vec_vel(&x.cinert[10 * b..]);
        rows_times(&mut dcfrcbody[span.clone()], &dcacc[span.clone()], &transpose6(&dmul), bnnz);
        let cvel = &x.cvel[6 * b..6 * b + 6];
        let mut mat = cross_force_vel(&mul_inert_vec(&x.cinert[10 * b..], cvel));
        let frc = cross_force_frc(cvel);
        let mut mat2 = [0.0; 36];
        mul_mat_mat(&mut mat2, &frc, &dmul, 6, 6, 6);
        for k in 0..36 {
            mat[k] += mat2[k];
        }
        // the world's rows (every dof) hold the product for a moment
        let (world, rest) = dcfrcbody.split_at_mut(6 * badr);
        let (tmp, own) = if world.len() >= 6 * bnnz {
            (&mut world[..6 * bnnz], &mut rest[..6 * bnnz])
        } else {
            // the body's rows start the array only when the world has none; not the
            // compiler's pattern (the world's row holds every dof)
            return;
        };
        rows_times(tmp, &dcvel[span], &transpose6(&mat), bnnz);
        for k in 0..6 * bnnz {
            own[k] += tmp[k];
        }
    }
    let world = 6 * bp.b_rownnz[0] as usize;
    dcfrcbody[..world].fill(0.0);
    for b in (1..nbody).rev() {
        add_to_parent(tm, bp, dcfrcbody, b);
    }
    for j in 0..nv {
        let i = tm.dof_bodyid[j] as usize;
        let (badr, bnnz) = (bp.b_rowadr[i] as usize, bp.b_rownnz[i] as usize);
        let cdof = &x.cdof[6 * j..6 * j + 6];
        for r in 0..bnnz {
            row[r] = dot(&dcfrcbody[6 * (badr + r)..6 * (badr + r) + 6], cdof);
        }
        let dadr = im.d_rowadr[j] as usize;
        for r in 0..bnnz {
            qderiv[dadr + r] -= row[r];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocks_are_the_products_derivatives() {
        // d(v x u)/dv applied to w equals w x u; d(v x* f)/dv w = w x* f; d(v x* f)/df g = v x* g
        let (u, w) = ([0.3, -1.2, 0.7, 2.0, -0.5, 1.1], [1.5, 0.2, -0.4, 0.9, 0.3, -2.0]);
        let f = [0.8, 0.1, -1.3, 0.4, 2.2, -0.6];
        let apply = |m: &[f64; 36], v: &[f64; 6]| -> [f64; 6] {
            std::array::from_fn(|r| (0..6).map(|c| m[6 * r + c] * v[c]).sum())
        };
        let close = |a: [f64; 6], b: [f64; 6]| a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-12);
        let wa: [f64; 6] = w;
        assert!(close(apply(&cross_motion_vel(&u), &wa), super::super::spatial::cross_motion(&wa, &u)));
        assert!(close(apply(&cross_force_vel(&f), &wa), super::super::spatial::cross_force(&wa, &f)));
        assert!(close(apply(&cross_force_frc(&u), &f), super::super::spatial::cross_force(&u, &f)));
        let inert = [1.0, 2.0, 3.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 4.0];
        assert!(close(apply(&mul_inert_vec_vel(&inert), &wa), mul_inert_vec(&inert, &wa)));
    }
}
