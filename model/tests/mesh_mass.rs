//! Mesh processing and mass properties against hand-derived values.

mod common;
use common::close_rel;

use specula_model::mesh::eig3::{eig3, quat2mat};
use specula_model::mesh::{process_raw, MeshError, MeshInertia, MeshSpec, RawMesh};
use specula_model::GeomType;

/// Box with half-sizes (a, b, c) as 8 vertices and 12 outward triangles.
fn box_mesh(a: f32, b: f32, c: f32) -> RawMesh {
    let mut vert = Vec::new();
    for x in [-a, a] {
        for y in [-b, b] {
            for z in [-c, c] {
                vert.extend_from_slice(&[x, y, z]);
            }
        }
    }
    // vertex index = 4*ix + 2*iy + iz
    let face = vec![
        0, 1, 3, 0, 3, 2, // x-
        4, 6, 7, 4, 7, 5, // x+
        0, 4, 5, 0, 5, 1, // y-
        2, 3, 7, 2, 7, 6, // y+
        0, 2, 6, 0, 6, 4, // z-
        1, 5, 7, 1, 7, 3, // z+
    ];
    RawMesh { vert, face, ..Default::default() }
}

#[test]
fn box_volume_inertia_frame() {
    // Half-sizes 0.5, 1, 2 (exact in float): volume 8abc = 8, unit-density principal moments
    // V(b^2+c^2)/3 = 40/3, V(a^2+c^2)/3 = 34/3, V(a^2+b^2)/3 = 10/3, already in decreasing order
    // along x, y, z, so no rotation; the inertia box equals the half-sizes.
    for inertia in [MeshInertia::Legacy, MeshInertia::Exact, MeshInertia::Convex] {
        let spec = MeshSpec { inertia, ..Default::default() };
        let m = process_raw(box_mesh(0.5, 1.0, 2.0), &spec).unwrap();
        assert!(close_rel(m.volume, 8.0, 1e-14), "{inertia:?}: volume {}", m.volume);
        assert!(close_rel(m.eigval[0], 40.0 / 3.0, 1e-14));
        assert!(close_rel(m.eigval[1], 34.0 / 3.0, 1e-14));
        assert!(close_rel(m.eigval[2], 10.0 / 3.0, 1e-14));
        assert_eq!(m.quat, [1.0, 0.0, 0.0, 0.0]);
        // The centre comes out as round-off (~1e-17) of the pyramid sums.
        assert!(m.pos.iter().all(|p| p.abs() < 1e-15), "{:?}", m.pos);
        for (s, e) in m.inertia_box.iter().zip([0.5, 1.0, 2.0]) {
            assert!(close_rel(*s, e, 1e-14));
        }
        let size = m.geom_size();
        assert!(size.iter().zip([0.5, 1.0, 2.0]).all(|(a, b)| close_rel(*a, b, 1e-14)), "{size:?}");
        let aabb = m.geom_aabb();
        let want = [0.0, 0.0, 0.0, 0.5, 1.0, 2.0];
        assert!(aabb.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-14), "{aabb:?}");
        assert!(close_rel(m.geom_rbound(), 5.25f64.sqrt(), 1e-14));
        let i = m.geom_inertia(8.0);
        assert!(close_rel(i[0], 40.0 / 3.0, 1e-14) && close_rel(i[2], 10.0 / 3.0, 1e-14));
    }
}

#[test]
fn box_is_rotated_into_decreasing_inertia_order() {
    // Half-sizes 2, 1, 0.5: the largest moment is about z, so the principal frame is rotated;
    // the processed vertices must again span +-0.5, +-1, +-2 along x, y, z.
    let m = process_raw(box_mesh(2.0, 1.0, 0.5), &MeshSpec::default()).unwrap();
    assert_ne!(m.quat, [1.0, 0.0, 0.0, 0.0]);
    let s = m.geom_size();
    for (a, e) in s.iter().zip([0.5, 1.0, 2.0]) {
        assert!(close_rel(*a, e, 1e-12), "size {s:?}");
    }
    // mesh_quat maps the principal frame to the input frame: R * x_principal = x_input.
    let r = quat2mat(&m.quat);
    let v = &m.vert[..3];
    let back = [0, 1, 2].map(|k| r[3 * k] * v[0] as f64 + r[3 * k + 1] * v[1] as f64 + r[3 * k + 2] * v[2] as f64);
    for (b, e) in back.iter().zip([-2.0, -1.0, -0.5]) {
        assert!((b - e).abs() < 1e-6, "{back:?}");
    }
}

