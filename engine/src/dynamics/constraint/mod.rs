//! `mj_makeConstraint` for the rigid subset: connect, weld and joint equalities, dof friction
//! loss, joint limits and contacts, the Jacobian dense or sparse, and the impedance
//! (`docs/measurements.md` D10, D50).
//!
//! The library counts the rows first, allocates the `efc_*` arrays in `d->arena` for that
//! count, then appends the rows and derives their parameters. The arena is the caller's, so
//! the stage comes in steps the root crate calls in that order: [`equality::count`],
//! [`limits::count_friction`],
//! [`limits::count_limits`] and [`contact::count`]; then [`limits::instantiate_friction`],
//! [`limits::instantiate_limits`] and [`contact::instantiate`] through one [`EfcRows`] (after
//! [`equality::instantiate`]); then
//! [`super_sparse`] (sparse Jacobian), [`impedance::diag_approx`] and
//! [`impedance::make_impedance`].

pub mod contact;
pub mod equality;
pub mod equality_jdot;
pub mod impedance;
pub mod jacobian;
pub mod limits;
mod rows;

pub use rows::{cnstr, count_rows, EfcRows, Rows};

/// The model arrays and options the friction, limit and impedance steps read (MuJoCo's names;
/// `nv` given, `njnt` from `jnt_type`; `mjNREF` = 2 and `mjNIMP` = 5 values per object).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstraintModel<'a> {
    /// Number of degrees of freedom.
    pub nv: usize,
    /// `opt.disableflags` has `mjDSBL_FRICTIONLOSS`.
    pub disable_frictionloss: bool,
    /// `opt.disableflags` has `mjDSBL_LIMIT`.
    pub disable_limit: bool,
    /// `opt.disableflags` has `mjDSBL_REFSAFE` (no `solref[0] >= 2 timestep` clamp).
    pub disable_refsafe: bool,
    /// `opt.integrator` is `mjINT_DISCRETE` (no clamp either).
    pub discrete: bool,
    /// `opt.timestep`.
    pub timestep: f64,
    /// `opt.impratio`: friction-to-normal impedance ratio of frictional contacts.
    pub impratio: f64,
    /// Friction loss of each dof (`nv`).
    pub dof_frictionloss: &'a [f64],
    /// Reference of each dof's friction row (`2 nv`).
    pub dof_solref: &'a [f64],
    /// Impedance of each dof's friction row (`5 nv`).
    pub dof_solimp: &'a [f64],
    /// Inverse inertia of each dof in the reference pose (`nv`).
    pub dof_invweight0: &'a [f64],
    /// Type of each joint (`njnt`).
    pub jnt_type: &'a [i32],
    /// Whether each joint is limited, as `mjtByte` (the library tests for 1) (`njnt`).
    pub jnt_limited: &'a [u8],
    /// First `qpos` entry of each joint (`njnt`).
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Limits of each joint (`2 njnt`).
    pub jnt_range: &'a [f64],
    /// Distance below which each joint's limit becomes active (`njnt`).
    pub jnt_margin: &'a [f64],
    /// Reference of each joint's limit rows (`2 njnt`).
    pub jnt_solref: &'a [f64],
    /// Impedance of each joint's limit rows (`5 njnt`).
    pub jnt_solimp: &'a [f64],
    /// Inverse translational and rotational inertia of each body in the reference pose
    /// (`2 nbody`).
    pub body_invweight0: &'a [f64],
    /// Body of each geom (`ngeom`).
    pub geom_bodyid: &'a [i32],
    /// The equality constraints.
    pub equality: equality::EqualityModel<'a>,
}

/// Sizes each row's supernode in `rowsuper` (`nefc`): how many rows after it share its sparsity
/// pattern (MuJoCo 4.0.0's `mju_superSparse`: a flag per row, whether the next row has the same
/// non-zeros and columns, 0 for the last, then summed from the end over runs of flags).
pub fn super_sparse(rowsuper: &mut [i32], rownnz: &[i32], rowadr: &[i32], colind: &[i32]) {
    let n = rowsuper.len();
    if n == 0 {
        return;
    }
    let cols = |r: usize| {
        let a = rowadr[r].max(0) as usize;
        &colind[a..a + rownnz[r].max(0) as usize]
    };
    for r in 0..n - 1 {
        rowsuper[r] = i32::from(rownnz[r] == rownnz[r + 1] && cols(r) == cols(r + 1));
    }
    rowsuper[n - 1] = 0;
    for r in (0..n - 1).rev() {
        if rowsuper[r] != 0 {
            rowsuper[r] += rowsuper[r + 1];
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::super_sparse;

    #[test]
    fn supernodes_count_the_following_rows_of_the_same_pattern() {
        // rows 0-2 on dofs {0, 2}, row 3 on {0, 3}, rows 4-5 empty
        let (nnz, adr) = ([2, 2, 2, 2, 0, 0], [0, 2, 4, 6, 8, 8]);
        let col = [0, 2, 0, 2, 0, 2, 0, 3];
        let mut sup = [9; 6];
        super_sparse(&mut sup, &nnz, &adr, &col);
        assert_eq!(sup, [2, 1, 0, 0, 1, 0]);
    }
}
