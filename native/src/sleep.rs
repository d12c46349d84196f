//! Sleep (`mjENBL_SLEEP`) on the native route: each tree's sleep policy as MuJoCo 4.0.0's
//! compiler sets it (N13), the sleep counters `tree_asleep` and the awake lists of
//! `mj_updateSleep` (N14), counted after the forward pass as `mj_sleep` does (N15), and the step
//! in which trees fall asleep (N16); the steps with trees asleep are [`crate::asleep`]'s.

use specula_model::Model;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// `mjENBL_SLEEP`.
pub const ENBL_SLEEP: u32 = 1 << 4;
/// `mjMINAWAKE`: the steps under the tolerance before a tree is ready to sleep.
pub const MINAWAKE: i32 = 10;
/// `tree_asleep` of a fully awake tree.
pub const AWAKE: i32 = -(1 + MINAWAKE);
/// `mjS_STATIC`: a body without dofs (not mocap).
pub const S_STATIC: i32 = -1;
/// `mjS_ASLEEP`.
pub const S_ASLEEP: i32 = 0;
/// `mjS_AWAKE`.
pub const S_AWAKE: i32 = 1;

/// `mjtSleepPolicy`, the values the native route can hold (the compiler's automatic ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum SleepPolicy {
    /// `mjSLEEP_AUTO_NEVER`: an actuated tree, or one on a stiff or damped tendon to another.
    AutoNever = 1,
    /// `mjSLEEP_AUTO_ALLOWED`: every other tree.
    AutoAllowed = 2,
}

/// The sleep arrays of `mjData` (MuJoCo's names).
#[derive(Clone, Debug, Default)]
pub struct SleepData {
    /// Per tree: below -1 awake (counting up to -1 while slow), -1 ready, >= 0 asleep.
    pub tree_asleep: Vec<i32>,
    /// Per tree: 1 awake, 0 asleep.
    pub tree_awake: Vec<i32>,
    /// Per body: `mjS_STATIC`, `mjS_ASLEEP` or `mjS_AWAKE`.
    pub body_awake: Vec<i32>,
    /// The awake and static bodies (`nbody_awake` entries used).
    pub body_awake_ind: Vec<i32>,
    /// The bodies whose parent is awake or static (`nparent_awake` entries used).
    pub parent_awake_ind: Vec<i32>,
    /// The awake dofs (`nv_awake` entries used).
    pub dof_awake_ind: Vec<i32>,
    /// Number of awake trees.
    pub ntree_awake: usize,
    /// Number of awake and static bodies.
    pub nbody_awake: usize,
    /// Number of bodies with an awake or static parent.
    pub nparent_awake: usize,
    /// Number of awake dofs.
    pub nv_awake: usize,
    /// Each tree's sleep policy ([`policies`]; all allowed where the scope refused the model).
    pub policy: Vec<SleepPolicy>,
    /// The trees [`count`] plans to put to sleep: the next tree of the cycle, -1 for none.
    pub(crate) next: Vec<i32>,
    /// The positions before the step in which trees fall asleep.
    pub(crate) qpos: Vec<f64>,
    /// The velocities before it.
    pub(crate) qvel: Vec<f64>,
    /// The warm start before it.
    pub(crate) warmstart: Vec<f64>,
    /// The time before it.
    pub(crate) time: f64,
}

impl SleepData {
    /// The reset state (`mj_resetData`): every tree fully awake, the lists updated.
    pub fn new(m: &Model) -> SleepData {
        let mut s = SleepData {
            tree_asleep: vec![AWAKE; m.ntree],
            tree_awake: vec![0; m.ntree],
            body_awake: vec![0; m.nbody],
            body_awake_ind: vec![0; m.nbody],
            parent_awake_ind: vec![0; m.nbody],
            dof_awake_ind: vec![0; m.nv],
            policy: (m.opt.enableflags & ENBL_SLEEP != 0)
                .then(|| policies(m))
                .flatten()
                .unwrap_or_else(|| vec![SleepPolicy::AutoAllowed; m.ntree]),
            next: vec![-1; m.ntree],
            qpos: vec![0.0; m.nq],
            qvel: vec![0.0; m.nv],
            warmstart: vec![0.0; m.nv],
            ..SleepData::default()
        };
        s.update(m);
        s
    }

