//! A finished contact: geometry from the narrowphase plus the mixed parameters, field for field
//! what MuJoCo stores in `mjContact` (so it can be handed to MuJoCo C unchanged).

/// One contact, as MuJoCo's `mjContact` holds it (solver-internal fields excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contact {
    /// Signed distance (negative when penetrating).
    pub dist: f64,
    /// Contact position (midpoint between the surfaces).
    pub pos: [f64; 3],
    /// Contact frame, row-major; row 0 is the normal from `geom[0]` to `geom[1]`.
    pub frame: [f64; 9],
    /// Margin minus gap: the distance below which the constraint is active.
    pub includemargin: f64,
    /// Tangent 1, tangent 2, spin, roll 1, roll 2.
    pub friction: [f64; 5],
    /// Normal solver reference.
    pub solref: [f64; 2],
    /// Friction solver reference.
    pub solreffriction: [f64; 2],
    /// Solver impedance.
    pub solimp: [f64; 5],
    /// Adhesive force along the normal.
    pub adhesion: f64,
    /// Surface velocity (geom 1 relative to geom 0): tangent 1, tangent 2, spin.
    pub surfacevel: [f64; 3],
    /// Contact dimensionality: 1, 3, 4 or 6.
    pub dim: i32,
    /// The two geom ids.
    pub geom: [i32; 2],
    /// 0: include, 1: in the gap (not given to the solver).
    pub exclude: i32,
}
