//! `mj_sensorPos`, `mj_sensorVel` and `mj_sensorAcc` for the sensor kinds the native route
//! covers, with MuJoCo's cutoff (`docs/measurements.md` N27).
//!
//! MuJoCo 4.0.0's `mj_forwardSkip` computes position sensors right after `mj_fwdPosition`,
//! velocity sensors right after `mj_fwdVelocity` and acceleration sensors after
//! `mj_fwdConstraint`; RK4's inner forward passes skip all three. Every array a sensor reads is
//! final once written in that pass, so the native route computes all three groups after its
//! forward pass, in that order (the order only matters for the lazily computed subtree
//! velocities and `mj_rnePostConstraint`, which each group computes at most once per pass).

use specula_engine::dynamics::rne_post::transform_motion;
use specula_engine::math::{cross, mul_mat_t_vec3, mul_quat, neg_quat, normalize4, sub3};
use specula_model::compile::sensor::{kind, OBJ_BODY, OBJ_GEOM, OBJ_SITE, OBJ_XBODY};
use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// `mjDSBL_SENSOR`.
const DSBL_SENSOR: u32 = 1 << 13;
/// `mjCNSTR_LIMIT_JOINT`.
const LIMIT_JOINT: i32 = 3;
/// `mjCNSTR_LIMIT_TENDON`.
const LIMIT_TENDON: i32 = 4;

/// `sensordata` and the lazily computed quantities sensors read.
#[derive(Debug, Default)]
pub struct SensorData {
    /// The sensor values (`nsensordata`).
    pub sensordata: Vec<f64>,
    /// `mj_subtreeVel`'s body velocities (`6 nbody`).
    body_vel: Vec<f64>,
    /// Subtree linear velocities (`3 nbody`).
    pub subtree_linvel: Vec<f64>,
    /// Subtree angular momenta about the subtree centres of mass (`3 nbody`).
    pub subtree_angmom: Vec<f64>,
    /// Whether `mj_subtreeVel` ran in this pass.
    subtree_done: bool,
    /// `mj_rnePostConstraint`'s outputs and scratch.
    pub post: crate::sensor_acc::PostConstraint,
}

impl SensorData {
    /// Zeroed buffers for `m`.
    pub fn new(m: &Model) -> SensorData {
        SensorData {
            sensordata: vec![0.0; m.nsensordata],
            body_vel: vec![0.0; 6 * m.nbody],
            subtree_linvel: vec![0.0; 3 * m.nbody],
            subtree_angmom: vec![0.0; 3 * m.nbody],
            subtree_done: false,
            post: crate::sensor_acc::PostConstraint::new(m),
        }
    }
}

/// Refuses sensors the native route does not compute, naming the first one.
pub fn check(m: &Model) -> Result<(), NativeError> {
    if m.nsensor == 0 {
        return Ok(());
    }
    if let Some(why) = &m.sensor_unsupported {
        return Err(NativeError::Unsupported {
            what: format!("sensors specula's compiler does not compile: {why}"),
            needs: "those sensor kinds in specula's compiler",
        });
    }
    use kind::*;
    for (i, &t) in m.sensor_type.iter().enumerate() {
        let why = match t {
            E_POTENTIAL | E_KINETIC => "energy sensors (mj_energyPos, mj_energyVel)",
            INSIDESITE => "insidesite sensors",
            // 4.0.0's mj_rnePostConstraint turns a weld's torque by the bodies' orientations
            // and reads joint equalities too (N27): only connect rows are covered
            ACCELEROMETER | FORCE | TORQUE | FRAMELINACC | FRAMEANGACC if m.eq_type.iter().any(|&t| t != 0) => {
                "weld and joint equalities in mj_rnePostConstraint"
            }
            _ => continue,
        };
        let name = m.sensor_names.get(i).map_or("", String::as_str);
        return Err(NativeError::Unsupported { what: format!("sensor {i} '{name}'"), needs: why });
    }
    Ok(())
}

/// A 3-vector of a flat array.
pub(crate) fn v3(a: &[f64], i: usize) -> [f64; 3] {
    [a[3 * i], a[3 * i + 1], a[3 * i + 2]]
}

/// A row-major 3x3 matrix of a flat array.
pub(crate) fn m9(a: &[f64], i: usize) -> [f64; 9] {
    let mut r = [0.0; 9];
    r.copy_from_slice(&a[9 * i..9 * i + 9]);
    r
}

