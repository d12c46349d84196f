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
    let outcome = check_file(&args.scene, |_| {});
    let code = if outcome.agrees() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    let verdict = if outcome.agrees() { "match" } else { "differ" };
    match &outcome {
        CheckOutcome::Compared(cmp) => {
            let mut worst: Vec<&Mismatch> = cmp.mismatches.iter().collect();
            worst.sort_by(|a, b| relative_error(b).total_cmp(&relative_error(a)));
            if args.json {
                let list: Vec<_> = cmp
                    .mismatches
                    .iter()
                    .map(
                        |m| serde_json::json!({"field": m.field, "index": m.index, "c": num(m.c), "rust": num(m.rust)}),
                    )
                    .collect();
                let j = serde_json::json!({"fields": cmp.fields, "values": cmp.values, "mismatches": list, "verdict": verdict});
                outln!("{j}");
            } else {
                outln!(
                    "{file}: {verdict}: {} fields, {} values compared, {} mismatches",
                    cmp.fields,
                    cmp.values,
                    cmp.mismatches.len()
                );
                for m in worst.iter().take(args.show) {
                    outln!("  {}[{}]: c {} rust {}", m.field, m.index, m.c, m.rust);
                }
            }
        }
        CheckOutcome::BothRejected { c, rust } | CheckOutcome::OneRejected { c: Some(c), rust: Some(rust) } => {
            report_rejection(&args, &file, verdict, Some(c), Some(rust))
        }
        CheckOutcome::OneRejected { c, rust } => report_rejection(&args, &file, verdict, c.as_ref(), rust.as_ref()),
    }
    Ok(code)
}

fn report_rejection(args: &CheckArgs, file: &str, verdict: &str, c: Option<&String>, rust: Option<&String>) {
    if args.json {
        let j = serde_json::json!({"fields": 0, "values": 0, "mismatches": [], "verdict": verdict,
            "c_error": c, "rust_error": rust});
        outln!("{j}");
    } else {
        outln!("{file}: {verdict}");
        outln!("  MuJoCo C: {}", c.map_or("compiled".to_string(), |e| format!("rejected: {}", e.replace('\n', "; "))));
        outln!("  specula:  {}", rust.map_or("compiled".to_string(), |e| format!("rejected: {e}")));
    }
}

/// JSON has no NaN: missing values are null.
fn num(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}
