//! Speculative contacts compared with MuJoCo 4.0.0 (Python bindings, `mujoco==4.0.0`).
//!
//! Every scene below was probed as: compile the MJCF shown in the comment, set `qpos`/`qvel`,
//! call `mujoco.mj_forward(m, d)` and read `d.contact[:d.ncon]` (`dist`, `pos`, `frame[0:3]`).
//! All scenes use `<option timestep="0.00125" gravity="0 0 0"><flag speculative="enable"/>`
//! unless stated, and MuJoCo's default contact parameters (solref 0.02 1, solimp width 0.001).
//! Pairs go through GJK, so positions and distances are compared to 1e-6 (relative for `dist`).

mod common;

use common::{assert_vec, close_rel};
use specula_engine::math::IDENTITY9;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType};
use specula_engine::speculative::sweep::{min_half_extent, primitive_half_extents};
use specula_engine::speculative::{
    speculative_contacts, GeomMotion, Integrator, PairParams, SpeculativeOptions, SweptGeom,
};

const H: f64 = 0.00125;

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    let rbound = match ty {
        GeomType::Sphere => size[0],
        GeomType::Box => (size[0] * size[0] + size[1] * size[1] + size[2] * size[2]).sqrt(),
        GeomType::Capsule => size[0] + size[1],
        GeomType::Cylinder => (size[0] * size[0] + size[1] * size[1]).sqrt(),
        _ => 0.0,
    };
    Geom { ty, size, pos, mat, rbound, hull: None, hfield: None }
}

fn swept(g: Geom<'static>, dx: [f64; 3], dw: [f64; 3]) -> SweptGeom<'static> {
    let half = primitive_half_extents(g.ty, &g.size).unwrap_or([f64::INFINITY; 3]);
    SweptGeom { geom: g, motion: GeomMotion { dx, dw }, min_half: min_half_extent(g.ty, &half) }
}

fn params() -> PairParams {
    PairParams { margin: 0.0, solref: [0.02, 1.0], solimp: [0.9, 0.95, 0.001, 0.5, 2.0] }
}

fn options(integrator: Integrator, multiccd: bool) -> SpeculativeOptions {
    SpeculativeOptions {
        timestep: H,
        integrator,
        refsafe: true,
        collide: CollideOptions { multiccd, ..CollideOptions::default() },
    }
}

fn run(s1: &SweptGeom, s2: &SweptGeom, opt: &SpeculativeOptions) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); 8];
    let n = speculative_contacts(s1, s2, &params(), opt, |_, _, _| false, &mut out);
    out[..n].to_vec()
}

/// Does `cs` contain a contact at `p` (any order)?
fn has_pos(cs: &[ContactPoint], p: [f64; 3]) -> bool {
    cs.iter().any(|c| (0..3).all(|i| (c.pos[i] - p[i]).abs() < 1e-6))
}

#[test]
fn ball_over_plate_measured_case() {
    // <geom type="box" size=".1 .1 .005" pos="0 0 .295"/> plate (top at 0.3);
    // <body><freejoint/><geom type="sphere" size=".01" density="7850"/></body>, qpos z = 0.32,
    // qvel z = -20 (gravity on): ncon 1, dist -3.0912, pos (0, 0, 0.31), normal (0, 0, -1).
    let plate = geom(GeomType::Box, [0.1, 0.1, 0.005], [0.0, 0.0, 0.295], IDENTITY9);
    let ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0, 0.0, 0.32], IDENTITY9);
    let s1 = swept(ball, [0.0, 0.0, -20.0 * H], [0.0; 3]);
    let s2 = swept(plate, [0.0; 3], [0.0; 3]);
    for integ in [Integrator::Euler, Integrator::Implicit, Integrator::ImplicitFast, Integrator::Rk4] {
        let cs = run(&s1, &s2, &options(integ, true));
        assert_eq!(cs.len(), 1);
        assert!(close_rel(cs[0].dist, -3.0912, 1e-9), "{}", cs[0].dist);
        assert_vec(&cs[0].pos, &[0.0, 0.0, 0.31], 1e-9);
        assert_vec(&cs[0].normal(), &[0.0, 0.0, -1.0], 1e-9);
    }
    // the same ball at 10 m/s and a 5 mm gap: -1.5456 (Euler) and -1.7839 (discrete)
    let ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0, 0.0, 0.315], IDENTITY9);
    let s1 = swept(ball, [0.0, 0.0, -10.0 * H], [0.0; 3]);
    let e = run(&s1, &s2, &options(Integrator::Euler, true));
    let d = run(&s1, &s2, &options(Integrator::Discrete, true));
    assert!(close_rel(e[0].dist, -1.5455999999999976, 1e-9), "{}", e[0].dist);
    assert!(close_rel(d[0].dist, -1.7838999999999974, 1e-9), "{}", d[0].dist);
}

