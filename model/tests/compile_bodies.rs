//! Default classes, childclass, replicate naming/offsets and inertia from geoms, checked by
//! hand and against MuJoCo 4.0.0.
//!
//! Probe (Python, mujoco 4.0.0): `m = mujoco.MjModel.from_xml_string(xml)` with the test's XML,
//! then printing the fields the test asserts (`m.geom_friction`, `m.body_iquat`, ...).

mod common;
use common::assert_close;

use specula_model::{load_str, Model};
use std::path::Path;

fn load(xml: &str) -> Model {
    match load_str(xml, Path::new("."), "<test>") {
        Ok(m) => m,
        Err(e) => panic!("compile failed: {e}"),
    }
}

#[test]
fn default_class_inheritance() {
    let m = load(
        r#"<mujoco><default><geom size=".1" friction=".5"/><joint damping="1"/>
        <default class="A"><geom friction=".7 .01" condim="4"/><joint damping="2" armature=".1"/>
        <default class="B"><geom margin=".01"/></default></default></default>
        <worldbody><body childclass="A"><joint/><geom/><geom class="B"/><geom class="main"/>
        <body><joint class="main"/><geom/></body></body></worldbody></mujoco>"#,
    );
    // A overrides two friction values and keeps main's third (MuJoCo's default 1e-4)
    assert_eq!(m.geom_friction[0], [0.7, 0.01, 0.0001]);
    // B inherits A and adds margin
    assert_eq!(m.geom_friction[1], [0.7, 0.01, 0.0001]);
    assert_eq!(m.geom_margin[1], 0.01);
    // class="main" escapes the childclass
    assert_eq!(m.geom_friction[2], [0.5, 0.005, 0.0001]);
    assert_eq!(m.geom_condim, vec![4, 4, 3, 4]);
    // childclass reaches nested bodies; class="main" on the joint escapes it
    assert_eq!(m.dof_damping, vec![2.0, 1.0]);
    assert_eq!(m.dof_armature, vec![0.1, 0.0]);
}

#[test]
fn replicate_names_and_offsets() {
    let m = load(
        r#"<mujoco><worldbody><replicate count="3" offset="1 0 0" euler="0 0 90" sep="-">
        <body name="b" pos="0 0 1"><freejoint/><geom name="g" size=".1"/></body></replicate>
        <replicate count="12"><geom name="r" size=".1" pos="0 0 -1"/></replicate></worldbody></mujoco>"#,
    );
    assert_eq!(m.body_names, vec!["world", "b-0", "b-1", "b-2"]);
    // the index is zero-padded to the width of count; world geoms come first
    assert_eq!(m.geom_names[0..3], ["r00".to_string(), "r01".into(), "r02".into()]);
    assert_eq!(m.geom_names[11], "r11");
    assert_eq!(m.geom_names[12..], ["g-0".to_string(), "g-1".into(), "g-2".into()]);
    // copy i sits at the accumulated offset, rotated by i*90° about z (measured from MuJoCo)
    assert_close(&m.body_pos[2], &[1.0, 0.0, 1.0], 1e-15);
    assert_close(&m.body_pos[3], &[1.0000000000000002, 1.0, 1.0], 1e-15);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert_close(&m.body_quat[2], &[h, 0.0, 0.0, h], 1e-15);
    assert_close(&m.body_quat[3], &[6.123233995736766e-17, 0.0, 0.0, 1.0], 1e-15);
    assert_eq!(m.nq, 21);
}

#[test]
fn inertia_from_two_geoms() {
    let m = load(
        r#"<mujoco><worldbody><body pos="0 0 1"><freejoint/>
        <geom type="box" size=".1 .2 .3" pos=".2 0 0" mass="2"/>
        <geom type="sphere" size=".1" pos="0 .3 .1" mass="1"/></body></worldbody></mujoco>"#,
    );
    assert_eq!(m.body_mass[1], 3.0);
    // centre of mass = (2*(.2,0,0) + (0,.3,.1)) / 3
    assert_close(&m.body_ipos[1], &[0.4 / 3.0, 0.1, 0.1 / 3.0], 1e-15);
    // the principal moments keep the trace of the combined tensor: box 2(.13+.10+.05)/3,
    // sphere 3 * 2/5 * .01, parallel-axis terms 2 * sum m |d|^2
    let d1 = [0.2 - 0.4 / 3.0, -0.1, -0.1 / 3.0];
    let d2 = [-0.4 / 3.0, 0.2, 0.2 / 3.0];
    let n2 = |d: [f64; 3]| d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    let trace = 2.0 * 0.28 / 3.0 + 0.012 + 2.0 * (2.0 * n2(d1) + n2(d2));
    let i = m.body_inertia[1];
    assert_close(&[i[0] + i[1] + i[2]], &[trace], 1e-12);
    // eigenvalues sorted in decreasing order, axes as MuJoCo 4.0.0 reports them
    assert_close(&i, &[0.17885060206558084, 0.13483437370700174, 0.07164835756075082], 1e-12);
    assert_close(
        &m.body_iquat[1],
        &[0.5198300582288511, 0.8202839125612862, 0.1873996304309017, 0.14762246397246048],
        1e-12,
    );
}

