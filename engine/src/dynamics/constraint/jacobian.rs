//! Point Jacobians of two bodies and their difference, dense (`3 x nv`) or over the merged dof
//! chain of the two bodies (`3 x NV`), as MuJoCo 4.0.0's `mj_jacDifPair` with shared dofs
//! skipped builds them for contacts, and the small matrix product that turns them into the
//! contact frame (`docs/measurements.md` D10).
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps its operand
// order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::dynamics::avx::avx_dispatch;

/// The model arrays the Jacobians read (MuJoCo's names; `nbody` entries each, `nv` for
/// `dof_parentid`).
#[derive(Clone, Copy, Debug, Default)]
pub struct JacModel<'a> {
    /// Number of degrees of freedom.
    pub nv: usize,
    /// Body each body is welded to (itself when it has dofs).
    pub body_weldid: &'a [i32],
    /// Root of each body's kinematic tree (its subtree centre of mass is the Jacobian origin).
    pub body_rootid: &'a [i32],
    /// Number of dofs of each body.
    pub body_dofnum: &'a [i32],
    /// First dof of each body (-1 for none).
    pub body_dofadr: &'a [i32],
    /// Nonzero for a body whose dofs are its own only (no moving ancestor), as `mjtByte`.
    pub body_simple: &'a [u8],
    /// Parent of each dof (-1 for a root dof).
    pub dof_parentid: &'a [i32],
}

/// The state the Jacobians read: `cdof` (`6 nv`, rotation then translation, in the com frame)
/// and `subtree_com` (`3 nbody`).
#[derive(Clone, Copy, Debug, Default)]
pub struct JacState<'a> {
    /// Motion of each dof about the subtree com: rotation (3) then translation (3).
    pub cdof: &'a [f64],
    /// Centre of mass of each body's subtree.
    pub subtree_com: &'a [f64],
}

/// The six Jacobian buffers of one body pair (`3 nv` each): the two bodies' Jacobians and
/// their difference (second minus first), translational then rotational.
#[derive(Clone, Debug, Default)]
pub struct PairBuffers {
    /// Translation Jacobian of the first body's point.
    pub jac1p: Vec<f64>,
    /// Translation Jacobian of the second body's point.
    pub jac2p: Vec<f64>,
    /// Translation Jacobian difference.
    pub jacdifp: Vec<f64>,
    /// Rotation Jacobian of the first body.
    pub jac1r: Vec<f64>,
    /// Rotation Jacobian of the second body.
    pub jac2r: Vec<f64>,
    /// Rotation Jacobian difference.
    pub jacdifr: Vec<f64>,
}

impl PairBuffers {
    /// Sizes every buffer for `nv` dofs (allocates only when `nv` grows).
    pub fn resize(&mut self, nv: usize) {
        for v in
            [&mut self.jac1p, &mut self.jac2p, &mut self.jacdifp, &mut self.jac1r, &mut self.jac2r, &mut self.jacdifr]
        {
            v.resize(3 * nv, 0.0);
        }
    }
}

/// `cdof_rot x offset`, in the library's operand order.
fn cross(c: &[f64], o: &[f64; 3]) -> [f64; 3] {
    [c[1] * o[2] - c[2] * o[1], c[2] * o[0] - c[0] * o[2], c[0] * o[1] - c[1] * o[0]]
}

/// The point's offset from the com of the body's tree.
fn offset(m: &JacModel, st: &JacState, point: &[f64; 3], body: usize) -> [f64; 3] {
    let r = 3 * m.body_rootid[body] as usize;
    let c = &st.subtree_com[r..r + 3];
    [point[0] - c[0], point[1] - c[1], point[2] - c[2]]
}

/// The last dof moving the body (through its weld root), `None` when that root has no dofs.
fn last_dof(m: &JacModel, body: usize) -> Option<i32> {
    let w = m.body_weldid[body] as usize;
    let n = m.body_dofnum[w];
    if n == 0 {
        return None;
    }
    Some(m.body_dofadr[w] + n - 1)
}

/// MuJoCo's `mj_mergeChain` with shared dofs skipped: the dofs moving either body but not both,
/// increasing, into `chain`; returns their number.
pub fn merge_chain(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize) -> usize {
    merge_chain_with(m, chain, b1, b2, true)
}

/// MuJoCo's `mj_mergeChain` keeping the shared dofs: every dof moving either body, increasing.
pub fn merge_chain_all(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize) -> usize {
    merge_chain_with(m, chain, b1, b2, false)
}

/// `mj_mergeChain` with or without the shared dofs (`skip_common`).
fn merge_chain_with(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize, skip_common: bool) -> usize {
    let (w1, w2) = (m.body_weldid[b1] as usize, m.body_weldid[b2] as usize);
    if m.body_dofnum[w1] == 0 && m.body_dofnum[w2] == 0 {
        return 0;
    }
    // a body without dofs starts below -1 (its dofadr is -1), which the loop treats as done
    let mut da1 = m.body_dofadr[w1] + m.body_dofnum[w1] - 1;
    let mut da2 = m.body_dofadr[w2] + m.body_dofnum[w2] - 1;
    let mut n = 0;
    while da1 >= 0 || da2 >= 0 {
        // the first shared ancestor: everything above it moves both bodies alike
        if skip_common && da1 == da2 {
            break;
        }
        let da = da1.max(da2);
        chain[n] = da;
        if da1 == da {
            da1 = m.dof_parentid[da1 as usize];
        }
        if da2 == da {
            da2 = m.dof_parentid[da2 as usize];
        }
        n += 1;
    }
    chain[..n].reverse();
    n
}

