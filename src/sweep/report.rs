//! Sweep results as CSV or JSON, and summary tables laid out like the reference tables.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::def::{Source, Sweep};
use super::exec::{Outcome, RunResult};
use super::scene::SceneKind;
use super::SpeculativeMode;

/// The CSV header (also the JSON keys, in order).
pub const COLUMNS: [&str; 18] = [
    "index",
    "scene",
    "case",
    "plate_mm",
    "timestep",
    "speed",
    "offset",
    "seed",
    "stiff",
    "route",
    "mode",
    "outcome",
    "dip_mm",
    "rest_mm",
    "steps",
    "tunnels",
    "travel_mm",
    "closest_mm",
];

fn fields(r: &RunResult, exact: bool) -> Vec<String> {
    let s = &r.spec;
    vec![
        s.index.to_string(),
        s.scene.name().into(),
        s.case.clone(),
        format!("{}", s.plate * 1e3),
        format!("{}", s.timestep),
        format!("{}", s.speed),
        format!("{:.6}", s.offset),
        s.seed.to_string(),
        s.stiff.to_string(),
        s.route.name().into(),
        s.mode.name().into(),
        r.outcome.name().into(),
        r.dip.map_or(String::new(), |d| num(d, MM, exact)),
        num(r.rest, MM, exact),
        r.steps.to_string(),
        r.tunnels.to_string(),
        format!("{:.4}", s.speed * s.timestep * 1e3),
        r.closest.map_or(String::new(), |d| num(d, MM, exact)),
    ]
}

/// Quotes a CSV field when it needs it.
fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

/// A measured value as the CSV writes it: `decimals` decimals, or every digit it takes to read the
/// same number back (`exact`, for shards: merging them must give the unsharded summary, whose
/// rounding of a rounded value could differ).
fn num(x: f64, decimals: usize, exact: bool) -> String {
    if exact {
        format!("{x:?}")
    } else {
        format!("{x:.decimals$}")
    }
}

/// The results as CSV, one row per run, with a header (the scene columns when the runs are of a
/// user's scene).
pub fn to_csv(results: &[RunResult]) -> String {
    csv_with(results, false)
}

/// As [`to_csv`], with the measured values written exactly (a shard's rows).
pub fn to_csv_exact(results: &[RunResult]) -> String {
    csv_with(results, true)
}

