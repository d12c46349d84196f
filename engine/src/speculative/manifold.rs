//! Several speculative contacts for one pair: the points of the advanced pose that the rest of
//! the step brings into contact.
//!
//! Against a plane (MuJoCo 4.0.0, measured, and read from its `mjc_multicontact` /
//! `polygonClip`):
//! - the face of the other geom that faces the plane is taken as a polygon: a box face with
//!   MuJoCo's vertex order (the bottom face of a box lying flat gives (+x+y), (-x+y), (-x-y),
//!   (+x-y) in its local frame), a cylinder cap as a 16-gon starting on the local x axis, vertex
//!   `k` at `(r cos(k 22.5deg), -s r sin(k 22.5deg), s h)` for the cap on side `s = +-1` (the
//!   bottom cap turns counter-clockwise about local z, the top cap clockwise), unless the axis is
//!   within the edge tolerance (`|cos| < 0.0888`) of the plane: then the two ends of the lowest
//!   side line; a capsule's two segment ends (local -z first);
//! - a box or cap vertex is kept when its height over the plane is at most the spread
//!   `W = 2 max(dist(t), 0) + (1 - t') h|v_n| + ccd_tolerance` (the objects are inflated by
//!   `W / 2` each; bisection on a tilted cube put the switch from 4 to 2 contacts at that height
//!   to 1e-14 for gaps of 10, 8 and 6 mm at 10 m/s and 10 mm at 12 m/s);
//! - more than four kept vertices are pruned to four by [`polygon_quad_40`] and emitted in the
//!   order that walk leaves them (flat cap: vertices 0, 3, 7, 11, i.e. (r, 0), 67.5, 157.5 and
//!   247.5 degrees; a tilted cap with vertices 2..11 in reach: 2, 5, 8, 11; both measured).
//!
//! Other pairs use the pair's narrowphase at the advanced pose with a margin just above the
//! distance there (see `multi_points` in the module root).

use crate::math::{add3, cross, dot3, mul_mat_t_vec3, mul_mat_vec3, norm3, scl3, sub3};
use crate::narrowphase::{Geom, GeomType};

/// Sides of the polygon standing in for a cylinder cap.
const CYL_SIDES: usize = 16;

/// Sign patterns of the four corners of each box face, in MuJoCo's order: faces +x, -x, +y, -y,
/// +z, -z.
pub(crate) const BOX_FACES: [[[f64; 3]; 4]; 6] = [
    [[1.0, 1.0, 1.0], [1.0, 1.0, -1.0], [1.0, -1.0, -1.0], [1.0, -1.0, 1.0]],
    [[-1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0], [-1.0, -1.0, -1.0]],
    [[-1.0, 1.0, -1.0], [1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, 1.0]],
    [[-1.0, -1.0, 1.0], [1.0, -1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]],
    [[-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]],
    [[1.0, 1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, -1.0], [1.0, -1.0, -1.0]],
];

/// Area of the quadrilateral a-b-c-d (half the norm of the sum of its diagonals' cross products).
fn area4(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
    let e = cross(&sub3(d, a), &sub3(b, d));
    let f = cross(&sub3(c, b), &sub3(a, c));
    0.5 * norm3(&add3(&e, &f))
}

/// Indices of four vertices of `poly` spanning a large quadrilateral: starting from the first
/// four, each corner in turn is walked forward around the polygon while the area grows (the
/// greedy search MuJoCo uses to prune clipped polygons). Returned in ascending order.
pub fn polygon_quad(poly: &[[f64; 3]]) -> [usize; 4] {
    let n = poly.len();
    if n <= 4 {
        return [0, 1.min(n - 1), 2.min(n - 1), 3.min(n - 1)];
    }
    let nx = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut best = [0, 1, 2, 3];
    let mut m = area4(&poly[0], &poly[1], &poly[2], &poly[3]);
    for a in 0..n {
        loop {
            let grown = area4(&poly[a], &poly[b], &poly[c], &poly[nx(d)]);
            if grown <= m {
                break;
            }
            m = grown;
            d = nx(d);
            best = [a, b, c, d];
            loop {
                let grown = area4(&poly[a], &poly[b], &poly[nx(c)], &poly[d]);
                if grown <= m {
                    break;
                }
                m = grown;
                c = nx(c);
                best = [a, b, c, d];
            }
            loop {
                let grown = area4(&poly[a], &poly[nx(b)], &poly[c], &poly[d]);
                if grown <= m {
                    break;
                }
                m = grown;
                b = nx(b);
                best = [a, b, c, d];
            }
        }
        // the next start must not overtake the other corners
        if b == a {
            b = nx(b);
            if c == b {
                c = nx(c);
                if d == c {
                    d = nx(d);
                }
            }
        }
    }
    best.sort_unstable();
    best
}