#[test]
fn single_geom_copies_its_frame_and_world_has_no_mass() {
    let m = load(
        r#"<mujoco><worldbody><geom size="1"/><body><joint/>
        <geom type="capsule" size=".1 .2" pos="1 2 3" euler="90 0 0"/></body></worldbody></mujoco>"#,
    );
    assert_eq!(m.body_mass[0], 0.0);
    // capsule volume pi r^2 (2h) + 4/3 pi r^3 at density 1000
    let r: f64 = 0.1;
    let mass = 1000.0 * std::f64::consts::PI * (r * r * 0.4 + 4.0 * r * r * r / 3.0);
    assert_close(&[m.body_mass[1]], &[mass], 1e-14);
    assert_close(&m.body_ipos[1], &[1.0, 2.0, 3.0], 0.0);
    assert_eq!(m.body_iquat[1], m.geom_quat[1]);
    assert_eq!(m.body_weldid, vec![0, 1]);
    assert_eq!(m.body_simple[1], 0);
}

/// Midphase tree of one body and the ellipsoid fluid coefficients, measured from MuJoCo 4.0.0
/// with `m.body_bvhadr, m.bvh_child, m.bvh_nodeid, m.bvh_aabb, m.geom_fluid` on this XML.
#[test]
fn body_bvh_and_fluid() {
    let m = load(
        r#"<mujoco><worldbody><body><freejoint/>
        <geom size=".1" pos="-1 0 0"/><geom size=".1" pos="1 0 0"/><geom size=".2" pos="0 0 1"/>
        <geom size=".1" contype="0" conaffinity="0"/>
        <geom type="ellipsoid" size=".1 .2 .3" fluidshape="ellipsoid" contype="0" conaffinity="0"/>
        </body></worldbody></mujoco>"#,
    );
    // visual-only geoms are not leaves; the world body has no tree
    assert_eq!(m.body_bvhadr, vec![-1, 0]);
    assert_eq!(m.body_bvhnum, vec![0, 5]);
    assert_eq!(m.bvh_depth, vec![0, 1, 1, 2, 2]);
    assert_eq!(m.bvh_child, vec![[1, 2], [-1, -1], [3, 4], [-1, -1], [-1, -1]]);
    assert_eq!(m.bvh_nodeid, vec![-1, 1, -1, 2, 0]);
    // root box in the inertial frame (com at z = 8/17, principal axes rotated so that the
    // body x axis is the frame's y axis): half-sizes 0.2, 1.1 (spheres at ±1, r .1), 0.65
    assert_close(
        &m.bvh_aabb[0],
        &[0.0, 0.0, 0.07941176470588224, 0.20000000000000057, 1.1000000000000016, 0.6499999999999999],
        1e-12,
    );
    assert_close(
        &m.bvh_aabb[3],
        &[0.0, 0.0, 0.5294117647058822, 0.20000000000000057, 0.20000000000000057, 0.19999999999999998],
        1e-12,
    );
    assert_eq!(m.geom_fluid[0], [0.0; 12]);
    let f = m.geom_fluid[4];
    assert_eq!(f[..6], [1.0, 0.5, 0.25, 1.5, 1.0, 1.0]);
    let measured = [0.03421892335102304, 0.009161969686093343, 0.004656001295402555];
    assert_close(&f[6..9], &measured, 1e-12);
    assert_close(&f[9..], &[3.914190145187043e-05, 0.0003559983762595036, 9.632561918504682e-05], 1e-12);
}

/// `springdamper` turns (time constant, damping ratio) into stiffness and damping from the
/// joint's inverse inertia at qpos0. Measured with `mujoco.MjModel.from_xml_string` (4.0.0) on
/// this XML; the slider is checked by hand: a simple slider body uses its mass m = 4/3 π 0.1³
/// 1000, so stiffness = m / (1·1) and damping = 2 m / 1.
#[test]
fn springdamper_from_inverse_inertia() {
    let m = load(
        r#"<mujoco><worldbody>
        <body pos="0 0 1"><joint type="hinge" axis="1 1 0" springdamper=".3 .7" armature=".01"/>
          <geom type="box" size=".1 .2 .3" pos=".1 0 0"/>
          <body pos="0 0 .5"><joint type="ball" springdamper=".2 1"/><geom size=".1"/></body></body>
        <body pos="3 0 1"><joint type="slide" axis="1 0 0" springdamper="1 1"/><geom size=".1"/></body>
        </worldbody></mujoco>"#,
    );
    let mass = 4.0 / 3.0 * std::f64::consts::PI * 0.001 * 1000.0;
    assert_close(&[m.jnt_stiffness[2], m.dof_damping[4]], &[mass, 2.0 * mass], 1e-14);
    assert_close(&m.jnt_stiffness, &[71.13826646704302, 0.41813462862016787, 4.188790204786391], 1e-12);
    assert_close(
        &m.dof_damping,
        &[20.91465034131065, 0.16725385144806718, 0.16725385144806718, 0.16725385144806718, 8.377580409572783],
        1e-12,
    );
}

#[test]
fn full_inertia_principal_frame_is_mujocos_to_the_bit() {
    // Probed with MuJoCo 4.0.0's Python bindings (`body_iquat[1]`, `body_inertia[1]`); the
    // compiler's eigen-solver with its body tolerance (see compile::math::eig3_tol) matched 176 of
    // 176 random full inertias this way.
    let xml = r#"<mujoco><worldbody><body><freejoint/>
        <inertial pos="0 0 0" mass="1" fullinertia="0.9 1.1 1.3 0.11 -0.07 0.05"/>
        </body></worldbody></mujoco>"#;
    let m = specula_model::load_str(xml, std::path::Path::new("."), "full.xml").unwrap();
    assert_eq!(m.body_iquat[1], [0.19967967361491873, 0.6321568853959934, -0.10430420545272123, 0.7413678796092782]);
    assert_eq!(m.body_inertia[1], [1.3170389645158909, 1.1469493760751706, 0.8360116594089385]);
}
