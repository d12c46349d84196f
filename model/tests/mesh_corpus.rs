//! Corpus meshes against MuJoCo 4.0.0.
//!
//! Reference numbers were probed with the Python bindings (mujoco 4.0.0), e.g. for bunny:
//! `m = mujoco.MjModel.from_xml_path("model/replicate/bunnies.xml")`, then `m.mesh_pos[0]`,
//! `m.mesh_quat[0]`, `m.geom_size[g]`, `m.geom_aabb[g]`, `m.geom_rbound[g]`, `m.body_mass[b]`
//! (default density 1000, so mass = 1000 * volume), `m.body_inertia[b]`, and for the hull
//! `g = m.mesh_graph[m.mesh_graphadr[0]:]`, `nv = g[0]`, `ids = g[2+nv:2+2*nv]`, summarized as
//! (count, sum, sum of squares) of the vertex ids so the whole set is checked without pasting it.
//! Every test reads the corpus: skipped, saying so, without it.

mod common;

use specula_model::mesh::{load_mesh, MeshData, MeshError, MeshSpec};

/// The corpus mesh `rel` at `scale`; `None` (the test is skipped) without the corpus.
fn load(rel: &str, scale: f64) -> Option<MeshData> {
    let spec = MeshSpec { file: Some(rel.into()), scale: [scale; 3], need_hull: true, ..Default::default() };
    Some(load_mesh(&spec, &common::corpus()?).unwrap_or_else(|e| panic!("{rel}: {e}")))
}

/// Relative comparison at the project's 1e-9 tolerance (absolute below 1e-12).
fn near(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-9 * w.abs().max(1e-3), "got {got:?}\nwant {want:?}");
    }
}

/// (count, sum, sum of squares) of the hull vertex ids.
fn hull_fingerprint(m: &MeshData) -> (usize, usize, usize) {
    let h = m.hull.as_ref().expect("hull");
    (h.vert.len(), h.vert.iter().sum(), h.vert.iter().map(|v| v * v).sum())
}

struct Probe {
    file: &'static str,
    scale: f64,
    nvert: usize,
    nface: usize,
    pos: [f64; 3],
    quat: [f64; 4],
    size: [f64; 3],
    aabb: [f64; 6],
    rbound: f64,
    mass: f64,
    inertia: [f64; 3],
    hull: (usize, usize, usize),
    hull_faces: usize,
}

fn check(p: &Probe) {
    let Some(m) = load(p.file, p.scale) else { return };
    assert_eq!((m.vert.len() / 3, m.face.len() / 3), (p.nvert, p.nface), "{}", p.file);
    // Positions near zero are round-off in MuJoCo too; compare them absolutely at 1e-15.
    for (g, w) in m.pos.iter().zip(p.pos) {
        assert!((g - w).abs() <= 1e-9 * w.abs() + 1e-15, "{}: pos {:?}", p.file, m.pos);
    }
    near(&m.quat, &p.quat);
    near(&m.geom_size(), &p.size);
    for (g, w) in m.geom_aabb().iter().zip(p.aabb) {
        assert!((g - w).abs() <= 1e-9 * w.abs() + 1e-15, "{}: aabb {:?}", p.file, m.geom_aabb());
    }
    near(&[m.geom_rbound()], &[p.rbound]);
    let mass = 1000.0 * m.volume_ref();
    near(&[mass], &[p.mass]);
    near(&m.geom_inertia(mass), &p.inertia);
    assert_eq!(hull_fingerprint(&m), p.hull, "{}: hull vertex set", p.file);
    assert_eq!(m.hull.as_ref().unwrap().face.len(), p.hull_faces);
    let g = m.graph.as_ref().unwrap();
    assert_eq!(g.len(), 2 + 3 * p.hull.0 + 6 * p.hull_faces);
}

#[test]
fn mjx_tetrahedron_stl() {
    check(&Probe {
        file: "mjx/mujoco/mjx/test_data/meshes/tetrahedron.stl",
        scale: 0.4,
        nvert: 4,
        nface: 4,
        pos: [0.0; 3],
        quat: [1.0, 0.0, 0.0, 0.0],
        size: [0.4, 0.4, 0.4],
        aabb: [0.0, 0.0, 0.0, 0.4, 0.4, 0.4],
        rbound: 0.692820323027551,
        mass: 85.33333333333336,
        inertia: [4.096000000000002, 4.096000000000002, 2.7306666666666675],
        hull: (4, 6, 14),
        hull_faces: 4,
    });
}

