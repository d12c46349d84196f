//! `mj_makeConstraint` for the rigid subset: dof friction loss, joint limits and contacts, the
//! Jacobian dense or sparse, and the impedance (`docs/measurements.md` D10).

pub mod contact;
mod rows;

pub use rows::{cnstr, count_rows, EfcRows, Rows};

/// The fields of one of MuJoCo's contacts (`mjContact`) that the constraint stages read and
/// write (the root crate copies them in and `efc_address`/`exclude` back out).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contact {
    /// Signed distance (negative: penetration).
    pub dist: f64,
    /// Contact point, midway between the surfaces.
    pub pos: [f64; 3],
    /// Contact frame: normal first, then the two tangents (rows).
    pub frame: [f64; 9],
    /// Distance below which the contact is included in the solver.
    pub includemargin: f64,
    /// Friction: tangent 1, tangent 2, spin, roll 1, roll 2.
    pub friction: [f64; 5],
    /// Normal reference (`solref`).
    pub solref: [f64; 2],
    /// Friction reference (`solreffriction`).
    pub solreffriction: [f64; 2],
    /// Impedance (`solimp`).
    pub solimp: [f64; 5],
    /// Friction of the regularised cone.
    pub mu: f64,
    /// Contact space dimensionality: 1, 3, 4 or 6.
    pub dim: i32,
    /// The two geoms (-1 for a flex side).
    pub geom: [i32; 2],
    /// The two flexes (-1 for a geom side).
    pub flex: [i32; 2],
    /// The two flex elements (-1 for none).
    pub elem: [i32; 2],
    /// The two flex vertices (-1 for none).
    pub vert: [i32; 2],
    /// 0 include, 1 in the gap, 2 fused, 3 no dofs (set here).
    pub exclude: i32,
    /// First row of the contact in `efc_*`, -1 for none (set here).
    pub efc_address: i32,
}
