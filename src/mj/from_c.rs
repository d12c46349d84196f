//! The Rust collision model of a C `mjModel`, read field by field, and the few process-level
//! C facilities the drop-in library needs (where our code is loaded from, `atexit`).
//!
//! The drop-in library (`src/capi`) receives only the C model, so it cannot use specula's MJCF
//! compiler: everything the collision stage reads comes from `mjModel` itself. Meshes are the
//! only expensive part (their convex hulls are rebuilt from `mesh_graph`); they are read once per
//! model ([`collision_model`]). Every other array is cheap (a few words per geom, body or pair)
//! and [`refresh`] re-reads them on every collision call, so a program that edits `geom_size`,
//! `geom_margin`, `geom_solref`, `opt.disableflags`, ... between steps gets exactly the contacts
//! MuJoCo would compute from the edited model.

use std::ffi::{c_void, CStr};
use std::os::raw::{c_char, c_int, c_ulong};

use mujoco_sys as sys;
use specula_engine::collision::model::hull_with_polygons;
use specula_engine::collision::{CollisionModel, CollisionOptions};
use specula_engine::narrowphase::ConvexHull;
use specula_engine::speculative::mesh_ray::MeshSurface;
use specula_model::GeomType;

use super::data::slice;

/// What identifies a model's mesh data: if any of it changes, the cached hulls are rebuilt.
///
/// The model pointer alone is not enough: a program may free a model and get the same address
/// (and buffer address) for the next one; `mj_loadXML` itself does that, its compiler's collision
/// call runs on a temporary model. So the sizes, the buffer address and a hash of the mesh data
/// are part of it. The hash reads at most [`MESH_HASH_SAMPLES`] values of each mesh array, so its
/// cost per call stays bounded for big meshes; a model that differs from a freed one only in
/// unsampled vertices at the same address would keep stale hulls (not seen in practice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    buffer: usize,
    nbuffer: sys::mjtSize,
    sizes: [sys::mjtSize; 9],
    mesh: u64,
}

/// How many values of each mesh array the fingerprint hashes.
pub const MESH_HASH_SAMPLES: usize = 1024;

/// An FNV-style hash (one multiply per value, not per byte: it runs on every call) over a
/// strided sample of `values` (all of them when there are few).
fn sample_hash(mut h: u64, values: impl ExactSizeIterator<Item = u64>) -> u64 {
    let stride = values.len().div_ceil(MESH_HASH_SAMPLES).max(1);
    for v in values.step_by(stride) {
        h = (h ^ v).wrapping_mul(0x100_0000_01b3).rotate_left(29);
    }
    h
}

/// The fingerprint of `m`.
pub fn fingerprint(m: &sys::mjModel) -> Fingerprint {
    Fingerprint {
        buffer: m.buffer as usize,
        nbuffer: m.nbuffer,
        sizes: [m.ngeom, m.nbody, m.npair, m.nexclude, m.nmesh, m.nmeshvert, m.nmeshface, m.nmeshgraph, m.nflex],
        mesh: mesh_hash(m),
    }
}

fn mesh_hash(m: &sys::mjModel) -> u64 {
    let nmesh = count(m.nmesh);
    if nmesh == 0 {
        return 0;
    }
    // SAFETY: mjModel holds nmesh address entries, 3 * nmeshvert floats and nmeshgraph ints.
    let (vertadr, graphadr, vert, graph) = unsafe {
        (
            slice(m.mesh_vertadr, nmesh),
            slice(m.mesh_graphadr, nmesh),
            slice(m.mesh_vert, 3 * count(m.nmeshvert)),
            slice(m.mesh_graph, count(m.nmeshgraph)),
        )
    };
    let mut h = 0xcbf2_9ce4_8422_2325;
    h = sample_hash(h, vertadr.iter().map(|&i| i as u64));
    h = sample_hash(h, graphadr.iter().map(|&i| i as u64));
    h = sample_hash(h, vert.iter().map(|&v| u64::from(v.to_bits())));
    sample_hash(h, graph.iter().map(|&i| i as u64))
}

