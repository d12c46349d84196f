//! Capsule-capsule on parallel and near-parallel axes against MuJoCo 4.0.0's own
//! `mjc_CapsuleCapsule` (called through FFI on the same geom poses).
//!
//! MuJoCo 3.16 rewrote this collider's parallel handling, so random poses (tests/narrowphase_oracle.rs)
//! almost never reach the code that differs. Here every pose has the second capsule's axis
//! within a small angle of the first's (or of its reverse): exactly the same orientation, a
//! turn of 1e-16 to 1e-1 radians (log-uniform, so both sides of the 1e-4 parallel switch are
//! covered), with the second capsule slid along the first's axis so the segments overlap, meet
//! end to end (as in a chain), or miss each other, and offset sideways by about the radius sum.
//! Margins are zero, small, or large. Contact count and order must match, and every contact's
//! dist, pos and full frame must agree within 1e-12.

use specula::mj::collision::library_pair_contacts;
use specula::mj::{Data, Model};
use specula_engine::narrowphase::{primitive, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

mod common;
use common::Rng;

/// Extra draws this test needs.
trait Unit {
    fn unit(&mut self) -> [f64; 3];
}

impl Unit for Rng {
    fn unit(&mut self) -> [f64; 3] {
        loop {
            let v = [self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0)];
            let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if n > 0.1 && n <= 1.0 {
                return v.map(|x| x / n);
            }
        }
    }
}

/// Quaternion (w, x, y, z) of a turn by `angle` about the unit `axis`.
fn axis_angle(axis: [f64; 3], angle: f64) -> [f64; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [c, axis[0] * s, axis[1] * s, axis[2] * s]
}

/// Hamilton product `a b`.
fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// Third column (local z axis) of the rotation of unit quaternion `q`.
fn zaxis(q: [f64; 4]) -> [f64; 3] {
    let [w, x, y, z] = q;
    [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)]
}

/// Largest absolute difference between two contact lists of equal length.
fn max_err(a: &[ContactPoint], b: &[ContactPoint]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |e, (x, y)| {
        let d = (x.dist - y.dist).abs();
        let p = x.pos.iter().zip(&y.pos).map(|(u, v)| (u - v).abs()).fold(d, f64::max);
        x.frame.iter().zip(&y.frame).map(|(u, v)| (u - v).abs()).fold(e.max(p), f64::max)
    })
}

/// Per-scene tallies: poses, agreeing poses, poses where MuJoCo gave 2 contacts / any contact.
#[derive(Default)]
struct Tally {
    poses: usize,
    agree: usize,
    exact: usize,
    two: usize,
    some: usize,
    worst: f64,
    first_bad: String,
}

