//! The compiled model: MuJoCo's `mjModel`, field for field where specula needs it.
//!
//! Names and meanings are MuJoCo's (`body_parentid`, `geom_aabb`, ...). Per-item vectors
//! (`nbody x 3` in MuJoCo) are `Vec<[f64; 3]>` here; variable-length per-model data (qpos0,
//! key_qpos) are flat `Vec<f64>` in MuJoCo's layout.

use crate::types::{Cone, GeomType, Integrator, Jacobian, JointType, SameFrame, Solver};

/// Physics options (MuJoCo's `mjOption`), with MuJoCo's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Timestep.
    pub timestep: f64,
    /// Ratio of friction-to-normal contact impedance.
    pub impratio: f64,
    /// Main solver tolerance.
    pub tolerance: f64,
    /// CG/Newton line-search tolerance.
    pub ls_tolerance: f64,
    /// Noslip solver tolerance.
    pub noslip_tolerance: f64,
    /// Convex collision solver tolerance.
    pub ccd_tolerance: f64,
    /// Sleep velocity tolerance.
    pub sleep_tolerance: f64,
    /// Gravitational acceleration.
    pub gravity: [f64; 3],
    /// Wind.
    pub wind: [f64; 3],
    /// Global magnetic flux.
    pub magnetic: [f64; 3],
    /// Density of the medium.
    pub density: f64,
    /// Viscosity of the medium.
    pub viscosity: f64,
    /// Override margin.
    pub o_margin: f64,
    /// Override solref.
    pub o_solref: [f64; 2],
    /// Override solimp.
    pub o_solimp: [f64; 5],
    /// Override friction.
    pub o_friction: [f64; 5],
    /// Integrator.
    pub integrator: Integrator,
    /// Friction cone.
    pub cone: Cone,
    /// Constraint Jacobian type.
    pub jacobian: Jacobian,
    /// Constraint solver.
    pub solver: Solver,
    /// Maximum main solver iterations.
    pub iterations: i32,
    /// Maximum line-search iterations.
    pub ls_iterations: i32,
    /// Maximum noslip iterations.
    pub noslip_iterations: i32,
    /// Maximum convex collision iterations.
    pub ccd_iterations: i32,
    /// Disable-flag bits (`mjtDisableBit`).
    pub disableflags: u32,
    /// Enable-flag bits (`mjtEnableBit`).
    pub enableflags: u32,
    /// Disabled actuator groups (bit per group).
    pub disableactuator: u32,
    /// SDF collision: number of starting points.
    pub sdf_initpoints: i32,
    /// SDF collision: gradient-descent iterations.
    pub sdf_iterations: i32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timestep: 0.002,
            impratio: 1.0,
            tolerance: 1e-8,
            ls_tolerance: 0.01,
            noslip_tolerance: 1e-6,
            ccd_tolerance: 1e-6,
            sleep_tolerance: 1e-3,
            gravity: [0.0, 0.0, -9.81],
            wind: [0.0; 3],
            magnetic: [0.0, -0.5, 0.0],
            density: 0.0,
            viscosity: 0.0,
            o_margin: 0.0,
            o_solref: [0.02, 1.0],
            o_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            o_friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            integrator: Integrator::Euler,
            cone: Cone::Pyramidal,
            jacobian: Jacobian::Auto,
            solver: Solver::Newton,
            iterations: 100,
            ls_iterations: 50,
            noslip_iterations: 0,
            ccd_iterations: 35,
            disableflags: 0,
            enableflags: 0,
            disableactuator: 0,
            sdf_initpoints: 40,
            sdf_iterations: 10,
        }
    }
}

/// Name of the custom numeric that asks for robust mode (`<custom><numeric name="specula_robust"
/// data="1"/></custom>`).
pub const ROBUST_NUMERIC: &str = "specula_robust";