fn count(n: sys::mjtSize) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// `n` rows of `K` values starting at `p` (a flat C array), as a slice of arrays.
///
/// # Safety
/// `p` is null or points to at least `n * K` valid values that outlive the returned slice.
unsafe fn rows<'a, T, const K: usize>(p: *const T, n: usize) -> &'a [[T; K]] {
    // SAFETY: [T; K] has the layout of K consecutive T; the caller guarantees the length.
    unsafe { slice(p as *const [T; K], n) }
}

/// Replaces the contents of `v` with `it` (keeps the allocation).
fn fill<T>(v: &mut Vec<T>, it: impl IntoIterator<Item = T>) {
    v.clear();
    v.extend(it);
}

/// An id as the engine stores it: `usize`, with a negative (invalid) id mapped to `usize::MAX`
/// so that [`CollisionModel::validate`] rejects it instead of wrapping around.
fn id(i: c_int) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// Why a MuJoCo model cannot be read as a collision model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FromCError {
    /// A geom type the engine does not know (a newer MuJoCo, or memory that is not a model).
    #[error("geom {geom} has unknown type {ty}")]
    UnknownGeomType {
        /// The geom's id.
        geom: usize,
        /// Its `geom_type` value.
        ty: i32,
    },
}

/// The collision model of `m`, hulls included.
pub fn collision_model(m: &sys::mjModel) -> Result<CollisionModel, FromCError> {
    let mut cm = CollisionModel::default();
    refresh(&mut cm, m)?;
    cm.hulls = (0..count(m.nmesh)).map(|i| mesh_hull(m, i)).collect();
    cm.surfaces = (0..count(m.nmesh)).map(|i| mesh_surface(m, i)).collect();
    Ok(cm)
}

/// The triangles of mesh `i` of `m` (`mesh_vert`, `mesh_face`), for line-of-sight rays.
pub fn mesh_surface(m: &sys::mjModel, i: usize) -> Option<MeshSurface> {
    let nmesh = count(m.nmesh);
    if i >= nmesh {
        return None;
    }
    // SAFETY: mjModel holds nmesh entries of the mesh address arrays, nmeshvert vertices of 3
    // floats and nmeshface faces of 3 ints; they live as long as `m`.
    let (vertadr, vertnum, faceadr, facenum, vert, face) = unsafe {
        (
            slice(m.mesh_vertadr, nmesh),
            slice(m.mesh_vertnum, nmesh),
            slice(m.mesh_faceadr, nmesh),
            slice(m.mesh_facenum, nmesh),
            rows::<f32, 3>(m.mesh_vert, count(m.nmeshvert)),
            rows::<i32, 3>(m.mesh_face, count(m.nmeshface)),
        )
    };
    let span = |adr: i32, num: i32| {
        let a = usize::try_from(adr).ok()?;
        Some(a..a.checked_add(usize::try_from(num).ok()?)?)
    };
    let vert = vert.get(span(vertadr[i], vertnum[i])?)?;
    let face = face.get(span(faceadr[i], facenum[i])?)?;
    MeshSurface::new(vert, face)
}

