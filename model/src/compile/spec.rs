//! Per-element specifications (MuJoCo's `mjsJoint`, `mjsGeom`, ...) and reading them from
//! attributes on top of a default class.
//!
//! A default class holds one specification per element kind; a class nested in another starts
//! as a copy of its parent's, and an element starts as a copy of its class's before its own
//! attributes are read, exactly MuJoCo's inheritance scheme.

use super::attrs::{arr, boolean, err_at, int, keyword, num, string, Res, FALSE_TRUE_AUTO};
use super::orient::{read_orient, Alt};
use crate::types::{GeomType, JointType};
use crate::xml::Element;

/// MuJoCo's default contact `solref`.
pub const SOLREF: [f64; 2] = [0.02, 1.0];
/// MuJoCo's default contact `solimp`.
pub const SOLIMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];

/// Joint specification.
#[derive(Clone, Debug)]
pub struct JointSpec {
    /// Joint type.
    pub jtype: JointType,
    /// Visibility group.
    pub group: i32,
    /// Anchor position in the body frame.
    pub pos: [f64; 3],
    /// Axis (hinge/slide).
    pub axis: [f64; 3],
    /// `springdamper` (time constant, damping ratio).
    pub springdamper: [f64; 2],
    /// 0 false, 1 true, 2 auto.
    pub limited: u8,
    /// 0 false, 1 true, 2 auto.
    pub actfrclimited: u8,
    /// Limit solref.
    pub solref_limit: [f64; 2],
    /// Limit solimp.
    pub solimp_limit: [f64; 5],
    /// Friction-loss solref.
    pub solref_friction: [f64; 2],
    /// Friction-loss solimp.
    pub solimp_friction: [f64; 5],
    /// Stiffness (first value) and polynomial terms.
    pub stiffness: [f64; 3],
    /// Range.
    pub range: [f64; 2],
    /// Actuator force range.
    pub actfrcrange: [f64; 2],
    /// Gravity compensation through actuators.
    pub actgravcomp: bool,
    /// Limit margin.
    pub margin: f64,
    /// Reference position.
    pub refpos: f64,
    /// Spring reference.
    pub springref: f64,
    /// Armature.
    pub armature: f64,
    /// Damping (first value) and polynomial terms.
    pub damping: [f64; 3],
    /// Friction loss.
    pub frictionloss: f64,
    /// Spring yield (plasticity; 0: none).
    pub springyield: f64,
    /// Free-joint alignment: 0 false, 1 true, 2 auto.
    pub align: u8,
}

impl Default for JointSpec {
    fn default() -> Self {
        JointSpec {
            jtype: JointType::Hinge,
            group: 0,
            pos: [0.0; 3],
            axis: [0.0, 0.0, 1.0],
            springdamper: [0.0; 2],
            limited: 2,
            actfrclimited: 2,
            solref_limit: SOLREF,
            solimp_limit: SOLIMP,
            solref_friction: SOLREF,
            solimp_friction: SOLIMP,
            stiffness: [0.0; 3],
            range: [0.0; 2],
            actfrcrange: [0.0; 2],
            actgravcomp: false,
            margin: 0.0,
            refpos: 0.0,
            springref: 0.0,
            armature: 0.0,
            damping: [0.0; 3],
            frictionloss: 0.0,
            springyield: 0.0,
            align: 2,
        }
    }
}

const JOINT_TYPES: [(&str, JointType); 4] =
    [("free", JointType::Free), ("ball", JointType::Ball), ("slide", JointType::Slide), ("hinge", JointType::Hinge)];

impl JointSpec {
    /// Reads a `joint` element's attributes on top of `self`.
    pub fn read(&mut self, el: &Element) -> Res<()> {
        if let Some(t) = keyword(el, "type", &JOINT_TYPES)? {
            self.jtype = t;
        }
        int(el, "group", &mut self.group)?;
        arr(el, "pos", &mut self.pos, true)?;
        arr(el, "axis", &mut self.axis, true)?;
        arr(el, "springdamper", &mut self.springdamper, true)?;
        if let Some(v) = keyword(el, "limited", &FALSE_TRUE_AUTO)? {
            self.limited = v;
        }
        if let Some(v) = keyword(el, "actuatorfrclimited", &FALSE_TRUE_AUTO)? {
            self.actfrclimited = v;
        }
        arr(el, "solreflimit", &mut self.solref_limit, false)?;
        arr(el, "solimplimit", &mut self.solimp_limit, false)?;
        arr(el, "solreffriction", &mut self.solref_friction, false)?;
        arr(el, "solimpfriction", &mut self.solimp_friction, false)?;
        arr(el, "stiffness", &mut self.stiffness, false)?;
        arr(el, "range", &mut self.range, true)?;
        arr(el, "actuatorfrcrange", &mut self.actfrcrange, true)?;
        boolean(el, "actuatorgravcomp", &mut self.actgravcomp)?;
        num(el, "margin", &mut self.margin)?;
        num(el, "ref", &mut self.refpos)?;
        num(el, "springref", &mut self.springref)?;
        num(el, "armature", &mut self.armature)?;
        arr(el, "damping", &mut self.damping, false)?;
        num(el, "frictionloss", &mut self.frictionloss)?;
        num(el, "springyield", &mut self.springyield)?;
        Ok(())
    }
}

