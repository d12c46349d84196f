//! Primitive colliders on hand-derived cases.
//!
//! Sizes and positions are chosen as short binary fractions (0.25, 0.125, ...) so every
//! intermediate value is exact in `f64` and the expectations can be written down exactly:
//! `dist` is the surface gap, the position is midway between the surfaces, the normal points
//! from geom 1 (lower type) to geom 2, and tangents follow MuJoCo's frame completion.

use specula_engine::narrowphase::table::collide;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

const IDENTITY: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

/// Local z-axis along world +x (a quarter turn about y): columns x'=(0,0,-1), y'=y, z'=x.
const Z_ALONG_X: [f64; 9] = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];

/// Local z-axis along world +y (a quarter turn about -x): columns x'=x, y'=(0,0,-1), z'=y.
const Z_ALONG_Y: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, 0.0];

/// Frame MuJoCo completes for normal +z with no tangent hint: y tangent, then z x y = -x.
const FRAME_UP: [f64; 9] = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    Geom { ty, size, pos, mat, rbound: 0.0, hull: None, hfield: None }
}

fn plane() -> Geom<'static> {
    geom(GeomType::Plane, [0.0; 3], [0.0; 3], IDENTITY)
}

/// Collide through the pair table; panics if the pair is unsupported (it never is here).
fn run(g1: &Geom, g2: &Geom, margin: f64) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = collide(g1, g2, margin, &CollideOptions::default(), &mut out).expect("supported");
    out[..n].to_vec()
}

fn assert_close(a: &[f64], b: &[f64]) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-15, "{a:?} != {b:?}");
    }
}

#[test]
fn sphere_resting_in_plane() {
    // Radius 0.5 centred 0.25 above the plane: 0.25 deep; the midpoint between the plane
    // (z = 0) and the sphere bottom (z = -0.25) is z = -0.125.
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [1.0, 2.0, 0.25], IDENTITY);
    let c = run(&plane(), &s, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].pos, [1.0, 2.0, -0.125]);
    assert_eq!(c[0].frame, FRAME_UP);
}

#[test]
fn sphere_above_plane_within_and_beyond_margin() {
    // Gap 0.25: reported with margin 0.25 (the test is dist <= margin), not with 0.125.
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.0, 0.0, 0.75], IDENTITY);
    let c = run(&plane(), &s, 0.25);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.25);
    assert_eq!(c[0].pos, [0.0, 0.0, 0.125]);
    assert!(run(&plane(), &s, 0.125).is_empty());
}

#[test]
fn argument_order_does_not_matter() {
    // The table puts the plane first either way, so the normal still points plane -> sphere.
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [1.0, 2.0, 0.25], IDENTITY);
    let a = run(&plane(), &s, 0.0);
    let b = run(&s, &plane(), 0.0);
    assert_eq!(a, b);
}

#[test]
fn capsule_lying_on_plane_touches_at_both_caps() {
    // Axis along x, half-length 1, radius 0.5, centre 0.25 up: the two cap spheres are each
    // 0.25 deep, at x = +1 (first) and x = -1. The tangent is the capsule axis.
    let cap = geom(GeomType::Capsule, [0.5, 1.0, 0.0], [0.0, 0.0, 0.25], Z_ALONG_X);
    let c = run(&plane(), &cap, 0.0);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].pos, [1.0, 0.0, -0.125]);
    assert_eq!(c[1].pos, [-1.0, 0.0, -0.125]);
    for k in &c {
        assert_eq!(k.dist, -0.25);
        assert_eq!(k.frame, [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    }
}

#[test]
fn capsule_standing_on_plane_touches_once() {
    // Upright: only the lower cap (the second end tested) reaches the plane.
    let cap = geom(GeomType::Capsule, [0.5, 1.0, 0.0], [0.0, 0.0, 1.25], IDENTITY);
    let c = run(&plane(), &cap, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].pos, [0.0, 0.0, -0.125]);
}

#[test]
fn box_on_plane_gives_its_four_bottom_corners() {
    // Half sizes (1, 2, 0.5) at z = 0.25: the bottom face is 0.25 deep. Even with a huge
    // margin the top corners are skipped (they face away from the plane).
    let b = geom(GeomType::Box, [1.0, 2.0, 0.5], [0.0, 0.0, 0.25], IDENTITY);
    let c = run(&plane(), &b, 10.0);
    assert_eq!(c.len(), 4);
    let corners = [[-1.0, -2.0], [1.0, -2.0], [-1.0, 2.0], [1.0, 2.0]];
    for (k, xy) in c.iter().zip(corners) {
        assert_eq!(k.dist, -0.25);
        assert_eq!(k.pos, [xy[0], xy[1], -0.125]);
        assert_eq!(k.frame, FRAME_UP);
    }
}

