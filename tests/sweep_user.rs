//! `specula sweep SCENE --body NAME`: sweeping a body of the user's own scene (a pin dropped onto a
//! fixture plate between a gripper's fingers), its agreement with `specula run`, the presets'
//! unchanged counts, shards (by hand and from Slurm's array variables) and their merge, bad input,
//! and the progress bar and verdict.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCENE: &str = "tests/sweep_user_cases/gripper_pin.xml";

/// The scene sweep of the acceptance: the pin at 1-20 m/s, 3 offsets, all three modes.
const PIN: &[&str] =
    &["--body", "pin", "--key", "ready", "--speeds", "1:20:1", "--offsets", "3", "--modes", "off,compat,robust"];

fn specula(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_specula"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    // The test's own environment may be inside a Slurm job: only the variables given here count.
    for k in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied()).output().expect("the binary runs")
}

fn sweep(args: &[&str]) -> Output {
    specula(&[&["sweep"], args].concat(), &[])
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("specula-sweep-user-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// CSV rows (none of these rows quotes a comma) as column → value maps, skipping `#` lines.
fn rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines.map(|l| header.iter().map(|h| h.to_string()).zip(l.split(',').map(String::from)).collect()).collect()
}

fn passes(rows: &[BTreeMap<String, String>], mode: &str) -> usize {
    rows.iter().filter(|r| r["mode"] == mode && r["outcome"] == "PASS").count()
}

#[test]
fn a_pin_on_the_fixture_plate_passes_with_off_less_with_compat_and_never_with_robust() {
    let dir = scratch("pin");
    let csv = dir.join("pin.csv");
    let summary = ok(&sweep(&[&[SCENE], PIN, &["--out", path(&csv)]].concat()));
    let rows = rows(&std::fs::read_to_string(&csv).unwrap());
    // 20 speeds x 3 offsets x 3 modes (robust on the rust route, the others on c).
    assert_eq!(rows.len(), 180);
    let (off, compat, robust) = (passes(&rows, "off"), passes(&rows, "compat"), passes(&rows, "robust"));
    assert!(off > 0 && compat < off && robust == 0, "off {off}, compat {compat}, robust {robust}");
    assert!(rows.iter().filter(|r| r["mode"] == "robust").all(|r| r["route"] == "rust"));
    // A passing run names what it went through and when; the gap was measured to the plate.
    let pass = rows.iter().find(|r| r["outcome"] == "PASS").unwrap();
    assert_eq!((pass["through"].as_str(), pass["target"].as_str()), ("plate", "plate"));
    assert!(pass["step"].parse::<usize>().unwrap() >= 1);
    // Robust holds every pin on the plate, less than a millimetre into the soft contact.
    for r in rows.iter().filter(|r| r["mode"] == "robust") {
        assert_eq!(r["outcome"], "LAND", "{r:?}");
        let dip: f64 = r["dip_mm"].parse().unwrap();
        assert!(dip > 0.0 && dip < 1.0, "{r:?}");
    }
    // The table has a row per mode; the verdict says it in words.
    for mode in ["off", "compat", "robust"] {
        assert!(summary.lines().any(|l| l.starts_with("pin") && l.contains(mode)), "{summary}");
    }
    let verdict = summary.lines().find(|l| l.starts_with("Verdict: ")).expect("a verdict");
    assert!(verdict.contains("With compat, the pin passes from"), "{verdict}");
    assert!(verdict.contains("Robust lets nothing through up to 20 m/s"), "{verdict}");
    assert!(verdict.contains("the deepest dip is"), "{verdict}");
}

/// Adds the `<key>` that `sweep --start-of` printed to a copy of the scene, in `dir`.
fn scene_with_key(dir: &Path, key: &str) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENE)).unwrap();
    let copy = dir.join("replay.xml");
    std::fs::write(&copy, text.replace("</keyframe>", &format!("{key}</keyframe>"))).unwrap();
    copy
}

