//! Mesh assets: loading (OBJ, binary STL, MSH, inline data), convex hull, mass properties,
//! and the processed values MuJoCo 4.0.0 stores in `mjModel` (`mesh_vert`, `mesh_normal`,
//! `mesh_face`, `mesh_graph`, `mesh_pos`, `mesh_quat`, ...), plus the geom quantities the
//! compiler derives from a mesh (`geom_size`, `geom_aabb`, `geom_rbound`, mass and inertia).
//!
//! Entry point: [`load_mesh`] for a `<mesh>` element (or [`process_raw`] for data already in
//! memory). The compiler then uses the [`MeshData`] methods for every geom referencing it.
//!
//! Submodules: [`obj`], [`stl`], [`msh`] (file formats), [`builtin`] (procedural meshes),
//! [`hull`] (quickhull and the graph), [`polygon`] (flat hull facets), [`mass`] (volume,
//! centroid, inertia), [`eig3`] (MuJoCo's 3x3 eigen-decomposition, shared with body inertia),
//! `normal` and `process` (the processing pipeline).
//!
//! What matches MuJoCo bit for bit or to round-off (checked against the Python bindings):
//! vertices, faces given by the user or file, normals, `mesh_pos`, `mesh_quat`, volume and
//! inertia for all four inertia options, the hull's vertex set (also with `maxhullvert`), and
//! the geom values. What only matches as a set: the hull's triangulation of flat facets and
//! its vertex order (qhull's internal order), hence also the faces of point-cloud meshes and
//! their generated normals, and the polygon order.

pub mod builtin;
pub mod eig3;
mod fasthash;
pub mod hull;
pub mod mass;
pub mod msh;
mod normal;
pub mod obj;
pub mod polygon;
mod process;
pub mod qhull;
mod qhull_merge;
mod qhull_nonconvex;
mod qhull_simplex;

/// What is wrong with a mesh file that does not parse (the loader adds the file's path).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormatError(pub String);
mod qhull_vertices;
pub mod stl;

use std::path::{Path, PathBuf};

pub use builtin::Builtin;
pub use hull::Hull;
pub use process::RawMesh;

use crate::types::GeomType;

/// How mass and inertia are inferred from a mesh (`<mesh inertia="...">`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeshInertia {
    /// Solid convex hull.
    Convex,
    /// Solid mesh with signed pyramids; requires a consistently oriented mesh.
    Exact,
    /// Solid, every pyramid counted positively (MuJoCo's default).
    #[default]
    Legacy,
    /// Hollow surface of uniform area density.
    Shell,
}

impl MeshInertia {
    /// Parses the MJCF keyword (`convex`, `exact`, `legacy`, `shell`).
    pub fn from_keyword(s: &str) -> Option<MeshInertia> {
        match s {
            "convex" => Some(MeshInertia::Convex),
            "exact" => Some(MeshInertia::Exact),
            "legacy" => Some(MeshInertia::Legacy),
            "shell" => Some(MeshInertia::Shell),
            _ => None,
        }
    }
}

/// A `<mesh>` element's attributes, already parsed and with defaults applied.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSpec {
    /// `file` attribute (relative paths resolve against `base_dir` of [`load_mesh`]).
    pub file: Option<PathBuf>,
    /// `content_type` attribute (`model/obj`, `model/stl`, `model/vnd.mujoco.msh`).
    pub content_type: Option<String>,
    /// `vertex` attribute, parsed as `f32` as MuJoCo does.
    pub vertex: Vec<f32>,
    /// `normal` attribute.
    pub normal: Vec<f32>,
    /// `face` attribute.
    pub face: Vec<i32>,
    /// `scale` attribute.
    pub scale: [f64; 3],
    /// `refpos` attribute.
    pub refpos: [f64; 3],
    /// `refquat` attribute (normalized during processing).
    pub refquat: [f64; 4],
    /// `inertia` attribute.
    pub inertia: MeshInertia,
    /// `builtin` attribute: a procedural mesh made from `params` (replaces inline data).
    pub builtin: Option<Builtin>,
    /// `params` attribute of a builtin mesh.
    pub params: Vec<f64>,
    /// `smoothnormal` attribute.
    pub smoothnormal: bool,
    /// `maxhullvert` attribute (-1: unlimited).
    pub maxhullvert: i32,
    /// Whether the hull graph is needed: set by the compiler when a `type="mesh"` geom using
    /// this mesh has nonzero contype/conaffinity or is in an explicit `<pair>`.
    pub need_hull: bool,
}

