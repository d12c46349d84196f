//! The fields of both models, by MuJoCo's names, and the kinematics comparison.

use specula_engine::kinematics::{com_pos, com_vel, kinematics};
use specula_model::types::JointType;

use super::compare::{Comparison, Field, FieldKind};
use super::flat::{flat, flat_one};
use crate::mj::{self, fields as cfields};

/// Sizes of the Rust model compared with `mjModel`'s.
macro_rules! rust_sizes {
    ($m:expr; $($name:ident),* $(,)?) => {
        vec![$(Field::new(stringify!($name), vec![$m.$name as f64], 1)),*]
    };
}

/// Array fields of the Rust model compared with `mjModel`'s arrays of the same name.
macro_rules! rust_arrays {
    ($m:expr; $($name:ident),* $(,)?) => {
        vec![$({ let (v, c) = flat(&$m.$name); Field::new(stringify!($name), v, c) }),*]
    };
}

/// Option fields, compared as `opt.<name>` on both sides.
macro_rules! opt_fields {
    ($o:expr; $($name:ident),* $(,)?) => {
        vec![$({ let (v, c) = flat_one(&$o.$name); Field::new(concat!("opt.", stringify!($name)), v, c) }),*]
    };
}

/// Every `mjOption` field specula's model holds, by name.
macro_rules! with_opt_names {
    ($mac:ident, $o:expr) => {
        $mac!($o; timestep, impratio, tolerance, ls_tolerance, noslip_tolerance, ccd_tolerance, sleep_tolerance, gravity, wind, magnetic, density, viscosity, o_margin, o_solref, o_solimp, o_friction, integrator, cone, jacobian, solver, iterations, ls_iterations, noslip_iterations, ccd_iterations, disableflags, enableflags, disableactuator, sdf_initpoints, sdf_iterations)
    };
}

fn kind_of(name: &str) -> FieldKind {
    if name.ends_with("quat") {
        FieldKind::Quat
    } else {
        FieldKind::Plain
    }
}

