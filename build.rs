//! Puts MuJoCo's directory on the rpath of every binary, test and example of this package, so
//! nothing needs `LD_LIBRARY_PATH`. The directory comes from `mujoco-sys` (`DEP_MUJOCO_LIB_DIR`).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    match std::env::var("DEP_MUJOCO_LIB_DIR") {
        Ok(dir) => {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
            // Export specula's `mj_collision` so libmujoco's internal calls reach it (see src/mj/collision.rs).
            println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=mj_collision");
        }
        Err(_) => {
            println!("cargo:warning=mujoco-sys did not report its library directory");
            std::process::exit(1);
        }
    }
}
