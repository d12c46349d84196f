//! Copies of the parts of `mjData` a stage may change, for the in-place comparison
//! (`compare.rs`): the struct itself (sizes, arena pointers, high-water marks, warnings), the
//! main buffer, the used low end of the arena (contacts and the constraint arrays) and the
//! callers' stack frames at its high end. The arena between the two is free memory: what a
//! stage leaves there (MuJoCo's freed stack scratch) is not an output.

use mujoco_sys as sys;

use super::fields::{Array, Field};

/// A copy of what a stage may change in `mjData`.
#[derive(Default)]
pub(super) struct Snapshot {
    /// The `mjData` struct's bytes.
    pub raw: Vec<u8>,
    /// The main buffer.
    pub buffer: Vec<u8>,
    /// The arena's bytes `[0, parena)`.
    pub arena: Vec<u8>,
    /// The stack's bytes, the top `pstack` bytes of the arena.
    pub stack: Vec<u8>,
}

/// Which copy a field's bytes are in, and where.
pub(super) enum Place {
    /// In [`Snapshot::buffer`].
    Buffer(std::ops::Range<usize>),
    /// In [`Snapshot::arena`].
    Arena(std::ops::Range<usize>),
}

fn raw_bytes(d: &sys::mjData) -> &[u8] {
    // SAFETY: the struct's own bytes, read while it is borrowed (mjData has no padding that
    // MuJoCo leaves uninitialised: it is zeroed when made, and copied bytewise here).
    unsafe { std::slice::from_raw_parts((d as *const sys::mjData).cast::<u8>(), size_of::<sys::mjData>()) }
}

/// The arena's bytes `[start, end)`.
fn arena_bytes(d: &sys::mjData, start: usize, end: usize) -> &[u8] {
    if d.arena.is_null() || end <= start {
        return &[];
    }
    // SAFETY: within the arena of `narena` bytes (callers keep end <= narena).
    unsafe { std::slice::from_raw_parts(d.arena.cast::<u8>().add(start), end - start) }
}

impl Snapshot {
    /// Copies `d` (reusing this snapshot's vectors).
    pub fn take(&mut self, d: &sys::mjData) {
        self.raw.clear();
        self.raw.extend_from_slice(raw_bytes(d));
        self.buffer.clear();
        if !d.buffer.is_null() {
            // SAFETY: MuJoCo's buffer of `nbuffer` bytes.
            self.buffer
                .extend_from_slice(unsafe { std::slice::from_raw_parts(d.buffer.cast::<u8>(), d.nbuffer as usize) });
        }
        let narena = d.narena as usize;
        self.arena.clear();
        self.arena.extend_from_slice(arena_bytes(d, 0, d.parena.min(narena)));
        self.stack.clear();
        self.stack.extend_from_slice(arena_bytes(d, narena - d.pstack.min(narena), narena));
    }

    /// The arena use (`parena`) when the copy was taken.
    pub fn parena(&self) -> usize {
        self.arena.len()
    }

    /// Fills up to `len` bytes of `d`'s free arena, from where this copy's arena use ends, with
    /// one byte pattern (not a NaN as a double).
    pub fn poison(&self, d: &mut sys::mjData, len: usize) {
        let narena = d.narena as usize;
        let (start, end) = (self.arena.len(), narena - d.pstack.min(narena));
        let len = len.min(end.saturating_sub(start));
        if !d.arena.is_null() && len > 0 {
            // SAFETY: within the free part of the arena, between the used part and the stack.
            unsafe { std::ptr::write_bytes(d.arena.cast::<u8>().add(start), 0xA5, len) };
        }
    }

    /// Puts this copy back into `d` (the struct first: the buffer and arena pointers in it are
    /// the same allocations).
    pub fn restore(&self, d: &mut sys::mjData) {
        // SAFETY: the bytes were copied from this same struct type; the buffer and arena regions
        // are within their allocations (their sizes never change).
        unsafe {
            std::ptr::copy_nonoverlapping(self.raw.as_ptr(), (d as *mut sys::mjData).cast::<u8>(), self.raw.len());
            if !d.buffer.is_null() {
                std::ptr::copy_nonoverlapping(self.buffer.as_ptr(), d.buffer.cast::<u8>(), self.buffer.len());
            }
            if !d.arena.is_null() {
                let a = d.arena.cast::<u8>();
                std::ptr::copy_nonoverlapping(self.arena.as_ptr(), a, self.arena.len());
                let narena = d.narena as usize;
                std::ptr::copy_nonoverlapping(self.stack.as_ptr(), a.add(narena - self.stack.len()), self.stack.len());
            }
        }
    }
}

