//! GJK: distance between two convex shapes, or proof that they overlap.
//!
//! Algorithm (Gilbert-Johnson-Keerthi with the signed-volume distance sub-algorithm of
//! Montanari et al., ToG 2017), as MuJoCo 4.0.0 runs it in `engine_collision_gjk.c`:
//! 1. Start from `x = c1 - c2` (difference of the geom centres) and an empty simplex.
//! 2. Each iteration adds the support point `s` of the Minkowski difference `A - B` along `-x`.
//!    Stop when the Frank-Wolfe gap `x . (x - s)` is below `epsilon` (zero for polytopes, which
//!    converge exactly), or when `x . s` proves separation (beyond the distance cutoff).
//! 3. When only the contact/no-contact answer is wanted and the simplex is a tetrahedron, switch
//!    to [`intersect`], a face-walking test that either encloses the origin or separates.
//! 4. Otherwise project the origin onto the simplex (barycentric weights `lambda`), drop the
//!    vertices with zero weight, and iterate with the projection as the new `x`.
//! 5. The witness points are the same barycentric combination of the per-geom support points.

use super::support::{ConvexObj, Core};
use crate::math::{cross, dot3 as dot, norm3 as norm, scl3, sub3};
use crate::narrowphase::GeomType;

/// Smallest value allowed in a denominator (`mjMINVAL`).
pub(crate) const MINVAL: f64 = 1e-15;
/// Most witness pairs one run reports: the largest contact budget `mjc_Convex` gives a run (eight,
/// two boxes; see `max_contacts` in the parent module). The status is made fresh for every run,
/// so sizing it to `MAX_CONTACTS` (50) cost a 2.8 kB clear and two copies per run.
pub(crate) const MAX_WITNESS: usize = 8;
/// The "no distance" sentinel MuJoCo uses (`mjMAX_LIMIT` = `DBL_MAX`).
pub(crate) const MAX_LIMIT: f64 = f64::MAX;

/// One vertex of the Minkowski difference, with the two support points it came from.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vertex {
    /// `vert1 - vert2`.
    pub vert: [f64; 3],
    /// Support point on geom 1.
    pub vert1: [f64; 3],
    /// Support point on geom 2.
    pub vert2: [f64; 3],
    /// Discrete vertex id on geom 1 (box corner or hull vertex), -1 for smooth shapes.
    pub index1: i32,
    /// Discrete vertex id on geom 2.
    pub index2: i32,
}

/// Inputs and results of one GJK/EPA run (MuJoCo's `mjCCDStatus`).
#[derive(Clone, Debug)]
pub(crate) struct Status {
    /// Whether the shapes were proven separated.
    pub separated: bool,
    /// Distance per witness pair (negative for penetration).
    pub dist: [f64; MAX_WITNESS],
    /// Witness points on geom 1.
    pub x1: [[f64; 3]; MAX_WITNESS],
    /// Witness points on geom 2.
    pub x2: [[f64; 3]; MAX_WITNESS],
    /// Number of witness pairs.
    pub nx: usize,
    /// Iteration cap for GJK and EPA.
    pub max_iterations: usize,
    /// Convergence tolerance.
    pub tolerance: f64,
    /// Largest distance of interest; 0 means "contact test only".
    pub dist_cutoff: f64,
    /// Iterations GJK used.
    pub gjk_iterations: usize,
    /// Final simplex.
    pub simplex: [Vertex; 4],
    /// Its size.
    pub nsimplex: usize,
}

impl Status {
    /// A fresh status for the given run parameters.
    pub fn new(max_iterations: usize, tolerance: f64, dist_cutoff: f64) -> Self {
        Status {
            separated: false,
            dist: [0.0; MAX_WITNESS],
            x1: [[0.0; 3]; MAX_WITNESS],
            x2: [[0.0; 3]; MAX_WITNESS],
            nx: 0,
            max_iterations,
            tolerance,
            dist_cutoff,
            gjk_iterations: 0,
            simplex: [Vertex::default(); 4],
            nsimplex: 0,
        }
    }

    /// Record "separated, nothing to report".
    fn set_separated(&mut self, k: usize) {
        self.separated = true;
        self.gjk_iterations = k;
        self.nsimplex = 0;
        self.nx = 0;
        self.dist[0] = MAX_LIMIT;
    }
}

