//! The constraint rows `mj_makeConstraint` appends to MuJoCo's `efc_*` arrays: one appender
//! shared by the friction, limit and contact rows, dense or sparse (`docs/measurements.md` D10).

/// MuJoCo's `mjtConstraint` values.
pub mod cnstr {
    /// `mjCNSTR_EQUALITY`.
    pub const EQUALITY: i32 = 0;
    /// `mjCNSTR_FRICTION_DOF`.
    pub const FRICTION_DOF: i32 = 1;
    /// `mjCNSTR_FRICTION_TENDON`.
    pub const FRICTION_TENDON: i32 = 2;
    /// `mjCNSTR_LIMIT_JOINT`.
    pub const LIMIT_JOINT: i32 = 3;
    /// `mjCNSTR_LIMIT_TENDON`.
    pub const LIMIT_TENDON: i32 = 4;
    /// `mjCNSTR_CONTACT_FRICTIONLESS`.
    pub const CONTACT_FRICTIONLESS: i32 = 5;
    /// `mjCNSTR_CONTACT_PYRAMIDAL`.
    pub const CONTACT_PYRAMIDAL: i32 = 6;
    /// `mjCNSTR_CONTACT_ELLIPTIC`.
    pub const CONTACT_ELLIPTIC: i32 = 7;
}

/// The `efc_*` arrays the rows are written to (sized for the counted rows: `nefc` entries each,
/// `nJ` for the Jacobian), and the counts so far.
#[derive(Debug)]
pub struct EfcRows<'a> {
    /// Jacobian stored sparse (row-compressed) rather than dense (`nefc x nv`).
    pub sparse: bool,
    /// Number of degrees of freedom.
    pub nv: usize,
    /// Rows written so far.
    pub nefc: usize,
    /// Equality rows so far.
    pub ne: usize,
    /// Friction-loss rows so far.
    pub nf: usize,
    /// Limit rows so far.
    pub nl: usize,
    /// Constraint type of each row.
    pub efc_type: &'a mut [i32],
    /// Id of the joint, dof, tendon or contact of each row.
    pub efc_id: &'a mut [i32],
    /// Non-zeros of each sparse row.
    pub efc_j_rownnz: &'a mut [i32],
    /// Start of each sparse row.
    pub efc_j_rowadr: &'a mut [i32],
    /// 1 where the next row has the same sparsity pattern (summed into supernode sizes later).
    pub efc_j_rowsuper: &'a mut [i32],
    /// Column of each sparse non-zero (`nJ`).
    pub efc_j_colind: &'a mut [i32],
    /// Jacobian values (`nJ`: dense `nefc x nv`, or the sparse non-zeros).
    pub efc_j: &'a mut [f64],
    /// Distance of each row (negative: violated).
    pub efc_pos: &'a mut [f64],
    /// Margin of each row.
    pub efc_margin: &'a mut [f64],
    /// Friction loss of each row.
    pub efc_frictionloss: &'a mut [f64],
}

/// One constraint of `size` rows to append: its Jacobian rows (`size x nv` dense, `size x
/// chain.len()` sparse), positions and margins (zero where absent).
#[derive(Clone, Copy, Debug)]
pub struct Rows<'j> {
    /// Jacobian rows, row-major.
    pub jac: &'j [f64],
    /// Position of each row, `None` for zeros.
    pub pos: Option<&'j [f64]>,
    /// Margin of each row, `None` for zeros.
    pub margin: Option<&'j [f64]>,
    /// Friction loss, the same for every row.
    pub frictionloss: f64,
    /// Number of rows.
    pub size: usize,
    /// `mjtConstraint` type.
    pub ty: i32,
    /// Object id.
    pub id: i32,
    /// Dofs of the sparse rows, in increasing order (ignored when dense).
    pub chain: &'j [i32],
}

fn is_contact(ty: i32) -> bool {
    matches!(ty, cnstr::CONTACT_FRICTIONLESS | cnstr::CONTACT_PYRAMIDAL | cnstr::CONTACT_ELLIPTIC)
}

impl EfcRows<'_> {
    /// Appends one constraint as MuJoCo's `mj_addConstraint` does: a non-contact constraint
    /// whose Jacobian is all zeros (dense) or has no dofs (sparse) adds no row; in sparse mode
    /// its row structure is still written when the chain is empty for a contact. The
    /// supernode flags of the new rows and the row before are set too (4.0.0 leaves them to
    /// `mju_superSparse` at the end, [`super::super_sparse`], which recomputes the same flags
    /// from the patterns before summing them).
    pub fn add(&mut self, r: Rows<'_>) {
        let nefc = self.nefc;
        let size = r.size;
        let mut empty = !is_contact(r.ty);
        if !self.sparse {
            let nv = self.nv;
            if empty {
                empty = r.jac[..size * nv].iter().all(|&v| v == 0.0);
            }
            if !empty {
                self.efc_j[nefc * nv..(nefc + size) * nv].copy_from_slice(&r.jac[..size * nv]);
            }
        } else {
            let nnz = r.chain.len();
            if nnz > 0 {
                empty = false;
            } else if empty {
                return;
            }
            for i in 0..size {
                let row = nefc + i;
                let adr = if row > 0 { self.efc_j_rowadr[row - 1] + self.efc_j_rownnz[row - 1] } else { 0 };
                self.efc_j_rowadr[row] = adr;
                self.efc_j_rownnz[row] = nnz as i32;
                if nnz > 0 {
                    let a = adr as usize;
                    self.efc_j_colind[a..a + nnz].copy_from_slice(r.chain);
                    self.efc_j[a..a + nnz].copy_from_slice(&r.jac[i * nnz..(i + 1) * nnz]);
                }
            }
            // the previous row continues this constraint's supernode when the patterns agree
            if nefc > 0 && nnz as i32 == self.efc_j_rownnz[nefc - 1] {
                let (a, b) = (self.efc_j_rowadr[nefc] as usize, self.efc_j_rowadr[nefc - 1] as usize);
                if nnz == 0 || self.efc_j_colind[a..a + nnz] == self.efc_j_colind[b..b + nnz] {
                    self.efc_j_rowsuper[nefc - 1] = 1;
                }
            }
            for flag in &mut self.efc_j_rowsuper[nefc..nefc + size - 1] {
                *flag = 1;
            }
            self.efc_j_rowsuper[nefc + size - 1] = 0;
        }
        if empty {
            return;
        }
        for i in 0..size {
            self.efc_pos[nefc + i] = r.pos.map_or(0.0, |p| p[i]);
            self.efc_margin[nefc + i] = r.margin.map_or(0.0, |m| m[i]);
            self.efc_frictionloss[nefc + i] = r.frictionloss;
            self.efc_type[nefc + i] = r.ty;
            self.efc_id[nefc + i] = r.id;
        }
        self.nefc += size;
        match r.ty {
            cnstr::EQUALITY => self.ne += size,
            cnstr::FRICTION_DOF | cnstr::FRICTION_TENDON => self.nf += size,
            cnstr::LIMIT_JOINT | cnstr::LIMIT_TENDON => self.nl += size,
            _ => {}
        }
    }
}

/// The rows [`EfcRows::add`] would add for a constraint of `size` rows over `nnz` dofs, as
/// MuJoCo's counting pass allots them (dense: every constraint, if the model has dofs).
pub fn count_rows(sparse: bool, nv: usize, size: usize, nnz: usize) -> usize {
    if (!sparse && nv > 0) || (sparse && nnz > 0) {
        size
    } else {
        0
    }
}
