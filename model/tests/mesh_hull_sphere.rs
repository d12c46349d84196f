//! Hulls of closed sphere meshes whose every vertex is a hull corner (issue 16, item 4: the
//! replay of qhull's build was quadratic on them): specula's `mesh_graph` and polygon table must
//! be MuJoCo 4.0.0's, bit for bit, and claimed as qhull's order.
//!
//! The reference values are MuJoCo's own, taken once through the FFI (`mj_loadXML` on the same
//! mesh given inline, `vertex` written with Rust's shortest round-trip `f32` formatting, then
//! `mesh_graph`, `mesh_polyvert` and `mesh_polyvertnum` of the compiled model) and kept as a
//! 64-bit FNV-1a hash of each array with its length. `benches/load.rs` makes the same comparison
//! on a 200k-vertex sphere in every run.

use std::path::Path;

/// A UV sphere of radius 1: `rings` rings of `around` points between the poles, north pole
/// first, triangles counter-clockwise from outside (as `f32`, the precision MuJoCo reads).
fn uv_sphere(rings: usize, around: usize) -> (Vec<f32>, Vec<i32>) {
    let mut v = vec![[0.0f64, 0.0, 1.0]];
    for i in 0..rings {
        let th = std::f64::consts::PI * (i + 1) as f64 / (rings + 1) as f64;
        for j in 0..around {
            let ph = std::f64::consts::TAU * j as f64 / around as f64;
            v.push([th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()]);
        }
    }
    v.push([0.0, 0.0, -1.0]);
    let south = (rings * around + 1) as i32;
    let ring = |i: usize, j: usize| (1 + i * around + j % around) as i32;
    let mut f = Vec::new();
    for j in 0..around {
        f.extend([0, ring(0, j), ring(0, j + 1)]);
    }
    for i in 0..rings - 1 {
        for j in 0..around {
            let (a, b, c, d) = (ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1));
            f.extend([a, b, c, a, c, d]);
        }
    }
    for j in 0..around {
        f.extend([south, ring(rings - 1, j + 1), ring(rings - 1, j)]);
    }
    (v.iter().flat_map(|p| p.map(|x| x as f32)).collect(), f)
}

/// `n` points of a Fibonacci spiral on the unit sphere (general position: qhull merges nothing).
fn fibonacci_sphere(n: usize) -> Vec<f32> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .flat_map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let a = golden * i as f64;
            [r * a.cos(), r * a.sin(), z].map(|x| x as f32)
        })
        .collect()
}

/// 64-bit FNV-1a over the little-endian bytes of each value as an `i64`.
fn fnv(values: impl Iterator<Item = i64>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for v in values {
        for b in v.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// MuJoCo's arrays for one mesh, as (length, FNV-1a hash).
struct Reference {
    graph: (usize, u64),
    polyvert: (usize, u64),
    polyvertnum: (usize, u64),
}

/// Compiles one colliding mesh of these vertices (and faces) and checks its hull tables.
fn check_against_mujoco(vert: &[f32], face: &[i32], want: Reference) {
    let join = |v: Vec<String>| v.join(" ");
    let faces = if face.is_empty() {
        String::new()
    } else {
        format!(" face=\"{}\"", join(face.iter().map(|x| x.to_string()).collect()))
    };
    let xml = format!(
        "<mujoco><asset><mesh name=\"m\" vertex=\"{}\"{faces}/></asset>\
         <worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody></mujoco>",
        join(vert.iter().map(|x| format!("{x:?}")).collect())
    );
    let m = specula_model::load_str(&xml, Path::new("."), "sphere.xml").expect("compiles");
    assert_eq!(m.mesh_qhull_order, [true], "the hull is claimed as qhull's");
    let got = |v: &[i32]| (v.len(), fnv(v.iter().map(|&x| x as i64)));
    let nvert = vert.len() / 3;
    assert_eq!(m.mesh_graph[0] as usize, nvert, "every vertex is a hull corner");
    assert_eq!(got(&m.mesh_graph), want.graph, "mesh_graph");
    assert_eq!(got(&m.mesh_polyvert), want.polyvert, "mesh_polyvert");
    let polyvertnum: Vec<i32> = m.mesh_polyvertnum.iter().map(|&x| x as i32).collect();
    assert_eq!(got(&polyvertnum), want.polyvertnum, "mesh_polyvertnum");
}

#[test]
fn uv_sphere_of_1986_vertices_has_mujocos_hull() {
    // 31 rings of 64: each quad between two rings is flat, so qhull merges its two triangles
    // and `Qt` splits them again; 2,048 polygons (the quads and the polar fans' triangles).
    let (vert, face) = uv_sphere(31, 64);
    let want = Reference {
        graph: (29_768, 0x1355_df78_bfc3_f8d4),
        polyvert: (8_064, 0x6c48_c2db_f3fa_549d),
        polyvertnum: (2_048, 0x40a8_dcee_d85b_d185),
    };
    check_against_mujoco(&vert, &face, want);
}

#[test]
fn fibonacci_point_cloud_of_2000_vertices_has_mujocos_hull() {
    // No faces given: the hull's triangles are the mesh's faces.
    let want = Reference {
        graph: (29_978, 0xbc1f_e049_0e1e_3393),
        polyvert: (11_726, 0x495e_38d3_11b8_3a61),
        polyvertnum: (3_865, 0x9e38_6777_8620_63c1),
    };
    check_against_mujoco(&fibonacci_sphere(2000), &[], want);
}
