//! The mutation fuzzer (`specula fuzz --mutate`): a bounded run finds no case in a failing row,
//! each failing row can be reached (a deliberately broken check, a hanging, a panicking and a
//! crashing child), a case is the same bytes every time, and the shrunk cases it found are kept:
//! `tests/fuzz_cases/mutate/` must not fail, `tests/fuzz_cases/mutate/open/` (found and not
//! fixed yet, each named in the README) must still fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use specula::fuzz::mutate::{self, Bases};

/// Runs `specula fuzz --mutate ARGS --json` into a fresh output folder; returns the exit code
/// and the JSON.
fn mutate_run(tag: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = std::env::temp_dir().join(format!("specula-mutate-test-{tag}-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_specula"))
        .args(["fuzz", "--mutate", "--json", "--out", out.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let text = String::from_utf8_lossy(&o.stdout);
    let j = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{e}: {text}\nstderr: {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), j)
}

fn count(j: &serde_json::Value, key: &str) -> u64 {
    j["counts"][key].as_u64().unwrap_or_else(|| panic!("no count {key}: {j}"))
}

fn failing_lines(j: &serde_json::Value) -> Vec<String> {
    j["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("seed {} [{}] {}: {} ({})", f["seed"], f["row"], f["base"], f["message"], f["attributed"]))
        .collect()
}

/// The CI slice: seeds 0 to 149 over the built-in and project bases, 20 steps of run and diff.
/// A failure lists each failing seed; `specula fuzz --mutate --seeds N --out DIR` shrinks it.
#[test]
fn a_bounded_run_of_mutated_files_has_no_case_in_a_failing_row() {
    let t0 = Instant::now();
    let (code, j) = mutate_run("ci", &["--seeds", "0..150", "--steps", "20", "--no-shrink", "--timeout", "30"]);
    let lines = failing_lines(&j);
    assert!(lines.is_empty(), "{} failing cases:\n{}", lines.len(), lines.join("\n"));
    assert_eq!(code, Some(0));
    assert_eq!(j["cases"], 150);
    // the slice exercises what it claims: files both reject, files both compile and run
    assert!(count(&j, "both_reject_located") > 30, "{j}");
    assert!(count(&j, "check_matches") > 15, "{j}");
    eprintln!("150 mutation cases in {:.1} s", t0.elapsed().as_secs_f64());
}

#[test]
fn a_broken_check_is_counted_as_check_differs_and_fails_the_run() {
    let (code, j) = mutate_run("break-check", &["--seeds", "0..24", "--steps", "5", "--no-shrink", "--break", "check"]);
    assert_eq!(code, Some(1), "{j}");
    // (only a case whose mutation made the timestep infinite or NaN still matches)
    assert!(count(&j, "check_differs") > count(&j, "check_matches"), "{j}");
    let f = &j["failures"][0];
    assert_eq!(f["row"], "check_differs");
    assert!(f["message"].as_str().unwrap().starts_with("opt.timestep"), "{f}");
}

#[test]
fn a_panicking_or_crashing_check_is_counted_in_its_row() {
    let (code, j) = mutate_run("break-panic", &["--seeds", "0..3", "--no-shrink", "--break", "panic"]);
    assert_eq!((code, count(&j, "panic_check")), (Some(1), 3), "{j}");
    assert!(j["failures"][0]["message"].as_str().unwrap().contains("deliberate panic"), "{j}");
    let (code, j) = mutate_run("break-segv", &["--seeds", "0..3", "--no-shrink", "--break", "segv"]);
    assert_eq!((code, count(&j, "crash_check")), (Some(1), 3), "{j}");
    assert!(j["failures"][0]["message"].as_str().unwrap().starts_with("SIGSEGV"), "{j}");
}

#[test]
fn a_child_that_hangs_is_killed_at_the_timeout_and_counted_as_a_hang() {
    let t0 = Instant::now();
    let (code, j) = mutate_run(
        "break-hang",
        &["--seeds", "0..2", "--no-shrink", "--break", "hang", "--timeout", "1", "--jobs", "2"],
    );
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!((code, count(&j, "hang_check")), (Some(1), 2), "{j}");
    assert!(j["failures"][0]["message"].as_str().unwrap().contains("no answer in 1 s"), "{j}");
    // killed at the timeout: two cases of 1 s, plus each compiler loaded alone to say which hung
    assert!(secs < 15.0, "took {secs:.1} s");
}

#[test]
fn a_case_is_the_same_bytes_every_time_from_its_seed() {
    let bases = Bases::collect(Some(common::root()), &[]).unwrap();
    let mut distinct = std::collections::HashSet::new();
    for seed in 0..60 {
        let a = mutate::case(seed, &bases).mutated.to_bytes();
        let b = mutate::case(seed, &bases).mutated.to_bytes();
        assert_eq!(a, b, "seed {seed}");
        distinct.insert(a);
    }
    assert!(distinct.len() > 55, "{} distinct cases of 60", distinct.len());
    // and the command line prints the same bytes
    let print = || {
        Command::new(env!("CARGO_BIN_EXE_specula"))
            .args(["fuzz", "--mutate", "--seeds", "17", "--print"])
            .output()
            .unwrap()
    };
    let (p, q) = (print(), print());
    assert_eq!(p.stdout, q.stdout);
    assert_eq!(p.stdout, mutate::case(17, &bases).mutated.to_bytes());
}

fn xml_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "xml")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Classifies `files` as they are; a case that hangs is given `timeout` seconds.
fn replay(tag: &str, files: &[PathBuf], timeout: &str) -> serde_json::Value {
    let mut args = vec!["--timeout".to_string(), timeout.to_string(), "--replay".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    mutate_run(tag, &refs).1
}

#[test]
fn the_kept_mutation_cases_do_not_fail_and_the_open_ones_still_do() {
    let dir = common::root().join("tests/fuzz_cases/mutate");
    let kept = xml_in(&dir);
    assert!(!kept.is_empty(), "no kept case in {}", dir.display());
    let j = replay("kept", &kept, "30");
    let lines = failing_lines(&j);
    assert!(lines.is_empty(), "kept cases fail:\n{}", lines.join("\n"));
    let open = xml_in(&dir.join("open"));
    if open.is_empty() {
        return;
    }
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    // the open hangs take minutes in MuJoCo or specula: 5 s tell them apart from a pass
    let j = replay("open", &open, "5");
    let failing: Vec<u64> = j["failures"].as_array().unwrap().iter().map(|f| f["seed"].as_u64().unwrap()).collect();
    for (i, f) in open.iter().enumerate() {
        let name = format!("fuzz_cases/mutate/open/{}", f.file_name().unwrap().to_string_lossy());
        assert!(failing.contains(&(i as u64)), "{name} does not fail now: move it to tests/fuzz_cases/mutate");
        assert!(readme.contains(&name), "README does not name the open case {name}");
    }
}
