//! The compiled actuator parameters beyond the activation and control counts: ranges and their
//! limited flags, gear, bias, the shortcuts' gains, transmissions and the lengths at `qpos0`.
//!
//! A shortcut (`position`, `velocity`, `damper`, `cylinder`, `adhesion`, ...) reads its own
//! parameters (`kp`, `kv`, `area`, ...) starting from the class's actuator default only when that
//! default was written by the same shortcut, or by `general` with the shortcut's gain type;
//! otherwise from the shortcut's documented defaults (`kp` 1, `kv` 1 for `velocity`, 0 for
//! `damper`, `timeconst` 1 and `area` 1 for `cylinder`, `gain` 1 for `adhesion`). It then writes
//! them into the gain, bias and dynamics parameters as MuJoCo 4.0.0's shortcut setters do.
//!
//! Muscles get their parameters here; their length range, when not given, is found by a
//! simulation the native crate runs (`specula_native::lengthrange`, D65), so this crate leaves
//! `actuator_lengthrange` as written.
//!
//! Not compiled yet (the model's actuator arrays are left empty and
//! `Model::actuator_unsupported` says why): PID, DC motor and orientation servos, a position
//! servo's `dampratio` (converted with the effective mass at `qpos0`), transmissions other than
//! joints and tendons (their `length0` needs site kinematics). Actuators copied by `replicate` or
//! brought by `attach` are compiled from their copies ([`super::copies`]).

use std::f64::consts::PI;

use super::actuator::{transmission, ActuatorSpec, BiasType, DynType, GainType};
use super::attrs::{arr, boolean, int, keyword, num, Res, FALSE_TRUE_AUTO};
use super::copies::Placed;
use super::tree::Source;
use crate::model::Model;
use crate::types::JointType;
use crate::xml::Element;

/// The actuator parameters the counts do not need, as a class default or an actuator holds them.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The element that last wrote this state (`general` or a shortcut's name).
    pub kind: String,
    /// Bias parameters.
    pub biasprm: [f64; 10],
    /// Group.
    pub group: i32,
    /// Control, force and activation limits: 0 false, 1 true, 2 auto.
    pub limited: [u8; 3],
    /// Control range (a PID's position-setpoint range).
    pub ctrlrange: [f64; 2],
    /// A PID's velocity-setpoint range.
    pub velrange: [f64; 2],
    /// A PID's feedforward range.
    pub ffrange: [f64; 2],
    /// Force range.
    pub forcerange: [f64; 2],
    /// Activation range.
    pub actrange: [f64; 2],
    /// Length range.
    pub lengthrange: [f64; 2],
    /// Gear.
    pub gear: [f64; 6],
    /// Slider-crank length.
    pub cranklength: f64,
    /// Force from the next activation.
    pub actearly: bool,
    /// Armature on the transmission's dofs.
    pub armature: f64,
    /// Damping on the transmission's dofs.
    pub damping: f64,
    /// Fraction of the joint range the control (or activation) range takes.
    pub inheritrange: f64,
    /// The actuator defaults of the ancestor classes, nearest first (a shortcut's parameter
    /// source when its own class's default is of another kind).
    pub ancestors: Vec<ActuatorSpec>,
}

impl Default for Params {
    /// MuJoCo's built-in actuator default: unit gear, limits decided by the ranges.
    fn default() -> Self {
        Params {
            kind: "general".into(),
            biasprm: [0.0; 10],
            group: 0,
            limited: [2; 3],
            ctrlrange: [0.0; 2],
            velrange: [0.0; 2],
            ffrange: [0.0; 2],
            forcerange: [0.0; 2],
            actrange: [0.0; 2],
            lengthrange: [0.0; 2],
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            cranklength: 0.0,
            actearly: false,
            armature: 0.0,
            damping: 0.0,
            inheritrange: 0.0,
            ancestors: Vec::new(),
        }
    }
}

/// Whether a shortcut `kind` starts its parameters from the class default `slot`: a default of
/// the same shortcut, or a `general` one with the shortcut's gain type.
fn inherits(slot: &ActuatorSpec, kind: &str) -> bool {
    if slot.params.kind == kind {
        return true;
    }
    if slot.params.kind != "general" {
        return false;
    }
    let gain = match kind {
        "damper" => GainType::Affine,
        "muscle" => GainType::Muscle,
        "dcmotor" => GainType::DcMotor,
        "pid" => GainType::Pid,
        "orientation" => GainType::So3,
        _ => GainType::Fixed,
    };
    slot.gaintype == gain
}

