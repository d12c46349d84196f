//! Tunnel detection on the shipped scenes and on scenes where nothing goes through.

use std::path::Path;

use specula::mj::Model;
use specula::sim::{run, Route, RunOptions, RunReport, Start};
use specula::tunnel::Tunnel;

fn scene(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name)
}

/// Runs a scene file with the speculative flag set as given.
fn run_scene(file: &str, key: Option<&str>, steps: usize, speculative: bool) -> RunReport {
    let mut model = Model::from_xml_path(scene(file)).unwrap();
    model.set_speculative(speculative).unwrap();
    run_model(&model, key, steps)
}

fn run_model(model: &Model, key: Option<&str>, steps: usize) -> RunReport {
    let start = key.map_or(Start::Qpos0, |k| Start::Key(k.into()));
    run(model, None, &RunOptions { route: Route::C, steps, start, robust: false }).unwrap()
}

fn through<'a>(tunnels: &'a [Tunnel], body: &str) -> Vec<&'a Tunnel> {
    tunnels.iter().filter(|t| t.body == body).collect()
}

#[test]
fn ball_goes_through_the_plate_once_without_speculation() {
    let off = run_scene("ball_plate.xml", Some("throw"), 400, false);
    assert_eq!(off.tunnels.len(), 1, "{:?}", off.tunnels);
    let t = &off.tunnels[0];
    assert_eq!((t.body.as_str(), t.through.as_str()), ("ball", "plate"));
    // The ball ends on the floor, so it really went through.
    assert!(off.bodies.iter().any(|b| b.name == "ball" && b.pos[2] < 0.2));
    // The soft contact slows it first; it crosses the plate's middle well below its 10 m/s, and the
    // crossing happens within the first few steps (the plate is 6.25 mm away at 12.5 mm per step).
    assert!(t.speed > 0.5 && t.speed < 10.0, "speed {}", t.speed);
    assert!(t.step >= 1 && t.step <= 10, "step {}", t.step);

    let on = run_scene("ball_plate.xml", Some("throw"), 400, true);
    assert!(on.tunnels.is_empty(), "{:?}", on.tunnels);
}

#[test]
fn run_json_lists_tunnels() {
    let off = run_scene("ball_plate.xml", Some("throw"), 400, false);
    let j = off.to_json();
    assert_eq!(j["tunnels"][0]["body"], "ball");
    assert_eq!(j["tunnels"][0]["through"], "plate");
    assert!(j["tunnels"][0]["step"].as_u64().unwrap() >= 1);
    assert!(j["tunnels"][0]["speed"].as_f64().unwrap() > 0.0);
    let on = run_scene("ball_plate.xml", Some("throw"), 400, true);
    assert_eq!(on.to_json()["tunnels"], serde_json::json!([]));
}

const PARTS: [&str; 9] = [
    "ball_r5",
    "cube_10",
    "ball_r3",
    "capsule_r3_flat",
    "coin_4mm",
    "coin_2mm",
    "coin_2mm_tilted",
    "capsule_r1.5_flat",
    "capsule_r1.5_upright",
];

#[test]
fn every_thin_part_tunnels_through_the_pane_without_speculation() {
    let off = run_scene("thin_parts.xml", Some("drop"), 160, false);
    for part in PARTS {
        let t = through(&off.tunnels, part);
        assert_eq!(t.len(), 1, "{part}: {:?}", off.tunnels);
        assert_eq!(t[0].through, "pane");
    }
    // Nothing tunnels through the floor.
    assert!(off.tunnels.iter().all(|t| t.through == "pane"), "{:?}", off.tunnels);
}

#[test]
fn with_speculation_the_tilted_coin_and_the_thin_capsules_still_tunnel() {
    let on = run_scene("thin_parts.xml", Some("drop"), 160, true);
    let mut tunnelled: Vec<&str> = on.tunnels.iter().map(|t| t.body.as_str()).collect();
    tunnelled.sort();
    // Which parts pass agrees with where each body ends (below the pane's bottom at z = 0.295).
    for b in on.bodies.iter().filter(|b| PARTS.contains(&b.name.as_str())) {
        let below = b.pos[2] < 0.295;
        assert_eq!(below, tunnelled.contains(&b.name.as_str()), "{}: z {}", b.name, b.pos[2]);
    }
    // Measured on MuJoCo 4.0.0 (this scene, 160 steps): the tilted 2 mm coin (spun by a one-point
    // speculative hit, then never speculated again), the upright r1.5 capsule and, in this drop, the
    // flat r1.5 capsule as well (measurements §B: 8 of 32 perturbed drops at 1.25 ms, 1.0 m).
    assert_eq!(tunnelled, ["capsule_r1.5_flat", "capsule_r1.5_upright", "coin_2mm_tilted"]);
}

