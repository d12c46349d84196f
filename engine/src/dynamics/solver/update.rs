//! The constraint update of MuJoCo 4.0.0 (`mj_constraintUpdate_impl`, exported): from
//! `jar = J qacc - aref` to each row's state, its force and, optionally, the total constraint
//! cost and the elliptic cones' Hessians (`docs/measurements.md` D14). The warm start and the
//! primal solvers (CG, Newton) call it at every iterate.
// Indexed loops walk several row arrays in step, as the library does; `x = y + x` keeps the
// library's operand order.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use crate::dynamics::reference::dot;

/// `mjCNSTR_CONTACT_ELLIPTIC`.
pub const CONTACT_ELLIPTIC: i32 = 7;

/// A row's state after the update (`mjtConstraintState`).
pub mod state {
    /// `mjCNSTRSTATE_SATISFIED`: no force.
    pub const SATISFIED: i32 = 0;
    /// `mjCNSTRSTATE_QUADRATIC`: force `-D jar`.
    pub const QUADRATIC: i32 = 1;
    /// `mjCNSTRSTATE_LINEARNEG`: friction loss at its positive bound.
    pub const LINEARNEG: i32 = 2;
    /// `mjCNSTRSTATE_LINEARPOS`: friction loss at its negative bound.
    pub const LINEARPOS: i32 = 3;
    /// `mjCNSTRSTATE_CONE`: an elliptic contact on its cone's surface.
    pub const CONE: i32 = 4;
}

/// What the update reads of a contact with an elliptic cone.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cone {
    /// `mu`: the regularised friction coefficient of the normal direction.
    pub mu: f64,
    /// `friction`: the five friction coefficients.
    pub friction: [f64; 5],
    /// `dim`: the contact's rows.
    pub dim: i32,
}

/// The constraint rows the update reads (MuJoCo's names, `nefc` each).
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    /// `ne`: equality rows (first).
    pub ne: usize,
    /// `nf`: friction-loss rows (next).
    pub nf: usize,
    /// `efc_D`.
    pub d: &'a [f64],
    /// `efc_R`.
    pub r: &'a [f64],
    /// `efc_frictionloss`.
    pub frictionloss: &'a [f64],
    /// `efc_type`.
    pub efc_type: &'a [i32],
    /// `efc_id`: for contact rows, the contact.
    pub efc_id: &'a [i32],
    /// The contacts (`ncon`), for elliptic rows.
    pub contacts: &'a [Cone],
}

/// `mj_constraintUpdate_impl`: `state` and `force` of every row from `jar`; the total cost when
/// `cost` is asked for (`+0` without rows); with `hessian` (one 6x6 per contact, MuJoCo's
/// `contact[i].H`), each elliptic contact in the cone state gets its cone Hessian.
pub fn constraint_update(
    rows: &Rows,
    jar: &[f64],
    state: &mut [i32],
    force: &mut [f64],
    want_cost: bool,
    mut hessian: Option<&mut [[f64; 36]]>,
) -> f64 {
    let nefc = state.len();
    let (ne, nf, dd, r, floss) = (rows.ne, rows.nf, rows.d, rows.r, rows.frictionloss);
    if nefc == 0 {
        return 0.0;
    }
    for i in 0..nefc {
        force[i] = -dd[i] * jar[i];
    }
    let mut s = 0.0;
    let mut i = 0;
    while i < nefc {
        if i < ne {
            if want_cost {
                s += 0.5 * dd[i] * jar[i] * jar[i];
            }
            state[i] = state::QUADRATIC;
        } else if i < ne + nf {
            let bound = r[i] * floss[i];
            if jar[i] <= -bound {
                if want_cost {
                    s += -0.5 * r[i] * floss[i] * floss[i] - floss[i] * jar[i];
                }
                force[i] = floss[i];
                state[i] = state::LINEARNEG;
            } else if jar[i] >= bound {
                if want_cost {
                    s += -0.5 * r[i] * floss[i] * floss[i] + floss[i] * jar[i];
                }
                force[i] = -floss[i];
                state[i] = state::LINEARPOS;
            } else {
                if want_cost {
                    s += 0.5 * dd[i] * jar[i] * jar[i];
                }
                state[i] = state::QUADRATIC;
            }
        } else if rows.efc_type[i] != CONTACT_ELLIPTIC {
            if jar[i] >= 0.0 {
                force[i] = 0.0;
                state[i] = state::SATISFIED;
            } else {
                if want_cost {
                    s += 0.5 * dd[i] * jar[i] * jar[i];
                }
                state[i] = state::QUADRATIC;
            }
        } else {
            let id = rows.efc_id[i] as usize;
            let con = &rows.contacts[id];
            let dim = con.dim as usize;
            let h = hessian.as_deref_mut().map(|h| &mut h[id]);
            let cost = want_cost.then_some(&mut s);
            elliptic(con, &dd[i..i + dim], &jar[i..i + dim], &mut state[i..i + dim], &mut force[i..i + dim], cost, h);
            i += dim;
            continue;
        }
        i += 1;
    }
    if want_cost {
        s
    } else {
        0.0
    }
}

