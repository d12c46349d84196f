//! specula: a MuJoCo-compatible physics engine whose collision stage has speculative contacts.
//!
//! The root crate holds the safe wrapper over MuJoCo C ([`mj`]), the simulation routes, the
//! built-in scenes and the command-line tool.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod mj;
