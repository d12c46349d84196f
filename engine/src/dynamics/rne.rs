//! `mj_rne`: recursive Newton-Euler inverse dynamics, the bias forces `qfrc_bias` (Coriolis,
//! centrifugal and gravity) when run without accelerations, as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D4).

use super::spatial::{cross_force, dot6, fixed, mul_dof_vec, mul_inert_vec};
use super::TreeModel;

/// Work arrays of [`rne`]: body accelerations and forces (`6 nbody` each).
#[derive(Default, Debug)]
pub struct RneScratch {
    cacc: Vec<f64>,
    cfrc: Vec<f64>,
}

/// The inputs of [`rne`] from the state: velocities and the position and velocity stages'
/// results.
#[derive(Clone, Copy, Debug)]
pub struct RneInput<'a> {
    /// Joint velocities (`nv`).
    pub qvel: &'a [f64],
    /// Joint accelerations (`nv`), used when `flg_acc` is set.
    pub qacc: &'a [f64],
    /// Com-based body inertias (`10 nbody`).
    pub cinert: &'a [f64],
    /// Com-based body velocities (`6 nbody`).
    pub cvel: &'a [f64],
    /// Dof axes (`6 nv`).
    pub cdof: &'a [f64],
    /// Their time derivatives (`6 nv`).
    pub cdof_dot: &'a [f64],
    /// `-gravity` is the world's acceleration; `None` when gravity is disabled.
    pub gravity: Option<[f64; 3]>,
}

/// Writes `result` (`nv`): the joint forces that produce `qacc` (or none, without `flg_acc`)
/// against inertia, velocity-product terms and gravity (`mj_rne`), over all bodies.
pub fn rne(m: &TreeModel, input: &RneInput, flg_acc: bool, scratch: &mut RneScratch, result: &mut [f64]) {
    let nbody = m.nbody();
    // every entry is written below: the world's here, the bodies' in the passes
    scratch.cacc.resize(6 * nbody, 0.0);
    scratch.cfrc.resize(6 * nbody, 0.0);
    let (cacc, cfrc) = (&mut scratch.cacc, &mut scratch.cfrc);
    cacc[..6].fill(0.0);
    if let Some(g) = input.gravity {
        for k in 0..3 {
            cacc[3 + k] = -g[k];
        }
    }
    for i in 1..nbody {
        let num = m.body_dofnum[i] as usize;
        // a body without dofs (`body_dofadr` -1) adds a zero vector, as the library does
        let bda = if num == 0 { 0 } else { m.body_dofadr[i] as usize };
        let p = m.body_parentid[i] as usize;
        let tmp = mul_dof_vec(&input.cdof_dot[6 * bda..], &input.qvel[bda..], num);
        let parent: &[f64; 6] = fixed(&cacc[6 * p..]);
        let mut acc: [f64; 6] = std::array::from_fn(|k| parent[k] + tmp[k]);
        if flg_acc {
            let tmp = mul_dof_vec(&input.cdof[6 * bda..], &input.qacc[bda..], num);
            for (a, t) in acc.iter_mut().zip(&tmp) {
                *a += t;
            }
        }
        cacc[6 * i..6 * i + 6].copy_from_slice(&acc);
        let inert = &input.cinert[10 * i..10 * i + 10];
        let vel = &input.cvel[6 * i..6 * i + 6];
        let f = mul_inert_vec(inert, &acc);
        let gyro = cross_force(vel, &mul_inert_vec(inert, vel));
        for ((c, f), g) in cfrc[6 * i..6 * i + 6].iter_mut().zip(&f).zip(&gyro) {
            *c = f + g;
        }
    }
    cfrc[..6].fill(0.0);
    for i in (1..nbody).rev() {
        let p = m.body_parentid[i] as usize;
        if p != 0 {
            // the parent comes first: split there, one length check per body
            let (head, body) = cfrc.split_at_mut(6 * i);
            for (a, b) in head[6 * p..6 * p + 6].iter_mut().zip(&body[..6]) {
                *a += b;
            }
        }
    }
    for (i, r) in result.iter_mut().enumerate().take(m.nv()) {
        let b = m.dof_bodyid[i] as usize;
        let f: &[f64; 6] = cfrc[6 * b..6 * b + 6].try_into().expect("six entries");
        *r = dot6(&input.cdof[6 * i..6 * i + 6], f);
    }
}
