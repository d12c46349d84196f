//! The MJCF compiler: element tree to [`Model`], reproducing MuJoCo 4.0's compiler.
//!
//! Stages, in MuJoCo's order:
//! 1. `compiler`, `option`, `size`, `default`, `asset`, `contact`, `equality`, `tendon`,
//!    `actuator`, `sensor`, `keyframe` and finally `worldbody` sections are read
//!    ([`options`], [`spec`], [`contact`], [`keyframe`], [`tree`]).
//! 2. Bodies are compiled in depth-first order ([`body`], [`geom`]): orientations, geom
//!    sizes/frames/inertias, body inertia from geoms, joints, sites.
//! 3. Everything is laid out into the flat arrays of [`Model`] ([`assemble`]), then contact
//!    pairs/excludes are resolved and sorted, keyframes are filled ([`keyframe`]), and the
//!    per-body midphase trees are built ([`bvh`]).
//!
//! `frame` and `replicate` are expanded while reading the tree; `attach` pulls a body, frame or
//! world from a `<model>` asset, compiled with that model's own compiler settings and default
//! classes ([`tree::Source`]); elements outside the tree that refer to replicated or attached
//! bodies are copied as MuJoCo does ([`refs`]). Meshes and height fields come from
//! [`crate::mesh`] and [`hfield`].
//!
//! Not supported yet (an error, never silently wrong): `composite`/`flexcomp`, height fields
//! from files, `fusestatic`/`discardvisual`. Not computed: `*_invweight0`, `stat` and mesh
//! BVHs (joint `springdamper` is resolved with its own qpos0 inertia, [`springdamper`]).

pub mod actuator;
mod actuator_dcmotor;
pub mod actuator_params;
pub mod actuator_values;
pub mod assemble;
pub mod attrs;
pub mod body;
pub mod bvh;
pub mod contact;
pub mod copies;
pub mod custom;
pub mod equality;
pub mod fluid;
pub mod geom;
pub mod hfield;
pub mod keyframe;
pub mod lengthrange;
pub mod math;
pub mod mesh;
pub mod options;
pub mod orient;
pub mod ranges;
pub mod refs;
pub mod sensor;
pub mod spec;
pub mod springdamper;
pub mod tendon;
pub mod texture;
pub mod tree;
pub mod validate;

use std::path::{Path, PathBuf};

use crate::error::MjcfError;
use crate::model::Model;
use crate::xml::Element;
use attrs::{err_at, Res};
use body::{compile_body, CBody, CompilerSettings};

/// Everything read from the sections other than `worldbody`, needed by [`assemble`].
#[derive(Debug, Default)]
pub struct Extras {
    /// Model name.
    pub model_name: String,
    /// Mesh assets.
    pub meshes: Vec<mesh::RawMeshAsset>,
    /// Height fields.
    pub hfields: Vec<hfield::HField>,
    /// Material names.
    pub materials: Vec<String>,
    /// Contact pairs.
    pub pairs: Vec<contact::RawPair>,
    /// Excluded body pairs.
    pub excludes: Vec<contact::RawExclude>,
    /// Equality constraint names.
    pub equalities: Vec<String>,
    /// Tendon names.
    pub tendons: Vec<String>,
    /// Actuator names.
    pub actuators: Vec<String>,
    /// Tendon elements, one per tendon (replicas and attached ones included).
    pub tendon_els: Vec<copies::Placed>,
    /// Actuator elements, one per actuator (replicas and attached ones included).
    pub actuator_els: Vec<copies::Placed>,
    /// Number of actuator activation states.
    pub na: usize,
    /// Number of controls.
    pub nu: usize,
    /// Sensor names.
    pub sensors: Vec<String>,
    /// Keyframes.
    pub keys: Vec<keyframe::RawKey>,
}

