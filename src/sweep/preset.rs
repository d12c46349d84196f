//! The built-in grids, named after the tables of the MuJoCo 4.0 measurements they reproduce.

use crate::sim::Route;

use super::def::Sweep;
use super::scene::{Part, SceneKind};
use super::{RunSpec, SpeculativeMode};

/// The three start offsets of the main sweep: the gap is f·v·h with f = 1/6, 1/2, 5/6.
pub const OFFSETS_3: [f64; 3] = [1.0 / 6.0, 0.5, 5.0 / 6.0];
/// Scene B's drop speeds: √(2gH) for H = 1.0 m and 7.7 m.
pub const DROP_SPEEDS: [f64; 2] = [4.43, 12.29];
/// Scene B's timesteps (s).
pub const B_TIMESTEPS: [f64; 3] = [0.3125e-3, 0.15625e-3, 1.25e-3];

/// A built-in grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// Table A1/A2: the eight ball/cube × plate rows, 1–40 m/s in 0.5 m/s steps, default contacts.
    A1,
    /// Table A5: the same rows with stiff contacts (solref = 2h).
    A5,
    /// Table A3: the 10 mm ball on the 10 mm plate at h = 2.5, 1.25 and 0.625 ms.
    A3,
    /// Section B: nine thin parts onto a 5 mm pane, default contacts.
    B,
    /// Section B with stiff contacts.
    BStiff,
    /// Section C2: two steel balls r10 head-on at 20 and 30 m/s each, 8 phases.
    C,
    /// A few runs of each scene, for tests and a quick look.
    Quick,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 7] =
        [Preset::A1, Preset::A5, Preset::A3, Preset::B, Preset::BStiff, Preset::C, Preset::Quick];

    /// The preset's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Preset::A1 => "a1",
            Preset::A5 => "a5",
            Preset::A3 => "a3",
            Preset::B => "b",
            Preset::BStiff => "b-stiff",
            Preset::C => "c",
            Preset::Quick => "quick",
        }
    }

    /// The preset called `name`.
    pub fn parse(name: &str) -> Option<Preset> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// A grid to expand into runs.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Scene family.
    pub scene: SceneKind,
    /// Rows: label, part, plate thickness (m).
    pub cases: Vec<(String, Part, f64)>,
    /// Timesteps (s).
    pub timesteps: Vec<f64>,
    /// Speeds (m/s).
    pub speeds: Vec<f64>,
    /// Start offsets (scene A) as fractions of one step's travel.
    pub offsets: Vec<f64>,
    /// Perturbed runs per cell (scene B).
    pub seeds: u64,
    /// Stiff contacts.
    pub stiff: bool,
    /// Simulated time per run (s).
    pub duration: f64,
    /// Routes.
    pub routes: Vec<Route>,
    /// Speculative modes.
    pub modes: Vec<SpeculativeMode>,
}

/// `n` offsets (k + 0.5)/n; 3 gives the main sweep's 1/6, 1/2, 5/6 exactly.
pub fn offsets(n: usize) -> Vec<f64> {
    if n == 3 {
        return OFFSETS_3.to_vec();
    }
    (0..n).map(|k| (k as f64 + 0.5) / n as f64).collect()
}

/// Speeds from `lo` to `hi` inclusive in steps of `step`, computed from an integer count so the
/// values are exact decimals (1.0, 1.5, ...).
pub fn speeds(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let n = ((hi - lo) / step + 1e-9).floor() as usize;
    (0..=n).map(|k| ((lo + k as f64 * step) * 1e6).round() / 1e6).collect()
}

/// The eight rows of table A1 (ball radius / plate thickness in mm; the cube is 5 cm, 125 g).
fn a_cases() -> Vec<(String, Part, f64)> {
    let ball = |r: f64, t: f64| (format!("{}/{}", r, t), Part::Ball { r: r * 1e-3 }, t * 1e-3);
    vec![
        ball(10.0, 2.0),
        ball(10.0, 5.0),
        ball(10.0, 10.0),
        ball(10.0, 20.0),
        ball(10.0, 40.0),
        ball(5.0, 10.0),
        ball(25.0, 10.0),
        ("cube/10".into(), Part::Cube { half: 0.025, mass: 0.125 }, 0.01),
    ]
}

