//! The acceleration-stage sensors of [`crate::sensor`]: touch, accelerometer, force, torque, frame
//! linear and angular accelerations (through `mj_rnePostConstraint`), actuator, joint and
//! tendon actuator forces and limit forces (`docs/measurements.md` N27).

use specula_engine::dynamics::constraint::Contact;
use specula_engine::dynamics::rne_post::{rne_post_constraint, transform_force, transform_motion};
use specula_engine::dynamics::RneInput;
use specula_engine::math::{cross, mul_mat_t_vec3, mul_mat_vec3, normalize3};
use specula_engine::narrowphase::Geom;
use specula_engine::speculative::sight::ray_geom;
use specula_model::compile::sensor::{kind, OBJ_SITE};
use specula_model::types::Cone;
use specula_model::Model;

use crate::scope::DSBL_GRAVITY;
use crate::sensor::{frame_of, v3};

use crate::data::Data;
use crate::model::NativeModel;

/// `mjCNSTR_LIMIT_JOINT`.
const LIMIT_JOINT: i32 = 3;
/// `mjCNSTR_LIMIT_TENDON`.
const LIMIT_TENDON: i32 = 4;
/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;

/// `mjEQ_CONNECT`.
const EQ_CONNECT: i32 = 0;
/// `mjEQ_WELD`.
const EQ_WELD: i32 = 1;
/// `mjOBJ_BODY`.
const OBJ_BODY: i32 = 1;
/// `mjNEQDATA`.
const NEQDATA: usize = 12;

/// `mj_rnePostConstraint`'s outputs (computed at most once per forward pass).
#[derive(Debug, Default)]
pub struct PostConstraint {
    /// Whether it ran in this pass.
    pub(crate) done: bool,
    /// Com-based body accelerations (`6 nbody`).
    pub cacc: Vec<f64>,
    /// Interaction forces with the parent body, com-based (`6 nbody`).
    pub cfrc_int: Vec<f64>,
    /// External forces (contacts, connect and weld constraints), com-based (`6 nbody`).
    pub cfrc_ext: Vec<f64>,
}

impl PostConstraint {
    /// Buffers for `m`.
    pub fn new(m: &Model) -> PostConstraint {
        let z = || vec![0.0; 6 * m.nbody];
        PostConstraint { done: false, cacc: z(), cfrc_int: z(), cfrc_ext: z() }
    }
}

/// `mj_contactForce`: the contact's force and torque in its frame (a pyramidal cone's edge
/// forces decoded).
fn contact_force(con: &Contact, efc_force: &[f64], pyramidal: bool) -> [f64; 6] {
    let mut r = [0.0; 6];
    let (adr, dim) = (con.efc_address as usize, con.dim as usize);
    let f = &efc_force[adr..];
    if pyramidal && dim > 1 {
        r[0] = 0.0;
        for &e in &f[..2 * (dim - 1)] {
            r[0] += e;
        }
        for i in 0..dim - 1 {
            r[i + 1] = (f[2 * i] - f[2 * i + 1]) * con.friction[i];
        }
    } else {
        r[..dim].copy_from_slice(&f[..dim]);
    }
    r
}

/// Adds (`sign` > 0) or subtracts the wrench `cfrc` applied at `pos` to body `k`'s external
/// force about its tree's centre of mass; nothing for the world.
fn apply(m: &Model, d: &Data, ext: &mut [f64], k: usize, pos: &[f64; 3], cfrc: &[f64; 6], sign: f64) {
    if k == 0 {
        return;
    }
    let com = transform_force(cfrc, &v3(&d.subtree_com, m.body_rootid[k]), pos, None);
    for i in 0..6 {
        if sign > 0.0 {
            ext[6 * k + i] += com[i];
        } else {
            ext[6 * k + i] -= com[i];
        }
    }
}

