//! Actuator defaults, activation counts and control counts.
//!
//! MuJoCo keeps one actuator default per class. Every actuator shortcut written inside a
//! `default` (`general`, `motor`, `position`, `dcmotor`, ...) edits that same default, and an
//! actuator element starts from its class's default before its own attributes and its
//! shortcut's implied settings are applied. The number of activation states (`actuator_actnum`,
//! summed into `na`) therefore depends on the class: `<general class="c"/>` is stateful when
//! class `c` sets `dyntype="filter"`, and `<position/>` gets a filter when the class sets a
//! `timeconst`.
//!
//! Only the part of the actuator that decides the activation and control counts (`na`, `nu`)
//! is tracked here: the three types, `actdim`, the `input` signature, and the parameters the
//! shortcuts read back when they inherit (`dynprm`, `gainprm`).
//!
//! Algorithm (per element, defaults and actuators alike):
//! 1. Read the attributes every actuator has (`dyntype`, `gaintype`, `biastype`, `actdim`,
//!    `dynprm`, `gainprm`, `biasprm`).
//! 2. Apply the shortcut: it sets the types it implies and, for `position`/`intvelocity`
//!    (`timeconst`), `pid` (`ki`, `slewmax`) and `dcmotor` (inductance, controller, thermal
//!    and LuGre states), the dynamics that decide the number of states.
//! 3. At compile time ([`ActuatorSpec::actnum`]): a PID with states has one per active slot; an
//!    SO3 integrator has 3; an unset `actdim` is 1 for every stateful type but `dcmotor`.
//!    Controls ([`ActuatorSpec::ctrlnum`]) follow the gain type and `input`.

use super::attrs::{arr, err_attr, int, keyword, num, Res};
use crate::xml::Element;

/// Dynamics types (`mjtDyn`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DynType {
    /// No internal state.
    #[default]
    None,
    /// da/dt = u.
    Integrator,
    /// First-order filter.
    Filter,
    /// First-order filter integrated exactly.
    FilterExact,
    /// Muscle activation.
    Muscle,
    /// DC motor electrical (and controller, thermal, friction) states.
    DcMotor,
    /// PID controller states (slew, integral).
    Pid,
    /// User-defined dynamics.
    User,
}

/// Gain types (`mjtGain`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GainType {
    /// Fixed gain.
    #[default]
    Fixed,
    /// Affine gain.
    Affine,
    /// Muscle gain.
    Muscle,
    /// DC motor gain.
    DcMotor,
    /// Geodesic servo on SO3.
    So3,
    /// PID controller.
    Pid,
    /// User-defined gain.
    User,
}

/// Bias types (`mjtBias`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BiasType {
    /// No bias.
    #[default]
    None,
    /// Affine bias.
    Affine,
    /// Muscle passive force.
    Muscle,
    /// DC motor back-EMF, cogging and friction.
    DcMotor,
    /// Damping of the SO3 servo.
    So3,
    /// User-defined bias.
    User,
}

const DYN_MAP: [(&str, DynType); 8] = [
    ("none", DynType::None),
    ("integrator", DynType::Integrator),
    ("filter", DynType::Filter),
    ("filterexact", DynType::FilterExact),
    ("muscle", DynType::Muscle),
    ("dcmotor", DynType::DcMotor),
    ("pid", DynType::Pid),
    ("user", DynType::User),
];

const GAIN_MAP: [(&str, GainType); 7] = [
    ("fixed", GainType::Fixed),
    ("affine", GainType::Affine),
    ("muscle", GainType::Muscle),
    ("dcmotor", GainType::DcMotor),
    ("so3", GainType::So3),
    ("pid", GainType::Pid),
    ("user", GainType::User),
];

const BIAS_MAP: [(&str, BiasType); 6] = [
    ("none", BiasType::None),
    ("affine", BiasType::Affine),
    ("muscle", BiasType::Muscle),
    ("dcmotor", BiasType::DcMotor),
    ("so3", BiasType::So3),
    ("user", BiasType::User),
];

