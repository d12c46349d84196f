//! `mj_projectConstraint` and `mj_referenceConstraint` in Rust inside MuJoCo's step
//! (`docs/measurements.md` D11): the views of MuJoCo's model and data that
//! `specula_engine::dynamics::{reference, project, project_sparse}` read and write, the replay of
//! the projection's arena and stack allocations (so `efc_Y`/`efc_AR` land where MuJoCo puts them and
//! the high-water marks end the same), its out-of-memory path, and the models left to the library.

use std::cell::RefCell;
use std::ffi::{CStr, CString};

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::equality_jdot::{jdotv, JdotScratch};
use specula_engine::dynamics::project::{self, Arena, Factor, StackOverflow};
use specula_engine::dynamics::project_sparse::{self as sparse, Pattern};
use specula_engine::dynamics::reference::{self as refc, ContactRef, Jacobian, ReferenceInput};

use super::fields::Field;
use super::{byte, library, slice, slice_mut, Args, Fallback, Stage};

/// `mjINT_DISCRETE`.
const INT_DISCRETE: i32 = 4;
/// `mjSOL_PGS`.
const SOL_PGS: i32 = 0;
/// `mjJAC_SPARSE`, `mjJAC_AUTO`.
const JAC_SPARSE: i32 = 1;
const JAC_AUTO: i32 = 2;
/// `mjENBL_DIAGEXACT`.
const ENBL_DIAGEXACT: i32 = 1 << 5;
/// `mjWARN_CNSTRFULL`.
const WARN_CNSTRFULL: usize = 2;

/// Whether the library treats the Jacobian as sparse (`mj_isSparse`: sparse, or automatic with
/// 60 dofs or more).
pub(super) fn is_sparse(m: &sys::mjModel) -> bool {
    let j = m.opt.jacobian;
    j == JAC_SPARSE || (j == JAC_AUTO && m.nv >= 60)
}

/// The constraint Jacobian in MuJoCo's data.
pub(super) fn jacobian<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> Jacobian<'a> {
    let (nefc, nv) = (d.nefc.max(0) as usize, m.nv as usize);
    // SAFETY: mjData's constraint arrays of their documented lengths (nJ non-zeros when sparse,
    // nefc x nv when dense), read only.
    unsafe {
        if is_sparse(m) {
            let nj = d.nJ.max(0) as usize;
            Jacobian::Sparse {
                rownnz: slice(d.efc_J_rownnz, nefc),
                rowadr: slice(d.efc_J_rowadr, nefc),
                rowsuper: slice(d.efc_J_rowsuper, nefc),
                colind: slice(d.efc_J_colind, nj),
                j: slice(d.efc_J, nj),
            }
        } else {
            Jacobian::Dense { nv, j: slice(d.efc_J, nefc * nv) }
        }
    }
}

thread_local! {
    /// The contacts' fields the reference stage reads, when surface velocity or adhesion is on.
    static CONTACTS: RefCell<Vec<ContactRef>> = const { RefCell::new(Vec::new()) };
    /// The projection's work arrays (MuJoCo's are on its stack).
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
    /// `mj_Jdotv`'s work arrays.
    static JDOT: RefCell<JdotScratch> = RefCell::new(JdotScratch::default());
}

/// Why `mj_referenceConstraint` must stay MuJoCo's, if it must: with equality rows (`ne > 0`)
/// the library adds their `Jdot v` correction (`mj_Jdotv`, D51) in a stack frame, which specula
/// does for connect, weld and joint equalities on MuJoCo's own stack (not the thread pool's)
/// when the frame fits. Everything else the function does is row-generic.
pub(super) fn reference_out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if d.ne <= 0 || m.nv <= 0 {
        return None;
    }
    if !super::constraint_equality::equalities_in_scope(m) {
        return Some(Fallback::Equality);
    }
    // SAFETY: the flag's byte (any value other than 0 takes the locked path).
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    let (blocks, n) = super::constraint_equality::jdotv_stack(m, d, is_sparse(m))?;
    super::stack::memory(d).frame(&blocks[..n]).is_err().then_some(Fallback::StackFull)
}

