//! `mj_referenceConstraint`: constraint velocities and reference accelerations (`docs/measurements.md` D11).