/// Area measure of the quadrilateral a-b-c-d from its diagonals, `|(a - c) x (b - d)| / 2`,
/// with the squares summed y, x, z (MuJoCo 4.0.0's pruning measure).
fn diagonal_area(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
    let (u, v) = (sub3(a, c), sub3(b, d));
    let cx = u[1] * v[2] - u[2] * v[1];
    let cy = u[2] * v[0] - u[0] * v[2];
    let cz = u[0] * v[1] - u[1] * v[0];
    ((cy * cy + cx * cx) + cz * cz).sqrt() * 0.5
}

/// Four vertices of `poly` (more than four) spanning a large quadrilateral, as MuJoCo 4.0.0
/// prunes a clipped polygon: from `(0, 1, 2, 3)`, for each start `a` in turn, the last corner
/// is moved forward while that grows the area, each move followed by walking the third and then
/// the second corner forward while they grow it; ties never move a corner. Returned in the
/// walk's `(a, b, c, d)` order, which is also the order MuJoCo emits the contacts in.
pub fn polygon_quad_40(poly: &[[f64; 3]]) -> [usize; 4] {
    let n = poly.len();
    if n <= 4 {
        return [0, 1.min(n - 1), 2.min(n - 1), 3.min(n - 1)];
    }
    let nx = |i: usize| (i + 1) % n;
    let area = |a: usize, b: usize, c: usize, d: usize| diagonal_area(&poly[a], &poly[b], &poly[c], &poly[d]);
    let mut m = area(0, 1, 2, 3);
    let mut res = [0, 1, 2, 3];
    let (mut b, mut c, mut d) = (1, 2, 3);
    for a in 0..n {
        loop {
            let dn = nx(d);
            let mut prev = area(a, b, c, dn);
            if m >= prev {
                break;
            }
            loop {
                let grown = area(a, b, nx(c), dn);
                if prev.partial_cmp(&grown) != Some(std::cmp::Ordering::Less) {
                    break;
                }
                prev = grown;
                c = nx(c);
            }
            loop {
                let grown = area(a, nx(b), c, dn);
                if prev.partial_cmp(&grown) != Some(std::cmp::Ordering::Less) {
                    break;
                }
                prev = grown;
                b = nx(b);
            }
            m = prev;
            d = dn;
            res = [a, b, c, d];
        }
        if b == a {
            b = nx(b);
            if c == b {
                c = nx(c);
                if d == c {
                    d = nx(d);
                }
            }
        }
    }
    res
}

/// The polygon of geom `g` facing a plane of normal `n`, in MuJoCo 4.0.0's vertex order (the
/// top cylinder cap clockwise about local z, see the module notes), with whether its vertices
/// take the spread rule of faces (boxes and caps) or of capsule ends.
fn facing_polygon_40(g: &Geom, n: &[f64; 3]) -> Option<(Vec<[f64; 3]>, bool)> {
    let l = mul_mat_t_vec3(&g.mat, n);
    if g.ty == GeomType::Cylinder && l[2].abs() >= super::faces::EDGE_TOL {
        let s = &g.size;
        // the cap facing the plane: the bottom one (side -1) when the plane normal points up
        let side = if l[2] > 0.0 { -1.0 } else { 1.0 };
        let step = 2.0 * crate::math::PI / CYL_SIDES as f64;
        let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
        let poly = (0..CYL_SIDES)
            .map(|k| {
                let a = k as f64 * step;
                world([s[0] * a.cos(), -side * s[0] * a.sin(), side * s[1]])
            })
            .collect();
        return Some((poly, true));
    }
    let face = matches!(g.ty, GeomType::Box);
    facing_polygon(g, n).map(|p| (p, face))
}

/// MuJoCo 4.0.0's points of `g` (at its advanced pose) against the plane `plane` (also
/// advanced), as `(point on g, height over the plane)`, at most four: box and cap vertices within
/// `spread` (`W`, see the module notes) of the plane, capsule ends and cylinder side points
/// within `spread - dist` of the lowest one. `None` when the type has no polygon.
pub fn plane_points_40(plane: &Geom, g: &Geom, spread: f64, dist: f64) -> Option<Vec<([f64; 3], f64)>> {
    let n = [plane.mat[2], plane.mat[5], plane.mat[8]];
    let (poly, face) = facing_polygon_40(g, &n)?;
    let heights: Vec<f64> = poly.iter().map(|p| dot3(&sub3(p, &plane.pos), &n)).collect();
    let low = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let keep = |h: f64| if face { h <= spread } else { h - low <= spread - dist.max(0.0) };
    let kept: Vec<([f64; 3], f64)> =
        poly.iter().zip(&heights).filter(|(_, &h)| keep(h)).map(|(p, &h)| (*p, h)).collect();
    if kept.len() <= 4 {
        return Some(kept);
    }
    let pts: Vec<[f64; 3]> = kept.iter().map(|k| k.0).collect();
    Some(polygon_quad_40(&pts).iter().map(|&i| kept[i]).collect())
}

