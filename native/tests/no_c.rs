//! The native crate builds without libmujoco or a C compiler: its dependency tree holds neither
//! the MuJoCo binding nor a C build.

use std::process::Command;

/// The normal and build dependencies of package `pkg`, one name per line.
fn dependencies(pkg: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-p", pkg, "-e", "normal,build", "--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_native_crate_builds_without_libmujoco_or_a_c_compiler() {
    let deps = dependencies("specula-native");
    let c = |d: &str| d.lines().any(|l| l.starts_with("mujoco-sys ") || l.starts_with("cc "));
    assert!(!c(&deps), "{deps}");
    // the same question on the root crate, which links MuJoCo, says yes
    assert!(c(&dependencies("specula")));
}
