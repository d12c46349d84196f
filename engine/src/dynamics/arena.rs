//! MuJoCo's arena and stack bookkeeping (`mj_arenaAllocByte`, `mj_markStack`, `mj_stackAlloc`,
//! `mj_freeStack`) on a copy of `mjData`'s counters: the stages that allocate replay the
//! library's allocations with it, to place their results where MuJoCo would and to leave the same
//! high-water marks `maxuse_stack` and `maxuse_arena`.

/// The stack ran out: MuJoCo raises `mju_error` here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackOverflow;

/// MuJoCo's arena and stack counters (`mjData`'s names), for replaying the library's allocations:
/// the arena grows from the low end of the `narena` bytes at address `base`, the stack from the high
/// end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arena {
    /// Address of the arena's first byte (alignment is of addresses, not offsets).
    pub base: usize,
    /// Size of the arena.
    pub narena: usize,
    /// Bytes used at the low end.
    pub parena: usize,
    /// Bytes used by the stack at the high end.
    pub pstack: usize,
    /// Highest `pstack` so far.
    pub maxuse_stack: u64,
    /// Highest `parena + pstack` so far.
    pub maxuse_arena: u64,
    /// `pstack` before each open frame.
    frames: [usize; 8],
    /// Number of open frames.
    depth: usize,
}

impl Arena {
    /// The counters of an arena at `base` of `narena` bytes.
    #[inline]
    pub fn new(
        base: usize,
        narena: usize,
        parena: usize,
        pstack: usize,
        maxuse_stack: u64,
        maxuse_arena: u64,
    ) -> Arena {
        Arena { base, narena, parena, pstack, maxuse_stack, maxuse_arena, frames: [0; 8], depth: 0 }
    }

    /// `mj_arenaAllocByte`: the offset of `bytes` bytes aligned to `align` (a power of two) at the
    /// low end, or `None`, changing nothing, when they do not fit below the stack.
    #[inline]
    pub fn alloc(&mut self, bytes: usize, align: usize) -> Option<usize> {
        let at = self.base.wrapping_add(self.parena);
        let mis = at & (align - 1);
        let pad = if mis != 0 { align - mis } else { 0 };
        let end = self.parena.checked_add(bytes)?.checked_add(pad)?;
        if end > self.narena.wrapping_sub(self.pstack) {
            return None;
        }
        self.parena = end;
        self.maxuse_arena = self.maxuse_arena.max((end + self.pstack) as u64);
        Some(at + pad - self.base)
    }

    /// Raises the high-water marks to the current use.
    #[inline]
    fn record(&mut self) {
        self.maxuse_stack = self.maxuse_stack.max(self.pstack as u64);
        self.maxuse_arena = self.maxuse_arena.max((self.parena + self.pstack) as u64);
    }

    /// Room between the top of the stack at address `top` and the arena's used low end.
    #[inline]
    fn room(&self, top: usize) -> usize {
        top.wrapping_sub(self.base.wrapping_add(self.parena))
    }

    /// `mj_markStack`: a frame of the previous base and top, 24 bytes below the 8-aligned top.
    #[inline]
    pub fn mark(&mut self) -> Result<(), StackOverflow> {
        let end = self.base.wrapping_add(self.narena);
        let top = end.wrapping_sub(self.pstack);
        let frame = (top & !7).wrapping_sub(24);
        if top.wrapping_sub(frame) > self.room(top) || self.depth == self.frames.len() {
            return Err(StackOverflow);
        }
        self.frames[self.depth] = self.pstack;
        self.depth += 1;
        self.pstack = end - frame;
        self.record();
        Ok(())
    }

    /// `mj_stackAlloc` of `bytes` bytes aligned to `align` (a power of two); nothing for 0 bytes.
    #[inline]
    pub fn stack_alloc(&mut self, bytes: usize, align: usize) -> Result<(), StackOverflow> {
        if bytes == 0 {
            return Ok(());
        }
        let end = self.base.wrapping_add(self.narena);
        let top = end.wrapping_sub(self.pstack);
        let start = top.wrapping_sub(bytes) & !(align - 1);
        if top.wrapping_sub(start) > self.room(top) {
            return Err(StackOverflow);
        }
        self.pstack = end - start;
        self.record();
        Ok(())
    }

    /// `mj_freeStack`: back to the stack before the last [`mark`](Self::mark).
    #[inline]
    pub fn free(&mut self) {
        if self.depth > 0 {
            self.depth -= 1;
            self.pstack = self.frames[self.depth];
        }
    }

    /// `mj_markStack`, one `mj_stackAlloc` per `(bytes, alignment)` block, then `mj_freeStack`:
    /// the high-water marks a function with that one frame leaves.
    #[inline]
    pub fn frame(&mut self, blocks: &[(usize, usize)]) -> Result<(), StackOverflow> {
        self.mark()?;
        let fits = blocks.iter().try_for_each(|&(bytes, align)| self.stack_alloc(bytes, align));
        self.free();
        fits
    }

    /// Closes every open frame (the library's error paths free theirs).
    #[inline]
    pub fn free_all(&mut self) {
        while self.depth > 0 {
            self.free();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_align_by_address_and_refuse_what_does_not_fit() {
        // an arena at an odd address of 100 bytes, 8 of them used
        let mut a = Arena::new(1001, 100, 8, 0, 0, 0);
        assert_eq!(a.alloc(4, 8), Some(15)); // address 1009 -> 1016
        assert_eq!(a.parena, 19);
        assert_eq!(a.maxuse_arena, 19);
        assert_eq!(a.alloc(100, 1), None);
        assert_eq!(a.parena, 19, "a refused allocation changes nothing");
    }

    #[test]
    fn frames_raise_the_marks_and_free_back() {
        let mut a = Arena::new(0, 1000, 100, 0, 0, 0);
        assert_eq!(a.frame(&[(16, 8), (0, 8), (4, 4)]), Ok(()));
        assert_eq!(a.pstack, 0, "freed");
        // 24-byte record below the aligned top, then 16 and 4 bytes
        assert_eq!(a.maxuse_stack, 24 + 16 + 4);
        assert_eq!(a.maxuse_arena, 100 + 44);
        assert_eq!(a.frame(&[(2000, 8)]), Err(StackOverflow));
        assert_eq!(a.pstack, 0);
    }
}