#[test]
fn sweep_runs_agree_with_specula_run_from_the_same_start_state() {
    let dir = scratch("replay");
    // Tilted and jittered starts, so the replayed state is not the keyframe's.
    let opts = [&[SCENE], PIN, &["--tilt", "8", "--jitter", "0.05", "--seed", "7"]].concat();
    let all = rows(&ok(&sweep(&opts)));
    let pick = |mode: &str, outcome: &str| {
        all.iter()
            .find(|r| r["mode"] == mode && r["outcome"] == outcome)
            .unwrap_or_else(|| panic!("no {mode} {outcome}"))
    };
    for row in [pick("off", "PASS"), pick("compat", "LAND"), pick("robust", "LAND")] {
        let key = ok(&sweep(&[&opts[..], &["--start-of", &row["index"]]].concat()));
        assert!(key.contains(&format!("<key name=\"sweep-{}\"", row["index"])), "{key}");
        let replay = scene_with_key(&dir, &key);
        let name = format!("sweep-{}", row["index"]);
        let args =
            ["run", path(&replay), "--key", &name, "--steps", &row["steps"], "--speculative", &row["mode"], "--json"];
        let run: serde_json::Value = serde_json::from_str(&ok(&specula(&args, &[]))).unwrap();
        assert_eq!(run["route"], row["route"].as_str());
        let pin = run["bodies"].as_array().unwrap().iter().find(|b| b["name"] == "pin").unwrap();
        for (k, axis) in ["end_x", "end_y", "end_z"].iter().enumerate() {
            let swept: f64 = row[*axis].parse().unwrap();
            let ran = pin["pos"][k].as_f64().unwrap();
            assert!((swept - ran).abs() <= 1e-6, "{axis}: sweep {swept}, run {ran} ({row:?})");
        }
        // The same passages: the plate (on body "fixture") at the same step, or none.
        let tunnels: Vec<_> = run["tunnels"].as_array().unwrap().iter().filter(|t| t["body"] == "pin").collect();
        match row["outcome"].as_str() {
            "PASS" => {
                assert_eq!(tunnels[0]["through"], "fixture");
                assert_eq!(tunnels[0]["step"].to_string(), row["step"]);
            }
            _ => assert!(tunnels.is_empty(), "{tunnels:?}"),
        }
    }
}

#[test]
fn the_gap_is_measured_from_the_foremost_point_to_the_targets_near_face() {
    // Speed 0, so only --gap counts: the pin (radius 0.75 mm, lying flat) starts with its lowest
    // point 10 mm above the plate's top face (z = 0.201), whichever way it is aimed there.
    for aim in [&["--direction", "0,0,-1"][..], &["--toward", "plate"], &["--toward", "plate_top"]] {
        let args = [
            &[SCENE, "--body", "pin", "--key", "ready", "--speeds", "0", "--offsets", "1", "--gap", "0.01"],
            aim,
            &["--start-of", "0"],
        ]
        .concat();
        let key = ok(&sweep(&args));
        let qpos = key.split("qpos=\"").nth(1).unwrap().split('"').next().unwrap();
        let z: f64 = qpos.split(' ').nth(4).unwrap().parse().unwrap();
        assert!((z - (0.201 + 0.01 + 0.00075)).abs() < 1e-12, "{aim:?}: z {z}");
    }
}

#[test]
fn several_bodies_are_swept_one_at_a_time_toward_a_site() {
    let args = [
        SCENE,
        "--body",
        "pin",
        "--body",
        "washer",
        "--key",
        "ready",
        "--toward",
        "plate_top",
        "--speeds",
        "3,12",
        "--modes",
        "compat",
    ];
    let rows = rows(&ok(&sweep(&args)));
    assert_eq!(rows.len(), 2 * 2 * 3);
    for body in ["pin", "washer"] {
        let mine: Vec<_> = rows.iter().filter(|r| r["body"] == body).collect();
        assert_eq!(mine.len(), 6);
        assert!(mine.iter().all(|r| r["target"] == "plate"), "{mine:?}");
    }
}

#[test]
fn presets_give_the_counts_they_gave_before_scene_sweeps() {
    // Recorded with the release binary of the commit before scene sweeps, byte for byte.
    for preset in ["quick", "c", "a3"] {
        let now = ok(&sweep(&["--preset", preset]));
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/sweep_user_cases/presets/{preset}.csv"));
        let before = std::fs::read_to_string(file).unwrap();
        assert!(now == before, "preset {preset}: its CSV changed");
    }
}

