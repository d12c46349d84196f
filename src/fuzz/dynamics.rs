//! The generator's dynamics: joint properties (armature, damping, stiffness and spring
//! reference, friction loss, limits), actuators on joints (every built-in kind the rigid subset
//! has, with gains, biases, activation dynamics and clamps) and their controls, and fixed-base
//! mechanisms that carry them. Drawn from a stream of their own, so a seed's geometry is what it
//! was before these were added.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::scene::{f, fs, Joint, Link, MeshAsset, Rng, Scene, Thrown};

/// Properties of one joint; `None` leaves MuJoCo's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointProps {
    /// `armature`.
    pub armature: Option<f64>,
    /// `damping`.
    pub damping: Option<f64>,
    /// `stiffness`.
    pub stiffness: Option<f64>,
    /// `springref`.
    pub springref: Option<f64>,
    /// `frictionloss`.
    pub frictionloss: Option<f64>,
    /// `range` (degrees for hinges and balls, metres for slides); sets `limited`.
    pub range: Option<[f64; 2]>,
}

impl JointProps {
    /// The properties as MJCF attributes (each with a leading space).
    pub fn attrs(&self) -> String {
        let mut s = String::new();
        let mut put = |k: &str, v: Option<f64>| {
            if let Some(v) = v {
                let _ = write!(s, " {k}=\"{}\"", f(v));
            }
        };
        put("armature", self.armature);
        put("damping", self.damping);
        put("stiffness", self.stiffness);
        put("springref", self.springref);
        put("frictionloss", self.frictionloss);
        if let Some(r) = self.range {
            // `limited` is left to its default, `auto`: on with a range
            let _ = write!(s, " range=\"{}\"", fs(&r));
        }
        s
    }
}

/// The kind of a joint actuator and its own parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum ActuatorKind {
    /// `<motor>`.
    Motor,
    /// `<position kp kv>`.
    Position(f64, f64),
    /// `<velocity kv>`.
    Velocity(f64),
    /// `<intvelocity kp>` (an integrator; its activation in `act`).
    IntVelocity(f64),
    /// `<damper kv>` (controls non-negative).
    Damper(f64),
    /// `<general>`: gain type and parameters, bias type and parameters, dynamics type and
    /// parameter, `actearly`.
    General {
        /// `gaintype`.
        gaintype: &'static str,
        /// `gainprm` (3).
        gainprm: [f64; 3],
        /// `biastype`.
        biastype: &'static str,
        /// `biasprm` (3).
        biasprm: [f64; 3],
        /// `dyntype`.
        dyntype: &'static str,
        /// `dynprm` (1).
        dynprm: f64,
        /// `actearly`.
        actearly: bool,
    },
}

/// One actuator on a joint and its control.
#[derive(Clone, Debug, PartialEq)]
pub struct ActuatorSpec {
    /// The joint's name.
    pub joint: String,
    /// Kind and parameters.
    pub kind: ActuatorKind,
    /// `gear` (its first entry).
    pub gear: f64,
    /// `ctrlrange` (sets `ctrllimited`).
    pub ctrlrange: Option<[f64; 2]>,
    /// `forcerange` (sets `forcelimited`).
    pub forcerange: Option<[f64; 2]>,
    /// `actrange` (sets `actlimited`; actuators with activation only).
    pub actrange: Option<[f64; 2]>,
    /// `damping` (4.0.0's actuator damping).
    pub damping: Option<f64>,
    /// `armature` (added to the joint's).
    pub armature: Option<f64>,
    /// The control in the start keyframe.
    pub ctrl: f64,
    /// The activation in the start keyframe (actuators with activation only).
    pub act: f64,
}

impl ActuatorSpec {
    /// Whether the actuator has an activation (`act`).
    pub fn has_act(&self) -> bool {
        match &self.kind {
            ActuatorKind::IntVelocity(_) => true,
            ActuatorKind::General { dyntype, .. } => *dyntype != "none",
            _ => false,
        }
    }

