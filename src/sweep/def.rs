//! A sweep's full definition: what is swept (a preset's built-in scenes or the user's scene and
//! bodies) and every option that shapes the run list, with its canonical JSON and hash.
//!
//! The definition is what makes a shard self-describing: each shard's output starts with
//! `# sweep: {...}` (see [`super::merge`]), and `specula sweep merge` rebuilds the run list from it to
//! check that no run is missing or doubled. So the definition holds resolved values (the scene's own
//! timestep, the parsed speed list), never anything that needs the scene file to expand.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::sim::Route;

use super::preset::{self, Preset};
use super::user::{Aim, Case};
use super::{RunSpec, SceneKind, SpeculativeMode};

/// What a sweep runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A built-in grid (its scenes are written by [`super::scene`]).
    Preset(Preset),
    /// The user's MJCF file, with a digest of its bytes (so shards of an edited scene do not merge).
    Scene {
        /// The file, as given on the command line.
        path: PathBuf,
        /// FNV-1a 64 of the file's bytes, in hex.
        digest: String,
    },
}

/// Every option of a sweep; presets fill in their own values where an option is `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// What is swept.
    pub source: Source,
    /// Scene: the free bodies to sweep, one at a time.
    pub bodies: Vec<String>,
    /// Speeds (m/s); `None` keeps a preset's own.
    pub speeds: Option<Vec<f64>>,
    /// Scene: where the body is thrown.
    pub aim: Aim,
    /// Start offsets as fractions of one step's travel; `None` keeps a preset's own.
    pub offsets: Option<Vec<f64>>,
    /// Scene: start gap (m) between the body's leading point and the target's near face, before the
    /// offset's share of one step's travel is added.
    pub gap: f64,
    /// Scene: largest random tilt (degrees) about an axis across the direction.
    pub tilt: f64,
    /// Scene: largest random sideways speed (m/s) along each of the two axes across the direction.
    pub jitter: f64,
    /// Scene: seed of the tilt and jitter draws.
    pub seed: u64,
    /// Scene: perturbed runs per start offset.
    pub draws: u64,
    /// Timesteps (s); `None` keeps a preset's own (a scene's own is resolved before it gets here).
    pub timesteps: Option<Vec<f64>>,
    /// Simulated time per run (s); `None` keeps a preset's own.
    pub duration: Option<f64>,
    /// Scene: start from this keyframe instead of qpos0.
    pub key: Option<String>,
    /// Routes; `None` for a scene means each mode on its own route (c for off and compat, rust for
    /// robust).
    pub routes: Option<Vec<Route>>,
    /// Speculative modes.
    pub modes: Vec<SpeculativeMode>,
    /// Preset: add the refinement runs below each first PASS.
    pub refine: bool,
}

/// Simulated time of a scene run when `--duration` is not given (s).
pub const SCENE_DURATION: f64 = 0.5;

/// A sweep definition (a shard's header) that lacks a key or holds a bad value for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the sweep definition has no valid '{key}'")]
pub struct DefinitionError {
    /// The key (or keys, "direction or toward") that is missing or bad.
    pub key: String,
}

impl Sweep {
    /// A preset's sweep with nothing overridden.
    pub fn preset(p: Preset, routes: Vec<Route>, modes: Vec<SpeculativeMode>) -> Sweep {
        Sweep {
            source: Source::Preset(p),
            bodies: Vec::new(),
            speeds: None,
            aim: Aim::Direction([0.0, 0.0, -1.0]),
            offsets: None,
            gap: 0.0,
            tilt: 0.0,
            jitter: 0.0,
            seed: 0,
            draws: 1,
            timesteps: None,
            duration: None,
            key: None,
            routes: Some(routes),
            modes,
            refine: false,
        }
    }

