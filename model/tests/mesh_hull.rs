//! Convex hull: structure, robustness to interior/coplanar/duplicate points, graph format.

use specula_model::mesh::hull::{convex_hull, Hull};
use specula_model::mesh::mass;
use std::collections::HashSet;

/// Flat xyz array from points.
fn flat(p: &[[f64; 3]]) -> Vec<f64> {
    p.iter().flatten().copied().collect()
}

/// Checks closed-surface invariants: every directed edge has its reverse (manifold, consistent
/// orientation), Euler characteristic 2, all points on or below every face plane, outward faces.
fn check_hull(pts: &[f64], h: &Hull) {
    let mut edges = HashSet::new();
    for f in &h.face {
        for k in 0..3 {
            assert!(edges.insert((f[k], f[(k + 1) % 3])), "directed edge used twice");
        }
    }
    for &(a, b) in &edges {
        assert!(edges.contains(&(b, a)), "open edge {a}-{b}");
    }
    let (v, e, f) = (h.vert.len() as i64, edges.len() as i64 / 2, h.face.len() as i64);
    assert_eq!(v - e + f, 2, "Euler characteristic");
    let scale = pts.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let n = pts.len() / 3;
    // centroid of the hull vertices is strictly inside
    let mut c = [0.0; 3];
    for &i in &h.vert {
        for k in 0..3 {
            c[k] += pts[3 * i + k] / h.vert.len() as f64;
        }
    }
    for t in &h.face {
        let p = |i: usize| [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]];
        let (a, b, cc) = (p(t[0]), p(t[1]), p(t[2]));
        let nrm = mass::cross(&[b[0] - a[0], b[1] - a[1], b[2] - a[2]], &[cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]]);
        let len = mass::dot3(&nrm, &nrm).sqrt();
        assert!(len > 0.0, "degenerate hull face");
        let off = mass::dot3(&nrm, &a) / len;
        assert!(mass::dot3(&nrm, &c) / len - off < 0.0, "face not outward");
        for i in 0..n {
            let d = mass::dot3(&nrm, &p(i)) / len - off;
            assert!(d <= 1e-12 * scale, "point {i} outside the hull by {d}");
        }
    }
}

/// Volume enclosed by the hull triangles (signed pyramids from the origin).
fn hull_volume(pts: &[f64], h: &Hull) -> f64 {
    let faces: Vec<i32> = h.face.iter().flat_map(|f| f.map(|v| v as i32)).collect();
    let (fc, _) = mass::face_centroid(pts, &faces);
    mass::volume(pts, &faces, &fc, false).0
}

#[test]
fn tetrahedron() {
    let pts = flat(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    let h = convex_hull(&pts, None).unwrap();
    assert_eq!(h.vert, vec![0, 1, 2, 3]);
    assert_eq!(h.face.len(), 4);
    check_hull(&pts, &h);
    assert!((hull_volume(&pts, &h) - 1.0 / 6.0).abs() < 1e-15);
}

#[test]
fn cube_with_interior_coplanar_and_duplicate_points() {
    // Interior and surface points first, so they are met before the corners.
    let mut p = vec![
        [0.0, 0.0, 0.0],
        [0.3, -0.2, 0.1],
        [1.0, 0.0, 0.0],   // face centre
        [1.0, 0.5, -0.25], // on a face
        [1.0, 1.0, 0.0],   // edge midpoint
        [0.0, -1.0, 1.0],  // edge midpoint
    ];
    for x in [-1.0, 1.0] {
        for y in [-1.0, 1.0] {
            for z in [-1.0, 1.0] {
                p.push([x, y, z]);
            }
        }
    }
    p.push([1.0, 1.0, 1.0]); // duplicate corner
    p.push([-1.0, 0.0, 1.0]); // edge midpoint again, after the corners
    let pts = flat(&p);
    let h = convex_hull(&pts, None).unwrap();
    let corners: Vec<[f64; 3]> = h.vert.iter().map(|&i| p[i]).collect();
    assert_eq!(h.vert.len(), 8, "hull vertices {corners:?}");
    for c in &corners {
        assert!(c.iter().all(|x| x.abs() == 1.0), "non-corner {c:?} kept");
    }
    assert_eq!(h.face.len(), 12);
    check_hull(&pts, &h);
    assert!((hull_volume(&pts, &h) - 8.0).abs() < 1e-14);
}

#[test]
fn probed_graph_of_tetrahedron_with_extra_points() {
    // MuJoCo 4.0.0: vertex="0 0 0  1 0 0  0 1 0  0 0 1  1 1 1  .5 0 0  .2 .2 0" gives a graph
    // with numvert 5, numface 6, vert_globalid {0, 4, 2, 1, 3} (edge point 5 and face point 6
    // dropped), faces counter-clockwise from outside (probe: m.mesh_graph).
    let pts = flat(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
        [0.5, 0.0, 0.0],
        [0.2, 0.2, 0.0],
    ]);
    let h = convex_hull(&pts, None).unwrap();
    check_hull(&pts, &h);
    let g = h.graph();
    let (nv, nf) = (g[0] as usize, g[1] as usize);
    assert_eq!((nv, nf), (5, 6));
    assert_eq!(g.len(), 2 + 3 * nv + 6 * nf);
    let ids: HashSet<i32> = g[2 + nv..2 + 2 * nv].iter().copied().collect();
    assert_eq!(ids, HashSet::from([0, 1, 2, 3, 4]));
    // Each vertex's neighbour list ends at -1, starting at its vert_edgeadr.
    let edge = &g[2 + 2 * nv..2 + 3 * nv + 3 * nf];
    for i in 0..nv {
        let start = g[2 + i] as usize;
        let end = edge[start..].iter().position(|&x| x == -1).unwrap() + start;
        let list = &edge[start..end];
        assert!(list.iter().all(|&x| x >= 0 && (x as usize) < nv && x as usize != i));
        if i + 1 < nv {
            assert_eq!(g[2 + i + 1] as usize, end + 1);
        }
    }
    assert_eq!(edge.iter().filter(|&&x| x == -1).count(), nv);
}

