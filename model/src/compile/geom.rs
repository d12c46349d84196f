//! Geom and site compilation: `fromto`, orientation, size checks, bounding volumes and the
//! geom's own mass and inertia.

use super::attrs::Res;
use super::math::{cross, frame_accum, frame_accum_child, normvec, rot_vec_quat, z2quat, EPS, PI};
use super::orient::{resolve, AngleConv};
use super::spec::{GeomSpec, SiteSpec};
use super::tree::Item;
use crate::error::MjcfError;
use crate::mesh::MeshData;
use crate::types::GeomType;

/// MuJoCo's `mjMAXVAL`, used for the infinite extent of planes.
const MAXVAL: f64 = 1e10;

/// Loaded meshes, for geoms that reference one.
pub struct MeshCtx<'a> {
    /// Mesh names, by id.
    pub names: &'a [String],
    /// Processed meshes, by id.
    pub data: &'a [MeshData],
    /// `compiler fitaabb`: fit primitives to the bounding box instead of the inertia box.
    pub fitaabb: bool,
    /// Height-field names, by id.
    pub hfield_names: &'a [String],
    /// Height fields, by id.
    pub hfields: &'a [super::hfield::HField],
}

/// A compiled geom.
#[derive(Clone, Debug)]
pub struct CGeom {
    /// Name.
    pub name: String,
    /// The specification it came from.
    pub spec: GeomSpec,
    /// Final size.
    pub size: [f64; 3],
    /// Position in the body frame.
    pub pos: [f64; 3],
    /// Orientation in the body frame.
    pub quat: [f64; 4],
    /// Bounding box in the geom frame (centre, half-size).
    pub aabb: [f64; 6],
    /// Mass used for body inertia.
    pub mass: f64,
    /// Diagonal inertia in the geom frame.
    pub inertia: [f64; 3],
    /// Mesh or height-field id, -1 when none.
    pub dataid: i32,
    /// Bounding-sphere radius.
    pub rbound: f64,
    /// Material id, -1 when none.
    pub matid: i32,
}

/// Number of size parameters each geom type needs (MuJoCo's `mjGEOMINFO`).
fn nsize(t: GeomType) -> usize {
    match t {
        GeomType::Plane => 3,
        GeomType::Hfield | GeomType::Mesh | GeomType::Sdf => 0,
        GeomType::Sphere => 1,
        GeomType::Capsule | GeomType::Cylinder => 2,
        GeomType::Ellipsoid | GeomType::Box => 3,
    }
}

/// Applies `fromto` (if given): size[1] becomes the half length (size[2] for box and
/// ellipsoid, whose size[1] copies size[0]); the frame is centred with +z along from−to.
fn apply_fromto(
    t: GeomType,
    fromto: &[f64; 6],
    size: &mut [f64; 3],
    pos: &mut [f64; 3],
    quat: &mut [f64; 4],
) -> Result<(), String> {
    if !matches!(t, GeomType::Capsule | GeomType::Cylinder | GeomType::Ellipsoid | GeomType::Box) {
        return Err("fromto requires capsule, cylinder, box or ellipsoid in geom".into());
    }
    if pos[0] != 0.0 || pos[1] != 0.0 || pos[2] != 0.0 {
        return Err("both pos and fromto defined in geom".into());
    }
    let mut vec = [fromto[0] - fromto[3], fromto[1] - fromto[4], fromto[2] - fromto[5]];
    size[1] = normvec(&mut vec) / 2.0;
    if size[1] < EPS {
        return Err("fromto points too close in geom".into());
    }
    if matches!(t, GeomType::Ellipsoid | GeomType::Box) {
        size[2] = size[1];
        size[1] = size[0];
    }
    *pos = [(fromto[0] + fromto[3]) / 2.0, (fromto[1] + fromto[4]) / 2.0, (fromto[2] + fromto[5]) / 2.0];
    *quat = z2quat(&vec);
    Ok(())
}

