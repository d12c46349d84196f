//! Convex narrowphase: MuJoCo's native CCD (GJK + EPA) for every pair without a dedicated
//! primitive collider (`mjc_Convex`), the plane-vs-convex path (`mjc_PlaneConvex`) and the CCD
//! branch of `mj_geomDistance`.
//!
//! How a pair is handled (MuJoCo 4.0.0, `nativeccd` on):
//! 1. Each geom becomes a support function ([`support`]) inflated by half the pair margin.
//! 2. If a sphere or capsule is involved, GJK first runs on its core (centre point or axis
//!    segment); when the cores are apart by more than the tolerance the answer is the core
//!    distance minus the radii, with no EPA.
//! 3. Otherwise GJK ([`gjk`]) decides overlap; overlapping shapes go to EPA ([`epa`]) for depth,
//!    normal and witness points. Contact position is the midpoint of the witnesses, the normal
//!    points from geom 1 to geom 2, `dist = margin + depth`.
//! 4. With multi-contact on, a pass may return several contacts: up to 4 for pairs of boxes,
//!    meshes and cylinders, 2 for a capsule with one of those ([`max_contacts`]). The features
//!    each shape contributed to the final GJK simplex (or EPA face) decide whether two faces,
//!    or an edge and a face, touch; if so they are clipped ([`multiccd`]; cylinder caps are
//!    16-gons). This also runs when only the inflated shapes touch (step 2).
//!
//! Provenance: the algorithms follow MuJoCo's `engine_collision_gjk.c` / `_convex.c` as of
//! 3.12.1 (August 2026), with the changes MuJoCo made up to 4.0.0 (changelog 3.13-4.0: cylinder
//! and capsule single-pass contacts, margins in single-pass contacts, a rewritten plane-mesh
//! collider, "improved numerical stability" of GJK/EPA). No source of those versions is public;
//! the changes were read from the released 4.0.0 library (unstripped, compared function by
//! function with 3.17.0's) and each was confirmed by running MuJoCo's own `mjc_ccd` and this
//! code on the same random poses: GJK's iteration ([`gjk`]), the sub-simplex weights, EPA's
//! termination and horizon tolerance ([`epa`]), and the half margins taken off both supports
//! while a sphere or capsule runs on its core. Agreement with 4.0.0 per type pair is in
//! `tests/narrowphase_oracle.rs` and the README; what is not reproduced yet: 4.0.0's repair of
//! degenerate initial polytopes (`polytope2`-`4`), and for meshes the order and exact normals of
//! MuJoCo's hull polygon table (see `polygon.rs`), which multi-contact reads.

mod epa;
mod features;
mod gjk;
mod multiccd;
mod polygon;
mod support;

use crate::math::{add3, dot3, frame_from_normal, mul_mat_t_vec3, normalize3, scl3, sub3};
use crate::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};
use features::Features;
use gjk::MAX_LIMIT;
// The speculative stage runs GJK alone on objects it keeps across its advancement steps (warm
// start, MuJoCo 4.0.0's `evalGeomPairDist`), so it needs the objects and the GJK run itself.
pub(crate) use gjk::{gjk as run_gjk, Status};
pub(crate) use support::{ConvexObj, Core};
pub(crate) use features::Features as CcdFeatures;

/// Contacts closer than this fraction of the smaller bounding radius are merged (perturbation
/// multi-contact).
const PERTURB_REL_TOL: f64 = 1e-3;
/// Tilt angle (radians) used to probe for extra contacts.
const PERTURB_ANGLE: f64 = 1e-3;
/// Most contacts from the plane-vs-mesh path (MuJoCo 4.0.0, measured).
const PLANE_MESH_MAX: usize = 4;

/// The outcome of one CCD run: smallest distance plus the witness pairs behind it.
struct CcdResult {
    /// Smallest witness distance (`MAX_LIMIT` when separated beyond the cutoff).
    dist: f64,
    /// Run state with the witness points.
    status: Status,
}

