//! Steps an MJCF file on the native route, with no libmujoco: `cargo run -p specula-native
//! --example step -- FILE.xml [STEPS]`. Prints the final time and `qpos`, or why the model is
//! refused.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), steps) = (args.next(), args.next()) else {
        eprintln!("usage: step FILE.xml [STEPS]");
        return ExitCode::from(2);
    };
    let steps: usize = match steps.map(|s| s.parse()).transpose() {
        Ok(n) => n.unwrap_or(1000),
        Err(e) => {
            eprintln!("STEPS: {e}");
            return ExitCode::from(2);
        }
    };
    let mut native = match specula_native::Native::load_file(path.as_ref()) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("{path}: refused: {e}");
            return ExitCode::FAILURE;
        }
    };
    for _ in 0..steps {
        if let Err(e) = native.step() {
            eprintln!("{path}: at t = {}: {e}", native.data.time);
            return ExitCode::FAILURE;
        }
    }
    println!("t = {}\nqpos = {:?}", native.data.time, native.data.qpos);
    ExitCode::SUCCESS
}
