//! The dof friction-loss rows and joint-limit rows of `mj_makeConstraint`, counted and then
//! appended as MuJoCo 4.0.0's `mj_instantiateFriction` and `mj_instantiateLimit` do for dofs
//! and joints (`docs/measurements.md` D10). Tendon rows and asleep trees are the library's: the
//! caller keeps those models away.

use super::{cnstr, count_rows, ConstraintModel, EfcRows, Rows};
use crate::dynamics::jnt;
use crate::math::{normalize3, normalize4, MINVAL, PI};

/// Rows and sparse Jacobian non-zeros a counting pass found (the non-zeros are counted in dense
/// mode too; the caller uses them only for a sparse Jacobian).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowCount {
    /// Rows.
    pub rows: usize,
    /// Sparse Jacobian non-zeros.
    pub nnz: usize,
}

/// Whether dof `i` has a friction-loss row: any coefficient other than zero, NaN included.
fn frictional(m: &ConstraintModel, i: usize) -> bool {
    m.dof_frictionloss[i] != 0.0
}

/// The friction-loss rows (one per frictional dof, one non-zero each).
pub fn count_friction(m: &ConstraintModel, sparse: bool) -> RowCount {
    let mut n = RowCount::default();
    if m.disable_frictionloss {
        return n;
    }
    for _ in (0..m.nv).filter(|&i| frictional(m, i)) {
        n.rows += count_rows(sparse, m.nv, 1, 1);
        n.nnz += 1;
    }
    n
}

/// Appends the friction-loss rows, in dof order: a unit row on the dof, the dof's friction
/// loss, no distance or margin. `jac` is scratch of `nv` entries.
pub fn instantiate_friction(m: &ConstraintModel, rows: &mut EfcRows, jac: &mut [f64]) {
    if m.disable_frictionloss {
        return;
    }
    let nv = m.nv;
    for i in (0..nv).filter(|&i| frictional(m, i)) {
        let dof = [i as i32];
        let (jac, chain): (&[f64], &[i32]) = if rows.sparse {
            jac[0] = 1.0;
            (&jac[..1], &dof)
        } else {
            jac[..nv].fill(0.0);
            jac[i] = 1.0;
            (&jac[..nv], &[])
        };
        rows.add(Rows {
            jac,
            pos: None,
            margin: None,
            frictionloss: m.dof_frictionloss[i],
            size: 1,
            ty: cnstr::FRICTION_DOF,
            id: i as i32,
            chain,
        });
    }
}

/// One active side of a joint's limit.
#[derive(Clone, Copy, Debug)]
enum Side {
    /// A hinge or slide: the dof and the Jacobian entry on it (1 at the lower limit, -1 at the
    /// upper).
    Scalar { dof: usize, sign: f64 },
    /// A ball: its first dof and the rotation axis the row pushes against.
    Ball { dof: usize, axis: [f64; 3] },
}

/// The rotation vector of a unit quaternion over unit time (`mju_quat2Vel` with `dt` = 1): the
/// axis of its vector part (x when shorter than `MINVAL`) times the angle, wrapped to at most
/// pi.
fn quat2vel(q: &[f64; 4]) -> [f64; 3] {
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let inv = 1.0 / s;
    let axis = if s < MINVAL { [1.0, 0.0, 0.0] } else { [q[1] * inv, q[2] * inv, q[3] * inv] };
    let half = s.atan2(q[0]);
    let mut angle = half + half;
    if PI < angle {
        angle -= 2.0 * PI;
    }
    [angle * axis[0], angle * axis[1], angle * axis[2]]
}

/// The larger of a joint's two range values, as the library selects it (the lower one when
/// they compare equal, the upper one when either is NaN).
fn range_max(lo: f64, hi: f64) -> f64 {
    if hi <= lo {
        lo
    } else {
        hi
    }
}

