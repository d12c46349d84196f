//! Every narrowphase pair function against MuJoCo's own (`mjCOLLISIONFUNC`, called through FFI on
//! the same poses) on thousands of random poses per type pair.
//!
//! Every pair must agree on every pose: the same contacts, in the same order, with dist, pos and
//! normal within 1e-9 (analytic pairs and the general convex path, GJK/EPA and multi-contact,
//! alike). For mesh pairs this needs MuJoCo's exact compiled mesh data, not only its
//! narrowphase: the hull in qhull's order, and the mesh frame and polygon normals to the last bit
//! (the compiler's eigen-solver and Newell normals as MuJoCo 4.0.0 has them). Before those were
//! exact, a normal 1e-12 off flipped near-ties in multi-contact (an edge lying in a face, clipped
//! as a closed two-vertex polygon, has each end point twice) and swapped two contacts on about 1%
//! of the mesh poses. A second test hands the engine MuJoCo's own hulls
//! (`from_c::collision_model`) and requires bit-for-bit agreement. `ORACLE_VERBOSE=1` lists
//! disagreeing poses.

use specula::mj::collision::library_pair_contacts;
use specula::mj::{Data, Model};
use specula_engine::collision::CollisionModel;
use specula_engine::narrowphase::{table, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

const POSES: usize = 1500;

mod common;
use common::Rng;

fn geom_xml(t: GeomType, rng: &mut Rng) -> String {
    let s = |rng: &mut Rng| rng.range(0.05, 0.3);
    match t {
        GeomType::Plane => r#"type="plane" size="0 0 1""#.to_string(),
        GeomType::Sphere => format!(r#"type="sphere" size="{}""#, s(rng)),
        GeomType::Capsule => format!(r#"type="capsule" size="{} {}""#, s(rng), s(rng)),
        GeomType::Ellipsoid => format!(r#"type="ellipsoid" size="{} {} {}""#, s(rng), s(rng), s(rng)),
        GeomType::Cylinder => format!(r#"type="cylinder" size="{} {}""#, s(rng), s(rng)),
        GeomType::Box => format!(r#"type="box" size="{} {} {}""#, s(rng), s(rng), s(rng)),
        GeomType::Mesh => r#"type="mesh" mesh="poly""#.to_string(),
        _ => unreachable!("not a primitive or mesh"),
    }
}

/// A scene with geom 0 of type `t1` and geom 1 of type `t2` on two free bodies (a plane stays on
/// the world body).
fn scene(t1: GeomType, t2: GeomType, rng: &mut Rng) -> String {
    let body = |t: GeomType, rng: &mut Rng| {
        if t == GeomType::Plane {
            format!("<geom {}/>", geom_xml(t, rng))
        } else {
            format!("<body><freejoint/><geom {}/></body>", geom_xml(t, rng))
        }
    };
    // An irregular convex point cloud for mesh pairs (its hull is computed by both compilers).
    let mesh = r#"<asset><mesh name="poly" vertex="0.2 0 0  -0.15 0.1 0.05  0 -0.18 0.1  0 0.05 -0.2  0.1 0.12 0.15
        -0.1 -0.1 -0.1  0.05 0.2 -0.05  -0.2 0.02 0.12"/></asset>"#;
    format!("<mujoco>{mesh}<worldbody>{}{}</worldbody></mujoco>", body(t1, rng), body(t2, rng))
}

/// Outcome of one type pair: poses compared, poses that agreed. The engine's collision model
/// (mesh hulls) comes from specula's compiler, or with `mujocos_hulls` from MuJoCo's compiled
/// model.
fn run_pair(t1: GeomType, t2: GeomType, seed: u64, tol: f64, mujocos_hulls: bool) -> (usize, usize, String) {
    let mut rng = Rng(seed);
    let xml = scene(t1, t2, &mut rng);
    let c = Model::from_xml_str(&xml).unwrap();
    let cm = if mujocos_hulls {
        specula::mj::from_c::collision_model(c.mj()).unwrap()
    } else {
        let r = specula_model::load_str(&xml, std::path::Path::new("."), "oracle.xml").unwrap();
        CollisionModel::from(&r)
    };
    let mut d = Data::new(&c).unwrap();
    let opt = CollideOptions { multiccd: true, ..CollideOptions::default() };
    let (mut agree, mut first_bad) = (0, String::new());
    for i in 0..POSES {
        let nq = d.qpos().len();
        {
            let q = d.qpos_mut();
            let mut k = 0;
            while k + 7 <= nq {
                q[k..k + 3].copy_from_slice(&[rng.range(-0.4, 0.4), rng.range(-0.4, 0.4), rng.range(-0.3, 0.5)]);
                let quat = rng.quat();
                q[k + 3..k + 7].copy_from_slice(&quat);
                k += 7;
            }
        }
        d.kinematics().unwrap();
        let margin = if i % 3 == 0 { rng.range(0.0, 0.05) } else { 0.0 };
        let mut cpts = Vec::new();
        let known = d.with_mj(|m, dd| library_pair_contacts(m, dd, 0, 1, margin, &mut cpts)).unwrap();
        assert!(known, "{t1:?}-{t2:?}: MuJoCo has no function");
        let (xp, xm) = (d.geom_xpos().to_vec(), d.geom_xmat().to_vec());
        let geom = |g: usize| Geom {
            ty: cm.geom_type[g],
            size: cm.geom_size[g],
            pos: [xp[3 * g], xp[3 * g + 1], xp[3 * g + 2]],
            mat: std::array::from_fn(|k| xm[9 * g + k]),
            rbound: cm.geom_rbound[g],
            hull: if cm.geom_type[g] == GeomType::Mesh { cm.hulls[cm.geom_dataid[g] as usize].as_ref() } else { None },
            hfield: None,
        };
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        let n = table::collide(&geom(0), &geom(1), margin, &opt, &mut buf).expect("a Rust function");
        let same = n == cpts.len()
            && cpts.iter().zip(&buf[..n]).all(|(a, b)| {
                (a.dist - b.dist).abs() <= tol
                    && a.pos.iter().zip(&b.pos).all(|(x, y)| (x - y).abs() <= tol)
                    && a.frame[..3].iter().zip(&b.frame[..3]).all(|(x, y)| (x - y).abs() <= tol)
            });
        if !same && std::env::var_os("ORACLE_VERBOSE").is_some() {
            let err = cpts.iter().zip(&buf[..n]).fold(0.0f64, |e, (a, b)| {
                let d = (a.dist - b.dist).abs();
                let p = a.pos.iter().zip(&b.pos).map(|(x, y)| (x - y).abs()).fold(d, f64::max);
                a.frame[..3].iter().zip(&b.frame[..3]).map(|(x, y)| (x - y).abs()).fold(e.max(p), f64::max)
            });
            println!("  {t1:?}-{t2:?} pose {i} margin {margin:.4}: MuJoCo {} specula {n} err {err:.2e}", cpts.len());
        }
        if same {
            agree += 1;
        } else if first_bad.is_empty() {
            first_bad =
                format!("pose {i}: MuJoCo {} contacts {:?}, specula {} {:?}", cpts.len(), cpts.first(), n, buf.first());
        }
    }
    (POSES, agree, first_bad)
}

/// (type 1, type 2, required fraction of agreeing poses, tolerance): every pair, every pose.
const PAIRS: &[(GeomType, GeomType, f64, f64)] = {
    use GeomType::*;
    &[
        (Plane, Sphere, 1.0, 1e-9),
        (Plane, Capsule, 1.0, 1e-9),
        (Plane, Cylinder, 1.0, 1e-9),
        (Plane, Box, 1.0, 1e-9),
        (Plane, Ellipsoid, 1.0, 1e-9),
        (Plane, Mesh, 1.0, 1e-9),
        (Sphere, Sphere, 1.0, 1e-9),
        (Sphere, Capsule, 1.0, 1e-9),
        (Sphere, Cylinder, 1.0, 1e-9),
        (Sphere, Box, 1.0, 1e-9),
        (Sphere, Ellipsoid, 1.0, 1e-9),
        (Sphere, Mesh, 1.0, 1e-9),
        (Capsule, Capsule, 1.0, 1e-9),
        (Capsule, Box, 1.0, 1e-9),
        (Capsule, Cylinder, 1.0, 1e-9),
        (Capsule, Ellipsoid, 1.0, 1e-9),
        (Capsule, Mesh, 1.0, 1e-9),
        (Box, Box, 1.0, 1e-9),
        (Ellipsoid, Ellipsoid, 1.0, 1e-9),
        (Ellipsoid, Cylinder, 1.0, 1e-9),
        (Ellipsoid, Box, 1.0, 1e-9),
        (Ellipsoid, Mesh, 1.0, 1e-9),
        (Cylinder, Cylinder, 1.0, 1e-9),
        (Cylinder, Box, 1.0, 1e-9),
        (Cylinder, Mesh, 1.0, 1e-9),
        (Box, Mesh, 1.0, 1e-9),
        (Mesh, Mesh, 1.0, 1e-9),
    ]
};

/// The random-pose seed of entry `k` of [`PAIRS`].
fn seed(k: usize) -> u64 {
    0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1)
}

#[test]
fn every_pair_function_agrees_with_mujocos_on_random_poses() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (k, &(t1, t2, floor, tol)) in PAIRS.iter().enumerate() {
        let (n, agree, bad) = run_pair(t1, t2, seed(k), tol, false);
        let frac = agree as f64 / n as f64;
        report.push(format!("{t1:?}-{t2:?}: {agree}/{n} within {tol:e}"));
        if frac < floor {
            failures.push(format!("{t1:?}-{t2:?}: {agree}/{n} agree (floor {floor}); first: {bad}"));
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The mesh pairs of [`PAIRS`] (same poses) with the engine given MuJoCo's own hulls and polygon
/// tables: no compiler difference is left, so every pose must agree bit for bit (count, order,
/// and dist/pos/frame exactly; measured on all 1500 poses of each pair). Before the exhaustive
/// mesh support search ran in MuJoCo's vertex order, 8 sphere/capsule/box-mesh poses were off
/// by up to 3e-15.
#[test]
fn mesh_pairs_agree_on_every_pose_given_mujocos_own_hulls() {
    let mut failures = Vec::new();
    for (k, &(t1, t2, _, _)) in PAIRS.iter().enumerate() {
        if t2 != GeomType::Mesh {
            continue;
        }
        let (n, agree, bad) = run_pair(t1, t2, seed(k), 0.0, true);
        println!("{t1:?}-{t2:?} (MuJoCo's hull): {agree}/{n} bit for bit");
        if agree < n {
            failures.push(format!("{t1:?}-{t2:?}: {agree}/{n} agree; first: {bad}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
