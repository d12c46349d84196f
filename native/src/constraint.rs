//! The constraint half of `mj_forward` on the native route: `mj_makeConstraint` (connect, weld
//! and joint equalities, dof friction loss, joint limits, contacts), `mj_island`, `mj_referenceConstraint` and `mj_fwdConstraint`,
//! each on the engine's stage code, over arrays [`Efc`] owns (MuJoCo's arena arrays, under its
//! names). `mj_projectConstraint` runs for PGS (dense or sparse) and noslip (dense) only: for Newton or CG without
//! noslip it does nothing (the exact diagonal is refused by [`crate::scope::check`]).
//!
//! A state the engine cannot finish yet is refused at the step with a typed
//! [`NativeError::Unsupported`] naming the missing piece (never a silent difference).

use specula_engine::dynamics::constraint::contact::{self as ccontact, ContactModel, ContactScratch, ContactState};
use specula_engine::dynamics::constraint::equality_jdot::jdotv;
use specula_engine::dynamics::constraint::impedance::{self, ImpedanceRows};
use specula_engine::dynamics::constraint::jacobian::JacState;
use specula_engine::dynamics::constraint::tendon::{self, TendonRowState};
use specula_engine::dynamics::constraint::{equality, limits, super_sparse, ConstraintModel, EfcRows};
use specula_engine::dynamics::island::{self, IslandOutput, IslandRows, IslandScratch};
use specula_engine::dynamics::island_scan::IslandJacobian;
use specula_engine::dynamics::project::{self, Factor};
use specula_engine::dynamics::project_sparse::Pattern;
use specula_engine::dynamics::reference::{reference_constraint_with, ContactRef, Jacobian, ReferenceInput};
use specula_engine::dynamics::solver::frame::{
    solve, FrameInput, FrameModel, FrameOutput, FrameScratch, Islands, Primal,
};
use specula_engine::dynamics::solver::monolithic::{solve_monolithic, MonolithicScratch};
use specula_engine::dynamics::solver::noslip::{dual_finish, noslip, NoslipModel, NoslipParts, NoslipScratch};
use specula_engine::dynamics::solver::pgs::{self, solve_pgs, PgsModel, PgsOutput, PgsScratch};
use specula_engine::dynamics::solver::update::{Cone, Rows};

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::{NativeError, DSBL_CONSTRAINT, DSBL_CONTACT, DSBL_ISLAND, DSBL_WARMSTART, ENBL_DIAGEXACT};

/// `mjCONE_PYRAMIDAL`.
const CONE_PYRAMIDAL: i32 = 0;