/// True when both shapes are polytopes without margin, so GJK/EPA terminate exactly.
///
/// A sphere or capsule shrunk to its centre point or axis segment counts as a polytope too
/// (MuJoCo 4.0.0 tests the support function, not the geom type; measured: with the type rule a
/// capsule against a mesh cube differed from 4.0.0 on 11 of 300 near-aligned poses, with this
/// rule on none).
pub(crate) fn discrete(o1: &ConvexObj, o2: &ConvexObj) -> bool {
    if o1.margin != 0.0 || o2.margin != 0.0 {
        return false;
    }
    let poly =
        |o: &ConvexObj| o.core != Core::Full || matches!(o.ty, GeomType::Mesh | GeomType::Box | GeomType::Hfield);
    poly(o1) && poly(o2)
}

/// Support point of `A - B` along unit `dir` (`neg` is `-dir`), each side inflated by half its
/// margin.
pub(crate) fn support_pair(o1: &mut ConvexObj, o2: &mut ConvexObj, dir: &[f64; 3], neg: &[f64; 3]) -> Vertex {
    let mut v1 = o1.support(dir);
    if o1.margin > 0.0 {
        let m = 0.5 * o1.margin;
        v1 = [v1[0] + dir[0] * m, v1[1] + dir[1] * m, v1[2] + dir[2] * m];
    }
    let mut v2 = o2.support(neg);
    if o2.margin > 0.0 {
        let m = 0.5 * o2.margin;
        v2 = [v2[0] + neg[0] * m, v2[1] + neg[1] * m, v2[2] + neg[2] * m];
    }
    Vertex { vert: sub3(&v1, &v2), vert1: v1, vert2: v2, index1: o1.vertindex, index2: o2.vertindex }
}

/// Support vertex along `-x`, normalising by the given length of `x`.
fn support_toward_origin(o1: &mut ConvexObj, o2: &mut ConvexObj, x: &[f64; 3], xnorm: f64) -> Vertex {
    let neg = scl3(x, 1.0 / xnorm);
    let dir = scl3(&neg, -1.0);
    support_pair(o1, o2, &dir, &neg)
}

/// Run GJK. On entry `st.x1[0]`, `st.x2[0]` hold the initial guesses (the geom centres).
///
/// This is MuJoCo 4.0.0's iteration, which differs from the 3.x source in ways read from the
/// released library (its `gjk`, `S1D` and `S2D`) and confirmed by running both on the same
/// inputs: coincident centres start from the direction `(1, 0, 0)`; a support point with a
/// positive projection on `x` marks the pair separated for good (even while the distance is
/// still wanted); the duality-gap test is skipped on the first iteration; there is no
/// tetrahedron-walk shortcut; after the sub-algorithm the next `x` is the exact projection of the
/// origin on the kept point, segment or triangle; the loop stops when `|x|` drops below the
/// tolerance (1e-15 for a single point) or stalls after the first iteration.
pub(crate) fn gjk(st: &mut Status, o1: &mut ConvexObj, o2: &mut ConvexObj) {
    let want_dist = st.dist_cutoff > 0.0;
    let mut n = 0usize;
    let mut k = 0usize;
    let mut lambda = [0.0; 4];
    let tol2 = st.tolerance * st.tolerance;
    st.separated = false;
    let disc = discrete(o1, o2);
    // polytopes converge in finitely many steps, so they need no gap tolerance
    let epsilon = if disc { 0.0 } else { 0.5 * tol2 };
    // the stopping length of `x`: MuJoCo 4.0.0 also uses 1e-15 whenever a distance is wanted
    // (read from its `gjk`; a cylinder resting 7e-7 above a box under the speculative stage's
    // warm start stops 1e-7 short with the tolerance instead)
    let min_norm = if disc || want_dist { MINVAL } else { st.tolerance };

    let mut x = sub3(&st.x1[0], &st.x2[0]);
    let mut xnorm = norm(&x);
    if xnorm < MINVAL {
        x = [1.0, 0.0, 0.0];
        xnorm = 1.0;
    }
    while k < st.max_iterations {
        st.simplex[n] = support_toward_origin(o1, o2, &x, xnorm);
        let s = st.simplex[n].vert;

        // x . s / |x| is a lower bound on the distance: positive means separated
        let lower = dot(&x, &s);
        if lower > 0.0 {
            if !want_dist || (st.dist_cutoff < MAX_LIMIT && lower >= st.dist_cutoff * xnorm) {
                st.set_separated(k);
                return;
            }
            st.separated = true;
        }

        // Frank-Wolfe duality gap: |f(x) - f(x*)| is bounded by x . (x - s)
        if k > 0 {
            let gap = [x[0] - s[0], x[1] - s[1], x[2] - s[2]];
            if dot(&x, &gap) < epsilon {
                break;
            }
        }

        subdistance(&mut lambda, n + 1, &st.simplex);

        // keep only the vertices that carry weight
        n = 0;
        for i in 0..4 {
            if lambda[i] == 0.0 {
                continue;
            }
            st.simplex[n] = st.simplex[i];
            lambda[n] = lambda[i];
            n += 1;
        }
        if n < 1 {
            // cannot happen for valid input; report separation rather than garbage
            st.set_separated(k);
            return;
        }
        if n == 4 {
            // the tetrahedron encloses the origin
            break;
        }
        x = next_point(&st.simplex, &lambda, n);
        let prev = xnorm;
        xnorm = norm(&x);
        if xnorm < if n == 1 { MINVAL } else { min_norm } {
            break;
        }
        if k > 0 && (xnorm - prev).abs() < MINVAL {
            break;
        }
        k += 1;
    }

    if n > 0 {
        let v1: [[f64; 3]; 4] = std::array::from_fn(|i| st.simplex[i].vert1);
        let v2: [[f64; 3]; 4] = std::array::from_fn(|i| st.simplex[i].vert2);
        st.x1[0] = lincomb(&lambda, n, &v1);
        st.x2[0] = lincomb(&lambda, n, &v2);
    }

    // stopped early: one more support query settles separation
    if n <= 3 && !st.separated && xnorm >= MINVAL {
        let t = support_toward_origin(o1, o2, &x, xnorm);
        if dot(&x, &t.vert) > 0.0 {
            st.separated = true;
        }
    }
    st.nx = 1;
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist[0] = if n == 4 && !st.separated { 0.0 } else { xnorm };
}

