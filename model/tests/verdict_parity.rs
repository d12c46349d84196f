//! specula's compiler gives MuJoCo 4.0.0's verdict: it refuses what MuJoCo refuses, with its own
//! message at the offending line and column, and reads what MuJoCo reads.
//!
//! `verdict_cases/reject/*.xml` and `verdict_cases/accept/*.xml` are probe files, each loaded
//! with MuJoCo 4.0.0 (`specula check`) when it was written: every reject file starts (or, when a
//! declaration must come first, ends) with a comment quoting MuJoCo's message and the opening
//! words of specula's, which the test looks for. The snippet tests below pin one case of each
//! class with the exact position.

use std::path::{Path, PathBuf};

use specula_model::{load_file, load_str, MjcfError};

/// The probe files of one folder, sorted.
fn cases(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verdict_cases").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    files
}

/// The words of specula's message a reject file's comment expects.
fn expected_words(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read case");
    let text = String::from_utf8_lossy(&bytes);
    let key = "specula says: \"";
    let at = text.find(key).unwrap_or_else(|| panic!("{}: no 'specula says' comment", path.display()));
    let rest = &text[at + key.len()..];
    rest[..rest.find("\" -->").expect("closing quote")].replace("- -", "--")
}

#[test]
fn every_file_mujoco_rejects_is_rejected_at_a_line_and_column() {
    let files = cases("reject");
    assert!(files.len() >= 150, "expected the probe files, found {}", files.len());
    let mut wrong = Vec::new();
    for f in &files {
        match load_file(f) {
            Ok(_) => wrong.push(format!("{}: accepted", f.display())),
            Err(e) => {
                let words = expected_words(f);
                if e.pos.line == 0 || e.pos.col == 0 || !e.message.contains(&words) {
                    wrong.push(format!("{}: {e} (expected '{words}' at a line and column)", f.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), files.len(), wrong.join("\n"));
}

#[test]
fn every_file_mujoco_accepts_is_accepted() {
    let files = cases("accept");
    assert!(files.len() >= 40, "expected the probe files, found {}", files.len());
    let wrong: Vec<String> =
        files.iter().filter_map(|f| load_file(f).err().map(|e| format!("{}: {e}", f.display()))).collect();
    assert!(wrong.is_empty(), "{} of {} rejected:\n{}", wrong.len(), files.len(), wrong.join("\n"));
}

/// A small model with two bodies, hinge `j1`, slide `j2`, geoms `g1`, `g2` and sites `s1`, `s2`,
/// `s3`; `extra` goes after the world body (line 6 on).
fn model(extra: &str) -> String {
    format!(
        "<mujoco>\n<worldbody>\n<body name=\"b1\"><joint name=\"j1\"/><geom name=\"g1\" size=\".1\"/><site name=\"s1\"/>\
         <site name=\"s2\" pos=\"0 0 .1\"/></body>\n<body name=\"b2\"><joint name=\"j2\" type=\"slide\"/>\
         <geom name=\"g2\" size=\".1\"/><site name=\"s3\"/></body>\n</worldbody>\n{extra}\n</mujoco>"
    )
}

/// specula's error for `xml`, which must be refused.
fn refused(xml: &str) -> MjcfError {
    match load_str(xml, Path::new("."), "t.xml") {
        Ok(_) => panic!("accepted:\n{xml}"),
        Err(e) => e,
    }
}

/// Asserts `xml` is refused at `line`:`col` with a message containing every one of `words`.
fn refused_at(xml: &str, line: u32, col: u32, words: &[&str]) {
    let e = refused(xml);
    assert_eq!((e.pos.line, e.pos.col), (line, col), "{e}");
    for w in words {
        assert!(e.message.contains(w), "'{w}' not in: {e}");
    }
}

#[test]
fn a_dangling_tendon_site_is_refused_at_its_attribute() {
    // `<tendon>` and `<spatial>` fill columns 1-17, `<site site="s1"/>` 18-34; the second
    // `<site` starts at 35 and its `site=` at 41.
    let xml = model("<tendon><spatial><site site=\"s1\"/><site site=\"nosuch\"/></spatial></tendon>");
    refused_at(&xml, 6, 41, &["site 'nosuch' not found in tendon"]);
}

#[test]
fn a_dangling_actuator_joint_is_refused_at_its_attribute() {
    refused_at(&model("<actuator><motor joint=\"nosuch\"/></actuator>"), 6, 18, &["transmission target 'nosuch'"]);
}

#[test]
fn a_dangling_equality_body_is_refused_at_its_attribute() {
    refused_at(&model("<equality><weld body1=\"nosuch\"/></equality>"), 6, 17, &["unknown element 'nosuch'"]);
}

#[test]
fn a_dangling_material_texture_is_refused_at_its_attribute() {
    let xml = model("<asset><material name=\"m\" texture=\"nosuch\"/></asset>");
    refused_at(&xml, 6, 27, &["texture 'nosuch' not found in material"]);
}

#[test]
fn a_dangling_sensor_object_is_refused_at_its_attribute() {
    refused_at(&model("<sensor><jointpos joint=\"nosuch\"/></sensor>"), 6, 19, &["unrecognized name 'nosuch'"]);
}

#[test]
fn a_repeated_actuator_name_is_refused_at_the_second() {
    let xml = model("<actuator><motor name=\"a\" joint=\"j1\"/><motor name=\"a\" joint=\"j2\"/></actuator>");
    refused_at(&xml, 6, 39, &["repeated name 'a' in actuator", "t.xml:6:11"]);
}

#[test]
fn repeated_names_are_refused_in_every_kind_mujoco_checks() {
    for (extra, kind) in [
        ("<asset><texture name=\"t\" builtin=\"flat\" width=\"2\" height=\"2\"/><texture name=\"t\" file=\"t.png\"/></asset>", "texture"),
        ("<asset><material name=\"m\"/><material name=\"m\"/></asset>", "material"),
        ("<sensor><jointpos name=\"s\" joint=\"j1\"/><jointpos name=\"s\" joint=\"j2\"/></sensor>", "sensor"),
        ("<keyframe><key name=\"k\"/><key name=\"k\"/></keyframe>", "key"),
        ("<contact><exclude name=\"x\" body1=\"b1\" body2=\"b2\"/><exclude name=\"x\" body1=\"b2\" body2=\"b1\"/></contact>", "exclude"),
    ] {
        let e = refused(&model(extra));
        assert!(e.message.contains(&format!("in {kind}")) && e.pos.line == 6, "{kind}: {e}");
    }
}

#[test]
fn a_builtin_texture_of_width_zero_is_refused() {
    let xml = model("<asset><texture name=\"t\" type=\"2d\" builtin=\"checker\" width=\"0\" height=\"8\"/></asset>");
    refused_at(&xml, 6, 8, &["Invalid width of builtin texture"]);
}

#[test]
fn a_spatial_tendon_with_one_site_is_refused() {
    refused_at(&model("<tendon><spatial><site site=\"s1\"/></spatial></tendon>"), 6, 9, &["at least two objects"]);
}

#[test]
fn non_utf8_bytes_in_names_keep_names_distinct() {
    // Two bodies named by different non-UTF-8 bytes are two names (MuJoCo 4.0.0 loads this).
    let xml: &[u8] = b"<mujoco><worldbody><body name=\"\xff\"><geom size=\".1\"/></body>\
                       <body name=\"\xfe\"><geom size=\".1\"/></body></worldbody></mujoco>";
    let dir = std::env::temp_dir().join(format!("specula_verdict_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("latin1.xml");
    std::fs::write(&file, xml).expect("write");
    let m = load_file(&file).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.nbody, 3);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_short_keyframe_takes_the_default_pose_for_the_rest() {
    // qpos0 of a hinge and a ball joint is 0 1 0 0 0; qpos="0.5" gives 0.5 1 0 0 0.
    let xml = "<mujoco><worldbody><body><joint/><joint type=\"ball\"/><geom size=\".1\"/></body></worldbody>\
               <keyframe><key qpos=\"0.5\"/></keyframe></mujoco>";
    let m = load_str(xml, Path::new("."), "t.xml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.key_qpos, vec![0.5, 1.0, 0.0, 0.0, 0.0]);
}
