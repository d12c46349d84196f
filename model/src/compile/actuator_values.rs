//! The value checks of MuJoCo 4.0.0 on actuators: parameters that may not be negative, the
//! ranges that the shortcuts always limit, muscle and DC motor parameters, activation
//! dimensions and `inheritrange`. Each rule was found with a probe file loaded by MuJoCo 4.0.0
//! (`model/tests/verdict_cases/`); the quoted phrase of each message is MuJoCo's.

use super::actuator::{transmission, ActuatorSpec, BiasType, DynType, GainType};
use super::actuator_dcmotor::Dc;
use super::attrs::{err_at, Res};
use super::ranges::{at, numbers};
use super::spec::Defaults;
use super::tree::BodyItem;
use crate::types::JointType;
use crate::xml::{values, Element};

/// Actuator parameters that may not be negative, activation dimensions that fit the dynamics,
/// and `inheritrange` only on hinge, slide or tendon transmissions.
pub(super) fn check_actuator(a: &Element, defs: &Defaults, items: &[BodyItem]) -> Res<()> {
    let class = defs.class_of(a, 0)?;
    // the actuator's state after its class and its own attributes (types, actdim)
    let mut spec: ActuatorSpec = defs.classes[class].actuator.clone();
    spec.apply(a)?;
    let first = |attr: &str| numbers(a, defs, class, "actuator", attr).map(|v| v[0]);
    let own = |attr: &str| a.attr(attr).and_then(|v| values::parse_real(v.value.trim()).ok());
    let negative: &[(&str, &str)] = match a.name.as_str() {
        "position" | "intvelocity" => &[
            ("timeconst", "timeconst cannot be negative"),
            ("dampratio", "dampratio cannot be negative"),
            ("kv", "kv cannot be negative"),
        ],
        "damper" => &[("kv", "damping coefficient cannot be negative")],
        "muscle" => &[("tausmooth", "muscle tausmooth cannot be negative")],
        "adhesion" => &[("gain", "adhesion gain cannot be negative")],
        _ => &[],
    };
    for (attr, msg) in negative {
        if own(attr).is_some_and(|v| v < 0.0) {
            return Err(at(a, attr, format!("{msg} in actuator <{}>", a.name)));
        }
    }
    // damper and adhesion always limit their control (no ctrllimited attribute): a range with
    // a negative end, then an unset or empty one, is refused (measured: <adhesion body="b"/>)
    let always_limited = matches!(a.name.as_str(), "damper" | "adhesion");
    let ctrlrange = numbers(a, defs, class, "actuator", "ctrlrange");
    if always_limited && ctrlrange.as_ref().is_some_and(|r| r.iter().any(|&x| x < 0.0)) {
        return Err(at(a, "ctrlrange", format!("{} control range cannot be negative", a.name)));
    }
    if a.name == "dcmotor" {
        check_dcmotor(a, defs, class)?;
    }
    if always_limited {
        let r = ctrlrange.unwrap_or_default();
        if r.first().copied().unwrap_or(0.0) >= r.get(1).copied().unwrap_or(0.0) {
            return Err(at(
                a,
                "ctrlrange",
                "invalid control range for actuator: ctrlrange[0] must be smaller than ctrlrange[1]".into(),
            ));
        }
    }
    check_muscle(a, defs, class, &spec)?;
    check_resolved_ranges(a, &spec)?;
    let trn = transmission(a).map(|(t, _)| t.name.as_str());
    // measured: armature and damping allow a jointinparent transmission, inheritrange does not
    let transmission_is_joint_or_tendon = matches!(trn, Some("joint" | "jointinparent" | "tendon"));
    for attr in ["armature", "damping"] {
        if !transmission_is_joint_or_tendon && first(attr).is_some_and(|v| v != 0.0) {
            return Err(at(a, attr, format!("{attr} requires joint or tendon transmission in actuator")));
        }
    }
    if a.name == "general" {
        let (g, b) = (a.attr("gaintype").map(|v| v.value.trim()), a.attr("biastype").map(|v| v.value.trim()));
        if (g == Some("so3")) != (b == Some("so3")) {
            return Err(err_at(a, "gaintype and biastype must both be 'so3' in actuator"));
        }
    }
    for (attr, msg) in
        [("imax", "imax (dynprm[0]) must be non-negative in actuator"), ("slewmax", "slewmax cannot be negative")]
    {
        if own(attr).is_some_and(|v| v < 0.0) {
            return Err(at(a, attr, msg.into()));
        }
    }
    if trn == Some("cranksite") && own("cranklength").unwrap_or(0.0) <= 0.0 {
        return Err(at(a, "cranklength", "crank length must be positive in actuator".into()));
    }
    // Only a `general` actuator's `actdim` is checked: the shortcuts set it themselves (a
    // stateless dcmotor has dyntype dcmotor and actdim 0, corpus derivative/dcmotor.xml). A
    // general inherits its class's, which a dcmotor default sets (measured: under
    // <default><dcmotor motorconst="1" resistance="1"/></default>, <general dyntype="filter"/>
    // is "invalid actdim 0 in stateful actuator"; with inductance, actdim 1, it loads).
    if a.name == "general" {
        let stateful = spec.dyntype != DynType::None;
        let n = match a.attr("actdim") {
            Some(given) => given.value.trim().parse::<i64>().unwrap_or(-1),
            None => i64::from(spec.actdim),
        };
        if n > 1 && !matches!(spec.dyntype, DynType::User | DynType::DcMotor | DynType::Pid) {
            return Err(at(a, "actdim", "actdim > 1 is only allowed for dyntype 'user', 'dcmotor' and 'pid'".into()));
        }
        // (a stateless dcmotor has dyntype dcmotor and actdim 0)
        if n == 0 && stateful && spec.dyntype != DynType::DcMotor {
            return Err(at(a, "actdim", "invalid actdim 0 in stateful actuator".into()));
        }
        if n > 0 && !stateful {
            return Err(at(a, "actdim", format!("invalid actdim {n} in stateless actuator")));
        }
    }
    if first("inheritrange").is_some_and(|r| r > 0.0) {
        let joint = a.attr("joint").filter(|_| trn == Some("joint")).map(|j| j.value.as_str());
        if !matches!(trn, Some("joint" | "tendon")) {
            return Err(at(
                a,
                "inheritrange",
                "inheritrange can only be used with joint and tendon transmission".into(),
            ));
        }
        let jt = joint.and_then(|n| items.iter().flat_map(|b| &b.joints).find(|j| j.name == n)).map(|j| j.spec.jtype);
        if jt.is_some_and(|t| !matches!(t, JointType::Hinge | JointType::Slide)) {
            return Err(at(a, "inheritrange", "inheritrange can only be used with hinge and slide joints".into()));
        }
    }
    Ok(())
}

