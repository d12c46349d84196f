//! The native route (`native/`, crate `specula-native`) against MuJoCo C 4.0.0: the model fields
//! MuJoCo computes at the end of compilation, derived from specula's own compiled model, equal
//! the C model's bit for bit; a constraint-free scene stepped natively equals `mj_step` bit for
//! bit, step by step; models outside the subset are refused; and every comparison fails on a
//! tampered input. Inline MJCF and the project's scenes run everywhere; the corpus part says it
//! was skipped when `../shared/mjcf/corpus` is absent.
mod common;
mod native_steps;
use common::root;
use native_steps::*;

use std::path::Path;

use specula::mj::{fields, Data as CData, Model as CModel};
use specula_native::{Native, NativeError, NativeModel};

/// A pendulum chain: hinges about three different axes with damping (linear and polynomial),
/// springs about a reference, armature, a ball joint and a slide, gravity, no contacts.
const CHAIN: &str = r#"<mujoco model="chain">
  <option timestep="0.002" gravity="0.3 -0.2 -9.81"/>
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body name="a" pos="0 0 2">
      <joint name="j0" type="hinge" axis="0 1 0" damping="0.3" armature="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0"/>
      <body name="b" pos="0.4 0 0" euler="10 20 30">
        <joint name="j1" type="hinge" axis="1 0 0" damping="0.2" stiffness="3" springref="0.4"/>
        <geom type="box" size="0.1 0.05 0.03" pos="0.2 0 0"/>
        <body name="c" pos="0.4 0 0">
          <joint name="j2" type="ball" damping="0.05"/>
          <geom type="sphere" pos="0.1 0.1 0"/>
          <body name="d" pos="0.2 0.1 0">
            <joint name="j3" type="slide" axis="1 1 0" damping="1" stiffness="10"/>
            <joint name="j4" type="hinge" axis="0 0 1" damping="0.1" armature="0.002"/>
            <geom type="ellipsoid" size="0.1 0.06 0.04" pos="0 0.1 0"/>
          </body>
        </body>
      </body>
    </body>
    <body name="e" pos="1 0 1">
      <joint name="j5" type="hinge" axis="0 1 0" stiffness="2"/>
      <geom type="cylinder" size="0.05 0.2" pos="0 0 -0.2"/>
    </body>
  </worldbody>
</mujoco>"#;

/// A free body with a hinged child, a mocap body, slide-only and simple bodies under the world
/// (reduced rows of `M`), no contacts.
const TREES: &str = r#"<mujoco model="trees">
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body name="free" pos="0 0 1" quat="0.9 0.1 0.3 0.2">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="arm" pos="0.2 0 0">
        <joint type="hinge" axis="0 0 1" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0"/>
      </body>
    </body>
    <body name="slider" pos="2 0 0">
      <joint type="slide" axis="1 0 0"/>
      <joint type="slide" axis="0 1 0"/>
      <joint type="slide" axis="0 0 1" damping="2"/>
      <geom type="sphere"/>
    </body>
    <body name="wheel" pos="-2 0 0">
      <joint type="hinge" axis="0 0 1" damping="0.1"/>
      <geom type="cylinder" size="0.2 0.02"/>
    </body>
    <body name="mocap" mocap="true" pos="0 3 0"><geom type="sphere"/></body>
    <body name="ball" pos="0 -2 1">
      <joint type="ball" stiffness="1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5"/>
    </body>
  </worldbody>
</mujoco>"#;

/// The C model's array `name` (integers as f64).
fn c_array(c: &CModel, name: &str) -> Vec<f64> {
    fields::array(c.mj(), name).unwrap_or_else(|| panic!("no mjModel array {name}")).0
}