/// Geom specification.
#[derive(Clone, Debug)]
pub struct GeomSpec {
    /// Geom type.
    pub gtype: GeomType,
    /// Contact type bits.
    pub contype: i32,
    /// Contact affinity bits.
    pub conaffinity: i32,
    /// Contact dimensionality.
    pub condim: i32,
    /// Group.
    pub group: i32,
    /// Contact priority.
    pub priority: i32,
    /// Size parameters.
    pub size: [f64; 3],
    /// Friction (slide, spin, roll).
    pub friction: [f64; 3],
    /// Mass, NaN when not given.
    pub mass: f64,
    /// Density.
    pub density: f64,
    /// Shell (surface) inertia instead of volume inertia.
    pub shellinertia: bool,
    /// Solver mix weight.
    pub solmix: f64,
    /// Contact solref.
    pub solref: [f64; 2],
    /// Contact solimp.
    pub solimp: [f64; 5],
    /// Contact margin.
    pub margin: f64,
    /// Contact gap.
    pub gap: f64,
    /// Surface velocity (linear, angular).
    pub surfacevel: [f64; 6],
    /// Adhesion force.
    pub adhesion: f64,
    /// `fromto`, NaN-filled when not given.
    pub fromto: [f64; 6],
    /// Position.
    pub pos: [f64; 3],
    /// Quaternion as written.
    pub quat: [f64; 4],
    /// Alternative orientation.
    pub alt: Alt,
    /// Height-field asset name.
    pub hfield: String,
    /// Mesh asset name.
    pub mesh: String,
    /// Material name.
    pub material: String,
    /// Scale for fitting primitives to meshes.
    pub fitscale: f64,
    /// Colour.
    pub rgba: [f32; 4],
    /// Ellipsoid fluid model enabled.
    pub fluid_ellipsoid: bool,
    /// Fluid coefficients.
    pub fluidcoef: [f64; 5],
}

impl Default for GeomSpec {
    fn default() -> Self {
        GeomSpec {
            gtype: GeomType::Sphere,
            contype: 1,
            conaffinity: 1,
            condim: 3,
            group: 0,
            priority: 0,
            size: [0.0; 3],
            friction: [1.0, 0.005, 0.0001],
            mass: f64::NAN,
            density: 1000.0,
            shellinertia: false,
            solmix: 1.0,
            solref: SOLREF,
            solimp: SOLIMP,
            margin: 0.0,
            gap: 0.0,
            surfacevel: [0.0; 6],
            adhesion: 0.0,
            fromto: [f64::NAN; 6],
            pos: [0.0; 3],
            quat: [1.0, 0.0, 0.0, 0.0],
            alt: Alt::Quat,
            hfield: String::new(),
            mesh: String::new(),
            material: String::new(),
            fitscale: 1.0,
            rgba: [0.5, 0.5, 0.5, 1.0],
            fluid_ellipsoid: false,
            fluidcoef: [0.5, 0.25, 1.5, 1.0, 1.0],
        }
    }
}

/// Geom type keywords.
pub const GEOM_TYPES: [(&str, GeomType); 9] = [
    ("plane", GeomType::Plane),
    ("hfield", GeomType::Hfield),
    ("sphere", GeomType::Sphere),
    ("capsule", GeomType::Capsule),
    ("ellipsoid", GeomType::Ellipsoid),
    ("cylinder", GeomType::Cylinder),
    ("box", GeomType::Box),
    ("mesh", GeomType::Mesh),
    ("sdf", GeomType::Sdf),
];

/// Reads four floats (colours are single precision in MuJoCo).
fn rgba(el: &Element, dst: &mut [f32; 4]) -> Res<()> {
    let mut v = [0.0; 4];
    if arr(el, "rgba", &mut v, true)? {
        for i in 0..4 {
            dst[i] = v[i] as f32;
        }
    }
    Ok(())
}

