//! `mj_comVel`: each body's com-based spatial velocity `cvel` and the dof axes' time
//! derivatives `cdof_dot`, as MuJoCo 4.0.0 computes them (`docs/measurements.md` D3).

use super::spatial::{cross_motion, mul_dof_vec};
use super::{jnt, TreeModel};

/// `cvel += sum_k qvel[k] cdof[k]` over `n` dofs (MuJoCo's `mju_mulDofVec`, then added).
fn add_dof_velocity(cvel: &mut [f64; 6], cdof: &[f64], qvel: &[f64], n: usize) {
    let tmp = mul_dof_vec(cdof, qvel, n);
    for (v, t) in cvel.iter_mut().zip(&tmp) {
        *v += t;
    }
}

/// Writes `cvel` (`6 nbody`) and `cdof_dot` (`6 nv`) from the dof axes `cdof` and `qvel`, over
/// all bodies (the awake-only variant under sleep is the library's).
pub fn com_vel(m: &TreeModel, cdof: &[f64], qvel: &[f64], cvel: &mut [f64], cdof_dot: &mut [f64]) {
    cvel[..6].fill(0.0);
    for i in 1..m.nbody() {
        let p = m.body_parentid[i] as usize;
        let mut vel: [f64; 6] = cvel[6 * p..6 * p + 6].try_into().expect("six entries");
        let bda = m.body_dofadr[i] as usize;
        let num = m.body_dofnum[i] as usize;
        let mut j = 0;
        while j < num {
            let d = bda + j;
            let axis = |k: usize| &cdof[6 * k..6 * k + 6];
            let ty = m.jnt_type[m.dof_jntid[d] as usize];
            match ty {
                jnt::FREE | jnt::BALL => {
                    let mut r = d;
                    if ty == jnt::FREE {
                        // translations: no axis derivative, then the rotations as a ball joint
                        cdof_dot[6 * d..6 * d + 18].fill(0.0);
                        add_dof_velocity(&mut vel, &cdof[6 * d..], &qvel[d..], 3);
                        r = d + 3;
                        j += 3;
                    }
                    for k in r..r + 3 {
                        cdof_dot[6 * k..6 * k + 6].copy_from_slice(&cross_motion(&vel, axis(k)));
                    }
                    add_dof_velocity(&mut vel, &cdof[6 * r..], &qvel[r..], 3);
                    j += 3;
                }
                _ => {
                    // the parent's velocity: cross_motion(cdof, cdof) vanishes anyway
                    cdof_dot[6 * d..6 * d + 6].copy_from_slice(&cross_motion(&vel, axis(d)));
                    add_dof_velocity(&mut vel, axis(d), &qvel[d..], 1);
                    j += 1;
                }
            }
        }
        cvel[6 * i..6 * i + 6].copy_from_slice(&vel);
    }
}
