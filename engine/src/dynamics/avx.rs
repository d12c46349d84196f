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