/// The constraint rows of one state and everything the constraint stages write, in MuJoCo's
/// names (`nefc` rows; the Jacobian dense `nefc x nv` or sparse with `nJ` non-zeros).
#[derive(Debug, Default)]
pub struct Efc {
    /// Equality rows.
    pub ne: usize,
    /// Friction-loss rows.
    pub nf: usize,
    /// Limit rows.
    pub nl: usize,
    /// All rows.
    pub nefc: usize,
    /// Jacobian entries.
    pub nj: usize,
    /// Constraint type of each row (`mjtConstraint`).
    pub efc_type: Vec<i32>,
    /// Object of each row: dof, joint or contact.
    pub efc_id: Vec<i32>,
    /// Sparse row sizes.
    pub efc_j_rownnz: Vec<i32>,
    /// Sparse row starts.
    pub efc_j_rowadr: Vec<i32>,
    /// Rows after each one sharing its pattern.
    pub efc_j_rowsuper: Vec<i32>,
    /// Sparse column indices.
    pub efc_j_colind: Vec<i32>,
    /// The Jacobian.
    pub efc_j: Vec<f64>,
    /// Constraint violation of each row.
    pub efc_pos: Vec<f64>,
    /// Inclusion margin of each row.
    pub efc_margin: Vec<f64>,
    /// Friction loss of each row.
    pub efc_frictionloss: Vec<f64>,
    /// Approximate diagonal of `A = J M^-1 J'`.
    pub efc_diag_a: Vec<f64>,
    /// Stiffness, damping, impedance and its derivative (4 per row).
    pub efc_kbip: Vec<f64>,
    /// Constraint mass.
    pub efc_d: Vec<f64>,
    /// Regulariser.
    pub efc_r: Vec<f64>,
    /// Constraint velocity `J qvel`.
    pub efc_vel: Vec<f64>,
    /// Reference acceleration.
    pub efc_aref: Vec<f64>,
    /// Islands (0: no rows).
    pub nisland: usize,
    /// Dofs in some island.
    pub nidof: usize,
    /// Island of each tree.
    pub tree_island: Vec<i32>,
    /// Trees per island.
    pub island_ntree: Vec<i32>,
    /// First tree of each island.
    pub island_itreeadr: Vec<i32>,
    /// Island-ordered trees.
    pub map_itree2tree: Vec<i32>,
    /// Island of each dof.
    pub dof_island: Vec<i32>,
    /// Dofs per island.
    pub island_nv: Vec<i32>,
    /// First island dof of each island.
    pub island_idofadr: Vec<i32>,
    /// First dof of each island.
    pub island_dofadr: Vec<i32>,
    /// Dof to island dof.
    pub map_dof2idof: Vec<i32>,
    /// Island dof to dof.
    pub map_idof2dof: Vec<i32>,
    /// Island of each row.
    pub efc_island: Vec<i32>,
    /// Equality rows per island.
    pub island_ne: Vec<i32>,
    /// Friction rows per island.
    pub island_nf: Vec<i32>,
    /// Rows per island.
    pub island_nefc: Vec<i32>,
    /// First island row of each island.
    pub island_iefcadr: Vec<i32>,
    /// Row to island row.
    pub map_efc2iefc: Vec<i32>,
    /// Island row to row.
    pub map_iefc2efc: Vec<i32>,
    /// Row types in island order.
    pub iefc_type: Vec<i32>,
    /// Row objects in island order.
    pub iefc_id: Vec<i32>,
    /// Row friction losses in island order.
    pub iefc_frictionloss: Vec<f64>,
    /// Row masses in island order.
    pub iefc_d: Vec<f64>,
    /// Row regularisers in island order.
    pub iefc_r: Vec<f64>,
    /// `efc_b`: `J qacc_smooth - aref`, from the last solve.
    pub efc_b: Vec<f64>,
    /// Constraint force of each row, from the last solve.
    pub efc_force: Vec<f64>,
    /// State of each row (`mjtConstraintState`), from the last solve.
    pub efc_state: Vec<i32>,
    /// The Newton frame's outputs: `efc_b`, `efc_force`, `efc_state` and the island copies.
    pub solved: FrameOutput,
    /// `mj_projectConstraint`'s `efc_Y` (`nefc nv`) and `efc_AR` (`nefc nefc`), dense (PGS).
    pub efc_y: Vec<f64>,
    /// See `efc_y`.
    pub efc_ar: Vec<f64>,
    /// PGS's outputs (`efc_b`, `efc_force`, `efc_state`, statistics).
    pub pgs: PgsOutput,
    /// One dense Jacobian row (`nv`).
    jac: Vec<f64>,
    /// The contact rows' buffers.
    contact: ContactScratch,
    /// The island stage's buffers.
    island: IslandScratch,
    /// The two geoms of each contact.
    geoms: Vec<[i32; 2]>,
    /// The contacts' cone data for the solver.
    cones: Vec<Cone>,
    /// The contacts' surface velocity and adhesion for the reference.
    refs: Vec<ContactRef>,
    /// The solver's buffers.
    frame: FrameScratch,
    /// The one island of the path without islands.
    monolithic: MonolithicScratch,
    /// PGS's buffers.
    pgs_scratch: PgsScratch,
    /// The noslip pass's buffers.
    noslip: NoslipScratch,
    /// The projection's `sqrt(1 / D)` and `Y'` work arrays.
    sqrt_inv_d: Vec<f64>,
    /// See `sqrt_inv_d`.
    yt: Vec<f64>,
    /// The sparse `efc_Y` and `efc_AR` (PGS on a sparse Jacobian).
    sparse_projection: crate::project_sparse::SparseProjection,
}

/// The Jacobian of an [`Efc`] as the stages read it, borrowing only its Jacobian fields.
macro_rules! jacobian {
    ($e:expr, $sparse:expr, $nv:expr) => {{
        let (n, nj) = ($e.nefc, $e.nj);
        if $sparse {
            Jacobian::Sparse {
                rownnz: &$e.efc_j_rownnz[..n],
                rowadr: &$e.efc_j_rowadr[..n],
                rowsuper: &$e.efc_j_rowsuper[..n],
                colind: &$e.efc_j_colind[..nj],
                j: &$e.efc_j[..nj],
            }
        } else {
            Jacobian::Dense { nv: $nv, j: &$e.efc_j[..n * $nv] }
        }
    }};
}

/// The Jacobian of an [`Efc`] as the island stage's scan reads it, borrowing only its Jacobian
/// fields.
macro_rules! row_jacobian {
    ($e:expr, $sparse:expr) => {{
        let (n, nj) = ($e.nefc, $e.nj);
        IslandJacobian {
            sparse: $sparse,
            efc_j: &$e.efc_j[..nj],
            efc_j_rownnz: &$e.efc_j_rownnz[..n],
            efc_j_rowadr: &$e.efc_j_rowadr[..n],
            efc_j_colind: &$e.efc_j_colind[..if $sparse { nj } else { 0 }],
        }
    }};
}

