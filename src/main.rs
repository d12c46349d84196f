//! The `specula` command-line tool.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(msg) => {
            // One line, naming the file when there is one.
            eprintln!("specula: {}", msg.replace('\n', "; "));
            ExitCode::from(2)
        }
    }
}
