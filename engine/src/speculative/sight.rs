//! Stage 3: line of sight. A speculative contact is dropped when another collidable geom hides
//! one of its segments (docs, "Line-of-sight raycasting"): a ball falling towards the floor
//! through a tabletop must hit the tabletop. MuJoCo 4.0.0 tests three segments per point (each
//! geom's own path from t = 0 to the time of impact, and the gap there); the rules on which
//! geoms count are in `collision::speculate` (`ray_occluded`), the ray casts here.
//!
//! Ray conventions follow MuJoCo's `mj_ray`: a ray is `pnt + x vec` with `vec` not necessarily
//! unit; each function returns the smallest `x >= 0` where the ray meets the geom's surface, or
//! `-1` for no hit. A ray starting inside a closed geom returns its exit point. Planes are
//! one-sided (hit only from above) and bounded by `size[0..2]` when those are positive.
//!
//! Measured: a ball at 300 m/s above a 2 mm plate gets only a ball-plate contact, not
//! ball-ground; moved off the plate, it gets ball-ground (measurements section E).

use crate::math::{dot3, mul_mat_t_vec3, sub3, MINVAL};
use crate::narrowphase::{Geom, GeomType};

/// Smallest non-negative root of `a x^2 + 2 b x + c = 0`, or -1.
fn quad_root(a: f64, b: f64, c: f64) -> f64 {
    let det = b * b - a * c;
    if a < MINVAL || det < MINVAL {
        return -1.0;
    }
    let s = det.sqrt();
    let x1 = (-b - s) / a;
    let x2 = (-b + s) / a;
    if x1 >= 0.0 {
        x1
    } else if x2 >= 0.0 {
        x2
    } else {
        -1.0
    }
}

/// Keep the smaller non-negative of two ray parameters (-1 meaning none).
fn closer(x: f64, y: f64) -> f64 {
    match (x >= 0.0, y >= 0.0) {
        (true, true) => x.min(y),
        (true, false) => x,
        (false, true) => y,
        _ => -1.0,
    }
}

/// Ray against a sphere of radius `r` centred at the local origin.
fn ray_sphere(p: &[f64; 3], v: &[f64; 3], r: f64) -> f64 {
    quad_root(dot3(v, v), dot3(p, v), dot3(p, p) - r * r)
}

/// Ray against the side of an infinite z-cylinder of radius `r`, kept within `|z| <= h`.
fn ray_tube(p: &[f64; 3], v: &[f64; 3], r: f64, h: f64) -> f64 {
    let a = v[0] * v[0] + v[1] * v[1];
    let b = p[0] * v[0] + p[1] * v[1];
    let c = p[0] * p[0] + p[1] * p[1] - r * r;
    let det = b * b - a * c;
    if a < MINVAL || det < MINVAL {
        return -1.0;
    }
    let s = det.sqrt();
    let mut best = -1.0;
    for x in [(-b - s) / a, (-b + s) / a] {
        if x >= 0.0 && (p[2] + x * v[2]).abs() <= h {
            best = closer(best, x);
        }
    }
    best
}

/// Ray against the two caps `z = +-h` of a z-cylinder of radius `r`.
fn ray_caps(p: &[f64; 3], v: &[f64; 3], r: f64, h: f64) -> f64 {
    if v[2].abs() < MINVAL {
        return -1.0;
    }
    let mut best = -1.0;
    for z in [-h, h] {
        let x = (z - p[2]) / v[2];
        let (px, py) = (p[0] + x * v[0], p[1] + x * v[1]);
        if x >= 0.0 && px * px + py * py <= r * r {
            best = closer(best, x);
        }
    }
    best
}

/// Ray against an axis-aligned box of half sizes `s` at the local origin (slab test; the exit
/// point when starting inside).
fn ray_box(p: &[f64; 3], v: &[f64; 3], s: &[f64; 3]) -> f64 {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for i in 0..3 {
        if v[i].abs() < MINVAL {
            if p[i].abs() > s[i] {
                return -1.0;
            }
            continue;
        }
        let (a, b) = ((-s[i] - p[i]) / v[i], (s[i] - p[i]) / v[i]);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
    }
    if lo > hi || hi < 0.0 {
        -1.0
    } else if lo >= 0.0 {
        lo
    } else {
        hi
    }
}