/// `v` as `n` elements (the caller overwrites them; no allocation once grown).
pub(crate) fn sized<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    v.resize(n, T::default());
    &mut v[..n]
}

impl Efc {
    /// No rows (the state of a disabled constraint stage).
    fn clear(&mut self) {
        (self.ne, self.nf, self.nl, self.nefc, self.nj, self.nisland, self.nidof) = (0, 0, 0, 0, 0, 0, 0);
    }

    /// The Jacobian as the stages read it.
    pub fn jacobian(&self, sparse: bool, nv: usize) -> Jacobian<'_> {
        jacobian!(self, sparse, nv)
    }
}

/// `mj_isSparse`: a sparse Jacobian, or the automatic choice with 60 dofs or more.
pub(crate) fn is_sparse(nm: &NativeModel) -> bool {
    let j = nm.model.opt.jacobian as i32;
    j == 1 || (j == 2 && nm.model.nv >= 60)
}

/// The contact rows' model view.
pub(crate) fn contact_model(nm: &NativeModel) -> ContactModel<'_> {
    ContactModel {
        disable_contact: nm.model.opt.disableflags & DSBL_CONTACT != 0,
        geom_bodyid: &nm.flat.geom_bodyid,
        body_treeid: &nm.model.body_treeid,
        jac: nm.jac(),
    }
}

/// `mj_makeConstraint`: counts the rows, sizes the arrays, appends equality, friction, limit and
/// contact rows, then their supernodes, approximate diagonal and impedance. `d.contacts` are the
/// collision stage's contacts; their `efc_address`, `exclude` and `mu` are set here.
pub fn make_constraint(nm: &NativeModel, d: &mut Data) {
    let e = &mut d.efc;
    e.clear();
    let m = &nm.model;
    if m.opt.disableflags & DSBL_CONSTRAINT != 0 {
        return;
    }
    let cm: ConstraintModel = nm.constraint();
    let nv = m.nv;
    let sparse = is_sparse(nm);
    let pyramidal = m.opt.cone as i32 == CONE_PYRAMIDAL;
    let contacts_on = m.opt.disableflags & DSBL_CONTACT == 0 && !d.contacts.is_empty();
    let ctm = contact_model(nm);
    let est = crate::equality::equality_state!(d);
    let eq = equality::count(&cm.equality, &ctm.jac, &est, sparse, &mut d.equality.rows);
    let tm = nm.tendon_rows();
    let ts = TendonRowState { ten_length: &d.tendon.ten_length, ten_j: &d.tendon.ten_j };
    let fr = limits::count_friction(&cm, sparse);
    let tfr = tendon::count_friction(&tm, sparse);
    let li = limits::count_limits(&cm, &d.qpos, sparse);
    let tli = tendon::count_limits(&tm, &ts, sparse);
    let (nc, nnzc) =
        if contacts_on { ccontact::count(&ctm, &d.contacts, sparse, pyramidal, &mut e.contact) } else { (0, 0) };
    let nalloc = eq.rows + fr.rows + tfr.rows + li.rows + tli.rows + nc;
    let nj = if sparse { eq.nnz + fr.nnz + tfr.nnz + li.nnz + tli.nnz + nnzc } else { nv * nalloc };
    let efcadr = &mut d.tendon.tendon_efcadr;
    efcadr.fill(-1);
    e.jac.resize(nv, 0.0);
    let mut rows = EfcRows {
        sparse,
        nv,
        nefc: 0,
        ne: 0,
        nf: 0,
        nl: 0,
        efc_type: sized(&mut e.efc_type, nalloc),
        efc_id: sized(&mut e.efc_id, nalloc),
        efc_j_rownnz: sized(&mut e.efc_j_rownnz, nalloc),
        efc_j_rowadr: sized(&mut e.efc_j_rowadr, nalloc),
        efc_j_rowsuper: sized(&mut e.efc_j_rowsuper, nalloc),
        efc_j_colind: sized(&mut e.efc_j_colind, nj),
        efc_j: sized(&mut e.efc_j, nj),
        efc_pos: sized(&mut e.efc_pos, nalloc),
        efc_margin: sized(&mut e.efc_margin, nalloc),
        efc_frictionloss: sized(&mut e.efc_frictionloss, nalloc),
    };
    equality::instantiate(&cm.equality, &ctm.jac, &est, sparse, &mut rows, &mut d.equality.rows);
    limits::instantiate_friction(&cm, &mut rows, &mut e.jac);
    tendon::instantiate_friction(&tm, &ts, &mut rows, &mut e.jac, efcadr);
    limits::instantiate_limits(&cm, &d.qpos, &mut rows, &mut e.jac);
    tendon::instantiate_limits(&tm, &ts, &mut rows, &mut e.jac, efcadr);
    if contacts_on && nv > 0 {
        let st = ContactState { jac: JacState { cdof: &d.cdof, subtree_com: &d.subtree_com } };
        ccontact::instantiate(&ctm, &st, &mut d.contacts, sparse, pyramidal, &mut rows, &mut e.contact);
    }
    let (nefc, ne, nf, nl) = (rows.nefc, rows.ne, rows.nf, rows.nl);
    (e.nefc, e.ne, e.nf, e.nl, e.nj) = (nefc, ne, nf, nl, nj);
    if nefc == 0 {
        return;
    }
    if sparse {
        super_sparse(&mut e.efc_j_rowsuper[..nefc], &e.efc_j_rownnz[..nefc], &e.efc_j_rowadr[..nefc], &e.efc_j_colind);
    }
    let mut imp = ImpedanceRows {
        efc_type: &e.efc_type[..nefc],
        efc_id: &e.efc_id[..nefc],
        efc_pos: &e.efc_pos[..nefc],
        efc_margin: &e.efc_margin[..nefc],
        efc_diag_a: sized(&mut e.efc_diag_a, nefc),
        efc_kbip: sized(&mut e.efc_kbip, 4 * nefc),
        efc_d: sized(&mut e.efc_d, nefc),
        efc_r: sized(&mut e.efc_r, nefc),
    };
    impedance::diag_approx(&cm, &d.contacts, imp.efc_type, imp.efc_id, imp.efc_diag_a);
    // MuJoCo only prints the replaced-reference warnings; the values are the same
    impedance::make_impedance(&cm, &mut d.contacts, ne + nf, &mut imp, |_| {});
}

