//! The pair table: which function computes contacts for each pair of geom types.
//!
//! Laid out exactly like MuJoCo's `mjCOLLISIONFUNC` (`engine_collision_driver.c`), so the two
//! can be read side by side: row = type of geom 1, column = type of geom 2, upper triangle only
//! (geom 1 always has the lower type number). Primitive pairs have analytic colliders
//! ([`primitive`], `box`); everything else convex goes to the GJK/EPA fallback
//! ([`convex`]); a height field against any of them is cut into prisms ([`hfield`]). SDFs are
//! not implemented: their entries are `None`, and [`collide`] reports them as unsupported
//! rather than returning zero contacts.
//!
//! MuJoCo entries that exist but are `None` here: the SDF column (`mjc_SDF`, `mjc_MeshSDF`,
//! `mjc_HFieldSDF`, and plane-SDF, which MuJoCo sends to `mjc_PlaneConvex`).

use super::{convex, hfield, primitive, r#box};
use super::{CollideOptions, ContactPoint, Geom, GeomType};

/// The signature every pair function shares (MuJoCo's `mjfCollision` on plain data): geom 1,
/// geom 2 (lower type first), the pair margin plus gap, the options, the output buffer; returns
/// the number of contacts written.
pub type CollideFn = fn(&Geom, &Geom, f64, &CollideOptions, &mut [ContactPoint]) -> usize;

/// Shorthand for a table entry.
const fn f(func: CollideFn) -> Option<CollideFn> {
    Some(func)
}

const N: usize = GeomType::COUNT;

/// The 9x9 pair table, indexed `[type1][type2]` with `type1 <= type2` (MuJoCo's
/// `mjCOLLISIONFUNC`); the lower triangle is `None`, as in MuJoCo.
#[rustfmt::skip]
pub const COLLISION_TABLE: [[Option<CollideFn>; N]; N] = [
    //              PLANE  HFIELD  SPHERE                       CAPSULE                        ELLIPSOID                  CYLINDER                       BOX                        MESH                       SDF
    /* PLANE */    [None,  None,   f(primitive::plane_sphere),  f(primitive::plane_capsule),   f(convex::plane_convex),   f(primitive::plane_cylinder),  f(primitive::plane_box),   f(convex::plane_convex),   None],
    /* HFIELD */   [None,  None,   f(hfield::convex_hfield),    f(hfield::convex_hfield),      f(hfield::convex_hfield),  f(hfield::convex_hfield),      f(hfield::convex_hfield),  f(hfield::convex_hfield),  None],
    /* SPHERE */   [None,  None,   f(primitive::sphere_sphere), f(primitive::sphere_capsule),  f(convex::collide_convex), f(primitive::sphere_cylinder), f(r#box::sphere_box),      f(convex::collide_convex), None],
    /* CAPSULE */  [None,  None,   None,                        f(primitive::capsule_capsule), f(convex::collide_convex), f(convex::collide_convex),     f(r#box::capsule_box),     f(convex::collide_convex), None],
    /* ELLIPSOID */[None,  None,   None,                        None,                          f(convex::collide_convex), f(convex::collide_convex),     f(convex::collide_convex), f(convex::collide_convex), None],
    /* CYLINDER */ [None,  None,   None,                        None,                          None,                      f(convex::collide_convex),     f(convex::collide_convex), f(convex::collide_convex), None],
    /* BOX */      [None,  None,   None,                        None,                          None,                      None,                          f(r#box::box_box),         f(convex::collide_convex), None],
    /* MESH */     [None,  None,   None,                        None,                          None,                      None,                          None,                      f(convex::collide_convex), None],
    /* SDF */      [None,  None,   None,                        None,                          None,                      None,                          None,                      None,                      None],
];

/// The pair function for two geom types in either order, and whether the geoms must be swapped
/// to call it (MuJoCo puts the lower type first); `None` when the pair has no collider here.
pub fn lookup(t1: GeomType, t2: GeomType) -> Option<(CollideFn, bool)> {
    let (a, b) = (t1 as usize, t2 as usize);
    let swap = a > b;
    let (lo, hi) = if swap { (b, a) } else { (a, b) };
    COLLISION_TABLE[lo][hi].map(|func| (func, swap))
}

/// Whether the pair goes through the general convex collider (GJK/EPA, MuJoCo's `mjc_Convex`).
pub fn is_convex(t1: GeomType, t2: GeomType) -> bool {
    lookup(t1, t2).is_some_and(|(func, _)| is_convex_fn(func))
}

fn is_convex_fn(func: CollideFn) -> bool {
    let convex: CollideFn = convex::collide_convex;
    std::ptr::fn_addr_eq(func, convex)
}

/// Whether the pair function runs MuJoCo's CCD per call (GJK/EPA, or libccd's MPR when native
/// CCD is off): the general convex pair and the height-field prisms.
fn uses_ccd(func: CollideFn) -> bool {
    let prisms: CollideFn = hfield::convex_hfield;
    is_convex_fn(func) || std::ptr::fn_addr_eq(func, prisms)
}

/// Whether the pair has a collider here: false for SDFs, and for plane-plane, plane-height-field
/// and height-field pairs, which MuJoCo never collides.
pub fn is_supported(t1: GeomType, t2: GeomType) -> bool {
    lookup(t1, t2).is_some()
}

/// Contacts between two geoms, dispatched through [`COLLISION_TABLE`].
///
/// The geoms are put in MuJoCo's order first (lower type number first, as its driver does when
/// it queues a pair), so the normals point from the lower-type geom to the higher-type one
/// whichever order they were passed in; equal types keep the given order. Returns `None` when
/// the pair has no collider (see [`is_supported`]) so callers can report it instead of silently
/// dropping it, otherwise the number of contacts written to `out`.
///
/// With MuJoCo's native CCD disabled (`nativeccd="disable"`) MuJoCo's convex and height-field
/// pairs run libccd's MPR, which specula does not reproduce: those pairs are `None` too, so the
/// caller computes them with MuJoCo's own pair function and counts them.
pub fn collide(g1: &Geom, g2: &Geom, margin: f64, opt: &CollideOptions, out: &mut [ContactPoint]) -> Option<usize> {
    let (func, swap) = lookup(g1.ty, g2.ty)?;
    if !opt.nativeccd && uses_ccd(func) {
        return None;
    }
    let n = if swap { func(g2, g1, margin, opt, out) } else { func(g1, g2, margin, opt, out) };
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [GeomType; N] = [
        GeomType::Plane,
        GeomType::Hfield,
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
        GeomType::Sdf,
    ];

    #[test]
    fn lower_triangle_is_empty_and_types_index_rows() {
        for (i, t) in ALL.iter().enumerate() {
            assert_eq!(*t as usize, i);
            for (j, entry) in COLLISION_TABLE[i].iter().enumerate().take(i) {
                assert!(entry.is_none(), "entry [{i}][{j}] below the diagonal");
            }
        }
    }

    #[test]
    fn unsupported_pairs_are_sdf_and_plane_hfield_among_themselves() {
        use GeomType::*;
        for a in ALL {
            for b in ALL {
                let flat = |t: GeomType| matches!(t, Plane | Hfield);
                let expect_none = a == Sdf || b == Sdf || (flat(a) && flat(b));
                assert_eq!(!is_supported(a, b), expect_none, "{a:?}-{b:?}");
            }
        }
    }

    #[test]
    fn entries_name_the_right_collider() {
        use GeomType::*;
        // Function pointers compare by address; the same function can in principle be merged
        // with another by the compiler, so only distinct-behaviour pairs are checked here.
        let same = |a: GeomType, b: GeomType, func: CollideFn| {
            let (got, _) = lookup(a, b).expect("supported");
            assert_eq!(got as usize, func as usize, "{a:?}-{b:?}");
        };
        same(Plane, Sphere, primitive::plane_sphere);
        same(Plane, Capsule, primitive::plane_capsule);
        same(Plane, Cylinder, primitive::plane_cylinder);
        same(Plane, Box, primitive::plane_box);
        same(Plane, Ellipsoid, convex::plane_convex);
        same(Plane, Mesh, convex::plane_convex);
        same(Sphere, Sphere, primitive::sphere_sphere);
        same(Sphere, Capsule, primitive::sphere_capsule);
        same(Sphere, Cylinder, primitive::sphere_cylinder);
        same(Sphere, Box, r#box::sphere_box);
        same(Capsule, Capsule, primitive::capsule_capsule);
        same(Capsule, Box, r#box::capsule_box);
        same(Box, Box, r#box::box_box);
        same(Capsule, Cylinder, convex::collide_convex);
        same(Mesh, Mesh, convex::collide_convex);
        for t in [Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh] {
            same(Hfield, t, hfield::convex_hfield);
            assert!(!is_convex(Hfield, t));
        }
    }

    #[test]
    fn swapped_order_reports_swap() {
        let (_, swap) = lookup(GeomType::Box, GeomType::Plane).expect("supported");
        assert!(swap);
        let (_, swap) = lookup(GeomType::Plane, GeomType::Box).expect("supported");
        assert!(!swap);
    }
}