/// The state of an actuator (or of a class's actuator default) that decides its activation count.
#[derive(Clone, Debug, PartialEq)]
pub struct ActuatorSpec {
    /// Dynamics type.
    pub dyntype: DynType,
    /// Gain type.
    pub gaintype: GainType,
    /// Bias type.
    pub biastype: BiasType,
    /// Requested number of activation states (-1: decided by the dynamics type).
    pub actdim: i32,
    /// Dynamics parameters.
    pub dynprm: [f64; 10],
    /// Gain parameters.
    pub gainprm: [f64; 10],
    /// Input signature from `input` (`mjtInputChart` value for SO3, else `mjtInputBit` flags;
    /// 0: the type's default).
    pub ctrlspec: i32,
    /// Every other compiled parameter (ranges, gear, bias, shortcut kind).
    pub params: super::actuator_params::Params,
}

impl Default for ActuatorSpec {
    /// MuJoCo's built-in actuator default: a stateless unit-gain motor.
    fn default() -> Self {
        let mut dynprm = [0.0; 10];
        dynprm[0] = 1.0;
        let mut gainprm = [0.0; 10];
        gainprm[0] = 1.0;
        ActuatorSpec {
            dyntype: DynType::None,
            gaintype: GainType::Fixed,
            biastype: BiasType::None,
            actdim: -1,
            dynprm,
            gainprm,
            ctrlspec: 0,
            params: super::actuator_params::Params::default(),
        }
    }
}

/// `input="quat"`: the SO3 servo's quaternion chart (`mjCHART_QUAT`).
const INPUT_QUAT: i32 = 2;
/// Input bits (`mjtInputBit`).
const INPUT_POS: i32 = 1;
const INPUT_VEL: i32 = 2;
const INPUT_FF: i32 = 4;
const INPUT_VOLTAGE: i32 = 8;
const INPUT_PRESSURE: i32 = 32;

/// Reads `input` into `ctrlspec` as MuJoCo numbers it: a chart keyword (`expmap` 1, `quat` 2),
/// `none` (16), or the OR of the listed input bits (`pos`, `vel`, `ff`, `voltage`, `pressure`).
fn read_input(el: &Element, ctrlspec: &mut i32) -> Res<()> {
    let Some(a) = el.attr("input") else { return Ok(()) };
    let text = a.value.trim();
    *ctrlspec = match text {
        "expmap" => 1,
        "quat" => INPUT_QUAT,
        "none" => 16,
        _ => {
            let mut spec = 0;
            for t in crate::xml::values::tokens(text) {
                spec |= match t {
                    "pos" => INPUT_POS,
                    "vel" => INPUT_VEL,
                    "ff" => INPUT_FF,
                    "voltage" => INPUT_VOLTAGE,
                    "pressure" => INPUT_PRESSURE,
                    _ => {
                        return Err(err_attr(
                            a,
                            format!("attribute 'input': '{t}' is not one of [pos, vel, ff, voltage, pressure]"),
                        ))
                    }
                };
            }
            spec
        }
    };
    Ok(())
}

/// Whether an element name is an actuator shortcut (allowed in `default` and `actuator`).
pub fn is_actuator(name: &str) -> bool {
    matches!(
        name,
        "general"
            | "motor"
            | "position"
            | "velocity"
            | "damper"
            | "intvelocity"
            | "orientation"
            | "pid"
            | "cylinder"
            | "muscle"
            | "adhesion"
            | "dcmotor"
    )
}

/// The transmission attributes in the order MuJoCo 4.0.0 reads them, each with the kind of
/// object it names. Measured: when several are given, the last one read is the transmission
/// (`joint` and `tendon` is a tendon transmission, `tendon` and `site` a site one), and its value
/// is the target (`joint="j" tendon=""` is a missing target, `joint="" tendon="t"` loads).
pub const TRANSMISSIONS: [(&str, &str); 6] = [
    ("joint", "joint"),
    ("jointinparent", "joint"),
    ("tendon", "tendon"),
    ("cranksite", "site"),
    ("site", "site"),
    ("body", "body"),
];

/// The attribute that sets actuator `a`'s transmission and the kind of object it names.
pub fn transmission(a: &Element) -> Option<(&crate::xml::Attr, &'static str)> {
    TRANSMISSIONS.iter().rev().find_map(|(attr, kind)| a.attr(attr).map(|v| (v, *kind)))
}