/// A scene sweep small enough to run five times: tilts, jitter and two draws per offset.
const SMALL: &[&str] = &[
    SCENE,
    "--body",
    "pin",
    "--key",
    "ready",
    "--speeds",
    "2,6,10,14",
    "--offsets",
    "2",
    "--tilt",
    "5",
    "--jitter",
    "0.05",
    "--draws",
    "2",
];

#[test]
fn four_shards_merged_equal_the_unsharded_sweep() {
    let dir = scratch("merge");
    let file = |name: &str| dir.join(name);
    let whole = ok(&sweep(&[SMALL, &["--out", path(&file("whole.csv")), "--svg", path(&file("whole.svg"))]].concat()));
    let mut shards = Vec::new();
    for i in 1..=4 {
        // Shard 3 as JSON: merge reads both.
        let (name, format) = if i == 3 { (format!("s{i}.json"), "json") } else { (format!("s{i}.csv"), "csv") };
        ok(&sweep(&[SMALL, &["--shard", &format!("{i}/4"), "--format", format, "--out", path(&file(&name))]].concat()));
        shards.push(file(&name));
    }
    let first = std::fs::read_to_string(&shards[0]).unwrap();
    assert!(first.starts_with("# sweep: {\"definition\":"), "{}", first.lines().next().unwrap());
    let merged = ok(&specula(
        &[
            &["sweep", "merge"][..],
            &shards.iter().map(|p| path(p)).collect::<Vec<_>>(),
            &["--out", path(&file("merged.csv")), "--svg", path(&file("merged.svg"))],
        ]
        .concat(),
        &[],
    ));
    let read = |n: &str| std::fs::read(file(n)).unwrap();
    assert!(read("merged.csv") == read("whole.csv"), "the merged CSV differs from the unsharded one");
    assert!(read("merged.svg") == read("whole.svg"), "the merged plot differs");
    // The same summary and verdict (after the first line, which says how the runs were made).
    let tail = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(tail(&merged), tail(&whole));
}

#[test]
fn slurm_array_variables_choose_the_shard_from_either_numbering() {
    let dir = scratch("slurm");
    let whole = ok(&sweep(&["--preset", "quick"]));
    let mut files = Vec::new();
    // An array numbered from 0 (--array=0-1) and one numbered from 1 (--array=1-2).
    for (id, min, expect) in [("0", "0", "1/2"), ("2", "1", "2/2")] {
        let env = [("SLURM_ARRAY_TASK_ID", id), ("SLURM_ARRAY_TASK_COUNT", "2"), ("SLURM_ARRAY_TASK_MIN", min)];
        let (task, by_hand) = (dir.join(format!("task{id}.csv")), dir.join(format!("hand{id}.csv")));
        ok(&specula(&["sweep", "--preset", "quick", "--out", path(&task)], &env));
        let text = std::fs::read_to_string(&task).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.starts_with("# sweep: ") && first.contains(&format!("\"shard\":\"{expect}\"")), "{first}");
        // The same file as --shard gives.
        ok(&sweep(&["--preset", "quick", "--shard", expect, "--out", path(&by_hand)]));
        assert_eq!(text, std::fs::read_to_string(&by_hand).unwrap());
        files.push(task);
    }
    let merged = ok(&specula(&["sweep", "merge", path(&files[0]), path(&files[1])], &[]));
    assert_eq!(merged, whole);
    // A task outside the array is refused.
    let env = [("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_COUNT", "2"), ("SLURM_ARRAY_TASK_MIN", "1")];
    let o = specula(&["sweep", "--preset", "quick"], &env);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
}

