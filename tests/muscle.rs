//! Muscles against MuJoCo C 4.0.0: the muscle curves and activation dynamics against the
//! library's exported functions bit for bit; `mj_fwdActuation` (and the Euler step's activation
//! advance) with muscle actuators in Rust inside MuJoCo's step; the compiler's muscle parameters
//! and its length ranges found by simulation (`specula check`); and the native route stepping
//! muscles like `mj_step`. Each comparison is shown to fail on a one-ulp change.

use std::path::PathBuf;

use specula::check::{check_file, check_file_tampered, CheckOutcome};
use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::Model;
use specula::native_diff::{diff_native, NativeDiffOptions};
use specula::sim::Start;
use specula_engine::dynamics::muscle::{muscle_bias, muscle_dynamics, muscle_gain};
use specula_native::Native;

/// An arm of two hinges and a slide, all limited, with muscles of every parameter source:
/// the shortcut with and without a class, a given or computed length range, `force` or
/// `scale / acc0`, `tausmooth`, a general muscle with `actearly`, and one on a fixed tendon.
const ARM: &str = r#"<mujoco model="muscle arm">
  <compiler><lengthrange accel="15" timeconst="0.8"/></compiler>
  <option timestep="0.005"/>
  <default><default class="m"><muscle force="12" lmin="0.4" range="0.7 1.1"/></default></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" range="-90 90"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/>
      <body name="fore" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0" range="0 140"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="wrist" type="slide" axis="1 0 0" range="-0.1 0.2"/>
          <geom type="sphere" size="0.04" mass="0.2"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <muscle name="m_shoulder" joint="shoulder"/>
    <muscle name="m_elbow" class="m" joint="elbow" force="-3" scale="50" tausmooth="0.05"/>
    <muscle name="m_wrist" joint="wrist" tausmooth="0.2" timeconst="0.02 0.06" range="0.6 1.2" scale="100"/>
    <general name="m_early" joint="elbow" actearly="true" dyntype="muscle" gaintype="muscle" biastype="muscle"
             dynprm="0.01 0.04" gainprm="0.75 1.05 20 200 0.3 1.9 2 1.3 1.2"
             biasprm="0.75 1.05 20 200 0.3 1.9 2 1.3 1.2" lengthrange="0 2.4" ctrllimited="true" ctrlrange="0 1"/>
    <muscle name="m_given" class="m" joint="shoulder" gear="2" lengthrange="-1.5 1.5"/>
  </actuator>
  <keyframe>
    <key name="go" qpos="0.3 0.6 0.05" qvel="1 -2 0.5" ctrl="1 0.2 0.6 0.9 0.4" act="0.1 0.8 0.3 0 0.9"/>
  </keyframe>
</mujoco>"#;

/// [`ARM`] with a muscle on a fixed tendon (specula's compiler does not compile tendon
/// transmissions yet: for the stages inside MuJoCo's step only).
fn arm_with_tendon() -> String {
    ARM.replace(
        "  <actuator>",
        r#"  <tendon>
    <fixed name="t1"><joint joint="shoulder" coef="0.5"/><joint joint="elbow" coef="-0.3"/></fixed>
  </tendon>
  <actuator>"#,
    )
    .replace(
        r#"<muscle name="m_shoulder" joint="shoulder"/>"#,
        r#"<muscle name="m_shoulder" tendon="t1" lengthrange="-0.8 0.9"/>"#,
    )
}

/// Writes `xml` to a file of its own for `check`.
fn file(name: &str, xml: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("specula-muscle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, xml).unwrap();
    p
}

/// A deterministic stream of doubles: mostly in the muscles' working ranges, sometimes an edge
/// (0, 1, the curve breakpoints) or a non-finite value.
struct Values(u64);

impl Values {
    fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let u = (self.0 >> 11) as f64 / (1u64 << 53) as f64;
        match self.0 >> 58 {
            0 => f64::NAN,
            1 => 0.0,
            2 => 1.0,
            3 => -1.0,
            4 => 0.5,
            _ => lo + (hi - lo) * u,
        }
    }
}