impl ActuatorSpec {
    /// Applies an actuator element (shortcut or `general`) on top of this state.
    pub fn apply(&mut self, el: &Element) -> Res<()> {
        let prev = self.clone();
        if let Some(t) = keyword(el, "dyntype", &DYN_MAP)? {
            self.dyntype = t;
        }
        if let Some(t) = keyword(el, "gaintype", &GAIN_MAP)? {
            self.gaintype = t;
        }
        if let Some(t) = keyword(el, "biastype", &BIAS_MAP)? {
            self.biastype = t;
        }
        // a shortcut counts its own states: an actdim inherited from a general default is
        // dropped (measured: under <general actdim="2" dyntype="user"/>, <motor> has 0 states,
        // <cylinder> 1, while <general> keeps 2)
        if el.name != "general" {
            self.actdim = -1;
        }
        int(el, "actdim", &mut self.actdim)?;
        arr(el, "dynprm", &mut self.dynprm, false)?;
        arr(el, "gainprm", &mut self.gainprm, false)?;
        // probed with MuJoCo 4.0.0: the dcmotor, pid and orientation shortcuts inherit `input`
        // only from a default of their own kind (a pid under <orientation input="quat"/> takes
        // 2 controls, under <dcmotor input="pos"/> also 2); general inherits any
        let own = match el.name.as_str() {
            "dcmotor" => Some(GainType::DcMotor),
            "pid" => Some(GainType::Pid),
            "orientation" => Some(GainType::So3),
            _ => None,
        };
        if own.is_some_and(|g| g != self.gaintype) {
            self.ctrlspec = 0;
        }
        read_input(el, &mut self.ctrlspec)?;
        // probed with MuJoCo 4.0.0 (M20): the one-input shortcuts write their input whatever the
        // default held (motor, damper, adhesion and muscle none, position pos, velocity and
        // intvelocity vel, cylinder pressure), and a <general> under them inherits it
        match el.name.as_str() {
            "motor" | "damper" | "adhesion" | "muscle" => self.ctrlspec = 0,
            "position" => self.ctrlspec = INPUT_POS,
            "velocity" | "intvelocity" => self.ctrlspec = INPUT_VEL,
            "cylinder" => self.ctrlspec = INPUT_PRESSURE,
            _ => {}
        }
        match el.name.as_str() {
            "motor" => self.set_types(DynType::None, GainType::Fixed, BiasType::None),
            "velocity" => self.set_types(DynType::None, GainType::Fixed, BiasType::Affine),
            "position" | "intvelocity" => {
                // probed with MuJoCo 4.0.0: the time constant is inherited only from a class
                // whose dynamics already are `filterexact` (under dyntype="filter" a plain
                // <position> has na 0; under dyntype="filterexact" dynprm="0" also 0, with the
                // default dynprm[0] = 1 it has na 1), and it always decides the dynamics
                let inherited = self.dyntype == DynType::FilterExact;
                let mut tc = if inherited { self.dynprm[0] } else { 0.0 };
                // dynprm[0] is written only when there is a time constant (measured: a plain
                // <position> keeps the default dynprm[0] = 1)
                if num(el, "timeconst", &mut tc)? || inherited {
                    self.dynprm[0] = tc;
                }
                self.dyntype = if tc == 0.0 { DynType::None } else { DynType::FilterExact };
                let d = if el.name == "intvelocity" { DynType::Integrator } else { self.dyntype };
                self.set_types(d, GainType::Fixed, BiasType::Affine);
            }
            "orientation" => self.set_types(DynType::None, GainType::So3, BiasType::So3),
            "pid" => self.apply_pid(el)?,
            "damper" => {
                self.gainprm = [0.0; 10];
                let mut kv = 0.0;
                num(el, "kv", &mut kv)?;
                self.gainprm[2] = -kv;
                self.set_types(DynType::None, GainType::Affine, BiasType::None);
            }
            "cylinder" => {
                num(el, "timeconst", &mut self.dynprm[0])?;
                self.set_types(DynType::Filter, GainType::Fixed, BiasType::Affine);
            }
            "muscle" => self.set_types(DynType::Muscle, GainType::Muscle, BiasType::Muscle),
            // probed with MuJoCo 4.0.0: under a class with dyntype="filter", <adhesion> has
            // actuator_dyntype 0 and na 0
            "adhesion" => self.set_types(DynType::None, GainType::Fixed, BiasType::None),
            // (its parameters and states: actuator_dcmotor, after the common attributes)
            "dcmotor" => self.set_types(DynType::DcMotor, GainType::DcMotor, BiasType::DcMotor),
            _ => {}
        }
        super::actuator_params::apply(self, el, &prev)
    }

