use specula_engine::narrowphase::convex::collide_convex;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, ConvexHull, Geom, GeomType, MAX_CONTACTS};
#[test]
fn dbg() {
    let mesh = [
        [-0.5, -0.5, -0.5],
        [0.5, -0.5, -0.5],
        [-0.5, 0.5, -0.5],
        [0.5, 0.5, -0.5],
        [-0.5, -0.5, 0.5],
        [0.5, -0.5, 0.5],
        [-0.5, 0.5, 0.5],
        [0.5, 0.5, 0.5],
    ];
    let f: [u32; 36] =
        [2, 3, 0, 3, 1, 0, 1, 5, 0, 5, 4, 0, 3, 5, 1, 5, 3, 7, 6, 2, 0, 4, 6, 0, 6, 3, 2, 3, 6, 7, 5, 6, 4, 6, 5, 7];
    let h =
        ConvexHull { vert: mesh.to_vec(), adjacency: vec![], face: f.chunks(3).map(|c| [c[0], c[1], c[2]]).collect() };
    let i3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let b =
        Geom { ty: GeomType::Mesh, size: [0.5; 3], pos: [0.0; 3], mat: i3, rbound: 0.8660254037844386, hull: Some(&h) };
    let m = [2.220446049250313e-16, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 2.220446049250313e-16];
    let c =
        Geom { ty: GeomType::Capsule, size: [0.1, 0.3, 0.0], pos: [0.1, 0.2, 0.59], mat: m, rbound: 0.4, hull: None };
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = collide_convex(&c, &b, 0.0, &CollideOptions { multiccd: true, ..Default::default() }, &mut out);
    for c in &out[..n] {
        println!("{:?} {:?} {:?}", c.dist, c.pos, &c.frame[..3]);
    }
    let m =
        [0.9848077530122081, -0.17364817766693033, 0.0, 0.17364817766693033, 0.9848077530122081, 0.0, 0.0, 0.0, 1.0];
    let c = Geom {
        ty: GeomType::Cylinder,
        size: [0.2, 0.1, 0.0],
        pos: [0.1, 0.2, 0.59],
        mat: m,
        rbound: 0.223606797749979,
        hull: None,
    };
    let n = collide_convex(&c, &b, 0.0, &CollideOptions { multiccd: true, ..Default::default() }, &mut out);
    println!("--");
    for c in &out[..n] {
        println!("{:?} {:?} {:?}", c.dist, c.pos, &c.frame[..3]);
    }
}