/// `mj_island`: the islands of the rows (none without rows); a row the engine's stage does not
/// handle is refused.
pub fn island(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let e = &mut d.efc;
    e.nisland = 0;
    e.nidof = 0;
    if e.nefc == 0 || nm.model.opt.disableflags & DSBL_ISLAND != 0 {
        return Ok(());
    }
    let im = nm.island();
    e.geoms.clear();
    e.geoms.extend(d.contacts.iter().map(|c| c.geom));
    let n = e.nefc;
    let rows = IslandRows {
        efc_type: &e.efc_type[..n],
        efc_id: &e.efc_id[..n],
        efc_frictionloss: &e.efc_frictionloss[..n],
        efc_d: &e.efc_d[..n],
        efc_r: &e.efc_r[..n],
        contact_geom: &e.geoms,
        jacobian: row_jacobian!(e, is_sparse(nm)),
    };
    let part = island::partition(&im, &rows, &mut e.island).map_err(|u| NativeError::Unsupported {
        what: format!("constraint row {} (type {}) in mj_island", u.row, e.efc_type[u.row]),
        needs: "island rows of this kind (or a row without a dynamic tree, MuJoCo's error)",
    })?;
    (e.nisland, e.nidof) = (part.nisland, part.nidof);
    if part.nisland == 0 {
        return Ok(());
    }
    let (ntree, nv, ni) = (im.ntree(), im.nv(), part.nisland);
    let mut out = IslandOutput {
        tree_island: sized(&mut e.tree_island, ntree),
        island_ntree: sized(&mut e.island_ntree, ni),
        island_itreeadr: sized(&mut e.island_itreeadr, ni),
        map_itree2tree: sized(&mut e.map_itree2tree, ntree),
        dof_island: sized(&mut e.dof_island, nv),
        island_nv: sized(&mut e.island_nv, ni),
        island_idofadr: sized(&mut e.island_idofadr, ni),
        island_dofadr: sized(&mut e.island_dofadr, ni),
        map_dof2idof: sized(&mut e.map_dof2idof, nv),
        map_idof2dof: sized(&mut e.map_idof2dof, nv),
        efc_island: sized(&mut e.efc_island, n),
        island_ne: sized(&mut e.island_ne, ni),
        island_nf: sized(&mut e.island_nf, ni),
        island_nefc: sized(&mut e.island_nefc, ni),
        island_iefcadr: sized(&mut e.island_iefcadr, ni),
        map_efc2iefc: sized(&mut e.map_efc2iefc, n),
        map_iefc2efc: sized(&mut e.map_iefc2efc, n),
        iefc_type: sized(&mut e.iefc_type, n),
        iefc_id: sized(&mut e.iefc_id, n),
        iefc_frictionloss: sized(&mut e.iefc_frictionloss, n),
        iefc_d: sized(&mut e.iefc_d, n),
        iefc_r: sized(&mut e.iefc_r, n),
    };
    let rows = IslandRows {
        efc_type: &e.efc_type[..n],
        efc_id: &e.efc_id[..n],
        efc_frictionloss: &e.efc_frictionloss[..n],
        efc_d: &e.efc_d[..n],
        efc_r: &e.efc_r[..n],
        contact_geom: &e.geoms,
        jacobian: row_jacobian!(e, is_sparse(nm)),
    };
    island::fill(&im, &rows, &mut e.island, &mut out);
    Ok(())
}