    /// The definition as canonical JSON: fixed keys for the source, resolved values, and the version
    /// of specula that ran it (a newer build may label runs differently).
    pub fn to_json(&self) -> Value {
        let routes = match &self.routes {
            Some(r) => json!(r.iter().map(|r| r.name()).collect::<Vec<_>>()),
            None => json!("auto"),
        };
        let modes: Vec<&str> = self.modes.iter().map(|m| m.name()).collect();
        let common = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "speeds": self.speeds,
            "offsets": self.offsets,
            "timesteps": self.timesteps,
            "duration": self.duration,
            "routes": routes,
            "modes": modes,
        });
        let mut out = match &self.source {
            Source::Preset(p) => json!({ "preset": p.name(), "refine": self.refine }),
            Source::Scene { path, digest } => {
                let (direction, toward) = match &self.aim {
                    Aim::Direction(d) => (Some(d.to_vec()), None),
                    Aim::Toward(name) => (None, Some(name.clone())),
                };
                json!({
                    "scene": path.display().to_string(),
                    "scene_fnv64": digest,
                    "bodies": self.bodies,
                    "direction": direction,
                    "toward": toward,
                    "gap": self.gap,
                    "tilt_deg": self.tilt,
                    "jitter": self.jitter,
                    "seed": self.seed,
                    "draws": self.draws,
                    "key": self.key,
                })
            }
        };
        let (Value::Object(o), Value::Object(c)) = (&mut out, common) else { unreachable!("json! objects") };
        o.extend(c);
        out
    }

    /// The definition read back from [`Sweep::to_json`].
    pub fn from_json(v: &Value) -> Result<Sweep, DefinitionError> {
        let bad = |what: &str| DefinitionError { key: what.to_string() };
        let floats = |key: &str| -> Result<Option<Vec<f64>>, DefinitionError> {
            match &v[key] {
                Value::Null => Ok(None),
                Value::Array(a) => {
                    a.iter().map(|x| x.as_f64().ok_or_else(|| bad(key))).collect::<Result<_, _>>().map(Some)
                }
                _ => Err(bad(key)),
            }
        };
        let names = |key: &str| -> Result<Vec<String>, DefinitionError> {
            v[key]
                .as_array()
                .ok_or_else(|| bad(key))?
                .iter()
                .map(|x| x.as_str().map(String::from).ok_or_else(|| bad(key)))
                .collect()
        };
        let modes = names("modes")?
            .iter()
            .map(|m| SpeculativeMode::parse(m).ok_or_else(|| bad("modes")))
            .collect::<Result<Vec<_>, _>>()?;
        let routes = match &v["routes"] {
            Value::String(s) if s == "auto" => None,
            _ => Some(
                names("routes")?
                    .iter()
                    .map(|r| parse_route(r).ok_or_else(|| bad("routes")))
                    .collect::<Result<_, _>>()?,
            ),
        };
        let num = |key: &str| v[key].as_f64().ok_or_else(|| bad(key));
        let mut s = if let Some(p) = v["preset"].as_str() {
            let p = Preset::parse(p).ok_or_else(|| bad("preset"))?;
            let mut s = Sweep::preset(p, Vec::new(), modes);
            s.refine = v["refine"].as_bool().ok_or_else(|| bad("refine"))?;
            s.routes = routes;
            s
        } else {
            let path = PathBuf::from(v["scene"].as_str().ok_or_else(|| bad("scene or preset"))?);
            let digest = v["scene_fnv64"].as_str().ok_or_else(|| bad("scene_fnv64"))?.to_string();
            let aim = match (&v["direction"], v["toward"].as_str()) {
                (Value::Array(d), None) if d.len() == 3 => {
                    let d: Vec<f64> =
                        d.iter().map(|x| x.as_f64().ok_or_else(|| bad("direction"))).collect::<Result<_, _>>()?;
                    Aim::Direction([d[0], d[1], d[2]])
                }
                (Value::Null, Some(t)) => Aim::Toward(t.to_string()),
                _ => return Err(bad("direction or toward")),
            };
            Sweep {
                source: Source::Scene { path, digest },
                bodies: names("bodies")?,
                aim,
                gap: num("gap")?,
                tilt: num("tilt_deg")?,
                jitter: num("jitter")?,
                seed: v["seed"].as_u64().ok_or_else(|| bad("seed"))?,
                draws: v["draws"].as_u64().ok_or_else(|| bad("draws"))?,
                key: v["key"].as_str().map(String::from),
                routes,
                ..Sweep::preset(Preset::Quick, Vec::new(), modes)
            }
        };
        s.speeds = floats("speeds")?;
        s.offsets = floats("offsets")?;
        s.timesteps = floats("timesteps")?;
        s.duration = match &v["duration"] {
            Value::Null => None,
            d => Some(d.as_f64().ok_or_else(|| bad("duration"))?),
        };
        Ok(s)
    }

    /// FNV-1a 64 of the canonical JSON, in hex: two shards belong to one sweep when theirs agree.
    pub fn hash(&self) -> String {
        format!("{:016x}", fnv64(self.to_json().to_string().as_bytes()))
    }

    /// The full (unsharded) run list, in a fixed order.
    pub fn runs(&self) -> Vec<RunSpec> {
        match &self.source {
            Source::Preset(p) => preset::runs_with(*p, self),
            Source::Scene { path, .. } => self.scene_runs(path),
        }
    }

    /// (route, mode) pairs in report order: every mode on every route, but robust only on rust;
    /// `None` routes give each mode its own route.
    pub fn route_modes(&self) -> Vec<(Route, SpeculativeMode)> {
        match &self.routes {
            Some(routes) => routes
                .iter()
                .flat_map(|&r| self.modes.iter().map(move |&m| (r, m)))
                .filter(|&(r, m)| !(m == SpeculativeMode::Robust && r == Route::C))
                .collect(),
            None => {
                let own = |m: SpeculativeMode| if m == SpeculativeMode::Robust { Route::Rust } else { Route::C };
                self.modes.iter().map(|&m| (own(m), m)).collect()
            }
        }
    }

    /// Scene runs. Order: body, timestep, speed, offset, draw, route, mode (modes innermost, so the
    /// runs of one start state sit side by side, as in the presets).
    fn scene_runs(&self, path: &std::path::Path) -> Vec<RunSpec> {
        let pairs = self.route_modes();
        let speeds = self.speeds.clone().unwrap_or_default();
        let offsets = self.offsets.clone().unwrap_or_else(|| preset::OFFSETS_3.to_vec());
        let timesteps = self.timesteps.clone().unwrap_or_default();
        let duration = self.duration.unwrap_or(SCENE_DURATION);
        let mut out = Vec::new();
        for body in &self.bodies {
            let case = Arc::new(Case {
                scene: path.to_path_buf(),
                body: body.clone(),
                aim: self.aim.clone(),
                gap: self.gap,
                tilt: self.tilt,
                jitter: self.jitter,
                seed: self.seed,
                key: self.key.clone(),
            });
            for &timestep in &timesteps {
                for &speed in &speeds {
                    for &offset in &offsets {
                        for draw in 0..self.draws {
                            for &(route, mode) in &pairs {
                                out.push(RunSpec {
                                    index: out.len(),
                                    scene: SceneKind::User,
                                    case: body.clone(),
                                    part: super::Part::Scene,
                                    plate: 0.0,
                                    speed,
                                    offset,
                                    timestep,
                                    stiff: false,
                                    route,
                                    mode,
                                    seed: draw,
                                    duration,
                                    user: Some(case.clone()),
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// FNV-1a, 64 bits: a small, stable hash for definitions and scene files (no crate needed).
pub fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The route called `name`.
pub fn parse_route(name: &str) -> Option<Route> {
    [Route::C, Route::Rust, Route::Native].into_iter().find(|r| r.name() == name)
}
