//! Redirecting a loaded libmujoco's own calls of `mj_collision` to specula, in a running process
//! and without `LD_PRELOAD`: the mechanism behind the Python package's `specula.enable()`
//! (`python/`).
//!
//! libmujoco.so.4.0.0 calls its exported `mj_collision` through its procedure linkage table:
//! every call from `mj_step`, `mj_forward`, RK4's stages and `mujoco.rollout`'s threads jumps
//! through one `R_X86_64_JUMP_SLOT` entry of the library's global offset table
//! (`readelf -rW libmujoco.so.4.0.0 | grep mj_collision`). The loader fills that entry when it
//! loads the library (the library is linked with BIND_NOW) and then makes its page read-only
//! (full RELRO).
//!
//! Algorithm ([`install`]):
//! 1. Find every loaded object whose `DT_SONAME` is [`SONAME`] (`dl_iterate_phdr`).
//! 2. In each, walk the PLT relocations (`DT_JMPREL`, `DT_PLTRELSZ`) and name each one's symbol
//!    through `DT_SYMTAB` and `DT_STRTAB`, to the jump slot of `mj_collision`.
//! 3. Check what every slot holds before writing any: the library's own definition (or, had the
//!    library been bound lazily, an address inside the library itself) is replaced; specula's
//!    entry means already done; anything else belongs to someone else (libspecula.so preloaded,
//!    another tool) and the whole call is refused, nothing written.
//! 4. Make the slot's page writable, store [`entry`] with one aligned atomic store (a thread
//!    calling through the slot at that moment jumps to the old function or to the new one, never
//!    to a torn address), and give the page back the protection `/proc/self/maps` showed.
//!
//! [`uninstall`] stores the original values back, slot by slot, unless a slot has been changed
//! again since (then it is left alone and the call fails, saying whose it is now). Both take one
//! process-wide lock, so concurrent calls are serialised, and both are idempotent.
//!
//! MuJoCo's own `mj_collision` stays reachable through `dlsym` on the library's handle
//! ([`crate::mj::collision::library_collision`]): modes c and diff and every fallback call it
//! there. Not redirected: callers that hold the function's address from elsewhere. The Python
//! binding `mujoco.mj_collision` calls through its own extension's table, so the Python package
//! wraps that attribute instead.

use std::ffi::{c_void, CStr};
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::mj::from_c::{dladdr, DlInfo};

/// The soname of the library whose calls are redirected.
pub const SONAME: &str = "libmujoco.so.4.0.0";
/// The symbol whose jump slot is redirected.
const SYMBOL: &[u8] = b"mj_collision";

/// Why the collision calls could not be redirected or restored.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// No loaded object has the soname.
    #[error("{SONAME} is not loaded in this process (import mujoco, or load MuJoCo, first)")]
    NotLoaded,
    /// The library has no PLT relocation for `mj_collision` (a different build of MuJoCo).
    #[error(
        "{object} has no R_X86_64_JUMP_SLOT relocation for mj_collision: its collision calls cannot be redirected"
    )]
    NoSlot {
        /// Path of the loaded library.
        object: String,
    },
    /// The slot holds an address that is neither MuJoCo's nor specula's.
    #[error(
        "the mj_collision slot of {object} holds {found:#x} ({owner}), neither MuJoCo's own mj_collision \
         ({own:#x}) nor specula's ({ours:#x}): something else redirects MuJoCo's collision calls \
         (libspecula.so under LD_PRELOAD, or another tool); left untouched"
    )]
    Foreign {
        /// Path of the loaded library.
        object: String,
        /// What the slot holds.
        found: usize,
        /// The object (and symbol, when known) that address belongs to.
        owner: String,
        /// The library's own `mj_collision`.
        own: usize,
        /// specula's entry point.
        ours: usize,
    },
    /// The slot is misaligned or its page could not be made writable or restored.
    #[error("cannot write the mj_collision slot of {object} at {slot:#x}: {source}")]
    Protect {
        /// Path of the loaded library.
        object: String,
        /// Address of the slot.
        slot: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// The address of specula's entry point belongs to another object than this code.
    #[error(
        "specula's mj_collision resolves to {owner}, not to this module ({this}): another copy of specula \
         (libspecula.so under LD_PRELOAD?) already takes MuJoCo's collision calls; use one or the other"
    )]
    Shadowed {
        /// The object the entry point's address belongs to.
        owner: String,
        /// The object holding this code.
        this: String,
    },
    /// Not Linux x86-64.
    #[error("redirecting mj_collision is implemented for Linux x86-64 only")]
    Unsupported,
}

