//! The MJCF schema of MuJoCo 4.0.0 as data, split by section; see [`super::schema`] for what
//! the rows mean and how they were derived.

mod asset;
mod body;
mod control;
mod defaults;
mod model;
mod sensor;

use super::schema::ElementSpec;

/// All parts of the table, searched in order.
pub(crate) static TABLES: &[&[ElementSpec]] =
    &[model::ROWS, asset::ROWS, body::ROWS, defaults::ROWS, control::ROWS, sensor::ROWS];

/// Keywords of MuJoCo's `angle` enumeration, in MuJoCo's order.
pub(crate) const ANGLE: &[&str] = &["radian", "degree"];
/// Keywords of MuJoCo's `bias` enumeration, in MuJoCo's order.
pub(crate) const BIAS: &[&str] = &["none", "affine", "muscle", "dcmotor", "so3", "user"];
/// Keywords of MuJoCo's `bodysleep` enumeration, in MuJoCo's order.
pub(crate) const BODYSLEEP: &[&str] = &["auto", "never", "allowed", "init"];
/// Keywords of MuJoCo's `builtin` enumeration, in MuJoCo's order.
pub(crate) const BUILTIN: &[&str] = &["none", "gradient", "checker", "flat"];
/// Keywords of MuJoCo's `camlight` enumeration, in MuJoCo's order.
pub(crate) const CAMLIGHT: &[&str] = &["fixed", "track", "trackcom", "targetbody", "targetbodycom"];
/// Keywords of MuJoCo's `camout` enumeration, in MuJoCo's order.
pub(crate) const CAMOUT: &[&str] = &["rgb", "depth", "distance", "normal", "segmentation"];
/// Keywords of MuJoCo's `colorspace` enumeration, in MuJoCo's order.
pub(crate) const COLORSPACE: &[&str] = &["auto", "linear", "sRGB"];
/// Keywords of MuJoCo's `condata` enumeration, in MuJoCo's order.
pub(crate) const CONDATA: &[&str] =
    &["found", "force", "torque", "dist", "pos", "normal", "tangent", "linvel", "angvel"];
/// Keywords of MuJoCo's `cone` enumeration, in MuJoCo's order.
pub(crate) const CONE: &[&str] = &["pyramidal", "elliptic"];
/// Keywords of MuJoCo's `conflict` enumeration, in MuJoCo's order.
pub(crate) const CONFLICT: &[&str] = &["warning", "merge", "error"];
/// Keywords of MuJoCo's `coordinate` enumeration, in MuJoCo's order.
pub(crate) const COORDINATE: &[&str] = &["local", "global"];
/// Keywords of MuJoCo's `datatype` enumeration, in MuJoCo's order.
pub(crate) const DATATYPE: &[&str] = &["real", "positive", "axis", "quaternion"];
/// Keywords of MuJoCo's `dyn` enumeration, in MuJoCo's order.
pub(crate) const DYN: &[&str] = &["none", "integrator", "filter", "filterexact", "muscle", "dcmotor", "pid", "user"];
/// Keywords of MuJoCo's `elastic2d` enumeration, in MuJoCo's order.
pub(crate) const ELASTIC2D: &[&str] = &["none", "bend", "stretch", "both"];
/// Keywords of MuJoCo's `enable` enumeration, in MuJoCo's order.
pub(crate) const ENABLE: &[&str] = &["disable", "enable"];
/// Keywords of MuJoCo's `FalseAuto` enumeration, in MuJoCo's order.
pub(crate) const FALSEAUTO: &[&str] = &["false", "auto"];
/// Keywords of MuJoCo's `FalseTrueAuto` enumeration, in MuJoCo's order.
pub(crate) const FALSETRUEAUTO: &[&str] = &["false", "true", "auto"];
/// Keywords of MuJoCo's `fcomp` enumeration, in MuJoCo's order.
pub(crate) const FCOMP: &[&str] =
    &["grid", "box", "cylinder", "ellipsoid", "square", "disc", "circle", "mesh", "gmsh", "direct"];
