//! Capsule-box collider (`narrowphase::box::capsule_box`): hand-derived scenes (capsule lying
//! on a face, standing on it, hanging over an edge, margin) and poses compared with
//! MuJoCo 4.0.0.

use specula_engine::math::{frame_from_normal, mul_mat_mat3, mul_mat_vec3, quat2mat, IDENTITY9};
use specula_engine::narrowphase::r#box::capsule_box;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

/// Capsule orientation whose axis (local z) is world +x: a quarter turn about y.
const ALONG_X: [f64; 9] = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0];

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    Geom { ty, size, pos, mat, rbound: 0.0, hull: None, hfield: None }
}

fn capsule(radius: f64, half: f64, pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    geom(GeomType::Capsule, [radius, half, 0.0], pos, mat)
}

fn cube() -> Geom<'static> {
    geom(GeomType::Box, [0.5; 3], [0.0; 3], IDENTITY9)
}

fn collide(g1: &Geom, g2: &Geom, margin: f64) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = capsule_box(g1, g2, margin, &CollideOptions::default(), &mut out);
    out[..n].to_vec()
}

fn check(c: &ContactPoint, dist: f64, pos: [f64; 3], normal: [f64; 3], tol: f64) {
    assert!((c.dist - dist).abs() <= tol, "dist: got {}, want {dist}", c.dist);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol);
    assert!(close(&c.pos, &pos), "pos: got {:?}, want {pos:?}", c.pos);
    let f = frame_from_normal(&normal);
    assert!(close(&c.frame, &f), "frame: got {:?}, want {f:?}", c.frame);
}

#[test]
fn capsule_lying_on_a_face_touches_at_both_ends() {
    // Segment from x = -0.2 to 0.4 at height 0.59 over the top face, radius 0.1: both ends
    // tie as closest; the first (t = -1) wins and the second contact is walked to the other
    // end, which is still over the face. Each end is a sphere 0.01 deep, contact halfway
    // between z = 0.5 and z = 0.49.
    let g1 = capsule(0.1, 0.3, [0.1, 0.05, 0.59], ALONG_X);
    let c = collide(&g1, &cube(), 0.0);
    assert_eq!(c.len(), 2);
    check(&c[0], -0.01, [-0.2, 0.05, 0.495], [0.0, 0.0, -1.0], 1e-15);
    check(&c[1], -0.01, [0.4, 0.05, 0.495], [0.0, 0.0, -1.0], 1e-15);
}

#[test]
fn capsule_standing_on_a_face_touches_once() {
    // Upright capsule, lower end 0.09 above the top face: one contact under the lower end.
    // The candidate second point is the upper end, 0.69 above the face, which only a margin
    // that large admits.
    let g1 = capsule(0.1, 0.3, [0.1, 0.2, 0.89], IDENTITY9);
    let c = collide(&g1, &cube(), 0.0);
    assert_eq!(c.len(), 1);
    check(&c[0], -0.01, [0.1, 0.2, 0.495], [0.0, 0.0, -1.0], 1e-15);
    let c = collide(&g1, &cube(), 1.0);
    assert_eq!(c.len(), 2);
    check(&c[1], 0.59, [0.1, 0.2, 0.5 + 0.59 / 2.0], [0.0, 0.0, -1.0], 1e-15);
}

#[test]
fn capsule_hanging_over_an_edge_stops_at_the_edge() {
    // Segment from x = 0.2 to 0.8: the outer end is beyond two faces, so the inner end is the
    // closest feature; walking toward the outer end stops where the segment leaves the top
    // face (x = 0.5, i.e. t = 0), giving the second contact at the edge line.
    let g1 = capsule(0.1, 0.3, [0.5, 0.05, 0.59], ALONG_X);
    let c = collide(&g1, &cube(), 0.0);
    assert_eq!(c.len(), 2);
    check(&c[0], -0.01, [0.2, 0.05, 0.495], [0.0, 0.0, -1.0], 1e-15);
    check(&c[1], -0.01, [0.5, 0.05, 0.495], [0.0, 0.0, -1.0], 1e-12);
}

#[test]
fn contacts_only_within_the_margin() {
    // Lying flat with a gap of 0.02 under both ends.
    let g1 = capsule(0.1, 0.3, [0.1, 0.05, 0.62], ALONG_X);
    assert!(collide(&g1, &cube(), 0.0).is_empty());
    assert!(collide(&g1, &cube(), 0.01).is_empty());
    let c = collide(&g1, &cube(), 0.03);
    assert_eq!(c.len(), 2);
    check(&c[0], 0.02, [-0.2, 0.05, 0.51], [0.0, 0.0, -1.0], 1e-15);
    check(&c[1], 0.02, [0.4, 0.05, 0.51], [0.0, 0.0, -1.0], 1e-15);
}