/// A compiled MuJoCo model.
#[derive(Clone, Debug, Default)]
pub struct Model {
    // ------------------------------------------------------------------ sizes
    /// Number of generalized coordinates.
    pub nq: usize,
    /// Number of degrees of freedom.
    pub nv: usize,
    /// Number of controls.
    pub nu: usize,
    /// Number of actuators.
    pub nactuator: usize,
    /// Number of activation states.
    pub na: usize,
    /// Number of bodies (including the world body).
    pub nbody: usize,
    /// Number of joints.
    pub njnt: usize,
    /// Number of geoms.
    pub ngeom: usize,
    /// Number of sites.
    pub nsite: usize,
    /// Number of cameras.
    pub ncam: usize,
    /// Number of lights.
    pub nlight: usize,
    /// Number of meshes.
    pub nmesh: usize,
    /// Number of mesh vertices (all meshes).
    pub nmeshvert: usize,
    /// Number of mesh faces (all meshes).
    pub nmeshface: usize,
    /// Number of ints in mesh graph data.
    pub nmeshgraph: usize,
    /// Number of hull polygons of all meshes.
    pub nmeshpoly: usize,
    /// Number of polygon vertex entries (`mesh_polyvert`).
    pub nmeshpolyvert: usize,
    /// Number of vertex-to-polygon entries (`mesh_polymap`).
    pub nmeshpolymap: usize,
    /// Number of height fields.
    pub nhfield: usize,
    /// Number of explicit contact pairs.
    pub npair: usize,
    /// Number of excluded body pairs.
    pub nexclude: usize,
    /// Number of equality constraints.
    pub neq: usize,
    /// Number of tendons.
    pub ntendon: usize,
    /// Plastic state slots (joints', then tendons'; see `jnt_plasticadr`).
    pub nplastic: usize,
    /// Number of tendon path objects (wraps).
    pub nwrap: usize,
    /// Number of non-zeros of the sparse tendon Jacobian (MuJoCo's `nJten`).
    pub njten: usize,
    /// Number of sensors.
    pub nsensor: usize,
    /// Number of keyframes.
    pub nkey: usize,
    /// Number of mocap bodies.
    pub nmocap: usize,
    /// Number of custom numeric fields.
    pub nnumeric: usize,
    /// Number of kinematic trees under the world body.
    pub ntree: usize,
    /// Number of bounding-volume nodes (body trees only).
    pub nbvh: usize,
    /// Number of nonzeros in the sparse inertia matrix.
    pub nm: usize,

    // ------------------------------------------------------------------ flags
    /// Some body has nonzero gravcomp.
    pub flg_gravcomp: bool,
    /// Some geom has nonzero surface velocity.
    pub flg_surfacevel: bool,
    /// Some geom or pair has nonzero adhesion.
    pub flg_adhesion: bool,

    // ------------------------------------------------------------------ trees
    /// First body of each kinematic tree.
    pub tree_bodyadr: Vec<usize>,
    /// Number of bodies of each tree.
    pub tree_bodynum: Vec<usize>,
    /// First dof of each tree.
    pub tree_dofadr: Vec<usize>,
    /// Number of dofs of each tree.
    pub tree_dofnum: Vec<usize>,

    // ------------------------------------------------------------------ options
    /// Physics options.
    pub opt: Options,

    // ------------------------------------------------------------------ default pose
    /// qpos at the default pose (nq).
    pub qpos0: Vec<f64>,
    /// Reference pose for springs (nq).
    pub qpos_spring: Vec<f64>,

