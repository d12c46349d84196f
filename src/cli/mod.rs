//! Command-line parsing and dispatch; each subcommand lives in its own file.

mod run;
mod sweep;

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
    /// Run the tunneling matrix (parts x obstacles x speeds x offsets x timesteps x routes x modes).
    Sweep(sweep::SweepArgs),
}

/// Collision route, as chosen on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RouteArg {
    /// MuJoCo C's own collision stage.
    C,
}

impl From<RouteArg> for specula::sim::Route {
    fn from(r: RouteArg) -> Self {
        match r {
            RouteArg::C => specula::sim::Route::C,
        }
    }
}

/// Runs the parsed command; `Err` is a one-line message for stderr (exit code 2).
pub fn dispatch(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Sweep(args)) => sweep::run(args),
        None => run::run(run::RunArgs::default()),
    }
}