/// MuJoCo's `mjc_ccd`: distance (positive) or penetration (negative) between two objects, and
/// with `max_contacts > 1` the multi-contact witnesses.
fn ccd(
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    opt: &CollideOptions,
    max_contacts: usize,
    dist_cutoff: f64,
) -> CcdResult {
    let mut st = Status::new(opt.ccd_iterations, opt.ccd_tolerance, dist_cutoff);
    st.x1[0] = o1.pos;
    st.x2[0] = o2.pos;
    let maxc = max_contacts.min(MAX_CONTACTS);

    let round = |t: GeomType| matches!(t, GeomType::Sphere | GeomType::Capsule);
    // MuJoCo 4.0.0 also takes this distance-first route for any pair with a positive margin
    // (read from its `mjc_ccd`; confirmed on 2000 random poses of two ellipsoids with margins,
    // where running EPA on the inflated shapes differs in the last digits on a few)
    if round(o1.ty) || round(o2.ty) || o1.margin > 0.0 || o2.margin > 0.0 {
        // run GJK on the cores, with the radii (and half margins) added back afterwards
        let (m1, m2) = (o1.margin, o2.margin);
        // MuJoCo 4.0.0 also takes the other geom's half margin off its support for this run and
        // adds it back with the radii (3.x kept it on the support; measured: a sphere and an
        // ellipsoid with margins agree with 4.0.0 on 509 of 509 poses this way, 226 the other)
        let shrink = |o: &mut ConvexObj| -> f64 {
            let core = match o.ty {
                GeomType::Sphere => Core::Point,
                GeomType::Capsule => Core::Segment,
                _ => {
                    let half = 0.5 * o.margin;
                    o.margin = 0.0;
                    return half;
                }
            };
            let full = o.size[0] + 0.5 * o.margin;
            o.core = core;
            o.margin = 0.0;
            full
        };
        let full1 = shrink(o1);
        let full2 = shrink(o2);
        st.dist_cutoff += full1 + full2;
        gjk::gjk(&mut st, o1, o2);
        let (f1, f2) = Features::from_simplex(&st);
        st.dist_cutoff = dist_cutoff;
        o1.margin = m1;
        o2.margin = m2;
        o1.core = Core::Full;
        o2.core = Core::Full;

        // cores apart: the shapes' distance is the core distance minus the radii
        if st.dist[0] > st.tolerance {
            inflate(&mut st, full1, full2);
            if st.dist[0] > st.dist_cutoff {
                st.dist[0] = MAX_LIMIT;
                return CcdResult { dist: MAX_LIMIT, status: st };
            }
            // touching only once inflated (a capsule on a face, shapes within their margins):
            // MuJoCo 4.0.0 runs multi-contact on the features of the cores' GJK simplex
            if st.dist[0] < 0.0 && max_contacts >= 2 && f1.n > 0 {
                st.nx = multiccd::multicontact(&mut st, o1, o2, &f1, &f2, maxc);
                return CcdResult { dist: min_dist(&st), status: st };
            }
            return CcdResult { dist: st.dist[0], status: st };
        }
        if max_contacts == 0 {
            st.nx = 0;
            st.dist[0] = 0.0;
            return CcdResult { dist: 0.0, status: st };
        }
        // cores overlap: start again on the full shapes
        st.gjk_iterations = 0;
        st.x1[0] = o1.pos;
        st.x2[0] = o2.pos;
    }
    st.nsimplex = 0;
    gjk::gjk(&mut st, o1, o2);
    if max_contacts == 0 {
        let d = st.dist[0];
        return CcdResult { dist: d, status: st };
    }

    if st.dist[0] <= opt.ccd_tolerance && st.nsimplex > 1 && !st.separated {
        st.dist[0] = 0.0;
        let mut pt = epa::Polytope::new(opt.ccd_iterations);
        let built = match st.nsimplex {
            2 => epa::polytope2(&mut pt, &mut st, o1, o2),
            3 => epa::polytope3(&mut pt, &mut st, o1, o2),
            _ => epa::polytope4(&mut pt, &mut st, o1, o2),
        };
        if built.is_ok() {
            if let Some(f) = epa::epa(&mut st, &mut pt, o1, o2) {
                if max_contacts >= 2 {
                    // the EPA face's vertices replace the GJK simplex as the features
                    let (f1, f2) = Features::from_face(pt.faces[f].verts.map(|i| pt.verts[i]));
                    st.nx = multiccd::multicontact(&mut st, o1, o2, &f1, &f2, maxc);
                }
            }
        }
    }
    CcdResult { dist: min_dist(&st), status: st }
}

