//! `implicitfast`'s own solve for a free body alone in its tree (`mjd_freeMhat`,
//! `mjd_freeBias_vel`, `mju_factorLU6`, `mju_solveLU6` as MuJoCo 4.0.0 computes them;
//! `docs/measurements.md` K14): the body's 6x6 block `A = M - h qDeriv + h B`, `B` the velocity
//! derivative of its bias force (gyroscopic and centripetal terms, which `implicitfast` leaves
//! out of `qDeriv`), factored with row pivoting and solved for the body's six accelerations.
//!
//! `B`'s linear columns are zero; with `R` the body's frame, `s` the subtree centre of mass
//! from the body's origin, `w = R qvel_rot` the world angular velocity, `Iw` and `m` the
//! composite inertia about the centre of mass and the mass (`crb`), and
//! `K = s w' - (w . s) I + [w x s]x`: the rotational columns are `-m K R` (linear rows) and
//! `R' (-m [s]x K + [w]x Iw - [Iw w]x) R` (rotational rows).

// Indexed loops walk several arrays in step, as the library does.
#![allow(clippy::needless_range_loop)]

use super::integrate::{EulerState, IntegratorModel};
use super::jnt::FREE;
use super::TreeModel;
use crate::math::{cross, mul_mat_mat3, mul_mat_t_mat3, mul_mat_vec3};

/// A pivot smaller than this in size makes the 6x6 factor fail (`mjMINVAL`).
const MINVAL: f64 = 1e-15;

/// The frames `mjd_freeBias_vel` reads for body `b` (MuJoCo's arrays).
#[derive(Clone, Copy, Debug)]
pub struct FreeBodyFrames<'a> {
    /// Body origins (`3 nbody`).
    pub xpos: &'a [f64],
    /// Body frames (`9 nbody`).
    pub xmat: &'a [f64],
    /// Subtree centres of mass (`3 nbody`).
    pub subtree_com: &'a [f64],
    /// Composite inertias (`10 nbody`).
    pub crb: &'a [f64],
}

/// `mjd_freeBias_vel`: the 6x6 velocity derivative of body `b`'s bias force, `qrot` its free
/// joint's three angular velocities.
pub fn free_bias_vel(f: &FreeBodyFrames, b: usize, qrot: &[f64]) -> [f64; 36] {
    let c = &f.crb[10 * b..10 * b + 10];
    let mass = c[9];
    let r: [f64; 9] = std::array::from_fn(|k| f.xmat[9 * b + k]);
    let s: [f64; 3] = std::array::from_fn(|k| f.subtree_com[3 * b + k] - f.xpos[3 * b + k]);
    let w = mul_mat_vec3(&r, &[qrot[0], qrot[1], qrot[2]]);
    let iw = [c[0], c[3], c[4], c[3], c[1], c[5], c[4], c[5], c[2]];
    let ws = cross(&w, &s);
    let iww = mul_mat_vec3(&iw, &w);
    let wds = w[0] * s[0] + w[1] * s[1] + w[2] * s[2];
    let k = [
        s[0] * w[0] - wds,
        s[0] * w[1] - ws[2],
        s[0] * w[2] + ws[1],
        s[1] * w[0] + ws[2],
        s[1] * w[1] - wds,
        s[1] * w[2] - ws[0],
        s[2] * w[0] - ws[1],
        s[2] * w[1] + ws[0],
        s[2] * w[2] - wds,
    ];
    let lin = mul_mat_mat3(&k, &r);
    // -m [s]x K + [w]x Iw - [Iw w]x, column by column; the last term's zeros are added too
    let mut cm = [0.0; 9];
    for col in 0..3 {
        let sk = [
            s[1] * k[6 + col] - s[2] * k[3 + col],
            s[2] * k[col] - s[0] * k[6 + col],
            s[0] * k[3 + col] - s[1] * k[col],
        ];
        let wi = [
            w[1] * iw[6 + col] - w[2] * iw[3 + col],
            w[2] * iw[col] - w[0] * iw[6 + col],
            w[0] * iw[3 + col] - w[1] * iw[col],
        ];
        let last = match col {
            0 => [0.0, -iww[2], iww[1]],
            1 => [iww[2], 0.0, -iww[0]],
            _ => [-iww[1], iww[0], 0.0],
        };
        for row in 0..3 {
            cm[3 * row + col] = (-mass * sk[row] + wi[row]) + last[row];
        }
    }
    let rot = mul_mat_mat3(&mul_mat_t_mat3(&r, &cm), &r);
    let mut out = [0.0; 36];
    for row in 0..3 {
        for col in 0..3 {
            out[6 * row + 3 + col] = -mass * lin[3 * row + col];
            out[6 * (3 + row) + 3 + col] = rot[3 * row + col];
        }
    }
    out
}

/// The free joints `implicitfast` solves on their own (K8, K14): each a body's only joint, in a
/// tree of exactly its six dofs (the first dof's `qDeriv` row then holds just those).
pub fn lone_free_joints<'a>(tm: &'a TreeModel, im: &'a IntegratorModel) -> impl Iterator<Item = usize> + 'a {
    (0..im.jnt_type.len()).filter(move |&j| {
        let b = tm.jnt_bodyid[j] as usize;
        im.jnt_type[j] == FREE && im.body_jntnum[b] == 1 && im.d_rownnz[im.jnt_dofadr[j] as usize] == 6
    })
}