    /// The actuator's MJCF element.
    fn xml(&self) -> String {
        let (tag, mut attrs) = match &self.kind {
            ActuatorKind::Motor => ("motor", String::new()),
            ActuatorKind::Position(kp, kv) => ("position", format!(" kp=\"{}\" kv=\"{}\"", f(*kp), f(*kv))),
            ActuatorKind::Velocity(kv) => ("velocity", format!(" kv=\"{}\"", f(*kv))),
            ActuatorKind::IntVelocity(kp) => ("intvelocity", format!(" kp=\"{}\"", f(*kp))),
            ActuatorKind::Damper(kv) => ("damper", format!(" kv=\"{}\"", f(*kv))),
            ActuatorKind::General { gaintype, gainprm, biastype, biasprm, dyntype, dynprm, actearly } => (
                "general",
                format!(
                    " gaintype=\"{gaintype}\" gainprm=\"{}\" biastype=\"{biastype}\" biasprm=\"{}\" dyntype=\"{dyntype}\" dynprm=\"{}\" actearly=\"{actearly}\"",
                    fs(gainprm),
                    fs(biasprm),
                    f(*dynprm)
                ),
            ),
        };
        // the `*limited` flags are left to their default, `auto` (some elements have none)
        let mut put = |k: &str, v: Option<[f64; 2]>| {
            if let Some(v) = v {
                let _ = write!(attrs, " {k}=\"{}\"", fs(&v));
            }
        };
        put("ctrlrange", self.ctrlrange);
        put("forcerange", self.forcerange);
        put("actrange", self.actrange);
        for (k, v) in [("damping", self.damping), ("armature", self.armature)] {
            if let Some(v) = v {
                let _ = write!(attrs, " {k}=\"{}\"", f(v));
            }
        }
        format!("<{tag} joint=\"{}\" gear=\"{}\"{attrs}/>", self.joint, f(self.gear))
    }
}

/// A scene's joint properties (by joint name) and actuators.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dynamics {
    /// Properties of the joints that have any.
    pub joints: BTreeMap<String, JointProps>,
    /// Actuators, in MJCF order.
    pub actuators: Vec<ActuatorSpec>,
}

impl Dynamics {
    /// The `<actuator>` section (empty without actuators).
    pub fn actuators_xml(&self) -> String {
        if self.actuators.is_empty() {
            return String::new();
        }
        let mut s = String::from("  <actuator>\n");
        for a in &self.actuators {
            let _ = writeln!(s, "    {}", a.xml());
        }
        s.push_str("  </actuator>\n");
        s
    }

    /// The start keyframe's `ctrl` and `act` attributes (each with a leading space).
    pub fn key_attrs(&self) -> String {
        let mut s = String::new();
        if !self.actuators.is_empty() {
            let ctrl: Vec<f64> = self.actuators.iter().map(|a| a.ctrl).collect();
            let _ = write!(s, " ctrl=\"{}\"", fs(&ctrl));
            let act: Vec<f64> = self.actuators.iter().filter(|a| a.has_act()).map(|a| a.act).collect();
            if !act.is_empty() {
                let _ = write!(s, " act=\"{}\"", fs(&act));
            }
        }
        s
    }

    /// Drops what refers to a joint not in `joints`.
    pub fn retain_joints(&mut self, joints: &[String]) {
        self.joints.retain(|j, _| joints.contains(j));
        self.actuators.retain(|a| joints.contains(&a.joint));
    }
}

/// A fixed-base mechanism: a chain of one to four links on hinges, slides and balls, the first
/// on the world, placed over the floor and obstacles, starting with some joint speed.
pub(super) fn mechanism(r: &mut Rng, k: usize, meshes: &mut Vec<MeshAsset>) -> Thrown {
    let joint = |r: &mut Rng| match r.below(5) {
        0 | 1 => Joint::Hinge(r.direction(), r.range(-5.0, 5.0)),
        2 | 3 => Joint::Slide(r.direction(), r.range(-0.5, 0.5)),
        _ => Joint::Ball([r.range(-3.0, 3.0), r.range(-3.0, 3.0), r.range(-3.0, 3.0)]),
    };
    let name = format!("m{k}");
    let geoms = vec![super::gen::geom(r, format!("{name}g0"), meshes)];
    let mut reach = geoms[0].shape.reach(meshes);
    let root = joint(r);
    let mut links = Vec::new();
    for j in 0..r.below(4) {
        let g = super::gen::geom(r, format!("{name}l{j}g0"), meshes);
        let d = g.shape.reach(meshes) + reach;
        reach = g.shape.reach(meshes);
        let dir = r.direction();
        links.push(Link {
            name: format!("{name}l{j}"),
            pos: [dir[0] * d, dir[1] * d, dir[2] * d],
            joint: joint(r),
            geoms: vec![g],
        });
    }
    let pos = [r.range(-0.3, 0.3), r.range(-0.3, 0.3), r.range(0.05, 0.5)];
    Thrown { name, pos, quat: r.quat(), vel: [0.0; 3], spin: [0.0; 3], geoms, root, links }
}

