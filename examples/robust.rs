//! Runs a scene on specula's Rust collision stage in robust mode and prints where its bodies
//! ended, next to MuJoCo C's own collision with speculative contacts off and on (MuJoCo's). The run
//! starts from the scene's first keyframe if it has one.
//!
//! ```sh
//! cargo run --release --example robust [SCENE.xml [STEPS]]   # default: scenes/ball_plate.xml, 400
//! ```

use std::process::ExitCode;

use specula::{Route, Scene, SpeculativeMode};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ball_plate.xml").into());
    let steps = match args.next().map(|s| s.parse::<usize>()) {
        None => 400,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("robust: STEPS: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&path, steps) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("robust: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(path: &str, steps: usize) -> Result<(), specula::Error> {
    let run = |mode, route| {
        let scene = Scene::load(path)?.with_speculative(mode)?;
        let key = (scene.mujoco().nkey() > 0).then_some("0");
        scene.run(route, steps, key)
    };
    let off = run(SpeculativeMode::Off, Route::C)?;
    let compat = run(SpeculativeMode::Compat, Route::C)?;
    let robust = run(SpeculativeMode::Robust, Route::Rust)?;
    println!("{path}: {steps} steps of {} s; where each body ended (z, m)", robust.timestep);
    println!("  {:<20} {:>14} {:>14} {:>14}", "body", "C, off", "C, compat", "rust, robust");
    for ((a, b), r) in off.bodies.iter().zip(&compat.bodies).zip(&robust.bodies).skip(1) {
        println!("  {:<20} {:>14.6} {:>14.6} {:>14.6}", r.name, a.pos[2], b.pos[2], r.pos[2]);
    }
    Ok(())
}