/// Pushes the `name` of each child of `section` whose tag is in `kinds` (all when empty).
pub fn names_of(section: &Element, kinds: &[&str], out: &mut Vec<String>) {
    for c in section.children.iter().filter(|c| kinds.is_empty() || kinds.contains(&c.name.as_str())) {
        out.push(c.attr("name").map(|a| a.value.clone()).unwrap_or_default());
    }
}

/// Compiles an MJCF element tree (root `mujoco`) into a [`Model`]; asset files resolve
/// against the directory of the file the root element came from.
pub fn compile(root: &Element) -> Result<Model, MjcfError> {
    compile_in(root, &mesh::model_dir(root))
}

/// Compiles with asset files resolved against `dir`.
pub fn compile_in(root: &Element, dir: &Path) -> Result<Model, MjcfError> {
    if root.name != "mujoco" {
        return Err(err_at(root, format!("root element is <{}>; expected <mujoco>", root.name)));
    }
    let sections = |name: &'static str| root.children.iter().filter(move |c| c.name == name);
    let mut cs = CompilerSettings::default();
    let mut lropt = lengthrange::LengthRangeOpt::default();
    for s in sections("compiler") {
        options::read_compiler(s, &mut cs)?;
        for c in s.children.iter().filter(|c| c.name == "lengthrange") {
            lengthrange::read_lengthrange(c, &mut lropt)?;
        }
    }
    if cs.fusestatic {
        let s = root.children.iter().find(|c| c.name == "compiler").unwrap_or(root);
        return Err(err_at(s, "compiler fusestatic=\"true\" is not supported by specula yet"));
    }
    if cs.discardvisual {
        let s = root.children.iter().find(|c| c.name == "compiler").unwrap_or(root);
        return Err(err_at(s, "compiler discardvisual=\"true\" is not supported by specula yet"));
    }
    let mut opt = crate::model::Options::default();
    for s in sections("option") {
        options::read_option(s, &mut opt)?;
    }
    let mut nkey = 0;
    for s in sections("size") {
        options::read_size(s, &mut nkey)?;
    }
    let mut defaults = spec::Defaults::new();
    for s in sections("default") {
        defaults.read_section(s, None)?;
    }
    let defaults = defaults;
    let mut ex =
        Extras { model_name: root.attr("model").map(|a| a.value.clone()).unwrap_or_default(), ..Default::default() };
    for s in sections("asset") {
        for c in s.children.iter().filter(|c| c.name == "mesh") {
            ex.meshes.push(mesh::read_mesh(c, &defaults, &cs.meshdir)?);
        }
        names_of(s, &["material"], &mut ex.materials);
        for c in s.children.iter().filter(|c| c.name == "hfield") {
            ex.hfields.push(hfield::read_hfield(c, &dir.join(&cs.meshdir))?);
        }
    }
    for s in sections("contact") {
        contact::read_contact(s, &defaults, &mut ex.pairs, &mut ex.excludes)?;
    }
    for s in sections("equality") {
        names_of(s, &[], &mut ex.equalities);
    }
    for s in sections("tendon") {
        names_of(s, &["spatial", "fixed"], &mut ex.tendons);
        let els = s.children.iter().filter(|c| c.name == "spatial" || c.name == "fixed");
        ex.tendon_els.extend(els.map(copies::Placed::written));
    }
    for s in sections("actuator") {
        for c in s.children.iter().filter(|c| c.name != "plugin") {
            defaults.class_of(c, 0)?;
            ex.actuators.push(c.attr("name").map(|a| a.value.clone()).unwrap_or_default());
            ex.actuator_els.push(copies::Placed::written(c));
            let (a, u) = refs::act_and_controls(c, &defaults)?;
            ex.na += a;
            ex.nu += u;
        }
    }
    for s in sections("sensor") {
        names_of(s, &[], &mut ex.sensors);
    }
    for s in sections("keyframe") {
        keyframe::read_keyframe(s, &mut ex.keys)?;
    }
    while (ex.keys.len() as i64) < i64::from(nkey) {
        ex.keys.push(keyframe::RawKey::default());
    }

    // model assets that `attach` can use, each with its own compiler settings and defaults
    let mut sources = vec![tree::Source { name: String::new(), root: Some(root.clone()), conv: cs.conv, defaults }];
    let mut all_cs = vec![cs.clone()];
    // each source's directory relative to `dir`: an attached model's mesh files resolve
    // against its own file's directory (probed with MuJoCo 4.0.0: sub/child.xml with
    // meshdir="meshes" loads sub/meshes/tet.obj)
    let mut src_dirs = vec![PathBuf::new()];
    for s in sections("asset") {
        for c in s.children.iter().filter(|c| c.name == "model") {
            let file = c.attr("file").ok_or_else(|| err_at(c, "required attribute missing: 'file'"))?;
            let child = crate::xml::parse_file(&dir.join(&file.value))?;
            let mut ccs = CompilerSettings::default();
            for s in child.children.iter().filter(|s| s.name == "compiler") {
                options::read_compiler(s, &mut ccs)?;
            }
            let mut cdefs = spec::Defaults::new();
            for s in child.children.iter().filter(|s| s.name == "default") {
                cdefs.read_section(s, None)?;
            }
            let name = c.attr("name").or_else(|| child.attr("model")).map(|a| a.value.clone()).unwrap_or_default();
            sources.push(tree::Source { name, root: Some(child), conv: ccs.conv, defaults: cdefs });
            all_cs.push(ccs);
            src_dirs.push(Path::new(&file.value).parent().map(Path::to_path_buf).unwrap_or_default());
        }
    }
    tree::check_replicate_copies(root)?;
    let mut builder = tree::TreeBuilder::new(&sources, root.pos.clone());
    for s in sections("worldbody") {
        builder.worldbody(s)?;
    }
    let items = builder.bodies;
    let attached = builder.attached;
    refs::apply_replicates(root, &builder.replicated, &sources[0].defaults, &mut ex)?;
    let mut child_keys = Vec::new();
    for (src, prefix) in &attached {
        if let Some(child) = &sources[*src].root {
            refs::append_referencing(child, prefix, *src, &sources[*src].defaults, &mut ex)?;
            let ccs = &all_cs[*src];
            for s in child.children.iter().filter(|s| s.name == "asset") {
                let mut mats = Vec::new();
                names_of(s, &["material"], &mut mats);
                ex.materials.extend(mats.into_iter().map(|n| format!("{prefix}{n}")));
                for c in s.children.iter().filter(|c| c.name == "mesh") {
                    let mut a = mesh::read_mesh(c, &sources[*src].defaults, &ccs.meshdir)?;
                    a.spec.file = a.spec.file.map(|f| src_dirs[*src].join(f));
                    a.name = format!("{prefix}{}", a.name);
                    if !a.material.is_empty() {
                        a.material = format!("{prefix}{}", a.material);
                    }
                    ex.meshes.push(a);
                }
                for c in s.children.iter().filter(|c| c.name == "hfield") {
                    let mut h = hfield::read_hfield(c, &dir.join(&src_dirs[*src]).join(&ccs.meshdir))?;
                    h.name = format!("{prefix}{}", h.name);
                    ex.hfields.push(h);
                }
            }
            let cm = compile_in(child, &dir.join(&src_dirs[*src]))?;
            child_keys.push((cm, prefix.clone()));
        }
    }

    // meshes used by colliding mesh geoms (or by explicit pairs) need their convex hull
    let pair_geoms: Vec<&str> = ex.pairs.iter().flat_map(|p| [p.geom1.0.as_str(), p.geom2.0.as_str()]).collect();
    for g in items.iter().flat_map(|b| b.geoms.iter()) {
        let s = &g.spec;
        let is_mesh = matches!(s.gtype, crate::types::GeomType::Mesh | crate::types::GeomType::Sdf);
        let collides =
            s.contype != 0 || s.conaffinity != 0 || (!g.name.is_empty() && pair_geoms.contains(&g.name.as_str()));
        if is_mesh && collides {
            if let Some(m) = ex.meshes.iter_mut().find(|m| m.name == s.mesh) {
                m.spec.need_hull = true;
            }
        }
    }
    for m in ex.meshes.iter_mut() {
        if m.spec.inertia == crate::mesh::MeshInertia::Convex {
            m.spec.need_hull = true;
        }
    }
    let mesh_data = mesh::load_meshes(&ex.meshes, dir)?;
    let mesh_names: Vec<String> = ex.meshes.iter().map(|m| m.name.clone()).collect();
    let hfield_names: Vec<String> = ex.hfields.iter().map(|h| h.name.clone()).collect();
    let mctx = geom::MeshCtx {
        names: &mesh_names,
        data: &mesh_data,
        fitaabb: cs.fitaabb,
        hfield_names: &hfield_names,
        hfields: &ex.hfields,
    };

    // compile bodies in depth-first order; weld ids flow from parent to child
    let mut bodies: Vec<CBody> = Vec::with_capacity(items.len());
    for (id, it) in items.iter().enumerate() {
        let weldid = if id == 0 {
            0
        } else if !it.joints.is_empty() || it.mocap {
            id
        } else {
            bodies[it.parent].weldid
        };
        let static_weld = weldid == 0 || if weldid == id { it.mocap } else { bodies[weldid].mocap };
        bodies.push(compile_body(id, it, weldid, static_weld, &all_cs, &mctx)?);
    }
    check_names(&items)?;
    validate::check_model(root, &sources[0].defaults, &items, &ex, dir, &cs.texturedir, opt.timestep)?;
    for (i, a) in ex.meshes.iter().enumerate() {
        if !a.name.is_empty() && ex.meshes[..i].iter().any(|b| b.name == a.name) {
            return Err(MjcfError::new(a.pos.clone(), format!("repeated name '{}' in mesh", a.name)));
        }
    }
    check_moving_mass(&bodies, &items)?;
    resolve_materials(&mut bodies, &items, &ex)?;
    let mut m = assemble::assemble(&bodies, &items, &ex)?;
    assemble::tendon_armature_bodies(&mut m, &ex.tendon_els, &sources)?;
    let autolimits: Vec<bool> = all_cs.iter().map(|c| c.autolimits).collect();
    actuator_params::compile_actuators(&ex.actuator_els, &sources, &autolimits, &mut m)?;
    equality::compile_equalities(root, &sources[0].defaults, &mut m)?;
    for (cm, prefix) in &child_keys {
        keyframe::append_attached_keys(&mut m, cm, prefix);
    }
    mesh::fill_mesh_arrays(&mut m, &ex.meshes, &mesh_data);
    hfield::fill_hfield_arrays(&mut m, &ex.hfields);
    bvh::fill_body_bvh(&mut m);
    m.opt = opt;
    m.lropt = lropt;
    if cs.settotalmass > 0.0 {
        set_total_mass(&mut m, cs.settotalmass);
    }
    let sd: Vec<[f64; 2]> = bodies.iter().flat_map(|b| b.joints.iter().map(|j| j.spec.springdamper)).collect();
    springdamper::apply(&mut m, &sd);
    tendon::compile_tendons(&ex.tendon_els, &ex.actuator_els, &sources, &autolimits, &ex.materials, &mut m)?;
    sensor::compile_sensors(root, &mut m)?;
    actuator_params::tendon_actuator_lengths(&mut m);
    for s in sections("custom") {
        custom::read_custom(s, &mut m)?;
    }
    Ok(m)
}

