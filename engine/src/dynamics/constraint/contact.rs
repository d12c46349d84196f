//! The contact rows of `mj_makeConstraint` (frictionless, pyramidal and elliptic) for contacts
//! between two geoms, from the Jacobian difference of the two bodies at the contact point
//! rotated into the contact frame, as MuJoCo 4.0.0's `mj_instantiateContact` and the contact
//! part of its counting pass build them (`docs/measurements.md` D10). Flex contacts are the
//! library's: the caller keeps those models away.

use super::jacobian::{self, JacModel, JacState, PairBuffers};
use super::{cnstr, Contact, EfcRows, Rows};

/// The model arrays the contact rows read (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactModel<'a> {
    /// `opt.disableflags` has `mjDSBL_CONTACT`.
    pub disable_contact: bool,
    /// Body of each geom (`ngeom`).
    pub geom_bodyid: &'a [i32],
    /// Tree of each body, -1 for a static body (`nbody`).
    pub body_treeid: &'a [i32],
    /// The bodies' dof structure the Jacobians walk.
    pub jac: JacModel<'a>,
}

/// The data arrays the contact rows read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactState<'a> {
    /// `cdof` and `subtree_com`.
    pub jac: JacState<'a>,
}

/// Buffers reused from call to call (sized on first use and when `nv` grows).
#[derive(Debug, Default)]
pub struct ContactScratch {
    /// The contact's rows in the contact frame (`6 nv`).
    jac: Vec<f64>,
    /// The pair's Jacobians and differences (`3 nv` each); `jacdifp` also takes the pyramid
    /// edge pairs, as in the library.
    pair: PairBuffers,
    /// The merged dof chain (`nv`).
    chain: Vec<i32>,
}

impl ContactScratch {
    fn resize(&mut self, nv: usize) {
        self.jac.resize(6 * nv, 0.0);
        self.pair.resize(nv);
        self.chain.resize(nv, 0);
    }
}

/// The body a geom side of a contact moves with.
fn side_body(m: &ContactModel, geom: i32) -> usize {
    m.geom_bodyid[geom as usize] as usize
}

/// The weld body the library compares to skip contacts within one rigid assembly (0 for a
/// static body).
fn weld(m: &ContactModel, body: usize) -> i32 {
    if m.body_treeid[body] < 0 {
        0
    } else {
        m.jac.body_weldid[body]
    }
}

/// The two bodies of a geom-geom contact, `None` when both are welded together (no relative
/// motion: the library gives the contact no columns without building its Jacobian).
fn bodies(m: &ContactModel, con: &Contact) -> Option<(usize, usize)> {
    pair_bodies(m, con.geom)
}

/// The bodies of two geoms in contact, `None` when both are welded together (as [`bodies`]).
pub(crate) fn pair_bodies(m: &ContactModel, geom: [i32; 2]) -> Option<(usize, usize)> {
    let (b1, b2) = (side_body(m, geom[0]), side_body(m, geom[1]));
    if weld(m, b1) == weld(m, b2) {
        return None;
    }
    Some((b1, b2))
}

/// The rows a contact of dimension `dim` takes.
fn contact_rows(dim: usize, pyramidal: bool) -> usize {
    if dim == 1 {
        1
    } else if pyramidal {
        2 * (dim - 1)
    } else {
        dim
    }
}

/// The rows and sparse Jacobian non-zeros the contacts take in `mj_makeConstraint`'s counting
/// pass (the non-zeros are 0 when dense: the library then sizes the Jacobian `nefc x nv`, and
/// counts every included contact, even one that will turn out to have no dofs).
pub fn count(
    m: &ContactModel,
    contacts: &[Contact],
    sparse: bool,
    pyramidal: bool,
    scratch: &mut ContactScratch,
) -> (usize, usize) {
    if m.disable_contact || contacts.is_empty() {
        return (0, 0);
    }
    scratch.resize(m.jac.nv);
    let (mut nc, mut nnz) = (0, 0);
    for con in contacts.iter().filter(|c| c.exclude == 0) {
        let mut nn = 0;
        if sparse {
            let Some((b1, b2)) = bodies(m, con) else { continue };
            nn = jacobian::pair_columns(&m.jac, &mut scratch.chain, b1, b2, true);
            if nn == 0 {
                continue;
            }
        }
        let rows = contact_rows(con.dim as usize, pyramidal);
        nc += rows;
        nnz += rows * nn;
    }
    (nc, if sparse { nnz } else { 0 })
}