/// `mj_referenceConstraint`: `efc_vel` and `efc_aref`, with the connect and weld rows'
/// `Jdot v` correction (`mj_Jdotv`).
pub fn reference(nm: &NativeModel, d: &mut Data) {
    let e = &mut d.efc;
    let n = e.nefc;
    let (surfacevel, adhesion) = (nm.collision.flg_surfacevel, nm.flg_adhesion);
    e.refs.clear();
    if surfacevel || adhesion {
        e.refs.extend(d.collided.iter().zip(&d.contacts).map(|(c, r)| ContactRef {
            efc_address: r.efc_address,
            dim: r.dim,
            friction: r.friction,
            surfacevel: c.surfacevel,
            adhesion: c.adhesion,
        }));
    }
    sized(&mut e.efc_vel, n);
    sized(&mut e.efc_aref, n);
    let m = &nm.model;
    let inp = ReferenceInput {
        qvel: &d.qvel,
        efc_pos: &e.efc_pos[..n],
        efc_margin: &e.efc_margin[..n],
        efc_kbip: &e.efc_kbip[..4 * n],
        efc_r: &e.efc_r[..n],
        contacts: &e.refs,
        surfacevel,
        adhesion,
        elliptic: m.opt.cone as i32 != CONE_PYRAMIDAL,
        discrete: false,
        timestep: m.opt.timestep,
    };
    let sparse = is_sparse(nm);
    let jac = jacobian!(e, sparse, m.nv);
    let (em, jm, st) = (nm.equality(), nm.jac(), crate::equality::equality_state!(d));
    let (ids, jdot) = (&e.efc_id[..e.ne], &mut d.equality.jdot);
    reference_constraint_with(&jac, &inp, &mut e.efc_vel[..n], &mut e.efc_aref[..n], |aref| {
        jdotv(&em, &jm, &st, sparse, ids, aref, jdot);
    });
}