/// The limits the actuator ends with, its class's and its shortcut's included: a control, force
/// or activation range limited (`true`, or a setter's: `damper` and `adhesion` limit their
/// control, a DC motor's saturation its force) must increase, and a stateless actuator (`dyntype` none) must
/// not have an increasing `actrange` unless `actlimited` is off (measured: under <damper kv="1">
/// or <general ctrllimited="true">, a <motor> is "invalid control range"; under <general
/// actrange="0 1"> or <intvelocity actrange="0 1">, a <motor> or <position> is "actrange
/// specified but dyntype is 'none'"; M21).
fn check_resolved_ranges(a: &Element, spec: &ActuatorSpec) -> Res<()> {
    let p = &spec.params;
    if p.limited[0] == 1 && p.ctrlrange[0] >= p.ctrlrange[1] {
        return Err(at(
            a,
            "ctrlrange",
            "invalid control range for actuator: ctrlrange[0] must be smaller than ctrlrange[1]".into(),
        ));
    }
    if p.limited[1] == 1 && p.forcerange[0] >= p.forcerange[1] {
        return Err(at(
            a,
            "forcerange",
            "invalid force range for actuator: forcerange[0] must be smaller than forcerange[1]".into(),
        ));
    }
    if p.limited[2] == 1 && p.actrange[0] >= p.actrange[1] {
        return Err(at(
            a,
            "actrange",
            "invalid actrange for actuator: actrange[0] must be smaller than actrange[1]".into(),
        ));
    }
    if spec.dyntype == DynType::None && p.limited[2] != 0 && p.actrange[0] < p.actrange[1] {
        return Err(at(a, "actrange", "actrange specified but dyntype is 'none' in actuator".into()));
    }
    Ok(())
}

