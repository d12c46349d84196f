//! Fixed and spatial tendons on the native route: lengths, Jacobians, wrapping, pulleys,
//! `tendon_invweight0`, springs, limit and friction-loss rows and their islands, stepped beside
//! `mj_step` (MuJoCo as oracle) and compared bit for bit after every step; tampered tendon
//! inputs are seen; fixed tendon armature in `M`, spatial tendon armature's bias force; tendons outside the subset are refused by name.

mod common;
mod native_steps;
use common::root;
use native_steps::*;

use specula::mj::Model as CModel;
use specula_native::{Native, NativeError};

fn case(name: &str) -> String {
    std::fs::read_to_string(root().join("tests/tendon_cases").join(name)).expect("case file")
}

#[test]
fn fixed_tendon_springs_limits_and_friction_loss_step_like_mj_step_bit_for_bit() {
    for xml in [case("limits.xml"), case("springs.xml")] {
        for integrator in ["Euler", "implicitfast"] {
            // (the native route solves dense Jacobians only; the sparse rows are checked on the C route)
            for (jacobian, solver) in [("dense", "Newton"), ("dense", "PGS")] {
                let xml = with_integrator(&xml, integrator).replacen(
                    "<option ",
                    &format!("<option jacobian=\"{jacobian}\" solver=\"{solver}\" "),
                    1,
                );
                let (native, c) = native_and_c(&xml);
                let native = native.expect("inside the native subset");
                let tendon_rows = {
                    let o = step_both_full(native, &c, 1000);
                    assert_eq!(o.refused, None);
                    assert_eq!(
                        o.diff, None,
                        "{integrator}, {jacobian}, {solver}: first difference (step, field, index)"
                    );
                    o.rows.0
                };
                // friction-loss rows on every step, limits some of the time
                assert_eq!(tendon_rows, 1000, "{integrator}, {jacobian}, {solver}");
            }
        }
    }
}

#[test]
fn spatial_tendons_step_like_mj_step_bit_for_bit() {
    let xml = case("spatial.xml");
    for integrator in ["Euler", "implicitfast"] {
        for solver in ["Newton", "PGS"] {
            let xml =
                with_integrator(&xml, integrator).replacen("<option ", &format!("<option solver=\"{solver}\" "), 1);
            let (native, c) = native_and_c(&xml);
            let o = step_both_full(native.expect("inside the native subset"), &c, 1000);
            assert_eq!((o.refused, o.diff), (None, None), "{integrator}, {solver}: first difference");
            // a limit or friction-loss row on every step
            assert_eq!(o.rows.0, 1000, "{integrator}, {solver}");
        }
    }
    // one ulp of a pulley divisor, of a wrapping sphere's radius or of a spring length is seen
    let tampers: [(&str, Tamper); 3] = [
        ("divisor", Box::new(|n: &mut Native| ulp(&mut n.model.model.wrap_prm[16]))),
        ("wrapping radius", Box::new(|n: &mut Native| ulp(&mut n.model.model.geom_size[0][0]))),
        ("spring length", Box::new(|n: &mut Native| ulp(&mut n.model.tendons.lengthspring[5]))),
    ];
    for (what, tamper) in tampers {
        let (diff, _) = run_both(&xml, 1000, tamper);
        assert!(diff.is_some(), "a one-ulp change of the tendon {what} went unseen");
    }
}

#[test]
fn the_tendon_limits_become_active() {
    // the limit rows (type 4) appear on the native side, so the comparison above covers them
    let (native, _) = native_and_c(&case("limits.xml"));
    let mut native = native.unwrap();
    let mut seen = 0;
    for step in 0..1000 {
        let t = step as f64 * 0.01;
        for i in 0..native.model.model.nv {
            native.data.qfrc_applied[i] = 0.5 * (t * (i + 1) as f64).sin();
        }
        native.step().unwrap();
        let e = &native.data.efc;
        seen += e.efc_type[..e.nefc].iter().filter(|&&t| t == 4).count();
    }
    assert!(seen > 100, "only {seen} tendon-limit rows");
}

#[test]
fn the_humanoid_with_limited_tendons_steps_like_mj_step_for_1000_steps() {
    let Some(corpus) = common::corpus() else {
        eprintln!("corpus absent: skipped");
        return;
    };
    for file in ["model/humanoid/humanoid.xml", "test/engine/testdata/collision_driver/humanoid.xml"] {
        let path = corpus.join(file);
        let native = Native::load_file(&path).expect("inside the native subset");
        assert_eq!(native.model.model.ntendon, 2);
        let c = CModel::from_xml_path(&path).expect("MuJoCo compiles it");
        let o = step_both_full(native, &c, 1000);
        assert_eq!((o.refused, o.diff), (None, None), "{file}: first difference (step, field, index)");
    }
}

#[test]
fn fixed_tendon_dampers_step_like_mj_step_under_every_integrator() {
    // springs.xml with a linear damper on one tendon and a polynomial one on another; under the
    // implicit integrators their derivative `-b J'J` enters qDeriv (D85)
    let xml = case("springs.xml").replacen(r#"frictionloss="0.2""#, r#"frictionloss="0.2" damping="3""#, 1).replacen(
        r#"<fixed name="loose""#,
        r#"<fixed name="loose" damping="0.5 0.2 0.1""#,
        1,
    );
    for integrator in ["Euler", "RK4", "implicitfast", "implicit"] {
        let (native, c) = native_and_c(&with_integrator(&xml, integrator));
        let native = native.expect("inside the native subset");
        assert!(native.model.model.tendon_damping.iter().filter(|&&d| d > 0.0).count() == 2);
        let (diff, steps) = step_both(native, &c, 1000);
        assert_eq!((diff, steps), (None, 1000), "{integrator}: first difference (step, field, index)");
        // one ulp of a damping coefficient is seen
        let (diff, _) = run_both(&with_integrator(&xml, integrator), 1000, |n: &mut Native| {
            ulp(&mut n.model.model.tendon_damping[1])
        });
        assert!(diff.is_some(), "{integrator}: a one-ulp change of a tendon damping went unseen");
    }
}