#[test]
fn head_on_balls_share_the_position() {
    // two free r = 10 mm spheres at x = 0 and x = 0.04 (gap 20 mm), qvel x = +20 and -20:
    // dist -6.1824, pos (0.02, 0, 0) half-way between the t = 0 witnesses, normal +x.
    let a = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0; 3], IDENTITY9);
    let b = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.04, 0.0, 0.0], IDENTITY9);
    let cs = run(
        &swept(a, [0.025, 0.0, 0.0], [0.0; 3]),
        &swept(b, [-0.025, 0.0, 0.0], [0.0; 3]),
        &options(Integrator::Euler, true),
    );
    assert_eq!(cs.len(), 1);
    assert!(close_rel(cs[0].dist, -6.182400000000001, 1e-9), "{}", cs[0].dist);
    assert_vec(&cs[0].pos, &[0.02, 0.0, 0.0], 1e-9);
    assert_vec(&cs[0].normal(), &[1.0, 0.0, 0.0], 1e-9);
}

#[test]
fn gating_uses_the_smaller_geom_and_own_travel() {
    // r1 = 0.05 at x = 0, r2 = 0.01 at x = 0.061 (gap 1 mm): ball 1 at 8.1 m/s (10.125 mm per
    // step, above r2 = 10 mm but far below its own 50 mm): MuJoCo speculates, dist -2.01712,
    // pos (0.05, 0, 0). Both at 4.1 m/s (relative 10.25 mm, each 5.125 mm): no contact.
    let a = geom(GeomType::Sphere, [0.05, 0.0, 0.0], [0.0; 3], IDENTITY9);
    let b = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.061, 0.0, 0.0], IDENTITY9);
    let opt = options(Integrator::Euler, true);
    let cs = run(&swept(a, [8.1 * H, 0.0, 0.0], [0.0; 3]), &swept(b, [0.0; 3], [0.0; 3]), &opt);
    assert_eq!(cs.len(), 1);
    assert!(close_rel(cs[0].dist, -2.0171200000000016, 1e-9), "{}", cs[0].dist);
    assert_vec(&cs[0].pos, &[0.05, 0.0, 0.0], 1e-9);
    let cs = run(&swept(a, [4.1 * H, 0.0, 0.0], [0.0; 3]), &swept(b, [-4.1 * H, 0.0, 0.0], [0.0; 3]), &opt);
    assert!(cs.is_empty());
    // a spinning sphere is not fast: r = 10 mm at rest, 5000 rad/s, 2 m/s towards a wall
    // 1 mm away (box size .05 .005 .05 at y = 0.016): MuJoCo gives no contact.
    let wall = geom(GeomType::Box, [0.05, 0.005, 0.05], [0.0, 0.016, 0.0], IDENTITY9);
    let ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0; 3], IDENTITY9);
    let cs = run(&swept(ball, [0.0, 2.0 * H, 0.0], [0.0, 0.0, 5000.0 * H]), &swept(wall, [0.0; 3], [0.0; 3]), &opt);
    assert!(cs.is_empty());
}

