//! Obtains MuJoCo 4.0.0 and tells cargo how to link it.
//!
//! Source of the library, in order:
//! 1. `MUJOCO_DIR`: a directory laid out like the wheel's `mujoco/` folder
//!    (`libmujoco.so.4.0.0` and `include/mujoco/*.h`);
//! 2. otherwise the pinned PyPI wheel `mujoco-core==4.0.0`, downloaded once with
//!    `python3 -m pip download`, checked against its sha256 and unpacked (library and headers
//!    only) into this build's `OUT_DIR`.
//!
//! The library is linked by its soname and its directory is exported to dependent build scripts
//! (`DEP_MUJOCO_LIB_DIR`) so they can set an rpath: nothing needs `LD_LIBRARY_PATH`.

use std::env;
use std::fs;
#[cfg(feature = "regenerate")]
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// The one wheel file this crate accepts.
const WHEEL: &str = "mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl";
/// sha256 of [`WHEEL`], as published on PyPI.
const WHEEL_SHA256: &str = "885bd9b9cc0a6b5ba1114923eb954027652a6a0c115fa46b3218b83bae72ac4f";
/// The library's soname (and file name inside the wheel).
const SONAME: &str = "libmujoco.so.4.0.0";

fn main() {
    println!("cargo:rerun-if-env-changed=MUJOCO_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let dir = match env::var_os("MUJOCO_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if !d.join(SONAME).is_file() || !d.join("include/mujoco/mujoco.h").is_file() {
                fail(&format!(
                    "MUJOCO_DIR={} does not hold {SONAME} and include/mujoco/mujoco.h \
                     (point it at the `mujoco` folder of an unpacked mujoco-core==4.0.0 wheel)",
                    d.display()
                ));
            }
            d
        }
        None => fetch_wheel(),
    };
    let dir = dir.canonicalize().unwrap_or(dir);

    // Link by soname: a link-time alias `libmujoco.so` in OUT_DIR points at the real file, so the
    // binaries record `libmujoco.so.4.0.0` as NEEDED and find it through the rpath below.
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let link_dir = out.join("link");
    let _ = fs::create_dir_all(&link_dir);
    let alias = link_dir.join("libmujoco.so");
    let _ = fs::remove_file(&alias);
    if let Err(e) = std::os::unix::fs::symlink(dir.join(SONAME), &alias) {
        fail(&format!("cannot create {}: {e}", alias.display()));
    }
    println!("cargo:rustc-link-search=native={}", link_dir.display());
    println!("cargo:rustc-link-lib=dylib=mujoco");
    // This crate's own tests run without LD_LIBRARY_PATH too.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    // Exported to dependents as DEP_MUJOCO_LIB_DIR / DEP_MUJOCO_INCLUDE.
    println!("cargo:lib_dir={}", dir.display());
    println!("cargo:include={}", dir.join("include").display());

    #[cfg(feature = "regenerate")]
    regenerate(&dir);
}

/// Prints a build error that says what to do, and stops the build.
fn fail(msg: &str) -> ! {
    eprintln!("\nerror: mujoco-sys: {msg}\n");
    println!("cargo:warning=mujoco-sys: {msg}");
    std::process::exit(1);
}

/// Downloads, verifies and unpacks the pinned wheel into OUT_DIR; returns the unpacked `mujoco/` dir.
fn fetch_wheel() -> PathBuf {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dest = out.join("mujoco-4.0.0");
    let unpacked = dest.join("mujoco");
    if unpacked.join(SONAME).is_file() && unpacked.join("include/mujoco/mujoco.h").is_file() {
        return unpacked;
    }
    let dl = out.join("wheel");
    let _ = fs::create_dir_all(&dl);
    let python = env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let hint = "install python3 with pip (e.g. `apt-get install python3-pip`), or download the \
                wheel mujoco-core==4.0.0 yourself, unzip it and set MUJOCO_DIR=<unzipped>/mujoco";
    if !dl.join(WHEEL).is_file() {
        let status = Command::new(&python)
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--platform",
                "manylinux_2_28_x86_64",
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                "--disable-pip-version-check",
                "--quiet",
                "mujoco-core==4.0.0",
                "-d",
            ])
            .arg(&dl)
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => fail(&format!("`{python} -m pip download mujoco-core==4.0.0` failed ({s}); {hint}")),
            Err(e) => fail(&format!("cannot run `{python}` ({e}); {hint}")),
        }
    }
    let wheel = dl.join(WHEEL);
    if !wheel.is_file() {
        fail(&format!("pip did not produce {WHEEL} in {}; {hint}", dl.display()));
    }
    // Verify and unpack with Python's standard library (python is already required for pip).
    let script = format!(
        r#"
import hashlib, sys, zipfile, os
wheel, dest, want = sys.argv[1], sys.argv[2], "{WHEEL_SHA256}"
got = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
if got != want:
    sys.exit(f"sha256 mismatch for {{wheel}}: got {{got}}, expected {{want}}")
with zipfile.ZipFile(wheel) as z:
    for n in z.namelist():
        if n == "mujoco/{SONAME}" or (n.startswith("mujoco/include/mujoco/") and n.endswith(".h")):
            z.extract(n, dest)
"#
    );
    let status = Command::new(&python).arg("-c").arg(script).arg(&wheel).arg(&dest).status();
    match status {
        Ok(s) if s.success() => {}
        _ => {
            let _ = fs::remove_file(&wheel);
            fail(&format!("the downloaded wheel failed verification or unpacking; {hint}"))
        }
    }
    unpacked
}

/// Regenerates `src/bindings.rs` from the headers in `dir` (feature `regenerate`; needs libclang).
#[cfg(feature = "regenerate")]
fn regenerate(dir: &Path) {
    let include = dir.join("include");
    let bindings = bindgen::Builder::default()
        .header(include.join("mujoco/mujoco.h").to_string_lossy())
        .clang_arg(format!("-I{}", include.display()))
        .allowlist_function("mj.*")
        .allowlist_type("mj.*")
        .allowlist_var("mj.*")
        .override_abi(bindgen::Abi::CUnwind, ".*")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .derive_default(true)
        .layout_tests(true)
        .generate_comments(false)
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen failed: {e}")));
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bindings.rs");
    let text = format!(
        "// Generated by bindgen from the MuJoCo 4.0.0 headers (mujoco-sys feature `regenerate`).\n\
         // Do not edit by hand.\n\n{}",
        bindings
    );
    if let Err(e) = fs::write(&target, text) {
        fail(&format!("cannot write {}: {e}", target.display()));
    }
}
