//! Mesh assets: reading `<mesh>` elements (with mesh defaults) and loading them through
//! [`crate::mesh`], plus the mesh arrays of [`Model`].

use std::path::{Path, PathBuf};

use super::attrs::{arr, err_at, int, keyword, string, vec, Res};
use super::spec::Defaults;
use crate::error::{MjcfError, Position};
use crate::mesh::{load_mesh, Builtin, MeshData, MeshInertia, MeshSpec};
use crate::model::Model;
use crate::xml::Element;

/// A mesh asset as read.
#[derive(Clone, Debug)]
pub struct RawMeshAsset {
    /// Name (from `name`, else the file name without directory and extension).
    pub name: String,
    /// Specification for the mesh module.
    pub spec: MeshSpec,
    /// Material name (used by mesh geoms that name none).
    pub material: String,
    /// Where the element is.
    pub pos: Position,
}

const INERTIA: [(&str, MeshInertia); 4] = [
    ("convex", MeshInertia::Convex),
    ("exact", MeshInertia::Exact),
    ("legacy", MeshInertia::Legacy),
    ("shell", MeshInertia::Shell),
];

/// Reads the attributes a mesh default class may carry.
pub fn read_mesh_defaults(el: &Element, spec: &mut MeshSpec) -> Res<()> {
    arr(el, "scale", &mut spec.scale, true)?;
    if let Some(i) = keyword(el, "inertia", &INERTIA)? {
        spec.inertia = i;
    }
    let mut n = spec.maxhullvert;
    if int(el, "maxhullvert", &mut n)? {
        if n != -1 && n < 4 {
            return Err(err_at(el, "maxhullvert must be larger than 3"));
        }
        spec.maxhullvert = n;
    }
    Ok(())
}

/// Reads one `<mesh>` asset on top of its class's mesh defaults.
pub fn read_mesh(el: &Element, defaults: &Defaults, meshdir: &str) -> Res<RawMeshAsset> {
    let class = defaults.class_of(el, 0)?;
    let mut spec = defaults.classes[class].mesh.clone();
    read_mesh_defaults(el, &mut spec)?;
    if let Some(a) = el.attr("builtin") {
        if a.value != "none" {
            spec.builtin = Some(
                Builtin::from_keyword(&a.value)
                    .ok_or_else(|| super::attrs::err_attr(a, format!("unknown builtin mesh type '{}'", a.value)))?,
            );
            spec.params = vec(el, "params")?.ok_or_else(|| err_at(el, "required attribute missing: 'params'"))?;
        }
    }
    spec.content_type = string(el, "content_type");
    if let Some(v) = vec(el, "vertex")? {
        spec.vertex = v.iter().map(|&x| x as f32).collect();
    }
    if let Some(v) = vec(el, "normal")? {
        spec.normal = v.iter().map(|&x| x as f32).collect();
    }
    if let Some(a) = el.attr("face") {
        spec.face = super::attrs::ints(a)?;
    }
    arr(el, "refpos", &mut spec.refpos, true)?;
    arr(el, "refquat", &mut spec.refquat, true)?;
    if let Some(a) = keyword(el, "smoothnormal", &[("false", false), ("true", true)])? {
        spec.smoothnormal = a;
    }
    let file = string(el, "file");
    let mut name = string(el, "name").unwrap_or_default();
    if let Some(f) = &file {
        if name.is_empty() {
            // MuJoCo names an unnamed mesh after its file, without directory and extension
            let base = f.rsplit(['/', '\\']).next().unwrap_or(f);
            name = match base.rfind('.') {
                Some(i) => base[..i].to_string(),
                None => base.to_string(),
            };
        }
        spec.file = Some(Path::new(meshdir).join(f));
    }
    let material = string(el, "material").unwrap_or_default();
    Ok(RawMeshAsset { name, spec, material, pos: el.pos.clone() })
}

/// Loads every mesh; `model_dir` is the directory of the main model file.
pub fn load_meshes(assets: &[RawMeshAsset], model_dir: &Path) -> Res<Vec<MeshData>> {
    assets
        .iter()
        .map(|a| load_mesh(&a.spec, model_dir).map_err(|e| MjcfError::new(a.pos.clone(), e.to_string())))
        .collect()
}

/// Fills the mesh arrays of `m`.
pub fn fill_mesh_arrays(m: &mut Model, assets: &[RawMeshAsset], meshes: &[MeshData]) {
    m.nmesh = meshes.len();
    for (a, d) in assets.iter().zip(meshes) {
        m.mesh_names.push(a.name.clone());
        m.mesh_vertadr.push(m.mesh_vert.len());
        m.mesh_vertnum.push(d.vert.len() / 3);
        m.mesh_faceadr.push(m.mesh_face.len());
        m.mesh_facenum.push(d.face.len() / 3);
        for v in d.vert.chunks_exact(3) {
            m.mesh_vert.push([v[0], v[1], v[2]]);
        }
        for f in d.face.chunks_exact(3) {
            m.mesh_face.push([f[0], f[1], f[2]]);
        }
        match &d.graph {
            Some(g) => {
                m.mesh_graphadr.push(m.mesh_graph.len() as i32);
                m.mesh_graph.extend_from_slice(g);
            }
            None => m.mesh_graphadr.push(-1),
        }
        m.mesh_polyadr.push(m.mesh_polynum.iter().sum());
        m.mesh_polynum.push(d.polygon.len());
        for (p, n) in d.polygon.iter().zip(&d.polygon_normal) {
            m.mesh_polyvertadr.push(m.mesh_polyvert.len());
            m.mesh_polyvertnum.push(p.len());
            m.mesh_polyvert.extend_from_slice(p);
            m.mesh_polynormal.push(*n);
        }
        // MuJoCo sizes the vertex-to-polygon map by the vertex count even without a hull
        for v in 0..d.vert.len() / 3 {
            let list = d.polygon_map.get(v).map_or(&[][..], Vec::as_slice);
            m.mesh_polymapadr.push(m.mesh_polymap.len());
            m.mesh_polymapnum.push(list.len());
            m.mesh_polymap.extend_from_slice(list);
        }
        m.mesh_qhull_order.push(d.hull.as_ref().is_none_or(|h| h.qhull_order.is_some()));
        m.mesh_scale.push(d.scale);
        m.mesh_pos.push(d.pos);
        m.mesh_quat.push(d.quat);
    }
    m.nmeshvert = m.mesh_vert.len();
    m.nmeshface = m.mesh_face.len();
    m.nmeshgraph = m.mesh_graph.len();
    m.nmeshpoly = m.mesh_polynum.iter().sum();
    m.nmeshpolyvert = m.mesh_polyvert.len();
    m.nmeshpolymap = m.mesh_polymap.len();
}

/// The directory relative asset files resolve against: the main file's directory.
pub fn model_dir(root: &Element) -> PathBuf {
    root.pos.file.parent().map(Path::to_path_buf).unwrap_or_default()
}