/// The bits of `x`, every NaN as one: which operand's NaN a product keeps (its sign) is the
/// compiler's choice of operand order, not the arithmetic's.
fn same(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

#[test]
fn muscle_curves_and_dynamics_match_the_library_bit_for_bit() {
    let mut v = Values(7);
    for _ in 0..200_000 {
        let prm = [
            v.next(0.3, 1.0),
            v.next(0.9, 1.6),
            v.next(-2.0, 50.0),
            v.next(0.0, 300.0),
            v.next(0.2, 0.99),
            v.next(1.01, 2.5),
            v.next(0.1, 3.0),
            v.next(0.1, 2.0),
            v.next(1.0, 2.0),
        ];
        let lr = [v.next(-2.0, 0.5), v.next(0.0, 3.0)];
        let (len, vel, acc0) = (v.next(-3.0, 4.0), v.next(-10.0, 10.0), v.next(-1.0, 30.0));
        // SAFETY: MuJoCo's pure functions on arrays of the sizes they read.
        let (g, b) = unsafe {
            (
                mujoco_sys::mju_muscleGain(len, vel, lr.as_ptr(), acc0, prm.as_ptr()),
                mujoco_sys::mju_muscleBias(len, lr.as_ptr(), acc0, prm.as_ptr()),
            )
        };
        assert_eq!(same(muscle_gain(len, vel, &lr, acc0, &prm)), same(g), "gain {len} {vel} {lr:?} {prm:?}");
        assert_eq!(same(muscle_bias(len, &lr, acc0, &prm)), same(b), "bias {len} {lr:?} {prm:?}");
        let dynprm = [v.next(0.001, 0.1), v.next(0.001, 0.2), if v.0 & 1 == 0 { 0.0 } else { v.next(0.0, 0.5) }];
        let (ctrl, act) = (v.next(-0.5, 1.5), v.next(-0.5, 1.5));
        // SAFETY: as above.
        let d = unsafe { mujoco_sys::mju_muscleDynamics(ctrl, act, dynprm.as_ptr()) };
        assert_eq!(same(muscle_dynamics(ctrl, act, &dynprm)), same(d), "dyn {ctrl} {act} {dynprm:?}");
    }
}

fn stage_diff(xml: &str, stages: StageSet, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let m = Model::from_xml_str(xml).unwrap();
    let opts = StageDiffOptions { steps: 300, start: Start::Key("go".into()), stages, tamper };
    diff_stages(&m, &opts).unwrap()
}

#[test]
fn muscle_actuation_runs_in_rust_inside_mujocos_step() {
    let stages = StageSet::NONE.with(Stage::FwdActuation).with(Stage::Euler);
    for xml in [ARM.to_string(), arm_with_tendon()] {
        let r = stage_diff(&xml, stages, None);
        assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
        let i = Stage::FwdActuation.index();
        assert_eq!((r.compared[i], r.skipped[i]), (300, 0));
    }
    // the joint-only arm's activations advance in the Rust Euler step too
    let r = stage_diff(ARM, stages, None);
    assert_eq!(r.compared[Stage::Euler.index()], 300);
    let first = stage_diff(ARM, stages, Some(Tamper::Output(Stage::FwdActuation))).first.expect("a tamper is seen");
    assert_eq!(first.stage, Stage::FwdActuation);
}

/// The compared outcome of `check` on `xml`, with `tamper` applied to specula's model.
fn check(name: &str, xml: &str, tamper: impl FnOnce(&mut specula_model::Model)) -> specula::check::Comparison {
    match check_file_tampered(&file(name, xml), tamper) {
        CheckOutcome::Compared(cmp) => cmp,
        other => panic!("{name}: both compile: {other:?}"),
    }
}

/// MuJoCo's `actuator_lengthrange` and `actuator_acc0` for `xml`, and specula's (compiler,
/// length-range simulation, the native pass at `qpos0`): asserted equal bit for bit (`check`
/// allows a relative 1e-9).
fn assert_ranges_and_acc0_exact(xml: &str) {
    let c = Model::from_xml_str(xml).unwrap();
    let cm = c.mj();
    let nout = cm.nout as usize;
    // SAFETY: mjModel arrays of their documented lengths, read only.
    let (c_range, c_acc0) = unsafe {
        (
            std::slice::from_raw_parts(cm.actuator_lengthrange, 2 * nout).to_vec(),
            std::slice::from_raw_parts(cm.actuator_acc0, nout).to_vec(),
        )
    };
    let mut m = specula_model::load_str(xml, std::path::Path::new("."), "arm.xml").unwrap();
    specula_native::lengthrange::set_length_ranges(&mut m).unwrap();
    let ours: Vec<f64> = m.actuator_lengthrange.iter().flatten().copied().collect();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&ours), bits(&c_range), "lengthrange {ours:?} vs {c_range:?}");
    let nm = specula_native::NativeModel::new(m);
    assert_eq!(bits(&nm.consts.actuator_acc0), bits(&c_acc0), "acc0 {:?} vs {c_acc0:?}", nm.consts.actuator_acc0);
}

