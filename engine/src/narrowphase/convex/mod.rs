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
//! `tests/narrowphase_oracle.rs` and the README (handed MuJoCo's own hull and polygon table, the
//! mesh pairs agree bit for bit there); what is not reproduced yet: 4.0.0's repair of degenerate
//! initial polytopes (`polytope2`-`4`). Mesh results also depend on the hull data the compiler
//! supplies: polygon normals ~1e-12 off MuJoCo's can flip a near-tie in multi-contact and swap
//! two contacts (see the oracle's module doc).

mod epa;
mod features;
mod gjk;
mod multiccd;
mod polygon;
mod support;

pub use polygon::{new_hull_scope, with_fixed_hulls, with_hull_scope};

use crate::math::{add3, frame_from_normal, normalize3, scl3, sub3};
use crate::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType};
use features::Features;
use gjk::MAX_LIMIT;
// The speculative stage runs GJK alone on objects it keeps across its advancement steps (warm
// start, MuJoCo 4.0.0's `evalGeomPairDist`), so it needs the objects and the GJK run itself.
pub(crate) use features::Features as CcdFeatures;
pub(crate) use gjk::{gjk as run_gjk, Status};
pub(crate) use support::{ConvexObj, Core};

/// Contacts closer than this fraction of the smaller bounding radius are merged (perturbation
/// multi-contact).
const PERTURB_REL_TOL: f64 = 1e-3;
/// Tilt angle (radians) used to probe for extra contacts.
const PERTURB_ANGLE: f64 = 1e-3;

/// Buffers one CCD run works in (EPA's polytope, multi-contact's face lists and clipper), kept
/// per thread from run to run so that a collision call allocates nothing once they have grown.
/// The pair functions keep MuJoCo's `mjCOLLISIONFUNC` signature, which has no scratch argument
/// (MuJoCo takes the same buffers from its arena stack).
#[derive(Debug, Default)]
struct Scratch {
    polytope: epa::Polytope,
    multi: multiccd::Buffers,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Runs `f` on this thread's CCD buffers (a run never starts another, so they are free).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    crate::math::with_thread_buffers(&SCRATCH, f)
}

/// Up to four contact point pairs `(on geom 1, on geom 2)` and how many there are.
pub(crate) type PointPairs = ([([f64; 3], [f64; 3]); 4], usize);

/// The outcome of one CCD run: smallest distance plus the witness pairs behind it.
pub(crate) struct CcdResult {
    /// Smallest witness distance (`MAX_LIMIT` when separated beyond the cutoff).
    pub dist: f64,
    /// Run state with the witness points.
    pub status: Status,
}

/// MuJoCo's `mjc_ccd`: distance (positive) or penetration (negative) between two objects, and
/// with `max_contacts > 1` the multi-contact witnesses.
pub(crate) fn ccd(
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    opt: &CollideOptions,
    max_contacts: usize,
    dist_cutoff: f64,
) -> CcdResult {
    with_scratch(|scratch| ccd_in(o1, o2, opt, max_contacts, dist_cutoff, scratch))
}

