//! Sphere-box collider (`narrowphase::box::sphere_box`): face, edge, corner and inside cases
//! derived by hand, the margin rule, a rotated box, and one pose compared with MuJoCo 4.0.0.

use specula_engine::math::{frame_from_normal, mul_mat_vec3, quat2mat, IDENTITY9};
use specula_engine::narrowphase::r#box::sphere_box;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    Geom { ty, size, pos, mat, rbound: 0.0, hull: None, hfield: None }
}

/// Sphere of radius `r` at `centre` against the box `b`.
fn collide(centre: [f64; 3], r: f64, b: &Geom, margin: f64) -> Vec<ContactPoint> {
    let s = geom(GeomType::Sphere, [r, 0.0, 0.0], centre, IDENTITY9);
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = sphere_box(&s, b, margin, &CollideOptions::default(), &mut out);
    out[..n].to_vec()
}

fn check(c: &ContactPoint, dist: f64, pos: [f64; 3], normal: [f64; 3], tol: f64) {
    assert!((c.dist - dist).abs() <= tol, "dist: got {}, want {dist}", c.dist);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol);
    assert!(close(&c.pos, &pos), "pos: got {:?}, want {pos:?}", c.pos);
    let f = frame_from_normal(&normal);
    assert!(close(&c.frame, &f), "frame: got {:?}, want {f:?}", c.frame);
}

fn unit_box() -> Geom<'static> {
    geom(GeomType::Box, [0.5, 0.4, 0.3], [0.0; 3], IDENTITY9)
}

#[test]
fn sphere_on_a_face() {
    // Closest box point (0.1, 0.2, 0.3), 0.09 below the centre: dist 0.09 - 0.1, normal
    // straight down (sphere toward box), position halfway between z = 0.3 and z = 0.29.
    let c = collide([0.1, 0.2, 0.39], 0.1, &unit_box(), 0.0);
    assert_eq!(c.len(), 1);
    check(&c[0], -0.01, [0.1, 0.2, 0.295], [0.0, 0.0, -1.0], 1e-15);
}

#[test]
fn sphere_on_an_edge() {
    // Beyond the +x and +z faces by 0.1 each: the closest point is on the edge at
    // (0.5, 0.2, 0.3), distance 0.1*sqrt2, normal -(1, 0, 1)/sqrt2.
    let r = 0.15;
    let c = collide([0.6, 0.2, 0.4], r, &unit_box(), 0.0);
    assert_eq!(c.len(), 1);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let d = 0.1 * 2f64.sqrt();
    let deep = [0.6 - r * h, 0.2, 0.4 - r * h];
    let mid = [(0.5 + deep[0]) / 2.0, 0.2, (0.3 + deep[2]) / 2.0];
    check(&c[0], d - r, mid, [-h, 0.0, -h], 1e-15);
}

#[test]
fn sphere_on_a_corner() {
    let r = 0.2;
    let c = collide([0.6, 0.5, 0.4], r, &unit_box(), 0.0);
    assert_eq!(c.len(), 1);
    let d = 0.03f64.sqrt();
    let u = -1.0 / 3f64.sqrt();
    let deep = [0.6 + u * r, 0.5 + u * r, 0.4 + u * r];
    let mid = [(0.5 + deep[0]) / 2.0, (0.4 + deep[1]) / 2.0, (0.3 + deep[2]) / 2.0];
    check(&c[0], d - r, mid, [u, u, u], 1e-15);
    // Just out of reach without a margin (gap 0.1732 - 0.17), inside with one.
    assert!(collide([0.6, 0.5, 0.4], 0.17, &unit_box(), 0.0).is_empty());
    assert_eq!(collide([0.6, 0.5, 0.4], 0.17, &unit_box(), 0.004).len(), 1);
}