/// The native model's derived fields by MuJoCo's names, as f64.
fn derived(nm: &NativeModel) -> Vec<(&'static str, Vec<f64>)> {
    let f = |v: &[i32]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let l = &nm.layout;
    let k = &nm.consts;
    let s = &k.stat;
    let mut out = vec![
        // the compiler's own fields the route reads, compared here too
        ("body_subtreemass", nm.model.body_subtreemass.clone()),
        ("qpos_spring", nm.model.qpos_spring.clone()),
        ("dof_simplenum", f(&l.dof_simplenum)),
        ("M_rownnz", f(&l.m.rownnz)),
        ("M_rowadr", f(&l.m.rowadr)),
        ("M_colind", f(&l.m.colind)),
        ("D_rownnz", f(&l.d.rownnz)),
        ("D_rowadr", f(&l.d.rowadr)),
        ("D_colind", f(&l.d.colind)),
        ("D_diag", f(&l.d_diag)),
        ("B_rownnz", f(&l.b.rownnz)),
        ("B_rowadr", f(&l.b.rowadr)),
        ("B_colind", f(&l.b.colind)),
        ("mapM2D", f(&l.map_m2d)),
        ("mapD2M", f(&l.map_d2m)),
        ("mapM2M", f(&l.map_m2m)),
        ("dof_M0", k.dof_m0.clone()),
        ("body_invweight0", k.body_invweight0.clone()),
        ("dof_invweight0", k.dof_invweight0.clone()),
        ("dof_length", k.dof_length.clone()),
        ("stat.meaninertia", vec![s.meaninertia]),
        ("stat.meanmass", vec![s.meanmass]),
        ("stat.meansize", vec![s.meansize]),
        ("stat.extent", vec![s.extent]),
        ("stat.center", s.center.to_vec()),
    ];
    // tendons specula's compiler compiled, with the lengths of spatial ones from the route
    if nm.model.tendon_unsupported.is_none() {
        out.push(("tendon_invweight0", k.tendon_invweight0.clone()));
        out.push(("tendon_length0", nm.model.tendon_length0.clone()));
        out.push(("tendon_lengthspring", nm.model.tendon_lengthspring.concat()));
    }
    out
}

/// The C model's value of a derived field.
fn c_derived(c: &CModel, name: &str) -> Vec<f64> {
    let st = &c.mj().stat;
    match name {
        "stat.meaninertia" => vec![st.meaninertia],
        "stat.meanmass" => vec![st.meanmass],
        "stat.meansize" => vec![st.meansize],
        "stat.extent" => vec![st.extent],
        "stat.center" => st.center.to_vec(),
        _ => c_array(c, name),
    }
}

/// The derived fields that differ from the C model's bit for bit: (field, index, native, C); a
/// length difference is reported at index `usize::MAX`.
fn mismatches(nm: &NativeModel, c: &CModel, skip: &[&str]) -> (usize, Vec<(&'static str, usize, f64, f64)>) {
    let (mut values, mut out) = (0, Vec::new());
    for (name, ours) in derived(nm) {
        if skip.contains(&name) {
            continue;
        }
        let theirs = c_derived(c, name);
        if ours.len() != theirs.len() {
            out.push((name, usize::MAX, ours.len() as f64, theirs.len() as f64));
            continue;
        }
        values += ours.len();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a.to_bits() != b.to_bits() {
                out.push((name, i, *a, *b));
            }
        }
    }
    (values, out)
}

/// The text of an MJCF file and of the files it includes, recursively.
fn mjcf_text(path: &Path) -> String {
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    for part in text.clone().split("<include").skip(1) {
        if let Some(name) = part.split('"').nth(1) {
            text += &mjcf_text(&dir.join(name));
        }
    }
    text
}

/// Whether the C model holds anything that changes the pass at `qpos0` beyond specula's model:
/// actuator armature (in `dof_M0` and `M`), or a `<statistic>` override.
fn c_extras(c: &CModel, path: &Path) -> (bool, bool) {
    let armature = c_array(c, "actuator_armature").iter().any(|&a| a != 0.0);
    (armature, mjcf_text(path).contains("<statistic"))
}

#[test]
fn derived_fields_of_inline_models_equal_mujoco_bit_for_bit() {
    for (name, xml) in [("chain", CHAIN), ("trees", TREES)] {
        let (rust, c) = both(xml);
        let nm = NativeModel::new(rust);
        let (values, bad) = mismatches(&nm, &c, &[]);
        assert!(bad.is_empty(), "{name}: {bad:?}");
        assert!(values > 100, "{name}: only {values} values compared");
        eprintln!("{name}: {values} derived values equal MuJoCo's bit for bit");
    }
}

