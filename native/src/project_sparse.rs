//! `mj_projectConstraint` on a sparse Jacobian for PGS: `efc_Y = J L^-1 D^-1/2` and
//! `efc_AR = Y Y' + diag(R)` in compressed rows, on the engine's sparse projection (the phases
//! 4.0.0 runs: the `Y` counts, its numeric rows, `Y'`, the `AR` pattern, its diagonal
//! positions, its values). Every array is owned here and reused from step to step.

use specula_engine::dynamics::project::{self, Factor};
use specula_engine::dynamics::project_sparse::{self as sparse, Pattern};
use specula_engine::dynamics::reference::Jacobian;

use crate::constraint::sized;

/// The sparse `efc_Y`, its transpose and the sparse `efc_AR`, with their work arrays.
#[derive(Clone, Debug, Default)]
pub struct SparseProjection {
    /// `efc_Y` row counts, starts, columns and values.
    y_rownnz: Vec<i32>,
    /// See `y_rownnz`.
    y_rowadr: Vec<i32>,
    /// See `y_rownnz`.
    y_colind: Vec<i32>,
    /// See `y_rownnz`.
    y: Vec<f64>,
    /// `Y'` row counts, starts, columns and values.
    yt_rownnz: Vec<i32>,
    /// See `yt_rownnz`.
    yt_rowadr: Vec<i32>,
    /// See `yt_rownnz`.
    yt_colind: Vec<i32>,
    /// See `yt_rownnz`.
    yt: Vec<f64>,
    /// `efc_AR` row counts, starts, columns and values.
    ar_rownnz: Vec<i32>,
    /// See `ar_rownnz`.
    ar_rowadr: Vec<i32>,
    /// See `ar_rownnz`.
    ar_colind: Vec<i32>,
    /// See `ar_rownnz`.
    ar: Vec<f64>,
    /// Per-dof marker (`y_precount`), per-row marker (`ar_symbolic`), diagonal positions,
    /// `sqrt(1 / D)`, the row buffer and the upper-triangle cursor of `ar_numeric`.
    marker: Vec<i32>,
    /// See `marker`.
    mark: Vec<i32>,
    /// See `marker`.
    diagind: Vec<i32>,
    /// See `marker`.
    sqrt_inv_d: Vec<f64>,
    /// See `marker`.
    buffer: Vec<f64>,
    /// See `marker`.
    upper: Vec<i32>,
}

impl SparseProjection {
    /// Computes `efc_Y` and `efc_AR` from the sparse Jacobian `jp`/`jv` (`nefc` rows), the
    /// factor `f` of `M` (`nv` dofs) and the rows' regularisers `efc_r`.
    pub fn compute(&mut self, jp: &Pattern, jv: &[f64], f: &Factor, nv: usize, efc_r: &[f64]) {
        let nefc = efc_r.len();
        let s = self;
        let ny = sparse::y_precount(
            jp,
            f,
            sized(&mut s.marker, nv),
            sized(&mut s.y_rownnz, nefc),
            sized(&mut s.y_rowadr, nefc),
        )
        .max(0) as usize;
        project::sqrt_inv_d(f, sized(&mut s.sqrt_inv_d, nv));
        sparse::y_numeric(
            jp,
            jv,
            f,
            &s.sqrt_inv_d,
            &s.y_rownnz,
            &s.y_rowadr,
            sized(&mut s.y_colind, ny),
            sized(&mut s.y, ny),
            None,
        );
        let yp = Pattern { rownnz: &s.y_rownnz, rowadr: &s.y_rowadr, colind: &s.y_colind };
        sparse::transpose(
            &yp,
            Some(&s.y),
            sized(&mut s.yt_rownnz, nv),
            sized(&mut s.yt_rowadr, nv),
            sized(&mut s.yt_colind, ny),
            Some(sized(&mut s.yt, ny)),
        );
        let ytp = Pattern { rownnz: &s.yt_rownnz, rowadr: &s.yt_rowadr, colind: &s.yt_colind };
        let na = sparse::ar_symbolic(
            &yp,
            &ytp,
            sized(&mut s.mark, nefc),
            sized(&mut s.ar_rownnz, nefc),
            sized(&mut s.ar_rowadr, nefc),
            &mut s.ar_colind,
        )
        .max(0) as usize;
        let arp = Pattern { rownnz: &s.ar_rownnz, rowadr: &s.ar_rowadr, colind: &s.ar_colind[..na] };
        sparse::ar_diagonal_index(&arp, sized(&mut s.diagind, nefc));
        sized(&mut s.buffer, nefc).fill(0.0);
        sparse::ar_numeric(
            &yp,
            &s.y,
            &ytp,
            &s.yt,
            &arp,
            &s.diagind,
            efc_r,
            &mut s.buffer,
            sized(&mut s.upper, nefc),
            sized(&mut s.ar, na),
        );
    }

    /// The last [`compute`](Self::compute)'s `efc_AR`, as the solvers read it.
    pub fn ar(&self) -> Jacobian<'_> {
        let na = self.ar.len();
        Jacobian::Sparse {
            rownnz: &self.ar_rownnz,
            rowadr: &self.ar_rowadr,
            rowsuper: &[],
            colind: &self.ar_colind[..na],
            j: &self.ar,
        }
    }
}
