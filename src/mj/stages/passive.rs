//! `mj_passive` in Rust inside MuJoCo's step: the view of MuJoCo's model and data that
//! `specula_engine::dynamics::passive` reads and writes, and the models left to the library.

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::apply_ft::apply_ft_stack;
use specula_engine::dynamics::passive_adhesion::{adhesion_on, adhesion_stack, AdhesiveContact};
use specula_engine::dynamics::passive_body::{self, BodyForceModel, BodyForceState};
use specula_engine::dynamics::{self, PassiveForces, PassiveModel, PassiveScratch, PassiveState};

use super::fields::Field;
use super::views;
use super::{byte, bytes, slice, slice_mut, stack, Fallback};

thread_local! {
    static SCRATCH: RefCell<(PassiveScratch, Vec<AdhesiveContact>)> = RefCell::new(Default::default());
}

/// Whether `mj_passive` must stay MuJoCo's for this model and state (`docs/measurements.md` D7,
/// D73 to D76): asleep trees under sleep; and, unless springs and dampers are both disabled (the
/// library then only zeroes its outputs), flexes, the effective metric, a passive callback,
/// any plugin, or a stack too small for `mj_applyFT` or adhesion.
/// Read on every call, so edits to the model between steps are seen.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    let opt = &m.opt;
    let asleep = (d.nv_awake as i64) < m.nv || (d.ntree_awake as i64) < m.ntree || (d.nbody_awake as i64) < m.nbody;
    if opt.enableflags & sys::mjENBL_SLEEP as i32 != 0 && asleep {
        return Some(Fallback::Asleep);
    }
    let both = (sys::mjDSBL_SPRING | sys::mjDSBL_DAMPER) as i32;
    if opt.disableflags & both == both {
        return None;
    }
    // SAFETY: reading MuJoCo's global callback pointer.
    let callback = unsafe { (&raw const sys::mjcb_passive).read().is_some() };
    let why = [
        (m.nflex > 0, Fallback::Flex),
        (d.efm_active != 0, Fallback::EffectiveMetric),
        (callback, Fallback::Callback),
        (m.nplugin > 0, Fallback::Plugin),
    ];
    if let Some(w) = why.iter().find(|w| w.0) {
        return Some(w.1);
    }
    views::with(m, |v| {
        let body = &v.passive.body;
        SCRATCH.with_borrow_mut(|(_, contacts)| {
            read_contacts(d, contacts);
            let frames =
                [passive_body::applies_ft(body), adhesion_on(&v.passive.contact, v.passive.flg_adhesion, contacts)];
            (frames.contains(&true) && marks(m, d, frames).is_none()).then_some(Fallback::StackFull)
        })
    })
}

/// The stack high-water marks `mj_passive`'s frames leave (`frames`: whether it calls
/// `mj_applyFT`, each call one frame at the same place, and whether adhesion opens its own),
/// or `None` when the library would run out of stack or takes the locked path.
fn marks(m: &sys::mjModel, d: &sys::mjData, frames: [bool; 2]) -> Option<(i64, i64)> {
    // SAFETY: the flag's byte, read as a byte (any value other than 0 takes the locked path).
    if unsafe { byte(&raw const d.threadlock) } != 0 {
        return None;
    }
    let (nv, sparse) = (m.nv as usize, super::reference::is_sparse(m));
    let mut a = stack::memory(d);
    if frames[0] {
        a.frame(&apply_ft_stack(nv, sparse)).ok()?;
    }
    if frames[1] {
        a.frame(&adhesion_stack(nv, sparse)).ok()?;
    }
    Some((a.maxuse_stack as i64, a.maxuse_arena as i64))
}

/// The library's contacts (`d->contact[0..ncon]`) as adhesion reads them, into `out` (reused).
fn read_contacts(d: &sys::mjData, out: &mut Vec<AdhesiveContact>) {
    out.clear();
    // SAFETY: `d->contact` holds `ncon` contacts.
    let cons = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
    out.extend(cons.iter().map(|c| AdhesiveContact {
        pos: c.pos,
        frame: c.frame,
        geom: c.geom,
        adhesion: c.adhesion,
        exclude: c.exclude,
    }));
}

