//! Pieces of the sparse Newton Hessian's assembly in MuJoCo 4.0.0 (`docs/measurements.md` D42):
//! so far the row supernodes of a sparse pattern (`mju_superSparse`), which the island's
//! Jacobian block and its transpose carry into the sparse products.

/// `mju_superSparse`: for each row, how many rows after it have the same pattern, counted
/// through consecutive equal rows (0 for the last).
pub fn super_sparse(rowsuper: &mut [i32], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) {
    let nr = rowsuper.len();
    if nr == 0 {
        return;
    }
    let row = |r: usize| &colind[rowadr[r] as usize..(rowadr[r] + rownnz[r]) as usize];
    for r in 0..nr - 1 {
        rowsuper[r] = i32::from(rownnz[r] == rownnz[r + 1] && row(r) == row(r + 1));
    }
    rowsuper[nr - 1] = 0;
    for r in (0..nr - 1).rev() {
        if rowsuper[r] != 0 {
            rowsuper[r] += rowsuper[r + 1];
        }
    }
}