/// The convex hull of mesh `i` of `m` as MuJoCo stores it (`mesh_graph` and its polygon
/// table), or `None` without one.
pub fn mesh_hull(m: &sys::mjModel, i: usize) -> Option<ConvexHull> {
    let nmesh = count(m.nmesh);
    if i >= nmesh {
        return None;
    }
    // SAFETY: mjModel holds nmesh entries of the mesh address arrays, nmeshvert vertices of 3
    // floats and nmeshgraph graph ints; they live as long as `m`.
    let (vertadr, vertnum, graphadr, vert, graph) = unsafe {
        (
            slice(m.mesh_vertadr, nmesh),
            slice(m.mesh_vertnum, nmesh),
            slice(m.mesh_graphadr, nmesh),
            rows::<f32, 3>(m.mesh_vert, count(m.nmeshvert)),
            slice(m.mesh_graph, count(m.nmeshgraph)),
        )
    };
    let npoly = count(m.nmeshpoly);
    // SAFETY: mjModel holds nmesh polygon counts and addresses, nmeshpoly polygon vertex
    // counts, addresses and normals (3 doubles each), and nmeshpolyvert polygon vertices.
    let (polyadr, polynum, pvadr, pvnum, pvert, pnormal) = unsafe {
        (
            slice(m.mesh_polyadr, nmesh),
            slice(m.mesh_polynum, nmesh),
            slice(m.mesh_polyvertadr, npoly),
            slice(m.mesh_polyvertnum, npoly),
            slice(m.mesh_polyvert, count(m.nmeshpolyvert)),
            rows::<f64, 3>(m.mesh_polynormal, npoly),
        )
    };
    let (Ok(adr), Ok(num)) = (usize::try_from(vertadr[i]), usize::try_from(vertnum[i])) else {
        return None;
    };
    // MuJoCo's own polygon table, so the narrowphase uses exactly its polygons
    let polys = match (usize::try_from(polyadr[i]), usize::try_from(polynum[i])) {
        (Ok(a), Ok(n)) if a + n <= npoly => a..a + n,
        _ => 0..0,
    };
    let cycles: Option<Vec<&[i32]>> = polys
        .clone()
        .map(|p| {
            let a = usize::try_from(pvadr[p]).ok()?;
            pvert.get(a..a.checked_add(usize::try_from(pvnum[p]).ok()?)?)
        })
        .collect();
    let cycles = cycles.unwrap_or_default();
    let normals = if cycles.is_empty() { &pnormal[0..0] } else { &pnormal[polys] };
    hull_with_polygons(vert, adr, num, graph, graphadr[i], (cycles, normals))
}

