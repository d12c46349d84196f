//! MuJoCo 4.0.0's `mj_applyFT`: a Cartesian force and torque at a point of a body turned into
//! joint forces through the point's Jacobians, dense or over the body's dof chain
//! (`docs/measurements.md` D73).
//!
//! Algorithm:
//! 1. The translation and rotation Jacobians of the point (`mj_jac`; sparse: `mj_jacSparse`
//!    over the chain of dofs moving the body).
//! 2. `tmp = jacp^T force` (`mju_mulMatTVec`: `tmp` zeroed, then each Jacobian row whose force
//!    component is not `== 0` added, `tmp += row f`), then `qfrc += tmp` (dense: every dof;
//!    sparse: the chain's dofs).
//! 3. The same with the rotation Jacobian and the torque.
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps its operand
// order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::constraint::jacobian::{jac, jac_sparse, JacModel, JacState};

/// Buffers reused from call to call (sized when `nv` grows).
#[derive(Clone, Debug, Default)]
pub struct ApplyFtScratch {
    /// Translation Jacobian (`3 nv`).
    jacp: Vec<f64>,
    /// Rotation Jacobian (`3 nv`).
    jacr: Vec<f64>,
    /// One Jacobian transposed times a vector (`nv`).
    tmp: Vec<f64>,
    /// The body's dof chain (`nv`).
    chain: Vec<i32>,
}

impl ApplyFtScratch {
    /// Sizes the buffers for `nv` dofs (allocates only when `nv` grows).
    pub fn resize(&mut self, nv: usize) {
        self.jacp.resize(3 * nv, 0.0);
        self.jacr.resize(3 * nv, 0.0);
        self.tmp.resize(nv, 0.0);
        self.chain.resize(nv, 0);
    }
}

/// The stack blocks (bytes, alignment) of one `mj_applyFT` call with a force and a torque:
/// both Jacobians, the product, and the chain when sparse.
pub fn apply_ft_stack(nv: usize, sparse: bool) -> [(usize, usize); 4] {
    [(24 * nv, 8), (24 * nv, 8), (8 * nv, 8), (if sparse { 4 * nv } else { 0 }, 4)]
}

/// `res = mat^T v` for a `3 x n` row-major `mat` (`mju_mulMatTVec`): rows with `v[i] == 0`
/// skipped (NaN is not).
fn mul_t3(res: &mut [f64], mat: &[f64], v: &[f64; 3], n: usize) {
    res[..n].fill(0.0);
    for (i, &x) in v.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        let row = &mat[i * n..(i + 1) * n];
        for j in 0..n {
            res[j] = row[j] * x + res[j];
        }
    }
}

/// The dofs `mj_applyFT` gathers for a sparse Jacobian of `body`, increasing, into `chain`: a
/// simple body's own dofs, otherwise every dof above the last one of its weld root.
fn body_chain(m: &JacModel, body: usize, chain: &mut [i32]) -> usize {
    if m.body_simple[body] != 0 {
        let n = m.body_dofnum[body].max(0) as usize;
        for (i, c) in chain[..n].iter_mut().enumerate() {
            *c = m.body_dofadr[body] + i as i32;
        }
        return n;
    }
    let w = m.body_weldid[body] as usize;
    if m.body_dofnum[w] == 0 {
        return 0;
    }
    let mut n = 0;
    let mut d = m.body_dofadr[w] + m.body_dofnum[w] - 1;
    while d >= 0 {
        chain[n] = d;
        n += 1;
        d = m.dof_parentid[d as usize];
    }
    chain[..n].reverse();
    n
}

/// Adds the joint forces of `force` and `torque` (world frame) at `point` on `body` to `qfrc`
/// (`nv`), as `mj_applyFT` with both given; `sparse` is the model's Jacobian choice.
#[allow(clippy::too_many_arguments)]
pub fn apply_ft(
    m: &JacModel,
    st: &JacState,
    sparse: bool,
    force: &[f64; 3],
    torque: &[f64; 3],
    point: &[f64; 3],
    body: usize,
    s: &mut ApplyFtScratch,
    qfrc: &mut [f64],
) {
    let nv = m.nv;
    s.resize(nv);
    let ApplyFtScratch { jacp, jacr, tmp, chain } = s;
    if !sparse {
        jac(m, st, jacp, Some(&mut jacr[..]), point, body);
        for (mat, v) in [(&jacp[..], force), (&jacr[..], torque)] {
            mul_t3(tmp, mat, v, nv);
            for j in 0..nv {
                qfrc[j] = tmp[j] + qfrc[j];
            }
        }
        return;
    }
    let n = body_chain(m, body, chain);
    let chain = &chain[..n];
    jac_sparse(m, st, jacp, Some(&mut jacr[..]), point, body, chain);
    for (mat, v) in [(&jacp[..], force), (&jacr[..], torque)] {
        mul_t3(tmp, mat, v, n);
        for (k, &c) in chain.iter().enumerate() {
            let c = c as usize;
            qfrc[c] = tmp[k] + qfrc[c];
        }
    }
}
