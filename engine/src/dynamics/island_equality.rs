//! The trees of equality rows for `mj_island` (`docs/measurements.md` D52): a connect's or
//! weld's two bodies' trees, as the library takes them without reading the Jacobian; a joint
//! equality's trees from a scan of its Jacobian row, the library's generic path (the trees of
//! the row's non-zero columns, in column order, each new one joined to the one before).

use super::constraint::equality::{CONNECT, WELD};

/// `mjOBJ_SITE`.
const OBJ_SITE: i32 = 6;

/// The equality model arrays the island stage reads (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct IslandEquality<'a> {
    /// Type of each equality (`mjtEq`).
    pub eq_type: &'a [i32],
    /// First object of each equality.
    pub eq_obj1id: &'a [i32],
    /// Second object of each equality.
    pub eq_obj2id: &'a [i32],
    /// Object type of each equality (`mjtObj`).
    pub eq_objtype: &'a [i32],
    /// Body of each site.
    pub site_bodyid: &'a [i32],
    /// First dof of each tree (`ntree`).
    pub tree_dofadr: &'a [i32],
}

/// The constraint Jacobian the generic scan reads: dense `nefc x nv`, or row-compressed.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowJacobian<'a> {
    /// Stored sparse.
    pub sparse: bool,
    /// Values (`nJ`).
    pub efc_j: &'a [f64],
    /// Non-zeros of each sparse row.
    pub rownnz: &'a [i32],
    /// Start of each sparse row.
    pub rowadr: &'a [i32],
    /// Column of each sparse non-zero.
    pub colind: &'a [i32],
}

/// An index into `a` from a MuJoCo id, `None` when the id is outside it.
fn at(a: &[i32], id: i32) -> Option<i32> {
    usize::try_from(id).ok().and_then(|i| a.get(i).copied())
}

/// The next tree of row `row` after column `*j` that differs from `prev` (the library's
/// `treeNext` in scan mode), `*j` left where it stopped; `None` when the row has no more.
fn scan_next(
    dof_treeid: &[i32],
    tree_dofnum: &[i32],
    eq: &IslandEquality,
    jac: &RowJacobian,
    row: usize,
    j: &mut usize,
    prev: i32,
) -> Option<Option<i32>> {
    let nv = dof_treeid.len();
    if jac.sparse {
        let (nnz, adr) = (*jac.rownnz.get(row)? as usize, *jac.rowadr.get(row)? as usize);
        while *j < nnz {
            let tree = at(dof_treeid, *jac.colind.get(adr + *j)?)?;
            if tree != prev {
                return Some(Some(tree));
            }
            *j += 1;
        }
    } else {
        let r = jac.efc_j.get(row * nv..(row + 1) * nv)?;
        while *j < nv {
            if r[*j] != 0.0 {
                let tree = dof_treeid[*j];
                if tree != prev {
                    return Some(Some(tree));
                }
                // the rest of this tree's dof block cannot bring a new tree
                let t = tree as usize;
                *j = (*eq.tree_dofadr.get(t)? + *tree_dofnum.get(t)? - 1) as usize;
            }
            *j += 1;
        }
    }
    Some(None)
}

/// The trees equality row `row` (of equality `id`) joins: `(tree1, tree2)` with -1 for a static
/// side or a single tree; `None` where the library would take another path or raise an error
/// (more than two trees cannot occur for connect, weld or joint rows).
pub fn equality_trees(
    dof_treeid: &[i32],
    body_treeid: &[i32],
    tree_dofnum: &[i32],
    eq: &IslandEquality,
    jac: &RowJacobian,
    id: i32,
    row: usize,
) -> Option<(i32, i32)> {
    let ty = at(eq.eq_type, id)?;
    if ty == CONNECT || ty == WELD {
        let (mut b1, mut b2) = (at(eq.eq_obj1id, id)?, at(eq.eq_obj2id, id)?);
        if at(eq.eq_objtype, id)? == OBJ_SITE {
            (b1, b2) = (at(eq.site_bodyid, b1)?, at(eq.site_bodyid, b2)?);
        }
        return Some((at(body_treeid, b1)?, at(body_treeid, b2)?));
    }
    let mut j = 0;
    let first = scan_next(dof_treeid, tree_dofnum, eq, jac, row, &mut j, -1)??;
    match scan_next(dof_treeid, tree_dofnum, eq, jac, row, &mut j, first)? {
        None => Some((first, -1)),
        Some(second) => {
            // a third tree would need a chain of merges
            let third = scan_next(dof_treeid, tree_dofnum, eq, jac, row, &mut j, second)?;
            third.is_none().then_some((first, second))
        }
    }
}
