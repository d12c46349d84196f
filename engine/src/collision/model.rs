//! The model data the collision stage reads, as plain engine-owned arrays.
//!
//! The driver runs from two sources: specula's own compiled [`Model`] (from MJCF) and, through
//! the root crate, a C `mjModel`. Both fill this one struct, so every field is public, named as
//! in `mjModel`, and holds exactly what `mj_collision` reads for rigid geoms (no flexes). Ids
//! are `usize`; "none" is `-1` in an `i32` field, as in MuJoCo.

use specula_model::Model;

use super::bvh::{build_body_tree, TreeLeaf};
use crate::narrowphase::{ConvexHull, GeomType, HFieldView, PolygonTable, HILLCLIMB_MIN};
use crate::speculative::mesh_ray::MeshSurface;

/// `mjDSBL_CONSTRAINT`: the whole constraint solver is off (no contacts are generated).
pub const DSBL_CONSTRAINT: u32 = 1 << 0;
/// `mjDSBL_CONTACT`: contacts are off.
pub const DSBL_CONTACT: u32 = 1 << 4;
/// `mjDSBL_FILTERPARENT`: when set, parent and child bodies may collide.
pub const DSBL_FILTERPARENT: u32 = 1 << 10;
/// `mjDSBL_MIDPHASE`: when set, body pairs test all geom pairs instead of the per-body trees.
pub const DSBL_MIDPHASE: u32 = 1 << 14;
/// `mjDSBL_NATIVECCD`: use libccd instead of MuJoCo's own GJK/EPA.
pub const DSBL_NATIVECCD: u32 = 1 << 17;
/// `mjDSBL_MULTICCD`: one contact per convex pair instead of several.
pub const DSBL_MULTICCD: u32 = 1 << 19;
/// `mjDSBL_REFSAFE`: solref time constants are not raised to 2 timesteps.
pub const DSBL_REFSAFE: u32 = 1 << 12;
/// `mjENBL_OVERRIDE`: `o_margin`, `o_solref`, `o_solimp`, `o_friction` replace the geom values.
pub const ENBL_OVERRIDE: u32 = 1 << 0;
/// `mjENBL_SLEEP`: sleeping bodies are skipped.
pub const ENBL_SLEEP: u32 = 1 << 4;
/// `mjENBL_SPECULATIVE`: speculative contacts for fast geoms.
pub const ENBL_SPECULATIVE: u32 = 1 << 7;

/// The `mjOption` fields collision reads.
#[derive(Clone, Debug, PartialEq)]
pub struct CollisionOptions {
    /// `opt.disableflags` (`mjDSBL_*` bits).
    pub disableflags: u32,
    /// `opt.enableflags` (`mjENBL_*` bits).
    pub enableflags: u32,
    /// `opt.o_margin`: margin used for every pair under `override`.
    pub o_margin: f64,
    /// `opt.o_solref`: solref used for every contact under `override`.
    pub o_solref: [f64; 2],
    /// `opt.o_solimp`: solimp used for every contact under `override`.
    pub o_solimp: [f64; 5],
    /// `opt.o_friction`: friction used for every contact under `override`.
    pub o_friction: [f64; 5],
    /// `opt.ccd_iterations`.
    pub ccd_iterations: usize,
    /// `opt.ccd_tolerance`.
    pub ccd_tolerance: f64,
    /// `opt.timestep` (speculative contacts sweep over one step).
    pub timestep: f64,
    /// `opt.integrator` (MuJoCo's `mjtIntegrator` number; speculative contacts depend on it).
    pub integrator: i32,
    /// specula's robust speculative mode (not a MuJoCo option): on whatever the model's
    /// `speculative` flag says, see [`crate::speculative::robust`].
    pub robust: bool,
}

impl Default for CollisionOptions {
    fn default() -> Self {
        CollisionOptions {
            disableflags: 0,
            enableflags: 0,
            o_margin: 0.0,
            o_solref: [0.02, 1.0],
            o_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            o_friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            ccd_iterations: 35,
            ccd_tolerance: 1e-6,
            timestep: 0.002,
            integrator: 0,
            robust: false,
        }
    }
}

impl CollisionOptions {
    /// Whether a `mjDSBL_*` bit is set.
    pub fn disabled(&self, flag: u32) -> bool {
        self.disableflags & flag != 0
    }

