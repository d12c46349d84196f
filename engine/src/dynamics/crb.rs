//! `mj_crb`: composite rigid-body inertias and the joint-space inertia matrix `M` (lower
//! triangle, row-sparse), as MuJoCo 4.0.0 computes them (`docs/measurements.md` D1).

#[cfg(target_arch = "x86_64")]
use super::spatial::dot6_ymm;
use super::spatial::{dot6, mul_inert_vec};
use super::TreeModel;

/// Largest joint transmission type: `mjTRN_JOINT` (0) and `mjTRN_JOINTINPARENT` (1).
const TRN_JOINT_MAX: i32 = 1;

/// Armature the actuators add to joint `joint`: `gear[0]^2 armature` of its one actuator, or the
/// sum over every joint-transmission actuator on it when there are several (`mj_actuatorArmature`).
pub fn actuator_armature(m: &TreeModel, joint: usize) -> f64 {
    let term = |a: usize| {
        let g = m.actuator_gear[6 * m.actuator_outadr[a] as usize];
        (g * g) * m.actuator_armature[a]
    };
    match m.jnt_actuatorid[joint] {
        -1 => 0.0,
        a if a >= 0 => term(a as usize),
        _ => {
            let mut sum = 0.0;
            for a in 0..m.actuator_trntype.len() {
                if m.actuator_trnid[2 * a] == joint as i32 && m.actuator_trntype[a] <= TRN_JOINT_MAX {
                    sum += term(a);
                }
            }
            sum
        }
    }
}

/// Writes the composite inertias `crb` (`10 nbody`) and the inertia matrix `mass` (`nC`, MuJoCo's
/// `d->M`) from the com-based body inertias `cinert` and dof axes `cdof` (all bodies and dofs:
/// the awake-only variant under sleep is the library's).
pub fn crb(m: &TreeModel, cinert: &[f64], cdof: &[f64], crb: &mut [f64], mass: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX, just checked; the function is safe code otherwise.
        return unsafe { crb_avx(m, cinert, cdof, crb, mass) };
    }
    crb_with(m, cinert, cdof, crb, mass, dot6);
}

/// [`crb`] compiled for AVX, the rows' 6-vector dots on `ymm` registers ([`dot6_ymm`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn crb_avx(m: &TreeModel, cinert: &[f64], cdof: &[f64], crb: &mut [f64], mass: &mut [f64]) {
    crb_with(m, cinert, cdof, crb, mass, |a, b| dot6_ymm(a, b));
}

/// [`crb`]'s body, with its 6-vector dot.
#[inline(always)]
fn crb_with(
    m: &TreeModel,
    cinert: &[f64],
    cdof: &[f64],
    crb: &mut [f64],
    mass: &mut [f64],
    dot6: impl Fn(&[f64], &[f64; 6]) -> f64,
) {
    let nbody = m.nbody();
    crb[..10 * nbody].copy_from_slice(&cinert[..10 * nbody]);
    // leaves to root: each body's composite inertia into its parent's (the world keeps none)
    for i in (1..nbody).rev() {
        let p = m.body_parentid[i];
        if p > 0 {
            // the parent comes first: split there, one length check per body
            let (head, body) = crb.split_at_mut(10 * i);
            let p = 10 * p as usize;
            for (a, b) in head[p..p + 10].iter_mut().zip(&body[..10]) {
                *a += b;
            }
        }
    }
    mass[..m.nc()].fill(0.0);
    for i in 0..m.nv() {
        let adr = m.m_rowadr[i] as usize;
        if m.dof_simplenum[i] != 0 {
            mass[adr] = m.dof_m0[i];
            continue;
        }
        let diag = adr + m.m_rownnz[i] as usize - 1;
        mass[diag] = actuator_armature(m, m.dof_jntid[i] as usize) + m.dof_armature[i];
        let b = m.dof_bodyid[i] as usize;
        let buf = mul_inert_vec(&crb[10 * b..10 * b + 10], &cdof[6 * i..6 * i + 6]);
        // the dof and its ancestors: the row's entries from the diagonal back
        let (mut j, mut a) = (i as i32, diag);
        while j >= 0 {
            let jj = j as usize;
            mass[a] += dot6(&cdof[6 * jj..6 * jj + 6], &buf);
            a = a.wrapping_sub(1);
            j = m.dof_parentid[jj];
        }
    }
}