/// MuJoCo's merge for two simple bodies: the lower-numbered body's dofs, then the other's.
fn merge_chain_simple(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize) -> usize {
    let (lo, hi) = if b1 > b2 { (b2, b1) } else { (b1, b2) };
    let (n1, n2) = (m.body_dofnum[lo] as usize, m.body_dofnum[hi] as usize);
    if n1 == 0 && n2 == 0 {
        return 0;
    }
    for i in 0..n1 {
        chain[i] = m.body_dofadr[lo] + i as i32;
    }
    for i in 0..n2 {
        chain[n1 + i] = m.body_dofadr[hi] + i as i32;
    }
    n1 + n2
}

/// Whether the pair takes the simple-body path of `mj_jacDifPair` (two different simple bodies).
fn is_simple(m: &JacModel, b1: usize, b2: usize) -> bool {
    b1 != b2 && m.body_simple[b1] != 0 && m.body_simple[b2] != 0
}

/// The number of Jacobian columns of the pair (`mj_jacDifPair`'s count): `nv` dense; sparse,
/// the merged chain, written to `chain`. 0 when the model has no dofs or the chain is empty.
pub fn pair_columns(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize, sparse: bool) -> usize {
    if m.nv == 0 {
        return 0;
    }
    if !sparse {
        return m.nv;
    }
    if is_simple(m, b1, b2) {
        merge_chain_simple(m, chain, b1, b2)
    } else {
        merge_chain(m, chain, b1, b2)
    }
}

/// [`pair_columns`] without skipping the dofs both bodies share (`mj_jacDifPair` with
/// `flg_skipcommon` = 0, as equality constraints call it).
pub fn pair_columns_all(m: &JacModel, chain: &mut [i32], b1: usize, b2: usize, sparse: bool) -> usize {
    if m.nv == 0 {
        return 0;
    }
    if !sparse {
        return m.nv;
    }
    if is_simple(m, b1, b2) {
        merge_chain_simple(m, chain, b1, b2)
    } else {
        merge_chain_with(m, chain, b1, b2, false)
    }
}

/// MuJoCo's dense `mj_jac`: the `3 x nv` Jacobians of `point` on `body` (rotation only when
/// `jacr` is given).
pub fn jac(m: &JacModel, st: &JacState, jacp: &mut [f64], mut jacr: Option<&mut [f64]>, point: &[f64; 3], body: usize) {
    let nv = m.nv;
    jacp[..3 * nv].fill(0.0);
    let off = offset(m, st, point, body);
    if let Some(r) = jacr.as_deref_mut() {
        r[..3 * nv].fill(0.0);
    }
    let Some(mut i) = last_dof(m, body) else { return };
    while i >= 0 {
        let d = i as usize;
        let c = &st.cdof[6 * d..6 * d + 6];
        if let Some(r) = jacr.as_deref_mut() {
            r[d] = c[0];
            r[d + nv] = c[1];
            r[d + 2 * nv] = c[2];
        }
        let t = cross(c, &off);
        jacp[d] = c[3] + t[0];
        jacp[d + nv] = c[4] + t[1];
        jacp[d + 2 * nv] = c[5] + t[2];
        i = m.dof_parentid[d];
    }
}

/// MuJoCo's `mj_jacSparse` with shared dofs skipped: the `3 x NV` Jacobians of `point` on
/// `body` over `chain` (its dofs outside the chain are left out).
pub fn jac_sparse(
    m: &JacModel,
    st: &JacState,
    jacp: &mut [f64],
    mut jacr: Option<&mut [f64]>,
    point: &[f64; 3],
    body: usize,
    chain: &[i32],
) {
    let nn = chain.len();
    jacp[..3 * nn].fill(0.0);
    if let Some(r) = jacr.as_deref_mut() {
        r[..3 * nn].fill(0.0);
    }
    let Some(mut da) = last_dof(m, body) else { return };
    let off = offset(m, st, point, body);
    let mut ci = nn as isize - 1;
    while da >= 0 {
        while ci >= 0 && chain[ci as usize] > da {
            ci -= 1;
        }
        if ci < 0 || chain[ci as usize] != da {
            da = m.dof_parentid[da as usize];
            continue;
        }
        let (k, d) = (ci as usize, da as usize);
        let c = &st.cdof[6 * d..6 * d + 6];
        if let Some(r) = jacr.as_deref_mut() {
            r[k] = c[0];
            r[k + nn] = c[1];
            r[k + 2 * nn] = c[2];
        }
        let t = cross(c, &off);
        jacp[k] = c[3] + t[0];
        jacp[k + nn] = c[4] + t[1];
        jacp[k + 2 * nn] = c[5] + t[2];
        da = m.dof_parentid[d];
    }
}

