//! `specula run SCENE --route native`: the scene stepped by specula's native step, no MuJoCo C.

use std::path::Path;
use std::process::ExitCode;

use specula::native::{self, NativeError};
use specula::report::Start;

use super::run::{print_head, print_tail, step_count, RunArgs};

/// Runs `specula run SCENE --route native`: what the other routes print, or why the native route
/// refuses the scene.
pub fn run(scene: &Path, args: &RunArgs) -> Result<ExitCode, String> {
    let file = scene.display().to_string();
    if args.rust_stages.is_some() {
        return Err(format!(
            "{file}: --rust-stages replaces functions inside MuJoCo's step, which the native route does not run"
        ));
    }
    let mut sim = native::load(scene, None).map_err(|e| match e {
        // the compiler's messages name the file already
        NativeError::Mjcf(e) => e.to_string(),
        e => format!("{file}: {e}"),
    })?;
    if let Some(mode) = args.speculative {
        sim.set_speculative(mode);
    }
    let steps = step_count(args, sim.model.model.opt.timestep, &file)?;
    let start = args.key.clone().map_or(Start::Qpos0, Start::Key);
    let report = native::run(&mut sim, steps, &start).map_err(|e| format!("{file}: {e}"))?;
    if args.json {
        outln!("{}", report.to_json());
    } else {
        print_head(&file, &report);
        print_tail(&report);
    }
    Ok(ExitCode::SUCCESS)
}
