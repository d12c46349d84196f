//! Robust mode's points against a plane: the vertices of the face of a geom that faces the plane
//! (a box face, a cylinder cap as a 16-gon, or the two ends of a capsule or of a cylinder's side
//! line), kept when within reach of the lowest one and pruned to four. (The compatible mode takes
//! its points from MuJoCo's multi-contact, `narrowphase::convex::speculative_points`.)

use crate::math::{add3, cross, dot3, mul_mat_t_vec3, mul_mat_vec3, norm3, scl3, sub3};
use crate::narrowphase::{Geom, GeomType};

/// Sides of the polygon standing in for a cylinder cap.
const CYL_SIDES: usize = 16;
/// MuJoCo's tolerance for an edge to count as lying in a face (`mjEDGE_TOL`, |cos| of the angle
/// between the edge and the face normal).
const EDGE_TOL: f64 = 0.0888;

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

/// The size measure robust mode's pruning maximises over quadrilaterals a-b-c-d: half the norm
/// of the sum of two diagonal cross products. Not the area (it is 0 for a square), unlike the
/// narrowphase's `polygon::area4`; kept because robust mode's outcomes were measured with it:
/// the true area changes 383 of sweep preset B's 8,640 runs (none passes either way, one more
/// part slides off the pane), so switching is a behaviour change to make on its own evidence.
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

/// Buffers of [`plane_points`], kept per thread from call to call so that a collision call
/// allocates nothing once they have grown.
#[derive(Default)]
struct Buffers {
    poly: Vec<[f64; 3]>,
    keyed: Vec<(f64, [f64; 3])>,
    kept: Vec<([f64; 3], f64)>,
    pts: Vec<[f64; 3]>,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::new(Buffers::default());
}

/// The polygon (world frame, at the given pose) of geom `g` facing a plane of normal `n`, written
/// to `out`; false for types handled elsewhere (spheres, ellipsoids, meshes without a hull).
fn facing_polygon(g: &Geom, n: &[f64; 3], out: &mut Vec<[f64; 3]>, keyed: &mut Vec<(f64, [f64; 3])>) -> bool {
    out.clear();
    let l = mul_mat_t_vec3(&g.mat, n);
    let s = &g.size;
    let world = |p: [f64; 3]| add3(&g.pos, &mul_mat_vec3(&g.mat, &p));
    match g.ty {
        GeomType::Box => {
            // the face whose outward normal points most against n
            let k = (0..3).fold(0, |k, i| if l[i].abs() > l[k].abs() { i } else { k });
            let face = 2 * k + usize::from(l[k] > 0.0);
            out.extend(BOX_FACES[face].iter().map(|c| world([c[0] * s[0], c[1] * s[1], c[2] * s[2]])));
        }
        GeomType::Cylinder => {
            let radial = (l[0] * l[0] + l[1] * l[1]).sqrt();
            // the cap unless the axis lies within MuJoCo's edge tolerance of the plane (a coin
            // tilted 84.9054 degrees, |cos| = 0.0888, gives 4 cap vertices, steeper 2 side
            // points; bisected)
            if l[2].abs() >= EDGE_TOL {
                let z = if l[2] > 0.0 { -s[1] } else { s[1] };
                let step = 2.0 * crate::math::PI / CYL_SIDES as f64;
                out.extend((0..CYL_SIDES).map(|k| {
                    let a = k as f64 * step;
                    world([s[0] * a.cos(), s[0] * a.sin(), z])
                }));
            } else {
                let (x, y) = (-s[0] * l[0] / radial, -s[0] * l[1] / radial);
                out.extend([world([x, y, -s[1]]), world([x, y, s[1]])]);
            }
        }
        GeomType::Capsule => {
            let down = scl3(n, -s[0]);
            out.extend([add3(&world([0.0, 0.0, -s[1]]), &down), add3(&world([0.0, 0.0, s[1]]), &down)]);
        }
        GeomType::Mesh => {
            // every hull vertex, ordered around the direction n so that the quad reduction walks
            // a polygon: the height filter of `plane_points` keeps the facing ones. Without this
            // a mesh landing face down got one arresting point and the impulse spun it off (a
            // 1 cm tetrahedron at 10 m/s onto a 2 mm plate left at 16 m/s sideways; issue 13's
            // sweep of a user scene found it)
            let Some(h) = g.hull else { return false };
            out.extend(h.corners().iter().map(|v| world(*v)));
            around(out, n, keyed);
        }
        _ => return false,
    }
    true
}

/// Sorts `pts` by their angle about the axis `n` through their centroid (ties keep order).
fn around(pts: &mut [[f64; 3]], n: &[f64; 3], keyed: &mut Vec<(f64, [f64; 3])>) {
    let k = pts.len().max(1) as f64;
    let c = pts.iter().fold([0.0; 3], |a, p| add3(&a, p));
    let c = scl3(&c, 1.0 / k);
    // an in-plane basis: any vector not parallel to n, made perpendicular
    let pick = if n[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
    let u = cross(n, &pick);
    let v = cross(n, &u);
    keyed.clear();
    keyed.extend(pts.iter().map(|p| {
        let d = sub3(p, &c);
        (dot3(&d, &v).atan2(dot3(&d, &u)), *p)
    }));
    // stable, as the sort of a collected list was: ties keep their order
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (p, (_, q)) in pts.iter_mut().zip(keyed.iter()) {
        *p = *q;
    }
}

/// Up to four `(point, height)` pairs and how many there are.
pub type PlanePoints = ([([f64; 3], f64); 4], usize);

/// Points of `g` (at its advanced pose) that the rest of the step brings onto the plane `plane`
/// (also at its advanced pose), as `(point on g, height over the plane)`, at most four.
/// `spread` is how far above the lowest vertex a vertex may be: `dist(t) + (1 - t) h|v_n| +
/// ccd_tolerance`. `None` when the type has no polygon.
pub fn plane_points(plane: &Geom, g: &Geom, spread: f64) -> Option<PlanePoints> {
    crate::with_thread_buffers(&BUFFERS, |b| plane_points_in(plane, g, spread, b))
}

/// [`plane_points`] in the given buffers.
fn plane_points_in(plane: &Geom, g: &Geom, spread: f64, b: &mut Buffers) -> Option<PlanePoints> {
    let n = [plane.mat[2], plane.mat[5], plane.mat[8]];
    if !facing_polygon(g, &n, &mut b.poly, &mut b.keyed) {
        return None;
    }
    let height = |p: &[f64; 3]| dot3(&n, &sub3(p, &plane.pos));
    let low = b.poly.iter().map(height).fold(f64::INFINITY, f64::min);
    b.kept.clear();
    b.kept.extend(b.poly.iter().map(|p| (*p, height(p))).filter(|&(_, h)| h - low <= spread));
    let mut out = ([([0.0; 3], 0.0); 4], 0);
    if b.kept.len() <= 4 {
        out.0[..b.kept.len()].copy_from_slice(&b.kept);
        out.1 = b.kept.len();
        return Some(out);
    }
    b.pts.clear();
    b.pts.extend(b.kept.iter().map(|k| k.0));
    for (slot, &i) in out.0.iter_mut().zip(polygon_quad(&b.pts).iter()) {
        *slot = b.kept[i];
    }
    out.1 = 4;
    Some(out)
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
}
