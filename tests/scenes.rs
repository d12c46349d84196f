//! `specula diff` on the project's scenes (from their keyframes): with speculative contacts off
//! (500 steps, every integrator) and on (1000 steps, MuJoCo-compatible mode). Cases with a known
//! difference are listed with the reason; the README's report gives their numbers.

use std::path::{Path, PathBuf};

use specula::diff::{diff, DiffOptions};
use specula::mj::Model;
use specula::sim::Start;
use specula_model::types::Integrator;

fn scene(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name);
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// The project's scenes and the keyframe each starts from.
const SCENES: &[(&str, &str)] = &[
    ("ball_plate.xml", "throw"),
    ("chain.xml", "yank"),
    ("flipper.xml", "strike"),
    ("newton_cradle.xml", "swing"),
    ("thin_parts.xml", "drop"),
    ("resting.xml", "drop"),
];

const INTEGRATORS: &[Integrator] =
    &[Integrator::Euler, Integrator::Implicit, Integrator::ImplicitFast, Integrator::Discrete, Integrator::Rk4];

/// (scene, speculative on, integrator or None for all) cases that still differ, and why.
const GAPS: &[(&str, bool, Option<Integrator>, &str)] = &[];

fn gap(name: &str, spec: bool, integ: Integrator) -> bool {
    GAPS.iter().any(|(n, s, i, _)| *n == name && *s == spec && i.is_none_or(|i| i == integ))
}

fn run(spec: bool, steps: usize, integrators: &[Integrator]) {
    let mut failures = Vec::new();
    for &(name, key) in SCENES {
        for &integ in integrators {
            if gap(name, spec, integ) {
                continue;
            }
            let path = scene(name);
            let mut c = Model::from_xml_path(&path).unwrap();
            let mut r = specula_model::load_file(&path).unwrap();
            c.set_integrator(integ as i32).unwrap();
            c.set_speculative(spec).unwrap();
            r.opt.integrator = integ;
            let bit = mujoco_sys::mjENBL_SPECULATIVE;
            r.opt.enableflags = if spec { r.opt.enableflags | bit } else { r.opt.enableflags & !bit };
            let opts = DiffOptions { steps, start: Start::Key(key.into()) };
            let report = diff(&c, &r, &opts).unwrap();
            if !report.matches() || report.contacts == 0 {
                failures.push(format!("{name} {integ:?}: {report:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "speculative {spec}: {failures:#?}");
}

#[test]
fn scenes_match_without_speculative_contacts() {
    run(false, 500, INTEGRATORS);
}

#[test]
fn scenes_match_with_compatible_speculative_contacts() {
    run(true, 1000, INTEGRATORS);
}