/// The body, position and orientation of a sensor's frame object (`mjOBJ_BODY`: the inertial
/// frame; `mjOBJ_XBODY`: the body frame; geom; site).
pub(crate) fn frame_of(m: &Model, d: &Data, ty: i32, id: usize) -> (usize, [f64; 3], [f64; 9]) {
    match ty {
        OBJ_BODY => (id, v3(&d.xipos, id), m9(&d.ximat, id)),
        OBJ_XBODY => (id, v3(&d.xpos, id), m9(&d.xmat, id)),
        OBJ_GEOM => (m.geom_bodyid[id], v3(&d.geom_xpos, id), m9(&d.geom_xmat, id)),
        _ => (m.site_bodyid[id], v3(&d.site_xpos, id), m9(&d.site_xmat, id)),
    }
}

/// The world orientation of a sensor's frame object (`get_xquat`).
fn quat_of(m: &Model, d: &Data, ty: i32, id: usize) -> [f64; 4] {
    let xq = |b: usize| [d.xquat[4 * b], d.xquat[4 * b + 1], d.xquat[4 * b + 2], d.xquat[4 * b + 3]];
    match ty {
        OBJ_XBODY => xq(id),
        OBJ_BODY => mul_quat(&xq(id), &m.body_iquat[id]),
        OBJ_GEOM => mul_quat(&xq(m.geom_bodyid[id]), &m.geom_quat[id]),
        _ => mul_quat(&xq(m.site_bodyid[id]), &m.site_quat[id]),
    }
}

/// `mj_objectVelocity`: the 6D velocity (angular, linear) of a frame object at its origin, in
/// the world orientation or (`local`) its own.
fn object_velocity(m: &Model, d: &Data, ty: i32, id: usize, local: bool) -> [f64; 6] {
    let (body, pos, rot) = frame_of(m, d, ty, id);
    if m.body_dofnum[m.body_weldid[body]] == 0 {
        return [0.0; 6];
    }
    let root = m.body_rootid[body];
    transform_motion(&d.cvel[6 * body..6 * body + 6], &pos, &v3(&d.subtree_com, root), local.then_some(&rot))
}

/// The first limit row of `ty` on object `id` (`efc` rows after equalities and friction).
fn limit_row(d: &Data, ty: i32, id: usize) -> Option<usize> {
    let e = &d.efc;
    (e.ne + e.nf..e.nefc).find(|&j| e.efc_type[j] == ty && e.efc_id[j] == id as i32)
}

/// Clamps sensor `i`'s values to its cutoff (real: both sides; positive: above only).
fn cutoff(m: &Model, i: usize, out: &mut [f64]) {
    let c = m.sensor_cutoff[i];
    if c <= 0.0 {
        return;
    }
    for v in out.iter_mut() {
        match m.sensor_datatype[i] {
            0 => *v = specula_engine::math::clip(*v, -c, c),
            1 => *v = if c < *v { c } else { *v },
            _ => {}
        }
    }
}

/// `mj_sensorPos`, `mj_sensorVel` and `mj_sensorAcc` after a full forward pass.
pub(crate) fn sensors(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    if m.nsensor == 0 || m.opt.disableflags & DSBL_SENSOR != 0 {
        return;
    }
    let mut out = std::mem::take(&mut d.sensor.sensordata);
    d.sensor.subtree_done = false;
    d.sensor.post.done = false;
    for stage in 1..=3 {
        for i in (0..m.nsensor).filter(|&i| m.sensor_needstage[i] == stage) {
            let (adr, dim) = (m.sensor_adr[i] as usize, m.sensor_dim[i] as usize);
            let s = &mut out[adr..adr + dim];
            match stage {
                1 => position_sensor(m, d, i, s),
                2 => velocity_sensor(m, d, i, s),
                _ => crate::sensor_acc::acceleration_sensor(nm, d, i, s),
            }
            cutoff(m, i, s);
        }
    }
    d.sensor.sensordata = out;
}