fn csv_with(results: &[RunResult], exact: bool) -> String {
    let user = results.first().is_some_and(|r| r.user.is_some());
    let mut out = if user { USER_COLUMNS.join(",") } else { COLUMNS.join(",") };
    out.push('\n');
    for r in results {
        let row: Vec<String> =
            if user { user_fields(r, exact) } else { fields(r, exact) }.iter().map(|f| csv_field(f)).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The CSV header of a user's scene sweep (also its JSON keys, in order).
pub const USER_COLUMNS: [&str; 23] = [
    "index",
    "body",
    "target",
    "timestep",
    "speed",
    "offset",
    "draw",
    "tilt_deg",
    "side_mps",
    "route",
    "mode",
    "outcome",
    "through",
    "step",
    "dip_mm",
    "rebound_mm",
    "rest_mm",
    "steps",
    "tunnels",
    "travel_mm",
    "end_x",
    "end_y",
    "end_z",
];

/// Decimals of the measured values in millimetres and in metres.
const MM: usize = 4;
const METRES: usize = 6;

fn user_fields(r: &RunResult, exact: bool) -> Vec<String> {
    let (s, u) = (&r.spec, r.user.as_ref().expect("a user-scene run"));
    let opt = |v: Option<f64>| v.map_or(String::new(), |d| num(d, MM, exact));
    vec![
        s.index.to_string(),
        s.case.clone(),
        u.target.clone(),
        format!("{}", s.timestep),
        format!("{}", s.speed),
        format!("{:.6}", s.offset),
        s.seed.to_string(),
        num(u.tilt, MM, exact),
        num(u.side, MM, exact),
        s.route.name().into(),
        s.mode.name().into(),
        r.outcome.name().into(),
        u.through.clone().unwrap_or_default(),
        u.at_step.map_or(String::new(), |n| n.to_string()),
        opt(r.dip),
        opt(u.rebound),
        num(r.rest, MM, exact),
        r.steps.to_string(),
        r.tunnels.to_string(),
        format!("{:.MM$}", s.speed * s.timestep * 1e3),
        num(u.end[0], METRES, exact),
        num(u.end[1], METRES, exact),
        num(u.end[2], METRES, exact),
    ]
}

/// A user-scene run as a JSON object with [`USER_COLUMNS`] as keys.
fn user_json(r: &RunResult) -> serde_json::Value {
    let (s, u) = (&r.spec, r.user.as_ref().expect("a user-scene run"));
    serde_json::json!({
        "index": s.index,
        "body": s.case,
        "target": u.target,
        "timestep": s.timestep,
        "speed": s.speed,
        "offset": s.offset,
        "draw": s.seed,
        "tilt_deg": u.tilt,
        "side_mps": u.side,
        "route": s.route.name(),
        "mode": s.mode.name(),
        "outcome": r.outcome.name(),
        "through": u.through,
        "step": u.at_step,
        "dip_mm": r.dip,
        "rebound_mm": u.rebound,
        "rest_mm": r.rest,
        "steps": r.steps,
        "tunnels": r.tunnels,
        "travel_mm": s.speed * s.timestep * 1e3,
        "end_x": u.end[0],
        "end_y": u.end[1],
        "end_z": u.end[2],
    })
}

/// The results as a JSON object: `{"preset"` or `"scene", "shard", "sweep"` (the definition),
/// `"hash", "runs": [{column: value}]}`.
pub fn to_json(results: &[RunResult], sweep: &Sweep, shard: (usize, usize)) -> serde_json::Value {
    let runs: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            if r.user.is_some() {
                return user_json(r);
            }
            let s = &r.spec;
            serde_json::json!({
                "index": s.index,
                "scene": s.scene.name(),
                "case": s.case,
                "plate_mm": s.plate * 1e3,
                "timestep": s.timestep,
                "speed": s.speed,
                "offset": s.offset,
                "seed": s.seed,
                "stiff": s.stiff,
                "route": s.route.name(),
                "mode": s.mode.name(),
                "outcome": r.outcome.name(),
                "dip_mm": r.dip,
                "rest_mm": r.rest,
                "steps": r.steps,
                "tunnels": r.tunnels,
                "travel_mm": s.speed * s.timestep * 1e3,
                "closest_mm": r.closest,
            })
        })
        .collect();
    let mut doc = serde_json::json!({
        "shard": format!("{}/{}", shard.0, shard.1),
        "sweep": sweep.to_json(),
        "hash": sweep.hash(),
        "runs": runs,
    });
    match &sweep.source {
        Source::Preset(p) => doc["preset"] = p.name().into(),
        Source::Scene { path, .. } => doc["scene"] = path.display().to_string().into(),
    }
    doc
}

/// Speed bands of table A2 (inclusive, m/s).
const BANDS: [(f64, f64); 6] = [(1.0, 2.0), (2.5, 4.0), (4.5, 8.0), (8.5, 16.0), (16.5, 24.0), (24.5, 40.0)];

/// One row group: a case at one timestep and contact stiffness on one route and mode.
type Key = (SceneKind, String, u64, bool, &'static str, SpeculativeMode);

fn ms(h: f64) -> String {
    format!("{}", (h * 1e6).round() / 1e3)
}

/// Groups results by case, timestep, stiffness, route and mode, keeping the order rows first appear in.
fn groups(results: &[RunResult]) -> (Vec<Key>, BTreeMap<Key, Vec<&RunResult>>) {
    let mut order = Vec::new();
    let mut map: BTreeMap<Key, Vec<&RunResult>> = BTreeMap::new();
    for r in results {
        let s = &r.spec;
        let key = (s.scene, s.case.clone(), s.timestep.to_bits(), s.stiff, s.route.name(), s.mode);
        map.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            Vec::new()
        });
        map.get_mut(&key).expect("just inserted").push(r);
    }
    (order, map)
}

/// At speed `v`: the largest dip of held runs, with "+ PASS k/n" when some passed (as table A1).
fn dip_at(runs: &[&RunResult], v: f64) -> String {
    let at: Vec<_> = runs.iter().filter(|r| (r.spec.speed - v).abs() < 1e-9).collect();
    if at.is_empty() {
        return "-".into();
    }
    let passes = at.iter().filter(|r| r.outcome == Outcome::Pass).count();
    let dip = at.iter().filter_map(|r| r.dip).fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
    match (dip, passes) {
        (Some(d), 0) => format!("{d:.2}"),
        (Some(d), p) => format!("{d:.2}+P{p}/{}", at.len()),
        (None, p) => format!("PASS {p}/{}", at.len()),
    }
}

