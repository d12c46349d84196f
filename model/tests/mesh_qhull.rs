//! Hull face order and rotation as MuJoCo 4.0.0 stores them (qhull's facet list).
//!
//! Reference: Python `mujoco` 4.0.0, `m = mujoco.MjModel.from_xml_path(...)` on a model with one
//! `<mesh vertex="..."/>`, then `g = m.mesh_graph[m.mesh_graphadr[0]:]`, `nv, nf = g[0], g[1]`,
//! faces `g[2+3*nv+3*nf:2+3*nv+6*nf]`, and the polygons from `mesh_polyvertadr/num/polyvert`.
//! The 12 points are numpy's `default_rng(100).normal(size=(12, 3))` rounded to f32 (general
//! position: no facet merging in qhull).

use specula_model::mesh::hull::convex_hull;
use specula_model::mesh::polygon::make_polygons;
use specula_model::mesh::{load_mesh, MeshSpec};
use std::path::Path;

const CLOUD: [f32; 36] = [
    -1.157_549_6,
    0.289_755_8,
    0.780_854_05,
    0.543_973_6,
    -0.961_382_6,
    1.071_008_7,
    0.701_455_65,
    0.704_973_46,
    0.745_062_6,
    1.104_347_2,
    2.242_972_4,
    -0.611_493_1,
    0.047_211_18,
    1.754_234_7,
    -1.337_979_9,
    0.325_574_46,
    -0.689_117_7,
    -0.019_821_81,
    0.474_753_26,
    -1.931_101_4,
    -0.992_478_25,
    -1.405_471_1,
    -0.231_095_5,
    -0.688_847_07,
    1.515_105_7,
    -0.603_171_5,
    1.713_684_4,
    -0.406_249_2,
    0.271_409_5,
    0.039_840_2,
    0.011_518_318,
    -1.127_178,
    0.334_712_98,
    0.383_891_55,
    0.237_835_51,
    0.621_411_7,
];

#[test]
fn general_position_cloud_matches_qhull_face_list() {
    let pts: Vec<f64> = CLOUD.iter().map(|&x| x as f64).collect();
    let h = convex_hull(&pts, None).unwrap();
    let want: [[usize; 3]; 14] = [
        [6, 3, 8],
        [4, 6, 7],
        [6, 4, 3],
        [0, 4, 7],
        [4, 0, 3],
        [3, 2, 8],
        [2, 0, 8],
        [0, 2, 3],
        [1, 6, 8],
        [0, 1, 8],
        [1, 10, 6],
        [10, 1, 0],
        [6, 10, 7],
        [10, 0, 7],
    ];
    assert_eq!(h.face, want);
    let polys = make_polygons(&pts, &h.face);
    let want_polys: [[usize; 3]; 14] = [
        [10, 0, 7],
        [10, 1, 0],
        [0, 4, 7],
        [0, 1, 8],
        [1, 6, 8],
        [0, 2, 3],
        [6, 10, 7],
        [1, 10, 6],
        [6, 3, 8],
        [4, 6, 7],
        [4, 0, 3],
        [2, 0, 8],
        [3, 2, 8],
        [6, 4, 3],
    ];
    let got: Vec<Vec<usize>> = want_polys.iter().map(|p| p.to_vec()).collect();
    assert_eq!(polys, got);
}

#[test]
fn tetrahedron_stl_matches_qhull_face_list() {
    // mjx/mujoco/mjx/test_data/convex.xml, mesh "tetrahedron", probed the same way.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/mjcf/corpus");
    let rel = "mjx/mujoco/mjx/test_data/meshes/tetrahedron.stl";
    let spec = MeshSpec { file: Some(rel.into()), scale: [0.4; 3], need_hull: true, ..Default::default() };
    let m = load_mesh(&spec, &dir).unwrap();
    let h = m.hull.as_ref().unwrap();
    assert_eq!(h.face, vec![[2, 3, 0], [1, 2, 0], [3, 1, 0], [1, 3, 2]]);
}

#[test]
fn general_position_cloud_graph_matches_mujoco() {
    // The same probe's `mesh_graph`: vertex order (qhull's vertex list: each new facet moves its
    // corners to the end) and each vertex's neighbour order (its facets in list order, their
    // corners in qhull's decreasing-id order).
    let pts: Vec<f64> = CLOUD.iter().map(|&x| x as f64).collect();
    let g = convex_hull(&pts, None).unwrap().graph();
    let (nv, nf) = (g[0] as usize, g[1] as usize);
    assert_eq!((nv, nf), (9, 14));
    assert_eq!(&g[2..2 + nv], &[0, 5, 9, 15, 21, 26, 31, 38, 46]);
    assert_eq!(&g[2 + nv..2 + 2 * nv], &[4, 2, 3, 8, 10, 1, 6, 0, 7]);
    let edges = [
        6, 8, 2, 7, -1, 2, 3, 7, -1, 6, 3, 0, 7, 1, -1, 6, 2, 1, 7, 5, -1, 5, 6, 7, 8, -1, 6, 3, 7, 4, -1, 2, 3, 0, 8,
        5, 4, -1, 0, 8, 2, 1, 3, 5, 4, -1, 0, 6, 7, 4, -1,
    ];
    assert_eq!(&g[2 + 2 * nv..2 + 3 * nv + 3 * nf], &edges);
}
