//! The line search of MuJoCo 4.0.0's primal solvers (inline in `mj_solPrimal`, with the local
//! `PrimalEval`; `docs/measurements.md` D20): the cost along the search direction as a
//! function of the step `alpha`, shifted so that it is 0 at `alpha = 0`, with its first two
//! derivatives, and the 1-D Newton search with bracketing that picks the step; elliptic
//! contacts as 4.0.0 evaluates them (D21).
// `x = y + x` keeps the library's operand order.
#![allow(clippy::assign_op_pattern)]

use super::products::norm;
use super::update::{Cone, Rows, CONTACT_ELLIPTIC};
use crate::dynamics::reference::dot;
use crate::math::MINVAL;

/// One point of the line search (`mjPrimalPnt`): the step, the shifted cost and its first two
/// derivatives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pnt {
    /// The step.
    pub alpha: f64,
    /// `cost(alpha) - cost(0)`.
    pub cost: f64,
    /// The first and second derivatives of the cost at `alpha`.
    pub deriv: [f64; 2],
}

/// What the search reads of the island (MuJoCo's names; `nefc` rows, `nv` dofs).
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The island's rows (`efc_D`, `efc_R`, `efc_frictionloss`, `efc_type`, `efc_id`, the contacts).
    pub rows: Rows<'a>,
    /// `Jaref` and `Jv` (`J search`).
    pub jaref: &'a [f64],
    /// See `jaref`.
    pub jv: &'a [f64],
    /// The rows' quadratics (3 per row, from [`prepare`]).
    pub quad: &'a [f64],
    /// The Gauss term's quadratic (entries 1 and 2 are read).
    pub quad_gauss: [f64; 3],
}

/// The search's outcome besides the step (`LSiter`, `LSslope`, the improvement `-cost`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// Evaluations of the cost (`LSiter`, the statistics' `neval`).
    pub neval: i32,
    /// `|deriv| scale / |search|` at the step taken, 1 when not computed.
    pub slope: f64,
    /// `-cost` at the step taken (0 without a step).
    pub improvement: f64,
}

/// `PrimalPrepare`: the Gauss quadratic's linear and quadratic coefficients and every row's
/// quadratic `(0.5 D Jaref^2, D Jaref Jv, 0.5 D Jv^2)` (`quad`, 3 per row); an elliptic contact
/// sums its rows into its first row's quadratic and keeps `mu Jaref_0`, `mu Jv_0`, the norm of
/// its scaled tangent `|Jaref_j friction_j|` and its cone's `Dm` after it (D21).
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    quad: &mut [f64],
    gauss: &mut [f64; 3],
    search: &[f64],
    ma: &[f64],
    mv: &[f64],
    qfrc_smooth: &[f64],
    jaref: &[f64],
    jv: &[f64],
    rows: &Rows,
) {
    gauss[1] = dot(search, ma) - dot(qfrc_smooth, search);
    gauss[2] = 0.5 * dot(search, mv);
    let d = rows.d;
    let mut i = 0;
    while i < jaref.len() {
        let dj0 = d[i] * jaref[i];
        let mut q = [jaref[i] * dj0, jv[i] * dj0, jv[i] * d[i] * jv[i]];
        let mut step = 1;
        if rows.efc_type[i] == CONTACT_ELLIPTIC {
            let con = &rows.contacts[rows.efc_id[i] as usize];
            let (dim, mu) = (con.dim as usize, con.mu);
            let mut uu = 0.0;
            for j in 1..dim {
                let dj = d[i + j] * jaref[i + j];
                q[0] = jaref[i + j] * dj + q[0];
                q[1] = jv[i + j] * dj + q[1];
                q[2] = q[2] + jv[i + j] * d[i + j] * jv[i + j];
                let u = jaref[i + j] * con.friction[j - 1];
                uu = u * u + uu;
            }
            quad[3 * i + 3] = jaref[i] * mu;
            quad[3 * i + 4] = jv[i] * mu;
            quad[3 * i + 5] = uu.sqrt();
            quad[3 * i + 6] = d[i] / ((mu * mu) * (1.0 + mu * mu));
            step = dim;
        }
        quad[3 * i] = q[0] * 0.5;
        quad[3 * i + 1] = q[1];
        quad[3 * i + 2] = q[2] * 0.5;
        i += step;
    }
}