/// MuJoCo's `mj_jacSparseSimple`: writes the simple body's columns (from `start`) of the
/// `3 x nn` Jacobian differences, negated for the first body of the pair.
#[allow(clippy::too_many_arguments)]
fn jac_sparse_simple(
    m: &JacModel,
    st: &JacState,
    jacdifp: &mut [f64],
    mut jacdifr: Option<&mut [f64]>,
    point: &[f64; 3],
    body: usize,
    second: bool,
    nn: usize,
    start: usize,
) {
    let n = m.body_dofnum[body];
    if n <= 0 {
        return;
    }
    let off = offset(m, st, point, body);
    let adr = m.body_dofadr[body] as usize;
    for (k, d) in (start..).zip(adr..adr + n as usize) {
        let c = &st.cdof[6 * d..6 * d + 6];
        if let Some(r) = jacdifr.as_deref_mut() {
            for a in 0..3 {
                r[k + a * nn] = if second { c[a] } else { -c[a] };
            }
        }
        let t = cross(c, &off);
        for a in 0..3 {
            let v = c[3 + a] + t[a];
            jacdifp[k + a * nn] = if second { v } else { -v };
        }
    }
}

/// MuJoCo's `mj_jacDifPair` (shared dofs skipped) after [`pair_columns`] gave `nn` > 0
/// columns over `chain`: `jacdifp` (and `jacdifr` when `rot`) of `pos2` on `b2` minus `pos1` on
/// `b1`, `3 x nn` row-major.
#[allow(clippy::too_many_arguments)]
pub fn dif_pair(
    m: &JacModel,
    st: &JacState,
    chain: &[i32],
    nn: usize,
    b1: usize,
    b2: usize,
    pos1: &[f64; 3],
    pos2: &[f64; 3],
    bufs: &mut PairBuffers,
    rot: bool,
    sparse: bool,
) {
    let PairBuffers { jac1p, jac2p, jacdifp, jac1r, jac2r, jacdifr } = bufs;
    if sparse && is_simple(m, b1, b2) {
        // each body fills its own columns of the differences directly
        let r = if rot { Some(&mut jacdifr[..]) } else { None };
        let s1 = if b1 < b2 { 0 } else { m.body_dofnum[b2] as usize };
        jac_sparse_simple(m, st, jacdifp, r, pos1, b1, false, nn, s1);
        let r = if rot { Some(&mut jacdifr[..]) } else { None };
        let s2 = if b2 < b1 { 0 } else { m.body_dofnum[b1] as usize };
        jac_sparse_simple(m, st, jacdifp, r, pos2, b2, true, nn, s2);
        return;
    }
    let (r1, r2) = if rot { (Some(&mut jac1r[..]), Some(&mut jac2r[..])) } else { (None, None) };
    if sparse {
        let c = &chain[..nn];
        jac_sparse(m, st, jac1p, r1, pos1, b1, c);
        jac_sparse(m, st, jac2p, r2, pos2, b2, c);
    } else {
        jac(m, st, jac1p, r1, pos1, b1);
        jac(m, st, jac2p, r2, pos2, b2);
    }
    sub_into(&mut jacdifp[..3 * nn], jac2p, jac1p);
    if rot {
        sub_into(&mut jacdifr[..3 * nn], jac2r, jac1r);
    }
}

/// `res = a - b` entry by entry over `res` (`a` and `b` at least as long).
fn sub_into(res: &mut [f64], a: &[f64], b: &[f64]) {
    for ((r, x), y) in res.iter_mut().zip(a).zip(b) {
        *r = x - y;
    }
}

avx_dispatch! {
    /// MuJoCo's `mju_mulMatMat` for `res = mat1 * mat2` (`r1 x c1` times `c1 x c2`, row-major):
    /// each row accumulates `mat1[i][k] * mat2[k][:]` over `k`, skipping zero factors, as 4.0.0
    /// does (entry by entry, so the AVX copy gives the same bits, N26).
    pub fn mul_mat_mat(res: &mut [f64], mat1: &[f64], mat2: &[f64], r1: usize, c1: usize, c2: usize) => mul_mat_mat_any
}

/// [`mul_mat_mat`]'s body.
#[inline(always)]
fn mul_mat_mat_any(res: &mut [f64], mat1: &[f64], mat2: &[f64], r1: usize, c1: usize, c2: usize) {
    let res = &mut res[..r1 * c2];
    res.fill(0.0);
    if c2 == 0 {
        return;
    }
    for (row, factors) in res.chunks_exact_mut(c2).zip(mat1.chunks_exact(c1.max(1))) {
        for (&a, src) in factors[..c1].iter().zip(mat2.chunks_exact(c2)) {
            // the library skips exact zeros (a NaN factor is still applied)
            if a == 0.0 {
                continue;
            }
            for (r, &x) in row.iter_mut().zip(src) {
                *r = a * x + *r;
            }
        }
    }
}
