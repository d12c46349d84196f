//! `mj_referenceConstraint`: constraint velocities `efc_vel = J qvel` (plus the contacts' surface
//! velocities) and reference accelerations `efc_aref`, as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D11). The connect and weld rows' `Jdot v` correction comes from
//! [`super::constraint::equality_jdot`] through [`reference_constraint_with`] (D51).
// Indexed loops walk several arrays in step, as the library does; `x = y + x` keeps the library's
// operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

/// `sum a[i] b[i]` in the order of 4.0.0's `mju_dot` and of each row of `mju_mulMatVec`: four
/// running lanes while four more entries remain, reduced `(l0 + l2) + (l1 + l3)`, the last one to
/// three entries summed among themselves and added to that; under four entries the sum is added to
/// `+0` (so a `-0` sum becomes `+0`).
#[inline(always)]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    dot_lanes(a, b)
}

/// [`dot`] on AVX registers, for kernels compiled for AVX (the library's `mju_dot` holds its four
/// lanes in one `ymm` register; LLVM split [`dot_lanes`]' lanes over two `xmm` ones, N42): the same
/// products, lane sums, reduction `(l0 + l2) + (l1 + l3)` and tail, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(crate) fn dot_ymm(a: &[f64], b: &[f64]) -> f64 {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_castpd256_pd128, _mm256_extractf128_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm_add_pd,
        _mm_cvtsd_f64, _mm_unpackhi_pd,
    };
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (mut sum, mut i) = (0.0, 0);
    if n >= 4 {
        // SAFETY: AVX is enabled for this function; every load covers entries i..i + 4, with
        // i + 4 <= n, of `a` and `b`, which hold n entries each.
        unsafe {
            let mut lane = _mm256_mul_pd(_mm256_loadu_pd(a.as_ptr()), _mm256_loadu_pd(b.as_ptr()));
            i = 4;
            while i + 4 <= n {
                let p = _mm256_mul_pd(_mm256_loadu_pd(a.as_ptr().add(i)), _mm256_loadu_pd(b.as_ptr().add(i)));
                lane = _mm256_add_pd(lane, p);
                i += 4;
            }
            // (l0 + l2, l1 + l3), then the two added
            let half = _mm_add_pd(_mm256_castpd256_pd128(lane), _mm256_extractf128_pd::<1>(lane));
            sum = _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
        }
    }
    let p = |k: usize| a[k] * b[k];
    match n - i {
        1 => p(i) + sum,
        2 => sum + (p(i) + p(i + 1)),
        3 => sum + ((p(i) + p(i + 1)) + p(i + 2)),
        _ => sum,
    }
}

/// [`dot`]'s body, inlined into [`dense_rows`]'s variants (so that each is compiled for its
/// instruction set).
#[inline(always)]
fn dot_lanes(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (mut sum, mut i) = (0.0, 0);
    if n >= 4 {
        let mut lane = [a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]];
        // whole blocks of four after the first, each lane its own running sum
        for (x, y) in a[4..].chunks_exact(4).zip(b[4..].chunks_exact(4)) {
            lane = [lane[0] + x[0] * y[0], lane[1] + x[1] * y[1], lane[2] + x[2] * y[2], lane[3] + x[3] * y[3]];
        }
        i = 4 + (n - 4) / 4 * 4;
        sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    }
    let p = |k: usize| a[k] * b[k];
    match n - i {
        1 => p(i) + sum,
        2 => sum + (p(i) + p(i + 1)),
        3 => sum + ((p(i) + p(i + 1)) + p(i + 2)),
        _ => sum,
    }
}

