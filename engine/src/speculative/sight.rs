//! Stage 3: line of sight. A speculative contact is dropped when another collidable geom hides
//! one of its segments (docs, "Line-of-sight raycasting"): a ball falling towards the floor
//! through a tabletop must hit the tabletop. MuJoCo 4.0.0 tests three segments per point (each
//! geom's own path from t = 0 to the time of impact, and the gap there); the rules on which
//! geoms count are below (`ray_occluded` for compat, `occluded` for robust), with the ray casts.
//!
//! Ray conventions follow MuJoCo's `mj_ray`: a ray is `pnt + x vec` with `vec` not necessarily
//! unit; each function returns the smallest `x >= 0` where the ray meets the geom's surface, or
//! `-1` for no hit. A ray starting inside a closed geom returns its exit point. Planes are
//! one-sided (hit only from above) and bounded by `size[0..2]` when those are positive.
//!
//! Measured: a ball at 300 m/s above a 2 mm plate gets only a ball-plate contact, not
//! ball-ground; moved off the plate, it gets ball-ground (measurements section E).

use super::SpeculativeOptions;
use crate::collision::model::{CollisionModel, DSBL_FILTERPARENT, ENBL_OVERRIDE};
use crate::math::{dot3, mul_mat_t_vec3, sub3, MINVAL};
use crate::narrowphase::{table, ContactPoint, Geom, GeomType, MAX_CONTACTS};

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

/// Ray `pnt + x vec` (world frame) against a box of half sizes `s` at `pos`, `mat`: the smallest
/// `x >= 0`, or -1 (MuJoCo 4.0.0's `ray_box`, read from the released library).
///
/// - Rejected first by the box's circumscribed sphere (radius squared `|s|^2`, world frame):
///   `|vec|^2 < MINVAL`, a negative discriminant, or both roots negative.
/// - Then face by face in the box frame: for each axis whose ray component exceeds `MINVAL`,
///   both faces' plane crossings `x >= 0` count when the crossing point lies within the face
///   (`<=` on both other half sizes, checked at the crossing, not at the ray's start).
///
/// A ray grazing a side face (component below `MINVAL` on that axis) is thus kept or rejected
/// by where it meets the other faces: a slab test deciding from the start point alone hid an
/// edge point of a plate pair behind a third plate in `scenes/newton_cradle.xml` (S12).
pub(crate) fn ray_box(pos: &[f64; 3], mat: &[f64; 9], s: &[f64; 3], pnt: &[f64; 3], vec: &[f64; 3]) -> f64 {
    // circumscribed sphere, as MuJoCo sums it
    let a = (vec[0] * vec[0] + vec[1] * vec[1]) + vec[2] * vec[2];
    if MINVAL > a {
        return -1.0;
    }
    let dif = sub3(pnt, pos);
    let b = (vec[0] * dif[0] + vec[1] * dif[1]) + vec[2] * dif[2];
    let r2 = (s[0] * s[0] + s[1] * s[1]) + s[2] * s[2];
    let c = ((dif[0] * dif[0] + dif[1] * dif[1]) + dif[2] * dif[2]) - r2;
    let det = b * b - a * c;
    if 0.0 > det {
        return -1.0;
    }
    let root = det.sqrt();
    let (x1, x2) = ((-b - root) / a, (root - b) / a);
    // negative or NaN: not ahead of the start
    let behind = |x: f64| x.is_nan() || x < 0.0;
    if behind(x1) && behind(x2) {
        return -1.0;
    }

    // faces, in the box frame
    let p = mul_mat_t_vec3(mat, &dif);
    let v = mul_mat_t_vec3(mat, vec);
    let mut best = -1.0;
    for i in 0..3 {
        if v[i].abs() <= MINVAL {
            continue;
        }
        let (k1, k2) = if i == 0 {
            (1, 2)
        } else if i == 1 {
            (0, 2)
        } else {
            (0, 1)
        };
        for x in [(-p[i] - s[i]) / v[i], (s[i] - p[i]) / v[i]] {
            if behind(x) {
                continue;
            }
            let inside = (x * v[k1] + p[k1]).abs() <= s[k1] && (x * v[k2] + p[k2]).abs() <= s[k2];
            if inside && (best < 0.0 || x < best) {
                best = x;
            }
        }
    }
    best
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
        GeomType::Box => ray_box(&g.pos, &g.mat, s, pnt, vec),
        GeomType::Mesh => ray_hull(&p, &v, g),
        _ => -1.0,
    }
}

