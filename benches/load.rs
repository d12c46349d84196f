//! Loading benchmark: specula's MJCF compiler against MuJoCo C's `mj_loadXML` on the same files,
//! measured in the same run (interleaved, median of repeats). Run with `cargo bench --bench load`;
//! pass file paths to time other scenes.

use std::path::PathBuf;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).map(PathBuf::from).collect();
    if files.is_empty() {
        let corpus = root.join("../shared/mjcf/corpus");
        files = ["model/replicate/leaves.xml", "model/humanoid/humanoid.xml", "model/replicate/bunnies.xml"]
            .iter()
            .map(|f| corpus.join(f))
            .collect();
        files.push(root.join("scenes/thin_parts.xml"));
    }
    println!("{:<40} {:>12} {:>12} {:>8}", "scene", "MuJoCo C", "specula", "ratio");
    for file in files {
        let (mut c, mut r) = (Vec::new(), Vec::new());
        for rep in 0..15 {
            let time_c = || {
                let t = Instant::now();
                let m = specula::mj::Model::from_xml_path(&file);
                let dt = t.elapsed().as_secs_f64();
                m.map(|_| dt)
            };
            let time_r = || {
                let t = Instant::now();
                let m = specula_model::load_file(&file);
                let dt = t.elapsed().as_secs_f64();
                m.map(|_| dt).map_err(|e| e.to_string())
            };
            let (a, b) = if rep % 2 == 0 {
                (time_c(), time_r())
            } else {
                let b = time_r();
                (time_c(), b)
            };
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    c.push(a);
                    r.push(b);
                }
                (a, b) => {
                    println!("{}: cannot load ({:?} / {:?})", file.display(), a.err(), b.err());
                    break;
                }
            }
        }
        if c.is_empty() {
            continue;
        }
        let (mc, mr) = (median(c), median(r));
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!("{:<40} {:>9.3} ms {:>9.3} ms {:>8.2}", name, mc * 1e3, mr * 1e3, mr / mc);
    }
}