    /// Whether a `mjENBL_*` bit is set.
    pub fn enabled(&self, flag: u32) -> bool {
        self.enableflags & flag != 0
    }
}

/// Everything `mj_collision` reads from `mjModel` for rigid geoms, per geom, body and pair.
///
/// Vectors indexed by geom have `ngeom` entries, by body `nbody`, by pair `npair`. Use
/// [`CollisionModel::validate`] (the driver calls it) to check the lengths and ids.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollisionModel {
    /// Number of flexes in the source model; the Rust driver handles none (must be 0).
    pub nflex: usize,
    /// `mjModel.flg_surfacevel`: whether any geom has a nonzero surface velocity.
    pub flg_surfacevel: bool,
    /// Options and flags.
    pub opt: CollisionOptions,

    /// Geom type.
    pub geom_type: Vec<GeomType>,
    /// Geom size (meaning depends on the type).
    pub geom_size: Vec<[f64; 3]>,
    /// Body the geom belongs to.
    pub geom_bodyid: Vec<usize>,
    /// Contact type bitmask.
    pub geom_contype: Vec<i32>,
    /// Contact affinity bitmask.
    pub geom_conaffinity: Vec<i32>,
    /// Contact dimensionality (1, 3, 4 or 6).
    pub geom_condim: Vec<i32>,
    /// Contact priority: the higher one's parameters win.
    pub geom_priority: Vec<i32>,
    /// Weight of this geom's solref/solimp when mixing with an equal-priority partner.
    pub geom_solmix: Vec<f64>,
    /// Solver reference.
    pub geom_solref: Vec<[f64; 2]>,
    /// Solver impedance.
    pub geom_solimp: Vec<[f64; 5]>,
    /// Friction: sliding, torsional, rolling.
    pub geom_friction: Vec<[f64; 3]>,
    /// Detection margin (contacts are active below it).
    pub geom_margin: Vec<f64>,
    /// Gap: contacts between margin and margin + gap are reported but excluded.
    pub geom_gap: Vec<f64>,
    /// Bounding-sphere radius (0 for planes).
    pub geom_rbound: Vec<f64>,
    /// Local bounding box: centre (3) and half sizes (3), in the geom frame.
    pub geom_aabb: Vec<[f64; 6]>,
    /// Surface velocity in the geom frame: linear (3), angular (3).
    pub geom_surfacevel: Vec<[f64; 6]>,
    /// Adhesive force contributed to each of the geom's contacts.
    pub geom_adhesion: Vec<f64>,
    /// Mesh id for meshes (index into `hulls`), height-field id for height fields (index into
    /// `hfield_size`), -1 otherwise.
    pub geom_dataid: Vec<i32>,

    /// Parent body (world: 0).
    pub body_parentid: Vec<usize>,
    /// Top ancestor welded to this body (mocap bodies: themselves).
    pub body_weldid: Vec<usize>,
    /// Number of dofs of the body's own joints.
    pub body_dofnum: Vec<usize>,
    /// First dof of each body, -1 without dofs (`body_dofadr`; speculative sweeps).
    pub body_dofadr: Vec<i32>,
    /// Root body of each body's tree (`body_rootid`; speculative sweeps).
    pub body_rootid: Vec<usize>,
    /// Kinematic tree, -1 for static bodies.
    pub body_treeid: Vec<i32>,
    /// First geom of the body, -1 when it has none.
    pub body_geomadr: Vec<i32>,
    /// Number of geoms of the body.
    pub body_geomnum: Vec<usize>,
    /// OR of the geoms' contype.
    pub body_contype: Vec<i32>,
    /// OR of the geoms' conaffinity.
    pub body_conaffinity: Vec<i32>,
    /// Max of the geoms' margin + gap.
    pub body_margin: Vec<f64>,
    /// First node of the body's geom tree in the `bvh_*` arrays, -1 when the body has no
    /// collidable geom (MuJoCo's `body_bvhadr`).
    pub body_bvhadr: Vec<i32>,
    /// Number of nodes of the body's tree (`body_bvhnum`).
    pub body_bvhnum: Vec<usize>,
    /// Tree node boxes in the body's inertial frame: centre (3), half sizes (3) (`bvh_aabb`,
    /// body nodes only). May be left empty: the mid-phase then tests all collidable geom pairs
    /// of the two bodies, which gives the same contacts except under `override` with nonzero
    /// geom gaps (inner nodes prune with the override margin alone).
    pub bvh_aabb: Vec<[f64; 6]>,
    /// Children of each node, relative to the body's first node, -1 when absent (`bvh_child`).
    pub bvh_child: Vec<[i32; 2]>,
    /// Geom id of each leaf node, -1 for inner nodes (`bvh_nodeid`).
    pub bvh_nodeid: Vec<i32>,

    /// Explicit pair: contact dimensionality.
    pub pair_dim: Vec<i32>,
    /// Explicit pair: first geom.
    pub pair_geom1: Vec<usize>,
    /// Explicit pair: second geom.
    pub pair_geom2: Vec<usize>,
    /// Explicit pair: `(body1 << 16) + body2`, pairs sorted by it (compiler order).
    pub pair_signature: Vec<u32>,
    /// Explicit pair: solref.
    pub pair_solref: Vec<[f64; 2]>,
    /// Explicit pair: friction solref (all zero: none).
    pub pair_solreffriction: Vec<[f64; 2]>,
    /// Explicit pair: solimp.
    pub pair_solimp: Vec<[f64; 5]>,
    /// Explicit pair: margin.
    pub pair_margin: Vec<f64>,
    /// Explicit pair: gap.
    pub pair_gap: Vec<f64>,
    /// Explicit pair: adhesion.
    pub pair_adhesion: Vec<f64>,
    /// Explicit pair: friction (5 values).
    pub pair_friction: Vec<[f64; 5]>,

    /// Excluded body pairs `(body1 << 16) + body2`, sorted ascending.
    pub exclude_signature: Vec<u32>,

    /// Convex hull per mesh (indexed by `geom_dataid`); `None` for meshes without one.
    pub hulls: Vec<Option<ConvexHull>>,
    /// Per height field: half extents in x and y, elevation scale, base depth.
    pub hfield_size: Vec<[f64; 4]>,
    /// Per height field: number of rows (along y).
    pub hfield_nrow: Vec<usize>,
    /// Per height field: number of columns (along x).
    pub hfield_ncol: Vec<usize>,
    /// Per height field: first entry in `hfield_data`.
    pub hfield_adr: Vec<usize>,
    /// Every height field's elevations in [0, 1], row-major, one field after another.
    pub hfield_data: Vec<f32>,
    /// Per mesh, its triangles for line-of-sight rays (`mesh_face`, `mesh_vert`; `None` when
    /// unknown, and then rays use the hull).
    pub surfaces: Vec<Option<MeshSurface>>,
}

