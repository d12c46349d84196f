//! `mj_projectConstraint`: the dual solvers' `efc_Y = J M^-1/2` and `efc_AR = Y Y' + diag(R)`, dense
//! here and sparse in [`project_sparse`](super::project_sparse), as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D11); and [`Arena`], the arena and stack bookkeeping of the library's
//! allocations, so that a caller can place the results where MuJoCo would and leave the same
//! high-water marks.
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps the library's
// operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use super::reference::dot;

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
    fn record(&mut self) {
        self.maxuse_stack = self.maxuse_stack.max(self.pstack as u64);
        self.maxuse_arena = self.maxuse_arena.max((self.parena + self.pstack) as u64);
    }

    /// Room between the top of the stack at address `top` and the arena's used low end.
    fn room(&self, top: usize) -> usize {
        top.wrapping_sub(self.base.wrapping_add(self.parena))
    }

    /// `mj_markStack`: a frame of the previous base and top, 24 bytes below the 8-aligned top.
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
    pub fn free(&mut self) {
        if self.depth > 0 {
            self.depth -= 1;
            self.pstack = self.frames[self.depth];
        }
    }

    /// Closes every open frame (the library's error paths free theirs).
    pub fn free_all(&mut self) {
        while self.depth > 0 {
            self.free();
        }
    }
}

/// The inertia factor's pattern and values the projection reads (MuJoCo's names).
#[derive(Clone, Copy, Debug)]
pub struct Factor<'a> {
    /// Non-zeros of each row of `M` (`nv`).
    pub m_rownnz: &'a [i32],
    /// Start of each row (`nv`).
    pub m_rowadr: &'a [i32],
    /// Column of each non-zero (`nC`).
    pub m_colind: &'a [i32],
    /// `L'DL` factor of `M`, `D` on the diagonal (`nC`).
    pub qld: &'a [f64],
    /// Consecutive simple dofs starting at each dof (`nv`).
    pub dof_simplenum: &'a [i32],
}

impl Factor<'_> {
    /// Number of dofs.
    pub fn nv(&self) -> usize {
        self.m_rownnz.len()
    }

    /// Range of dof `i`'s off-diagonal entries in its row.
    fn off_diagonal(&self, i: usize) -> std::ops::Range<usize> {
        let adr = self.m_rowadr[i] as usize;
        adr..(adr + self.m_rownnz[i] as usize).saturating_sub(1).max(adr)
    }
}

/// `sqrt_inv_d[i] = 1 / sqrt(D[i])`, the diagonal of `D^-1/2` (`nv`).
pub fn sqrt_inv_d(f: &Factor, sqrt_inv_d: &mut [f64]) {
    for i in 0..f.nv() {
        let diag = f.m_rowadr[i] as usize + f.m_rownnz[i] as usize - 1;
        sqrt_inv_d[i] = 1.0 / f.qld[diag].sqrt();
    }
}

/// Dense `Y = J L^-1 D^-1/2` (`nefc x nv`, row-major, `J` likewise): `Y = J`, then the dofs from the
/// last to the second, skipping simple dofs, each row's entry subtracted along the dof's factor row,
/// then column `i` scaled by `sqrt_inv_d[i]` (`mj_makeYNumeric`, dense).
pub fn y_dense(f: &Factor, j: &[f64], sqrt_inv_d: &[f64], y: &mut [f64]) {
    let nv = f.nv();
    let n = y.len();
    y.copy_from_slice(&j[..n]);
    if nv == 0 || n == 0 {
        return;
    }
    if nv >= 2 {
        for i in (1..nv).rev() {
            if f.dof_simplenum[i] != 0 {
                continue;
            }
            let off = f.off_diagonal(i);
            if off.is_empty() {
                continue;
            }
            for row in y.chunks_exact_mut(nv) {
                let x = row[i];
                if x == 0.0 {
                    continue;
                }
                for k in off.clone() {
                    let c = f.m_colind[k] as usize;
                    row[c] = row[c] - x * f.qld[k];
                }
            }
        }
    }
    for row in y.chunks_exact_mut(nv) {
        for (v, &s) in row.iter_mut().zip(sqrt_inv_d) {
            *v = s * *v;
        }
    }
}

/// `diag_a[r] = |Y_r|^2` in `mju_dot`'s order, for rows of `nv` entries (`mjENBL_DIAGEXACT`).
pub fn exact_diagonal_dense(y: &[f64], nv: usize, diag_a: &mut [f64]) {
    for (r, out) in diag_a.iter_mut().enumerate() {
        let row = &y[r * nv..(r + 1) * nv];
        *out = dot(row, row);
    }
}

/// Dense `AR = Y Y' + diag(R)` (`nefc x nefc`): `YT = Y'` in `yt` (`nv x nefc`), then 4.0.0's
/// `mju_sqrMatTD_impl`: per dof, per row `j` with a non-zero entry `v`, `AR[j,k] += v YT[i,k]` for
/// `k <= j`, the upper triangle copied from the lower; then `R` added to the diagonal.
pub fn ar_dense(y: &[f64], nv: usize, efc_r: &[f64], yt: &mut [f64], ar: &mut [f64]) {
    let nefc = efc_r.len();
    if nefc > 0 && nv > 0 {
        for i in 0..nefc {
            for j in 0..nv {
                yt[j * nefc + i] = y[i * nv + j];
            }
        }
    }
    ar.fill(0.0);
    for i in 0..nv {
        let row = &yt[i * nefc..(i + 1) * nefc];
        for j in 0..nefc {
            let v = row[j];
            if v == 0.0 {
                continue;
            }
            // the library scales by a unit diagonal first
            let s = 1.0 * v;
            let out = &mut ar[j * nefc..j * nefc + j + 1];
            for (a, &b) in out.iter_mut().zip(row) {
                *a = s * b + *a;
            }
        }
    }
    for i in 0..nefc {
        for j in i + 1..nefc {
            ar[i * nefc + j] = ar[j * nefc + i];
        }
    }
    for r in 0..nefc {
        let k = r * (nefc + 1);
        ar[k] = efc_r[r] + ar[k];
    }
}
