//! `mj_transmission` in Rust beyond joints: tendon (fixed and spatial), site (with and without a
//! reference site, translational and rotational gears), slider-crank and body (adhesion)
//! transmissions match
//! MuJoCo's function call by call, bit for bit, with the stack high-water marks; one ulp in the
//! stage's output is reported; corpus scenes with such actuators run without fallback.

use std::path::Path;

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::Model;
use specula::sim::Start;

/// A free base carrying a chain with sites, a slider-crank on a separate hinge and slide, fixed
/// and spatial tendons, and an actuator of every transmission kind the stage covers.
const SCENE: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="base" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02"/>
      <site name="base_frame" euler="10 -20 30"/>
      <site name="anchor" pos="0.1 0.05 0"/>
      <body pos="0.2 0 0"><joint name="h1" type="hinge" axis="0 1 1"/><geom type="capsule" size="0.02 0.1" euler="0 90 0"/>
        <body pos="0.2 0 0"><joint name="b2" type="ball"/><geom type="sphere" size="0.04"/>
          <site name="mid" pos="0.05 0.02 0"/>
          <body pos="0 0 -0.1"><joint name="s3" type="slide" axis="1 0 0"/><geom type="box" size="0.03 0.03 0.03"/>
            <site name="tip" pos="0.03 0 -0.02" euler="40 0 -15"/>
          </body>
        </body>
      </body>
    </body>
    <body name="crank" pos="1 0 0.5"><joint name="c" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/><site name="crank_pin" pos="0.1 0 0"/>
    </body>
    <body name="slider" pos="1.35 0 0.5"><joint name="sl" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.02 0.02 0.02"/><site name="slider_site" euler="0 -90 0"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fixed"><joint joint="h1" coef="0.5"/><joint joint="s3" coef="-1.5"/><joint joint="c" coef="0.2"/></fixed>
    <spatial name="spatial"><site site="anchor"/><site site="mid"/><site site="tip"/></spatial>
  </tendon>
  <actuator>
    <motor tendon="fixed" gear="2"/>
    <position tendon="spatial" kp="3" gear="-0.7"/>
    <motor site="tip" gear="0.3 -0.2 0.5 0.1 0.2 -0.3"/>
    <motor site="tip" refsite="base_frame" gear="1 0.5 -0.25 0 0 0"/>
    <motor site="mid" refsite="base_frame" gear="0 0 0 0.2 -0.4 0.7"/>
    <motor site="tip" refsite="anchor" gear="0.5 0 1 -0.3 0 0.2"/>
    <general cranksite="crank_pin" slidersite="slider_site" cranklength="0.3" gear="1.5"/>
    <motor jointinparent="b2" gear="0.5 1 -0.5"/>
  </actuator>
  <keyframe><key name="moving" qvel="0.3 -0.2 0.1 1 -2 0.5 3 1 -2 2 -1 4 -3"/></keyframe>
</mujoco>"#;

/// The transmission stage alone, `steps` steps from the keyframe, with an optional tamper.
fn run(m: &Model, steps: usize, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let stages = StageSet::NONE.with(Stage::Transmission);
    diff_stages(m, &StageDiffOptions { steps, start: Start::Key("moving".into()), stages, tamper }).unwrap()
}

#[test]
fn every_transmission_kind_matches_mujoco_bit_for_bit() {
    let m = Model::from_xml_str(SCENE).unwrap();
    let r = run(&m, 300, None);
    let i = Stage::Transmission.index();
    assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
    assert_eq!((r.compared[i], r.skipped[i]), (300, 0), "{r:?}");
}

#[test]
fn one_ulp_in_the_transmission_output_is_reported() {
    let m = Model::from_xml_str(SCENE).unwrap();
    let first = run(&m, 5, Some(Tamper::Output(Stage::Transmission))).first.expect("a tampered stage must differ");
    assert_eq!((first.stage, first.step), (Stage::Transmission, 1));
    assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
}

#[test]
fn corpus_scenes_with_tendon_site_and_slider_crank_actuators_run_in_rust() {
    let corpus = Path::new("../shared/mjcf/corpus");
    if !corpus.is_dir() {
        eprintln!("skipped: no MuJoCo corpus at {}", corpus.display());
        return;
    }
    for f in [
        "model/car/car.xml",
        "model/adhesion/active_adhesion.xml",
        "model/slider_crank/slider_crank.xml",
        "test/engine/testdata/actuation/refsite_free.xml",
        "test/testdata/model.xml",
        "mjx/mujoco/mjx/test_data/pendula.xml",
    ] {
        let m = Model::from_xml_path(corpus.join(f)).unwrap();
        let stages = StageSet::NONE.with(Stage::Transmission);
        let r = diff_stages(&m, &StageDiffOptions { steps: 50, start: Start::Qpos0, stages, tamper: None }).unwrap();
        let i = Stage::Transmission.index();
        assert!(r.matches(), "{f}: {:?}", r.first);
        assert!(r.compared[i] >= 50 && r.skipped[i] == 0, "{f}: {r:?}");
    }
}

/// Three bodies held by adhesion on a floor, contacts of dimension 1, 3 and 6 (pyramids of 0, 4
/// and 10 rows; a contact takes the larger condim of its two geoms), some in the margin's gap,
/// and a fourth adhesion on a body nothing touches.
const ADHESION: &str = r#"<mujoco>
  <option timestep="0.004"/>
  <worldbody>
    <geom type="plane" size="2 2 .1" margin="0.02" gap="0.015" condim="1"/>
    <body name="a" pos="0 0 0.06"><freejoint/><geom type="box" size="0.05 0.05 0.05" condim="1"/></body>
    <body name="b" pos="0.3 0 0.06"><freejoint/><geom type="sphere" size="0.05" condim="3"/></body>
    <body name="c" pos="-0.3 0 0.07"><freejoint/><geom type="capsule" size="0.04 0.05" euler="0 90 10" condim="6"/></body>
    <body name="d" pos="0 1 1"/>
  </worldbody>
  <actuator>
    <adhesion body="a" gain="2" ctrlrange="0 1"/>
    <adhesion body="d" gain="1" ctrlrange="0 1"/>
    <adhesion body="b" gain="3" ctrlrange="0 1"/>
    <adhesion body="c" gain="1" ctrlrange="0 1"/>
  </actuator>
  <keyframe><key name="moving" qvel="0 0 0.5 1 0 0  0.2 0 0.3 0 2 0  0 0 0.2 0 0 3"/></keyframe>
</mujoco>"#;

#[test]
fn body_transmissions_match_mujoco_bit_for_bit_dense_sparse_pyramidal_and_elliptic() {
    for opt in ["", r#"cone="elliptic""#, r#"jacobian="sparse""#, r#"jacobian="sparse" cone="elliptic""#] {
        let xml = ADHESION.replacen("<option ", &format!("<option {opt} "), 1);
        let m = Model::from_xml_str(&xml).unwrap();
        let r = run(&m, 300, None);
        let i = Stage::Transmission.index();
        assert!(r.matches(), "{opt}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[i], r.skipped[i]), (300, 0), "{opt}: {r:?}");
    }
}
