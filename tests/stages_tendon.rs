//! The tendon stage (`mj_tendon`) and the tendon rows of `mj_makeConstraint` and `mj_island`
//! inside MuJoCo's step: MuJoCo's own functions as oracle, call by call and over the
//! trajectory, dense and sparse, fixed and spatial (sites, sphere and cylinder wrapping with
//! and without side sites, the inside wrap, pulleys); one ulp in a Rust output is reported;
//! `mju_wrap` against the library's on random segments.

mod common;
use common::{root, Rng};

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::Model;
use specula::sim::Start;

fn case(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/tendon_cases").join(name)).expect("case file")
}

fn tendon_stages() -> StageSet {
    StageSet::NONE.with(Stage::Tendon).with(Stage::MakeConstraint).with(Stage::Island)
}

fn run(xml: &str, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let m = Model::from_xml_str(xml).unwrap();
    let opts = StageDiffOptions { steps: 500, start: Start::Qpos0, stages: tendon_stages(), tamper };
    diff_stages(&m, &opts).unwrap()
}

#[test]
fn fixed_tendon_stages_match_mujoco_dense_and_sparse() {
    for name in ["limits.xml", "fixed.xml"] {
        for jacobian in ["dense", "sparse"] {
            let xml = case(name);
            let xml = if xml.contains("<option ") {
                xml.replacen("<option ", &format!("<option jacobian=\"{jacobian}\" "), 1)
            } else {
                xml.replacen("<worldbody>", &format!("<option jacobian=\"{jacobian}\"/>\n  <worldbody>"), 1)
            };
            let r = run(&xml, None);
            assert!(r.matches(), "{name} {jacobian}: {:?} {:?}", r.first, r.trajectory);
            for s in [Stage::Tendon, Stage::MakeConstraint, Stage::Island] {
                let i = s.index();
                assert_eq!((r.compared[i], r.skipped[i]), (500, 0), "{name} {jacobian} {}", s.name());
            }
        }
    }
}

#[test]
fn one_ulp_in_a_tendon_output_is_reported() {
    let xml = case("limits.xml");
    for stage in [Stage::Tendon, Stage::MakeConstraint] {
        let first = run(&xml, Some(Tamper::Output(stage))).first.expect("a tampered stage must differ");
        assert_eq!(first.stage, stage);
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1, "{:?}", first);
    }
    assert_eq!(run(&xml, Some(Tamper::Output(Stage::Tendon))).first.unwrap().field, "ten_length");
}

#[test]
fn spatial_tendon_stages_match_mujoco_dense_and_sparse() {
    for jacobian in ["dense", "sparse"] {
        let xml = case("spatial.xml").replacen("<option ", &format!("<option jacobian=\"{jacobian}\" "), 1);
        let r = run(&xml, None);
        assert!(r.matches(), "{jacobian}: {:?} {:?}", r.first, r.trajectory);
        for s in [Stage::Tendon, Stage::MakeConstraint, Stage::Island] {
            let i = s.index();
            assert_eq!((r.compared[i], r.skipped[i]), (500, 0), "{jacobian} {}", s.name());
        }
    }
    // one ulp in a wrap point or in the Jacobian of a wrapped tendon is seen
    let first = run(&case("spatial.xml"), Some(Tamper::Output(Stage::Tendon))).first.expect("tampered");
    assert_eq!((first.stage, first.rust.to_bits()), (Stage::Tendon, first.c.to_bits() + 1), "{first:?}");
}

unsafe extern "C" {
    /// MuJoCo's `mju_wrap` (exported by libmujoco, not in the bindings).
    fn mju_wrap(
        wpnt: *mut f64,
        x0: *const f64,
        x1: *const f64,
        xpos: *const f64,
        xmat: *const f64,
        radius: f64,
        kind: i32,
        side: *const f64,
    ) -> f64;
}

/// A point at `lo..hi` from `c` in a random direction, its height jittered.
fn around(rng: &mut Rng, c: &[f64; 3], lo: f64, hi: f64) -> [f64; 3] {
    let (t, z) = (rng.range(0.0, std::f64::consts::TAU), rng.range(-1.0, 1.0));
    let (r, d) = ((1.0 - z * z).sqrt(), rng.range(lo, hi));
    [c[0] + d * r * t.cos(), c[1] + d * r * t.sin(), c[2] + d * z + rng.range(-0.3, 0.3)]
}

#[test]
fn mju_wrap_matches_the_library_on_random_segments() {
    use specula_engine::dynamics::wrap::{wrap, WrapGeom, WRAP_CYLINDER, WRAP_SPHERE};
    use specula_engine::math::{normalize4, quat2mat};
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // outcomes seen: no wrap, tangent-arc-tangent wrap, inside wrap (length 0)
    let mut seen = [0usize; 3];
    for n in 0..40_000 {
        let kind = if n % 2 == 0 { WRAP_SPHERE } else { WRAP_CYLINDER };
        let radius = rng.range(0.05, 1.0);
        let xpos = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
        // a rotation from a random unit quaternion
        let mut q = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
        normalize4(&mut q);
        let xmat = quat2mat(&q);
        let x0 = around(&mut rng, &xpos, 0.8 * radius, 4.0 * radius);
        let x1 = around(&mut rng, &xpos, 0.8 * radius, 4.0 * radius);
        let side = match n % 3 {
            0 => None,
            1 => Some(around(&mut rng, &xpos, 1.1 * radius, 3.0 * radius)),
            _ => Some(around(&mut rng, &xpos, 0.0, 0.9 * radius)),
        };
        let (mut c, mut r) = ([7.0; 6], [7.0; 6]);
        let sp = side.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        // SAFETY: arrays of the lengths mju_wrap reads and writes.
        let lc = unsafe {
            mju_wrap(c.as_mut_ptr(), x0.as_ptr(), x1.as_ptr(), xpos.as_ptr(), xmat.as_ptr(), radius, kind, sp)
        };
        let g = WrapGeom { xpos: &xpos, xmat: &xmat, radius, kind };
        let lr = wrap(&mut r, &x0, &x1, &g, side.as_ref());
        assert_eq!(lr.to_bits(), lc.to_bits(), "case {n}: length {lr} (MuJoCo {lc})");
        assert_eq!(r.map(f64::to_bits), c.map(f64::to_bits), "case {n}: points {r:?} (MuJoCo {c:?})");
        seen[if lc < 0.0 {
            0
        } else if lc > 0.0 {
            1
        } else {
            2
        }] += 1;
    }
    assert!(seen.iter().all(|&k| k > 1000), "outcomes {seen:?}");
}