/// Runs the Rust stage in place of `mj_referenceConstraint` if the state is inside its scope;
/// the reason, with nothing written, when it is not.
#[inline(never)]
pub(super) fn try_reference(m: &sys::mjModel, d: &mut sys::mjData) -> Option<Fallback> {
    let why = reference_out_of_scope(m, d);
    if why.is_none() {
        reference(m, d);
    }
    why
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_referenceConstraint`.
pub(super) fn reference(m: &sys::mjModel, d: &mut sys::mjData) {
    // SAFETY: the two flags read as bytes (the library compares them with 1).
    let (surfacevel, adhesion) =
        unsafe { (byte(&raw const m.flg_surfacevel) == 1, byte(&raw const m.flg_adhesion) == 1) };
    if surfacevel || adhesion {
        return reference_with_contacts(m, d, surfacevel, adhesion);
    }
    // the contacts are not read: no copy of them
    write_reference(m, d, &[], [false; 2]);
}

/// [`reference`] with surface velocities or adhesion, which read the contacts (out of line: most
/// models have neither).
#[cold]
#[inline(never)]
fn reference_with_contacts(m: &sys::mjModel, d: &mut sys::mjData, surfacevel: bool, adhesion: bool) {
    CONTACTS.with(|c| {
        let mut contacts = c.borrow_mut();
        contacts.clear();
        // SAFETY: the ncon contacts at d->contact.
        let con = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
        contacts.extend(con.iter().map(|c| ContactRef {
            efc_address: c.efc_address,
            dim: c.dim,
            friction: c.friction,
            surfacevel: c.surfacevel,
            adhesion: c.adhesion,
        }));
        write_reference(m, d, &contacts, [surfacevel, adhesion]);
    });
}

/// Writes `efc_vel` and `efc_aref` (`flags`: surface velocity, adhesion).
#[inline]
fn write_reference(m: &sys::mjModel, d: &mut sys::mjData, contacts: &[ContactRef], flags: [bool; 2]) {
    let nefc = d.nefc.max(0) as usize;
    // SAFETY: mjData's arrays of their documented lengths; efc_vel and efc_aref (distinct from
    // the inputs) are written only here.
    let (inp, vel, aref) = unsafe {
        let inp = ReferenceInput {
            qvel: slice(d.qvel, m.nv as usize),
            efc_pos: slice(d.efc_pos, nefc),
            efc_margin: slice(d.efc_margin, nefc),
            efc_kbip: slice(d.efc_KBIP, 4 * nefc),
            efc_r: slice(d.efc_R, nefc),
            contacts,
            surfacevel: flags[0],
            adhesion: flags[1],
            elliptic: m.opt.cone != 0,
            discrete: m.opt.integrator == INT_DISCRETE,
            timestep: m.opt.timestep,
        };
        (inp, slice_mut(d.efc_vel, nefc), slice_mut(d.efc_aref, nefc))
    };
    if d.ne <= 0 {
        return refc::reference_constraint(&jacobian(m, d), &inp, vel, aref);
    }
    // the equality rows' Jdot v, in mj_Jdotv's stack frame (checked by the scope test)
    if let Some((blocks, n)) = super::constraint_equality::jdotv_stack(m, d, is_sparse(m)) {
        let mut mem = super::stack::memory(d);
        if mem.frame(&blocks[..n]).is_ok() {
            d.maxuse_stack = mem.maxuse_stack as sys::mjtSize;
            d.maxuse_arena = mem.maxuse_arena as sys::mjtSize;
        }
    }
    let ne = d.ne as usize;
    let em = super::constraint_equality::equality_model(m);
    let st = super::constraint_equality::equality_state(m, d);
    let jm = super::constraint_contact::contact_model(m).jac;
    // SAFETY: efc_id has nefc >= ne rows, read only.
    let ids = unsafe { slice(d.efc_id, ne) };
    let sparse = is_sparse(m);
    JDOT.with(|s| {
        let s = &mut *s.borrow_mut();
        refc::reference_constraint_with(&jacobian(m, d), &inp, vel, aref, |aref| {
            jdotv(&em, &jm, &st, sparse, ids, aref, s);
        });
    });
}

/// The arrays `mj_referenceConstraint` writes.
pub(super) fn reference_outputs(_m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nefc = d.nefc.max(0) as usize;
    vec![Field::f64("efc_vel", d.efc_vel, nefc), Field::f64("efc_aref", d.efc_aref, nefc)]
}

/// The dual solvers' flag (`mj_isDual`: PGS, or noslip iterations).
fn is_dual(m: &sys::mjModel) -> bool {
    m.opt.solver == SOL_PGS || m.opt.noslip_iterations > 0
}

/// Why `mj_projectConstraint` must stay MuJoCo's for this model and state, if it must (the exact
/// diagonal, `mjENBL_DIAGEXACT`, which reruns `mj_makeImpedance`, runs in Rust, D71): the
/// effective metric outside the discrete integrator (the library then solves with `qH`), the locked stack of a thread
/// pool, and, for a sparse Jacobian, an empty constraint row in the numeric phase (the library then
/// adds `R` to the next row's first entry). With no rows, or neither a dual solver nor the exact
/// diagonal, the library does nothing and neither does the Rust stage.
pub(super) fn project_out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    let exact = m.opt.enableflags & ENBL_DIAGEXACT != 0;
    if d.nefc == 0 || !(is_dual(m) || exact) {
        return None;
    }
    // SAFETY: the flag's byte (any value other than 0 takes the locked path).
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return Some(Fallback::ThreadLock);
    }
    if m.opt.integrator == INT_DISCRETE {
        // the symbolic phases alone: neither the factor nor the impedance
        return None;
    }
    if d.efm_active != 0 {
        return Some(Fallback::EffectiveMetric);
    }
    // SAFETY: the sparse row counts (nefc), read only.
    (is_sparse(m) && unsafe { slice(d.efc_J_rownnz, d.nefc.max(0) as usize) }.contains(&0))
        .then_some(Fallback::EmptyRow)
}

/// The projection's work arrays.
#[derive(Default)]
struct Scratch {
    sqrt_inv_d: Vec<f64>,
    marker: Vec<i32>,
    yt: Vec<f64>,
    yt_rownnz: Vec<i32>,
    yt_rowadr: Vec<i32>,
    yt_colind: Vec<i32>,
    ar_cols: Vec<i32>,
    mark: Vec<i32>,
    diagind: Vec<i32>,
    upper: Vec<i32>,
    buffer: Vec<f64>,
}

/// `v` resized to `n` elements (its values are overwritten by the caller).
fn sized<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    v.resize(n, T::default());
    &mut v[..n]
}

/// The projection's struct fields, saved so that a stack overflow can hand the call back to MuJoCo.
struct Saved {
    parena: usize,
    maxuse: (i64, i64),
    counts: (i32, i32),
    y: [*mut i32; 3],
    yv: *mut f64,
    ar: [*mut i32; 3],
    arv: *mut f64,
}

impl Saved {
    fn take(d: &sys::mjData) -> Saved {
        Saved {
            parena: d.parena,
            maxuse: (d.maxuse_stack, d.maxuse_arena),
            counts: (d.nY, d.nA),
            y: [d.efc_Y_rownnz, d.efc_Y_rowadr, d.efc_Y_colind],
            yv: d.efc_Y,
            ar: [d.efc_AR_rownnz, d.efc_AR_rowadr, d.efc_AR_colind],
            arv: d.efc_AR,
        }
    }

    fn restore(&self, d: &mut sys::mjData) {
        d.parena = self.parena;
        (d.maxuse_stack, d.maxuse_arena) = self.maxuse;
        (d.nY, d.nA) = self.counts;
        [d.efc_Y_rownnz, d.efc_Y_rowadr, d.efc_Y_colind] = self.y;
        d.efc_Y = self.yv;
        [d.efc_AR_rownnz, d.efc_AR_rowadr, d.efc_AR_colind] = self.ar;
        d.efc_AR = self.arv;
    }
}

/// How a replayed allocation went.
enum Failed {
    /// The arena was full: the library warns and clears the constraints.
    Arena,
    /// The stack overflowed: the library raises `mju_error`.
    Stack,
}

impl From<StackOverflow> for Failed {
    fn from(_: StackOverflow) -> Failed {
        Failed::Stack
    }
}

/// The phases of `mj_projectConstraint` a call runs.
#[derive(Clone, Copy)]
struct Phases {
    /// `efc_AR` too (a dual solver), not only `efc_Y`.
    ar: bool,
    /// The numeric phases (all but the discrete integrator).
    numeric: bool,
    /// The exact diagonal and the impedance again (`mjENBL_DIAGEXACT`, numeric phases only).
    exact: bool,
}

/// Runs the Rust stage in place of `mj_projectConstraint` if the model and state are inside its
/// scope; the reason, with nothing written, when they are not.
#[inline]
pub(super) fn try_project(m: &sys::mjModel, d: &mut sys::mjData) -> Option<Fallback> {
    if !projects(m, d) {
        // nothing to do (most models: no dual solver), decided before any call
        return None;
    }
    try_projection(m, d)
}

/// Whether `mj_projectConstraint` does anything: rows, and a dual solver or the exact diagonal.
#[inline]
fn projects(m: &sys::mjModel, d: &sys::mjData) -> bool {
    d.nefc != 0 && (is_dual(m) || m.opt.enableflags & ENBL_DIAGEXACT != 0)
}

/// [`try_project`] once [`projects`] said there is work.
#[inline(never)]
fn try_projection(m: &sys::mjModel, d: &mut sys::mjData) -> Option<Fallback> {
    let why = project_out_of_scope(m, d);
    if why.is_none() {
        project(m, d);
    }
    why
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_projectConstraint`.
pub(super) fn project(m: &sys::mjModel, d: &mut sys::mjData) {
    let exact = m.opt.enableflags & ENBL_DIAGEXACT != 0;
    if d.nefc == 0 || !(is_dual(m) || exact) {
        return;
    }
    let numeric = m.opt.integrator != INT_DISCRETE;
    let phases = Phases { ar: is_dual(m), numeric, exact: numeric && exact };
    let saved = Saved::take(d);
    let mut arena = super::stack::memory(d);
    let run = SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        if is_sparse(m) {
            project_sparse(m, d, phases, &mut arena, s)
        } else {
            project_dense(m, d, phases, &mut arena, s)
        }
    });
    match run {
        Ok(()) => settle(d, &arena),
        Err(Failed::Arena) => {
            arena.free_all();
            settle(d, &arena);
            constraints_full(d);
        }
        Err(Failed::Stack) => {
            // the library's mju_error, with its own message: hand the whole call back to it
            saved.restore(d);
            library(Stage::ProjectConstraint, m, d, Args::NONE);
        }
    }
}

