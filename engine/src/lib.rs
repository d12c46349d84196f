//! specula's collision stage (broadphase, narrowphase and speculative contacts, plus the
//! kinematics they need) and MuJoCo's smooth dynamics stage by stage. Pure Rust on plain data;
//! no C.

pub mod collision;
pub mod contact;
pub mod dynamics;
pub mod kinematics;
pub mod math;
pub mod narrowphase;
pub mod speculative;