    // ------------------------------------------------------------------ bodies
    /// Parent body id.
    pub body_parentid: Vec<usize>,
    /// Ancestor that is a direct child of the world.
    pub body_rootid: Vec<usize>,
    /// Top dof-less ancestor (mocap: itself).
    pub body_weldid: Vec<usize>,
    /// Mocap index, -1 when not mocap.
    pub body_mocapid: Vec<i32>,
    /// Number of joints.
    pub body_jntnum: Vec<usize>,
    /// First joint, -1 when none.
    pub body_jntadr: Vec<i32>,
    /// Number of dofs.
    pub body_dofnum: Vec<usize>,
    /// First dof, -1 when none.
    pub body_dofadr: Vec<i32>,
    /// Kinematic tree id, -1 for static bodies.
    pub body_treeid: Vec<i32>,
    /// Number of geoms.
    pub body_geomnum: Vec<usize>,
    /// First geom, -1 when none.
    pub body_geomadr: Vec<i32>,
    /// 1: diagonal mass matrix; 2: diagonal, sliders only.
    pub body_simple: Vec<u8>,
    /// Whether the inertial frame coincides with the body frame.
    pub body_sameframe: Vec<SameFrame>,
    /// Position relative to the parent.
    pub body_pos: Vec<[f64; 3]>,
    /// Orientation relative to the parent.
    pub body_quat: Vec<[f64; 4]>,
    /// Centre of mass in the body frame.
    pub body_ipos: Vec<[f64; 3]>,
    /// Orientation of the inertia principal axes.
    pub body_iquat: Vec<[f64; 4]>,
    /// Mass.
    pub body_mass: Vec<f64>,
    /// Mass of the subtree rooted here.
    pub body_subtreemass: Vec<f64>,
    /// Principal moments of inertia.
    pub body_inertia: Vec<[f64; 3]>,
    /// Gravity compensation (units of body weight).
    pub body_gravcomp: Vec<f64>,
    /// Maximum over the body's geoms of margin + gap.
    pub body_margin: Vec<f64>,
    /// OR of the body's geom contypes.
    pub body_contype: Vec<i32>,
    /// OR of the body's geom conaffinities.
    pub body_conaffinity: Vec<i32>,
    /// First node of the body's bounding volume hierarchy, -1 when none.
    pub body_bvhadr: Vec<i32>,
    /// Number of nodes of the body's bounding volume hierarchy.
    pub body_bvhnum: Vec<usize>,

    // ------------------------------------------------------------------ bounding volumes
    /// Depth of each node (body trees only; MuJoCo appends mesh trees after these).
    pub bvh_depth: Vec<i32>,
    /// Left and right children, as indices local to the tree (-1: none).
    pub bvh_child: Vec<[i32; 2]>,
    /// Geom id of a leaf, -1 for inner nodes.
    pub bvh_nodeid: Vec<i32>,
    /// Node box in the body's inertial frame (centre, half-size).
    pub bvh_aabb: Vec<[f64; 6]>,

    // ------------------------------------------------------------------ joints
    /// Joint type.
    pub jnt_type: Vec<JointType>,
    /// First qpos address.
    pub jnt_qposadr: Vec<usize>,
    /// First dof address.
    pub jnt_dofadr: Vec<usize>,
    /// Body id.
    pub jnt_bodyid: Vec<usize>,
    /// Group.
    pub jnt_group: Vec<i32>,
    /// Has limits.
    pub jnt_limited: Vec<bool>,
    /// Has actuator force limits.
    pub jnt_actfrclimited: Vec<bool>,
    /// Gravity compensation applied through actuators.
    pub jnt_actgravcomp: Vec<bool>,
    /// Limit solref.
    pub jnt_solref: Vec<[f64; 2]>,
    /// Limit solimp.
    pub jnt_solimp: Vec<[f64; 5]>,
    /// Anchor in the body frame.
    pub jnt_pos: Vec<[f64; 3]>,
    /// Axis in the body frame.
    pub jnt_axis: Vec<[f64; 3]>,
    /// Stiffness.
    pub jnt_stiffness: Vec<f64>,
    /// Spring yield (plasticity; 0: none).
    pub jnt_springyield: Vec<f64>,
    /// Plastic state address (-1: none): a hinge or slide with a spring yield takes 1 slot of
    /// `nplastic`, a ball 4, after them each such tendon 2 (measured with the 4.0.0 bindings).
    pub jnt_plasticadr: Vec<i32>,
    /// Higher-order stiffness coefficients.
    pub jnt_stiffnesspoly: Vec<[f64; 2]>,
    /// Range (radians for hinge/ball).
    pub jnt_range: Vec<[f64; 2]>,
    /// Actuator force range.
    pub jnt_actfrcrange: Vec<[f64; 2]>,
    /// Limit margin.
    pub jnt_margin: Vec<f64>,

    // ------------------------------------------------------------------ dofs
    /// Body id.
    pub dof_bodyid: Vec<usize>,
    /// Joint id.
    pub dof_jntid: Vec<usize>,
    /// Parent dof, -1 when none.
    pub dof_parentid: Vec<i32>,
    /// Address of the dof's row in the sparse mass matrix.
    pub dof_madr: Vec<usize>,
    /// Kinematic tree id.
    pub dof_treeid: Vec<usize>,
    /// Friction-loss solref.
    pub dof_solref: Vec<[f64; 2]>,
    /// Friction-loss solimp.
    pub dof_solimp: Vec<[f64; 5]>,
    /// Friction loss.
    pub dof_frictionloss: Vec<f64>,
    /// Armature.
    pub dof_armature: Vec<f64>,
    /// Damping.
    pub dof_damping: Vec<f64>,
    /// Higher-order damping coefficients.
    pub dof_dampingpoly: Vec<[f64; 2]>,

