//! MuJoCo's mesh processing: from raw vertices and faces to what `mjModel` stores.
//!
//! Steps, in MuJoCo 4.0.0's order (each matters for the stored bits):
//! 1. Check the raw data (at least 4 vertices, indices in range, finite coordinates).
//! 2. Directed-edge check: with `inertia="exact"`, two faces using the same directed edge
//!    (inconsistent orientation) is an error. Only faces of area above sqrt(mjMINVAL) count.
//! 3. Convex hull (on the raw, untransformed vertices) if a colliding geom or `convex` inertia
//!    needs it, or if there are no faces; faces then come from the hull.
//! 4. Normals: generated if not given. Mirroring scales (negative product) flip the winding.
//! 5. User transform in `double`: subtract `refpos`, rotate by the conjugate of `refquat`,
//!    multiply by `scale`.
//! 6. Mass properties (see [`super::mass`]), eigen-decomposition ([`super::eig3`]) and the
//!    equivalent inertia box.
//! 7. Move the centre of mass to the origin and rotate into the principal frame; the
//!    bounding box is taken over all vertices in `double`; vertices are stored as `float`.

use super::eig3::{eig3, normvec, quat2mat};
use super::hull::{convex_hull, Hull};
use super::mass::{self, cross, dot3, triangle, MJ_MINVAL};
use super::normal::{make_normals, rotate_normals, transform_normals};
use super::polygon::{make_polygons, newell_normal};
use super::{MeshData, MeshError, MeshInertia, MeshSpec};

/// Raw mesh data before processing (as loaded from a file or given inline).
#[derive(Clone, Debug, Default)]
pub struct RawMesh {
    /// Vertex positions, xyz triples, in `float` as MuJoCo holds them.
    pub vert: Vec<f32>,
    /// Vertex normals (may be empty).
    pub normal: Vec<f32>,
    /// Triangles (may be empty: a point cloud).
    pub face: Vec<i32>,
    /// Per-corner normal indices (may be empty).
    pub facenormal: Vec<i32>,
}

/// Error helper.
fn invalid(msg: impl Into<String>) -> MeshError {
    MeshError::Invalid(msg.into())
}

/// MuJoCo's own degeneracy checks before calling qhull (same tolerances, same messages).
fn check_hull_input(dvert: &[f64]) -> Result<(), MeshError> {
    let n = dvert.len() / 3;
    let p = |i: usize| [dvert[3 * i], dvert[3 * i + 1], dvert[3 * i + 2]];
    let dist = |a: &[f64; 3], b: &[f64; 3]| {
        ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2])).sqrt()
    };
    let p0 = p(0);
    let mut v1 = None;
    let mut len1 = 0.0;
    for i in 1..n {
        len1 = dist(&p(i), &p0);
        if len1 > MJ_MINVAL {
            v1 = Some(i);
            break;
        }
    }
    let Some(v1) = v1 else {
        return Err(invalid("mesh has colocated vertices, cannot compute convex hull; consider a small sphere"));
    };
    let e1 = [dvert[3 * v1] - p0[0], dvert[3 * v1 + 1] - p0[1], dvert[3 * v1 + 2] - p0[2]];
    let mut normal = [0.0; 3];
    let mut collinear = true;
    for i in 1..n {
        if i == v1 {
            continue;
        }
        let e2 = [dvert[3 * i] - p0[0], dvert[3 * i + 1] - p0[1], dvert[3 * i + 2] - p0[2]];
        let len2 = dot3(&e2, &e2).sqrt();
        if len2 < MJ_MINVAL {
            continue;
        }
        normal = cross(&e1, &e2);
        let nrm = dot3(&normal, &normal).sqrt();
        if nrm > MJ_MINVAL * len1 * len2 {
            for v in normal.iter_mut() {
                *v /= nrm;
            }
            collinear = false;
            break;
        }
    }
    if collinear {
        return Err(invalid("mesh has collinear vertices, cannot compute convex hull; consider a thin capsule"));
    }
    let d = dot3(&normal, &p0);
    if (0..n).all(|i| (dot3(&normal, &p(i)) - d).abs() <= MJ_MINVAL * len1) {
        return Err(invalid("mesh has coplanar vertices, cannot compute convex hull; consider a plane or thin box"));
    }
    Ok(())
}