/// One loaded copy of the library and its `mj_collision` jump slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Path of the loaded library (as the loader names it).
    pub object: String,
    /// The library's load base.
    pub base: usize,
    /// Address of the jump slot.
    pub address: usize,
    /// What the slot holds now.
    pub value: usize,
    /// The library's own `mj_collision` (load base plus the symbol's value), 0 if it has none.
    pub own: usize,
}

/// What [`install`] or [`uninstall`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Slots written by this call.
    pub changed: usize,
    /// Copies of the library found.
    pub copies: usize,
}

/// specula's entry point that the slots are pointed at: the drop-in's `mj_collision`, which runs
/// the mode chosen with [`super::set_mode`].
pub fn entry() -> usize {
    super::export::mj_collision as *const () as usize
}

/// Forgets a speculative mode chosen with [`super::set_speculative`] or `SPECULA_SPECULATIVE`, so
/// that each model's own request decides again (the Python package's
/// `enable(speculative=None)`). It lives here, beside the other switch that program uses.
pub fn unset_speculative() {
    super::config();
    super::SPECULATIVE.store(super::speculative_code(super::SpeculativeMode::Compat), Ordering::Relaxed);
    super::SPECULATIVE_CHOSEN.store(false, Ordering::Relaxed);
}

/// The speculative mode chosen with [`super::set_speculative`] or `SPECULA_SPECULATIVE`; `None`
/// when each model's own request decides.
pub fn speculative_choice() -> Option<super::SpeculativeMode> {
    super::config();
    super::SPECULATIVE_CHOSEN.load(Ordering::Relaxed).then(super::speculative)
}

/// A slot this module wrote: where, and what it held before.
struct Record {
    address: usize,
    original: usize,
    object: String,
}

/// The slots written by [`install`] and not yet restored.
static PATCHED: Mutex<Vec<Record>> = Mutex::new(Vec::new());

fn patched() -> MutexGuard<'static, Vec<Record>> {
    PATCHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether [`install`] has redirected the calls (and [`uninstall`] has not restored them).
pub fn installed() -> bool {
    !patched().is_empty()
}

/// Points the `mj_collision` slot of every loaded copy of the library at [`entry`]. Already
/// redirected slots are left as they are; if any slot holds a foreign address nothing is written.
pub fn install() -> Result<Outcome, PatchError> {
    let mut records = patched();
    let ours = entry();
    // A shared object that exports mj_collision can see its own address of it preempted by
    // another object's definition (the Python module links with -Bsymbolic against that).
    let this = object_of(install as *const () as usize);
    let owner = object_of(ours);
    if this.as_ref().map(|o| o.0) != owner.as_ref().map(|o| o.0) {
        let name = |o: Option<(usize, String)>| o.map_or_else(|| "no loaded object".to_string(), |o| o.1);
        return Err(PatchError::Shadowed { owner: name(owner), this: name(this) });
    }
    let slots = slots()?;
    for s in &slots {
        if s.value != ours && !is_original(s) {
            return Err(foreign(s));
        }
    }
    let mut changed = 0;
    for s in &slots {
        if s.value == ours {
            continue;
        }
        // SAFETY: the slot is the library's jump slot of mj_collision (found above) and `ours`
        // has mj_collision's signature.
        unsafe { store(s, ours) }?;
        records.push(Record { address: s.address, original: s.value, object: s.object.clone() });
        changed += 1;
    }
    Ok(Outcome { changed, copies: slots.len() })
}