#[test]
fn offset_scaled_box_centre_of_mass() {
    // refpos and scale: vertices (x - refpos) * scale; a box centred at (1, 2, 3) with
    // refpos (1, 0, 0) and scale 2 has its centre at (0, 4, 6).
    let mut raw = box_mesh(0.5, 1.0, 2.0);
    for v in raw.vert.chunks_exact_mut(3) {
        v[0] += 1.0;
        v[1] += 2.0;
        v[2] += 3.0;
    }
    let spec = MeshSpec { refpos: [1.0, 0.0, 0.0], scale: [2.0; 3], ..Default::default() };
    let m = process_raw(raw, &spec).unwrap();
    for (p, e) in m.pos.iter().zip([0.0, 4.0, 6.0]) {
        assert!((p - e).abs() < 1e-14, "{:?}", m.pos);
    }
    assert!(close_rel(m.volume, 64.0, 1e-14));
}

#[test]
fn shell_box_area_and_inertia() {
    // Hollow box of half-sizes 1, 1, 1: area 24; a face at distance 1 contributes about the
    // x axis: faces x+-: 2*4*(1/3+1/3) = 16/3; faces y+- and z+-: 4*4*(1/3 + 1) = 64/3
    // (side 2 plates: I = A(l^2/12 + d^2) per axis), total 80/3.
    let spec = MeshSpec { inertia: MeshInertia::Shell, ..Default::default() };
    let m = process_raw(box_mesh(1.0, 1.0, 1.0), &spec).unwrap();
    assert!(close_rel(m.volume_ref(), 24.0, 1e-14));
    assert_eq!(m.volume, 0.0);
    for e in m.eigval {
        assert!(close_rel(e, 80.0 / 3.0, 1e-13), "{:?}", m.eigval);
    }
}

#[test]
fn fit_geom_box_and_sphere() {
    let m = process_raw(box_mesh(0.5, 1.0, 2.0), &MeshSpec::default()).unwrap();
    let (size, center) = m.fit_geom(GeomType::Box, false, 1.0).unwrap();
    assert!(size.iter().zip([0.5, 1.0, 2.0]).all(|(a, b)| close_rel(*a, b, 1e-14)));
    assert_eq!(center, [0.0; 3]);
    let (size, _) = m.fit_geom(GeomType::Sphere, true, 2.0).unwrap();
    assert_eq!(size[0], 4.0);
    assert!(m.fit_geom(GeomType::Plane, true, 1.0).is_err());
}

#[test]
fn point_cloud_gets_hull_faces() {
    let raw = RawMesh { vert: box_mesh(1.0, 1.0, 1.0).vert, ..Default::default() };
    let m = process_raw(raw, &MeshSpec::default()).unwrap();
    assert_eq!(m.face.len(), 36);
    assert!(close_rel(m.volume, 8.0, 1e-14));
    let g = m.graph.as_ref().unwrap();
    assert_eq!((g[0], g[1]), (8, 12));
}

#[test]
fn hull_only_when_needed() {
    let m = process_raw(box_mesh(1.0, 1.0, 1.0), &MeshSpec::default()).unwrap();
    assert!(m.graph.is_none());
    let spec = MeshSpec { need_hull: true, ..Default::default() };
    assert!(process_raw(box_mesh(1.0, 1.0, 1.0), &spec).unwrap().graph.is_some());
}

#[test]
fn errors() {
    let spec = MeshSpec::default();
    let few = RawMesh { vert: vec![0.0; 9], ..Default::default() };
    assert!(matches!(process_raw(few, &spec), Err(MeshError::Invalid(_))));
    let flat = RawMesh { vert: vec![0., 0., 0., 1., 0., 0., 0., 1., 0., 1., 1., 0.], ..Default::default() };
    let e = process_raw(flat, &spec).unwrap_err();
    assert!(e.to_string().contains("coplanar"), "{e}");
    let mut bad = box_mesh(1.0, 1.0, 1.0);
    bad.face[0] = 99;
    assert!(process_raw(bad, &spec).is_err());
    let mut nan = box_mesh(1.0, 1.0, 1.0);
    nan.vert[4] = f32::NAN;
    assert!(process_raw(nan, &spec).unwrap_err().to_string().contains("not finite"));
    // A flipped triangle: legal for legacy, an error for exact.
    let mut flipped = box_mesh(1.0, 1.0, 1.0);
    flipped.face.swap(1, 2);
    let exact = MeshSpec { inertia: MeshInertia::Exact, ..Default::default() };
    assert!(process_raw(flipped.clone(), &spec).is_ok());
    assert!(process_raw(flipped, &exact).unwrap_err().to_string().contains("orientation"));
    // All faces inward: negative volume.
    let mut inside_out = box_mesh(1.0, 1.0, 1.0);
    for t in inside_out.face.chunks_exact_mut(3) {
        t.swap(1, 2);
    }
    assert!(process_raw(inside_out, &exact).unwrap_err().to_string().contains("negative"));
}