fn run(sizes: ([f64; 2], [f64; 2]), seed: u64, poses: usize, tally: &mut Tally) {
    let ((r1, h1), (r2, h2)) = (sizes.0.into(), sizes.1.into());
    let xml = format!(
        r#"<mujoco><worldbody>
        <body><freejoint/><geom type="capsule" size="{r1} {h1}"/></body>
        <body><freejoint/><geom type="capsule" size="{r2} {h2}"/></body>
        </worldbody></mujoco>"#
    );
    let model = Model::from_xml_str(&xml).unwrap();
    let mut data = Data::new(&model).unwrap();
    let mut rng = Rng(seed);
    let opt = CollideOptions::default();
    for i in 0..poses {
        let q1 = axis_angle(rng.unit(), rng.range(0.0, std::f64::consts::PI));
        let z1 = zaxis(q1);
        // Second orientation: equal, or turned slightly, possibly after a half turn about an
        // axis perpendicular to z1 (antiparallel).
        let mut q2 = q1;
        if rng.next() < 0.3 {
            let u = rng.unit();
            let perp = [u[1] * z1[2] - u[2] * z1[1], u[2] * z1[0] - u[0] * z1[2], u[0] * z1[1] - u[1] * z1[0]];
            let n = (perp[0] * perp[0] + perp[1] * perp[1] + perp[2] * perp[2]).sqrt();
            q2 = qmul(axis_angle(perp.map(|x| x / n), std::f64::consts::PI), q2);
        }
        let angle = if i % 4 == 0 { 0.0 } else { 10f64.powf(rng.range(-16.0, -1.0)) };
        if angle > 0.0 {
            q2 = qmul(axis_angle(rng.unit(), angle), q2);
        }
        // Ends meant to meet are placed within what the turn can tilt them apart, so the
        // projections of the two near ends onto the other segment land on either side.
        let jitter = 1e-12 + angle * (h1 + h2 + r1 + r2);
        // Placement: slide along z1, then sideways by about the radius sum.
        let along = match rng.next() {
            x if x < 0.25 => (h1 + h2) * if rng.next() < 0.5 { 1.0 } else { -1.0 } + rng.range(-jitter, jitter),
            x if x < 0.4 => (h1 - h2) * if rng.next() < 0.5 { 1.0 } else { -1.0 } + rng.range(-jitter, jitter),
            _ => rng.range(-(h1 + h2 + 0.1), h1 + h2 + 0.1),
        };
        let side = rng.unit();
        let k = side[0] * z1[0] + side[1] * z1[1] + side[2] * z1[2];
        let side = [side[0] - k * z1[0], side[1] - k * z1[1], side[2] - k * z1[2]];
        let sn = (side[0] * side[0] + side[1] * side[1] + side[2] * side[2]).sqrt();
        let gap = if rng.next() < 0.1 { rng.range(0.0, 1e-9) } else { (r1 + r2) * rng.range(0.5, 1.3) };
        let base = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
        let pos2: [f64; 3] = std::array::from_fn(|j| base[j] + along * z1[j] + gap * side[j] / sn);
        {
            let q = data.qpos_mut();
            q[..3].copy_from_slice(&base);
            q[3..7].copy_from_slice(&q1);
            q[7..10].copy_from_slice(&pos2);
            q[10..14].copy_from_slice(&q2);
        }
        data.kinematics().unwrap();
        let margin = match i % 3 {
            0 => 0.0,
            1 => rng.range(0.0, 0.05),
            _ => rng.range(0.0, 0.5),
        };

        let mut mj = Vec::new();
        assert!(data.with_mj(|m, d| library_pair_contacts(m, d, 0, 1, margin, &mut mj)).unwrap());
        let (xp, xm) = (data.geom_xpos().to_vec(), data.geom_xmat().to_vec());
        let geom = |g: usize, size: [f64; 3]| Geom {
            ty: GeomType::Capsule,
            size,
            pos: [xp[3 * g], xp[3 * g + 1], xp[3 * g + 2]],
            mat: std::array::from_fn(|k| xm[9 * g + k]),
            rbound: size[0] + size[1],
            hull: None,
            hfield: None,
        };
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        let n = primitive::capsule_capsule(&geom(0, [r1, h1, 0.0]), &geom(1, [r2, h2, 0.0]), margin, &opt, &mut buf);

        tally.poses += 1;
        tally.two += usize::from(mj.len() == 2);
        tally.some += usize::from(!mj.is_empty());
        let err = if n == mj.len() { max_err(&mj, &buf[..n]) } else { f64::INFINITY };
        tally.worst = tally.worst.max(err);
        if err <= 1e-12 {
            tally.agree += 1;
            tally.exact += usize::from(err == 0.0);
        } else if tally.first_bad.is_empty() {
            tally.first_bad = format!(
                "sizes {sizes:?} pose {i} margin {margin}: MuJoCo {} {:?}, specula {n} {:?}",
                mj.len(),
                mj,
                &buf[..n]
            );
        }
    }
}

#[test]
fn near_parallel_capsules_agree_with_mujoco() {
    let scenes = [
        ([0.05, 0.3], [0.05, 0.3]),
        ([0.1, 0.3], [0.15, 0.2]),
        ([0.02, 1.0], [0.08, 0.05]),
        ([0.3, 0.05], [0.01, 2.0]),
    ];
    let mut tally = Tally::default();
    for (k, &sizes) in scenes.iter().enumerate() {
        run(sizes, 0x51ed_2701_8a3c_44e1 ^ (k as u64 + 1), 5000, &mut tally);
    }
    println!(
        "{} poses: {} agree within 1e-12 ({} bit-exact), worst {:.3e}; MuJoCo gave contacts on {}, two contacts on {}",
        tally.poses, tally.agree, tally.exact, tally.worst, tally.some, tally.two
    );
    // The poses must actually reach both branches with contacts, or the comparison says little.
    assert!(tally.two > tally.poses / 10, "too few two-contact (parallel) poses: {}", tally.two);
    assert!(tally.some - tally.two > tally.poses / 20, "too few one-contact poses: {}", tally.some - tally.two);
    assert_eq!(tally.agree, tally.poses, "first disagreement: {}", tally.first_bad);
}