/// The nine thin parts of section B (sizes as in `scenes/thin_parts.xml`), onto a 5 mm pane.
fn b_cases() -> Vec<(String, Part, f64)> {
    let pane = 0.005;
    let capsule = |r: f64, upright| Part::Capsule { r, half_len: 0.01, upright };
    let coin = |half: f64, tilt| Part::Coin { r: 0.012, half, tilt };
    vec![
        ("ball r5".into(), Part::Ball { r: 0.005 }, pane),
        ("cube 10".into(), Part::Cube { half: 0.005, mass: 7850.0 * 1e-6 }, pane),
        ("ball r3".into(), Part::Ball { r: 0.003 }, pane),
        ("capsule r3 flat".into(), capsule(0.003, false), pane),
        ("coin 4 mm flat".into(), coin(0.002, 0.0), pane),
        ("coin 2 mm flat".into(), coin(0.001, 0.0), pane),
        ("coin 2 mm tilted 12°".into(), coin(0.001, 12.0), pane),
        ("capsule r1.5 flat".into(), capsule(0.0015, false), pane),
        ("capsule r1.5 upright".into(), capsule(0.0015, true), pane),
    ]
}

impl Grid {
    /// The grid of a preset (3 start offsets for the scene-A presets).
    pub fn preset(p: Preset) -> Grid {
        let a = |stiff| Grid {
            scene: SceneKind::A,
            cases: a_cases(),
            timesteps: vec![1.25e-3],
            speeds: speeds(1.0, 40.0, 0.5),
            offsets: OFFSETS_3.to_vec(),
            seeds: 1,
            stiff,
            duration: 0.5,
            routes: vec![Route::C],
            modes: SpeculativeMode::ALL.to_vec(),
        };
        let b = |stiff| Grid {
            scene: SceneKind::B,
            cases: b_cases(),
            timesteps: B_TIMESTEPS.to_vec(),
            speeds: DROP_SPEEDS.to_vec(),
            offsets: vec![0.0],
            seeds: 32,
            stiff,
            duration: 0.2,
            routes: vec![Route::C],
            modes: SpeculativeMode::ALL.to_vec(),
        };
        match p {
            Preset::A1 => a(false),
            Preset::A5 => a(true),
            Preset::A3 => Grid {
                cases: a_cases().into_iter().filter(|c| c.0 == "10/10").collect(),
                timesteps: vec![2.5e-3, 1.25e-3, 0.625e-3],
                ..a(false)
            },
            Preset::B => b(false),
            Preset::BStiff => b(true),
            Preset::C => Grid {
                scene: SceneKind::C,
                cases: vec![("C2 r10".into(), Part::Ball { r: 0.01 }, 0.0)],
                speeds: vec![20.0, 30.0],
                offsets: offsets(8),
                duration: 0.1,
                ..a(false)
            },
            Preset::Quick => Grid {
                cases: a_cases().into_iter().filter(|c| c.0 == "10/2" || c.0 == "cube/10").collect(),
                speeds: vec![2.0, 10.0, 20.0],
                offsets: vec![0.5],
                duration: 0.25,
                ..a(false)
            },
        }
    }

    /// The quick preset's scene-B part: two perturbed drops of the 2 mm coins at 1.25 ms.
    pub fn quick_b() -> Grid {
        Grid {
            cases: b_cases().into_iter().filter(|c| c.0.starts_with("coin 2 mm")).collect(),
            timesteps: vec![1.25e-3],
            speeds: vec![DROP_SPEEDS[0]],
            seeds: 2,
            duration: 0.1,
            ..Grid::preset(Preset::B)
        }
    }

    /// The quick preset's scene-C part: the head-on balls at 20 m/s each, phases 2.5/8 and 3.5/8.
    pub fn quick_c() -> Grid {
        Grid { offsets: vec![2.5 / 8.0, 3.5 / 8.0], speeds: vec![20.0], ..Grid::preset(Preset::C) }
    }

