//! Shared fixtures for the convex narrowphase tests (geoms, the probe's cube hull, checks).

use specula_engine::narrowphase::convex::collide_convex;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, ConvexHull, Geom, GeomType, MAX_CONTACTS};

/// Identity rotation.
pub const I3: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// `euler="10 20 30"` as MuJoCo composes it.
pub const R102030: [f64; 9] = [
    0.8137976813493737,
    -0.46984631039295416,
    0.3420201433256686,
    0.5438381424823255,
    0.8231729446455008,
    -0.1631759111665348,
    -0.2048741287028621,
    0.3187957775971678,
    0.9254165783983233,
];
/// `euler="0 0 30"`.
pub const RZ30: [f64; 9] =
    [0.8660254037844387, -0.49999999999999994, 0.0, 0.49999999999999994, 0.8660254037844387, 0.0, 0.0, 0.0, 1.0];

/// The cube's vertices in MJCF (and `mesh_vert`) order.
pub const CUBE_MESH: [[f64; 3]; 8] = [
    [-0.5, -0.5, -0.5],
    [0.5, -0.5, -0.5],
    [-0.5, 0.5, -0.5],
    [0.5, 0.5, -0.5],
    [-0.5, -0.5, 0.5],
    [0.5, -0.5, 0.5],
    [-0.5, 0.5, 0.5],
    [0.5, 0.5, 0.5],
];

/// Unit cube hull for
/// `<mesh vertex="-.5 -.5 -.5  .5 -.5 -.5  -.5 .5 -.5  .5 .5 -.5  -.5 -.5 .5  .5 -.5 .5  -.5 .5 .5  .5 .5 .5"/>`,
/// in mesh-vertex order (MuJoCo scans `mesh_vert` in that order for hulls under 10 vertices,
/// which decides ties), with the adjacency and triangles of MuJoCo's `mesh_graph` (whose own
/// vertex order is [3,2,0,1,5,4,7,6]; its face list already uses mesh vertex ids).
pub fn cube_hull() -> ConvexHull {
    let global = [3usize, 2, 0, 1, 5, 4, 7, 6];
    let graph_adj: [&[usize]; 8] = [
        &[1, 2, 3, 4, 6, 7],
        &[0, 2, 7],
        &[0, 1, 3, 4, 5, 7],
        &[0, 2, 4],
        &[3, 2, 5, 0, 6, 7],
        &[4, 2, 7],
        &[4, 0, 7],
        &[1, 2, 5, 0, 6, 4],
    ];
    let mut adjacency = vec![Vec::new(); 8];
    for (l, nb) in graph_adj.iter().enumerate() {
        adjacency[global[l]] = nb.iter().map(|&x| global[x] as u32).collect();
    }
    let f: [u32; 36] =
        [2, 3, 0, 3, 1, 0, 1, 5, 0, 5, 4, 0, 3, 5, 1, 5, 3, 7, 6, 2, 0, 4, 6, 0, 6, 3, 2, 3, 6, 7, 5, 6, 4, 6, 5, 7];
    ConvexHull {
        vert: CUBE_MESH.to_vec(),
        adjacency,
        face: f.chunks(3).map(|c| [c[0], c[1], c[2]]).collect(),
        polygons: None,
        mesh_id: Vec::new(),
        mesh_nvert: 0,
        nhull: 0,
    }
}

/// Vertex neighbours from triangles, in order of first appearance.
pub fn adjacency_of(n: usize, face: &[[u32; 3]]) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); n];
    for f in face {
        for k in 0..3 {
            let (a, b) = (f[k], f[(k + 1) % 3]);
            if !adj[a as usize].contains(&b) {
                adj[a as usize].push(b);
            }
            if !adj[b as usize].contains(&a) {
                adj[b as usize].push(a);
            }
        }
    }
    adj
}

/// A geom of the given type and pose.
pub fn geom<'a>(
    ty: GeomType,
    size: [f64; 3],
    pos: [f64; 3],
    mat: [f64; 9],
    rbound: f64,
    hull: Option<&'a ConvexHull>,
) -> Geom<'a> {
    Geom { ty, size, pos, mat, rbound, hull, hfield: None }
}

/// The unit mesh cube at a pose.
pub fn cube(pos: [f64; 3], mat: [f64; 9], hull: &ConvexHull) -> Geom<'_> {
    geom(GeomType::Mesh, [0.5; 3], pos, mat, 0.8660254037844386, Some(hull))
}

/// Element-wise equality within `tol`.
pub fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// Run `collide_convex` into a fresh buffer and return the contacts.
pub fn collide(g1: &Geom, g2: &Geom, margin: f64, opt: &CollideOptions) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = collide_convex(g1, g2, margin, opt, &mut out);
    out[..n].to_vec()
}

/// MuJoCo 4.0.0 default collision options.
pub fn mj_opt() -> CollideOptions {
    // MuJoCo 4.0.0 defaults: multi-contact is on unless mjDSBL_MULTICCD is set
    CollideOptions { multiccd: true, ..CollideOptions::default() }
}

/// Assert one contact's distance, position and normal within `tol`.
pub fn check_contact(c: &ContactPoint, dist: f64, pos: [f64; 3], normal: [f64; 3], tol: f64) {
    assert!((c.dist - dist).abs() <= tol, "dist {} vs {}", c.dist, dist);
    assert!(close(&c.pos, &pos, tol), "pos {:?} vs {:?}", c.pos, pos);
    assert!(close(&c.frame[..3], &normal, tol), "normal {:?} vs {:?}", &c.frame[..3], normal);
}
