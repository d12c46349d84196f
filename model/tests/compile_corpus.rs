//! Compiles every MJCF file of the shared parity corpus; none may panic. Files that use
//! features specula does not support yet must fail with an error, and everything else must
//! compile. The expected failures are listed so that a regression (or a newly supported
//! feature) shows up as a test failure.

use specula_model::load_file;
use std::path::{Path, PathBuf};

/// Corpus files expected to fail, with the reason.
const UNSUPPORTED: [(&str, &str); 2] =
    [("model/surfacevel/carousel.xml", "builtin"), ("test/user/testdata/makemesh.xml", "builtin")];

fn corpus_dir() -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in ["../../shared/mjcf/corpus", "../shared/mjcf/corpus"] {
        let p = base.join(rel);
        if p.is_dir() {
            return p;
        }
    }
    panic!("MJCF corpus not found next to the repository (expected ../shared/mjcf/corpus)");
}

fn xml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            xml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "xml") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_compiles_without_panics() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    xml_files(&dir, &mut files);
    assert!(files.len() >= 50, "corpus looks incomplete: {} files", files.len());
    let mut report = Vec::new();
    let mut unexpected = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&dir).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
        let result = std::panic::catch_unwind(|| load_file(f));
        let expected = UNSUPPORTED.iter().find(|(p, _)| *p == rel).map(|(_, why)| *why);
        match (result, expected) {
            (Err(_), _) => unexpected.push(format!("{rel}: PANIC")),
            (Ok(Ok(_)), None) => {}
            (Ok(Ok(_)), Some(_)) => unexpected.push(format!("{rel}: now compiles (update UNSUPPORTED)")),
            (Ok(Err(e)), Some(why)) if e.message.contains(why) => report.push(format!("{rel}: {e}")),
            (Ok(Err(e)), _) => unexpected.push(format!("{rel}: {e}")),
        }
    }
    for r in &report {
        println!("expected failure: {r}");
    }
    assert!(unexpected.is_empty(), "unexpected results:\n{}", unexpected.join("\n"));
}

/// `attach` of a body and of a frame from a model asset, into a body, the world and frames.
/// Expected values measured with `mujoco.MjModel.from_xml_path("test/xml/testdata/parent.xml")`
/// (MuJoCo 4.0.0): names get the prefix, the attached frame's pose composes with the parent's.
#[test]
fn attach_prefixes_and_frames() {
    let m = match load_file(&corpus_dir().join("test/xml/testdata/parent.xml")) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    let names =
        ["world", "parent", "other1body", "other2body2", "other2body3", "other3body2", "other3body3", "other4body"];
    assert_eq!(m.body_names, names);
    assert_eq!(m.body_parentid, vec![0, 0, 1, 0, 0, 0, 0, 0]);
    let pos = [
        [0.0; 3],
        [0.0; 3],
        [0.0; 3],
        [-1.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 4.0],
        [1.0, 0.0, 4.0],
        [2.0, 0.0, -1.0],
    ];
    assert_eq!(m.body_pos, pos);
    assert_eq!(m.geom_names[1], "other1geom");
    assert_eq!(m.nq, 28);
}
