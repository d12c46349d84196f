//! Procedural meshes (`<mesh builtin="..." params="...">`), generated as MuJoCo 4.0.0 does.
//!
//! The generators produce `float` vertices (and faces, sometimes normals) exactly as the user
//! would have written them inline; the result then goes through the normal processing. Where
//! MuJoCo computes in `float` (the icosphere) or in `double` narrowed to `float` (the others),
//! that is kept, since it decides the stored bits.
//!
//! | builtin | params | vertices / faces |
//! |---|---|---|
//! | `sphere` | subdivisions s in 0..=4 | icosahedron subdivided s times, on the unit sphere |
//! | `hemisphere` | resolution r in 0..=10 | quad-projected upper hemisphere + flat cap |
//! | `cone` | edges n >= 3, top radius in [0, 1] | n bottom points at z=-1, n top points (or apex) at z=+1; hull |
//! | `supersphere` | resolution, e, n | superellipsoid rings from pole to pole |
//! | `supertorus` | resolution, radius, s, t | supertoroid grid |
//! | `wedge` | res x, res y, fov x, fov y, gamma | points of a spherical wedge (no faces) |
//! | `plate` | res x, res y | grid on z = -1 (forces shell inertia) |

use std::collections::HashMap;

use super::eig3::normvec;
use super::mass::cross;
use super::process::RawMesh;
use super::MeshError;

/// The kinds of procedural mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Icosphere.
    Sphere,
    /// Hemisphere with a bottom cap.
    Hemisphere,
    /// Discrete cone or frustum (vertices only).
    Cone,
    /// Superellipsoid.
    Supersphere,
    /// Supertoroid.
    Supertorus,
    /// Spherical wedge (vertices and tangent frames only).
    Wedge,
    /// Flat plate grid (shell inertia).
    Plate,
}

impl Builtin {
    /// Parses the MJCF keyword (`sphere`, `hemisphere`, `cone`, `supersphere`, `supertorus`,
    /// `wedge`, `plate`).
    pub fn from_keyword(s: &str) -> Option<Builtin> {
        Some(match s {
            "sphere" => Builtin::Sphere,
            "hemisphere" => Builtin::Hemisphere,
            "cone" => Builtin::Cone,
            "supersphere" => Builtin::Supersphere,
            "supertorus" => Builtin::Supertorus,
            "wedge" => Builtin::Wedge,
            "plate" => Builtin::Plate,
            _ => return None,
        })
    }
}

/// A generated mesh and whether it forces `inertia="shell"` (the plate does).
pub struct Generated {
    /// Vertices, faces and normals as if given inline.
    pub raw: RawMesh,
    /// The generator switches the mesh to shell inertia.
    pub shell: bool,
}

/// Error helper.
fn err(msg: &str) -> MeshError {
    MeshError::Invalid(msg.to_string())
}

