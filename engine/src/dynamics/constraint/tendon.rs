//! The tendon friction-loss and tendon-limit rows of `mj_makeConstraint`, counted and appended
//! as MuJoCo 4.0.0's `mj_instantiateFriction` and `mj_instantiateLimit` do after the dof and
//! joint rows (`docs/measurements.md` D46): one row per frictional tendon, one per active side
//! of a limited tendon, the tendon's Jacobian row (negated at the upper side) over its stored
//! sparsity pattern, and `tendon_efcadr`, each tendon's first row.

use super::limits::RowCount;
use super::{cnstr, count_rows, EfcRows, Rows};

/// The model arrays the tendon rows read (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct TendonRowModel<'a> {
    /// Number of degrees of freedom.
    pub nv: usize,
    /// `opt.disableflags` has `mjDSBL_FRICTIONLOSS`.
    pub disable_frictionloss: bool,
    /// `opt.disableflags` has `mjDSBL_LIMIT`.
    pub disable_limit: bool,
    /// Whether each tendon is limited, as `mjtByte` (`ntendon`).
    pub tendon_limited: &'a [u8],
    /// Friction loss of each tendon (`ntendon`).
    pub tendon_frictionloss: &'a [f64],
    /// Length range of each tendon (`2 ntendon`).
    pub tendon_range: &'a [f64],
    /// Limit margin of each tendon (`ntendon`).
    pub tendon_margin: &'a [f64],
    /// Non-zeros of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rownnz: &'a [i32],
    /// Start of each tendon's Jacobian row (`ntendon`).
    pub ten_j_rowadr: &'a [i32],
    /// Dof of each Jacobian non-zero (`nJten`).
    pub ten_j_colind: &'a [i32],
}

/// The tendon state the rows read: `mj_tendon`'s outputs.
#[derive(Clone, Copy, Debug)]
pub struct TendonRowState<'a> {
    /// Length of each tendon (`ntendon`).
    pub ten_length: &'a [f64],
    /// Jacobian non-zeros (`nJten`).
    pub ten_j: &'a [f64],
}

impl TendonRowModel<'_> {
    /// Tendon `i`'s row pattern: (start, non-zeros).
    fn row(&self, i: usize) -> (usize, usize) {
        (self.ten_j_rowadr[i] as usize, self.ten_j_rownnz[i] as usize)
    }

    /// Frictional tendons: a coefficient above zero (NaN and negatives have no row).
    fn frictional(&self) -> impl Iterator<Item = usize> + '_ {
        let on = !self.disable_frictionloss;
        (0..self.tendon_frictionloss.len()).filter(move |&i| on && self.tendon_frictionloss[i] > 0.0)
    }

    /// Calls `f(tendon, side, dist, margin)` per active limit side: tendons in order, the lower
    /// side (-1) before the upper (+1); active when the distance is below the margin.
    fn active_limits(&self, ten_length: &[f64], mut f: impl FnMut(usize, f64, f64, f64)) {
        if self.disable_limit {
            return;
        }
        for i in (0..self.tendon_limited.len()).filter(|&i| self.tendon_limited[i] != 0) {
            let (value, margin) = (ten_length[i], self.tendon_margin[i]);
            for (side, k) in [(-1.0, 0), (1.0, 1)] {
                let dist = side * (self.tendon_range[2 * i + k] - value);
                if dist < margin {
                    f(i, side, dist, margin);
                }
            }
        }
    }
}

/// The tendon friction-loss rows (after the dof rows).
pub fn count_friction(m: &TendonRowModel, sparse: bool) -> RowCount {
    let mut n = RowCount::default();
    for i in m.frictional() {
        let nnz = m.row(i).1;
        n.rows += count_rows(sparse, m.nv, 1, nnz);
        n.nnz += nnz;
    }
    n
}

/// The tendon-limit rows (after the joint rows).
pub fn count_limits(m: &TendonRowModel, st: &TendonRowState, sparse: bool) -> RowCount {
    let mut n = RowCount::default();
    m.active_limits(st.ten_length, |i, _, _, _| {
        let nnz = m.row(i).1;
        n.rows += count_rows(sparse, m.nv, 1, nnz);
        n.nnz += nnz;
    });
    n
}

/// Spreads tendon `i`'s sparse row into `jac[..nv]` (`mju_sparse2dense`).
fn dense_row(m: &TendonRowModel, st: &TendonRowState, i: usize, jac: &mut [f64]) {
    let (adr, nnz) = m.row(i);
    jac[..m.nv].fill(0.0);
    for k in adr..adr + nnz {
        jac[m.ten_j_colind[k] as usize] = st.ten_j[k];
    }
}

/// Sets `efcadr[i]` to `at` unless it was set already or the constraint added no row (an
/// all-zero Jacobian: 4.0.0 leaves -1 then, measured, D46).
fn first_row(efcadr: &mut [i32], i: usize, at: usize, nefc: usize) {
    if efcadr[i] == -1 && nefc > at {
        efcadr[i] = at as i32;
    }
}

/// Appends the tendon friction-loss rows and sets their tendons' `tendon_efcadr` (`jac`:
/// scratch of `nv` entries; `efcadr` was filled with -1 by the caller).
pub fn instantiate_friction(
    m: &TendonRowModel,
    st: &TendonRowState,
    rows: &mut EfcRows,
    jac: &mut [f64],
    efcadr: &mut [i32],
) {
    for i in m.frictional() {
        let at = rows.nefc;
        let (adr, nnz) = m.row(i);
        let (jac, chain): (&[f64], &[i32]) = if rows.sparse {
            (&st.ten_j[adr..adr + nnz], &m.ten_j_colind[adr..adr + nnz])
        } else {
            dense_row(m, st, i, jac);
            (&jac[..m.nv], &[])
        };
        let ty = cnstr::FRICTION_TENDON;
        let frictionloss = m.tendon_frictionloss[i];
        rows.add(Rows { jac, pos: None, margin: None, frictionloss, size: 1, ty, id: i as i32, chain });
        first_row(efcadr, i, at, rows.nefc);
    }
}

/// Appends the tendon-limit rows with their distances and margins, the Jacobian row scaled by
/// `-side` (`mju_scl`: zeros of a dense upper row become -0), and sets `tendon_efcadr`.
pub fn instantiate_limits(
    m: &TendonRowModel,
    st: &TendonRowState,
    rows: &mut EfcRows,
    jac: &mut [f64],
    efcadr: &mut [i32],
) {
    m.active_limits(st.ten_length, |i, side, dist, margin| {
        let at = rows.nefc;
        let (adr, nnz) = m.row(i);
        let (jac, chain): (&[f64], &[i32]) = if rows.sparse {
            for (d, s) in jac[..nnz].iter_mut().zip(&st.ten_j[adr..adr + nnz]) {
                *d = s * -side;
            }
            (&jac[..nnz], &m.ten_j_colind[adr..adr + nnz])
        } else {
            dense_row(m, st, i, jac);
            for v in &mut jac[..m.nv] {
                *v *= -side;
            }
            (&jac[..m.nv], &[])
        };
        let (pos, mar) = ([dist], [margin]);
        let ty = cnstr::LIMIT_TENDON;
        rows.add(Rows {
            jac,
            pos: Some(&pos),
            margin: Some(&mar),
            frictionloss: 0.0,
            size: 1,
            ty,
            id: i as i32,
            chain,
        });
        first_row(efcadr, i, at, rows.nefc);
    });
}
