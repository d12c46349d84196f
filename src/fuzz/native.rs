//! `specula fuzz --route native`: a generated scene compiled by specula's own compiler, stepped
//! on the native route and compared with MuJoCo's `mj_step` after every step, array by array, bit
//! for bit ([`crate::native_diff`]). A scene the native route refuses is counted by the reason it
//! gives, not failed.

use std::path::Path;

use specula_native::{Native, NativeError};

use super::{Verdict, LOAD};
use crate::mj::Model;
use crate::native_diff::{diff_native, NativeDiffOptions};
use crate::report::Start;

/// What a native comparison of one scene counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeCounts {
    /// Steps run on both routes.
    pub steps: u64,
    /// Values compared bit for bit.
    pub values: u64,
    /// Contacts the native route made (each step's count equal to MuJoCo's).
    pub contacts: u64,
    /// Whether both routes found a diverged state in the same step and the run stopped there.
    pub stopped: bool,
}

/// Compiles `xml` with both compilers, refuses it where the native route does, and otherwise
/// compares the native step with `mj_step` for `steps` steps from `start` (`tamper`: the test
/// hook of [`NativeDiffOptions::tamper`]).
pub fn run_xml(xml: &str, name: &str, start: Start, steps: usize, tamper: Option<usize>) -> (Verdict, NativeCounts) {
    let none = NativeCounts::default();
    let (c, rust) = {
        let _guard = LOAD.lock().unwrap_or_else(|p| p.into_inner());
        (Model::from_xml_str(xml), specula_model::load_str(xml, Path::new("."), name))
    };
    let c = match (c, rust) {
        (Ok(c), Ok(_)) => c,
        (Err(c), Err(r)) => return (Verdict::BothReject(format!("MuJoCo: {c}; specula: {r}")), none),
        (Ok(_), Err(r)) => return (Verdict::CompileDisagree(format!("MuJoCo accepts, specula rejects: {r}")), none),
        (Err(c), Ok(_)) => return (Verdict::CompileDisagree(format!("specula accepts, MuJoCo rejects: {c}")), none),
    };
    let mut native = match Native::load_str(xml, Path::new("."), name) {
        Ok(n) => n,
        Err(NativeError::Unsupported { what, needs }) => {
            return (Verdict::NativeRefused(format!("{what} (needs {needs})")), none);
        }
        Err(e) => return (Verdict::Error(format!("the native route: {e}")), none),
    };
    let opts = NativeDiffOptions { steps, start, tamper };
    match diff_native(&c, &mut native, &opts) {
        Ok(rep) => {
            let counts = NativeCounts {
                steps: rep.steps as u64,
                values: rep.values,
                contacts: rep.contacts,
                stopped: rep.stopped.is_some(),
            };
            let verdict = match &rep.first {
                None => Verdict::Match,
                Some(d) => Verdict::Differ(format!(
                    "step {}: {}[{}] differs: native {:e}, MuJoCo {:e}",
                    d.step, d.field, d.index, d.native, d.c
                )),
            };
            (verdict, counts)
        }
        // refused in a step: a state the native route does not cover (a collider, a solver path)
        Err(crate::Error::Native(crate::native::Error::Native(NativeError::Unsupported { what, needs }))) => {
            (Verdict::NativeRefused(format!("{what} (needs {needs})")), none)
        }
        Err(e) => (Verdict::Error(format!("native diff: {e}")), none),
    }
}

/// The reason of a refusal with its numbers (which joint, which geom, how many rows) written `N`,
/// for counting.
pub fn reason_key(why: &str) -> String {
    let words: Vec<&str> =
        why.split(' ').map(|w| if !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()) { "N" } else { w }).collect();
    words.join(" ").chars().take(140).collect()
}

/// What a scene exercises on the native route, by name, for the run's counts: joint kinds, joint
/// properties, actuators, solver settings and integrators.
pub fn features(sc: &super::scene::Scene) -> Vec<&'static str> {
    use super::scene::Joint;
    let mut f = Vec::new();
    let joints = sc.joints();
    for (name, test) in [
        ("hinge", &(|j: &Joint| matches!(j, Joint::Hinge(..))) as &dyn Fn(&Joint) -> bool),
        ("slide", &|j| matches!(j, Joint::Slide(..))),
        ("ball", &|j| matches!(j, Joint::Ball(..))),
        ("free", &|j| matches!(j, Joint::Free)),
    ] {
        if joints.iter().any(|(_, j)| test(j)) {
            f.push(name);
        }
    }
    let any = |p: &dyn Fn(&super::dynamics::JointProps) -> bool| sc.dynamics.joints.values().any(p);
    for (name, on) in [
        ("limit", any(&|p| p.range.is_some())),
        ("frictionloss", any(&|p| p.frictionloss.is_some())),
        ("stiffness", any(&|p| p.stiffness.is_some())),
        ("damping", any(&|p| p.damping.is_some())),
        ("armature", any(&|p| p.armature.is_some())),
        ("actuator", !sc.dynamics.actuators.is_empty()),
        ("activation", sc.dynamics.actuators.iter().any(|a| a.has_act())),
        ("mesh", !sc.meshes.is_empty()),
        ("speculative", sc.opt.speculative),
    ] {
        if on {
            f.push(name);
        }
    }
    f.push(match sc.opt.integrator {
        "implicitfast" => "implicitfast",
        "implicit" => "implicit",
        "RK4" => "RK4",
        "Euler" => "Euler",
        _ => "other integrator",
    });
    if let Some(so) = &sc.opt.solver {
        f.push(match so.solver {
            "PGS" => "PGS",
            "CG" => "CG",
            _ => "Newton",
        });
        f.push(if so.cone == "elliptic" { "elliptic" } else { "pyramidal" });
    }
    f
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reason_key_keeps_the_shape_of_its_numbers() {
        let why = "12 contacts and 340 rows (about 5000 bytes of MuJoCo's arena)";
        assert_eq!(super::reason_key(why), "N contacts and N rows (about N bytes of MuJoCo's arena)");
        assert_eq!(super::reason_key("joint 3 (hinge) x2"), "joint N (hinge) x2");
    }
}
