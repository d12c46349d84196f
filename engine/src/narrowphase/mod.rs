//! Narrowphase: the contacts between two geoms at their current poses.
//!
//! Every pair function has the same shape as MuJoCo's `mjfCollision`: it takes the two geoms
//! (pose, size, and for meshes the convex hull), the pair's margin and the collision options, writes
//! up to [`MAX_CONTACTS`] contacts into the caller's buffer and returns how many it wrote. The
//! pair table ([`table`]) maps each ordered type pair to its function, laid out like MuJoCo's
//! `mjCOLLISIONFUNC` so the two can be read side by side.

pub mod r#box;
pub mod convex;
pub mod hfield;
pub mod primitive;
pub mod table;

pub use specula_model::GeomType;

/// Meshes with fewer vertices than this have their support searched over every vertex rather
/// than hill-climbed on the hull graph (`mjMESH_HILLCLIMB_MIN`; `docs/measurements.md`, C1).
pub const HILLCLIMB_MIN: usize = 10;

/// Most contacts one geom pair can produce (MuJoCo's `mjMAXCONPAIR`).
pub const MAX_CONTACTS: usize = 50;

/// A convex hull as the narrowphase sees it: vertices in the mesh frame plus the adjacency
/// MuJoCo stores in `mesh_graph`, so support queries can hill-climb.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexHull {
    /// Hull vertices in the geom's local frame; after the first [`ConvexHull::nhull`] of them,
    /// the mesh's other vertices when its support is searched exhaustively (see `nhull`).
    pub vert: Vec<[f64; 3]>,
    /// For each vertex, the indices of its neighbours on the hull.
    pub adjacency: Vec<Vec<u32>>,
    /// Hull faces as vertex-index triangles (outward winding).
    pub face: Vec<[u32; 3]>,
    /// The compiler's polygon table (`mesh_polyvert`, `mesh_polynormal`), when the hull comes
    /// from a model that has one; without it the polygons are rebuilt from `face`.
    pub polygons: Option<PolygonTable>,
    /// Each hull vertex's index in the mesh's own vertex list (`vert_globalid` of MuJoCo's
    /// `mesh_graph`), when the hull lists them in another order; empty means the same order.
    /// Small hulls are searched exhaustively in mesh order, which settles exact ties.
    pub mesh_id: Vec<u32>,
    /// How many vertices the mesh itself has (`mesh_vertnum`, interior ones included); 0 means
    /// as many as the hull. MuJoCo hill-climbs a mesh of 10 or more, whatever its hull's size.
    pub mesh_nvert: usize,
    /// How many leading entries of `vert` are hull corners; 0 means all. A mesh of fewer than
    /// 10 vertices has its support searched over every mesh vertex (`docs/measurements.md`, C1),
    /// so its vertices that are not hull corners (on an edge or inside) follow the corners, with
    /// no neighbours and on no polygon: on a tie MuJoCo's scan can answer with one of them.
    pub nhull: usize,
}

impl ConvexHull {
    /// The hull's corners: `vert` without the off-hull mesh vertices.
    pub fn corners(&self) -> &[[f64; 3]] {
        match self.nhull {
            0 => &self.vert,
            n => &self.vert[..n.min(self.vert.len())],
        }
    }
}

/// A mesh's flat hull polygons as MuJoCo's compiler lists them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonTable {
    /// Each polygon's vertex cycle in hull vertex ids (indices into `ConvexHull::vert`),
    /// counter-clockwise seen from outside, starting where MuJoCo's cycle starts.
    pub verts: Vec<Vec<u32>>,
    /// Each polygon's outward unit normal in the hull frame.
    pub normals: Vec<[f64; 3]>,
}

/// One geom as the narrowphase sees it: type, size, world pose and (meshes only) its hull.
#[derive(Clone, Copy, Debug)]
pub struct Geom<'a> {
    /// The geom type.
    pub ty: GeomType,
    /// MuJoCo's `geom_size` (meaning depends on the type).
    pub size: [f64; 3],
    /// World position of the geom frame (`geom_xpos`).
    pub pos: [f64; 3],
    /// World orientation, row-major 3x3 (`geom_xmat`).
    pub mat: [f64; 9],
    /// Bounding-sphere radius (`geom_rbound`).
    pub rbound: f64,
    /// The convex hull, for meshes.
    pub hull: Option<&'a ConvexHull>,
    /// The elevation grid, for height fields.
    pub hfield: Option<HFieldView<'a>>,
}

/// A height field's grid as the narrowphase sees it (`hfield_size`, `hfield_nrow`,
/// `hfield_ncol` and the field's slice of `hfield_data`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HFieldView<'a> {
    /// Half extents in x and y, top elevation scale, base depth (`hfield_size`).
    pub size: [f64; 4],
    /// Number of rows (along y).
    pub nrow: usize,
    /// Number of columns (along x).
    pub ncol: usize,
    /// `nrow * ncol` elevations in [0, 1], row-major (row 0 at `y = -size[1]`).
    pub data: &'a [f32],
}

/// Collision options that change narrowphase results (from `mjOption`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollideOptions {
    /// `opt.ccd_iterations`.
    pub ccd_iterations: usize,
    /// `opt.ccd_tolerance`.
    pub ccd_tolerance: f64,
    /// `mjENBL_MULTICCD`: several contacts for flat convex pairs.
    pub multiccd: bool,
    /// Not `mjDSBL_NATIVECCD`: MuJoCo's own GJK/EPA rather than libccd.
    pub nativeccd: bool,
}

impl Default for CollideOptions {
    fn default() -> Self {
        CollideOptions { ccd_iterations: 35, ccd_tolerance: 1e-6, multiccd: false, nativeccd: true }
    }
}

/// The geometric part of one contact, in MuJoCo's conventions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// Signed distance (negative when penetrating).
    pub dist: f64,
    /// Contact position (midpoint between the surfaces).
    pub pos: [f64; 3],
    /// Contact frame, row-major: row 0 is the normal from geom 1 to geom 2, rows 1-2 tangents.
    pub frame: [f64; 9],
}

impl ContactPoint {
    /// A contact from its normal (geom 1 to geom 2) and a preferred first tangent, with the frame
    /// completed the way MuJoCo's collision driver does it (`mju_makeFrame`).
    ///
    /// Pass a zero `tangent` when the pair function has no preference: MuJoCo then uses world y,
    /// or world z when the normal is within 60 degrees of y.
    pub fn from_normal(dist: f64, pos: [f64; 3], normal: &[f64; 3], tangent: &[f64; 3]) -> Self {
        let mut frame = [normal[0], normal[1], normal[2], tangent[0], tangent[1], tangent[2], 0.0, 0.0, 0.0];
        crate::math::make_frame(&mut frame);
        ContactPoint { dist, pos, frame }
    }

    /// The contact normal (row 0 of the frame), pointing from geom 1 to geom 2.
    pub fn normal(&self) -> [f64; 3] {
        [self.frame[0], self.frame[1], self.frame[2]]
    }
}
