//! `mj_island` in Rust inside MuJoCo's step: the view of MuJoCo's model and constraint rows
//! that `specula_engine::dynamics::island` reads, the island arrays' places in the arena and
//! the stack and arena high-water marks as the library leaves them, its arena-full path, and the
//! models left to it (`docs/measurements.md` D12).

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::island::{self, IslandModel, IslandOutput, IslandRows, IslandScratch, Partition};
use specula_engine::dynamics::project::Arena;

use super::fields::Field;
use super::{byte, library, slice, slice_mut, Args, Fallback, Stage};

/// Why `mj_island` must stay MuJoCo's for this model and state, if it must (`docs/measurements.md`
/// D12). Islands disabled is in scope (the library only zeroes the two counts), and so is a
/// call without rows on a model without flexes. Otherwise: flexes (their contacts, equality
/// rows and stiffness couple trees through the flex's bodies) and the discrete integrator (it
/// couples trees through tendons, actuators and flex stiffness too), tendons (their rows'
/// trees come from a scan of the Jacobian), tendon or flex equalities (D52), plugins, sleep with asleep trees,
/// and a data on the thread pool's locked stack. Scalars only, read on every call.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    let opt = &m.opt;
    if opt.disableflags & sys::mjDSBL_ISLAND as i32 != 0 || (d.nefc == 0 && m.nflex == 0) {
        return None;
    }
    let asleep = opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && (d.ntree_awake as i64) < m.ntree;
    // SAFETY: the flag's byte, read as a byte (the library takes any value but 0 and 1 as set
    // for marking and as unset for allocating: left to it).
    let locked = unsafe { byte(&raw const d.threadlock) } != 0;
    let why = [
        (m.nflex > 0, Fallback::Flex),
        (opt.integrator == sys::mjINT_DISCRETE as i32, Fallback::Discrete),
        (m.ntendon > 0, Fallback::Tendon),
        (d.ne > 0 && !super::constraint_equality::equalities_in_scope(m), Fallback::Equality),
        (m.nplugin > 0, Fallback::Plugin),
        (asleep, Fallback::Asleep),
        (locked, Fallback::ThreadLock),
    ];
    why.iter().find(|w| w.0).map(|w| w.1)
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Buffers reused from call to call.
#[derive(Default)]
struct Scratch {
    /// The engine stage's arrays.
    island: IslandScratch,
    /// The two geoms of each contact (`ncon`).
    geom: Vec<[i32; 2]>,
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_island`; MuJoCo's function instead
/// where the library would raise an error (a row without a dynamic tree, a row of a kind the
/// scope test let through, a stack overflow), before anything is written.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    if m.opt.disableflags & sys::mjDSBL_ISLAND as i32 != 0 || d.nefc <= 0 {
        d.nisland = 0;
        d.nidof = 0;
        return;
    }
    if !SCRATCH.with(|s| run(m, d, &mut s.borrow_mut())) {
        library(Stage::Island, m, d, Args::NONE);
    }
}

/// The stage's view of MuJoCo's model.
fn model_view(m: &sys::mjModel) -> IslandModel<'_> {
    let (nv, njnt, nbody, ngeom, ntree) =
        (m.nv as usize, m.njnt as usize, m.nbody as usize, m.ngeom as usize, m.ntree as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        IslandModel {
            dof_treeid: slice(m.dof_treeid, nv),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            body_treeid: slice(m.body_treeid, nbody),
            geom_bodyid: slice(m.geom_bodyid, ngeom),
            tree_dofnum: slice(m.tree_dofnum, ntree),
            equality: super::constraint_equality::island_equality(m),
        }
    }
}

/// The rows `mj_makeConstraint` wrote, and the contacts' geoms copied into `geom`.
fn rows_view<'a>(m: &sys::mjModel, d: &'a sys::mjData, geom: &'a [[i32; 2]]) -> IslandRows<'a> {
    let nefc = d.nefc as usize;
    // SAFETY: the arena's efc arrays of nefc rows, read only.
    unsafe {
        IslandRows {
            efc_type: slice(d.efc_type, nefc),
            efc_id: slice(d.efc_id, nefc),
            efc_frictionloss: slice(d.efc_frictionloss, nefc),
            efc_d: slice(d.efc_D, nefc),
            efc_r: slice(d.efc_R, nefc),
            contact_geom: geom,
            jac: super::constraint_equality::row_jacobian(m, d),
        }
    }
}

/// The stage proper; false (nothing written) where the call is left to the library.
fn run(m: &sys::mjModel, d: &mut sys::mjData, s: &mut Scratch) -> bool {
    let view = model_view(m);
    s.geom.clear();
    // SAFETY: the arena's ncon contacts, read only.
    s.geom.extend(unsafe { slice(d.contact, d.ncon.max(0) as usize) }.iter().map(|c| c.geom));
    let part = match island::partition(&view, &rows_view(m, d, &s.geom), &mut s.island) {
        Ok(part) => part,
        Err(_) => return false,
    };
    let Some(layout) = layout(d, m.ntree as usize, m.nv as usize, part) else { return false };
    d.maxuse_stack = layout.maxuse_stack;
    d.maxuse_arena = layout.maxuse_arena;
    match layout.plan {
        Plan::Empty => {
            d.nisland = 0;
            d.nidof = 0;
        }
        Plan::Full => constraint_full(d),
        Plan::Placed => {
            d.nisland = part.nisland as i32;
            d.nidof = part.nidof as i32;
            set_pointers(d, &layout.place);
            d.parena = layout.parena;
            let mut out = output(m, d);
            island::fill(&view, &rows_view(m, d, &s.geom), &mut s.island, &mut out);
        }
    }
    true
}

/// The number of elements an island array has.
#[derive(Clone, Copy)]
enum Len {
    Ntree,
    Nisland,
    Nv,
    Nidof,
    Nefc,
}

/// Number of island arrays (`MJDATA_ARENA_POINTERS_ISLAND`).
const NARRAY: usize = 29;

/// Defines the island arrays in the library's allocation order (mjxmacro.h's
/// `MJDATA_ARENA_POINTERS_ISLAND`): their lengths and element sizes, and the setter of their
/// `mjData` pointers.
macro_rules! island_arrays {
    ($($name:ident: $t:ty, $len:ident;)*) => {
        /// Length and element size (also the alignment) of each island array, in order.
        const ARRAYS: [(Len, usize); NARRAY] = [$((Len::$len, size_of::<$t>())),*];

        /// Points the island arrays of `d` at their places (byte offsets into the arena).
        fn set_pointers(d: &mut sys::mjData, place: &[usize; NARRAY]) {
            let base = d.arena.cast::<u8>();
            let mut at = place.iter().copied();
            $(d.$name = base.wrapping_add(at.next().unwrap_or(0)).cast::<$t>();)*
        }
    };
}

island_arrays! {
    tree_island: i32, Ntree;
    island_ntree: i32, Nisland;
    island_itreeadr: i32, Nisland;
    map_itree2tree: i32, Ntree;
    dof_island: i32, Nv;
    island_nv: i32, Nisland;
    island_idofadr: i32, Nisland;
    island_dofadr: i32, Nisland;
    map_dof2idof: i32, Nv;
    map_idof2dof: i32, Nv;
    ifrc_smooth: f64, Nidof;
    iacc_smooth: f64, Nidof;
    iacc: f64, Nidof;
    efc_island: i32, Nefc;
    island_ne: i32, Nisland;
    island_nf: i32, Nisland;
    island_nefc: i32, Nisland;
    island_iefcadr: i32, Nisland;
    map_efc2iefc: i32, Nefc;
    map_iefc2efc: i32, Nefc;
    iefc_type: i32, Nefc;
    iefc_id: i32, Nefc;
    iefc_frictionloss: f64, Nefc;
    iefc_D: f64, Nefc;
    iefc_R: f64, Nefc;
    iefc_aref: f64, Nefc;
    iefc_state: i32, Nefc;
    iefc_force: f64, Nefc;
    ifrc_constraint: f64, Nidof;
}

/// How the library's call ends.
enum Plan {
    /// No tree in any island: the two counts zeroed.
    Empty,
    /// The arena has no room for an island array: the constraint set is dropped.
    Full,
    /// Every island array has its place ([`Layout::place`]).
    Placed,
}

/// The library's call, laid out before anything is written.
struct Layout {
    plan: Plan,
    /// The island arrays' byte offsets into the arena ([`Plan::Placed`]).
    place: [usize; NARRAY],
    /// `parena` after the island arrays ([`Plan::Placed`]).
    parena: usize,
    maxuse_stack: i64,
    maxuse_arena: i64,
}

/// The library's allocations for `part`, replayed on [`Arena`] (the bookkeeping of its
/// `mj_markStack`, stack allocator and `mj_arenaAllocByte`) in its order: the stack frame, the
/// rows' trees, the union-find parents and the trees' islands on the stack (4-aligned ints);
/// then the island arrays in the arena; then two counters of `nisland + 1` on the stack.
/// `None` on a stack overflow.
fn layout(d: &sys::mjData, ntree: usize, nv: usize, part: Partition) -> Option<Layout> {
    let nefc = d.nefc as usize;
    let mut k = super::stack::memory(d);
    k.mark().ok()?;
    k.stack_alloc(4 * nefc, 4).ok()?;
    k.stack_alloc(4 * ntree, 4).ok()?;
    k.stack_alloc(4 * ntree, 4).ok()?;
    let done = |k: &Arena, plan: Plan, place: [usize; NARRAY]| {
        Some(Layout {
            plan,
            place,
            parena: k.parena,
            maxuse_stack: k.maxuse_stack as i64,
            maxuse_arena: k.maxuse_arena as i64,
        })
    };
    if part.nisland == 0 {
        return done(&k, Plan::Empty, [0; NARRAY]);
    }
    let mut place = [0; NARRAY];
    for (slot, &(len, size)) in place.iter_mut().zip(&ARRAYS) {
        let n = match len {
            Len::Ntree => ntree,
            Len::Nisland => part.nisland,
            Len::Nv => nv,
            Len::Nidof => part.nidof,
            Len::Nefc => nefc,
        };
        match k.alloc(n * size, size) {
            Some(at) => *slot = at,
            None => return done(&k, Plan::Full, place),
        }
    }
    k.stack_alloc(4 * (part.nisland + 1), 4).ok()?;
    k.stack_alloc(4 * (part.nisland + 1), 4).ok()?;
    done(&k, Plan::Placed, place)
}

/// The library's arena-full path (`mjWARN_CNSTRFULL` with the arena's size): every constraint
/// and island count zeroed, every arena array but the contacts unset, the contacts detached
/// from their rows and the arena cut back to them.
fn constraint_full(d: &mut sys::mjData) {
    // SAFETY: MuJoCo's warning function on MuJoCo's data.
    unsafe { sys::mj_warning(d, sys::mjWARN_CNSTRFULL as i32, d.narena as i32) };
    (d.ne, d.nf, d.nl, d.nefc, d.nJ, d.efm_active, d.nefmK, d.nefmcon) = (0, 0, 0, 0, 0, 0, 0, 0);
    (d.nefmT, d.nefmA, d.nefmdof, d.nefmL, d.nY, d.nA, d.nisland, d.nidof) = (0, 0, 0, 0, 0, 0, 0, 0);
    // the library clears one span of the struct: from efc_type to ifrc_constraint, every
    // arena pointer after contact (the efc, solver, island and effective-metric arrays)
    let start = std::mem::offset_of!(sys::mjData, efc_type);
    let end = std::mem::offset_of!(sys::mjData, ifrc_constraint) + size_of::<*mut f64>();
    // SAFETY: a span of pointer fields inside the struct, for which all-zero bytes are null.
    unsafe { std::ptr::write_bytes((d as *mut sys::mjData).cast::<u8>().add(start), 0, end - start) };
    d.contact = d.arena.cast::<sys::mjContact>();
    let ncon = d.ncon.max(0) as usize;
    // SAFETY: the arena's ncon contacts, written only here.
    for con in unsafe { slice_mut(d.contact, ncon) } {
        con.efc_address = -1;
    }
    d.parena = ncon * size_of::<sys::mjContact>();
}

/// The island arrays of `d`, as [`set_pointers`] placed them.
fn output<'a>(m: &sys::mjModel, d: &sys::mjData) -> IslandOutput<'a> {
    let (ntree, nv) = (m.ntree as usize, m.nv as usize);
    let (nisland, nefc) = (d.nisland as usize, d.nefc as usize);
    // SAFETY: distinct arena arrays of these lengths (laid out by `layout`), none of them
    // read or written elsewhere during the call.
    unsafe {
        IslandOutput {
            tree_island: slice_mut(d.tree_island, ntree),
            island_ntree: slice_mut(d.island_ntree, nisland),
            island_itreeadr: slice_mut(d.island_itreeadr, nisland),
            map_itree2tree: slice_mut(d.map_itree2tree, ntree),
            dof_island: slice_mut(d.dof_island, nv),
            island_nv: slice_mut(d.island_nv, nisland),
            island_idofadr: slice_mut(d.island_idofadr, nisland),
            island_dofadr: slice_mut(d.island_dofadr, nisland),
            map_dof2idof: slice_mut(d.map_dof2idof, nv),
            map_idof2dof: slice_mut(d.map_idof2dof, nv),
            efc_island: slice_mut(d.efc_island, nefc),
            island_ne: slice_mut(d.island_ne, nisland),
            island_nf: slice_mut(d.island_nf, nisland),
            island_nefc: slice_mut(d.island_nefc, nisland),
            island_iefcadr: slice_mut(d.island_iefcadr, nisland),
            map_efc2iefc: slice_mut(d.map_efc2iefc, nefc),
            map_iefc2efc: slice_mut(d.map_iefc2efc, nefc),
            iefc_type: slice_mut(d.iefc_type, nefc),
            iefc_id: slice_mut(d.iefc_id, nefc),
            iefc_frictionloss: slice_mut(d.iefc_frictionloss, nefc),
            iefc_d: slice_mut(d.iefc_D, nefc),
            iefc_r: slice_mut(d.iefc_R, nefc),
        }
    }
}

/// The arrays `mj_island` writes, read after it ran (they live in the arena; none when it
/// found no island). The other island arrays (`ifrc_smooth`, `iacc`, `iefc_aref`, ...) are
/// placed but left as the arena held them, for the solver to fill.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    if d.nisland <= 0 {
        return Vec::new();
    }
    let (ntree, nv) = (m.ntree as usize, m.nv as usize);
    let (nisland, nefc) = (d.nisland as usize, d.nefc as usize);
    vec![
        Field::i32("tree_island", d.tree_island, ntree),
        Field::i32("island_ntree", d.island_ntree, nisland),
        Field::i32("island_itreeadr", d.island_itreeadr, nisland),
        Field::i32("map_itree2tree", d.map_itree2tree, ntree),
        Field::i32("dof_island", d.dof_island, nv),
        Field::i32("island_nv", d.island_nv, nisland),
        Field::i32("island_idofadr", d.island_idofadr, nisland),
        Field::i32("island_dofadr", d.island_dofadr, nisland),
        Field::i32("map_dof2idof", d.map_dof2idof, nv),
        Field::i32("map_idof2dof", d.map_idof2dof, nv),
        Field::i32("efc_island", d.efc_island, nefc),
        Field::i32("island_ne", d.island_ne, nisland),
        Field::i32("island_nf", d.island_nf, nisland),
        Field::i32("island_nefc", d.island_nefc, nisland),
        Field::i32("island_iefcadr", d.island_iefcadr, nisland),
        Field::i32("map_efc2iefc", d.map_efc2iefc, nefc),
        Field::i32("map_iefc2efc", d.map_iefc2efc, nefc),
        Field::i32("iefc_type", d.iefc_type, nefc),
        Field::i32("iefc_id", d.iefc_id, nefc),
        Field::f64("iefc_frictionloss", d.iefc_frictionloss, nefc),
        Field::f64("iefc_D", d.iefc_D, nefc),
        Field::f64("iefc_R", d.iefc_R, nefc),
    ]
}
