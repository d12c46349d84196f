//! Puts MuJoCo's directory on the rpath of every binary, test and example of this package, so
//! nothing needs `LD_LIBRARY_PATH`. The directory comes from `mujoco-sys` (`DEP_MUJOCO_LIB_DIR`).
//!
//! Compiles `src/mj/boundary.c`, the C++ exception boundary of `src/mj/boundary.rs`.
//!
//! Also builds the plain C examples (`examples/c/step.c`, `examples/c/threads.c`) against
//! libmujoco with the `cc` crate, for the drop-in tests (tests/dropin.rs): they are ordinary MuJoCo
//! programs that know nothing about specula. Their paths reach the tests as
//! `SPECULA_EXAMPLE_STEP` / `SPECULA_EXAMPLE_THREADS`, MuJoCo's as `SPECULA_MUJOCO_INCLUDE` /
//! `SPECULA_MUJOCO_LIB_DIR` (the tests build the variant linked against libspecula.so themselves,
//! because that library does not exist yet while this script runs).

//!
//! Without the `mujoco` feature (the native-only build) it does nothing: no C is compiled and
//! nothing links MuJoCo.

#[cfg(feature = "mujoco")]
use std::path::{Path, PathBuf};

#[cfg(not(feature = "mujoco"))]
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}

#[cfg(feature = "mujoco")]
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let (dir, include) = match (std::env::var("DEP_MUJOCO_LIB_DIR"), std::env::var("DEP_MUJOCO_INCLUDE")) {
        (Ok(dir), Ok(include)) => (dir, include),
        _ => {
            println!("cargo:warning=mujoco-sys did not report its library directory");
            std::process::exit(1);
        }
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    // Export specula's `mj_collision` and its dynamics stages so libmujoco's internal calls reach
    // them (see src/mj/collision.rs, src/mj/stages/).
    for symbol in [
        "mj_collision",
        "mj_crb",
        "mj_factorM",
        "mj_comVel",
        "mj_rne",
        "mj_fwdAcceleration",
        "mj_comPos",
        "mj_passive",
        "mj_transmission",
        "mj_fwdActuation",
        "mj_makeConstraint",
        "mj_island",
        "mj_projectConstraint",
        "mj_referenceConstraint",
        "mj_kinematics",
        "mj_fwdKinematics",
        "mj_EulerSkip",
        "mj_implicitSkip",
        "mj_RungeKutta",
        "mj_fwdConstraint",
        "mj_tendon",
        "mj_deleteModel",
        "mj_copyModel",
        "mjv_copyModel",
        "mj_recompile",
    ] {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol={symbol}");
    }
    println!("cargo:rustc-env=SPECULA_MUJOCO_LIB_DIR={dir}");
    println!("cargo:rustc-env=SPECULA_MUJOCO_INCLUDE={include}");

    // The C++ exception boundary around MuJoCo calls (src/mj/boundary.c explains why it is C and
    // assembly rather than a C++ try/catch). Unwind tables are required: libmujoco's unwinder
    // walks its frames.
    println!("cargo:rerun-if-changed=src/mj/boundary.c");
    cc::Build::new()
        .file("src/mj/boundary.c")
        .include(&include)
        .flag("-fasynchronous-unwind-tables")
        .warnings(true)
        .compile("specula_boundary");

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("examples");
    let _ = std::fs::create_dir_all(&out);
    for (name, extra) in [("step", &[][..]), ("threads", &["-lpthread"][..])] {
        let src = format!("examples/c/{name}.c");
        println!("cargo:rerun-if-changed={src}");
        let exe = out.join(name);
        if let Err(e) = build_example(Path::new(&src), &exe, &dir, &include, extra) {
            // Not fatal for the library: only tests/dropin.rs needs the examples, and says so.
            println!("cargo:warning=could not build {src}: {e}");
        }
        println!("cargo:rustc-env=SPECULA_EXAMPLE_{}={}", name.to_uppercase(), exe.display());
    }
}

/// Compiles one C example with the `cc` crate and links it against libmujoco (by soname, with
/// an rpath), so it runs without `LD_LIBRARY_PATH`.
#[cfg(feature = "mujoco")]
fn build_example(src: &Path, exe: &Path, lib_dir: &str, include: &str, extra: &[&str]) -> Result<(), String> {
    let mut build = cc::Build::new();
    build.file(src).include(include).warnings(true).cargo_metadata(false);
    let objects = build.try_compile_intermediates().map_err(|e| e.to_string())?;
    let mut cmd = build.try_get_compiler().map_err(|e| e.to_string())?.to_command();
    cmd.args(&objects)
        .arg("-o")
        .arg(exe)
        .arg(format!("-L{lib_dir}"))
        .arg("-l:libmujoco.so.4.0.0")
        .arg(format!("-Wl,-rpath,{lib_dir}"))
        .args(extra)
        .arg("-lm");
    let status = cmd.status().map_err(|e| format!("cannot run the C compiler: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("linking failed ({status})"))
    }
}
