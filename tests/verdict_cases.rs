//! The compiler's verdict probes (`model/tests/verdict_cases/`) against MuJoCo 4.0.0 itself:
//! every `reject/` file is refused by MuJoCo C and by specula's compiler, every `accept/` file
//! loaded by both. specula's side alone is tested in `model/tests/verdict_parity.rs`; this is
//! the check that the probes say what MuJoCo does.

use std::path::{Path, PathBuf};

use specula::mj::Model;

fn probes(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/tests/verdict_cases").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    assert!(files.len() > 100, "{}: only {} probes", dir.display(), files.len());
    files
}

#[test]
fn mujoco_and_specula_give_every_probe_its_verdict() {
    let mut wrong = Vec::new();
    let mut counts = [0usize; 2];
    for (k, (kind, accept)) in [("reject", false), ("accept", true)].into_iter().enumerate() {
        for file in probes(kind) {
            counts[k] += 1;
            let mujoco = Model::from_xml_path(&file);
            let specula = specula_model::load_file(&file);
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if mujoco.is_ok() != accept {
                wrong.push(format!(
                    "{kind}/{name}: MuJoCo {}",
                    mujoco.err().map_or("loads it".into(), |e| e.to_string())
                ));
            }
            if specula.is_ok() != accept {
                wrong.push(format!(
                    "{kind}/{name}: specula {}",
                    specula.err().map_or("loads it".into(), |e| e.to_string())
                ));
            }
        }
    }
    eprintln!("{} reject and {} accept probes", counts[0], counts[1]);
    assert!(wrong.is_empty(), "{} wrong verdicts:\n{}", wrong.len(), wrong.join("\n"));
}