/// The point of the kept simplex closest to the origin, projected exactly: the point itself,
/// the projection on the segment's line, or on the triangle's plane (the barycentric
/// combination when the segment or triangle is degenerate).
fn next_point(simplex: &[Vertex; 4], lambda: &[f64; 4], n: usize) -> [f64; 3] {
    let v: [[f64; 3]; 4] = std::array::from_fn(|i| simplex[i].vert);
    match n {
        1 => scl3(&v[0], lambda[0]),
        2 => {
            let d = sub3(&v[1], &v[0]);
            let dd = dot(&d, &d);
            if dd < MINVAL * MINVAL {
                return lincomb(lambda, n, &v);
            }
            let t = -(dot(&v[1], &d) / dd);
            [t * d[0] + v[1][0], t * d[1] + v[1][1], t * d[2] + v[1][2]]
        }
        _ => project_origin_plane(&v[0], &v[1], &v[2]).unwrap_or_else(|| lincomb(lambda, n, &v)),
    }
}

/// `sum_i coef[i] * v[i]` over the first `n` vectors, summed in index order.
pub(crate) fn lincomb(coef: &[f64], n: usize, v: &[[f64; 3]]) -> [f64; 3] {
    let mut r = [0.0; 3];
    for (c, ri) in r.iter_mut().enumerate() {
        *ri = match n {
            1 => coef[0] * v[0][c],
            2 => coef[0] * v[0][c] + coef[1] * v[1][c],
            3 => coef[0] * v[0][c] + coef[1] * v[1][c] + coef[2] * v[2][c],
            4 => coef[0] * v[0][c] + coef[1] * v[1][c] + coef[2] * v[2][c] + coef[3] * v[3][c],
            _ => 0.0,
        };
    }
    r
}

/// `a . (b x c)`.
pub(crate) fn det3(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> f64 {
    a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0])
}