/// Smallest distance over the witness pairs (the first one if there are none).
fn min_dist(st: &Status) -> f64 {
    let mut min = st.dist[0];
    for &d in &st.dist[1..st.nx.max(1)] {
        if d < min {
            min = d;
        }
    }
    min
}

/// Push the witness points outward by the core radii along the line joining them.
fn inflate(st: &mut Status, m1: f64, m2: f64) {
    if m1 == 0.0 && m2 == 0.0 {
        return;
    }
    let mut n = sub3(&st.x2[0], &st.x1[0]);
    normalize3(&mut n);
    multiccd::inflate_along(st, st.nx, m1, m2, &n);
}

/// MuJoCo's `mjc_penetration`: contacts (if penetrating within `margin`) from one CCD run.
fn penetration(
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    opt: &CollideOptions,
    max_contacts: usize,
    margin: f64,
    out: &mut [ContactPoint],
) -> usize {
    let r = ccd(o1, o2, opt, max_contacts, 0.0);
    if r.dist >= 0.0 {
        return 0;
    }
    let st = &r.status;
    let n = st.nx.min(out.len());
    for (i, c) in out.iter_mut().enumerate().take(n) {
        let pos = scl3(&add3(&st.x1[i], &st.x2[i]), 0.5);
        let mut normal = sub3(&st.x1[i], &st.x2[i]);
        normalize3(&mut normal);
        *c = ContactPoint { dist: margin + st.dist[i], pos, frame: frame_from_normal(&normal) };
    }
    n
}

/// Contacts one CCD pass may return for this pair (the budget `mjc_Convex` gives `mjc_ccd`).
///
/// MuJoCo 4.0.0 (read from the library, confirmed by the contact counts on every tested pose):
/// without native CCD 1; two boxes 8 (they normally go to the box-box collider); with multi-contact off, 1; pairs
/// of cylinders, boxes and meshes 4; a capsule with one of those (or another capsule) 2;
/// everything else (spheres, ellipsoids) 1. Margins do not change the budget.
fn max_contacts(o1: &ConvexObj, o2: &ConvexObj, opt: &CollideOptions) -> usize {
    let big = |t: GeomType| matches!(t, GeomType::Box | GeomType::Mesh | GeomType::Cylinder);
    let cap = |t: GeomType| t == GeomType::Capsule;
    if !opt.nativeccd {
        // libccd's single contact (specula runs the native path regardless)
        return 1;
    }
    if o1.ty == GeomType::Box && o2.ty == GeomType::Box {
        return 8;
    }
    if !opt.multiccd {
        return 1;
    }
    if big(o1.ty) && big(o2.ty) {
        return 4;
    }
    1 + ((big(o2.ty) && cap(o1.ty)) || (big(o1.ty) && cap(o2.ty)) || (cap(o1.ty) && cap(o2.ty))) as usize
}

