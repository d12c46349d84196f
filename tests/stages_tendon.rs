//! The tendon stage (`mj_tendon`) and the tendon rows of `mj_makeConstraint` and `mj_island`
//! inside MuJoCo's step: MuJoCo's own functions as oracle, call by call and over the
//! trajectory, dense and sparse; one ulp in a Rust output is reported; spatial tendons fall
//! back by name.

mod common;
use common::root;

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Fallback, Stage, StageSet, Tamper};
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
fn spatial_tendons_are_left_to_mujoco_by_name() {
    let xml = r#"<mujoco><worldbody><site name="s0"/><body pos="0 0 -1"><joint axis="0 1 0"/>
      <geom size="0.1"/><site name="s1"/></body></worldbody>
      <tendon><spatial limited="true" range="0 0.9"><site site="s0"/><site site="s1"/></spatial></tendon></mujoco>"#;
    let r = run(xml, None);
    assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
    let i = Stage::Tendon.index();
    assert_eq!((r.compared[i], r.skipped[i]), (0, 500));
    assert_eq!(r.skipped_why[i][Fallback::SpatialTendon.index()], 500);
    // the rows of the spatial tendon's limit are built in Rust from MuJoCo's ten_J
    assert_eq!(r.compared[Stage::MakeConstraint.index()], 500);
}
