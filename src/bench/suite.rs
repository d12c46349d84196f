//! `specula bench --suite`: the benchmark set of issue 17, each scene timed in the three
//! speculative modes and, for some, the whole step on both routes, printed as one table.
//!
//! The set: the project scenes (`scenes/`), the benchmark scenes (`benches/scenes/`: a 200-body
//! impact, a 150-body broadphase grid, a 50-box pile that comes to rest, three convex meshes),
//! and MuJoCo's corpus humanoid and box stack when the corpus is beside the repository (skipped,
//! and said so, when it is not).

use std::path::{Path, PathBuf};

use super::native::{bench_native, NativeBenchError, NativeStepReport};
use super::{bench, bench_step, BenchReport, StepReport};
use crate::sim::{self, Start};
use specula_model::types::SpeculativeMode;

/// One scene of the benchmark set.
#[derive(Clone, Debug)]
pub struct SuiteScene {
    /// Name in the table.
    pub name: String,
    /// MJCF file.
    pub path: PathBuf,
    /// Keyframe to start from (name or index).
    pub key: Option<String>,
    /// Steps to record.
    pub steps: usize,
    /// Whether the whole step is also timed on both routes.
    pub step_row: bool,
    /// Whether `bench --suite --route native` times the native step on it.
    pub native_row: bool,
}

/// The benchmark set under the repository `root`, and a line for each scene left out.
pub fn scenes(root: &Path) -> (Vec<SuiteScene>, Vec<String>) {
    let row = |name: &str, path: PathBuf, key: Option<&str>, steps: usize, step_row: bool| SuiteScene {
        name: name.to_string(),
        path,
        key: key.map(str::to_string),
        steps,
        step_row,
        native_row: false,
    };
    let project = |f: &str| root.join("scenes").join(f);
    let own = |f: &str| root.join("benches/scenes").join(f);
    let mut set = vec![
        row("ball_plate (throw)", project("ball_plate.xml"), Some("throw"), 300, false),
        row("thin_parts (drop)", project("thin_parts.xml"), Some("drop"), 300, false),
        row("newton_cradle (swing)", project("newton_cradle.xml"), Some("swing"), 300, false),
        row("chain (yank)", project("chain.xml"), Some("yank"), 300, false),
        row("flipper (strike)", project("flipper.xml"), Some("strike"), 300, false),
        row("resting (at rest)", project("resting.xml"), Some("drop"), 800, false),
        row("impact_200: 200 spheres onto a 5 mm plate", own("impact_200.xml"), Some("throw"), 300, false),
        row("grid_150: 150 free bodies (broadphase)", own("grid_150.xml"), None, 300, false),
        row("meshes_3: three convex meshes settling", own("meshes_3.xml"), None, 1500, false),
        row("pile_50: 50 boxes, motion then rest", own("pile_50.xml"), None, 3000, true),
    ];
    let mut skipped = Vec::new();
    let corpus = root.join("../shared/mjcf/corpus");
    for (name, rel, key, steps) in [
        ("corpus humanoid.xml", "model/humanoid/humanoid.xml", Some("0"), 1000),
        ("corpus box_stack.xml", "local/box_stack.xml", None, 1000),
    ] {
        let path = corpus.join(rel);
        if path.is_file() {
            set.push(row(name, path, key, steps, name.contains("humanoid")));
        } else {
            skipped.push(format!(
                "{name}: skipped, {} is not there (MuJoCo's corpus is not in the repository)",
                path.display()
            ));
        }
    }
    for s in &mut set {
        s.native_row = ["pile_50", "impact_200", "corpus humanoid"].iter().any(|n| s.name.starts_with(n));
    }
    (set, skipped)
}

/// The measurements of one scene.
#[derive(Clone, Debug)]
pub struct SuiteRow {
    /// The scene.
    pub scene: SuiteScene,
    /// Speculative contacts off, both stages.
    pub off: BenchReport,
    /// MuJoCo-compatible speculative contacts, both stages.
    pub compat: BenchReport,
    /// specula's robust mode (its C time is MuJoCo's compatible mode).
    pub robust: BenchReport,
    /// The whole step on both routes, speculative contacts as the scene has them.
    pub step: Option<StepReport>,
}

impl SuiteRow {
    /// Robust mode's time over specula's own `off` time.
    pub fn robust_over_off(&self) -> f64 {
        self.robust.rust_ns / self.off.rust_ns
    }
}

