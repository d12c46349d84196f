//! Options and flags, contact pairs and excludes, keyframes; expected values measured from
//! MuJoCo 4.0.0 with `m = mujoco.MjModel.from_xml_string(XML)` (the test's XML), printing
//! `m.opt.disableflags`, `m.exclude_signature`, `m.pair_*` and `m.key_*`.

use specula_model::types::{Cone, Integrator, Jacobian, Solver};
use specula_model::{load_str, Model};
use std::path::Path;

const XML: &str = r#"<mujoco>
<option timestep=".001" integrator="implicitfast" cone="elliptic" impratio="10" o_margin=".01"
  o_solref=".05 2" o_friction=".5 .5 .1 .1 .1" density="1.2" viscosity="1e-5" wind="1 0 0"
  jacobian="sparse" solver="CG" iterations="20">
  <flag contact="disable" gravity="disable" override="enable" speculative="enable"
    warmstart="disable" island="enable" multiccd="enable"/></option>
<worldbody><body name="a"><freejoint/><geom name="ga" size=".1" margin=".3" priority="2"/></body>
<body name="b"><freejoint/><geom name="gb" size=".1"/></body></worldbody>
<contact><exclude body1="b" body2="a"/><exclude body1="world" body2="a"/>
<pair geom1="gb" geom2="ga" condim="1" friction="0.3 0.4" margin="0.02"/><pair geom1="ga" geom2="gb"/></contact>
<keyframe><key name="k1" time="1.5" qpos="1 2 3 2 0 0 0 0 0 0 1 0 0 0"/><key name="k2"/></keyframe>
</mujoco>"#;

fn load(xml: &str) -> Model {
    match load_str(xml, Path::new("."), "<test>") {
        Ok(m) => m,
        Err(e) => panic!("compile failed: {e}"),
    }
}

#[test]
fn options_and_flags() {
    let m = load(XML);
    let o = &m.opt;
    assert_eq!(o.timestep, 0.001);
    assert_eq!(o.integrator, Integrator::ImplicitFast);
    assert_eq!(o.cone, Cone::Elliptic);
    assert_eq!(o.jacobian, Jacobian::Sparse);
    assert_eq!(o.solver, Solver::Cg);
    assert_eq!(o.iterations, 20);
    assert_eq!(o.o_solref, [0.05, 2.0]);
    assert_eq!(o.o_friction, [0.5, 0.5, 0.1, 0.1, 0.1]);
    // contact (1<<4) + gravity (1<<7) + warmstart (1<<9); island and multiccd "enable" clear bits
    assert_eq!(o.disableflags, 656);
    // override (1<<0) + speculative (1<<7)
    assert_eq!(o.enableflags, 129);
}

#[test]
fn pairs_and_excludes() {
    let m = load(XML);
    // (min << 16) + max, sorted: world-a = 1, a-b = (1 << 16) + 2
    assert_eq!(m.exclude_signature, vec![1, 65538]);
    assert_eq!(m.npair, 2);
    // both pairs are between bodies 1 and 2: geom1 is always the geom on the lower body
    assert_eq!(m.pair_signature, vec![65538, 65538]);
    assert_eq!(m.pair_geom1, vec![0, 0]);
    assert_eq!(m.pair_geom2, vec![1, 1]);
    assert_eq!(m.pair_dim, vec![1, 3]);
    // a partial friction keeps the pair defaults for the rest
    assert_eq!(m.pair_friction[0], [0.3, 0.4, 0.005, 0.0001, 0.0001]);
    assert_eq!(m.pair_margin, vec![0.02, 0.0]);
    // unspecified values come from the pair default class, not from the geoms (margin .3,
    // priority 2 on ga are ignored)
    assert_eq!(m.pair_friction[1], [1.0, 1.0, 0.005, 0.0001, 0.0001]);
    assert_eq!(m.pair_solref[1], [0.02, 1.0]);
    assert_eq!(m.pair_solimp[1], [0.9, 0.95, 0.001, 0.5, 2.0]);
    assert_eq!(m.pair_solreffriction[1], [0.0, 0.0]);
}

#[test]
fn keyframes() {
    let m = load(XML);
    assert_eq!(m.nkey, 2);
    assert_eq!(m.key_names, vec!["k1", "k2"]);
    assert_eq!(m.key_time, vec![1.5, 0.0]);
    // the free joint's quaternion (2,0,0,0) is normalised; missing keys copy qpos0
    assert_eq!(m.key_qpos[..14], [1.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(m.key_qpos[14..], m.qpos0[..]);
    assert_eq!(m.key_qvel, vec![0.0; 24]);
}

#[test]
fn body_tree_ids() {
    let m = load(
        r#"<mujoco><worldbody>
        <body name="m" mocap="true"><geom size=".1"/></body>
        <body name="a"><joint/><geom size=".1"/>
          <body name="s"><geom size=".1"/><body name="c"><joint type="slide"/><geom size=".1"/></body></body>
        </body></worldbody></mujoco>"#,
    );
    assert_eq!(m.body_parentid, vec![0, 0, 0, 2, 3]);
    assert_eq!(m.body_rootid, vec![0, 1, 2, 2, 2]);
    assert_eq!(m.body_weldid, vec![0, 1, 2, 2, 4]);
    assert_eq!(m.body_mocapid, vec![-1, 0, -1, -1, -1]);
    assert_eq!(m.body_treeid, vec![-1, -1, 0, 0, 0]);
    assert_eq!(m.dof_parentid, vec![-1, 0]);
    assert_eq!(m.jnt_qposadr, vec![0, 1]);
}
