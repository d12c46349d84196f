//! `geom_fluid`: coefficients of the ellipsoid fluid model (`fluidshape="ellipsoid"`).
//!
//! The layout is MuJoCo's: [enabled, blunt drag, slender drag, angular drag, Kutta lift,
//! Magnus lift, virtual mass (3), virtual inertia (3)]. The added-mass factors κ are integrals
//! over [0, ∞) evaluated with a 15-point Gauss–Kronrod rule after the substitution
//! l = x³/(1−x)², using MuJoCo's tabulated nodes and weights so that the sums match.

use super::math::{EPS, PI};
use crate::types::GeomType;

/// Kronrod weights.
const W: [f64; 15] = [
    0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236, 0.09517529, 0.10221647, 0.10474107, 0.10221647,
    0.09517529, 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766,
];
/// Nodes l(x).
const L: [f64; 15] = [
    7.865151709349917e-08,
    1.7347976913907274e-05,
    0.0003548008144506193,
    0.002846636252924549,
    0.014094260903596077,
    0.053063261727396636,
    0.17041978741317773,
    0.5,
    1.4036301548686991,
    3.9353484827022642,
    11.644841677041734,
    39.53187807410903,
    177.5711362220801,
    1429.4772912937397,
    54087.416549217705,
];
/// dl/dx at the nodes.
const D: [f64; 15] = [
    5.538677720489877e-05,
    0.002080868285293228,
    0.016514126520723166,
    0.07261900344370877,
    0.23985243401862602,
    0.6868318249020725,
    1.8551129519182894,
    5.0,
    14.060031152313941,
    43.28941239611009,
    156.58546376397112,
    747.9826085305024,
    5827.4042950027115,
    116754.0197944512,
    25482945.327264845,
];

/// κ for semi-axes (dx, dy, dz): ∫ dx dy dz / sqrt((dx²+l)³ (dy²+l) (dz²+l)) dl, with l scaled
/// by (dx³ dy dz)^(2/5) for conditioning.
fn kappa(dx: f64, dy: f64, dz: f64) -> f64 {
    let ix = 1.0 / (dx * dx);
    let iy = 1.0 / (dy * dy);
    let iz = 1.0 / (dz * dz);
    let scale = (dx * dx * dx * dy * dz).powf(0.4);
    let mut k = 0.0;
    for i in 0..15 {
        let lambda = scale * L[i];
        let denom = (1.0 + lambda * ix) * ((1.0 + lambda * ix) * (1.0 + lambda * iy) * (1.0 + lambda * iz)).sqrt();
        k += scale * D[i] / denom * W[i];
    }
    k * ix
}

/// The 12 `geom_fluid` values of a geom (all zero when the ellipsoid model is off).
pub fn geom_fluid(enabled: bool, t: GeomType, size: &[f64; 3], coef: &[f64; 5]) -> [f64; 12] {
    if !enabled {
        return [0.0; 12];
    }
    let (dx, dy, dz) = match t {
        GeomType::Sphere => (size[0], size[0], size[0]),
        GeomType::Capsule => (size[0], size[0], size[1] + size[0]),
        GeomType::Cylinder => (size[0], size[0], size[1]),
        _ => (size[0], size[1], size[2]),
    };
    let volume = 4.0 / 3.0 * PI * dx * dy * dz;
    let kx = kappa(dx, dy, dz);
    let ky = kappa(dy, dz, dx);
    let kz = kappa(dz, dx, dy);
    let sq = |v: f64| v * v;
    let ixf = sq(dy * dy - dz * dz) * (kz - ky).abs()
        / EPS.max((2.0 * (dy * dy - dz * dz) + (dy * dy + dz * dz) * (ky - kz)).abs());
    let iyf = sq(dz * dz - dx * dx) * (kx - kz).abs()
        / EPS.max((2.0 * (dz * dz - dx * dx) + (dz * dz + dx * dx) * (kz - kx)).abs());
    let izf = sq(dx * dx - dy * dy) * (ky - kx).abs()
        / EPS.max((2.0 * (dx * dx - dy * dy) + (dx * dx + dy * dy) * (kx - ky)).abs());
    [
        1.0,
        coef[0],
        coef[1],
        coef[2],
        coef[3],
        coef[4],
        volume * kx / EPS.max(2.0 - kx),
        volume * ky / EPS.max(2.0 - ky),
        volume * kz / EPS.max(2.0 - kz),
        volume * ixf / 5.0,
        volume * iyf / 5.0,
        volume * izf / 5.0,
    ]
}
