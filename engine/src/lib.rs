//! specula's collision stage: broadphase, narrowphase and speculative contacts, plus the
//! kinematics they need. Pure Rust on plain data; no C.

pub mod narrowphase;
