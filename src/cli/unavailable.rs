//! The subcommands that run MuJoCo C, in a build without the `mujoco` feature: they parse any
//! arguments and say what they need.

use std::process::ExitCode;

use clap::Args;

/// Arguments of a subcommand this build leaves out (taken as they come, to be refused).
#[derive(Args, Debug)]
pub struct Unavailable {
    /// Whatever was given.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// `specula bench` in a native-only build.
pub type BenchArgs = Unavailable;
/// `specula check` in a native-only build.
pub type CheckArgs = Unavailable;
/// `specula diff` in a native-only build.
pub type DiffArgs = Unavailable;
/// `specula fuzz` in a native-only build.
pub type FuzzArgs = Unavailable;
/// `specula sweep` in a native-only build.
pub type SweepArgs = Unavailable;

/// The message every MuJoCo-only path of a native-only build gives.
pub const NEEDS_MUJOCO: &str = "needs MuJoCo C, which this specula was built without (the `mujoco` feature, \
     which `cargo build --release` includes): this build runs `specula run SCENE --route native` only";

/// Refuses the subcommand.
pub fn run(_args: Unavailable) -> Result<ExitCode, String> {
    Err(format!("this command {NEEDS_MUJOCO}"))
}