/// Re-reads every field of `cm` except the mesh hulls from `m` (no allocation once the vectors
/// have grown). Fails only on a geom type the engine does not know.
pub fn refresh(cm: &mut CollisionModel, m: &sys::mjModel) -> Result<(), FromCError> {
    let (ng, nb, np, nx) = (count(m.ngeom), count(m.nbody), count(m.npair), count(m.nexclude));
    let o = &m.opt;
    cm.nflex = count(m.nflex);
    cm.flg_surfacevel = m.flg_surfacevel;
    // robust mode is specula's setting, not the model's: keep it across refreshes
    let robust = cm.opt.robust;
    cm.opt = CollisionOptions {
        disableflags: o.disableflags as u32,
        enableflags: o.enableflags as u32,
        o_margin: o.o_margin,
        o_solref: o.o_solref,
        o_solimp: o.o_solimp,
        o_friction: o.o_friction,
        ccd_iterations: usize::try_from(o.ccd_iterations).unwrap_or(0),
        ccd_tolerance: o.ccd_tolerance,
        timestep: o.timestep,
        integrator: o.integrator,
        robust,
    };
    // SAFETY (every block below): mjModel's arrays have the documented lengths (ngeom, nbody,
    // npair, nexclude rows of the documented widths) and live as long as `m`; `slice`/`rows`
    // return empty slices for null pointers.
    unsafe {
        let types = slice(m.geom_type, ng);
        cm.geom_type.clear();
        for (g, &t) in types.iter().enumerate() {
            let t = usize::try_from(t).ok().and_then(GeomType::from_index);
            cm.geom_type.push(t.ok_or(FromCError::UnknownGeomType { geom: g, ty: types[g] })?);
        }
        fill(&mut cm.geom_size, rows::<f64, 3>(m.geom_size, ng).iter().copied());
        fill(&mut cm.geom_bodyid, slice(m.geom_bodyid, ng).iter().map(|&b| id(b)));
        fill(&mut cm.geom_contype, slice(m.geom_contype, ng).iter().copied());
        fill(&mut cm.geom_conaffinity, slice(m.geom_conaffinity, ng).iter().copied());
        fill(&mut cm.geom_condim, slice(m.geom_condim, ng).iter().copied());
        fill(&mut cm.geom_priority, slice(m.geom_priority, ng).iter().copied());
        fill(&mut cm.geom_solmix, slice(m.geom_solmix, ng).iter().copied());
        fill(&mut cm.geom_solref, rows::<f64, 2>(m.geom_solref, ng).iter().copied());
        fill(&mut cm.geom_solimp, rows::<f64, 5>(m.geom_solimp, ng).iter().copied());
        fill(&mut cm.geom_friction, rows::<f64, 3>(m.geom_friction, ng).iter().copied());
        fill(&mut cm.geom_margin, slice(m.geom_margin, ng).iter().copied());
        fill(&mut cm.geom_gap, slice(m.geom_gap, ng).iter().copied());
        fill(&mut cm.geom_rbound, slice(m.geom_rbound, ng).iter().copied());
        fill(&mut cm.geom_aabb, rows::<f64, 6>(m.geom_aabb, ng).iter().copied());
        fill(&mut cm.geom_surfacevel, rows::<f64, 6>(m.geom_surfacevel, ng).iter().copied());
        fill(&mut cm.geom_adhesion, slice(m.geom_adhesion, ng).iter().copied());
        fill(&mut cm.geom_dataid, slice(m.geom_dataid, ng).iter().copied());

        fill(&mut cm.body_parentid, slice(m.body_parentid, nb).iter().map(|&b| id(b)));
        fill(&mut cm.body_weldid, slice(m.body_weldid, nb).iter().map(|&b| id(b)));
        fill(&mut cm.body_dofnum, slice(m.body_dofnum, nb).iter().map(|&n| id(n)));
        fill(&mut cm.body_dofadr, slice(m.body_dofadr, nb).iter().copied());
        fill(&mut cm.body_rootid, slice(m.body_rootid, nb).iter().map(|&b| id(b)));
        fill(&mut cm.body_treeid, slice(m.body_treeid, nb).iter().copied());
        fill(&mut cm.body_geomadr, slice(m.body_geomadr, nb).iter().copied());
        fill(&mut cm.body_geomnum, slice(m.body_geomnum, nb).iter().map(|&n| id(n)));
        fill(&mut cm.body_contype, slice(m.body_contype, nb).iter().copied());
        fill(&mut cm.body_conaffinity, slice(m.body_conaffinity, nb).iter().copied());
        fill(&mut cm.body_margin, slice(m.body_margin, nb).iter().copied());
        fill(&mut cm.body_bvhadr, slice(m.body_bvhadr, nb).iter().copied());
        fill(&mut cm.body_bvhnum, slice(m.body_bvhnum, nb).iter().map(|&n| id(n)));
        // Body (and mesh) trees are the static part of MuJoCo's bvh arrays; flex trees follow.
        let nbvh = m.nbvhstatic.max(0) as usize;
        fill(&mut cm.bvh_aabb, rows::<f64, 6>(m.bvh_aabb, nbvh).iter().copied());
        fill(&mut cm.bvh_child, rows::<i32, 2>(m.bvh_child, nbvh).iter().copied());
        fill(&mut cm.bvh_nodeid, slice(m.bvh_nodeid, nbvh).iter().copied());

        fill(&mut cm.pair_dim, slice(m.pair_dim, np).iter().copied());
        fill(&mut cm.pair_geom1, slice(m.pair_geom1, np).iter().map(|&g| id(g)));
        fill(&mut cm.pair_geom2, slice(m.pair_geom2, np).iter().map(|&g| id(g)));
        fill(&mut cm.pair_signature, slice(m.pair_signature, np).iter().map(|&s| s as u32));
        fill(&mut cm.pair_solref, rows::<f64, 2>(m.pair_solref, np).iter().copied());
        fill(&mut cm.pair_solreffriction, rows::<f64, 2>(m.pair_solreffriction, np).iter().copied());
        fill(&mut cm.pair_solimp, rows::<f64, 5>(m.pair_solimp, np).iter().copied());
        fill(&mut cm.pair_margin, slice(m.pair_margin, np).iter().copied());
        fill(&mut cm.pair_gap, slice(m.pair_gap, np).iter().copied());
        fill(&mut cm.pair_adhesion, slice(m.pair_adhesion, np).iter().copied());
        fill(&mut cm.pair_friction, rows::<f64, 5>(m.pair_friction, np).iter().copied());

        fill(&mut cm.exclude_signature, slice(m.exclude_signature, nx).iter().map(|&s| s as u32));

        // height fields are re-read too: a program may edit `hfield_data` between steps
        let nh = count(m.nhfield);
        fill(&mut cm.hfield_size, rows::<f64, 4>(m.hfield_size, nh).iter().copied());
        fill(&mut cm.hfield_nrow, slice(m.hfield_nrow, nh).iter().map(|&n| id(n)));
        fill(&mut cm.hfield_ncol, slice(m.hfield_ncol, nh).iter().map(|&n| id(n)));
        fill(&mut cm.hfield_adr, slice(m.hfield_adr, nh).iter().map(|&a| id(a)));
        fill(&mut cm.hfield_data, slice(m.hfield_data, count(m.nhfielddata)).iter().copied());
    }
    Ok(())
}

