//! `mj_tendon`: each tendon's length `ten_length` and its row of the sparse Jacobian `ten_J`,
//! whose pattern (`ten_J_rownnz`, `ten_J_rowadr`, `ten_J_colind`) MuJoCo 4.0.0 stores in the
//! model (`docs/measurements.md` D45), and the wrap points of spatial tendons (D57, D58).
//!
//! Algorithm (a fixed tendon is `L = sum c_k q_k` over its path joints):
//! 1. Zero every length and every stored Jacobian entry.
//! 2. Per tendon, per path joint in order: `L += c * q[qposadr]`, and the joint's first dof's
//!    entry of the row `+= c` (`mju_combineSparseInc` with weights 1 and `c` on a unit source).
//! 3. A fixed tendon has no wrap points: `ten_wrapadr` is the running count of wrap points,
//!    `ten_wrapnum` 0.
//! 4. A spatial tendon walks its path of sites, wrapping geoms and pulleys
//!    ([`super::tendon_spatial`]).

use super::constraint::jacobian::JacState;
use super::constraint::jacobian::{JacModel, PairBuffers};

/// `mjWRAP_JOINT`: the path objects of a fixed tendon.
pub const WRAP_JOINT: i32 = 1;

/// The model arrays `mj_tendon` reads (MuJoCo's names; the site, geom and Jacobian arrays only
/// for spatial tendons).
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonModel<'a> {
    /// First path object of each tendon (`ntendon`).
    pub tendon_adr: &'a [i32],
    /// Number of path objects of each tendon (`ntendon`).
    pub tendon_num: &'a [i32],
    /// `mjtWrap` type of each path object (`nwrap`).
    pub wrap_type: &'a [i32],
    /// Joint of each path object (`nwrap`).
    pub wrap_objid: &'a [i32],
    /// Coefficient of each path object (`nwrap`).
    pub wrap_prm: &'a [f64],
    /// First `qpos` entry of each joint (`njnt`).
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// Start of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each Jacobian non-zero (`nJten`).
    pub ten_j_colind: &'a [i32],
    /// Body of each site (`nsite`).
    pub site_bodyid: &'a [i32],
    /// Body of each geom (`ngeom`).
    pub geom_bodyid: &'a [i32],
    /// Size of each geom (`3 ngeom`; the first entry is a wrapping geom's radius).
    pub geom_size: &'a [f64],
    /// The point Jacobians' view.
    pub jac: JacModel<'a>,
}

/// The state `mj_tendon` reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonState<'a> {
    /// Joint positions (`nq`).
    pub qpos: &'a [f64],
    /// Site positions (`3 nsite`).
    pub site_xpos: &'a [f64],
    /// Geom positions (`3 ngeom`).
    pub geom_xpos: &'a [f64],
    /// Geom orientations (`9 ngeom`).
    pub geom_xmat: &'a [f64],
    /// `cdof` and `subtree_com` for the point Jacobians.
    pub jac: JacState<'a>,
}

/// The stage's reused work arrays: the dof chain and the Jacobians of one segment.
#[derive(Clone, Debug, Default)]
pub struct TendonScratch {
    /// Merged dof chain of a segment's two bodies (`nv`).
    pub(crate) chain: Vec<i32>,
    /// The segment's end point Jacobians and their difference.
    pub(crate) bufs: PairBuffers,
    /// The segment's Jacobian along its direction (`nv`).
    pub(crate) tmp: Vec<f64>,
}

impl TendonScratch {
    /// Sizes the arrays for `nv` dofs (allocates only when `nv` grows).
    pub fn resize(&mut self, nv: usize) {
        self.chain.resize(nv, 0);
        self.bufs.resize(nv);
        self.tmp.resize(nv, 0.0);
    }
}

/// What `mj_tendon` writes.
#[derive(Debug)]
pub struct TendonOutput<'a> {
    /// Length of each tendon (`ntendon`).
    pub ten_length: &'a mut [f64],
    /// Jacobian non-zeros (`nJten`).
    pub ten_j: &'a mut [f64],
    /// First wrap point of each tendon's path (`ntendon`).
    pub ten_wrapadr: &'a mut [i32],
    /// Number of wrap points of each tendon's path (`ntendon`).
    pub ten_wrapnum: &'a mut [i32],
    /// Object of each wrap point: -1 site, -2 pulley, else the wrapping geom (`2 nwrap`).
    pub wrap_obj: &'a mut [i32],
    /// Position of each wrap point (`6 nwrap`).
    pub wrap_xpos: &'a mut [f64],
}

/// Lengths, Jacobian rows and wrap points of every tendon (`scratch` sized by
/// [`TendonScratch::resize`] for spatial tendons).
pub fn tendon(m: &TendonModel, st: &TendonState, scratch: &mut TendonScratch, out: &mut TendonOutput) {
    let nten = m.tendon_adr.len();
    if nten == 0 {
        return;
    }
    let qpos = st.qpos;
    out.ten_length.fill(0.0);
    out.ten_j.fill(0.0);
    let mut wrapcount = 0;
    for i in 0..nten {
        let adr = m.tendon_adr[i] as usize;
        out.ten_wrapadr[i] = wrapcount as i32;
        out.ten_wrapnum[i] = 0;
        if m.wrap_type[adr] != WRAP_JOINT {
            super::tendon_spatial::spatial(m, st, scratch, out, i, &mut wrapcount);
            continue;
        }
        let (radr, rnnz) = (m.ten_j_rowadr[i] as usize, m.ten_j_rownnz[i] as usize);
        for k in adr..adr + m.tendon_num[i] as usize {
            let j = m.wrap_objid[k] as usize;
            let coef = m.wrap_prm[k];
            out.ten_length[i] += coef * qpos[m.jnt_qposadr[j] as usize];
            let dof = m.jnt_dofadr[j];
            if let Some(p) = m.ten_j_colind[radr..radr + rnnz].iter().position(|&c| c == dof) {
                // `1 * J + c * 1` in the library: both products exact
                out.ten_j[radr + p] += coef;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_tendon_sums_its_weighted_joints_in_path_order() {
        // tendon 0: 0.5 q1 - 2 q0 on dofs {0, 1}; tendon 1: 3 q1
        let m = TendonModel {
            tendon_adr: &[0, 2],
            tendon_num: &[2, 1],
            wrap_type: &[WRAP_JOINT; 3],
            wrap_objid: &[1, 0, 1],
            wrap_prm: &[0.5, -2.0, 3.0],
            jnt_qposadr: &[0, 1],
            jnt_dofadr: &[0, 1],
            ten_j_rownnz: &[2, 1],
            ten_j_rowadr: &[0, 2],
            ten_j_colind: &[0, 1, 1],
            ..TendonModel::default()
        };
        let (mut len, mut j, mut adr, mut num) = ([9.0; 2], [9.0; 3], [9; 2], [9; 2]);
        let mut out = TendonOutput {
            ten_length: &mut len,
            ten_j: &mut j,
            ten_wrapadr: &mut adr,
            ten_wrapnum: &mut num,
            wrap_obj: &mut [],
            wrap_xpos: &mut [],
        };
        let st = TendonState { qpos: &[0.25, 2.0], ..TendonState::default() };
        tendon(&m, &st, &mut TendonScratch::default(), &mut out);
        assert_eq!(len, [0.5 * 2.0 - 2.0 * 0.25, 6.0]);
        assert_eq!(j, [-2.0, 0.5, 3.0]);
        assert_eq!((adr, num), ([0, 0], [0, 0]));
    }
}
