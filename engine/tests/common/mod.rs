//! The engine tests' one helper module: the primitive-collider harness against MuJoCo 4.0.0,
//! the convex fixtures ([`convex`]), number comparisons, and where MuJoCo's MJCF corpus is.
#![allow(dead_code)]

pub mod convex;

use std::io::Write;
use std::path::{Path, PathBuf};

use specula_engine::narrowphase::primitive;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

/// A geom from MuJoCo's type number and its compiled size and world pose.
pub fn geom(ty: usize, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    let ty = GeomType::from_index(ty).expect("valid geom type");
    Geom { ty, size, pos, mat, rbound: 0.0, hull: None, hfield: None }
}

/// Run the primitive collider for the pair and compare with MuJoCo's contacts exactly.
pub fn check(g1: &Geom, g2: &Geom, margin: f64, expected: &[(f64, [f64; 3], [f64; 9])]) {
    use GeomType::*;
    let f = match (g1.ty, g2.ty) {
        (Plane, Sphere) => primitive::plane_sphere,
        (Plane, Capsule) => primitive::plane_capsule,
        (Plane, Cylinder) => primitive::plane_cylinder,
        (Plane, Box) => primitive::plane_box,
        (Sphere, Sphere) => primitive::sphere_sphere,
        (Sphere, Capsule) => primitive::sphere_capsule,
        (Sphere, Cylinder) => primitive::sphere_cylinder,
        (Capsule, Capsule) => primitive::capsule_capsule,
        other => panic!("not a primitive pair: {other:?}"),
    };
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = f(g1, g2, margin, &CollideOptions::default(), &mut out);
    assert_eq!(n, expected.len(), "contact count");
    for (i, (c, (dist, pos, frame))) in out[..n].iter().zip(expected).enumerate() {
        assert_eq!(c.dist, *dist, "contact {i} dist");
        assert_eq!(c.pos, *pos, "contact {i} pos");
        assert_eq!(c.frame, *frame, "contact {i} frame");
    }
}

/// MuJoCo's MJCF corpus file `rel`, beside the repository (`<clone>/../shared/mjcf/corpus`:
/// MuJoCo's own files, which the repository does not hold; a corpus that is present must hold
/// `rel`). A test that needs it starts with `let Some(path) = common::corpus_file(REL) else
/// { return };`: on a clone alone it says on stderr that it was skipped and passes.
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/mjcf/corpus");
    if !dir.is_dir() {
        // libtest runs each test on a thread named after it. The line goes to the stream itself,
        // past libtest's capture of `eprintln!`, so that a plain `cargo test` shows it.
        let thread = std::thread::current();
        let test = thread.name().unwrap_or("this test");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: needs ../shared/mjcf/corpus (MuJoCo's MJCF files); put them there to run it"
        );
        return None;
    }
    let path = dir.join(rel);
    assert!(path.is_file(), "{} is missing from the corpus", path.display());
    Some(path)
}

/// Whether `a` is within `tol` of `b`, relative to `|b|` once `|b|` exceeds 1.
pub fn close_rel(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Asserts that two 3-vectors agree within `tol` in every component.
pub fn assert_vec(a: &[f64; 3], b: &[f64; 3], tol: f64) {
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < tol), "{a:?} vs {b:?}");
}