    /// Appends this grid's runs to `out`, numbering them on from `out.len()`. Order: case, timestep,
    /// speed, offset or seed, route, mode (modes innermost, so paired runs sit side by side).
    pub fn expand_into(&self, out: &mut Vec<RunSpec>) {
        let draws: Vec<(f64, u64)> = match self.scene {
            SceneKind::A | SceneKind::C | SceneKind::User => self.offsets.iter().map(|&f| (f, 0)).collect(),
            SceneKind::B => (0..self.seeds).map(|s| (0.0, s)).collect(),
        };
        for (case, part, plate) in &self.cases {
            for &timestep in &self.timesteps {
                for &speed in &self.speeds {
                    for &(offset, seed) in &draws {
                        for &route in &self.routes {
                            for &mode in &self.modes {
                                if mode == SpeculativeMode::Robust && route == Route::C {
                                    // robust mode is specula's own stage: there is no C run of it
                                    continue;
                                }
                                out.push(RunSpec {
                                    index: out.len(),
                                    scene: self.scene,
                                    case: case.clone(),
                                    part: *part,
                                    plate: *plate,
                                    speed,
                                    offset,
                                    timestep,
                                    stiff: self.stiff,
                                    route,
                                    mode,
                                    seed,
                                    duration: self.duration,
                                    user: None,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The full run list of a preset, with the scene-A start offsets replaced by `offsets` when given
/// (the quick preset keeps its own).
pub fn runs(p: Preset, offsets: Option<&[f64]>, routes: &[Route], modes: &[SpeculativeMode]) -> Vec<RunSpec> {
    let mut sweep = Sweep::preset(p, routes.to_vec(), modes.to_vec());
    sweep.offsets = offsets.map(<[f64]>::to_vec);
    runs_with(p, &sweep)
}

/// The run list of a preset as a sweep's options shape it: a preset is a named set of values for
/// the options a scene sweep takes, and each option given replaces the preset's own (start offsets
/// only in scene A, and not in the quick preset; routes default to c).
pub fn runs_with(p: Preset, sweep: &Sweep) -> Vec<RunSpec> {
    let mut grids = vec![Grid::preset(p)];
    if p == Preset::Quick {
        grids.push(Grid::quick_b());
        grids.push(Grid::quick_c());
    }
    let mut out = Vec::new();
    for mut g in grids {
        if let (Some(o), SceneKind::A, false) = (&sweep.offsets, g.scene, p == Preset::Quick) {
            g.offsets = o.clone();
        }
        if let Some(v) = &sweep.speeds {
            g.speeds = v.clone();
        }
        if let Some(h) = &sweep.timesteps {
            g.timesteps = h.clone();
        }
        if let Some(d) = sweep.duration {
            g.duration = d;
        }
        g.routes = sweep.routes.clone().unwrap_or_else(|| vec![Route::C]);
        g.modes = sweep.modes.clone();
        g.expand_into(&mut out);
    }
    out
}

/// Step of the refinement runs below a first PASS (m/s).
pub const REFINE_STEP: f64 = 0.05;

/// Refinement runs, as the main sweep of the measurements adds them: for every scene-A row (case,
/// timestep, stiffness, route, mode) whose first PASS on the grid is above its lowest speed, the
/// nine speeds 0.05–0.45 m/s below that first PASS, at the same start offsets. Numbered on from
/// `next_index`.
pub fn refinement(results: &[super::RunResult], next_index: usize) -> Vec<RunSpec> {
    use std::collections::BTreeMap;
    let mut rows: BTreeMap<(String, u64, bool, &'static str, SpeculativeMode), Vec<&super::RunResult>> =
        BTreeMap::new();
    for r in results.iter().filter(|r| r.spec.scene == SceneKind::A) {
        let s = &r.spec;
        rows.entry((s.case.clone(), s.timestep.to_bits(), s.stiff, s.route.name(), s.mode)).or_default().push(r);
    }
    let mut out = Vec::new();
    for runs in rows.values() {
        let lowest = runs.iter().map(|r| r.spec.speed).fold(f64::INFINITY, f64::min);
        let first = runs
            .iter()
            .filter(|r| r.outcome == super::Outcome::Pass)
            .map(|r| r.spec.speed)
            .fold(f64::INFINITY, f64::min);
        if !first.is_finite() || first <= lowest + 1e-9 {
            continue;
        }
        let mut offsets: Vec<f64> = Vec::new();
        for r in runs {
            if !offsets.contains(&r.spec.offset) {
                offsets.push(r.spec.offset);
            }
        }
        for k in (1..=9).rev() {
            let speed = ((first - k as f64 * REFINE_STEP) * 1e6).round() / 1e6;
            for &offset in &offsets {
                let template = runs[0].spec.clone();
                out.push(RunSpec { index: next_index + out.len(), speed, offset, ..template });
            }
        }
    }
    out
}
