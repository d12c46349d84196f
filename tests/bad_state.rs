//! Bad states: NaN and infinite poses, timesteps that cannot run, and what `run` and `diff`
//! say about them. Each must give MuJoCo's contacts or a clear report, never a panic, a hang or
//! a silent `match`.

use std::time::Instant;

use specula::diff::{diff, DiffOptions};
use specula::mj::Model;
use specula::sim::{self, Route, RunOptions, Start};

/// The geom types of the GJK/EPA pairs, with a size each (the mesh is a small tetrahedron-like
/// hull declared in [`ASSET`]).
const TYPES: [(&str, &str); 6] = [
    ("sphere", r#"type="sphere" size="0.1""#),
    ("box", r#"type="box" size="0.1 0.1 0.1""#),
    ("capsule", r#"type="capsule" size="0.1 0.1""#),
    ("cylinder", r#"type="cylinder" size="0.1 0.1""#),
    ("ellipsoid", r#"type="ellipsoid" size="0.1 0.12 0.08""#),
    ("mesh", r#"type="mesh" mesh="m""#),
];

const ASSET: &str = r#"<asset><mesh name="m" vertex="0 0 0 0.2 0 0 0 0.2 0 0 0 0.2 0.2 0.2 0.2"/></asset>"#;

/// A floor and one free body per `(pose, geom)`.
fn scene(bodies: &[(&str, &str)]) -> String {
    let bodies: String =
        bodies.iter().map(|(pose, geom)| format!(r#"<body {pose}><freejoint/><geom {geom}/></body>"#)).collect();
    format!(r#"<mujoco>{ASSET}<worldbody><geom type="plane" size="10 10 0.1"/>{bodies}</worldbody></mujoco>"#)
}

fn load(xml: &str) -> (Model, specula_model::Model) {
    (
        Model::from_xml_str(xml).unwrap(),
        specula_model::load_str(xml, std::path::Path::new("."), "bad_state.xml").unwrap(),
    )
}

fn run(c: &Model, r: &specula_model::Model, route: Route, steps: usize) -> sim::RunReport {
    let opts = RunOptions { route, steps, start: Start::Qpos0, robust: false };
    sim::run(c, Some(r), &opts).unwrap()
}

#[test]
fn nan_poses_give_mujocos_contacts_for_every_convex_pair_mujoco() {
    // MuJoCo 4.0.0's native GJK/EPA path gives no contact for a pair with a NaN pose (its
    // analytic pairs give NaN contacts, which specula reproduces); speculative or not
    let mut failed = Vec::new();
    for (i, (a, ga)) in TYPES.iter().enumerate() {
        for (b, gb) in &TYPES[i..] {
            for pose in [r#"pos="nan 0 1""#, r#"pos="0 0 1" quat="nan 0 0 1""#, r#"pos="inf 0 1""#] {
                let xml = scene(&[(pose, ga), (r#"pos="0 0 1.05""#, gb)]);
                let (mut c, mut r) = load(&xml);
                // (an infinite pose with speculative contacts on is left out: MuJoCo's
                // compat speculation gives the analytic pairs a NaN contact after the first
                // step's NaN velocities, specula's does not; see the bad-input issue)
                let modes: &[bool] = if pose.contains("inf") { &[false] } else { &[false, true] };
                for &spec in modes {
                    c.set_speculative(spec).unwrap();
                    let bit = mujoco_sys::mjENBL_SPECULATIVE;
                    r.opt.enableflags = if spec { r.opt.enableflags | bit } else { r.opt.enableflags & !bit };
                    let report = diff(&c, &r, &DiffOptions { steps: 2, start: Start::Qpos0 }).unwrap();
                    if report.unmatched() != 0 {
                        failed.push(format!("{a}-{b} at {pose}, speculative {spec}: {:?}", report.first_problem));
                    }
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn many_nan_ellipsoids_contact_as_in_mujoco_and_as_fast_mujoco() {
    // every body NaN: both broadphases pass every pair (NaN boxes never separate), MuJoCo's
    // convex path rejects each ellipsoid pair at once and only the floor contacts remain
    let n = 40;
    let bodies: Vec<_> = (0..n).map(|_| (r#"pos="nan 0 1""#, TYPES[4].1)).collect();
    let (c, r) = load(&scene(&bodies));
    let t = Instant::now();
    let on_c = run(&c, &r, Route::C, 3);
    let t_c = t.elapsed();
    let t = Instant::now();
    let on_rust = run(&c, &r, Route::Rust, 3);
    let t_rust = t.elapsed();
    assert_eq!(on_c.ncon_max, n, "{on_c:?}");
    assert_eq!(on_rust.ncon_max, on_c.ncon_max);
    // (before: 820 contacts, each pair running GJK to its iteration limit)
    assert!(t_rust < 4 * t_c + std::time::Duration::from_millis(200), "rust {t_rust:?}, c {t_c:?}");
    let report = diff(&c, &r, &DiffOptions { steps: 2, start: Start::Qpos0 }).unwrap();
    assert_eq!(report.unmatched(), 0, "{report:?}");
}

/// A ball over a floor, with `option` inside `<option .../>` and the ball at `pos`.
fn ball(option: &str, pos: &str) -> String {
    format!(
        r#"<mujoco><option {option}/><worldbody><geom type="plane" size="1 1 .1"/>
        <body name="ball" pos="{pos}"><freejoint/><geom size=".1"/></body></worldbody></mujoco>"#
    )
}

fn scratch(name: &str, xml: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("specula-bad-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.xml"));
    std::fs::write(&path, xml).unwrap();
    path
}

/// `specula ARGS`, killed (and the test failed) if it takes more than 60 s: a run that never
/// ends is one of the bugs these tests pin.
fn specula(args: &[&str], file: &std::path::Path) -> (Option<i32>, String, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_specula"))
        .arg(args[0])
        .arg(file)
        .args(&args[1..])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > 60 {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("specula {args:?} {} did not end within 60 s", file.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn timesteps_that_cannot_run_are_refused_in_one_line() {
    for (name, option, needle) in [
        ("zero", r#"timestep="0""#, "timestep is 0"),
        ("negative", r#"timestep="-0.001""#, "timestep is -0.001"),
        ("nan", r#"timestep="nan""#, "timestep is NaN"),
        ("tiny", r#"timestep="1e-12""#, "more than the 100000000"),
    ] {
        let file = scratch(&format!("timestep-{name}"), &ball(option, "0 0 1"));
        for args in [&["run"][..], &["run", "--duration", "2"], &["run", "--json"]] {
            let (code, _, err) = specula(args, &file);
            assert_eq!(code, Some(2), "{name} {args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            assert!(err.starts_with("specula: ") && err.contains(needle), "{name}: {err}");
        }
    }
    // a run longer than the limit is refused too, however it is asked for
    let file = scratch("timestep-ok", &ball("", "0 0 1"));
    let (code, _, err) = specula(&["run", "--steps", "100000001"], &file);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than the 100000000"), "{err}");
}

#[test]
fn a_non_finite_initial_state_is_reported_by_run_and_diff() {
    let file = scratch("inf", &ball("", "0 inf 1"));
    let (code, out, err) = specula(&["run", "--steps", "3", "--json"], &file);
    assert_eq!(code, Some(0), "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warnings: Vec<&str> = j["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(
        warnings.iter().any(|w| w.contains("non-finite state in the initial state: body 'ball' position")),
        "{warnings:?}"
    );
    // and MuJoCo's own warning comes with it
    assert!(warnings.iter().any(|w| w.contains("QPOS")), "{warnings:?}");
    let (_, text, _) = specula(&["run", "--steps", "3"], &file);
    assert!(text.contains("warning: non-finite state in the initial state: body 'ball'"), "{text}");

    let (code, text, err) = specula(&["diff", "--steps", "3"], &file);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    assert!(text.contains("became non-finite") && text.contains("body 'ball' position"), "{text}");
    assert!(text.contains("MuJoCo warned: Nan, Inf or huge value in QPOS"), "{text}");
    let (_, json, _) = specula(&["diff", "--steps", "3", "--json"], &file);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["nonfinite"], true, "{json}");
}

#[test]
fn a_state_that_becomes_non_finite_is_reported_with_its_step() {
    // MuJoCo resets a state whose qpos, qvel or qacc leaves its range, so a run turns
    // non-finite mid-way only through what it does not check (mocap poses, a program's
    // edits); the watch is shown such a state directly
    let (c, _) = load(&ball("", "0 0 1"));
    let mut data = specula::mj::Data::new(&c).unwrap();
    sim::start(&mut data, &Start::Qpos0).unwrap();
    let mut watch = sim::StateWatch::default();
    watch.observe(&data, 0);
    data.qvel_mut()[2] = 1e300;
    watch.observe(&data, 4);
    data.qpos_mut()[0] = f64::NAN;
    data.kinematics().unwrap();
    watch.observe(&data, 7);
    watch.observe(&data, 8);
    assert_eq!(
        watch.notes,
        [
            "huge state after step 4 (|value| >= 1e9): qvel[2] is 1e300",
            "non-finite state after step 7: body 'ball' position is [NaN, 0, 1]",
        ]
    );
    assert!(watch.nonfinite());
}

#[test]
fn values_near_mujocos_limit_are_reported_as_huge() {
    let file = scratch("huge", &ball("", "1e10 0 1"));
    let (code, text, err) = specula(&["run", "--steps", "2"], &file);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.contains("warning: huge state in the initial state") && text.contains("body 'ball' position"),
        "{text}"
    );
    // a state within the limit says nothing
    let file = scratch("fine", &ball("", "0 0 1"));
    let (_, text, _) = specula(&["run", "--steps", "2"], &file);
    assert!(!text.contains("warning"), "{text}");
}
