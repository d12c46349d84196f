//! Sensors: specula's compiler gives MuJoCo 4.0.0's `sensor_*` arrays (`specula check`), and the
//! native route's `sensordata` equals `mj_step`'s bit for bit after every step (MuJoCo as oracle)
//! on joint, tendon, actuator, frame, subtree, limit and `mj_rnePostConstraint` sensors, over
//! touch sensors over contacts with both cones, and connect rows; tampered inputs are seen; sensors outside the
//! subset are refused by name.

mod common;
mod native_steps;
use common::root;
use native_steps::*;

use specula::check::{check_file, check_file_tampered, CheckOutcome};
use specula_native::{Native, NativeError};

fn case_path(name: &str) -> std::path::PathBuf {
    root().join("tests/sensor_cases").join(name)
}

fn case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).expect("case file")
}

/// The case files and the corpus files whose sensors the compiler covers.
fn files() -> Vec<std::path::PathBuf> {
    let mut v = vec![case_path("joints.xml"), case_path("contacts.xml")];
    if let Some(corpus) = common::corpus() {
        v.extend(
            ["model/car/car.xml", "model/adhesion/active_adhesion.xml", "test/user/testdata/robot_arm.xml"]
                .iter()
                .map(|n| corpus.join(n)),
        );
    } else {
        eprintln!("corpus absent: its part skipped");
    }
    v
}

#[test]
fn sensor_parameters_match_mujoco_field_by_field() {
    for path in files() {
        let CheckOutcome::Compared(cmp) = check_file(&path) else { panic!("{}: both compile", path.display()) };
        assert!(cmp.matched(), "{}: {:?}", path.display(), cmp.mismatches);
        assert!(cmp.notes.iter().all(|n| !n.contains("sensor")), "{}: {:?}", path.display(), cmp.notes);
    }
}

/// A change to the Rust model, by the field it touches.
type ModelTamper = (&'static str, fn(&mut specula_model::Model));

#[test]
fn a_perturbed_sensor_parameter_is_reported_by_name() {
    let tampers: [ModelTamper; 6] = [
        ("sensor_adr", |m| m.sensor_adr[3] += 1),
        ("sensor_needstage", |m| m.sensor_needstage[0] = 2),
        ("sensor_refid", |m| m.sensor_refid[18] = -1),
        ("sensor_objtype", |m| m.sensor_objtype[17] = 1),
        ("sensor_cutoff", |m| m.sensor_cutoff[1] *= 1.001),
        ("nsensordata", |m| m.nsensordata += 1),
    ];
    for (field, tamper) in tampers {
        let CheckOutcome::Compared(cmp) = check_file_tampered(&case_path("joints.xml"), tamper) else {
            panic!("both compile")
        };
        assert!(cmp.mismatches.iter().any(|m| m.field == field), "{field}: {:?}", cmp.mismatches);
    }
}

#[test]
fn sensors_step_like_mj_step_bit_for_bit() {
    let joints = case("joints.xml");
    let contacts = case("contacts.xml");
    let runs = [
        (with_integrator(&joints, "Euler"), "joints, Euler"),
        (with_integrator(&joints, "RK4"), "joints, RK4"),
        (contacts.clone(), "contacts, pyramidal"),
        (
            contacts.replacen(r#"cone="pyramidal""#, r#"cone="elliptic" integrator="implicitfast""#, 1),
            "contacts, elliptic",
        ),
    ];
    for (xml, what) in runs {
        let (native, c) = native_and_c(&xml);
        let native = native.expect("inside the native subset");
        let o = step_both_full(native, &c, 400);
        assert_eq!((o.refused, o.diff), (None, None), "{what}: first difference (step, field, index)");
        if what.starts_with("contacts") {
            assert!(o.rows.1 > 100, "{what}: only {} contacts", o.rows.1);
        }
    }
}

#[test]
fn every_sensor_value_moves() {
    // each value changes over the run, so the comparison above sees each sensor's own code
    for name in ["joints.xml", "contacts.xml"] {
        let (native, _) = native_and_c(&case(name));
        let mut native = native.unwrap();
        native.step().unwrap();
        let first = native.data.sensor.sensordata.clone();
        let mut moved = vec![false; first.len()];
        for step in 0..400 {
            for i in 0..native.model.model.nv {
                native.data.qfrc_applied[i] = 0.5 * (step as f64 * 0.01 * (i + 1) as f64).sin();
            }
            native.step().unwrap();
            for (m, (a, b)) in moved.iter_mut().zip(native.data.sensor.sensordata.iter().zip(&first)) {
                *m |= a != b;
            }
        }
        let m = &native.model.model;
        for s in 0..m.nsensor {
            let (adr, dim) = (m.sensor_adr[s] as usize, m.sensor_dim[s] as usize);
            // the floor's frame acceleration stays zero, and so does the force of tendon
            // actuators where there are none (the native route takes joint actuators only)
            let still = m.sensor_type[s] == 17 || (m.sensor_type[s] == 34 && m.sensor_objtype[s] == 5);
            assert!(still || moved[adr..adr + dim].iter().any(|&x| x), "{name}: sensor {s} never moved");
        }
    }
}

#[test]
fn tampered_sensor_inputs_make_the_run_differ() {
    let joints = case("joints.xml");
    let contacts = case("contacts.xml");
    let tampers: [(&str, &str, Tamper); 7] = [
        ("magnetic field", &joints, Box::new(|n: &mut Native| ulp(&mut n.model.model.opt.magnetic[1]))),
        ("reference frame", &joints, Box::new(|n: &mut Native| n.model.model.sensor_refid[18] = -1)),
        ("site quaternion", &joints, Box::new(|n: &mut Native| ulp(&mut n.model.model.site_quat[0][1]))),
        ("accelerometer site", &contacts, Box::new(|n: &mut Native| n.model.model.sensor_objid[0] = 1)),
        ("joint velocity cutoff", &joints, Box::new(|n: &mut Native| ulp(&mut n.model.model.sensor_cutoff[1]))),
        ("touch cutoff", &contacts, Box::new(|n: &mut Native| ulp(&mut n.model.model.sensor_cutoff[2]))),
        ("touch zone", &contacts, Box::new(|n: &mut Native| n.model.model.site_size[0][2] = 0.01)),
    ];
    for (what, xml, tamper) in tampers {
        let (diff, _) = run_both(xml, 400, tamper);
        assert!(matches!(diff, Some((_, "sensordata", _))), "a change of the {what} went unseen: {diff:?}");
    }
}

#[test]
fn sensors_outside_the_subset_are_refused_by_name() {
    let joints = case("joints.xml");
    let energy = joints.replacen("<clock/>", r#"<clock/><e_kinetic/>"#, 1);
    let rangefinder = joints.replacen("<clock/>", r#"<clock/><rangefinder site="tip"/>"#, 1);
    let weld = case("contacts.xml").replacen("<equality>", r#"<equality><weld body1="box"/>"#, 1);
    for (xml, needs) in [(energy, "energy"), (rangefinder, "rangefinder"), (weld, "weld")] {
        match Native::load_str(&xml, std::path::Path::new("."), "inline.xml") {
            Err(NativeError::Unsupported { what, needs: n }) => {
                assert!(n.contains(needs) || what.contains(needs), "{needs}: {what} ({n})")
            }
            other => panic!("{needs}: not refused: {:?}", other.err()),
        }
    }
}
