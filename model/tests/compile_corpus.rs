//! Compiles every MJCF file of the shared parity corpus; none may panic and all must compile
//! (files using a feature specula does not support yet would be listed in `UNSUPPORTED` with
//! the expected error; currently there are none). A few files also get value checks. On a clone
//! without the corpus each test says that it was skipped.

mod common;
use common::assert_close;

use specula_model::load_file;
use std::path::{Path, PathBuf};

/// Corpus files expected to fail, with the reason.
const UNSUPPORTED: [(&str, &str); 0] = [];

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
    let Some(dir) = common::corpus() else { return };
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
    let Some(corpus) = common::corpus() else { return };
    let m = match load_file(&corpus.join("test/xml/testdata/parent.xml")) {
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

/// Load a corpus file that must compile; `None` (the test is skipped) without the corpus.
fn corpus_model(rel: &str) -> Option<specula_model::Model> {
    match load_file(&common::corpus()?.join(rel)) {
        Ok(m) => Some(m),
        Err(e) => panic!("{e}"),
    }
}

/// A scaled inline mesh geom end to end (the geom frame absorbs the mesh frame; the body
/// inertia is built from the body's geoms). Values measured with
/// `mujoco.MjModel.from_xml_path("model/car/car.xml")`, geom 1 and its body.
#[test]
fn mesh_geom_car_chassis() {
    let Some(m) = corpus_model("model/car/car.xml") else { return };
    assert_eq!(m.geom_dataid[1], 0);
    assert_close(&m.geom_size[1], &[0.0272875366173494, 0.06000000000000024, 0.12649312230654122], 1e-12);
    assert_close(&[m.geom_rbound[1]], &[0.14263631951750863], 1e-12);
    assert_close(&m.geom_pos[1], &[-0.025660173160173157, -1.591497090049115e-19, 0.0007954545454545459], 1e-12);
    assert_close(&m.geom_quat[1], &[0.0, 0.7332629804102228, 0.0, 0.6799451459933523], 1e-12);
    let b = m.geom_bodyid[1];
    assert_close(&[m.body_mass[b]], &[0.429937166941154], 1e-12);
    assert_close(&m.body_inertia[b], &[0.0013231924229255352, 0.0010946778730365212, 0.0003028088351356932], 1e-12);
    assert_close(&m.body_iquat[b], &[0.0, 0.7370325758071657, 0.0, 0.6758572202758945], 1e-12);
}

/// Height field with inline elevation: geom size (x, y, top/4 + base/2), box from -base to
/// top, bounding radius sqrt(x² + y² + max(top, base)²); data normalised to [0, 1].
#[test]
fn hfield_inline_elevation() {
    let Some(m) = corpus_model("test/user/testdata/hfield_xml.xml") else { return };
    assert_eq!((m.hfield_nrow[0], m.hfield_ncol[0]), (12, 10));
    assert_close(&m.geom_size[0], &[0.9, 1.1, 0.25 * 0.2 + 0.5 * 0.1], 1e-15);
    assert_close(&m.geom_aabb[0], &[0.0, 0.0, 0.05, 0.9, 1.1, 0.15000000000000002], 1e-15);
    assert_close(&[m.geom_rbound[0]], &[(0.81f64 + 1.21 + 0.04).sqrt()], 1e-15);
    assert_eq!(m.hfield_data.iter().copied().fold(0f32, f32::max), 1.0);
}