#[test]
fn random_clouds() {
    let mut seed: u64 = 0x2545F4914F6CDD1D;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for case in 0..20 {
        let n = 10 + 30 * case;
        let mut p = Vec::new();
        for _ in 0..n {
            let v = [rnd(), rnd(), rnd()];
            // Half the clouds on a sphere (all points are corners), half in a ball.
            if case % 2 == 0 {
                let r = mass::dot3(&v, &v).sqrt();
                p.push([v[0] / r, v[1] / r, v[2] / r]);
            } else {
                p.push(v);
            }
        }
        let pts = flat(&p);
        let h = convex_hull(&pts, None).unwrap();
        check_hull(&pts, &h);
        if case % 2 == 0 {
            assert_eq!(h.vert.len(), n, "sphere points are all corners");
        }
    }
}

#[test]
fn grid_with_many_coplanar_points() {
    // 5x5x5 lattice: only the 8 cube corners are hull vertices.
    let mut p = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                p.push([i as f64 * 0.25, j as f64 * 0.25, k as f64 * 0.25]);
            }
        }
    }
    let pts = flat(&p);
    let h = convex_hull(&pts, None).unwrap();
    assert_eq!(h.vert.len(), 8);
    check_hull(&pts, &h);
    assert!((hull_volume(&pts, &h) - 1.0).abs() < 1e-14);
}

#[test]
fn flat_input_is_an_error() {
    let pts = flat(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]);
    assert!(convex_hull(&pts, None).is_err());
}

#[test]
fn maxhullvert_matches_qhull_order() {
    // 40 points on a spiral over the unit sphere (rounded to f32 as MuJoCo stores them).
    // Probed with MuJoCo 4.0.0, `<mesh maxhullvert="N" vertex=.../>`, sorted vert_globalid of
    // m.mesh_graph; qhull's `Q9 TA(N-4)` adds the farthest point over all facets each step.
    let mut p = Vec::new();
    for i in 0..40 {
        let t = i as f64 * 0.7;
        let z = i as f64 / 20.0 - 1.0;
        let r = (1.0 - z * z).max(0.0).sqrt();
        p.push([(r * t.cos()) as f32 as f64, (r * t.sin()) as f32 as f64, z as f32 as f64]);
    }
    let pts = flat(&p);
    let probes: [(usize, &[usize]); 5] = [
        (4, &[0, 16, 18, 22]),
        (5, &[0, 16, 18, 22, 39]),
        (6, &[0, 16, 18, 20, 22, 39]),
        (8, &[0, 16, 18, 20, 22, 33, 35, 39]),
        (10, &[0, 14, 16, 18, 20, 22, 28, 33, 35, 39]),
    ];
    for (n, want) in probes {
        let h = convex_hull(&pts, Some(n)).unwrap();
        assert_eq!(h.vert, want, "maxhullvert {n}");
        assert_eq!(h.face.len(), 2 * n - 4);
        check_hull_faces_only(&h);
    }
}

/// Manifold and Euler checks without the containment check (a limited hull leaves points out).
fn check_hull_faces_only(h: &Hull) {
    let mut edges = HashSet::new();
    for f in &h.face {
        for k in 0..3 {
            assert!(edges.insert((f[k], f[(k + 1) % 3])));
        }
    }
    assert!(edges.iter().all(|&(a, b)| edges.contains(&(b, a))));
    assert_eq!(h.vert.len() as i64 - edges.len() as i64 / 2 + h.face.len() as i64, 2);
}
