//! Sparse `mj_projectConstraint`: `efc_Y = J L^-1 D^-1/2` in compressed rows and `efc_AR = Y Y' +
//! diag(R)` in compressed symmetric rows, as MuJoCo 4.0.0's `mj_makeYSymbolic`/`mj_makeYNumeric`/
//! `mj_makeARSymbolic`/`mj_makeARNumeric` compute them (`docs/measurements.md` D11). Each function
//! is one of the library's phases; the caller places the arrays in the arena between them.
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps the library's
// operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern, clippy::too_many_arguments)]

use super::project::Factor;
use super::reference::dot;

/// A matrix's compressed-row pattern.
#[derive(Clone, Copy, Debug)]
pub struct Pattern<'a> {
    /// Non-zeros of each row.
    pub rownnz: &'a [i32],
    /// Start of each row.
    pub rowadr: &'a [i32],
    /// Column of each non-zero.
    pub colind: &'a [i32],
}

impl Pattern<'_> {
    /// Range of row `r`'s non-zeros.
    pub fn row(&self, r: usize) -> std::ops::Range<usize> {
        let adr = self.rowadr[r] as usize;
        adr..adr + self.rownnz[r].max(0) as usize
    }
}

/// Counts the non-zeros of each row of `Y` (the pattern of `J L^-1`: each dof of a `J` row brings
/// its factor row, its ancestors, once), writes `y_rownnz`, `y_rowadr` (`nefc`) and returns `nY`.
/// `marker` has `nv` entries.
pub fn y_precount(j: &Pattern, f: &Factor, marker: &mut [i32], y_rownnz: &mut [i32], y_rowadr: &mut [i32]) -> i32 {
    let nefc = y_rownnz.len();
    marker.fill(-1);
    if nefc == 0 {
        return 0;
    }
    y_rowadr[0] = 0;
    for r in 0..nefc {
        let mut nnz = 0;
        let tag = r as i32;
        for i in j.row(r).rev() {
            let dof = j.colind[i] as usize;
            if marker[dof] == tag {
                continue;
            }
            let adr = f.m_rowadr[dof] as usize;
            for k in adr..adr + f.m_rownnz[dof].max(0) as usize {
                let c = f.m_colind[k] as usize;
                if marker[c] != tag {
                    marker[c] = tag;
                    nnz += 1;
                }
            }
        }
        y_rownnz[r] = nnz;
        if r + 1 < nefc {
            y_rowadr[r + 1] = y_rowadr[r] + nnz;
        }
    }
    y_rowadr[nefc - 1] + y_rownnz[nefc - 1]
}

/// Fills `Y`'s column indices and values (`J`'s values, zeros at the ancestors it lacks), then
/// solves each row in place with the factor (`Y_r <- Y_r L^-1`, entries from the last, zeros
/// skipped) and scales it by `sqrt_inv_d`; with `diag_a`, also writes the exact diagonal `|Y_r|^2`.
/// The `Y` pattern's `rownnz`/`rowadr` come from [`y_precount`].
pub fn y_numeric(
    jp: &Pattern,
    jv: &[f64],
    f: &Factor,
    sqrt_inv_d: &[f64],
    y_rownnz: &[i32],
    y_rowadr: &[i32],
    y_colind: &mut [i32],
    y: &mut [f64],
    diag_a: Option<&mut [f64]>,
) {
    let nefc = y_rownnz.len();
    for r in 0..nefc {
        fill_row(jp, f, r, y_rownnz, y_rowadr, y_colind, Some((jv, &mut *y)));
    }
    for r in 0..nefc {
        let nnz = y_rownnz[r];
        if nnz <= 0 {
            continue;
        }
        let adr = y_rowadr[r] as usize;
        let n = nnz as usize;
        for i in (adr..adr + n).rev() {
            let val = y[i];
            if val == 0.0 {
                continue;
            }
            let dof = y_colind[i] as usize;
            let nnz_m = f.m_rownnz[dof];
            if nnz_m < 2 {
                continue;
            }
            let adr_m = f.m_rowadr[dof] as usize;
            let count = nnz_m as usize - 1;
            let neg = -val;
            // merge the factor row's off-diagonal columns with the Y row's (both ascending)
            let (mut k, mut p) = (0, 0);
            while k < count && p < n {
                let (mc, yc) = (f.m_colind[adr_m + k], y_colind[adr + p]);
                if mc == yc {
                    y[adr + p] = neg * f.qld[adr_m + k] + y[adr + p];
                    k += 1;
                    p += 1;
                } else if mc < yc {
                    k += 1;
                } else {
                    p += 1;
                }
            }
        }
        for i in adr..adr + n {
            y[i] = sqrt_inv_d[y_colind[i] as usize] * y[i];
        }
    }
    if let Some(diag_a) = diag_a {
        for r in 0..nefc {
            let row = &y[y_rowadr[r] as usize..(y_rowadr[r] + y_rownnz[r].max(0)) as usize];
            diag_a[r] = dot(row, row);
        }
    }
}

