//! Shard files: the header that makes each one self-describing, and `specula sweep merge`, which
//! checks that a set of shards is one whole sweep and puts their runs back in order.
//!
//! A CSV shard starts with one comment line,
//! `# sweep: {"definition": {...}, "hash": "...", "shard": "I/N", "runs": R, "of": T}`, holding the
//! sweep's canonical definition ([`Sweep::to_json`]) and hash; a JSON shard holds the same as its
//! `sweep`, `hash` and `shard` keys. Merging rebuilds the full run list from the definition, so it
//! knows which runs each shard must hold, and gives each row back its run (the exact speeds,
//! offsets and cases). Shards write their measured values with every digit (JSON does anyway), so
//! the merged results are the unsharded run's to the bit, and so are its CSV, summary and plot.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::def::Sweep;
use super::exec::{Outcome, RunResult};
use super::user::UserResult;
use super::{scene, RunSpec, SceneKind};

/// The comment line that starts a CSV shard.
pub fn header(sweep: &Sweep, shard: (usize, usize), runs: usize, total: usize) -> String {
    let h = serde_json::json!({
        "definition": sweep.to_json(),
        "hash": sweep.hash(),
        "shard": format!("{}/{}", shard.0, shard.1),
        "runs": runs,
        "of": total,
    });
    format!("# sweep: {h}\n")
}

/// One shard read back.
#[derive(Debug)]
pub struct Shard {
    /// The file it came from.
    pub path: PathBuf,
    /// Its sweep's definition.
    pub sweep: Sweep,
    /// The hash its header records.
    pub hash: String,
    /// Which shard it is (I, N).
    pub shard: (usize, usize),
    /// Its rows, as column name → text.
    rows: Vec<HashMap<String, String>>,
}