/// Muscle gain or bias parameters (range, force, scale, lmin, lmax, vmax, fpmax, fvmax): an
/// increasing range, lmin < 1 < lmax, and positive scale, vmax, fpmax and fvmax. A NaN passes,
/// as MuJoCo's comparisons let it.
fn check_muscle(a: &Element, defs: &Defaults, class: usize, spec: &ActuatorSpec) -> Res<()> {
    let mut prms: Vec<Vec<f64>> = Vec::new();
    if a.name == "muscle" {
        // the shortcut applies only values >= 0 (measured: scale="-1" keeps 200, "-0" is
        // applied and then refused; range="1 -1" loads)
        let mut p = vec![0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2];
        for (k, &v) in numbers(a, defs, class, "actuator", "range").unwrap_or_default().iter().take(2).enumerate() {
            if v >= 0.0 {
                p[k] = v;
            }
        }
        for (k, name) in [(2, "force"), (3, "scale"), (4, "lmin"), (5, "lmax"), (6, "vmax"), (7, "fpmax"), (8, "fvmax")]
        {
            if let Some(v) = numbers(a, defs, class, "actuator", name).map(|v| v[0]).filter(|&v| v >= 0.0) {
                p[k] = v;
            }
        }
        prms.push(p);
    } else if a.name == "general" {
        let prm = |name: &str, first: f64| {
            let mut p = vec![0.0; 10];
            p[0] = first;
            for (k, v) in numbers(a, defs, class, "actuator", name).unwrap_or_default().into_iter().take(10).enumerate()
            {
                p[k] = v;
            }
            p
        };
        if spec.gaintype == GainType::Muscle {
            prms.push(prm("gainprm", 1.0));
        }
        if spec.biastype == BiasType::Muscle {
            prms.push(prm("biasprm", 0.0));
        }
    }
    for p in prms {
        if p[0] >= p[1] {
            return Err(err_at(a, "range[0]<range[1] required in muscle"));
        }
        if p[4] >= 1.0 || p[5] <= 1.0 {
            return Err(err_at(a, "lmin<1<lmax required in muscle"));
        }
        if p[3] <= 0.0 || p[6] <= 0.0 || p[7] <= 0.0 || p[8] <= 0.0 {
            return Err(err_at(a, "positive scale, vmax, fpmax, fvmax required in muscle"));
        }
    }
    Ok(())
}