/// Times one scene: the three modes, then the whole step if the scene asks for it.
pub fn run_scene(scene: &SuiteScene, passes: usize) -> Result<SuiteRow, crate::Error> {
    let start = scene.key.clone().map_or(Start::Qpos0, Start::Key);
    let load = |mode| sim::load_pair(&scene.path, None, mode);
    let time = |mode: SpeculativeMode| -> Result<BenchReport, crate::Error> {
        let (c, rust) = load(Some(mode))?;
        Ok(bench(&c, &rust, scene.steps, &start, passes, mode == SpeculativeMode::Robust)?)
    };
    let (off, compat, robust) =
        (time(SpeculativeMode::Off)?, time(SpeculativeMode::Compat)?, time(SpeculativeMode::Robust)?);
    let step = if scene.step_row {
        // the scene's own speculative setting
        let (c, rust) = load(None)?;
        Some(bench_step(&c, &rust, scene.steps, &start, passes)?)
    } else {
        None
    };
    Ok(SuiteRow { scene: scene.clone(), off, compat, robust, step })
}

/// `c / rust ns (ratio)`, marked when the ratio misses `goal`.
fn cell(r: &BenchReport, goal: f64) -> String {
    let miss = if r.ratio > goal { " ✗" } else { "" };
    format!("{:.0} / {:.0} ns ({:.2}{miss})", r.c_ns, r.rust_ns, r.ratio)
}

/// The rows as the README's Markdown tables (collision stage, then whole step), with the goals
/// of issue 17 marked where a ratio misses them.
pub fn table(rows: &[SuiteRow]) -> String {
    let mut s = String::from(
        "| scene | states | off: C / specula (ratio) | compat: C / specula (ratio) | robust: specula (vs C compat, vs own off) |\n\
         |---|---|---|---|---|\n",
    );
    for r in rows {
        let rob_c = if r.robust.ratio > 1.0 { " ✗" } else { "" };
        s += &format!(
            "| {} | {} | {} | {} | {:.0} ns ({:.2}{rob_c}, {:.2}) |\n",
            r.scene.name,
            r.off.states,
            cell(&r.off, 0.5),
            cell(&r.compat, 0.5),
            r.robust.rust_ns,
            r.robust.ratio,
            r.robust_over_off(),
        );
    }
    let steps: Vec<_> = rows.iter().filter_map(|r| r.step.as_ref().map(|s| (r, s))).collect();
    if !steps.is_empty() {
        s += "\n| scene (whole step) | steps | C route | rust route | ratio |\n|---|---|---|---|---|\n";
        for (r, st) in steps {
            let miss = if st.ratio > 0.95 { " ✗" } else { "" };
            s += &format!(
                "| {} | {} | {:.0} ns | {:.0} ns | {:.2}{miss} |\n",
                r.scene.name, st.steps, st.c_ns, st.rust_ns, st.ratio
            );
        }
    }
    s
}

/// The native step on one scene of the set: its times, or why the native route refuses it.
pub type NativeRow = (SuiteScene, Result<NativeStepReport, String>);

/// Times the native step against `mj_step` on `scene` (as the scene has its speculative mode);
/// a scene the native route refuses gives its reason instead of times.
pub fn run_native_scene(scene: &SuiteScene, passes: usize) -> Result<NativeRow, crate::Error> {
    let start = scene.key.clone().map_or(Start::Qpos0, Start::Key);
    let c = crate::mj::Model::from_xml_path(&scene.path)?;
    let mut native = match crate::native::load(&scene.path, None) {
        Ok(n) => n,
        Err(e) => return Ok((scene.clone(), Err(e.to_string()))),
    };
    let r = match bench_native(&c, &mut native, &start, scene.steps, passes) {
        Ok(r) => Ok(r),
        Err(NativeBenchError::Mj(e)) => return Err(e.into()),
        Err(e) => Err(e.to_string()),
    };
    Ok((scene.clone(), r))
}

/// The native rows as a Markdown table, marked where the native step is slower than `mj_step`
/// (the goal of issue 15: at most 1.0 x C in MuJoCo-compatible mode).
pub fn native_table(rows: &[NativeRow]) -> String {
    let mut s = String::from(
        "| scene (native step) | steps | mj_step | native step | ratio | trajectories |\n|---|---|---|---|---|---|\n",
    );
    for (scene, r) in rows {
        match r {
            Ok(r) => {
                let miss = if r.ratio > 1.0 { " ✗" } else { "" };
                let refused = r.refused.as_ref().map_or(String::new(), |(k, e)| format!(" (refused at step {k}: {e})"));
                let same = if r.same_trajectory { "equal" } else { "differ" };
                s += &format!(
                    "| {} | {}{refused} | {:.0} ns | {:.0} ns | {:.2}{miss} | {same} |\n",
                    scene.name, r.steps, r.c_ns, r.native_ns, r.ratio
                );
            }
            Err(e) => s += &format!("| {} | refused: {e} | | | | |\n", scene.name),
        }
    }
    s
}
