//! `mj_comPos`: subtree centres of mass, body inertias about their tree's centre of mass
//! (`cinert`) and the dof axes in that frame (`cdof`), as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D6).

use specula_model::compile::math::rotate_inertia;

use super::{jnt, TreeModel};
use crate::math::{cross, MINVAL};

/// The pose-stage inputs of [`com_pos`] (`mj_kinematics`' results).
#[derive(Clone, Copy, Debug)]
pub struct PoseInput<'a> {
    /// Body frame orientations (`9 nbody`).
    pub xmat: &'a [f64],
    /// Inertial frame positions (`3 nbody`).
    pub xipos: &'a [f64],
    /// Inertial frame orientations (`9 nbody`).
    pub ximat: &'a [f64],
    /// Joint anchors (`3 njnt`).
    pub xanchor: &'a [f64],
    /// Joint axes (`3 njnt`).
    pub xaxis: &'a [f64],
}

/// The outputs of [`com_pos`].
#[derive(Debug)]
pub struct ComOutput<'a> {
    /// Subtree centres of mass (`3 nbody`).
    pub subtree_com: &'a mut [f64],
    /// Com-based body inertias (`10 nbody`).
    pub cinert: &'a mut [f64],
    /// Dof axes (`6 nv`).
    pub cdof: &'a mut [f64],
}

/// Body inertia `i` (principal, in the frame `mat`) of mass `mass` at offset `dif` from the
/// reference point, in MuJoCo's 10-number layout (`mju_inertCom`).
fn inert_com(res: &mut [f64], i: &[f64], mat: &[f64], dif: &[f64; 3], mass: f64) {
    let i: &[f64; 3] = i.try_into().expect("three principal moments");
    res[..6].copy_from_slice(&rotate_inertia(i, mat));
    res[0] += mass * (dif[1] * dif[1] + dif[2] * dif[2]);
    res[1] += mass * (dif[0] * dif[0] + dif[2] * dif[2]);
    res[2] += mass * (dif[0] * dif[0] + dif[1] * dif[1]);
    res[3] -= mass * dif[0] * dif[1];
    res[4] -= mass * dif[0] * dif[2];
    res[5] -= mass * dif[1] * dif[2];
    res[6] = mass * dif[0];
    res[7] = mass * dif[1];
    res[8] = mass * dif[2];
    res[9] = mass;
}

/// A hinge's motion axis about `offset` (`mju_dofCom` with an offset): rotation `axis`,
/// translation `axis x offset`.
fn dof_hinge(res: &mut [f64], axis: &[f64; 3], offset: &[f64; 3]) {
    res[..3].copy_from_slice(axis);
    res[3..6].copy_from_slice(&cross(axis, offset));
}

/// Writes `subtree_com`, `cinert` and `cdof` from the poses (all bodies: the awake-only variant
/// under sleep is the library's).
pub fn com_pos(m: &TreeModel, pose: &PoseInput, out: &mut ComOutput) {
    let nbody = m.nbody();
    let com = &mut *out.subtree_com;
    // mass-weighted positions, summed leaves first, divided by the compiled subtree masses
    let com = &mut com[..3 * nbody];
    let xipos = &pose.xipos[..3 * nbody];
    for ((c, x), &mass) in com.chunks_exact_mut(3).zip(xipos.chunks_exact(3)).zip(m.body_mass) {
        for k in 0..3 {
            c[k] = x[k] * mass;
        }
    }
    for i in (1..nbody).rev() {
        let j = 3 * m.body_parentid[i] as usize;
        // the parent comes first: split there, one length check per body
        let (head, body) = com.split_at_mut(3 * i);
        for (a, b) in head[j..j + 3].iter_mut().zip(&body[..3]) {
            *a += b;
        }
    }
    for ((c, x), &mass) in com.chunks_exact_mut(3).zip(xipos.chunks_exact(3)).zip(m.body_subtreemass) {
        if MINVAL > mass {
            c.copy_from_slice(x);
        } else {
            let inv = 1.0 / mass;
            for v in c {
                *v *= inv;
            }
        }
    }
    out.cinert[..10].fill(0.0);
    for i in 1..nbody {
        let r = m.body_rootid[i] as usize;
        let dif = [
            pose.xipos[3 * i] - com[3 * r],
            pose.xipos[3 * i + 1] - com[3 * r + 1],
            pose.xipos[3 * i + 2] - com[3 * r + 2],
        ];
        let (inertia, ximat) = (&m.body_inertia[3 * i..3 * i + 3], &pose.ximat[9 * i..9 * i + 9]);
        inert_com(&mut out.cinert[10 * i..10 * i + 10], inertia, ximat, &dif, m.body_mass[i]);
    }
    for j in 0..m.jnt_type.len() {
        let da = 6 * m.jnt_dofadr[j] as usize;
        let b = m.jnt_bodyid[j] as usize;
        let r = m.body_rootid[b] as usize;
        let offset = [
            com[3 * r] - pose.xanchor[3 * j],
            com[3 * r + 1] - pose.xanchor[3 * j + 1],
            com[3 * r + 2] - pose.xanchor[3 * j + 2],
        ];
        let cdof = &mut *out.cdof;
        match m.jnt_type[j] {
            jnt::FREE | jnt::BALL => {
                let mut skip = 0;
                if m.jnt_type[j] == jnt::FREE {
                    // translations along the world axes, then the rotations as a ball joint
                    cdof[da..da + 18].fill(0.0);
                    for k in 0..3 {
                        cdof[da + 3 + 7 * k] = 1.0;
                    }
                    skip = 18;
                }
                let x = &pose.xmat[9 * b..9 * b + 9];
                for k in 0..3 {
                    let axis = [x[k], x[k + 3], x[k + 6]];
                    let at = da + skip + 6 * k;
                    dof_hinge(&mut cdof[at..at + 6], &axis, &offset);
                }
            }
            jnt::SLIDE => {
                cdof[da..da + 3].fill(0.0);
                cdof[da + 3..da + 6].copy_from_slice(&pose.xaxis[3 * j..3 * j + 3]);
            }
            _ => {
                let axis = [pose.xaxis[3 * j], pose.xaxis[3 * j + 1], pose.xaxis[3 * j + 2]];
                dof_hinge(&mut cdof[da..da + 6], &axis, &offset);
            }
        }
    }
}