/// `mj_rnePostConstraint`: `cfrc_ext` from contacts and connect and weld rows, then `cacc` and
/// `cfrc_int`.
fn rne_post(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    let mut post = std::mem::take(&mut d.sensor.post);
    let ext = &mut post.cfrc_ext;
    ext.fill(0.0);
    let pyramidal = m.opt.cone == Cone::Pyramidal;
    let efc_force = &d.efc.efc_force;
    for con in d.contacts.iter().filter(|c| c.efc_address >= 0 && c.geom[0] >= 0 && c.geom[1] >= 0) {
        let l = contact_force(con, efc_force, pyramidal);
        let (t, f) = (mul_mat_t_vec3(&con.frame, &[l[3], l[4], l[5]]), mul_mat_t_vec3(&con.frame, &[l[0], l[1], l[2]]));
        let cfrc = [t[0], t[1], t[2], f[0], f[1], f[2]];
        apply(m, d, ext, m.geom_bodyid[con.geom[0] as usize], &con.pos, &cfrc, -1.0);
        apply(m, d, ext, m.geom_bodyid[con.geom[1] as usize], &con.pos, &cfrc, 1.0);
    }
    let eq = &nm.equalities;
    let mut i = 0;
    while i < d.efc.ne {
        let id = d.efc.efc_id[i] as usize;
        let ty = eq.eq_type[id];
        if ty != EQ_CONNECT && ty != EQ_WELD {
            i += 1;
            continue;
        }
        let weld = ty == EQ_WELD;
        let mut cfrc = [0.0; 6];
        cfrc[3..].copy_from_slice(&efc_force[i..i + 3]);
        if weld {
            cfrc[..3].copy_from_slice(&efc_force[i + 3..i + 6]);
        }
        let data = &eq.eq_data[NEQDATA * id..NEQDATA * id + NEQDATA];
        let body = eq.eq_objtype[id] == OBJ_BODY;
        for (side, obj, sign) in [(0, eq.eq_obj1id[id] as usize, 1.0), (1, eq.eq_obj2id[id] as usize, -1.0)] {
            let k = if body { obj } else { m.site_bodyid[obj] };
            // the anchor on this side: the body's own data block, or the site's position
            let off = if body {
                let first = if side == 0 { weld } else { !weld };
                let a = if first { 3 } else { 0 };
                [data[a], data[a + 1], data[a + 2]]
            } else {
                m.site_pos[obj]
            };
            let mv = mul_mat_vec3(&crate::sensor::m9(&d.xmat, k), &off);
            let x = v3(&d.xpos, k);
            let pos = [mv[0] + x[0], mv[1] + x[1], mv[2] + x[2]];
            apply(m, d, ext, k, &pos, &cfrc, sign);
        }
        i += if weld { 6 } else { 3 };
    }
    let opt = &m.opt;
    let input = RneInput {
        qvel: &d.qvel,
        qacc: &d.qacc,
        cinert: &d.cinert,
        cvel: &d.cvel,
        cdof: &d.cdof,
        cdof_dot: &d.cdof_dot,
        gravity: (opt.disableflags & DSBL_GRAVITY == 0).then_some(opt.gravity),
    };
    rne_post_constraint(&nm.tree(), &input, &post.cfrc_ext, &mut post.cacc, &mut post.cfrc_int);
    post.done = true;
    d.sensor.post = post;
}

/// A touch sensor on site `site`: the normal forces of the contacts of the site's body whose
/// force ray, from the contact point into the body, meets the site's volume.
fn touch(nm: &NativeModel, d: &Data, site: usize) -> f64 {
    let m = &nm.model;
    let body = m.site_bodyid[site];
    let zone = Geom {
        ty: m.site_type[site],
        size: m.site_size[site],
        pos: v3(&d.site_xpos, site),
        mat: crate::sensor::m9(&d.site_xmat, site),
        rbound: 0.0,
        hull: None,
        hfield: None,
    };
    let pyramidal = m.opt.cone == Cone::Pyramidal;
    let mut sum = 0.0;
    for con in d.contacts.iter().filter(|c| c.efc_address >= 0) {
        let bodies = [m.geom_bodyid[con.geom[0] as usize], m.geom_bodyid[con.geom[1] as usize]];
        if body != bodies[0] && body != bodies[1] {
            continue;
        }
        let f = contact_force(con, &d.efc.efc_force, pyramidal);
        if f[0] <= 0.0 {
            continue;
        }
        let mut ray = [con.frame[0] * f[0], con.frame[1] * f[0], con.frame[2] * f[0]];
        normalize3(&mut ray);
        if body == bodies[1] {
            ray = [-ray[0], -ray[1], -ray[2]];
        }
        if ray_geom(&zone, &con.pos, &ray) >= 0.0 {
            sum += f[0];
        }
    }
    sum
}