/// Joint properties for a joint of kind `j`.
fn props(r: &mut Rng, j: &Joint) -> JointProps {
    let free = *j == Joint::Free;
    let angular = matches!(j, Joint::Hinge(..) | Joint::Ball(_));
    JointProps {
        armature: r.chance(0.3).then(|| r.log(1e-5, 0.1)),
        damping: r.chance(0.5).then(|| r.log(1e-4, 5.0)),
        stiffness: r.chance(if free { 0.1 } else { 0.4 }).then(|| r.log(1e-3, 50.0)),
        springref: (!free && r.chance(0.3)).then(|| if angular { r.range(-30.0, 30.0) } else { r.range(-0.1, 0.1) }),
        frictionloss: r.chance(0.3).then(|| r.log(1e-4, 1.0)),
        range: (!free && r.chance(0.4)).then(|| match j {
            Joint::Ball(_) => [0.0, r.range(5.0, 120.0)],
            Joint::Slide(..) => [r.range(-0.2, 0.0), r.range(0.0, 0.2)],
            // sometimes not holding the start angle 0
            _ => {
                let lo = r.range(-120.0, 20.0);
                [lo, lo + r.range(5.0, 120.0)]
            }
        }),
    }
}

/// An actuator on `joint` (a hinge or a slide).
fn actuator(r: &mut Rng, joint: String) -> ActuatorSpec {
    let gain = |r: &mut Rng| r.log(0.01, 50.0);
    let kind = match r.below(6) {
        0 => ActuatorKind::Motor,
        1 => ActuatorKind::Position(gain(r), if r.chance(0.5) { 0.0 } else { r.log(1e-3, 5.0) }),
        2 => ActuatorKind::Velocity(gain(r)),
        3 => ActuatorKind::IntVelocity(gain(r)),
        4 => ActuatorKind::Damper(gain(r)),
        _ => {
            let affine = r.chance(0.5);
            ActuatorKind::General {
                gaintype: if r.chance(0.5) { "fixed" } else { "affine" },
                gainprm: [gain(r), r.range(-2.0, 2.0), r.range(-2.0, 2.0)],
                biastype: if affine { "affine" } else { "none" },
                biasprm: [r.range(-2.0, 2.0), -gain(r), -r.log(1e-3, 5.0)],
                dyntype: r.pick(&["none", "integrator", "filter", "filterexact"]),
                dynprm: r.log(1e-3, 1.0),
                actearly: r.chance(0.3),
            }
        }
    };
    let damper = matches!(kind, ActuatorKind::Damper(_));
    let ctrlrange = (damper || r.chance(0.5)).then(|| {
        if damper {
            [0.0, r.log(0.1, 3.0)]
        } else {
            [-r.log(0.1, 3.0), r.log(0.1, 3.0)]
        }
    });
    let forcerange = r.chance(0.3).then(|| [-r.log(0.01, 20.0), r.log(0.01, 20.0)]);
    let mut a = ActuatorSpec {
        joint,
        kind,
        gear: if r.chance(0.3) { r.range(-3.0, 3.0) } else { 1.0 },
        ctrlrange,
        forcerange,
        actrange: None,
        damping: r.chance(0.2).then(|| r.log(1e-4, 2.0)),
        armature: r.chance(0.2).then(|| r.log(1e-5, 0.05)),
        // sometimes outside the control range, to exercise the clamp
        ctrl: if damper { r.range(0.0, 3.0) } else { r.range(-3.0, 3.0) },
        act: r.range(-1.0, 1.0),
    };
    if a.has_act() && r.chance(0.4) {
        a.actrange = Some([-r.log(0.1, 2.0), r.log(0.1, 2.0)]);
    }
    a
}

/// Adds mechanisms, joint properties and actuators to `sc`, from `seed`'s own stream.
pub fn draw(seed: u64, sc: &mut Scene) {
    let mut r = Rng::new(seed ^ 0x6479_6e61_6d69_6373);
    for k in 0..if r.chance(0.4) { 1 + r.below(2) } else { 0 } {
        let m = mechanism(&mut r, k, &mut sc.meshes);
        sc.bodies.push(m);
    }
    dress(&mut r, sc, 0.6);
}

/// Draws properties for half the joints of `sc` that have none, and with chance `p_actuated`
/// one to three actuators on its hinges and slides.
pub(super) fn dress(r: &mut Rng, sc: &mut Scene, p_actuated: f64) {
    let joints: Vec<(String, Joint)> = sc.joints().into_iter().map(|(n, j)| (n, j.clone())).collect();
    for (name, j) in &joints {
        if !sc.dynamics.joints.contains_key(name) && r.chance(0.5) {
            sc.dynamics.joints.insert(name.clone(), props(r, j));
        }
    }
    let actuated: Vec<&String> =
        joints.iter().filter(|(_, j)| matches!(j, Joint::Hinge(..) | Joint::Slide(..))).map(|(n, _)| n).collect();
    if !actuated.is_empty() && r.chance(p_actuated) {
        for _ in 0..1 + r.below(3) {
            let j = actuated[r.below(actuated.len())].clone();
            sc.dynamics.actuators.push(actuator(r, j));
        }
    }
}