/// Where a shortcut `kind` under the class default `prev` takes its parameters: whether it has
/// a source, and the source (the class's own default or the nearest ancestor it inherits from).
pub(super) fn param_source<'a>(prev: &'a ActuatorSpec, kind: &str) -> (bool, &'a ActuatorSpec) {
    match std::iter::once(prev).chain(prev.params.ancestors.iter()).find(|s| inherits(s, kind)) {
        Some(s) => (true, s),
        None => (false, prev),
    }
}

/// Applies the attributes every actuator has, then the shortcut's parameters, on top of `spec`;
/// `prev` is the state before this element (its class default).
pub(super) fn apply(spec: &mut ActuatorSpec, el: &Element, prev: &ActuatorSpec) -> Res<()> {
    let p = &mut spec.params;
    int(el, "group", &mut p.group)?;
    for (k, attr) in ["ctrllimited", "forcelimited", "actlimited"].iter().enumerate() {
        if let Some(v) = keyword(el, attr, &FALSE_TRUE_AUTO)? {
            p.limited[k] = v;
        }
    }
    arr(el, "ctrlrange", &mut p.ctrlrange, true)?;
    arr(el, "posrange", &mut p.ctrlrange, true)?;
    arr(el, "velrange", &mut p.velrange, true)?;
    arr(el, "ffrange", &mut p.ffrange, true)?;
    arr(el, "forcerange", &mut p.forcerange, true)?;
    arr(el, "actrange", &mut p.actrange, true)?;
    arr(el, "lengthrange", &mut p.lengthrange, true)?;
    arr(el, "gear", &mut p.gear, false)?;
    num(el, "cranklength", &mut p.cranklength)?;
    boolean(el, "actearly", &mut p.actearly)?;
    num(el, "armature", &mut p.armature)?;
    num(el, "damping", &mut p.damping)?;
    arr(el, "biasprm", &mut p.biasprm, false)?;
    let kind = el.name.as_str();
    // the parameter source: the class's own default, else the nearest ancestor's, that was
    // written by this shortcut or by `general` with its gain type (measured: a <velocity> in a
    // class whose default is a <position>, under a class with <velocity kv="4">, gets kv 4)
    let (src, prev) = param_source(prev, kind);
    // the affine shortcuts start from the built-in parameters, not their class's (measured:
    // <motor>, <velocity> and <position> under <general gainprm="2 3" dynprm="0.5 0.25"
    // biasprm="0.5"> compile to gainprm[1] 0, dynprm[0] 1, biasprm[0] 0); a servo keeps the
    // time constant it read or inherited
    if matches!(kind, "motor" | "position" | "intvelocity" | "velocity" | "damper" | "cylinder" | "adhesion") {
        let keep_tc = matches!(kind, "position" | "intvelocity")
            && (el.attr("timeconst").is_some() || spec.dyntype == DynType::FilterExact);
        let tc = spec.dynprm[0];
        let builtin = ActuatorSpec::default();
        spec.dynprm = builtin.dynprm;
        spec.gainprm = builtin.gainprm;
        spec.params.biasprm = [0.0; 10];
        if keep_tc {
            spec.dynprm[0] = tc;
        }
    }
    // every shortcut but `general` and `dcmotor` clears `actearly` and sets `actlimited` to
    // auto, whatever the class held (measured: under <general actearly="true"> or a <dcmotor>
    // default they compile to actuator_actearly 0; under <general actlimited="false">,
    // <intvelocity actrange="0 1"> has actlimited 1; under <general actlimited="true">, a
    // <motor> loads with actlimited 0; M21)
    const SETTERS: [&str; 9] =
        ["motor", "position", "intvelocity", "velocity", "damper", "cylinder", "adhesion", "muscle", "pid"];
    if SETTERS.contains(&kind) {
        spec.params.actearly = false;
        spec.params.limited[2] = 2;
    }
    match kind {
        "motor" => spec.gainprm[0] = 1.0,
        "position" | "intvelocity" => servo(spec, el, prev, src)?,
        "velocity" => {
            let mut kv = if src { prev.gainprm[0] } else { 1.0 };
            num(el, "kv", &mut kv)?;
            spec.params.biasprm = [0.0; 10];
            spec.gainprm[0] = kv;
            spec.params.biasprm[2] = -kv;
        }
        "damper" => {
            let mut kv = if src { -prev.gainprm[2] } else { 0.0 };
            num(el, "kv", &mut kv)?;
            spec.gainprm = [0.0; 10];
            spec.gainprm[2] = -kv;
            spec.params.limited[0] = 1;
        }
        "cylinder" => {
            let (mut tc, mut area, mut diameter) =
                if src { (prev.dynprm[0], prev.gainprm[0], -1.0) } else { (1.0, 1.0, -1.0) };
            let mut bias = [0.0; 3];
            if src {
                bias.copy_from_slice(&prev.params.biasprm[..3]);
            }
            num(el, "timeconst", &mut tc)?;
            num(el, "area", &mut area)?;
            num(el, "diameter", &mut diameter)?;
            arr(el, "bias", &mut bias, false)?;
            spec.dynprm[0] = tc;
            spec.params.biasprm[..3].copy_from_slice(&bias);
            spec.gainprm[0] = if diameter >= 0.0 { PI / 4.0 * diameter * diameter } else { area };
        }
        "muscle" => muscle(spec, el, prev, src)?,
        "dcmotor" => super::actuator_dcmotor::dcmotor(spec, el, prev, src)?,
        "pid" => super::actuator_dcmotor::pid(spec, el, prev, src)?,
        "adhesion" => {
            let mut gain = if src { prev.gainprm[0] } else { 1.0 };
            num(el, "gain", &mut gain)?;
            spec.gainprm[0] = gain;
            spec.params.limited[0] = 1;
        }
        _ => {}
    }
    spec.params.kind = kind.to_string();
    Ok(())
}

