//! `mj_tendonArmature`: the second half of `mj_makeM` in MuJoCo 4.0.0, which adds each tendon's
//! armature `a` as `a J' J` (`J` the tendon's Jacobian row) to the row-sparse inertia `d->M`,
//! keeping only the entries `M`'s own sparsity holds (`docs/measurements.md` D59).

use super::TreeModel;

/// The tendon arrays [`tendon_armature`] reads (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonArmatureModel<'a> {
    /// Armature of each tendon, the tendon's own plus its actuators' (`ntendon`).
    pub armature: &'a [f64],
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// First non-zero of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each Jacobian non-zero, increasing within a row (`nJten`).
    pub ten_j_colind: &'a [i32],
}

/// Adds `armature[k] J_k' J_k` of every tendon `k` with armature to `mass` (`d->M` in the
/// layout of `tree`), over the pairs of dofs `M`'s lower-triangle sparsity holds; `ten_j` are
/// the tendon Jacobians' non-zeros (`d->ten_J`).
pub fn tendon_armature(tree: &TreeModel, t: &TendonArmatureModel, ten_j: &[f64], mass: &mut [f64]) {
    for (k, &arm) in t.armature.iter().enumerate() {
        if arm == 0.0 {
            continue;
        }
        let (adr, nnz) = (t.ten_j_rowadr[k] as usize, t.ten_j_rownnz[k] as usize);
        let (cols, vals) = (&t.ten_j_colind[adr..adr + nnz], &ten_j[adr..adr + nnz]);
        for (&dof, &ji) in cols.iter().zip(vals) {
            if ji == 0.0 {
                continue;
            }
            let dof = dof as usize;
            let (madr, mnnz) = (tree.m_rowadr[dof] as usize, tree.m_rownnz[dof] as usize);
            let (mcols, row) = (&tree.m_colind[madr..madr + mnnz], &mut mass[madr..madr + mnnz]);
            // both column lists increase: walk them together, adding where they meet
            let scale = arm * ji;
            let (mut a, mut b) = (0, 0);
            while a < nnz && b < mnnz {
                match cols[a].cmp(&mcols[b]) {
                    std::cmp::Ordering::Equal => {
                        row[b] += scale * vals[a];
                        a += 1;
                        b += 1;
                    }
                    std::cmp::Ordering::Less => a += 1,
                    std::cmp::Ordering::Greater => b += 1,
                }
            }
        }
    }
}
