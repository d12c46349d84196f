//! What a sweep of a user's scene found: a table per body × timestep × route and mode, and a
//! verdict in words.

use std::fmt::Write as _;

use super::exec::{Outcome, RunResult};
use super::SpeculativeMode;

/// One row of the table: a body at one timestep, on one route, in one mode.
type Key = (String, u64, &'static str, SpeculativeMode);

fn key(r: &RunResult) -> Key {
    (r.spec.case.clone(), r.spec.timestep.to_bits(), r.spec.route.name(), r.spec.mode)
}

/// Groups in the order their first run appears (body, timestep, then route and mode).
fn groups(results: &[RunResult]) -> Vec<(Key, Vec<&RunResult>)> {
    let mut out: Vec<(Key, Vec<&RunResult>)> = Vec::new();
    for r in results {
        let k = key(r);
        match out.iter_mut().find(|(g, _)| *g == k) {
            Some((_, runs)) => runs.push(r),
            None => out.push((k, vec![r])),
        }
    }
    out
}

fn ms(h: u64) -> String {
    format!("{}", (f64::from_bits(h) * 1e6).round() / 1e3)
}

/// What one group did.
struct Tally<'a> {
    runs: usize,
    passes: usize,
    first_pass: Option<f64>,
    top_speed: f64,
    through: Vec<String>,
    /// Deepest dip and highest rebound of the runs that held (LAND or BOUNCE), with their runs.
    dip: Option<(f64, &'a RunResult)>,
    rebound: Option<(f64, &'a RunResult)>,
}

fn tally<'a>(runs: &[&'a RunResult]) -> Tally<'a> {
    let passed: Vec<&&RunResult> = runs.iter().filter(|r| r.outcome == Outcome::Pass).collect();
    let mut through: Vec<String> = Vec::new();
    for r in &passed {
        if let Some(t) = r.user.as_ref().and_then(|u| u.through.clone()) {
            if !through.contains(&t) {
                through.push(t);
            }
        }
    }
    let deepest = |value: &dyn Fn(&RunResult) -> Option<f64>| {
        runs.iter().filter_map(|r| value(r).map(|v| (v, *r))).fold(
            None,
            |best: Option<(f64, &RunResult)>, c| match best {
                Some(b) if b.0 >= c.0 => Some(b),
                _ => Some(c),
            },
        )
    };
    Tally {
        runs: runs.len(),
        passes: passed.len(),
        first_pass: passed.iter().map(|r| r.spec.speed).reduce(f64::min),
        top_speed: runs.iter().map(|r| r.spec.speed).fold(0.0, f64::max),
        through,
        dip: deepest(&|r| r.dip),
        rebound: deepest(&|r| r.user.as_ref().and_then(|u| u.rebound)),
    }
}

/// The table: runs, labels, first passing speed, what was passed through, deepest dip and highest
/// rebound, per body × timestep × route × mode.
pub fn summary(results: &[RunResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12} {:>7} {:<5} {:<6} | {:>5} {:>5} {:>5} {:>6} {:>5} {:>4} | {:>8} {:<14} | {:>8} {:>8}",
        "body",
        "h(ms)",
        "route",
        "mode",
        "runs",
        "PASS",
        "LAND",
        "BOUNCE",
        "STUCK",
        "OFF",
        "1st PASS",
        "through",
        "dip(mm)",
        "rebound"
    );
    for ((body, h, route, mode), runs) in groups(results) {
        let t = tally(&runs);
        let count = |o: Outcome| runs.iter().filter(|r| r.outcome == o).count();
        let _ = writeln!(
            out,
            "{:<12} {:>7} {:<5} {:<6} | {:>5} {:>5} {:>5} {:>6} {:>5} {:>4} | {:>8} {:<14} | {:>8} {:>8}",
            body,
            ms(h),
            route,
            mode.name(),
            t.runs,
            t.passes,
            count(Outcome::Land),
            count(Outcome::Bounce),
            count(Outcome::Stuck),
            count(Outcome::Off),
            t.first_pass.map_or("none".into(), |v| format!("{v}")),
            if t.through.is_empty() { "-".into() } else { t.through.join("+") },
            t.dip.map_or("-".into(), |(d, _)| format!("{d:.2}")),
            t.rebound.map_or("-".into(), |(d, _)| format!("{d:.2}")),
        );
    }
    out
}