/// One elliptic contact's rows: its zone (top: no force; bottom: every row quadratic; middle: on
/// the cone), its cost added term by term to the running total `s`, and in the middle zone its
/// force and, if asked, its cone Hessian.
fn elliptic(
    con: &Cone,
    dd: &[f64],
    jar: &[f64],
    state: &mut [i32],
    force: &mut [f64],
    mut s: Option<&mut f64>,
    hessian: Option<&mut [f64; 36]>,
) {
    let (mu, fr, dim) = (con.mu, &con.friction, jar.len());
    let mut u = [0.0; 6];
    u[0] = jar[0] * mu;
    for j in 1..dim {
        u[j] = jar[j] * fr[j - 1];
    }
    let n = u[0];
    let t = dot(&u[1..dim], &u[1..dim]).sqrt();
    let zone = if n >= mu * t || (t <= 0.0 && n >= 0.0) {
        force.fill(0.0);
        state::SATISFIED
    } else if mu * n + t <= 0.0 || (t <= 0.0 && n < 0.0) {
        if let Some(s) = s.as_deref_mut() {
            for j in 0..dim {
                *s += 0.5 * dd[j] * jar[j] * jar[j];
            }
        }
        state::QUADRATIC
    } else {
        let dm = dd[0] / (mu * mu * (1.0 + mu * mu));
        let nmt = n - mu * t;
        if let Some(s) = s {
            *s += 0.5 * dm * nmt * nmt;
        }
        force[0] = -dm * nmt * mu;
        // 4.0.0 scales the tangent by 1/T once (D14)
        let mut v = [0.0; 6];
        for j in 1..dim {
            v[j] = u[j] / t;
        }
        for j in 1..dim {
            force[j] = -force[0] * v[j] * fr[j - 1];
        }
        if let Some(h) = hessian {
            cone_hessian(mu, fr, &v[..dim], n / t, dm, h);
        }
        state::CONE
    };
    state.fill(zone);
}

/// The cone Hessian of an elliptic contact in the middle zone, row-major `dim x dim` in `h`, from
/// the tangent over its norm `v` (`U/T`) and `n_t = N/T`, in 4.0.0's operation order (D14).
fn cone_hessian(mu: f64, fr: &[f64; 5], v: &[f64], n_t: f64, dm: f64, h: &mut [f64; 36]) {
    let dim = v.len();
    // first row: (1, -mu V)
    h[0] = 1.0;
    for j in 1..dim {
        h[j] = -mu * v[j];
    }
    // upper block: mu N/T V V'
    let scl = mu * n_t;
    for k in 1..dim {
        for j in k..dim {
            h[k * dim + j] = v[k] * (scl * v[j]);
        }
    }
    // diagonal: + (mu^2 - mu N/T)
    let scl = mu * mu - scl;
    for j in 1..dim {
        h[j * (dim + 1)] += scl;
    }
    // scaled on both sides by diag(mu, friction), and by Dm
    let coef = |k: usize| if k == 0 { mu } else { fr[k - 1] };
    for k in 0..dim {
        let scl = dm * coef(k);
        for j in k..dim {
            h[k * dim + j] *= scl * coef(j);
        }
    }
    // the lower triangle mirrors the upper
    for k in 0..dim {
        for j in k + 1..dim {
            h[j * dim + k] = h[k * dim + j];
        }
    }
}