/// `Y`'s column indices alone (what `mj_makeYSymbolic` fills under the discrete integrator, which
/// computes the values elsewhere).
pub fn y_columns(jp: &Pattern, f: &Factor, y_rownnz: &[i32], y_rowadr: &[i32], y_colind: &mut [i32]) {
    for r in 0..y_rownnz.len() {
        fill_row(jp, f, r, y_rownnz, y_rowadr, y_colind, None);
    }
}

/// One row of `Y`'s fill, from its last entry back: `J`'s next dof or the parent (the last
/// off-diagonal column of the factor row) of the dof placed last, the larger first; with values,
/// `J`'s value or a zero goes with each column.
fn fill_row(
    jp: &Pattern,
    f: &Factor,
    r: usize,
    y_rownnz: &[i32],
    y_rowadr: &[i32],
    y_colind: &mut [i32],
    mut values: Option<(&[f64], &mut [f64])>,
) {
    let end = (y_rowadr[r] + y_rownnz[r]) as usize;
    let adr_j = jp.rowadr[r] as usize;
    let mut remain = jp.rownnz[r].max(0) as usize;
    let mut nnz = 0usize;
    loop {
        let src = if remain > 0 { jp.colind[adr_j + remain - 1] } else { -1 };
        let dst = if nnz > 0 {
            let c = y_colind[end - nnz] as usize;
            let n = f.m_rownnz[c];
            if n >= 2 {
                f.m_colind[f.m_rowadr[c] as usize + n as usize - 2]
            } else {
                -1
            }
        } else {
            -1
        };
        if src < 0 && dst < 0 {
            break;
        }
        nnz += 1;
        if src >= dst {
            remain -= 1;
            y_colind[end - nnz] = src;
            if let Some((jv, y)) = values.as_mut() {
                y[end - nnz] = jv[adr_j + remain];
            }
        } else {
            y_colind[end - nnz] = dst;
            if let Some((_, y)) = values.as_mut() {
                y[end - nnz] = 0.0;
            }
        }
    }
}

/// The transpose's pattern (and values, when both are given) of an `nr x nc` compressed-row matrix
/// whose rows start at 0 (`mju_transposeSparse`): rows of the result in column order, each listing
/// the source rows ascending.
pub fn transpose(
    src: &Pattern,
    vals: Option<&[f64]>,
    res_rownnz: &mut [i32],
    res_rowadr: &mut [i32],
    res_colind: &mut [i32],
    mut res: Option<&mut [f64]>,
) {
    let (nr, nc) = (src.rownnz.len(), res_rownnz.len());
    if nr == 0 || nc == 0 {
        return;
    }
    res_rownnz.fill(0);
    for r in 0..nr {
        for i in src.row(r) {
            res_rownnz[src.colind[i] as usize] += 1;
        }
    }
    res_rowadr[0] = 0;
    for i in 1..nc {
        res_rowadr[i] = res_rowadr[i - 1] + res_rownnz[i - 1];
    }
    for r in 0..nr {
        for i in src.row(r) {
            let c = src.colind[i] as usize;
            let adr = res_rowadr[c] as usize;
            res_rowadr[c] += 1;
            res_colind[adr] = r as i32;
            if let (Some(res), Some(vals)) = (res.as_deref_mut(), vals) {
                res[adr] = vals[i];
            }
        }
    }
    for i in (1..nc).rev() {
        res_rowadr[i] = res_rowadr[i - 1];
    }
    res_rowadr[0] = 0;
}