impl Default for MeshSpec {
    fn default() -> Self {
        MeshSpec {
            file: None,
            content_type: None,
            vertex: Vec::new(),
            normal: Vec::new(),
            face: Vec::new(),
            scale: [1.0; 3],
            refpos: [0.0; 3],
            refquat: [1.0, 0.0, 0.0, 0.0],
            inertia: MeshInertia::Legacy,
            builtin: None,
            params: Vec::new(),
            smoothnormal: false,
            maxhullvert: -1,
            need_hull: false,
        }
    }
}

/// Why a mesh could not be loaded; the caller adds the MJCF position.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read.
    #[error("could not read mesh file '{path}': {message}")]
    Io {
        /// The path that was tried.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// The file is not a valid mesh of its format.
    #[error("mesh file '{path}': {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The mesh data cannot be processed (too few vertices, zero volume, flat, ...).
    #[error("{0}")]
    Invalid(String),
    /// A builtin beyond specula's size limits (refused before MuJoCo C sees the file, which
    /// takes minutes on it or runs out of memory).
    #[error("{0}")]
    TooLarge(String),
}

/// A processed mesh: what `mjModel` stores for it plus what geoms need.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    /// `mesh_vert`: vertices in the mesh frame (centred, principal axes), xyz triples.
    pub vert: Vec<f32>,
    /// `mesh_normal`: unit vertex normals in the mesh frame.
    pub normal: Vec<f32>,
    /// `mesh_face`: triangles (vertex indices).
    pub face: Vec<i32>,
    /// `mesh_facenormal`: per-corner normal indices.
    pub facenormal: Vec<i32>,
    /// `mesh_graph` block (None: `mesh_graphadr = -1`). Same polytope as MuJoCo's; the vertex
    /// order and the triangulation of flat facets may differ.
    pub graph: Option<Vec<i32>>,
    /// Flat hull polygons as vertex cycles (`mesh_polyvert` per polygon; `mesh_polynum` is the
    /// count), in MuJoCo 4.0.0's order for this hull's faces; as the hull's face order is not
    /// qhull's, the order and cycle starts may still differ from MuJoCo's (see [`polygon`]).
    pub polygon: Vec<Vec<i32>>,
    /// `mesh_polynormal`: unit normal of each polygon in the mesh frame.
    pub polygon_normal: Vec<[f64; 3]>,
    /// `mesh_polymap`: for every vertex, the polygons that contain it (empty lists without hull).
    pub polygon_map: Vec<Vec<i32>>,
    /// The convex hull in terms of `vert` indices, when it was computed.
    pub hull: Option<Hull>,
    /// `mesh_pos`: the centre of mass subtracted from the (scaled) input vertices.
    pub pos: [f64; 3],
    /// `mesh_quat`: orientation of the principal frame in the input frame.
    pub quat: [f64; 4],
    /// `mesh_scale`.
    pub scale: [f64; 3],
    /// Inertia option used.
    pub inertia: MeshInertia,
    /// Volume (0 for shell inertia).
    pub volume: f64,
    /// Surface area (only for shell inertia; 0 otherwise).
    pub surface: f64,
    /// Principal moments at unit density, decreasing.
    pub eigval: [f64; 3],
    /// Half-sizes of the box with the same volume and principal inertia.
    pub inertia_box: [f64; 3],
    /// Bounding box in the mesh frame: `[xmin, ymin, zmin, xmax, ymax, zmax]`.
    pub aamm: [f64; 6],
}

impl MeshData {
    /// Volume, or surface area for shell inertia (MuJoCo's `GetVolumeRef`); mass = density * this.
    pub fn volume_ref(&self) -> f64 {
        if self.inertia == MeshInertia::Shell {
            self.surface
        } else {
            self.volume
        }
    }

    /// `geom_size` of a `type="mesh"` geom: per axis the larger of |min| and |max| of `aamm`.
    pub fn geom_size(&self) -> [f64; 3] {
        let a = &self.aamm;
        [a[0].abs().max(a[3].abs()), a[1].abs().max(a[4].abs()), a[2].abs().max(a[5].abs())]
    }