/// `(int)x` as MuJoCo's x86-64 build converts a parameter: truncation toward zero, and
/// `INT_MIN` (`cvttsd2si`'s "integer indefinite") for NaN and for values whose truncation does not
/// fit in 32 bits. So `params="99999999999 1"` is a cone of -2147483648 edges to MuJoCo, which it
/// rejects; Rust's saturating `as i32` would make it 2147483647 edges (a 51 GB allocation).
fn c_int(x: f64) -> i32 {
    if x > -2147483649.0 && x < 2147483648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// The most vertices a builtin may generate: specula's own limit, 2^20, so that a builtin
/// compiles in seconds. MuJoCo 4.0.0 checks none below its `int` overflow and takes longer
/// than specula on each (measured, one geom, release build: a supersphere of resolution 1000,
/// 1.0e6 vertices, 14.8 s in MuJoCo and 10.2 s in specula; a supertorus of 1000, 9.3 and 9.1 s;
/// a wedge of 1000 x 1000, 14.8 and 6.4 s; a 5000 x 5000 wedge ran past 30 s in MuJoCo).
const MAX_VERTICES: u64 = 1 << 20;

/// The most edges a builtin cone may have: its rim is one flat face, whose hull takes time
/// quadratic in the edges (measured, MuJoCo 4.0.0 and specula: 4096 edges 1.1 and 0.7 s,
/// 8192 edges 7.4 and 4.0 s, 32768 edges over 60 s and 38.7 s).
const MAX_CONE_EDGES: i32 = 8192;

/// Refuses a builtin that would generate `count` vertices, more than [`MAX_VERTICES`].
fn check_size(what: &str, count: u64) -> Result<(), MeshError> {
    if count > MAX_VERTICES {
        return Err(MeshError::TooLarge(format!(
            "{what} would generate {count} vertices; specula generates at most {MAX_VERTICES} for a builtin mesh"
        )));
    }
    Ok(())
}

/// Validates the parameters of builtin `kind` as [`make`] does (MuJoCo's checks and specula's
/// size limits), without generating anything: cheap for any size.
pub fn check(kind: Builtin, params: &[f64]) -> Result<(), MeshError> {
    build(kind, params, false).map(|_| ())
}

/// Generates the builtin mesh `kind` from `params`, validating them as MuJoCo does.
pub fn make(kind: Builtin, params: &[f64]) -> Result<Generated, MeshError> {
    build(kind, params, true).map(|g| g.expect("a generated builtin"))
}

/// Validates `params` and, when `generate`, generates the mesh.
fn build(kind: Builtin, params: &[f64], generate: bool) -> Result<Option<Generated>, MeshError> {
    let need = |n: usize, what: &str| {
        if params.len() == n {
            Ok(())
        } else {
            Err(err(what))
        }
    };
    let mut shell = false;
    let generator: Box<dyn FnOnce() -> RawMesh> = match kind {
        Builtin::Hemisphere => {
            need(1, "Hemisphere mesh type requires 1 parameter")?;
            let res = c_int(params[0]);
            if res < 0 {
                return Err(err("Hemisphere resolution cannot be negative"));
            }
            if res > 10 {
                return Err(err("Hemisphere resolution cannot be greater than 10"));
            }
            Box::new(move || hemisphere(res as usize))
        }
        Builtin::Sphere => {
            need(1, "Sphere mesh type requires 1 parameter")?;
            let sub = c_int(params[0]);
            if sub < 0 {
                return Err(err("Sphere subdivision cannot be negative"));
            }
            if sub > 4 {
                return Err(err("Sphere subdivision cannot be greater than 4"));
            }
            Box::new(move || sphere(sub as usize))
        }
        Builtin::Supersphere => {
            need(3, "Supersphere mesh type requires 3 parameters")?;
            let res = c_int(params[0]);
            if res < 3 {
                return Err(err("Supersphere resolution must be greater than 2"));
            }
            let r = res as u64;
            check_size(&format!("Supersphere resolution {res}"), (r - 1) * r + 2)?;
            if params[1] < 0.0 {
                return Err(err("Supersphere 'e' cannot be negative"));
            }
            if params[2] < 0.0 {
                return Err(err("Supersphere 'n' cannot be negative"));
            }
            Box::new(move || supersphere(res as usize, params[1], params[2]))
        }
        Builtin::Supertorus => {
            need(4, "Supertorus mesh type requires 4 parameters")?;
            let res = c_int(params[0]);
            if res < 3 {
                return Err(err("Supertorus resolution must be greater than 3"));
            }
            check_size(&format!("Supertorus resolution {res}"), res as u64 * res as u64)?;
            if params[1] <= 0.0 || params[1] > 1.0 {
                return Err(err("Supertorus radius must be in (0, 1]"));
            }
            if params[2] <= 0.0 {
                return Err(err("Supertorus 's' must be greater than 0"));
            }
            if params[3] <= 0.0 {
                return Err(err("Supertorus 't' must be greater than 0"));
            }
            Box::new(move || supertorus(res as usize, params[1], params[2], params[3]))
        }
        Builtin::Wedge => {
            need(5, "Wedge builtin mesh types require 5 parameters")?;
            let res = [c_int(params[0]), c_int(params[1])];
            let fov = [params[2], params[3]];
            let gamma = params[4];
            if fov[0] <= 0.0 || fov[0] > 180.0 {
                return Err(err("fov[0] must be a float between (0, 180] degrees"));
            }
            if fov[1] <= 0.0 || fov[1] > 90.0 {
                return Err(err("`fov[1]` must be a float between (0, 90] degrees"));
            }
            if res[0] <= 0 || res[1] <= 0 {
                return Err(err("Horizontal and vertical resolutions must be positive"));
            }
            // Ordered comparisons, as MuJoCo's: a NaN gamma passes and makes NaN vertices (a
            // range `contains` would refuse it).
            #[allow(clippy::manual_range_contains)]
            let outside = gamma < 0.0 || gamma > 1.0;
            if outside {
                return Err(err("`gamma` must be a nonnegative float between [0, 1]"));
            }
            check_size(&format!("Wedge resolution {} x {}", res[0], res[1]), res[0] as u64 * res[1] as u64)?;
            Box::new(move || wedge([res[0] as usize, res[1] as usize], fov, gamma))
        }
        Builtin::Plate => {
            need(2, "Plate builtin mesh type requires 2 parameters")?;
            let res = [c_int(params[0]), c_int(params[1])];
            if res[0] <= 0 || res[1] <= 0 {
                return Err(err("Horizontal and vertical resolutions must be positive"));
            }
            check_size(&format!("Plate resolution {} x {}", res[0], res[1]), res[0] as u64 * res[1] as u64)?;
            shell = true;
            Box::new(move || plate([res[0] as usize, res[1] as usize]))
        }
        Builtin::Cone => {
            need(2, "Cone mesh type requires 2 parameters")?;
            let n = c_int(params[0]);
            if n < 3 {
                return Err(err("Cone nvert must be at least 3"));
            }
            // A NaN radius fails too (MuJoCo 4.0.0 measured).
            if !(0.0..=1.0).contains(&params[1]) {
                return Err(err("Cone radius must be in [0, 1]"));
            }
            if n > MAX_CONE_EDGES {
                return Err(MeshError::TooLarge(format!(
                    "Cone with {n} edges; specula builds cones of at most {MAX_CONE_EDGES} edges (the rim's hull \
                     takes time quadratic in them)"
                )));
            }
            let top = if params[1] > 0.0 { n as u64 } else { 1 };
            check_size(&format!("Cone with {n} edges"), n as u64 + top)?;
            Box::new(move || cone(n as usize, params[1]))
        }
    };
    Ok(generate.then(|| Generated { raw: generator(), shell }))
}

/// Flattens double-precision points to the `float` vertex array.
fn to_f32(p: &[[f64; 3]]) -> Vec<f32> {
    p.iter().flat_map(|v| v.map(|x| x as f32)).collect()
}

/// Hemisphere: rows of points on the four quarter-arcs from the pole, projected on the unit
/// sphere; then the cap centre at the origin.
fn hemisphere(res: usize) -> RawMesh {
    const POLE: [f64; 3] = [0.0, 0.0, 1.0];
    const EQUATOR: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    let mut pts = vec![POLE];
    for row in 0..=res {
        let factor = (row + 1) as f64 / (res + 1) as f64;
        for side in 0..4 {
            let mut start = [0.0; 3];
            let mut end = [0.0; 3];
            for i in 0..3 {
                start[i] = POLE[i] + factor * (EQUATOR[side][i] - POLE[i]);
                end[i] = POLE[i] + factor * (EQUATOR[(side + 1) % 4][i] - POLE[i]);
            }
            let delta = [0, 1, 2].map(|i| (end[i] - start[i]) / (row + 1) as f64);
            for i in 0..=row {
                let p = [0, 1, 2].map(|j| start[j] + i as f64 * delta[j]);
                let norm = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                pts.push([p[0] / norm, p[1] / norm, p[2] / norm]);
            }
        }
    }
    pts.push([0.0; 3]);
    let nvert = pts.len() as i32;

    let mut face: Vec<i32> = vec![0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1];
    for row in 0..res as i32 {
        let start_curr = 2 * row * (row + 1) + 1;
        let count_curr = 4 * (row + 1);
        let start_next = start_curr + count_curr;
        let count_next = 4 * (row + 2);
        for side in 0..4 {
            for i in 0..row + 2 {
                let v_curr = i + (row + 1) * side;
                let v_next = i + (row + 2) * side;
                face.extend_from_slice(&[
                    start_curr + v_curr % count_curr,
                    start_next + v_next % count_next,
                    start_next + (v_next + 1) % count_next,
                ]);
                if i < row + 1 {
                    face.extend_from_slice(&[
                        start_curr + v_curr % count_curr,
                        start_next + (v_next + 1) % count_next,
                        start_curr + (v_curr + 1) % count_curr,
                    ]);
                }
            }
        }
    }
    let r = res as i32;
    let start = 2 * r * (r + 1) + 1;
    let count = 4 * (r + 1);
    for i in 0..count {
        face.extend_from_slice(&[start + i, nvert - 1, start + (i + 1) % count]);
    }
    RawMesh { vert: to_f32(&pts), face, ..Default::default() }
}

/// Icosphere: the unit icosahedron (in `float`), each subdivision splitting every triangle in
/// four at edge midpoints pushed back onto the sphere (all in `float`).
fn sphere(subdiv: usize) -> RawMesh {
    let phi = ((1.0 + 5f64.sqrt()) / 2.0) as f32;
    #[rustfmt::skip]
    let mut vert: Vec<f32> = vec![
        -1.0, phi, 0.0, 1.0, phi, 0.0, -1.0, -phi, 0.0, 1.0, -phi, 0.0,
        0.0, -1.0, phi, 0.0, 1.0, phi, 0.0, -1.0, -phi, 0.0, 1.0, -phi,
        phi, 0.0, -1.0, phi, 0.0, 1.0, -phi, 0.0, -1.0, -phi, 0.0, 1.0,
    ];
    // phi * phi is a float product; the sum and root are in double.
    let norm = (1.0 + (phi * phi) as f64).sqrt();
    for v in vert.iter_mut() {
        *v = (*v as f64 / norm) as f32;
    }
    #[rustfmt::skip]
    let mut face: Vec<i32> = vec![
        0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6,
        7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6,
        7, 9, 8, 1,
    ];
    for _ in 0..subdiv {
        let mut cache: HashMap<(i32, i32), i32> = HashMap::new();
        let mut midpoint = |a: i32, b: i32, vert: &mut Vec<f32>| -> i32 {
            let key = (a.min(b), a.max(b));
            if let Some(&m) = cache.get(&key) {
                return m;
            }
            let (pa, pb) = (3 * a as usize, 3 * b as usize);
            let mut m = [0f32; 3];
            for k in 0..3 {
                m[k] = (vert[pa + k] + vert[pb + k]) / 2.0;
            }
            let n = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
            let id = (vert.len() / 3) as i32;
            vert.extend_from_slice(&[m[0] / n, m[1] / n, m[2] / n]);
            cache.insert(key, id);
            id
        };
        let mut next = Vec::with_capacity(4 * face.len());
        for t in face.chunks_exact(3) {
            let (v1, v2, v3) = (t[0], t[1], t[2]);
            let m12 = midpoint(v1, v2, &mut vert);
            let m23 = midpoint(v2, v3, &mut vert);
            let m31 = midpoint(v3, v1, &mut vert);
            next.extend_from_slice(&[v1, m12, m31, v2, m23, m12, v3, m31, m23, m12, m23, m31]);
        }
        face = next;
    }
    RawMesh { vert, face, ..Default::default() }
}

/// Signed power of the cosine, `sign(cos w) |cos w|^m`.
fn aux_c(w: f64, m: f64) -> f64 {
    w.cos().abs().powf(m).copysign(w.cos())
}

/// Signed power of the sine, `sign(sin w) |sin w|^m`.
fn aux_s(w: f64, m: f64) -> f64 {
    w.sin().abs().powf(m).copysign(w.sin())
}

/// Superellipsoid: south pole, `res - 1` rings of `res` points, north pole.
fn supersphere(res: usize, e: f64, n: f64) -> RawMesh {
    let pi = std::f64::consts::PI;
    let mut vert: Vec<f32> = vec![0.0, 0.0, -1.0];
    for i in 1..res {
        let v = -pi / 2.0 + i as f64 * pi / res as f64;
        for j in 0..res {
            let u = -pi + (j * 2) as f64 * pi / res as f64;
            vert.push((aux_c(v, n) * aux_c(u, e)) as f32);
            vert.push((aux_c(v, n) * aux_s(u, e)) as f32);
            vert.push(aux_s(v, n) as f32);
        }
    }
    vert.extend_from_slice(&[0.0, 0.0, 1.0]);
    let r = res as i32;
    let nvert = (vert.len() / 3) as i32;
    let mut face = Vec::new();
    for j in 0..r {
        face.extend_from_slice(&[0, 1 + (j + 1) % r, 1 + j]);
    }
    for i in 0..r - 2 {
        for j in 0..r {
            let v1 = 1 + i * r + j;
            let v2 = 1 + i * r + (j + 1) % r;
            let v4 = 1 + (i + 1) * r + j;
            let v3 = 1 + (i + 1) * r + (j + 1) % r;
            face.extend_from_slice(&[v1, v2, v4, v2, v3, v4]);
        }
    }
    let last = 1 + (r - 2) * r;
    for j in 0..r {
        face.extend_from_slice(&[last + j, last + (j + 1) % r, nvert - 1]);
    }
    RawMesh { vert, face, ..Default::default() }
}

/// Supertoroid on a `res x res` grid of the two angles.
fn supertorus(res: usize, radius: f64, s: f64, t: f64) -> RawMesh {
    let pi = std::f64::consts::PI;
    let mut vert = Vec::with_capacity(3 * res * res);
    for i in 0..res {
        for j in 0..res {
            let u = 2.0 * pi * i as f64 / res as f64;
            let v = 2.0 * pi * j as f64 / res as f64;
            vert.push(((1.0 + radius * aux_c(v, s)) * aux_c(u, t)) as f32);
            vert.push(((1.0 + radius * aux_c(v, s)) * aux_s(u, t)) as f32);
            vert.push((radius * aux_s(v, s)) as f32);
        }
    }
    let r = res as i32;
    let mut face = Vec::with_capacity(6 * res * res);
    for i in 0..r {
        for j in 0..r {
            let (inext, jnext) = ((i + 1) % r, (j + 1) % r);
            let v1 = i * r + j;
            let v2 = inext * r + j;
            let v3 = inext * r + jnext;
            let v4 = i * r + jnext;
            face.extend_from_slice(&[v1, v2, v4, v2, v3, v4]);
        }
    }
    RawMesh { vert, face, ..Default::default() }
}

/// `n` evenly spaced values from `lower` to `upper`, accumulated by repeated addition.
fn linspace(lower: f64, upper: f64, n: usize) -> Vec<f64> {
    let inc = if n > 1 { (upper - lower) / (n - 1) as f64 } else { 0.0 };
    let mut x = lower;
    (0..n)
        .map(|_| {
            let v = x;
            x += inc;
            v
        })
        .collect()
}

/// Spherical wedge: bin centres of a (foveated) azimuth/elevation grid on the unit sphere,
/// each with its tangent frame as three normals (normal, azimuth, elevation directions).
fn wedge(res: [usize; 2], fov: [f64; 2], gamma: f64) -> RawMesh {
    let pi = std::f64::consts::PI;
    let fovea = |x: f64| {
        if gamma == 0.0 {
            x
        } else {
            let g = gamma.clamp(0.0, 1.0);
            g * x.powf(5.0) + (1.0 - g) * x
        }
    };
    let edges = |n: usize, fov: f64| -> Vec<f64> {
        let s = fov * pi / 180.0;
        linspace(-1.0, 1.0, n + 1).into_iter().map(|x| s * fovea(x)).collect()
    };
    let (xe, ye) = (edges(res[0], fov[0]), edges(res[1], fov[1]));
    let mut vert = Vec::new();
    let mut normal = Vec::new();
    for i in 0..res[0] {
        for j in 0..res[1] {
            let a = 0.5 * (xe[i + 1] + xe[i]);
            let e = 0.5 * (ye[j + 1] + ye[j]);
            let r = 1.0;
            vert.extend_from_slice(&[
                (r * e.cos() * a.sin()) as f32,
                (r * e.sin()) as f32,
                (-r * e.cos() * a.cos()) as f32,
            ]);
            let mut ta = [r * e.cos() * a.cos(), 0.0, r * e.cos() * a.sin()];
            let mut te = [-r * e.sin() * a.sin(), r * e.cos(), r * e.sin() * a.cos()];
            normvec(&mut ta);
            normvec(&mut te);
            let n = cross(&te, &ta);
            for x in n.iter().chain(&ta).chain(&te) {
                normal.push(*x as f32);
            }
        }
    }
    RawMesh { vert, normal, ..Default::default() }
}

/// Plate: cell centres of a grid on z = -1, two triangles per interior cell, identity frames.
fn plate(res: [usize; 2]) -> RawMesh {
    let n = res[0] * res[1];
    let mut vert = vec![0f32; 3 * n];
    let mut normal = vec![0f32; 9 * n];
    let ncell = (res[0] - 1) * (res[1] - 1);
    let mut face = vec![0i32; 6 * ncell];
    let r1 = res[1] as i32;
    for i in 0..res[0] {
        for j in 0..res[1] {
            let v = i * res[1] + j;
            let dx = 2.0 / res[0] as f64;
            let dy = 2.0 / res[1] as f64;
            vert[3 * v] = (-1.0 + (i as f64 + 0.5) * dx) as f32;
            vert[3 * v + 1] = (-1.0 + (j as f64 + 0.5) * dy) as f32;
            vert[3 * v + 2] = -1.0;
            normal[9 * v] = 1.0;
            normal[9 * v + 4] = 1.0;
            normal[9 * v + 8] = 1.0;
            if i > 0 && j > 0 {
                let cell = (i - 1) * (res[1] - 1) + j - 1;
                let (ii, jj) = (i as i32, j as i32);
                face[6 * cell..6 * cell + 6].copy_from_slice(&[
                    (ii - 1) * r1 + jj - 1,
                    ii * r1 + jj - 1,
                    (ii - 1) * r1 + jj,
                    ii * r1 + jj,
                    (ii - 1) * r1 + jj,
                    ii * r1 + jj - 1,
                ]);
            }
        }
    }
    RawMesh { vert, normal, face, ..Default::default() }
}

/// Cone: `n` points on the unit circle at z = -1 and `n` on a circle of `radius` at z = +1
/// (or the apex if `radius <= 0`); no faces, so the hull supplies them.
fn cone(n: usize, radius: f64) -> RawMesh {
    let pi = std::f64::consts::PI;
    let top = if radius > 0.0 { n } else { 1 };
    let mut vert = vec![0f32; 3 * (n + top)];
    for i in 0..n {
        let w = (2 * i) as f64 * pi / n as f64;
        vert[3 * i] = w.cos() as f32;
        vert[3 * i + 1] = w.sin() as f32;
        vert[3 * i + 2] = -1.0;
    }
    if radius > 0.0 {
        for i in n..2 * n {
            let w = (2 * i) as f64 * pi / n as f64;
            vert[3 * i] = (radius * w.cos()) as f32;
            vert[3 * i + 1] = (radius * w.sin()) as f32;
            vert[3 * i + 2] = 1.0;
        }
    } else {
        vert[3 * n + 2] = 1.0;
    }
    RawMesh { vert, ..Default::default() }
}