/// A `CollisionModel` whose arrays do not fit together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelShapeError(pub String);

impl std::fmt::Display for ModelShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "inconsistent collision model: {}", self.0)
    }
}

impl std::error::Error for ModelShapeError {}

impl CollisionModel {
    /// Number of geoms.
    pub fn ngeom(&self) -> usize {
        self.geom_type.len()
    }

    /// Number of bodies.
    pub fn nbody(&self) -> usize {
        self.body_parentid.len()
    }

    /// Number of explicit pairs.
    pub fn npair(&self) -> usize {
        self.pair_geom1.len()
    }

    /// Whether some pair may have no Rust collider, so that `collide` would hand it to the
    /// state's fallback: an SDF, a mesh without a hull, or native CCD disabled.
    pub fn may_fall_back(&self) -> bool {
        self.opt.disabled(DSBL_NATIVECCD)
            || self.geom_type.iter().zip(&self.geom_dataid).any(|(t, &id)| match t {
                GeomType::Sdf => true,
                GeomType::Mesh => usize::try_from(id).ok().and_then(|i| self.hulls.get(i)).is_none_or(Option::is_none),
                _ => false,
            })
    }

    /// Height field `id`'s grid, or `None` when the id or its arrays are out of range.
    pub fn hfield(&self, id: i32) -> Option<HFieldView<'_>> {
        let i = usize::try_from(id).ok()?;
        let (nrow, ncol, adr) = (*self.hfield_nrow.get(i)?, *self.hfield_ncol.get(i)?, *self.hfield_adr.get(i)?);
        let data = self.hfield_data.get(adr..adr.checked_add(nrow.checked_mul(ncol)?)?)?;
        Some(HFieldView { size: *self.hfield_size.get(i)?, nrow, ncol, data })
    }

    /// Check every array length and every id the driver follows, so that `collide` cannot
    /// index out of bounds on a malformed model.
    pub fn validate(&self) -> Result<(), ModelShapeError> {
        let err = |s: String| Err(ModelShapeError(s));
        let (ng, nb, np) = (self.ngeom(), self.nbody(), self.npair());
        let geom_lens = [
            ("geom_size", self.geom_size.len()),
            ("geom_bodyid", self.geom_bodyid.len()),
            ("geom_contype", self.geom_contype.len()),
            ("geom_conaffinity", self.geom_conaffinity.len()),
            ("geom_condim", self.geom_condim.len()),
            ("geom_priority", self.geom_priority.len()),
            ("geom_solmix", self.geom_solmix.len()),
            ("geom_solref", self.geom_solref.len()),
            ("geom_solimp", self.geom_solimp.len()),
            ("geom_friction", self.geom_friction.len()),
            ("geom_margin", self.geom_margin.len()),
            ("geom_gap", self.geom_gap.len()),
            ("geom_rbound", self.geom_rbound.len()),
            ("geom_aabb", self.geom_aabb.len()),
            ("geom_surfacevel", self.geom_surfacevel.len()),
            ("geom_adhesion", self.geom_adhesion.len()),
            ("geom_dataid", self.geom_dataid.len()),
        ];
        for (name, len) in geom_lens {
            if len != ng {
                return err(format!("{name} has {len} entries, ngeom is {ng}"));
            }
        }
        let body_lens = [
            ("body_weldid", self.body_weldid.len()),
            ("body_dofnum", self.body_dofnum.len()),
            ("body_treeid", self.body_treeid.len()),
            ("body_geomadr", self.body_geomadr.len()),
            ("body_geomnum", self.body_geomnum.len()),
            ("body_contype", self.body_contype.len()),
            ("body_conaffinity", self.body_conaffinity.len()),
            ("body_margin", self.body_margin.len()),
            ("body_bvhadr", self.body_bvhadr.len()),
            ("body_bvhnum", self.body_bvhnum.len()),
        ];
        for (name, len) in body_lens {
            if len != nb {
                return err(format!("{name} has {len} entries, nbody is {nb}"));
            }
        }
        let pair_lens = [
            ("pair_dim", self.pair_dim.len()),
            ("pair_geom2", self.pair_geom2.len()),
            ("pair_signature", self.pair_signature.len()),
            ("pair_solref", self.pair_solref.len()),
            ("pair_solreffriction", self.pair_solreffriction.len()),
            ("pair_solimp", self.pair_solimp.len()),
            ("pair_margin", self.pair_margin.len()),
            ("pair_gap", self.pair_gap.len()),
            ("pair_adhesion", self.pair_adhesion.len()),
            ("pair_friction", self.pair_friction.len()),
        ];
        for (name, len) in pair_lens {
            if len != np {
                return err(format!("{name} has {len} entries, npair is {np}"));
            }
        }
        if nb >= 0x10000 {
            return err(format!("{nb} bodies: body pair signatures hold 16-bit ids"));
        }
        for (g, &b) in self.geom_bodyid.iter().enumerate() {
            if b >= nb {
                return err(format!("geom {g} on body {b}, nbody is {nb}"));
            }
            let id = self.geom_dataid[g];
            if self.geom_type[g] == GeomType::Mesh && (id < 0 || id as usize >= self.hulls.len()) {
                return err(format!("mesh geom {g} has dataid {id}, {} hulls", self.hulls.len()));
            }
            if self.geom_type[g] == GeomType::Hfield && self.hfield(id).is_none() {
                return err(format!("height-field geom {g} has dataid {id}, no such height field"));
            }
        }
        for b in 0..nb {
            if self.body_parentid[b] >= nb || self.body_weldid[b] >= nb {
                return err(format!("body {b} has parent or weld body out of range"));
            }
            let (adr, num) = (self.body_geomadr[b], self.body_geomnum[b]);
            if num > 0 && (adr < 0 || adr as usize + num > ng) {
                return err(format!("body {b} geoms {adr}+{num} out of range"));
            }
        }
        let nbvh = self.bvh_aabb.len();
        if self.bvh_child.len() != nbvh || self.bvh_nodeid.len() != nbvh {
            return err(format!(
                "bvh arrays: {nbvh} boxes, {} child, {} nodeid",
                self.bvh_child.len(),
                self.bvh_nodeid.len()
            ));
        }
        if nbvh > 0 {
            for b in 0..nb {
                let (adr, num) = (self.body_bvhadr[b], self.body_bvhnum[b]);
                if adr < 0 {
                    continue;
                }
                let adr = adr as usize;
                if num == 0 || adr + num > nbvh {
                    return err(format!("body {b} tree {adr}+{num} out of range ({nbvh} nodes)"));
                }
                for n in 0..num {
                    // children come after their parent (pre-order): traversal always ends
                    for c in self.bvh_child[adr + n] {
                        if c != -1 && (c <= n as i32 || c as usize >= num) {
                            return err(format!("body {b} tree node {n} has child {c}"));
                        }
                    }
                    let id = self.bvh_nodeid[adr + n];
                    if id >= ng as i32 {
                        return err(format!("body {b} tree node {n} names geom {id}"));
                    }
                }
            }
        }
        for p in 0..np {
            if self.pair_geom1[p] >= ng || self.pair_geom2[p] >= ng {
                return err(format!("pair {p} names a geom out of range"));
            }
            if !(1..=6).contains(&self.pair_dim[p]) {
                return err(format!("pair {p} has condim {}", self.pair_dim[p]));
            }
        }
        if let Some(g) = self.geom_condim.iter().position(|c| !(1..=6).contains(c)) {
            return err(format!("geom {g} has condim {}", self.geom_condim[g]));
        }
        Ok(())
    }
}