/// The built-in muscle parameters: range (2), force (-1: from `scale / acc0`), scale, lmin,
/// lmax, vmax, fpmax, fvmax.
const MUSCLE_PRM: [f64; 9] = [0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2];

/// `muscle`: time constants (`dynprm[0..2]`, default 0.01 and 0.04) and `tausmooth`
/// (`dynprm[2]`), the force-length-velocity parameters in both `gainprm` and `biasprm`. Each
/// value is the element's, else the class's muscle default's; as 4.0.0's `mjs_setToMuscle`
/// every other parameter is cleared, and a negative value gives the built-in one (measured: a
/// `force="-3"` under a class with `force="12"` compiles to -1).
fn muscle(spec: &mut ActuatorSpec, el: &Element, prev: &ActuatorSpec, src: bool) -> Res<()> {
    const BUILTIN_TC: [f64; 2] = [0.01, 0.04];
    let (mut tc, mut tausmooth, mut prm) = (BUILTIN_TC, 0.0, MUSCLE_PRM);
    if src {
        tc.copy_from_slice(&prev.dynprm[..2]);
        tausmooth = prev.dynprm[2];
        prm.copy_from_slice(&prev.gainprm[..9]);
    }
    arr(el, "timeconst", &mut tc, true)?;
    num(el, "tausmooth", &mut tausmooth)?;
    let mut range = [prm[0], prm[1]];
    arr(el, "range", &mut range, true)?;
    prm[..2].copy_from_slice(&range);
    for (k, name) in [(2, "force"), (3, "scale"), (4, "lmin"), (5, "lmax"), (6, "vmax"), (7, "fpmax"), (8, "fvmax")] {
        num(el, name, &mut prm[k])?;
    }
    let keep = |v: f64, builtin: f64| if v >= 0.0 { v } else { builtin };
    spec.dynprm = [0.0; 10];
    spec.dynprm[0] = keep(tc[0], BUILTIN_TC[0]);
    spec.dynprm[1] = keep(tc[1], BUILTIN_TC[1]);
    spec.dynprm[2] = tausmooth;
    spec.gainprm = [0.0; 10];
    for k in 0..9 {
        spec.gainprm[k] = keep(prm[k], MUSCLE_PRM[k]);
    }
    spec.params.biasprm = spec.gainprm;
    Ok(())
}