#[test]
fn flipper_and_ball_pass_through_each_other_without_speculation() {
    // 40 steps: the blade turns 4 rad, so it meets the ball once (over 80 steps it comes round and
    // passes through it a second time, which is reported as a second passage).
    let off = run_scene("flipper.xml", Some("strike"), 40, false);
    assert_eq!(off.tunnels.len(), 1, "{:?}", off.tunnels);
    let t = &off.tunnels[0];
    let pair = [t.body.as_str(), t.through.as_str()];
    assert!(pair.contains(&"ball") && pair.contains(&"flipper"), "{t:?}");
    // The blade tip moves at 16 m/s; at the ball's radius (0.19 m) the blade moves at about 15 m/s.
    assert!(t.speed > 5.0 && t.speed < 20.0, "speed {}", t.speed);
    // With speculation on, this strike is the driven-paddle failure of measurements §C3: the
    // speculative impact slows the blade from 80 to 23 rad/s, the next step has no contact while the
    // actuator spins it back up to 54 rad/s, and the blade comes out on the ball's far side during
    // step 4 (probed with mujoco 4.0.0 in Python: the ball's centre in the blade frame goes from
    // y = +4.8 mm after step 3 to -2.0 mm after step 4, with ncon 0 then 1).
    let on = run_scene("flipper.xml", Some("strike"), 40, true);
    assert_eq!(on.tunnels.len(), 1, "{:?}", on.tunnels);
    assert_eq!((on.tunnels[0].body.as_str(), on.tunnels[0].step), ("ball", 4));
    let twice = run_scene("flipper.xml", Some("strike"), 80, false);
    assert_eq!(twice.tunnels.len(), 2, "{:?}", twice.tunnels);
}

#[test]
fn a_resting_ball_is_not_a_tunnel() {
    // A 10 mm steel ball settling on a 2 mm plate for 2 s, speculative contacts off and on.
    let xml = r#"
<mujoco>
  <option timestep="0.00125"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="plate" pos="0 0 0.299"><geom type="box" size="0.1 0.1 0.001"/></body>
    <body name="ball" pos="0 0 0.3105"><freejoint/><geom type="sphere" size="0.01" density="7850"/></body>
  </worldbody>
</mujoco>"#;
    for spec in [false, true] {
        let mut m = Model::from_xml_str(xml).unwrap();
        m.set_speculative(spec).unwrap();
        let r = run_model(&m, None, 1600);
        assert!(r.tunnels.is_empty(), "{:?}", r.tunnels);
        let ball = r.bodies.iter().find(|b| b.name == "ball").unwrap();
        // It rests on the plate: lowest point 0.367 mm into the soft contact.
        assert!((ball.pos[2] - 0.01 - 0.3 + 0.000367).abs() < 1e-5, "z {}", ball.pos[2]);
    }
}

#[test]
fn a_ball_bouncing_off_is_not_a_tunnel() {
    // Stiff, undamped-ish contact (solref 2.5 ms, damping ratio 0.1): the ball thrown at 3 m/s onto a
    // 20 mm plate bounces back up instead of sinking in.
    let xml = r#"
<mujoco>
  <option timestep="0.00125"/>
  <default><geom solref="0.0025 0.1"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="plate" pos="0 0 0.29"><geom type="box" size="0.1 0.1 0.01"/></body>
    <body name="ball" pos="0 0 0.32"><freejoint/><geom type="sphere" size="0.01" density="7850"/></body>
  </worldbody>
  <keyframe><key name="throw" qpos="0 0 0.32 1 0 0 0" qvel="0 0 -3 0 0 0"/></keyframe>
</mujoco>"#;
    let m = Model::from_xml_str(xml).unwrap();
    let r = run_model(&m, Some("throw"), 40);
    assert!(r.tunnels.is_empty(), "{:?}", r.tunnels);
    let ball = r.bodies.iter().find(|b| b.name == "ball").unwrap();
    assert!(ball.pos[2] > 0.31, "the ball went back up: z {}", ball.pos[2]);
}

/// 200 steel balls (r 10 mm, 20 x 10 grid, 25 mm pitch) falling onto a 5 mm plate: scene S2 of the
/// measurements' cost section. Prints the detector's cost per step next to mj_step's.
#[test]
#[ignore = "timing, run by hand: cargo test --release --test tunnel -- --ignored --nocapture"]
fn detector_cost_on_200_balls() {
    use specula::mj::Data;
    use specula::tunnel::TunnelDetector;
    let mut bodies = String::new();
    for i in 0..20 {
        for j in 0..10 {
            let (x, y) = (-0.2375 + 0.025 * i as f64, -0.1125 + 0.025 * j as f64);
            bodies.push_str(&format!(
                r#"<body pos="{x} {y} {}"><freejoint/><geom type="sphere" size="0.01" density="7850"/></body>"#,
                0.31 + 0.0005 * ((i * 7 + j * 3) % 20) as f64
            ));
        }
    }
    let xml = format!(
        r#"<mujoco><option timestep="0.00125"/><worldbody><geom type="plane" size="1 1 0.1"/>
        <body name="plate" pos="0 0 0.2975"><geom type="box" size="0.3 0.15 0.0025"/></body>{bodies}</worldbody></mujoco>"#
    );
    let m = Model::from_xml_str(&xml).unwrap();
    let mut d = Data::new(&m).unwrap();
    for k in 0..200 {
        d.qvel_mut()[6 * k + 2] = -10.0;
    }
    d.kinematics().unwrap();
    let mut det = TunnelDetector::new(&m);
    det.observe(&d);
    let (mut t_step, mut t_det) = (0.0, 0.0);
    for _ in 0..400 {
        let t = std::time::Instant::now();
        d.step().unwrap();
        d.kinematics().unwrap();
        t_step += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        det.observe(&d);
        t_det += t.elapsed().as_secs_f64();
    }
    let found = det.finish();
    eprintln!(
        "mj_step+kinematics {:.1} us/step, detector {:.1} us/step, {} tunnels",
        t_step / 400.0 * 1e6,
        t_det / 400.0 * 1e6,
        found.len()
    );
}
