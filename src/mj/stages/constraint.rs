//! `mj_makeConstraint` in Rust inside MuJoCo's step: the view of MuJoCo's model and data that
//! `specula_engine::dynamics::constraint` reads and writes, the arena allocation of the `efc_*`
//! arrays, and the models left to the library (`docs/measurements.md` D10).
//!
//! The library counts the rows, allocates the `efc_*` arrays in `d->arena` for that count (the
//! same arrays, order, alignment and high-water marks as `mj_arenaAllocByte`), appends the rows
//! and derives their parameters; its scratch lives on MuJoCo's stack, whose only lasting trace
//! is the high-water marks `maxuse_stack` and `maxuse_arena`, which an [`Arena`] replay reproduces.

use std::cell::RefCell;
use std::mem::offset_of;

use mujoco_sys as sys;
use specula_engine::dynamics::arena::Arena;
use specula_engine::dynamics::constraint::contact::{self, ContactScratch};
use specula_engine::dynamics::constraint::equality::{self, EqualityScratch};
use specula_engine::dynamics::constraint::impedance::{self, ImpedanceRows};
use specula_engine::dynamics::constraint::{limits, super_sparse, tendon, ConstraintModel, Contact, EfcRows};

use super::constraint_contact::{contact_model, contact_state, contacts_in_scope, read_contacts, write_contacts};
use super::constraint_equality::{equalities_in_scope, equality_model, equality_state};
use super::constraint_tendon::{tendon_row_model, tendon_row_state};
use super::fields::Field;
use super::reference::is_sparse;
use super::{byte, bytes, slice, slice_mut, Args, Fallback, Stage};

/// Buffers reused from call to call.
#[derive(Default)]
struct Scratch {
    /// The library's contacts, copied in and their outputs copied back.
    contacts: Vec<Contact>,
    /// One dense Jacobian row (`nv`).
    jac: Vec<f64>,
    /// The contact rows' buffers.
    contact: ContactScratch,
    /// The equality rows' buffers.
    equality: EqualityScratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Whether `flag` (an `mjtDisableBit`) is set.
fn disabled(m: &sys::mjModel, flag: sys::mjtDisableBit) -> bool {
    m.opt.disableflags & flag as i32 != 0
}

/// Why `mj_makeConstraint` must stay MuJoCo's for this model and state, if it must
/// (`docs/measurements.md` D10): unless the constraints are disabled (the library then only
/// zeroes the sizes), tendon or flex equality constraints (D50), flexes, sleep with asleep
/// trees, MuJoCo's locked thread-pool stack, and contacts
/// the Rust contact rows do not cover (a flex side, an unusual condim). Scalars and per-tendon
/// flags only, read on every call.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if disabled(m, sys::mjDSBL_CONSTRAINT) {
        return None;
    }
    let sleeping = m.opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && (d.ntree_awake as i64) < m.ntree;
    // SAFETY: the flag's byte, read as a byte (any value other than 0 takes the locked path).
    let locked = unsafe { byte(&raw const d.threadlock) } != 0;
    let why = [
        (sleeping, Fallback::Asleep),
        (locked, Fallback::ThreadLock),
        (m.nflex > 0, Fallback::Flex),
        (!disabled(m, sys::mjDSBL_EQUALITY) && m.nemax != 0 && !equalities_in_scope(m), Fallback::Equality),
    ];
    if let Some(&(_, why)) = why.iter().find(|w| w.0) {
        return Some(why);
    }
    (!disabled(m, sys::mjDSBL_CONTACT) && d.ncon > 0 && !contacts_in_scope(m, d)).then_some(Fallback::Contact)
}