#[test]
fn spatial_tendon_dampers_step_like_mj_step_under_the_implicit_integrators() {
    // dampers on a wrapping tendon and on the one pulling the free body (its Jacobian spans
    // bodies of two trees)
    let xml = case("spatial.xml")
        .replacen(r#"<spatial name="straight""#, r#"<spatial name="straight" damping="2""#, 1)
        .replacen(r#"<spatial name="sphere">"#, r#"<spatial name="sphere" damping="0.3">"#, 1);
    for integrator in ["implicitfast", "implicit"] {
        let (native, c) = native_and_c(&with_integrator(&xml, integrator));
        let native = native.expect("inside the native subset");
        assert_eq!(native.model.model.tendon_damping.iter().filter(|&&d| d > 0.0).count(), 2);
        let o = step_both_full(native, &c, 1000);
        assert_eq!((o.refused, o.diff), (None, None), "{integrator}: first difference");
    }
}

#[test]
fn fixed_tendon_armature_steps_like_mj_step_bit_for_bit() {
    // limits.xml with armature on a tendon within one chain and on one coupling two trees (whose
    // cross terms M has no room for: MuJoCo adds only the entries M's sparsity holds)
    let xml = case("limits.xml").replacen(r#"margin="0.01""#, r#"margin="0.01" armature="0.2""#, 1).replacen(
        r#"frictionloss="0.2""#,
        r#"frictionloss="0.2" armature="0.05""#,
        1,
    );
    for integrator in ["Euler", "implicitfast"] {
        let (diff, steps) = run_both(&with_integrator(&xml, integrator), 1000, |_| {});
        assert_eq!((diff, steps), (None, 1000), "{integrator}: first difference (step, field, index)");
    }
    // the step without one tendon's armature in M, or with one ulp more of it, differs
    let tampers: [(&str, Tamper); 3] = [
        ("chain armature left out", Box::new(|n: &mut Native| n.model.model.tendon_armature[0] = 0.0)),
        ("two-tree armature left out", Box::new(|n: &mut Native| n.model.model.tendon_armature[1] = 0.0)),
        ("armature one ulp off", Box::new(|n: &mut Native| ulp(&mut n.model.model.tendon_armature[0]))),
    ];
    for (what, tamper) in tampers {
        let (diff, _) = run_both(&xml, 1000, tamper);
        assert!(diff.is_some(), "{what}: went unseen");
    }
}

#[test]
fn tampered_tendon_inputs_make_the_run_differ() {
    let xml = case("limits.xml");
    let springs = case("springs.xml");
    let (diff, _) = run_both(&springs, 1000, |n: &mut Native| ulp(&mut n.model.model.tendon_stiffness[1]));
    assert!(diff.is_some(), "a one-ulp change of a tendon stiffness went unseen: {diff:?}");
    let tampers: [(&str, Tamper); 4] = [
        ("coefficient", Box::new(|n: &mut Native| ulp(&mut n.model.model.wrap_prm[1]))),
        ("invweight0", Box::new(|n: &mut Native| ulp(&mut n.model.consts.tendon_invweight0[1]))),
        ("range", Box::new(|n: &mut Native| ulp(&mut n.model.tendons.range[0]))),
        ("friction loss", Box::new(|n: &mut Native| ulp(&mut n.model.model.tendon_frictionloss[2]))),
    ];
    for (what, tamper) in tampers {
        let (diff, _) = run_both(&xml, 1000, tamper);
        assert!(diff.is_some(), "a one-ulp change of the tendon {what} went unseen");
    }
}

#[test]
fn spatial_tendon_armature_steps_like_mj_step_under_every_integrator() {
    // site paths over a hinge chain, to a ball joint and to a free body, with springs and a limit
    let xml = case("armature.xml");
    for integrator in ["Euler", "implicitfast", "implicit", "RK4"] {
        let (diff, steps) = run_both(&with_integrator(&xml, integrator), 1000, |_| {});
        assert_eq!((diff, steps), (None, 1000), "{integrator}: first difference (step, field, index)");
    }
    // one ulp of the armature (in M and in the bias force) or of a site position is seen
    let tampers: [(&str, Tamper); 2] = [
        ("chain armature", Box::new(|n: &mut Native| ulp(&mut n.model.model.tendon_armature[0]))),
        ("ball tendon armature", Box::new(|n: &mut Native| ulp(&mut n.model.model.tendon_armature[1]))),
    ];
    for (what, tamper) in tampers {
        let (diff, _) = run_both(&xml, 1000, tamper);
        assert!(diff.is_some(), "a one-ulp change of the {what} went unseen");
    }
}

#[test]
fn tendons_outside_the_subset_are_refused_by_name() {
    // armature on spatial tendons of sites is covered, through a pulley not yet (MuJoCo's
    // compiler rejects it beside a wrapping geom)
    let pulley = r#"<site site="sf"/>
      <pulley divisor="2"/>
      <site site="w3"/>
      <site site="s3"/>"#;
    let changed = case("armature.xml").replacen(r#"<site site="sf"/>"#, pulley, 1);
    assert_ne!(changed, case("armature.xml"));
    let (native, _) = native_and_c(&changed);
    match native {
        Err(NativeError::Unsupported { needs, .. }) => {
            assert!(needs.contains("mj_tendonDot through a pulley"), "{needs}")
        }
        other => panic!("pulley armature: not refused: {:?}", other.err()),
    }
}
