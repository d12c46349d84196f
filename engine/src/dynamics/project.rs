//! `mj_projectConstraint`: the dual solvers' `efc_Y = J M^-1/2` and `efc_AR = Y Y' + diag(R)`, dense
//! here and sparse in [`project_sparse`](super::project_sparse), as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D11), placed with [`Arena`] where MuJoCo would put them.
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps the library's
// operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::reference::dot;

pub use super::arena::{Arena, StackOverflow};

/// The inertia factor's pattern and values the projection reads (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Factor<'a> {
    /// Non-zeros of each row of `M` (`nv`).
    pub m_rownnz: &'a [i32],
    /// Start of each row (`nv`).
    pub m_rowadr: &'a [i32],
    /// Column of each non-zero (`nC`).
    pub m_colind: &'a [i32],
    /// `L'DL` factor of `M`, `D` on the diagonal (`nC`).
    pub qld: &'a [f64],
    /// Consecutive simple dofs starting at each dof (`nv`).
    pub dof_simplenum: &'a [i32],
}

impl Factor<'_> {
    /// Number of dofs.
    pub fn nv(&self) -> usize {
        self.m_rownnz.len()
    }

    /// Range of dof `i`'s off-diagonal entries in its row.
    fn off_diagonal(&self, i: usize) -> std::ops::Range<usize> {
        let adr = self.m_rowadr[i] as usize;
        adr..(adr + self.m_rownnz[i] as usize).saturating_sub(1).max(adr)
    }
}

/// `sqrt_inv_d[i] = 1 / sqrt(D[i])`, the diagonal of `D^-1/2` (`nv`).
pub fn sqrt_inv_d(f: &Factor, sqrt_inv_d: &mut [f64]) {
    for i in 0..f.nv() {
        let diag = f.m_rowadr[i] as usize + f.m_rownnz[i] as usize - 1;
        sqrt_inv_d[i] = 1.0 / f.qld[diag].sqrt();
    }
}

/// Dense `Y = J L^-1 D^-1/2` (`nefc x nv`, row-major, `J` likewise): `Y = J`, then the dofs from the
/// last to the second, skipping simple dofs, each row's entry subtracted along the dof's factor row,
/// then column `i` scaled by `sqrt_inv_d[i]` (`mj_makeYNumeric`, dense).
pub fn y_dense(f: &Factor, j: &[f64], sqrt_inv_d: &[f64], y: &mut [f64]) {
    let nv = f.nv();
    let n = y.len();
    y.copy_from_slice(&j[..n]);
    if nv == 0 || n == 0 {
        return;
    }
    if nv >= 2 {
        for i in (1..nv).rev() {
            if f.dof_simplenum[i] != 0 {
                continue;
            }
            let off = f.off_diagonal(i);
            if off.is_empty() {
                continue;
            }
            for row in y.chunks_exact_mut(nv) {
                let x = row[i];
                if x == 0.0 {
                    continue;
                }
                for k in off.clone() {
                    let c = f.m_colind[k] as usize;
                    row[c] = row[c] - x * f.qld[k];
                }
            }
        }
    }
    for row in y.chunks_exact_mut(nv) {
        for (v, &s) in row.iter_mut().zip(sqrt_inv_d) {
            *v = s * *v;
        }
    }
}

/// `diag_a[r] = |Y_r|^2` in `mju_dot`'s order, for rows of `nv` entries (`mjENBL_DIAGEXACT`).
pub fn exact_diagonal_dense(y: &[f64], nv: usize, diag_a: &mut [f64]) {
    for (r, out) in diag_a.iter_mut().enumerate() {
        let row = &y[r * nv..(r + 1) * nv];
        *out = dot(row, row);
    }
}

/// Dense `AR = Y Y' + diag(R)` (`nefc x nefc`): `YT = Y'` in `yt` (`nv x nefc`), then 4.0.0's
/// `mju_sqrMatTD_impl`: per dof, per row `j` with a non-zero entry `v`, `AR[j,k] += v YT[i,k]` for
/// `k <= j`, the upper triangle copied from the lower; then `R` added to the diagonal.
pub fn ar_dense(y: &[f64], nv: usize, efc_r: &[f64], yt: &mut [f64], ar: &mut [f64]) {
    let nefc = efc_r.len();
    if nefc > 0 && nv > 0 {
        for i in 0..nefc {
            for j in 0..nv {
                yt[j * nefc + i] = y[i * nv + j];
            }
        }
    }
    ar.fill(0.0);
    for i in 0..nv {
        let row = &yt[i * nefc..(i + 1) * nefc];
        for j in 0..nefc {
            let v = row[j];
            if v == 0.0 {
                continue;
            }
            // the library scales by a unit diagonal first
            let s = 1.0 * v;
            let out = &mut ar[j * nefc..j * nefc + j + 1];
            for (a, &b) in out.iter_mut().zip(row) {
                *a = s * b + *a;
            }
        }
    }
    for i in 0..nefc {
        for j in i + 1..nefc {
            ar[i * nefc + j] = ar[j * nefc + i];
        }
    }
    for r in 0..nefc {
        let k = r * (nefc + 1);
        ar[k] = efc_r[r] + ar[k];
    }
}
