//! The contact rows of `mj_makeConstraint` (frictionless, pyramidal and elliptic), from the
//! contacts' Jacobians (`docs/measurements.md` D10).