/// The stage's view of MuJoCo's model.
pub(super) fn passive_model(m: &sys::mjModel) -> PassiveModel<'_> {
    let (nq, nv, nbody, njnt) = (m.nq as usize, m.nv as usize, m.nbody as usize, m.njnt as usize);
    // the actuator arrays are per actuator (`nactuator`), not per control (`nu`)
    let (ntendon, nact, nout, njten) = (m.ntendon as usize, m.nactuator as usize, m.nout as usize, m.nJten as usize);
    let flags = m.opt.disableflags;
    // SAFETY: every array has the length mjmodel.h gives it (mjNPOLY = 2 coefficients).
    unsafe {
        PassiveModel {
            disable_spring: flags & sys::mjDSBL_SPRING as i32 != 0,
            disable_damper: flags & sys::mjDSBL_DAMPER as i32 != 0,
            body_jntnum: slice(m.body_jntnum, nbody),
            body_jntadr: slice(m.body_jntadr, nbody),
            jnt_type: slice(m.jnt_type, njnt),
            jnt_qposadr: slice(m.jnt_qposadr, njnt),
            jnt_dofadr: slice(m.jnt_dofadr, njnt),
            jnt_plasticadr: slice(m.jnt_plasticadr, njnt),
            jnt_actuatorid: slice(m.jnt_actuatorid, njnt),
            jnt_stiffness: slice(m.jnt_stiffness, njnt),
            jnt_stiffnesspoly: slice(m.jnt_stiffnesspoly, 2 * njnt),
            qpos_spring: slice(m.qpos_spring, nq),
            dof_jntid: slice(m.dof_jntid, nv),
            dof_damping: slice(m.dof_damping, nv),
            dof_dampingpoly: slice(m.dof_dampingpoly, 2 * nv),
            tendon_stiffness: slice(m.tendon_stiffness, ntendon),
            tendon_stiffnesspoly: slice(m.tendon_stiffnesspoly, 2 * ntendon),
            tendon_lengthspring: slice(m.tendon_lengthspring, 2 * ntendon),
            tendon_plasticadr: slice(m.tendon_plasticadr, ntendon),
            tendon_damping: slice(m.tendon_damping, ntendon),
            tendon_dampingpoly: slice(m.tendon_dampingpoly, 2 * ntendon),
            tendon_actuatorid: slice(m.tendon_actuatorid, ntendon),
            ten_j_rownnz: slice(m.ten_J_rownnz, ntendon),
            ten_j_rowadr: slice(m.ten_J_rowadr, ntendon),
            ten_j_colind: slice(m.ten_J_colind, njten),
            actuator_trntype: slice(m.actuator_trntype, nact),
            actuator_trnid: slice(m.actuator_trnid, 2 * nact),
            actuator_outadr: slice(m.actuator_outadr, nact),
            actuator_gear: slice(m.actuator_gear, 6 * nout),
            actuator_damping: slice(m.actuator_damping, nact),
            actuator_dampingpoly: slice(m.actuator_dampingpoly, 2 * nact),
            body: body_model(m),
            flg_adhesion: byte(&raw const m.flg_adhesion),
            contact: super::constraint_contact::contact_model(m),
        }
    }
}

/// The view of the arrays gravity compensation and the fluid models read.
fn body_model(m: &sys::mjModel) -> BodyForceModel<'_> {
    let (nbody, ngeom, njnt) = (m.nbody as usize, m.ngeom as usize, m.njnt as usize);
    // SAFETY: every array has the length mjmodel.h gives it (mjNFLUID = 12 per geom), the
    // byte arrays read as bytes.
    let mut body = unsafe {
        BodyForceModel {
            flg_gravcomp: byte(&raw const m.flg_gravcomp),
            body_mass: slice(m.body_mass, nbody),
            body_gravcomp: slice(m.body_gravcomp, nbody),
            body_inertia: slice(m.body_inertia, 3 * nbody),
            body_geomnum: slice(m.body_geomnum, nbody),
            body_geomadr: slice(m.body_geomadr, nbody),
            geom_type: slice(m.geom_type, ngeom),
            geom_size: slice(m.geom_size, 3 * ngeom),
            geom_fluid: slice(m.geom_fluid, 12 * ngeom),
            jnt_actgravcomp: bytes(m.jnt_actgravcomp, njnt),
            jac: super::constraint_contact::contact_model(m).jac,
            ..BodyForceModel::default()
        }
    };
    refresh_body(&mut body, m);
    body
}

