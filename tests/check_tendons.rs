//! `specula check` on tendon parameters: fixed tendons with class defaults match MuJoCo 4.0.0's
//! compiled `tendon_*`, `wrap_*` and `ten_J_*` fields, so do spatial tendons (sites, wrapping
//! geoms with and without side sites, pulleys; their lengths from the native route's kinematics),
//! and a perturbed field is reported by name; armature beside a wrapping geom is rejected by both.

mod common;
use common::root;

use specula::check::{check_file, check_file_tampered, CheckOutcome};

fn case(name: &str) -> std::path::PathBuf {
    root().join("tests/tendon_cases").join(name)
}

#[test]
fn fixed_tendons_match_mujoco_field_by_field() {
    for name in ["fixed.xml", "limits.xml", "springs.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&case(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
        assert!(cmp.notes.is_empty(), "{name}: {:?}", cmp.notes);
    }
}

/// A change to the Rust model, by the field it touches.
type Tamper = (&'static str, fn(&mut specula_model::Model));

#[test]
fn a_perturbed_tendon_field_is_reported_by_name() {
    let tampers: [Tamper; 7] = [
        ("tendon_length0", |m| m.tendon_length0[1] *= 1.0 + 1e-6),
        ("tendon_lengthspring", |m| m.tendon_lengthspring[3][0] += 1e-3),
        ("tendon_solimp_lim", |m| m.tendon_solimp_lim[2][1] += 1e-3),
        ("tendon_actfrclimited", |m| m.tendon_actfrclimited[1] = !m.tendon_actfrclimited[1]),
        ("ten_J_colind", |m| m.ten_j_colind.swap(1, 2)),
        ("tendon_treeid", |m| m.tendon_treeid[2][1] = -1),
        ("wrap_prm", |m| m.wrap_prm[0] += 1e-9),
    ];
    for (field, tamper) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case("fixed.xml"), tamper) else {
            panic!("both compile")
        };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn spatial_tendons_match_mujoco_field_by_field() {
    let CheckOutcome::Compared(cmp) = check_file(&case("spatial.xml")) else { panic!("both compile") };
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
    assert!(cmp.notes.iter().any(|n| n.contains("spatial tendon lengths")), "{:?}", cmp.notes);
    // the corpus's, where present
    let Some(corpus) = common::corpus() else { return };
    for name in ["doc/_static/tendon.xml", "test/engine/testdata/core_smooth/tendon_wrap_cylinder.xml"] {
        let CheckOutcome::Compared(cmp) = check_file(&corpus.join(name)) else { panic!("{name}: both compile") };
        assert!(cmp.matched(), "{name}: {:?}", cmp.mismatches);
    }
}

#[test]
fn a_perturbed_spatial_tendon_field_is_reported_by_name() {
    let tampers: [Tamper; 5] = [
        ("tendon_length0", |m| m.tendon_length0[2] *= 1.0 + 1e-6),
        ("tendon_lengthspring", |m| m.tendon_lengthspring[1][1] += 1e-6),
        ("ten_J_colind", |m| m.ten_j_colind[0] += 1),
        ("wrap_prm", |m| m.wrap_prm[4] = -1.0),
        ("wrap_type", |m| m.wrap_type[3] = 5),
    ];
    for (field, tamper) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case("spatial.xml"), tamper) else {
            panic!("both compile")
        };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn armature_beside_a_wrapping_geom_is_rejected_by_both() {
    // a sphere and (beside a pulley) a cylinder; a spatial tendon of sites with armature compiles
    let spatial = std::fs::read_to_string(case("spatial.xml")).unwrap();
    let variants = [
        spatial.replacen(r#"<spatial name="sphere">"#, r#"<spatial name="sphere" armature="0.1">"#, 1),
        spatial.replacen(r#"<spatial name="pulley" "#, r#"<spatial name="pulley" armature="0.1" "#, 1),
    ];
    let dir = std::env::temp_dir().join(format!("specula-tendon-armature-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, xml) in variants.iter().enumerate() {
        assert_ne!(xml, &spatial);
        let file = dir.join(format!("v{i}.xml"));
        std::fs::write(&file, xml).unwrap();
        match check_file(&file) {
            CheckOutcome::BothRejected { c, rust } => {
                assert!(c.contains("geom wrapping not supported by tendon armature"), "{c}");
                assert!(rust.contains("geom wrapping not supported by tendon armature"), "{rust}");
            }
            _ => panic!("variant {i}: not rejected by both"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let CheckOutcome::Compared(cmp) = check_file(&case("armature.xml")) else { panic!("armature.xml: both compile") };
    assert!(cmp.matched(), "{:?}", cmp.mismatches);
}
