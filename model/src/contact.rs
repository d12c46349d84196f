//! How two geoms' contact settings become one contact's (MuJoCo's `mj_contactParam` for two
//! geoms). The engine mixes every geom-pair contact with it; the compiler uses it for a
//! `pair` whose friction, solref or solimp is NaN, which MuJoCo 4.0.0 treats as unset and
//! fills from the two geoms (measured: `docs/measurements.md`, "Pairs with NaN settings").
//!
//! Rules (XMLreference "contact parameters", checked against MuJoCo C):
//! - adhesion: the sum of the two geoms' (the higher-priority geom's alone if priorities
//!   differ);
//! - different priority: condim, solref, solimp, friction of the higher-priority geom;
//! - equal priority: condim and friction the element-wise max; solref and solimp mixed with
//!   weight `mix = solmix1 / (solmix1 + solmix2)` on geom 1 (0.5 if both solmix are below
//!   `mjMINVAL`, 0 or 1 if only one is), except that solref is the element-wise min when
//!   either solref is in direct form (first entry not positive).

use crate::compile::math::MINVAL;

/// The [`GeomContact`] of geom `g` in `m`, any model type with MuJoCo's `geom_*` arrays (the
/// compiler's `Model`, the engine's collision model).
#[macro_export]
macro_rules! geom_contact {
    ($m:expr, $g:expr) => {
        $crate::contact::GeomContact {
            priority: $m.geom_priority[$g],
            condim: $m.geom_condim[$g],
            solmix: $m.geom_solmix[$g],
            solref: $m.geom_solref[$g],
            solimp: $m.geom_solimp[$g],
            friction: $m.geom_friction[$g],
            adhesion: $m.geom_adhesion[$g],
        }
    };
}

/// One geom's contact settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeomContact {
    /// `geom_priority`.
    pub priority: i32,
    /// `geom_condim`.
    pub condim: i32,
    /// `geom_solmix`.
    pub solmix: f64,
    /// `geom_solref`.
    pub solref: [f64; 2],
    /// `geom_solimp`.
    pub solimp: [f64; 5],
    /// `geom_friction`: sliding, torsional, rolling.
    pub friction: [f64; 3],
    /// `geom_adhesion`.
    pub adhesion: f64,
}

/// The settings of a contact between two geoms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MixedContact {
    /// Contact dimensionality.
    pub condim: i32,
    /// Solver reference (normal).
    pub solref: [f64; 2],
    /// Solver impedance.
    pub solimp: [f64; 5],
    /// Friction: tangent 1, tangent 2, spin, roll 1, roll 2.
    pub friction: [f64; 5],
    /// Adhesive force.
    pub adhesion: f64,
}

/// The contact settings of geoms `a` (geom 1) and `b` (geom 2).
pub fn mix_geoms(a: &GeomContact, b: &GeomContact) -> MixedContact {
    let mut out = MixedContact { adhesion: a.adhesion + b.adhesion, ..Default::default() };
    let fri: [f64; 3];
    if a.priority != b.priority {
        let w = if a.priority > b.priority { a } else { b };
        out.condim = w.condim;
        out.solref = w.solref;
        out.solimp = w.solimp;
        fri = w.friction;
        out.adhesion = w.adhesion;
    } else {
        out.condim = a.condim.max(b.condim);
        let (sm1, sm2) = (a.solmix, b.solmix);
        let mix = if sm1 >= MINVAL && sm2 >= MINVAL {
            sm1 / (sm1 + sm2)
        } else if sm1 < MINVAL && sm2 < MINVAL {
            0.5
        } else if sm1 < MINVAL {
            0.0
        } else {
            1.0
        };
        let (r1, r2) = (&a.solref, &b.solref);
        if r1[0] > 0.0 && r2[0] > 0.0 {
            // standard (timeconst, dampratio): weighted
            for k in 0..2 {
                out.solref[k] = mix * r1[k] + (1.0 - mix) * r2[k];
            }
        } else {
            // direct (-stiffness, -damping): the smaller, i.e. the stiffer
            for k in 0..2 {
                out.solref[k] = if r1[k] <= r2[k] { r1[k] } else { r2[k] };
            }
        }
        for k in 0..5 {
            out.solimp[k] = mix * a.solimp[k] + (1.0 - mix) * b.solimp[k];
        }
        let max = |x: f64, y: f64| if x >= y { x } else { y };
        let (f1, f2) = (&a.friction, &b.friction);
        fri = [max(f1[0], f2[0]), max(f1[1], f2[1]), max(f1[2], f2[2])];
    }
    out.friction = [fri[0], fri[0], fri[1], fri[2], fri[2]];
    out
}
