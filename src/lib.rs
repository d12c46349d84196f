//! specula
