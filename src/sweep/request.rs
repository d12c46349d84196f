//! A sweep as its options describe it: the values of `specula sweep`'s options (and of the Python
//! package's `specula.sweep(...)` keyword arguments), checked and turned into a [`Sweep`]. A
//! scene is compiled and every body, name and keyframe looked up before anything runs, so bad
//! input is one error and nothing runs.

use std::path::PathBuf;

use crate::mj::{MjError, Model};
use crate::sim::Route;

use super::def::{self, Source, Sweep};
use super::preset::{self, Preset};
use super::user::Aim;
use super::{Compiled, SpeculativeMode};

/// The options of a sweep, as text and numbers, before they are checked (`None`: the default).
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// MJCF scene whose free bodies to sweep (instead of a preset).
    pub scene: Option<PathBuf>,
    /// Built-in grid (`a1`, `a5`, `a3`, `b`, `b-stiff`, `c`, `quick`) [`quick`].
    pub preset: Option<String>,
    /// Scene: the free bodies to throw, each swept on its own.
    pub bodies: Vec<String>,
    /// Speeds in m/s: `start:stop:step` (inclusive) or a comma list [scene: `1:40:0.5`].
    pub speeds: Option<String>,
    /// Scene: direction of the throw, `x,y,z` [the scene's gravity].
    pub direction: Option<String>,
    /// Scene: throw toward this geom or site.
    pub toward: Option<String>,
    /// Start offsets per speed [scene: 3].
    pub offsets: Option<usize>,
    /// 20 start offsets instead of 3.
    pub dense: bool,
    /// Scene: gap in metres before the offset's share of a step's travel [0].
    pub gap: Option<f64>,
    /// Scene: random tilt of up to this many degrees [0].
    pub tilt: Option<f64>,
    /// Scene: random sideways speed of up to this many m/s [0].
    pub jitter: Option<f64>,
    /// Scene: seed of the tilt and jitter draws [0].
    pub seed: Option<u64>,
    /// Scene: perturbed runs per start offset [1].
    pub draws: Option<u64>,
    /// Timesteps, e.g. `1.25ms,0.625ms` [scene: its own].
    pub timesteps: Option<String>,
    /// Simulated seconds per run [scene: 0.5].
    pub duration: Option<f64>,
    /// Scene: start from this keyframe (name or index) instead of qpos0.
    pub key: Option<String>,
    /// Collision routes [preset: c; scene: c for off and compat, rust for robust].
    pub routes: Option<Vec<Route>>,
    /// Speculative modes, comma-separated [preset: `off,compat`; scene: all three].
    pub modes: Option<String>,
    /// Presets: add the refinement runs below each row's first PASS.
    pub refine: bool,
}

/// Why a [`Request`] gives no sweep.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// An option's value is malformed, out of range, or does not fit the rest of the request.
    #[error("{0}")]
    Invalid(String),
    /// The scene does not compile, or a body, name or keyframe in it cannot be used.
    #[error(transparent)]
    Scene(#[from] MjError),
}

impl From<String> for RequestError {
    fn from(s: String) -> Self {
        RequestError::Invalid(s)
    }
}

fn dedup<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn positive(what: &str, v: Option<f64>, zero_ok: bool) -> Result<Option<f64>, String> {
    match v {
        Some(x) if !x.is_finite() || x < 0.0 || (x == 0.0 && !zero_ok) => {
            Err(format!("{what} {x}: expected a {} number", if zero_ok { "non-negative" } else { "positive" }))
        }
        v => Ok(v),
    }
}

