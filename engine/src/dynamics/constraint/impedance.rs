//! The row parameters `mj_makeConstraint` derives once the rows are in place: the approximate
//! inverse inertia of each row (`mj_diagApprox`) and the impedance, stiffness and damping, the
//! regulariser and its inverse (`mj_makeImpedance`), as MuJoCo 4.0.0 computes them for
//! friction-loss, joint-limit and geom contact rows (`docs/measurements.md` D10).
// `x = y + x` keeps the library's operand order, and the indexed loops walk several arrays in
// step, as the library does.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

use super::{cnstr, ConstraintModel, Contact};
use crate::math::MINVAL;

/// `mjMINIMP`: the smallest impedance.
const MINIMP: f64 = 0.0001;
/// `mjMAXIMP`: the largest impedance.
const MAXIMP: f64 = 0.9999;

/// `a > b ? a : b`, the library's `mju_max` (the second value when either is NaN).
fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// `a < b ? a : b`, the library's `mju_min`.
fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The translational and rotational inverse inertia of a geom contact: the two bodies'
/// `body_invweight0` summed, each weighted by 1 as `mj_contactBodyWeight` gives a geom's body.
fn contact_weights(m: &ConstraintModel, con: &Contact) -> (f64, f64) {
    let (mut tran, mut rot) = (0.0, 0.0);
    for &g in &con.geom {
        let b = m.geom_bodyid[g as usize] as usize;
        let w = 1.0;
        tran = w * m.body_invweight0[2 * b] + tran;
        rot = w * m.body_invweight0[2 * b + 1] + rot;
    }
    (tran, rot)
}