    /// `mj_updateSleep`: the awake flags, lists and counts from `tree_asleep` (static bodies
    /// marked static, mocap bodies awake).
    pub fn update(&mut self, m: &Model) {
        self.ntree_awake = 0;
        for (awake, &asleep) in self.tree_awake.iter_mut().zip(&self.tree_asleep) {
            *awake = i32::from(asleep < 0);
            self.ntree_awake += *awake as usize;
        }
        let (mut nb, mut np) = (0, 0);
        for b in 0..m.nbody {
            self.body_awake[b] = match usize::try_from(m.body_treeid[b]) {
                Ok(t) if self.tree_awake[t] != 0 => S_AWAKE,
                Ok(_) => S_ASLEEP,
                Err(_) if m.body_mocapid[m.body_rootid[b]] >= 0 => S_AWAKE,
                Err(_) => S_STATIC,
            };
            if self.body_awake[b] != S_ASLEEP {
                self.body_awake_ind[nb] = b as i32;
                nb += 1;
            }
            if b > 0 && self.body_awake[m.body_parentid[b]] != S_ASLEEP {
                self.parent_awake_ind[np] = b as i32;
                np += 1;
            }
        }
        (self.nbody_awake, self.nparent_awake) = (nb, np);
        let mut nv = 0;
        for i in 0..m.nv {
            let b = m.dof_bodyid[i];
            if m.body_treeid[b] >= 0 && self.body_awake[b] == S_AWAKE {
                self.dof_awake_ind[nv] = i as i32;
                nv += 1;
            }
        }
        self.nv_awake = nv;
    }
}

/// Each tree's sleep policy as the compiler sets it when no body sets `sleep` (the scope
/// refuses one that does): never for a tree an actuator acts on (through a joint, site, body or
/// tendon) or that a tendon spanning two trees with stiffness, damping or an actuator ties to
/// another, allowed otherwise. `None` for a tendon over more than two trees (its trees are not
/// listed in the model).
pub fn policies(m: &Model) -> Option<Vec<SleepPolicy>> {
    let mut never = vec![false; m.ntree];
    // an id out of range (an actuator the compiler left unfinished) marks nothing
    let mut mark = |b: Option<&usize>| {
        if let Some(t) = b.and_then(|&b| m.body_treeid.get(b)).and_then(|&t| usize::try_from(t).ok()) {
            never[t] = true;
        }
    };
    let tendon_trees = |t: usize| -> Option<Vec<usize>> {
        let n = m.tendon_treenum.get(t).map_or(0, |&n| usize::try_from(n).unwrap_or(0));
        (n <= 2).then(|| {
            m.tendon_treeid
                .get(t)
                .map_or(&[][..], |ids| &ids[..n])
                .iter()
                .filter_map(|&x| usize::try_from(x).ok())
                .collect()
        })
    };
    let mut trees = Vec::new();
    for a in 0..m.nactuator {
        let [id, ref_id] = m.actuator_trnid[a].map(|x| usize::try_from(x).unwrap_or(usize::MAX));
        match m.actuator_trntype[a] {
            0 | 1 => mark(m.jnt_bodyid.get(id)),
            2 | 4 => mark(m.site_bodyid.get(id)),
            5 => mark(Some(&id)),
            6 if ref_id != usize::MAX => mark(m.site_bodyid.get(id)),
            6 => mark(m.jnt_bodyid.get(id)),
            3 => trees.extend(tendon_trees(id)?),
            _ => {}
        }
    }
    let nonzero = |v: Option<&f64>| v.is_some_and(|&x| x != 0.0);
    let poly = |v: Option<&[f64; 2]>| v.is_some_and(|p| p.iter().any(|&x| x != 0.0));
    for t in 0..m.tendon_treenum.len() {
        if m.tendon_treenum[t] < 2 {
            continue;
        }
        let stiff = nonzero(m.tendon_stiffness.get(t)) || poly(m.tendon_stiffnesspoly.get(t));
        let damped = nonzero(m.tendon_damping.get(t)) || poly(m.tendon_dampingpoly.get(t));
        let actuated = m.tendon_actuatorid.get(t).is_some_and(|&a| a != -1);
        if m.tendon_treenum[t] == 2 && !stiff && !damped && !actuated {
            continue;
        }
        trees.extend(tendon_trees(t)?);
    }
    for t in trees {
        if let Some(n) = never.get_mut(t) {
            *n = true;
        }
    }
    Some(never.into_iter().map(|n| if n { SleepPolicy::AutoNever } else { SleepPolicy::AutoAllowed }).collect())
}

/// Whether tree `t` may count towards sleep (`mj_sleep`'s test): its policy allows it, no force
/// is applied to its dofs, and its largest velocity, scaled by `dof_length`, is below `tol`
/// (every velocity exactly zero, bit for bit, when `tol` is 0).
pub(crate) fn tree_can_sleep(d: &Data, nm: &NativeModel, t: usize, tol: f64) -> bool {
    if d.sleep.policy[t] != SleepPolicy::AutoAllowed {
        return false;
    }
    let m = &nm.model;
    let dofs = m.tree_dofadr[t]..m.tree_dofadr[t] + m.tree_dofnum[t];
    // a byte test: -0.0 counts as a force
    if d.qfrc_applied[dofs.clone()].iter().any(|x| x.to_bits() != 0) {
        return false;
    }
    if tol == 0.0 {
        return d.qvel[dofs].iter().all(|x| x.to_bits() == 0);
    }
    let mut max = 0.0f64;
    for (v, w) in d.qvel[dofs.clone()].iter().zip(&nm.consts.dof_length[dofs]) {
        let x = v.abs() * w;
        // MuJoCo's max keeps the old value on ties and takes a NaN
        max = if x <= max { max } else { x };
        if max >= tol {
            return false;
        }
    }
    true
}

