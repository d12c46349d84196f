//! `mj_tendon` for fixed tendons: each tendon's length `ten_length` and its row of the sparse
//! Jacobian `ten_J`, whose pattern (`ten_J_rownnz`, `ten_J_rowadr`, `ten_J_colind`) MuJoCo
//! 4.0.0 stores in the model (`docs/measurements.md` D45).
//!
//! Algorithm (a fixed tendon is `L = sum c_k q_k` over its path joints):
//! 1. Zero every length and every stored Jacobian entry.
//! 2. Per tendon, per path joint in order: `L += c * q[qposadr]`, and the joint's first dof's
//!    entry of the row `+= c` (`mju_combineSparseInc` with weights 1 and `c` on a unit source).
//! 3. A fixed tendon has no wrap points: `ten_wrapadr` is the running count of wrap points
//!    (spatial tendons add theirs), `ten_wrapnum` 0.

/// `mjWRAP_JOINT`: the path objects of a fixed tendon.
pub const WRAP_JOINT: i32 = 1;

/// The model arrays `mj_tendon` reads for fixed tendons (MuJoCo's names).
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
}

impl TendonModel<'_> {
    /// Whether every tendon is fixed (the subset [`tendon`] computes).
    pub fn all_fixed(&self) -> bool {
        self.tendon_adr.iter().all(|&a| self.wrap_type.get(a as usize) == Some(&WRAP_JOINT))
    }
}

/// Lengths and Jacobian of fixed tendons at `qpos` (the caller checked [`TendonModel::all_fixed`]).
pub fn tendon(m: &TendonModel, qpos: &[f64], out: &mut TendonOutput) {
    let nten = m.tendon_adr.len();
    if nten == 0 {
        return;
    }
    out.ten_length.fill(0.0);
    out.ten_j.fill(0.0);
    for i in 0..nten {
        let adr = m.tendon_adr[i] as usize;
        // no wrap points before: fixed tendons add none
        out.ten_wrapadr[i] = 0;
        out.ten_wrapnum[i] = 0;
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
        };
        let (mut len, mut j, mut adr, mut num) = ([9.0; 2], [9.0; 3], [9; 2], [9; 2]);
        let mut out =
            TendonOutput { ten_length: &mut len, ten_j: &mut j, ten_wrapadr: &mut adr, ten_wrapnum: &mut num };
        tendon(&m, &[0.25, 2.0], &mut out);
        assert_eq!(len, [0.5 * 2.0 - 2.0 * 0.25, 6.0]);
        assert_eq!(j, [-2.0, 0.5, 3.0]);
        assert_eq!((adr, num), ([0, 0], [0, 0]));
    }
}