    fn set_types(&mut self, dyn_: DynType, gain: GainType, bias: BiasType) {
        self.dyntype = dyn_;
        self.gaintype = gain;
        self.biastype = bias;
    }

    /// `pid`: ki (gainprm[0]), imax (dynprm[0]) and slewmax (dynprm[1]) are inherited only
    /// from a default that already is a PID with states.
    fn apply_pid(&mut self, el: &Element) -> Res<()> {
        let had = if self.dyntype == DynType::Pid { 1.0 } else { 0.0 };
        let mut ki = self.gainprm[0] * had;
        let mut imax = self.dynprm[0] * had;
        let mut slew = self.dynprm[1] * had;
        num(el, "ki", &mut ki)?;
        num(el, "imax", &mut imax)?;
        num(el, "slewmax", &mut slew)?;
        self.gainprm[0] = ki;
        self.dynprm[1] = slew;
        self.dyntype = if ki != 0.0 || slew != 0.0 { DynType::Pid } else { DynType::None };
        // imax is kept only with an integral term
        if ki != 0.0 {
            self.dynprm[0] = imax;
        }
        self.gaintype = GainType::Pid;
        self.biastype = BiasType::Affine;
        Ok(())
    }

    /// A PID's input bits (`mjtInputBit`; default `pos vel`).
    pub fn input_bits(&self) -> i32 {
        if self.ctrlspec != 0 {
            self.ctrlspec
        } else {
            INPUT_POS | INPUT_VEL
        }
    }

    /// `actuator_ctrlspec`: the input signature with an unset one resolved to its type's
    /// default (SO3 the exponential map, PID `pos vel`, DC motor `voltage`; others stay 0).
    pub fn compiled_ctrlspec(&self) -> i32 {
        if self.ctrlspec != 0 {
            return self.ctrlspec;
        }
        if self.gaintype == GainType::So3 || self.biastype == BiasType::So3 {
            return 1;
        }
        match self.gaintype {
            GainType::Pid => INPUT_POS | INPUT_VEL,
            GainType::DcMotor => INPUT_VOLTAGE,
            _ => 0,
        }
    }

    /// Number of controls the compiled actuator takes: 3 or 4 for an SO3 servo (exponential
    /// map or quaternion), one per input of a PID (default `pos vel`) or a DC motor (default
    /// `voltage`; `none` takes no control), else 1.
    pub fn ctrlnum(&self) -> usize {
        let bits = |spec: i32, mask: i32| (spec & mask).count_ones() as usize;
        if self.gaintype == GainType::So3 || self.biastype == BiasType::So3 {
            return if self.ctrlspec == INPUT_QUAT { 4 } else { 3 };
        }
        match self.gaintype {
            GainType::Pid => {
                let spec = if self.ctrlspec != 0 { self.ctrlspec } else { INPUT_POS | INPUT_VEL };
                bits(spec, INPUT_POS | INPUT_VEL | INPUT_FF)
            }
            GainType::DcMotor => {
                let spec = if self.ctrlspec != 0 { self.ctrlspec } else { INPUT_VOLTAGE };
                bits(spec, INPUT_POS | INPUT_VEL | INPUT_FF | INPUT_VOLTAGE)
            }
            _ => 1,
        }
    }

    /// Number of activation states the compiled actuator has (`actuator_actnum`).
    pub fn actnum(&self) -> usize {
        let mut actdim = self.actdim;
        if self.gaintype == GainType::Pid && self.dyntype == DynType::Pid {
            actdim = i32::from(self.dynprm[1] > 0.0) + i32::from(self.gainprm[0] > 0.0);
        }
        let so3 = self.gaintype == GainType::So3 || self.biastype == BiasType::So3;
        if so3 && self.dyntype == DynType::Integrator {
            actdim = 3;
        }
        if actdim < 0 {
            actdim = i32::from(self.dyntype != DynType::None && self.dyntype != DynType::DcMotor);
        }
        actdim.max(0) as usize
    }
}
