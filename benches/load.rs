//! Loading benchmark: specula's MJCF compiler against MuJoCo C's `mj_loadXML` on the same files,
//! measured in the same run (interleaved, median of repeats). Run with `cargo bench --bench load`;
//! pass file paths to time other scenes (`--reps N` sets the repeats, default 15, fewer for slow
//! scenes).
//!
//! Besides the corpus scenes, the default run times a generated closed sphere mesh of 199,714
//! vertices (a UV sphere: 316 rings of 632 points and the two poles, every vertex a corner of
//! the hull, one colliding geom), whose hull MuJoCo builds with qhull and specula with its
//! replay of qhull's build (issue 16, item 4: the ratio should stay within 2), and says whether
//! the two hulls (`mesh_graph`, `mesh_polyvert`) are the same. `--sphere N` times a sphere of
//! about N vertices instead (0: none). It also times a replicate of 10,000 free bodies
//! (`--replicate N`) and one body of 1,000 geoms (`--geoms N`), the other two sizes issue 16
//! asks to compile within twice MuJoCo's time.
//!
//! MuJoCo's asset cache is turned off (see [`disable_mujoco_asset_cache`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Writes `dir/sphere_<n>.{obj,xml}`: a UV sphere of radius 1 with about `n` vertices (rings of
/// twice as many points as there are rings, and the two poles; triangles counter-clockwise from
/// outside) and a scene with one mesh geom using it. Returns the scene's path.
fn write_sphere(dir: &Path, n: usize) -> std::io::Result<PathBuf> {
    use std::fmt::Write as _;
    let rings = ((((n.max(8) - 2) / 2) as f64).sqrt().round() as usize).max(2);
    let around = 2 * rings;
    let mut obj = String::new();
    writeln!(obj, "v 0 0 1").ok();
    for i in 0..rings {
        let th = std::f64::consts::PI * (i + 1) as f64 / (rings + 1) as f64;
        for j in 0..around {
            let ph = 2.0 * std::f64::consts::PI * j as f64 / around as f64;
            // Nine significant digits (fixed decimals would turn the equator's 6e-17 into 0 and
            // put points exactly on the coordinate planes).
            writeln!(obj, "v {:.8e} {:.8e} {:.8e}", th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()).ok();
        }
    }
    writeln!(obj, "v 0 0 -1").ok();
    // OBJ indices start at 1: the north pole, the rings, the south pole.
    let south = rings * around + 2;
    let ring = |i: usize, j: usize| 2 + i * around + j % around;
    for j in 0..around {
        writeln!(obj, "f 1 {} {}", ring(0, j), ring(0, j + 1)).ok();
    }
    for i in 0..rings - 1 {
        for j in 0..around {
            let (a, b, c, d) = (ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1));
            writeln!(obj, "f {a} {b} {c}\nf {a} {c} {d}").ok();
        }
    }
    for j in 0..around {
        writeln!(obj, "f {south} {} {}", ring(rings - 1, j + 1), ring(rings - 1, j)).ok();
    }
    let nv = rings * around + 2;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("sphere_{nv}.obj")), obj)?;
    let xml = dir.join(format!("sphere_{nv}.xml"));
    std::fs::write(
        &xml,
        format!(
            "<mujoco><asset><mesh name=\"s\" file=\"sphere_{nv}.obj\"/></asset>\
             <worldbody><geom type=\"mesh\" mesh=\"s\"/></worldbody></mujoco>\n"
        ),
    )?;
    Ok(xml)
}

/// Turns off MuJoCo's process-wide asset cache, which keeps processed meshes (hulls included)
/// between loads of the same file: with it, every load after the first skips the hull (the
/// 200k-vertex sphere: 4.0 s the first time, 0.24 s after, measured). specula compiles each load
/// from scratch, so MuJoCo is timed doing the same.
fn disable_mujoco_asset_cache() {
    // SAFETY: `mj_getCache` returns the library's global cache (never null) and
    // `mj_setCacheCapacity` only resizes it; no model is being compiled meanwhile.
    unsafe {
        mujoco_sys::mj_setCacheCapacity(mujoco_sys::mj_getCache(), 0);
    }
}

/// One load by MuJoCo C: seconds and the model.
fn time_c(file: &Path) -> Result<(f64, specula::mj::Model), String> {
    let t = Instant::now();
    let m = specula::mj::Model::from_xml_path(file);
    let dt = t.elapsed().as_secs_f64();
    m.map(|m| (dt, m)).map_err(|e| format!("{e:?}"))
}

/// One load by specula's compiler: seconds and the model.
fn time_r(file: &Path) -> Result<(f64, specula_model::Model), String> {
    let t = Instant::now();
    let m = specula_model::load_file(file);
    let dt = t.elapsed().as_secs_f64();
    m.map(|m| (dt, m)).map_err(|e| e.to_string())
}