#[test]
fn box_edge_on_plane_gives_two_corners() {
    // Rotated so a bottom edge along y is lowest: corners (x,z) at 45 degrees. Only the two
    // corners of that edge are within margin 0.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let rot = [h, 0.0, h, 0.0, 1.0, 0.0, -h, 0.0, h];
    let b = geom(GeomType::Box, [0.5, 1.0, 0.5], [0.0, 0.0, 0.5], rot);
    let c = run(&plane(), &b, 0.0);
    assert_eq!(c.len(), 2);
    for k in &c {
        // The lowest edge is at z = 0.5 - 0.5*sqrt(2).
        assert_close(&[k.dist], &[0.5 - 2.0 * 0.5 * h]);
        assert_close(&[k.pos[0]], &[0.0]);
    }
    assert_eq!(c[0].pos[1], -1.0);
    assert_eq!(c[1].pos[1], 1.0);
}

#[test]
fn cylinder_standing_on_plane_gives_a_triangle() {
    // Upright, radius 1, half-height 0.5, bottom disk 0.25 deep. The disk is parallel to the
    // plane, so the first point is the rim along the local x-axis, then two more at +-120
    // degrees; the top disk is far above.
    let cyl = geom(GeomType::Cylinder, [1.0, 0.5, 0.0], [0.0, 0.0, 0.25], IDENTITY);
    let c = run(&plane(), &cyl, 0.0);
    assert_eq!(c.len(), 3);
    let s = 3.0_f64.sqrt() / 2.0;
    assert_eq!(c[0].pos, [1.0, 0.0, -0.125]);
    assert_close(&c[1].pos, &[-0.5, s, -0.125]);
    assert_close(&c[2].pos, &[-0.5, -s, -0.125]);
    for k in &c {
        assert_eq!(k.dist, -0.25);
        assert_eq!(k.frame, FRAME_UP);
    }
}

#[test]
fn cylinder_lying_on_plane_touches_along_a_line() {
    // Axis along x, radius 0.5, half-length 1, centre 0.25 up: the lowest rim line is 0.25
    // deep; contacts at its two ends (+axis end first), none from the triangle points.
    let cyl = geom(GeomType::Cylinder, [0.5, 1.0, 0.0], [0.0, 0.0, 0.25], Z_ALONG_X);
    let c = run(&plane(), &cyl, 0.0);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].pos, [1.0, 0.0, -0.125]);
    assert_eq!(c[1].pos, [-1.0, 0.0, -0.125]);
    assert!(c.iter().all(|k| k.dist == -0.25));
}

#[test]
fn cylinder_above_margin_gives_nothing() {
    let cyl = geom(GeomType::Cylinder, [0.5, 1.0, 0.0], [0.0, 0.0, 0.75], Z_ALONG_X);
    assert!(run(&plane(), &cyl, 0.125).is_empty());
    assert_eq!(run(&plane(), &cyl, 0.25).len(), 2);
}

#[test]
fn two_spheres_overlapping() {
    // Radii 0.5 and 0.25, centres 0.5 apart on x: 0.25 overlap, midpoint at x = 0.375.
    let a = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.0; 3], IDENTITY);
    let b = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.5, 0.0, 0.0], IDENTITY);
    let c = run(&a, &b, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].pos, [0.375, 0.0, 0.0]);
    // Normal +x; the default tangent is world y, then x cross y = z.
    assert_eq!(c[0].frame, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn two_spheres_apart_with_margin() {
    let a = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.0; 3], IDENTITY);
    let b = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.0, 0.0, 1.0], IDENTITY);
    let c = run(&a, &b, 0.25);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.25);
    assert_eq!(c[0].pos, [0.0, 0.0, 0.625]);
    // Normal +z: tangent world y.
    assert_eq!(c[0].frame, [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0]);
    assert!(run(&a, &b, 0.125).is_empty());
}

#[test]
fn concentric_spheres_use_the_cross_of_their_z_axes() {
    let a = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.0; 3], IDENTITY);
    // Same frames: z x z = 0, so the normal falls back to +x.
    let b = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.0; 3], IDENTITY);
    let c = run(&a, &b, 0.0);
    assert_eq!(c[0].dist, -0.75);
    assert_eq!(c[0].normal(), [1.0, 0.0, 0.0]);
    // Second z-axis along x: z x x = +y.
    let b = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.0; 3], Z_ALONG_X);
    let c = run(&a, &b, 0.0);
    assert_eq!(c[0].normal(), [0.0, 1.0, 0.0]);
    // Position: centre + n * (r1 + dist/2) = 0.5 - 0.375 along y.
    assert_eq!(c[0].pos, [0.0, 0.125, 0.0]);
}

#[test]
fn sphere_against_capsule_side_and_end() {
    let cap = geom(GeomType::Capsule, [0.25, 1.0, 0.0], [0.0; 3], IDENTITY);
    // Beside the segment: nearest axis point (0,0,0.5); 0.375 apart, radii sum 0.5.
    let s = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.375, 0.0, 0.5], IDENTITY);
    let c = run(&s, &cap, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.125);
    assert_eq!(c[0].normal(), [-1.0, 0.0, 0.0]);
    assert_eq!(c[0].pos, [0.1875, 0.0, 0.5]);
    // Past the end: projection clipped to (0,0,1); 0.25 apart along z.
    let s = geom(GeomType::Sphere, [0.25, 0.0, 0.0], [0.0, 0.0, 1.25], IDENTITY);
    let c = run(&s, &cap, 0.0);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].normal(), [0.0, 0.0, -1.0]);
    assert_eq!(c[0].pos, [0.0, 0.0, 1.125]);
}

