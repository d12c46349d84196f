//! Builtin mesh `params` are checked before anything is generated, with MuJoCo 4.0.0's verdicts.
//!
//! Each expected message was probed with the library (`specula check` on a one-mesh scene, which
//! loads it with `mj_loadXML`): MuJoCo converts a parameter with C's `(int)` cast, so NaN and
//! anything beyond 32 bits become INT_MIN and fail the lower bound, each in well under a second.
//! Before these checks specula saturated them to INT_MAX: a 51 GB cone, a 77 GB plate, a
//! supertorus that panicked on capacity overflow and a supersphere that never finished.

use std::path::Path;
use std::time::{Duration, Instant};

use specula_model::load_str;

/// Compiles a scene with one builtin mesh (the `<mesh>` at line 2, column 3) and returns the
/// error text, or None if it compiled; fails if it took more than a second.
fn verdict(builtin: &str, params: &str) -> Option<String> {
    let xml = format!(
        "<mujoco><asset>\n  <mesh name=\"m\" builtin=\"{builtin}\" params=\"{params}\"/>\n</asset>\
         <worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody></mujoco>"
    );
    let start = Instant::now();
    let result = load_str(&xml, Path::new("."), "limits.xml");
    assert!(start.elapsed() < Duration::from_secs(1), "{builtin} {params}: took {:?}", start.elapsed());
    result.err().map(|e| e.to_string())
}

fn assert_refused(builtin: &str, params: &str, expected: &str) {
    let message = verdict(builtin, params).unwrap_or_else(|| panic!("{builtin} {params}: compiled"));
    assert!(message.starts_with("limits.xml:2:3: "), "{builtin} {params}: {message}");
    assert!(message.contains(expected), "{builtin} {params}: {message}");
}

#[test]
fn out_of_range_params_are_refused_as_mujoco_refuses_them() {
    // The four of the bad-input report.
    assert_refused("cone", "99999999999 1", "Cone nvert must be at least 3");
    assert_refused("plate", "99999999999 99999999999", "Horizontal and vertical resolutions must be positive");
    assert_refused("supertorus", "99999999999 .5 1 1", "Supertorus resolution must be greater than 3");
    assert_refused("supersphere", "99999999999 1 1", "Supersphere resolution must be greater than 2");
    // Large in the other direction, and NaN (MuJoCo: INT_MIN too).
    assert_refused("sphere", "1e10", "Sphere subdivision cannot be negative");
    assert_refused("sphere", "nan", "Sphere subdivision cannot be negative");
    assert_refused("hemisphere", "1e10", "Hemisphere resolution cannot be negative");
    assert_refused("hemisphere", "nan", "Hemisphere resolution cannot be negative");
    assert_refused("wedge", "-1e10 1 1 1 0", "Horizontal and vertical resolutions must be positive");
    assert_refused("plate", "1 nan", "Horizontal and vertical resolutions must be positive");
    assert_refused("supertorus", "nan .5 1 1", "Supertorus resolution must be greater than 3");
}

#[test]
fn cone_limits_are_mujocos() {
    // MuJoCo 4.0.0 wants at least 3 edges and a top radius in [0, 1] (NaN fails).
    assert_refused("cone", "2 1", "Cone nvert must be at least 3");
    assert_refused("cone", "2 5", "Cone nvert must be at least 3");
    assert_refused("cone", "3 1.1", "Cone radius must be in [0, 1]");
    assert_refused("cone", "3 -0.1", "Cone radius must be in [0, 1]");
    assert_refused("cone", "3 nan", "Cone radius must be in [0, 1]");
    assert_eq!(verdict("cone", "3 1"), None);
    assert_eq!(verdict("cone", "3 0"), None);
    assert_eq!(verdict("cone", "3.9 0.5"), None);
}

#[test]
fn a_nan_wedge_gamma_passes_its_check_as_in_mujoco() {
    // MuJoCo compares gamma with < and >, so NaN passes and the vertices come out NaN.
    assert_refused("wedge", "1 1 1 1 nan", "vertex coordinate 0 is not finite");
    assert_refused("wedge", "1 1 1 1 1.1", "`gamma` must be a nonnegative float between [0, 1]");
}

#[test]
fn huge_but_valid_params_are_refused_before_allocating() {
    // MuJoCo accepts these and then throws std::length_error / std::bad_alloc or runs for
    // minutes; specula refuses anything over 2^20 vertices, and cones over 8192 edges.
    let limit = "specula generates at most 1048576 for a builtin mesh";
    let cone = "specula builds cones of at most 8192 edges";
    assert_refused("cone", "2147483647 1", cone);
    assert_refused("cone", "8193 1", cone);
    assert_refused("cone", "8193 0", cone);
    assert_refused("plate", "100000 100000", limit);
    assert_refused("plate", "1025 1024", limit); // 1024 x 1025 = 2^20 + 1024
    assert_refused("wedge", "100000 100000 1 1 0", limit);
    assert_refused("wedge", "5000 5000 1 1 0", limit); // fuzz --mutate seed 98: MuJoCo hangs
    assert_refused("supertorus", "2147483647 .5 1 1", limit);
    assert_refused("supertorus", "1025 .5 1 1", limit);
    assert_refused("supersphere", "2147483647 1 1", limit);
    assert_refused("supersphere", "1025 1 1", limit);
    // At the limits the parameters pass the check (generating them takes seconds: not here).
    for (kind, params) in
        [("cone", [8192.0, 1.0].as_slice()), ("plate", &[1024.0, 1024.0]), ("wedge", &[1024.0, 1024.0, 1.0, 1.0, 0.0])]
    {
        let k = specula_model::mesh::Builtin::from_keyword(kind).unwrap();
        assert!(specula_model::mesh::builtin::check(k, params).is_ok(), "{kind} {params:?}");
    }
}