/// The pattern of `AR = Y Y'`: row `r` lists, ascending, every row `c` of `Y` sharing a column
/// with row `r` (the diagonal included). Writes `ar_rownnz`, `ar_rowadr` (`nefc`) and the columns
/// into `cols` (cleared first); returns `nA`. `yt` is `Y'`'s pattern; `mark` has `nefc` entries.
pub fn ar_symbolic(
    y: &Pattern,
    yt: &Pattern,
    mark: &mut [i32],
    ar_rownnz: &mut [i32],
    ar_rowadr: &mut [i32],
    cols: &mut Vec<i32>,
) -> i32 {
    let nefc = ar_rownnz.len();
    mark.fill(-1);
    cols.clear();
    for r in 0..nefc {
        let start = cols.len();
        let tag = r as i32;
        for i in y.row(r) {
            for e in yt.row(y.colind[i] as usize) {
                let c = yt.colind[e];
                if mark[c as usize] != tag {
                    mark[c as usize] = tag;
                    cols.push(c);
                }
            }
        }
        cols[start..].sort_unstable();
        ar_rownnz[r] = (cols.len() - start) as i32;
        ar_rowadr[r] = start as i32;
    }
    cols.len() as i32
}

/// `diagind[r]`: the first entry of `AR` row `r` at or past column `r`, the row's end if none
/// (`mj_makeARNumeric`'s search).
pub fn ar_diagonal_index(ar: &Pattern, diagind: &mut [i32]) {
    for r in 0..diagind.len() {
        let row = ar.row(r);
        let mut at = row.end;
        for k in row {
            if r as i32 <= ar.colind[k] {
                at = k;
                break;
            }
        }
        diagind[r] = at as i32;
    }
}

/// `AR = Y Y' + diag(R)` on the pattern of [`ar_symbolic`] (4.0.0's `mju_sqrMatTDSparseNumeric`
/// with diagonal indices, then `R`): row `r`'s entries left of the diagonal accumulate
/// `Y[r,k] Y[c,k]` over the row's columns `k` ascending (zero `Y[r,k]` skipped) from `+0`, the
/// diagonal likewise with `Y[r,k]^2`, the upper triangle is mirrored, and `R[r]` added.
/// `buffer` has `nefc` zeros and is left so; `upper` has `nefc` entries.
pub fn ar_numeric(
    y: &Pattern,
    yv: &[f64],
    yt: &Pattern,
    ytv: &[f64],
    ar: &Pattern,
    diagind: &[i32],
    efc_r: &[f64],
    buffer: &mut [f64],
    upper: &mut [i32],
    arv: &mut [f64],
) {
    let nefc = ar.rownnz.len();
    for r in 0..nefc {
        let adr = ar.rowadr[r] as usize;
        let lower = (diagind[r] as usize).saturating_sub(adr);
        let mut diag = 0.0;
        for i in y.row(r) {
            let scale = yv[i];
            if scale == 0.0 {
                continue;
            }
            diag = scale * yv[i] + diag;
            if lower == 0 {
                continue;
            }
            for e in yt.row(y.colind[i] as usize) {
                let c = yt.colind[e] as usize;
                if c >= r {
                    break;
                }
                buffer[c] = scale * ytv[e] + buffer[c];
            }
        }
        for k in adr..adr + lower {
            let c = ar.colind[k] as usize;
            arv[k] = buffer[c];
            buffer[c] = 0.0;
        }
        if lower < ar.rownnz[r].max(0) as usize {
            arv[adr + lower] = diag;
        }
    }
    for r in 0..nefc {
        upper[r] = diagind[r] + 1;
    }
    for r in 0..nefc {
        let adr = ar.rowadr[r] as usize;
        let lower = (diagind[r] as usize + 1).saturating_sub(adr);
        for k in adr..adr + lower {
            let c = ar.colind[k] as usize;
            if c < r {
                arv[upper[c] as usize] = arv[k];
                upper[c] += 1;
            }
        }
    }
    for r in 0..nefc {
        let k = diagind[r] as usize;
        arv[k] = efc_r[r] + arv[k];
    }
}