/// General convex-convex collision (MuJoCo's `mjc_Convex`), same signature as the pair table.
///
/// `opt.multiccd` means MuJoCo's multi-contact search is on (it is on unless
/// `mjDSBL_MULTICCD` is set). `opt.nativeccd == false` (libccd's MPR) is not supported; the
/// native path is used regardless.
pub fn collide_convex(g1: &Geom, g2: &Geom, margin: f64, opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    if out.is_empty() {
        return 0;
    }
    let mut o1 = ConvexObj::new(g1, margin);
    let mut o2 = ConvexObj::new(g2, margin);
    let maxc = max_contacts(&o1, &o2, opt);
    let mut ncon = penetration(&mut o1, &mut o2, opt, maxc, margin, out);
    if maxc > 1 {
        return ncon;
    }
    let smooth = |t: GeomType| matches!(t, GeomType::Sphere | GeomType::Ellipsoid);
    if ncon == 1 && opt.multiccd && !smooth(g1.ty) && !smooth(g2.ty) {
        ncon =
            multiccd::perturbed_contacts(g1, g2, out, &mut o1, &mut o2, |a, b, o| penetration(a, b, opt, 1, margin, o));
    }
    ncon
}

/// Distance tolerance for merging perturbation contacts.
fn perturb_tolerance(g1: &Geom, g2: &Geom) -> f64 {
    PERTURB_REL_TOL * g1.rbound.min(g2.rbound)
}

/// Plane (geom 1) against an ellipsoid or mesh (geom 2) (MuJoCo's `mjc_PlaneConvex`).
///
/// The point deepest along the plane's inward normal gives the first contact (`dist` is its
/// height over the plane, the position is moved half-way to the plane). Ellipsoids stop there.
/// For meshes, MuJoCo 4.0.0 (whose plane-mesh collider was rewritten after the source snapshot
/// we learned from) walks the hull face through the deepest vertex that faces the plane most
/// squarely, in its counter-clockwise order, and adds every vertex within the margin; more than
/// four are pruned to the quad of largest area. These rules were inferred by probing 4.0.0
/// (cube and hexagonal/octagonal prisms, flat and tilted; see `engine/tests/convex_mujoco.rs`).
pub fn plane_convex(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    if out.is_empty() {
        return 0;
    }
    let normal = [g1.mat[2], g1.mat[5], g1.mat[8]];
    let dir = [-g1.mat[2], -g1.mat[5], -g1.mat[8]];
    let contact = |p: &[f64; 3]| {
        let d = dot3(&normal, &sub3(p, &g1.pos));
        ContactPoint { dist: d, pos: crate::math::add_scl3(p, &normal, -0.5 * d), frame: frame_from_normal(&normal) }
    };
    let hull = match (g2.ty, g2.hull) {
        (GeomType::Mesh, Some(h)) if !h.vert.is_empty() => h,
        _ => {
            let p = support::plane_support(g2, &dir);
            let c = contact(&p);
            if c.dist > margin {
                return 0;
            }
            out[0] = c;
            return 1;
        }
    };

    // deepest hull vertex (first of equals in hull order)
    let loc = mul_mat_t_vec3(&g2.mat, &dir);
    let mut best = 0;
    let mut best_dot = dot3(&loc, &hull.vert[0]);
    for (i, v) in hull.vert.iter().enumerate().skip(1) {
        let d = dot3(&loc, v);
        if d > best_dot {
            best_dot = d;
            best = i;
        }
    }
    let world = |i: usize| add3(&crate::math::mul_mat_vec3(&g2.mat, &hull.vert[i]), &g2.pos);
    let first = contact(&world(best));
    if first.dist > margin {
        return 0;
    }

    // the face through that vertex whose outward normal points most nearly against the plane's
    let data = support::data_of(hull);
    let tab = data.polygons(hull);
    let through = tab.polymap.get(best).map(Vec::as_slice).unwrap_or(&[]);
    let face = through.iter().map(|&i| &tab.polys[i]).map(|p| (dot3(&p.normal, &loc), p)).fold(
        None,
        |acc: Option<(f64, &polygon::Polygon)>, (d, p)| match acc {
            Some((bd, _)) if bd >= d => acc,
            _ => Some((d, p)),
        },
    );
    let Some((_, face)) = face else {
        out[0] = first;
        return 1;
    };

    // walk the face from the deepest vertex, keeping vertices within the margin
    let n = face.verts.len();
    let s = face.verts.iter().position(|&v| v == best).unwrap_or(0);
    let mut pts: Vec<ContactPoint> = Vec::with_capacity(n);
    let mut verts: Vec<[f64; 3]> = Vec::with_capacity(n);
    pts.push(first);
    verts.push(hull.vert[best]);
    for k in 1..n {
        let w = world(face.verts[(s + k) % n]);
        let c = contact(&w);
        if c.dist <= margin {
            pts.push(c);
            verts.push(hull.vert[face.verts[(s + k) % n]]);
        }
    }
    if pts.len() > PLANE_MESH_MAX {
        let p = verts;
        let q = polygon::polygon_quad(&p);
        pts = q.iter().map(|&i| pts[i]).collect();
    }
    let n = pts.len().min(out.len());
    out[..n].copy_from_slice(&pts[..n]);
    n
}