#[test]
fn large_margin_reaches_a_far_capsule() {
    // The lying capsule lifted to a gap of 6.0 with margin 10: both end contacts, dist 6.0,
    // halfway up the gap. MuJoCo 4.0.0 reports exactly these (probe: capsule size "0.1 0.3" at
    // pos "0.1 0.05 6.6" quat "0.7071067811865476 0 0.7071067811865476 0", cube size 0.5 at
    // the origin, margin="5" on both geoms; d.contact dist 6.0, pos (-0.2, 0.05, 3.5) and
    // (0.4, 0.05, 3.5)), although the snapshot C source's unsquared search bound would not.
    let g1 = capsule(0.1, 0.3, [0.1, 0.05, 6.6], ALONG_X);
    let c = collide(&g1, &cube(), 10.0);
    assert_eq!(c.len(), 2);
    check(&c[0], 6.0, [-0.2, 0.05, 3.5], [0.0, 0.0, -1.0], 1e-14);
    check(&c[1], 6.0, [0.4, 0.05, 3.5], [0.0, 0.0, -1.0], 1e-14);
    assert!(collide(&g1, &cube(), 5.9).is_empty());
}

#[test]
fn rotated_scene_rotates_the_contacts() {
    let q: [f64; 4] = [0.3, -0.5, 0.2, 0.75];
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let r = quat2mat(&[q[0] / n, q[1] / n, q[2] / n, q[3] / n]);
    let p = [0.1, 0.05, 0.59];
    let g1 = capsule(0.1, 0.3, mul_mat_vec3(&r, &p), mul_mat_mat3(&r, &ALONG_X));
    let g2 = geom(GeomType::Box, [0.5; 3], [0.0; 3], r);
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 2);
    let down = mul_mat_vec3(&r, &[0.0, 0.0, -1.0]);
    check(&c[0], -0.01, mul_mat_vec3(&r, &[-0.2, 0.05, 0.495]), down, 1e-12);
    check(&c[1], -0.01, mul_mat_vec3(&r, &[0.4, 0.05, 0.495]), down, 1e-12);
}

// Probes: MuJoCo 4.0.0 Python bindings. Two free bodies, body 1 holds the capsule and body 2
// the box; `mujoco.mj_forward(m, d)`, then `d.geom_xmat` and `d.contact[k].dist / .pos /
// .frame` printed with repr.

#[test]
fn mujoco_probe_capsule_parallel_to_an_edge_touches_once() {
    // Capsule size "0.1 0.3" at pos "0.56 0 0.56" quat "0.7071067811865476 -0.7071067811865476
    // 0 0" (axis along world y), box size "0.5 0.5 0.5" at the origin. The capsule rests on
    // the box's top +x edge along its whole length, yet MuJoCo reports one contact, under its
    // -y end. Both ends lie beyond two faces and the parallel edges are skipped, so the
    // closest feature is the box corner (0.5, -0.5, 0.5) at the end of a crossing edge, and
    // the capsule axis points straight away from that corner, which allows no second point.
    let mat1 = [1.0000000000000002, -0.0, 0.0, 0.0, 0.0, 1.0000000000000002, -0.0, -1.0000000000000002, 0.0];
    let g1 = capsule(0.1, 0.3, [0.56, 0.0, 0.56], mat1);
    let c = collide(&g1, &cube(), 0.0);
    assert_eq!(c.len(), 1);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    check(
        &c[0],
        -0.015147186257614229,
        [0.4946446609406726, -0.30000000000000004, 0.4946446609406726],
        [-h, 0.0, -h],
        1e-12,
    );
}

#[test]
fn mujoco_probe_tilted_capsule_two_contacts() {
    // Capsule size "0.08 0.23" at the origin, quat "-0.3 -0.46 0.13 -0.82"; box size
    // "0.33 0.35 0.14" at pos "0.19 0.25 0.37", quat "-0.15 0.6 0.02 -0.79".
    let mat1 = [
        -0.3912604702795438,
        -0.6172166717125845,
        0.682611767080432,
        0.37581996165102427,
        -0.7842365526289231,
        -0.4936926026844283,
        0.8400444040771017,
        0.06337672822686441,
        0.538803108285397,
    ];
    let mat2 = [
        -0.24031777557100303,
        -0.21151936444885797,
        -0.9473684210526314,
        0.25918570009930486,
        -0.9545183714001985,
        0.14736842105263154,
        -0.9354518371400198,
        -0.2101290963257199,
        0.2842105263157895,
    ];
    let g1 = capsule(0.08, 0.23, [0.0; 3], mat1);
    let g2 = geom(GeomType::Box, [0.33, 0.35, 0.14], [0.19, 0.25, 0.37], mat2);
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 2);
    check(
        &c[0],
        -0.07444087610823903,
        [0.0075798411859739345, 0.039330223897788646, 0.01603619483897234],
        [0.2665815516346212, 0.8547133248942489, 0.4454204851332008],
        1e-12,
    );
    check(
        &c[1],
        -0.024297948671540767,
        [0.17135251225420034, -0.04878424810256471, 0.13818218961323916],
        [0.21151936444885802, 0.9545183714001987, 0.21012909632571997],
        1e-12,
    );
}
