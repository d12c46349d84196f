//! `specula check`: compare specula's compiled model with MuJoCo C's, field by field.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use specula::check::{check_file, CheckOutcome, Mismatch};

/// Arguments of `specula check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// MJCF scene to compile with both compilers.
    pub scene: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// How many of the worst mismatches the text output lists.
    #[arg(long, default_value_t = 20)]
    pub show: usize,
}

fn relative_error(m: &Mismatch) -> f64 {
    let e = (m.c - m.rust).abs() / m.c.abs().max(1.0);
    if e.is_nan() {
        f64::INFINITY
    } else {
        e
    }
}

/// Runs `specula check`: exit 0 when both agree, 1 when they differ, 2 on error.
pub fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let file = args.scene.display().to_string();
    if !args.scene.is_file() {
        return Err(format!("{file}: no such file"));
    }
    let outcome = check_file(&args.scene);
    let code = if outcome.agrees() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    let verdict = if outcome.agrees() { "match" } else { "differ" };
    if args.json {
        outln!("{}", outcome.to_json());
        return Ok(code);
    }
    match &outcome {
        CheckOutcome::Compared(cmp) => {
            let mut worst: Vec<&Mismatch> = cmp.mismatches.iter().collect();
            worst.sort_by(|a, b| relative_error(b).total_cmp(&relative_error(a)));
            outln!(
                "{file}: {verdict}: {} fields, {} values compared, {} mismatches",
                cmp.fields,
                cmp.values,
                cmp.mismatches.len()
            );
            for n in &cmp.notes {
                outln!("  note: {n}");
            }
            for m in worst.iter().take(args.show) {
                outln!("  {}[{}]: c {} rust {}", m.field, m.index, m.c, m.rust);
            }
        }
        CheckOutcome::BothRejected { c, rust } => report_rejection(&file, verdict, Some(c), Some(rust)),
        CheckOutcome::OneRejected { c, rust } => report_rejection(&file, verdict, c.as_ref(), rust.as_ref()),
    }
    Ok(code)
}

fn report_rejection(file: &str, verdict: &str, c: Option<&String>, rust: Option<&String>) {
    outln!("{file}: {verdict}");
    outln!("  MuJoCo C: {}", c.map_or("compiled".to_string(), |e| format!("rejected: {}", e.replace('\n', "; "))));
    outln!("  specula:  {}", rust.map_or("compiled".to_string(), |e| format!("rejected: {e}")));
}
