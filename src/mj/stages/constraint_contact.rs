//! The contact part of `mj_makeConstraint` inside MuJoCo's step: the view of MuJoCo's model
//! the engine's contact rows read, and the copy of `d->contact` in and out
//! (`docs/measurements.md` D10).