impl GeomSpec {
    /// Reads a `geom` element's attributes on top of `self`.
    pub fn read(&mut self, el: &Element) -> Res<()> {
        if let Some(t) = keyword(el, "type", &GEOM_TYPES)? {
            self.gtype = t;
        }
        int(el, "contype", &mut self.contype)?;
        int(el, "conaffinity", &mut self.conaffinity)?;
        int(el, "condim", &mut self.condim)?;
        int(el, "group", &mut self.group)?;
        int(el, "priority", &mut self.priority)?;
        arr(el, "size", &mut self.size, false)?;
        if let Some(m) = string(el, "material") {
            self.material = m;
        }
        arr(el, "friction", &mut self.friction, false)?;
        num(el, "mass", &mut self.mass)?;
        num(el, "density", &mut self.density)?;
        boolean(el, "shellinertia", &mut self.shellinertia)?;
        num(el, "solmix", &mut self.solmix)?;
        arr(el, "solref", &mut self.solref, false)?;
        arr(el, "solimp", &mut self.solimp, false)?;
        num(el, "margin", &mut self.margin)?;
        num(el, "gap", &mut self.gap)?;
        arr(el, "surfacevel", &mut self.surfacevel, false)?;
        num(el, "adhesion", &mut self.adhesion)?;
        arr(el, "fromto", &mut self.fromto, true)?;
        arr(el, "pos", &mut self.pos, true)?;
        if let Some(m) = string(el, "hfield") {
            self.hfield = m;
        }
        if let Some(m) = string(el, "mesh") {
            self.mesh = m;
        }
        num(el, "fitscale", &mut self.fitscale)?;
        rgba(el, &mut self.rgba)?;
        arr(el, "fluidcoef", &mut self.fluidcoef, false)?;
        if let Some(v) = keyword(el, "fluidshape", &[("none", false), ("ellipsoid", true)])? {
            self.fluid_ellipsoid = v;
        }
        read_orient(el, &mut self.quat, &mut self.alt)
    }
}

/// Site specification.
#[derive(Clone, Debug)]
pub struct SiteSpec {
    /// Rendering type.
    pub gtype: GeomType,
    /// Group.
    pub group: i32,
    /// Position.
    pub pos: [f64; 3],
    /// Quaternion as written.
    pub quat: [f64; 4],
    /// Alternative orientation.
    pub alt: Alt,
    /// Size.
    pub size: [f64; 3],
    /// `fromto`, NaN-filled when not given.
    pub fromto: [f64; 6],
    /// Colour.
    pub rgba: [f32; 4],
}

impl Default for SiteSpec {
    fn default() -> Self {
        SiteSpec {
            gtype: GeomType::Sphere,
            group: 0,
            pos: [0.0; 3],
            quat: [1.0, 0.0, 0.0, 0.0],
            alt: Alt::Quat,
            size: [0.005; 3],
            fromto: [f64::NAN; 6],
            rgba: [0.5, 0.5, 0.5, 1.0],
        }
    }
}

impl SiteSpec {
    /// Reads a `site` element's attributes on top of `self`.
    pub fn read(&mut self, el: &Element) -> Res<()> {
        if let Some(t) = keyword(el, "type", &GEOM_TYPES)? {
            self.gtype = t;
        }
        int(el, "group", &mut self.group)?;
        arr(el, "pos", &mut self.pos, true)?;
        arr(el, "size", &mut self.size, false)?;
        arr(el, "fromto", &mut self.fromto, true)?;
        rgba(el, &mut self.rgba)?;
        read_orient(el, &mut self.quat, &mut self.alt)
    }
}

/// Explicit contact pair specification.
#[derive(Clone, Debug)]
pub struct PairSpec {
    /// Contact dimensionality.
    pub condim: i32,
    /// Friction (tangent1, tangent2, spin, roll1, roll2).
    pub friction: [f64; 5],
    /// Normal solref.
    pub solref: [f64; 2],
    /// Friction solref.
    pub solreffriction: [f64; 2],
    /// Solimp.
    pub solimp: [f64; 5],
    /// Gap.
    pub gap: f64,
    /// Margin.
    pub margin: f64,
    /// Adhesion.
    pub adhesion: f64,
}

impl Default for PairSpec {
    fn default() -> Self {
        PairSpec {
            condim: 3,
            friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            solref: SOLREF,
            solreffriction: [0.0; 2],
            solimp: SOLIMP,
            gap: 0.0,
            margin: 0.0,
            adhesion: 0.0,
        }
    }
}

impl PairSpec {
    /// Reads a `pair` element's attributes on top of `self`.
    pub fn read(&mut self, el: &Element) -> Res<()> {
        int(el, "condim", &mut self.condim)?;
        arr(el, "friction", &mut self.friction, false)?;
        arr(el, "solref", &mut self.solref, false)?;
        arr(el, "solreffriction", &mut self.solreffriction, false)?;
        arr(el, "solimp", &mut self.solimp, false)?;
        num(el, "gap", &mut self.gap)?;
        num(el, "margin", &mut self.margin)?;
        num(el, "adhesion", &mut self.adhesion)?;
        Ok(())
    }
}

