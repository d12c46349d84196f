//! The native route's equality constraints (connect, weld, joint) against MuJoCo C 4.0.0: the
//! data `mj_setConst` derives at `qpos0`, then 1000 steps beside `mj_step` bit for bit on the
//! project's scene (a chain closed by a connect, welded free bodies, a joint coupling across
//! trees, inactive site weld and connect) and the corpus files with equalities the route takes,
//! and tampered equality inputs seen.

mod common;
mod native_steps;
use common::root;
use native_steps::*;

use specula::mj::Model as CModel;
use specula_native::Native;

/// The project's equality scene, its xml with `option` set, and the corpus files with equalities
/// inside the native subset.
fn scene() -> std::path::PathBuf {
    root().join("scenes/equality.xml")
}

/// (`None`, after a message, on a clone without the corpus.)
fn corpus(name: &str) -> Option<std::path::PathBuf> {
    common::corpus_part(&format!("test/engine/testdata/{name}"))
}

/// `scenes/equality.xml` with `attrs` added to its `option`.
fn scene_with(attrs: &str) -> String {
    let xml = std::fs::read_to_string(scene()).unwrap();
    xml.replacen("<option ", &format!("<option {attrs} "), 1)
}

#[test]
fn eq_data_derived_at_qpos0_is_mujocos_bit_for_bit() {
    let corpus_files = ["weld.xml", "connect.xml", "equality_site.xml"].map(corpus);
    for path in std::iter::once(scene()).chain(corpus_files.into_iter().flatten()) {
        let c = CModel::from_xml_path(&path).unwrap();
        let native = specula_native::NativeModel::new(specula_model::load_file(&path).unwrap());
        let m = c.mj();
        // SAFETY: eq_data holds neq x mjNEQDATA values.
        let theirs = unsafe { raw_slice(m.eq_data, m.neq as usize * mujoco_sys::mjNEQDATA as usize) };
        let ours = &native.equalities.eq_data;
        assert_eq!(ours.len(), theirs.len(), "{}", path.display());
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{}: eq_data[{i}] {a} against {b}", path.display());
        }
    }
}

#[test]
fn the_equality_scene_steps_like_mj_step() {
    for (name, xml) in [
        ("Newton", scene_with("")),
        ("PGS", scene_with(r#"solver="PGS""#)),
        ("Newton, elliptic", scene_with(r#"cone="elliptic""#)),
        ("Newton, no gravity", scene_with(r#"gravity="0 0 0""#)),
    ] {
        let o = run_keyed(&xml, 1000, |_| {});
        assert_eq!((o.diff, o.refused), (None, None), "{name}: first difference or refusal");
        assert_eq!(o.rows.0, 1000, "{name}: every step has equality rows");
        eprintln!("equality scene, {name}: 1000 steps equal mj_step's bit for bit");
    }
}

#[test]
fn corpus_files_with_equalities_step_like_mj_step() {
    for name in ["weld.xml", "connect.xml", "island/island_efc.xml"] {
        let Some(path) = corpus(name) else { continue };
        let c = CModel::from_xml_path(&path).unwrap();
        let native = Native::load_file(&path).unwrap();
        let o = step_both_full(native, &c, 1000);
        assert_eq!((o.diff, o.refused), (None, None), "{name}: first difference or refusal");
        assert!(o.rows.0 > 0, "{name}: no constraint rows");
        eprintln!("{name}: 1000 steps equal mj_step's bit for bit (driven through qfrc_applied)");
    }
}

#[test]
fn tampered_equality_inputs_are_seen() {
    let xml = scene_with("");
    let tampers: [(&str, Tamper); 4] = [
        ("loop connect switched off", Box::new(|n: &mut Native| n.data.eq_active[0] = 0)),
        ("site weld switched on", Box::new(|n: &mut Native| n.data.eq_active[4] = 1)),
        ("weld relative pose by one ulp", Box::new(|n: &mut Native| ulp(&mut n.model.equalities.eq_data[12 + 6]))),
        ("polynomial by one ulp", Box::new(|n: &mut Native| ulp(&mut n.model.equalities.eq_data[3 * 12 + 2]))),
    ];
    for (what, tamper) in tampers {
        let o = run_keyed(&xml, 200, tamper);
        assert!(o.diff.is_some(), "{what}: unseen");
        eprintln!("{what}: seen at {:?}", o.diff);
    }
}