/// Writes the replayed arena use and high-water marks back (the stack ends where it started).
fn settle(d: &mut sys::mjData, arena: &Arena) {
    d.parena = arena.parena;
    d.maxuse_stack = arena.maxuse_stack as i64;
    d.maxuse_arena = arena.maxuse_arena as i64;
}

/// The address of an arena allocation of `n` elements of `T`, or the arena-full failure.
fn place<T>(d: &sys::mjData, arena: &mut Arena, n: usize) -> Option<*mut T> {
    arena.alloc(n * size_of::<T>(), align_of::<T>()).map(|off| d.arena.cast::<u8>().wrapping_add(off).cast::<T>())
}

/// Both allocations of a pair are tried before the library checks them.
fn pair<A, B>(a: Option<A>, b: Option<B>) -> Result<(A, B), Failed> {
    match (a, b) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(Failed::Arena),
    }
}

/// The factor the projection solves with.
fn factor<'a>(m: &'a sys::mjModel, d: &sys::mjData) -> Factor<'a> {
    let (nv, nc) = (m.nv as usize, m.nC as usize);
    // SAFETY: the model's inertia pattern and the data's factor, of their documented lengths.
    unsafe {
        Factor {
            m_rownnz: slice(m.M_rownnz, nv),
            m_rowadr: slice(m.M_rowadr, nv),
            m_colind: slice(m.M_colind, nc),
            qld: slice(d.qLD, nc),
            dof_simplenum: slice(m.dof_simplenum, nv),
        }
    }
}

