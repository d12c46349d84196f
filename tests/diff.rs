//! `specula diff`: the Rust collision stage agrees with MuJoCo C's, and the diff can fail (on
//! the corpus's box stack: skipped, saying so, without the corpus).

mod common;

use std::path::Path;

use specula::diff::{diff, diff_tampered, DiffOptions};
use specula::mj::Model;
use specula::sim::Start;

fn load(path: &Path) -> (Model, specula_model::Model) {
    (Model::from_xml_path(path).unwrap(), specula_model::load_file(path).unwrap())
}

#[test]
fn box_stack_matches_contact_by_contact_and_step_by_step() {
    let Some(scene) = common::corpus_file("local/box_stack.xml") else { return };
    let (c, r) = load(&scene);
    let report = diff(&c, &r, &DiffOptions { steps: 500, start: Start::Qpos0 }).unwrap();
    assert!(report.matches(), "{report:?}");
    assert!(report.contacts > 1000, "{report:?}");
    assert_eq!(report.unmatched(), 0);
    // Same contacts in the same order feed MuJoCo: the trajectories are identical.
    assert_eq!(report.qpos_divergence, 0.0);
    assert!(report.noise_floor > 0.0);
}

#[test]
fn a_wrong_distance_is_caught() {
    let Some(scene) = common::corpus_file("local/box_stack.xml") else { return };
    let (c, r) = load(&scene);
    let opts = DiffOptions { steps: 100, start: Start::Qpos0 };
    let report = diff_tampered(&c, &r, &opts, &mut |cs| {
        for con in cs.iter_mut() {
            con.dist += 1e-6;
        }
    })
    .unwrap();
    assert!(!report.matches());
    assert!((report.max_err.dist - 1e-6).abs() < 1e-12, "{report:?}");
    assert!(report.qpos_divergence > 10.0 * report.noise_floor, "{report:?}");
}

#[test]
fn a_missing_contact_is_caught() {
    let Some(scene) = common::corpus_file("local/box_stack.xml") else { return };
    let (c, r) = load(&scene);
    let opts = DiffOptions { steps: 50, start: Start::Qpos0 };
    let report = diff_tampered(&c, &r, &opts, &mut |cs| {
        cs.pop();
    })
    .unwrap();
    assert!(!report.matches());
    assert!(report.missing > 0, "{report:?}");
    assert!(report.first_problem.is_some());
}

#[test]
fn a_reordered_list_matches_per_pair_but_not_in_the_trajectory() {
    let Some(scene) = common::corpus_file("local/box_stack.xml") else { return };
    let (c, r) = load(&scene);
    let opts = DiffOptions { steps: 300, start: Start::Qpos0 };
    let report = diff_tampered(&c, &r, &opts, &mut |cs| cs.reverse()).unwrap();
    assert_eq!(report.unmatched(), 0);
    assert_eq!(report.max_err.dist, 0.0);
    // MuJoCo's results depend on contact order: the reversed list shows in the trajectory.
    assert!(report.qpos_divergence > 0.0, "{report:?}");
}
