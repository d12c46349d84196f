//! The value checks of MuJoCo 4.0.0's compiler on elements specula's compiler does not
//! otherwise compile: sizes, sensor and actuator parameters, tendon parameters, cameras, asset
//! names and custom tuples. Each rule was found with a probe file loaded by MuJoCo 4.0.0
//! (`model/tests/verdict_cases/`); the quoted phrase of each message is MuJoCo's.

use super::attrs::{err_at, err_attr, Res};
use super::spec::Defaults;
use super::tree::BodyItem;
use crate::types::JointType;
use crate::xml::{values, Element};

/// The numbers of attribute `attr` of `el`, else of its class's default for `kind`.
pub(super) fn numbers(el: &Element, defs: &Defaults, class: usize, kind: &str, attr: &str) -> Option<Vec<f64>> {
    let text = match el.attr(attr) {
        Some(a) => a.value.as_str(),
        None => defs.classes.get(class)?.raw_attr(kind, attr)?,
    };
    let v: Vec<f64> = values::tokens(text).filter_map(|t| values::parse_real(t).ok()).collect();
    (!v.is_empty()).then_some(v)
}

/// The error at attribute `attr` of `el` (or at `el` when a default class gave the value).
pub(super) fn at(el: &Element, attr: &str, msg: String) -> crate::error::MjcfError {
    match el.attr(attr) {
        Some(a) => err_attr(a, msg),
        None => err_at(el, msg),
    }
}

/// Runs every check of this module on the main document `root`.
pub fn check_values(root: &Element, defs: &Defaults, items: &[BodyItem], timestep: f64) -> Res<()> {
    for s in root.children.iter().filter(|c| c.name == "size") {
        check_size(s)?;
    }
    for s in root.children.iter().filter(|c| c.name == "asset") {
        check_asset_names(s)?;
    }
    check_cameras(root, defs)?;
    check_options_and_custom(root)?;
    let section = |name: &'static str| root.children.iter().filter(move |c| c.name == name).flat_map(|s| &s.children);
    for t in section("tendon").filter(|t| t.name == "spatial" || t.name == "fixed") {
        check_tendon(t, defs)?;
    }
    for a in section("actuator").filter(|a| a.name != "plugin") {
        super::actuator_values::check_actuator(a, defs, items)?;
    }
    for s in section("sensor").filter(|s| s.name != "plugin") {
        check_sensor(s, root, defs, items)?;
    }
    check_history_delay(root, defs)?;
    check_history_timestep(root, defs, timestep)
}

/// A sensor or actuator delay needs a history to read from: `delay` > 0 with no `nsample`
/// is refused (measured: 4.0.0 loads delay 0.004 with nsample 1 or 2, a negative or NaN delay
/// without, and refuses delay 0.004 alone, on motors and joint sensors alike).
fn check_history_delay(root: &Element, defs: &Defaults) -> Res<()> {
    let section = |name: &'static str| root.children.iter().filter(move |c| c.name == name).flat_map(|s| &s.children);
    for (el, kind) in section("sensor").map(|e| (e, "sensor")).chain(section("actuator").map(|e| (e, "actuator"))) {
        if el.name == "plugin" {
            continue;
        }
        let class = defs.class_of(el, 0)?;
        let value = |attr: &str| numbers(el, defs, class, kind, attr).map_or(0.0, |v| v[0]);
        if value("delay") > 0.0 && value("nsample") <= 0.0 {
            return Err(at(el, "delay", "setting delay > 0 without a history buffer".to_string()));
        }
    }
    Ok(())
}

/// A sensor or actuator that keeps a history (`nsample` > 0) needs a positive timestep; NaN
/// passes (measured: timestep 0, -0 and -0.002 with nsample="2" are refused, NaN loads).
fn check_history_timestep(root: &Element, defs: &Defaults, timestep: f64) -> Res<()> {
    if timestep > 0.0 || timestep.is_nan() {
        return Ok(());
    }
    let section = |name: &'static str| root.children.iter().filter(move |c| c.name == name).flat_map(|s| &s.children);
    let nsample = |el: &Element, kind: &str| -> Res<f64> {
        let class = defs.class_of(el, 0)?;
        Ok(numbers(el, defs, class, kind, "nsample").map_or(0.0, |v| v[0]))
    };
    for (el, kind) in section("sensor").map(|e| (e, "sensor")).chain(section("actuator").map(|e| (e, "actuator"))) {
        if el.name != "plugin" && nsample(el, kind)? > 0.0 {
            return Err(at(el, "nsample", format!("history buffers require positive timestep, got {timestep}")));
        }
    }
    Ok(())
}