    // ------------------------------------------------------------------ geoms
    /// Geom type.
    pub geom_type: Vec<GeomType>,
    /// Contact type bits.
    pub geom_contype: Vec<i32>,
    /// Contact affinity bits.
    pub geom_conaffinity: Vec<i32>,
    /// Contact dimensionality.
    pub geom_condim: Vec<i32>,
    /// Body id.
    pub geom_bodyid: Vec<usize>,
    /// Mesh or height-field id, -1 when none.
    pub geom_dataid: Vec<i32>,
    /// Material id, -1 when none.
    pub geom_matid: Vec<i32>,
    /// Group.
    pub geom_group: Vec<i32>,
    /// Contact priority.
    pub geom_priority: Vec<i32>,
    /// Frame alignment with the body.
    pub geom_sameframe: Vec<SameFrame>,
    /// Solver mixing weight.
    pub geom_solmix: Vec<f64>,
    /// Contact solref.
    pub geom_solref: Vec<[f64; 2]>,
    /// Contact solimp.
    pub geom_solimp: Vec<[f64; 5]>,
    /// Size parameters.
    pub geom_size: Vec<[f64; 3]>,
    /// Local bounding box (centre, half-size).
    pub geom_aabb: Vec<[f64; 6]>,
    /// Bounding-sphere radius.
    pub geom_rbound: Vec<f64>,
    /// Position in the body frame.
    pub geom_pos: Vec<[f64; 3]>,
    /// Orientation in the body frame.
    pub geom_quat: Vec<[f64; 4]>,
    /// Friction (slide, spin, roll).
    pub geom_friction: Vec<[f64; 3]>,
    /// Contact margin.
    pub geom_margin: Vec<f64>,
    /// Contact gap.
    pub geom_gap: Vec<f64>,
    /// Surface velocity (linear, angular) in the geom frame.
    pub geom_surfacevel: Vec<[f64; 6]>,
    /// Adhesion force.
    pub geom_adhesion: Vec<f64>,
    /// Ellipsoid fluid-model coefficients (MuJoCo's `mjNFLUID` = 12 per geom).
    pub geom_fluid: Vec<[f64; 12]>,
    /// Colour.
    pub geom_rgba: Vec<[f32; 4]>,

    // ------------------------------------------------------------------ sites
    /// Rendering type.
    pub site_type: Vec<GeomType>,
    /// Body id.
    pub site_bodyid: Vec<usize>,
    /// Group.
    pub site_group: Vec<i32>,
    /// Frame alignment with the body.
    pub site_sameframe: Vec<SameFrame>,
    /// Size.
    pub site_size: Vec<[f64; 3]>,
    /// Position in the body frame.
    pub site_pos: Vec<[f64; 3]>,
    /// Orientation in the body frame.
    pub site_quat: Vec<[f64; 4]>,

