//! Hull face order and rotation as MuJoCo 4.0.0 stores them (qhull's facet list).
//!
//! Reference: Python `mujoco` 4.0.0, `m = mujoco.MjModel.from_xml_path(...)` on a model with one
//! `<mesh vertex="..."/>`, then `g = m.mesh_graph[m.mesh_graphadr[0]:]`, `nv, nf = g[0], g[1]`,
//! faces `g[2+3*nv+3*nf:2+3*nv+6*nf]`, and the polygons from `mesh_polyvertadr/num/polyvert`.
//! The 12 points are numpy's `default_rng(100).normal(size=(12, 3))` rounded to f32 (general
//! position: no facet merging in qhull). The two corpus meshes are skipped, saying so, without
//! the corpus.

mod common;

use specula_model::mesh::hull::convex_hull;
use specula_model::mesh::polygon::make_polygons;
use specula_model::mesh::{load_mesh, MeshSpec};

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
    let Some(dir) = common::corpus() else { return };
    let rel = "mjx/mujoco/mjx/test_data/meshes/tetrahedron.stl";
    let spec = MeshSpec { file: Some(rel.into()), scale: [0.4; 3], need_hull: true, ..Default::default() };
    let m = load_mesh(&spec, &dir).unwrap();
    let h = m.hull.as_ref().unwrap();
    assert_eq!(h.face, vec![[2, 3, 0], [1, 2, 0], [3, 1, 0], [1, 3, 2]]);
}

/// Hull faces and polygons of `pts` (f32 coordinates, as MuJoCo reads them).
fn faces_and_polygons(pts: &[f32]) -> (Vec<[usize; 3]>, Vec<Vec<usize>>) {
    let pts: Vec<f64> = pts.iter().map(|&x| x as f64).collect();
    let h = convex_hull(&pts, None).unwrap();
    let polys = make_polygons(&pts, &h.face);
    (h.face, polys)
}

// Flat facets: qhull merges each new facet that lies on a coplanar horizon into it and `Qt`
// triangulates the merged facets at the end of the list (fans from their newest vertex).
// References: Python mujoco 4.0.0 on `<mesh name="m" vertex="..."/>` with these points, read
// out as in the module docs.

#[test]
fn unit_cube_matches_qhull_face_list() {
    let cube =
        [-1., -1., -1., 1., -1., -1., 1., 1., -1., 1., 1., 1., 1., -1., 1., -1., 1., -1., -1., 1., 1., -1., -1., 1.];
    let (faces, polys) = faces_and_polygons(&cube);
    let want = [
        [3, 4, 2],
        [2, 4, 1],
        [5, 2, 1],
        [5, 1, 0],
        [4, 7, 1],
        [1, 7, 0],
        [6, 3, 2],
        [5, 6, 2],
        [6, 4, 3],
        [6, 7, 4],
        [6, 5, 0],
        [7, 6, 0],
    ];
    assert_eq!(faces, want);
    let want_polys = [[6, 5, 0, 7], [4, 3, 6, 7], [4, 7, 0, 1], [5, 2, 1, 0], [6, 3, 2, 5], [3, 4, 1, 2]];
    assert_eq!(polys, want_polys.map(|p| p.to_vec()));
}

#[test]
fn square_pyramid_matches_qhull_face_list() {
    // The first two x-extremes and the apex are collinear in (x, y), so qhull's initial
    // simplex scans all points for its third vertex.
    let pyr = [-0.2, -0.2, 0., 0.2, 0.2, 0., 0.2, -0.2, 0., -0.2, 0.2, 0., 0., 0., 0.4];
    let (faces, polys) = faces_and_polygons(&pyr);
    assert_eq!(faces, [[2, 4, 0], [4, 2, 1], [4, 3, 0], [3, 4, 1], [2, 3, 1], [3, 2, 0]]);
    let want_polys: [&[usize]; 5] = [&[3, 4, 1], &[4, 3, 0], &[4, 2, 1], &[3, 1, 2, 0], &[2, 4, 0]];
    assert_eq!(polys, want_polys.map(|p| p.to_vec()));
}

