//! Activation counts (`na`) of actuators whose dynamics come from default classes.
//!
//! Expected values measured with MuJoCo 4.0.0 through the Python bindings:
//! `mujoco.MjModel.from_xml_string(xml).na` (and `actuator_actnum`) for each scene below, all
//! built on a hinge `j` and a ball `b`. Probe: build the scene as `na()` does and print
//! `m.na`; each case is also derivable by hand from the rule noted beside it.

use specula_model::load_str;
use std::path::Path;

/// `(na, nu)` of a hinge `j` and a ball `b` driven by `actuators` under `defaults`.
fn sizes(defaults: &str, actuators: &str) -> (usize, usize) {
    let xml = format!(
        "<mujoco><worldbody><body><joint name=\"j\"/><geom size=\".1\"/></body>\
         <body pos=\"1 0 0\"><joint name=\"b\" type=\"ball\"/><geom size=\".1\"/></body></worldbody>\
         <default>{defaults}</default><actuator>{actuators}</actuator></mujoco>"
    );
    match load_str(&xml, Path::new("."), "na.xml") {
        Ok(m) => (m.na, m.nu),
        Err(e) => panic!("{defaults} {actuators}: {e}"),
    }
}

fn na(defaults: &str, actuators: &str) -> usize {
    sizes(defaults, actuators).0
}

fn nu(defaults: &str, actuators: &str) -> usize {
    sizes(defaults, actuators).1
}