    // ------------------------------------------------------------------ meshes
    /// First vertex address.
    pub mesh_vertadr: Vec<usize>,
    /// Number of vertices.
    pub mesh_vertnum: Vec<usize>,
    /// First face address.
    pub mesh_faceadr: Vec<usize>,
    /// Number of faces.
    pub mesh_facenum: Vec<usize>,
    /// Graph (convex hull) data address, -1 when none.
    pub mesh_graphadr: Vec<i32>,
    /// Vertices of all meshes (single precision, as in MuJoCo).
    pub mesh_vert: Vec<[f32; 3]>,
    /// Faces of all meshes.
    pub mesh_face: Vec<[i32; 3]>,
    /// Convex-hull graph data.
    pub mesh_graph: Vec<i32>,
    /// Scale applied to the asset vertices.
    pub mesh_scale: Vec<[f64; 3]>,
    /// Translation applied to the asset vertices.
    pub mesh_pos: Vec<[f64; 3]>,
    /// Rotation applied to the asset vertices.
    pub mesh_quat: Vec<[f64; 4]>,
    /// Number of hull polygons of each mesh.
    pub mesh_polynum: Vec<usize>,
    /// First polygon of each mesh.
    pub mesh_polyadr: Vec<usize>,
    /// Unit normal of each polygon in the mesh frame.
    pub mesh_polynormal: Vec<[f64; 3]>,
    /// First `mesh_polyvert` entry of each polygon.
    pub mesh_polyvertadr: Vec<usize>,
    /// Number of vertices of each polygon.
    pub mesh_polyvertnum: Vec<usize>,
    /// Polygon vertex cycles (mesh-local vertex ids, counter-clockwise seen from outside).
    pub mesh_polyvert: Vec<i32>,
    /// First `mesh_polymap` entry of each mesh vertex.
    pub mesh_polymapadr: Vec<usize>,
    /// Number of polygons through each mesh vertex.
    pub mesh_polymapnum: Vec<usize>,
    /// Polygons through each vertex (mesh-local polygon ids, in polygon order).
    pub mesh_polymap: Vec<i32>,
    /// Whether each mesh's hull is in qhull's order as MuJoCo stores it (specula's replay of
    /// qhull's build reproduced it; meshes without a hull count as true). Not a MuJoCo field:
    /// where it is false the hull is the same polytope in specula's own order, and collisions
    /// against it can differ from MuJoCo's in the last bits or in which contact points are kept.
    pub mesh_qhull_order: Vec<bool>,

    // ------------------------------------------------------------------ height fields
    /// (x, y, z-top, base) sizes.
    pub hfield_size: Vec<[f64; 4]>,
    /// Number of rows.
    pub hfield_nrow: Vec<usize>,
    /// Number of columns.
    pub hfield_ncol: Vec<usize>,
    /// Address of the first elevation.
    pub hfield_adr: Vec<usize>,
    /// Normalised elevations of all height fields (row-major, bottom row first).
    pub hfield_data: Vec<f32>,

    // ------------------------------------------------------------------ contact pairs
    /// Contact dimensionality.
    pub pair_dim: Vec<i32>,
    /// First geom (the one on the lower-numbered body).
    pub pair_geom1: Vec<usize>,
    /// Second geom.
    pub pair_geom2: Vec<usize>,
    /// `(body1 << 16) + body2`.
    pub pair_signature: Vec<i32>,
    /// Normal solref.
    pub pair_solref: Vec<[f64; 2]>,
    /// Friction solref.
    pub pair_solreffriction: Vec<[f64; 2]>,
    /// Solimp.
    pub pair_solimp: Vec<[f64; 5]>,
    /// Margin.
    pub pair_margin: Vec<f64>,
    /// Gap.
    pub pair_gap: Vec<f64>,
    /// Adhesion.
    pub pair_adhesion: Vec<f64>,
    /// Friction (tangent1, tangent2, spin, roll1, roll2).
    pub pair_friction: Vec<[f64; 5]>,
    /// Excluded body pairs: `(body1 << 16) + body2`.
    pub exclude_signature: Vec<i32>,

    // ------------------------------------------------------------------ custom numerics
    /// Start of each numeric field in `numeric_data`.
    pub numeric_adr: Vec<usize>,
    /// Size of each numeric field.
    pub numeric_size: Vec<usize>,
    /// Values of all numeric fields.
    pub numeric_data: Vec<f64>,
    /// Numeric field names.
    pub numeric_names: Vec<String>,

    // ------------------------------------------------------------------ keyframes
    /// Key time.
    pub key_time: Vec<f64>,
    /// Key qpos (nkey x nq).
    pub key_qpos: Vec<f64>,
    /// Key qvel (nkey x nv).
    pub key_qvel: Vec<f64>,
    /// Key activations (nkey x na).
    pub key_act: Vec<f64>,
    /// Key mocap positions (nkey x nmocap*3).
    pub key_mpos: Vec<f64>,
    /// Key mocap quaternions (nkey x nmocap*4).
    pub key_mquat: Vec<f64>,
    /// Key controls (nkey x nu).
    pub key_ctrl: Vec<f64>,