/// The dense projection: `efc_Y` (`nefc nv`) and `efc_AR` (`nefc^2`) in the arena, their work
/// arrays on the (replayed) stack.
fn project_dense(
    m: &sys::mjModel,
    d: &mut sys::mjData,
    phases: Phases,
    arena: &mut Arena,
    s: &mut Scratch,
) -> Result<(), Failed> {
    let (nefc, nv) = (d.nefc as usize, m.nv as usize);
    // mj_makeYSymbolic
    d.nY = d.nefc.wrapping_mul(m.nv as i32);
    let ny = d.nY.max(0) as usize;
    d.efc_Y = place::<f64>(d, arena, ny).ok_or(Failed::Arena)?;
    if !phases.numeric {
        if phases.ar {
            d.nA = d.nefc.wrapping_mul(d.nefc);
            d.efc_AR = place::<f64>(d, arena, d.nA.max(0) as usize).ok_or(Failed::Arena)?;
        }
        return Ok(());
    }
    // mj_makeYNumeric
    arena.mark()?;
    arena.stack_alloc(8 * nv, 8)?;
    let f = factor(m, d);
    let sqrt_inv_d = sized(&mut s.sqrt_inv_d, nv);
    project::sqrt_inv_d(&f, sqrt_inv_d);
    // SAFETY: J (nefc nv) is read; efc_Y was just placed in the arena, past every input.
    let (j, y) = unsafe { (slice(d.efc_J, nefc * nv), slice_mut(d.efc_Y, ny)) };
    project::y_dense(&f, j, sqrt_inv_d, y);
    if phases.exact {
        // SAFETY: efc_diagA holds nefc rows, apart from efc_Y.
        project::exact_diagonal_dense(y, nv, unsafe { slice_mut(d.efc_diagA, nefc) });
    }
    arena.free();
    if phases.exact {
        super::constraint::impedance_exact(m, d);
    }
    if !phases.ar {
        return Ok(());
    }
    // mj_makeARSymbolic
    d.nA = d.nefc.wrapping_mul(d.nefc);
    let na = d.nA.max(0) as usize;
    d.efc_AR = place::<f64>(d, arena, na).ok_or(Failed::Arena)?;
    // mj_makeARNumeric
    arena.mark()?;
    arena.stack_alloc(8 * nefc * nv, 8)?;
    // SAFETY: efc_Y and efc_R are read; efc_AR was just placed past them.
    let (y, r, ar) = unsafe { (slice(d.efc_Y, ny), slice(d.efc_R, nefc), slice_mut(d.efc_AR, na)) };
    project::ar_dense(y, nv, r, sized(&mut s.yt, nefc * nv), ar);
    arena.free();
    Ok(())
}