/// Summary of scene-A results: one line per case, timestep, stiffness, route and mode.
fn summary_a(order: &[Key], map: &BTreeMap<Key, Vec<&RunResult>>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<8} {:>6} {:<6} {:<5} {:<6} | {:>9} {:>5} {:>6} {:>5} | {:>8} | {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} | {:>11} {:>11} {:>11}",
        "case", "h(ms)", "solref", "route", "mode", "PASS", "LAND", "BOUNCE", "STUCK", "1st PASS", "1-2", "2.5-4", "4.5-8", "8.5-16", "16.5-24", "24.5-40", "dip@5", "dip@7", "dip@8.5"
    );
    for key in order {
        let runs = &map[key];
        let (_, case, h, stiff, route, mode) = key;
        let count = |o: Outcome| runs.iter().filter(|r| r.outcome == o).count();
        let first = runs
            .iter()
            .filter(|r| r.outcome == Outcome::Pass)
            .map(|r| r.spec.speed)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
        let bands: Vec<String> = BANDS
            .iter()
            .map(|&(lo, hi)| {
                let inb: Vec<_> =
                    runs.iter().filter(|r| r.spec.speed >= lo - 1e-9 && r.spec.speed <= hi + 1e-9).collect();
                if inb.is_empty() {
                    "-".into()
                } else {
                    let p = inb.iter().filter(|r| r.outcome == Outcome::Pass).count();
                    format!("{:.0}%", 100.0 * p as f64 / inb.len() as f64)
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "{:<8} {:>6} {:<6} {:<5} {:<6} | {:>9} {:>5} {:>6} {:>5} | {:>8} | {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} | {:>11} {:>11} {:>11}",
            case,
            ms(f64::from_bits(*h)),
            if *stiff { "2h" } else { "dflt" },
            route,
            mode.name(),
            format!("{}/{}", count(Outcome::Pass), runs.len()),
            count(Outcome::Land),
            count(Outcome::Bounce),
            count(Outcome::Stuck),
            first.map_or("none".into(), |v| format!("{v}")),
            bands[0],
            bands[1],
            bands[2],
            bands[3],
            bands[4],
            bands[5],
            dip_at(runs, 5.0),
            dip_at(runs, 7.0),
            dip_at(runs, 8.5),
        );
    }
    out
}

/// Summary of scene-B results, as section B's tables: per part and (timestep, speed), the runs that
/// passed with each mode ("off / compat"), with "+nS" for STUCK runs.
fn summary_b(results: &[&RunResult]) -> String {
    let mut cols: Vec<(u64, u64)> = Vec::new();
    let mut parts: Vec<String> = Vec::new();
    let mut modes: Vec<(&'static str, SpeculativeMode)> = Vec::new();
    for r in results {
        let c = (r.spec.timestep.to_bits(), r.spec.speed.to_bits());
        if !cols.contains(&c) {
            cols.push(c);
        }
        if !parts.contains(&r.spec.case) {
            parts.push(r.spec.case.clone());
        }
        let m = (r.spec.route.name(), r.spec.mode);
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    let mut out = String::new();
    let names: Vec<String> = modes.iter().map(|(r, m)| format!("{r}:{}", m.name())).collect();
    let _ = writeln!(
        out,
        "tunnels (PASS) out of the runs per cell, {}; +nS = STUCK, +nO = OFF (left over an edge)",
        names.join(" / ")
    );
    let _ = write!(out, "{:<22}", "part");
    for (h, v) in &cols {
        let _ = write!(out, " | {:>18}", format!("{} ms, {} m/s", ms(f64::from_bits(*h)), f64::from_bits(*v)));
    }
    out.push('\n');
    for part in &parts {
        let _ = write!(out, "{part:<22}");
        for &(h, v) in &cols {
            let cell: Vec<String> = modes
                .iter()
                .map(|&(route, mode)| {
                    let runs: Vec<_> = results
                        .iter()
                        .filter(|r| {
                            &r.spec.case == part
                                && r.spec.timestep.to_bits() == h
                                && r.spec.speed.to_bits() == v
                                && r.spec.route.name() == route
                                && r.spec.mode == mode
                        })
                        .collect();
                    let p = runs.iter().filter(|r| r.outcome == Outcome::Pass).count();
                    let s = runs.iter().filter(|r| r.outcome == Outcome::Stuck).count();
                    let o = runs.iter().filter(|r| r.outcome == Outcome::Off).count();
                    let mut cell = format!("{p}");
                    if s > 0 {
                        cell.push_str(&format!("+{s}S"));
                    }
                    if o > 0 {
                        cell.push_str(&format!("+{o}O"));
                    }
                    cell
                })
                .collect();
            let n = results.iter().filter(|r| &r.spec.case == part && r.spec.timestep.to_bits() == h).count();
            let _ = n;
            let _ = write!(out, " | {:>18}", cell.join(" / "));
        }
        out.push('\n');
    }
    for &(route, mode) in &modes {
        let runs: Vec<_> = results.iter().filter(|r| r.spec.route.name() == route && r.spec.mode == mode).collect();
        let p = runs.iter().filter(|r| r.outcome == Outcome::Pass).count();
        let s = runs.iter().filter(|r| r.outcome == Outcome::Stuck).count();
        let o = runs.iter().filter(|r| r.outcome == Outcome::Off).count();
        let _ = writeln!(out, "total {route}:{}: {p}/{} tunnel, {s} STUCK, {o} OFF", mode.name(), runs.len());
    }
    out
}

/// Summary of scene-C results: per speed and mode, SWAP count, the phases that swapped, and the
/// closest centre distance of the runs that stopped (as measurements §C2 reports them).
fn summary_c(results: &[&RunResult]) -> String {
    let mut keys: Vec<(String, u64, &'static str, SpeculativeMode)> = Vec::new();
    for r in results {
        let k = (r.spec.case.clone(), r.spec.speed.to_bits(), r.spec.route.name(), r.spec.mode);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = String::new();
    for (case, v, route, mode) in keys {
        let runs: Vec<_> = results
            .iter()
            .filter(|r| {
                r.spec.case == case
                    && r.spec.speed.to_bits() == v
                    && r.spec.route.name() == route
                    && r.spec.mode == mode
            })
            .collect();
        let swaps: Vec<String> =
            runs.iter().filter(|r| r.outcome == Outcome::Swap).map(|r| format!("{:.2}", r.spec.offset)).collect();
        let stops: Vec<f64> = runs.iter().filter(|r| r.outcome == Outcome::Stop).filter_map(|r| r.closest).collect();
        let range = if stops.is_empty() {
            String::new()
        } else {
            let lo = stops.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = stops.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            format!("; {} STOP, closest centre distance {lo:.1}-{hi:.1} mm", stops.len())
        };
        let _ = writeln!(
            out,
            "{case} at {} m/s each, {route}:{}: SWAP {}/{} (phases {}){range}",
            f64::from_bits(v),
            mode.name(),
            swaps.len(),
            runs.len(),
            swaps.join(", ")
        );
    }
    out
}

/// The summary tables of every scene in `results` (a user's scene has its own, [`super::verdict`]).
pub fn summary(results: &[RunResult]) -> String {
    if results.first().is_some_and(|r| r.user.is_some()) {
        return super::verdict::summary(results);
    }
    let mut out = String::new();
    let a: Vec<RunResult> = results.iter().filter(|r| r.spec.scene == SceneKind::A).cloned().collect();
    if !a.is_empty() {
        let (order, map) = groups(&a);
        out.push_str("Scene A: part thrown onto a static plate (runs PASS of all runs; A2 bands: % PASS)\n");
        out.push_str(&summary_a(&order, &map));
    }
    let b: Vec<&RunResult> = results.iter().filter(|r| r.spec.scene == SceneKind::B).collect();
    if !b.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Scene B: thin parts dropped onto a 5 mm pane\n");
        out.push_str(&summary_b(&b));
    }
    let c: Vec<&RunResult> = results.iter().filter(|r| r.spec.scene == SceneKind::C).collect();
    if !c.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("Scene C: two balls head-on (SWAP = passed through each other)\n");
        out.push_str(&summary_c(&c));
    }
    let flagged = |r: &&RunResult| r.tunnels > 0;
    let unflagged_pass = results.iter().filter(|r| r.outcome.went_through() && r.tunnels == 0).count();
    let flagged_held: Vec<&RunResult> = results.iter().filter(|r| !r.outcome.went_through() && r.tunnels > 0).collect();
    let stuck = flagged_held.iter().filter(|r| r.outcome == Outcome::Stuck).count();
    let _ = writeln!(
        out,
        "\ntunnel detector: {} of {} runs flagged a passage; {} PASS/SWAP runs not flagged; {} other runs \
         flagged ({} of them STUCK: through the middle but not out)",
        results.iter().filter(flagged).count(),
        results.len(),
        unflagged_pass,
        flagged_held.len(),
        stuck
    );
    out
}
