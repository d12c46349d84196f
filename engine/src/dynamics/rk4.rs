//! `mj_RungeKutta`'s own arithmetic: the classic four-stage tableau, the stage states, the
//! Runge-Kutta-Munthe-Kaas correction of ball and free joints' angular velocities that MuJoCo
//! 4.0.0 added, and the weighted sums (`docs/measurements.md` K9, K10). The forward passes
//! between the stages are the caller's (MuJoCo's `mj_forwardSkip`), as is the final advance
//! ([`super::integrate::advance_with`]).
//!
//! Per stage `i` of 1 to 3: `dX = sum_j A(i, j) (qvel_j, qacc_j, act_dot_j)`; the stage state is
//! `X0` with the positions moved by `dX`'s velocities over `h` and the velocities and
//! activations by `h` times the rest; after the forward pass has read the stage state, the
//! ball and free joints' angular velocities of the stored state go through the inverse of the
//! exponential map's derivative at the rotation `h dX` so that the final sum of velocities, in
//! the Lie algebra, is fourth-order accurate.

use super::integrate::{integrate_pos, IntegratorModel};
use super::jnt::{BALL, FREE};

/// The tableau's `A` (3 x 3, row `i - 1` for stage `i`).
pub const RK4_A: [f64; 9] = [0.5, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0];
/// The tableau's weights `B`.
pub const RK4_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];

/// `pi^2`: a rotation vector longer than `pi` is first wrapped into `[-pi, pi]` (K10).
const PI_SQUARED: f64 = 9.869_604_401_089_358;
/// `2 pi`.
const TWO_PI: f64 = std::f64::consts::TAU;
/// Below this squared angle (`1.75^2`) the correction's coefficient is a series (K10).
const SERIES_LIMIT: f64 = 3.0625;
/// The series' coefficients, highest power first (read from the library's constants, K10).
const SERIES: [f64; 9] = [
    1.230_313_397_310_169e-14,
    3.161_551_550_077_822e-13,
    1.345_548_595_105_788_8e-11,
    5.282_849_430_384_459e-10,
    2.087_690_064_203_914_2e-8,
    8.267_194_907_152_073e-7,
    3.306_878_309_443_32e-5,
    0.001_388_888_888_885_975_5,
    0.083_333_333_333_333_38,
];

/// The times of stages 1 to 3: `time + c h` with `c` the sum of each row of `A` (K9).
pub fn stage_times(time: f64, h: f64) -> [f64; 3] {
    let mut t = [0.0; 3];
    for (i, ti) in t.iter_mut().enumerate() {
        let c = RK4_A[3 * i..3 * i + i + 1].iter().fold(0.0, |s, &a| s + a);
        *ti = time + c * h;
    }
    t
}

/// `dx = sum_j w_j (x_j's velocities, f_j)`: `dx` has `2 nv + na` entries, each `x_j` is a
/// state `(qpos, qvel, act)` of `nq + nv + na`, each `f_j` `(qacc, act_dot)` of `nv + na`.
/// Every weight is applied, zeros included (`0 inf` is NaN in the library's sum too).
pub fn combine(weights: &[f64], x: &[&[f64]], f: &[&[f64]], (nq, nv): (usize, usize), dx: &mut [f64]) {
    dx.fill(0.0);
    for ((&w, xj), fj) in weights.iter().zip(x).zip(f) {
        for (d, &v) in dx[..nv].iter_mut().zip(&xj[nq..nq + nv]) {
            *d += w * v;
        }
        for (d, &a) in dx[nv..].iter_mut().zip(fj.iter()) {
            *d += w * a;
        }
    }
}

/// Stage state `xi = x0 '+' h dx`: positions integrated with `dx`'s velocities (`mj_integratePos`,
/// K7), velocities and activations `x0 + h dx`.
pub fn stage_state(im: &IntegratorModel, (nq, nv): (usize, usize), x0: &[f64], dx: &[f64], h: f64, xi: &mut [f64]) {
    xi.copy_from_slice(x0);
    integrate_pos(im, &mut xi[..nq], &dx[..nv], h);
    for (x, &d) in xi[nq..].iter_mut().zip(&dx[nv..]) {
        *x += h * d;
    }
}