/// How a mode is named in the verdict, with its route when the sweep ran that mode on both.
fn mode_phrase(mode: SpeculativeMode, route: &str, both: bool) -> String {
    let name = match mode {
        SpeculativeMode::Off => "speculative contacts off".to_string(),
        m => m.name().to_string(),
    };
    if both {
        format!("{name} (the {route} route)")
    } else {
        name
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// A list in words: "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The verdict in words, one paragraph: for each body and mode, the first passing speed at each
/// timestep (or that nothing passed), and the deepest dip and highest rebound of its runs that
/// held.
pub fn verdict(results: &[RunResult]) -> String {
    let all = groups(results);
    let mut bodies: Vec<&str> = Vec::new();
    for ((b, ..), _) in &all {
        if !bodies.contains(&b.as_str()) {
            bodies.push(b);
        }
    }
    let mut sentences: Vec<String> = Vec::new();
    for body in bodies {
        let mine: Vec<&(Key, Vec<&RunResult>)> = all.iter().filter(|((b, ..), _)| b == body).collect();
        let mut modes: Vec<(&'static str, SpeculativeMode)> = Vec::new();
        for ((_, _, route, mode), _) in &mine {
            if !modes.contains(&(*route, *mode)) {
                modes.push((route, *mode));
            }
        }
        for &(route, mode) in &modes {
            let both = modes.iter().filter(|(_, m)| *m == mode).count() > 1;
            let name = mode_phrase(mode, route, both);
            let rows: Vec<(u64, Tally)> = mine
                .iter()
                .filter(|((_, _, r, m), _)| *r == route && *m == mode)
                .map(|((_, h, ..), runs)| (*h, tally(runs)))
                .collect();
            let top = rows.iter().map(|(_, t)| t.top_speed).fold(0.0, f64::max);
            let passing: Vec<String> = rows
                .iter()
                .filter_map(|(h, t)| {
                    let v = t.first_pass?;
                    let through = if t.through.is_empty() {
                        String::new()
                    } else {
                        format!(", through {}", and_list(&t.through))
                    };
                    Some(format!("from {v} m/s at {} ms ({} of {} runs{through})", ms(*h), t.passes, t.runs))
                })
                .collect();
            let clean: Vec<String> =
                rows.iter().filter(|(_, t)| t.passes == 0).map(|(h, _)| format!("{} ms", ms(*h))).collect();
            let sentence = if passing.is_empty() {
                let at = if rows.len() > 1 { format!(" at {}", and_list(&clean)) } else { String::new() };
                match mode {
                    SpeculativeMode::Off => format!("With {name}, nothing passes up to {top} m/s{at}"),
                    _ => format!("{} lets nothing through up to {top} m/s{at}", capitalise(&name)),
                }
            } else {
                let rest =
                    if clean.is_empty() { String::new() } else { format!("; nothing passes at {}", and_list(&clean)) };
                format!("With {name}, the {body} passes {}{rest}", passing.join(" and "))
            };
            // The deepest dip and highest rebound of this mode's runs that held, at any timestep.
            let runs: Vec<&RunResult> = mine
                .iter()
                .filter(|((_, _, r, m), _)| *r == route && *m == mode)
                .flat_map(|(_, runs)| runs.iter().copied())
                .collect();
            let t = tally(&runs);
            let at = |r: &RunResult| format!("{} m/s, {} ms", r.spec.speed, ms(r.spec.timestep.to_bits()));
            // Runs that did not pass but ended in the target (skewered or embedded) are no landing.
            let stuck: Vec<&&RunResult> = runs.iter().filter(|r| r.outcome == Outcome::Stuck).collect();
            let into = stuck.first().and_then(|r| r.user.as_ref()).and_then(|u| u.through.clone()).unwrap_or_default();
            let stuck = match stuck.iter().map(|r| r.spec.speed).reduce(f64::min) {
                Some(v) => format!(", but {} of {} runs end stuck in {into} (from {v} m/s)", stuck.len(), runs.len()),
                None => String::new(),
            };
            let held = match (t.dip, t.rebound) {
                (Some((d, dr)), Some((b, _))) if b < 0.005 => {
                    format!("; the deepest dip is {d:.2} mm ({}), and nothing rebounds", at(dr))
                }
                (Some((d, dr)), Some((b, br))) => {
                    format!("; the deepest dip is {d:.2} mm ({}), the highest rebound {b:.2} mm ({})", at(dr), at(br))
                }
                _ => "; no run held".into(),
            };
            sentences.push(sentence + &stuck + &held + ".");
        }
    }
    sentences.join(" ")
}
