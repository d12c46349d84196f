//! Contact parameters: how two geoms' (or an explicit pair's) settings become one contact's,
//! as MuJoCo's `mj_contactParam` and `mj_setContact` do it.
//!
//! Rules (XMLreference "contact parameters", checked against the C source):
//! - two geoms: `specula_model::contact::mix_geoms` (priority, max, solmix-weighted mix);
//! - explicit pairs use their own values; their solreffriction only when not all zero;
//! - `override`: solref, solreffriction, solimp, friction and margin come from the options;
//! - friction entries are raised to `mjMINMU`; includemargin is the margin (not margin - gap);
//!   a contact at or beyond it is excluded (in the gap) unless adhesive, and an adhesive one
//!   there keeps only its normal row (dim 1);
//! - surface velocity: geom 2's minus geom 1's material velocity at the contact point,
//!   expressed in the contact frame (tangent 1, tangent 2, spin).

use super::model::{CollisionModel, ENBL_OVERRIDE};
use crate::contact::Contact;
use crate::math::{cross, mul_mat_vec3, sub3};
use specula_model::contact::mix_geoms;

/// MuJoCo's `mjMINMU`: the smallest friction coefficient a contact gets.
pub const MINMU: f64 = 1e-5;

/// The mixed parameters of one geom pair, before the override and clamping of `mj_setContact`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactParams {
    /// Contact dimensionality.
    pub condim: i32,
    /// Solver reference (normal).
    pub solref: [f64; 2],
    /// Solver reference for friction rows (zeros: same as `solref`).
    pub solreffriction: [f64; 2],
    /// Solver impedance.
    pub solimp: [f64; 5],
    /// Friction: tangent 1, tangent 2, spin, roll 1, roll 2.
    pub friction: [f64; 5],
    /// Adhesive force.
    pub adhesion: f64,
}

/// Mixed parameters of geoms `g1`, `g2` (`mj_contactParam` for two geoms; the rule lives in
/// the model crate, which also fills a pair's unset settings with it).
#[inline]
pub fn mix_geom_params(m: &CollisionModel, g1: usize, g2: usize) -> ContactParams {
    let x = mix_geoms(&specula_model::geom_contact!(m, g1), &specula_model::geom_contact!(m, g2));
    ContactParams {
        condim: x.condim,
        solref: x.solref,
        solreffriction: [0.0; 2],
        solimp: x.solimp,
        friction: x.friction,
        adhesion: x.adhesion,
    }
}

/// Parameters of explicit pair `p`, taken as given.
#[inline]
pub fn pair_params(m: &CollisionModel, p: usize) -> ContactParams {
    let srf = m.pair_solreffriction[p];
    ContactParams {
        condim: m.pair_dim[p],
        solref: m.pair_solref[p],
        solreffriction: if srf[0] != 0.0 || srf[1] != 0.0 { srf } else { [0.0; 2] },
        solimp: m.pair_solimp[p],
        friction: m.pair_friction[p],
        adhesion: m.pair_adhesion[p],
    }
}

/// Fill the parameter fields of `con` (geometry already set) as `mj_setContact` does: override,
/// friction floor, includemargin, exclusion in the gap and the adhesive reduction to dim 1.
#[inline]
pub fn set_contact(m: &CollisionModel, con: &mut Contact, includemargin: f64, p: &ContactParams) {
    let over = m.opt.enabled(ENBL_OVERRIDE);
    con.dim = p.condim;
    con.includemargin = includemargin;
    con.adhesion = p.adhesion;
    con.solref = if over { m.opt.o_solref } else { p.solref };
    con.solreffriction = if over { m.opt.o_solref } else { p.solreffriction };
    con.solimp = if over { m.opt.o_solimp } else { p.solimp };
    let src = if over { m.opt.o_friction } else { p.friction };
    for (f, &v) in con.friction.iter_mut().zip(&src) {
        *f = if MINMU >= v { MINMU } else { v };
    }
    let in_gap = con.dist >= includemargin;
    con.exclude = i32::from(in_gap && p.adhesion == 0.0);
    if p.adhesion != 0.0 && in_gap {
        con.dim = 1;
    }
}

/// Relative surface velocity of `con` (`geom[1]` minus `geom[0]`) in its contact frame:
/// tangent 1, tangent 2, spin. Zero when no geom of the pair has a surface velocity.
pub fn surface_velocity(m: &CollisionModel, xpos: &[[f64; 3]], xmat: &[[f64; 9]], con: &Contact) -> [f64; 3] {
    let mut svel = [0.0; 3];
    let mut sang = [0.0; 3];
    let mut active = false;
    for side in 0..2 {
        let g = con.geom[side] as usize;
        let sv = &m.geom_surfacevel[g];
        if sv.iter().all(|&v| v == 0.0) {
            continue;
        }
        active = true;
        // material velocity at the contact point, world frame: R v + (R w) x (p - x)
        let mat = &xmat[g];
        let mut lin = mul_mat_vec3(mat, &[sv[0], sv[1], sv[2]]);
        let ang = mul_mat_vec3(mat, &[sv[3], sv[4], sv[5]]);
        let wxr = cross(&ang, &sub3(&con.pos, &xpos[g]));
        lin = [lin[0] + wxr[0], lin[1] + wxr[1], lin[2] + wxr[2]];
        let sgn = if side == 1 { 1.0 } else { -1.0 };
        for k in 0..3 {
            svel[k] += lin[k] * sgn;
            sang[k] += ang[k] * sgn;
        }
    }
    if !active {
        return [0.0; 3];
    }
    let lin = mul_mat_vec3(&con.frame, &svel);
    let ang = mul_mat_vec3(&con.frame, &sang);
    [lin[1], lin[2], ang[0]]
}
