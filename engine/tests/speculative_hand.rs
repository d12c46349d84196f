//! Speculative contacts against hand-derived numbers: closed-form times of impact, the
//! effective distance, the swept filters, and the line-of-sight ray casts.

use specula_engine::math::IDENTITY9;
use specula_engine::narrowphase::{CollideOptions, ConvexHull, Geom, GeomType};
use specula_engine::speculative::advance::advance;
use specula_engine::speculative::sight::{ray_geom, segment_hits, segment_occluded};
use specula_engine::speculative::sweep::{
    body_cvel, geom_motion, pair_is_fast, pair_threshold, sweep_distance, swept_interval, swept_plane_prune,
    swept_sphere_prune, GeomMotion,
};
use specula_engine::speculative::{effective_distance, step_damping_stiffness, Integrator};

const H: f64 = 0.00125;

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], rbound: f64) -> Geom<'static> {
    Geom { ty, size, pos, mat: IDENTITY9, rbound, hull: None, hfield: None }
}

#[test]
fn two_spheres_time_of_impact() {
    // centres 50 mm apart, radii 10 mm: gap 30 mm. Sphere 1 moves 40 mm, sphere 2 -20 mm per
    // step (closing 60 mm). Target clearance 0.02 * 30 mm = 0.6 mm, reached in one step at
    // t = 29.4 / 60 = 0.49; the next evaluation is exactly on target.
    let g1 = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0; 3], 0.01);
    let g2 = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.05, 0.0, 0.0], 0.01);
    let m1 = GeomMotion { dx: [0.04, 0.0, 0.0], dw: [0.0; 3] };
    let m2 = GeomMotion { dx: [-0.02, 0.0, 0.0], dw: [0.0; 3] };
    let imp = advance(&g1, &m1, &g2, &m2, 0.0, &CollideOptions::default()).expect("impact");
    assert!((imp.t - 0.49).abs() < 1e-12, "{}", imp.t);
    assert!((imp.dist - 0.0006).abs() < 1e-12);
    assert!((imp.h_vn() - 0.06).abs() < 1e-12);
    // witnesses back at t = 0: the facing surface points
    assert!((imp.x_0[0][0] - 0.01).abs() < 1e-12 && (imp.x_0[1][0] - 0.04).abs() < 1e-12);
    // moving apart: no impact; too slow to close the gap within the step: no impact
    let away = GeomMotion { dx: [-0.04, 0.0, 0.0], dw: [0.0; 3] };
    assert!(advance(&g1, &away, &g2, &GeomMotion::ZERO, 0.0, &CollideOptions::default()).is_none());
    let slow = GeomMotion { dx: [0.029, 0.0, 0.0], dw: [0.0; 3] };
    assert!(advance(&g1, &slow, &g2, &GeomMotion::ZERO, 0.0, &CollideOptions::default()).is_none());
}

#[test]
fn box_spinning_past_a_wall_time_of_impact() {
    // a cube of half 10 mm moving 12.5 mm per step towards a wall 10 mm away, spinning about
    // the wall normal with |dw| rbound = |dx| (c = 1): the face stays parallel, so each step
    // keeps exactly half of the remaining 9.8 mm; 7 steps leave 9.8 / 128 mm < 0.1 mm (the 1%
    // tolerance), so t = 9.8 (1 - 2^-7) / 12.5.
    let rb = 0.01 * 3f64.sqrt();
    let cube = geom(GeomType::Box, [0.01; 3], [0.0; 3], rb);
    let wall = geom(GeomType::Box, [0.05, 0.005, 0.05], [0.0, 0.025, 0.0], 0.0);
    let m = GeomMotion { dx: [0.0, 0.0125, 0.0], dw: [0.0, 0.0125 / rb, 0.0] };
    let imp = advance(&wall, &GeomMotion::ZERO, &cube, &m, 0.0, &CollideOptions::default()).expect("impact");
    let want = 0.0098 * (1.0 - 1.0 / 128.0) / 0.0125;
    assert!((imp.t - want).abs() < 1e-9, "{} vs {want}", imp.t);
    assert_eq!(imp.steps, 7);
}