    // ------------------------------------------------------------------ equalities
    /// Why the equality arrays below were left empty (a kind specula's compiler does not produce
    /// yet); `None` when every equality was compiled (see `compile::equality`).
    pub eq_unsupported: Option<String>,
    /// Constraint type (`mjtEq`).
    pub eq_type: Vec<i32>,
    /// First object (body, site or joint id).
    pub eq_obj1id: Vec<i32>,
    /// Second object (-1 for none; the world body for a connect or weld without one).
    pub eq_obj2id: Vec<i32>,
    /// Object type (`mjtObj`: body, site or joint).
    pub eq_objtype: Vec<i32>,
    /// Initially active.
    pub eq_active0: Vec<u8>,
    /// Constraint reference.
    pub eq_solref: Vec<[f64; 2]>,
    /// Constraint impedance.
    pub eq_solimp: Vec<[f64; 5]>,
    /// Numeric data (`mjNEQDATA` = 12 in 4.0.0): anchors, relative pose, polynomial, torque
    /// scale and, for a body weld, 1 when the relative pose comes from `qpos0`; as `mj_setConst`
    /// leaves them.
    pub eq_data: Vec<[f64; 12]>,
    // ------------------------------------------------------------------ tendons
    /// Why the tendon arrays below were left empty (a tendon kind specula's compiler does not
    /// produce yet); `None` when every tendon was compiled.
    pub tendon_unsupported: Option<String>,
    /// Per tendon: first path object.
    pub tendon_adr: Vec<i32>,
    /// Per tendon: number of path objects.
    pub tendon_num: Vec<i32>,
    /// Per tendon: material (-1: none).
    pub tendon_matid: Vec<i32>,
    /// Per tendon: group.
    pub tendon_group: Vec<i32>,
    /// Per tendon: the actuator with this tendon as transmission (-1: none).
    pub tendon_actuatorid: Vec<i32>,
    /// Per tendon: plastic state address (-1: none).
    pub tendon_plasticadr: Vec<i32>,
    /// Per tendon: number of kinematic trees the path touches.
    pub tendon_treenum: Vec<i32>,
    /// Per tendon: the first two trees the path touches (-1: none).
    pub tendon_treeid: Vec<[i32; 2]>,
    /// Per tendon: non-zeros of its row of the sparse Jacobian `ten_J`.
    pub ten_j_rownnz: Vec<i32>,
    /// Per tendon: start of its row in `ten_J`.
    pub ten_j_rowadr: Vec<i32>,
    /// Column (dof) of each non-zero of `ten_J`, ascending within a row (`njten`).
    pub ten_j_colind: Vec<i32>,
    /// Per tendon: whether the length is limited to `tendon_range`.
    pub tendon_limited: Vec<bool>,
    /// Per tendon: whether the actuator force on it is clamped to `tendon_actfrcrange`.
    pub tendon_actfrclimited: Vec<bool>,
    /// Per tendon: rendering width.
    pub tendon_width: Vec<f64>,
    /// Per tendon: limit solref.
    pub tendon_solref_lim: Vec<[f64; 2]>,
    /// Per tendon: limit solimp.
    pub tendon_solimp_lim: Vec<[f64; 5]>,
    /// Per tendon: friction-loss solref.
    pub tendon_solref_fri: Vec<[f64; 2]>,
    /// Per tendon: friction-loss solimp.
    pub tendon_solimp_fri: Vec<[f64; 5]>,
    /// Per tendon: length range.
    pub tendon_range: Vec<[f64; 2]>,
    /// Per tendon: actuator force range.
    pub tendon_actfrcrange: Vec<[f64; 2]>,
    /// Per tendon: limit margin.
    pub tendon_margin: Vec<f64>,
    /// Per tendon: spring stiffness.
    pub tendon_stiffness: Vec<f64>,
    /// Per tendon: polynomial spring stiffness terms.
    pub tendon_stiffnesspoly: Vec<[f64; 2]>,
    /// Per tendon: damping.
    pub tendon_damping: Vec<f64>,
    /// Per tendon: polynomial damping terms.
    pub tendon_dampingpoly: Vec<[f64; 2]>,
    /// Per tendon: inertia of the tendon's motion.
    pub tendon_armature: Vec<f64>,
    /// Per tendon: friction loss.
    pub tendon_frictionloss: Vec<f64>,
    /// Per tendon: spring rest length range (at `qpos_spring` when not given).
    pub tendon_lengthspring: Vec<[f64; 2]>,
    /// Per tendon: spring yield (plasticity).
    pub tendon_springyield: Vec<f64>,
    /// Per tendon: length at `qpos0`.
    pub tendon_length0: Vec<f64>,
    /// Whether spatial tendons' `tendon_length0` (left 0) and unspecified `tendon_lengthspring`
    /// (left -1) still need the kinematics pass at `qpos0` and `qpos_spring`, which
    /// `specula_native` runs (the compiler has no site kinematics).
    pub tendon_length_pending: bool,
    /// Per tendon: colour.
    pub tendon_rgba: Vec<[f32; 4]>,
    /// Per path object: `mjtWrap` type.
    pub wrap_type: Vec<i32>,
    /// Per path object: joint, site or geom id (-1 for a pulley).
    pub wrap_objid: Vec<i32>,
    /// Per path object: joint coefficient, pulley divisor or wrapping side site (-1: none).
    pub wrap_prm: Vec<f64>,