/// The sparse projection, allocation by allocation as the library makes them.
fn project_sparse(
    m: &sys::mjModel,
    d: &mut sys::mjData,
    phases: Phases,
    arena: &mut Arena,
    s: &mut Scratch,
) -> Result<(), Failed> {
    let (nefc, nv) = (d.nefc as usize, m.nv as usize);
    // mj_makeYSymbolic: the row arrays, then the count on the stack, then the values and columns
    let (rownnz, rowadr) = pair(place::<i32>(d, arena, nefc), place::<i32>(d, arena, nefc))?;
    (d.efc_Y_rownnz, d.efc_Y_rowadr) = (rownnz, rowadr);
    arena.mark()?;
    arena.stack_alloc(4 * nv, 4)?;
    let f = factor(m, d);
    let nj = d.nJ.max(0) as usize;
    // SAFETY: J's pattern and values are read; the Y row arrays were just placed past them.
    let (jp, jv) = unsafe {
        let jp = Pattern {
            rownnz: slice(d.efc_J_rownnz, nefc),
            rowadr: slice(d.efc_J_rowadr, nefc),
            colind: slice(d.efc_J_colind, nj),
        };
        (jp, slice(d.efc_J, nj))
    };
    // SAFETY: as above.
    let (y_rownnz, y_rowadr) = unsafe { (slice_mut(rownnz, nefc), slice_mut(rowadr, nefc)) };
    d.nY = sparse::y_precount(&jp, &f, sized(&mut s.marker, nv), y_rownnz, y_rowadr);
    arena.free();
    let ny = d.nY.max(0) as usize;
    let (yv, ycol) = pair(place::<f64>(d, arena, ny), place::<i32>(d, arena, ny))?;
    (d.efc_Y, d.efc_Y_colind) = (yv, ycol);
    // SAFETY: the Y arrays were just placed in the arena, distinct from each other and the inputs.
    let (y_colind, y) = unsafe { (slice_mut(ycol, ny), slice_mut(yv, ny)) };
    if phases.numeric {
        // mj_makeYNumeric
        arena.mark()?;
        arena.stack_alloc(8 * nv, 8)?;
        let sqrt_inv_d = sized(&mut s.sqrt_inv_d, nv);
        project::sqrt_inv_d(&f, sqrt_inv_d);
        // SAFETY: efc_diagA holds nefc rows, apart from the Y arrays.
        let diag = phases.exact.then(|| unsafe { slice_mut(d.efc_diagA, nefc) });
        sparse::y_numeric(&jp, jv, &f, sqrt_inv_d, y_rownnz, y_rowadr, y_colind, y, diag);
        arena.free();
        if phases.exact {
            super::constraint::impedance_exact(m, d);
        }
    } else {
        // the discrete integrator's symbolic phase lays out the columns itself
        sparse::y_columns(&jp, &f, y_rownnz, y_rowadr, y_colind);
    }
    if !phases.ar {
        return Ok(());
    }
    let yp = Pattern { rownnz: y_rownnz, rowadr: y_rowadr, colind: y_colind };
    // Y's transpose, pattern and values (the library builds the pattern in mj_makeARSymbolic and
    // both again in mj_makeARNumeric, on its stack)
    sparse::transpose(
        &yp,
        phases.numeric.then_some(&*y),
        sized(&mut s.yt_rownnz, nv),
        sized(&mut s.yt_rowadr, nv),
        sized(&mut s.yt_colind, ny),
        phases.numeric.then(|| sized(&mut s.yt, ny)),
    );
    let ytp = Pattern { rownnz: &s.yt_rownnz, rowadr: &s.yt_rowadr, colind: &s.yt_colind };
    // mj_makeARSymbolic
    arena.mark()?;
    for (bytes, align) in [(4 * nv, 4), (4 * nv, 4), (4 * ny, 4)] {
        arena.stack_alloc(bytes, align)?;
    }
    let (rownnz, rowadr) = pair(place::<i32>(d, arena, nefc), place::<i32>(d, arena, nefc))?;
    (d.efc_AR_rownnz, d.efc_AR_rowadr) = (rownnz, rowadr);
    arena.stack_alloc(4 * nefc, 4)?;
    // the count, then the fill, each in a frame of its own
    symbolic_frame(arena, nv, nefc, false)?;
    // SAFETY: the AR row arrays were just placed in the arena.
    let (ar_rownnz, ar_rowadr) = unsafe { (slice_mut(rownnz, nefc), slice_mut(rowadr, nefc)) };
    d.nA = sparse::ar_symbolic(&yp, &ytp, sized(&mut s.mark, nefc), ar_rownnz, ar_rowadr, &mut s.ar_cols);
    let na = d.nA.max(0) as usize;
    let (arv, arcol) = pair(place::<f64>(d, arena, na), place::<i32>(d, arena, na))?;
    (d.efc_AR, d.efc_AR_colind) = (arv, arcol);
    symbolic_frame(arena, nv, nefc, true)?;
    // SAFETY: as above.
    let ar_colind = unsafe { slice_mut(arcol, na) };
    ar_colind.copy_from_slice(&s.ar_cols[..na]);
    arena.free();
    if !phases.numeric {
        return Ok(());
    }
    // mj_makeARNumeric
    arena.mark()?;
    for (bytes, align) in [(4 * nv, 4), (4 * nv, 4), (4 * ny, 4), (8 * ny, 8), (4 * nefc, 4)] {
        arena.stack_alloc(bytes, align)?;
    }
    arena.mark()?;
    arena.stack_alloc(64 * nefc, 8)?;
    arena.stack_alloc(4 * nefc, 4)?;
    arena.free();
    let arp = Pattern { rownnz: ar_rownnz, rowadr: ar_rowadr, colind: ar_colind };
    let diagind = sized(&mut s.diagind, nefc);
    sparse::ar_diagonal_index(&arp, diagind);
    let buffer = sized(&mut s.buffer, nefc);
    buffer.fill(0.0);
    // SAFETY: efc_R is read; efc_AR was just placed in the arena.
    let (r, ar) = unsafe { (slice(d.efc_R, nefc), slice_mut(arv, na)) };
    sparse::ar_numeric(&yp, y, &ytp, &s.yt, &arp, diagind, r, buffer, sized(&mut s.upper, nefc), ar);
    arena.free();
    Ok(())
}