/// `mj_fwdConstraint` with rows: the engine's frame (warm start, island gathers, each island's
/// solver, scatter), or without islands one problem over all rows. A state where some island on
/// a sparse Jacobian of a model with flexes needs Newton iterations is refused (4.0.0 may reorder
/// its Hessian, not in Rust yet).
pub fn fwd_constraint(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    if nm.model.opt.solver == specula_model::types::Solver::Pgs {
        return fwd_constraint_pgs(nm, d);
    }
    if nm.model.opt.noslip_iterations > 0 {
        // noslip reads efc_AR (mj_isDual; dense: the scope refuses noslip on a sparse Jacobian)
        project_dense(nm, d);
    }
    let e = &mut d.efc;
    let n = e.nefc;
    let m = &nm.model;
    e.cones.clear();
    e.cones.extend(d.contacts.iter().map(|c| Cone { mu: c.mu, friction: c.friction, dim: c.dim }));
    let fm = FrameModel {
        m_rownnz: &nm.layout.m.rownnz,
        m_rowadr: &nm.layout.m.rowadr,
        m_colind: &nm.layout.m.colind,
        tolerance: m.opt.tolerance,
        warmstart: m.opt.disableflags & DSBL_WARMSTART == 0,
        ls_tolerance: m.opt.ls_tolerance,
        iterations: m.opt.iterations,
        ls_iterations: m.opt.ls_iterations,
        elliptic: m.opt.cone as i32 != CONE_PYRAMIDAL,
        primal: if m.opt.solver == specula_model::types::Solver::Cg { Primal::Cg } else { Primal::Newton },
        flexes: false,
    };
    let ni = e.nisland;
    let islands = Islands {
        nidof: e.nidof,
        nv: &e.island_nv[..ni],
        idofadr: &e.island_idofadr[..ni],
        ne: &e.island_ne[..ni],
        nf: &e.island_nf[..ni],
        nefc: &e.island_nefc[..ni],
        iefcadr: &e.island_iefcadr[..ni],
        idof2dof: &e.map_idof2dof[..if ni > 0 { m.nv } else { 0 }],
        iefc2efc: &e.map_iefc2efc[..ni.min(1) * n],
        efc2iefc: &e.map_efc2iefc[..ni.min(1) * n],
        rows: Rows {
            ne: 0,
            nf: 0,
            d: &e.iefc_d[..ni.min(1) * n],
            r: &e.iefc_r[..ni.min(1) * n],
            frictionloss: &e.iefc_frictionloss[..ni.min(1) * n],
            efc_type: &e.iefc_type[..ni.min(1) * n],
            efc_id: &e.iefc_id[..ni.min(1) * n],
            contacts: &e.cones,
        },
    };
    let inp = FrameInput {
        mass: &d.m,
        qld: &d.qld,
        qld_diag_inv: &d.qld_diag_inv,
        qfrc_smooth: &d.qfrc_smooth,
        qacc_smooth: &d.qacc_smooth,
        qacc_warmstart: &d.qacc_warmstart,
        j: jacobian!(e, is_sparse(nm), m.nv),
        aref: &e.efc_aref[..n],
        rows: Rows {
            ne: e.ne,
            nf: e.nf,
            d: &e.efc_d[..n],
            r: &e.efc_r[..n],
            frictionloss: &e.efc_frictionloss[..n],
            efc_type: &e.efc_type[..n],
            efc_id: &e.efc_id[..n],
            contacts: &e.cones,
        },
        islands,
    };
    // each contact's cone Hessian starts as mj_addContact leaves it: zero
    e.solved.contact_h.clear();
    e.solved.contact_h.resize(d.contacts.len(), [0.0; 36]);
    // without islands one problem over all rows (D69)
    let islands = ni > 0;
    if islands {
        solve(&fm, &inp, &mut e.frame, &mut e.solved)
    } else {
        solve_monolithic(&fm, &inp, &mut e.frame, &mut e.monolithic, &mut e.solved)
    }
    .map_err(|_| NativeError::Unsupported {
        what: "sparse Newton iterations on a model with flexes".into(),
        needs: "4.0.0's fill-reducing order of the sparse Hessian (D42)",
    })?;
    let ar = &e.efc_ar[..if m.opt.noslip_iterations > 0 { n * n } else { 0 }];
    noslip_after(m, &fm, islands, &inp, ar, &mut e.noslip, e.solved.noslip_parts())?;
    d.qacc.copy_from_slice(&e.solved.qacc);
    d.qfrc_constraint.copy_from_slice(&e.solved.qfrc_constraint);
    keep_rows(e, Solved::Newton);
    d.solver_niter.copy_from_slice(&e.solved.solver_niter);
    Ok(())
}

/// `mj_projectConstraint` for PGS on a dense Jacobian: `efc_Y = J L^-1 D^-1/2` row by row, then
/// `efc_AR = Y Y' + diag(R)` (D11).
fn project_dense(nm: &NativeModel, d: &mut Data) {
    project_y(nm, d);
    let e = &mut d.efc;
    let (n, nv) = (e.nefc, nm.model.nv);
    project::ar_dense(&e.efc_y[..n * nv], nv, &e.efc_r[..n], sized(&mut e.yt, n * nv), sized(&mut e.efc_ar, n * n));
}

/// `mj_projectConstraint`'s exact diagonal (`mjENBL_DIAGEXACT`, D71) on a dense Jacobian, right
/// after `mj_island`: `efc_diagA = |Y_r|^2`, `mj_makeImpedance` again (`efc_R`, `efc_KBIP`,
/// `efc_D`, the contacts' `mu`), and the island copies of `D` and `R` gathered again; a dual
/// solver's `efc_AR` follows in [`fwd_constraint`] from the new `R`.
pub fn project_exact(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    if d.efc.nefc == 0 || m.opt.enableflags & ENBL_DIAGEXACT == 0 {
        return;
    }
    project_y(nm, d);
    let e = &mut d.efc;
    let (n, nv) = (e.nefc, m.nv);
    project::exact_diagonal_dense(&e.efc_y[..n * nv], nv, &mut e.efc_diag_a[..n]);
    let mut imp = ImpedanceRows {
        efc_type: &e.efc_type[..n],
        efc_id: &e.efc_id[..n],
        efc_pos: &e.efc_pos[..n],
        efc_margin: &e.efc_margin[..n],
        efc_diag_a: &mut e.efc_diag_a[..n],
        efc_kbip: &mut e.efc_kbip[..4 * n],
        efc_d: &mut e.efc_d[..n],
        efc_r: &mut e.efc_r[..n],
    };
    impedance::make_impedance(&nm.constraint(), &mut d.contacts, e.ne + e.nf, &mut imp, |_| {});
    if e.nisland > 0 {
        for k in 0..n {
            let i = e.map_iefc2efc[k] as usize;
            (e.iefc_d[k], e.iefc_r[k]) = (e.efc_d[i], e.efc_r[i]);
        }
    }
}