/// Projection of the origin onto the plane through three points; `None` if they are collinear.
///
/// Three cross products are tried in turn so that a near-degenerate pair of edges falls back to
/// a better-conditioned one.
pub(crate) fn project_origin_plane(v1: &[f64; 3], v2: &[f64; 3], v3: &[f64; 3]) -> Option<[f64; 3]> {
    let d21 = sub3(v2, v1);
    let d31 = sub3(v3, v1);
    let d32 = sub3(v3, v2);
    for (n, p) in [(cross(&d32, &d21), v2), (cross(&d21, &d31), v1)] {
        let nv = dot(&n, p);
        let nn = dot(&n, &n);
        if nn == 0.0 {
            return None;
        }
        if nv != 0.0 && nn > MINVAL {
            return Some(scl3(&n, nv / nn));
        }
    }
    let n = cross(&d31, &d32);
    let nv = dot(&n, v3);
    let nn = dot(&n, &n);
    if nn == 0.0 {
        return None;
    }
    Some(scl3(&n, nv / nn))
}

/// Projection of the origin onto the line through two points.
fn project_origin_line(v1: &[f64; 3], v2: &[f64; 3]) -> [f64; 3] {
    let d = sub3(v2, v1);
    let t = -(dot(v2, &d) / dot(&d, &d));
    [v2[0] + t * d[0], v2[1] + t * d[1], v2[2] + t * d[2]]
}

/// 1 if both are positive, -1 if both negative, else 0.
fn same_sign(a: f64, b: f64) -> i32 {
    if a > 0.0 && b > 0.0 {
        1
    } else if a < 0.0 && b < 0.0 {
        -1
    } else {
        0
    }
}

/// Barycentric weights of the point of the `n`-vertex simplex closest to the origin.
fn subdistance(lambda: &mut [f64; 4], n: usize, simplex: &[Vertex; 4]) {
    *lambda = [0.0; 4];
    let (s1, s2, s3, s4) = (&simplex[0].vert, &simplex[1].vert, &simplex[2].vert, &simplex[3].vert);
    match n {
        4 => *lambda = s3d(s1, s2, s3, s4),
        3 => {
            let l = s2d(s1, s2, s3);
            lambda[..3].copy_from_slice(&l);
        }
        2 => {
            let l = s1d(s1, s2);
            lambda[..2].copy_from_slice(&l);
        }
        _ => lambda[0] = 1.0,
    }
}

/// Closest point on a tetrahedron: inside if all signed sub-volumes agree with the whole,
/// otherwise the best of the faces whose sub-volume disagrees.
fn s3d(s1: &[f64; 3], s2: &[f64; 3], s3: &[f64; 3], s4: &[f64; 3]) -> [f64; 4] {
    // cofactors of the last row of [[s1 s2 s3 s4]; [1 1 1 1]]
    let c41 = -det3(s2, s3, s4);
    let c42 = det3(s1, s3, s4);
    let c43 = -det3(s1, s2, s4);
    let c44 = det3(s1, s2, s3);
    let mdet = c41 + c42 + c43 + c44;
    let comp = [same_sign(mdet, c41), same_sign(mdet, c42), same_sign(mdet, c43), same_sign(mdet, c44)];
    if comp.iter().all(|&c| c != 0) {
        return [c41 / mdet, c42 / mdet, c43 / mdet, c44 / mdet];
    }
    let pts = [s1, s2, s3, s4];
    let mut lambda = [0.0; 4];
    let mut dmin = MAX_LIMIT;
    let mut first = true;
    for (drop, &cmp) in comp.iter().enumerate() {
        if cmp != 0 {
            continue;
        }
        // the three vertices other than `drop`, in order
        let keep: [usize; 3] = std::array::from_fn(|m| if m < drop { m } else { m + 1 });
        let l = s2d(pts[keep[0]], pts[keep[1]], pts[keep[2]]);
        let x = lincomb(&l, 3, &[*pts[keep[0]], *pts[keep[1]], *pts[keep[2]]]);
        let d = dot(&x, &x);
        if first || d < dmin {
            lambda = [0.0; 4];
            for (m, &i) in keep.iter().enumerate() {
                lambda[i] = l[m];
            }
            dmin = d;
            first = false;
        }
    }
    lambda
}

