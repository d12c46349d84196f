//! Steps with trees asleep on the native route (N17). An asleep tree's state is frozen (zero
//! velocities, unchanged positions), so every tree-local array the stages compute for it equals
//! the value MuJoCo keeps from when it was last computed: the stages run on every tree, and
//! only what crosses trees follows MuJoCo's sleep filter here: the subtree centres of mass of
//! awake and static bodies above asleep trees, the collision filter (the engine's stage), the
//! waking by contact, and the advance (awake dofs and bodies only). What else sleep filters
//! (limit, friction-loss and equality rows, tendons, sensors, RK4's stages, Euler's damping
//! test) is refused by name while a tree is asleep.

use specula_model::types::Integrator;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;
use crate::sleep::{AWAKE, ENBL_SLEEP, S_ASLEEP, S_AWAKE};

/// `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// Whether some tree is asleep.
pub(crate) fn any(nm: &NativeModel, d: &Data) -> bool {
    d.sleep.ntree_awake < nm.model.ntree
}

/// Refuses a step that starts with a tree asleep where sleep filters more than this module
/// follows.
pub(crate) fn check(nm: &NativeModel, d: &Data) -> Result<(), NativeError> {
    if !any(nm, d) {
        return Ok(());
    }
    let m = &nm.model;
    let why = if m.opt.integrator == Integrator::Rk4 {
        Some("RK4's stages")
    } else if m.nsensor > 0 {
        Some("sensors")
    } else if m.ntendon > 0 {
        Some("tendons")
    } else if m.jnt_limited.iter().any(|&l| l) || m.dof_frictionloss.iter().any(|&f| f > 0.0) {
        Some("limit and friction-loss rows")
    } else if d.eq_active.iter().any(|&a| a != 0) {
        Some("active equalities")
    } else {
        None
    };
    match why {
        Some(why) => Err(NativeError::Unsupported {
            what: format!(
                "{why} with trees asleep (time {}, {} of {} trees awake)",
                d.time, d.sleep.ntree_awake, m.ntree
            ),
            needs: "sleep filtering of this stage",
        }),
        None => Ok(()),
    }
}

/// Whether Euler's joint-damping test finds damping on some dof but on no awake one, where
/// `mj_Euler` (which tests the awake dofs) advances by `qacc` explicitly while the engine's
/// Euler step on every dof solves; refused with activations (the explicit advance here has
/// none).
pub(crate) fn euler_explicit(nm: &NativeModel, d: &Data) -> Result<bool, NativeError> {
    let explicit = nm.model.opt.integrator == Integrator::Euler && any(nm, d) && damped_differs(nm, d);
    if explicit && nm.model.na > 0 {
        return Err(NativeError::Unsupported {
            what: format!("activations under Euler with only asleep dofs damped (time {})", d.time),
            needs: "the explicit advance with activations",
        });
    }
    Ok(explicit)
}

/// Whether Euler's test for joint damping gives another answer on the awake dofs than on all.
fn damped_differs(nm: &NativeModel, d: &Data) -> bool {
    let m = &nm.model;
    let damped = |i: usize| {
        m.dof_damping[i] > 0.0
            || m.dof_dampingpoly[i].iter().any(|&x| x != 0.0)
            || m.jnt_actuatorid[m.dof_jntid[i]] != -1
    };
    let s = &d.sleep;
    s.nv_awake > 0 && (0..m.nv).any(damped) != s.dof_awake_ind[..s.nv_awake].iter().any(|&i| damped(i as usize))
}

/// `mj_comPos`'s subtree centres of mass with trees asleep, over the awake and static bodies: an
/// asleep child adds its kept centre times its subtree mass to its parent (the stages computed
/// the asleep bodies' own centres as they were).
pub(crate) fn subtree_com(nm: &NativeModel, d: &mut Data) {
    if !any(nm, d) {
        return;
    }
    let m = &nm.model;
    let s = &d.sleep;
    let com = &mut d.subtree_com;
    for &i in &s.body_awake_ind[..s.nbody_awake] {
        let i = i as usize;
        for k in 0..3 {
            com[3 * i + k] = d.xipos[3 * i + k] * m.body_mass[i];
        }
    }
    for &i in s.parent_awake_ind[..s.nparent_awake].iter().rev() {
        let i = i as usize;
        if i == 0 {
            continue;
        }
        let p = m.body_parentid[i];
        let asleep = s.body_awake[i] == S_ASLEEP;
        for k in 0..3 {
            let child = if asleep { com[3 * i + k] * m.body_subtreemass[i] } else { com[3 * i + k] };
            com[3 * p + k] += child;
        }
    }
    for &i in &s.body_awake_ind[..s.nbody_awake] {
        let i = i as usize;
        if m.body_subtreemass[i] < MINVAL {
            for k in 0..3 {
                com[3 * i + k] = d.xipos[3 * i + k];
            }
        } else {
            let inv = 1.0 / m.body_subtreemass[i];
            for k in 0..3 {
                com[3 * i + k] *= inv;
            }
        }
    }
}

/// `mj_wake` at the start of the forward pass: an asleep tree with a velocity or an applied
/// force not zero byte for byte wakes with its island. A position changed while asleep (which
/// MuJoCo finds by the poses) is refused. Returns whether any tree woke.
pub(crate) fn wake(nm: &NativeModel, d: &mut Data) -> Result<bool, NativeError> {
    let m = &nm.model;
    if !any(nm, d) {
        return Ok(false);
    }
    let mut woke = false;
    for t in 0..m.ntree {
        if d.sleep.tree_asleep[t] < 0 {
            continue;
        }
        let q = tree_qpos(m, t);
        if d.qpos[q.clone()].iter().zip(&d.sleep.qpos[q]).any(|(a, b)| a.to_bits() != b.to_bits()) {
            return Err(NativeError::Unsupported {
                what: format!("a position of asleep tree {t} changed (time {})", d.time),
                needs: "mj_kinematics's pose test of asleep bodies",
            });
        }
        if !crate::sleep::tree_can_sleep(d, nm, t, 0.0) {
            woke |= wake_island(&mut d.sleep.tree_asleep, t, AWAKE);
        }
    }
    Ok(woke)
}

