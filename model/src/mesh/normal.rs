//! Vertex normals (`mesh_normal`), generated or user-given, and their transformation.
//!
//! MuJoCo stores normals as `float` and updates them in a mix of `float` and `double`
//! arithmetic; each step below says which, because the stored bits depend on it.

use super::eig3::normvec;
use super::mass::{cross, dot3, MJ_MINVAL};

/// Generates per-vertex normals for `face` over `vert` (before any transformation).
///
/// Each vertex accumulates its faces' unit normals weighted by area (in `float`). Unless
/// `smooth`, contributions of faces at a large angle (cosine below 0.8) to the accumulated
/// normal are removed afterwards, so cube-like edges stay sharp. Returns the normals and
/// `facenormal` (equal to `face`).
pub fn make_normals(vert: &[f64], face: &[i32], smooth: bool) -> (Vec<f32>, Vec<i32>) {
    let nvert = vert.len() / 3;
    let mut normal = vec![0f32; 3 * nvert];
    let mut facenormal = vec![0i32; face.len()];
    let unit_and_area = |f: &[i32]| {
        let v = |i: usize| {
            let k = 3 * f[i] as usize;
            [vert[k], vert[k + 1], vert[k + 2]]
        };
        let (a, b, c) = (v(0), v(1), v(2));
        let e01 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e02 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let mut n = cross(&e01, &e02);
        let area = normvec(&mut n);
        (n, area)
    };
    for (i, f) in face.chunks_exact(3).enumerate() {
        let (n, area) = unit_and_area(f);
        for j in 0..3 {
            let v = f[j] as usize;
            for k in 0..3 {
                normal[3 * v + k] = (normal[3 * v + k] as f64 + n[k] * area) as f32;
            }
            facenormal[3 * i + j] = f[j];
        }
    }
    if !smooth {
        let mut remove = vec![0f32; 3 * nvert];
        for f in face.chunks_exact(3) {
            let (n, area) = unit_and_area(f);
            for &fv in f {
                let v = fv as usize;
                let mut vn = [normal[3 * v] as f64, normal[3 * v + 1] as f64, normal[3 * v + 2] as f64];
                normvec(&mut vn);
                if dot3(&n, &vn) < 0.8 {
                    for k in 0..3 {
                        remove[3 * v + k] = (remove[3 * v + k] as f64 + n[k] * area) as f32;
                    }
                }
            }
        }
        for (n, r) in normal.iter_mut().zip(&remove) {
            *n -= *r;
        }
    }
    for n in normal.chunks_exact_mut(3) {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if len as f64 > MJ_MINVAL {
            for x in n.iter_mut() {
                *x /= len;
            }
        } else {
            n.copy_from_slice(&[0.0, 0.0, 1.0]);
        }
    }
    (normal, facenormal)
}

/// Applies the user transform to normals: rotation by `mat` (transposed, as the vertices),
/// division by `scale` (normals are covectors), then renormalization in `float`.
pub fn transform_normals(normal: &mut [f32], mat: Option<&[f64; 9]>, scale: &[f64; 3]) {
    if let Some(m) = mat {
        for n in normal.chunks_exact_mut(3) {
            let v = [n[0] as f64, n[1] as f64, n[2] as f64];
            let r = [
                m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
                m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
                m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
            ];
            for k in 0..3 {
                n[k] = r[k] as f32;
            }
        }
    }
    if scale != &[1.0, 1.0, 1.0] {
        for n in normal.chunks_exact_mut(3) {
            for k in 0..3 {
                n[k] = (n[k] as f64 / scale[k]) as f32;
            }
        }
    }
    for n in normal.chunks_exact_mut(3) {
        let len = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        if len as f64 > MJ_MINVAL {
            let scl = 1.0 / len.sqrt();
            for x in n.iter_mut() {
                *x *= scl;
            }
        } else {
            n.copy_from_slice(&[0.0, 0.0, 1.0]);
        }
    }
}

/// Rotates normals by the row-major matrix `mat` (in `double`, stored back as `float`).
pub fn rotate_normals(normal: &mut [f32], mat: &[f64; 9]) {
    for n in normal.chunks_exact_mut(3) {
        let v = [n[0] as f64, n[1] as f64, n[2] as f64];
        for k in 0..3 {
            n[k] = (mat[3 * k] * v[0] + mat[3 * k + 1] * v[1] + mat[3 * k + 2] * v[2]) as f32;
        }
    }
}