    // ------------------------------------------------------------------ actuators
    /// Why the actuator arrays below were left empty (an actuator kind or derived value specula's
    /// compiler does not produce yet); `None` when every actuator was compiled.
    pub actuator_unsupported: Option<String>,
    /// The `<compiler><lengthrange>` options, for the length-range computation the native crate
    /// runs (`specula_native::lengthrange`).
    pub lropt: crate::compile::lengthrange::LengthRangeOpt,
    /// Transmission type (`mjtTrn`).
    pub actuator_trntype: Vec<i32>,
    /// Dynamics type (`mjtDyn`).
    pub actuator_dyntype: Vec<i32>,
    /// Gain type (`mjtGain`).
    pub actuator_gaintype: Vec<i32>,
    /// Bias type (`mjtBias`).
    pub actuator_biastype: Vec<i32>,
    /// Transmission targets (joint, tendon, site or body id; second: refsite or slider site).
    pub actuator_trnid: Vec<[i32; 2]>,
    /// First activation (-1: none).
    pub actuator_actadr: Vec<i32>,
    /// Number of activations.
    pub actuator_actnum: Vec<i32>,
    /// First control.
    pub actuator_ctrladr: Vec<i32>,
    /// Number of controls.
    pub actuator_ctrlnum: Vec<i32>,
    /// Input signature (`mjtInputBit` flags, or the SO3 chart), its type's default resolved.
    pub actuator_ctrlspec: Vec<i32>,
    /// First force output.
    pub actuator_outadr: Vec<i32>,
    /// Number of force outputs.
    pub actuator_outnum: Vec<i32>,
    /// Group.
    pub actuator_group: Vec<i32>,
    /// Whether the control is clamped to `ctrlrange`.
    pub actuator_ctrllimited: Vec<bool>,
    /// Whether the force is clamped to `forcerange`.
    pub actuator_forcelimited: Vec<bool>,
    /// Whether the activation is clamped to `actrange`.
    pub actuator_actlimited: Vec<bool>,
    /// Dynamics parameters.
    pub actuator_dynprm: Vec<[f64; 10]>,
    /// Gain parameters.
    pub actuator_gainprm: Vec<[f64; 10]>,
    /// Bias parameters.
    pub actuator_biasprm: Vec<[f64; 10]>,
    /// Whether the force uses the next activation.
    pub actuator_actearly: Vec<bool>,
    /// Control range.
    pub actuator_ctrlrange: Vec<[f64; 2]>,
    /// Force range.
    pub actuator_forcerange: Vec<[f64; 2]>,
    /// Activation range.
    pub actuator_actrange: Vec<[f64; 2]>,
    /// Gear (transmission scale; rotation part for joint, site and body transmissions).
    pub actuator_gear: Vec<[f64; 6]>,
    /// Crank length of a slider-crank transmission.
    pub actuator_cranklength: Vec<f64>,
    /// Armature added to the transmission's dofs.
    pub actuator_armature: Vec<f64>,
    /// Damping added to the transmission's dofs.
    pub actuator_damping: Vec<f64>,
    /// Per joint: the actuator with a joint transmission on it, -2 for several, -1 for none.
    pub jnt_actuatorid: Vec<i32>,
    /// Transmission length at `qpos0`.
    pub actuator_length0: Vec<f64>,
    /// Whether reference-site and slider-crank actuators' `actuator_length0` (left 0) still
    /// need the site kinematics at `qpos0`, which `specula_native` runs.
    pub actuator_length_pending: bool,
    /// Feasible transmission length range.
    pub actuator_lengthrange: Vec<[f64; 2]>,