/// Calls `f(joint, side, dist, margin)` for every active limit side, in the library's order:
/// joints in order, a hinge or slide's lower side before its upper. A side is active when its
/// distance is below the margin (never with a NaN).
fn active_limits(m: &ConstraintModel, qpos: &[f64], mut f: impl FnMut(usize, Side, f64, f64)) {
    if m.disable_limit {
        return;
    }
    for j in 0..m.jnt_type.len() {
        if m.jnt_limited[j] != 1 {
            continue;
        }
        let margin = m.jnt_margin[j];
        let (qadr, dof) = (m.jnt_qposadr[j] as usize, m.jnt_dofadr[j] as usize);
        let range = [m.jnt_range[2 * j], m.jnt_range[2 * j + 1]];
        match m.jnt_type[j] {
            jnt::SLIDE | jnt::HINGE => {
                let value = qpos[qadr];
                let lower = -(range[0] - value);
                if lower < margin {
                    f(j, Side::Scalar { dof, sign: 1.0 }, lower, margin);
                }
                let upper = range[1] - value;
                if upper < margin {
                    f(j, Side::Scalar { dof, sign: -1.0 }, upper, margin);
                }
            }
            jnt::BALL => {
                let mut quat = [qpos[qadr], qpos[qadr + 1], qpos[qadr + 2], qpos[qadr + 3]];
                normalize4(&mut quat);
                let mut axis = quat2vel(&quat);
                let angle = normalize3(&mut axis);
                let dist = range_max(range[0], range[1]) - angle;
                if dist < margin {
                    f(j, Side::Ball { dof, axis }, dist, margin);
                }
            }
            _ => {}
        }
    }
}

/// The joint-limit rows: one per active side (one non-zero for a hinge or slide, three for a
/// ball).
pub fn count_limits(m: &ConstraintModel, qpos: &[f64], sparse: bool) -> RowCount {
    let mut n = RowCount::default();
    active_limits(m, qpos, |_, side, _, _| {
        let nnz = match side {
            Side::Scalar { .. } => 1,
            Side::Ball { .. } => 3,
        };
        n.rows += count_rows(sparse, m.nv, 1, nnz);
        n.nnz += nnz;
    });
    n
}

/// Appends the joint-limit rows with their distances and margins: for a hinge or slide the
/// signed unit row on its dof, for a ball the negated rotation axis on its three dofs. `jac`
/// is scratch of `nv` entries.
pub fn instantiate_limits(m: &ConstraintModel, qpos: &[f64], rows: &mut EfcRows, jac: &mut [f64]) {
    let nv = m.nv;
    active_limits(m, qpos, |j, side, dist, margin| {
        let (dof, n) = match side {
            Side::Scalar { dof, .. } => (dof, 1),
            Side::Ball { dof, .. } => (dof, 3),
        };
        let chain = [dof as i32, dof as i32 + 1, dof as i32 + 2];
        let start = if rows.sparse {
            0
        } else {
            jac[..nv].fill(0.0);
            dof
        };
        match side {
            Side::Scalar { sign, .. } => jac[start] = sign,
            Side::Ball { axis, .. } => {
                for (k, a) in axis.iter().enumerate() {
                    jac[start + k] = -a;
                }
            }
        }
        let (jac, chain): (&[f64], &[i32]) = if rows.sparse { (&jac[..n], &chain[..n]) } else { (&jac[..nv], &[]) };
        rows.add(Rows {
            jac,
            pos: Some(&[dist]),
            margin: Some(&[margin]),
            frictionloss: 0.0,
            size: 1,
            ty: cnstr::LIMIT_JOINT,
            id: j as i32,
            chain,
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quat2vel_wraps_and_falls_back_to_x() {
        let v = quat2vel(&[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(v, [0.0, 0.0, 0.0]);
        // a half turn about z and a bit more: the angle wraps below pi
        let a: f64 = 3.5;
        let v = quat2vel(&[(a / 2.0).cos(), 0.0, 0.0, (a / 2.0).sin()]);
        assert!(v[2] < 0.0 && (v[2] + (2.0 * PI - a)).abs() < 1e-12);
    }

    #[test]
    fn range_max_keeps_the_lower_value_on_ties() {
        assert_eq!(range_max(0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(range_max(1.0, 2.0), 2.0);
        assert!(range_max(1.0, f64::NAN).is_nan());
    }
}