/// Reads the options of the body-level view afresh.
fn refresh_body(body: &mut BodyForceModel<'_>, m: &sys::mjModel) {
    let opt = &m.opt;
    body.gravity = opt.gravity;
    body.wind = opt.wind;
    body.density = opt.density;
    body.viscosity = opt.viscosity;
    body.disable_gravity = opt.disableflags & sys::mjDSBL_GRAVITY as i32 != 0;
    body.sparse = super::reference::is_sparse(m);
}

/// Reads the option flags of a cached view afresh (a program may change them between steps).
pub(super) fn refresh(view: &mut PassiveModel<'_>, m: &sys::mjModel) {
    let flags = m.opt.disableflags;
    view.disable_spring = flags & sys::mjDSBL_SPRING as i32 != 0;
    view.disable_damper = flags & sys::mjDSBL_DAMPER as i32 != 0;
    refresh_body(&mut view.body, m);
    view.contact.disable_contact = flags & sys::mjDSBL_CONTACT as i32 != 0;
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_passive`, and leaves the stack
/// high-water marks as `mj_applyFT` would.
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let (nq, nv, ntendon) = (m.nq as usize, m.nv as usize, m.ntendon as usize);
    let (nbody, ngeom) = (m.nbody as usize, m.ngeom as usize);
    // SAFETY: mjData's arrays of the documented lengths; the state is read, the six force
    // arrays (distinct from it and from each other) written only here.
    let (state, mut out) = unsafe {
        let state = PassiveState {
            qpos: slice(d.qpos, nq),
            qvel: slice(d.qvel, nv),
            plastic: slice(d.plastic, m.nplastic as usize),
            ten_length: slice(d.ten_length, ntendon),
            ten_velocity: slice(d.ten_velocity, ntendon),
            ten_j: slice(d.ten_J, m.nJten as usize),
            body: BodyForceState {
                cvel: slice(d.cvel, 6 * nbody),
                xipos: slice(d.xipos, 3 * nbody),
                ximat: slice(d.ximat, 9 * nbody),
                geom_xpos: slice(d.geom_xpos, 3 * ngeom),
                geom_xmat: slice(d.geom_xmat, 9 * ngeom),
                jac: super::constraint_contact::contact_state(m, d).jac,
            },
            contacts: &[],
        };
        let out = PassiveForces {
            qfrc_spring: slice_mut(d.qfrc_spring, nv),
            qfrc_damper: slice_mut(d.qfrc_damper, nv),
            qfrc_gravcomp: slice_mut(d.qfrc_gravcomp, nv),
            qfrc_fluid: slice_mut(d.qfrc_fluid, nv),
            qfrc_adhesion: slice_mut(d.qfrc_adhesion, nv),
            qfrc_passive: slice_mut(d.qfrc_passive, nv),
        };
        (state, out)
    };
    let both = (sys::mjDSBL_SPRING | sys::mjDSBL_DAMPER) as i32;
    let runs = m.opt.disableflags & both != both;
    let frames = views::with(m, |v| {
        SCRATCH.with_borrow_mut(|(scratch, contacts)| {
            read_contacts(d, contacts);
            let state = PassiveState { contacts, ..state };
            let pm = &v.passive;
            let frames = [passive_body::applies_ft(&pm.body), adhesion_on(&pm.contact, pm.flg_adhesion, contacts)];
            dynamics::passive(pm, &state, &mut out, scratch);
            frames.map(|f| f && runs)
        })
    });
    if let Some((stack, arena)) = marks(m, d, frames).filter(|_| frames.contains(&true)) {
        (d.maxuse_stack, d.maxuse_arena) = (stack as _, arena as _);
    }
}

/// The arrays `mj_passive` writes (it zeroes all six first).
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let nv = m.nv as usize;
    vec![
        Field::f64("qfrc_spring", d.qfrc_spring, nv),
        Field::f64("qfrc_damper", d.qfrc_damper, nv),
        Field::f64("qfrc_gravcomp", d.qfrc_gravcomp, nv),
        Field::f64("qfrc_fluid", d.qfrc_fluid, nv),
        Field::f64("qfrc_adhesion", d.qfrc_adhesion, nv),
        Field::f64("qfrc_passive", d.qfrc_passive, nv),
    ]
}