/// The friction-loss cost at `x` (a Huber function of slope `f` outside `(-rf, rf)`).
fn friction_cost(x: f64, f: f64, rf: f64, d: f64) -> f64 {
    if -rf < x && x < rf {
        0.5 * d * x * x
    } else if x <= -rf {
        f * (-0.5 * rf - x)
    } else {
        f * (-0.5 * rf + x)
    }
}

/// The zone of `x` for the friction-loss cost: 0 inside, -1 below, 1 above.
fn friction_zone(x: f64, rf: f64) -> i32 {
    if -rf < x && x < rf {
        0
    } else if x <= -rf {
        -1
    } else {
        1
    }
}

/// `cost(x) - cost(start)` of one friction-loss row, in closed form within one zone.
fn friction_cost_dif(start: f64, x: f64, f: f64, rf: f64, d: f64) -> f64 {
    match (friction_zone(start, rf), friction_zone(x, rf)) {
        (0, 0) => 0.5 * d * (x - start) * (x + start),
        (-1, -1) => f * (start - x),
        (1, 1) => f * (x - start),
        _ => friction_cost(x, f, rf, d) - friction_cost(start, f, rf, d),
    }
}

impl Line<'_> {
    /// `PrimalEval`: the shifted cost and its derivatives at `alpha`; counts the evaluation.
    pub fn eval(&self, alpha: f64, neval: &mut i32) -> Pnt {
        let (ne, nf) = (self.rows.ne, self.rows.nf);
        let mut cost = 0.0;
        let mut deriv = [0.0, 0.0];
        let mut total = [0.0, self.quad_gauss[1], self.quad_gauss[2]];
        let mut skip = 0;
        for i in 0..self.jaref.len() {
            // the other rows of an elliptic contact
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let q = &self.quad[3 * i..3 * i + 3];
            if i < ne {
                total[1] += q[1];
                total[2] += q[2];
                continue;
            }
            let (start, dir) = (self.jaref[i], self.jv[i]);
            if i < ne + nf {
                let x = start + alpha * dir;
                let (f, d) = (self.rows.frictionloss[i], self.rows.d[i]);
                let rf = self.rows.r[i] * f;
                cost += friction_cost_dif(start, x, f, rf, d);
                if -rf < x && x < rf {
                    deriv[0] += d * x * dir;
                    deriv[1] += d * dir * dir;
                } else if x <= -rf {
                    deriv[0] += -f * dir;
                } else {
                    deriv[0] += f * dir;
                }
                continue;
            }
            if self.rows.efc_type[i] == CONTACT_ELLIPTIC {
                let con = &self.rows.contacts[self.rows.efc_id[i] as usize];
                let dim = con.dim as usize;
                let (c, d0, d1) = elliptic_eval(
                    con,
                    &self.quad[3 * i..3 * i + 7],
                    &self.jaref[i..i + dim],
                    &self.jv[i..i + dim],
                    alpha,
                );
                deriv[0] += d0;
                deriv[1] += d1;
                cost += c;
                skip = dim - 1;
                continue;
            }
            let x = start + alpha * dir;
            let cost0 = if start < 0.0 { q[0] } else { 0.0 };
            if x < 0.0 {
                total[0] += q[0] - cost0;
                total[1] += q[1];
                total[2] += q[2];
            } else {
                cost -= cost0;
            }
        }
        cost += alpha * alpha * total[2] + alpha * total[1] + total[0];
        deriv[0] += 2.0 * alpha * total[2] + total[1];
        deriv[1] += 2.0 * total[2];
        // not convex: should not occur (the library warns and goes on the same way)
        if deriv[1] <= 0.0 {
            deriv[1] = MINVAL;
        }
        *neval += 1;
        Pnt { alpha, cost, deriv }
    }

    /// `updateBracket`: `p` moves to the candidate with the same derivative sign closest to 0;
    /// when it moved, `next` becomes the Newton step from it. Returns 0 (no move), 1 (negative
    /// side) or 2 (positive side).
    fn update_bracket(&self, p: &mut Pnt, candidates: &[Pnt; 3], next: &mut Pnt, neval: &mut i32) -> i32 {
        let mut flag = 0;
        for c in candidates {
            if p.deriv[0] < 0.0 && c.deriv[0] < 0.0 && p.deriv[0] < c.deriv[0] {
                *p = *c;
                flag = 1;
            } else if p.deriv[0] > 0.0 && c.deriv[0] > 0.0 && p.deriv[0] > c.deriv[0] {
                *p = *c;
                flag = 2;
            }
        }
        if flag != 0 {
            *next = self.eval(p.alpha - p.deriv[0] / p.deriv[1], neval);
        }
        flag
    }

    /// The line search: the step along `search` (whose norm is `snorm`), 0 when none improves;
    /// `tolerance` is `opt.tolerance opt.ls_tolerance`, `scale` the island's `1 / trace(M)`.
    pub fn search(&self, snorm: f64, tolerance: f64, ls_iterations: i32, scale: f64, out: &mut Outcome) -> f64 {
        *out = Outcome { neval: 0, slope: 1.0, improvement: 0.0 };
        let n = &mut out.neval;
        let gtol = tolerance * snorm / scale;
        let slopescl = scale / snorm;
        let lsit = f64::from(ls_iterations);
        let p0 = self.eval(0.0, n);
        let mut p1 = self.eval(p0.alpha - p0.deriv[0] / p0.deriv[1], n);
        let finish = |p: &Pnt, out: &mut Outcome| {
            out.slope = p.deriv[0].abs() * slopescl;
            out.improvement = -p.cost;
            p.alpha
        };
        if p1.deriv[0].abs() < gtol && (p1.alpha == 0.0 || p1.cost < 0.0) {
            return finish(&p1, out);
        }
        let dir = if p1.deriv[0] < 0.0 { 1.0 } else { -1.0 };
        // one-sided search
        let mut p2 = p0;
        while p1.deriv[0] * dir <= -gtol && f64::from(*n) < lsit {
            p2 = p1;
            let alpha = p1.alpha - p1.deriv[0] / p1.deriv[1];
            p1 = self.eval(alpha, n);
            if p1.deriv[0].abs() < gtol && p1.cost < 0.0 {
                return finish(&p1, out);
            }
        }
        if f64::from(*n) >= lsit {
            return finish(&p1, out);
        }
        // bracketed search
        let mut p2next = p1;
        let mut p1next = self.eval(p1.alpha - p1.deriv[0] / p1.deriv[1], n);
        while f64::from(*n) < lsit {
            let pmid = self.eval(0.5 * (p1.alpha + p2.alpha), n);
            let candidates = [p1next, p2next, pmid];
            let (mut bestcost, mut best) = (0.0, None);
            for (i, c) in candidates.iter().enumerate() {
                if c.deriv[0].abs() < gtol && (best.is_none() || c.cost < bestcost) {
                    bestcost = c.cost;
                    best = Some(i);
                }
            }
            if let Some(b) = best {
                return finish(&candidates[b], out);
            }
            let b1 = self.update_bracket(&mut p1, &candidates, &mut p1next, n);
            let b2 = self.update_bracket(&mut p2, &candidates, &mut p2next, n);
            if b1 == 0 && b2 == 0 {
                return finish(&pmid, out);
            }
        }
        if p1.cost <= p2.cost && p1.cost < 0.0 {
            finish(&p1, out)
        } else if p2.cost <= p1.cost && p2.cost < 0.0 {
            finish(&p2, out)
        } else {
            0.0
        }
    }
}