/// Volume (or surface area with `shell`) of a primitive.
fn volume(t: GeomType, s: &[f64; 3], shell: bool) -> f64 {
    match t {
        GeomType::Sphere => {
            let r = s[0];
            if shell {
                4.0 * PI * r * r
            } else {
                4.0 * PI * r * r * r / 3.0
            }
        }
        GeomType::Capsule => {
            let (r, h) = (s[0], 2.0 * s[1]);
            if shell {
                4.0 * PI * r * r + 2.0 * PI * r * h
            } else {
                PI * (r * r * h + 4.0 * r * r * r / 3.0)
            }
        }
        GeomType::Cylinder => {
            let (r, h) = (s[0], 2.0 * s[1]);
            if shell {
                2.0 * PI * r * r + 2.0 * PI * r * h
            } else {
                PI * r * r * h
            }
        }
        GeomType::Ellipsoid => {
            if shell {
                // Thomsen's approximation of the ellipsoid surface area
                let p = 1.6075;
                let tmp = (s[0] * s[1]).powf(p) + (s[1] * s[2]).powf(p) + (s[2] * s[0]).powf(p);
                4.0 * PI * (tmp / 3.0).powf(1.0 / p)
            } else {
                4.0 * PI * s[0] * s[1] * s[2] / 3.0
            }
        }
        GeomType::Hfield | GeomType::Box => {
            if shell {
                8.0 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0])
            } else {
                s[0] * s[1] * s[2] * 8.0
            }
        }
        _ => 0.0,
    }
}

/// Diagonal inertia of a primitive of mass `m` (solid or shell).
fn inertia(t: GeomType, s: &[f64; 3], m: f64, shell: bool) -> [f64; 3] {
    match t {
        GeomType::Sphere => {
            let i = if shell { 2.0 * m * s[0] * s[0] / 3.0 } else { 2.0 * m * s[0] * s[0] / 5.0 };
            [i, i, i]
        }
        GeomType::Capsule => {
            let (r, hh) = (s[0], s[1]);
            let h = 2.0 * hh;
            if !shell {
                // cylinder plus two hemispheres displaced along z
                let ms = m * 4.0 * r / (4.0 * r + 3.0 * h);
                let mc = m - ms;
                let mut a = mc * (3.0 * r * r + h * h) / 12.0;
                let mut c = mc * r * r / 2.0;
                let si = 2.0 * ms * r * r / 5.0;
                a += si + ms * h * (3.0 * r + 2.0 * h) / 8.0;
                c += si;
                [a, a, c]
            } else {
                let asph = 4.0 * PI * r * r;
                let acyl = 2.0 * PI * r * h;
                let ms = m * asph / (asph + acyl);
                let mc = m - ms;
                let mut a = mc * (6.0 * r * r + h * h) / 12.0;
                let mut c = mc * r * r;
                let si = 2.0 * ms * r * r / 3.0;
                let hs_com = r / 2.0;
                let hs_pos = hh + hs_com;
                a += si + ms * (hs_pos * hs_pos - hs_com * hs_com);
                c += si;
                [a, a, c]
            }
        }
        GeomType::Cylinder => {
            let (r, hh) = (s[0], s[1]);
            let h = 2.0 * hh;
            if !shell {
                let a = m * (3.0 * r * r + h * h) / 12.0;
                [a, a, m * r * r / 2.0]
            } else {
                let adisk = PI * r * r;
                let acyl = 2.0 * PI * r * h;
                let md = m * adisk / (2.0 * adisk + acyl);
                let mc = m - 2.0 * md;
                let mut a = mc * (6.0 * r * r + h * h) / 12.0;
                let mut c = mc * r * r;
                let idx = md * r * r / 4.0 + md * hh * hh;
                let idz = md * r * r / 2.0;
                a += 2.0 * idx;
                c += 2.0 * idz;
                [a, a, c]
            }
        }
        GeomType::Ellipsoid => {
            let (s00, s11, s22) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
            if !shell {
                [m * (s11 + s22) / 5.0, m * (s00 + s22) / 5.0, m * (s00 + s11) / 5.0]
            } else {
                // difference of a slightly inflated solid ellipsoid and the solid one
                let eps = 1e-6;
                let va = 4.0 * PI * s[0] * s[1] * s[2] / 3.0;
                let (ae, be, ce) = (s[0] + eps, s[1] + eps, s[2] + eps);
                let vb = 4.0 * PI * ae * be * ce / 3.0;
                let dens = m / (vb - va);
                let ma = va * dens;
                let ia = [ma * (s11 + s22) / 5.0, ma * (s00 + s22) / 5.0, ma * (s00 + s11) / 5.0];
                let mb = vb * dens;
                let ib =
                    [mb * (be * be + ce * ce) / 5.0, mb * (ae * ae + ce * ce) / 5.0, mb * (ae * ae + be * be) / 5.0];
                [ib[0] - ia[0], ib[1] - ia[1], ib[2] - ia[2]]
            }
        }
        GeomType::Hfield | GeomType::Box => {
            let (s00, s11, s22) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
            if !shell {
                [m * (s11 + s22) / 3.0, m * (s00 + s22) / 3.0, m * (s00 + s11) / 3.0]
            } else {
                let (lx, ly, lz) = (2.0 * s[0], 2.0 * s[1], 2.0 * s[2]);
                let (a0, a1, a2) = (lx * ly, ly * lz, lz * lx);
                let at = 2.0 * (a0 + a1 + a2);
                let m0 = m * a0 / at;
                let ix0 = m0 * ly * ly / 12.0;
                let iy0 = m0 * lx * lx / 12.0;
                let iz0 = m0 * (lx * lx + ly * ly) / 12.0;
                let m1 = m * a1 / at;
                let ix1 = m1 * (ly * ly + lz * lz) / 12.0;
                let iy1 = m1 * lz * lz / 12.0;
                let iz1 = m1 * ly * ly / 12.0;
                let m2 = m * a2 / at;
                let ix2 = m2 * lz * lz / 12.0;
                let iy2 = m2 * (lx * lx + lz * lz) / 12.0;
                let iz2 = m2 * lx * lx / 12.0;
                [
                    2.0 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2),
                    2.0 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2),
                    2.0 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2),
                ]
            }
        }
        _ => [0.0; 3],
    }
}

