//! Orientation forms (quat, axisangle, euler with sequences, xyaxes, zaxis) in degrees and
//! radians, checked against hand derivations and values measured from MuJoCo 4.0.0.
//!
//! Probe (Python, mujoco 4.0.0): `m = mujoco.MjModel.from_xml_string(xml); print(m.body_quat)`
//! with the same XML as each test.

mod common;
use common::assert_close_abs;

use specula_model::{load_str, Model};
use std::path::Path;

fn load(xml: &str) -> Model {
    match load_str(xml, Path::new("."), "<test>") {
        Ok(m) => m,
        Err(e) => panic!("compile failed: {e}"),
    }
}

fn scene(compiler: &str, euler: &str, axisangle: &str) -> String {
    format!(
        r#"<mujoco><compiler {compiler}/><worldbody>
        <body name="a" euler="{euler}"/><body name="b" axisangle="{axisangle}"/>
        <body name="c" zaxis="0 1 1"/><body name="d" xyaxes="0 1 0 -1 0 0"/><body name="e" quat="2 0 0 2"/>
        </worldbody></mujoco>"#
    )
}

#[test]
fn degrees_by_hand() {
    let m = load(&scene(r#"angle="degree""#, "90 0 0", "0 0 1 90"));
    let h = std::f64::consts::FRAC_1_SQRT_2;
    // 90° about x and about z: (cos 45°, sin 45° * axis)
    assert_close_abs(&m.body_quat[1], &[h, h, 0.0, 0.0], 1e-15);
    assert_close_abs(&m.body_quat[2], &[h, 0.0, 0.0, h], 1e-15);
    // zaxis (0,1,1): minimal rotation of +z by 45° about -x
    let (c, s) = ((std::f64::consts::PI / 8.0).cos(), (std::f64::consts::PI / 8.0).sin());
    assert_close_abs(&m.body_quat[3], &[c, -s, 0.0, 0.0], 1e-15);
    // xyaxes x=(0,1,0), y=(-1,0,0): 90° about z
    assert_close_abs(&m.body_quat[4], &[h, 0.0, 0.0, h], 1e-15);
    // quat is normalised
    assert_close_abs(&m.body_quat[5], &[h, 0.0, 0.0, h], 1e-15);
}

#[test]
fn radians_measured() {
    let m = load(&scene(r#"angle="radian""#, "0.3 0.2 0.1", "1 1 0 0.5"));
    // measured from MuJoCo 4.0.0 (probe in the module doc)
    assert_close_abs(
        &m.body_quat[1],
        &[0.981856172866081, 0.1534393020242226, 0.09115754934299071, 0.06407134770607116],
        1e-15,
    );
    // axis normalised: (cos .25, sin .25 / sqrt 2 * (1, 1, 0))
    let s = 0.25f64.sin() / 2f64.sqrt();
    assert_close_abs(&m.body_quat[2], &[0.25f64.cos(), s, s, 0.0], 1e-15);
    assert_close_abs(&m.body_quat[2], &[0.9689124217106447, 0.17494101728127345, 0.17494101728127345, 0.0], 1e-15);
}

#[test]
fn euler_intrinsic_vs_extrinsic() {
    let intr = load(&scene(r#"eulerseq="xyz""#, "10 20 30", "1 0 0 30"));
    let extr = load(&scene(r#"eulerseq="XYZ""#, "10 20 30", "1 0 0 30"));
    let zyx = load(&scene(r#"eulerseq="zyx""#, "10 20 30", "1 0 0 30"));
    // measured from MuJoCo 4.0.0
    assert_close_abs(
        &intr.body_quat[1],
        &[0.943714364147489, 0.12767944069578063, 0.14487812541736914, 0.2685358227515692],
        1e-15,
    );
    assert_close_abs(
        &extr.body_quat[1],
        &[0.9515485246437885, 0.03813457647485015, 0.18930785741199999, 0.2392983377447303],
        1e-15,
    );
    assert_close_abs(
        &zyx.body_quat[1],
        &[0.9515485246437885, 0.2392983377447303, 0.18930785741199999, 0.03813457647485015],
        1e-15,
    );
    // by hand: xyz (rotating axes) is qx(10)·qy(20)·qz(30); XYZ (fixed axes) is qz(30)·qy(20)·qx(10)
    let q = |axis: usize, deg: f64| {
        let a = deg.to_radians() / 2.0;
        let mut q = [a.cos(), 0.0, 0.0, 0.0];
        q[axis] = a.sin();
        q
    };
    let mul = |a: [f64; 4], b: [f64; 4]| {
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    };
    assert_close_abs(&intr.body_quat[1], &mul(mul(q(1, 10.0), q(2, 20.0)), q(3, 30.0)), 1e-12);
    assert_close_abs(&extr.body_quat[1], &mul(mul(q(3, 30.0), q(2, 20.0)), q(1, 10.0)), 1e-12);
}

#[test]
fn frame_composes_into_children() {
    let m = load(
        r#"<mujoco><worldbody>
        <frame pos="1 0 0" euler="0 0 90"><frame pos="0 1 0">
          <geom name="g" size=".1" pos="1 0 0"/>
          <body name="b" pos="0 0 1"><joint name="j" axis="1 0 0" pos="1 0 0"/><geom size=".1"/></body>
        </frame></frame></worldbody></mujoco>"#,
    );
    // inner frame origin: (1,0,0) + Rz(90)(0,1,0) = (0,0,0); geom: Rz(90)(1,0,0) = (0,1,0)
    assert_close_abs(&m.geom_pos[0], &[0.0, 1.0, 0.0], 1e-15);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert_close_abs(&m.geom_quat[0], &[h, 0.0, 0.0, h], 1e-15);
    assert_close_abs(&m.body_pos[1], &[0.0, 0.0, 1.0], 1e-15);
    assert_close_abs(&m.body_quat[1], &[h, 0.0, 0.0, h], 1e-15);
    // joints inside a body are not affected by the frame around the body
    assert_close_abs(&m.jnt_axis[0], &[1.0, 0.0, 0.0], 0.0);
}

#[test]
fn fromto_primitives() {
    let m = load(
        r#"<mujoco><worldbody>
        <geom type="capsule" fromto="0 0 0 0 0 2" size=".1"/>
        <geom type="cylinder" fromto="1 0 0 3 0 0" size=".2"/>
        <geom type="box" fromto="0 0 0 1 1 1" size=".1 .3"/>
        <geom type="ellipsoid" fromto="0 0 0 0 3 0" size=".1 .5"/>
        </worldbody></mujoco>"#,
    );
    // capsule: half length 1, centred at z=1, +z points from 'to' to 'from' (180° flip)
    assert_close_abs(&m.geom_size[0], &[0.1, 1.0, 0.0], 1e-15);
    assert_close_abs(&m.geom_pos[0], &[0.0, 0.0, 1.0], 1e-15);
    assert_close_abs(&m.geom_quat[0], &[0.0, 1.0, 0.0, 0.0], 1e-15);
    // cylinder along x: z mapped onto -x, i.e. -90° about y
    assert_close_abs(&m.geom_size[1], &[0.2, 1.0, 0.0], 1e-15);
    assert_close_abs(&m.geom_pos[1], &[2.0, 0.0, 0.0], 1e-15);
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert_close_abs(&m.geom_quat[1], &[h, 0.0, -h, 0.0], 1e-15);
    // box: size[1] = size[0], size[2] = half length (measured: 0.8660254037844386)
    assert_close_abs(&m.geom_size[2], &[0.1, 0.1, 3f64.sqrt() / 2.0], 1e-15);
    assert_close_abs(&m.geom_quat[2], &[0.45970084338098305, 0.6279630301995545, -0.6279630301995545, 0.0], 1e-15);
    assert_close_abs(&m.geom_size[3], &[0.1, 0.1, 1.5], 1e-15);
    // aabb and rbound of the capsule: half-sizes (r, r, r + h)
    assert_close_abs(&m.geom_aabb[0], &[0.0, 0.0, 0.0, 0.1, 0.1, 1.1], 1e-15);
    assert_close_abs(&[m.geom_rbound[0]], &[1.1], 1e-15);
}

/// A class's alternative orientation is inherited unless the element gives its own `quat` or
/// alternative (measured from MuJoCo 4.0.0 with this XML: quats [0,1,0,0], [√½,0,√½,0],
/// [√½,0,0,√½]).
#[test]
fn element_quat_overrides_class_alternative() {
    let m = load(
        r#"<mujoco><default><geom size=".1" zaxis="1 0 0"/></default><worldbody>
        <geom quat="0 1 0 0"/><geom/><geom euler="0 0 90"/></worldbody></mujoco>"#,
    );
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert_close_abs(&m.geom_quat[0], &[0.0, 1.0, 0.0, 0.0], 0.0);
    assert_close_abs(&m.geom_quat[1], &[h, 0.0, h, 0.0], 1e-15);
    assert_close_abs(&m.geom_quat[2], &[h, 0.0, 0.0, h], 1e-15);
}