#[test]
fn muscle_parameters_and_simulated_length_ranges_match_the_compiler() {
    assert_ranges_and_acc0_exact(ARM);
    let cmp = check("arm.xml", ARM, |_| {});
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
    assert!(cmp.notes.is_empty(), "{:?}", cmp.notes);
    // three ranges were simulated: a change beyond check's 1e-9 in one of them is a mismatch
    // by name (the exact comparison above sees one ulp)
    let cmp = check("arm_tampered.xml", ARM, |m| m.actuator_lengthrange[2][1] *= 1.0 + 1e-8);
    assert!(cmp.mismatches.iter().any(|m| m.field == "actuator_lengthrange"), "{:?}", cmp.mismatches);
    // uselimit takes the joint ranges; mode "all" and useexisting="false" also redo the given
    // ones and the motor's, under RK4 (whose simulation steps with Euler) and maxforce
    let variants = [
        ARM.replace("<lengthrange ", r#"<lengthrange uselimit="true" "#),
        ARM.replace("<lengthrange ", r#"<lengthrange mode="all" useexisting="false" maxforce="2" "#)
            .replace(r#"<option timestep="0.005"/>"#, r#"<option timestep="0.005" integrator="RK4"/>"#)
            .replace("</actuator>", r#"<motor joint="wrist"/></actuator>"#)
            .replace(r#"ctrl="1 0.2 0.6 0.9 0.4""#, r#"ctrl="1 0.2 0.6 0.9 0.4 0""#),
    ];
    for (k, xml) in variants.iter().enumerate() {
        let cmp = check(&format!("variant{k}.xml"), xml, |_| {});
        assert!(cmp.matched(), "variant {k}: {:?}", cmp.mismatches);
        assert_ranges_and_acc0_exact(xml);
    }
}

#[test]
fn a_length_range_that_does_not_converge_is_refused_by_both_compilers() {
    // an unlimited slide pulled at constant acceleration never settles
    let xml = ARM.replace(r#"range="-0.1 0.2""#, "");
    match check_file(&file("diverging.xml", &xml)) {
        CheckOutcome::BothRejected { c, rust } => {
            // the same message, lines and %g numbers included
            assert!(rust.starts_with("Lengthrange computation did not converge in actuator 2:"), "{rust}");
            assert!(c.contains(&rust), "{c}\n{rust}");
        }
        other => panic!("both reject: {other:?}"),
    }
}

#[test]
fn muscles_step_on_the_native_route_like_mj_step() {
    let c = Model::from_xml_str(ARM).unwrap();
    let mut native = Native::load_str(ARM, std::path::Path::new("."), "arm.xml").unwrap();
    let opts = |tamper| NativeDiffOptions { steps: 300, start: Start::Key("go".into()), tamper };
    let r = diff_native(&c, &mut native, &opts(None)).unwrap();
    assert!(r.matches(), "{:?} {:?}", r.first, r.stopped);
    let mut native = Native::load_str(ARM, std::path::Path::new("."), "arm.xml").unwrap();
    let r = diff_native(&c, &mut native, &opts(Some(100))).unwrap();
    assert_eq!(r.first.expect("a tamper is seen").step, 100);
    // under an implicit integrator the muscle gain's velocity derivative is missing: refused
    let xml = ARM.replace(r#"<option timestep="0.005"/>"#, r#"<option timestep="0.005" integrator="implicitfast"/>"#);
    let e = Native::load_str(&xml, std::path::Path::new("."), "arm.xml").unwrap_err();
    assert!(e.to_string().contains("velocity derivative"), "{e}");
}