/// Closest point on a triangle, computed in the coordinate plane where it projects largest.
///
/// MuJoCo 4.0.0 (read from the library, confirmed side by side): the minors come from the edge
/// vectors, the sub-areas from the corners relative to the projected origin, and the weights are
/// the sub-areas over their sum; a triangle whose plane cannot be found falls back to the
/// closest of its three edges.
pub(crate) fn s2d(s1: &[f64; 3], s2: &[f64; 3], s3: &[f64; 3]) -> [f64; 3] {
    let pts = [s1, s2, s3];
    let Some(p) = project_origin_plane(s1, s2, s3) else {
        return closest_edge(&pts, [true; 3]);
    };
    let (mmax, x, y) = largest_minor(s1, s2, s3);
    let c = area_cofactors(s1, s2, s3, &p, x, y);
    let comp = [same_sign(mmax, c[0]) != 0, same_sign(mmax, c[1]) != 0, same_sign(mmax, c[2]) != 0];
    if comp.iter().all(|&c| c) {
        let sum = c[0] + c[1] + c[2];
        return [c[0] / sum, c[1] / sum, c[2] / sum];
    }
    closest_edge(&pts, comp.map(|c| !c))
}

/// Weights of the closest point over the triangle's edges opposite the flagged corners (edge
/// (2,3) for corner 1, (1,3) for 2, (1,2) for 3), keeping the first on ties.
fn closest_edge(pts: &[&[f64; 3]; 3], flagged: [bool; 3]) -> [f64; 3] {
    let mut lambda = [0.0; 3];
    let mut dmin = MAX_LIMIT;
    let mut first = true;
    for (drop, &f) in flagged.iter().enumerate() {
        if !f {
            continue;
        }
        let (a, b) = match drop {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let l = s1d(pts[a], pts[b]);
        let xk = lincomb(&l, 2, &[*pts[a], *pts[b]]);
        let d = dot(&xk, &xk);
        if first || d < dmin {
            lambda = [0.0; 3];
            lambda[a] = l[0];
            lambda[b] = l[1];
            dmin = d;
            first = false;
        }
    }
    lambda
}

/// The minor of the triangle with the largest magnitude and the two axes it keeps (the
/// components of the normal `(s2 - s1) x (s3 - s1)`, as MuJoCo 4.0.0 forms them).
pub(crate) fn largest_minor(s1: &[f64; 3], s2: &[f64; 3], s3: &[f64; 3]) -> (f64, usize, usize) {
    let e1 = sub3(s2, s1);
    let e2 = sub3(s3, s1);
    let m14 = e1[1] * e2[2] - e1[2] * e2[1];
    let m24 = e1[0] * e2[2] - e1[2] * e2[0];
    let m34 = e1[0] * e2[1] - e1[1] * e2[0];
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (m14, 1, 2)
    } else if mu2 >= mu3 {
        (m24, 0, 2)
    } else {
        (m34, 0, 1)
    }
}

/// Signed areas of the sub-triangles `(p, s2, s3)`, `(p, s3, s1)`, `(p, s1, s2)` in the `(x, y)`
/// coordinate plane, from the corners relative to `p`.
pub(crate) fn area_cofactors(
    s1: &[f64; 3],
    s2: &[f64; 3],
    s3: &[f64; 3],
    p: &[f64; 3],
    x: usize,
    y: usize,
) -> [f64; 3] {
    let rel = |s: &[f64; 3]| [s[x] - p[x], s[y] - p[y]];
    let (a, b, c) = (rel(s1), rel(s2), rel(s3));
    let area = |u: [f64; 2], v: [f64; 2]| u[0] * v[1] - v[0] * u[1];
    [area(b, c), area(c, a), area(a, b)]
}

/// Closest point on a segment, via the coordinate axis with the largest extent.
///
/// MuJoCo 4.0.0: a degenerate segment gives the second point, and a projection beyond the first
/// point gives the first point (3.x gave the second in both cases).
fn s1d(s1: &[f64; 3], s2: &[f64; 3]) -> [f64; 2] {
    let d = sub3(s2, s1);
    if dot(&d, &d) < MINVAL * MINVAL {
        return [0.0, 1.0];
    }
    let p = project_origin_line(s1, s2);
    let mut mu_max = s1[0] - s2[0];
    let mut index = 0;
    for i in 1..3 {
        let mu = s1[i] - s2[i];
        if mu.abs() >= mu_max.abs() {
            mu_max = mu;
            index = i;
        }
    }
    let c1 = p[index] - s2[index];
    let c2 = s1[index] - p[index];
    let (a, b) = (same_sign(mu_max, c1) != 0, same_sign(mu_max, c2) != 0);
    if a && b {
        [c1 / mu_max, c2 / mu_max]
    } else if !a {
        [0.0, 1.0]
    } else {
        [1.0, 0.0]
    }
}
