//! Contact adhesion in MuJoCo 4.0.0's `mj_passive` (`docs/measurements.md` D76): each adhesive
//! contact pulls its two bodies together along its normal with its constant `adhesion` force,
//! into `qfrc_adhesion`.
//!
//! Algorithm (for `flg_adhesion == 1`, contacts on, `nv > 0` and some contact with
//! `adhesion != 0` (NaN counts) and `exclude <= 1`):
//! 1. Per such contact, the translation Jacobian difference of the two bodies at the contact
//!    point (`mj_contactJacobian` with one row: `mj_jacDifPair`, shared dofs skipped; nothing
//!    for bodies welded together or no columns).
//! 2. Its normal row, `frame[0..3]` times the difference (`mju_mulMatMat`, zero factors
//!    skipped).
//! 3. `qfrc_adhesion += row (-adhesion)`: dense, every dof; sparse, the product first, then
//!    added along the merged chain.

use super::constraint::contact::{pair_bodies, ContactModel};
use super::constraint::jacobian::{dif_pair, mul_mat_mat, pair_columns, JacState, PairBuffers};

/// The fields of one contact adhesion reads (`mjContact`'s names).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AdhesiveContact {
    /// Contact point.
    pub pos: [f64; 3],
    /// Contact frame, normal first (rows).
    pub frame: [f64; 9],
    /// The two geoms.
    pub geom: [i32; 2],
    /// Adhesive force along the normal.
    pub adhesion: f64,
    /// 0 include, 1 in the gap, 2 and above left out.
    pub exclude: i32,
}

/// Buffers reused from call to call (sized when `nv` grows).
#[derive(Clone, Debug, Default)]
pub struct AdhesionScratch {
    /// The normal row (`nv`).
    jac: Vec<f64>,
    /// The pair's Jacobians and difference (`3 nv` each).
    pair: PairBuffers,
    /// The merged dof chain (`nv`).
    chain: Vec<i32>,
}

/// The stack blocks (bytes, alignment) of the library's adhesion frame: the row, the
/// difference, both bodies' Jacobians, the scaled row, and the chain when sparse.
pub fn adhesion_stack(nv: usize, sparse: bool) -> [(usize, usize); 6] {
    [(8 * nv, 8), (24 * nv, 8), (24 * nv, 8), (24 * nv, 8), (8 * nv, 8), (if sparse { 4 * nv } else { 0 }, 4)]
}

/// Whether a contact pulls: `adhesion != 0` (NaN included) and `exclude <= 1`.
fn pulls(c: &AdhesiveContact) -> bool {
    c.adhesion != 0.0 && c.exclude <= 1
}

/// Whether `mj_passive` runs adhesion (and opens its stack frame) for these contacts.
pub fn adhesion_on(m: &ContactModel, flg_adhesion: u8, contacts: &[AdhesiveContact]) -> bool {
    flg_adhesion == 1 && !m.disable_contact && m.jac.nv > 0 && contacts.iter().any(pulls)
}

/// Adds the adhesive contacts' forces to `qfrc` (`nv`, zeroed); returns whether adhesion ran
/// ([`adhesion_on`]).
pub fn adhesion(
    m: &ContactModel,
    (flg_adhesion, sparse): (u8, bool),
    st: &JacState,
    contacts: &[AdhesiveContact],
    s: &mut AdhesionScratch,
    qfrc: &mut [f64],
) -> bool {
    if !adhesion_on(m, flg_adhesion, contacts) {
        return false;
    }
    let nv = m.jac.nv;
    s.jac.resize(nv, 0.0);
    s.pair.resize(nv);
    s.chain.resize(nv, 0);
    let AdhesionScratch { jac, pair, chain } = s;
    for c in contacts.iter().filter(|c| pulls(c)) {
        let Some((b1, b2)) = pair_bodies(m, c.geom) else { continue };
        let nn = pair_columns(&m.jac, chain, b1, b2, sparse);
        if nn == 0 {
            continue;
        }
        dif_pair(&m.jac, st, chain, nn, b1, b2, &c.pos, &c.pos, pair, false, sparse);
        mul_mat_mat(jac, &c.frame, &pair.jacdifp, 1, 3, nn);
        let f = -c.adhesion;
        if sparse {
            for (&col, &j) in chain[..nn].iter().zip(&jac[..nn]) {
                let q = &mut qfrc[col as usize];
                *q += j * f;
            }
        } else {
            for (q, &j) in qfrc[..nv].iter_mut().zip(&jac[..nv]) {
                *q += j * f;
            }
        }
    }
    true
}