/// Whether both compilers made the same hulls: `mesh_graph` (vertex order, edge lists, faces)
/// and `mesh_polyvert`.
fn same_hulls(c: &specula::mj::Model, r: &specula_model::Model) -> bool {
    use specula::mj::fields::array;
    let get = |name: &str| array(c.mj(), name).map(|(v, _)| v.into_iter().map(|x| x as i64).collect::<Vec<_>>());
    let graph: Vec<i64> = r.mesh_graph.iter().map(|&x| x as i64).collect();
    let polyvert: Vec<i64> = r.mesh_polyvert.iter().map(|&x| x as i64).collect();
    get("mesh_graph").unwrap_or_default() == graph && get("mesh_polyvert").unwrap_or_default() == polyvert
}

/// Writes `dir/replicate_<n>.xml`: `n` free bodies, each with a sphere, made by one `replicate`
/// (issue 16: 10k-body replicate trees), and returns its path.
fn write_replicate(dir: &Path, n: usize) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let xml = dir.join(format!("replicate_{n}.xml"));
    let text = format!(
        "<mujoco><size memory=\"200M\"/><worldbody><replicate count=\"{n}\" offset=\"0.1 0 0\">\
         <body name=\"bead\" pos=\"0 0 1\">\
         <freejoint/><geom size=\"0.04\"/></body></replicate></worldbody></mujoco>\n"
    );
    std::fs::write(&xml, text)?;
    Ok(xml)
}

/// Writes `dir/geoms_<n>.xml`: one free body of `n` boxes in a row (issue 16: 1,000-geom
/// bodies, whose tree the compiler builds), and returns its path.
fn write_geoms(dir: &Path, n: usize) -> std::io::Result<PathBuf> {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir)?;
    let mut text = String::from("<mujoco><worldbody><body pos=\"0 0 1\"><freejoint/>");
    for i in 0..n {
        let (x, y) = ((i % 40) as f64 * 0.05, (i / 40) as f64 * 0.05);
        write!(text, "<geom type=\"box\" size=\"0.02 0.02 0.02\" pos=\"{x} {y} 0\"/>").ok();
    }
    text.push_str("</body></worldbody></mujoco>\n");
    let xml = dir.join(format!("geoms_{n}.xml"));
    std::fs::write(&xml, text)?;
    Ok(xml)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)?.parse::<usize>().ok());
    let reps = value("--reps").unwrap_or(15).max(1);
    let mut files: Vec<PathBuf> = Vec::new();
    let mut skip = false;
    for a in &args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if a == "--reps" || a == "--sphere" || a == "--replicate" || a == "--geoms" {
            skip = true;
        } else if !a.starts_with('-') {
            files.push(PathBuf::from(a));
        }
    }
    let default_run = files.is_empty();
    if default_run {
        let corpus = root.join("../shared/mjcf/corpus");
        files = ["model/replicate/leaves.xml", "model/humanoid/humanoid.xml", "model/replicate/bunnies.xml"]
            .iter()
            .map(|f| corpus.join(f))
            .collect();
        files.push(root.join("scenes/thin_parts.xml"));
    }
    let sphere = value("--sphere").unwrap_or(if default_run { 200_000 } else { 0 });
    let dir = std::env::temp_dir().join(format!("specula-bench-{}", std::process::id()));
    if sphere > 0 {
        match write_sphere(&dir, sphere) {
            Ok(f) => files.push(f),
            Err(e) => println!("cannot write the sphere mesh: {e}"),
        }
    }
    let replicate = value("--replicate").unwrap_or(if default_run { 10_000 } else { 0 });
    let geoms = value("--geoms").unwrap_or(if default_run { 1_000 } else { 0 });
    for (n, write) in [(replicate, write_replicate as fn(&Path, usize) -> _), (geoms, write_geoms)] {
        if n > 0 {
            match write(&dir, n) {
                Ok(f) => files.push(f),
                Err(e) => println!("cannot write a generated scene: {e}"),
            }
        }
    }
    disable_mujoco_asset_cache();
    println!("{:<40} {:>12} {:>12} {:>8}  same hulls", "scene", "MuJoCo C", "specula", "ratio");
    for file in files {
        let (mut c, mut r) = (Vec::new(), Vec::new());
        let mut models = None;
        for rep in 0..reps {
            let (a, b) = if rep % 2 == 0 {
                (time_c(&file), time_r(&file))
            } else {
                let b = time_r(&file);
                (time_c(&file), b)
            };
            match (a, b) {
                (Ok((a, mc)), Ok((b, mr))) => {
                    c.push(a);
                    r.push(b);
                    models = Some((mc, mr));
                }
                (a, b) => {
                    println!("{}: cannot load ({:?} / {:?})", file.display(), a.err(), b.err());
                    break;
                }
            }
            // Slow scenes (a second or more a load): three repeats are enough for a median.
            if c.len() >= 3 && c.iter().chain(&r).sum::<f64>() > 3.0 * c.len() as f64 {
                break;
            }
        }
        if c.is_empty() {
            continue;
        }
        let (mc, mr) = (median(c), median(r));
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let same = models.is_some_and(|(c, r)| same_hulls(&c, &r));
        println!(
            "{:<40} {:>9.3} ms {:>9.3} ms {:>8.2}  {}",
            name,
            mc * 1e3,
            mr * 1e3,
            mr / mc,
            if same { "yes" } else { "no" }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