impl Request {
    /// The options given that only a scene sweep takes (their CLI spelling).
    fn scene_only(&self) -> Option<&'static str> {
        [
            ("--body", !self.bodies.is_empty()),
            ("--direction", self.direction.is_some()),
            ("--toward", self.toward.is_some()),
            ("--gap", self.gap.is_some()),
            ("--tilt", self.tilt.is_some()),
            ("--jitter", self.jitter.is_some()),
            ("--seed", self.seed.is_some()),
            ("--draws", self.draws.is_some()),
            ("--key", self.key.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }

    /// The sweep these options define, checked (a scene is compiled by MuJoCo, and each body's
    /// first start placed, before it returns).
    pub fn sweep(&self) -> Result<Sweep, RequestError> {
        let names: Vec<&str> = SpeculativeMode::ALL.iter().map(|m| m.name()).collect();
        let modes = self.modes.as_deref().map(|m| parse_list("mode", m, SpeculativeMode::parse, &names)).transpose()?;
        let routes = self.routes.clone().map(dedup);
        let offsets = match (self.dense, self.offsets) {
            (true, _) => Some(preset::offsets(20)),
            (false, Some(0)) => return Err(RequestError::Invalid("--offsets must be at least 1".into())),
            (false, n) => n.map(preset::offsets),
        };
        let speeds = self.speeds.as_deref().map(parse_speeds).transpose()?;
        let timesteps = self.timesteps.as_deref().map(parse_timesteps).transpose()?;
        let duration = positive("--duration", self.duration, false)?;
        let Some(path) = &self.scene else {
            if let Some(flag) = self.scene_only() {
                return Err(RequestError::Invalid(format!("{flag} needs a SCENE: the presets place their own parts")));
            }
            let name = self.preset.as_deref().unwrap_or("quick");
            let p = Preset::parse(name).ok_or_else(|| {
                let all: Vec<_> = Preset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown preset '{name}' (expected one of {})", all.join(", "))
            })?;
            let default_modes = vec![SpeculativeMode::Off, SpeculativeMode::Compat];
            let mut s = Sweep::preset(p, routes.unwrap_or(vec![Route::C]), modes.unwrap_or(default_modes));
            (s.speeds, s.offsets, s.timesteps, s.duration, s.refine) =
                (speeds, offsets, timesteps, duration, self.refine);
            return Ok(s);
        };
        let file = path.display();
        if self.preset.is_some() {
            return Err(RequestError::Invalid(format!("{file}: a sweep takes a SCENE or a --preset, not both")));
        }
        if self.refine {
            return Err(RequestError::Invalid("--refine is for the presets' scene A".into()));
        }
        if self.bodies.is_empty() {
            return Err(RequestError::Invalid(format!("{file}: name the body to sweep with --body NAME")));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{file}: {e}"))?;
        let model = Model::from_xml_path(path)?;
        let aim = match (&self.direction, &self.toward) {
            (Some(_), Some(_)) => {
                return Err(RequestError::Invalid("--direction and --toward exclude each other".into()));
            }
            (Some(d), None) => Aim::Direction(parse_direction(d)?),
            (None, Some(t)) => Aim::Toward(t.clone()),
            (None, None) => {
                let g = model.mj().opt.gravity;
                let down = parse_direction(&format!("{},{},{}", g[0], g[1], g[2])).unwrap_or([0.0, 0.0, -1.0]);
                Aim::Direction(down)
            }
        };
        let tilt = positive("--tilt", self.tilt, true)?.unwrap_or(0.0);
        if tilt > 90.0 {
            return Err(RequestError::Invalid(format!("--tilt {tilt}: a tilt is at most 90 degrees")));
        }
        if self.draws == Some(0) {
            return Err(RequestError::Invalid("--draws must be at least 1".into()));
        }
        let sweep = Sweep {
            source: Source::Scene { path: path.clone(), digest: format!("{:016x}", def::fnv64(&bytes)) },
            bodies: dedup(self.bodies.clone()),
            speeds: Some(speeds.unwrap_or_else(|| preset::speeds(1.0, 40.0, 0.5))),
            aim,
            offsets: Some(offsets.unwrap_or_else(|| preset::OFFSETS_3.to_vec())),
            gap: positive("--gap", self.gap, true)?.unwrap_or(0.0),
            tilt,
            jitter: positive("--jitter", self.jitter, true)?.unwrap_or(0.0),
            seed: self.seed.unwrap_or(0),
            draws: self.draws.unwrap_or(1),
            timesteps: Some(timesteps.unwrap_or_else(|| vec![model.timestep()])),
            duration: Some(duration.unwrap_or(def::SCENE_DURATION)),
            key: self.key.clone(),
            routes,
            modes: modes.unwrap_or(SpeculativeMode::ALL.to_vec()),
            refine: false,
        };
        // Every body's first start, so a body that cannot be placed fails before anything runs.
        let all = sweep.runs();
        for body in &sweep.bodies {
            if let Some(r) = all.iter().find(|r| &r.case == body) {
                let c = Compiled::new(r)?;
                let setup = c.setup.as_ref().expect("scene runs have a setup");
                setup.start(&c.model, r.user.as_deref().expect("scene runs have a case"), r)?;
            }
        }
        Ok(sweep)
    }
}

/// Parses a list of names with `parse`, naming the choices when one is unknown.
pub(crate) fn parse_list<T: PartialEq>(
    what: &str,
    text: &str,
    parse: impl Fn(&str) -> Option<T>,
    choices: &[&str],
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for name in text.split(',').map(str::trim) {
        let v =
            parse(name).ok_or_else(|| format!("unknown {what} '{name}' (expected one of {})", choices.join(", ")))?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

fn number(text: &str, what: &str) -> Result<f64, String> {
    let v: f64 = text.trim().parse().map_err(|_| format!("{what}: '{}' is not a number", text.trim()))?;
    if !v.is_finite() {
        return Err(format!("{what}: '{}' is not a finite number", text.trim()));
    }
    Ok(v)
}

/// `--speeds`: `start:stop:step` (inclusive) or a comma list, in m/s; every speed at least 0.
pub(crate) fn parse_speeds(text: &str) -> Result<Vec<f64>, String> {
    let speeds = match text.split(':').collect::<Vec<_>>()[..] {
        [lo, hi, step] => {
            let (lo, hi, step) = (number(lo, "--speeds")?, number(hi, "--speeds")?, number(step, "--speeds")?);
            if step <= 0.0 {
                return Err(format!("--speeds {text}: the step must be positive"));
            }
            if hi < lo {
                return Err(format!("--speeds {text} is empty: the stop is below the start"));
            }
            preset::speeds(lo, hi, step)
        }
        [list] if !list.trim().is_empty() => {
            list.split(',').map(|s| number(s, "--speeds")).collect::<Result<Vec<_>, _>>()?
        }
        [_] => return Err("--speeds is empty".into()),
        _ => return Err(format!("--speeds {text}: expected start:stop:step or a comma-separated list")),
    };
    if let Some(v) = speeds.iter().find(|v| **v < 0.0) {
        return Err(format!("--speeds {text}: {v} m/s is negative (the direction says where the body goes)"));
    }
    Ok(speeds)
}

/// `--timesteps`: a comma list of durations with a unit (`1.25ms`, `500us`, `0.001s`; a bare
/// number is in seconds), each positive.
pub(crate) fn parse_timesteps(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim) {
        let (num, scale) = if let Some(n) = item.strip_suffix("ms") {
            (n, 1e-3)
        } else if let Some(n) = item.strip_suffix("us").or_else(|| item.strip_suffix("µs")) {
            (n, 1e-6)
        } else if let Some(n) = item.strip_suffix('s') {
            (n, 1.0)
        } else {
            (item, 1.0)
        };
        let v = number(num, "--timesteps")?;
        if v <= 0.0 {
            return Err(format!("--timesteps: '{item}' is not a positive timestep"));
        }
        // Rounded to whole picoseconds, so that 1.25ms is 0.00125 and not 0.0012500000000000002.
        let h = (v * scale * 1e12).round() / 1e12;
        if !out.contains(&h) {
            out.push(h);
        }
    }
    Ok(out)
}

/// `--direction x,y,z`: any non-zero vector, returned as a unit vector.
pub(crate) fn parse_direction(text: &str) -> Result<[f64; 3], String> {
    let v: Vec<f64> = text.split(',').map(|s| number(s, "--direction")).collect::<Result<_, _>>()?;
    let [x, y, z] = v[..] else {
        return Err(format!("--direction {text}: expected three numbers x,y,z"));
    };
    let n = (x * x + y * y + z * z).sqrt();
    if n == 0.0 || !n.is_finite() {
        return Err(format!("--direction {text} has zero length: it gives no direction"));
    }
    Ok([x / n, y / n, z / n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_ranges_are_inclusive_and_exact() {
        assert_eq!(parse_speeds("1:3:0.5").unwrap(), [1.0, 1.5, 2.0, 2.5, 3.0]);
        assert_eq!(parse_speeds("2, 5,10").unwrap(), [2.0, 5.0, 10.0]);
        assert!(parse_speeds("").is_err());
        assert!(parse_speeds("3:1:1").is_err());
        assert!(parse_speeds("1:3:0").is_err());
        assert!(parse_speeds("-1,2").is_err());
    }

    #[test]
    fn timesteps_take_units() {
        assert_eq!(parse_timesteps("1.25ms,0.625ms").unwrap(), [0.00125, 0.000625]);
        assert_eq!(parse_timesteps("500us,0.002s,0.001").unwrap(), [0.0005, 0.002, 0.001]);
        assert!(parse_timesteps("0ms").is_err());
        assert!(parse_timesteps("fast").is_err());
    }
}
