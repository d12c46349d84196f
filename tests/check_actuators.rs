//! `specula check` on actuator parameters: every shortcut the compiler supports matches MuJoCo
//! 4.0.0's compiled fields, a perturbed parameter is reported by name, and an actuator outside
//! the supported set is named in a note rather than compared.

mod common;
use common::root;

use specula::check::{check_file, check_file_tampered, CheckOutcome};

fn case(name: &str) -> std::path::PathBuf {
    root().join("tests/actuator_cases").join(name)
}

#[test]
fn joint_actuator_shortcuts_match_mujoco_field_by_field() {
    // class_inheritance.xml: shortcuts reading kp/kv from their own or an ancestor class, and
    // starting from the built-in gains under a general default that sets others
    for name in ["shortcuts.xml", "class_inheritance.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&case(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
        assert!(cmp.notes.is_empty(), "{name}: {:?}", cmp.notes);
    }
}

/// A change to the Rust model, by the field it touches.
type Tamper = (&'static str, fn(&mut specula_model::Model));

#[test]
fn a_perturbed_actuator_parameter_is_reported_by_name() {
    let tampers: [Tamper; 5] = [
        ("actuator_biasprm", |m| m.actuator_biasprm[1][2] *= 1.0 + 1e-6),
        ("actuator_gainprm", |m| m.actuator_gainprm[6][0] += 1e-3),
        ("actuator_ctrlrange", |m| m.actuator_ctrlrange[2][1] += 1e-3),
        ("actuator_length0", |m| m.actuator_length0[1] += 1e-3),
        ("actuator_actadr", |m| m.actuator_actadr[4] += 1),
    ];
    for (field, tamper) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case("shortcuts.xml"), tamper) else {
            panic!("both compile")
        };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn a_body_transmission_beside_joint_shortcuts_matches_mujoco() {
    let CheckOutcome::Compared(cmp) = check_file(&case("body_transmission.xml")) else { panic!("both compile") };
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
    assert!(cmp.notes.is_empty(), "{:?}", cmp.notes);
}

#[test]
fn an_unsupported_actuator_is_named_in_a_note() {
    let CheckOutcome::Compared(cmp) = check_file(&case("orientation.xml")) else { panic!("both compile") };
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
    assert!(cmp.notes.iter().any(|n| n.contains("orientation")), "{:?}", cmp.notes);
}

#[test]
fn dc_motors_pids_and_damping_ratios_match_mujoco_field_by_field() {
    for name in ["dcmotor.xml", "dcmotor_pid.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&case(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
        assert!(cmp.notes.is_empty(), "{name}: {:?}", cmp.notes);
    }
}

#[test]
fn a_perturbed_dc_motor_or_pid_parameter_is_reported_by_name() {
    // actuator 1: the full DC motor (controls 1..4); 2: nominal point; 3: saturation current;
    // 10: PID with three inputs (controls 14..17); 18: PID with dampratio
    let tampers: [Tamper; 8] = [
        ("actuator_gainprm", |m| m.actuator_gainprm[2][1] *= 1.0 + 1e-6),
        ("actuator_dynprm", |m| m.actuator_dynprm[1][0] *= 1.0 + 1e-6),
        ("actuator_biasprm", |m| m.actuator_biasprm[1][5] += 1e-3),
        ("actuator_forcerange", |m| m.actuator_forcerange[3][1] += 1e-3),
        ("actuator_ctrlrange", |m| m.actuator_ctrlrange[14][0] -= 1e-3),
        ("actuator_ctrllimited", |m| m.actuator_ctrllimited[15] = !m.actuator_ctrllimited[15]),
        ("actuator_actnum", |m| m.actuator_actnum[1] -= 1),
        ("actuator_biasprm", |m| m.actuator_biasprm[18][2] *= 1.0 + 1e-6),
    ];
    for (field, tamper) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case("dcmotor_pid.xml"), tamper) else {
            panic!("both compile")
        };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}