/// Runs MuJoCo's processing on a raw mesh.
pub fn process(raw: RawMesh, spec: &MeshSpec) -> Result<MeshData, MeshError> {
    let RawMesh { vert, mut normal, mut face, mut facenormal } = raw;

    // 1. Raw checks (ProcessVertices, CheckInitialMesh).
    for (i, v) in vert.chunks_exact(3).enumerate() {
        if !v.iter().all(|x| x.is_finite()) {
            return Err(invalid(format!("vertex coordinate {i} is not finite")));
        }
    }
    if vert.len() % 3 != 0 {
        return Err(invalid("vertex data must be a multiple of 3"));
    }
    if vert.len() < 12 {
        return Err(invalid("at least 4 vertices required"));
    }
    if normal.len() % 3 != 0 {
        return Err(invalid("normal data must be a multiple of 3"));
    }
    if face.len() % 3 != 0 {
        return Err(invalid("face data must be a multiple of 3"));
    }
    let nvert = vert.len() / 3;
    for (i, &f) in face.iter().enumerate() {
        if f < 0 || f as usize >= nvert {
            return Err(invalid(format!("in face {}, vertex index {f} does not exist", i / 3)));
        }
    }
    let mut dvert: Vec<f64> = vert.iter().map(|&x| x as f64).collect();

    // 2. Directed edges used twice mean inconsistent orientation.
    let mut half: Vec<(i32, i32)> = Vec::new();
    for f in face.chunks_exact(3) {
        let c = |k: usize| &dvert[3 * f[k] as usize..3 * f[k] as usize + 3];
        if triangle(None, None, c(0), c(1), c(2)) > MJ_MINVAL.sqrt() {
            half.extend_from_slice(&[(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
        }
    }
    half.sort();
    if let Some(w) = half.windows(2).find(|w| w[0] == w[1]) {
        if spec.inertia == MeshInertia::Exact {
            return Err(invalid(format!(
                "faces of mesh have inconsistent orientation; check the faces containing \
                 the vertices {} and {}",
                w[0].0 + 1,
                w[0].1 + 1
            )));
        }
    }

    // 3. Convex hull.
    let mut hull: Option<Hull> = None;
    if spec.need_hull || spec.inertia == MeshInertia::Convex || face.is_empty() {
        check_hull_input(&dvert)?;
        let maxv = (spec.maxhullvert > -1).then_some(spec.maxhullvert.max(4) as usize);
        let h = convex_hull(&dvert, maxv).map_err(|_| invalid("qhull error"))?;
        hull = Some(h);
    }
    let mut polygons: Vec<Vec<usize>> = match &hull {
        Some(h) => make_polygons(&dvert, &h.face),
        None => Vec::new(),
    };
    if face.is_empty() {
        if let Some(h) = &hull {
            face = h.face.iter().flat_map(|f| f.map(|v| v as i32)).collect();
        }
    }

    // 4. Normals and winding.
    if normal.is_empty() {
        // Generating normals also resets the per-corner normal indices to the faces.
        let (n, fnrm) = make_normals(&dvert, &face, spec.smoothnormal);
        normal = n;
        facenormal = fnrm;
    }
    if !facenormal.is_empty() && facenormal.len() != face.len() {
        return Err(invalid("face data must have the same size as face normal data"));
    }
    // MuJoCo 4.0.0 rejects per-corner normal indices outside the normal array (e.g. an OBJ
    // mixing corners with and without normals; probed error "normal index out of bounds").
    let nnormal = (normal.len() / 3) as i32;
    if facenormal.iter().any(|&n| n < 0 || n >= nnormal) {
        return Err(invalid("mesh_facenormal normal index out of bounds"));
    }
    if facenormal.is_empty() {
        let per_vertex = (normal.len() / vert.len()) as i32;
        facenormal = face.iter().map(|&f| per_vertex * f).collect();
    }
    let righthand = spec.scale[0] * spec.scale[1] * spec.scale[2] > 0.0;
    if !righthand {
        for tri in face.chunks_exact_mut(3).chain(facenormal.chunks_exact_mut(3)) {
            tri.swap(1, 2);
        }
        // A mirroring scale turns the hull inside out: each polygon's cycle is reversed about
        // its first vertex, so that its normal (computed after scaling) points outward again
        // (measured: a box scaled by -1 -1 -1 has mesh_polyvert 3 7 5 1 where the unscaled
        // cycle is 3 1 5 7, and outward normals)
        for p in polygons.iter_mut() {
            p[1..].reverse();
        }
    }

    // 5. User transform.
    let refpos = spec.refpos;
    if refpos != [0.0; 3] {
        for v in dvert.chunks_exact_mut(3) {
            for k in 0..3 {
                v[k] -= refpos[k];
            }
        }
    }
    let mut refmat = None;
    if spec.refquat != [1.0, 0.0, 0.0, 0.0] {
        let mut q = spec.refquat;
        normvec(&mut q);
        let m = quat2mat(&q);
        for v in dvert.chunks_exact_mut(3) {
            let r = [
                m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
                m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
                m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
            ];
            v.copy_from_slice(&r);
        }
        refmat = Some(m);
    }
    let scale = spec.scale;
    if scale != [1.0; 3] {
        for v in dvert.chunks_exact_mut(3) {
            for k in 0..3 {
                v[k] *= scale[k];
            }
        }
    }
    transform_normals(&mut normal, refmat.as_ref(), &scale);

    // 6. Mass properties.
    let (facecen, area) = mass::face_centroid(&dvert, &face);
    if area < MJ_MINVAL {
        return Err(invalid("mesh surface area is too small"));
    }
    let hull_faces: Vec<i32>;
    let mass_faces: &[i32] = if spec.inertia == MeshInertia::Convex {
        hull_faces = hull.as_ref().map_or(Vec::new(), |h| h.face.iter().flat_map(|f| f.map(|v| v as i32)).collect());
        &hull_faces
    } else {
        &face
    };
    let com = if spec.inertia == MeshInertia::Shell {
        let (surf, com) = mass::surface(&dvert, &face, &facecen);
        if surf < MJ_MINVAL {
            return Err(invalid("mesh surface area is too small"));
        }
        com
    } else {
        let legacy = spec.inertia == MeshInertia::Legacy;
        let (vol, com) = mass::volume(&dvert, mass_faces, &facecen, legacy);
        if vol < MJ_MINVAL {
            return Err(invalid(if vol < 0.0 {
                "mesh volume is negative (misoriented triangles)"
            } else {
                "mesh volume is too small; try setting inertia to shell"
            }));
        }
        com
    };
    let inertia_faces = if spec.inertia == MeshInertia::Shell { &face[..] } else { mass_faces };
    let (inert, total) = mass::inertia(&dvert, inertia_faces, &com, spec.inertia);
    let full = [inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2]];
    let eig = eig3(&full);
    let ev = eig.val;
    if ev[2] <= 0.0 {
        return Err(invalid("eigenvalue of mesh inertia must be positive"));
    }
    let (atol, rtol) = (1e-9, 1e-6);
    if ev[0] + ev[1] < ev[2] * (1.0 - rtol) - atol
        || ev[0] + ev[2] < ev[1] * (1.0 - rtol) - atol
        || ev[1] + ev[2] < ev[0] * (1.0 - rtol) - atol
    {
        return Err(invalid("eigenvalues of mesh inertia violate A + B >= C"));
    }
    let volume = total;
    let inertia_box = [
        0.5 * (6.0 * (ev[1] + ev[2] - ev[0]) / volume).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[2] - ev[1]) / volume).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[1] - ev[2]) / volume).sqrt(),
    ];

    // 7. Centre and align; bounding box over all vertices.
    let quat = eig.quat;
    let rot = quat2mat(&[quat[0], -quat[1], -quat[2], -quat[3]]);
    let mut aamm: [f64; 6] = [1e10, 1e10, 1e10, -1e10, -1e10, -1e10];
    for v in dvert.chunks_exact_mut(3) {
        for k in 0..3 {
            v[k] -= com[k];
        }
        let r = [
            rot[0] * v[0] + rot[1] * v[1] + rot[2] * v[2],
            rot[3] * v[0] + rot[4] * v[1] + rot[5] * v[2],
            rot[6] * v[0] + rot[7] * v[1] + rot[8] * v[2],
        ];
        v.copy_from_slice(&r);
        for k in 0..3 {
            aamm[k] = aamm[k].min(v[k]);
            aamm[k + 3] = aamm[k + 3].max(v[k]);
        }
    }
    rotate_normals(&mut normal, &rot);
    let polygon_normal = polygons.iter().map(|p| newell_normal(&dvert, p)).collect();
    let mut polygon_map = vec![Vec::new(); nvert];
    for (i, p) in polygons.iter().enumerate() {
        for &v in p {
            polygon_map[v].push(i as i32);
        }
    }

    Ok(MeshData {
        vert: dvert.iter().map(|&x| x as f32).collect(),
        normal,
        face,
        facenormal,
        graph: hull.as_ref().map(Hull::graph),
        polygon: polygons.iter().map(|p| p.iter().map(|&v| v as i32).collect()).collect(),
        polygon_normal,
        polygon_map,
        hull,
        pos: com,
        quat,
        scale,
        inertia: spec.inertia,
        volume: if spec.inertia == MeshInertia::Shell { 0.0 } else { volume },
        surface: if spec.inertia == MeshInertia::Shell { volume } else { 0.0 },
        eigval: ev,
        inertia_box,
        aamm,
    })
}