/// Whether MuJoCo's global contact-filter callback is installed (the Rust stage does not call it).
pub fn contact_filter_installed() -> bool {
    // SAFETY: reading a plain function-pointer global of the library.
    unsafe { std::ptr::addr_of!(sys::mjcb_contactfilter).read().is_some() }
}

/// glibc's `Dl_info`, filled by `dladdr` (also used by the drop-in's slot redirection).
#[repr(C)]
pub(crate) struct DlInfo {
    pub fname: *const c_char,
    pub fbase: *mut c_void,
    pub sname: *const c_char,
    pub saddr: *mut c_void,
}

extern "C" {
    pub(crate) fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn getauxval(kind: c_ulong) -> c_ulong;
    fn atexit(f: extern "C" fn()) -> c_int;
}
/// `AT_PHDR`: address of the main program's program headers (inside its first mapping).
const AT_PHDR: c_ulong = 3;

/// The load base and file name of the object that holds `addr`, if the loader knows it.
fn object_of(addr: *const c_void) -> Option<(usize, String)> {
    let mut info = DlInfo {
        fname: std::ptr::null(),
        fbase: std::ptr::null_mut(),
        sname: std::ptr::null(),
        saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only reads `addr` as a number and fills `info`.
    if unsafe { dladdr(addr, &mut info) } == 0 {
        return None;
    }
    let name = if info.fname.is_null() {
        String::new()
    } else {
        // SAFETY: dladdr returns a NUL-terminated name owned by the loader.
        unsafe { CStr::from_ptr(info.fname) }.to_string_lossy().into_owned()
    };
    Some((info.fbase as usize, name))
}

/// Whether the C model asks for specula's robust mode: the custom numeric named
/// [`specula_model::model::ROBUST_NUMERIC`] with a first value other than 0.
pub fn asks_robust(m: &sys::mjModel) -> bool {
    let Ok(name) = std::ffi::CString::new(specula_model::model::ROBUST_NUMERIC) else { return false };
    // SAFETY: a valid model and a NUL-terminated name; mj_name2id only reads the name table.
    let id = unsafe { sys::mj_name2id(m, sys::mjOBJ_NUMERIC as c_int, name.as_ptr()) };
    let Ok(id) = usize::try_from(id) else { return false };
    // SAFETY: `id` < nnumeric; numeric_adr/size have nnumeric entries, numeric_data nnumericdata.
    unsafe {
        let (adr, size) = (*m.numeric_adr.add(id), *m.numeric_size.add(id));
        size > 0 && adr >= 0 && i64::from(adr) < m.nnumericdata && *m.numeric_data.add(adr as usize) != 0.0
    }
}

/// Whether this code runs from a shared object (libspecula.so, preloaded or linked) rather than
/// from an executable that links specula statically (the `specula` CLI, the test binaries).
///
/// Compares the load base of this function with that of the main program (found through
/// `getauxval(AT_PHDR)`); if the loader cannot tell, a file name ending in `.so` decides.
pub fn running_from_shared_object() -> bool {
    let here = running_from_shared_object as *const c_void;
    let Some((base, name)) = object_of(here) else {
        return false;
    };
    // SAFETY: getauxval reads the process's auxiliary vector; it has no preconditions.
    let phdr = unsafe { getauxval(AT_PHDR) } as *const c_void;
    match object_of(phdr) {
        Some((main_base, _)) if !phdr.is_null() => base != main_base,
        _ => name.ends_with(".so") || name.contains(".so."),
    }
}

/// Registers `f` to run when the process exits normally (`exit`, return from `main`, Python's
/// interpreter shutdown); false if the C library refused.
pub fn at_exit(f: extern "C" fn()) -> bool {
    // SAFETY: `f` is a plain function with no arguments that does not unwind (callers wrap it).
    unsafe { atexit(f) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mj::Model;

    /// Reading MuJoCo's compiled model gives the collision model specula's own compiler builds
    /// (the `check` tests hold the compiled values to 1e-9, so compare within that). The corpus
    /// scene is skipped, saying so, on a clone without MuJoCo's corpus beside it (the integration
    /// tests find it the same way, in `tests/common`); the project's scenes always run.
    #[test]
    fn collision_model_from_c_matches_the_one_from_specula_s_compiler() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = vec!["scenes/chain.xml", "scenes/flipper.xml"];
        if root.join("../shared/mjcf/corpus").is_dir() {
            files.insert(0, "../shared/mjcf/corpus/local/orient_solmix.xml");
        } else {
            // To the stream itself, past libtest's capture of `eprintln!` (as tests/common does).
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"SKIPPED: collision_model_from_c_matches_the_one_from_specula_s_compiler on local/orient_solmix.xml: \
                  needs ../shared/mjcf/corpus (MuJoCo's MJCF files); put them there to run it\n",
            );
        }
        for file in files {
            let path = root.join(file);
            let c = Model::from_xml_path(&path).unwrap();
            let from_c = collision_model(c.mj()).unwrap();
            let rust = CollisionModel::from(&specula_model::load_file(&path).unwrap());
            let close =
                |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-9);
            assert_eq!(from_c.geom_type, rust.geom_type, "{file}");
            assert_eq!(from_c.geom_bodyid, rust.geom_bodyid, "{file}");
            assert_eq!(from_c.body_weldid, rust.body_weldid, "{file}");
            assert_eq!(from_c.body_bvhadr, rust.body_bvhadr, "{file}");
            assert_eq!(from_c.body_bvhnum, rust.body_bvhnum, "{file}");
            assert_eq!(from_c.pair_signature, rust.pair_signature, "{file}");
            assert_eq!(from_c.exclude_signature, rust.exclude_signature, "{file}");
            assert_eq!(from_c.opt.disableflags, rust.opt.disableflags, "{file}");
            assert_eq!(from_c.opt.enableflags, rust.opt.enableflags, "{file}");
            assert!(close(from_c.geom_size.as_flattened(), rust.geom_size.as_flattened()), "{file}");
            assert!(close(from_c.geom_aabb.as_flattened(), rust.geom_aabb.as_flattened()), "{file}");
            assert!(close(&from_c.geom_rbound, &rust.geom_rbound), "{file}");
            assert!(close(from_c.geom_solimp.as_flattened(), rust.geom_solimp.as_flattened()), "{file}");
            assert!(close(&from_c.body_margin, &rust.body_margin), "{file}");
            assert_eq!(from_c.hulls.len(), rust.hulls.len(), "{file}");
            assert_eq!(from_c.hfield_nrow, rust.hfield_nrow, "{file}");
            assert_eq!(from_c.hfield_ncol, rust.hfield_ncol, "{file}");
            assert_eq!(from_c.hfield_adr, rust.hfield_adr, "{file}");
            assert_eq!(from_c.hfield_data, rust.hfield_data, "{file}");
            assert!(close(from_c.hfield_size.as_flattened(), rust.hfield_size.as_flattened()), "{file}");
            assert!(from_c.validate().is_ok());
        }
    }

    #[test]
    fn refresh_sees_an_edit_and_the_fingerprint_does_not_change() {
        let m =
            Model::from_xml_str(r#"<mujoco><worldbody><geom type="sphere" size=".1"/></worldbody></mujoco>"#).unwrap();
        let mut cm = collision_model(m.mj()).unwrap();
        let fp = fingerprint(m.mj());
        // SAFETY: one geom, three sizes; nothing else uses the model meanwhile.
        unsafe { *m.mj().geom_size = 0.25 };
        refresh(&mut cm, m.mj()).unwrap();
        assert_eq!(cm.geom_size[0][0], 0.25);
        assert_eq!(fingerprint(m.mj()), fp);
    }

    #[test]
    fn this_test_binary_is_not_a_shared_object() {
        assert!(!running_from_shared_object());
    }
}
