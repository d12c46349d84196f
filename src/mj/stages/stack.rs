//! MuJoCo's stack bookkeeping as its functions leave it: the Rust stages keep their scratch in
//! their own buffers, but the high-water marks `maxuse_stack` and `maxuse_arena` that MuJoCo's
//! `mj_markStack`/`mj_stackAlloc` raise must end as the library leaves them.

use mujoco_sys as sys;

use specula_engine::dynamics::arena::Arena;

use super::byte;

/// The stack high-water marks after MuJoCo's `mj_markStack` and one `mj_stackAlloc` of 8-aligned
/// doubles per entry of `sizes` (in bytes; 0 allocates nothing), or `None` when the library
/// would run out of stack (it then raises `mju_error`, so the call is left to it) or uses the
/// locked, thread-pool variant.
#[inline]
pub(super) fn stack_marks(d: &sys::mjData, sizes: &[usize]) -> Option<(i64, i64)> {
    // one frame, without the loop over frames (this runs on every call of the small stages)
    // SAFETY: the flag's byte, read as a byte (any value other than 0 takes the locked path).
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return None;
    }
    let narena = usize::try_from(d.narena).ok()?;
    let (stack, arena) = (d.maxuse_stack as u64, d.maxuse_arena as u64);
    let mut a = Arena::new(d.arena as usize, narena, d.parena, d.pstack, stack, arena);
    a.mark().ok()?;
    for &size in sizes {
        a.stack_alloc(size, 8).ok()?;
    }
    Some((a.maxuse_stack as i64, a.maxuse_arena as i64))
}

/// MuJoCo's arena and stack counters of `d`, for replaying the library's allocations.
pub(super) fn memory(d: &sys::mjData) -> Arena {
    Arena::new(d.arena as usize, d.narena as usize, d.parena, d.pstack, d.maxuse_stack as u64, d.maxuse_arena as u64)
}

/// The stack frames of a call (each a list of `(bytes, alignment)` blocks) replayed on a copy of
/// `d`'s counters: the high-water marks the library's own call leaves.
pub(super) fn replay<const N: usize>(
    d: &sys::mjData,
    frames: &[[(usize, usize); N]],
) -> Result<Arena, specula_engine::dynamics::arena::StackOverflow> {
    let mut arena = memory(d);
    for f in frames {
        arena.frame(f)?;
    }
    Ok(arena)
}
