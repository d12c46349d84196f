//! The collision stage: MuJoCo 4.0's `mj_collision` for rigid geoms, producing the same
//! contacts in the same order, so they can be fed to the C pipeline unchanged.
//!
//! - [`model`]: the plain-data [`CollisionModel`] (from specula's `Model` or a C `mjModel`);
//! - [`state`]: the borrowed per-call [`State`] (geom poses, sleep);
//! - [`broadphase`]: body pairs by sweep and prune on the principal axes of the geom centres;
//! - [`bvh`]: per-body geom trees and the mid-phase traversal;
//! - [`filter`]: bitmask, body-pair, bounding-sphere and oriented-box tests;
//! - [`params`]: contact parameter mixing and `mj_setContact`;
//! - [`driver`]: [`CollisionStage::collide`], the entry point; it hands each pair to the
//!   speculative stage ([`crate::speculative::pair_contacts`]) when speculative contacts or
//!   robust mode are on.
//!
//! Not covered: flexes (an error), and pairs involving height fields or SDFs, which
//! [`State::fallback`] computes in place (MuJoCo's own pair functions on the rust route) or,
//! without one, are reported per pair in [`CollideReport::unsupported`]. A `mjcb_contactfilter`
//! equivalent can be passed in [`State::contact_filter`].

pub mod broadphase;
pub mod bvh;
pub mod driver;
pub mod filter;
pub mod model;
pub mod params;
mod sort;
pub mod state;

pub use driver::{CollideError, CollideReport, CollisionStage, ContactSink, UnsupportedPair};
pub use model::{CollisionModel, CollisionOptions};
pub use state::{ContactFilter, PairFallback, SleepState, SpeculativeInput, State};