#[test]
fn hinge_arm_sphere_against_wall() {
    // <geom type="box" size=".05 .005 .05" pos=".2 .025 0"/> (wall face at y = 0.02);
    // <body><joint type="hinge" axis="0 0 1"/><geom type="sphere" size=".01" pos=".2 0 0"/>
    // + counterweight</body>, qvel 100 rad/s: dist -3.0912, pos (0.2, 0.01, 0), normal +y.
    // The motion comes from the body velocity at the geom centre (sweep::geom_motion).
    let cvel = [0.0, 0.0, 100.0, 0.0, 0.0, 0.0];
    let m = specula_engine::speculative::sweep::geom_motion(&cvel, &[0.0; 3], &[0.2, 0.0, 0.0], H);
    let ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.2, 0.0, 0.0], IDENTITY9);
    let wall = geom(GeomType::Box, [0.05, 0.005, 0.05], [0.2, 0.025, 0.0], IDENTITY9);
    let cs = run(&swept(ball, m.dx, m.dw), &swept(wall, [0.0; 3], [0.0; 3]), &options(Integrator::Euler, true));
    assert_eq!(cs.len(), 1);
    assert!(close_rel(cs[0].dist, -3.0912, 1e-9), "{}", cs[0].dist);
    assert_vec(&cs[0].pos, &[0.2, 0.01, 0.0], 1e-9);
    assert_vec(&cs[0].normal(), &[0.0, 1.0, 0.0], 1e-9);
}

/// The spinning-box scenes: a free cube of half 10 mm at the origin, 10 m/s along +y towards
/// `<geom type="box" size=".05 .005 .05" pos="0 .025 0"/>` (gap 10 mm), spinning so that
/// `|dw| rbound = c |dx|`. The wall (geom 0) comes first, so the normal is -y.
fn spinning_box(c: f64, axis: usize) -> Vec<ContactPoint> {
    let dx = 10.0 * H;
    let rb = 0.01 * 3f64.sqrt();
    let mut dw = [0.0; 3];
    dw[axis] = c * dx / rb;
    let wall = geom(GeomType::Box, [0.05, 0.005, 0.05], [0.0, 0.025, 0.0], IDENTITY9);
    let cube = geom(GeomType::Box, [0.01; 3], [0.0; 3], IDENTITY9);
    run(&swept(wall, [0.0; 3], [0.0; 3]), &swept(cube, [0.0, dx, 0.0], dw), &options(Integrator::Euler, true))
}

#[test]
fn box_spinning_about_the_wall_normal() {
    // spin about y keeps the face parallel: the advancement shrinks the gap by c/(1+c) per
    // step; MuJoCo's dist for c = 0.5 and 1 (4 contacts at the face corners (+-.01, .01, +-.01))
    for (c, want) in [(0.5, -0.301524279835391), (1.0, -0.3108), (3.0, -0.3163446882367113)] {
        let cs = spinning_box(c, 1);
        assert_eq!(cs.len(), 4, "c = {c}");
        for con in &cs {
            assert!(close_rel(con.dist, want, 1e-6), "c = {c}: {} vs {want}", con.dist);
            assert_vec(&con.normal(), &[0.0, -1.0, 0.0], 1e-9);
        }
        for p in [[0.01, 0.01, 0.01], [-0.01, 0.01, 0.01], [0.01, 0.01, -0.01], [-0.01, 0.01, -0.01]] {
            assert!(has_pos(&cs, p), "c = {c}: {cs:?}");
        }
    }
    // c = 3.2 needs 17 steps: MuJoCo lands on the translation-only time, dist -0.2912
    let cs = spinning_box(3.2, 1);
    assert!(close_rel(cs[0].dist, -0.2912000000000003, 1e-9), "{}", cs[0].dist);
}

#[test]
fn box_spinning_past_the_wall() {
    // spin about z: the leading edge x = +0.01 swings towards the wall. MuJoCo: two contacts
    // at (0.01, 0.01, +-0.01) with dist -1.0163084594759757 (c = 0.5) and -1.583037148715723
    // (c = 1); spin about x (c = 0.7): (+-0.01, 0.01, -0.01), dist -1.2487293016984797.
    // Spinning faster (c = 4 and 6: 2.9 and 4.3 rad per step) the box turns past 90 degrees
    // before impact and the edge (0.01, -0.01) leads: -2.2342619754267004 and
    // -2.8327675747771335; there `h|v_n|` is the witness speed at t, not the gap closing.
    for (c, axis, want, pts) in [
        (0.5, 2, -1.0163084594759757, [[0.01, 0.01, 0.01], [0.01, 0.01, -0.01]]),
        (1.0, 2, -1.583037148715723, [[0.01, 0.01, 0.01], [0.01, 0.01, -0.01]]),
        (4.0, 2, -2.2342619754267004, [[0.01, -0.01, 0.01], [0.01, -0.01, -0.01]]),
        (6.0, 2, -2.8327675747771335, [[0.01, -0.01, 0.01], [0.01, -0.01, -0.01]]),
        (0.7, 0, -1.2487293016984797, [[0.01, 0.01, -0.01], [-0.01, 0.01, -0.01]]),
    ] {
        let cs = spinning_box(c, axis);
        assert!(!cs.is_empty());
        for con in &cs {
            assert!(close_rel(con.dist, want, 1e-6), "c = {c}: {} vs {want}", con.dist);
        }
        for p in pts {
            assert!(cs.iter().any(|con| (0..3).all(|i| (con.pos[i] - p[i]).abs() < 1e-5)), "c = {c}: {cs:?}");
        }
    }
}