/// `mj_objectAcceleration`: the 6D acceleration (angular, linear) of a frame object at its
/// origin, in the world orientation or (`local`) its own, with the rotating frame's correction.
fn object_acceleration(m: &Model, d: &Data, ty: i32, id: usize, local: bool) -> [f64; 6] {
    let (body, pos, rot) = frame_of(m, d, ty, id);
    if m.body_dofnum[m.body_weldid[body]] == 0 {
        return [0.0; 6];
    }
    let com = v3(&d.subtree_com, m.body_rootid[body]);
    let rot = local.then_some(&rot);
    let mut acc = transform_motion(&d.sensor.post.cacc[6 * body..6 * body + 6], &pos, &com, rot);
    let vel = transform_motion(&d.cvel[6 * body..6 * body + 6], &pos, &com, rot);
    let c = cross(&[vel[0], vel[1], vel[2]], &[vel[3], vel[4], vel[5]]);
    for k in 0..3 {
        acc[3 + k] += c[k];
    }
    acc
}

/// One acceleration-stage sensor.
pub(crate) fn acceleration_sensor(nm: &NativeModel, d: &mut Data, i: usize, s: &mut [f64]) {
    use kind::*;
    let m = &nm.model;
    let (ty, id) = (m.sensor_type[i], m.sensor_objid[i] as usize);
    if matches!(ty, ACCELEROMETER | FORCE | TORQUE | FRAMELINACC | FRAMEANGACC) && !d.sensor.post.done {
        rne_post(nm, d);
    }
    let force = &d.actuation.actuator_force;
    match ty {
        TOUCH => s[0] = touch(nm, d, id),
        ACCELEROMETER => s.copy_from_slice(&object_acceleration(m, d, OBJ_SITE, id, true)[3..]),
        FORCE | TORQUE => {
            let b = m.site_bodyid[id];
            let (pos, rot) = (v3(&d.site_xpos, id), crate::sensor::m9(&d.site_xmat, id));
            let com = v3(&d.subtree_com, m.body_rootid[b]);
            let w = transform_force(&d.sensor.post.cfrc_int[6 * b..6 * b + 6], &pos, &com, Some(&rot));
            s.copy_from_slice(if ty == FORCE { &w[3..] } else { &w[..3] });
        }
        FRAMELINACC | FRAMEANGACC => {
            let a = object_acceleration(m, d, m.sensor_objtype[i], id, false);
            s.copy_from_slice(if ty == FRAMELINACC { &a[3..] } else { &a[..3] });
        }
        ACTUATORFRC => {
            let adr = m.actuator_outadr[id] as usize;
            s.copy_from_slice(&force[adr..adr + s.len()]);
        }
        JOINTACTFRC => s[0] = d.qfrc_actuator[m.jnt_dofadr[id]],
        TENDONACTFRC => {
            let mut f = 0.0;
            for j in 0..m.nactuator {
                if m.actuator_trntype[j] == TRN_TENDON && m.actuator_trnid[j][0] == id as i32 {
                    f += force[m.actuator_outadr[j] as usize];
                }
            }
            s[0] = f;
        }
        JOINTLIMITFRC | TENDONLIMITFRC => {
            let e = &d.efc;
            let t = if ty == JOINTLIMITFRC { LIMIT_JOINT } else { LIMIT_TENDON };
            let row = (e.ne + e.nf..e.nefc).find(|&j| e.efc_type[j] == t && e.efc_id[j] == id as i32);
            s[0] = row.map_or(0.0, |j| e.efc_force[j]);
        }
        _ => unreachable!("sensor kinds outside the native subset are refused by check"),
    }
}