/// Writes each row's approximate inverse inertia into `diag_a` (`nefc` = `efc_type.len()`): a
/// friction-loss or limit row its dof's `dof_invweight0`; a frictionless or elliptic contact
/// row the bodies' translational weight (rotational for the elliptic spin and rolling rows); a
/// pyramidal pair `tran + mu^2 tran` (`rot` for rolling pairs).
pub fn diag_approx(m: &ConstraintModel, contacts: &[Contact], efc_type: &[i32], efc_id: &[i32], diag_a: &mut [f64]) {
    let nefc = efc_type.len();
    let mut i = 0;
    while i < nefc {
        let id = efc_id[i] as usize;
        match efc_type[i] {
            cnstr::EQUALITY => {
                let (n, _) = super::equality::pos_dim(&m.equality, id, &[0.0; 6]);
                super::equality::diag_approx(&m.equality, m.dof_invweight0, m.body_invweight0, id, &mut diag_a[i..]);
                i += n - 1;
            }
            cnstr::FRICTION_DOF => diag_a[i] = m.dof_invweight0[id],
            cnstr::LIMIT_JOINT => diag_a[i] = m.dof_invweight0[m.jnt_dofadr[id] as usize],
            t @ (cnstr::CONTACT_FRICTIONLESS | cnstr::CONTACT_PYRAMIDAL | cnstr::CONTACT_ELLIPTIC) => {
                let con = &contacts[id];
                let dim = con.dim as usize;
                let (tran, rot) = contact_weights(m, con);
                if t == cnstr::CONTACT_FRICTIONLESS {
                    diag_a[i] = tran;
                } else if t == cnstr::CONTACT_ELLIPTIC {
                    for j in 0..dim {
                        diag_a[i + j] = if j < 3 { tran } else { rot };
                    }
                    i += dim - 1;
                } else {
                    for j in 0..dim - 1 {
                        let f = con.friction[j];
                        let w = if j < 2 { tran } else { rot };
                        let v = (f * f) * w + tran;
                        diag_a[i + 2 * j] = v;
                        diag_a[i + 2 * j + 1] = v;
                    }
                    i += 2 * dim - 3;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// A reference the library replaced with its default, reported through `mju_warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolrefWarning {
    /// `solref` mixed the standard and direct formats: (0.02, 1) used instead.
    MixedSolref,
    /// `solreffriction` values of different signs: (0, 0) used instead.
    MixedSolreffriction,
}

impl SolrefWarning {
    /// The library's message.
    pub fn message(self) -> &'static str {
        match self {
            SolrefWarning::MixedSolref => "mixed solref format, replacing with default",
            SolrefWarning::MixedSolreffriction => {
                "solreffriction values should have the same sign, replacing with default"
            }
        }
    }
}

/// A row's reference, friction reference and impedance parameters (`getsolparam`).
struct SolParams {
    solref: [f64; 2],
    solreffriction: [f64; 2],
    solimp: [f64; 5],
}

/// The parameters of the constraint starting at row `i`, checked and clamped as the library
/// does (`warn` hears of a replaced reference).
fn sol_params(
    m: &ConstraintModel,
    contacts: &[Contact],
    ty: i32,
    id: usize,
    warn: &mut impl FnMut(SolrefWarning),
) -> SolParams {
    let pair = |a: &[f64], k: usize| [a[2 * k], a[2 * k + 1]];
    let five = |a: &[f64], k: usize| [a[5 * k], a[5 * k + 1], a[5 * k + 2], a[5 * k + 3], a[5 * k + 4]];
    let mut p = match ty {
        cnstr::EQUALITY => {
            let (solref, solimp) = super::equality::sol_params(&m.equality, id);
            SolParams { solref, solreffriction: [0.0; 2], solimp }
        }
        cnstr::LIMIT_JOINT => {
            SolParams { solref: pair(m.jnt_solref, id), solreffriction: [0.0; 2], solimp: five(m.jnt_solimp, id) }
        }
        cnstr::FRICTION_DOF => {
            SolParams { solref: pair(m.dof_solref, id), solreffriction: [0.0; 2], solimp: five(m.dof_solimp, id) }
        }
        cnstr::CONTACT_FRICTIONLESS | cnstr::CONTACT_PYRAMIDAL | cnstr::CONTACT_ELLIPTIC => {
            let c = &contacts[id];
            SolParams { solref: c.solref, solreffriction: c.solreffriction, solimp: c.solimp }
        }
        _ => SolParams { solref: [0.0; 2], solreffriction: [0.0; 2], solimp: [0.0; 5] },
    };
    let safe = !m.disable_refsafe && !m.discrete;
    let twice = m.timestep + m.timestep;
    let r = &mut p.solref;
    if (r[0] > 0.0) != (r[1] > 0.0) {
        warn(SolrefWarning::MixedSolref);
        *r = [0.02, 1.0];
    }
    if safe && r[0] > 0.0 {
        r[0] = if twice <= r[0] { r[0] } else { twice };
    }
    let f = &mut p.solreffriction;
    if (f[0] > 0.0) != (f[1] > 0.0) {
        warn(SolrefWarning::MixedSolreffriction);
        *f = [0.0; 2];
    }
    if safe && f[0] > 0.0 {
        f[0] = if twice <= f[0] { f[0] } else { twice };
    }
    let s = &mut p.solimp;
    for k in [0, 1, 3] {
        s[k] = min(MAXIMP, max(MINIMP, s[k]));
    }
    s[2] = if s[2] <= 0.0 { 0.0 } else { s[2] };
    s[4] = if s[4] <= 1.0 { 1.0 } else { s[4] };
    p
}

/// `a^b`, exact for the common powers 1 and 2.
fn power(a: f64, b: f64) -> f64 {
    if b == 1.0 {
        a
    } else if b == 2.0 {
        a * a
    } else {
        a.powf(b)
    }
}

/// The impedance at distance `pos` from a constraint with margin `margin`, and its derivative
/// (`getimpedance`): from `solimp[0]` at the margin to `solimp[1]` at `solimp[2]` beyond it,
/// along a power curve of exponent `solimp[4]` with its midpoint at `solimp[3]`.
fn impedance(s: &[f64; 5], pos: f64, margin: f64) -> (f64, f64) {
    if s[0] == s[1] || s[2] <= MINVAL {
        return ((s[0] + s[1]) * 0.5, 0.0);
    }
    let x = (pos - margin) / s[2];
    let ax = max(-x, x);
    if ax >= 1.0 || 0.0 >= ax {
        return (if 1.0 <= ax { s[1] } else { s[0] }, 0.0);
    }
    let (y, dy) = if s[4] == 1.0 {
        (ax, 1.0)
    } else if s[3] >= ax {
        let a = 1.0 / power(s[3], s[4] - 1.0);
        (power(ax, s[4]) * a, (a * s[4]) * power(ax, s[4] - 1.0))
    } else {
        let b = 1.0 / power(1.0 - s[3], s[4] - 1.0);
        (1.0 - b * power(1.0 - ax, s[4]), power(1.0 - ax, s[4] - 1.0) * (b * s[4]))
    };
    let span = s[1] - s[0];
    let imp = y * span + s[0];
    let signed = if x < 0.0 { -dy } else { dy };
    (imp, (span * signed) / s[2])
}

/// The arrays [`make_impedance`] reads and writes (`nefc` rows; `efc_kbip` 4 per row).
#[derive(Debug)]
pub struct ImpedanceRows<'a> {
    /// Constraint type of each row.
    pub efc_type: &'a [i32],
    /// Object of each row.
    pub efc_id: &'a [i32],
    /// Distance of each row.
    pub efc_pos: &'a [f64],
    /// Margin of each row.
    pub efc_margin: &'a [f64],
    /// Approximate inverse inertia, from [`diag_approx`]; adjusted to the regulariser on return.
    pub efc_diag_a: &'a mut [f64],
    /// Stiffness, damping, impedance and its derivative of each row.
    pub efc_kbip: &'a mut [f64],
    /// Inverse regulariser.
    pub efc_d: &'a mut [f64],
    /// Regulariser.
    pub efc_r: &'a mut [f64],
}

/// The rows of the constraint starting at row `i` (`getposdim`; equality rows: [`super::equality::pos_dim`]):
/// a contact's dimension, `2 (dim - 1)` pyramid edges, else 1.
fn rows_of(contacts: &[Contact], ty: i32, id: usize) -> usize {
    match ty {
        cnstr::CONTACT_ELLIPTIC => contacts[id].dim as usize,
        cnstr::CONTACT_PYRAMIDAL => 2 * (contacts[id].dim as usize - 1),
        _ => 1,
    }
}

/// `mj_makeImpedance` on rows `[0, nefc)` of which the first `ne + nf` are equality and
/// friction-loss rows: `efc_R`, `efc_KBIP`, `efc_D`, the regularised cone's `mu` of each
/// frictional contact in `contacts`, and `efc_diagA` made consistent with `R`. `warn` hears of
/// every replaced reference, in row order.
pub fn make_impedance(
    m: &ConstraintModel,
    contacts: &mut [Contact],
    ne_nf: usize,
    rows: &mut ImpedanceRows,
    mut warn: impl FnMut(SolrefWarning),
) {
    let nefc = rows.efc_type.len();
    let r = &mut *rows.efc_r;
    let kbip = &mut *rows.efc_kbip;
    let mut i = 0;
    while i < nefc {
        let (ty, id) = (rows.efc_type[i], rows.efc_id[i] as usize);
        let p = sol_params(m, contacts, ty, id, &mut warn);
        let (dim, pos) = if ty == cnstr::EQUALITY {
            super::equality::pos_dim(&m.equality, id, &rows.efc_pos[i..])
        } else {
            (rows_of(contacts, ty, id), rows.efc_pos[i])
        };
        let (imp, dimp) = impedance(&p.solimp, pos, rows.efc_margin[i]);
        let (s1, solref, friction) = (p.solimp[1], p.solref, p.solreffriction);
        for j in 0..dim {
            r[i + j] = max(MINVAL, ((1.0 - imp) * rows.efc_diag_a[i + j]) / imp);
            let tp = rows.efc_type[i + j];
            let elliptic_friction = tp == cnstr::CONTACT_ELLIPTIC && j > 0;
            let rf = if elliptic_friction && (friction[0] != 0.0 || friction[1] != 0.0) { friction } else { solref };
            let k = if tp == cnstr::FRICTION_DOF || tp == cnstr::FRICTION_TENDON || elliptic_friction {
                0.0
            } else if rf[0] > 0.0 {
                1.0 / max(MINVAL, s1 * s1 * rf[0] * rf[0] * rf[1] * rf[1])
            } else {
                -rf[0] / max(MINVAL, s1 * s1)
            };
            let b = if rf[1] > 0.0 { 2.0 / max(MINVAL, rf[0] * s1) } else { -rf[1] / max(MINVAL, s1) };
            kbip[4 * (i + j)..4 * (i + j) + 4].copy_from_slice(&[k, b, imp, dimp]);
        }
        i += dim;
    }
    // frictional contacts: friction rows softer by impratio, and the cone's mu to match
    let mut i = ne_nf;
    while i < nefc {
        let ty = rows.efc_type[i];
        if ty == cnstr::CONTACT_PYRAMIDAL || ty == cnstr::CONTACT_ELLIPTIC {
            let con = &mut contacts[rows.efc_id[i] as usize];
            let dim = con.dim as usize;
            let f = con.friction;
            r[i + 1] = r[i] / max(MINVAL, m.impratio);
            con.mu = f[0] * (r[i + 1] / r[i]).sqrt();
            if ty == cnstr::CONTACT_ELLIPTIC {
                for j in 1..dim - 1 {
                    r[i + j + 1] = r[i + 1] * f[0] * f[0] / (f[j] * f[j]);
                }
                i += dim - 1;
            } else {
                let rpy = 2.0 * con.mu * con.mu * r[i];
                r[i..i + 2 * (dim - 1)].fill(rpy);
                i += 2 * (dim - 1) - 1;
            }
        }
        i += 1;
    }
    for i in 0..nefc {
        rows.efc_d[i] = 1.0 / r[i];
    }
    for i in 0..nefc {
        let imp = kbip[4 * i + 2];
        rows.efc_diag_a[i] = r[i] * imp / (1.0 - imp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impedance_is_flat_saturated_or_on_the_curve() {
        let s = [0.9, 0.95, 0.001, 0.5, 2.0];
        assert_eq!(impedance(&[0.9, 0.9, 0.001, 0.5, 2.0], 0.0, 0.0), (0.9, 0.0));
        assert_eq!(impedance(&s, -1.0, 0.0), (0.95, 0.0));
        assert_eq!(impedance(&s, 0.0, 0.0), (0.9, 0.0));
        let (imp, dimp) = impedance(&s, -0.0002, 0.0);
        assert!(imp > 0.9 && imp < 0.95 && dimp < 0.0);
    }

    #[test]
    fn solimp_is_clamped_and_mixed_solref_replaced() {
        let m = ConstraintModel {
            timestep: 0.002,
            dof_solref: &[-1.0, 2.0],
            dof_solimp: &[0.0, 2.0, -0.0, 0.5, 0.5],
            ..ConstraintModel::default()
        };
        let mut warned = Vec::new();
        let p = sol_params(&m, &[], cnstr::FRICTION_DOF, 0, &mut |w| warned.push(w));
        assert_eq!(warned, [SolrefWarning::MixedSolref]);
        assert_eq!(p.solref, [0.02, 1.0]);
        assert_eq!(p.solimp.map(f64::to_bits), [MINIMP, MAXIMP, 0.0, 0.5, 1.0].map(f64::to_bits));
    }
}
