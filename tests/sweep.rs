//! `specula sweep`: the quick preset through the CLI, output columns, sharding, and hand-checked runs.

use std::collections::BTreeSet;
use std::process::{Command, Output};

use specula::sim::Route;
use specula::sweep::preset::{self, Preset};
use specula::sweep::{run_all, Outcome, SpeculativeMode};

fn sweep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_specula")).arg("sweep").args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Parses CSV rows (no quoted commas appear in the quick preset's rows) into header + records.
fn csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(String::from).collect()).collect())
}

fn field<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    &row[header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))]
}

#[test]
fn quick_preset_csv_has_the_columns_and_the_hand_checked_outcomes() {
    let (header, rows) = csv(&stdout(&sweep(&["--preset", "quick", "--format", "csv"])));
    assert_eq!(
        header,
        [
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
            "closest_mm"
        ]
    );
    // 2 cases x 3 speeds x 1 offset x 2 modes in scene A, 2 coins x 2 draws x 2 modes in scene B,
    // 2 phases x 2 modes in scene C.
    assert_eq!(rows.len(), 24);
    let find = |case: &str, speed: &str, mode: &str| {
        rows.iter()
            .find(|r| {
                field(&header, r, "case") == case
                    && field(&header, r, "speed") == speed
                    && field(&header, r, "mode") == mode
            })
            .unwrap_or_else(|| panic!("no row {case} {speed} {mode}"))
    };
    // 10 mm ball onto the 2 mm plate at 10 m/s (the built-in scene): through with speculation off,
    // held with it on (measurements A1: 10/2 passes at every speed from 2 m/s off, never on).
    let off = find("10/2", "10", "off");
    assert_eq!(field(&header, off, "outcome"), "PASS");
    assert_eq!(field(&header, off, "tunnels"), "1");
    let on = find("10/2", "10", "compat");
    assert_eq!(field(&header, on, "outcome"), "LAND");
    assert_eq!(field(&header, on, "tunnels"), "0");
    // A landed ball rests 0.367 mm into the soft contact: the analytic steady state
    // (1-d) g / (K d^2) of measurements A4, the same with speculation on.
    let rest: f64 = field(&header, on, "rest_mm").parse().unwrap();
    assert!((rest + 0.3672).abs() < 1e-3, "rest {rest}");
    // Measurements A1, 10/2 spec on: max dip 1.20 mm at 8.5 m/s, growing with speed; at 10 m/s it is
    // between that and 2 mm, far less than the 2 mm plate plus the ball radius.
    let dip: f64 = field(&header, on, "dip_mm").parse().unwrap();
    assert!(dip > 0.8 && dip < 2.0, "dip {dip}");
    // The 5 cm cube: lands at 2 m/s either way (soft-contact pass speed 4.25 m/s), passes at 10 m/s
    // with speculation off and lands with it on.
    assert_eq!(field(&header, find("cube/10", "2", "off"), "outcome"), "LAND");
    assert_eq!(field(&header, find("cube/10", "10", "off"), "outcome"), "PASS");
    assert_eq!(field(&header, find("cube/10", "10", "compat"), "outcome"), "LAND");
    // The tilted 2 mm coin goes through even with speculation on (measurements B: 31/32 at 1.25 ms).
    for r in rows.iter().filter(|r| field(&header, r, "case").contains("tilted")) {
        assert_eq!(field(&header, r, "outcome"), "PASS");
    }
    // Two steel balls head-on at 20 m/s each (measurements §C2): with speculation off they swap at
    // every phase; with it on they swap at phase 0.31 (2.5/8 of a step's relative travel) and stop
    // at 0.44, with centres 17.4 mm apart at the closest (the table's 1.8-17.4 mm range ends there;
    // probed with mujoco 4.0.0 in Python too).
    let c: Vec<_> = rows.iter().filter(|r| field(&header, r, "scene") == "C").collect();
    let label = |phase: &str, mode: &str| {
        let r = c.iter().find(|r| field(&header, r, "offset").starts_with(phase) && field(&header, r, "mode") == mode);
        field(&header, r.unwrap(), "outcome").to_string()
    };
    assert_eq!((label("0.3125", "off"), label("0.4375", "off")), ("SWAP".into(), "SWAP".into()));
    assert_eq!((label("0.3125", "compat"), label("0.4375", "compat")), ("SWAP".into(), "STOP".into()));
    let stop = c.iter().find(|r| field(&header, r, "outcome") == "STOP").unwrap();
    let closest: f64 = field(&header, stop, "closest_mm").parse().unwrap();
    assert!((closest - 17.4).abs() < 0.05, "closest {closest}");
    // The tunnel detector agrees with the PASS and SWAP labels on every quick run.
    for r in &rows {
        let through = ["PASS", "SWAP"].contains(&field(&header, r, "outcome"));
        assert_eq!(through, field(&header, r, "tunnels") != "0", "{r:?}");
    }
}