/// The Rust model's fields.
pub fn rust_model_fields(m: &specula_model::Model) -> Vec<Field> {
    let mut out = rust_sizes!(m;
        nq, nv, nu, nactuator, na, nbody, njnt, ngeom, nsite, ncam, nlight, nmesh, nmeshvert, nmeshface,
        nmeshgraph, nhfield, npair, nexclude, neq, ntendon, nsensor, nkey, nmocap, ntree, nm, nnumeric,
        nplastic,
    );
    out.extend(rust_arrays!(m;
        tree_bodyadr, tree_bodynum, tree_dofadr, tree_dofnum, qpos0, qpos_spring, body_parentid, body_rootid,
        body_weldid, body_mocapid, body_jntnum, body_jntadr, body_dofnum, body_dofadr, body_treeid,
        body_geomnum, body_geomadr, body_simple, body_sameframe, body_pos, body_quat, body_ipos, body_iquat,
        body_mass, body_subtreemass, body_inertia, body_gravcomp, body_margin, body_contype,
        body_conaffinity, body_bvhadr, body_bvhnum, bvh_depth, bvh_child, bvh_nodeid, bvh_aabb, jnt_type,
        jnt_qposadr, jnt_dofadr, jnt_bodyid, jnt_group, jnt_limited, jnt_actfrclimited, jnt_actgravcomp,
        jnt_springyield, jnt_plasticadr,
        jnt_solref, jnt_solimp, jnt_pos, jnt_axis, jnt_stiffness, jnt_stiffnesspoly, jnt_range,
        jnt_actfrcrange, jnt_margin, dof_bodyid, dof_jntid, dof_parentid, dof_madr, dof_treeid, dof_solref,
        dof_solimp, dof_frictionloss, dof_armature, dof_damping, dof_dampingpoly, geom_type, geom_contype,
        geom_conaffinity, geom_condim, geom_bodyid, geom_dataid, geom_matid, geom_group, geom_priority,
        geom_sameframe, geom_solmix, geom_solref, geom_solimp, geom_size, geom_aabb, geom_rbound, geom_pos,
        geom_quat, geom_friction, geom_margin, geom_gap, geom_surfacevel, geom_adhesion, geom_fluid,
        geom_rgba, site_type, site_bodyid, site_group, site_sameframe, site_size, site_pos, site_quat,
        mesh_vertadr, mesh_vertnum, mesh_faceadr, mesh_facenum, mesh_graphadr, mesh_vert, mesh_face,
        mesh_graph, mesh_scale, mesh_pos, mesh_quat, mesh_polynum, mesh_polyadr, mesh_polynormal,
        mesh_polyvertadr, mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap,
        hfield_size, hfield_nrow, hfield_ncol, hfield_adr,
        hfield_data, pair_dim, pair_geom1, pair_geom2, pair_signature, pair_solref, pair_solreffriction,
        pair_solimp, pair_margin, pair_gap, pair_adhesion, pair_friction, exclude_signature, key_time,
        key_qpos, key_qvel, key_act, key_mpos, key_mquat, key_ctrl, numeric_adr, numeric_size, numeric_data,
    ));
    // actuators: compared when specula's compiler produced them (see `actuator_unsupported`)
    if m.actuator_trntype.len() == m.nactuator && m.actuator_unsupported.is_none() {
        out.extend(rust_arrays!(m;
            actuator_trntype, actuator_dyntype, actuator_gaintype, actuator_biastype, actuator_trnid,
            actuator_actadr, actuator_actnum, actuator_ctrladr, actuator_ctrlnum, actuator_ctrlspec,
            actuator_outadr,
            actuator_outnum, actuator_group, actuator_ctrllimited, actuator_forcelimited, actuator_actlimited,
            actuator_dynprm, actuator_gainprm, actuator_biasprm, actuator_actearly, actuator_ctrlrange,
            actuator_forcerange, actuator_actrange, actuator_gear, actuator_cranklength, actuator_armature,
            actuator_damping, actuator_length0, actuator_lengthrange, jnt_actuatorid,
        ));
    }
    // equalities: compared when specula's compiler produced them (see `eq_unsupported`)
    if m.eq_unsupported.is_none() {
        out.extend(rust_arrays!(m;
            eq_type, eq_obj1id, eq_obj2id, eq_objtype, eq_active0, eq_solref, eq_solimp, eq_data,
        ));
    }
    // tendons: compared when specula's compiler produced them (see `tendon_unsupported`)
    if m.tendon_adr.len() == m.ntendon && m.tendon_unsupported.is_none() {
        out.extend(super::tendon_fields::rust_tendon_fields(m));
    }
    // sensors: compared when specula's compiler produced them (see `sensor_unsupported`)
    if m.sensor_unsupported.is_none() {
        out.extend(rust_sizes!(m; nsensordata, nuser_sensor));
        out.extend(rust_arrays!(m;
            sensor_type, sensor_datatype, sensor_needstage, sensor_objtype, sensor_objid, sensor_reftype,
            sensor_refid, sensor_intprm, sensor_dim, sensor_adr, sensor_cutoff, sensor_noise,
        ));
    }
    out.extend(with_opt_names!(opt_fields, m.opt));
    finish(out)
}

/// Fields [`finish`] reads to build the hull and surface sets, wanted even though it drops them.
const FINISH_INPUTS: &[&str] = &[
    "mesh_vert",
    "mesh_graph",
    "mesh_vertadr",
    "mesh_graphadr",
    "mesh_face",
    "mesh_faceadr",
    "mesh_facenum",
    "body_bvhnum",
];

/// MuJoCo C's fields of the names in `wanted` (the Rust side's, before [`finish`]).
///
/// Only those are copied: an array the Rust model lacks is never compared, and copying all of
/// them as `f64` multiplies the largest ones by eight (a 1e6 x 512 builtin texture, 1.5 GB of
/// bytes in MuJoCo, became 12 GB here; issue 16, item 6).
pub fn c_model_fields(model: &mj::Model, wanted: &[&str]) -> Vec<Field> {
    let m = model.mj();
    let want = |n: &&&str| wanted.contains(*n) || FINISH_INPUTS.contains(*n);
    let mut out: Vec<Field> = cfields::SIZES
        .iter()
        .filter(&want)
        .filter_map(|n| Some(Field::new(*n, vec![cfields::size(m, n)? as f64], 1)))
        .collect();
    out.extend(cfields::ARRAYS.iter().filter(&want).filter_map(|n| {
        let (v, c) = cfields::array(m, n)?;
        Some(Field::new(*n, v, c))
    }));
    let o = &m.opt;
    out.extend(with_opt_names!(opt_fields, o));
    finish(out)
}

