//! `specula check` on equality constraints: connect, weld and joint equalities compile to MuJoCo
//! 4.0.0's `eq_*` arrays (class defaults, site and body forms, relative poses derived at `qpos0`
//! or given), a perturbed value is reported by name, and a tendon equality is named in a note.

mod common;
use common::root;

use specula::check::{check_file, check_file_tampered, CheckOutcome};

/// The corpus files with equalities the compiler covers, the project's scene and the case file.
/// (The corpus part is skipped, with a message, on a clone without it.)
fn files() -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    if let Some(corpus) = common::corpus() {
        v.extend(
            ["weld", "connect", "equality_site", "sleep/equality", "island/island_efc"]
                .iter()
                .map(|n| corpus.join(format!("test/engine/testdata/{n}.xml"))),
        );
        v.extend(["local/box_stack_sleep.xml", "local/sleep_wake.xml"].iter().map(|n| corpus.join(n)));
    }
    v.push(root().join("scenes/equality.xml"));
    v.push(root().join("tests/equality_cases/classes.xml"));
    v
}

#[test]
fn equalities_match_mujoco_field_by_field() {
    for path in files() {
        let CheckOutcome::Compared(cmp) = check_file(&path) else { panic!("{}: both compile", path.display()) };
        assert!(cmp.matched(), "{}: {:?}", path.display(), cmp.mismatches);
        assert!(cmp.notes.iter().all(|n| !n.contains("equality")), "{}: {:?}", path.display(), cmp.notes);
    }
}

/// A change to the Rust model, by the field it touches.
type Tamper = (&'static str, fn(&mut specula_model::Model));

#[test]
fn a_perturbed_equality_value_is_reported_by_name() {
    let tampers: [Tamper; 6] = [
        ("eq_data", |m| m.eq_data[0][4] *= 1.0 + 1e-6),
        ("eq_data", |m| m.eq_data[2][7] += 1e-6),
        ("eq_solref", |m| m.eq_solref[4][1] += 1e-3),
        ("eq_solimp", |m| m.eq_solimp[1][0] += 1e-3),
        ("eq_active0", |m| m.eq_active0[1] = 1),
        ("eq_obj2id", |m| m.eq_obj2id[8] = 0),
    ];
    for (field, tamper) in tampers {
        let path = root().join("tests/equality_cases/classes.xml");
        let CheckOutcome::Compared(cmp) = check_file_tampered(&path, tamper) else { panic!("both compile") };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn a_tendon_equality_is_named_in_a_note() {
    let path = root().join("tests/equality_cases/tendon.xml");
    let CheckOutcome::Compared(cmp) = check_file(&path) else { panic!("both compile") };
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
    assert!(cmp.notes.iter().any(|n| n.contains("tendon equality")), "{:?}", cmp.notes);
}