/// [`dot`] (`TAIL` true) or [`gathered_dot`]'s order (false) of `R` rows with one vector at
/// once: the rows share the vector's loads, each row's operations and order are unchanged, so the
/// bits are those of `R` calls.
#[inline]
fn dot_rows<const R: usize, const TAIL: bool>(rows: [&[f64]; R], b: &[f64]) -> [f64; R] {
    let n = b.len();
    // plain loops over the rows, not `array::map` / `from_fn`: those were left as calls (one per
    // product) in the sparse product, three times slower than MuJoCo's
    let mut rows = rows;
    for r in &mut rows {
        *r = &r[..n];
    }
    let p = |k: usize| {
        let mut v = [0.0; R];
        for (v, r) in v.iter_mut().zip(&rows) {
            *v = r[k] * b[k];
        }
        v
    };
    let add = |x: [f64; R], y: [f64; R]| {
        let mut v = [0.0; R];
        for ((v, x), y) in v.iter_mut().zip(x).zip(y) {
            *v = x + y;
        }
        v
    };
    let (mut sum, mut i) = ([0.0; R], 0);
    if n >= 4 {
        let mut lane = [p(0), p(1), p(2), p(3)];
        i = 4;
        while i + 4 <= n {
            lane = [add(lane[0], p(i)), add(lane[1], p(i + 1)), add(lane[2], p(i + 2)), add(lane[3], p(i + 3))];
            i += 4;
        }
        sum = add(add(lane[0], lane[2]), add(lane[1], lane[3]));
    }
    if !TAIL {
        while i < n {
            sum = add(p(i), sum);
            i += 1;
        }
        return sum;
    }
    match n - i {
        1 => add(p(i), sum),
        2 => add(sum, add(p(i), p(i + 1))),
        3 => add(sum, add(add(p(i), p(i + 1)), p(i + 2))),
        _ => sum,
    }
}

/// `sum vals[k] x[cols[k]]` in the order of 4.0.0's sparse row products (`mju_mulMatVecSparse`):
/// four running lanes while four more entries remain, reduced `(l0 + l2) + (l1 + l3)`, then the rest
/// added one at a time (from `+0` for rows under four entries).
#[inline(always)]
pub fn sparse_dot(vals: &[f64], cols: &[i32], x: &[f64]) -> f64 {
    let n = vals.len().min(cols.len());
    let p = |k: usize| x[cols[k] as usize] * vals[k];
    let (mut sum, mut k) = (0.0, 0);
    if n >= 4 {
        let mut lane = [p(0), p(1), p(2), p(3)];
        k = 4;
        while k + 4 <= n {
            for (j, l) in lane.iter_mut().enumerate() {
                *l = *l + p(k + j);
            }
            k += 4;
        }
        sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    }
    while k < n {
        sum = p(k) + sum;
        k += 1;
    }
    sum
}

/// [`sparse_dot`] on values already gathered (`xs[k]` is `x[cols[k]]`): the same products and
/// order, so the same bits.
#[inline]
fn gathered_dot(vals: &[f64], xs: &[f64]) -> f64 {
    let n = vals.len().min(xs.len());
    let (vals, xs) = (&vals[..n], &xs[..n]);
    let (mut sum, mut k) = (0.0, 0);
    if n >= 4 {
        let mut lane = [xs[0] * vals[0], xs[1] * vals[1], xs[2] * vals[2], xs[3] * vals[3]];
        k = 4;
        while k + 4 <= n {
            let (v, x) = (&vals[k..k + 4], &xs[k..k + 4]);
            lane = [lane[0] + x[0] * v[0], lane[1] + x[1] * v[1], lane[2] + x[2] * v[2], lane[3] + x[3] * v[3]];
            k += 4;
        }
        sum = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    }
    for (v, x) in vals[k..].iter().zip(&xs[k..]) {
        sum = x * v + sum;
    }
    sum
}

/// Longest row whose gathered values [`Jacobian::mul_vec`] keeps on the stack for its supernode.
const GATHER: usize = 64;