/// `position` and `intvelocity`: stiffness `kp`, then damping as `kv` (stored negated in
/// `biasprm[2]`) or `dampratio` (stored positive), and the range inheritance.
fn servo(spec: &mut ActuatorSpec, el: &Element, prev: &ActuatorSpec, src: bool) -> Res<()> {
    let mut kp = if src { prev.gainprm[0] } else { 1.0 };
    let b2 = if src { prev.params.biasprm[2] } else { 0.0 };
    let (mut kv, mut dampratio) = ((b2 < 0.0).then_some(-b2), (b2 > 0.0).then_some(b2));
    let mut inheritrange = if src { prev.params.inheritrange } else { 0.0 };
    num(el, "kp", &mut kp)?;
    read_damping(el, &mut kv, &mut dampratio, &mut inheritrange)?;
    spec.gainprm[0] = kp;
    spec.params.biasprm[1] = -kp;
    if let Some(kv) = kv {
        spec.params.biasprm[2] = -kv;
    }
    if let Some(d) = dampratio {
        spec.params.biasprm[2] = d;
    }
    // intvelocity leaves `actlimited` to its range (measured: an <intvelocity> without actrange
    // compiles to actuator_actlimited 0)
    spec.params.inheritrange = inheritrange;
    Ok(())
}

/// A servo's or a PID's damping, each starting from the class's: `kv` (a damping) or
/// `dampratio` (a ratio), the one read last replacing the other, then `inheritrange`.
pub(super) fn read_damping(
    el: &Element,
    kv: &mut Option<f64>,
    dampratio: &mut Option<f64>,
    inheritrange: &mut f64,
) -> Res<()> {
    let mut v = 0.0;
    if num(el, "kv", &mut v)? {
        *kv = Some(v);
        *dampratio = None;
    }
    if num(el, "dampratio", &mut v)? {
        *dampratio = Some(v);
        *kv = None;
    }
    num(el, "inheritrange", inheritrange)?;
    Ok(())
}

/// Why actuator `spec` cannot be compiled here yet, if it cannot.
fn unsupported(spec: &ActuatorSpec, trn: &str) -> Option<String> {
    if spec.gaintype == GainType::So3 || spec.biastype == BiasType::So3 {
        return Some("an orientation (SO3) servo (3 force outputs)".into());
    }
    // (a servo's or a PID's dampratio, a positive biasprm[2], is converted to a damping by
    // the native pass at qpos0: specula_native::lengthrange::set_dampratio)
    if !matches!(trn, "joint" | "jointinparent" | "tendon" | "body" | "site" | "cranksite") {
        return Some(format!("a {trn} transmission (its length0 needs {trn} kinematics)"));
    }
    None
}

/// A range-limited flag: `auto` (2) is on when autolimits is set and the range is a proper
/// interval, `lo < hi` (measured: `1 -1` and `1 1` compile unlimited, as joints do).
fn limited(flag: u8, range: [f64; 2], autolimits: bool) -> bool {
    match flag {
        2 => autolimits && range[0] < range[1],
        f => f == 1,
    }
}

