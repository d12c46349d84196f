//! Kernels compiled twice, for the baseline instruction set and for AVX, chosen at run time:
//! MuJoCo 4.0.0 is built for AVX, and its vector loops run four lanes wide (`docs/measurements.md`
//! N26). The AVX copy runs the
//! same source, so the same operations in the same order (AVX has no fused multiply-add, and
//! Rust never contracts `a * b + c`): the results are equal bit for bit, only faster.

/// Defines `$vis fn $name(args) -> ret` that runs `$any` (an `#[inline(always)]` function with
/// the same signature) compiled for AVX when the CPU has it, and as compiled otherwise.
macro_rules! avx_dispatch {
    ($(#[$doc:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $any:ident) => {
        $(#[$doc])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx") {
                /// `$any` compiled for AVX.
                #[target_feature(enable = "avx")]
                fn avx($($arg: $ty),*) $(-> $ret)? {
                    $any($($arg),*)
                }
                // SAFETY: the CPU has AVX, just checked; the function is safe code otherwise.
                return unsafe { avx($($arg),*) };
            }
            $any($($arg),*)
        }
    };
}

pub(crate) use avx_dispatch;

/// `dst += scl * src` entry by entry over `dst` (`mju_addToScl`; `src` is at least as long).
#[inline(always)]
pub(crate) fn add_to_scl(dst: &mut [f64], src: &[f64], scl: f64) {
    for (a, &b) in dst.iter_mut().zip(src) {
        *a += scl * b;
    }
}

/// [`add_to_scl`] four entries at a time in AVX registers, then the last one to three one by one.
/// Each entry is `dst + scl * src`, the same operations as the scalar loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(crate) unsafe fn add_to_scl_avx(dst: &mut [f64], src: &[f64], scl: f64) {
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_storeu_pd};
    let n = dst.len();
    let src = &src[..n];
    let mut i = 0;
    // SAFETY: AVX is enabled for this function; every load and store covers entries i..i + 4,
    // with i + 4 <= n, of `dst` and `src`, which hold n entries each.
    unsafe {
        let s4 = _mm256_set1_pd(scl);
        while i + 4 <= n {
            let d = _mm256_loadu_pd(dst.as_ptr().add(i));
            let x = _mm256_loadu_pd(src.as_ptr().add(i));
            _mm256_storeu_pd(dst.as_mut_ptr().add(i), _mm256_add_pd(d, _mm256_mul_pd(s4, x)));
            i += 4;
        }
    }
    match (&mut dst[i..], &src[i..]) {
        ([d0], [s0]) => *d0 += scl * s0,
        ([d0, d1], [s0, s1]) => {
            *d0 += scl * s0;
            *d1 += scl * s1;
        }
        ([d0, d1, d2], [s0, s1, s2]) => {
            *d0 += scl * s0;
            *d1 += scl * s1;
            *d2 += scl * s2;
        }
        _ => {}
    }
}