/// Sets geom material ids; a mesh geom without its own material uses its mesh's.
fn resolve_materials(bodies: &mut [CBody], items: &[tree::BodyItem], ex: &Extras) -> Res<()> {
    for (b, it) in bodies.iter_mut().zip(items) {
        for (g, gi) in b.geoms.iter_mut().zip(&it.geoms) {
            let mut name = g.spec.material.as_str();
            if name.is_empty() && g.dataid >= 0 && !g.spec.mesh.is_empty() {
                if let Some(m) = ex.meshes.iter().find(|m| m.name == g.spec.mesh) {
                    name = m.material.as_str();
                }
            }
            if !name.is_empty() {
                let id =
                    ex.materials.iter().position(|m| m == name).ok_or_else(|| {
                        MjcfError::new(gi.pos.clone(), format!("material '{name}' not found in geom"))
                    })?;
                g.matid = id as i32;
            }
        }
    }
    Ok(())
}

/// Scales all masses and inertias so the total mass is `total` (MuJoCo's `mj_setTotalmass`).
fn set_total_mass(m: &mut Model, total: f64) {
    let sum: f64 = m.body_mass.iter().skip(1).sum();
    if sum < math::MINVAL {
        return;
    }
    let scale = total / sum;
    for i in 1..m.nbody {
        m.body_mass[i] *= scale;
        for k in 0..3 {
            m.body_inertia[i][k] *= scale;
        }
    }
    assemble::subtree_mass(m);
}