/// Compiles the actuator elements `elems` into `m`, each with the defaults and `autolimits` of
/// its model in `sources`, or leaves the arrays empty with `m.actuator_unsupported` set.
pub fn compile_actuators(elems: &[Placed], sources: &[Source], autolimits: &[bool], m: &mut Model) -> Res<()> {
    let names: Vec<String> =
        elems.iter().map(|p| p.el.attr("name").map(|a| a.value.clone()).unwrap_or_default()).collect();
    if names != m.actuator_names {
        m.actuator_unsupported = Some("actuators added or copied by replicate or attach".into());
        return Ok(());
    }
    let mut c = Compiled::default();
    for p in elems {
        let (el, defs) = (&p.el, &sources[p.src].defaults);
        let class = defs.class_of(el, 0)?;
        let mut spec = defs.classes[class].actuator.clone();
        spec.apply(el)?;
        let Some((attr, _)) = transmission(el) else {
            m.actuator_unsupported = Some("an actuator without transmission".into());
            return Ok(());
        };
        if let Some(why) = unsupported(&spec, &attr.name) {
            m.actuator_unsupported = Some(why);
            return Ok(());
        }
        let target = if attr.name == "tendon" {
            let Some(t) = m.tendon_names.iter().position(|n| *n == attr.value) else {
                m.actuator_unsupported = Some(format!("tendon '{}' not found", attr.value));
                return Ok(());
            };
            if spec.params.inheritrange > 0.0 {
                m.actuator_unsupported = Some("inheritrange on a tendon transmission".into());
                return Ok(());
            }
            Target::Tendon(t)
        } else if matches!(attr.name.as_str(), "site" | "cranksite") {
            let site = |name: &str| m.site_names.iter().position(|n| n == name);
            let Some(s) = site(&attr.value) else {
                m.actuator_unsupported = Some(format!("site '{}' not found", attr.value));
                return Ok(());
            };
            if spec.params.inheritrange > 0.0 {
                m.actuator_unsupported = Some(format!("inheritrange on a {} transmission", attr.name));
                return Ok(());
            }
            // a reference site (site) or the slider's site (cranksite), -1 when absent or empty
            let other = if attr.name == "site" { "refsite" } else { "slidersite" };
            let other = match el.attr(other).map(|a| a.value.as_str()).filter(|v| !v.is_empty()) {
                None => -1,
                Some(v) => match site(v) {
                    Some(r) => r as i32,
                    None => {
                        m.actuator_unsupported = Some(format!("site '{v}' not found"));
                        return Ok(());
                    }
                },
            };
            if attr.name == "site" {
                Target::Site(s, other)
            } else {
                Target::SliderCrank(s, other)
            }
        } else if attr.name == "body" {
            let Some(b) = m.body_names.iter().position(|n| *n == attr.value) else {
                m.actuator_unsupported = Some(format!("body '{}' not found", attr.value));
                return Ok(());
            };
            if spec.params.inheritrange > 0.0 {
                m.actuator_unsupported = Some("inheritrange on a body transmission".into());
                return Ok(());
            }
            Target::Body(b)
        } else {
            let Some(j) = m.jnt_names.iter().position(|n| *n == attr.value) else {
                m.actuator_unsupported = Some(format!("joint '{}' not found", attr.value));
                return Ok(());
            };
            if !matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) && spec.params.inheritrange > 0.0 {
                m.actuator_unsupported = Some("inheritrange on a ball or free joint transmission".into());
                return Ok(());
            }
            Target::Joint(j, attr.name == "jointinparent")
        };
        c.push(m, &spec, el, target, autolimits[p.src]);
    }
    c.store(m);
    Ok(())
}

/// What an actuator drives.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// A joint, its gear in the joint's frame or (`true`) its parent's.
    Joint(usize, bool),
    /// A tendon.
    Tendon(usize),
    /// A body (adhesion: its contacts' normals).
    Body(usize),
    /// A site, and its reference site (-1: none).
    Site(usize, i32),
    /// A slider-crank: the crank's site and the slider's.
    SliderCrank(usize, i32),
}

/// Sets the length at `qpos0` of every tendon-transmission actuator: the tendon's length there
/// times the gear (`mj_setConst` runs `mj_transmission` at `qpos0`). Runs once the tendons are
/// compiled; a tendon specula's compiler leaves out leaves the actuators uncompiled.
pub fn tendon_actuator_lengths(m: &mut Model) {
    if m.actuator_unsupported.is_some() {
        return;
    }
    for i in 0..m.actuator_trntype.len() {
        if m.actuator_trntype[i] != TRN_TENDON {
            continue;
        }
        let t = m.actuator_trnid[i][0] as usize;
        let Some(&len) = m.tendon_length0.get(t) else {
            m.actuator_unsupported = Some("a transmission on a tendon specula's compiler does not compile".into());
            return;
        };
        m.actuator_length0[i] = len * m.actuator_gear[i][0];
    }
}

/// `mjTRN_TENDON`.
const TRN_TENDON: i32 = 3;
/// `mjTRN_BODY`.
const TRN_BODY: i32 = 5;
/// `mjTRN_SLIDERCRANK`.
const TRN_SLIDERCRANK: i32 = 2;
/// `mjTRN_SITE`.
const TRN_SITE: i32 = 4;

/// The actuator arrays being built, one entry per actuator.
#[derive(Default)]
struct Compiled {
    trntype: Vec<i32>,
    types: Vec<[i32; 3]>,
    trnid: Vec<[i32; 2]>,
    act: Vec<[i32; 2]>,
    ctrl: Vec<[i32; 2]>,
    ctrlspec: Vec<i32>,
    group: Vec<i32>,
    limited: Vec<[bool; 3]>,
    prm: Vec<[[f64; 10]; 3]>,
    ranges: Vec<[[f64; 2]; 4]>,
    /// Range and limited flag of each control (`nu` entries).
    ctrl_ranges: Vec<([f64; 2], bool)>,
    gear: Vec<[f64; 6]>,
    scalars: Vec<[f64; 4]>,
    actearly: Vec<bool>,
    na: i32,
    nu: i32,
    /// Whether a length at `qpos0` waits for the site kinematics.
    pending: bool,
}

