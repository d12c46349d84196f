//! MJCF (MuJoCo's XML format) to a Rust model, with no C involved.
//!
//! Two stages, as in MuJoCo: [`xml`] reads files into an element tree that remembers where every
//! element and attribute came from (file, line, column), and the compiler turns that tree into a
//! [`Model`] holding the same numbers MuJoCo's own compiler produces.

pub mod compile;
pub mod contact;
pub mod error;
pub mod mesh;
pub mod model;
pub mod types;
pub mod xml;

pub use compile::{compile, load_file, load_str};
pub use error::{MjcfError, Position};
pub use model::{Model, Options};
pub use types::{GeomType, JointType};