/// One position-stage sensor.
fn position_sensor(m: &Model, d: &Data, i: usize, s: &mut [f64]) {
    use kind::*;
    let (ty, id) = (m.sensor_type[i], m.sensor_objid[i] as usize);
    let (objtype, reftype, refid) = (m.sensor_objtype[i], m.sensor_reftype[i], m.sensor_refid[i]);
    match ty {
        MAGNETOMETER => {
            // mju_mulMatTVec: zero, then add the rows scaled by the non-zero entries
            let (r, b) = (m9(&d.site_xmat, id), m.opt.magnetic);
            let mut res = [0.0; 3];
            for (row, &x) in b.iter().enumerate() {
                if x != 0.0 {
                    for k in 0..3 {
                        res[k] += r[3 * row + k] * x;
                    }
                }
            }
            s.copy_from_slice(&res);
        }
        JOINTPOS => s[0] = d.qpos[m.jnt_qposadr[id]],
        TENDONPOS => s[0] = d.tendon.ten_length[id],
        ACTUATORPOS => {
            let adr = m.actuator_outadr[id] as usize;
            s.copy_from_slice(&d.actuation.actuator_length[adr..adr + s.len()]);
        }
        BALLQUAT => {
            let a = m.jnt_qposadr[id];
            let mut q = [d.qpos[a], d.qpos[a + 1], d.qpos[a + 2], d.qpos[a + 3]];
            normalize4(&mut q);
            s.copy_from_slice(&q);
        }
        JOINTLIMITPOS | TENDONLIMITPOS => {
            let row = limit_row(d, if ty == JOINTLIMITPOS { LIMIT_JOINT } else { LIMIT_TENDON }, id);
            s[0] = row.map_or(0.0, |j| d.efc.efc_pos[j] - d.efc.efc_margin[j]);
        }
        FRAMEPOS | FRAMEXAXIS | FRAMEYAXIS | FRAMEZAXIS => {
            let (_, pos, mat) = frame_of(m, d, objtype, id);
            let axis = |k: usize| [mat[k], mat[k + 3], mat[k + 6]];
            let v = if ty == FRAMEPOS { pos } else { axis((ty - FRAMEXAXIS) as usize) };
            let v = match usize::try_from(refid) {
                Err(_) => v,
                Ok(r) => {
                    let (_, rpos, rmat) = frame_of(m, d, reftype, r);
                    mul_mat_t_vec3(&rmat, &if ty == FRAMEPOS { sub3(&pos, &rpos) } else { v })
                }
            };
            s.copy_from_slice(&v);
        }
        FRAMEQUAT => {
            let q = quat_of(m, d, objtype, id);
            let q = match usize::try_from(refid) {
                Err(_) => q,
                Ok(r) => mul_quat(&neg_quat(&quat_of(m, d, reftype, r)), &q),
            };
            s.copy_from_slice(&q);
        }
        SUBTREECOM => s.copy_from_slice(&v3(&d.subtree_com, id)),
        CLOCK => s[0] = d.time,
        _ => unreachable!("sensor kinds outside the native subset are refused by check"),
    }
}