/// `mj_projectConstraint` on a sparse Jacobian: `efc_Y` and `efc_AR` in compressed rows.
fn project_sparse(nm: &NativeModel, d: &mut Data) {
    let e = &mut d.efc;
    let (n, nj) = (e.nefc, e.nj);
    let f = Factor {
        m_rownnz: &nm.layout.m.rownnz,
        m_rowadr: &nm.layout.m.rowadr,
        m_colind: &nm.layout.m.colind,
        qld: &d.qld,
        dof_simplenum: &nm.layout.dof_simplenum,
    };
    let jp = Pattern { rownnz: &e.efc_j_rownnz[..n], rowadr: &e.efc_j_rowadr[..n], colind: &e.efc_j_colind[..nj] };
    e.sparse_projection.compute(&jp, &e.efc_j[..nj], &f, nm.model.nv, &e.efc_r[..n]);
}

/// `efc_Y = J L^-1 D^-1/2` row by row on a dense Jacobian (D11).
fn project_y(nm: &NativeModel, d: &mut Data) {
    let e = &mut d.efc;
    let (n, nv) = (e.nefc, nm.model.nv);
    let f = Factor {
        m_rownnz: &nm.layout.m.rownnz,
        m_rowadr: &nm.layout.m.rowadr,
        m_colind: &nm.layout.m.colind,
        qld: &d.qld,
        dof_simplenum: &nm.layout.dof_simplenum,
    };
    project::sqrt_inv_d(&f, sized(&mut e.sqrt_inv_d, nv));
    project::y_dense(&f, &e.efc_j[..n * nv], &e.sqrt_inv_d, sized(&mut e.efc_y, n * nv));
}

/// `mj_fwdConstraint` with rows for PGS (dense or sparse Jacobian; over islands or all rows at
/// once): the projection, then the engine's PGS (and noslip, dense only).
fn fwd_constraint_pgs(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let sparse = is_sparse(nm);
    if sparse {
        project_sparse(nm, d);
    } else {
        project_dense(nm, d);
    }
    let e = &mut d.efc;
    let (n, nv, m) = (e.nefc, nm.model.nv, &nm.model);
    e.cones.clear();
    e.cones.extend(d.contacts.iter().map(|c| Cone { mu: c.mu, friction: c.friction, dim: c.dim }));
    let ni = e.nisland;
    let rows = Rows {
        ne: e.ne,
        nf: e.nf,
        d: &e.efc_d[..n],
        r: &e.efc_r[..n],
        frictionloss: &e.efc_frictionloss[..n],
        efc_type: &e.efc_type[..n],
        efc_id: &e.efc_id[..n],
        contacts: &e.cones,
    };
    let pm = PgsModel {
        frame: FrameModel {
            m_rownnz: &nm.layout.m.rownnz,
            m_rowadr: &nm.layout.m.rowadr,
            m_colind: &nm.layout.m.colind,
            tolerance: m.opt.tolerance,
            warmstart: m.opt.disableflags & DSBL_WARMSTART == 0,
            ls_tolerance: m.opt.ls_tolerance,
            iterations: m.opt.iterations,
            ls_iterations: m.opt.ls_iterations,
            elliptic: m.opt.cone as i32 != CONE_PYRAMIDAL,
            primal: Primal::Newton,
            flexes: false,
        },
        iterations: m.opt.iterations,
        use_islands: m.opt.disableflags & DSBL_ISLAND == 0 && ni > 0,
        nisland: ni,
    };
    let islands = Islands {
        nidof: e.nidof,
        nv: &e.island_nv[..ni],
        idofadr: &e.island_idofadr[..ni],
        ne: &e.island_ne[..ni],
        nf: &e.island_nf[..ni],
        nefc: &e.island_nefc[..ni],
        iefcadr: &e.island_iefcadr[..ni],
        idof2dof: &e.map_idof2dof[..if ni > 0 { nv } else { 0 }],
        iefc2efc: &e.map_iefc2efc[..if ni > 0 { n } else { 0 }],
        efc2iefc: &e.map_efc2iefc[..if ni > 0 { n } else { 0 }],
        rows,
    };
    let inp = FrameInput {
        mass: &d.m,
        qld: &d.qld,
        qld_diag_inv: &d.qld_diag_inv,
        qfrc_smooth: &d.qfrc_smooth,
        qacc_smooth: &d.qacc_smooth,
        qacc_warmstart: &d.qacc_warmstart,
        j: jacobian!(e, sparse, nv),
        aref: &e.efc_aref[..n],
        rows,
        islands,
    };
    // the state starts as the rows' last one (only the statistics read it)
    e.pgs.efc_state.clear();
    e.pgs.efc_state.extend_from_slice(&e.efc_state[..n.min(e.efc_state.len())]);
    e.pgs.efc_state.resize(n, 0);
    let ar = if sparse { e.sparse_projection.ar() } else { Jacobian::Dense { nv: n, j: &e.efc_ar[..n * n] } };
    solve_pgs(&pm, &inp, &ar, &mut e.pgs_scratch, &mut e.pgs).map_err(|u| NativeError::Unsupported {
        what: format!("PGS on this state ({u:?})"),
        needs: match u {
            pgs::Unsupported::NoDiagonal => "PGS on a sparse efc_AR",
        },
    })?;
    // the scope refuses noslip on a sparse Jacobian: no dense efc_AR is made then
    let ar_dense = &e.efc_ar[..if sparse { 0 } else { n * n }];
    noslip_after(m, &pm.frame, pm.use_islands, &inp, ar_dense, &mut e.noslip, e.pgs.noslip_parts())?;
    d.qacc.copy_from_slice(&e.pgs.qacc);
    d.qfrc_constraint.copy_from_slice(&e.pgs.qfrc_constraint);
    keep_rows(e, Solved::Pgs);
    d.solver_niter.copy_from_slice(&e.pgs.solver_niter);
    Ok(())
}