/// Splits one CSV line into fields, undoing the quoting of [`super::report`].
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A JSON value as the text the CSV would hold for it.
fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn parse_shard_text(path: &Path, s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{}: the header's shard '{s}' is not I/N", path.display());
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (i.parse::<usize>().map_err(|_| bad())?, n.parse::<usize>().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Why shard files cannot be merged into one sweep.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// A file that is not a readable shard: unreadable, without a sweep header, or with a bad
    /// header or row.
    #[error("{0}")]
    BadShard(String),
    /// Shards that do not make one sweep: different sweeps or splits, a shard missing or given
    /// twice, or holding runs that are not its own.
    #[error("{0}")]
    Mismatch(String),
}

impl Shard {
    /// Reads a CSV or JSON shard written by `specula sweep --shard` (or in a Slurm array).
    pub fn read(path: &Path) -> Result<Shard, MergeError> {
        Shard::read_text(path).map_err(MergeError::BadShard)
    }

    fn read_text(path: &Path) -> Result<Shard, String> {
        let file = path.display();
        let body = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let not_a_shard = || {
            format!("{file} has no sweep header: it is not a shard (shards are written with --shard I/N or in a Slurm array)")
        };
        let (definition, hash, shard, rows) = if body.trim_start().starts_with('{') {
            let doc: Value = serde_json::from_str(&body).map_err(|e| format!("{file}: {e}"))?;
            let shard = doc["shard"].as_str().ok_or_else(not_a_shard)?.to_string();
            let rows: Vec<HashMap<String, String>> = doc["runs"]
                .as_array()
                .ok_or_else(not_a_shard)?
                .iter()
                .map(|r| {
                    r.as_object().map(|o| o.iter().map(|(k, v)| (k.clone(), text(v))).collect()).unwrap_or_default()
                })
                .collect();
            (doc["sweep"].clone(), text(&doc["hash"]), shard, rows)
        } else {
            let mut lines = body.lines();
            let first = lines.next().unwrap_or_default();
            let json = first.strip_prefix("# sweep: ").ok_or_else(not_a_shard)?;
            let h: Value =
                serde_json::from_str(json).map_err(|e| format!("{file}: its sweep header is not JSON: {e}"))?;
            let columns = lines.next().map(csv_fields).unwrap_or_default();
            let rows = lines
                .filter(|l| !l.is_empty())
                .map(|l| columns.iter().cloned().zip(csv_fields(l)).collect::<HashMap<_, _>>())
                .collect();
            (h["definition"].clone(), text(&h["hash"]), text(&h["shard"]), rows)
        };
        if definition.is_null() {
            return Err(not_a_shard());
        }
        let sweep = Sweep::from_json(&definition).map_err(|e| format!("{file}: {e}"))?;
        if sweep.hash() != hash {
            return Err(format!(
                "{file}: its sweep definition does not give the hash it records ({hash}): the header was edited, or written by another version"
            ));
        }
        let shard = parse_shard_text(path, &shard)?;
        Ok(Shard { path: path.to_path_buf(), sweep, hash, shard, rows })
    }
}

/// Puts a row back on its run.
fn result(row: &HashMap<String, String>, spec: &RunSpec) -> Result<RunResult, String> {
    let get = |k: &str| row.get(k).map(String::as_str).ok_or_else(|| format!("no column '{k}'"));
    let num = |k: &str| get(k)?.parse::<f64>().map_err(|_| format!("'{k}' is not a number"));
    let opt = |k: &str| match get(k)? {
        "" => Ok(None),
        v => v.parse::<f64>().map(Some).map_err(|_| format!("'{k}' is not a number")),
    };
    let int = |k: &str| get(k)?.parse::<usize>().map_err(|_| format!("'{k}' is not a count"));
    let outcome =
        Outcome::parse(get("outcome")?).ok_or_else(|| format!("unknown outcome '{}'", get("outcome").unwrap_or("")))?;
    let mut spec = spec.clone();
    if spec.scene == SceneKind::B {
        // Scene B draws its start gap; the row holds it rounded, the draw itself is exact.
        spec.offset = scene::start(&spec).offset;
    }
    let user = match spec.user {
        None => None,
        Some(_) => Some(UserResult {
            target: get("target")?.to_string(),
            through: Some(get("through")?.to_string()).filter(|t| !t.is_empty()),
            at_step: match get("step")? {
                "" => None,
                v => Some(v.parse().map_err(|_| "'step' is not a count".to_string())?),
            },
            rebound: opt("rebound_mm")?,
            end: [num("end_x")?, num("end_y")?, num("end_z")?],
            tilt: num("tilt_deg")?,
            side: num("side_mps")?,
        }),
    };
    Ok(RunResult {
        spec,
        outcome,
        dip: opt("dip_mm")?,
        rest: num("rest_mm")?,
        steps: int("steps")?,
        tunnels: int("tunnels")?,
        closest: if row.contains_key("closest_mm") { opt("closest_mm")? } else { None },
        user,
    })
}

/// Merges shard files: they must record one sweep (the same hash), with the same N, each shard
/// exactly once, each holding exactly its runs. Returns the sweep and every run in order.
pub fn merge(paths: &[PathBuf]) -> Result<(Sweep, Vec<RunResult>), MergeError> {
    let shards = paths.iter().map(|p| Shard::read(p)).collect::<Result<Vec<_>, _>>()?;
    let first = shards.first().ok_or_else(|| MergeError::Mismatch("merge needs at least one shard file".into()))?;
    for s in &shards[1..] {
        if s.hash != first.hash {
            return Err(MergeError::Mismatch(format!(
                "{} and {} are shards of different sweeps (hashes {} and {})",
                first.path.display(),
                s.path.display(),
                first.hash,
                s.hash
            )));
        }
        if s.shard.1 != first.shard.1 {
            return Err(MergeError::Mismatch(format!(
                "{} is shard {}/{} but {} is shard {}/{}: they split the sweep differently",
                first.path.display(),
                first.shard.0,
                first.shard.1,
                s.path.display(),
                s.shard.0,
                s.shard.1
            )));
        }
    }
    let n = first.shard.1;
    let mut by_index: Vec<Option<&Shard>> = vec![None; n + 1];
    for s in &shards {
        if let Some(other) = by_index[s.shard.0] {
            return Err(MergeError::Mismatch(format!(
                "shard {}/{n} is given twice ({} and {})",
                s.shard.0,
                other.path.display(),
                s.path.display()
            )));
        }
        by_index[s.shard.0] = Some(s);
    }
    let missing: Vec<String> = (1..=n).filter(|&i| by_index[i].is_none()).map(|i| format!("{i}/{n}")).collect();
    if !missing.is_empty() {
        return Err(MergeError::Mismatch(format!(
            "shard {} of the sweep {} is missing",
            missing.join(", "),
            first.hash
        )));
    }
    let all = first.sweep.runs();
    let mut results: Vec<Option<RunResult>> = vec![None; all.len()];
    for s in &shards {
        let file = s.path.display();
        let expected = super::shard(&all, s.shard.0, n).len();
        for row in &s.rows {
            let index: usize = row
                .get("index")
                .and_then(|i| i.parse().ok())
                .ok_or_else(|| MergeError::BadShard(format!("{file}: a row has no valid index")))?;
            if index >= all.len() || index % n != s.shard.0 - 1 {
                return Err(MergeError::Mismatch(format!(
                    "{file}: run {index} does not belong to shard {}/{n}",
                    s.shard.0
                )));
            }
            if results[index].is_some() {
                return Err(MergeError::Mismatch(format!("{file}: run {index} appears twice")));
            }
            results[index] =
                Some(result(row, &all[index]).map_err(|e| MergeError::BadShard(format!("{file}: run {index}: {e}")))?);
        }
        if s.rows.len() != expected {
            return Err(MergeError::Mismatch(format!(
                "{file}: shard {}/{n} should hold {expected} runs but holds {} (was it cut short?)",
                s.shard.0,
                s.rows.len()
            )));
        }
    }
    Ok((first.sweep.clone(), results.into_iter().map(|r| r.expect("every run was checked above")).collect()))
}