/// The friction, limit and impedance steps' view of MuJoCo's model.
fn constraint_model(m: &sys::mjModel) -> ConstraintModel<'_> {
    let (nv, njnt, nbody, ngeom) = (m.nv as usize, m.njnt as usize, m.nbody as usize, m.ngeom as usize);
    let nt = m.ntendon as usize;
    let (nref, nimp) = (sys::mjNREF as usize, sys::mjNIMP as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        ConstraintModel {
            nv,
            disable_frictionloss: disabled(m, sys::mjDSBL_FRICTIONLOSS),
            disable_limit: disabled(m, sys::mjDSBL_LIMIT),
            disable_refsafe: disabled(m, sys::mjDSBL_REFSAFE),
            discrete: m.opt.integrator == sys::mjINT_DISCRETE as i32,
            timestep: m.opt.timestep,
            impratio: m.opt.impratio,
            dof_frictionloss: slice(m.dof_frictionloss, nv),
            dof_solref: slice(m.dof_solref, nref * nv),
            dof_solimp: slice(m.dof_solimp, nimp * nv),
            dof_invweight0: slice(m.dof_invweight0, nv),
            jnt_type: slice(m.jnt_type, njnt),
            jnt_limited: bytes(m.jnt_limited, njnt),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            jnt_range: slice(m.jnt_range, 2 * njnt),
            jnt_margin: slice(m.jnt_margin, njnt),
            jnt_solref: slice(m.jnt_solref, nref * njnt),
            jnt_solimp: slice(m.jnt_solimp, nimp * njnt),
            body_invweight0: slice(m.body_invweight0, 2 * nbody),
            geom_bodyid: slice(m.geom_bodyid, ngeom),
            equality: equality_model(m),
            tendon_invweight0: slice(m.tendon_invweight0, nt),
            tendon_solref_lim: slice(m.tendon_solref_lim, nref * nt),
            tendon_solimp_lim: slice(m.tendon_solimp_lim, nimp * nt),
            tendon_solref_fri: slice(m.tendon_solref_fri, nref * nt),
            tendon_solimp_fri: slice(m.tendon_solimp_fri, nimp * nt),
        }
    }
}

/// Size in bytes of `n` elements of `size` bytes, as C's `size_t` arithmetic on an `int` count.
fn bytes_of(n: i32, size: usize) -> usize {
    (n as isize as usize).wrapping_mul(size)
}

/// The `efc_*` arrays (`MJDATA_ARENA_POINTERS_SOLVER`): each field's place in `mjData`, its
/// element size and alignment, and its length.
fn solver_arrays(nefc: i32, nj: i32, ntendon: i32) -> [(usize, usize, i32); 20] {
    macro_rules! at {
        ($f:ident, $t:ty, $n:expr) => {
            (offset_of!(sys::mjData, $f), size_of::<$t>(), $n)
        };
    }
    [
        at!(efc_type, i32, nefc),
        at!(efc_id, i32, nefc),
        at!(efc_J_rownnz, i32, nefc),
        at!(efc_J_rowadr, i32, nefc),
        at!(efc_J_rowsuper, i32, nefc),
        at!(efc_J_colind, i32, nj),
        at!(efc_J, f64, nj),
        at!(efc_pos, f64, nefc),
        at!(efc_margin, f64, nefc),
        at!(efc_frictionloss, f64, nefc),
        at!(efc_diagA, f64, nefc),
        at!(efc_KBIP, f64, 4 * nefc),
        at!(efc_D, f64, nefc),
        at!(efc_R, f64, nefc),
        at!(tendon_efcadr, i32, ntendon),
        at!(efc_vel, f64, nefc),
        at!(efc_aref, f64, nefc),
        at!(efc_b, f64, nefc),
        at!(efc_state, i32, nefc),
        at!(efc_force, f64, nefc),
    ]
}

/// Where the arrays go: their addresses, or `None` when the arena runs out (after raising the
/// marks for those that fit).
fn layout(mem: &mut Arena, arrays: &[(usize, usize, i32); 20]) -> Option<[usize; 20]> {
    let mut at = [0; 20];
    for (a, &(_, size, n)) in at.iter_mut().zip(arrays) {
        *a = mem.base + mem.alloc(bytes_of(n, size), size)?;
    }
    Some(at)
}