#[test]
fn general_inherits_dyntype_from_its_class() {
    // a filter from the main default makes every plain <general> stateful
    assert_eq!(na(r#"<general dyntype="filter"/>"#, r#"<general joint="j"/>"#), 1);
    // only the actuator of class "a" is stateful; the second uses main
    let d = r#"<default class="a"><general dyntype="filter"/></default>"#;
    assert_eq!(na(d, r#"<general joint="j" class="a"/><general joint="j"/>"#), 1);
    // the element's own dyntype wins over the class
    assert_eq!(na(d, r#"<general joint="j" class="a" dyntype="none"/>"#), 0);
    // nested classes inherit the parent's actuator default
    let nested = r#"<default class="a"><general dyntype="integrator"/><default class="b"/></default>"#;
    assert_eq!(na(nested, r#"<general joint="j" class="b"/>"#), 1);
}

#[test]
fn shortcuts_reset_or_keep_the_inherited_dynamics() {
    let filter = r#"<general dyntype="filter"/>"#;
    // motor, velocity, damper and adhesion are stateless whatever the class says
    assert_eq!(na(filter, r#"<motor joint="j"/>"#), 0);
    assert_eq!(na(filter, r#"<velocity joint="j"/>"#), 0);
    assert_eq!(na(filter, r#"<damper joint="j" ctrlrange="0 1"/>"#), 0);
    assert_eq!(na(filter, r#"<adhesion body="world" gain="1" ctrlrange="0 1"/>"#), 0);
    // position's dynamics follow its time constant, inherited only from a filterexact class
    // (whose default dynprm[0] is 1)
    assert_eq!(na(filter, r#"<position joint="j"/>"#), 0);
    assert_eq!(na(filter, r#"<position joint="j" timeconst="0"/>"#), 0);
    assert_eq!(na(r#"<general dyntype="filterexact"/>"#, r#"<position joint="j"/>"#), 1);
    assert_eq!(na(r#"<general dyntype="filterexact" dynprm="0"/>"#, r#"<position joint="j"/>"#), 0);
    // intvelocity is an integrator whatever the class says
    assert_eq!(na(filter, r#"<intvelocity joint="j"/>"#), 1);
    // a timeconst in the class turns both position and a plain general into a filter
    let tc = r#"<position timeconst="1"/>"#;
    assert_eq!(na(tc, r#"<position joint="j"/>"#), 1);
    assert_eq!(na(tc, r#"<general joint="j"/>"#), 1);
    // cylinder and intvelocity defaults are stateful for a plain general
    assert_eq!(na(r#"<cylinder/>"#, r#"<general joint="j"/>"#), 1);
    assert_eq!(na(r#"<intvelocity actrange="0 1"/>"#, r#"<general joint="j"/>"#), 1);
}

#[test]
fn actdim_from_the_class() {
    // user dynamics take the class's actdim
    assert_eq!(na(r#"<general dyntype="integrator" actdim="2"/>"#, r#"<general joint="j" dyntype="user"/>"#), 2);
    assert_eq!(na("", r#"<general joint="j" dyntype="user" actdim="3"/>"#), 3);
}

#[test]
fn dcmotor_states_from_the_class() {
    // one electrical state from te = L/R (inductance given) or te directly
    assert_eq!(na(r#"<dcmotor motorconst="1" resistance="1" inductance="0.1"/>"#, r#"<dcmotor joint="j"/>"#), 1);
    assert_eq!(na(r#"<dcmotor motorconst="1" resistance="1" inductance="0 0.1"/>"#, r#"<dcmotor joint="j"/>"#), 1);
    // one LuGre bristle state, also for a general under the dcmotor class
    let lugre = r#"<dcmotor motorconst="1" resistance="1" lugre="1 1 1 1 1"/>"#;
    assert_eq!(na(lugre, r#"<dcmotor joint="j"/>"#), 1);
    assert_eq!(na(lugre, r#"<general joint="j"/>"#), 1);
    // one thermal state
    assert_eq!(na(r#"<dcmotor motorconst="1" resistance="1" thermal="1 1 0 0 0 0"/>"#, r#"<dcmotor joint="j"/>"#), 1);
    // an inherited te survives a new resistance; an inductance attribute replaces both entries
    let te = r#"<dcmotor motorconst="1" resistance="1" inductance="0 0.1"/>"#;
    assert_eq!(na(te, r#"<dcmotor joint="j" resistance="3"/>"#), 1);
    assert_eq!(na(te, r#"<dcmotor joint="j" inductance="0"/>"#), 0);
    assert_eq!(na(te, r#"<dcmotor joint="j" lugre="1 1 1 1 1"/>"#), 2);
    assert_eq!(na(lugre, r#"<dcmotor joint="j" lugre="0"/>"#), 0);
    // a stateless DC motor default stays stateless
    assert_eq!(na(r#"<dcmotor motorconst="1" resistance="1"/>"#, r#"<dcmotor joint="j"/>"#), 0);
}

#[test]
fn pid_states() {
    // an integral term is one state
    assert_eq!(na("", r#"<pid joint="j" ki="1"/>"#), 1);
    // ki inherited from a PID default with states; a slew limit adds the second
    assert_eq!(na(r#"<pid ki="1"/>"#, r#"<pid joint="j" slewmax="2"/>"#), 2);
    assert_eq!(na(r#"<pid ki="1"/>"#, r#"<pid joint="j" ki="0"/>"#), 0);
    // a general under a PID class with a slew limit has that one state
    assert_eq!(na(r#"<pid slewmax="1"/>"#, r#"<general joint="j"/>"#), 1);
    assert_eq!(na(r#"<pid ki="1" slewmax="1"/>"#, r#"<general joint="j"/>"#), 2);
}

#[test]
fn controls_per_actuator() {
    // pid: one control per input, default `pos vel`; inputs inherited from a pid class only
    assert_eq!(nu("", r#"<pid joint="j"/>"#), 2);
    assert_eq!(nu("", r#"<pid joint="j" input="pos vel ff"/>"#), 3);
    assert_eq!(nu(r#"<pid input="pos"/>"#, r#"<pid joint="j"/>"#), 1);
    assert_eq!(nu(r#"<pid input="pos"/>"#, r#"<general joint="j"/>"#), 1);
    assert_eq!(nu(r#"<orientation input="quat"/>"#, r#"<pid joint="j"/>"#), 2);
    assert_eq!(nu(r#"<dcmotor motorconst="1" resistance="1" input="pos"/>"#, r#"<pid joint="j"/>"#), 2);
    // dcmotor: default `voltage` (1), `none` takes no control
    let dc = r#"<dcmotor motorconst="1" resistance="1" input="pos vel ff voltage"/>"#;
    assert_eq!(nu(dc, r#"<dcmotor joint="j"/>"#), 4);
    assert_eq!(nu("", r#"<dcmotor joint="j" motorconst="1" resistance="1" input="none"/>"#), 0);
    assert_eq!(nu(r#"<pid input="pos vel ff"/>"#, r#"<dcmotor joint="j" motorconst="1" resistance="1"/>"#), 1);
    // SO3 servo: exponential map 3, quaternion 4, also for a general under that class
    assert_eq!(nu("", r#"<orientation joint="b"/>"#), 3);
    assert_eq!(nu(r#"<orientation input="quat"/>"#, r#"<general joint="b"/>"#), 4);
    assert_eq!(nu(r#"<pid input="vel"/>"#, r#"<orientation joint="b"/>"#), 3);
    // an SO3 integrator has 3 states
    let so3 = r#"<general joint="b" gaintype="so3" biastype="so3" gainprm="1" biasprm="0 -1" dyntype="integrator"/>"#;
    assert_eq!(sizes("", so3), (3, 3));
}