/// `mj_sleep`'s count before the advance: each awake tree one step closer to sleep, or back to
/// fully awake; then the islands whose trees are all ready, and the ready trees without
/// constraints, are planned to sleep in `next` (each island a cycle in its tree order). Returns
/// whether any tree falls asleep in this step. Nothing happens with rows but no islands.
pub(crate) fn count(nm: &NativeModel, d: &mut Data) -> bool {
    let m = &nm.model;
    if m.opt.enableflags & ENBL_SLEEP == 0 {
        return false;
    }
    let nisland = d.efc.nisland;
    if d.efc.nefc > 0 && nisland == 0 {
        return false;
    }
    let tol = m.opt.sleep_tolerance;
    for t in 0..m.ntree {
        let now = d.sleep.tree_asleep[t];
        if now >= 0 {
            continue;
        }
        d.sleep.tree_asleep[t] = if tree_can_sleep(d, nm, t, tol) { now + i32::from(now < -1) } else { AWAKE };
    }
    let e = &d.efc;
    let s = &mut d.sleep;
    s.next.fill(-1);
    let tree = |j: usize| if nisland > 0 { e.map_itree2tree[j] as usize } else { j };
    let mut falls = false;
    for i in 0..nisland {
        let (start, n) = (e.island_itreeadr[i] as usize, e.island_ntree[i] as usize);
        if (start..start + n).all(|j| s.tree_asleep[tree(j)] >= -1) {
            for k in 0..n {
                s.next[tree(start + k)] = tree(start + (k + 1) % n) as i32;
            }
            falls = true;
        }
    }
    let free = if nisland > 0 { (e.island_itreeadr[nisland - 1] + e.island_ntree[nisland - 1]) as usize } else { 0 };
    for j in free..m.ntree {
        let t = tree(j);
        if s.tree_asleep[t] == -1 {
            s.next[t] = t as i32;
            falls = true;
        }
    }
    falls
}

/// Keeps the state the integrator's own advance is about to move ([`fall_asleep`] puts it
/// back).
pub(crate) fn save(d: &mut Data) {
    d.sleep.qpos.copy_from_slice(&d.qpos);
    d.sleep.qvel.copy_from_slice(&d.qvel);
    d.sleep.warmstart.copy_from_slice(&d.qacc_warmstart);
    d.sleep.time = d.time;
}

/// The step in which trees fall asleep (after [`count`] planned them and [`save`]), as
/// `mj_advance` takes it. The integrator's own advance gave the acceleration `acc` and the new
/// activations; its state is put back, then the trees' cycles are set and their velocities
/// and accelerations zeroed, the velocity and acceleration stages and the sensors run again on
/// the new velocities (from the same warm start), the awake lists are updated, and only the
/// awake dofs' velocities and the awake bodies' positions advance (positions by `pos_vel` when
/// given, RK4's); the warm start is the new `qacc`.
pub(crate) fn fall_asleep(
    nm: &NativeModel,
    d: &mut Data,
    acc: &[f64],
    pos_vel: Option<&[f64]>,
) -> Result<(), NativeError> {
    let m = &nm.model;
    d.qpos.copy_from_slice(&d.sleep.qpos);
    d.qvel.copy_from_slice(&d.sleep.qvel);
    d.qacc_warmstart.copy_from_slice(&d.sleep.warmstart);
    d.time = d.sleep.time;
    for t in 0..m.ntree {
        let next = d.sleep.next[t];
        if next < 0 {
            continue;
        }
        d.sleep.tree_asleep[t] = next;
        let dofs = m.tree_dofadr[t]..m.tree_dofadr[t] + m.tree_dofnum[t];
        d.qvel[dofs.clone()].fill(0.0);
        d.qacc[dofs].fill(0.0);
    }
    crate::step::forward_velocity(nm, d)?;
    crate::sensor::sensors(nm, d);
    d.sleep.update(m);
    crate::asleep::advance(nm, d, acc, pos_vel);
    Ok(())
}

/// Refuses sleep where the native route would differ from MuJoCo with every tree awake: a
/// `<body sleep>` other than `auto`, checked by [`crate::scope::check_mjcf`].
pub fn check_mjcf_body(el: &specula_model::xml::Element) -> Result<(), NativeError> {
    if el.name != "body" {
        return Ok(());
    }
    match el.attrs.iter().find(|a| a.name == "sleep") {
        Some(a) if a.value != "auto" => crate::scope::unsupported(
            format!("<body sleep=\"{}\"> ({}:{})", a.value, a.pos.line, a.pos.col),
            "sleep policies set by the user (init, never, allowed)",
        ),
        _ => Ok(()),
    }
}

/// The sleep check of [`crate::scope::check`]: a tendon over more than two trees (the model
/// does not list its trees, which set their sleep policies).
pub(crate) fn check(m: &Model) -> Result<(), NativeError> {
    if m.opt.enableflags & ENBL_SLEEP != 0 && policies(m).is_none() {
        crate::scope::unsupported("sleep with a tendon over more than two trees", "its trees' sleep policy")?;
    }
    Ok(())
}