/// The stack frame of one call of 4.0.0's `mju_sqrMatTDSparseSymbolic` (`nr` rows of `Y'`, `nc`
/// of `Y`): a marker, a row buffer and row starts, and in fill mode the lower counts.
fn symbolic_frame(arena: &mut Arena, nr: usize, nc: usize, fill: bool) -> Result<(), StackOverflow> {
    if nr == 0 || nc == 0 {
        return Ok(());
    }
    arena.mark()?;
    arena.stack_alloc(4 * nc, 4)?;
    arena.stack_alloc(4 * nc, 4)?;
    arena.stack_alloc(4 * nr, 4)?;
    if fill {
        arena.stack_alloc(4 * nc, 4)?;
    }
    arena.free();
    Ok(())
}

/// The library's out-of-arena path (`mjWARN_CNSTRFULL`, then `mj_clearEfc`): the warning (its
/// message on the first occurrence), the constraint counts and arrays cleared, the contacts
/// unlinked from their rows and the arena cut back to the contacts.
fn constraints_full(d: &mut sys::mjData) {
    let narena = d.narena;
    let w = &mut d.warning[WARN_CNSTRFULL];
    w.lastinfo = narena as i32;
    if w.number == 0 {
        // SAFETY: MuJoCo's formatter returns a NUL-terminated string in its own buffer.
        let size = unsafe { CStr::from_ptr(sys::mju_writeNumBytes(narena as i32 as i64 as usize)) };
        let text = format!(
            "Insufficient arena memory for the number of constraints generated. Increase arena memory allocation above {} bytes.",
            size.to_string_lossy()
        );
        let text = CString::new(text).expect("no NUL in the message");
        // SAFETY: MuJoCo's printf-style warning with a matching string and double argument.
        unsafe { sys::mju_warning(c"%s Time = %.4f.".as_ptr(), text.as_ptr(), d.time) };
    }
    d.warning[WARN_CNSTRFULL].number += 1;
    (d.ne, d.nf, d.nl, d.nefc, d.nJ, d.efm_active, d.nefmK, d.nefmcon) = (0, 0, 0, 0, 0, 0, 0, 0);
    (d.nefmT, d.nefmA, d.nefmdof, d.nefmL, d.nY, d.nA, d.nisland, d.nidof) = (0, 0, 0, 0, 0, 0, 0, 0);
    let from = std::mem::offset_of!(sys::mjData, efc_type);
    let to = std::mem::offset_of!(sys::mjData, ifrc_constraint) + size_of::<*mut f64>();
    // SAFETY: the bytes of mjData's constraint and island pointers, efc_type to ifrc_constraint
    // (consecutive pointer fields), set to NULL as the library's memset does.
    unsafe { std::ptr::write_bytes((d as *mut sys::mjData).cast::<u8>().add(from), 0, to - from) };
    d.contact = d.arena.cast();
    let ncon = d.ncon.max(0) as usize;
    // SAFETY: the ncon contacts at the start of the arena.
    for c in unsafe { slice_mut(d.contact, ncon) } {
        c.efc_address = -1;
    }
    d.parena = ncon * size_of::<sys::mjContact>();
}