/// [`ccd`] in the given buffers.
fn ccd_in(
    o1: &mut ConvexObj,
    o2: &mut ConvexObj,
    opt: &CollideOptions,
    max_contacts: usize,
    dist_cutoff: f64,
    scratch: &mut Scratch,
) -> CcdResult {
    let mut st = Status::new(opt.ccd_iterations, opt.ccd_tolerance, dist_cutoff);
    // the centres (`mjc_center`: a height-field prism starts from its centroid)
    st.x1[0] = o1.center();
    st.x2[0] = o2.center();
    let maxc = max_contacts.min(gjk::MAX_WITNESS);

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
                st.nx = multiccd::multicontact(&mut st, o1, o2, &f1, &f2, maxc, &mut scratch.multi);
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
        st.x1[0] = o1.center();
        st.x2[0] = o2.center();
    }
    st.nsimplex = 0;
    gjk::gjk(&mut st, o1, o2);
    if max_contacts == 0 {
        let d = st.dist[0];
        return CcdResult { dist: d, status: st };
    }

    if st.dist[0] <= opt.ccd_tolerance && st.nsimplex > 1 && !st.separated {
        st.dist[0] = 0.0;
        let pt = &mut scratch.polytope;
        pt.reset(opt.ccd_iterations);
        let built = match st.nsimplex {
            2 => epa::polytope2(pt, &mut st, o1, o2),
            3 => epa::polytope3(pt, &mut st, o1, o2),
            _ => epa::polytope4(pt, &mut st, o1, o2),
        };
        if built.is_ok() {
            if let Some(f) = epa::epa(&mut st, pt, o1, o2) {
                if max_contacts >= 2 {
                    // the EPA face's vertices replace the GJK simplex as the features
                    let (f1, f2) = Features::from_face(pt.faces[f].verts.map(|i| pt.verts[i]));
                    st.nx = multiccd::multicontact(&mut st, o1, o2, &f1, &f2, maxc, &mut scratch.multi);
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
    // Multi-contact points usually share one normal: complete its frame once.
    let mut last: Option<([f64; 3], [f64; 9])> = None;
    for (i, c) in out.iter_mut().enumerate().take(n) {
        let pos = scl3(&add3(&st.x1[i], &st.x2[i]), 0.5);
        let mut normal = sub3(&st.x1[i], &st.x2[i]);
        normalize3(&mut normal);
        let frame = match last {
            Some((nrm, f)) if nrm == normal => f,
            _ => frame_from_normal(&normal),
        };
        last = Some((normal, frame));
        *c = ContactPoint { dist: margin + st.dist[i], pos, frame };
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
        // libccd's single contact (the pair table hands such pairs to MuJoCo instead)
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
/// `mjDSBL_MULTICCD` is set). `opt.nativeccd == false` (libccd's MPR) is not reproduced: the
/// pair table does not call this function then (see [`super::table::collide`]).
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
/// MuJoCo 4.0.0's collider (rewritten after the source snapshot we learned from; read from the
/// released library, and a model of it agreed with the library's own function bit for bit on
/// 24000 random calls over eight meshes):
/// 1. The support point of geom 2 against the plane normal (its own support function on a fresh
///    object: no margin, hill climbing or the exhaustive search as for CCD) gives the first
///    contact: `dist` its height over the plane, the position moved half-way to the plane.
///    Ellipsoids stop there.
/// 2. Of the hull polygons through that vertex, the one whose normal is most anti-parallel to
///    the plane normal (first in the vertex's polygon list on ties) is walked from that vertex:
///    the next three of its vertices, or for five and more vertices the quad found by a greedy
///    largest-area search anchored at the deepest vertex (before any depth test).
/// 3. Each of those vertices within the margin of the plane that does not lie above the geom's
///    centre (along the plane normal) adds a contact, up to four in all.
pub fn plane_convex(g1: &Geom, g2: &Geom, margin: f64, _opt: &CollideOptions, out: &mut [ContactPoint]) -> usize {
    if out.is_empty() {
        return 0;
    }
    let n = [g1.mat[2], g1.mat[5], g1.mat[8]];
    let p1 = &g1.pos;
    let height = |p: &[f64; 3]| (n[0] * (p[0] - p1[0]) + n[1] * (p[1] - p1[1])) + n[2] * (p[2] - p1[2]);
    let contact = |p: &[f64; 3], dist: f64| {
        let h = dist * -0.5;
        ContactPoint { dist, pos: [n[0] * h + p[0], n[1] * h + p[1], n[2] * h + p[2]], frame: frame_from_normal(&n) }
    };
    let mut obj = ConvexObj::new(g2, 0.0);
    let s = obj.support(&[-n[0], -n[1], -n[2]]);
    let dist0 = height(&s);
    if dist0 > margin {
        return 0;
    }
    out[0] = contact(&s, dist0);
    let (Some(hull), Some(data)) = (g2.hull, obj.data.as_ref()) else { return 1 };
    if g2.ty != GeomType::Mesh || obj.vertindex < 0 {
        return 1;
    }
    let tab = data.polygons(hull);
    if tab.polys.is_empty() {
        return 1;
    }
    let vi = obj.vertindex as usize;
    let through = tab.polymap.get(vi).map(Vec::as_slice).unwrap_or(&[]);
    let m = &g2.mat;
    let ln = [
        (n[0] * m[0] + n[1] * m[3]) + n[2] * m[6],
        (n[0] * m[1] + n[1] * m[4]) + n[2] * m[7],
        (n[0] * m[2] + n[1] * m[5]) + n[2] * m[8],
    ];
    let (mut best, mut min) = (None, 1.0);
    for &f in through {
        let pn = &tab.polys[f].normal;
        let d = (ln[0] * pn[0] + ln[1] * pn[1]) + ln[2] * pn[2];
        if min > d {
            best = Some(f);
        }
        min = if d < min { d } else { min };
    }
    let Some(best) = best else { return 1 };
    let pv = &tab.polys[best].verts;
    let nv = pv.len();
    let k = pv.iter().position(|&v| v == vi).unwrap_or(0);
    let mut idx = [k, (k + 1) % nv, (k + 2) % nv, (k + 3) % nv];
    let mut count = nv;
    if nv >= 5 {
        idx = anchored_quad(&hull.vert, pv, idx);
        count = 4;
    } else if nv < 2 {
        return 1;
    }
    let pos2 = &g2.pos;
    let mut found = 1;
    for &j in &idx[1..count] {
        if found == out.len() {
            break;
        }
        let v = &hull.vert[pv[j]];
        let p = [
            (m[0] * v[0] + m[1] * v[1]) + m[2] * v[2] + pos2[0],
            (m[3] * v[0] + m[4] * v[1]) + m[5] * v[2] + pos2[1],
            (m[6] * v[0] + m[7] * v[1]) + m[8] * v[2] + pos2[2],
        ];
        let dist = height(&p);
        if dist > margin {
            continue;
        }
        // vertices above the geom's centre along the plane normal are left out
        let up = (n[1] * (p[1] - pos2[1]) + n[0] * (p[0] - pos2[0])) + n[2] * (p[2] - pos2[2]);
        if up > 0.0 {
            continue;
        }
        out[found] = contact(&p, dist);
        found += 1;
    }
    found
}

/// Positions `[a, b, c, d]` in polygon `pv` of a large quad kept by the plane-mesh collider:
/// starting from four consecutive vertices at the deepest one `a`, `d` advances while the area
/// grows, after each advance `c` and then `b` advance while it grows (strictly); `a` stays.
fn anchored_quad(vert: &[[f64; 3]], pv: &[usize], start: [usize; 4]) -> [usize; 4] {
    let nv = pv.len();
    let area = |a: usize, b: usize, c: usize, d: usize| {
        let (pa, pb, pc, pd) = (&vert[pv[a]], &vert[pv[b]], &vert[pv[c]], &vert[pv[d]]);
        let e = sub3(pa, pc);
        let f = sub3(pb, pd);
        let c0 = e[1] * f[2] - e[2] * f[1];
        let c1 = e[2] * f[0] - e[0] * f[2];
        let c2 = e[0] * f[1] - e[1] * f[0];
        (c2 * c2 + (c0 * c0 + c1 * c1)).sqrt() * 0.5
    };
    let [a, mut b, mut c, mut d] = start;
    let mut cur = area(a, b, c, d);
    loop {
        let dn = (d + 1) % nv;
        let new = area(a, b, c, dn);
        if cur >= new {
            break;
        }
        d = dn;
        cur = new;
        loop {
            let cn = (c + 1) % nv;
            let x = area(a, b, cn, d);
            if x <= cur {
                break;
            }
            c = cn;
            cur = x;
        }
        loop {
            let bn = (b + 1) % nv;
            let x = area(a, bn, c, d);
            if x <= cur {
                break;
            }
            b = bn;
            cur = x;
        }
    }
    [a, b, c, d]
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
) -> PointPairs {
    let (up, down) = (w * 0.5, w * -0.5);
    o1.margin = w;
    o2.margin = w;
    let mut st = Status::new(0, 0.0, 0.0);
    st.x1[0] = [up * n[0] + x1[0], up * n[1] + x1[1], up * n[2] + x1[2]];
    st.x2[0] = [down * n[0] + x2[0], down * n[1] + x2[1], down * n[2] + x2[2]];
    st.dist[0] = dist;
    let k = with_scratch(|s| multiccd::multicontact(&mut st, o1, o2, f1, f2, 4, &mut s.multi)).min(4);
    let mut out = ([([0.0; 3], [0.0; 3]); 4], k);
    for (j, pair) in out.0.iter_mut().enumerate().take(k) {
        let (a, b) = (st.x1[j], st.x2[j]);
        *pair = (
            [down * n[0] + a[0], down * n[1] + a[1], down * n[2] + a[2]],
            [up * n[0] + b[0], up * n[1] + b[1], up * n[2] + b[2]],
        );
    }
    out
}