/// The project's scenes, and the corpus where present: every model both compilers accept.
#[test]
fn derived_fields_of_scenes_and_corpus_equal_mujoco_bit_for_bit() {
    let files = model_files();
    let (mut models, mut values, mut bad_all, mut skipped, mut extras) = (0, 0, Vec::new(), Vec::new(), 0);
    for path in &files {
        let (Ok(rust), Ok(c)) = (specula_model::load_file(path), CModel::from_xml_path(path)) else {
            skipped.push(path.display().to_string());
            continue;
        };
        let (armature, statistic) = c_extras(&c, path);
        let mut skip = Vec::new();
        (armature as usize + statistic as usize > 0).then(|| extras += 1);
        if armature {
            skip.extend(["dof_M0", "body_invweight0", "dof_invweight0", "tendon_invweight0", "stat.meaninertia"]);
        }
        if statistic {
            skip.extend(["stat.meaninertia", "stat.meanmass", "stat.meansize", "stat.extent", "stat.center"]);
        }
        let nm = NativeModel::new(rust);
        let (n, bad) = mismatches(&nm, &c, &skip);
        models += 1;
        values += n;
        for b in bad.into_iter().take(3) {
            bad_all.push(format!("{}: {b:?}", path.display()));
        }
    }
    eprintln!(
        "{models} models ({extras} with armature or <statistic> fields left out), {values} derived values compared, {} differing; not loaded by both: {skipped:?}",
        bad_all.len()
    );
    assert!(bad_all.is_empty(), "{bad_all:#?}");
    assert!(models >= 6, "too few models compared");
}

#[test]
fn inline_scenes_step_like_mj_step_bit_for_bit_for_1000_steps() {
    for (name, xml) in [("chain", CHAIN), ("trees", TREES)] {
        for integrator in ["Euler", "implicitfast"] {
            let xml = with_integrator(xml, integrator);
            let (diff, steps) = run_both(&xml, 1000, |_| {});
            assert_eq!(diff, None, "{name}, {integrator}: first difference (step, field, index)");
            eprintln!("{name}, {integrator}: {steps} steps, {STEP_FIELDS:?} equal mj_step's bit for bit at every step");
        }
    }
}

/// A keyframe with positions, velocities and time, and a mocap pose: the native reset to it
/// steps like MuJoCo's.
/// The disable flags the native step reads (gravity, springs, dampers, Euler's implicit damping),
/// each alone on the chain under both integrators.
#[test]
fn disable_flags_step_like_mj_step() {
    for flag in ["gravity", "spring", "damper", "eulerdamp"] {
        let xml = CHAIN.replace("<default>", &format!("<option><flag {flag}=\"disable\"/></option>\n  <default>"));
        let native = Native::load_str(&xml, Path::new("."), "inline.xml").unwrap();
        assert_ne!(native.model.model.opt.disableflags, 0, "{flag}: the flag did not reach the model");
        for integrator in ["Euler", "implicitfast"] {
            let (diff, _) = run_both(&with_integrator(&xml, integrator), 1000, |_| {});
            assert_eq!(diff, None, "{flag} disabled, {integrator}: first difference");
        }
    }
}

#[test]
fn keyframe_reset_steps_like_mj_step() {
    let key = r#"<keyframe><key time="1.5" qpos="0.3 -0.2 0.6 0.0 0.8 0.0 0.1 0.5 0.2" qvel="1 -1 0.5 0.2 -0.3 0.1 2 -2"/></keyframe>
</mujoco>"#;
    let xml = CHAIN.replace("</mujoco>", key);
    let (rust, c) = both(&xml);
    let mut native = Native::new(rust).unwrap();
    native.reset_keyframe(0).unwrap();
    assert!(matches!(native.reset_keyframe(1), Err(NativeError::NoKeyframe { key: 1, nkey: 1 })));
    let mut cd = CData::new(&c).unwrap();
    cd.reset_keyframe(0).unwrap();
    for step in 0..500 {
        native.step().unwrap();
        cd.step().unwrap();
        for field in STEP_FIELDS {
            let ours = native_field(&native.data, field);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            assert_eq!(bits(ours), bits(c_field(&cd, field, ours.len())), "{field} at step {step}");
        }
        assert_eq!(native.data.time.to_bits(), cd.mj().time.to_bits());
    }
}