/// The convex hull of mesh `i` from `mesh_vert` / `mesh_graph` (MuJoCo's layout: numvert,
/// numface, vert_edgeadr, vert_globalid, edge_localid lists ending in -1, face_globalid), or all
/// the mesh's vertices without adjacency when it has no graph. `None` if the graph is malformed.
///
/// Hull vertex `k` is mesh vertex `vert_globalid[k]` (f32 widened to f64, as MuJoCo reads them);
/// `face` keeps the graph's `face_globalid` entries as stored (mesh vertex ids).
pub fn hull_from_graph(
    mesh_vert: &[[f32; 3]],
    vertadr: usize,
    vertnum: usize,
    graph: &[i32],
    graphadr: i32,
) -> Option<ConvexHull> {
    let widen = |v: &[f32; 3]| [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])];
    let verts = mesh_vert.get(vertadr..vertadr.checked_add(vertnum)?)?;
    if graphadr < 0 {
        return Some(ConvexHull { vert: verts.iter().map(widen).collect(), mesh_nvert: vertnum, ..Default::default() });
    }
    let g = graph.get(graphadr as usize..)?;
    let numvert = usize::try_from(*g.first()?).ok()?;
    let numface = usize::try_from(*g.get(1)?).ok()?;
    let edgeadr = g.get(2..2 + numvert)?;
    let globalid = g.get(2 + numvert..2 + 2 * numvert)?;
    let edges = g.get(2 + 2 * numvert..)?;
    let mut hull = ConvexHull { mesh_nvert: vertnum, ..Default::default() };
    for k in 0..numvert {
        let gid = usize::try_from(globalid[k]).ok()?;
        hull.vert.push(widen(verts.get(gid)?));
        hull.mesh_id.push(gid as u32);
        let mut adj = Vec::new();
        let mut e = usize::try_from(edgeadr[k]).ok()?;
        loop {
            let id = *edges.get(e)?;
            if id < 0 {
                break;
            }
            adj.push(id as u32);
            e += 1;
        }
        hull.adjacency.push(adj);
    }
    // edge_localid holds numvert + 3*numface entries; the face block follows it. Its ids are
    // mesh-vertex ids: map them to hull-vertex ids, which is what `ConvexHull::face` holds.
    let faces = edges.get(numvert + 3 * numface..)?;
    let mut hull_id = std::collections::HashMap::with_capacity(numvert);
    for (k, &gid) in globalid.iter().enumerate() {
        hull_id.insert(gid, k as u32);
    }
    for f in 0..numface {
        let t = faces.get(3 * f..3 * f + 3)?;
        hull.face.push([*hull_id.get(&t[0])?, *hull_id.get(&t[1])?, *hull_id.get(&t[2])?]);
    }
    if vertnum < HILLCLIMB_MIN && numvert < vertnum {
        // the exhaustive support search visits every mesh vertex, corners or not
        hull.nhull = numvert;
        for (gid, v) in verts.iter().enumerate() {
            if !hull_id.contains_key(&(gid as i32)) {
                hull.vert.push(widen(v));
                hull.mesh_id.push(gid as u32);
                hull.adjacency.push(Vec::new());
            }
        }
    }
    Some(hull)
}