/// [`ray_geom`] for geom `g` of the model, a mesh cast against its own triangles when the model
/// has them, as MuJoCo's `mj_rayMesh` does (`docs/measurements.md` S11), else against its hull.
pub(crate) fn model_ray(m: &CollisionModel, g: usize, og: &Geom, pnt: &[f64; 3], vec: &[f64; 3]) -> f64 {
    if og.ty == GeomType::Mesh {
        let surface = usize::try_from(m.geom_dataid[g]).ok().and_then(|i| m.surfaces.get(i)).and_then(Option::as_ref);
        if let Some(s) = surface {
            return s.ray(&og.size, &og.pos, &og.mat, pnt, vec);
        }
    }
    ray_geom(og, pnt, vec)
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

// The two occlusion rules, side by side: robust mode's (`occluded`, any collidable geom crossing
// the witness segment that touches neither geom of the pair) and MuJoCo 4.0.0's
// (`ray_occluded`, its `isRayOccluded`), which compatible mode reproduces.

/// Whether the segment `p`-`q` (between the pair's witness points) is hidden by another geom.
///
/// The occluder must be able to collide with the fast geom and sit on neither geom's body, the
/// world body excepted (measured; see `speculative`): a ball with a small sphere of its own body
/// just below it keeps its floor contact, the same small sphere on a body of its own hides it;
/// the capsules of a chain link do not hide that link from the next link; a plate on the world
/// body hides the world's floor. An occluder already in contact with either geom of the pair
/// hides nothing (measured on the cradle: a box crossing the segment hides the point unless it
/// penetrates one of the two plates). Only geoms that can collide count: a plate on the world
/// body sunk into the world's floor still hides the floor.
#[allow(clippy::too_many_arguments)]
pub(crate) fn occluded<'a>(
    m: &'a CollisionModel,
    (g1, a): (usize, &Geom<'a>),
    (g2, b): (usize, &Geom<'a>),
    fast: usize,
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    opt: &SpeculativeOptions,
    p: &[f64; 3],
    q: &[f64; 3],
) -> bool {
    let own = |g: usize| {
        let body = m.geom_bodyid[g];
        body != 0 && (body == m.geom_bodyid[g1] || body == m.geom_bodyid[g2])
    };
    let can_touch = |g: usize, other: usize| {
        let (bg, bo) = (m.geom_bodyid[g], m.geom_bodyid[other]);
        m.body_weldid.get(bg) != m.body_weldid.get(bo)
            && ((m.geom_contype[g] & m.geom_conaffinity[other]) != 0
                || (m.geom_contype[other] & m.geom_conaffinity[g]) != 0)
    };
    let touches = |g: usize, og: &Geom| {
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        [(g1, a), (g2, b)]
            .iter()
            .any(|(o, pg)| can_touch(g, *o) && table::collide(og, pg, 0.0, &opt.collide, &mut buf).unwrap_or(0) > 0)
    };
    (0..m.ngeom()).filter(|&g| g != g1 && g != g2 && !own(g)).any(|g| {
        let compatible =
            (m.geom_contype[g] & m.geom_conaffinity[fast]) != 0 || (m.geom_contype[fast] & m.geom_conaffinity[g]) != 0;
        compatible
            && geom(g).is_some_and(|og| (0.0..=1.0).contains(&model_ray(m, g, &og, p, &sub3(q, p))) && !touches(g, &og))
    })
}

/// MuJoCo 4.0.0's line-of-sight test (`isRayOccluded`, read from the released library): true
/// when the segment `a`-`b`, seen from geom `ga` of a pair with `gb`, is hidden by another geom.
///
/// - The segment is shortened by 1e-5 of its length at both ends; a segment shorter than 1e-15
///   hides nothing.
/// - Candidates: planes and sphere to mesh types (height fields and SDFs never occlude), other
///   than `ga` and `gb`, whose bounding sphere (when `rbound > 0`) reaches the segment's
///   bounding sphere; not welded to `ga`'s weld body (even the world), nor to `gb`'s unless that
///   is the world; either joined to `ga` by an explicit pair, or collidable with `ga` (contype /
///   conaffinity, the excluded body pairs, and the parent filter unless disabled or a weld body
///   is the world).
/// - Planes are tested analytically as infinite two-sided planes (a crossing, with a 1e-5 dead
///   band at the plane); the other types by ray casting (meshes against their own triangles,
///   S11), a hit counting at ray parameter 0 to 1.
/// - A hit geom within `margin + ccd_tolerance` of `ga` (the pair margin of `ga` and it, the
///   override margin under override) does not occlude; two planes always do.
///
/// Measured with the earlier single-segment reading and consistent with these rules: a plate on
/// the world body hides the world's floor from a falling ball; a plate that cannot touch the ball
/// hides nothing; a static box over one of two edge points of a plate pair removes that point.
#[allow(clippy::too_many_arguments)]
pub(crate) fn ray_occluded<'a>(
    m: &'a CollisionModel,
    geom: &dyn Fn(usize) -> Option<Geom<'a>>,
    opt: &SpeculativeOptions,
    ga: usize,
    gb: usize,
    a: &[f64; 3],
    b: &[f64; 3],
) -> bool {
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let len2 = (ab[0] * ab[0] + ab[1] * ab[1]) + ab[2] * ab[2];
    if 1e-30 > len2 {
        return false;
    }
    let start = [ab[0] * 1e-5 + a[0], ab[1] * 1e-5 + a[1], ab[2] * 1e-5 + a[2]];
    let vec = [ab[0] * 0.99998, ab[1] * 0.99998, ab[2] * 0.99998];
    let mid = [ab[0] * 0.5 + a[0], ab[1] * 0.5 + a[1], ab[2] * 0.5 + a[2]];
    let half = len2.sqrt() * 0.5;
    let weld = |g: usize| m.body_weldid[m.geom_bodyid[g]];
    let (wa, wb) = (weld(ga), weld(gb));
    let wa_parent = m.body_weldid[m.body_parentid[wa]];
    let parent_filter = !m.opt.disabled(DSBL_FILTERPARENT) && wa != 0;
    let ba = m.geom_bodyid[ga];
    for g in 0..m.ngeom() {
        if g == ga || g == gb {
            continue;
        }
        let ty = m.geom_type[g];
        if !matches!(
            ty,
            GeomType::Plane
                | GeomType::Sphere
                | GeomType::Capsule
                | GeomType::Ellipsoid
                | GeomType::Cylinder
                | GeomType::Box
                | GeomType::Mesh
        ) {
            continue;
        }
        // the geom at t = 0 (a mesh without a hull cannot be tested)
        let Some(og) = geom(g) else { continue };
        let rb = m.geom_rbound[g];
        if rb > 0.0 {
            let p = &og.pos;
            let d = [p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]];
            let reach = half + rb;
            if (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2] > reach * reach {
                continue;
            }
        }
        let wg = weld(g);
        if wg == wa || (wb != 0 && wg == wb) {
            continue;
        }
        let pair = (0..m.pair_geom1.len()).find(|&p| {
            let (p1, p2) = (m.pair_geom1[p], m.pair_geom2[p]);
            (p1 == ga && p2 == g) || (p1 == g && p2 == ga)
        });
        if pair.is_none() {
            let collide = (m.geom_conaffinity[g] & m.geom_contype[ga]) | (m.geom_contype[g] & m.geom_conaffinity[ga]);
            if collide == 0 {
                continue;
            }
            let bg = m.geom_bodyid[g];
            let sig = ((ba.min(bg) as u32) << 16) + bg.max(ba) as u32;
            if m.exclude_signature.contains(&sig) {
                continue;
            }
            if wg != 0 && parent_filter && (wa == m.body_weldid[m.body_parentid[wg]] || wg == wa_parent) {
                continue;
            }
        }
        let hit = if ty == GeomType::Plane {
            let (p, x) = (&og.pos, &og.mat);
            let z = [x[2], x[5], x[8]];
            let rel = [a[0] - p[0], a[1] - p[1], a[2] - p[2]];
            let along = (ab[0] * z[0] + ab[1] * z[1]) + ab[2] * z[2];
            let above = (rel[0] * z[0] + rel[1] * z[1]) + rel[2] * z[2];
            let end = along + above;
            (above * end).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
                && (above.abs() > 1e-5 || end.abs() > 1e-5)
        } else {
            let x = model_ray(m, g, &og, &start, &vec);
            (0.0..=1.0).contains(&x)
        };
        if !hit {
            continue;
        }
        let mut margin = match pair {
            Some(p) => m.pair_margin[p],
            None => m.geom_margin[ga] + m.geom_margin[g],
        };
        if m.opt.enabled(ENBL_OVERRIDE) {
            margin = m.opt.o_margin;
        }
        if m.geom_type[ga] == GeomType::Plane && ty == GeomType::Plane {
            return true;
        }
        let reach = margin + opt.collide.ccd_tolerance;
        let Some(pa) = geom(ga) else { return true };
        if reach < crate::speculative::advance::fresh_distance(&pa, &og, reach, &opt.collide) {
            return true;
        }
    }
    false
}