/// The Munthe-Kaas correction (K10): for each ball joint, and the rotation of each free joint,
/// the stored angular velocity `w` becomes `dexp^-1(theta) w = w + a / 2 + c theta x a` with
/// `theta = h dx` (its angular entries), `a = theta x w` and `c` the coefficient of K10.
pub fn correct(im: &IntegratorModel, qvel: &mut [f64], dx: &[f64], h: f64) {
    for (&t, &adr) in im.jnt_type.iter().zip(im.jnt_dofadr) {
        let adr = match t {
            FREE => adr as usize + 3,
            BALL => adr as usize,
            _ => continue,
        };
        let mut th = [h * dx[adr], h * dx[adr + 1], h * dx[adr + 2]];
        let mut n2 = th[2] * th[2] + (th[0] * th[0] + th[1] * th[1]);
        if n2 > PI_SQUARED {
            // the same rotation with an angle in [-pi, pi]
            let n = n2.sqrt();
            let turns = (0.5 + n / TWO_PI).floor();
            let scale = (turns * -TWO_PI + n) / n;
            th = [th[0] * scale, th[1] * scale, th[2] * scale];
            n2 = th[2] * th[2] + (th[0] * th[0] + th[1] * th[1]);
        }
        let c = if SERIES_LIMIT > n2 {
            series(n2)
        } else {
            let half = 0.5 * n2.sqrt();
            (1.0 - half / half.tan()) / n2
        };
        let w = [qvel[adr], qvel[adr + 1], qvel[adr + 2]];
        let a = [th[1] * w[2] - th[2] * w[1], th[2] * w[0] - th[0] * w[2], th[0] * w[1] - th[1] * w[0]];
        let b = [th[1] * a[2] - th[2] * a[1], th[2] * a[0] - th[0] * a[2], th[0] * a[1] - th[1] * a[0]];
        for k in 0..3 {
            qvel[adr + k] = (w[k] + 0.5 * a[k]) + c * b[k];
        }
    }
}

/// The correction's coefficient for small angles: `SERIES` in Horner's order in `n2`.
fn series(n2: f64) -> f64 {
    SERIES[2..].iter().fold(SERIES[0] * n2 + SERIES[1], |acc, &k| acc * n2 + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_library_bits() {
        // the doubles at 0x9fb50 and 0x9fe18 of libmujoco.so.4.0.0 (K10)
        assert_eq!(PI_SQUARED.to_bits(), 0x4023_bd3c_c9be_45de);
        assert_eq!(TWO_PI.to_bits(), 0x4019_21fb_5444_2d18);
        assert_eq!(stage_times(1.0, 0.25), [1.125, 1.125, 1.25]);
    }

    #[test]
    fn the_correction_is_the_inverse_exponential_derivative_hand() {
        let im = IntegratorModel { jnt_type: &[BALL, 3], jnt_dofadr: &[0, 3], ..IntegratorModel::default() };
        // no rotation: nothing changes (hinges never do)
        let mut w = [1.0, -2.0, 3.0, 7.0];
        correct(&im, &mut w, &[0.0; 4], 0.1);
        assert_eq!(w, [1.0, -2.0, 3.0, 7.0]);
        // theta = (0, 0, t) about z, w = (1, 0, 0): a = theta x w = (0, t, 0), b = theta x a =
        // (-t^2, 0, 0); dexp^-1 w = (1 - c t^2, t / 2, 0) with c = (1 - (t/2) cot(t/2)) / t^2
        for t in [0.5, 2.0, 3.0] {
            let mut w = [1.0, 0.0, 0.0, 7.0];
            correct(&im, &mut w, &[0.0, 0.0, t, 0.0], 1.0);
            let c = (1.0 - (t / 2.0) / (t / 2.0).tan()) / (t * t);
            assert!((w[0] - (1.0 - c * t * t)).abs() < 1e-14 && w[1] == t / 2.0 && w[2] == 0.0, "{t}: {w:?}");
            assert_eq!(w[3], 7.0);
        }
        // a rotation of 2 pi + 1 about z is wrapped to 1
        let (mut a, mut b) = ([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]);
        correct(&im, &mut a, &[0.0, 0.0, TWO_PI + 1.0, 0.0], 1.0);
        correct(&im, &mut b, &[0.0, 0.0, 1.0, 0.0], 1.0);
        assert!((a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12, "{a:?} {b:?}");
    }
}
