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
pub(super) fn stack_marks(d: &sys::mjData, sizes: &[usize]) -> Option<(i64, i64)> {
    frames_marks(d, &[(d.parena, sizes)])
}

/// As [`stack_marks`] for several frames (up to four blocks each), each marked and freed in turn, each with the arena
/// use (`parena`) at the time (the marks are the highest any of them reached).
pub(super) fn frames_marks(d: &sys::mjData, frames: &[(usize, &[usize])]) -> Option<(i64, i64)> {
    // SAFETY: the flag's byte, read as a byte (any value other than 0 takes the locked path).
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return None;
    }
    let narena = usize::try_from(d.narena).ok()?;
    let (mut used_stack, mut used_arena) = (d.maxuse_stack as u64, d.maxuse_arena as u64);
    let mut blocks = [(0, 8); 4];
    for &(parena, sizes) in frames {
        let blocks = blocks.get_mut(..sizes.len())?;
        for (b, &size) in blocks.iter_mut().zip(sizes) {
            *b = (size, 8);
        }
        let mut a = Arena::new(d.arena as usize, narena, parena, d.pstack, used_stack, used_arena);
        a.frame(blocks).ok()?;
        (used_stack, used_arena) = (a.maxuse_stack, a.maxuse_arena);
    }
    Some((used_stack as i64, used_arena as i64))
}