/// Puts back what [`install`] replaced. A slot changed again since (it no longer holds
/// [`entry`]) is left alone and reported; the others are restored.
pub fn uninstall() -> Result<Outcome, PatchError> {
    let mut records = patched();
    let ours = entry();
    let mut outcome = Outcome { changed: 0, copies: records.len() };
    let mut kept = Vec::new();
    let mut error = None;
    for r in records.drain(..) {
        // SAFETY: the address is a slot this module wrote, in a library that is still loaded
        // (MuJoCo is never unloaded while its calls can reach specula; see `store`).
        let now = unsafe { AtomicUsize::from_ptr(r.address as *mut usize) }.load(Ordering::SeqCst);
        if now == r.original {
            continue;
        }
        if now != ours {
            let s = Slot { object: r.object.clone(), base: 0, address: r.address, value: now, own: r.original };
            error.get_or_insert_with(|| foreign(&s));
            kept.push(r);
            continue;
        }
        let s = Slot { object: r.object.clone(), base: 0, address: r.address, value: now, own: r.original };
        // SAFETY: restoring the value the loader had put there.
        match unsafe { store(&s, r.original) } {
            Ok(()) => outcome.changed += 1,
            Err(e) => {
                error.get_or_insert(e);
                kept.push(r);
            }
        }
    }
    *records = kept;
    match error {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

/// The `mj_collision` jump slot of every loaded copy of the library.
pub fn slots() -> Result<Vec<Slot>, PatchError> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err(PatchError::Unsupported);
    }
    let mut found: Vec<Result<Slot, String>> = Vec::new();
    // SAFETY: the callback only reads the loader's structures while the loader holds its lock,
    // and `found` outlives the call.
    unsafe { dl_iterate_phdr(visit, &mut found as *mut _ as *mut c_void) };
    if found.is_empty() {
        return Err(PatchError::NotLoaded);
    }
    found.into_iter().map(|f| f.map_err(|object| PatchError::NoSlot { object })).collect()
}

/// Writes `value` into the slot with one atomic store, making its page writable for the store
/// when it is not.
///
/// # Safety
/// `slot.address` must be a jump slot of a loaded library, and `value` a function with the
/// signature of the slot's symbol (or the value the loader had put there); the library must not
/// be unloaded while calls through the slot can still reach `value`.
pub unsafe fn store(slot: &Slot, value: usize) -> Result<(), PatchError> {
    let fail = |source: std::io::Error| PatchError::Protect { object: slot.object.clone(), slot: slot.address, source };
    if slot.address % std::mem::align_of::<usize>() != 0 {
        return Err(fail(std::io::Error::other("the slot is not aligned")));
    }
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { sysconf(SC_PAGESIZE) }).unwrap_or(4096);
    let start = slot.address & !(page - 1);
    let prot = page_protection(start).map_err(fail)?;
    let writable = prot & PROT_WRITE != 0;
    // SAFETY: `start` is the page-aligned start of a mapped page; adding write permission to it
    // changes nothing else.
    if !writable && unsafe { mprotect(start as *mut c_void, page, prot | PROT_WRITE) } != 0 {
        return Err(fail(std::io::Error::last_os_error()));
    }
    // SAFETY: the slot is aligned, mapped and now writable; other threads only load it (the CPU
    // jumps through it), and an aligned 8-byte store is atomic for them.
    unsafe { AtomicUsize::from_ptr(slot.address as *mut usize) }.store(value, Ordering::SeqCst);
    // SAFETY: as above, giving the page back the protection it had.
    if !writable && unsafe { mprotect(start as *mut c_void, page, prot) } != 0 {
        return Err(fail(std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Whether the slot holds what the loader put there: the library's own `mj_collision`, or (a
/// lazily bound library) an address inside the library itself, its PLT's resolver stub.
fn is_original(s: &Slot) -> bool {
    (s.own != 0 && s.value == s.own) || object_of(s.value).is_some_and(|(base, _)| base == s.base && s.base != 0)
}

fn foreign(s: &Slot) -> PatchError {
    let owner = match object_of(s.value) {
        Some((_, name)) if !name.is_empty() => name,
        Some(_) => "the main program".into(),
        None => "no loaded object".into(),
    };
    PatchError::Foreign { object: s.object.clone(), found: s.value, owner, own: s.own, ours: entry() }
}

/// The protection (PROT_* bits) of the mapping holding `addr`, from `/proc/self/maps`.
fn page_protection(addr: usize) -> std::io::Result<c_int> {
    let maps = std::fs::read_to_string("/proc/self/maps")?;
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else { continue };
        let Some((lo, hi)) = range.split_once('-') else { continue };
        let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) else { continue };
        if (lo..hi).contains(&addr) {
            let p = perms.as_bytes();
            let bit = |i: usize, c: u8, v: c_int| if p.get(i) == Some(&c) { v } else { 0 };
            return Ok(bit(0, b'r', PROT_READ) | bit(1, b'w', PROT_WRITE) | bit(2, b'x', PROT_EXEC));
        }
    }
    Err(std::io::Error::other("the address is not mapped"))
}

/// The load base and file name of the object holding `addr`, if any.
fn object_of(addr: usize) -> Option<(usize, String)> {
    let mut info = DlInfo {
        fname: std::ptr::null(),
        fbase: std::ptr::null_mut(),
        sname: std::ptr::null(),
        saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr reads `addr` as a number only and fills `info`.
    if addr == 0 || unsafe { dladdr(addr as *const c_void, &mut info) } == 0 {
        return None;
    }
    let text = |p: *const c_char| {
        // SAFETY: dladdr's strings are NUL-terminated and owned by the loader.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    let mut name = text(info.fname).unwrap_or_default();
    if let Some(sym) = text(info.sname) {
        name = format!("{sym} in {name}");
    }
    Some((info.fbase as usize, name))
}

/// `dl_iterate_phdr`'s callback: records the slot of each copy of the library. Never unwinds.
extern "C" fn visit(info: *mut DlPhdrInfo, _size: usize, data: *mut c_void) -> c_int {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the loader passes a valid entry; `data` is the Vec given to dl_iterate_phdr.
        let (info, found) = unsafe { (&*info, &mut *(data as *mut Vec<Result<Slot, String>>)) };
        // SAFETY: the entry describes a loaded object whose dynamic section the loader has read.
        if let Some(f) = unsafe { slot_of(info) } {
            found.push(f);
        }
    }));
    0
}