/// Sets comparison kinds and replaces `mesh_graph` (whose vertex and face order depend on the
/// hull algorithm) by each mesh's hull vertices compared as a set.
fn finish(mut fields: Vec<Field>) -> Vec<Field> {
    let get = |name: &str| fields.iter().find(|f| f.name == name).map(|f| f.values.clone());
    let hulls = match (get("mesh_vert"), get("mesh_graph"), get("mesh_vertadr"), get("mesh_graphadr")) {
        (Some(vert), Some(graph), Some(vadr), Some(gadr)) => hull_sets(&vert, &graph, &vadr, &gadr),
        _ => Vec::new(),
    };
    let surfaces =
        match (get("mesh_vert"), get("mesh_face"), get("mesh_vertadr"), get("mesh_faceadr"), get("mesh_facenum")) {
            (Some(vert), Some(face), Some(vadr), Some(fadr), Some(fnum)) => {
                mesh_surfaces(&vert, &face, &vadr, &fadr, &fnum)
            }
            _ => Vec::new(),
        };
    let body_nodes: usize = get("body_bvhnum").map_or(0, |v| v.iter().sum::<f64>() as usize);
    // Faces MuJoCo builds for point-cloud meshes are its hull's triangles, whose split of flat
    // facets depends on the hull algorithm; compare the surface they make instead of the indices.
    fields.retain(|f| f.name != "mesh_graph" && f.name != "mesh_face");
    // MuJoCo's bvh arrays hold the per-body geom trees first, then per-mesh face trees. specula
    // builds the body trees (the collision mid-phase reads them) but not the mesh face trees (used
    // by ray casts and height-field/SDF collision, which specula leaves to MuJoCo), so the
    // comparison covers the body trees: the first sum(body_bvhnum) nodes.
    for f in &mut fields {
        if f.name.starts_with("bvh_") {
            f.values.truncate(body_nodes * f.cols);
        }
    }
    for f in &mut fields {
        f.kind = kind_of(&f.name);
        if f.name == "mesh_vert" {
            *f = f.clone().single_precision();
        }
    }
    fields.extend(hulls);
    fields.extend(surfaces);
    fields
}

/// The hull vertices of every mesh, from MuJoCo's graph layout (numvert, numface, then per vertex
/// its edge address, then per vertex its mesh-vertex index, ...).
fn hull_sets(vert: &[f64], graph: &[f64], vadr: &[f64], gadr: &[f64]) -> Vec<Field> {
    let mut out = Vec::new();
    for (i, (&va, &ga)) in vadr.iter().zip(gadr).enumerate() {
        if ga < 0.0 {
            continue;
        }
        let (va, ga) = (va as usize, ga as usize);
        let Some(&numvert) = graph.get(ga) else { continue };
        let numvert = numvert as usize;
        let ids = graph.get(ga + 2 + numvert..ga + 2 + 2 * numvert).unwrap_or(&[]);
        let mut values = Vec::with_capacity(3 * ids.len());
        for &id in ids {
            let k = 3 * (va + id as usize);
            values.extend(vert.get(k..k + 3).unwrap_or(&[f64::NAN; 3]));
        }
        out.push(Field::new(format!("mesh_hull[{i}]"), values, 3).with_kind(FieldKind::Set).single_precision());
    }
    out
}

/// Per mesh: area, enclosed volume and area-weighted centre (in units of sqrt(area)) of its triangles (invariant under how
/// flat facets are split into triangles and under face order).
fn mesh_surfaces(vert: &[f64], face: &[f64], vadr: &[f64], fadr: &[f64], fnum: &[f64]) -> Vec<Field> {
    let mut out = Vec::new();
    for (i, ((&va, &fa), &fnum)) in vadr.iter().zip(fadr).zip(fnum).enumerate() {
        let (va, fa, n) = (va as usize, fa as usize, fnum as usize);
        let p = |k: f64| {
            let j = 3 * (va + k as usize);
            vert.get(j..j + 3).map_or([f64::NAN; 3], |v| [v[0], v[1], v[2]])
        };
        let (mut area, mut volume, mut centre) = (0.0, 0.0, [0.0; 3]);
        for f in face.get(3 * fa..3 * (fa + n)).unwrap_or(&[]).chunks_exact(3) {
            let (a, b, c) = (p(f[0]), p(f[1]), p(f[2]));
            let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
            let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
            let da = 0.5 * (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            area += da;
            volume += (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]) / 6.0;
            for k in 0..3 {
                centre[k] += da * (a[k] + b[k] + c[k]) / 3.0;
            }
        }
        let centre = centre.map(|c| if area > 0.0 { c / area } else { 0.0 });
        // The centre in units of the mesh's size (sqrt of its area), so that a coordinate that is
        // zero up to round-off compares at the mesh's own scale.
        let size = area.sqrt().max(f64::MIN_POSITIVE);
        let values = vec![area, volume, centre[0] / size, centre[1] / size, centre[2] / size];
        out.push(Field::new(format!("mesh_surface[{i}]"), values, 5).single_precision());
    }
    out
}