#[test]
fn tampered_inputs_make_the_checks_fail() {
    // one ulp on one derived constant: the derived-field comparison sees it
    let (rust, c) = both(CHAIN);
    let mut nm = NativeModel::new(rust);
    nm.consts.dof_m0[2] = f64::from_bits(nm.consts.dof_m0[2].to_bits() + 1);
    let (_, bad) = mismatches(&nm, &c, &[]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    // a layout entry moved: seen too
    nm.layout.map_m2d.swap(0, 1);
    assert!(mismatches(&nm, &c, &[]).1.len() >= 2);
    // one ulp of damping in the native model: the trajectories part
    let (diff, _) = run_both(CHAIN, 1000, |n| {
        n.model.model.dof_damping[0] = f64::from_bits(n.model.model.dof_damping[0].to_bits() + 1)
    });
    assert!(diff.is_some(), "a one-ulp damping change went unseen");
    // a wrong simple-dof layout (every dof simple): the step differs from the first step
    let (diff, _) = run_both(TREES, 10, |n| n.model.layout.dof_simplenum.iter_mut().for_each(|s| *s = 0));
    assert!(diff.is_some(), "a changed simple-dof layout went unseen");
    // a wrong map from D to M under implicitfast: seen
    let xml = with_integrator(CHAIN, "implicitfast");
    let (diff, _) = run_both(&xml, 10, |n| n.model.layout.map_d2m.swap(1, 2));
    assert!(diff.is_some(), "a changed mapD2M went unseen");
}

/// Models outside the subset are refused with what is missing named.
#[test]
fn models_outside_the_subset_are_refused() {
    let cases = [
        (
            "actuator",
            r#"<worldbody><body><joint name="h"/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody><actuator><motor joint="h" armature="0.1"/></actuator>"#,
            "actuator armature",
        ),
        (
            "exact diagonal",
            r#"<option jacobian="sparse"><flag diagexact="enable"/></option><worldbody><geom type="plane" size="1 1 1"/><body pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody>"#,
            "exact diagonal",
        ),
        (
            "discrete",
            r#"<option integrator="discrete"/><worldbody><body><joint/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody>"#,
            "integrator",
        ),
        (
            "noslip",
            r#"<option noslip_iterations="2" jacobian="sparse"/><worldbody><body><joint frictionloss="1"/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody>"#,
            "noslip on a sparse",
        ),
    ];
    for (name, body, what) in cases {
        let xml = format!("<mujoco>{body}</mujoco>");
        match Native::load_str(&xml, Path::new("."), "inline.xml") {
            Err(e @ NativeError::Unsupported { .. }) => assert!(e.to_string().contains(what), "{name}: {e}"),
            other => panic!("{name}: not refused: {other:?}"),
        }
    }
    // the same contact scene with contacts disabled is accepted
    let xml = r#"<mujoco><option><flag contact="disable"/></option><worldbody><geom type="plane" size="1 1 1"/><body pos="0 0 1"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"#;
    assert!(Native::load_str(xml, Path::new("."), "inline.xml").is_ok());
    // and so is an explicit zero springyield
    let xml = r#"<mujoco><worldbody><body><joint springyield="0" stiffness="1"/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody></mujoco>"#;
    assert!(Native::load_str(xml, Path::new("."), "inline.xml").is_ok());
}

/// Time per step of the native route and of `mj_step` on the same model (run with `--ignored
/// --nocapture`; numbers, not a check).
#[test]
#[ignore]
fn native_step_time_against_mj_step() {
    let scenes: Vec<(String, String)> = vec![
        ("chain (inline)".into(), CHAIN.into()),
        ("trees (inline)".into(), TREES.into()),
        ("scenes/chain.xml, no constraints".into(), std::fs::read_to_string(root().join("scenes/chain.xml")).unwrap()),
        (
            "scenes/newton_cradle.xml, no constraints".into(),
            std::fs::read_to_string(root().join("scenes/newton_cradle.xml")).unwrap(),
        ),
        (
            "scenes/resting.xml, with contacts".into(),
            std::fs::read_to_string(root().join("scenes/resting.xml")).unwrap(),
        ),
        ("scenes/chain.xml, with contacts".into(), std::fs::read_to_string(root().join("scenes/chain.xml")).unwrap()),
    ];
    for (name, xml) in scenes {
        let (mut rust, mut c) = both(&xml);
        if name.contains("no constraints") {
            rust.opt.disableflags |= 1;
            c.raw_mut().unwrap().opt.disableflags |= 1;
        }
        let mut native = Native::new(rust).unwrap();
        let mut cd = CData::new(&c).unwrap();
        let n = 20_000;
        let median = |f: &mut dyn FnMut()| {
            let mut t: Vec<f64> = (0..5)
                .map(|_| {
                    let start = std::time::Instant::now();
                    for _ in 0..n {
                        f();
                    }
                    start.elapsed().as_secs_f64() * 1e9 / n as f64
                })
                .collect();
            t.sort_by(f64::total_cmp);
            t[2]
        };
        let ours = median(&mut || {
            if native.step().is_err() {
                native.reset();
            }
        });
        let theirs = median(&mut || cd.step().unwrap());
        eprintln!("{name}: native {ours:.0} ns/step, mj_step {theirs:.0} ns/step, ratio {:.2}", ours / theirs);
    }
}
