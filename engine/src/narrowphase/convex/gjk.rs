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

use super::support::ConvexObj;
use crate::math::{cross, dot3 as dot, norm3 as norm, scl3, sub3};
use crate::narrowphase::{GeomType, MAX_CONTACTS};

/// Smallest value allowed in a denominator (`mjMINVAL`).
pub(crate) const MINVAL: f64 = 1e-15;
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
    pub dist: [f64; MAX_CONTACTS],
    /// Witness points on geom 1.
    pub x1: [[f64; 3]; MAX_CONTACTS],
    /// Witness points on geom 2.
    pub x2: [[f64; 3]; MAX_CONTACTS],
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
            dist: [0.0; MAX_CONTACTS],
            x1: [[0.0; 3]; MAX_CONTACTS],
            x2: [[0.0; 3]; MAX_CONTACTS],
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
pub(crate) fn discrete(o1: &ConvexObj, o2: &ConvexObj) -> bool {
    if o1.margin != 0.0 || o2.margin != 0.0 {
        return false;
    }
    let poly = |t: GeomType| matches!(t, GeomType::Mesh | GeomType::Box | GeomType::Hfield);
    poly(o1.ty) && poly(o2.ty)
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
pub(crate) fn gjk(st: &mut Status, o1: &mut ConvexObj, o2: &mut ConvexObj) {
    let want_dist = st.dist_cutoff > 0.0;
    let mut try_intersect = !want_dist;
    let mut n = 0usize;
    let mut k = 0usize;
    let mut lambda = [0.0; 4];
    let tol2 = st.tolerance * st.tolerance;
    st.separated = false;
    let disc = discrete(o1, o2);
    // polytopes converge in finitely many steps, so they need no gap tolerance
    let epsilon = if disc { 0.0 } else { 0.5 * tol2 };
    let min_norm = if disc { MINVAL } else { st.tolerance };

    let mut x = sub3(&st.x1[0], &st.x2[0]);
    let mut xnorm = norm(&x);
    let mut xnorm_prev = 0.0;
    while k < st.max_iterations {
        if xnorm < min_norm || (xnorm_prev - xnorm).abs() < MINVAL {
            break;
        }
        st.simplex[n] = support_toward_origin(o1, o2, &x, xnorm);
        let s = st.simplex[n].vert;

        // Frank-Wolfe duality gap: |f(x) - f(x*)| is bounded by x . (x - s)
        let gap = [x[0] - s[0], x[1] - s[1], x[2] - s[2]];
        if dot(&x, &gap) < epsilon {
            break;
        }

        // x . s / |x| is a lower bound on the distance
        let lower = dot(&x, &s);
        if !want_dist {
            if lower > 0.0 {
                st.set_separated(k);
                return;
            }
        } else if st.dist_cutoff < MAX_LIMIT && lower > 0.0 && lower >= st.dist_cutoff * xnorm {
            st.set_separated(k);
            return;
        }

        // with a full tetrahedron and no distance wanted, the intersection test is cheaper
        if n == 3 && try_intersect {
            st.gjk_iterations = k;
            let r = intersect(st, o1, o2);
            if r != -1 {
                st.nx = 0;
                st.separated = r == 0;
                st.dist[0] = if r > 0 { 0.0 } else { MAX_LIMIT };
                return;
            }
            k = st.gjk_iterations;
            try_intersect = false;
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

        let verts: [[f64; 3]; 4] = std::array::from_fn(|i| st.simplex[i].vert);
        x = lincomb(&lambda, n, &verts);
        // the initial guess is not a simplex point: a first projection of the same length is
        // not a stall (MuJoCo 4.0.0, measured: two half-size mesh cubes 0.45 apart, offset
        // (0.1, 0.2), have |c1 - c2| equal to their corner distance; 4.0.0 finds the overlap)
        xnorm_prev = if k == 0 { 0.0 } else { xnorm };
        xnorm = norm(&x);
        if n == 4 {
            // the tetrahedron encloses the origin
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
    let t = support_toward_origin(o1, o2, &x, xnorm);
    if dot(&x, &t.vert) > 0.0 {
        st.separated = true;
    }
    st.nx = 1;
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist[0] = if n == 4 && !st.separated { 0.0 } else { xnorm };
}

/// Signed distance of the origin's side of the triangle `(a, b, c)` with normal `(c-a) x (b-a)`;
/// `MAX_LIMIT` when the normal is degenerate (the face is then ignored).
fn signed_distance(normal: &mut [f64; 3], a: &Vertex, b: &Vertex, c: &Vertex) -> f64 {
    let d1 = sub3(&c.vert, &a.vert);
    let d2 = sub3(&b.vert, &a.vert);
    *normal = cross(&d1, &d2);
    let n2 = dot(normal, normal);
    if n2 > MINVAL * MINVAL && n2 < 1e20 {
        *normal = scl3(normal, 1.0 / n2.sqrt());
        return dot(normal, &a.vert);
    }
    MAX_LIMIT
}

/// Tetrahedron walk: 1 if the origin is enclosed (simplex stored for EPA), 0 if separated, -1 if
/// inconclusive (then GJK continues with distances).
fn intersect(st: &mut Status, o1: &mut ConvexObj, o2: &mut ConvexObj) -> i32 {
    let mut simplex = st.simplex;
    let mut s = [0usize, 1, 2, 3];
    let mut k = st.gjk_iterations;
    while k < st.max_iterations {
        let mut dist = [0.0; 4];
        let mut nrm = [[0.0; 3]; 4];
        dist[0] = signed_distance(&mut nrm[0], &simplex[s[2]], &simplex[s[1]], &simplex[s[3]]);
        dist[1] = signed_distance(&mut nrm[1], &simplex[s[0]], &simplex[s[2]], &simplex[s[3]]);
        dist[2] = signed_distance(&mut nrm[2], &simplex[s[1]], &simplex[s[0]], &simplex[s[3]]);
        dist[3] = signed_distance(&mut nrm[3], &simplex[s[0]], &simplex[s[1]], &simplex[s[2]]);

        // origin on a face plane: the walk cannot make progress
        if dist.contains(&0.0) {
            st.gjk_iterations = k;
            return -1;
        }
        let i = if dist[0] < dist[1] { 0 } else { 1 };
        let j = if dist[2] < dist[3] { 2 } else { 3 };
        let index = if dist[i] < dist[j] { i } else { j };

        // all faces have the origin on their inner side
        if dist[index] > 0.0 {
            st.nsimplex = 4;
            for m in 0..4 {
                st.simplex[m] = simplex[s[m]];
            }
            st.gjk_iterations = k;
            return 1;
        }

        // replace the vertex opposite the face the origin lies beyond
        let dir = nrm[index];
        let neg = [-dir[0], -dir[1], -dir[2]];
        simplex[s[index]] = support_pair(o1, o2, &dir, &neg);
        if dot(&nrm[index], &simplex[s[index]].vert) < 0.0 {
            st.nsimplex = 0;
            st.gjk_iterations = k;
            return 0;
        }

        // keep the orientation consistent after the replacement
        s.swap((index + 1) & 3, (index + 2) & 3);
        k += 1;
    }
    st.gjk_iterations = k;
    -1
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
        let keep: Vec<usize> = (0..4).filter(|&i| i != drop).collect();
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
fn s2d(s1: &[f64; 3], s2: &[f64; 3], s3: &[f64; 3]) -> [f64; 3] {
    let Some(p) = project_origin_plane(s1, s2, s3) else {
        let l = s1d(s1, s2);
        return [l[0], l[1], 0.0];
    };
    let (mmax, x, y) = largest_minor(s1, s2, s3);
    let c = area_cofactors(s1, s2, s3, &p, x, y);
    let comp = [same_sign(mmax, c[0]), same_sign(mmax, c[1]), same_sign(mmax, c[2])];
    if comp.iter().all(|&c| c != 0) {
        return [c[0] / mmax, c[1] / mmax, c[2] / mmax];
    }
    let pts = [s1, s2, s3];
    let mut lambda = [0.0; 3];
    let mut dmin = MAX_LIMIT;
    let mut first = true;
    for (drop, &cmp) in comp.iter().enumerate() {
        if cmp != 0 {
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

/// The minor of the triangle with the largest magnitude and the two axes it keeps.
pub(crate) fn largest_minor(s1: &[f64; 3], s2: &[f64; 3], s3: &[f64; 3]) -> (f64, usize, usize) {
    let m14 = s2[1] * s3[2] - s2[2] * s3[1] - s1[1] * s3[2] + s1[2] * s3[1] + s1[1] * s2[2] - s1[2] * s2[1];
    let m24 = s2[0] * s3[2] - s2[2] * s3[0] - s1[0] * s3[2] + s1[2] * s3[0] + s1[0] * s2[2] - s1[2] * s2[0];
    let m34 = s2[0] * s3[1] - s2[1] * s3[0] - s1[0] * s3[1] + s1[1] * s3[0] + s1[0] * s2[1] - s1[1] * s2[0];
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (m14, 1, 2)
    } else if mu2 >= mu3 {
        (m24, 0, 2)
    } else {
        (m34, 0, 1)
    }
}

/// Signed areas of the sub-triangles `(p, s2, s3)`, `(p, s1, s3)` [as `(p, s3, s1)`], `(p, s1, s2)`
/// in the `(x, y)` coordinate plane.
pub(crate) fn area_cofactors(
    s1: &[f64; 3],
    s2: &[f64; 3],
    s3: &[f64; 3],
    p: &[f64; 3],
    x: usize,
    y: usize,
) -> [f64; 3] {
    let area =
        |a: &[f64; 3], b: &[f64; 3]| p[x] * a[y] + p[y] * b[x] + a[x] * b[y] - p[x] * b[y] - p[y] * a[x] - b[x] * a[y];
    [area(s2, s3), area(s3, s1), area(s1, s2)]
}

/// Closest point on a segment, via the coordinate axis with the largest extent.
fn s1d(s1: &[f64; 3], s2: &[f64; 3]) -> [f64; 2] {
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
    if same_sign(mu_max, c1) != 0 && same_sign(mu_max, c2) != 0 {
        [c1 / mu_max, c2 / mu_max]
    } else {
        [0.0, 1.0]
    }
}
