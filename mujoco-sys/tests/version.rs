//! The committed bindings must describe the library that is linked: same version, same layout.

use std::path::PathBuf;

/// The header directory this build used (exported by build.rs through the `include` metadata is
/// not visible to tests, so find it from the committed bindings' source: rebuild the path from
/// MUJOCO_DIR or the OUT_DIR layout).
fn header_text() -> Option<String> {
    if let Some(dir) = std::env::var_os("MUJOCO_DIR") {
        return std::fs::read_to_string(PathBuf::from(dir).join("include/mujoco/mujoco.h")).ok();
    }
    // OUT_DIR of the build script is not passed to tests; search the target dir for the unpacked wheel.
    let exe = std::env::current_exe().ok()?;
    let build = exe.parent()?.parent()?.join("build");
    for entry in std::fs::read_dir(build).ok()?.flatten() {
        let h = entry.path().join("out/mujoco-4.0.0/mujoco/include/mujoco/mujoco.h");
        if h.is_file() {
            return std::fs::read_to_string(h).ok();
        }
    }
    None
}

#[test]
fn bindings_match_the_headers_version() {
    let text = header_text().expect("the MuJoCo headers this build used were not found");
    let line =
        text.lines().find(|l| l.starts_with("#define mjVERSION_HEADER")).expect("mujoco.h defines mjVERSION_HEADER");
    let header: u32 = line.split_whitespace().nth(2).and_then(|v| v.parse().ok()).expect("a number");
    assert_eq!(header, mujoco_sys::mjVERSION_HEADER, "bindings.rs was generated from other headers");
    assert_eq!(header, 4000000);
}

#[test]
fn linked_library_is_4_0_0() {
    // SAFETY: no arguments, no state.
    let v = unsafe { mujoco_sys::mj_version() };
    assert_eq!(v, mujoco_sys::mjVERSION_HEADER as i32);
}

#[test]
fn contact_layout_is_the_4_0_0_one() {
    // 4.0.0 added `surfacevel[3]` to mjContact, making it 608 bytes (pipeline reference).
    assert_eq!(std::mem::size_of::<mujoco_sys::mjContact>(), 608);
    // Sizes are 64-bit in 4.0.0 (mjtSize).
    let m = mujoco_sys::mjModel::default();
    assert_eq!(std::mem::size_of_val(&m.ngeom), 8);
}
