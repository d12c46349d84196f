//! Spatial-algebra helpers the stages share, each in the operation order of the MuJoCo routine
//! it names (`docs/measurements.md` D1, D3, D4).

/// The first `N` entries of `v` as an array (`v` has at least `N`).
#[inline(always)]
pub(crate) fn fixed<const N: usize>(v: &[f64]) -> &[f64; N] {
    v[..N].try_into().expect("slice of N entries")
}

/// 6D inertia `i` (MuJoCo's 10-number layout) times the motion vector `v` (`mju_mulInertVec`).
#[inline]
pub(crate) fn mul_inert_vec(i: &[f64], v: &[f64]) -> [f64; 6] {
    // one length check each, not one per entry
    let (i, v): (&[f64; 10], &[f64; 6]) = (fixed(i), fixed(v));
    [
        i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5],
        i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5],
        i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4],
        i[8] * v[1] - i[7] * v[2] + i[9] * v[3],
        i[6] * v[2] - i[8] * v[0] + i[9] * v[4],
        i[7] * v[0] - i[6] * v[1] + i[9] * v[5],
    ]
}

/// Dot product of two motion/force 6-vectors in the order the library's `mj_crb` sums it.
#[inline]
pub(crate) fn dot6(a: &[f64], b: &[f64; 6]) -> f64 {
    let a: &[f64; 6] = fixed(a);
    ((a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3])) + (a[4] * b[4] + a[5] * b[5])
}

/// [`dot6`] on AVX registers (the first four products in one `ymm` register, as the library's
/// `mju_dot` holds them): the same products, sums and order, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(crate) fn dot6_ymm(a: &[f64], b: &[f64; 6]) -> f64 {
    use std::arch::x86_64::{
        _mm256_castpd256_pd128, _mm256_extractf128_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm_add_pd, _mm_cvtsd_f64,
        _mm_unpackhi_pd,
    };
    let a: &[f64; 6] = fixed(a);
    // SAFETY: AVX is enabled for this function; the loads read entries 0..4 of the two 6-arrays.
    let head = unsafe {
        let p = _mm256_mul_pd(_mm256_loadu_pd(a.as_ptr()), _mm256_loadu_pd(b.as_ptr()));
        // (p0 + p2, p1 + p3), then the two added
        let half = _mm_add_pd(_mm256_castpd256_pd128(p), _mm256_extractf128_pd::<1>(p));
        _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half))
    };
    head + (a[4] * b[4] + a[5] * b[5])
}

/// Cross product of the motion vectors `vel` and `v` (`mju_crossMotion`).
#[inline]
pub(crate) fn cross_motion(vel: &[f64; 6], v: &[f64]) -> [f64; 6] {
    let v: &[f64; 6] = fixed(v);
    [
        -vel[2] * v[1] + vel[1] * v[2],
        vel[2] * v[0] - vel[0] * v[2],
        -vel[1] * v[0] + vel[0] * v[1],
        (-vel[2] * v[4] + vel[1] * v[5]) + (-vel[5] * v[1] + vel[4] * v[2]),
        (vel[2] * v[3] - vel[0] * v[5]) + (vel[5] * v[0] - vel[3] * v[2]),
        (-vel[1] * v[3] + vel[0] * v[4]) + (-vel[4] * v[0] + vel[3] * v[1]),
    ]
}

/// Cross product of the motion vector `vel` and the force vector `f` (`mju_crossForce`).
#[inline]
pub(crate) fn cross_force(vel: &[f64], f: &[f64; 6]) -> [f64; 6] {
    let vel: &[f64; 6] = fixed(vel);
    [
        (-vel[2] * f[1] + vel[1] * f[2]) + (-vel[5] * f[4] + vel[4] * f[5]),
        (vel[2] * f[0] - vel[0] * f[2]) + (vel[5] * f[3] - vel[3] * f[5]),
        (-vel[1] * f[0] + vel[0] * f[1]) + (-vel[4] * f[3] + vel[3] * f[4]),
        -vel[2] * f[4] + vel[1] * f[5],
        vel[2] * f[3] - vel[0] * f[5],
        -vel[1] * f[3] + vel[0] * f[4],
    ]
}

/// `sum_k x[k] axes[k]` over `n` motion vectors (`mju_mulDofVec`: a scaling for one dof,
/// `mju_mulMatTVec` otherwise, which skips zero coefficients).
#[inline]
pub(crate) fn mul_dof_vec(axes: &[f64], x: &[f64], n: usize) -> [f64; 6] {
    let mut out = [0.0; 6];
    if n == 1 {
        for (o, a) in out.iter_mut().zip(axes) {
            *o = a * x[0];
        }
    } else {
        for (&q, a) in x[..n].iter().zip(axes.chunks_exact(6)) {
            if q != 0.0 {
                for (o, a) in out.iter_mut().zip(a) {
                    *o += q * a;
                }
            }
        }
    }
    out
}
