//! Inputs MuJoCo's compiler rejects must be errors that point at the offending element or
//! attribute (each case also fails in `mujoco.MjModel.from_xml_string` 4.0.0).

use specula_model::load_str;
use std::path::Path;

/// Compiles `xml`, expecting an error on `line` whose message contains `needle`.
fn fails(xml: &str, line: u32, needle: &str) {
    match load_str(xml, Path::new("."), "<test>") {
        Ok(_) => panic!("expected an error containing '{needle}'"),
        Err(e) => {
            assert!(e.message.contains(needle), "message '{}' lacks '{needle}'", e.message);
            assert_eq!(e.pos.line, line, "wrong line for '{}'", e.message);
        }
    }
}

#[test]
fn unknown_class() {
    fails("<mujoco><worldbody>\n<geom class=\"nope\" size=\"1\"/></worldbody></mujoco>", 2, "unknown default class");
}

#[test]
fn repeated_name() {
    fails(
        "<mujoco><worldbody><geom name=\"a\" size=\"1\"/>\n<geom name=\"a\" size=\"1\"/></worldbody></mujoco>",
        2,
        "repeated name 'a'",
    );
}

#[test]
fn zero_size() {
    fails("<mujoco><worldbody>\n<geom type=\"box\" size=\"1 1\"/></worldbody></mujoco>", 2, "size 2 must be positive");
    fails("<mujoco><worldbody>\n<geom type=\"plane\" size=\"1 1\"/></worldbody></mujoco>", 2, "plane size(3)");
}

#[test]
fn zero_quaternion_and_axis() {
    fails("<mujoco><worldbody>\n<body quat=\"0 0 0 0\"/></worldbody></mujoco>", 2, "zero quaternion");
    fails(
        "<mujoco><worldbody><body>\n<joint axis=\"0 0 0\"/><geom size=\"1\"/></body></worldbody></mujoco>",
        2,
        "axis too small",
    );
    fails("<mujoco><worldbody>\n<geom size=\"1\" zaxis=\"0 0 0\"/></worldbody></mujoco>", 2, "zaxis too small");
}

#[test]
fn invalid_mass_and_inertia() {
    fails(
        "<mujoco><worldbody>\n<body><joint/><geom size=\"1\" mass=\"0\"/></body></worldbody></mujoco>",
        2,
        "mass and inertia of moving bodies",
    );
    fails(
        "<mujoco><worldbody>\n<body><joint/><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 3\"/></body></worldbody></mujoco>",
        2,
        "A + B >= C",
    );
    fails("<mujoco><worldbody>\n<body><geom size=\"1\" density=\"-1\"/></body></worldbody></mujoco>", 2, "negative");
}

#[test]
fn unknown_pair_geom_points_at_attribute() {
    let xml = "<mujoco><worldbody><geom name=\"a\" size=\"1\"/></worldbody>\n<contact>\n<pair geom1=\"a\" geom2=\"zz\"/></contact></mujoco>";
    match load_str(xml, Path::new("."), "<test>") {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            assert!(e.message.contains("geom 'zz' not found"), "{}", e.message);
            assert_eq!((e.pos.line, e.pos.col), (3, 17));
        }
    }
}

#[test]
fn range_without_limited_when_autolimits_off() {
    fails(
        "<mujoco><compiler autolimits=\"false\"/><worldbody><body>\n<joint range=\"0 1\"/><geom size=\"1\"/></body></worldbody></mujoco>",
        2,
        "autolimits",
    );
}