#[test]
fn effective_distance_closed_form() {
    // the measurements' case: 10 mm ball 10 mm above a plate at 20 m/s, h = 1.25 ms.
    // t = 0.98 * 10 / 25 = 0.392; b0 = 2h/tc = 0.125, k0 = (h/tc)^2 = 1/256;
    // dist = -(0.608 - 0.125) * 256 * 0.025 = -3.0912.
    let (b0, k0) = step_damping_stiffness(&[0.02, 1.0], H, true);
    assert_eq!((b0, k0), (0.125, 0.00390625));
    let t = 0.392;
    let dist = effective_distance(0.0, t, 0.025, b0, k0, 0.001, Integrator::Euler);
    assert!((dist + 3.0912).abs() < 1e-12, "{dist}");
    // The solver's reference acceleration for this row (MuJoCo: aref = B v + K I r with
    // B = 2/(dmax tc), K = 1/(dmax tc)^2, I = dmax = 0.95 deep in the impedance's flat part)
    // is 10240 (efc_aref measured), and the impedance-scaled velocity change d h aref removes
    // exactly (1 - t) of the 20 m/s: the ball leaves the step at t v = 7.84 m/s (measured
    // after mj_step with gravity and regularisation: 7.8406, v1/v0 = 0.39203).
    let d = 0.95;
    let (bb, kk) = (2.0 / (d * 0.02), 1.0 / (d * d * 0.02 * 0.02));
    let aref = bb * 20.0 + kk * d * (-dist);
    assert!((aref - 10240.0).abs() < 1e-9, "{aref}");
    let v1 = 20.0 - d * H * aref;
    assert!((v1 / 20.0 - t).abs() < 1e-12);
    assert!((v1 / 20.0 - 0.39203).abs() < 1e-4);
    // discrete integrator: (1 - t) - t (b0 + k0) in the numerator
    let disc = effective_distance(0.0, t, 0.025, b0, k0, 0.001, Integrator::Discrete);
    let want = -((1.0 - t) - t * (0.125 + 0.00390625)) * 256.0 * 0.025;
    assert!((disc - want).abs() < 1e-12);
    // no stiffness: margin - width; direct solref; refsafe raising tc to 2h
    assert_eq!(effective_distance(0.002, t, 0.025, 1.0, 0.0, 0.003, Integrator::Euler), 0.002 - 0.003);
    let (b0, k0) = step_damping_stiffness(&[-10000.0, -50.0], H, true);
    assert!((effective_distance(0.0, t, 0.025, b0, k0, 0.001, Integrator::Euler) + 0.8728).abs() < 1e-12);
    let (b0, k0) = step_damping_stiffness(&[0.001, 1.0], H, true);
    assert_eq!((b0, k0), (1.0, 0.25));
    assert!((effective_distance(0.0, t, 0.025, b0, k0, 0.001, Integrator::Euler) - 0.0392).abs() < 1e-12);
}

#[test]
fn sweep_and_gating() {
    // a body spinning at 10 rad/s about z through its com at the origin, moving 1 m/s along x;
    // a geom at (0, 0.1, 0) moves at (1 - 1, 0, 0) = 0: its centre is the instant centre.
    let cdof = [[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]];
    let cvel = body_cvel(&cdof, &[1.0, 10.0], &[0, 1]);
    assert_eq!(cvel, [0.0, 0.0, 10.0, 1.0, 0.0, 0.0]);
    let m = geom_motion(&cvel, &[0.0; 3], &[0.0, 0.1, 0.0], H);
    assert!(m.dx.iter().all(|x| x.abs() < 1e-15), "{:?}", m.dx);
    // sweep distance: a box of rbound 0.05 gets |dw| rbound, a sphere nothing
    assert!((sweep_distance(&m, GeomType::Box, 0.05) - 10.0 * H * 0.05).abs() < 1e-15);
    assert_eq!(sweep_distance(&m, GeomType::Sphere, 0.05), 0.0);
    // gating: threshold is the smaller geom's smallest half-extent, compared with each own sweep
    let thr = pair_threshold(0.05, 0.01);
    assert!(pair_is_fast(0.0101, 0.0, thr));
    assert!(!pair_is_fast(0.006, 0.006, thr));
}

#[test]
fn swept_filters() {
    // bounding spheres r = 1 on a crossing path: centre separation goes (10, 3) -> (-10, 3),
    // closest 3 > 2: pruned; with margin + gap 1.5: kept
    let p2 = [10.0, 3.0, 0.0];
    assert!(swept_sphere_prune(&[0.0; 3], &[0.0; 3], 1.0, &p2, &[-20.0, 0.0, 0.0], 1.0, 0.0));
    assert!(!swept_sphere_prune(&[0.0; 3], &[0.0; 3], 1.0, &p2, &[-20.0, 0.0, 0.0], 1.0, 1.5));
    // plane: centre 1 above, rbound 0.2, moving down 0.5: min(1, 0.5) > 0.2 pruned; 0.9: kept
    assert!(swept_plane_prune(&[0.0, 0.0, 1.0], 1.0, &[0.0, 0.0, -0.5], 0.2, 0.0));
    assert!(!swept_plane_prune(&[0.0, 0.0, 1.0], 1.0, &[0.0, 0.0, -0.9], 0.2, 0.0));
    // broadphase interval: box half 0.3 inside rbound 0.5, rotating |dw| = 0.4 (grows by 0.2,
    // clipped at 0.5), moving -0.7 along the axis, margin 0.01
    let m = GeomMotion { dx: [-0.7, 0.0, 0.0], dw: [0.0, 0.0, 0.4] };
    let (lo, hi) = swept_interval(1.0, 0.5, 1.0, 0.3, &m, 0.5, &[1.0, 0.0, 0.0], 0.01);
    assert!((lo - (0.5 - 0.7 - 0.01)).abs() < 1e-15 && (hi - 1.51).abs() < 1e-15, "{lo} {hi}");
}

