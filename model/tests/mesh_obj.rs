//! OBJ, STL and MSH readers.

use specula_model::mesh::{msh, obj, process_raw, stl, MeshSpec, RawMesh};

#[test]
fn obj_quads_negative_indices_and_first_shape() {
    // Probed with MuJoCo 4.0.0 (file loaded through <mesh file=...>, m.mesh_face,
    // m.mesh_facenormal, m.mesh_vertnum): a cube of quads in the first `o` shape, written with
    // v//vn corners and negative indices; the second shape's triangle is ignored while its
    // vertex is kept (9 vertices).
    let text = b"o first\nv -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\n\
v 1 1 1\nv -1 1 1\nvn 0 0 1\nvn 0 1 0\nf 1//1 4//1 3//1 2//1\nf 5//2 6//2 7//2 8//2\n\
f 1//1 2//1 6//1 5//1\nf -6//-1 -5//-1 -1//-1 -2//-1\nf 3//2 4//2 8//2 7//2\n\
f 1//1 5//1 8//1 4//1\no second\nv 5 5 5\nf 1//1 2//1 9//1\n";
    let o = obj::parse(text).unwrap();
    assert_eq!(o.vert.len(), 27);
    let want = [
        [0, 3, 1],
        [3, 2, 1],
        [4, 5, 7],
        [5, 6, 7],
        [0, 1, 4],
        [1, 5, 4],
        [2, 3, 6],
        [3, 7, 6],
        [2, 3, 6],
        [3, 7, 6],
        [0, 4, 3],
        [4, 7, 3],
    ];
    assert_eq!(o.face, want.iter().flatten().copied().collect::<Vec<i32>>());
    let fnrm: Vec<i32> = [0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0].iter().flat_map(|&n| [n; 3]).collect();
    assert_eq!(o.facenormal, fnrm);
    assert_eq!(o.normal, vec![0.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn obj_pentagon_with_reflex_corner() {
    // Probed: pentagon (0,0) (2,0) (2,2) (1,.5) (0,2) in z=0 -> mesh_face (1 2 3) (3 4 0) (0 1 3).
    let text = b"v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 0.5 0\nv 0 2 0\nv 1 1 1.5e0\nf 1 2 3 4 5\n";
    let o = obj::parse(text).unwrap();
    assert_eq!(o.face, vec![1, 2, 3, 3, 4, 0, 0, 1, 3]);
    assert_eq!(o.vert[17], 1.5);
}

#[test]
fn obj_numbers_and_forms() {
    let text = b"v 1e2 -.5 +3.25E-1\r\nv 1 2\nvt 0 0\nv 0 0 0\nf 1/1 2/1/1 3\n# comment\n\n";
    let o = obj::parse(text).unwrap();
    assert_eq!(&o.vert[..3], &[100.0, -0.5, 0.325]);
    assert_eq!(&o.vert[3..6], &[1.0, 2.0, 0.0], "missing coordinate defaults to 0");
    assert_eq!(o.face, vec![0, 1, 2]);
    assert!(o.facenormal.is_empty());
    // Index 0 is invalid; a point cloud has no faces.
    assert!(obj::parse(b"v 0 0 0\nf 0 1 2\n").is_err());
    assert!(obj::parse(b"v 0 0 0\nv 1 0 0\n").unwrap().face.is_empty());
}

/// A binary STL with the given triangles.
fn stl_bytes(tris: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&(tris.len() as u32).to_le_bytes());
    for t in tris {
        b.extend_from_slice(&[0u8; 12]);
        for v in t {
            for x in v {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        b.extend_from_slice(&[0u8; 2]);
    }
    b
}

#[test]
fn stl_dedup_by_bits_and_errors() {
    let a = [0.0, 0.0, 0.0];
    let bytes =
        stl_bytes(&[[a, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[-0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]]);
    let (vert, face) = stl::parse(&bytes).unwrap();
    // -0.0 is a different bit pattern: 4 distinct vertices.
    assert_eq!(vert.len(), 12);
    assert_eq!(face, vec![0, 1, 2, 3, 2, 1]);
    assert!(stl::parse(b"solid ascii\nfacet normal 0 0 1\n").is_err());
    let mut short = bytes.clone();
    short.pop();
    assert!(stl::parse(&short).is_err());
    assert!(stl::parse(&stl_bytes(&[[[2e9, 0.0, 0.0], a, a]])).is_err());
}

#[test]
fn msh_layout_and_flip() {
    let mut b = Vec::new();
    for n in [4i32, 0, 0, 1] {
        b.extend_from_slice(&n.to_le_bytes());
    }
    for x in [0f32, 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    for f in [0i32, 2, 1] {
        b.extend_from_slice(&f.to_le_bytes());
    }
    let m = msh::parse(&b, true).unwrap();
    assert_eq!(m.vert.len(), 12);
    assert_eq!(m.face, vec![0, 2, 1]);
    assert_eq!(msh::parse(&b, false).unwrap().face, vec![0, 1, 2]);
    assert!(msh::parse(&b[..b.len() - 1], true).is_err());
    assert!(msh::parse(&b[..8], true).is_err());
}

#[test]
fn garbage_never_panics() {
    // Deterministic pseudo-random bytes and mutated valid files through every reader.
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let base = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4 -1\nf 1/2/3 2//1 0\nvn 1 0 0\nl 1 2 3\no x\n";
    for _ in 0..2000 {
        let mut bytes = base.to_vec();
        let len = (next() % 120) as usize;
        for _ in 0..(next() % 8) {
            let at = (next() as usize) % bytes.len();
            bytes[at] = (next() % 256) as u8;
        }
        let alphabet = b"vf 0123456789-+./eE \n\r\t#golp";
        bytes.extend((0..len).map(|_| alphabet[(next() as usize) % alphabet.len()]));
        if let Ok(o) = obj::parse(&bytes) {
            let raw = RawMesh { vert: o.vert, normal: o.normal, face: o.face, facenormal: o.facenormal };
            let spec = MeshSpec { need_hull: true, ..Default::default() };
            let _ = process_raw(raw, &spec);
        }
        let _ = stl::parse(&bytes);
        let _ = msh::parse(&bytes, next() % 2 == 0);
    }
}
