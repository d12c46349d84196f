//! The collision stage: MuJoCo 4.0's `mj_collision` for rigid geoms, producing the same
//! contacts in the same order, so they can be fed to the C pipeline unchanged.
//!
//! - [`model`]: the plain-data [`CollisionModel`] (from specula's `Model` or a C `mjModel`);
//! - [`state`]: the borrowed per-call [`State`] (geom poses, sleep);
//! - [`broadphase`]: body pairs by sweep and prune on the principal axes of the geom centres;
//! - [`filter`]: bitmask, body-pair, bounding-sphere and oriented-box tests;
//! - [`params`]: contact parameter mixing and `mj_setContact`;
//! - [`driver`]: [`CollisionStage::collide`], the entry point.
//!
//! Not covered (the caller must fall back to C): flexes, speculative contacts, the
//! `mjcb_contactfilter` callback, and pairs involving height fields or SDFs (reported per pair
//! in [`CollideReport::unsupported`]).

pub mod broadphase;
pub mod driver;
pub mod filter;
pub mod model;
pub mod params;
mod sort;
pub mod state;

pub use driver::{CollideError, CollideReport, CollisionStage, UnsupportedPair};
pub use model::{CollisionModel, CollisionOptions};
pub use state::{SleepState, SpeculativeInput, State};