    /// `geom_aabb` of a mesh geom: centre then half-sizes of `aamm`.
    pub fn geom_aabb(&self) -> [f64; 6] {
        let a = &self.aamm;
        [
            (a[3] + a[0]) / 2.0,
            (a[4] + a[1]) / 2.0,
            (a[5] + a[2]) / 2.0,
            (a[3] - a[0]) / 2.0,
            (a[4] - a[1]) / 2.0,
            (a[5] - a[2]) / 2.0,
        ]
    }

    /// `geom_rbound` of a mesh geom: the norm of [`MeshData::geom_size`].
    pub fn geom_rbound(&self) -> f64 {
        let h = self.geom_size();
        (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt()
    }

    /// `mesh_extrema`: for each of the 27 directions (cx, cy, cz) in {-1, 0, 1}^3 (cx slowest),
    /// the hull-local index of the vertex farthest along it (float arithmetic, first wins);
    /// all zero without a hull.
    pub fn extrema(&self) -> [i32; 27] {
        let mut out = [0i32; 27];
        let Some(g) = &self.graph else { return out };
        let nv = g[0] as usize;
        let mut best = [f32::MIN; 27];
        for local in 0..nv {
            let id = g[2 + nv + local] as usize;
            let (x, y, z) = (self.vert[3 * id], self.vert[3 * id + 1], self.vert[3 * id + 2]);
            let mut k = 0;
            for cx in [-1.0f32, 0.0, 1.0] {
                for cy in [-1.0f32, 0.0, 1.0] {
                    for cz in [-1.0f32, 0.0, 1.0] {
                        let dot = x * cx + y * cy + z * cz;
                        if dot > best[k] {
                            best[k] = dot;
                            out[k] = local as i32;
                        }
                        k += 1;
                    }
                }
            }
        }
        out
    }

    /// Diagonal inertia of a mesh geom of mass `mass` (in the mesh's principal frame).
    pub fn geom_inertia(&self, mass: f64) -> [f64; 3] {
        let b = &self.inertia_box;
        [
            mass * (b[1] * b[1] + b[2] * b[2]) / 3.0,
            mass * (b[0] * b[0] + b[2] * b[2]) / 3.0,
            mass * (b[0] * b[0] + b[1] * b[1]) / 3.0,
        ]
    }

    /// Size and centre (mesh frame) of a primitive geom fitted to this mesh (`<geom mesh=..
    /// type="box">`): from the inertia box, or from the bounding box with `fitaabb`; the size
    /// is multiplied by `fitscale`. The geom frame is then `pos + quat * centre`, `quat`.
    pub fn fit_geom(&self, ty: GeomType, fitaabb: bool, fitscale: f64) -> Result<([f64; 3], [f64; 3]), MeshError> {
        let mut size = [0.0; 3];
        let mut center = [0.0; 3];
        let bad = || MeshError::Invalid("invalid geom type in fitting mesh".into());
        if !fitaabb {
            let b = &self.inertia_box;
            match ty {
                GeomType::Sphere => size[0] = (b[0] + b[1] + b[2]) / 3.0,
                GeomType::Capsule => {
                    size[0] = (b[0] + b[1]) / 2.0;
                    size[1] = (b[2] - size[0] / 2.0).max(0.0);
                }
                GeomType::Cylinder => {
                    size[0] = (b[0] + b[1]) / 2.0;
                    size[1] = b[2];
                }
                GeomType::Ellipsoid | GeomType::Box => size = *b,
                _ => return Err(bad()),
            }
        } else {
            let a = &self.aamm;
            center = [(a[0] + a[3]) / 2.0, (a[1] + a[4]) / 2.0, (a[2] + a[5]) / 2.0];
            let half = [a[3] - center[0], a[4] - center[1], a[5] - center[2]];
            match ty {
                GeomType::Sphere => size[0] = half[0].max(half[1]).max(half[2]),
                GeomType::Capsule | GeomType::Cylinder => {
                    size[0] = half[0].max(half[1]);
                    size[1] = half[2];
                    if ty == GeomType::Capsule {
                        size[1] -= size[0];
                    }
                }
                GeomType::Ellipsoid | GeomType::Box => size = half,
                _ => return Err(bad()),
            }
        }
        for s in size.iter_mut() {
            *s *= fitscale;
        }
        Ok((size, center))
    }
}

/// The file format of a mesh, from `content_type` or else the file extension.
fn format_of(spec: &MeshSpec, path: &Path) -> Option<&'static str> {
    if let Some(ct) = spec.content_type.as_deref() {
        return match ct {
            "model/obj" => Some("obj"),
            "model/stl" => Some("stl"),
            "model/vnd.mujoco.msh" => Some("msh"),
            _ => None,
        };
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "obj" => Some("obj"),
        "stl" => Some("stl"),
        "msh" => Some("msh"),
        _ => None,
    }
}