impl Compiled {
    /// Appends the actuator `spec` of element `el` on `target`.
    fn push(&mut self, m: &Model, spec: &ActuatorSpec, el: &Element, target: Target, autolimits: bool) {
        let p = &spec.params;
        let mut ctrlrange = p.ctrlrange;
        let mut actrange = p.actrange;
        let (trntype, id) = match target {
            Target::Joint(j, inparent) => (i32::from(inparent), j),
            Target::Tendon(t) => (TRN_TENDON, t),
            Target::Body(b) => (TRN_BODY, b),
            Target::Site(s, _) => (TRN_SITE, s),
            Target::SliderCrank(s, _) => (TRN_SLIDERCRANK, s),
        };
        let id2 = match target {
            Target::Site(_, r) | Target::SliderCrank(_, r) => r,
            _ => -1,
        };
        // (inheritrange on a tendon was refused before)
        let inherit = matches!(target, Target::Joint(j, _) if p.inheritrange > 0.0 && m.jnt_limited[j]);
        if inherit {
            let r = m.jnt_range[id];
            let mid = 0.5 * (r[1] + r[0]);
            let half = 0.5 * (r[1] - r[0]) * p.inheritrange;
            let range = if el.name == "intvelocity" { &mut actrange } else { &mut ctrlrange };
            *range = [mid - half, mid + half];
        }
        let (actnum, ctrlnum) = (spec.actnum() as i32, spec.ctrlnum() as i32);
        self.act.push([if actnum > 0 { self.na } else { -1 }, actnum]);
        self.na += actnum;
        self.ctrl.push([self.nu, ctrlnum]);
        self.ctrlspec.push(spec.compiled_ctrlspec());
        self.nu += ctrlnum;
        let ctrl_limited = limited(p.limited[0], ctrlrange, autolimits);
        if spec.gaintype == GainType::Pid {
            // a PID's controls are its inputs in the order pos, vel, ff, each with its own
            // range; the velocity and feedforward ones are limited when their range is a proper
            // interval (measured: ctrllimited="false" leaves them limited)
            let bits = spec.input_bits();
            for (bit, range) in [(1, ctrlrange), (2, p.velrange), (4, p.ffrange)] {
                if bits & bit != 0 {
                    let lim = if bit == 1 { ctrl_limited } else { range[0] < range[1] };
                    self.ctrl_ranges.push((range, lim));
                }
            }
        } else {
            // every other actuator's controls share the control range (measured: a DC motor's)
            for _ in 0..ctrlnum {
                self.ctrl_ranges.push((ctrlrange, ctrl_limited));
            }
        }
        self.trntype.push(trntype);
        self.types.push([dyn_code(spec.dyntype), gain_code(spec.gaintype), bias_code(spec.biastype)]);
        self.trnid.push([id as i32, id2]);
        self.group.push(p.group);
        self.limited.push([
            ctrl_limited,
            limited(p.limited[1], p.forcerange, autolimits),
            limited(p.limited[2], actrange, autolimits),
        ]);
        self.prm.push([spec.dynprm, spec.gainprm, p.biasprm]);
        self.ranges.push([ctrlrange, p.forcerange, actrange, p.lengthrange]);
        self.gear.push(p.gear);
        // a hinge or slide transmission's length is the joint position times the gear; a
        // tendon's is set once the tendons are compiled (tendon_actuator_lengths)
        let g = &p.gear;
        let length0 = match target {
            Target::Joint(j, _) => match m.jnt_type[j] {
                JointType::Hinge | JointType::Slide => m.qpos0[m.jnt_qposadr[j]] * g[0],
                // a ball's qpos0 is the identity: its rotation vector is +0 and the length the
                // gear dotted with it, each product's zero signed by the gear (M11)
                JointType::Ball => 0.0 * g[0] + 0.0 * g[1] + 0.0 * g[2],
                JointType::Free => 0.0,
            },
            // a body transmission and a site without reference have no length (mj_transmission
            // writes 0); a reference site's and a slider-crank's need the site poses at qpos0
            // (actuator_length_pending, filled by the native route)
            Target::Tendon(_) | Target::Body(_) | Target::Site(..) | Target::SliderCrank(..) => 0.0,
        };
        self.pending |= matches!(target, Target::SliderCrank(..) | Target::Site(_, 0..));
        self.scalars.push([p.cranklength, p.armature, p.damping, length0]);
        self.actearly.push(p.actearly);
    }