/// Bounding box (centre, half-size) of a primitive in its own frame.
fn aabb(t: GeomType, s: &[f64; 3]) -> [f64; 6] {
    let aamm: [f64; 6] = match t {
        GeomType::Sphere => [-s[0], -s[0], -s[0], s[0], s[0], s[0]],
        GeomType::Capsule => [-s[0], -s[0], -(s[0] + s[1]), s[0], s[0], s[0] + s[1]],
        GeomType::Cylinder => [-s[0], -s[0], -s[1], s[0], s[0], s[1]],
        GeomType::Plane => [-MAXVAL, -MAXVAL, -MAXVAL, MAXVAL, MAXVAL, 0.0],
        _ => [-s[0], -s[1], -s[2], s[0], s[1], s[2]],
    };
    [
        (aamm[3] + aamm[0]) / 2.0,
        (aamm[4] + aamm[1]) / 2.0,
        (aamm[5] + aamm[2]) / 2.0,
        (aamm[3] - aamm[0]) / 2.0,
        (aamm[4] - aamm[1]) / 2.0,
        (aamm[5] - aamm[2]) / 2.0,
    ]
}

/// Bounding-sphere radius of a primitive geom.
fn rbound(t: GeomType, s: &[f64; 3]) -> f64 {
    match t {
        GeomType::Sphere => s[0],
        GeomType::Capsule => s[0] + s[1],
        GeomType::Cylinder => (s[0] * s[0] + s[1] * s[1]).sqrt(),
        GeomType::Ellipsoid => s[0].max(s[1]).max(s[2]),
        GeomType::Box => (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt(),
        _ => 0.0,
    }
}

/// Compiles a geom of a body whose weld root is static (`static_body`) or not.
///
/// `infer` says whether the geom's mass and inertia feed the body inertia (MuJoCo computes
/// them only then).
pub fn compile_geom(
    item: &Item<GeomSpec>,
    conv: AngleConv,
    infer: bool,
    static_body: bool,
    meshes: &MeshCtx,
) -> Res<CGeom> {
    let s = &item.spec;
    let err = |m: String| MjcfError::new(item.pos.clone(), m);
    if ![1, 3, 4, 6].contains(&s.condim) {
        return Err(err("invalid condim in geom (expected 1, 3, 4 or 6)".into()));
    }
    let t = s.gtype;
    if t == GeomType::Plane && !static_body {
        return Err(err("plane only allowed in static bodies".into()));
    }
    if (t == GeomType::Hfield) == s.hfield.is_empty() {
        return Err(err(format!("hfield geom '{}' must have valid hfieldid", item.name)));
    }
    let hfield = if t == GeomType::Hfield {
        let id = meshes
            .hfield_names
            .iter()
            .position(|n| *n == s.hfield)
            .ok_or_else(|| err(format!("hfield '{}' not found in geom", s.hfield)))?;
        Some((id, &meshes.hfields[id]))
    } else {
        None
    };
    let mut quat = s.quat;
    normvec(&mut quat);
    let mut pos = s.pos;
    let mut size = s.size;
    if !s.fromto[0].is_nan() {
        apply_fromto(t, &s.fromto, &mut size, &mut pos, &mut quat).map_err(err)?;
    } else {
        resolve(&mut quat, conv, &s.alt).map_err(|e| err(format!("orientation specification error '{e}' in geom")))?;
    }
    let mut surfacevel = s.surfacevel;
    // the mesh this geom takes its shape from (None for primitives, including fitted ones)
    let mut mesh: Option<(usize, &MeshData)> = None;
    if matches!(t, GeomType::Mesh | GeomType::Sdf) && s.mesh.is_empty() {
        return Err(err(format!("mesh geom '{}' must have valid meshid", item.name)));
    }
    if !s.mesh.is_empty() {
        let id = meshes
            .names
            .iter()
            .position(|n| *n == s.mesh)
            .ok_or_else(|| err(format!("mesh '{}' not found in geom", s.mesh)))?;
        let md = &meshes.data[id];
        if !s.fromto[0].is_nan() {
            return Err(err("fromto cannot be used with mesh geom".into()));
        }
        let mut center = [0.0; 3];
        if !matches!(t, GeomType::Mesh | GeomType::Sdf) {
            let (sz, c) = md.fit_geom(t, meshes.fitaabb, s.fitscale).map_err(|e| err(e.to_string()))?;
            size = sz;
            center = c;
        } else {
            if s.shellinertia {
                return Err(err("for mesh geoms, inertia should be specified in the mesh asset".into()));
            }
            mesh = Some((id, md));
        }
        // the geom frame absorbs the mesh frame (and the fitted primitive's centre)
        let c = rot_vec_quat(&center, &md.quat);
        let meshpos = [c[0] + md.pos[0], c[1] + md.pos[1], c[2] + md.pos[2]];
        frame_accum(&mut pos, &mut quat, &meshpos, &md.quat);
        if surfacevel.iter().any(|&v| v != 0.0) {
            let w = cross(&[surfacevel[3], surfacevel[4], surfacevel[5]], &meshpos);
            for k in 0..3 {
                surfacevel[k] += w[k];
            }
            let inv = [md.quat[0], -md.quat[1], -md.quat[2], -md.quat[3]];
            let lin = rot_vec_quat(&[surfacevel[0], surfacevel[1], surfacevel[2]], &inv);
            let ang = rot_vec_quat(&[surfacevel[3], surfacevel[4], surfacevel[5]], &inv);
            surfacevel = [lin[0], lin[1], lin[2], ang[0], ang[1], ang[2]];
        }
    }
    if t == GeomType::Plane {
        if size[2] <= 0.0 {
            return Err(err("plane size(3) must be positive".into()));
        }
    } else {
        for (i, v) in size.iter().enumerate().take(nsize(t)) {
            if *v <= 0.0 {
                return Err(err(format!("size {i} must be positive in geom")));
            }
        }
    }
    if let Some((_, h)) = hfield {
        size = [h.size[0], h.size[1], 0.25 * h.size[2] + 0.5 * h.size[3]];
    }
    if let Some((_, md)) = mesh {
        size = md.geom_size();
    }
    if size.iter().any(|v| v.is_nan()) {
        return Err(err("nan size in geom".into()));
    }
    let bb = match (mesh, hfield) {
        (Some((_, md)), _) => md.geom_aabb(),
        (_, Some((_, h))) => {
            let s = &h.size;
            // from z = -base to z = top; x and y from their bounds too, as MuJoCo computes
            // them (the same values, but a size of 1e308 overflows to inf there: fuzz --mutate
            // seed 65439)
            [
                (s[0] + -s[0]) / 2.0,
                (s[1] + -s[1]) / 2.0,
                (s[2] + -s[3]) / 2.0,
                (s[0] - -s[0]) / 2.0,
                (s[1] - -s[1]) / 2.0,
                (s[2] - -s[3]) / 2.0,
            ]
        }
        _ => aabb(t, &size),
    };
    let vol = |shell: bool| match mesh {
        Some((_, md)) => md.volume_ref(),
        None => volume(t, &size, shell),
    };
    let inertia = |m: f64, shell: bool| match mesh {
        Some((_, md)) => md.geom_inertia(m),
        None => inertia(t, &size, m, shell),
    };

    let mut mass = 0.0;
    let mut inert = [0.0; 3];
    if infer {
        let shell = s.shellinertia;
        let mut density = s.density;
        if !s.mass.is_nan() {
            if s.mass == 0.0 {
                density = 0.0;
            } else if vol(shell) > EPS {
                mass = s.mass;
                density = s.mass / vol(shell);
                inert = inertia(mass, shell);
            }
        } else if density != 0.0 {
            mass = density * vol(shell);
            inert = inertia(mass, shell);
        }
        if mass < 0.0 || inert.iter().any(|&x| x < 0.0) || density < 0.0 {
            return Err(err("mass, inertia or density are negative in geom".into()));
        }
    }
    if let Some(f) = item.frame {
        frame_accum_child(&f.pos, &f.quat, &mut pos, &mut quat);
    }
    let mut spec = s.clone();
    spec.surfacevel = surfacevel;
    let dataid = match (mesh, hfield) {
        (Some((id, _)), _) | (_, Some((id, _))) => id as i32,
        _ => -1,
    };
    let rb = match (mesh, hfield) {
        (Some((_, md)), _) => md.geom_rbound(),
        (_, Some((_, h))) => {
            let s = &h.size;
            (s[0] * s[0] + s[1] * s[1] + (s[2] * s[2]).max(s[3] * s[3])).sqrt()
        }
        _ => rbound(t, &size),
    };
    Ok(CGeom {
        name: item.name.clone(),
        spec,
        size,
        pos,
        quat,
        aabb: bb,
        mass,
        inertia: inert,
        dataid,
        rbound: rb,
        matid: -1,
    })
}

/// A compiled site.
#[derive(Clone, Debug)]
pub struct CSite {
    /// Name.
    pub name: String,
    /// Rendering type.
    pub gtype: GeomType,
    /// Group.
    pub group: i32,
    /// Size.
    pub size: [f64; 3],
    /// Position in the body frame.
    pub pos: [f64; 3],
    /// Orientation in the body frame.
    pub quat: [f64; 4],
}

/// Compiles a site (same frame rules as geoms, no mass).
pub fn compile_site(item: &Item<SiteSpec>, conv: AngleConv) -> Res<CSite> {
    let s = &item.spec;
    let err = |m: String| MjcfError::new(item.pos.clone(), m);
    if matches!(s.gtype, GeomType::Mesh | GeomType::Hfield | GeomType::Plane) {
        return Err(err("meshes, hfields and planes not allowed in site".into()));
    }
    let mut quat = s.quat;
    let mut pos = s.pos;
    let mut size = s.size;
    if !s.fromto[0].is_nan() {
        apply_fromto(s.gtype, &s.fromto, &mut size, &mut pos, &mut quat).map_err(err)?;
    } else {
        resolve(&mut quat, conv, &s.alt).map_err(|e| err(format!("orientation specification error '{e}' in site")))?;
    }
    if let Some(f) = item.frame {
        frame_accum_child(&f.pos, &f.quat, &mut pos, &mut quat);
    }
    normvec(&mut quat);
    for (i, v) in size.iter().enumerate().take(nsize(s.gtype)) {
        if *v <= 0.0 {
            return Err(err(format!("size {i} must be positive in site")));
        }
    }
    Ok(CSite { name: item.name.clone(), gtype: s.gtype, group: s.group, size, pos, quat })
}