#[test]
fn merging_a_missing_doubled_or_foreign_shard_is_an_error_and_writes_nothing() {
    let dir = scratch("badmerge");
    let shard = |i: usize, speeds: &str| {
        let f = dir.join(format!("s{i}-{speeds}.csv"));
        ok(&sweep(&[
            SCENE,
            "--body",
            "pin",
            "--key",
            "ready",
            "--speeds",
            speeds,
            "--shard",
            &format!("{i}/3"),
            "--out",
            path(&f),
        ]));
        f
    };
    let (s1, s2, s3, other) = (shard(1, "4,8"), shard(2, "4,8"), shard(3, "4,8"), shard(3, "4,9"));
    let plain = dir.join("plain.csv");
    ok(&sweep(&["--preset", "quick", "--out", path(&plain)]));
    let out = dir.join("merged.csv");
    for (files, says) in [
        (vec![&s1, &s3], "shard 2/3 of the sweep"),
        (vec![&s1, &s2, &s2, &s3], "given twice"),
        (vec![&s1, &s2, &other], "different sweeps"),
        (vec![&s1, &plain], "not a shard"),
    ] {
        let args =
            [&["sweep", "merge"][..], &files.iter().map(|p| path(p)).collect::<Vec<_>>(), &["--out", path(&out)]]
                .concat();
        let o = specula(&args, &[]);
        assert_eq!(o.status.code(), Some(2), "{files:?}");
        let err = stderr(&o);
        assert!(err.contains(says) && err.trim_end().lines().count() == 1, "{says}: {err}");
        assert!(!out.exists(), "a failed merge wrote its output");
    }
    // A shard cut short is caught too.
    let text = std::fs::read_to_string(&s3).unwrap();
    let cut = dir.join("cut.csv");
    std::fs::write(&cut, &text[..text.trim_end().rfind('\n').unwrap() + 1]).unwrap();
    let o = specula(&["sweep", "merge", path(&s1), path(&s2), path(&cut)], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cut short"), "{}", stderr(&o));
}

#[test]
fn bad_input_is_one_line_on_stderr_exit_code_2_and_nothing_written() {
    let dir = scratch("bad");
    let out = dir.join("rows.csv");
    let o = path(&out);
    // Arguments, environment, and what the error says.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (&[SCENE, "--body", "nosuch"], &[], "no body named 'nosuch'"),
        (&[SCENE, "--body", "finger_left"], &[], "has no free joint"),
        (&[SCENE], &[], "--body"),
        (&[SCENE, "--body", "pin", "--speeds", "5:1:1"], &[], "is empty"),
        (&[SCENE, "--body", "pin", "--speeds", ""], &[], "is empty"),
        (&[SCENE, "--body", "pin", "--speeds", "2,-1"], &[], "negative"),
        (&[SCENE, "--body", "pin", "--direction", "0,0,0"], &[], "zero length"),
        (&[SCENE, "--body", "pin", "--toward", "nothing"], &[], "no geom or site"),
        (&[SCENE, "--body", "pin", "--direction", "0,1,0"], &[], "nothing lies ahead"),
        (&[SCENE, "--body", "pin", "--shard", "5/4"], &[], "out of range"),
        (&[SCENE, "--body", "pin", "--timesteps", "0ms"], &[], "not a positive timestep"),
        (&[SCENE, "--body", "pin"], &[("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_COUNT", "4")], "out of range"),
        (&["tests/sweep_user_cases/none.xml", "--body", "pin"], &[], "none.xml"),
        (&["--preset", "quick", "--body", "pin"], &[], "needs a SCENE"),
    ];
    for (args, env, says) in cases {
        let full = [&["sweep"][..], args, &["--out", o]].concat();
        let r = specula(&full, env);
        let err = stderr(&r);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("specula: ") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: expected '{says}' in {err}");
        assert!(r.stdout.is_empty() && !out.exists(), "{args:?} wrote output");
    }
}

#[test]
fn the_progress_bar_and_the_verdict_show_when_asked_for() {
    let args = [SCENE, "--body", "pin", "--key", "ready", "--speeds", "4,12", "--offsets", "1"];
    let forced = sweep(&[&args[..], &["--progress", "always"]].concat());
    let err = stderr(&forced);
    assert!(forced.status.success(), "{err}");
    assert!(err.contains("6/6 runs") && err.contains("runs/s") && err.contains("left"), "{err}");
    assert!(err.contains("Verdict: "), "{err}");
    // Into a pipe, by default: the summary and verdict, no bar.
    let quiet = stderr(&sweep(&args));
    assert!(!quiet.contains("runs/s") && quiet.contains("Verdict: "), "{quiet}");
}
