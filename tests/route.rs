//! `specula run --route rust`: the same options as the C route, the same results where the stages
//! agree, and height-field pairs in Rust except without native CCD (both on corpus scenes:
//! skipped, saying so, without the corpus).

mod common;

use std::process::Command;

fn specula(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_specula")).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The corpus file `rel` as an argument, or `None` (the test is skipped) without the corpus.
fn corpus(rel: &str) -> Option<String> {
    common::corpus_file(rel).map(|p| p.to_string_lossy().into_owned())
}

#[test]
fn rust_route_reproduces_the_c_route_on_the_box_stack() {
    let Some(scene) = corpus("local/box_stack.xml") else { return };
    for extra in [&["--steps", "400"][..], &["--duration", "0.5"], &["--steps", "300", "--speculative", "compat"]] {
        let mut c_args = vec!["run", scene.as_str(), "--json", "--route", "c"];
        c_args.extend_from_slice(extra);
        let mut r_args = vec!["run", scene.as_str(), "--json", "--route", "rust"];
        r_args.extend_from_slice(extra);
        let (c, r) = (specula(&c_args), specula(&r_args));
        assert_eq!(r["route"], "rust");
        // Same contacts in the same order: the same bits in every pose.
        assert_eq!(c["bodies"], r["bodies"], "{extra:?}");
        assert_eq!(c["ncon_max"], r["ncon_max"]);
        assert_eq!(r["fallback_pairs"], 0);
    }
}

#[test]
fn height_field_pairs_are_rusts_unless_native_ccd_is_off() {
    let Some(scene) = corpus("test/engine/testdata/collision_convex/perf/mixed.xml") else { return };
    // specula's height-field colliders (C7 to C10): no pair left to MuJoCo, the same bits
    let r = specula(&["run", &scene, "--json", "--route", "rust", "--steps", "100"]);
    assert_eq!(r["fallback_pairs"], 0, "{r}");
    let c = specula(&["run", &scene, "--json", "--route", "c", "--steps", "100"]);
    assert_eq!(c["fallback_pairs"], 0);
    assert_eq!(c["bodies"], r["bodies"]);
    // without native CCD MuJoCo collides height fields through libccd, which specula hands back
    let text = std::fs::read_to_string(&scene).unwrap();
    assert!(text.contains("iterations=\"20\"/>"), "mixed.xml's option changed");
    let text = text.replacen("iterations=\"20\"/>", "iterations=\"20\"><flag nativeccd=\"disable\"/></option>", 1);
    let file = std::env::temp_dir().join(format!("specula-route-hfield-{}.xml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let r = specula(&["run", file.to_str().unwrap(), "--json", "--route", "rust", "--steps", "100"]);
    let _ = std::fs::remove_file(&file);
    assert!(r["fallback_pairs"].as_u64().unwrap() > 0, "{r}");
}
