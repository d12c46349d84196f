//! specula: a MuJoCo-compatible physics engine whose collision stage has speculative contacts.
//!
//! The root crate holds the safe wrapper over MuJoCo C ([`mj`]), running scenes through a
//! collision route ([`sim`]), the built-in scene ([`demo`]), the command-line tool's logic, and the
//! C drop-in library libspecula.so ([`capi`], `include/specula.h`).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod capi;
pub mod check;
pub mod demo;
pub mod diff;
pub mod fuzz;
pub mod mj;
pub mod route;
pub mod sim;
pub mod sweep;
pub mod tunnel;