/// `dcmotor` parameters as the shortcut reads them, in MuJoCo's order: motor constants not
/// negative; a positive constant K (from `motorconst`, else from `nominal`) unless
/// `input="none"`; a positive resistance R (else from `nominal`); inductance and electrical time
/// constant not negative; a thermal model with positive resistance and capacitance once any of
/// its first three entries is positive. A default's `dcmotor` is checked too (`check_dcmotor_default`).
/// Returns K. A NaN passes where MuJoCo's comparisons let it (probes: `docs/measurements.md`,
/// "DC motor checks").
fn check_dcmotor_params(a: &Element, dc: &Dc, input: &str) -> Res<f64> {
    let [kt, ke] = dc.motorconst;
    if kt < 0.0 || ke < 0.0 {
        return Err(at(a, "motorconst", "DC motor: motor constants must be non-negative".into()));
    }
    let mut k = if kt > 0.0 && ke > 0.0 {
        (kt * ke).sqrt()
    } else if kt > 0.0 {
        kt
    } else {
        ke
    };
    let [volt, stall, noload] = dc.nominal;
    if (k <= 0.0 || k.is_nan()) && noload > 0.0 {
        k = volt / noload;
    }
    if input != "none" && k <= 0.0 {
        return Err(at(a, "motorconst", "DC motor: motor constant K must be positive".into()));
    }
    let mut r = dc.resistance;
    if r == 0.0 && stall > 0.0 {
        r = k * volt / stall;
    }
    if r <= 0.0 {
        return Err(at(a, "resistance", "DC motor: resistance R must be positive".into()));
    }
    let [ind, te] = dc.inductance;
    if ind < 0.0 {
        return Err(at(a, "inductance", "DC motor: inductance must be non-negative".into()));
    }
    if te < 0.0 {
        return Err(at(a, "inductance", "DC motor: electrical time constant must be non-negative".into()));
    }
    let (mut rth, mut cth, tau) = (dc.thermal[0], dc.thermal[1], dc.thermal[2]);
    if rth > 0.0 || cth > 0.0 || tau > 0.0 {
        // any two of resistance, capacitance and time constant give the third; with all
        // three, the capacitance is replaced
        if rth > 0.0 && tau > 0.0 {
            cth = tau / rth;
        } else if cth > 0.0 && tau > 0.0 {
            rth = tau / cth;
        }
        if rth <= 0.0 {
            return Err(at(a, "thermal", "DC motor: thermal resistance must be positive".into()));
        }
        if cth <= 0.0 {
            return Err(at(a, "thermal", "DC motor: thermal capacitance must be positive".into()));
        }
    }
    Ok(k)
}

/// A default class's `dcmotor` element `a` (`prev`: the class's actuator default before it): its
/// parameters are checked when the default is read (measured: `<default><dcmotor
/// motorconst="1"/></default>` alone is refused, "resistance R must be positive").
pub(super) fn check_dcmotor_default(a: &Element, prev: &ActuatorSpec, raw_input: Option<&str>) -> Res<()> {
    let (src, source) = super::actuator_params::param_source(prev, "dcmotor");
    let dc = super::actuator_dcmotor::attributes(a, source, src)?;
    check_dcmotor_params(a, &dc, raw_input.unwrap_or_default().trim())?;
    Ok(())
}

/// An actuator's `dcmotor` element: its parameters through its class chain (M19: a class
/// `<dcmotor thermal="1 3"/>` lets `<dcmotor class=".." thermal="2"/>` load); then its
/// saturation, a valid force range; and controller gains or a slew limit only with a pos, vel or
/// ff input.
fn check_dcmotor(a: &Element, defs: &Defaults, class: usize) -> Res<()> {
    let (src, prev) = super::actuator_params::param_source(&defs.classes[class].actuator, "dcmotor");
    let dc = super::actuator_dcmotor::attributes(a, prev, src)?;
    let input = a
        .attr("input")
        .map(|v| v.value.trim().to_string())
        .or_else(|| defs.classes[class].raw_attr("actuator", "input").map(|v| v.trim().to_string()))
        .unwrap_or_default();
    let k = check_dcmotor_params(a, &dc, &input)?;
    // saturation = "torque current rate": a positive torque or current limits the force to
    // [-t, t], t the torque if nonzero, else K times the current (measured: "-1 1" is an
    // invalid force range, "-1" alone sets none)
    let sat = dc.saturation;
    if sat[0] > 0.0 || sat[1] > 0.0 {
        let t = if sat[0] != 0.0 { sat[0] } else { k * sat[1] };
        if -t >= t {
            return Err(at(
                a,
                "saturation",
                "invalid force range for actuator: saturation torque must be positive".into(),
            ));
        }
    }
    let ctl = dc.controller;
    let controlled = values::tokens(&input).any(|t| matches!(t, "pos" | "vel" | "ff"));
    if !controlled && ctl[..3].iter().any(|&g| g != 0.0) {
        return Err(at(
            a,
            "controller",
            "dcmotor controller gains require a controller input [pos, vel, ff] in actuator".into(),
        ));
    }
    if !controlled && ctl[3] != 0.0 {
        return Err(at(
            a,
            "controller",
            "dcmotor slew rate limiting requires a controller input [pos, vel, ff] in actuator".into(),
        ));
    }
    Ok(())
}
