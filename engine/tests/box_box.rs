//! Box-box collider (`narrowphase::box::box_box`): hand-derived scenes plus a few poses
//! compared with MuJoCo 4.0.0.

use specula_engine::math::{frame_from_normal, mul_mat_mat3, mul_mat_vec3, quat2mat, IDENTITY9};
use specula_engine::narrowphase::r#box::box_box;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};
use std::f64::consts::FRAC_1_SQRT_2;

fn boxg(size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    Geom { ty: GeomType::Box, size, pos, mat, rbound: 0.0, hull: None, hfield: None }
}

fn collide(g1: &Geom, g2: &Geom, margin: f64) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = box_box(g1, g2, margin, &CollideOptions::default(), &mut out);
    out[..n].to_vec()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol, "{what}: got {got:?}, want {want:?}");
    }
}

/// Check one contact; the frame must be MuJoCo's completion of the normal (makeFrame).
fn check(c: &ContactPoint, dist: f64, pos: [f64; 3], normal: [f64; 3], tol: f64) {
    assert!((c.dist - dist).abs() <= tol, "dist: got {}, want {dist}", c.dist);
    assert_close(&c.pos, &pos, tol, "pos");
    assert_close(&c.frame, &frame_from_normal(&normal), tol, "frame");
}

/// Rotate a whole scene: the contacts must rotate with it, same count, same order.
fn rotated(g: &Geom<'static>, r: &[f64; 9]) -> Geom<'static> {
    boxg(g.size, mul_mat_vec3(r, &g.pos), mul_mat_mat3(r, &g.mat))
}

fn some_rotation() -> [f64; 9] {
    let q: [f64; 4] = [0.8, 0.3, -0.4, 0.33];
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    quat2mat(&[q[0] / n, q[1] / n, q[2] / n, q[3] / n])
}

// Depth 2^-7 keeps every height in the flat scenes exactly representable.
const DEPTH: f64 = 0.0078125;

#[test]
fn small_box_resting_on_big_box_gives_its_four_corners() {
    // Box 1 (half 1 x 1 x 0.5) below, box 2 (half 0.5 x 0.25 x 0.25) sunk DEPTH into its top.
    // Both face axes separate by exactly -DEPTH; the tie goes to box 1's face, so box 2's
    // bottom face is the incident face and lies wholly inside: its corners, wound (+u,+v),
    // (-u,+v), (-u,-v), (+u,-v) over box 2's x and y axes, are the contacts, each halfway
    // between box 1's top (z = 0.5) and box 2's bottom (z = 0.5 - DEPTH).
    let g1 = boxg([1.0, 1.0, 0.5], [0.0; 3], IDENTITY9);
    let g2 = boxg([0.5, 0.25, 0.25], [0.2, 0.1, 0.75 - DEPTH], IDENTITY9);
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 4);
    let z = 0.5 - DEPTH / 2.0;
    let want = [[0.7, 0.35], [-0.3, 0.35], [-0.3, -0.15], [0.7, -0.15]];
    for (c, w) in c.iter().zip(want) {
        assert_eq!(c.dist, -DEPTH);
        check(c, -DEPTH, [w[0], w[1], z], [0.0, 0.0, 1.0], 1e-15);
    }
    assert_eq!(c[0].frame, [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0]);
}

