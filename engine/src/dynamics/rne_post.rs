//! `mj_rnePostConstraint`'s body passes: com-based body accelerations `cacc` and the
//! interaction forces `cfrc_int` between each body and its parent, from the constrained
//! accelerations and the external forces `cfrc_ext`; and `mju_transformSpatial`, which moves
//! motion and force vectors between points (`docs/measurements.md` D66).

use super::spatial::{cross_force, mul_dof_vec, mul_inert_vec};
use super::{RneInput, TreeModel};
use crate::math::{cross, mul_mat_t_vec3, sub3};

/// `mju_transformSpatial` of a motion vector (angular, linear) given about `oldpos`: the same
/// motion about `newpos`, rotated into `rot`'s frame when given (`rot` maps new to old).
pub fn transform_motion(vec: &[f64], newpos: &[f64; 3], oldpos: &[f64; 3], rot: Option<&[f64; 9]>) -> [f64; 6] {
    let ang = [vec[0], vec[1], vec[2]];
    let c = cross(&sub3(newpos, oldpos), &ang);
    let lin = sub3(&[vec[3], vec[4], vec[5]], &c);
    rotate([ang, lin], rot)
}

/// `mju_transformSpatial` of a force vector (torque, force) given about `oldpos`: the same
/// wrench about `newpos`, rotated into `rot`'s frame when given.
pub fn transform_force(vec: &[f64], newpos: &[f64; 3], oldpos: &[f64; 3], rot: Option<&[f64; 9]>) -> [f64; 6] {
    let force = [vec[3], vec[4], vec[5]];
    let c = cross(&sub3(newpos, oldpos), &force);
    let torque = sub3(&[vec[0], vec[1], vec[2]], &c);
    rotate([torque, force], rot)
}

/// The two halves rotated by `rot^T` when given, joined.
fn rotate(v: [[f64; 3]; 2], rot: Option<&[f64; 9]>) -> [f64; 6] {
    let [a, b] = match rot {
        Some(r) => [mul_mat_t_vec3(r, &v[0]), mul_mat_t_vec3(r, &v[1])],
        None => v,
    };
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

/// Writes `cacc` (`6 nbody`: the world's is `-gravity`) and `cfrc_int` (`6 nbody`) from the
/// state in `input` (its `qacc` included) and the external forces `cfrc_ext` (`6 nbody`).
pub fn rne_post_constraint(m: &TreeModel, input: &RneInput, cfrc_ext: &[f64], cacc: &mut [f64], cfrc_int: &mut [f64]) {
    let nbody = m.nbody();
    cacc[..6].fill(0.0);
    if let Some(g) = input.gravity {
        for k in 0..3 {
            cacc[3 + k] = -g[k];
        }
    }
    cfrc_int[..6].fill(0.0);
    for j in 1..nbody {
        let num = m.body_dofnum[j] as usize;
        // a body without dofs adds zero vectors (its `body_dofadr` is -1)
        let bda = if num == 0 { 0 } else { m.body_dofadr[j] as usize };
        let p = m.body_parentid[j] as usize;
        let vel_term = mul_dof_vec(&input.cdof_dot[6 * bda..], &input.qvel[bda..], num);
        for k in 0..6 {
            cacc[6 * j + k] = cacc[6 * p + k] + vel_term[k];
        }
        let acc_term = mul_dof_vec(&input.cdof[6 * bda..], &input.qacc[bda..], num);
        for k in 0..6 {
            cacc[6 * j + k] += acc_term[k];
        }
        let inert = &input.cinert[10 * j..10 * j + 10];
        let vel = &input.cvel[6 * j..6 * j + 6];
        let mut body = mul_inert_vec(inert, &cacc[6 * j..6 * j + 6]);
        let gyro = cross_force(vel, &mul_inert_vec(inert, vel));
        for k in 0..6 {
            body[k] += gyro[k];
        }
        for k in 0..6 {
            cfrc_int[6 * j + k] = body[k] - cfrc_ext[6 * j + k];
        }
    }
    for j in (1..nbody).rev() {
        let p = m.body_parentid[j] as usize;
        for k in 0..6 {
            cfrc_int[6 * p + k] += cfrc_int[6 * j + k];
        }
    }
}
