//! `mj_fwdConstraint`'s Newton and CG path without islands (`mjDSBL_ISLAND`, `docs/measurements.md`
//! D69): one `mj_solPrimal` call with island `-1`, over every dof and every row, on the global
//! arrays (no gathers, no island copies). Its arithmetic is the island path's for one island that
//! holds every dof and row in their own order, so [`solve_monolithic`] runs [`solve`] on such an
//! island and then takes what the library does differently: the rows' final states land in
//! `efc_state` itself, and the context frame (and the sparse Hessian's frames on it, D84) has
//! no island blocks.

use super::frame::{solve, FrameInput, FrameModel, FrameOutput, FrameScratch, Islands, NeedsIterations};
use crate::dynamics::reference::Jacobian;

/// The one island's maps and sizes (reused from call to call).
#[derive(Clone, Debug, Default)]
pub struct MonolithicScratch {
    /// `0 .. nv` (the dof map) and `0 .. nefc` (both row maps).
    dofs: Vec<i32>,
    rows: Vec<i32>,
    /// `island_nv`, `island_idofadr`, `island_ne`, `island_nf`, `island_nefc`, `island_iefcadr`.
    sizes: [[i32; 1]; 6],
}

/// The call without islands, into `out` (`out.iefc_*` and `out.i*` are work copies the caller
/// does not write to MuJoCo); `Err` as [`solve`]'s.
pub fn solve_monolithic(
    m: &FrameModel,
    inp: &FrameInput,
    s: &mut FrameScratch,
    ms: &mut MonolithicScratch,
    out: &mut FrameOutput,
) -> Result<(), NeedsIterations> {
    let (nv, nefc) = (inp.qacc_smooth.len(), inp.aref.len());
    for (v, n) in [(&mut ms.dofs, nv), (&mut ms.rows, nefc)] {
        if v.len() != n {
            v.clear();
            v.extend(0..n as i32);
        }
    }
    ms.sizes = [[nv as i32], [0], [inp.rows.ne as i32], [inp.rows.nf as i32], [nefc as i32], [0]];
    let [isl_nv, idofadr, ne, nf, isl_nefc, iefcadr] = &ms.sizes;
    let islands = Islands {
        nidof: nv,
        nv: isl_nv,
        idofadr,
        ne,
        nf,
        nefc: isl_nefc,
        iefcadr,
        idof2dof: &ms.dofs,
        iefc2efc: &ms.rows,
        efc2iefc: &ms.rows,
        rows: inp.rows,
    };
    let one = FrameInput { islands, ..*inp };
    solve(m, &one, s, out)?;
    // the solver works on efc_state itself: its final states, not the warm start's
    out.efc_state.copy_from_slice(&out.iefc_state);
    // the context without the island's blocks of M, qLD, qLDiagInv and J and their patterns
    let nc: usize = m.m_rownnz.iter().map(|&n| n.max(0) as usize).sum();
    let sparse = matches!(inp.j, Jacobian::Sparse { .. });
    let nj = match inp.j {
        Jacobian::Dense { .. } => nefc * nv,
        Jacobian::Sparse { rownnz, .. } => rownnz.iter().map(|&n| n.max(0) as usize).sum(),
    };
    let (dbl, int) = (
        8 * (2 * nc + nv + if sparse { nj } else { nefc * nv }),
        4 * (2 * nv + nc + if sparse { 3 * nefc + nj } else { 0 }),
    );
    if let Some(frame) = out.frames.last_mut() {
        frame[0].0 -= dbl;
        frame[1].0 -= int;
    }
    // the sparse Hessian's frames sit on the same context (D84)
    for frame in out.peaks.iter_mut().chain(&mut out.stack_tests) {
        frame[0].0 -= dbl;
        frame[1].0 -= int;
    }
    Ok(())
}
