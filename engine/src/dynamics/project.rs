//! `mj_projectConstraint`: the dual solvers' `efc_Y` and `efc_AR` (`docs/measurements.md` D11).
