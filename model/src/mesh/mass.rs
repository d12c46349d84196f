//! Mass properties of a triangle mesh: surface centroid, volume, centre of mass, inertia.
//!
//! Algorithm (MuJoCo's union-of-pyramids, O'Rourke, Computational Geometry in C, 1.3.8):
//! 1. `facecen`: area-weighted mean of the triangle centroids (the centroid of the surface).
//! 2. Join every triangle to `facecen` to form a pyramid with signed volume
//!    `dot(center - facecen, n) * area / 3` (n the unit normal). Its centroid is
//!    `3/4 center + 1/4 facecen`. Summing gives the volume and centre of mass. The `legacy`
//!    option takes the absolute value of each pyramid (over-counts concave meshes); `shell`
//!    weights each triangle by its area instead, giving a surface with uniform density.
//! 3. With the vertices shifted so the centre of mass is at the origin, each tetrahedron
//!    (origin, D, E, F) of volume V contributes to the second moments
//!    `P_ab += V/20 * (2 (D_a D_b + E_a E_b + F_a F_b) + D_a E_b + D_b E_a + ...)`
//!    (the divisor is 12 for a shell triangle weighted by its area); the inertia tensor is
//!    then `I_xx = P_yy + P_zz`, `I_xy = -P_xy`, etc.
//!
//! The sums run in face order with MuJoCo's operation order so that the results agree to the
//! last bits (they are not exactly independent of order, but differ only by rounding).

use super::MeshInertia;

/// MuJoCo's `mjMINVAL`: the smallest value accepted in a denominator.
pub const MJ_MINVAL: f64 = 1e-15;

/// Area of the triangle (v1, v2, v3); with `normal`/`center` also its unit normal and centroid.
///
/// Triangles with a cross-product norm below [`MJ_MINVAL`] have area 0 (and an unnormalized
/// normal).
pub fn triangle(
    normal: Option<&mut [f64; 3]>,
    center: Option<&mut [f64; 3]>,
    v1: &[f64],
    v2: &[f64],
    v3: &[f64],
) -> f64 {
    if let Some(c) = center {
        for k in 0..3 {
            c[k] = (v1[k] + v2[k] + v3[k]) / 3.0;
        }
    }
    let b = [v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]];
    let c = [v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2]];
    let n = cross(&b, &c);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if let Some(out) = normal {
        *out = n;
        if len >= MJ_MINVAL {
            for v in out.iter_mut() {
                *v /= len;
            }
        }
    }
    if len < MJ_MINVAL {
        return 0.0;
    }
    0.5 * len
}

/// Cross product `b x c`.
pub fn cross(b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    [b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]]
}

/// Dot product of two 3-vectors.
pub fn dot3(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The three vertices of face `f` of `faces` as slices into `vert` (xyz triples).
fn corners<'a>(vert: &'a [f64], faces: &[i32], f: usize) -> [&'a [f64]; 3] {
    let at = |i: usize| {
        let v = faces[3 * f + i] as usize;
        &vert[3 * v..3 * v + 3]
    };
    [at(0), at(1), at(2)]
}

/// Area-weighted centroid of the faces (`facecen`) and the total area.
pub fn face_centroid(vert: &[f64], faces: &[i32]) -> ([f64; 3], f64) {
    let mut cen = [0.0; 3];
    let mut total = 0.0;
    for f in 0..faces.len() / 3 {
        let [a, b, c] = corners(vert, faces, f);
        let mut center = [0.0; 3];
        let area = triangle(None, Some(&mut center), a, b, c);
        for k in 0..3 {
            cen[k] += area * center[k];
        }
        total += area;
    }
    if total >= MJ_MINVAL {
        for v in cen.iter_mut() {
            *v /= total;
        }
    }
    (cen, total)
}

/// Signed volume of the pyramids from `facecen` and their centre of mass.
///
/// `legacy` makes every pyramid count positively.
pub fn volume(vert: &[f64], faces: &[i32], facecen: &[f64; 3], legacy: bool) -> (f64, [f64; 3]) {
    let mut com = [0.0; 3];
    let mut total = 0.0;
    for f in 0..faces.len() / 3 {
        let [a, b, c] = corners(vert, faces, f);
        let mut normal = [0.0; 3];
        let mut center = [0.0; 3];
        let area = triangle(Some(&mut normal), Some(&mut center), a, b, c);
        let vec = [center[0] - facecen[0], center[1] - facecen[1], center[2] - facecen[2]];
        let mut vol = dot3(&vec, &normal) * area / 3.0;
        if legacy {
            vol = vol.abs();
        }
        total += vol;
        for k in 0..3 {
            com[k] += vol * (center[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if total >= MJ_MINVAL {
        for v in com.iter_mut() {
            *v /= total;
        }
    }
    (total, com)
}

/// Surface area and the centre of mass of the surface (uniform surface density).
pub fn surface(vert: &[f64], faces: &[i32], facecen: &[f64; 3]) -> (f64, [f64; 3]) {
    let mut com = [0.0; 3];
    let mut total = 0.0;
    for f in 0..faces.len() / 3 {
        let [a, b, c] = corners(vert, faces, f);
        let mut center = [0.0; 3];
        let area = triangle(None, Some(&mut center), a, b, c);
        total += area;
        for k in 0..3 {
            com[k] += area * (center[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if total >= MJ_MINVAL {
        for v in com.iter_mut() {
            *v /= total;
        }
    }
    (total, com)
}

/// Unit-density inertia about `com` as `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`, and the recomputed
/// volume (or area for a shell).
pub fn inertia(vert: &[f64], faces: &[i32], com: &[f64; 3], kind: MeshInertia) -> ([f64; 6], f64) {
    let centered: Vec<f64> = vert.chunks_exact(3).flat_map(|v| [v[0] - com[0], v[1] - com[1], v[2] - com[2]]).collect();
    const K: [[usize; 2]; 6] = [[0, 0], [1, 1], [2, 2], [0, 1], [0, 2], [1, 2]];
    let mut p = [0.0; 6];
    let mut total = 0.0;
    let shell = kind == MeshInertia::Shell;
    let divisor = if shell { 12.0 } else { 20.0 };
    for f in 0..faces.len() / 3 {
        let [d, e, ff] = corners(&centered, faces, f);
        let mut normal = [0.0; 3];
        let mut center = [0.0; 3];
        let area = triangle(Some(&mut normal), Some(&mut center), d, e, ff);
        let mut vol = if shell { area } else { dot3(&center, &normal) * area / 3.0 };
        if kind == MeshInertia::Legacy {
            vol = vol.abs();
        }
        total += vol;
        for (j, &[a, b]) in K.iter().enumerate() {
            p[j] += vol / divisor
                * (2.0 * (d[a] * d[b] + e[a] * e[b] + ff[a] * ff[b])
                    + d[a] * e[b]
                    + d[b] * e[a]
                    + d[a] * ff[b]
                    + d[b] * ff[a]
                    + e[a] * ff[b]
                    + e[b] * ff[a]);
        }
    }
    ([p[1] + p[2], p[0] + p[2], p[0] + p[1], -p[3], -p[4], -p[5]], total)
}