#[test]
fn cube_onto_plane_gets_four_points() {
    // <geom type="plane" size="1 1 1"/>, cube half 10 mm at z = 0.02 falling at 10 m/s:
    // 4 contacts, dist -0.2912, at the bottom corners (+-.01, +-.01, .01), normal +z.
    let plane = geom(GeomType::Plane, [1.0, 1.0, 1.0], [0.0; 3], IDENTITY9);
    let cube = geom(GeomType::Box, [0.01; 3], [0.0, 0.0, 0.02], IDENTITY9);
    let s1 = swept(plane, [0.0; 3], [0.0; 3]);
    let s2 = swept(cube, [0.0, 0.0, -10.0 * H], [0.0; 3]);
    let cs = run(&s1, &s2, &options(Integrator::Euler, true));
    assert_eq!(cs.len(), 4);
    for p in [[0.01, 0.01, 0.01], [-0.01, 0.01, 0.01], [0.01, -0.01, 0.01], [-0.01, -0.01, 0.01]] {
        assert!(has_pos(&cs, p), "{cs:?}");
    }
    for con in &cs {
        assert!(close_rel(con.dist, -0.2912, 1e-9), "{}", con.dist);
        assert_vec(&con.normal(), &[0.0, 0.0, 1.0], 1e-12);
    }
}

#[test]
fn tilted_cube_onto_plane_keeps_points_reached_this_step() {
    // the same cube tilted 10 degrees about x (body euler="10 0 0"), lowest point `gap` above
    // the plane, 10 m/s down: MuJoCo gives 4 contacts at gap 5 mm and 2 at gap 10 mm (the high
    // edge is 3.5 mm up; the rest of the step brings the cube down 7.6 mm and 2.7 mm).
    let a = 10f64.to_radians();
    let (c, s) = (a.cos(), a.sin());
    let mat = [1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c];
    let low = 0.01 * (c + s);
    let plane = geom(GeomType::Plane, [1.0, 1.0, 1.0], [0.0; 3], IDENTITY9);
    for (gap, want_n, want_d) in [(0.005, 4, -1.5456), (0.01, 2, -0.2912)] {
        let cube = geom(GeomType::Box, [0.01; 3], [0.0, 0.0, low + gap], mat);
        let cs = run(
            &swept(plane, [0.0; 3], [0.0; 3]),
            &swept(cube, [0.0, 0.0, -10.0 * H], [0.0; 3]),
            &options(Integrator::Euler, true),
        );
        assert_eq!(cs.len(), want_n, "gap {gap}: {cs:?}");
        for con in &cs {
            assert!(close_rel(con.dist, want_d, 1e-6), "gap {gap}: {}", con.dist);
        }
    }
}