#[test]
fn centre_inside_uses_the_nearest_face() {
    // Centre 0.05 inside the +x face: pushed out through it, so the normal (sphere to box)
    // is -x; dist = -(0.05 + r); position = centre moved (r - 0.05)/2 along the normal.
    let c = collide([0.45, 0.0, 0.0], 0.1, &unit_box(), 0.0);
    assert_eq!(c.len(), 1);
    check(&c[0], -0.15, [0.425, 0.0, 0.0], [-1.0, 0.0, 0.0], 1e-15);

    // Centre at the middle of a cube: all six faces tie and the first (-x) wins, so the
    // normal is +x.
    let cube = geom(GeomType::Box, [0.5; 3], [0.0; 3], IDENTITY9);
    let c = collide([0.0; 3], 0.2, &cube, 0.0);
    assert_eq!(c.len(), 1);
    check(&c[0], -0.7, [-0.15, 0.0, 0.0], [1.0, 0.0, 0.0], 1e-15);
}

#[test]
fn contact_only_within_the_margin() {
    // Gap 0.02 above the top face.
    assert!(collide([0.0, 0.0, 0.42], 0.1, &unit_box(), 0.0).is_empty());
    assert!(collide([0.0, 0.0, 0.42], 0.1, &unit_box(), 0.019).is_empty());
    let c = collide([0.0, 0.0, 0.42], 0.1, &unit_box(), 0.03);
    assert_eq!(c.len(), 1);
    check(&c[0], 0.02, [0.0, 0.0, 0.31], [0.0, 0.0, -1.0], 1e-15);
}

#[test]
fn rotated_and_moved_box() {
    // The edge case again, with the box turned and shifted: everything rotates with it.
    let q: [f64; 4] = [0.6, -0.2, 0.7, 0.1];
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let r = quat2mat(&[q[0] / n, q[1] / n, q[2] / n, q[3] / n]);
    let p = [0.3, -0.2, 0.1];
    let to_world = |v: [f64; 3]| {
        let w = mul_mat_vec3(&r, &v);
        [w[0] + p[0], w[1] + p[1], w[2] + p[2]]
    };
    let b = geom(GeomType::Box, [0.5, 0.4, 0.3], p, r);
    let rad = 0.15;
    let c = collide(to_world([0.6, 0.2, 0.4]), rad, &b, 0.0);
    assert_eq!(c.len(), 1);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let deep = [0.6 - rad * h, 0.2, 0.4 - rad * h];
    let mid = [(0.5 + deep[0]) / 2.0, 0.2, (0.3 + deep[2]) / 2.0];
    let normal = mul_mat_vec3(&r, &[-h, 0.0, -h]);
    check(&c[0], 0.1 * 2f64.sqrt() - rad, to_world(mid), normal, 1e-12);
}

#[test]
fn mujoco_probe_rotated_box_edge() {
    // MuJoCo 4.0.0 probe (Python): two free bodies, body 1 at the origin with
    // <geom type="sphere" size="0.14"/>, body 2 pos "0.28 -0.11 0.03"
    // quat "-0.59 -0.01 -0.33 0.74" with <geom type="box" size="0.13 0.15 0.11"/>;
    // mj_forward, then d.geom_xmat[1] and d.contact[0].dist / .pos / .frame.
    let mat2 = [
        -0.306857768488106,
        0.8756842838658306,
        0.372847616203842,
        -0.8625460336418832,
        -0.09027570419030562,
        -0.4978600577286753,
        -0.4023091470090575,
        -0.4743704588434359,
        0.7830198069075345,
    ];
    let b = geom(GeomType::Box, [0.13, 0.15, 0.11], [0.28, -0.11, 0.03], mat2);
    let c = collide([0.0; 3], 0.14, &b, 0.0);
    assert_eq!(c.len(), 1);
    let want_frame = [
        0.9168137649004725,
        -0.3813700729159376,
        0.11836126044071191,
        0.3782311129288463,
        0.9244224507680957,
        0.04882988560824172,
        -0.1280380634874958,
        6.938893903907228e-18,
        0.9917692545639699,
    ];
    assert!((c[0].dist - -0.0236405118384813).abs() < 1e-12);
    let want_pos = [0.11751695375465998, -0.04888391834642538, 0.015171516072366567];
    assert!(c[0].pos.iter().zip(want_pos).all(|(g, w)| (g - w).abs() < 1e-12));
    assert!(c[0].frame.iter().zip(want_frame).all(|(g, w)| (g - w).abs() < 1e-12));
}
