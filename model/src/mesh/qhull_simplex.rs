//! qhull's choice of the initial simplex: the extreme points per axis and the determinants that
//! rank candidate corners (split from [`super::qhull`]).

use super::qhull::{pt, sub};

/// Extreme points per axis as qhull's qh_maxmin lists them (min x, max x, min y, ...).
pub(super) fn maxmin(pts: &[f64], n: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for k in 0..3 {
        let (mut lo, mut hi) = (0, 0);
        for i in 0..n {
            if pts[3 * hi + k] < pts[3 * i + k] {
                hi = i;
            } else if pts[3 * lo + k] > pts[3 * i + k] {
                lo = i;
            }
        }
        out.push(lo);
        out.push(hi);
    }
    out
}

/// |det| of the simplex rows (simplex points - apex), 2 or 3 rows.
pub(super) fn det_simplex(pts: &[f64], apex: usize, simplex: &[usize]) -> f64 {
    let a = pt(pts, apex);
    let r: Vec<[f64; 3]> = simplex.iter().map(|&s| sub(&pt(pts, s), &a)).collect();
    if r.len() == 2 {
        (r[0][0] * r[1][1] - r[0][1] * r[1][0]).abs()
    } else {
        // qhull's det3_ expansion along the first column (ties between symmetric candidates
        // are decided by its rounding).
        let (a, b, c) = (r[0], r[1], r[2]);
        let det2 = |p: f64, q: f64, u: f64, v: f64| p * v - q * u;
        (a[0] * det2(b[1], b[2], c[1], c[2]) - b[0] * det2(a[1], a[2], c[1], c[2])
            + c[0] * det2(a[1], a[2], b[1], b[2]))
        .abs()
    }
}