/// One velocity-stage sensor.
fn velocity_sensor(m: &Model, d: &mut Data, i: usize, s: &mut [f64]) {
    use kind::*;
    let (ty, id) = (m.sensor_type[i], m.sensor_objid[i] as usize);
    let (objtype, reftype, refid) = (m.sensor_objtype[i], m.sensor_reftype[i], m.sensor_refid[i]);
    if matches!(ty, SUBTREELINVEL | SUBTREEANGMOM) && !d.sensor.subtree_done {
        subtree_vel(m, d);
    }
    match ty {
        VELOCIMETER => s.copy_from_slice(&object_velocity(m, d, OBJ_SITE, id, true)[3..]),
        GYRO => s.copy_from_slice(&object_velocity(m, d, OBJ_SITE, id, true)[..3]),
        JOINTVEL => s[0] = d.qvel[m.jnt_dofadr[id]],
        TENDONVEL => s[0] = d.tendon.ten_velocity[id],
        ACTUATORVEL => {
            let adr = m.actuator_outadr[id] as usize;
            s.copy_from_slice(&d.actuation.actuator_velocity[adr..adr + s.len()]);
        }
        BALLANGVEL => {
            let a = m.jnt_dofadr[id];
            s.copy_from_slice(&d.qvel[a..a + 3]);
        }
        JOINTLIMITVEL | TENDONLIMITVEL => {
            let row = limit_row(d, if ty == JOINTLIMITVEL { LIMIT_JOINT } else { LIMIT_TENDON }, id);
            s[0] = row.map_or(0.0, |j| d.efc.efc_vel[j]);
        }
        FRAMELINVEL | FRAMEANGVEL => {
            let mut xvel = object_velocity(m, d, objtype, id, false);
            if let Ok(r) = usize::try_from(refid) {
                let (_, pos, _) = frame_of(m, d, objtype, id);
                let (_, rpos, rmat) = frame_of(m, d, reftype, r);
                let rvel = object_velocity(m, d, reftype, r, false);
                let mut rel = [0.0; 6];
                for k in 0..6 {
                    rel[k] = xvel[k] - rvel[k];
                }
                // the reference frame turns: add its angular velocity's effect on the offset
                let c = cross(&sub3(&pos, &rpos), &[rvel[0], rvel[1], rvel[2]]);
                for k in 0..3 {
                    rel[3 + k] += c[k];
                }
                let a = mul_mat_t_vec3(&rmat, &[rel[0], rel[1], rel[2]]);
                let l = mul_mat_t_vec3(&rmat, &[rel[3], rel[4], rel[5]]);
                xvel = [a[0], a[1], a[2], l[0], l[1], l[2]];
            }
            s.copy_from_slice(if ty == FRAMELINVEL { &xvel[3..] } else { &xvel[..3] });
        }
        SUBTREELINVEL => s.copy_from_slice(&v3(&d.sensor.subtree_linvel, id)),
        SUBTREEANGMOM => s.copy_from_slice(&v3(&d.sensor.subtree_angmom, id)),
        _ => unreachable!("sensor kinds outside the native subset are refused by check"),
    }
}

/// `a += b`, entry by entry.
fn add_to(a: &mut [f64], b: &[f64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// `mj_subtreeVel`: subtree linear velocities and angular momenta.
fn subtree_vel(m: &Model, d: &mut Data) {
    let nbody = m.nbody;
    let mut sd = std::mem::take(&mut d.sensor);
    for b in 0..nbody {
        let v = object_velocity(m, d, OBJ_BODY, b, false);
        sd.body_vel[6 * b..6 * b + 6].copy_from_slice(&v);
        let mass = m.body_mass[b];
        for k in 0..3 {
            sd.subtree_linvel[3 * b + k] = v[3 + k] * mass;
        }
        let r = m9(&d.ximat, b);
        let mut dv = mul_mat_t_vec3(&r, &[v[0], v[1], v[2]]);
        for (x, i) in dv.iter_mut().zip(&m.body_inertia[b]) {
            *x *= i;
        }
        let am = specula_engine::math::mul_mat_vec3(&r, &dv);
        sd.subtree_angmom[3 * b..3 * b + 3].copy_from_slice(&am);
    }
    for b in (0..nbody).rev() {
        if b > 0 {
            let p = m.body_parentid[b];
            for k in 0..3 {
                sd.subtree_linvel[3 * p + k] += sd.subtree_linvel[3 * b + k];
            }
        }
        let inv = 1.0 / m.body_subtreemass[b].max(specula_engine::math::MINVAL);
        for k in 0..3 {
            sd.subtree_linvel[3 * b + k] *= inv;
        }
    }
    for b in (1..nbody).rev() {
        let p = m.body_parentid[b];
        let dx = sub3(&v3(&d.xipos, b), &v3(&d.subtree_com, b));
        let dv = sub3(&v3(&sd.body_vel[..], 2 * b + 1), &v3(&sd.subtree_linvel, b));
        let mass = m.body_mass[b];
        let dl = cross(&dx, &[dv[0] * mass, dv[1] * mass, dv[2] * mass]);
        add_to(&mut sd.subtree_angmom[3 * b..3 * b + 3], &dl);
        for k in 0..3 {
            sd.subtree_angmom[3 * p + k] += sd.subtree_angmom[3 * b + k];
        }
        let dx = sub3(&v3(&d.subtree_com, b), &v3(&d.subtree_com, p));
        let dv = sub3(&v3(&sd.subtree_linvel, b), &v3(&sd.subtree_linvel, p));
        let ms = m.body_subtreemass[b];
        let dl = cross(&dx, &[dv[0] * ms, dv[1] * ms, dv[2] * ms]);
        add_to(&mut sd.subtree_angmom[3 * p..3 * p + 3], &dl);
    }
    sd.subtree_done = true;
    d.sensor = sd;
}