/// The constraint Jacobian, as `mjData` stores it.
#[derive(Clone, Copy, Debug)]
pub enum Jacobian<'a> {
    /// Row-major `nefc x nv`.
    Dense {
        /// Number of dofs (the row length).
        nv: usize,
        /// The values.
        j: &'a [f64],
    },
    /// Compressed rows.
    Sparse {
        /// Non-zeros of each row (`nefc`).
        rownnz: &'a [i32],
        /// Start of each row (`nefc`).
        rowadr: &'a [i32],
        /// Rows after each row with the same columns (`nefc`; `mju_superSparse`).
        rowsuper: &'a [i32],
        /// Dof of each non-zero (`nJ`).
        colind: &'a [i32],
        /// The values (`nJ`).
        j: &'a [f64],
    },
}

impl Jacobian<'_> {
    /// `res = J vec` for the `res.len()` rows, row by row in the library's summation order.
    #[inline]
    pub fn mul_vec(&self, vec: &[f64], res: &mut [f64]) {
        match *self {
            Jacobian::Dense { nv, j } => dense_rows(nv, j, &vec[..nv], res),
            Jacobian::Sparse { rownnz, rowadr, rowsuper, colind, j } => {
                // the rows of a supernode share their columns: gather the vector's entries once
                // (each row's dot is still its own, in sparse_dot's order)
                let mut xs = [0.0; GATHER];
                let nrow = res.len();
                let mut r = 0;
                while r < nrow {
                    let (adr, nnz) = (rowadr[r] as usize, rownnz[r].max(0) as usize);
                    let cols = &colind[adr..adr + nnz];
                    let last = r + (rowsuper.get(r).copied().unwrap_or(0).max(0) as usize).min(nrow - 1 - r);
                    if last == r || nnz > GATHER {
                        res[r] = sparse_dot(&j[adr..adr + nnz], cols, vec);
                        r += 1;
                        continue;
                    }
                    for (x, &c) in xs.iter_mut().zip(cols) {
                        *x = vec[c as usize];
                    }
                    // as the library does, every row of the supernode is taken to have the first
                    // row's columns and count (rowsuper says so), with its own values
                    let vals = |row: usize| {
                        let a = rowadr[row] as usize;
                        &j[a..a + nnz]
                    };
                    let xs = &xs[..nnz];
                    let mut row = r;
                    while row + 3 <= last {
                        let out = dot_rows::<4, false>([vals(row), vals(row + 1), vals(row + 2), vals(row + 3)], xs);
                        res[row..row + 4].copy_from_slice(&out);
                        row += 4;
                    }
                    while row < last {
                        [res[row], res[row + 1]] = dot_rows::<2, false>([vals(row), vals(row + 1)], xs);
                        row += 2;
                    }
                    if row == last {
                        res[row] = gathered_dot(vals(row), xs);
                    }
                    r = last + 1;
                }
            }
        }
    }
}

/// `res[r] = dot(row r of j, v)` for a dense `j` of `v.len()` columns, row by row (each row's
/// four lanes are contiguous entries; two rows at once, laid out across the rows, needed a
/// shuffle per product). Where the CPU has AVX the same code is compiled for it: the four lanes
/// of MuJoCo's order then fit one register, as in the library's own build; each lane's
/// operations and the reduction are the same, so are the bits.
#[inline]
pub(crate) fn dense_rows(nv: usize, j: &[f64], v: &[f64], res: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked; the function is safe code otherwise.
        return unsafe { dense_rows_avx(nv, j, v, res) };
    }
    dense_rows_any(nv, j, v, res);
}

/// [`dense_rows`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn dense_rows_avx(nv: usize, j: &[f64], v: &[f64], res: &mut [f64]) {
    if nv == 0 {
        res.fill(0.0);
        return;
    }
    for (out, row) in res.iter_mut().zip(j.chunks_exact(nv)) {
        *out = dot_ymm(row, v);
    }
}

/// [`dense_rows`]'s body.
#[inline(always)]
fn dense_rows_any(nv: usize, j: &[f64], v: &[f64], res: &mut [f64]) {
    if nv == 0 {
        // an empty dot is +0
        res.fill(0.0);
        return;
    }
    for (out, row) in res.iter_mut().zip(j.chunks_exact(nv)) {
        *out = dot_lanes(row, v);
    }
}