/// Ray against a convex hull given by its triangles (Cyrus-Beck clipping by face planes).
fn ray_hull(p: &[f64; 3], v: &[f64; 3], g: &Geom) -> f64 {
    let Some(hull) = g.hull else {
        return -1.0;
    };
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for f in &hull.face {
        let (Some(a), Some(b), Some(c)) =
            (hull.vert.get(f[0] as usize), hull.vert.get(f[1] as usize), hull.vert.get(f[2] as usize))
        else {
            continue;
        };
        let n = crate::math::cross(&sub3(b, a), &sub3(c, a));
        // inside: n . (x - a) <= 0
        let num = dot3(&n, &sub3(p, a));
        let den = dot3(&n, v);
        if den.abs() < MINVAL {
            if num > 0.0 {
                return -1.0;
            }
            continue;
        }
        let x = -num / den;
        if den < 0.0 {
            lo = lo.max(x);
        } else {
            hi = hi.min(x);
        }
    }
    if hull.face.is_empty() || lo > hi || hi < 0.0 {
        -1.0
    } else if lo >= 0.0 {
        lo
    } else {
        hi
    }
}

/// Distance along `vec` (in units of `|vec|`) from `pnt` to geom `g`, or -1 when the ray
/// misses (MuJoCo's `mju_rayGeom` conventions; meshes use their convex hull).
pub fn ray_geom(g: &Geom, pnt: &[f64; 3], vec: &[f64; 3]) -> f64 {
    let p = mul_mat_t_vec3(&g.mat, &sub3(pnt, &g.pos));
    let v = mul_mat_t_vec3(&g.mat, vec);
    let s = &g.size;
    match g.ty {
        GeomType::Plane => {
            // one-sided: only rays coming down onto the top face
            if v[2] > -MINVAL || p[2] < 0.0 {
                return -1.0;
            }
            let x = -p[2] / v[2];
            let (px, py) = (p[0] + x * v[0], p[1] + x * v[1]);
            if (s[0] <= 0.0 || px.abs() <= s[0]) && (s[1] <= 0.0 || py.abs() <= s[1]) {
                x
            } else {
                -1.0
            }
        }
        GeomType::Sphere => ray_sphere(&p, &v, s[0]),
        GeomType::Capsule => {
            let mut best = ray_tube(&p, &v, s[0], s[1]);
            for z in [-s[1], s[1]] {
                let pc = [p[0], p[1], p[2] - z];
                best = closer(best, ray_sphere(&pc, &v, s[0]));
            }
            best
        }
        GeomType::Ellipsoid => {
            if s[0] < MINVAL || s[1] < MINVAL || s[2] < MINVAL {
                return -1.0;
            }
            let ps = [p[0] / s[0], p[1] / s[1], p[2] / s[2]];
            let vs = [v[0] / s[0], v[1] / s[1], v[2] / s[2]];
            ray_sphere(&ps, &vs, 1.0)
        }
        GeomType::Cylinder => closer(ray_tube(&p, &v, s[0], s[1]), ray_caps(&p, &v, s[0], s[1])),
        GeomType::Box => ray_box(&p, &v, s),
        GeomType::Mesh => ray_hull(&p, &v, g),
        _ => -1.0,
    }
}

/// True when geom `g` meets the segment from `a` to `b` (ray parameter in [0, 1]).
pub fn segment_hits(g: &Geom, a: &[f64; 3], b: &[f64; 3]) -> bool {
    let x = ray_geom(g, a, &sub3(b, a));
    (0.0..=1.0).contains(&x)
}

/// True when any of `occluders` meets the segment from `a` to `b`. The caller passes every
/// other collidable geom compatible with both bodies of the pair (not the pair's own geoms).
pub fn segment_occluded<'a, I>(occluders: I, a: &[f64; 3], b: &[f64; 3]) -> bool
where
    I: IntoIterator<Item = &'a Geom<'a>>,
{
    occluders.into_iter().any(|g| segment_hits(g, a, b))
}