#[test]
fn eig3_sorts_and_rotates() {
    // diag(1, 3, 2): sorted to (3, 2, 1); the frame's columns are the matching unit axes.
    let e = eig3(&[1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0]);
    assert_eq!(e.val, [3.0, 2.0, 1.0]);
    for (col, axis) in [(0, 1), (1, 2), (2, 0)] {
        assert!((e.vec[3 * axis + col].abs() - 1.0).abs() < 1e-12, "{:?}", e.vec);
    }
    // [[2, 1, 0], [1, 2, 0], [0, 0, 5]]: eigenvalues 5, 3, 1.
    let e = eig3(&[2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 5.0]);
    for (v, x) in e.val.iter().zip([5.0, 3.0, 1.0]) {
        assert!((v - x).abs() < 1e-12, "{:?}", e.val);
    }
}

#[test]
fn eig3_relative_tolerance_matches_mujoco_4() {
    // Cube of half-size 1 with scale (1 + d, 1, 1): the x moment is the smallest, by a relative
    // 2d/(2 + 2d) ~ d. Probed with MuJoCo 4.0.0 (mesh_quat, body_inertia at density 1):
    // d = 1e-7 keeps the identity frame (moments 5.333333866666667, 5.33333440000008, same),
    // d = 1.02e-7 sorts them, mesh_quat = (0.5, 0.5, 0.5, 0.5). So ties are decided with a
    // relative tolerance of 1e-7 times the largest diagonal entry, not MuJoCo's older 1e-12.
    let cube: Vec<f32> = [-1.0f32, 1.0]
        .iter()
        .flat_map(|&x| [-1.0f32, 1.0].iter().flat_map(move |&y| [-1.0f32, 1.0].map(|z| [x, y, z])))
        .flatten()
        .collect();
    let run = |d: f64| {
        let spec = MeshSpec { scale: [1.0 + d, 1.0, 1.0], ..Default::default() };
        process_raw(RawMesh { vert: cube.clone(), ..Default::default() }, &spec).unwrap()
    };
    let m = run(1e-7);
    assert_eq!(m.quat, [1.0, 0.0, 0.0, 0.0]);
    let i = m.geom_inertia(m.volume);
    assert!(close_rel(i[0], 5.333333866666667, 1e-15) && close_rel(i[1], 5.33333440000008, 1e-15), "{i:?}");
    let m = run(1.02e-7);
    let w = 0.5000000000000007;
    assert_eq!(m.quat, [w, w, w, w]);
}

#[test]
fn mesh_frame_of_an_irregular_cloud_is_mujocos_to_the_bit() {
    // The 8-point mesh of tests/narrowphase_oracle.rs. Probed with MuJoCo 4.0.0's Python
    // bindings (`m.mesh_quat[0]`): the Jacobi rotations' half-angles come from their tangent;
    // the older `sqrt(0.5 - 0.5 cos)` (the source snapshot's) left this frame 1.9e-12 off, which
    // rotated the hull polygons' normals by as much and flipped near-ties in multi-contact.
    let xml = r#"<mujoco><asset><mesh name="poly" vertex="0.2 0 0  -0.15 0.1 0.05  0 -0.18 0.1
        0 0.05 -0.2  0.1 0.12 0.15  -0.1 -0.1 -0.1  0.05 0.2 -0.05  -0.2 0.02 0.12"/></asset>
        <worldbody><body><freejoint/><geom type="mesh" mesh="poly"/></body></worldbody></mujoco>"#;
    let m = specula_model::load_str(xml, std::path::Path::new("."), "cloud.xml").unwrap();
    let want = [0.13587192229863926, 0.4903864427814973, 0.641339185261819, 0.5742334080447523];
    assert_eq!(m.mesh_quat[0], want);
    assert_eq!(m.body_iquat[1], want);
    // independently: the frame diagonalises the mesh's inertia (the body's, at density 1000)
    let r = specula_model::mesh::eig3::quat2mat(&want);
    let i = m.body_inertia[1];
    let full: Vec<f64> =
        (0..9).map(|k| (0..3).map(|j| r[3 * (k / 3) + j] * i[j] * r[3 * (k % 3) + j]).sum::<f64>()).collect();
    let back = specula_model::mesh::eig3::eig3(&full.try_into().unwrap());
    for (a, b) in back.val.iter().zip(i) {
        assert!((a - b).abs() < 1e-13 * b, "{:?} vs {:?}", back.val, i);
    }
}