/// Reads the mesh file of `spec` (if any), merges the inline data and processes the result.
///
/// `base_dir` is the directory relative file names resolve against (the model file's
/// directory joined with `compiler/meshdir`).
pub fn load_mesh(spec: &MeshSpec, base_dir: &Path) -> Result<MeshData, MeshError> {
    // A builtin writes its data into the spec as if given inline (and may force shell).
    let generated;
    let spec = match spec.builtin {
        Some(kind) => {
            let g = builtin::make(kind, &spec.params)?;
            let mut s = spec.clone();
            s.vertex = g.raw.vert;
            // A generator that makes no faces (cone, wedge, plate) leaves the user's `face`
            // (measured: a cone with face="0 1 2" has one face, and its volume is too small).
            if !g.raw.face.is_empty() {
                s.face = g.raw.face;
            }
            s.normal = g.raw.normal;
            if g.shell {
                s.inertia = MeshInertia::Shell;
            }
            generated = s;
            &generated
        }
        None => spec,
    };
    let Some(file) = &spec.file else {
        let raw = RawMesh {
            vert: spec.vertex.clone(),
            normal: spec.normal.clone(),
            face: spec.face.clone(),
            facenormal: Vec::new(),
        };
        return process_raw(raw, spec);
    };
    let path = if file.is_absolute() { file.clone() } else { base_dir.join(file) };
    let format_err = |message: String| MeshError::Format { path: path.clone(), message };
    let fmt = format_of(spec, &path)
        .ok_or_else(|| format_err("unknown mesh file type (expected .obj, .stl or .msh)".into()))?;
    let bytes = std::fs::read(&path).map_err(|e| MeshError::Io { path: path.clone(), message: e.to_string() })?;
    let mut raw = match fmt {
        "obj" => {
            let o = obj::parse(&bytes).map_err(|e| format_err(e.0))?;
            RawMesh { vert: o.vert, normal: o.normal, face: o.face, facenormal: o.facenormal }
        }
        "stl" => {
            let (vert, face) = stl::parse(&bytes).map_err(|e| format_err(e.0))?;
            RawMesh { vert, face, ..Default::default() }
        }
        _ => {
            let righthand = spec.scale[0] * spec.scale[1] * spec.scale[2] > 0.0;
            let m = msh::parse(&bytes, righthand).map_err(|e| format_err(e.0))?;
            RawMesh { vert: m.vert, normal: m.normal, face: m.face, facenormal: m.facenormal }
        }
    };
    // Inline data may only fill what the file left empty.
    let repeated = |what: &str| MeshError::Invalid(format!("repeated {what} specification"));
    if !raw.normal.is_empty() && !spec.normal.is_empty() {
        return Err(repeated("normal"));
    } else if raw.normal.is_empty() {
        raw.normal = spec.normal.clone();
    }
    if !raw.face.is_empty() && !spec.face.is_empty() {
        return Err(repeated("face"));
    } else if raw.face.is_empty() {
        raw.face = spec.face.clone();
    }
    if !raw.vert.is_empty() && !spec.vertex.is_empty() {
        return Err(repeated("vertex"));
    } else if raw.vert.is_empty() {
        raw.vert = spec.vertex.clone();
    }
    if !raw.facenormal.is_empty() && !spec.normal.is_empty() {
        return Err(repeated("facenormal"));
    }
    process_raw(raw, spec)
}

/// Processes mesh data already in memory (vertices, faces, normals) as MuJoCo's compiler does.
pub fn process_raw(raw: RawMesh, spec: &MeshSpec) -> Result<MeshData, MeshError> {
    process::process(raw, spec)
}