#[test]
fn big_box_under_small_box_is_clipped_to_the_small_face() {
    // The same boxes with the geom order swapped: now box 1 (the small one) owns the winning
    // face, and box 2's 2 x 2 top face is clipped by the small face's four side planes in the
    // order x <= 0.5, x >= -0.5, y <= 0.25, y >= -0.25. Following Sutherland-Hodgman by hand
    // from the corners (0.8, 0.9), (-1.2, 0.9), (-1.2, -1.1), (0.8, -1.1) (box-1 frame) leaves
    // (-0.5, 0.25), (-0.5, -0.25), (0.5, -0.25), (0.5, 0.25). The normal points down, from
    // box 1 to box 2.
    let g1 = boxg([0.5, 0.25, 0.25], [0.2, 0.1, 0.75 - DEPTH], IDENTITY9);
    let g2 = boxg([1.0, 1.0, 0.5], [0.0; 3], IDENTITY9);
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 4);
    let z = 0.5 - DEPTH / 2.0;
    let want = [[-0.3, 0.35], [-0.3, -0.15], [0.7, -0.15], [0.7, 0.35]];
    for (c, w) in c.iter().zip(want) {
        check(c, -DEPTH, [w[0], w[1], z], [0.0, 0.0, -1.0], 1e-15);
    }
    // makeFrame for a -z normal: tangent y, third axis = n x y = +x.
    assert_eq!(c[0].frame, [0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn square_turned_45_degrees_on_square_gives_octagon() {
    // Two boxes with equal 1 x 1 footprints, the upper one turned 45 degrees about z: the
    // incident square (corners on the axes at distance 1/sqrt2) clipped by the lower square
    // is a regular-ish octagon with vertices (+-w, +-0.5) and (+-0.5, +-w), w = 1/sqrt2 - 1/2.
    // The clipping order fixes the sequence below (worked by hand, starting from the
    // incident corners (0, h), (-h, 0), (0, -h), (h, 0)).
    let (c, s) = (FRAC_1_SQRT_2, FRAC_1_SQRT_2);
    let g1 = boxg([0.5, 0.5, 0.5], [0.0; 3], IDENTITY9);
    let g2 = boxg([0.5, 0.5, 0.25], [0.0, 0.0, 0.75 - DEPTH], [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]);
    let got = collide(&g1, &g2, 0.0);
    assert_eq!(got.len(), 8);
    let w = FRAC_1_SQRT_2 - 0.5;
    let want = [[-w, 0.5], [-0.5, w], [-0.5, -w], [-w, -0.5], [w, -0.5], [0.5, -w], [0.5, w], [w, 0.5]];
    for (c, xy) in got.iter().zip(want) {
        assert_eq!(c.dist, -DEPTH);
        check(c, -DEPTH, [xy[0], xy[1], 0.5 - DEPTH / 2.0], [0.0, 0.0, 1.0], 1e-15);
    }
}

#[test]
fn crossed_edges_give_one_contact_at_the_witness_midpoint() {
    // Box 1 rolled 45 degrees about x presents a ridge along x at height h = s*sqrt2; box 2
    // rolled 45 degrees about y hangs a ridge along y. The edge axis x cross y = z separates
    // them by -0.01 while every face axis is far deeper, so the contact is edge-edge: at the
    // midpoint of (0, 0, h) and (0, 0, z2 - h), distance -0.01, normal +z.
    let s = 0.5;
    let h = s * 2f64.sqrt();
    let (c, sn) = (FRAC_1_SQRT_2, FRAC_1_SQRT_2);
    let rx = [1.0, 0.0, 0.0, 0.0, c, -sn, 0.0, sn, c];
    let ry = [c, 0.0, sn, 0.0, 1.0, 0.0, -sn, 0.0, c];
    let z2 = 2.0 * h - 0.01;
    let g1 = boxg([s; 3], [0.0; 3], rx);
    let g2 = boxg([s; 3], [0.0, 0.0, z2], ry);
    let got = collide(&g1, &g2, 0.0);
    assert_eq!(got.len(), 1);
    check(&got[0], -0.01, [0.0, 0.0, z2 / 2.0], [0.0, 0.0, 1.0], 1e-12);

    // Pulled apart by 0.005: only a margin above the gap reports it, with positive distance.
    let g2 = boxg([s; 3], [0.0, 0.0, 2.0 * h + 0.005], ry);
    assert!(collide(&g1, &g2, 0.004).is_empty());
    let got = collide(&g1, &g2, 0.01);
    assert_eq!(got.len(), 1);
    check(&got[0], 0.005, [0.0, 0.0, h + 0.0025], [0.0, 0.0, 1.0], 1e-12);

    // The same crossing in a rotated world frame.
    let r = some_rotation();
    let g2 = boxg([s; 3], [0.0, 0.0, z2], ry);
    let got = collide(&rotated(&g1, &r), &rotated(&g2, &r), 0.0);
    assert_eq!(got.len(), 1);
    let n = mul_mat_vec3(&r, &[0.0, 0.0, 1.0]);
    check(&got[0], -0.01, mul_mat_vec3(&r, &[0.0, 0.0, z2 / 2.0]), n, 1e-12);
}

#[test]
fn face_contacts_appear_only_within_the_margin() {
    // Box 2 hovers DEPTH above box 1: four contacts of distance +DEPTH when the margin
    // exceeds the gap, none when it does not.
    let g1 = boxg([1.0, 1.0, 0.5], [0.0; 3], IDENTITY9);
    let g2 = boxg([0.5, 0.25, 0.25], [0.2, 0.1, 0.75 + DEPTH], IDENTITY9);
    assert!(collide(&g1, &g2, 0.005).is_empty());
    let c = collide(&g1, &g2, 0.01);
    assert_eq!(c.len(), 4);
    for c in &c {
        assert_eq!(c.dist, DEPTH);
        assert_eq!(c.pos[2], 0.5 + DEPTH / 2.0);
    }
}

#[test]
fn tilted_box_keeps_only_the_corners_inside_the_margin() {
    // Box 2 pitched about y so its +x bottom edge is 0.001 above box 1 and its -x edge
    // sin(theta) * 1.0 = 0.02 higher. With margin 0.01 only the two low corners count, in
    // winding order (+u,+v) then (+u,-v). Each sits at its (x, y) and halfway between z = 0.5
    // and the corner's height.
    let s: f64 = 0.02;
    let c = (1.0 - s * s).sqrt();
    let ry = [c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c];
    let half = [0.5, 0.25, 0.25];
    let z2 = 0.5 + 0.001 + 0.5 * s + 0.25 * c;
    let p2 = [0.1, -0.2, z2];
    let g1 = boxg([1.0, 1.0, 0.5], [0.0; 3], IDENTITY9);
    let g2 = boxg(half, p2, ry);
    let got = collide(&g1, &g2, 0.01);
    assert_eq!(got.len(), 2);
    for (k, v) in [0.25, -0.25].into_iter().enumerate() {
        let corner = mul_mat_vec3(&ry, &[0.5, v, -0.25]);
        let world = [p2[0] + corner[0], p2[1] + corner[1], p2[2] + corner[2]];
        let dist = world[2] - 0.5;
        assert!((dist - 0.001).abs() < 1e-12);
        check(&got[k], dist, [world[0], world[1], 0.5 + dist / 2.0], [0.0, 0.0, 1.0], 1e-12);
    }
    // A margin past the high corners brings all four back.
    assert_eq!(collide(&g1, &g2, 0.03).len(), 4);
}

#[test]
fn rotated_scene_rotates_the_manifold() {
    let g1 = boxg([1.0, 1.0, 0.5], [0.0; 3], IDENTITY9);
    let g2 = boxg([0.5, 0.25, 0.25], [0.2, 0.1, 0.75 - DEPTH], IDENTITY9);
    let r = some_rotation();
    let base = collide(&g1, &g2, 0.0);
    let got = collide(&rotated(&g1, &r), &rotated(&g2, &r), 0.0);
    assert_eq!(got.len(), base.len());
    let n = mul_mat_vec3(&r, &[0.0, 0.0, 1.0]);
    for (g, b) in got.iter().zip(&base) {
        check(g, b.dist, mul_mat_vec3(&r, &b.pos), n, 1e-12);
    }
}

#[test]
fn separated_boxes_give_nothing() {
    let g1 = boxg([0.5; 3], [0.0; 3], IDENTITY9);
    let g2 = boxg([0.5; 3], [1.2, 0.3, -0.2], IDENTITY9);
    assert!(collide(&g1, &g2, 0.0).is_empty());
    assert!(collide(&g1, &g2, 0.19).is_empty());
    assert_eq!(collide(&g1, &g2, 0.21).len(), 4);
}

#[test]
fn output_buffer_bounds_are_respected() {
    let g1 = boxg([0.5, 0.5, 0.5], [0.0; 3], IDENTITY9);
    let (c, s) = (FRAC_1_SQRT_2, FRAC_1_SQRT_2);
    let g2 = boxg([0.5, 0.5, 0.25], [0.0, 0.0, 0.75 - DEPTH], [c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0]);
    let mut out = [ContactPoint::default(); 3];
    assert_eq!(box_box(&g1, &g2, 0.0, &CollideOptions::default(), &mut out), 3);
}

/// One MuJoCo measurement: the geoms' `geom_xpos`/`geom_xmat` as MuJoCo computed them and
/// its contacts (dist, pos, normal).
struct Probe {
    size1: [f64; 3],
    pos1: [f64; 3],
    mat1: [f64; 9],
    size2: [f64; 3],
    pos2: [f64; 3],
    mat2: [f64; 9],
    contacts: &'static [(f64, [f64; 3], [f64; 3])],
}

fn run_probe(p: &Probe) {
    let g1 = boxg(p.size1, p.pos1, p.mat1);
    let g2 = boxg(p.size2, p.pos2, p.mat2);
    let got = collide(&g1, &g2, 0.0);
    assert_eq!(got.len(), p.contacts.len());
    for (g, &(dist, pos, normal)) in got.iter().zip(p.contacts) {
        check(g, dist, pos, normal, 1e-12);
    }
}

// Probes: MuJoCo 4.0.0 Python bindings, `m = mujoco.MjModel.from_xml_string(xml)`,
// `mujoco.mj_forward(m, d)`, then `d.geom_xpos`, `d.geom_xmat`, and `d.contact[k].dist / .pos
// / .frame[:3]` printed with repr. Each scene is two free bodies; body 1 at the origin.

#[test]
fn mujoco_probe_tilted_face_manifold() {
    // body 1 quat "0.9 0.1 -0.2 0.3" box size "0.3 0.2 0.1"; body 2 pos "0.05 0.1 0.3"
    // quat "0.8 0.3 0.1 -0.2" box size "0.25 0.15 0.2". MuJoCo: 4 contacts.
    run_probe(&Probe {
        size1: [0.3, 0.2, 0.1],
        pos1: [0.0; 3],
        mat1: [
            0.7263157894736842,
            -0.6105263157894737,
            -0.31578947368421056,
            0.5263157894736842,
            0.7894736842105263,
            -0.3157894736842105,
            0.4421052631578947,
            0.06315789473684214,
            0.894736842105263,
        ],
        size2: [0.25, 0.15, 0.2],
        pos2: [0.05, 0.1, 0.3],
        mat2: [
            0.8717948717948717,
            0.4871794871794871,
            0.051282051282051294,
            -0.33333333333333326,
            0.6666666666666665,
            -0.6666666666666665,
            -0.3589743589743589,
            0.5641025641025639,
            0.7435897435897435,
        ],
        contacts: &[
            (
                -0.029792147806004587,
                [-0.11282015662713366, 0.15722273350813526, 0.11078765041935094],
                [-0.3157894736842106, -0.31578947368421056, 0.8947368421052633],
            ),
            (
                -0.19473684210526318,
                [0.15386746217771152, 0.019252077562326896, 0.06404219049648414],
                [-0.3157894736842106, -0.31578947368421056, 0.8947368421052633],
            ),
            (
                -0.17270155586987274,
                [0.23383458646616545, 0.12739894290180898, 0.14274919973200323],
                [-0.3157894736842106, -0.31578947368421056, 0.8947368421052633],
            ),
            (
                -0.03419152276295137,
                [0.06960918780467654, 0.28960918780467654, 0.2194406345534165],
                [-0.3157894736842106, -0.31578947368421056, 0.8947368421052633],
            ),
        ],
    });
}

const N6: [f64; 3] = [0.8690274314214465, -0.4563591022443891, -0.19112219451371582];

#[test]
fn mujoco_probe_six_point_manifold_on_box2_face() {
    // body 1 quat "-0.7 -0.26 0.66 -0.1" box size "0.29 0.14 0.23"; body 2 pos
    // "0.12 -0.31 -0.0" quat "-0.49 0.46 0.18 0.72" box size "0.34 0.37 0.33".
    // MuJoCo: 6 contacts; the normal is box 2's y axis reversed (box 2 owns the face).
    run_probe(&Probe {
        size1: [0.29, 0.14, 0.23],
        pos1: [0.0; 3],
        mat1: [
            0.11164274322169054,
            -0.481658692185008,
            -0.8692185007974482,
            -0.20255183413078157,
            0.8452950558213717,
            -0.49441786283891553,
            0.9728867623604467,
            0.2312599681020734,
            -0.0031897926634769716,
        ],
        size2: [0.34, 0.37, 0.33],
        pos2: [0.12, -0.31, -0.0],
        mat2: [
            -0.09885286783042377,
            0.8690274314214462,
            0.484788029925187,
            -0.538653366583541,
            -0.45635910224438897,
            0.7082294264339151,
            0.8367082294264339,
            -0.19112219451371576,
            0.5132169576059848,
        ],
        contacts: &[
            (-0.12235907678968448, [-0.15327833985004113, -0.26287760894827294, 0.2607198808749978], N6),
            (-0.3244509556604027, [0.0908907802028, -0.027931251605717744, 0.2812502807803669], N6),
            (-0.36524246492947093, [0.12458823937188407, 0.049798437514742444, 0.14215398450883798], N6),
            (-0.3642219406221057, [0.09263389091855725, 0.10834440464046197, -0.1402670516262775], N6),
            (-0.16688689716877714, [-0.16088157840420803, -0.0917248669538536, -0.2990185891451334], N6),
            (-0.12031937540518726, [-0.21714485269110345, -0.14586296329875756, -0.30374935739643993], N6),
        ],
    });
}

#[test]
fn mujoco_probe_edge_edge() {
    // body 1 quat "0.56 0.81 0.14 -0.04" box size "0.13 0.19 0.17"; body 2 pos
    // "0.41 -0.25 0.38" quat "0.39 -0.76 0.05 0.52" box size "0.19 0.2 0.27".
    // MuJoCo: 1 contact whose normal is along no face axis (an edge-edge contact).
    run_probe(&Probe {
        size1: [0.13, 0.19, 0.17],
        pos1: [0.0; 3],
        mat1: [
            0.9572106166111615,
            0.2740942577454839,
            0.09284488848521548,
            0.18367140982944796,
            -0.32748006862448265,
            -0.9268341911393683,
            -0.22363507922091025,
            0.9042284791603592,
            -0.36381067716217574,
        ],
        size2: [0.19, 0.2, 0.27],
        pos2: [0.41, -0.25, 0.38],
        mat2: [
            0.45561539996010375,
            -0.4803510871733494,
            -0.7494514262916419,
            0.3287452623179733,
            -0.6916018352284062,
            0.6431278675443847,
            -0.8272491522042691,
            -0.5393975663275484,
            -0.15719130261320563,
        ],
        contacts: &[(
            -0.00250211998322744,
            [0.1876719824546477, -0.16068286840892915, 0.09409846788537249],
            [0.8869838834585921, -0.08901813464866128, 0.45313945114985055],
        )],
    });
}