/// `mjd_freeMhat` for the lone free joint `j`: `M`'s 6x6 block, `- h qDeriv`'s, `+ h B`.
pub(super) fn free_mhat(
    tm: &TreeModel,
    im: &IntegratorModel,
    frames: &FreeBodyFrames,
    s: &EulerState,
    qderiv: &[f64],
    j: usize,
) -> [f64; 36] {
    let adr = im.jnt_dofadr[j] as usize;
    let mut a = [0.0; 36];
    for r in 0..6 {
        let (ra, rn) = (tm.m_rowadr[adr + r] as usize, tm.m_rownnz[adr + r] as usize);
        for (&col, &v) in tm.m_colind[ra..ra + rn].iter().zip(&s.mass[ra..ra + rn]) {
            let c = col as usize - adr;
            (a[6 * r + c], a[6 * c + r]) = (v, v);
        }
    }
    let h = im.timestep;
    for r in 0..6 {
        let (ra, rn) = (im.d_rowadr[adr + r] as usize, im.d_rownnz[adr + r] as usize);
        for (&col, &q) in im.d_colind[ra..ra + rn].iter().zip(&qderiv[ra..ra + rn]) {
            a[6 * r + col as usize - adr] += -h * q;
        }
    }
    let b = free_bias_vel(frames, tm.jnt_bodyid[j] as usize, &s.qvel[adr + 3..adr + 6]);
    for (x, &y) in a.iter_mut().zip(&b) {
        *x += h * y;
    }
    a
}

/// `mju_factorLU6`: `A = P L U` in place with partial pivoting (unit `L` below the diagonal);
/// `false` when a pivot column's largest entry is under `mjMINVAL`.
pub fn factor_lu6(a: &mut [f64; 36], pivot: &mut [usize; 6]) -> bool {
    for k in 0..6 {
        pivot[k] = k;
        let (mut maxval, mut maxrow) = (a[7 * k].abs(), k);
        for i in k + 1..6 {
            let v = a[6 * i + k].abs();
            if v > maxval {
                (maxval, maxrow) = (v, i);
            }
        }
        // (a NaN column compares false here too, as in the library)
        if maxval < MINVAL {
            return false;
        }
        if maxrow != k {
            pivot[k] = maxrow;
            for j in 0..6 {
                a.swap(6 * k + j, 6 * maxrow + j);
            }
        }
        let diaginv = 1.0 / a[7 * k];
        for i in k + 1..6 {
            a[6 * i + k] *= diaginv;
            let aik = a[6 * i + k];
            for j in k + 1..6 {
                a[6 * i + j] -= aik * a[6 * k + j];
            }
        }
    }
    true
}

/// `mju_solveLU6`: `x = A^-1 b` from [`factor_lu6`]'s factor and pivots.
pub fn solve_lu6(lu: &[f64; 36], b: &[f64], pivot: &[usize; 6]) -> [f64; 6] {
    let mut x: [f64; 6] = std::array::from_fn(|i| b[i]);
    for i in 0..6 {
        if pivot[i] != i {
            x.swap(i, pivot[i]);
        }
        for j in 0..i {
            x[i] -= lu[6 * i + j] * x[j];
        }
    }
    for i in (0..6).rev() {
        for j in i + 1..6 {
            x[i] -= lu[6 * i + j] * x[j];
        }
        x[i] /= lu[7 * i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lu6_factor_solves_with_pivoting() {
        // a matrix whose first pivot is zero (a row swap is needed)
        let mut a = [0.0; 36];
        for i in 0..6 {
            for j in 0..6 {
                a[6 * i + j] = if i == j { 0.0 } else { 1.0 / (1.0 + (i + 2 * j) as f64) };
            }
            a[7 * i] += i as f64;
        }
        let orig = a;
        let mut p = [0; 6];
        assert!(factor_lu6(&mut a, &mut p));
        assert_ne!(p[0], 0, "the zero pivot must be swapped");
        let b = [1.0, -2.0, 0.5, 3.0, 0.0, -1.0];
        let x = solve_lu6(&a, &b, &p);
        for i in 0..6 {
            let ax: f64 = (0..6).map(|j| orig[6 * i + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-12, "row {i}: {ax} != {}", b[i]);
        }
        // a zero column fails
        let mut z = [0.0; 36];
        assert!(!factor_lu6(&mut z, &mut p));
    }

    #[test]
    fn the_bias_derivative_is_the_gyroscopic_one_for_a_centred_body() {
        // s = 0: B's rotational block is R' ([w]x Iw - [Iw w]x) R, the derivative of w x Iw w
        let crb = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0];
        let eye = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let f = FreeBodyFrames { xpos: &[0.0; 3], xmat: &eye, subtree_com: &[0.0; 3], crb: &crb };
        let q = [0.3, -0.7, 1.1];
        let b = free_bias_vel(&f, 0, &q);
        let gyro = |w: [f64; 3]| cross(&w, &[w[0], 2.0 * w[1], 3.0 * w[2]]);
        for col in 0..3 {
            let mut qp = q;
            qp[col] += 1e-7;
            let (g1, g0) = (gyro(qp), gyro(q));
            for row in 0..3 {
                let fd = (g1[row] - g0[row]) / 1e-7;
                assert!((b[6 * (3 + row) + 3 + col] - fd).abs() < 1e-5, "({row}, {col})");
                assert_eq!(b[6 * row + 3 + col], 0.0);
            }
        }
    }
}