/// The noslip pass after either solver on the dense `efc_AR` (`nefc x nefc` in `ar`), then
/// `mj_dualFinish`; nothing without noslip (D37).
fn noslip_after(
    m: &specula_model::Model,
    fm: &FrameModel,
    use_islands: bool,
    inp: &FrameInput,
    ar: &[f64],
    scratch: &mut NoslipScratch,
    (mut st, qfrc_constraint, qacc): NoslipParts,
) -> Result<(), NativeError> {
    let opt = &m.opt;
    if opt.noslip_iterations <= 0 {
        return Ok(());
    }
    let nsm = NoslipModel { iterations: opt.noslip_iterations, tolerance: opt.noslip_tolerance, use_islands };
    let ar = Jacobian::Dense { nv: inp.aref.len(), j: ar };
    noslip(fm, &nsm, inp, &ar, scratch, &mut st).map_err(|u| NativeError::Unsupported {
        what: format!("noslip on this state ({u:?})"),
        needs: "noslip on a sparse efc_AR",
    })?;
    dual_finish(fm, inp, st.efc_force, qfrc_constraint, qacc);
    Ok(())
}

/// Which solver's outputs [`keep_rows`] takes.
#[derive(Clone, Copy)]
enum Solved {
    Newton,
    Pgs,
}

/// `efc_b`, `efc_force` and `efc_state` of the last solve, under MuJoCo's names in [`Efc`].
fn keep_rows(e: &mut Efc, solved: Solved) {
    let n = e.nefc;
    let (b, f, st) = match solved {
        Solved::Newton => (&e.solved.efc_b, &e.solved.efc_force, &e.solved.efc_state),
        Solved::Pgs => (&e.pgs.efc_b, &e.pgs.efc_force, &e.pgs.efc_state),
    };
    sized(&mut e.efc_b, n).copy_from_slice(&b[..n]);
    sized(&mut e.efc_force, n).copy_from_slice(&f[..n]);
    sized(&mut e.efc_state, n).copy_from_slice(&st[..n]);
}

/// Half of the smallest default `mjData` arena measured (14 MiB on the project's scenes): a
/// state whose contacts and rows could need more is refused rather than risk MuJoCo's arena
/// running out (`mjWARN_CNSTRFULL`: MuJoCo then drops the rows, which the native route does not
/// model).
const ARENA_BOUND: usize = 7 << 20;

/// Refuses a state whose contacts and constraint arrays could fill MuJoCo's arena: an upper
/// estimate of the bytes `mj_collision`, `mj_makeConstraint`, `mj_island` and (PGS)
/// `mj_projectConstraint` place there, against [`ARENA_BOUND`].
pub fn arena_check(nm: &NativeModel, d: &Data) -> Result<(), NativeError> {
    let e = &d.efc;
    let (n, nv) = (e.nefc, nm.model.nv);
    // mjContact is 568 bytes in 4.0.0; 640 leaves room for alignment
    let mut bytes = d.contacts.len() * 640 + n * (4 * 12 + 8 * 20) + e.nj * 12 + nv * 4 * 8;
    if nm.model.opt.solver == specula_model::types::Solver::Pgs || nm.model.opt.noslip_iterations > 0 {
        bytes += n * nv * 8 + n * n * 8;
    }
    if bytes > ARENA_BOUND {
        return Err(NativeError::Unsupported {
            what: format!("{} contacts and {n} rows (about {bytes} bytes of MuJoCo's arena)", d.contacts.len()),
            needs: "MuJoCo's arena limits (a full arena drops rows)",
        });
    }
    Ok(())
}