/// `mj_wakeIsland`: wakes tree `i` and the trees of its cycle with counter `value` (an awake
/// tree keeps the smaller of its counter and `value`); returns whether a tree woke.
fn wake_island(tree_asleep: &mut [i32], i: usize, value: i32) -> bool {
    if tree_asleep[i] < 0 {
        tree_asleep[i] = tree_asleep[i].min(value);
        return false;
    }
    let mut current = i;
    for _ in 0..tree_asleep.len() {
        let next = tree_asleep[current] as usize;
        tree_asleep[current] = value;
        current = next;
        if current == i {
            break;
        }
    }
    true
}

/// `mj_wakeCollision`: each contact between an awake and an asleep tree wakes the asleep one's
/// island with the awake tree's counter; a contact with a mocap body wakes it fully. Returns
/// whether any tree woke (the caller updates the lists and collides again).
pub(crate) fn wake_collision(nm: &NativeModel, d: &mut Data) -> bool {
    let m = &nm.model;
    if m.opt.enableflags & ENBL_SLEEP == 0 || !any(nm, d) {
        return false;
    }
    let s = &mut d.sleep;
    let mut woke = false;
    for c in &d.contacts {
        let [b1, b2] = c.geom.map(|g| m.geom_bodyid[g as usize]);
        let (t1, t2) = (m.body_treeid[b1], m.body_treeid[b2]);
        if t1 < 0 || t2 < 0 {
            let (tree, b) = if t1 < 0 { (t2, b1) } else { (t1, b2) };
            if tree >= 0 && s.tree_awake[tree as usize] == 0 && s.body_awake[b] == S_AWAKE {
                woke |= wake_island(&mut s.tree_asleep, tree as usize, AWAKE);
            }
            continue;
        }
        let (t1, t2) = (t1 as usize, t2 as usize);
        let (a1, a2) = (s.tree_awake[t1] != 0, s.tree_awake[t2] != 0);
        if a1 == a2 {
            continue;
        }
        let (asleep, awake) = if a1 { (t2, t1) } else { (t1, t2) };
        let value = s.tree_asleep[awake];
        woke |= wake_island(&mut s.tree_asleep, asleep, value);
    }
    woke
}

/// `mj_advance` with trees asleep after the integrator gave `acc`: the awake dofs' velocities
/// and the awake bodies' positions (by `pos_vel` when given, RK4's) advance, the asleep ones
/// stay as [`keep`] or [`crate::sleep::save`] kept them; then time, and the warm start.
pub(crate) fn advance(nm: &NativeModel, d: &mut Data, acc: &[f64], pos_vel: Option<&[f64]>) {
    let h = nm.model.opt.timestep;
    let s = &d.sleep;
    for &i in &s.dof_awake_ind[..s.nv_awake] {
        let i = i as usize;
        d.qvel[i] += acc[i] * h;
    }
    specula_engine::dynamics::integrate::integrate_pos(&nm.integrator(), &mut d.qpos, pos_vel.unwrap_or(&d.qvel), h);
    restore_qpos(nm, d);
    d.time += h;
    d.qacc_warmstart.copy_from_slice(&d.qacc);
}

/// Keeps the state before the integrator's advance ([`restore`] puts the asleep part back).
pub(crate) fn keep(d: &mut Data) {
    d.sleep.qpos.copy_from_slice(&d.qpos);
    d.sleep.qvel.copy_from_slice(&d.qvel);
}

/// After an advance over every dof: the asleep trees' velocities and positions as they were
/// (`mj_advance` moves the awake dofs and bodies only).
pub(crate) fn restore(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    let s = &d.sleep;
    for t in (0..m.ntree).filter(|&t| s.tree_awake[t] == 0) {
        let dofs = m.tree_dofadr[t]..m.tree_dofadr[t] + m.tree_dofnum[t];
        d.qvel[dofs.clone()].copy_from_slice(&s.qvel[dofs]);
    }
    restore_qpos(nm, d);
}

/// The `qpos` entries of tree `t` (its joints are consecutive).
fn tree_qpos(m: &specula_model::Model, t: usize) -> std::ops::Range<usize> {
    let (b0, b1) = (m.tree_bodyadr[t], m.tree_bodyadr[t] + m.tree_bodynum[t]);
    let joints = (b0..b1).flat_map(|b| {
        let adr = m.body_jntadr[b].max(0) as usize;
        adr..adr + m.body_jntnum[b]
    });
    let size = |j: usize| match m.jnt_type[j] {
        specula_model::JointType::Free => 7,
        specula_model::JointType::Ball => 4,
        _ => 1,
    };
    let (start, end) =
        joints.fold((usize::MAX, 0), |(a, b), j| (a.min(m.jnt_qposadr[j]), b.max(m.jnt_qposadr[j] + size(j))));
    // a tree has a joint: the range is not empty
    start..end
}

/// The asleep trees' positions as kept (bit for bit: no quaternion renormalised).
pub(crate) fn restore_qpos(nm: &NativeModel, d: &mut Data) {
    let m = &nm.model;
    let s = &d.sleep;
    for t in (0..m.ntree).filter(|&t| s.tree_awake[t] == 0) {
        let q = tree_qpos(m, t);
        d.qpos[q.clone()].copy_from_slice(&s.qpos[q]);
    }
}