#[test]
fn quick_preset_json_has_the_same_runs() {
    let text = stdout(&sweep(&["--preset", "quick", "--format", "json"]));
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(j["preset"], "quick");
    assert_eq!(j["shard"], "1/1");
    let runs = j["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 24);
    for key in specula::sweep::report::COLUMNS {
        assert!(runs[0].get(key).is_some(), "missing {key}");
    }
    let r = runs.iter().find(|r| r["case"] == "10/2" && r["speed"] == 10.0 && r["mode"] == "compat").unwrap();
    assert_eq!(r["outcome"], "LAND");
    assert_eq!(r["route"], "c");
    assert!(r["dip_mm"].as_f64().unwrap() > 0.0);
}

#[test]
fn shards_split_the_run_list_disjointly_and_completely() {
    let (header, whole) = csv(&stdout(&sweep(&["--preset", "quick"])));
    let (_, one) = csv(&stdout(&sweep(&["--preset", "quick", "--shard", "1/2"])));
    let (_, two) = csv(&stdout(&sweep(&["--preset", "quick", "--shard", "2/2"])));
    let idx =
        |rows: &[Vec<String>]| rows.iter().map(|r| field(&header, r, "index").parse::<usize>().unwrap()).collect();
    let (a, b): (BTreeSet<usize>, BTreeSet<usize>) = (idx(&one), idx(&two));
    assert!(a.is_disjoint(&b));
    assert_eq!(a.len() + b.len(), whole.len());
    let all: BTreeSet<usize> = a.union(&b).cloned().collect();
    assert_eq!(all, idx(&whole));
    // Every sharded row is the same as in the whole run (the runs are deterministic).
    for r in one.iter().chain(&two) {
        let i: usize = field(&header, r, "index").parse().unwrap();
        assert_eq!(r, &whole[i]);
    }
}

#[test]
fn out_and_svg_files_and_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("specula-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv_path, svg_path) = (dir.join("quick.csv"), dir.join("quick.svg"));
    let o = sweep(&["--preset", "quick", "--out", csv_path.to_str().unwrap(), "--svg", svg_path.to_str().unwrap()]);
    let summary = stdout(&o);
    assert!(summary.contains("10/2") && summary.contains("PASS"), "{summary}");
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap().lines().count(), 25);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("<polyline") && svg.contains("c:off") && svg.contains("c:compat"));
    std::fs::remove_dir_all(&dir).unwrap();

    for bad in [
        &["--shard", "3/2"][..],
        &["--shard", "x"],
        &["--preset", "a9"],
        &["--modes", "robust"],
        &["--modes", "nosuch"],
    ] {
        let o = sweep(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(!o.stderr.is_empty());
    }
}

#[test]
fn preset_sizes_match_the_reference_grids() {
    let modes = SpeculativeMode::ALL;
    // 79 speeds (1-40 m/s by 0.5), 3 offsets, 8 rows, 2 modes: the 237 runs per row of table A1.
    assert_eq!(preset::speeds(1.0, 40.0, 0.5).len(), 79);
    assert_eq!(preset::runs(Preset::A1, None, &[Route::C], &modes).len(), 8 * 237 * 2);
    // The dense sweep: 20 offsets, 1580 runs per row.
    assert_eq!(preset::runs(Preset::A1, Some(&preset::offsets(20)), &[Route::C], &modes).len(), 8 * 1580 * 2);
    assert_eq!(preset::offsets(20)[0], 0.025);
    assert_eq!(preset::runs(Preset::A3, None, &[Route::C], &modes).len(), 3 * 237 * 2);
    // Section B: 9 parts x 6 cells x 32 perturbed drops, 1728 per mode.
    assert_eq!(preset::runs(Preset::B, None, &[Route::C], &modes).len(), 1728 * 2);
    assert_eq!(SpeculativeMode::parse("compat"), Some(SpeculativeMode::Compat));
}

#[test]
fn refinement_below_the_first_pass_reproduces_table_a1() {
    // Table A1, 10/2 with speculation off: first PASS at 1.5 m/s on the 0.5 m/s grid, and the 27
    // refinement runs (1.05-1.45 m/s, 3 offsets) add no PASS: 232/264 in all, first PASS still 1.5.
    let grid: Vec<_> = preset::runs(Preset::A1, None, &[Route::C], &[SpeculativeMode::Off])
        .into_iter()
        .filter(|r| r.case == "10/2" && r.speed <= 1.5)
        .collect();
    let results = run_all(&grid, &|_, _| {}).unwrap();
    let first = results.iter().filter(|r| r.outcome == Outcome::Pass).map(|r| r.spec.speed).fold(f64::MAX, f64::min);
    assert_eq!(first, 1.5);
    let extra = preset::refinement(&results, 1000);
    assert_eq!(extra.len(), 27);
    assert_eq!(extra[0].index, 1000);
    let speeds: BTreeSet<u64> = extra.iter().map(|r| (r.speed * 100.0).round() as u64).collect();
    assert_eq!(speeds, (105..=145).step_by(5).collect());
    let refined = run_all(&extra, &|_, _| {}).unwrap();
    assert!(refined.iter().all(|r| r.outcome == Outcome::Land), "a refinement run passed");
}