/// Appends the rows of every included contact to `rows` (MuJoCo's `mj_instantiateContact`):
/// sets each one's `efc_address`, and marks a contact whose bodies share all their dofs
/// `exclude` = 3 with `efc_address` = -1.
pub fn instantiate(
    m: &ContactModel,
    st: &ContactState,
    contacts: &mut [Contact],
    sparse: bool,
    pyramidal: bool,
    rows: &mut EfcRows,
    scratch: &mut ContactScratch,
) {
    let nv = m.jac.nv;
    if m.disable_contact || contacts.is_empty() || nv == 0 {
        return;
    }
    scratch.resize(nv);
    let ContactScratch { jac, pair, chain } = scratch;
    for (i, con) in contacts.iter_mut().enumerate() {
        if con.exclude != 0 {
            continue;
        }
        let dim = con.dim as usize;
        con.efc_address = rows.nefc as i32;
        let nn = match bodies(m, con) {
            Some((b1, b2)) => {
                let nn = jacobian::pair_columns(&m.jac, chain, b1, b2, sparse);
                if nn > 0 {
                    jacobian::dif_pair(&m.jac, &st.jac, chain, nn, b1, b2, &con.pos, &con.pos, pair, dim > 3, sparse);
                }
                nn
            }
            None => 0,
        };
        if nn == 0 {
            con.efc_address = -1;
            con.exclude = 3;
            continue;
        }
        // the normal (and tangents) from the translation, spin and rolling from the rotation
        jacobian::mul_mat_mat(jac, &con.frame, &pair.jacdifp, if dim > 1 { 3 } else { 1 }, 3, nn);
        if dim > 3 {
            jacobian::mul_mat_mat(&mut jac[3 * nn..], &con.frame, &pair.jacdifr, dim - 3, 3, nn);
        }
        let chain = if sparse { &chain[..nn] } else { &[][..] };
        let id = i as i32;
        if dim == 1 {
            let (pos, margin) = ([con.dist], [con.includemargin]);
            rows.add(Rows {
                jac: &jac[..nn],
                pos: Some(&pos),
                margin: Some(&margin),
                frictionloss: 0.0,
                size: 1,
                ty: cnstr::CONTACT_FRICTIONLESS,
                id,
                chain,
            });
        } else if pyramidal {
            let (pos, margin) = ([con.dist; 2], [con.includemargin; 2]);
            for k in 1..dim {
                // the pair of opposing edges along friction direction k
                let mu = con.friction[k - 1];
                let (normal, rest) = jac.split_at(nn);
                let dir = &rest[(k - 1) * nn..k * nn];
                let (plus, minus) = pair.jacdifp[..2 * nn].split_at_mut(nn);
                for j in 0..nn {
                    plus[j] = normal[j] + mu * dir[j];
                    minus[j] = normal[j] + -mu * dir[j];
                }
                rows.add(Rows {
                    jac: &pair.jacdifp[..2 * nn],
                    pos: Some(&pos),
                    margin: Some(&margin),
                    frictionloss: 0.0,
                    size: 2,
                    ty: cnstr::CONTACT_PYRAMIDAL,
                    id,
                    chain,
                });
            }
        } else {
            let (mut pos, mut margin) = ([0.0; 6], [0.0; 6]);
            pos[0] = con.dist;
            margin[0] = con.includemargin;
            rows.add(Rows {
                jac: &jac[..dim * nn],
                pos: Some(&pos[..dim]),
                margin: Some(&margin[..dim]),
                frictionloss: 0.0,
                size: dim,
                ty: cnstr::CONTACT_ELLIPTIC,
                id,
                chain,
            });
        }
    }
}
