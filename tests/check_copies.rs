//! Tendons and actuators copied by `replicate` or brought by `attach`: specula's compiler fills
//! their arrays as MuJoCo 4.0.0 does (copies in MuJoCo's order, references and names suffixed
//! or prefixed, an attached model's own default classes), `specula check` matches field by
//! field, a copy pointing at the wrong replica is reported, and the native route steps them
//! beside `mj_step` bit for bit.

mod common;
mod native_steps;
use common::root;
use native_steps::*;

use specula::check::{check_file, check_file_tampered, CheckOutcome};
use specula::mj::Model as CModel;
use specula_native::Native;

fn case(name: &str) -> std::path::PathBuf {
    root().join("tests/copy_cases").join(name)
}

#[test]
fn replicated_and_attached_tendons_and_actuators_match_mujoco_field_by_field() {
    for name in ["replicate.xml", "attach.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&case(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
        let left_out = cmp.notes.iter().filter(|n| n.contains("not compared"));
        assert_eq!(left_out.count(), 0, "{name}: {:?}", cmp.notes);
    }
    // the copies themselves, in MuJoCo's order (an actuator on a copied tendon is copied with it)
    let m = specula_model::load_file(&case("replicate.xml")).unwrap();
    assert_eq!(m.actuator_names, ["push", "servo0", "pull0", "servo1", "pull1", "servo2", "pull2"]);
    assert_eq!(m.tendon_names, ["couple0", "rope0", "couple1", "rope1", "couple2", "rope2"]);
    let m = specula_model::load_file(&case("attach.xml")).unwrap();
    assert_eq!(m.actuator_names, ["drive", "a_hip", "a_knee", "a_ham", "b_hip", "b_knee", "b_ham"]);
}

/// A change to the Rust model, by the field it touches.
type Tamper = (&'static str, fn(&mut specula_model::Model));

#[test]
fn a_copy_on_the_wrong_replica_or_without_its_class_is_reported_by_name() {
    let tampers: [(&str, Tamper); 4] = [
        // servo1 on the first replica's hinge
        ("replicate.xml", ("actuator_trnid", |m| m.actuator_trnid[3][0] = m.actuator_trnid[1][0])),
        // rope2 from the second replica's anchor
        ("replicate.xml", ("wrap_objid", |m| m.wrap_objid[10] = m.wrap_objid[6])),
        // b_hip without the attached model's motor default (ctrlrange -2 2)
        ("attach.xml", ("actuator_ctrlrange", |m| m.actuator_ctrlrange[4] = [0.0; 2])),
        // a_ham without its class's stiffness
        ("attach.xml", ("tendon_stiffness", |m| m.tendon_stiffness[0] = 0.0)),
    ];
    for (name, (field, tamper)) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case(name), tamper) else { panic!("both compile") };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{name} {field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn copied_tendons_and_actuators_step_like_mj_step_bit_for_bit() {
    for name in ["replicate.xml", "attach.xml"] {
        let c = CModel::from_xml_path(case(name)).expect("MuJoCo compiles it");
        let native = Native::load_file(&case(name)).expect("inside the native subset");
        let o = step_both_full(native, &c, 500);
        assert_eq!((o.refused, o.diff), (None, None), "{name}: first difference");
    }
    // one ulp of a copied servo's gain is seen
    let c = CModel::from_xml_path(case("replicate.xml")).unwrap();
    let mut rust = specula_model::load_file(&case("replicate.xml")).unwrap();
    ulp(&mut rust.actuator_biasprm[5][1]);
    let native = native_for(&case("replicate.xml"), rust).unwrap();
    let o = step_both_full(native, &c, 500);
    assert!(o.diff.is_some(), "a one-ulp change of servo2's bias (-kp) went unseen");
}

#[test]
fn the_corpus_files_with_copied_tendons_and_actuators_match() {
    let Some(corpus) = common::corpus() else { return };
    for name in ["model/replicate/newton_cradle.xml", "model/humanoid/humanoid100.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&corpus.join(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
        let left_out = cmp.notes.iter().filter(|n| n.contains("not compared"));
        assert_eq!(left_out.count(), 0, "{name}: {:?}", cmp.notes);
    }
}