/// One default class.
#[derive(Clone, Debug, Default)]
pub struct DefaultClass {
    /// Class name (`main` for the top level).
    pub name: String,
    /// Joint defaults.
    pub joint: JointSpec,
    /// Geom defaults.
    pub geom: GeomSpec,
    /// Site defaults.
    pub site: SiteSpec,
    /// Pair defaults.
    pub pair: PairSpec,
    /// Mesh defaults.
    pub mesh: crate::mesh::MeshSpec,
    /// Actuator defaults (one per class, edited by every actuator shortcut in the class).
    pub actuator: super::actuator::ActuatorSpec,
    /// Every attribute the class (or a class it inherits from) sets, as text: (element kind,
    /// attribute, value), the kind `actuator` standing for every actuator shortcut. The compile
    /// checks read attributes that no typed default above holds (a site's or a material's
    /// references, a tendon's limits) from here.
    pub raw: Vec<(String, String, String)>,
}

impl DefaultClass {
    /// The value this class gives attribute `attr` of elements of `kind`, if any.
    pub fn raw_attr(&self, kind: &str, attr: &str) -> Option<&str> {
        self.raw.iter().find(|(k, a, _)| k == kind && a == attr).map(|(_, _, v)| v.as_str())
    }
}

/// All default classes; index 0 is `main`.
#[derive(Clone, Debug)]
pub struct Defaults {
    /// Classes in definition order.
    pub classes: Vec<DefaultClass>,
}

impl Defaults {
    /// Only the `main` class with MuJoCo's built-in values.
    pub fn new() -> Self {
        Defaults { classes: vec![DefaultClass { name: "main".into(), ..Default::default() }] }
    }

    /// Index of the class named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.classes.iter().position(|c| c.name == name)
    }

    /// Reads a top-level `default` section (and its nested classes).
    pub fn read_section(&mut self, el: &Element, parent: Option<usize>) -> Res<()> {
        let cls = el.attr("class").map(|a| a.value.clone());
        let idx = match parent {
            None => {
                if let Some(c) = &cls {
                    if c != "main" {
                        return Err(err_at(el, "top-level default class 'main' cannot be renamed"));
                    }
                }
                0
            }
            Some(p) => {
                let name = cls.unwrap_or_default();
                if name.is_empty() {
                    return Err(err_at(el, "empty class name"));
                }
                if self.find(&name).is_some() {
                    return Err(err_at(el, format!("repeated default class name '{name}'")));
                }
                let mut c = self.classes[p].clone();
                c.name = name;
                // a shortcut may read its parameters from an ancestor class's actuator default
                let mut parent = self.classes[p].actuator.clone();
                parent.params.ancestors.clear();
                c.actuator.params.ancestors.insert(0, parent);
                self.classes.push(c);
                self.classes.len() - 1
            }
        };
        for ch in &el.children {
            let c = &mut self.classes[idx];
            let kind = if super::actuator::is_actuator(&ch.name) { "actuator" } else { ch.name.as_str() };
            for a in &ch.attrs {
                match c.raw.iter_mut().find(|(k, n, _)| k == kind && *n == a.name) {
                    Some(slot) => slot.2 = a.value.clone(),
                    None => c.raw.push((kind.to_string(), a.name.clone(), a.value.clone())),
                }
            }
            match ch.name.as_str() {
                "joint" => c.joint.read(ch)?,
                "geom" => c.geom.read(ch)?,
                "site" => c.site.read(ch)?,
                "pair" => c.pair.read(ch)?,
                "mesh" => super::mesh::read_mesh_defaults(ch, &mut c.mesh)?,
                n if super::actuator::is_actuator(n) => {
                    if n == "dcmotor" {
                        super::actuator_values::check_dcmotor_default(
                            ch,
                            &c.actuator,
                            c.raw_attr("actuator", "input"),
                        )?;
                    }
                    c.actuator.apply(ch)?
                }
                _ => {}
            }
        }
        for ch in el.children.iter().filter(|c| c.name == "default") {
            self.read_section(ch, Some(idx))?;
        }
        Ok(())
    }

    /// The class an element uses: its own `class`, else the context class `ctx`.
    pub fn class_of(&self, el: &Element, ctx: usize) -> Res<usize> {
        match el.attr("class") {
            None => Ok(ctx),
            Some(a) => self
                .find(&a.value)
                .ok_or_else(|| super::attrs::err_attr(a, format!("unknown default class name '{}'", a.value))),
        }
    }
}

impl Default for Defaults {
    fn default() -> Self {
        Self::new()
    }
}
