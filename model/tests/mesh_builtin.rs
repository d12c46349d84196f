//! Builtin procedural meshes against MuJoCo 4.0.0.
//!
//! Reference values probed with the Python bindings from the corpus file
//! test/user/testdata/makemesh.xml (`mujoco.MjModel.from_xml_path`): per mesh `mesh_vertnum`,
//! `mesh_facenum`, the hull's numvert/numface from `mesh_graph`, `mesh_polynum`, `mesh_pos`,
//! `mesh_quat`, and `geom_size`/`geom_rbound` of the geom using it. The scales are those of the
//! file's default classes.

use specula_model::mesh::{load_mesh, Builtin, MeshData, MeshInertia, MeshSpec};
use std::path::Path;

fn make(kind: &str, params: &[f64], scale: f64) -> MeshData {
    let spec = MeshSpec {
        builtin: Builtin::from_keyword(kind),
        params: params.to_vec(),
        scale: [scale; 3],
        need_hull: true,
        ..Default::default()
    };
    load_mesh(&spec, Path::new(".")).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// The 15-digit cos(pi/4) literal of MuJoCo's eigen sort; it differs from FRAC_1_SQRT_2.
#[allow(clippy::approx_constant)]
const W45: f64 = 0.707106781186548;

struct Probe {
    counts: [usize; 5], // nvert, nface, hull nvert, hull nface, npolygon
    pos: [f64; 3],
    quat: [f64; 4],
    size: [f64; 3],
    rbound: f64,
}

fn check(name: &str, m: &MeshData, p: &Probe) {
    let g = m.graph.as_ref().expect("graph");
    let counts = [m.vert.len() / 3, m.face.len() / 3, g[0] as usize, g[1] as usize, m.polygon.len()];
    assert_eq!(counts, p.counts, "{name}: counts");
    for (a, b) in m.pos.iter().zip(p.pos) {
        assert!((a - b).abs() < 1e-12, "{name}: pos {:?}", m.pos);
    }
    for (a, b) in m.quat.iter().zip(p.quat) {
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{name}: quat {:?}", m.quat);
    }
    for (a, b) in m.geom_size().iter().zip(p.size) {
        assert!((a - b).abs() <= 1e-9 * b, "{name}: size {:?}", m.geom_size());
    }
    assert!((m.geom_rbound() - p.rbound).abs() <= 1e-9 * p.rbound, "{name}: rbound");
}

#[test]
fn icosphere() {
    let m = make("sphere", &[2.0], 1.0);
    // V = 2 + 10 * 4^s, F = 20 * 4^s; every vertex is on the unit sphere.
    check(
        "s2",
        &m,
        &Probe {
            counts: [162, 320, 162, 320, 320],
            pos: [5.958089997020361e-17, -1.9288780565893255e-17, 7.710178748443807e-18],
            quat: [1.0, 0.0, 0.0, 0.0],
            size: [1.0, 1.0, 1.0],
            rbound: 1.7320508075688772,
        },
    );
}

#[test]
fn hemisphere() {
    let m = make("hemisphere", &[4.0], 1.0);
    check(
        "h4",
        &m,
        &Probe {
            counts: [62, 120, 61, 118, 101],
            pos: [-5.275339927447311e-18, -1.2309126497377061e-17, 0.36689708879090543],
            quat: [0.5000000000000007, 0.5000000000000007, -0.5000000000000007, 0.5000000000000007],
            size: [0.6331029112090962, 1.0000000000000027, 1.0000000000000027],
            rbound: 1.5494577426252847,
        },
    );
}

#[test]
fn cones_with_class_scale() {
    let spec = |params: [f64; 2]| MeshSpec {
        builtin: Some(Builtin::Cone),
        params: params.to_vec(),
        scale: [0.6, 0.6, 0.7],
        need_hull: true,
        ..Default::default()
    };
    let m = load_mesh(&spec([3.0, 1.0]), Path::new(".")).unwrap();
    check(
        "c0",
        &m,
        &Probe {
            counts: [6, 8, 6, 8, 5],
            pos: [0.0, -1.059833951111852e-17, -7.94875463333889e-18],
            quat: [1.0, 0.0, 0.0, 0.0],
            size: [0.6, 0.5196152329444885, 0.7],
            rbound: 1.0583005198467754,
        },
    );
    let m = load_mesh(&spec([3.0, 0.0]), Path::new(".")).unwrap();
    check(
        "c6",
        &m,
        &Probe {
            counts: [4, 4, 4, 4, 4],
            pos: [0.0, 0.0, -0.3499999999999999],
            quat: [1.0, 0.0, 0.0, 0.0],
            size: [0.6, 0.5196152329444885, 1.0499999999999998],
            rbound: 1.3162446544271147,
        },
    );
}

#[test]
fn supersphere_supertorus_wedge() {
    check(
        "ss5",
        &make("supersphere", &[30.0, 1.0, 2.0], 0.7),
        &Probe {
            counts: [872, 1740, 248, 492, 76],
            pos: [-7.6762452062946835e-19, 6.915920340261298e-19, -3.4851140558866376e-17],
            quat: [0.5000000000000007, 0.5000000000000007, -0.5000000000000007, 0.5000000000000007],
            size: [0.7000000000000018, 0.7000000000000018, 0.6961653411388415],
            rbound: 1.2102256740802373,
        },
    );
    check(
        "st7",
        &make("supertorus", &[30.0, 0.5, 2.0, 1.0], 0.5),
        &Probe {
            counts: [900, 1800, 234, 464, 62],
            pos: [-2.725070582786895e-18, 2.221398349002565e-18, 1.1154301998186208e-19],
            quat: [0.5000000000000007, 0.5000000000000007, -0.5000000000000007, 0.5000000000000007],
            size: [0.24726845324039526, 0.750000000000002, 0.7458913922309895],
            rbound: 1.0862760500775963,
        },
    );
    // The wedge has no faces (its faces are the hull's) and three normals per vertex.
    let w = make("wedge", &[30.0, 30.0, 180.0, 20.0, 0.0], 0.7);
    assert_eq!(w.normal.len(), 3 * 2700);
    check(
        "w6",
        &w,
        &Probe {
            counts: [900, 1796, 900, 1796, 872],
            pos: [-3.463654719812659e-17, -1.779619886145591e-17, 5.4580306329554506e-17],
            // MuJoCo's literal for cos(pi/4) from its eigenvalue sort (1 ulp off the constant).
            quat: [W45, 0.0, 0.0, W45],
            size: [0.23174439370632202, 0.6999526023864755, 0.6961181938648232],
            rbound: 1.0140116613883363,
        },
    );
}

#[test]
fn plate_forces_shell_inertia() {
    let spec = MeshSpec { builtin: Some(Builtin::Plate), params: vec![3.0, 4.0], ..Default::default() };
    // A flat plate has no volume; with the forced shell inertia it processes, and its area is
    // that of the triangulated interior cells: (2 * 2/3) x (3 * 2/4) = 2.
    let m = load_mesh(&spec, Path::new(".")).unwrap();
    assert_eq!(m.inertia, MeshInertia::Shell);
    assert!((m.volume_ref() - 2.0).abs() < 1e-6, "{}", m.volume_ref());
}

#[test]
fn parameter_validation() {
    for (kind, params) in [
        ("sphere", vec![5.0]),
        ("sphere", vec![1.0, 2.0]),
        ("hemisphere", vec![-1.0]),
        ("supersphere", vec![2.0, 1.0, 1.0]),
        ("supertorus", vec![30.0, 0.0, 1.0, 1.0]),
        ("wedge", vec![30.0, 30.0, 200.0, 20.0, 0.0]),
        ("plate", vec![0.0, 3.0]),
        ("cone", vec![3.0]),
    ] {
        let spec = MeshSpec { builtin: Builtin::from_keyword(kind), params, ..Default::default() };
        assert!(load_mesh(&spec, Path::new(".")).is_err(), "{kind}");
    }
}

#[test]
fn carousel_meshes() {
    // model/surfacevel/carousel.xml: ring = supertorus "64 .2 .4 1" scale (1.7, 1.7, .9) and
    // bag3 = supersphere "32 .25 .3" scale (.19, .14, .1). Probed m.mesh_vertnum,
    // m.mesh_facenum, hull numvert, m.mesh_polynum, m.mesh_pos, m.mesh_quat.
    let spec = |kind: Builtin, params: &[f64], scale: [f64; 3]| MeshSpec {
        builtin: Some(kind),
        params: params.to_vec(),
        scale,
        need_hull: true,
        ..Default::default()
    };
    let ring = load_mesh(&spec(Builtin::Supertorus, &[64.0, 0.2, 0.4, 1.0], [1.7, 1.7, 0.9]), Path::new(".")).unwrap();
    let g = ring.graph.as_ref().unwrap();
    assert_eq!((ring.vert.len() / 3, ring.face.len() / 3, g[0], ring.polygon.len()), (4096, 8192, 2112, 2050));
    let want = [3.1034134913335062e-18, 3.2638104004255175e-16, -8.250908839948197e-13];
    for (a, b) in ring.pos.iter().zip(want) {
        assert!((a - b).abs() <= 1e-9 * b.abs() + 1e-20, "{:?}", ring.pos);
    }
    let q = [0.5000000000000007, 0.5000000000000007, -0.5000000000000007, 0.5000000000000007];
    assert_eq!(ring.quat, q);

    let bag = load_mesh(&spec(Builtin::Supersphere, &[32.0, 0.25, 0.3], [0.19, 0.14, 0.1]), Path::new(".")).unwrap();
    let g = bag.graph.as_ref().unwrap();
    assert_eq!((bag.vert.len() / 3, bag.face.len() / 3, g[0], bag.polygon.len()), (994, 1984, 994, 992));
    let want = [9.032623632596134e-09, -3.957453748697422e-09, 8.183031425975448e-16];
    for (a, b) in bag.pos.iter().zip(want) {
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{:?}", bag.pos);
    }
    let q = [0.0, 0.7071067811865489, 0.0, 0.7071067811865489];
    for (a, b) in bag.quat.iter().zip(q) {
        assert!((a - b).abs() <= 1e-12, "{:?}", bag.quat);
    }
}
