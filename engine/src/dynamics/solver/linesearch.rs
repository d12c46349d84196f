//! The line search of MuJoCo 4.0.0's primal solvers (inline in `mj_solPrimal`, with the local
//! `PrimalEval`; `docs/measurements.md` D20): the cost along the search direction as a
//! function of the step `alpha`, shifted so that it is 0 at `alpha = 0`, with its first two
//! derivatives, and the 1-D Newton search with bracketing that picks the step. Pyramidal cones
//! only (elliptic contacts are the library's).
// `x = y + x` keeps the library's operand order.
#![allow(clippy::assign_op_pattern)]

use super::products::norm;
use super::update::CONTACT_ELLIPTIC;
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
    /// `ne`, `nf`: equality and friction-loss rows (first, in that order).
    pub ne: usize,
    /// See `ne`.
    pub nf: usize,
    /// `Jaref` and `Jv` (`J search`).
    pub jaref: &'a [f64],
    /// See `jaref`.
    pub jv: &'a [f64],
    /// `efc_D`, `efc_R`, `efc_frictionloss`, `efc_type`.
    pub d: &'a [f64],
    /// See `d`.
    pub r: &'a [f64],
    /// See `d`.
    pub frictionloss: &'a [f64],
    /// See `d`.
    pub efc_type: &'a [i32],
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
/// quadratic `(0.5 D Jaref^2, D Jaref Jv, 0.5 D Jv^2)` (`quad`, 3 per row).
pub fn prepare(
    quad: &mut [f64],
    gauss: &mut [f64; 3],
    search: &[f64],
    ma: &[f64],
    mv: &[f64],
    qfrc_smooth: &[f64],
    jaref: &[f64],
    jv: &[f64],
    d: &[f64],
) {
    gauss[1] = dot(search, ma) - dot(qfrc_smooth, search);
    gauss[2] = 0.5 * dot(search, mv);
    for i in 0..jaref.len() {
        let dj0 = d[i] * jaref[i];
        let q = &mut quad[3 * i..3 * i + 3];
        q[0] = jaref[i] * dj0;
        q[1] = jv[i] * dj0;
        q[2] = jv[i] * d[i] * jv[i];
        q[0] *= 0.5;
        q[2] *= 0.5;
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
        let (ne, nf) = (self.ne, self.nf);
        let mut cost = 0.0;
        let mut deriv = [0.0, 0.0];
        let mut total = [0.0, self.quad_gauss[1], self.quad_gauss[2]];
        for i in 0..self.jaref.len() {
            let q = &self.quad[3 * i..3 * i + 3];
            if i < ne {
                total[1] += q[1];
                total[2] += q[2];
                continue;
            }
            let (start, dir) = (self.jaref[i], self.jv[i]);
            if i < ne + nf {
                let x = start + alpha * dir;
                let (f, d) = (self.frictionloss[i], self.d[i]);
                let rf = self.r[i] * f;
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
            debug_assert_ne!(self.efc_type[i], CONTACT_ELLIPTIC);
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