#[test]
fn occluded_contact_is_dropped() {
    // MuJoCo 4.0.0 tests three segments per point (read from its `mjc_advanceGeomPair`): each
    // geom's own path from t = 0 to the time of impact, then the gap at impact seen from the
    // faster geom. A ball 10 mm over a plate closing at 20 m/s (h = 1.25 ms): impact at
    // 0.98 of the gap, the ball's lowest point going from z = 0.31 to 0.3002; the plate is static.
    let plate = geom(GeomType::Box, [0.1, 0.1, 0.005], [0.0, 0.0, 0.295], IDENTITY9);
    let ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0, 0.0, 0.32], IDENTITY9);
    let s1 = swept(ball, [0.0, 0.0, -20.0 * H], [0.0; 3]);
    let s2 = swept(plate, [0.0; 3], [0.0; 3]);
    let mut seen = Vec::new();
    let mut out = [ContactPoint::default(); 4];
    let n = speculative_contacts(
        &s1,
        &s2,
        &params(),
        &options(Integrator::Euler, true),
        |k, a, b| {
            seen.push((k, *a, *b));
            false
        },
        &mut out,
    );
    assert_eq!(n, 1);
    assert_eq!(seen.len(), 3);
    let want = [
        (0, [0.0, 0.0, 0.31], [0.0, 0.0, 0.3002]),
        (1, [0.0, 0.0, 0.3], [0.0, 0.0, 0.3]),
        (0, [0.0, 0.0, 0.3002], [0.0, 0.0, 0.3]),
    ];
    for ((k, a, b), (wk, wa, wb)) in seen.iter().zip(&want) {
        assert_eq!(k, wk);
        assert_vec(a, wa, 1e-9);
        assert_vec(b, wb, 1e-9);
    }
    // any hidden segment drops the point
    for hide in 0..3 {
        let mut calls = 0;
        let n = speculative_contacts(
            &s1,
            &s2,
            &params(),
            &options(Integrator::Euler, true),
            |_, _, _| {
                calls += 1;
                calls == hide + 1
            },
            &mut out,
        );
        assert_eq!(n, 0, "segment {hide}");
    }
}

#[test]
fn capsule_and_cylinder_onto_plane() {
    // a capsule (size .01 .02, euler="0 90 0": axis along x) and a cylinder (size .01 .01,
    // upright) centred 20 mm above `<geom type="plane" size="1 1 1"/>`, falling at 10 m/s:
    // capsule: (-0.02, 0, 0.01) then (0.02, 0, 0.01); cylinder: 4 points of the bottom rim at
    // 0, 67.5, 157.5 and 247.5 degrees (MuJoCo), all with dist -0.2912.
    let roty = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];
    let plane = swept(geom(GeomType::Plane, [1.0, 1.0, 1.0], [0.0; 3], IDENTITY9), [0.0; 3], [0.0; 3]);
    let fall = [0.0, 0.0, -10.0 * H];
    let capsule = swept(geom(GeomType::Capsule, [0.01, 0.02, 0.0], [0.0, 0.0, 0.02], roty), fall, [0.0; 3]);
    let cs = run(&plane, &capsule, &options(Integrator::Euler, true));
    assert_eq!(cs.len(), 2);
    assert_vec(&cs[0].pos, &[-0.02, 0.0, 0.01], 1e-9);
    assert_vec(&cs[1].pos, &[0.02, 0.0, 0.01], 1e-9);
    let cylinder = swept(geom(GeomType::Cylinder, [0.01, 0.01, 0.0], [0.0, 0.0, 0.02], IDENTITY9), fall, [0.0; 3]);
    let cs = run(&plane, &cylinder, &options(Integrator::Euler, true));
    assert_eq!(cs.len(), 4);
    for con in &cs {
        assert!(close_rel(con.dist, -0.2912, 1e-9), "{}", con.dist);
    }
    // the first three agree; the fourth is a tie of the quad pruning on a regular 16-gon that
    // floating-point noise breaks differently here (270 degrees instead of 247.5)
    let deg = |d: f64| [0.01 * d.to_radians().cos(), 0.01 * d.to_radians().sin(), 0.01];
    for (c, d) in cs.iter().zip([0.0, 67.5, 157.5]) {
        assert_vec(&c.pos, &deg(d), 1e-9);
    }
}

/// Step motion of a free body whose geom sits at the body origin: `dx = h v`, `dw = h R w_local`
/// (a free joint's angular velocity is in the body frame).
fn free_motion(mat: &[f64; 9], lin: [f64; 3], ang_local: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let w = specula_engine::math::mul_mat_vec3(mat, &ang_local);
    ([H * lin[0], H * lin[1], H * lin[2]], [H * w[0], H * w[1], H * w[2]])
}

