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

/// Joint types, numbered as MuJoCo's `mjtJoint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum JointType {
    /// Free joint: 7 qpos (position, quaternion), 6 dofs.
    Free = 0,
    /// Ball joint: 4 qpos (quaternion), 3 dofs.
    Ball = 1,
    /// Sliding joint along an axis.
    Slide = 2,
    /// Hinge joint about an axis.
    Hinge = 3,
}

impl JointType {
    /// Number of position coordinates.
    pub fn nq(self) -> usize {
        match self {
            JointType::Free => 7,
            JointType::Ball => 4,
            _ => 1,
        }
    }

    /// Number of degrees of freedom.
    pub fn nv(self) -> usize {
        match self {
            JointType::Free => 6,
            JointType::Ball => 3,
            _ => 1,
        }
    }
}

/// Integrators, numbered as MuJoCo's `mjtIntegrator` (the one integrator type of the workspace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[repr(u8)]
pub enum Integrator {
    /// Semi-implicit Euler.
    Euler = 0,
    /// Fourth-order Runge-Kutta.
    Rk4 = 1,
    /// Implicit in velocity.
    Implicit = 2,
    /// Implicit in velocity, without the Coriolis terms.
    #[cfg_attr(feature = "clap", value(name = "implicitfast"))]
    ImplicitFast = 3,
    /// MuJoCo 4.0's discrete (implicit position) integrator.
    Discrete = 4,
}

impl Integrator {
    /// The integrator with MuJoCo's number `n` (`mjModel.opt.integrator`), if there is one.
    pub fn from_mj(n: i32) -> Option<Integrator> {
        let all =
            [Integrator::Euler, Integrator::Rk4, Integrator::Implicit, Integrator::ImplicitFast, Integrator::Discrete];
        all.get(usize::try_from(n).ok()?).copied()
    }
}

/// How speculative contacts are made: the one speculative-mode type of the workspace (the
/// engine, the command line, the sweep and the C drop-in all use it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SpeculativeMode {
    /// Speculative contacts off (the `speculative` flag cleared).
    Off,
    /// MuJoCo-compatible speculative contacts (the flag set), as MuJoCo 4.0.0 makes them.
    Compat,
    /// specula's robust speculative mode: nothing tunnels (rust route only).
    Robust,
}

impl SpeculativeMode {
    /// Every mode, in report order.
    pub const ALL: [SpeculativeMode; 3] = [SpeculativeMode::Off, SpeculativeMode::Compat, SpeculativeMode::Robust];

    /// The mode's name as the command line, the environment and the reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            SpeculativeMode::Off => "off",
            SpeculativeMode::Compat => "compat",
            SpeculativeMode::Robust => "robust",
        }
    }

    /// The mode called `name`.
    pub fn parse(name: &str) -> Option<SpeculativeMode> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Friction cone types, numbered as MuJoCo's `mjtCone`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[repr(u8)]
pub enum Cone {
    /// Pyramidal cone.
    Pyramidal = 0,
    /// Elliptic cone.
    Elliptic = 1,
}

/// Constraint Jacobian types, numbered as MuJoCo's `mjtJacobian`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[repr(u8)]
pub enum Jacobian {
    /// Dense.
    Dense = 0,
    /// Sparse.
    Sparse = 1,
    /// Dense when nv < 60, sparse otherwise.
    Auto = 2,
}

/// Constraint solvers, numbered as MuJoCo's `mjtSolver`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[repr(u8)]
pub enum Solver {
    /// Projected Gauss-Seidel (dual).
    Pgs = 0,
    /// Conjugate gradient (primal).
    Cg = 1,
    /// Newton (primal).
    Newton = 2,
}

/// Frame alignment of a geom, site or body inertia, numbered as MuJoCo's `mjtSameFrame`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SameFrame {
    /// No alignment.
    None = 0,
    /// Same frame as the body.
    Body = 1,
    /// Same frame as the body's inertial frame.
    Inertia = 2,
    /// Same orientation as the body.
    BodyRot = 3,
    /// Same orientation as the body's inertial frame.
    InertiaRot = 4,
}

/// Disable-flag bits (`mjtDisableBit`), by their MJCF `flag` attribute names.
pub const DISABLE_FLAGS: [(&str, u32); 20] = [
    ("constraint", 1 << 0),
    ("equality", 1 << 1),
    ("frictionloss", 1 << 2),
    ("limit", 1 << 3),
    ("contact", 1 << 4),
    ("spring", 1 << 5),
    ("damper", 1 << 6),
    ("gravity", 1 << 7),
    ("clampctrl", 1 << 8),
    ("warmstart", 1 << 9),
    ("filterparent", 1 << 10),
    ("actuation", 1 << 11),
    ("refsafe", 1 << 12),
    ("sensor", 1 << 13),
    ("midphase", 1 << 14),
    ("eulerdamp", 1 << 15),
    ("autoreset", 1 << 16),
    ("nativeccd", 1 << 17),
    ("island", 1 << 18),
    ("multiccd", 1 << 19),
];

/// Enable-flag bits (`mjtEnableBit`), by their MJCF `flag` attribute names.
pub const ENABLE_FLAGS: [(&str, u32); 8] = [
    ("override", 1 << 0),
    ("energy", 1 << 1),
    ("fwdinv", 1 << 2),
    ("invdiscrete", 1 << 3),
    ("sleep", 1 << 4),
    ("diagexact", 1 << 5),
    ("ipc", 1 << 6),
    ("speculative", 1 << 7),
];