/// Errors on a repeated non-empty name among bodies, joints, geoms or sites.
fn check_names(items: &[tree::BodyItem]) -> Res<()> {
    use std::collections::HashSet;
    let mut bodies = HashSet::new();
    let mut joints = HashSet::new();
    let mut geoms = HashSet::new();
    let mut sites = HashSet::new();
    let repeated = |kind: &str, name: &str, pos: &crate::error::Position| {
        MjcfError::new(pos.clone(), format!("repeated name '{name}' in {kind}"))
    };
    for b in items {
        if !b.name.is_empty() && !bodies.insert(b.name.as_str()) {
            return Err(repeated("body", &b.name, &b.el_pos));
        }
        for j in &b.joints {
            if !j.name.is_empty() && !joints.insert(j.name.as_str()) {
                return Err(repeated("joint", &j.name, &j.pos));
            }
        }
        for g in &b.geoms {
            if !g.name.is_empty() && !geoms.insert(g.name.as_str()) {
                return Err(repeated("geom", &g.name, &g.pos));
            }
        }
        for s in &b.sites {
            if !s.name.is_empty() && !sites.insert(s.name.as_str()) {
                return Err(repeated("site", &s.name, &s.pos));
            }
        }
    }
    Ok(())
}

/// A moving body needs mass and inertia above `mjMINVAL`, its own or a static descendant's.
fn check_moving_mass(bodies: &[CBody], items: &[tree::BodyItem]) -> Res<()> {
    fn ok(bodies: &[CBody], items: &[tree::BodyItem], i: usize) -> bool {
        let b = &bodies[i];
        if b.mass >= math::MINVAL && b.inertia.iter().all(|&x| x >= math::MINVAL) {
            return true;
        }
        items[i].children.iter().any(|&c| bodies[c].joints.is_empty() && ok(bodies, items, c))
    }
    for i in 1..bodies.len() {
        if !bodies[i].joints.is_empty() && !ok(bodies, items, i) {
            return Err(MjcfError::new(
                items[i].el_pos.clone(),
                "mass and inertia of moving bodies must be larger than mjMINVAL",
            ));
        }
    }
    Ok(())
}

/// Reads and compiles the MJCF file at `path`.
pub fn load_file(path: &Path) -> Result<Model, MjcfError> {
    compile(&crate::xml::parse_file(path)?)
}

/// Reads and compiles MJCF text; `base_dir` resolves includes and assets, `name` labels
/// error positions.
pub fn load_str(xml: &str, base_dir: &Path, name: &str) -> Result<Model, MjcfError> {
    compile_in(&crate::xml::parse_str(xml, base_dir, name)?, base_dir)
}