/// `mju_norm` of the search direction, with the library's guard: `None` when it is under
/// `mjMINVAL` (no step).
pub fn search_norm(search: &[f64]) -> Option<f64> {
    let s = norm(search);
    // a NaN norm goes on, as the library's ordered compare lets it
    if s < MINVAL {
        None
    } else {
        Some(s)
    }
}

/// An elliptic contact's zone at a cone residual: 1 top (no force), 2 bottom (quadratic), 3 on
/// the cone; `t` the scaled tangent's norm, `n` the scaled normal.
fn cone_zone(n: f64, t: f64, mu: f64) -> i32 {
    if 0.0 >= t {
        if 0.0 > n {
            2
        } else {
            1
        }
    } else if n >= mu * t {
        1
    } else if 0.0 >= mu * n + t {
        2
    } else {
        3
    }
}

/// One elliptic contact in `PrimalEval` (D21): the cost change from `alpha = 0` and the
/// derivatives at `alpha`, from the quadratic and cone data of [`prepare`] (`q`, 7 entries) and
/// the tangent recomputed at `alpha`.
fn elliptic_eval(con: &Cone, q: &[f64], jaref: &[f64], jv: &[f64], alpha: f64) -> (f64, f64, f64) {
    let (dim, mu) = (jaref.len(), con.mu);
    let (mut v, mut w) = ([0.0; 6], [0.0; 6]);
    let (mut tsqr, mut wv, mut tdelta) = (0.0, 0.0, 0.0);
    for j in 1..dim {
        let fr = con.friction[j - 1];
        let u = fr * jaref[j];
        v[j] = fr * jv[j];
        let av = alpha * v[j];
        w[j] = av + u;
        tsqr = tsqr + w[j] * w[j];
        wv = w[j] * v[j] + wv;
        tdelta = av * (u + w[j]) + tdelta;
    }
    let (u0, v0, t0, dm) = (q[3], q[4], q[5], q[6]);
    let t = tsqr.sqrt();
    let zone0 = cone_zone(u0, t0, mu);
    let n = alpha * v0 + u0;
    let zone = cone_zone(n, t, mu);
    let quadratic = || alpha * alpha * q[2] + alpha * q[1];
    let dq = || alpha * (alpha * q[2] + q[1]);
    let half = |x: f64| x * ((dm * 0.5) * x);
    let cost = match (zone0, zone) {
        (1, 1) => 0.0,
        (2, 2) => quadratic(),
        (3, 3) => {
            let rd = alpha * v0 - mu * (tdelta / (t + t0));
            let r0 = u0 - mu * t0;
            ((dm * 0.5) * rd) * ((r0 + r0) + rd)
        }
        (3, 2) => half(mu * u0 + t0) + dq(),
        (2, 3) => dq() + (mu * n + t) * ((dm * -0.5) * (mu * n + t)),
        (1, 2) => quadratic() + q[0],
        (1, 3) => half(n - mu * t),
        (3, 1) => (u0 - mu * t0) * ((dm * -0.5) * (u0 - mu * t0)),
        (2, 1) => -q[0],
        _ => 0.0,
    };
    let (mut d0, mut d1) = (0.0, 0.0);
    if 0.0 >= tsqr {
        if 0.0 > n {
            d0 = 2.0 * alpha * q[2] + q[1];
            d1 = q[2] + q[2];
        }
    } else if n >= mu * t {
        // top zone: nothing
    } else if 0.0 >= mu * n + t {
        d0 = 2.0 * alpha * q[2] + q[1];
        d1 = q[2] + q[2];
    } else {
        // the tangent's unit vector at alpha, and |V|^2 - (tangent . V)^2 as a sum of squares
        let mut e = [0.0; 6];
        for j in 1..dim {
            e[j] = w[j] / t;
        }
        let mut perp = 0.0;
        for j in 1..dim {
            for k in j + 1..dim {
                let c = e[j] * v[k] + (-v[j]) * e[k];
                perp = c * c + perp;
            }
        }
        let g = v0 - mu * (wv / t);
        d0 = (dm * (n - mu * t)) * g;
        d1 = dm * (g * g - (n / t - mu) * (perp * mu));
    }
    (cost, d0, d1)
}