    /// Moves the arrays into the model.
    fn store(self, m: &mut Model) {
        let n = self.trntype.len();
        m.actuator_trntype = self.trntype;
        m.actuator_dyntype = self.types.iter().map(|t| t[0]).collect();
        m.actuator_gaintype = self.types.iter().map(|t| t[1]).collect();
        m.actuator_biastype = self.types.iter().map(|t| t[2]).collect();
        m.actuator_trnid = self.trnid;
        m.actuator_actadr = self.act.iter().map(|a| a[0]).collect();
        m.actuator_actnum = self.act.iter().map(|a| a[1]).collect();
        m.actuator_ctrladr = self.ctrl.iter().map(|a| a[0]).collect();
        m.actuator_ctrlnum = self.ctrl.iter().map(|a| a[1]).collect();
        m.actuator_ctrlspec = self.ctrlspec;
        m.actuator_outadr = (0..n as i32).collect();
        m.actuator_outnum = vec![1; n];
        m.actuator_group = self.group;
        m.actuator_ctrllimited = self.ctrl_ranges.iter().map(|c| c.1).collect();
        m.actuator_forcelimited = self.limited.iter().map(|l| l[1]).collect();
        m.actuator_actlimited = self.limited.iter().map(|l| l[2]).collect();
        m.actuator_dynprm = self.prm.iter().map(|p| p[0]).collect();
        m.actuator_gainprm = self.prm.iter().map(|p| p[1]).collect();
        m.actuator_biasprm = self.prm.iter().map(|p| p[2]).collect();
        m.actuator_ctrlrange = self.ctrl_ranges.iter().map(|c| c.0).collect();
        m.actuator_forcerange = self.ranges.iter().map(|r| r[1]).collect();
        m.actuator_actrange = self.ranges.iter().map(|r| r[2]).collect();
        m.actuator_lengthrange = self.ranges.iter().map(|r| r[3]).collect();
        m.actuator_gear = self.gear;
        m.actuator_cranklength = self.scalars.iter().map(|s| s[0]).collect();
        m.actuator_armature = self.scalars.iter().map(|s| s[1]).collect();
        m.actuator_damping = self.scalars.iter().map(|s| s[2]).collect();
        m.actuator_length0 = self.scalars.iter().map(|s| s[3]).collect();
        m.actuator_actearly = self.actearly;
        m.actuator_length_pending = self.pending;
        let mut jnt_actuatorid = vec![-1; m.njnt];
        // only actuators that add armature or damping to their joint are listed (measured:
        // a motor leaves jnt_actuatorid -1, a position servo with armature sets it)
        for (i, t) in m.actuator_trnid.iter().enumerate() {
            let on_joint = matches!(m.actuator_trntype[i], 0 | 1);
            if !on_joint || m.actuator_armature[i] == 0.0 && m.actuator_damping[i] == 0.0 {
                continue;
            }
            let j = &mut jnt_actuatorid[t[0] as usize];
            *j = if *j == -1 { i as i32 } else { -2 };
        }
        m.jnt_actuatorid = jnt_actuatorid;
    }
}

/// `mjtDyn` value.
fn dyn_code(t: DynType) -> i32 {
    match t {
        DynType::None => 0,
        DynType::Integrator => 1,
        DynType::Filter => 2,
        DynType::FilterExact => 3,
        DynType::Muscle => 4,
        DynType::DcMotor => 5,
        DynType::Pid => 6,
        DynType::User => 7,
    }
}

/// `mjtGain` value.
fn gain_code(t: GainType) -> i32 {
    match t {
        GainType::Fixed => 0,
        GainType::Affine => 1,
        GainType::Muscle => 2,
        GainType::DcMotor => 3,
        GainType::So3 => 4,
        GainType::Pid => 5,
        GainType::User => 6,
    }
}

/// `mjtBias` value.
fn bias_code(t: BiasType) -> i32 {
    match t {
        BiasType::None => 0,
        BiasType::Affine => 1,
        BiasType::Muscle => 2,
        BiasType::DcMotor => 3,
        BiasType::So3 => 4,
        BiasType::User => 5,
    }
}