/// Where `f`'s bytes are in a snapshot of `d` (the buffer or the arena), `None` when it has none.
pub(super) fn place(f: &Field, d: &sys::mjData) -> Option<Place> {
    let (p, size) = match f.array {
        Array::F64(p) => (p as usize, 8),
        Array::I32(p) => (p as usize, 4),
    };
    if f.len == 0 {
        return None;
    }
    let (buffer, arena) = (d.buffer as usize, d.arena as usize);
    let span = |base: usize| p - base..p - base + size * f.len;
    if (buffer..buffer + d.nbuffer as usize).contains(&p) {
        Some(Place::Buffer(span(buffer)))
    } else if (arena..arena + d.narena as usize).contains(&p) {
        Some(Place::Arena(span(arena)))
    } else {
        None
    }
}

macro_rules! named {
    ($($f:ident),* $(,)?) => {
        vec![$((concat!("mjData.", stringify!($f)), std::mem::offset_of!(sys::mjData, $f), {
            let d = std::mem::MaybeUninit::<sys::mjData>::uninit();
            // SAFETY: the field's address only, never read.
            let p = unsafe { &raw const (*d.as_ptr()).$f };
            size_of_val_raw(p)
        })),*]
    };
}

/// Size of the field behind `p` (its type's size; nothing is read).
fn size_of_val_raw<T>(_: *const T) -> usize {
    size_of::<T>()
}

/// The `mjData` struct fields the stages may change, by name, offset and size.
fn struct_fields() -> &'static [(&'static str, usize, usize)] {
    static FIELDS: std::sync::OnceLock<Vec<(&'static str, usize, usize)>> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        named![
            time,
            pstack,
            pbase,
            parena,
            maxuse_stack,
            maxuse_arena,
            maxuse_con,
            maxuse_efc,
            ncon,
            ne,
            nf,
            nl,
            nefc,
            nJ,
            efm_active,
            nY,
            nA,
            nisland,
            nidof,
            warning,
            timer,
            contact,
            efc_type,
            efc_id,
            efc_J_rownnz,
            efc_J_rowadr,
            efc_J_rowsuper,
            efc_J_colind,
            efc_J,
            efc_pos,
            efc_margin,
            efc_frictionloss,
            efc_diagA,
            efc_KBIP,
            efc_D,
            efc_R,
            tendon_efcadr,
            efc_vel,
            efc_aref,
            efc_b,
            efc_state,
            efc_force,
            efc_Y_rownnz,
            efc_Y_rowadr,
            efc_Y_colind,
            efc_Y,
            efc_AR_rownnz,
            efc_AR_rowadr,
            efc_AR_colind,
            efc_AR,
            tree_island,
            island_ntree,
            island_itreeadr,
            map_itree2tree,
            dof_island,
            island_nv,
            island_idofadr,
            island_dofadr,
            map_dof2idof,
            map_idof2dof,
            ifrc_smooth,
            iacc_smooth,
            iacc,
            efc_island,
            island_ne,
            island_nf,
            island_nefc,
            island_iefcadr,
            map_efc2iefc,
            map_iefc2efc,
            iefc_type,
            iefc_id,
            iefc_frictionloss,
            iefc_D,
            iefc_R,
            iefc_aref,
            iefc_state,
            iefc_force,
            ifrc_constraint,
        ]
    })
}

/// The name of the `mjData` struct field at byte `offset` (the difference's index is the
/// offset).
pub(super) fn struct_field(offset: usize) -> &'static str {
    struct_fields()
        .iter()
        .find(|&&(_, at, size)| (at..at + size).contains(&offset))
        .map_or("mjData struct byte (another field)", |&(name, _, _)| name)
}
