//! The per-hull data the convex narrowphase derives once (hill-climbing seeds, hull polygons)
//! and caches: cached calls must give exactly what a fresh hull gives, and a hull edited in
//! place must not be served stale data.
//!
//! Expected numbers are hand-derived (unit mesh cubes resting face to face), not probed: the
//! point of these tests is that caching changes nothing.

mod common;
use common::convex;

use convex::*;
use specula_engine::narrowphase::GeomType;

/// A cube resting 0.05 deep on another: four corner contacts, depth 0.05, normal +z.
#[test]
fn cached_mesh_contacts_repeat_exactly() {
    let h = cube_hull();
    let a = cube([0.0; 3], I3, &h);
    let b = cube([0.1, 0.2, 0.95], I3, &h);
    let opt = mj_opt();
    let first = collide(&a, &b, 0.0, &opt);
    assert_eq!(first.len(), 4);
    for c in &first {
        // hand-derived: overlap 0.5 + 0.5 - 0.95, contact plane half-way at z = 0.475
        assert!((c.dist + 0.05).abs() < 1e-12, "{c:?}");
        assert!((c.pos[2] - 0.475).abs() < 1e-12, "{c:?}");
        assert!(close(&c.frame[..3], &[0.0, 0.0, 1.0], 1e-12), "{c:?}");
    }
    // second call comes from the cache; a clone of the hull at another address does not
    for _ in 0..3 {
        assert_eq!(collide(&a, &b, 0.0, &opt), first);
    }
    let h2 = h.clone();
    let a2 = cube([0.0; 3], I3, &h2);
    let b2 = cube([0.1, 0.2, 0.95], I3, &h2);
    assert_eq!(collide(&a2, &b2, 0.0, &opt), first);
}

/// Scaling a hull in place (same address, same sizes) must rebuild its data.
#[test]
fn hull_edited_in_place_is_not_stale() {
    let mut h = cube_hull();
    let opt = mj_opt();
    let before = {
        let a = cube([0.0; 3], I3, &h);
        let b = cube([0.1, 0.2, 0.95], I3, &h);
        collide(&a, &b, 0.0, &opt)
    };
    assert_eq!(before.len(), 4);
    for v in &mut h.vert {
        *v = [v[0] * 0.5, v[1] * 0.5, v[2] * 0.5];
    }
    // the half-size cube: geom size and bounding radius halve with it
    let half = |pos| geom(GeomType::Mesh, [0.25; 3], pos, I3, 0.4330127018922193, Some(&h));
    let (a, b) = (half([0.0; 3]), half([0.1, 0.2, 0.45]));
    let after = collide(&a, &b, 0.0, &opt);
    // hand-derived: half-size cubes 0.45 apart overlap by 0.05, contact plane at z = 0.225
    assert_eq!(after.len(), 4);
    for c in &after {
        assert!((c.dist + 0.05).abs() < 1e-12, "{c:?}");
        assert!((c.pos[2] - 0.225).abs() < 1e-12, "{c:?}");
    }
}