/// Keywords of MuJoCo's `fdof` enumeration, in MuJoCo's order.
pub(crate) const FDOF: &[&str] = &["full", "radial", "trilinear", "quadratic", "2d"];
/// Keywords of MuJoCo's `flexeq` enumeration, in MuJoCo's order.
pub(crate) const FLEXEQ: &[&str] = &["false", "true", "strain"];
/// Keywords of MuJoCo's `flexself` enumeration, in MuJoCo's order.
pub(crate) const FLEXSELF: &[&str] = &["none", "narrow", "bvh", "sap", "auto"];
/// Keywords of MuJoCo's `fluidshape` enumeration, in MuJoCo's order.
pub(crate) const FLUIDSHAPE: &[&str] = &["none", "ellipsoid"];
/// Keywords of MuJoCo's `frameobj` enumeration, in MuJoCo's order.
pub(crate) const FRAMEOBJ: &[&str] = &["body", "xbody", "geom", "site", "camera"];
/// Keywords of MuJoCo's `gain` enumeration, in MuJoCo's order.
pub(crate) const GAIN: &[&str] = &["fixed", "affine", "muscle", "dcmotor", "so3", "pid", "user"];
/// Keywords of MuJoCo's `geomtype` enumeration, in MuJoCo's order.
pub(crate) const GEOMTYPE: &[&str] =
    &["plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"];
/// Keywords of MuJoCo's `input` enumeration, in MuJoCo's order.
pub(crate) const INPUT: &[&str] = &["none", "expmap", "quat", "pos", "vel", "ff", "voltage", "pressure"];
/// Keywords of MuJoCo's `integrator` enumeration, in MuJoCo's order.
pub(crate) const INTEGRATOR: &[&str] = &["Euler", "RK4", "implicit", "implicitfast", "discrete"];
/// Keywords of MuJoCo's `interp` enumeration, in MuJoCo's order.
pub(crate) const INTERP: &[&str] = &["zoh", "linear", "cubic"];
/// Keywords of MuJoCo's `jacobian` enumeration, in MuJoCo's order.
pub(crate) const JACOBIAN: &[&str] = &["dense", "sparse", "auto"];
/// Keywords of MuJoCo's `jointtype` enumeration, in MuJoCo's order.
pub(crate) const JOINTTYPE: &[&str] = &["free", "ball", "slide", "hinge"];
/// Keywords of MuJoCo's `lighttype` enumeration, in MuJoCo's order.
pub(crate) const LIGHTTYPE: &[&str] = &["spot", "directional", "point", "image"];
/// Keywords of MuJoCo's `lrmode` enumeration, in MuJoCo's order.
pub(crate) const LRMODE: &[&str] = &["none", "muscle", "muscleuser", "all"];
/// Keywords of MuJoCo's `mark` enumeration, in MuJoCo's order.
pub(crate) const MARK: &[&str] = &["none", "edge", "cross", "random"];
/// Keywords of MuJoCo's `meshbuiltin` enumeration, in MuJoCo's order.
pub(crate) const MESHBUILTIN: &[&str] =
    &["none", "sphere", "hemisphere", "cone", "supertorus", "supersphere", "wedge", "plate"];
/// Keywords of MuJoCo's `meshinertia` enumeration, in MuJoCo's order.
pub(crate) const MESHINERTIA: &[&str] = &["convex", "legacy", "exact", "shell"];
/// Keywords of MuJoCo's `passthrough` enumeration, in MuJoCo's order.
pub(crate) const PASSTHROUGH: &[&str] = &["none", "textures"];
/// Keywords of MuJoCo's `projection` enumeration, in MuJoCo's order.
pub(crate) const PROJECTION: &[&str] = &["perspective", "orthographic"];
/// Keywords of MuJoCo's `raydata` enumeration, in MuJoCo's order.
pub(crate) const RAYDATA: &[&str] = &["dist", "dir", "origin", "point", "normal", "depth"];
/// Keywords of MuJoCo's `reduce` enumeration, in MuJoCo's order.
pub(crate) const REDUCE: &[&str] = &["none", "mindist", "maxforce", "netforce"];
/// Keywords of MuJoCo's `scaling` enumeration, in MuJoCo's order.
pub(crate) const SCALING: &[&str] = &["similar", "geometry"];
/// Keywords of MuJoCo's `section` enumeration, in MuJoCo's order.
pub(crate) const SECTION: &[&str] = &["circle", "box"];
/// Keywords of MuJoCo's `solver` enumeration, in MuJoCo's order.
pub(crate) const SOLVER: &[&str] = &["PGS", "CG", "Newton"];
/// Keywords of MuJoCo's `stage` enumeration, in MuJoCo's order.
pub(crate) const STAGE: &[&str] = &["none", "pos", "vel", "acc"];
/// Keywords of MuJoCo's `texture` enumeration, in MuJoCo's order.
pub(crate) const TEXTURE: &[&str] = &["2d", "cube", "skybox"];