/// `size`: the counts that may be -1 ("default") or more, and `memory`'s syntax.
fn check_size(s: &Element) -> Res<()> {
    for attr in &s.attrs {
        let counted = attr.name == "njmax" || attr.name == "nconmax" || attr.name.starts_with("nuser_");
        if counted && attr.value.trim().parse::<i64>().is_ok_and(|v| v < -1) {
            return Err(err_attr(attr, format!("{} must be >= -1", attr.name)));
        }
    }
    if let Some(m) = s.attr("memory") {
        let v = m.value.trim();
        let digits = v.trim_end_matches(['K', 'M', 'G', 'T', 'P', 'E']);
        let suffixes = v.len() - digits.len();
        let ok = v == "-1" || (suffixes <= 1 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
        if !ok {
            return Err(err_attr(
                m,
                "unsigned integer with an optional suffix {K,M,G,T,P,E} is expected in attribute 'memory'",
            ));
        }
        // An empty arena: MuJoCo 4.0.0 compiles the model, then cannot make its mjData ("could
        // not allocate mjData arena", measured for 0, 0K and 0M; 1 to 100 bytes fail later, in
        // mj_stackAlloc, by how much the model needs, which specula does not reproduce).
        if digits.bytes().all(|b| b == b'0') && v != "-1" {
            return Err(err_attr(m, "memory of 0 bytes: MuJoCo cannot allocate an empty mjData arena"));
        }
    }
    Ok(())
}

/// Meshes, height fields and materials need a name; a mesh or height field read from a file is
/// named after it ("empty name in mesh").
fn check_asset_names(s: &Element) -> Res<()> {
    for a in &s.children {
        let what = match a.name.as_str() {
            "mesh" => "mesh",
            "hfield" => "height field",
            "material" => "material",
            _ => continue,
        };
        let has = |n: &str| a.attr(n).is_some_and(|v| !v.value.is_empty());
        // a mesh of a plugin or a builtin shape is still an asset without a name
        let named = has("name") || (a.name != "material" && has("file"));
        if !named {
            return Err(err_at(a, format!("empty name in {what}: give 'name'")));
        }
    }
    Ok(())
}

/// Cameras: `fovy` below 180 degrees, intrinsics only with a sensor size; lights: softness
/// in [0, 1].
fn check_cameras(root: &Element, defs: &Defaults) -> Res<()> {
    fn walk(el: &Element, defs: &Defaults, class: usize) -> Res<()> {
        for c in &el.children {
            let own = defs.class_of(c, class)?;
            match c.name.as_str() {
                "body" | "frame" | "replicate" => {
                    if let Some(sc) = c.attr("scale").filter(|_| c.name == "frame") {
                        if values::tokens(&sc.value).count() == 2 {
                            return Err(err_attr(sc, "attribute 'scale' must have 1 or 3 values"));
                        }
                    }
                    let inner = c.attr("childclass").and_then(|a| defs.find(&a.value)).unwrap_or(class);
                    walk(c, defs, inner)?;
                }
                "light" => {
                    let soft = numbers(c, defs, own, "light", "softness").map(|v| v[0]);
                    if soft.map(|v| v as f32).is_some_and(|v| !(0.0..=1.0).contains(&v) && !v.is_nan()) {
                        return Err(at(c, "softness", "light softness must be in [0, 1]".into()));
                    }
                }
                "camera" => {
                    let given = |n: &str| numbers(c, defs, own, "camera", n);
                    // a sensor size counts only when both sides are positive (M17: "NaN 0.01",
                    // "0.01 0" and "-0.01 0.01" leave focal unusable, "inf 0.01" counts)
                    let sensorsize = given("sensorsize").is_some_and(|v| v.len() == 2 && v.iter().all(|&x| x > 0.0));
                    let intrinsic = ["focal", "focalpixel", "principal", "principalpixel"];
                    // all-zero intrinsics count as unset (measured: focal="0 0" loads, "0 1" and
                    // "nan 0" need sensorsize)
                    let set = |n: &str| given(n).is_some_and(|v| v.iter().any(|&x| x != 0.0));
                    if let Some(n) = intrinsic.iter().find(|n| set(n)).filter(|_| !sensorsize) {
                        return Err(at(c, n, "focal/principal require sensorsize in camera".into()));
                    }
                    if sensorsize && given("resolution").is_some_and(|r| r.iter().any(|&x| x <= 0.0)) {
                        return Err(at(c, "resolution", "sensorsize requires positive resolution in camera".into()));
                    }
                    if let Some(f) = numbers(c, defs, own, "camera", "fovy").and_then(|v| v.first().copied()) {
                        if f >= 180.0 {
                            return Err(at(
                                c,
                                "fovy",
                                format!("fovy too large in camera: {f} degrees, must be below 180"),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    for w in root.children.iter().filter(|c| c.name == "worldbody") {
        walk(w, defs, 0)?;
    }
    Ok(())
}

/// Tendons: armature not negative (nor beside a wrapping geom), `springlength` increasing, pulley divisors positive, and every
/// path object beside a pulley has a neighbour on its other side.
fn check_tendon(t: &Element, defs: &Defaults) -> Res<()> {
    let class = defs.class_of(t, 0)?;
    if numbers(t, defs, class, "tendon", "armature").is_some_and(|v| v[0] < 0.0) {
        return Err(at(t, "armature", "tendon armature cannot be negative".into()));
    }
    // MuJoCo has no time derivative of a wrapped path, so its compiler refuses the pair (D87)
    let armature = numbers(t, defs, class, "tendon", "armature").map_or(0.0, |v| v[0]);
    if t.name == "spatial" && armature > 0.0 && t.children.iter().any(|w| w.name == "geom") {
        return Err(at(t, "armature", "geom wrapping not supported by tendon armature".into()));
    }
    if let Some(v) = numbers(t, defs, class, "tendon", "springlength") {
        if v.len() == 2 && v[0] > v[1] {
            return Err(at(t, "springlength", "invalid springlength in tendon: [0] above [1]".into()));
        }
    }
    let limited = match t.attr("actuatorfrclimited").map(|a| a.value.as_str()) {
        Some(v) => v == "true",
        None => defs.classes[class].raw_attr("tendon", "actuatorfrclimited") == Some("true"),
    };
    let range = numbers(t, defs, class, "tendon", "actuatorfrcrange").unwrap_or_default();
    if limited && range.first().copied().unwrap_or(0.0) >= range.get(1).copied().unwrap_or(0.0) {
        return Err(at(t, "actuatorfrcrange", "invalid actuatorfrcrange in tendon: [0] must be below [1]".into()));
    }
    let path = &t.children;
    for (i, w) in path.iter().enumerate() {
        if w.name == "pulley" {
            let d = w.attr("divisor").and_then(|a| values::parse_real(a.value.trim()).ok());
            if d.is_some_and(|d| d <= 0.0) {
                return Err(at(w, "divisor", "pulley divisor must be positive in tendon".into()));
            }
            continue;
        }
        let object = |k: Option<usize>| k.and_then(|k| path.get(k)).is_some_and(|e| e.name != "pulley");
        if t.name == "spatial" && !object(i.checked_sub(1)) && !object(Some(i + 1)) {
            return Err(err_at(w, "tendon: this object needs a neighbor that is not a pulley"));
        }
    }
    Ok(())
}

/// Sensors: noise and cutoff not negative; a limit sensor needs a limited joint or tendon, a
/// ball sensor a ball joint, a joint position or velocity sensor a hinge or slide.
fn check_sensor(s: &Element, root: &Element, defs: &Defaults, items: &[BodyItem]) -> Res<()> {
    let own = |attr: &str| s.attr(attr).and_then(|a| values::parse_real(a.value.trim()).ok());
    for attr in ["noise", "cutoff", "interval"] {
        if own(attr).is_some_and(|v| v < 0.0) {
            return Err(at(s, attr, format!("negative {attr} in sensor")));
        }
    }
    if let Some(iv) = s
        .attr("interval")
        .map(|a| values::tokens(&a.value).filter_map(|t| values::parse_real(t).ok()).collect::<Vec<f64>>())
    {
        // interval = "period phase": a phase not above 0 and, with a period, above -period
        let (period, phase) = (iv.first().copied().unwrap_or(0.0), iv.get(1).copied().unwrap_or(0.0));
        if phase > 0.0 {
            return Err(at(s, "interval", "positive phase in sensor".into()));
        }
        if period > 0.0 && phase <= -period {
            return Err(at(s, "interval", "phase must be greater than -period in sensor".into()));
        }
    }
    let nsample = s.attr("nsample").and_then(|a| a.value.trim().parse::<i64>().ok()).unwrap_or(0);
    if own("delay").is_some_and(|d| d > 0.0) && nsample <= 0 {
        return Err(at(s, "delay", "setting delay > 0 without a history buffer in sensor".into()));
    }
    if s.name == "contact" && own("num").is_some_and(|n| n <= 0.0) {
        return Err(at(s, "num", "'num' must be positive in sensor".into()));
    }
    let joint = || {
        let name = s.attr("joint")?.value.as_str();
        items.iter().flat_map(|b| &b.joints).find(|j| j.name == name)
    };
    match s.name.as_str() {
        "jointlimitpos" | "jointlimitvel" | "jointlimitfrc" => {
            if let Some(j) = joint() {
                let limited = j.spec.limited == 1 || (j.spec.limited == 2 && j.spec.range[0] < j.spec.range[1]);
                if !limited {
                    return Err(at(s, "joint", "joint must be limited in sensor".into()));
                }
            }
        }
        "ballquat" | "ballangvel" if joint().is_some_and(|j| j.spec.jtype != JointType::Ball) => {
            return Err(at(s, "joint", "joint must be ball in sensor".into()));
        }
        "jointpos" | "jointvel"
            if joint().is_some_and(|j| !matches!(j.spec.jtype, JointType::Hinge | JointType::Slide)) =>
        {
            return Err(at(s, "joint", "joint must be slide or hinge in sensor".into()));
        }
        "tendonlimitpos" | "tendonlimitvel" | "tendonlimitfrc" => {
            let name = s.attr("tendon").map_or("", |a| a.value.as_str());
            let tendons = root.children.iter().filter(|c| c.name == "tendon").flat_map(|t| &t.children);
            if let Some(t) = tendons
                .filter(|t| t.name == "spatial" || t.name == "fixed")
                .find(|t| t.attr("name").is_some_and(|n| n.value == name))
            {
                let class = defs.class_of(t, 0)?;
                let limited = match t
                    .attr("limited")
                    .map(|a| a.value.as_str())
                    .or_else(|| defs.classes[class].raw_attr("tendon", "limited"))
                {
                    Some("true") => true,
                    Some("false") => false,
                    _ => numbers(t, defs, class, "tendon", "range").is_some_and(|r| r.len() == 2 && r[0] < r[1]),
                };
                if !limited {
                    return Err(at(s, "tendon", "tendon must be limited in sensor".into()));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// `option`: the IPC solver needs the discrete integrator; `statistic`: a positive extent;
/// `visual`: a positive `znear` and `realtime`;
/// custom `text`: its data from `data` or one CDATA section, not both, not neither.
fn check_options_and_custom(root: &Element) -> Res<()> {
    let mut integrator = "Euler";
    let mut ipc: Option<&Element> = None;
    for o in root.children.iter().filter(|c| c.name == "option") {
        if let Some(i) = o.attr("integrator") {
            integrator = i.value.trim();
        }
        for f in o.children.iter().filter(|f| f.name == "flag") {
            match f.attr("ipc").map(|v| v.value.trim()) {
                Some("enable") => ipc = Some(f),
                Some(_) => ipc = None,
                None => {}
            }
        }
    }
    if let Some(f) = ipc.filter(|_| integrator != "discrete") {
        return Err(err_at(f, format!("flag ipc requires integrator='discrete' (the integrator is '{integrator}')")));
    }
    let visual = root.children.iter().filter(|c| c.name == "visual").flat_map(|v| &v.children);
    for (el, attr, msg) in visual.flat_map(|v| {
        [("map", "znear", "znear must be strictly positive"), ("global", "realtime", "realtime must be greater than 0")]
            .into_iter()
            .filter(move |(n, _, _)| v.name == *n)
            .map(move |(_, a, m)| (v, a, m))
    }) {
        if let Some(a) = el.attr(attr) {
            // the visual settings are floats: 1e-300 is 0 there (measured: refused, 1e-16 loads)
            if values::parse_real(a.value.trim()).is_ok_and(|v| v as f32 <= 0.0) {
                return Err(err_attr(a, msg));
            }
        }
    }
    for st in root.children.iter().filter(|c| c.name == "statistic") {
        if let Some(e) = st.attr("extent") {
            if values::parse_real(e.value.trim()).is_ok_and(|v| v <= 0.0) {
                return Err(err_attr(e, "extent must be strictly positive"));
            }
        }
    }
    let custom = root.children.iter().filter(|c| c.name == "custom").flat_map(|c| &c.children);
    for t in custom.filter(|t| t.name == "text") {
        let attr = t.attr("data").is_some_and(|d| !d.value.is_empty());
        if t.cdata > 1 {
            return Err(err_at(t, "text field cannot have multiple CDATA sections"));
        }
        if attr && t.cdata == 1 {
            return Err(err_at(t, "text field data cannot be specified as both attribute and CDATA"));
        }
        if !attr && (t.cdata == 0 || t.text.is_empty()) {
            return Err(err_at(t, "text field cannot be empty: give 'data' or a CDATA section"));
        }
    }
    Ok(())
}