/// One mesh's polygon arrays as `mjModel` stores them: cycles of mesh vertex ids
/// (`mesh_polyvert` slices) and their normals (`mesh_polynormal` rows).
pub type MeshPolygons<'a> = (Vec<&'a [i32]>, &'a [[f64; 3]]);

/// [`hull_from_graph`] with the mesh's polygon table attached (its mesh vertex ids mapped to
/// hull vertex ids). The table is left out if a polygon names a vertex that is not on the hull
/// or the counts disagree; the narrowphase then rebuilds the polygons from the hull's faces.
pub fn hull_with_polygons(
    mesh_vert: &[[f32; 3]],
    vertadr: usize,
    vertnum: usize,
    graph: &[i32],
    graphadr: i32,
    polygons: MeshPolygons,
) -> Option<ConvexHull> {
    let mut hull = hull_from_graph(mesh_vert, vertadr, vertnum, graph, graphadr)?;
    let (cycles, normals) = polygons;
    if graphadr < 0 || cycles.is_empty() || cycles.len() != normals.len() {
        return Some(hull);
    }
    let g = &graph[graphadr as usize..];
    let numvert = g[0] as usize;
    let mut hull_id = vec![u32::MAX; vertnum];
    for (k, &gid) in g[2 + numvert..2 + 2 * numvert].iter().enumerate() {
        if let Some(slot) = usize::try_from(gid).ok().and_then(|i| hull_id.get_mut(i)) {
            *slot = k as u32;
        }
    }
    let map = |c: &[i32]| -> Option<Vec<u32>> {
        c.iter()
            .map(|&v| usize::try_from(v).ok().and_then(|i| hull_id.get(i).copied()).filter(|&k| k != u32::MAX))
            .collect()
    };
    let verts: Option<Vec<Vec<u32>>> = cycles.iter().map(|c| map(c)).collect();
    if let Some(verts) = verts {
        hull.polygons = Some(PolygonTable { verts, normals: normals.to_vec() });
    }
    Some(hull)
}