#[test]
fn sphere_against_cylinder_side() {
    let cyl = geom(GeomType::Cylinder, [1.0, 1.0, 0.0], [0.0; 3], IDENTITY);
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [1.25, 0.0, 0.5], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].normal(), [-1.0, 0.0, 0.0]);
    assert_eq!(c[0].pos, [0.875, 0.0, 0.5]);
}

#[test]
fn sphere_against_cylinder_caps() {
    let cyl = geom(GeomType::Cylinder, [1.0, 1.0, 0.0], [0.0; 3], IDENTITY);
    // Above the top cap, 0.25 deep: the normal points down, from the sphere into the cylinder.
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.25, 0.0, 1.25], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].normal(), [0.0, 0.0, -1.0]);
    assert_eq!(c[0].pos, [0.25, 0.0, 0.875]);
    // Below the bottom cap: mirror image.
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.25, 0.0, -1.25], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    assert_eq!(c[0].dist, -0.25);
    assert_eq!(c[0].normal(), [0.0, 0.0, 1.0]);
    assert_eq!(c[0].pos, [0.25, 0.0, -0.875]);
}

#[test]
fn sphere_against_cylinder_rim() {
    // Outside both the radius and the height: nearest point is the rim point (1, 0, 1).
    let cyl = geom(GeomType::Cylinder, [1.0, 1.0, 0.0], [0.0; 3], IDENTITY);
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [1.25, 0.0, 1.25], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    let gap = 0.25 * 2.0_f64.sqrt();
    assert_close(&[c[0].dist], &[gap - 0.5]);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert_close(&c[0].normal(), &[-h, 0.0, -h]);
    // Midway between the sphere surface and the rim point.
    let m = 1.25 - h * (0.5 + (gap - 0.5) / 2.0);
    assert_close(&c[0].pos, &[m, 0.0, m]);
}

#[test]
fn sphere_inside_cylinder_exits_through_nearest_face() {
    // Centre 0.25 below the top cap and 0.5 from the side: the cap is nearer.
    let cyl = geom(GeomType::Cylinder, [1.0, 1.0, 0.0], [0.0; 3], IDENTITY);
    let s = geom(GeomType::Sphere, [0.125, 0.0, 0.0], [0.5, 0.0, 0.75], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    assert_eq!(c[0].dist, -0.375);
    assert_eq!(c[0].normal(), [0.0, 0.0, -1.0]);
    // Closer to the side than the caps: exits sideways.
    let s = geom(GeomType::Sphere, [0.125, 0.0, 0.0], [0.75, 0.0, 0.0], IDENTITY);
    let c = run(&s, &cyl, 0.0);
    assert_eq!(c[0].dist, -0.375);
    assert_eq!(c[0].normal(), [-1.0, 0.0, 0.0]);
}

#[test]
fn crossed_capsules_touch_at_the_crossing() {
    // Along x at the origin and along y at z = 0.375, radii 0.25: 0.125 overlap at (0,0,.1875).
    let a = geom(GeomType::Capsule, [0.25, 1.0, 0.0], [0.0; 3], Z_ALONG_X);
    let b = geom(GeomType::Capsule, [0.25, 1.0, 0.0], [0.0, 0.0, 0.375], Z_ALONG_Y);
    let c = run(&a, &b, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.125);
    assert_eq!(c[0].pos, [0.0, 0.0, 0.1875]);
    assert_eq!(c[0].normal(), [0.0, 0.0, 1.0]);
}

#[test]
fn short_output_buffer_keeps_the_first_contacts() {
    let b = geom(GeomType::Box, [1.0, 2.0, 0.5], [0.0, 0.0, 0.25], IDENTITY);
    let mut out = [ContactPoint::default(); 2];
    let n = collide(&plane(), &b, 0.0, &CollideOptions::default(), &mut out).expect("supported");
    assert_eq!(n, 2);
    assert_eq!(out[0].pos, [-1.0, -2.0, -0.125]);
    assert_eq!(out[1].pos, [1.0, -2.0, -0.125]);
}

#[test]
fn unsupported_pairs_are_reported_not_dropped() {
    let s = geom(GeomType::Sphere, [0.5, 0.0, 0.0], [0.0; 3], IDENTITY);
    let mut out = [ContactPoint::default(); 4];
    let sdf = geom(GeomType::Sdf, [1.0; 3], [0.0; 3], IDENTITY);
    assert_eq!(collide(&s, &sdf, 0.0, &CollideOptions::default(), &mut out), None);
    assert_eq!(collide(&sdf, &s, 0.0, &CollideOptions::default(), &mut out), None);
    let p = plane();
    assert_eq!(collide(&p, &p, 0.0, &CollideOptions::default(), &mut out), None);
}