/// The fields of one contact the reference stage reads (`mjContact`'s names).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactRef {
    /// First row of the contact, -1 for none.
    pub efc_address: i32,
    /// Contact space dimensionality.
    pub dim: i32,
    /// Friction coefficients (tangent 1, tangent 2, spin, roll 1, roll 2).
    pub friction: [f64; 5],
    /// Relative surface velocity in the contact frame (tangent 1, tangent 2, spin).
    pub surfacevel: [f64; 3],
    /// Adhesion force.
    pub adhesion: f64,
}

/// What [`reference_constraint`] reads besides the Jacobian.
#[derive(Clone, Copy, Debug)]
pub struct ReferenceInput<'a> {
    /// Joint velocities (`nv`).
    pub qvel: &'a [f64],
    /// Constraint positions (`nefc`).
    pub efc_pos: &'a [f64],
    /// Constraint margins (`nefc`).
    pub efc_margin: &'a [f64],
    /// Stiffness, damping, impedance and the fourth coefficient of each row (`4 nefc`).
    pub efc_kbip: &'a [f64],
    /// Regularisers (`nefc`).
    pub efc_r: &'a [f64],
    /// The contacts, when surface velocities or adhesion are on (empty otherwise).
    pub contacts: &'a [ContactRef],
    /// `flg_surfacevel == 1`: contacts may carry surface velocities.
    pub surfacevel: bool,
    /// `flg_adhesion == 1`: contacts may carry adhesion.
    pub adhesion: bool,
    /// `opt.cone` is elliptic (not 0).
    pub elliptic: bool,
    /// The discrete integrator (`mjINT_DISCRETE`) is on.
    pub discrete: bool,
    /// `opt.timestep`.
    pub timestep: f64,
}

/// Writes `efc_vel` and `efc_aref` (`nefc` each) as 4.0.0's `mj_referenceConstraint` does for a
/// model without connect or weld rows.
#[inline]
pub fn reference_constraint(jac: &Jacobian, inp: &ReferenceInput, efc_vel: &mut [f64], efc_aref: &mut [f64]) {
    reference_constraint_with(jac, inp, efc_vel, efc_aref, |_| {});
}

/// [`reference_constraint`] with the equality rows' `Jdot v` correction (`mj_Jdotv`,
/// [`super::constraint::equality_jdot::jdotv`]) applied by `jdotv` to `efc_aref` where the
/// library applies it: after the reference, before the discrete integrator's scaling.
#[inline]
pub fn reference_constraint_with(
    jac: &Jacobian,
    inp: &ReferenceInput,
    efc_vel: &mut [f64],
    efc_aref: &mut [f64],
    jdotv: impl FnOnce(&mut [f64]),
) {
    let nefc = efc_vel.len();
    if nefc > 0 {
        jac.mul_vec(inp.qvel, efc_vel);
    }
    if inp.surfacevel {
        add_surface_velocity(inp, efc_vel);
    }
    // the position term gets the step's velocity only under the discrete integrator; the library
    // multiplies by +0 otherwise (so an infinite velocity still gives NaN)
    let hh = if inp.discrete { inp.timestep } else { 0.0 };
    let kbip = inp.efc_kbip;
    let rows = efc_aref.iter_mut().zip(&*efc_vel).zip(inp.efc_pos.iter().zip(inp.efc_margin)).zip(kbip.chunks_exact(4));
    for (((aref, &vel), (&pos, &margin)), kbip) in rows {
        let (k, b, imp) = (kbip[0], kbip[1], kbip[2]);
        let pos = (pos - margin) + hh * vel;
        *aref = -b * vel - (k * imp) * pos;
    }
    jdotv(efc_aref);
    if inp.discrete && nefc > 0 {
        let h = inp.timestep;
        let h2 = h * h;
        for i in 0..nefc {
            let (k, b, imp) = (kbip[4 * i], kbip[4 * i + 1], kbip[4 * i + 2]);
            efc_aref[i] = efc_aref[i] / ((h * b + 1.0) + (h2 * k) * imp);
        }
    }
    if inp.adhesion {
        add_adhesion(inp, efc_aref);
    }
}