/// The polygon (world frame, at the given pose) of geom `g` facing a plane of normal `n`, or
/// `None` for types handled elsewhere (spheres, ellipsoids, meshes).
fn facing_polygon(g: &Geom, n: &[f64; 3]) -> Option<Vec<[f64; 3]>> {
    let l = mul_mat_t_vec3(&g.mat, n);
    let s = &g.size;
    let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
    match g.ty {
        GeomType::Box => {
            // the face whose outward normal points most against n
            let k = (0..3).fold(0, |k, i| if l[i].abs() > l[k].abs() { i } else { k });
            let face = 2 * k + usize::from(l[k] > 0.0);
            Some(BOX_FACES[face].iter().map(|c| world([c[0] * s[0], c[1] * s[1], c[2] * s[2]])).collect())
        }
        GeomType::Cylinder => {
            let radial = (l[0] * l[0] + l[1] * l[1]).sqrt();
            // the cap unless the axis lies within MuJoCo's edge tolerance of the plane (a coin
            // tilted 84.9054 degrees, |cos| = 0.0888, gives 4 cap vertices, steeper 2 side
            // points; bisected)
            if l[2].abs() >= super::faces::EDGE_TOL {
                let z = if l[2] > 0.0 { -s[1] } else { s[1] };
                let step = 2.0 * crate::math::PI / CYL_SIDES as f64;
                Some(
                    (0..CYL_SIDES)
                        .map(|k| {
                            let a = k as f64 * step;
                            world([s[0] * a.cos(), s[0] * a.sin(), z])
                        })
                        .collect(),
                )
            } else {
                let (x, y) = (-s[0] * l[0] / radial, -s[0] * l[1] / radial);
                Some(vec![world([x, y, -s[1]]), world([x, y, s[1]])])
            }
        }
        GeomType::Capsule => {
            let down = scl3(n, -s[0]);
            Some(vec![add3(&world([0.0, 0.0, -s[1]]), &down), add3(&world([0.0, 0.0, s[1]]), &down)])
        }
        _ => None,
    }
}

/// Points of `g` (at its advanced pose) that the rest of the step brings onto the plane `plane`
/// (also at its advanced pose), as `(point on g, height over the plane)`, at most four.
/// `spread` is how far above the lowest vertex a vertex may be: `dist(t) + (1 - t) h|v_n| +
/// ccd_tolerance`. `None` when the type has no polygon.
pub fn plane_points(plane: &Geom, g: &Geom, spread: f64) -> Option<Vec<([f64; 3], f64)>> {
    let n = [plane.mat[2], plane.mat[5], plane.mat[8]];
    let poly = facing_polygon(g, &n)?;
    let heights: Vec<f64> = poly.iter().map(|p| dot3(&n, &sub3(p, &plane.pos))).collect();
    let low = heights.iter().copied().fold(f64::INFINITY, f64::min);
    let kept: Vec<([f64; 3], f64)> =
        poly.iter().zip(&heights).filter(|(_, &h)| h - low <= spread).map(|(p, &h)| (*p, h)).collect();
    if kept.len() <= 4 {
        return Some(kept);
    }
    let pts: Vec<[f64; 3]> = kept.iter().map(|k| k.0).collect();
    Some(polygon_quad(&pts).iter().map(|&i| kept[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_sixteen_gon_prune() {
        // a regular polygon is full of area ties; at unit radius the walk happens to pick
        // MuJoCo's set for a flat cap (0, 3, 7, 11), at 1 cm rounding makes it pick 12
        let step = 2.0 * crate::math::PI / 16.0;
        let poly: Vec<[f64; 3]> = (0..16).map(|k| [(k as f64 * step).cos(), (k as f64 * step).sin(), 0.0]).collect();
        assert_eq!(polygon_quad(&poly), [0, 3, 7, 11]);
    }

    #[test]
    fn cap_prune_keeps_mujocos_vertices() {
        // MuJoCo 4.0.0 measured: a flat cap keeps the vertices at 0, 67.5, 157.5 and 247.5
        // degrees; a tilted cap whose vertices at 45 to 247.5 degrees are in reach (walked in the
        // opposite direction, as the clockwise top cap is) keeps 45, 112.5, 180, 247.5. The
        // regular polygon is full of area ties, so rounding takes part: these are unit-radius
        // caps at the origin (at 1 cm the flat cap's walk ends on 270 degrees instead, in
        // MuJoCo's walk as here).
        let step = 2.0 * crate::math::PI / 16.0;
        let cap: Vec<[f64; 3]> = (0..16).map(|k| [(k as f64 * step).cos(), (k as f64 * step).sin(), 0.0]).collect();
        let mut flat = polygon_quad_40(&cap);
        flat.sort_unstable();
        assert_eq!(flat, [0, 3, 7, 11]);
        let reach: Vec<[f64; 3]> = (2..12).rev().map(|k| cap[k]).collect();
        let mut tilted = polygon_quad_40(&reach).map(|i| 11 - i);
        tilted.sort_unstable();
        assert_eq!(tilted, [2, 5, 8, 11]);
    }
}
