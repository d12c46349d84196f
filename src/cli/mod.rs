//! Command-line parsing and dispatch; each subcommand lives in its own file.

/// Prints a line on stdout; a closed pipe (e.g. `specula ... | head`) ends output quietly instead
/// of panicking as `println!` would.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

#[cfg(feature = "mujoco")]
mod bench;
#[cfg(feature = "mujoco")]
mod check;
#[cfg(feature = "mujoco")]
mod diff;
#[cfg(feature = "mujoco")]
mod fuzz;
mod run;
mod run_native;
#[cfg(feature = "mujoco")]
mod sweep;
#[cfg(feature = "mujoco")]
mod sweep_args;
#[cfg(not(feature = "mujoco"))]
mod unavailable;
#[cfg(not(feature = "mujoco"))]
use unavailable as bench;
#[cfg(not(feature = "mujoco"))]
use unavailable as check;
#[cfg(not(feature = "mujoco"))]
use unavailable as diff;
#[cfg(not(feature = "mujoco"))]
use unavailable as fuzz;
#[cfg(not(feature = "mujoco"))]
use unavailable as sweep;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// specula: MuJoCo-compatible simulation with speculative contacts that do not tunnel.
#[derive(Parser, Debug)]
#[command(name = "specula", version, about)]
pub struct Cli {
    /// What to do; without a command, runs the built-in scene.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate a scene (or, without SCENE, the built-in ball-and-plate scene).
    Run(run::RunArgs),
    /// Compile a scene with specula and with MuJoCo C and compare every field both hold.
    Check(check::CheckArgs),
    /// Compare the Rust collision stage with MuJoCo C's, contact by contact and step by step.
    Diff(diff::DiffArgs),
    /// Time the Rust collision stage against MuJoCo C's on the same recorded states.
    Bench(bench::BenchArgs),
    /// Run the tunneling matrix (parts x obstacles x speeds x offsets x timesteps x routes x modes).
    Sweep(sweep::SweepArgs),
    /// Generate seeded random scenes and diff each against MuJoCo C; shrink and save failing ones.
    Fuzz(fuzz::FuzzArgs),
}

/// Collision route, as chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RouteArg {
    /// MuJoCo C's own collision stage.
    C,
    /// specula's Rust collision stage inside MuJoCo's step.
    Rust,
    /// specula's native step: pure Rust, no MuJoCo C (the subset `specula diff --route native` checks).
    Native,
}

impl From<RouteArg> for specula::Route {
    fn from(r: RouteArg) -> Self {
        match r {
            RouteArg::C => specula::Route::C,
            RouteArg::Rust => specula::Route::Rust,
            RouteArg::Native => specula::Route::Native,
        }
    }
}

/// Says what the Rust stage took from MuJoCo instead of computing it itself: mesh hulls its
/// compiler could not put in qhull's order, and geom pairs it has no collider for.
#[cfg(feature = "mujoco")]
fn print_stage_notes(mujoco_hulls: u64, fallback_pairs: u64) {
    if mujoco_hulls > 0 {
        outln!(
            "  {mujoco_hulls} mesh hulls were taken from MuJoCo's model: specula's compiler could not put them in qhull's order"
        );
    }
    if fallback_pairs > 0 {
        outln!(
            "  {fallback_pairs} geom pairs were computed by MuJoCo's own pair function: specula has no collider for them (height fields, SDFs, and convex pairs with nativeccd disabled)"
        );
    }
}

/// Solver settings put on both compilations of a native diff (`None` keeps the scene's).
#[cfg(feature = "mujoco")]
#[derive(Clone, Copy, Debug, Default)]
struct SolverOverrides {
    /// The constraint solver.
    solver: Option<specula_model::types::Solver>,
    /// The friction cone.
    cone: Option<specula_model::types::Cone>,
}

/// MuJoCo's compilation of `scene` and the native route's, the integrator, speculative and
/// solver overrides applied to both (robust mode, which MuJoCo lacks, leaves MuJoCo in its
/// compatible mode); `Err` says why either refuses it.
#[cfg(feature = "mujoco")]
fn load_native_pair(
    scene: &std::path::Path,
    integrator: Option<specula_model::types::Integrator>,
    speculative: Option<specula_model::types::SpeculativeMode>,
    over: SolverOverrides,
) -> Result<(specula::mj::Model, specula::native::Native), String> {
    let file = scene.display();
    let mut native = specula::native::load(scene, integrator).map_err(|e| match e {
        specula::native::NativeError::Mjcf(e) => e.to_string(),
        e => format!("{file}: {e}"),
    })?;
    let mut c = specula::mj::Model::from_xml_path(scene).map_err(|e| e.to_string())?;
    if let Some(i) = integrator {
        c.set_integrator(i as i32).map_err(|e| format!("{file}: {e}"))?;
    }
    if let Some(mode) = speculative {
        c.set_speculative(mode != specula_model::types::SpeculativeMode::Off).map_err(|e| format!("{file}: {e}"))?;
        native.set_speculative(mode);
    }
    if over.solver.is_some() || over.cone.is_some() {
        // after both compilers ran (actuator length ranges are found with the scene's own
        // solver on both sides), then the native scope is asked again for the new settings
        let m = c.raw_mut().ok_or("the model is shared")?;
        let opt = &mut native.model.model.opt;
        if let Some(s) = over.solver {
            m.opt.solver = s as i32;
            opt.solver = s;
        }
        if let Some(k) = over.cone {
            m.opt.cone = k as i32;
            opt.cone = k;
        }
        specula_native::scope::check(&native.model.model).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok((c, native))
}

/// Runs the parsed command; `Err` is a one-line message for stderr (exit code 2).
pub fn dispatch(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Sweep(args)) => sweep::run(args),
        Some(Command::Fuzz(args)) => fuzz::run(args),
        None => run::run(run::RunArgs::default()),
    }
}