#[test]
fn ray_casts_on_every_type() {
    // rays straight down the z axis from z = 1 onto geoms centred at the origin
    let p = [0.0, 0.0, 1.0];
    let v = [0.0, 0.0, -1.0];
    let cases = [
        (GeomType::Plane, [1.0, 1.0, 0.1], 1.0),
        (GeomType::Sphere, [0.2, 0.0, 0.0], 0.8),
        (GeomType::Capsule, [0.1, 0.3, 0.0], 0.6),
        (GeomType::Ellipsoid, [0.1, 0.2, 0.4], 0.6),
        (GeomType::Cylinder, [0.1, 0.3, 0.0], 0.7),
        (GeomType::Box, [0.1, 0.2, 0.25], 0.75),
    ];
    for (ty, size, want) in cases {
        let g = geom(ty, size, [0.0; 3], 1.0);
        let x = ray_geom(&g, &p, &v);
        assert!((x - want).abs() < 1e-12, "{ty:?}: {x} vs {want}");
    }
    // a capsule lying along x, hit on its side; a cylinder side hit along x
    let mut cap = geom(GeomType::Capsule, [0.1, 0.3, 0.0], [0.0; 3], 0.4);
    cap.mat = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];
    assert!((ray_geom(&cap, &[0.2, 0.0, 1.0], &v) - 0.9).abs() < 1e-12);
    let cyl = geom(GeomType::Cylinder, [0.1, 0.3, 0.0], [0.0; 3], 0.4);
    assert!((ray_geom(&cyl, &[1.0, 0.0, 0.0], &[-1.0, 0.0, 0.0]) - 0.9).abs() < 1e-12);
    // planes are one-sided; misses return -1; a ray from inside a box exits
    let plane = geom(GeomType::Plane, [0.0, 0.0, 0.1], [0.0; 3], 0.0);
    assert_eq!(ray_geom(&plane, &[0.0, 0.0, -1.0], &[0.0, 0.0, 1.0]), -1.0);
    let sphere = geom(GeomType::Sphere, [0.2, 0.0, 0.0], [0.0; 3], 0.2);
    assert_eq!(ray_geom(&sphere, &[1.0, 0.0, 1.0], &v), -1.0);
    let bx = geom(GeomType::Box, [0.1, 0.2, 0.25], [0.0; 3], 0.4);
    assert!((ray_geom(&bx, &[0.0; 3], &[0.0, 0.0, 1.0]) - 0.25).abs() < 1e-12);
    // a mesh hull: the unit cube [-0.5, 0.5]^3 as 12 outward triangles
    let vert: Vec<[f64; 3]> =
        (0..8).map(|i| [(i & 1) as f64 - 0.5, ((i >> 1) & 1) as f64 - 0.5, ((i >> 2) & 1) as f64 - 0.5]).collect();
    let face = vec![
        [0, 2, 3],
        [0, 3, 1],
        [4, 5, 7],
        [4, 7, 6],
        [0, 1, 5],
        [0, 5, 4],
        [2, 6, 7],
        [2, 7, 3],
        [0, 4, 6],
        [0, 6, 2],
        [1, 3, 7],
        [1, 7, 5],
    ];
    let hull =
        ConvexHull { vert, adjacency: vec![], face, polygons: None, mesh_id: Vec::new(), mesh_nvert: 0, nhull: 0 };
    let mesh = Geom {
        ty: GeomType::Mesh,
        size: [0.0; 3],
        pos: [0.0; 3],
        mat: IDENTITY9,
        rbound: 0.9,
        hull: Some(&hull),
        hfield: None,
    };
    assert!((ray_geom(&mesh, &p, &v) - 0.5).abs() < 1e-12);
    assert_eq!(ray_geom(&mesh, &[2.0, 0.0, 1.0], &v), -1.0);
}

#[test]
fn plate_occludes_the_floor() {
    // the measurements' occlusion scene: ball witness at z = 0.19, floor witness at z = 0 below
    // it; a 2 mm plate at z = 0.1 (box half .1 .1 .001) sits on the segment. Moved 0.5 m aside,
    // the ball's segment to the floor is clear.
    let plate = geom(GeomType::Box, [0.1, 0.1, 0.001], [0.0, 0.0, 0.1], 0.15);
    assert!(segment_hits(&plate, &[0.0, 0.0, 0.19], &[0.0, 0.0, 0.0]));
    assert!(!segment_hits(&plate, &[0.5, 0.0, 0.19], &[0.5, 0.0, 0.0]));
    // a segment that stops short of the plate is not occluded
    assert!(!segment_hits(&plate, &[0.0, 0.0, 0.19], &[0.0, 0.0, 0.15]));
    let occluders = [plate];
    assert!(segment_occluded(&occluders, &[0.0, 0.0, 0.19], &[0.0, 0.0, 0.0]));
}
