//! MuJoCo's stable sort (`mjSORT` in `engine_sort.h`), on caller-owned scratch.
//!
//! The driver sorts in three places (sweep-and-prune end points, body pairs, mid-phase geom
//! pairs). Where keys can tie, the result must be the one MuJoCo gets, and for the float end
//! points even the treatment of incomparable values (NaN) matters, so the algorithm is
//! reproduced rather than relying on the standard library's sort:
//!
//! Algorithm:
//! 1. Insertion-sort runs of 32 elements in place (shift while the left neighbour compares
//!    greater).
//! 2. Merge runs pairwise into the scratch buffer, doubling the run length, taking from the left
//!    run while it compares less than or equal (so equal keys keep their order), and ping-pong
//!    between the two buffers.
//! 3. Copy back if the result ended in the scratch buffer.

use std::cmp::Ordering;

/// Run length of the insertion-sort pass (`_mjRUNSIZE`).
const RUN: usize = 32;

/// Sort `arr` stably with `cmp`, exactly as MuJoCo's `mjSORT` does; `buf` is scratch and is
/// resized to `arr.len()` (no allocation once it has grown to the largest size seen).
pub(crate) fn mj_sort<T: Copy + Default, F: Fn(&T, &T) -> Ordering>(arr: &mut [T], buf: &mut Vec<T>, cmp: F) {
    let n = arr.len();
    // 1. insertion sort on runs
    let mut start = 0;
    while start < n {
        let end = (start + RUN).min(n);
        for j in start + 1..end {
            let tmp = arr[j];
            let mut k = j;
            while k > start && cmp(&arr[k - 1], &tmp) == Ordering::Greater {
                arr[k] = arr[k - 1];
                k -= 1;
            }
            arr[k] = tmp;
        }
        start += RUN;
    }
    if n <= RUN {
        return;
    }

    // 2. bottom-up merges, alternating between arr and buf
    buf.clear();
    buf.resize(n, T::default());
    let mut in_arr = true;
    let mut len = RUN;
    while len < n {
        {
            let (src, dest): (&[T], &mut [T]) = if in_arr { (&*arr, &mut buf[..]) } else { (&buf[..], &mut *arr) };
            let mut start = 0;
            while start < n {
                let mid = start + len;
                let end = (start + 2 * len).min(n);
                if mid < end {
                    let (mut i, mut j, mut k) = (start, mid, start);
                    while i < mid && j < end {
                        if cmp(&src[i], &src[j]) != Ordering::Greater {
                            dest[k] = src[i];
                            i += 1;
                        } else {
                            dest[k] = src[j];
                            j += 1;
                        }
                        k += 1;
                    }
                    if i < mid {
                        dest[k..end].copy_from_slice(&src[i..mid]);
                    } else if j < end {
                        dest[k..end].copy_from_slice(&src[j..end]);
                    }
                } else {
                    dest[start..end].copy_from_slice(&src[start..end]);
                }
                start += 2 * len;
            }
        }
        in_arr = !in_arr;
        len *= 2;
    }
    // 3. the result is in buf when an odd number of passes ran
    if !in_arr {
        arr.copy_from_slice(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_keeps_equal_keys_in_order() {
        // 100 elements (several runs and merge passes); key = value / 10, tag = original index
        let mut v: Vec<(u32, u32)> = (0..100u32).map(|i| ((i * 37) % 100 / 10, i)).collect();
        let mut buf = Vec::new();
        mj_sort(&mut v, &mut buf, |a, b| a.0.cmp(&b.0));
        for w in v.windows(2) {
            assert!(w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1), "{w:?}");
        }
    }
}