/// Distance between two convex geoms, capped at `distmax`, with the witness points
/// `[x1; x2]` (the CCD branch of `mj_geomDistance`, used for pairs MuJoCo sends to
/// `mjc_Convex` or `mjc_BoxBox`). The witnesses are zero when the distance exceeds `distmax`.
/// Penetration gives a negative distance (EPA depth).
pub fn geom_distance(g1: &Geom, g2: &Geom, distmax: f64, opt: &CollideOptions) -> (f64, [f64; 6]) {
    let mut o1 = ConvexObj::new(g1, 0.0);
    let mut o2 = ConvexObj::new(g2, 0.0);
    let r = ccd(&mut o1, &mut o2, opt, 1, distmax);
    let mut fromto = [0.0; 6];
    if r.status.nx > 0 {
        fromto[..3].copy_from_slice(&r.status.x1[0]);
        fromto[3..].copy_from_slice(&r.status.x2[0]);
    }
    (if r.dist < distmax { r.dist } else { distmax }, fromto)
}

/// Contact point pairs `(on geom 1, on geom 2)` that MuJoCo 4.0.0's speculative stage takes at
/// the advanced pose: both objects inflated by `w / 2`, its witness points `x1`, `x2` moved out
/// along the normal `n` by the same, multi-contact from the features of the last distance query
/// (`f1`, `f2`; a plane has none), then every point moved back along `n` (not along the face
/// normal the inflation used). One pair when the features do not touch along a face or edge.
#[allow(clippy::too_many_arguments)]
pub(crate) fn speculative_points(
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    f1: &CcdFeatures,
    f2: &CcdFeatures,
    x1: &[f64; 3],
    x2: &[f64; 3],
    n: &[f64; 3],
    dist: f64,
    w: f64,
) -> Vec<([f64; 3], [f64; 3])> {
    let (up, down) = (w * 0.5, w * -0.5);
    o1.margin = w;
    o2.margin = w;
    let mut st = Status::new(0, 0.0, 0.0);
    st.x1[0] = [up * n[0] + x1[0], up * n[1] + x1[1], up * n[2] + x1[2]];
    st.x2[0] = [down * n[0] + x2[0], down * n[1] + x2[1], down * n[2] + x2[2]];
    st.dist[0] = dist;
    let k = multiccd::multicontact(&mut st, o1, o2, f1, f2, 4).min(4);
    (0..k)
        .map(|j| {
            let (a, b) = (st.x1[j], st.x2[j]);
            (
                [down * n[0] + a[0], down * n[1] + a[1], down * n[2] + a[2]],
                [up * n[0] + b[0], up * n[1] + b[1], up * n[2] + b[2]],
            )
        })
        .collect()
}