/// The `mj_collision` slot of one loaded object: `None` if the object is not the library,
/// `Err(path)` if it is but has no such slot.
///
/// # Safety
/// `info` describes a loaded object (as `dl_iterate_phdr` passes it).
unsafe fn slot_of(info: &DlPhdrInfo) -> Option<Result<Slot, String>> {
    let base = info.addr;
    if info.phdr.is_null() {
        return None;
    }
    // SAFETY: the loader's program headers of this object, `phnum` of them.
    let phdrs = unsafe { std::slice::from_raw_parts(info.phdr, usize::from(info.phnum)) };
    let dynamic = phdrs.iter().find(|p| p.p_type == PT_DYNAMIC)?;
    // glibc rewrites the address entries of a library's dynamic section to run-time addresses
    // when it loads it (x86-64); other loaders, and read-only sections such as the vDSO's, leave
    // them relative to the load base. A library's link-time addresses are far below its load base,
    // so a value at or above the base is already an address.
    let at = |v: u64| if v as usize >= base { v as usize } else { base.wrapping_add(v as usize) };
    let (mut strtab, mut symtab, mut jmprel, mut pltrelsz, mut pltrel, mut soname) = (0, 0, 0, 0, 0, None);
    let mut syment = std::mem::size_of::<ElfSym>();
    let mut d = base.wrapping_add(dynamic.p_vaddr as usize) as *const ElfDyn;
    loop {
        // SAFETY: the dynamic section is an array ended by DT_NULL.
        let e = unsafe { d.read() };
        match e.tag {
            DT_NULL => break,
            DT_STRTAB => strtab = at(e.val),
            DT_SYMTAB => symtab = at(e.val),
            DT_JMPREL => jmprel = at(e.val),
            DT_PLTRELSZ => pltrelsz = e.val as usize,
            DT_PLTREL => pltrel = e.val,
            DT_SYMENT => syment = e.val as usize,
            DT_SONAME => soname = Some(e.val as usize),
            _ => {}
        }
        // SAFETY: not past DT_NULL.
        d = unsafe { d.add(1) };
    }
    if strtab == 0 || symtab == 0 {
        return None;
    }
    // SAFETY: DT_SONAME is an offset into the string table.
    let name = unsafe { CStr::from_ptr((strtab + soname?) as *const c_char) };
    if name.to_bytes() != SONAME.as_bytes() {
        return None;
    }
    let object = {
        // SAFETY: the loader's NUL-terminated path of the object.
        let p = (!info.name.is_null()).then(|| unsafe { CStr::from_ptr(info.name) }.to_string_lossy().into_owned());
        p.filter(|p| !p.is_empty()).unwrap_or_else(|| SONAME.to_string())
    };
    if jmprel == 0 || pltrel != DT_RELA as u64 {
        return Some(Err(object));
    }
    let n = pltrelsz / std::mem::size_of::<ElfRela>();
    for i in 0..n {
        // SAFETY: DT_JMPREL holds DT_PLTRELSZ bytes of Elf64_Rela.
        let r = unsafe { (jmprel as *const ElfRela).add(i).read() };
        if r.info & 0xffff_ffff != R_X86_64_JUMP_SLOT {
            continue;
        }
        // SAFETY: the relocation's symbol index is an entry of the symbol table.
        let sym = unsafe { ((symtab + (r.info >> 32) as usize * syment) as *const ElfSym).read() };
        // SAFETY: st_name is an offset into the string table.
        let sym_name = unsafe { CStr::from_ptr((strtab + sym.name as usize) as *const c_char) };
        if sym_name.to_bytes() != SYMBOL {
            continue;
        }
        let address = base.wrapping_add(r.offset as usize);
        // SAFETY: a jump slot of a loaded object, aligned (checked again before any store).
        let value = unsafe { AtomicUsize::from_ptr(address as *mut usize) }.load(Ordering::SeqCst);
        let own = if sym.shndx != 0 && sym.value != 0 { base.wrapping_add(sym.value as usize) } else { 0 };
        return Some(Ok(Slot { object, base, address, value, own }));
    }
    Some(Err(object))
}

