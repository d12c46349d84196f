//! Hull polygons: coplanar hull triangles merged into faces with ordered vertex loops.
//!
//! MuJoCo stores these per mesh (`mesh_polyvert`, `mesh_polynormal`, `mesh_polymap`); specula's
//! [`ConvexHull`] keeps triangles, so the polygons are rebuilt here when a path needs them
//! (plane-vs-mesh contacts, flat multi-contact). Each loop runs counter-clockwise seen from
//! outside, i.e. around the outward normal by the right-hand rule, as MuJoCo's do.

use crate::math::{cross, dot3, normalize3, sub3};
use crate::narrowphase::ConvexHull;

/// Triangles whose unit normals agree to within this (1 - cos) are candidates for merging.
const COPLANAR_COS: f64 = 1e-10;

/// One polygonal face of a hull.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Polygon {
    /// Hull vertex indices, counter-clockwise about `normal`.
    pub verts: Vec<usize>,
    /// Outward unit normal in the hull frame.
    pub normal: [f64; 3],
}

/// Merge the hull's triangles into polygons.
pub(crate) fn hull_polygons(h: &ConvexHull) -> Vec<Polygon> {
    let nv = h.vert.len();
    if nv == 0 {
        return Vec::new();
    }
    // centroid of the vertices: a point strictly inside a non-degenerate hull
    let mut c = [0.0; 3];
    for v in &h.vert {
        c = [c[0] + v[0], c[1] + v[1], c[2] + v[2]];
    }
    let inv = 1.0 / nv as f64;
    c = [c[0] * inv, c[1] * inv, c[2] * inv];
    let scale = h.vert.iter().map(|v| dot3(&sub3(v, &c), &sub3(v, &c))).fold(0.0, f64::max).sqrt();
    let plane_tol = 1e-9 * scale.max(1e-300);

    // oriented triangles with their outward unit normals and plane offsets
    let mut tris: Vec<([usize; 3], [f64; 3], f64)> = Vec::new();
    for f in &h.face {
        let t = [f[0] as usize, f[1] as usize, f[2] as usize];
        if t.iter().any(|&i| i >= nv) {
            continue;
        }
        let (a, b, d) = (&h.vert[t[0]], &h.vert[t[1]], &h.vert[t[2]]);
        let mut n = cross(&sub3(b, a), &sub3(d, a));
        if dot3(&n, &n) == 0.0 {
            continue;
        }
        normalize3(&mut n);
        let mut t = t;
        if dot3(&n, &sub3(a, &c)) < 0.0 {
            n = [-n[0], -n[1], -n[2]];
            t.swap(1, 2);
        }
        tris.push((t, n, dot3(&n, a)));
    }

    // group coplanar triangles (same normal and offset)
    let mut group = vec![usize::MAX; tris.len()];
    let mut polys = Vec::new();
    for i in 0..tris.len() {
        if group[i] != usize::MAX {
            continue;
        }
        let g = polys.len();
        group[i] = g;
        let mut members = vec![i];
        for j in i + 1..tris.len() {
            if group[j] == usize::MAX
                && 1.0 - dot3(&tris[i].1, &tris[j].1) < COPLANAR_COS
                && (tris[i].2 - tris[j].2).abs() < plane_tol
            {
                group[j] = g;
                members.push(j);
            }
        }
        polys.push(boundary_loop(&tris, &members, tris[i].1));
    }
    polys.into_iter().flatten().collect()
}

/// Boundary loop of a set of coplanar, consistently wound triangles.
fn boundary_loop(tris: &[([usize; 3], [f64; 3], f64)], members: &[usize], normal: [f64; 3]) -> Option<Polygon> {
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for &m in members {
        let t = tris[m].0;
        for k in 0..3 {
            edges.push((t[k], t[(k + 1) % 3]));
        }
    }
    // interior edges appear once in each direction; the rest bound the polygon
    let boundary: Vec<(usize, usize)> = edges.iter().copied().filter(|&(a, b)| !edges.contains(&(b, a))).collect();
    let (start, mut cur) = *boundary.first()?;
    let mut verts = vec![start];
    while cur != start && verts.len() <= boundary.len() {
        verts.push(cur);
        cur = boundary.iter().find(|e| e.0 == cur)?.1;
    }
    if verts.len() < 3 {
        return None;
    }
    Some(Polygon { verts, normal })
}

/// Area of the quadrilateral `a, b, c, d`: half the norm of the cross product of its diagonals.
///
/// MuJoCo 3.12's pruning used a different expression that is not the area for general quads
/// (it ties a trapezoid with a rectangle in a regular hexagon); the choices MuJoCo 4.0.0 makes
/// for hexagonal and octagonal faces (see the plane-mesh tests) match the true area with ties
/// left unadvanced, which is what this gives.
pub(crate) fn area4(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], d: &[f64; 3]) -> f64 {
    let g = cross(&sub3(c, a), &sub3(d, b));
    0.5 * dot3(&g, &g).sqrt()
}

/// Indices of four vertices of a convex polygon (in loop order, at least four vertices) that
/// span a quadrilateral of maximal area.
///
/// Algorithm (rotating-calipers style, as MuJoCo's multi-contact pruning): keep a quad
/// `(a, b, c, d)`; for each `a`, advance `d` while the area grows, and after each step of `d`
/// advance `c` and then `b` while the area grows; finally keep the four pointers distinct.
pub(crate) fn polygon_quad(p: &[[f64; 3]]) -> [usize; 4] {
    let n = p.len();
    let next = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut best = [0, 1, 2, 3];
    let mut m = area4(&p[0], &p[1], &p[2], &p[3]);
    for a in 0..n {
        loop {
            let mn = area4(&p[a], &p[b], &p[c], &p[next(d)]);
            if mn <= m {
                break;
            }
            m = mn;
            d = next(d);
            best = [a, b, c, d];
            loop {
                let mn = area4(&p[a], &p[b], &p[next(c)], &p[d]);
                if mn <= m {
                    break;
                }
                m = mn;
                c = next(c);
                best = [a, b, c, d];
            }
            loop {
                let mn = area4(&p[a], &p[next(b)], &p[c], &p[d]);
                if mn <= m {
                    break;
                }
                m = mn;
                b = next(b);
                best = [a, b, c, d];
            }
        }
        if b == a {
            b = next(b);
            if c == b {
                c = next(c);
                if d == c {
                    d = next(d);
                }
            }
        }
    }
    best
}
