//! `specula check` holds about what MuJoCo holds: it copies only the C arrays it compares, so a
//! large texture (which specula's model does not have) costs it nothing beyond MuJoCo's own copy
//! (issue 16, item 6). One test in its own binary: it reads the process's peak memory, which
//! other tests running beside it would disturb.

use std::path::PathBuf;

use specula::check::{check_file, CheckOutcome};
use specula::mj;

/// The process's peak resident set (`VmHWM`), in bytes.
fn peak() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/self/status");
    let kb: u64 = line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("VmHWM in kB");
    kb * 1024
}

/// Resets the peak to the current resident set (Linux: "5" written to clear_refs).
fn reset_peak() {
    std::fs::write("/proc/self/clear_refs", "5").expect("write /proc/self/clear_refs");
}

/// A scene with a `side` x `side` RGB builtin texture on its floor.
fn scene(side: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("specula-check-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("texture.xml");
    let xml = format!(
        r#"<mujoco>
  <asset>
    <texture name="t" type="2d" builtin="checker" width="{side}" height="{side}" rgb1="1 1 1" rgb2="0 0 0"/>
    <material name="m" texture="t"/>
  </asset>
  <worldbody>
    <geom type="plane" size="1 1 .1" material="m"/>
    <body pos="0 0 1"><freejoint/><geom size=".1"/></body>
  </worldbody>
</mujoco>"#
    );
    std::fs::write(&path, xml).expect("write scene");
    path
}

#[test]
fn check_of_a_large_texture_needs_little_more_than_mujocos_own_load() {
    let side = 4000;
    let texture_bytes = (side * side * 3) as u64;
    let path = scene(side);

    // Warm up both compilers once, so the measured runs see no one-time allocations.
    drop(check_file(&path));

    reset_peak();
    let base = peak();
    let model = mj::Model::from_xml_path(&path).expect("MuJoCo compiles the scene");
    let mujoco = peak() - base;
    drop(model);

    reset_peak();
    let base = peak();
    let outcome = check_file(&path);
    let check = peak() - base;
    assert!(matches!(&outcome, CheckOutcome::Compared(c) if c.matched()), "check matches: {outcome:?}");

    let mb = |b: u64| b as f64 / 1e6;
    eprintln!(
        "texture {:.0} MB: MuJoCo's load peaks {:.0} MB above its start, check {:.0} MB",
        mb(texture_bytes),
        mb(mujoco),
        mb(check)
    );
    assert!(mujoco >= texture_bytes, "MuJoCo's load holds the texture ({:.0} MB)", mb(mujoco));
    // Copying the texture as f64 would add eight times its bytes (384 MB here).
    assert!(
        check <= mujoco + texture_bytes,
        "check peaks {:.0} MB above its start, MuJoCo's load alone {:.0} MB (texture {:.0} MB)",
        mb(check),
        mb(mujoco),
        mb(texture_bytes)
    );
}