// The ELF and loader structures read here (x86-64, `<elf.h>`, `<link.h>`, `<dlfcn.h>`).

/// `struct dl_phdr_info`, the fields read (the loader's struct continues after them).
#[repr(C)]
struct DlPhdrInfo {
    addr: usize,
    name: *const c_char,
    phdr: *const ElfPhdr,
    phnum: u16,
}

/// `Elf64_Phdr`.
#[repr(C)]
struct ElfPhdr {
    p_type: u32,
    p_flags: u32,
    p_offset: u64,
    p_vaddr: u64,
    p_paddr: u64,
    p_filesz: u64,
    p_memsz: u64,
    p_align: u64,
}

/// `Elf64_Dyn`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ElfDyn {
    tag: i64,
    val: u64,
}

/// `Elf64_Rela`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ElfRela {
    offset: u64,
    info: u64,
    addend: i64,
}

/// `Elf64_Sym`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ElfSym {
    name: u32,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

const PT_DYNAMIC: u32 = 2;
const DT_NULL: i64 = 0;
const DT_PLTRELSZ: i64 = 2;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_RELA: i64 = 7;
const DT_SYMENT: i64 = 11;
const DT_SONAME: i64 = 14;
const DT_PLTREL: i64 = 20;
const DT_JMPREL: i64 = 23;
const R_X86_64_JUMP_SLOT: u64 = 7;
const PROT_READ: c_int = 1;
const PROT_WRITE: c_int = 2;
const PROT_EXEC: c_int = 4;
/// `_SC_PAGESIZE` (glibc).
const SC_PAGESIZE: c_int = 30;

type Visit = extern "C" fn(*mut DlPhdrInfo, usize, *mut c_void) -> c_int;

extern "C" {
    fn dl_iterate_phdr(callback: Visit, data: *mut c_void) -> c_int;
    fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
    fn sysconf(name: c_int) -> std::os::raw::c_long;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_binary_s_libmujoco_has_one_mj_collision_slot_and_it_points_here() {
        // The test binaries export specula's mj_collision (build.rs), so the loader bound
        // libmujoco's slot to it at start-up: the slot holds `entry()`, and the library's own
        // definition is what dlsym finds on its handle.
        let slots = slots().expect("libmujoco is linked into the test binary");
        assert_eq!(slots.len(), 1, "{slots:?}");
        let s = &slots[0];
        assert!(s.object.ends_with(SONAME), "{s:?}");
        assert_eq!(s.value, entry(), "{s:?}");
        let own = crate::mj::collision::library_collision().map(|f| f as *const () as usize);
        assert_eq!(Some(s.own), own, "{s:?}");
        assert_eq!(s.address % 8, 0);
        // The slot's page is read-only (full RELRO).
        let page = s.address & !4095;
        assert_eq!(page_protection(page).unwrap() & PROT_WRITE, 0);
    }

    #[test]
    fn a_foreign_address_is_named() {
        let s = Slot { object: "x".into(), base: 1, address: 0, value: entry(), own: 2 };
        let e = foreign(&s).to_string();
        assert!(e.contains("mj_collision in "), "{e}");
        assert!(e.contains("libspecula.so under LD_PRELOAD"), "{e}");
    }
}
