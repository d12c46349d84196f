//! specula's collision stage: broadphase, narrowphase and speculative contacts, plus the
//! kinematics they need. Pure Rust on plain data; no C.

pub mod collision;
pub mod contact;
pub mod kinematics;
pub mod math;
pub mod narrowphase;
pub mod speculative;