#[test]
fn hexagonal_prism_matches_qhull_face_list() {
    // Regular hexagon (cos, sin of k * 60 degrees, rounded to f32) at z = 0 and z = 1: the
    // hexagons are fans of 4 triangles whose ridges through the fan's apex make no triangle.
    let (c, s, e) = (0.5_f32, 0.866_025_4_f32, 1.224_646_9e-16_f32);
    let hex = [
        1., 0., 0., c, s, 0., -c, s, 0., -1., e, 0., -c, -s, 0., c, -s, 0., //
        1., 0., 1., c, s, 1., -c, s, 1., -1., e, 1., -c, -s, 1., c, -s, 1.,
    ];
    let (faces, polys) = faces_and_polygons(&hex);
    let want = [
        [4, 10, 3],
        [10, 9, 3],
        [1, 7, 0],
        [7, 6, 0],
        [11, 5, 0],
        [6, 11, 0],
        [5, 11, 4],
        [11, 10, 4],
        [5, 2, 0],
        [2, 4, 3],
        [2, 5, 4],
        [2, 1, 0],
        [10, 8, 9],
        [7, 8, 6],
        [8, 11, 6],
        [11, 8, 10],
        [9, 8, 3],
        [8, 2, 3],
        [8, 7, 1],
        [2, 8, 1],
    ];
    assert_eq!(faces, want);
    let want_polys: [&[usize]; 8] = [
        &[8, 7, 1, 2],
        &[9, 8, 2, 3],
        &[0, 5, 4, 3, 2, 1],
        &[5, 11, 10, 4],
        &[11, 5, 0, 6],
        &[8, 9, 10, 11, 6, 7],
        &[1, 7, 6, 0],
        &[4, 10, 9, 3],
    ];
    assert_eq!(polys, want_polys.map(|p| p.to_vec()));
}