    // ------------------------------------------------------------------ sensors
    /// Why the sensor arrays below were left empty (a sensor kind specula's compiler does not
    /// produce yet); `None` when every sensor was compiled (see `compile::sensor`).
    pub sensor_unsupported: Option<String>,
    /// Sensor type (`mjtSensor`).
    pub sensor_type: Vec<i32>,
    /// Data type (`mjtDataType`).
    pub sensor_datatype: Vec<i32>,
    /// Stage the sensor needs (`mjtStage`).
    pub sensor_needstage: Vec<i32>,
    /// Type of the measured object (`mjtObj`).
    pub sensor_objtype: Vec<i32>,
    /// Id of the measured object (-1: none).
    pub sensor_objid: Vec<i32>,
    /// Type of the reference frame object (`mjtObj`).
    pub sensor_reftype: Vec<i32>,
    /// Id of the reference frame object (-1: the world frame).
    pub sensor_refid: Vec<i32>,
    /// Integer parameters (`mjNSENS` = 3).
    pub sensor_intprm: Vec<[i32; 3]>,
    /// Number of values.
    pub sensor_dim: Vec<i32>,
    /// First value in `sensordata`.
    pub sensor_adr: Vec<i32>,
    /// Cutoff for real and positive data (0: none).
    pub sensor_cutoff: Vec<f64>,
    /// Noise standard deviation (metadata: MuJoCo adds no noise).
    pub sensor_noise: Vec<f64>,
    /// Number of user values per sensor.
    pub nuser_sensor: usize,
    /// User values (`nsensor x nuser_sensor`).
    pub sensor_user: Vec<f64>,
    /// Length of `sensordata`.
    pub nsensordata: usize,

    // ------------------------------------------------------------------ names
    /// Model name.
    pub model_name: String,
    /// Body names (the world body is `world`).
    pub body_names: Vec<String>,
    /// Joint names.
    pub jnt_names: Vec<String>,
    /// Geom names.
    pub geom_names: Vec<String>,
    /// Site names.
    pub site_names: Vec<String>,
    /// Mesh names.
    pub mesh_names: Vec<String>,
    /// Height-field names.
    pub hfield_names: Vec<String>,
    /// Pair names.
    pub pair_names: Vec<String>,
    /// Exclude names.
    pub exclude_names: Vec<String>,
    /// Equality names.
    pub eq_names: Vec<String>,
    /// Tendon names.
    pub tendon_names: Vec<String>,
    /// Actuator names.
    pub actuator_names: Vec<String>,
    /// Sensor names.
    pub sensor_names: Vec<String>,
    /// Keyframe names.
    pub key_names: Vec<String>,
}

impl Model {
    /// Values of the named custom numeric field.
    pub fn numeric(&self, name: &str) -> Option<&[f64]> {
        let i = self.numeric_names.iter().position(|n| n == name)?;
        self.numeric_data.get(self.numeric_adr[i]..self.numeric_adr[i] + self.numeric_size[i])
    }

    /// Whether the model asks for specula's robust speculative mode: a custom numeric
    /// `specula_robust` whose first value is not 0 (MuJoCo C keeps it as user data and ignores it).
    pub fn asks_robust(&self) -> bool {
        self.numeric(ROBUST_NUMERIC).is_some_and(|v| v.first().is_some_and(|&x| x != 0.0))
    }

    /// Id of the named body.
    pub fn body_id(&self, name: &str) -> Option<usize> {
        self.body_names.iter().position(|n| n == name)
    }

    /// Id of the named geom.
    pub fn geom_id(&self, name: &str) -> Option<usize> {
        self.geom_names.iter().position(|n| n == name)
    }

    /// Id of the named joint.
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.jnt_names.iter().position(|n| n == name)
    }

    /// Id of the named site.
    pub fn site_id(&self, name: &str) -> Option<usize> {
        self.site_names.iter().position(|n| n == name)
    }
}
