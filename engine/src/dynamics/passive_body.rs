//! The body-level terms of `mj_passive` in MuJoCo 4.0.0: gravity compensation into
//! `qfrc_gravcomp` and fluid forces into `qfrc_fluid`, each a Cartesian force and torque per body
//! (or per geom) applied through `mj_applyFT` (`docs/measurements.md` D73, D74).
// `x = y + x` keeps the library's operand order.
#![allow(clippy::assign_op_pattern)]

use super::apply_ft::{apply_ft, ApplyFtScratch};
use super::constraint::jacobian::{JacModel, JacState};
use super::fluid;
use crate::math::MINVAL;

/// The model arrays and options the body-level terms read (MuJoCo's names).
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyForceModel<'a> {
    /// `opt.gravity`.
    pub gravity: [f64; 3],
    /// `opt.wind`.
    pub wind: [f64; 3],
    /// `opt.density`.
    pub density: f64,
    /// `opt.viscosity`.
    pub viscosity: f64,
    /// `opt.disableflags` has `mjDSBL_GRAVITY`.
    pub disable_gravity: bool,
    /// `flg_gravcomp` as a byte (the library compares it with 1).
    pub flg_gravcomp: u8,
    /// The Jacobians are sparse (`mj_isSparse`).
    pub sparse: bool,
    /// Mass of each body (`nbody`).
    pub body_mass: &'a [f64],
    /// Gravity compensation of each body, in units of its weight (`nbody`).
    pub body_gravcomp: &'a [f64],
    /// Principal inertia of each body (`3 nbody`).
    pub body_inertia: &'a [f64],
    /// Number of geoms of each body (`nbody`).
    pub body_geomnum: &'a [i32],
    /// First geom of each body (`nbody`).
    pub body_geomadr: &'a [i32],
    /// Type of each geom (`ngeom`).
    pub geom_type: &'a [i32],
    /// Size of each geom (`3 ngeom`).
    pub geom_size: &'a [f64],
    /// Ellipsoid fluid coefficients of each geom (`12 ngeom`, `mjNFLUID`).
    pub geom_fluid: &'a [f64],
    /// Whether a joint's gravity compensation goes through its actuators instead (`njnt`).
    pub jnt_actgravcomp: &'a [u8],
    /// The dof structure the Jacobians walk.
    pub jac: JacModel<'a>,
}

/// The state the body-level terms read.
#[derive(Clone, Copy, Debug, Default)]
pub struct BodyForceState<'a> {
    /// Com-based velocity of each body (`6 nbody`).
    pub cvel: &'a [f64],
    /// Centre of mass of each body (`3 nbody`).
    pub xipos: &'a [f64],
    /// Inertial frame of each body (`9 nbody`).
    pub ximat: &'a [f64],
    /// Position of each geom (`3 ngeom`).
    pub geom_xpos: &'a [f64],
    /// Orientation of each geom (`9 ngeom`).
    pub geom_xmat: &'a [f64],
    /// `cdof` and `subtree_com` for the Jacobians.
    pub jac: JacState<'a>,
}

/// Three entries of `v` from `i`.
pub(crate) fn v3(v: &[f64], i: usize) -> [f64; 3] {
    [v[i], v[i + 1], v[i + 2]]
}

/// Whether `mj_passive` runs gravity compensation: `flg_gravcomp == 1`, gravity on and not the
/// zero vector (its squared length compared, NaN counts as non-zero).
pub fn gravcomp_on(m: &BodyForceModel) -> bool {
    let g = m.gravity;
    m.flg_gravcomp == 1 && !m.disable_gravity && (g[2] * g[2] + (g[0] * g[0] + g[1] * g[1])) != 0.0
}

/// Whether `mj_passive` runs the fluid models: `viscosity` or `density` not `== 0` (NaN runs).
pub fn fluid_on(m: &BodyForceModel) -> bool {
    !(m.viscosity == 0.0 && m.density == 0.0)
}

/// Gravity compensation into `qfrc` (`nv`, zeroed): `-gravcomp mass gravity` at each body's
/// centre of mass from body 1 on, for bodies whose `body_gravcomp` is not `== 0`. Returns
/// whether any body had one (the library then adds `qfrc_gravcomp` to `qfrc_passive`).
pub fn gravcomp(m: &BodyForceModel, s: &BodyForceState, scratch: &mut ApplyFtScratch, qfrc: &mut [f64]) -> bool {
    if !gravcomp_on(m) {
        return false;
    }
    let mut any = false;
    for b in 1..m.body_mass.len() {
        let gc = m.body_gravcomp[b];
        if gc == 0.0 {
            continue;
        }
        any = true;
        let k = -gc * m.body_mass[b];
        let force = [m.gravity[0] * k, m.gravity[1] * k, m.gravity[2] * k];
        let point = v3(s.xipos, 3 * b);
        apply_ft(&m.jac, &s.jac, m.sparse, &force, &[0.0; 3], &point, b, scratch, qfrc);
    }
    any
}

/// Whether `mj_passive` calls `mj_applyFT` at all: gravity compensation on a body other than
/// the world, or the fluid models on a body with mass.
pub fn applies_ft(m: &BodyForceModel) -> bool {
    let gc = gravcomp_on(m) && m.body_gravcomp.iter().skip(1).any(|&g| g != 0.0);
    gc || (fluid_on(m) && m.body_mass.iter().any(|&x| x >= MINVAL || x.is_nan()))
}

/// Whether a body takes the ellipsoid model: one of its geoms has `geom_fluid[0] > 0`.
pub fn uses_ellipsoid(m: &BodyForceModel, b: usize) -> bool {
    let adr = m.body_geomadr[b].max(0) as usize;
    (adr..adr + m.body_geomnum[b].max(0) as usize).any(|g| m.geom_fluid[12 * g] > 0.0)
}

/// Fluid forces into `qfrc` (`nv`, zeroed) for every body with `mass >= mjMINVAL` (NaN
/// included): the ellipsoid model for a body with an ellipsoid geom, the inertia-box model
/// otherwise. Returns whether the fluid models ran.
pub fn fluid_forces(m: &BodyForceModel, s: &BodyForceState, scratch: &mut ApplyFtScratch, qfrc: &mut [f64]) -> bool {
    if !fluid_on(m) {
        return false;
    }
    for b in 0..m.body_mass.len() {
        if MINVAL > m.body_mass[b] {
            continue;
        }
        if uses_ellipsoid(m, b) {
            fluid::ellipsoid(m, s, b, scratch, qfrc);
        } else {
            fluid::inertia_box(m, s, b, scratch, qfrc);
        }
    }
    true
}