/// Adds the contacts' surface velocities to their rows of `efc_vel` (elliptic: tangent and spin
/// rows; pyramidal: `+-mu v` on each pair of edges).
#[cold]
#[inline(never)]
fn add_surface_velocity(inp: &ReferenceInput, vel: &mut [f64]) {
    for con in inp.contacts {
        if con.efc_address < 0 || con.dim < 2 {
            continue;
        }
        let sv = con.surfacevel;
        // NaN counts as a velocity, as in the library's test
        if sv[0] == 0.0 && sv[1] == 0.0 && sv[2] == 0.0 {
            continue;
        }
        let (adr, n) = (con.efc_address as usize, con.dim.min(4) as usize);
        if inp.elliptic {
            for k in 1..n {
                vel[adr + k] = sv[k - 1] + vel[adr + k];
            }
        } else {
            for k in 0..n - 1 {
                let p = con.friction[k] * sv[k];
                vel[adr + 2 * k] = p + vel[adr + 2 * k];
                vel[adr + 2 * k + 1] = vel[adr + 2 * k + 1] - p;
            }
        }
    }
}

/// Adds the adhesive contacts' bias `adhesion R` to their normal row (elliptic, or a frictionless
/// contact) or spread evenly over the pyramid's edges.
#[cold]
#[inline(never)]
fn add_adhesion(inp: &ReferenceInput, aref: &mut [f64]) {
    let r = inp.efc_r;
    for con in inp.contacts {
        let a = con.adhesion;
        if a == 0.0 || con.efc_address < 0 {
            continue;
        }
        let adr = con.efc_address as usize;
        if inp.elliptic || con.dim == 1 {
            aref[adr] = a * r[adr] + aref[adr];
            continue;
        }
        let n = 2 * con.dim - 2;
        if n <= 0 {
            continue;
        }
        let edge = a / f64::from(n);
        for j in adr..adr + n as usize {
            aref[j] = edge * r[j] + aref[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values spread over sixteen orders of magnitude, both signs and -0 (sums of them depend on
    /// their order).
    fn values(seed: u64, n: usize) -> Vec<f64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
                match x % 7 {
                    0 => -0.0,
                    k => (unit - 0.5) * 10f64.powi(4 * k as i32 - 12),
                }
            })
            .collect()
    }

    #[test]
    fn the_dense_product_gives_each_row_its_dot() {
        for nv in 0..23 {
            for seed in 0..10 {
                let v = values(seed, nv);
                let j = values(seed + 100, 7 * nv);
                let mut res = [f64::NAN; 7];
                Jacobian::Dense { nv, j: &j }.mul_vec(&v, &mut res);
                for (r, x) in res.iter().enumerate() {
                    let want = dot(&j[r * nv..(r + 1) * nv], &v);
                    assert_eq!(x.to_bits(), want.to_bits(), "nv {nv} seed {seed} row {r}");
                }
            }
        }
    }

    #[test]
    fn rows_at_once_give_each_row_its_own_bits() {
        for n in 0..22 {
            for seed in 0..20 {
                let b = values(seed, n);
                let rows: Vec<Vec<f64>> = (1..5).map(|r| values(seed * 31 + r, n)).collect();
                let two = dot_rows::<2, true>([&rows[0], &rows[1]], &b);
                let four = dot_rows::<4, false>([&rows[0], &rows[1], &rows[2], &rows[3]], &b);
                for r in 0..4 {
                    if r < 2 {
                        assert_eq!(two[r].to_bits(), dot(&rows[r], &b).to_bits(), "n {n} seed {seed} row {r}");
                    }
                    assert_eq!(four[r].to_bits(), gathered_dot(&rows[r], &b).to_bits(), "n {n} seed {seed} row {r}");
                }
            }
        }
    }
}