/// `mj_clearEfc` after a failed allocation: the variable sizes zeroed, every arena array but
/// the contacts unset, and the contacts left without rows.
fn clear_efc(d: &mut sys::mjData) {
    crate::mj::collision::zero_constraint_sizes(d);
    const FIRST: usize = offset_of!(sys::mjData, efc_type);
    const END: usize = offset_of!(sys::mjData, ifrc_constraint) + size_of::<*mut f64>();
    // SAFETY: [FIRST, END) holds mjData's arena pointers after `contact` (efc_type up to
    // ifrc_constraint, the last one), all raw pointers, for which zero is null.
    unsafe { std::ptr::write_bytes((d as *mut sys::mjData).cast::<u8>().add(FIRST), 0, END - FIRST) };
    d.contact = d.arena.cast();
    // SAFETY: the arena starts with the ncon contacts.
    let cons = unsafe { slice_mut(d.contact, d.ncon.max(0) as usize) };
    for c in cons {
        c.efc_address = -1;
    }
}

/// The rows the counting pass allots: (equality, friction, limit, contact) rows and the
/// Jacobian's sparse non-zeros.
struct Counts {
    ne: usize,
    nf: usize,
    nl: usize,
    nc: usize,
    nnz: usize,
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_makeConstraint`.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    d.ne = 0;
    d.nf = 0;
    d.nl = 0;
    d.nefc = 0;
    d.nJ = 0;
    d.nY = 0;
    d.nA = 0;
    if disabled(m, sys::mjDSBL_CONSTRAINT) {
        return;
    }
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        if !make(m, d, s) {
            // the library's own call raises its stack error
            super::library(Stage::MakeConstraint, m, d, Args::NONE);
        }
    });
}

/// The stage once the sizes are cleared; false, with nothing changed, when MuJoCo's stack
/// would overflow.
fn make(m: &sys::mjModel, d: &mut sys::mjData, s: &mut Scratch) -> bool {
    let cm = constraint_model(m);
    let nv = cm.nv;
    let sparse = is_sparse(m);
    let pyramidal = m.opt.cone == sys::mjCONE_PYRAMIDAL as i32;
    let contacts_on = !disabled(m, sys::mjDSBL_CONTACT) && d.ncon != 0;
    // SAFETY: qpos has nq entries.
    let qpos = unsafe { slice(d.qpos, m.nq as usize) };
    read_contacts(d, &mut s.contacts);
    let ctm = contact_model(m);

    // counting pass
    let jm = ctm.jac;
    let est = equality_state(m, d);
    let eq = equality::count(&cm.equality, &jm, &est, sparse, &mut s.equality);
    let fr = limits::count_friction(&cm, sparse);
    let li = limits::count_limits(&cm, qpos, sparse);
    let (tm, ts) = (tendon_row_model(m), tendon_row_state(m, d));
    let tfr = tendon::count_friction(&tm, sparse);
    let tli = tendon::count_limits(&tm, &ts, sparse);
    let (nc, nnzc) =
        if contacts_on { contact::count(&ctm, &s.contacts, sparse, pyramidal, &mut s.contact) } else { (0, 0) };
    let (nf, nl) = (fr.rows + tfr.rows, li.rows + tli.rows);
    let n = Counts { ne: eq.rows, nf, nl, nc, nnz: eq.nnz + fr.nnz + tfr.nnz + li.nnz + tli.nnz + nnzc };
    let nefc = (n.ne + n.nf + n.nl + n.nc) as i32;
    let nj = if sparse { n.nnz as i32 } else { (m.nv as i32).wrapping_mul(nefc) };

    // the memory the library would take, checked before anything changes
    let mut mem = super::stack::memory(d);
    let chain = (4 * nv, 4);
    // the equality count's frame: two chains and 125 cell bodies when sparse, empty when dense
    let eq_on = cm.equality.on;
    let eq_count: &[(usize, usize)] = if sparse { &[chain, chain, (500, 4)] } else { &[] };
    if eq_on && mem.frame(eq_count).is_err() {
        return false;
    }
    if contacts_on && mem.frame(&[chain]).is_err() {
        return false;
    }
    mem.parena = d.ncon.max(0) as usize * size_of::<sys::mjContact>();
    let arrays = solver_arrays(nefc, nj, m.ntendon as i32);
    let placed = layout(&mut mem, &arrays);
    if placed.is_some() {
        let row = (8 * nv, 8);
        let pair = (24 * nv, 8);
        // the contact rows' frame: six 3 x nv blocks after the 6 x nv one, a chain if sparse
        let blocks = [(48 * nv, 8), pair, pair, pair, pair, pair, pair, if sparse { chain } else { (0, 4) }];
        // the equality rows' frame: three 6 x nv blocks, two chains when sparse
        let six = (48 * nv, 8);
        let eq_rows = [six, six, six, chain, chain];
        let frames = [
            (eq_on, &eq_rows[..if sparse { 5 } else { 3 }]),
            (!cm.disable_frictionloss, &[row][..]),
            (!cm.disable_limit, &[row][..]),
            (contacts_on && nv > 0, &blocks[..]),
        ];
        for (on, blocks) in frames {
            if on && mem.frame(blocks).is_err() {
                return false;
            }
        }
    }
    d.maxuse_stack = mem.maxuse_stack as sys::mjtSize;
    d.maxuse_arena = mem.maxuse_arena as sys::mjtSize;
    d.nJ = nj;
    d.nefc = nefc;
    d.parena = mem.parena;
    let Some(at) = placed else {
        // SAFETY: MuJoCo's warning counter for the data, with its arena size as the info.
        unsafe { sys::mj_warning(d, sys::mjWARN_CNSTRFULL as i32, d.narena as i32) };
        clear_efc(d);
        d.parena = d.ncon.max(0) as usize * size_of::<sys::mjContact>();
        return true;
    };
    for (&(field, _, _), &addr) in arrays.iter().zip(&at) {
        // SAFETY: `field` is the offset of one of mjData's arena pointers (solver_arrays).
        unsafe { (d as *mut sys::mjData).cast::<u8>().add(field).cast::<usize>().write(addr) };
    }
    instantiate(m, d, s, &cm, qpos, sparse, pyramidal, contacts_on);
    true
}

/// Fills the allocated arrays: the rows, then their supernodes and parameters.
#[allow(clippy::too_many_arguments)]
fn instantiate(
    m: &sys::mjModel,
    d: &mut sys::mjData,
    s: &mut Scratch,
    cm: &ConstraintModel,
    qpos: &[f64],
    sparse: bool,
    pyramidal: bool,
    contacts_on: bool,
) {
    let (nv, ntendon) = (cm.nv, m.ntendon.max(0) as usize);
    let (nalloc, nj) = (d.nefc.max(0) as usize, d.nJ.max(0) as usize);
    // SAFETY: tendon_efcadr was just placed with ntendon entries, apart from the efc arrays.
    let efcadr = unsafe { slice_mut(d.tendon_efcadr, ntendon) };
    efcadr.fill(-1);
    d.nefc = 0;
    s.jac.resize(nv, 0.0);
    let est = equality_state(m, d);
    // SAFETY: the arrays were just placed in the arena with these lengths, distinct from one
    // another and from the contacts.
    let mut rows = unsafe {
        EfcRows {
            sparse,
            nv,
            nefc: 0,
            ne: 0,
            nf: 0,
            nl: 0,
            efc_type: slice_mut(d.efc_type, nalloc),
            efc_id: slice_mut(d.efc_id, nalloc),
            efc_j_rownnz: slice_mut(d.efc_J_rownnz, nalloc),
            efc_j_rowadr: slice_mut(d.efc_J_rowadr, nalloc),
            efc_j_rowsuper: slice_mut(d.efc_J_rowsuper, nalloc),
            efc_j_colind: slice_mut(d.efc_J_colind, nj),
            efc_j: slice_mut(d.efc_J, nj),
            efc_pos: slice_mut(d.efc_pos, nalloc),
            efc_margin: slice_mut(d.efc_margin, nalloc),
            efc_frictionloss: slice_mut(d.efc_frictionloss, nalloc),
        }
    };
    equality::instantiate(&cm.equality, &contact_model(m).jac, &est, sparse, &mut rows, &mut s.equality);
    let (tm, ts) = (tendon_row_model(m), tendon_row_state(m, d));
    limits::instantiate_friction(cm, &mut rows, &mut s.jac);
    tendon::instantiate_friction(&tm, &ts, &mut rows, &mut s.jac, efcadr);
    limits::instantiate_limits(cm, qpos, &mut rows, &mut s.jac);
    tendon::instantiate_limits(&tm, &ts, &mut rows, &mut s.jac, efcadr);
    if contacts_on && nv > 0 {
        let ctm = contact_model(m);
        let st = contact_state(m, d);
        contact::instantiate(&ctm, &st, &mut s.contacts, sparse, pyramidal, &mut rows, &mut s.contact);
    }
    let (nefc, ne, nf, nl) = (rows.nefc, rows.ne, rows.nf, rows.nl);
    d.ne = ne as i32;
    d.nf = nf as i32;
    d.nl = nl as i32;
    d.nefc = nefc as i32;
    d.maxuse_con = d.maxuse_con.max(d.ncon);
    d.maxuse_efc = d.maxuse_efc.max(d.nefc);
    if nefc > 0 {
        finish(d, s, cm, sparse, nefc, ne + nf);
    }
    write_contacts(d, &s.contacts);
    write_mu(d, &s.contacts);
}

/// The supernodes of a sparse Jacobian, then (unless the integrator is the discrete one) the
/// rows' inverse inertia and impedance.
fn finish(d: &mut sys::mjData, s: &mut Scratch, cm: &ConstraintModel, sparse: bool, nefc: usize, ne_nf: usize) {
    if sparse {
        let nj = d.nJ.max(0) as usize;
        // SAFETY: the row structure arrays hold nefc rows and nJ columns, rowsuper apart.
        let (sup, nnz, adr, col) = unsafe {
            (
                slice_mut(d.efc_J_rowsuper, nefc),
                slice(d.efc_J_rownnz, nefc),
                slice(d.efc_J_rowadr, nefc),
                slice(d.efc_J_colind, nj),
            )
        };
        super_sparse(sup, nnz, adr, col);
    }
    if cm.discrete {
        return;
    }
    impedance(d, &mut s.contacts, cm, nefc, ne_nf, true);
}

/// `mj_makeImpedance` again after `mj_projectConstraint`'s exact diagonal (`mjENBL_DIAGEXACT`,
/// D71): `efc_R`, `efc_KBIP`, `efc_D`, the contacts' `mu` and `efc_diagA` from the exact
/// `efc_diagA` in place, then, with islands, `iefc_D` and `iefc_R` gathered again.
pub(super) fn impedance_exact(m: &sys::mjModel, d: &mut sys::mjData) {
    let (nefc, ne_nf) = (d.nefc.max(0) as usize, (d.ne + d.nf).max(0) as usize);
    SCRATCH.with(|s| {
        let contacts = &mut s.borrow_mut().contacts;
        read_contacts(d, contacts);
        impedance(d, contacts, &constraint_model(m), nefc, ne_nf, false);
        write_mu(d, contacts);
    });
    if d.nisland > 0 {
        // SAFETY: the row arrays and the island copies hold nefc rows.
        let (map, dd, r, id, ir) = unsafe {
            (
                slice(d.map_iefc2efc, nefc),
                slice(d.efc_D, nefc),
                slice(d.efc_R, nefc),
                slice_mut(d.iefc_D, nefc),
                slice_mut(d.iefc_R, nefc),
            )
        };
        for (k, &e) in map.iter().enumerate() {
            (id[k], ir[k]) = (dd[e as usize], r[e as usize]);
        }
    }
}

/// The rows' inverse inertia (`approx`: the approximate diagonal first) and impedance, with the
/// library's warnings of replaced references.
fn impedance(
    d: &mut sys::mjData,
    contacts: &mut [Contact],
    cm: &ConstraintModel,
    nefc: usize,
    ne_nf: usize,
    approx: bool,
) {
    // SAFETY: the row arrays hold nefc rows (KBIP four each), the written ones distinct from
    // the read ones.
    let mut rows = unsafe {
        ImpedanceRows {
            efc_type: slice(d.efc_type, nefc),
            efc_id: slice(d.efc_id, nefc),
            efc_pos: slice(d.efc_pos, nefc),
            efc_margin: slice(d.efc_margin, nefc),
            efc_diag_a: slice_mut(d.efc_diagA, nefc),
            efc_kbip: slice_mut(d.efc_KBIP, 4 * nefc),
            efc_d: slice_mut(d.efc_D, nefc),
            efc_r: slice_mut(d.efc_R, nefc),
        }
    };
    if approx {
        impedance::diag_approx(cm, contacts, rows.efc_type, rows.efc_id, rows.efc_diag_a);
    }
    impedance::make_impedance(cm, contacts, ne_nf, &mut rows, |w| {
        let text = std::ffi::CString::new(w.message()).expect("no NUL in the message");
        // SAFETY: MuJoCo's printf-style warning with the message as its argument.
        unsafe { sys::mju_warning(c"%s".as_ptr(), text.as_ptr()) };
    });
}

/// Writes each contact's regularised-cone `mu` back to `d->contact` (`mj_makeImpedance` sets
/// it for frictional contacts; the others keep the value they were read with).
fn write_mu(d: &mut sys::mjData, contacts: &[Contact]) {
    let n = contacts.len().min(d.ncon.max(0) as usize);
    // SAFETY: `d->contact` holds `ncon` >= `n` contacts, not otherwise borrowed here.
    let cons = unsafe { slice_mut(d.contact, n) };
    for (c, r) in cons.iter_mut().zip(contacts) {
        c.mu = r.mu;
    }
}

/// The arrays `mj_makeConstraint` writes, read after it ran (they live in the arena; the
/// contacts' `efc_address`, `exclude` and `mu` are compared with the arena's bytes).
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nefc, nj, nt) = (d.nefc.max(0) as usize, d.nJ.max(0) as usize, m.ntendon.max(0) as usize);
    vec![
        Field::i32("efc_type", d.efc_type, nefc),
        Field::i32("efc_id", d.efc_id, nefc),
        Field::i32("efc_J_rownnz", d.efc_J_rownnz, nefc),
        Field::i32("efc_J_rowadr", d.efc_J_rowadr, nefc),
        Field::i32("efc_J_rowsuper", d.efc_J_rowsuper, nefc),
        Field::i32("efc_J_colind", d.efc_J_colind, nj),
        Field::f64("efc_J", d.efc_J, nj),
        Field::f64("efc_pos", d.efc_pos, nefc),
        Field::f64("efc_margin", d.efc_margin, nefc),
        Field::f64("efc_frictionloss", d.efc_frictionloss, nefc),
        Field::f64("efc_diagA", d.efc_diagA, nefc),
        Field::f64("efc_KBIP", d.efc_KBIP, 4 * nefc),
        Field::f64("efc_D", d.efc_D, nefc),
        Field::f64("efc_R", d.efc_R, nefc),
        Field::i32("tendon_efcadr", d.tendon_efcadr, nt),
    ]
}

#[cfg(test)]
mod tests {
    //! The whole stage against the library's `mj_makeConstraint`, call by call and bit for bit
    //! (rows, Jacobian, impedance, contacts, struct, arena and stack marks), on scenes that
    //! drive every limit type past its range, with friction loss on every dof, in the four
    //! combinations of Jacobian and cone, and with an arena too small for the rows.
    use super::super::compare::Tamper;
    use super::super::{Stage, StageSet};
    use crate::diff::{diff_stages, StageDiffOptions};
    use crate::mj::Model;
    use crate::sim::Start;

    /// Ball, hinge and slide limits kicked past their ranges, every dof with friction loss,
    /// contacts of condim 4 with direct and standard references.
    fn limits(jacobian: &str, cone: &str) -> String {
        format!(
            r#"<mujoco><option jacobian="{jacobian}" cone="{cone}" impratio="1.5"/>
            <default><joint limited="true" frictionloss=".02" solreflimit=".001 .5"/><geom condim="4"/></default>
            <worldbody><geom type="plane" size="5 5 .1" solref="-2000 -40"/>
              <body pos="0 0 1"><joint type="ball" range="0 20" margin=".1"/>
                <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".03"/>
                <body pos="0 0 -.4"><joint type="ball" range="0 60" solimplimit=".9 .99 .5 .3 4"/>
                  <geom type="box" size=".05 .05 .2" pos="0 0 -.2"/></body></body>
              <body pos="1 0 .5"><joint type="hinge" axis="0 1 0" range="-5 5" solimplimit=".2 .9 .05 .5 1"/>
                <joint type="slide" axis="0 0 1" range="-.3 .1" solreflimit="-1000 -50"/>
                <geom type="box" size=".2 .05 .05"/></body>
              <body pos="-1 0 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
            </worldbody>
            <keyframe><key qvel="8 -5 3 -10 6 9 40 -3 0 0 0 0 0 0"/></keyframe></mujoco>"#
        )
    }

    /// Twelve overlapping boxes: hundreds of contacts in an arena that holds them but not
    /// their rows (the library's `mjWARN_CNSTRFULL` path).
    fn crowded() -> String {
        let boxes: String = (0..12)
            .map(|i| {
                let (x, y, z) = (0.01 * (i % 3) as f64, 0.01 * (i % 2) as f64, 0.1 + 0.02 * i as f64);
                format!(r#"<body pos="{x} {y} {z}"><freejoint/><geom type="box" size=".1 .1 .1"/></body>"#)
            })
            .collect();
        format!(
            r#"<mujoco><size memory="200K"/><option cone="elliptic"/><default><geom condim="6"/></default>
            <worldbody><geom type="plane" size="3 3 .1"/>{boxes}</worldbody></mujoco>"#
        )
    }

    fn compare(xml: &str, start: Start, steps: usize) -> (u64, u64) {
        let model = Model::from_xml_str(xml).expect("model");
        let stages = StageSet::NONE.with(Stage::MakeConstraint);
        let r = diff_stages(&model, &StageDiffOptions { steps, start, stages, tamper: None }).expect("run");
        assert!(r.matches(), "{:?}", r.first);
        let i = Stage::ALL.iter().position(|&s| s == Stage::MakeConstraint).expect("stage");
        (r.compared[i], r.skipped[i])
    }

    #[test]
    fn every_call_matches_the_library() {
        for jacobian in ["dense", "sparse"] {
            for cone in ["pyramidal", "elliptic"] {
                let (compared, skipped) = compare(&limits(jacobian, cone), Start::Key("0".into()), 200);
                assert_eq!((compared, skipped), (200, 0), "{jacobian} {cone}");
            }
        }
        let (compared, _) = compare(&crowded(), Start::Qpos0, 20);
        assert_eq!(compared, 20);
    }

    #[test]
    fn the_comparison_sees_a_changed_row() {
        let model = Model::from_xml_str(&limits("sparse", "elliptic")).expect("model");
        let stages = StageSet::NONE.with(Stage::MakeConstraint);
        let tamper = Some(Tamper::Output(Stage::MakeConstraint));
        let opts = StageDiffOptions { steps: 3, start: Start::Qpos0, stages, tamper };
        let first = diff_stages(&model, &opts).expect("run").first.expect("a difference");
        assert_eq!((first.stage, first.field), (Stage::MakeConstraint, "efc_R"));
    }
}
