//! The acceptance runs over MuJoCo's own MJCF corpus (`../shared/mjcf/corpus`, beside the
//! repository): `specula check` on every file, and `specula diff` (500 steps) on every file for
//! every integrator. Files with a known, documented difference are listed with the reason; the
//! README's report gives their numbers. On a clone without the corpus each test says that it
//! was skipped.

mod common;

use std::path::{Path, PathBuf};

use specula::check::check_file;
use specula::diff::{diff, DiffOptions};
use specula::mj::Model;
use specula::sim::Start;
use specula_model::types::Integrator;

/// Every XML file of the corpus, sorted; `None` (the test is skipped) without the corpus.
fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = common::corpus()?;
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xml") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 60, "only {} corpus files found", out.len());
    Some(out)
}

fn name(p: &Path) -> String {
    let s = p.to_string_lossy();
    s[s.find("corpus/").map_or(0, |i| i + 7)..].to_string()
}

/// Corpus files whose compiled model still differs from MuJoCo's, and why.
const CHECK_GAPS: &[(&str, &str)] = &[];

#[test]
fn check_matches_mujoco_on_every_corpus_file() {
    let Some(files) = corpus_files() else { return };
    let mut failures = Vec::new();
    for f in files {
        let n = name(&f);
        let agrees = check_file(&f).agrees();
        let gap = CHECK_GAPS.iter().any(|(g, _)| *g == n);
        if agrees == gap {
            failures.push(if gap { format!("{n} now matches: remove it from CHECK_GAPS") } else { n });
        }
    }
    assert!(failures.is_empty(), "check differs on: {failures:#?}");
}

/// Corpus files on which the Rust collision stage still differs from MuJoCo's (all through the
/// general convex path, GJK/EPA and its multi-contact: see the README's agreement report).
const DIFF_GAPS: &[&str] = &[];

fn diff_all(integrator: Option<Integrator>) {
    let Some(files) = corpus_files() else { return };
    let mut failures = Vec::new();
    for f in files {
        let n = name(&f);
        if DIFF_GAPS.contains(&n.as_str()) {
            continue;
        }
        let mut c = Model::from_xml_path(&f).unwrap();
        let mut r = specula_model::load_file(&f).unwrap();
        if let Some(i) = integrator {
            c.set_integrator(i as i32).unwrap();
            r.opt.integrator = i;
        }
        let report = diff(&c, &r, &DiffOptions { steps: 500, start: Start::Qpos0 }).unwrap();
        if !report.matches() {
            failures.push(format!("{n}: {:?}", report.first_problem));
        }
    }
    assert!(failures.is_empty(), "{integrator:?}: diff differs on {failures:#?}");
}

#[test]
fn diff_matches_on_the_corpus_with_its_own_integrators() {
    diff_all(None);
}

#[test]
fn diff_matches_on_the_corpus_with_euler() {
    diff_all(Some(Integrator::Euler));
}

#[test]
fn diff_matches_on_the_corpus_with_rk4() {
    diff_all(Some(Integrator::Rk4));
}

#[test]
fn diff_matches_on_the_corpus_with_implicit() {
    diff_all(Some(Integrator::Implicit));
}

#[test]
fn diff_matches_on_the_corpus_with_implicitfast() {
    diff_all(Some(Integrator::ImplicitFast));
}

#[test]
fn diff_matches_on_the_corpus_with_discrete() {
    diff_all(Some(Integrator::Discrete));
}