#[test]
fn mjx_dodecahedron_stl() {
    // Nearly isotropic inertia: MuJoCo 4.0.0 keeps the identity frame and the unsorted
    // diagonal (see the tolerance note in mesh::eig3).
    check(&Probe {
        file: "mjx/mujoco/mjx/test_data/meshes/dodecahedron.stl",
        scale: 0.04,
        nvert: 20,
        nface: 36,
        pos: [-2.3981746721828694e-09, -7.563262297773629e-10, -1.3834565116781167e-09],
        quat: [1.0, 0.0, 0.0, 0.0],
        size: [0.37366894008128015, 0.3736689384394317, 0.373668939066562],
        aabb: [
            2.3981746588574993e-09,
            7.563262238718949e-10,
            1.3834565160131262e-09,
            0.3736689376831055,
            0.3736689376831055,
            0.3736689376831055,
        ],
        rbound: 0.6472135878974182,
        mass: 178.2504693492242,
        inertia: [8.821797065955971, 8.821797074967568, 8.821797100687588],
        hull: (20, 190, 2470),
        hull_faces: 36,
    });
}

#[test]
fn mjx_pyramid_stl() {
    check(&Probe {
        file: "mjx/mujoco/mjx/test_data/meshes/pyramid.stl",
        scale: 0.4,
        nvert: 5,
        nface: 6,
        pos: [0.0, 0.0, 0.1],
        quat: [0.5000000000000007, 0.5000000000000007, -0.5000000000000007, 0.5000000000000007],
        size: [0.3000000000000008, 0.20000000000000054, 0.20000000000000054],
        aabb: [0.10000000000000028, 0.0, 0.0, 0.20000000000000054, 0.20000000000000054, 0.20000000000000054],
        rbound: 0.4123105625617672,
        mass: 21.333333333333336,
        inertia: [0.3413333333333335, 0.2986666666666668, 0.2986666666666668],
        hull: (5, 10, 30),
        hull_faces: 6,
    });
}

#[test]
fn die_obj_point_cloud() {
    // die.obj has only `v` lines: faces come from the hull (296 corners, 588 triangles).
    check(&Probe {
        file: "test/engine/testdata/collision_convex/die.obj",
        scale: 0.02,
        nvert: 296,
        nface: 588,
        pos: [1.2144668657334778e-19, -6.61209738010449e-19, -2.4964041128965934e-19],
        quat: [1.0, 0.0, 0.0, 0.0],
        size: [0.02, 0.02, 0.02],
        aabb: [0.0, 0.0, 0.0, 0.02, 0.02, 0.02],
        rbound: 0.034641016151377546,
        mass: 0.06129953581303401,
        inertia: [1.5581963727695258e-05, 1.5581963727695264e-05, 1.5581963727695264e-05],
        hull: (296, 43660, 8601020),
        hull_faces: 588,
    });
}

#[test]
fn bunny_obj() {
    check(&Probe {
        file: "model/replicate/bunny.obj",
        scale: 1.0,
        nvert: 2503,
        nface: 4968,
        pos: [-0.023112474078597164, 0.0911908554919301, 0.009222642743209946],
        quat: [0.35815830125248904, 0.6587309847743594, -0.1455033271409109, 0.6454648733533558],
        size: [0.05510594331003739, 0.08212597377233596, 0.10281733280806721],
        aabb: [
            -0.00372638176191158,
            -0.003611594377609828,
            -0.007867999514924652,
            0.05137956154812581,
            0.07851437939472614,
            0.09494933329314256,
        ],
        rbound: 0.14266304525667578,
        mass: 0.8299143763035464,
        inertia: [0.001905178459248023, 0.0016758084911522142, 0.000908889952754835],
        hull: (327, 409931, 676761581),
        hull_faces: 650,
    });
}

#[test]
fn bunny_first_vertices_are_float_exact() {
    // m.mesh_vert[:2] (float32) for bunny.obj.
    let Some(m) = load("model/replicate/bunny.obj", 1.0) else { return };
    let want: [f32; 6] = [0.025004586, -0.036760252, -0.009986743, 0.028809134, 0.001150425, -0.08234056];
    for (g, w) in m.vert[..6].iter().zip(want) {
        assert!((g - w).abs() <= 2.0 * f32::EPSILON * w.abs(), "{:?}", &m.vert[..6]);
    }
}

#[test]
fn missing_and_malformed_files() {
    let Some(corpus) = common::corpus() else { return };
    let spec = MeshSpec { file: Some("no/such/mesh.stl".into()), ..Default::default() };
    assert!(matches!(load_mesh(&spec, &corpus), Err(MeshError::Io { .. })));
    // An XML file named as an OBJ/STL through content_type: STL size check fails.
    let spec = MeshSpec {
        file: Some("model/car/car.xml".into()),
        content_type: Some("model/stl".into()),
        ..Default::default()
    };
    assert!(matches!(load_mesh(&spec, &corpus), Err(MeshError::Format { .. })));
    let spec = MeshSpec { file: Some("model/car/car.xml".into()), ..Default::default() };
    assert!(matches!(load_mesh(&spec, &corpus), Err(MeshError::Format { .. })));
}
