//! Enumerations shared by the model and the engine, numbered as in MuJoCo.

/// Geom types, numbered as MuJoCo's `mjtGeom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum GeomType {
    /// Infinite plane (z-up in the geom frame).
    Plane = 0,
    /// Height field.
    Hfield = 1,
    /// Sphere.
    Sphere = 2,
    /// Capsule.
    Capsule = 3,
    /// Ellipsoid.
    Ellipsoid = 4,
    /// Cylinder.
    Cylinder = 5,
    /// Box.
    Box = 6,
    /// Mesh (collides through its convex hull).
    Mesh = 7,
    /// Signed distance field.
    Sdf = 8,
}

impl GeomType {
    /// Number of geom types (MuJoCo's `mjNGEOMTYPES`).
    pub const COUNT: usize = 9;

    /// The type with MuJoCo's number `n`, if any.
    pub fn from_index(n: usize) -> Option<GeomType> {
        use GeomType::*;
        [Plane, Hfield, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh, Sdf].get(n).copied()
    }
}