impl From<&Model> for CollisionModel {
    /// Gather the collision data of a compiled specula model.
    ///
    /// Some `mjModel` quantities are not stored in [`Model`] and are derived the way MuJoCo's
    /// compiler sets them: `flg_surfacevel` (any geom with a nonzero surface velocity), the
    /// per-body geom trees (`body_bvhadr`, `bvh_*`, see [`build_body_tree`]) and `nflex`
    /// (specula's model has no flexes).
    fn from(m: &Model) -> Self {
        let nbody = m.body_parentid.len();
        let (mut body_bvhadr, mut body_bvhnum) = (vec![-1; nbody], vec![0; nbody]);
        let (mut bvh_aabb, mut bvh_child, mut bvh_nodeid) = (Vec::new(), Vec::new(), Vec::new());
        for b in 0..nbody {
            let geoms: Vec<TreeLeaf> = (0..m.geom_bodyid.len())
                .filter(|&g| m.geom_bodyid[g] == b && (m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0))
                .map(|g| (g, m.geom_pos[g], m.geom_quat[g], m.geom_aabb[g]))
                .collect();
            if geoms.is_empty() {
                continue;
            }
            let tree = build_body_tree(&geoms, &m.body_ipos[b], &m.body_iquat[b]);
            body_bvhadr[b] = bvh_aabb.len() as i32;
            body_bvhnum[b] = tree.aabb.len();
            bvh_aabb.extend(tree.aabb);
            bvh_child.extend(tree.child);
            bvh_nodeid.extend(tree.nodeid);
        }
        let hulls = (0..m.mesh_vertadr.len())
            .map(|i| {
                let polys = m.mesh_polyadr.get(i).map_or(0..0, |&a| a..a + m.mesh_polynum[i]);
                let cycles = polys
                    .clone()
                    .map(|p| &m.mesh_polyvert[m.mesh_polyvertadr[p]..m.mesh_polyvertadr[p] + m.mesh_polyvertnum[p]])
                    .collect();
                let normals = &m.mesh_polynormal[polys];
                hull_with_polygons(
                    &m.mesh_vert,
                    m.mesh_vertadr[i],
                    m.mesh_vertnum[i],
                    &m.mesh_graph,
                    m.mesh_graphadr[i],
                    (cycles, normals),
                )
            })
            .collect();
        let surfaces = (0..m.mesh_vertadr.len())
            .map(|i| {
                let vert = m.mesh_vert.get(m.mesh_vertadr[i]..m.mesh_vertadr[i] + m.mesh_vertnum[i])?;
                let face = m.mesh_face.get(m.mesh_faceadr[i]..m.mesh_faceadr[i] + m.mesh_facenum[i])?;
                MeshSurface::new(vert, face)
            })
            .collect();
        CollisionModel {
            nflex: 0,
            flg_surfacevel: m.geom_surfacevel.iter().any(|s| s.iter().any(|&v| v != 0.0)),
            opt: CollisionOptions {
                disableflags: m.opt.disableflags,
                enableflags: m.opt.enableflags,
                o_margin: m.opt.o_margin,
                o_solref: m.opt.o_solref,
                o_solimp: m.opt.o_solimp,
                o_friction: m.opt.o_friction,
                ccd_iterations: usize::try_from(m.opt.ccd_iterations).unwrap_or(0),
                ccd_tolerance: m.opt.ccd_tolerance,
                timestep: m.opt.timestep,
                integrator: m.opt.integrator as i32,
                robust: false,
            },
            geom_type: m.geom_type.clone(),
            geom_size: m.geom_size.clone(),
            geom_bodyid: m.geom_bodyid.clone(),
            geom_contype: m.geom_contype.clone(),
            geom_conaffinity: m.geom_conaffinity.clone(),
            geom_condim: m.geom_condim.clone(),
            geom_priority: m.geom_priority.clone(),
            geom_solmix: m.geom_solmix.clone(),
            geom_solref: m.geom_solref.clone(),
            geom_solimp: m.geom_solimp.clone(),
            geom_friction: m.geom_friction.clone(),
            geom_margin: m.geom_margin.clone(),
            geom_gap: m.geom_gap.clone(),
            geom_rbound: m.geom_rbound.clone(),
            geom_aabb: m.geom_aabb.clone(),
            geom_surfacevel: m.geom_surfacevel.clone(),
            geom_adhesion: m.geom_adhesion.clone(),
            geom_dataid: m.geom_dataid.clone(),
            body_parentid: m.body_parentid.clone(),
            body_weldid: m.body_weldid.clone(),
            body_dofnum: m.body_dofnum.clone(),
            body_dofadr: m.body_dofadr.clone(),
            body_rootid: m.body_rootid.clone(),
            body_treeid: m.body_treeid.clone(),
            body_geomadr: m.body_geomadr.clone(),
            body_geomnum: m.body_geomnum.clone(),
            body_contype: m.body_contype.clone(),
            body_conaffinity: m.body_conaffinity.clone(),
            body_margin: m.body_margin.clone(),
            body_bvhadr,
            body_bvhnum,
            bvh_aabb,
            bvh_child,
            bvh_nodeid,
            pair_dim: m.pair_dim.clone(),
            pair_geom1: m.pair_geom1.clone(),
            pair_geom2: m.pair_geom2.clone(),
            pair_signature: m.pair_signature.iter().map(|&s| s as u32).collect(),
            pair_solref: m.pair_solref.clone(),
            pair_solreffriction: m.pair_solreffriction.clone(),
            pair_solimp: m.pair_solimp.clone(),
            pair_margin: m.pair_margin.clone(),
            pair_gap: m.pair_gap.clone(),
            pair_adhesion: m.pair_adhesion.clone(),
            pair_friction: m.pair_friction.clone(),
            exclude_signature: m.exclude_signature.iter().map(|&s| s as u32).collect(),
            hulls,
            hfield_size: m.hfield_size.clone(),
            hfield_nrow: m.hfield_nrow.clone(),
            hfield_ncol: m.hfield_ncol.clone(),
            hfield_adr: m.hfield_adr.clone(),
            hfield_data: m.hfield_data.clone(),
            surfaces,
        }
    }
}
