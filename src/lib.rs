//! specula: a MuJoCo-compatible physics engine whose collision stage has speculative contacts.
//!
//! The root crate holds the safe wrapper over MuJoCo C ([`mj`]), running scenes through a
//! collision route ([`sim`]), the built-in scene ([`demo`]) and the command-line tool's logic.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod check;
pub mod demo;
pub mod diff;
pub mod mj;
pub mod route;
pub mod sim;
pub mod sweep;
pub mod tunnel;