#[test]
fn dodecahedron_stl_matches_qhull_face_list_and_polygons() {
    // mjx/mujoco/mjx/test_data/convex.xml, mesh "dodecahedron" (scale 0.04). The pentagon
    // (9, 8, 5, 0, 3) has triangle normals with azimuths of both signs around 0: rounded to
    // -0.0 and +0.0 they are one key for MuJoCo (14 polygons, not 16).
    let Some(dir) = common::corpus() else { return };
    let rel = "mjx/mujoco/mjx/test_data/meshes/dodecahedron.stl";
    let spec = MeshSpec { file: Some(rel.into()), scale: [0.04; 3], need_hull: true, ..Default::default() };
    let m = load_mesh(&spec, &dir).unwrap();
    let h = m.hull.as_ref().unwrap();
    let want: [[usize; 3]; 36] = [
        [13, 7, 5],
        [7, 1, 5],
        [4, 1, 11],
        [8, 9, 13],
        [8, 13, 5],
        [9, 8, 5],
        [3, 9, 5],
        [4, 3, 1],
        [9, 3, 15],
        [9, 17, 13],
        [6, 7, 11],
        [1, 6, 11],
        [7, 6, 1],
        [7, 18, 11],
        [17, 18, 13],
        [18, 17, 19],
        [4, 16, 15],
        [18, 16, 11],
        [16, 18, 19],
        [16, 17, 15],
        [17, 16, 19],
        [1, 0, 5],
        [0, 3, 5],
        [3, 0, 1],
        [2, 4, 15],
        [3, 2, 15],
        [2, 3, 4],
        [14, 9, 15],
        [17, 14, 15],
        [14, 17, 9],
        [12, 7, 13],
        [18, 12, 13],
        [12, 18, 7],
        [10, 4, 11],
        [16, 10, 11],
        [10, 16, 4],
    ];
    assert_eq!(h.face, want);
    let want_polys: [&[i32]; 14] = [
        &[15, 16, 19, 17, 14],
        &[16, 18, 19],
        &[14, 9, 15],
        &[9, 8, 5, 0, 3],
        &[18, 16, 10, 11],
        &[6, 7, 12, 18, 11],
        &[16, 15, 2, 4, 10],
        &[13, 17, 19, 18, 12],
        &[1, 4, 2, 3, 0],
        &[8, 9, 14, 17, 13],
        &[4, 1, 6, 11, 10],
        &[9, 3, 2, 15],
        &[5, 7, 6, 1, 0],
        &[7, 5, 8, 13, 12],
    ];
    assert_eq!(m.polygon, want_polys.map(|p| p.to_vec()));
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

/// The graph block's parts: vertex edge addresses, vertex ids, edge lists, faces.
fn graph_parts(g: &[i32]) -> (&[i32], &[i32], &[i32], &[i32]) {
    let (nv, nf) = (g[0] as usize, g[1] as usize);
    let e = 2 + 3 * nv + 3 * nf;
    (&g[2..2 + nv], &g[2 + nv..2 + 2 * nv], &g[2 + 2 * nv..e], &g[e..e + 3 * nf])
}

#[test]
fn unit_cube_graph_matches_mujoco() {
    // Full `mesh_graph` of Python mujoco 4.0.0 for the points of `unit_cube_matches_qhull_face_list`
    // (read out as in the module docs). qhull merges coplanar facets here, so it keeps each
    // vertex's facet set from the first merge on: the neighbour order records the merges and
    // the `Qt` fans (new triangles appended, the merged facets removed) instead of following
    // the final facet list, and the vertex list order records the merged facets' vertices.
    let cube =
        [-1., -1., -1., 1., -1., -1., 1., 1., -1., 1., 1., 1., 1., -1., 1., -1., 1., -1., -1., 1., 1., -1., -1., 1.];
    let pts: Vec<f64> = cube.iter().map(|&x: &f32| x as f64).collect();
    let g = convex_hull(&pts, None).unwrap().graph();
    assert_eq!(g[..2], [8, 12]);
    let (adr, ids, edges, faces) = graph_parts(&g);
    assert_eq!(adr, [0, 6, 10, 16, 22, 27, 32, 37]);
    assert_eq!(ids, [4, 3, 2, 1, 5, 0, 7, 6]);
    let want_edges = [
        1, 2, 3, 6, 7, -1, 0, 2, 7, -1, 0, 1, 3, 4, 7, -1, 0, 2, 4, 5, 6, -1, 2, 3, 5, 7, -1, 4, 3, 6, 7, -1, 0, 3, 5,
        7, -1, 1, 2, 4, 0, 6, 5, -1,
    ];
    assert_eq!(edges, want_edges);
    let want_faces =
        [3, 4, 2, 2, 4, 1, 5, 2, 1, 5, 1, 0, 4, 7, 1, 1, 7, 0, 6, 3, 2, 5, 6, 2, 6, 4, 3, 6, 7, 4, 6, 5, 0, 7, 6, 0];
    assert_eq!(faces, want_faces);
}

#[test]
fn square_pyramid_graph_matches_mujoco() {
    // Python mujoco 4.0.0's `mesh_graph` for the points of
    // `square_pyramid_matches_qhull_face_list` (one merge: the square base).
    let pyr = [-0.2, -0.2, 0., 0.2, 0.2, 0., 0.2, -0.2, 0., -0.2, 0.2, 0., 0., 0., 0.4];
    let pts: Vec<f64> = pyr.iter().map(|&x: &f32| x as f64).collect();
    let g = convex_hull(&pts, None).unwrap().graph();
    assert_eq!(g[..2], [5, 6]);
    let (adr, ids, edges, faces) = graph_parts(&g);
    assert_eq!(adr, [0, 5, 10, 15, 19]);
    assert_eq!(ids, [4, 3, 2, 1, 0]);
    assert_eq!(edges, [2, 4, 3, 1, -1, 0, 4, 3, 2, -1, 0, 4, 3, 1, -1, 0, 2, 1, -1, 0, 2, 1, -1]);
    assert_eq!(faces, [2, 4, 0, 4, 2, 1, 4, 3, 0, 3, 4, 1, 2, 3, 1, 3, 2, 0]);
}