/// The arrays `mj_projectConstraint` writes, read after it ran (they live in the arena).
pub(super) fn project_outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let exact = m.opt.enableflags & ENBL_DIAGEXACT != 0;
    if d.nefc == 0 || !(is_dual(m) || exact) {
        return Vec::new();
    }
    let (nefc, ny, na) = (d.nefc.max(0) as usize, d.nY.max(0) as usize, d.nA.max(0) as usize);
    let mut out = vec![Field::f64("efc_Y", d.efc_Y, ny)];
    if is_sparse(m) {
        out.push(Field::i32("efc_Y_rownnz", d.efc_Y_rownnz, nefc));
        out.push(Field::i32("efc_Y_rowadr", d.efc_Y_rowadr, nefc));
        out.push(Field::i32("efc_Y_colind", d.efc_Y_colind, ny));
    }
    if is_dual(m) {
        out.push(Field::f64("efc_AR", d.efc_AR, na));
        if is_sparse(m) {
            out.push(Field::i32("efc_AR_rownnz", d.efc_AR_rownnz, nefc));
            out.push(Field::i32("efc_AR_rowadr", d.efc_AR_rowadr, nefc));
            out.push(Field::i32("efc_AR_colind", d.efc_AR_colind, na));
        }
    }
    if exact {
        // the exact diagonal and the impedance made again from it (D71)
        out.push(Field::f64("efc_diagA", d.efc_diagA, nefc));
        out.push(Field::f64("efc_KBIP", d.efc_KBIP, 4 * nefc));
        out.push(Field::f64("efc_D", d.efc_D, nefc));
        out.push(Field::f64("efc_R", d.efc_R, nefc));
        if d.nisland > 0 {
            out.push(Field::f64("iefc_D", d.iefc_D, nefc));
            out.push(Field::f64("iefc_R", d.iefc_R, nefc));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Both stages against the library's functions, call by call and bit for bit (arrays, struct,
    //! arena and stack marks), with the dual solvers in every combination of Jacobian, cone and
    //! integrator, on a scene with contacts, joint limits and friction loss.
    use super::super::compare::Tamper;
    use super::super::{Stage, StageSet};
    use crate::diff::{diff_stages, StageDiffOptions};
    use crate::mj::Model;
    use crate::sim::Start;

    /// Twelve boxes resting on a plane beside a limited hinge-hinge-slide chain.
    fn scene(option: &str) -> String {
        let boxes: String = (0..12)
            .map(|i| {
                let (x, y, z) = (0.25 * (i % 4) as f64 - 0.4, 0.25 * (i / 4) as f64 - 0.3, 0.1 + 0.001 * i as f64);
                format!(r#"<body pos="{x} {y} {z}"><freejoint/><geom type="box" size=".1 .1 .1"/></body>"#)
            })
            .collect();
        format!(
            r#"<mujoco><option {option}/><default><joint limited="true" frictionloss=".02"/></default>
            <worldbody><geom type="plane" size="5 5 .1"/>
              <body pos="0 1 .6"><joint type="hinge" axis="0 1 0" range="-20 20"/>
                <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
                <body pos=".3 0 0"><joint type="hinge" axis="0 1 0" range="-30 30"/>
                  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
                  <body pos=".3 0 0"><joint type="slide" axis="0 0 1" range="-.2 .2"/>
                    <geom type="sphere" size=".08"/></body></body></body>{boxes}</worldbody></mujoco>"#
        )
    }

    fn stages() -> StageSet {
        StageSet::NONE.with(Stage::ProjectConstraint).with(Stage::ReferenceConstraint)
    }

    #[test]
    fn every_call_matches_the_library() {
        for solver in [r#"solver="PGS""#, r#"noslip_iterations="2""#] {
            for jacobian in ["dense", "sparse"] {
                for cone in ["pyramidal", "elliptic"] {
                    for integrator in ["Euler", "implicitfast", "RK4", "discrete"] {
                        let option =
                            format!(r#"{solver} jacobian="{jacobian}" cone="{cone}" integrator="{integrator}""#);
                        let model = Model::from_xml_str(&scene(&option)).expect("model");
                        let opts = StageDiffOptions { steps: 40, start: Start::Qpos0, stages: stages(), tamper: None };
                        let r = diff_stages(&model, &opts).expect("run");
                        assert!(r.matches(), "{option}: {:?}", r.first);
                        for stage in [Stage::ProjectConstraint, Stage::ReferenceConstraint] {
                            let i = Stage::ALL.iter().position(|&s| s == stage).expect("stage");
                            assert!(r.compared[i] >= 40 && r.skipped[i] == 0, "{option}: {stage:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_comparison_sees_a_changed_result() {
        let model = Model::from_xml_str(&scene(r#"solver="PGS" jacobian="sparse""#)).expect("model");
        for (stage, field) in [(Stage::ProjectConstraint, "efc_AR"), (Stage::ReferenceConstraint, "efc_aref")] {
            let tamper = Some(Tamper::Output(stage));
            let opts = StageDiffOptions { steps: 3, start: Start::Qpos0, stages: stages(), tamper };
            let first = diff_stages(&model, &opts).expect("run").first.expect("a difference");
            assert_eq!((first.stage, first.field), (stage, field));
        }
    }
}
