//! Building a `CollisionModel` from specula's compiled `Model` and from raw `mesh_graph` data.

use specula_engine::collision::model::hull_from_graph;
use specula_engine::collision::{CollisionModel, CollisionStage, State};
use std::path::Path;

#[test]
fn derived_fields_match_mujoco() {
    // MuJoCo 4.0.0 on this MJCF (mujoco.MjModel.from_xml_string): body_bvhadr [0 -1 1],
    // flg_surfacevel 1, body_margin [0 0 0.03], body_contype [1 0 3], body_conaffinity [1 0 5].
    let xml = r#"<mujoco><worldbody>
      <geom type="plane" size="1 1 .1"/>
      <body><freejoint/><geom type="sphere" size=".1" contype="0" conaffinity="0"/></body>
      <body pos="0 0 1"><freejoint/>
        <geom type="sphere" size=".1" margin="0.01" gap="0.02"/>
        <geom type="box" size=".1 .1 .1" surfacevel="0 1 0 0 0 0" contype="2" conaffinity="4"/>
      </body>
    </worldbody></mujoco>"#;
    let model = specula_model::load_str(xml, Path::new("."), "inline").expect("compiles");
    let m = CollisionModel::from(&model);
    m.validate().expect("consistent");
    assert_eq!(m.body_bvhadr, vec![0, -1, 1]);
    // one node for the world's plane, three for the two-geom body (root and two leaves)
    assert_eq!(m.body_bvhnum, vec![1, 0, 3]);
    assert!(m.flg_surfacevel);
    assert_eq!(m.body_contype, vec![1, 0, 3]);
    assert_eq!(m.body_conaffinity, vec![1, 0, 5]);
    assert!((m.body_margin[2] - 0.03).abs() < 1e-15);
    assert_eq!(m.nflex, 0);

    // and it runs: the free sphere has no collidable geom, the upper body is out of reach
    let xpos = vec![[0.0; 3], [0.0; 3], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]];
    let xmat = vec![[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]; 4];
    let mut out = Vec::new();
    CollisionStage::new().collide(&m, &State::new(&xpos, &xmat), &mut out).expect("collide");
    assert!(out.is_empty());
}

#[test]
fn hull_from_graph_reads_mujocos_layout() {
    // a tetrahedron: 4 hull vertices (graph order = mesh vertices 3, 0, 1, 2), each adjacent
    // to the other three, 4 faces; layout numvert, numface, vert_edgeadr[4], vert_globalid[4],
    // edge_localid[4 + 3*4], face_globalid[3*4]
    let verts: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut graph = vec![4, 4, 0, 4, 8, 12, 3, 0, 1, 2];
    graph.extend([1, 2, 3, -1, 0, 2, 3, -1, 0, 1, 3, -1, 0, 1, 2, -1]);
    graph.extend([0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3]);
    let h = hull_from_graph(&verts, 0, 4, &graph, 0).expect("valid graph");
    assert_eq!(h.vert, vec![[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    assert_eq!(h.adjacency[2], vec![0, 1, 3]);
    // each hull vertex keeps its mesh vertex id (the exhaustive support search runs in that order)
    assert_eq!(h.mesh_id, vec![3, 0, 1, 2]);
    // faces are stored in hull-vertex ids: mesh vertices 1, 2, 3 are hull vertices 2, 3, 0
    assert_eq!(h.face[3], [2, 3, 0]);
    // no graph: every mesh vertex, no adjacency
    let all = hull_from_graph(&verts, 0, 4, &[], -1).expect("plain vertices");
    assert_eq!(all.vert.len(), 4);
    assert!(all.adjacency.is_empty());
    // truncated graph: None, not a panic
    assert!(hull_from_graph(&verts, 0, 4, &graph[..12], 0).is_none());
}

#[test]
fn small_meshes_keep_their_off_hull_vertices_after_the_corners() {
    // the tetrahedron above with a fifth mesh vertex (id 1) at the middle of the edge between
    // mesh vertices 0 and 2: the graph lists the four corners only
    let verts: Vec<[f32; 3]> =
        vec![[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut graph = vec![4, 4, 0, 4, 8, 12, 4, 0, 2, 3];
    graph.extend([1, 2, 3, -1, 0, 2, 3, -1, 0, 1, 3, -1, 0, 1, 2, -1]);
    graph.extend([0, 2, 3, 0, 2, 4, 0, 3, 4, 2, 3, 4]);
    let h = hull_from_graph(&verts, 0, 5, &graph, 0).expect("valid graph");
    assert_eq!(h.nhull, 4);
    assert_eq!(h.corners().len(), 4);
    assert_eq!(h.vert[4], [0.5, 0.0, 0.0]);
    assert_eq!(h.mesh_id, vec![4, 0, 2, 3, 1]);
    assert!(h.adjacency[4].is_empty(), "an off-hull vertex has no hull neighbours");
    // a mesh of 10 or more vertices is hill-climbed on its graph: no extra vertices
    let mut many = verts.clone();
    many.extend(std::iter::repeat_n([0.1f32, 0.1, 0.1], 5));
    let climbed = hull_from_graph(&many, 0, 10, &graph, 0).expect("valid graph");
    assert_eq!((climbed.vert.len(), climbed.nhull), (4, 0));
}
