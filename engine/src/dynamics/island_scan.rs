//! The trees of a constraint row read from its Jacobian, as MuJoCo 4.0.0's `mj_island` finds
//! them for rows without a shortcut (tendon rows here; `docs/measurements.md` D47): the distinct
//! trees of the row's dofs in dof order, a dense row's dofs being those whose entry is not zero
//! and a sparse row's every stored column. A tree's dofs are contiguous, so a tree appears once.

/// The constraint Jacobian the scan reads (`efc_J` and, when sparse, its row structure).
#[derive(Clone, Copy, Debug, Default)]
pub struct IslandJacobian<'a> {
    /// Jacobian stored sparse (row-compressed) rather than dense (`nefc x nv`).
    pub sparse: bool,
    /// Jacobian values.
    pub efc_j: &'a [f64],
    /// Non-zeros of each sparse row.
    pub efc_j_rownnz: &'a [i32],
    /// Start of each sparse row.
    pub efc_j_rowadr: &'a [i32],
    /// Column of each sparse non-zero.
    pub efc_j_colind: &'a [i32],
}

/// Appends to `trees` the trees row `i` touches, in dof order, each once.
pub fn row_trees_scan(dof_treeid: &[i32], jac: &IslandJacobian, i: usize, trees: &mut Vec<i32>) {
    let mut push = |t: i32| {
        if trees.last() != Some(&t) {
            trees.push(t);
        }
    };
    // a row outside the arrays (or a column outside the dofs) yields no tree
    if jac.sparse {
        let (Some(&adr), Some(&nnz)) = (jac.efc_j_rowadr.get(i), jac.efc_j_rownnz.get(i)) else { return };
        let cols = jac.efc_j_colind.get(adr.max(0) as usize..(adr.max(0) + nnz.max(0)) as usize).unwrap_or(&[]);
        for &c in cols {
            push(dof_treeid.get(c as usize).copied().unwrap_or(-1));
        }
    } else {
        let nv = dof_treeid.len();
        let row = jac.efc_j.get(i * nv..(i + 1) * nv).unwrap_or(&[]);
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                push(dof_treeid[j]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_touches_each_tree_of_its_nonzero_dofs_once() {
        // dofs 0-1 in tree 0, 2 in tree 1, 3-4 in tree 2; row 0 on dofs 0, 1, 4 (dense)
        let treeid = [0, 0, 1, 2, 2];
        let j = [1.0, -0.5, 0.0, -0.0, 2.0];
        let jac = IslandJacobian { efc_j: &j, ..Default::default() };
        let mut trees = Vec::new();
        row_trees_scan(&treeid, &jac, 0, &mut trees);
        assert_eq!(trees, [0, 2]);
        // the same row sparse, with a stored zero on dof 2: its tree counts
        let jac = IslandJacobian {
            sparse: true,
            efc_j: &[1.0, 0.0, 2.0],
            efc_j_rownnz: &[3],
            efc_j_rowadr: &[0],
            efc_j_colind: &[0, 2, 4],
        };
        trees.clear();
        row_trees_scan(&treeid, &jac, 0, &mut trees);
        assert_eq!(trees, [0, 1, 2]);
    }
}