#[test]
fn tumbling_capsule_and_box() {
    // `<body pos="0 0 .03" euler="20 10 0"><freejoint/><geom type="capsule" size=".008 .015"/>`
    // with qvel = (0.5, -0.3, -15, 20, -30, 40), onto `<geom type="plane" size="1 1 1"/>` and,
    // separately, onto `<geom type="box" size=".1 .1 .005" pos="0 0 -.005"/>`: both give one
    // contact, dist -2.1656725028298074 at (-0.0027765, 0.0049408, 0.0081214), normal +z from
    // the plane, -z from the capsule to the box. The gap closing `(d0 - d(t)) / t` is what
    // makes this agree (the witness-point chord would be off by 1e-3).
    let capmat = [
        0.9848077530122079,
        0.0,
        0.17364817766693033,
        0.05939117461388469,
        0.9396926207859083,
        -0.33682408883346515,
        -0.16317591116653482,
        0.34202014332566866,
        0.9254165783983233,
    ];
    let (dx, dw) = free_motion(&capmat, [0.5, -0.3, -15.0], [20.0, -30.0, 40.0]);
    let capsule = swept(geom(GeomType::Capsule, [0.008, 0.015, 0.0], [0.0, 0.0, 0.03], capmat), dx, dw);
    let plane = swept(geom(GeomType::Plane, [1.0, 1.0, 1.0], [0.0; 3], IDENTITY9), [0.0; 3], [0.0; 3]);
    let plate = swept(geom(GeomType::Box, [0.1, 0.1, 0.005], [0.0, 0.0, -0.005], IDENTITY9), [0.0; 3], [0.0; 3]);
    let want_pos = [-0.002776502521534905, 0.0049408143422156325, 0.008121373694461306];
    for (cs, normal) in [
        (run(&plane, &capsule, &options(Integrator::Euler, true)), [0.0, 0.0, 1.0]),
        (run(&capsule, &plate, &options(Integrator::Euler, true)), [0.0, 0.0, -1.0]),
    ] {
        assert_eq!(cs.len(), 1, "{cs:?}");
        assert!(close_rel(cs[0].dist, -2.1656725028298074, 1e-6), "{}", cs[0].dist);
        assert_vec(&cs[0].pos, &want_pos, 1e-6);
        assert_vec(&cs[0].normal(), &normal, 1e-6);
    }
    // `<body pos="0 0 .025" euler="5 -8 12"><freejoint/><geom type="box" size=".01 .012 .008"/>`
    // with qvel = (1, 0, -18, -25, 15, 30) onto `<geom type="sphere" size=".03" pos="0 0 -.03"/>`:
    // dist -0.905924652583432 at (-0.0048571, -0.0015063, 0.0160735), normal (-0.13106,
    // -0.06168, 0.98945) from the sphere to the box.
    let boxmat = [
        0.9686283355228661,
        -0.20588830853489695,
        -0.13917310096006544,
        0.19525585289115086,
        0.9769473675120125,
        -0.08630754905046056,
        0.15373450989921147,
        0.056425575052341935,
        0.9864997997699044,
    ];
    let (dx, dw) = free_motion(&boxmat, [1.0, 0.0, -18.0], [-25.0, 15.0, 30.0]);
    let cube = swept(geom(GeomType::Box, [0.01, 0.012, 0.008], [0.0, 0.0, 0.025], boxmat), dx, dw);
    let ball = swept(geom(GeomType::Sphere, [0.03, 0.0, 0.0], [0.0, 0.0, -0.03], IDENTITY9), [0.0; 3], [0.0; 3]);
    let cs = run(&ball, &cube, &options(Integrator::Euler, true));
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!(close_rel(cs[0].dist, -0.905924652583432, 1e-6), "{}", cs[0].dist);
    assert_vec(&cs[0].pos, &[-0.004857060678454399, -0.0015062703059926115, 0.01607351598394308], 1e-6);
    assert_vec(&cs[0].normal(), &[-0.1310570572272453, -0.06168098611056666, 0.9894541443156235], 1e-6);
}

#[test]
fn no_contact_when_the_surfaces_meet_after_the_step() {
    // ball onto the plate at 12 m/s (15 mm per step): MuJoCo speculates up to a gap of exactly
    // 15 mm (t = 0.98) and not beyond (bisection on the gap)
    let plate = swept(geom(GeomType::Box, [0.1, 0.1, 0.005], [0.0, 0.0, 0.295], IDENTITY9), [0.0; 3], [0.0; 3]);
    let opt = options(Integrator::Euler, true);
    for (gap, want) in [(0.0149, 1), (0.0151, 0)] {
        let ball = swept(
            geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0, 0.0, 0.31 + gap], IDENTITY9),
            [0.0, 0.0, -12.0 * H],
            [0.0; 3],
        );
        assert_eq!(run(&ball, &plate, &opt).len(), want, "gap {gap}");
    }
}
