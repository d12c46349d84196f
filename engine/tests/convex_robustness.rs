//! The convex narrowphase must not panic and must report finite contacts for any pose,
//! including coincident and degenerate ones.

use specula_engine::narrowphase::convex::{collide_convex, geom_distance, plane_convex};
use specula_engine::narrowphase::{CollideOptions, ContactPoint, ConvexHull, Geom, GeomType, MAX_CONTACTS};

/// A small deterministic generator (64-bit LCG), so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64) / ((1u64 << 53) as f64)
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
}

/// Rotation matrix of a random unit quaternion.
fn rot(r: &mut Lcg) -> [f64; 9] {
    let mut q = [r.range(-1.0, 1.0), r.range(-1.0, 1.0), r.range(-1.0, 1.0), r.range(-1.0, 1.0)];
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
    q.iter_mut().for_each(|x| *x /= n);
    let [w, x, y, z] = q;
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - w * z),
        2.0 * (x * z + w * y),
        2.0 * (x * y + w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - w * x),
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

fn tetra() -> ConvexHull {
    ConvexHull {
        vert: vec![[0.3, 0.0, -0.1], [-0.2, 0.25, -0.1], [-0.2, -0.25, -0.1], [0.0, 0.0, 0.35]],
        adjacency: vec![vec![1, 2, 3], vec![0, 2, 3], vec![0, 1, 3], vec![0, 1, 2]],
        face: vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]],
        polygons: None,
        mesh_id: Vec::new(),
        mesh_nvert: 0,
        nhull: 0,
    }
}

fn check(out: &[ContactPoint]) {
    for c in out {
        assert!(c.dist.is_finite() && c.pos.iter().all(|x| x.is_finite()), "{c:?}");
        let n = &c.frame[..3];
        assert!((n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-9, "{c:?}");
    }
}

#[test]
fn random_poses_all_convex_pairs() {
    let hull = tetra();
    let types =
        [GeomType::Sphere, GeomType::Capsule, GeomType::Ellipsoid, GeomType::Cylinder, GeomType::Box, GeomType::Mesh];
    let mut r = Lcg(7);
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    for multiccd in [false, true] {
        let opt = CollideOptions { multiccd, ..CollideOptions::default() };
        for _ in 0..150 {
            for (i, &t1) in types.iter().enumerate() {
                for &t2 in &types[i..] {
                    let mk = |r: &mut Lcg, ty: GeomType, spread: f64| Geom {
                        ty,
                        size: [r.range(0.05, 0.4), r.range(0.05, 0.4), r.range(0.05, 0.4)],
                        pos: [r.range(-spread, spread), r.range(-spread, spread), r.range(-spread, spread)],
                        mat: rot(r),
                        rbound: 0.7,
                        hull: Some(&hull),
                        hfield: None,
                    };
                    let g1 = mk(&mut r, t1, 0.3);
                    let g2 = mk(&mut r, t2, 0.3);
                    let margin = if r.next() < 0.3 { r.range(0.0, 0.05) } else { 0.0 };
                    let n = collide_convex(&g1, &g2, margin, &opt, &mut out);
                    check(&out[..n]);
                    let (d, ft) = geom_distance(&g1, &g2, 1.0, &opt);
                    assert!(d.is_finite() && ft.iter().all(|x| x.is_finite()));
                }
            }
        }
    }
}

#[test]
fn coincident_and_degenerate_geoms() {
    let hull = tetra();
    let empty = ConvexHull::default();
    let i3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let opt = CollideOptions { multiccd: true, ..CollideOptions::default() };
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let g = |ty, hull| Geom { ty, size: [0.2, 0.2, 0.2], pos: [0.0; 3], mat: i3, rbound: 0.35, hull, hfield: None };
    for (a, b) in [
        (g(GeomType::Box, Some(&hull)), g(GeomType::Mesh, Some(&hull))),
        (g(GeomType::Mesh, Some(&hull)), g(GeomType::Mesh, Some(&hull))),
        (g(GeomType::Sphere, None), g(GeomType::Ellipsoid, None)),
        (g(GeomType::Cylinder, None), g(GeomType::Cylinder, None)),
        (g(GeomType::Capsule, None), g(GeomType::Mesh, Some(&empty))),
        (g(GeomType::Box, None), g(GeomType::Mesh, None)),
    ] {
        let n = collide_convex(&a, &b, 0.0, &opt, &mut out);
        check(&out[..n]);
        let _ = geom_distance(&a, &b, 1.0, &opt);
    }
    // zero-size and non-finite inputs: no panic
    let mut z = g(GeomType::Ellipsoid, None);
    z.size = [0.0; 3];
    let _ = collide_convex(&z, &g(GeomType::Box, None), 0.0, &opt, &mut out);
    let mut nan = g(GeomType::Box, None);
    nan.pos = [f64::NAN; 3];
    let _ = collide_convex(&nan, &g(GeomType::Mesh, Some(&hull)), 0.0, &opt, &mut out);
    let plane =
        Geom { ty: GeomType::Plane, size: [0.0; 3], pos: [0.0; 3], mat: i3, rbound: 0.0, hull: None, hfield: None };
    let _ = plane_convex(&plane, &g(GeomType::Mesh, Some(&empty)), 0.0, &opt, &mut out);
    let n = plane_convex(&plane, &g(GeomType::Mesh, Some(&hull)), 0.0, &opt, &mut out);
    check(&out[..n]);
    // an empty output buffer is respected
    assert_eq!(collide_convex(&g(GeomType::Box, None), &g(GeomType::Mesh, Some(&hull)), 0.0, &opt, &mut []), 0);
}