/// A small deterministic generator (xorshift64*) for the random configurations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// A random configuration: joints within [-pi, pi] (or their range), free positions within a
/// metre of the origin, normalised random quaternions.
fn random_qpos(m: &specula_model::Model, rng: &mut Rng) -> Vec<f64> {
    let mut q = m.qpos0.clone();
    for j in 0..m.njnt {
        let a = m.jnt_qposadr[j];
        let quat = |rng: &mut Rng| {
            let v = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-3);
            v.map(|x| x / n)
        };
        match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    q[a + k] = rng.uniform(-1.0, 1.0);
                }
                q[a + 3..a + 7].copy_from_slice(&quat(rng));
            }
            JointType::Ball => q[a..a + 4].copy_from_slice(&quat(rng)),
            JointType::Hinge | JointType::Slide => q[a] = rng.uniform(-std::f64::consts::PI, std::f64::consts::PI),
        }
    }
    q
}

/// Compares world poses after kinematics at `qpos0` and at `n` seeded random configurations.
pub fn compare_kinematics(cm: &mj::Model, rm: &specula_model::Model, n: usize, cmp: &mut Comparison) {
    let Ok(mut d) = mj::Data::new(cm) else { return };
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for k in 0..=n {
        let q = if k == 0 { rm.qpos0.clone() } else { random_qpos(rm, &mut rng) };
        if q.len() != d.qpos().len() {
            cmp.add(&Field::new("nq", vec![d.qpos().len() as f64], 1), &Field::new("nq", vec![q.len() as f64], 1));
            return;
        }
        d.qpos_mut().copy_from_slice(&q);
        let qd: Vec<f64> = if k == 0 { vec![0.0; rm.nv] } else { (0..rm.nv).map(|_| rng.uniform(-2.0, 2.0)).collect() };
        if qd.len() == d.qvel().len() {
            d.qvel_mut().copy_from_slice(&qd);
        }
        if d.position_kinematics().is_err() || d.velocity_kinematics().is_err() {
            return;
        }
        let poses = kinematics(rm, &q, None);
        let com = com_pos(rm, &poses);
        let cvel = com_vel(rm, &com, &qd);
        let tag = if k == 0 { "qpos0".to_string() } else { format!("random{k}") };
        let pairs = [
            ("xpos", d.xpos().to_vec(), flat(&poses.xpos), FieldKind::Plain),
            ("xquat", d.xquat().to_vec(), flat(&poses.xquat), FieldKind::Quat),
            ("xmat", d.xmat().to_vec(), flat(&poses.xmat), FieldKind::Plain),
            ("xipos", d.xipos().to_vec(), flat(&poses.xipos), FieldKind::Plain),
            ("geom_xpos", d.geom_xpos().to_vec(), flat(&poses.geom_xpos), FieldKind::Plain),
            ("geom_xmat", d.geom_xmat().to_vec(), flat(&poses.geom_xmat), FieldKind::Plain),
            ("subtree_com", d.subtree_com().to_vec(), flat(&com.subtree_com), FieldKind::Plain),
            ("cdof", d.cdof().to_vec(), flat(&com.cdof), FieldKind::Plain),
            ("cvel", d.cvel().to_vec(), flat(&cvel), FieldKind::Plain),
        ];
        for (name, cv, (rv, cols), kind) in pairs {
            let name = format!("{name}@{tag}");
            cmp.add(&Field::new(&name, cv, cols).with_kind(kind), &Field::new(&name, rv, cols).with_kind(kind));
        }
    }
}
