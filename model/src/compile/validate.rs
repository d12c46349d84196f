//! The compile-time checks of MuJoCo 4.0.0's compiler that concern elements specula's compiler
//! does not otherwise compile (tendons, actuators, equalities, sensors, textures, materials,
//! cameras and lights): every reference names an existing object of the right kind, no two
//! objects of one kind share a name, and the structural rules of each element hold. A model
//! MuJoCo refuses is refused here, at the element or attribute that breaks the rule.
//!
//! Names come from two places, and a reference may name either: the compiled body tree (which
//! holds the names `replicate` and `attach` make) and the elements as written (which hold the
//! names inside a `replicate` before suffixing, that references written next to it use).
//! Each rule was found by a probe file loaded with MuJoCo 4.0.0 (`model/tests/verdict_cases/`);
//! the quoted phrase of each message is MuJoCo's, so the two can be matched.

use std::collections::{HashMap, HashSet};

use super::actuator::transmission;
use super::attrs::{err_at, err_attr, Res};
use super::spec::Defaults;
use super::tree::BodyItem;
use super::Extras;
use crate::types::{GeomType, JointType};
use crate::xml::{Attr, Element};

/// Names of each kind of object, by MuJoCo's object-type word (`body`, `site`, ...).
#[derive(Default)]
struct Names<'a> {
    by_kind: HashMap<&'static str, HashSet<&'a str>>,
}

impl<'a> Names<'a> {
    /// Records an element; an unnamed one makes the name '' known, since MuJoCo looks '' up
    /// like any name (measured: weld body1="" and a fixed tendon's joint="" load beside an
    /// unnamed body or joint, and refer to the last unnamed one).
    fn add(&mut self, kind: &'static str, name: &'a str) {
        self.by_kind.entry(kind).or_default().insert(name);
    }

    fn has(&self, kind: &str, name: &str) -> bool {
        self.by_kind.get(kind).is_some_and(|s| s.contains(name))
    }
}

/// Elements of the world body as written, with the default class each one uses.
struct TreeElements<'a> {
    /// Every named body, joint, geom, site, camera and light in document order, and whether it
    /// is inside a `replicate`.
    order: Vec<(&'static str, &'a Element, bool)>,
    sites: Vec<(&'a Element, usize)>,
    cameras: Vec<(&'a Element, usize)>,
    lights: Vec<(&'a Element, usize)>,
}

/// Runs every check of this module on the main document `root`.
pub fn check_model(
    root: &Element,
    defs: &Defaults,
    items: &[BodyItem],
    ex: &Extras,
    dir: &std::path::Path,
    texturedir: &str,
    timestep: f64,
) -> Res<()> {
    let mut names = Names::default();
    names.add("body", "world");
    for b in items {
        names.add("body", &b.name);
        for j in &b.joints {
            names.add("joint", &j.name);
        }
        for g in &b.geoms {
            names.add("geom", &g.name);
        }
        for s in &b.sites {
            names.add("site", &s.name);
        }
    }
    let mut tree = TreeElements { order: Vec::new(), sites: Vec::new(), cameras: Vec::new(), lights: Vec::new() };
    for w in root.children.iter().filter(|c| c.name == "worldbody") {
        walk_tree(w, defs, 0, false, &mut names, &mut tree)?;
    }
    for m in &ex.meshes {
        names.add("mesh", &m.name);
    }
    for h in &ex.hfields {
        names.add("hfield", &h.name);
    }
    for m in &ex.materials {
        names.add("material", m);
    }
    for (kind, list) in
        [("tendon", &ex.tendons), ("actuator", &ex.actuators), ("sensor", &ex.sensors), ("equality", &ex.equalities)]
    {
        for n in list.iter() {
            names.add(kind, n);
        }
    }
    for d in root.children.iter().filter(|c| c.name == "deformable") {
        for f in d.children.iter().filter(|f| f.name == "flex") {
            names.add("flex", f.attr("name").map_or("", |a| a.value.as_str()));
        }
    }
    let textures = texture_names(root);
    for (n, _) in &textures {
        names.add("texture", n);
    }

    check_replicated_names(&tree)?;
    check_repeated(root, &tree, &textures)?;
    super::texture::check_textures(root, defs, dir, texturedir)?;
    check_materials(root, defs, &tree, &names)?;
    check_tendons(root, defs, items, &names)?;
    check_actuators(root, &ex.actuator_els, defs, &names)?;
    check_equalities(root, items, &names)?;
    check_sensors(root, &names)?;
    check_tuples_and_skins(root, &names)?;
    super::ranges::check_values(root, defs, items, timestep)
}

/// Collects written names and the site, camera and light elements below `el`, tracking
/// `childclass` as the tree builder does.
fn walk_tree<'a>(
    el: &'a Element,
    defs: &Defaults,
    class: usize,
    in_rep: bool,
    names: &mut Names<'a>,
    tree: &mut TreeElements<'a>,
) -> Res<()> {
    for c in &el.children {
        let name = c.attr("name").map_or("", |a| a.value.as_str());
        let own = defs.class_of(c, class)?;
        let kind = match c.name.as_str() {
            "joint" | "freejoint" => "joint",
            "body" => "body",
            "geom" => "geom",
            "site" => "site",
            "camera" => "camera",
            "light" => "light",
            _ => "",
        };
        if !kind.is_empty() && !name.is_empty() {
            tree.order.push((kind, c, in_rep));
        }
        match c.name.as_str() {
            "body" | "frame" | "replicate" => {
                if c.name == "body" {
                    names.add("body", name);
                }
                let inner = match c.attr("childclass") {
                    Some(a) => defs.find(&a.value).unwrap_or(class),
                    None => class,
                };
                walk_tree(c, defs, inner, in_rep || c.name == "replicate", names, tree)?;
            }
            "joint" | "freejoint" => names.add("joint", name),
            "geom" => names.add("geom", name),
            "site" => {
                names.add("site", name);
                tree.sites.push((c, own));
            }
            "camera" => {
                names.add("camera", name);
                tree.cameras.push((c, own));
            }
            "light" => {
                names.add("light", name);
                tree.lights.push((c, own));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Texture names with their elements: the `name`, else (as MuJoCo's XML reader does for a
/// texture from one file) the file's name without directory and extension.
fn texture_names(root: &Element) -> Vec<(String, &Element)> {
    let mut out = Vec::new();
    for s in root.children.iter().filter(|c| c.name == "asset") {
        for t in s.children.iter().filter(|c| c.name == "texture") {
            let name = match (t.attr("name"), t.attr("file")) {
                (Some(n), _) if !n.value.is_empty() => n.value.clone(),
                (_, Some(f)) => file_stem(&f.value),
                _ => String::new(),
            };
            out.push((name, t));
        }
    }
    out
}

/// A file name without its directory and extension.
fn file_stem(path: &str) -> String {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match base.rfind('.') {
        Some(dot) => base[..dot].to_string(),
        None => base.to_string(),
    }
}

/// A name written inside a `replicate` may not repeat a name of its kind written before the
/// replicate outside one (or the world body's): MuJoCo adds the replicate's template to the tree
/// before it suffixes the copies (measured with 4.0.0: a body `p` and then a replicate of a body
/// `p` fail, also when the replicate sits in another body; the replicate first and the body `p`
/// after it load).
fn check_replicated_names(tree: &TreeElements) -> Res<()> {
    let mut seen: HashSet<(&str, &str)> = HashSet::from([("body", "world")]);
    for &(kind, el, in_rep) in &tree.order {
        let name = el.attr("name").map_or("", |a| a.value.as_str());
        if !in_rep {
            seen.insert((kind, name));
        } else if seen.contains(&(kind, name)) {
            return Err(err_at(el, format!("repeated name '{name}' in {kind} (a replicate's template repeats it)")));
        }
    }
    Ok(())
}

/// "repeated name 'x' in KIND": MuJoCo keeps one namespace per kind of object. Bodies, joints,
/// geoms, sites and meshes are checked by the compiler itself, numerics, texts and tuples by
/// `custom`; the other kinds here.
fn check_repeated(root: &Element, tree: &TreeElements, textures: &[(String, &Element)]) -> Res<()> {
    fn first_repeat<'e>(kind: &str, elems: impl Iterator<Item = (String, &'e Element)>) -> Res<()> {
        let mut seen: HashMap<String, &Element> = HashMap::new();
        for (name, el) in elems {
            if name.is_empty() {
                continue;
            }
            if let Some(first) = seen.get(&name) {
                return Err(err_at(el, format!("repeated name '{name}' in {kind} (first at {})", first.pos)));
            }
            seen.insert(name, el);
        }
        Ok(())
    }
    let named = |el: &Element| el.attr("name").map(|a| a.value.clone()).unwrap_or_default();
    first_repeat("camera", tree.cameras.iter().map(|(e, _)| (named(e), *e)))?;
    first_repeat("light", tree.lights.iter().map(|(e, _)| (named(e), *e)))?;
    first_repeat("texture", textures.iter().map(|(n, e)| (n.clone(), *e)))?;
    let section = |sec: &'static str, tags: &'static [&'static str]| {
        root.children
            .iter()
            .filter(move |s| s.name == sec)
            .flat_map(|s| s.children.iter())
            .filter(move |c| tags.is_empty() || tags.contains(&c.name.as_str()))
    };
    first_repeat("hfield", section("asset", &["hfield"]).map(|e| (named(e), e)))?;
    first_repeat("material", section("asset", &["material"]).map(|e| (named(e), e)))?;
    first_repeat("skin", section("asset", &["skin"]).map(|e| (named(e), e)))?;
    first_repeat("tendon", section("tendon", &["spatial", "fixed"]).map(|e| (named(e), e)))?;
    first_repeat("actuator", section("actuator", &[]).filter(|e| e.name != "plugin").map(|e| (named(e), e)))?;
    first_repeat("sensor", section("sensor", &[]).filter(|e| e.name != "plugin").map(|e| (named(e), e)))?;
    first_repeat("equality", section("equality", &[]).map(|e| (named(e), e)))?;
    first_repeat("pair", section("contact", &["pair"]).map(|e| (named(e), e)))?;
    first_repeat("exclude", section("contact", &["exclude"]).map(|e| (named(e), e)))?;
    first_repeat("key", section("keyframe", &["key"]).map(|e| (named(e), e)))?;
    first_repeat("text", section("custom", &["text"]).map(|e| (named(e), e)))?;
    first_repeat("tuple", section("custom", &["tuple"]).map(|e| (named(e), e)))?;
    Ok(())
}

/// The value of `attr` on `el`, else from its default class `class` (elements of `kind`).
fn value_of<'a>(el: &'a Element, defs: &'a Defaults, class: usize, kind: &str, attr: &str) -> Option<&'a str> {
    match el.attr(attr) {
        Some(a) => Some(a.value.as_str()),
        None => defs.classes.get(class).and_then(|c| c.raw_attr(kind, attr)),
    }
}

/// The error at attribute `attr` of `el`, or at `el` when its default class gave the value.
fn missing_at(el: &Element, attr: &str, msg: String) -> crate::error::MjcfError {
    let pos = el.attr(attr).map_or_else(|| el.pos.clone(), |a| a.pos.clone());
    crate::error::MjcfError::new(pos, msg)
}

/// An error unless `name` (from attribute `a`) is an object of `kind`; `what` ends the message
/// ("in tendon", "for actuator", ...).
fn expect(names: &Names, kind: &str, a: &Attr, what: &str) -> Res<()> {
    if names.has(kind, &a.value) {
        Ok(())
    } else {
        Err(err_attr(a, format!("{kind} '{}' not found {what}", a.value)))
    }
}

/// Materials of sites and tendons, textures of materials and lights, and camera and light
/// targets name existing objects.
fn check_materials(root: &Element, defs: &Defaults, tree: &TreeElements, names: &Names) -> Res<()> {
    let missing = |el: &Element, kind: &str, value: &str, what: &str| {
        let pos = el.attr(kind).map_or_else(|| el.pos.clone(), |a| a.pos.clone());
        crate::error::MjcfError::new(pos, format!("{kind} '{value}' not found in {what}"))
    };
    for (site, class) in &tree.sites {
        let mesh = value_of(site, defs, *class, "site", "mesh").is_some_and(|m| !m.is_empty());
        if mesh && value_of(site, defs, *class, "site", "type") != Some("mesh") {
            return Err(missing_at(site, "mesh", "mesh can only be specified for mesh sites".into()));
        }
        if let Some(m) = value_of(site, defs, *class, "site", "material").filter(|m| !m.is_empty()) {
            if !names.has("material", m) {
                return Err(missing(site, "material", m, "site"));
            }
        }
    }
    for s in root.children.iter().filter(|c| c.name == "asset") {
        for mat in s.children.iter().filter(|c| c.name == "material") {
            let class = defs.class_of(mat, 0)?;
            if let Some(t) = value_of(mat, defs, class, "material", "texture").filter(|t| !t.is_empty()) {
                if !names.has("texture", t) {
                    return Err(missing(mat, "texture", t, "material"));
                }
                if let Some(layer) = mat.children.iter().find(|c| c.name == "layer") {
                    return Err(err_at(layer, "a material with a texture attribute cannot have layer sub-elements"));
                }
            }
            for layer in mat.children.iter().filter(|c| c.name == "layer") {
                if let Some(t) = layer.attr("texture").filter(|t| !t.value.is_empty()) {
                    expect(names, "texture", t, "in material layer")?;
                }
            }
        }
    }
    for (light, class) in &tree.lights {
        if let Some(t) = value_of(light, defs, *class, "light", "texture").filter(|t| !t.is_empty()) {
            if !names.has("texture", t) {
                return Err(missing(light, "texture", t, "light (unknown texture in light)"));
            }
        }
    }
    for (kind, list) in [("camera", &tree.cameras), ("light", &tree.lights)] {
        for (el, class) in list.iter() {
            // an empty target is no target (a corpus camera has mode="targetbodycom" alone)
            let target = value_of(el, defs, *class, kind, "target").unwrap_or("");
            if !target.is_empty() && !names.has("body", target) {
                let pos = el.attr("target").map_or_else(|| el.pos.clone(), |a| a.pos.clone());
                return Err(crate::error::MjcfError::new(
                    pos,
                    format!("unknown target body in {kind}: '{target}' names no body"),
                ));
            }
        }
    }
    Ok(())
}

/// Whether an element (or its class) asks for limits with `limited="true"` and gives a range
/// whose lower end is not below its upper end.
fn bad_limits(el: &Element, defs: &Defaults, class: usize, kind: &str, limited: &str, range: &str) -> bool {
    if value_of(el, defs, class, kind, limited) != Some("true") {
        return false;
    }
    let r: Vec<f64> = value_of(el, defs, class, kind, range)
        .map(|v| v.split_ascii_whitespace().filter_map(|t| crate::xml::values::parse_real(t).ok()).collect())
        .unwrap_or_default();
    let (lo, hi) = (r.first().copied().unwrap_or(0.0), r.get(1).copied().unwrap_or(0.0));
    lo >= hi
}

/// Tendon paths: every site, geom, side site and joint exists, and the path has MuJoCo's shape.
fn check_tendons(root: &Element, defs: &Defaults, items: &[BodyItem], names: &Names) -> Res<()> {
    let geom_type =
        |name: &str| items.iter().flat_map(|b| b.geoms.iter()).find(|g| g.name == name).map(|g| g.spec.gtype);
    let joint_type =
        |name: &str| items.iter().flat_map(|b| b.joints.iter()).find(|j| j.name == name).map(|j| j.spec.jtype);
    let tendons = root.children.iter().filter(|c| c.name == "tendon").flat_map(|s| s.children.iter());
    for t in tendons.filter(|c| c.name == "spatial" || c.name == "fixed") {
        let class = defs.class_of(t, 0)?;
        if let Some(m) = value_of(t, defs, class, "tendon", "material").filter(|m| !m.is_empty()) {
            if !names.has("material", m) {
                let pos = t.attr("material").map_or_else(|| t.pos.clone(), |a| a.pos.clone());
                return Err(crate::error::MjcfError::new(pos, format!("material '{m}' not found in tendon")));
            }
        }
        if t.children.is_empty() {
            return Err(err_at(t, format!("<{}> tendon: path cannot be empty", t.name)));
        }
        if bad_limits(t, defs, class, "tendon", "limited", "range") {
            return Err(err_at(t, "invalid limits in tendon: range[0] must be smaller than range[1]"));
        }
        if t.name == "fixed" {
            let mut seen: HashSet<&str> = HashSet::new();
            for j in &t.children {
                let Some(a) = j.attr("joint") else { continue };
                expect(names, "joint", a, "in tendon")?;
                if !seen.insert(a.value.as_str()) {
                    return Err(err_attr(a, format!("tendon: joint '{}' is repeated", a.value)));
                }
                if joint_type(&a.value).is_some_and(|jt| !matches!(jt, JointType::Hinge | JointType::Slide)) {
                    return Err(err_attr(a, format!("joint '{}' in tendon must be slide or hinge", a.value)));
                }
            }
            continue;
        }
        if let Some(w) = value_of(t, defs, class, "tendon", "width") {
            if crate::xml::values::parse_real(w.trim()).is_ok_and(|w| w <= 0.0) {
                return Err(err_at(t, "tendon must have positive width"));
            }
        }
        check_spatial_path(t, names, &geom_type)?;
    }
    Ok(())
}

/// The path of one spatial tendon: references exist, there are at least two objects, a wrapping
/// geom (a sphere or cylinder) sits between two sites, and no site follows itself.
fn check_spatial_path(t: &Element, names: &Names, geom_type: &dyn Fn(&str) -> Option<GeomType>) -> Res<()> {
    let path = &t.children;
    if path.len() < 2 {
        return Err(err_at(t, "tendon: spatial path must contain at least two objects"));
    }
    for (i, w) in path.iter().enumerate() {
        let is_site = |k: usize| path.get(k).is_some_and(|e| e.name == "site");
        match w.name.as_str() {
            "site" => {
                if let Some(a) = w.attr("site") {
                    expect(names, "site", a, "in tendon")?;
                    let prev = i.checked_sub(1).and_then(|k| path.get(k)).and_then(|p| p.attr("site"));
                    if is_site(i.wrapping_sub(1)) && prev.is_some_and(|p| p.value == a.value) {
                        return Err(err_attr(a, format!("tendon: site '{}' is repeated", a.value)));
                    }
                }
            }
            "geom" => {
                if let Some(a) = w.attr("geom") {
                    expect(names, "geom", a, "in tendon")?;
                    if geom_type(&a.value).is_some_and(|g| !matches!(g, GeomType::Sphere | GeomType::Cylinder)) {
                        return Err(err_attr(a, format!("geom '{}' in tendon is not sphere or cylinder", a.value)));
                    }
                }
                if let Some(a) = w.attr("sidesite").filter(|a| !a.value.is_empty()) {
                    if !names.has("site", &a.value) {
                        return Err(err_attr(a, format!("side site '{}' not found in tendon", a.value)));
                    }
                }
                if i == 0 || !is_site(i - 1) || !is_site(i + 1) {
                    return Err(err_at(w, "tendon: geom not bracketed by sites"));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Actuator transmissions: exactly one target, which exists, and the attributes that belong to
/// one kind of transmission appear only with it; limited ranges are increasing. Checked on the
/// main model's actuators as `replicate` leaves them (copies refer to the copied objects); a copy
/// whose target specula's tree does not name (a replicate inside a replicate) is left to the
/// actuator compiler, which refuses it by name.
fn check_actuators(root: &Element, els: &[super::copies::Placed], defs: &Defaults, names: &Names) -> Res<()> {
    let plugins = root.children.iter().filter(|c| c.name == "actuator").flat_map(|s| s.children_named("plugin"));
    let known =
        |p: &super::copies::Placed| !p.copied || transmission(&p.el).is_some_and(|(t, k)| names.has(k, &t.value));
    let acts = els.iter().filter(|p| p.src == 0 && known(p)).map(|p| &p.el).chain(plugins);
    // a plugin actuator needs a transmission too (measured: an empty <plugin/> in <actuator> is
    // "missing transmission target")
    for a in acts {
        let class = defs.class_of(a, 0)?;
        let Some((target, kind)) = transmission(a) else {
            return Err(err_at(a, format!("missing transmission target for actuator <{}>", a.name)));
        };
        if let Some(r) = a.attr("refsite") {
            if target.name != "site" {
                return Err(err_attr(r, "refsite can only be used with site transmission"));
            }
        }
        let crank = target.name == "cranksite";
        // MuJoCo's reader checks the actuator's own cranklength and slidersite, not a default's.
        if let Some(s) = a.attr("slidersite").or_else(|| a.attr("cranklength")).filter(|_| !crank) {
            return Err(err_attr(s, "cranklength and slidersite can only be used in slidercrank transmission"));
        }
        if target.value.is_empty() {
            return Err(err_attr(target, format!("missing transmission target for actuator <{}>", a.name)));
        }
        if !names.has(kind, &target.value) {
            return Err(err_attr(target, format!("transmission target '{}' not found in actuator", target.value)));
        }
        if let Some(r) = a.attr("refsite").filter(|r| !r.value.is_empty()) {
            expect(names, "site", r, "for actuator (reference site)")?;
        }
        if let Some(s) = a.attr("slidersite") {
            expect(names, "site", s, "for actuator (base site)")?;
        } else if crank {
            return Err(err_at(a, "missing base site for slider-crank: give 'slidersite'"));
        }
        for (limited, range, what) in [
            ("ctrllimited", "ctrlrange", "invalid control range for actuator"),
            ("forcelimited", "forcerange", "invalid force range for actuator"),
            ("actlimited", "actrange", "invalid actrange for actuator"),
        ] {
            // the shortcuts set `actlimited` themselves (auto, or off for a DC motor): their
            // resolved range is checked with the actuator's values (actuator_values.rs)
            if limited == "actlimited" && a.name != "general" {
                continue;
            }
            if bad_limits(a, defs, class, "actuator", limited, range) {
                return Err(err_at(a, format!("{what}: {range}[0] must be smaller than {range}[1]")));
            }
        }
    }
    Ok(())
}

/// Equality constraints: their objects exist, are of the right kind and are two different ones.
fn check_equalities(root: &Element, items: &[BodyItem], names: &Names) -> Res<()> {
    fn has_replicate(el: &Element) -> bool {
        el.children.iter().any(|c| c.name == "replicate" || has_replicate(c))
    }
    let replicates = root.children.iter().filter(|c| c.name == "worldbody").any(has_replicate);
    let joint_type =
        |name: &str| items.iter().flat_map(|b| b.joints.iter()).find(|j| j.name == name).map(|j| j.spec.jtype);
    let eqs = root.children.iter().filter(|c| c.name == "equality").flat_map(|s| s.children.iter());
    for e in eqs {
        let (kind, pairs): (&str, &[&str]) = match e.name.as_str() {
            "connect" | "weld" => {
                if e.attr("site1").is_some() {
                    ("site", &["site1", "site2"])
                } else {
                    ("body", &["body1", "body2"])
                }
            }
            "joint" => ("joint", &["joint1", "joint2"]),
            "tendon" => ("tendon", &["tendon1", "tendon2"]),
            "flex" => ("flex", &["flex"]),
            _ => continue,
        };
        let mut objs: Vec<&Attr> = Vec::new();
        // An empty first object is looked up (the last unnamed one, unknown when there is
        // none); an empty second one is absent (measured: joint1="" refused, joint2="" loads).
        // (after a replicate, body '' is its root, and the equality is dropped with it: refs.rs;
        // a joint, site or tendon '' is looked up as without one, measured with 4.0.0)
        let unnamed_root = replicates && kind == "body";
        if let Some(a) = e.attr(pairs[0]).filter(|a| a.value.is_empty() && !names.has(kind, "") && !unnamed_root) {
            return Err(err_attr(a, "unknown element '' in equality constraint"));
        }
        for attr in pairs {
            if let Some(a) = e.attr(attr).filter(|a| !a.value.is_empty()) {
                if !names.has(kind, &a.value) {
                    return Err(err_attr(a, format!("unknown element '{}' in equality constraint", a.value)));
                }
                objs.push(a);
            }
        }
        if let [a, b] = objs[..] {
            if a.value == b.value {
                return Err(err_attr(b, format!("element '{}' is repeated in equality constraint", b.value)));
            }
        }
        // An absent second site leaves id -1, which MuJoCo's final check of the model's
        // references refuses for a site weld or connect (a missing second body is the world,
        // a missing second joint or tendon is allowed): measured with 4.0.0, site2="" fails
        // with "Invalid model: eq_obj2id out of bounds." (the schema already demands site2).
        if let Some(a) = e.attr("site2").filter(|a| kind == "site" && a.value.is_empty()) {
            return Err(err_attr(
                a,
                "Invalid model: eq_obj2id out of bounds (an empty 'site2' leaves the second site of a site weld or connect unset)",
            ));
        }
        if kind == "joint" {
            for a in &objs {
                if joint_type(&a.value).is_some_and(|t| !matches!(t, JointType::Hinge | JointType::Slide)) {
                    return Err(err_attr(a, "only HINGE and SLIDE joint allowed in constraint"));
                }
            }
        }
    }
    Ok(())
}

/// Sensors: the object they measure, and the reference frame object, exist.
fn check_sensors(root: &Element, names: &Names) -> Res<()> {
    let kind_of_type = |t: &str| -> Option<&'static str> {
        Some(match t {
            "body" | "xbody" => "body",
            "geom" => "geom",
            "site" => "site",
            "camera" => "camera",
            "joint" => "joint",
            "tendon" => "tendon",
            "actuator" => "actuator",
            _ => return None,
        })
    };
    let sensors = root.children.iter().filter(|c| c.name == "sensor").flat_map(|s| s.children.iter());
    for s in sensors.filter(|c| c.name != "plugin") {
        // An object attribute given empty is a missing name (measured on every kind: touch
        // site="", jointpos joint="", distance geom1="" / geom2="", framepos refname="", ...);
        // the second object of a pair, and a camera projection's camera, are the reference.
        let reference = |attr: &str| {
            matches!(attr, "geom2" | "body2" | "subtree2" | "refname")
                || (attr == "camera" && s.name == "camprojection")
        };
        for a in s.attrs.iter().filter(|a| a.value.is_empty()) {
            let object = matches!(
                a.name.as_str(),
                "site"
                    | "joint"
                    | "tendon"
                    | "actuator"
                    | "body"
                    | "camera"
                    | "geom1"
                    | "geom2"
                    | "body1"
                    | "body2"
                    | "subtree1"
                    | "subtree2"
                    | "objname"
                    | "refname"
            );
            if object {
                let what = if reference(&a.name) { "reference frame object" } else { "sensorized object" };
                return Err(err_attr(a, format!("missing name of {what} in sensor")));
            }
        }
        for (attr, kind) in [
            ("site", "site"),
            ("joint", "joint"),
            ("tendon", "tendon"),
            ("actuator", "actuator"),
            ("body", "body"),
            ("camera", "camera"),
            ("geom1", "geom"),
            ("geom2", "geom"),
            ("body1", "body"),
            ("body2", "body"),
            ("subtree1", "body"),
            ("subtree2", "body"),
        ] {
            if let Some(a) = s.attr(attr).filter(|a| !a.value.is_empty()) {
                if !names.has(kind, &a.value) {
                    return Err(err_attr(a, format!("unrecognized name '{}' of sensorized object ({kind})", a.value)));
                }
            }
        }
        for (name_attr, type_attr, what) in
            [("objname", "objtype", "sensorized object"), ("refname", "reftype", "object")]
        {
            let (Some(n), Some(t)) = (s.attr(name_attr), s.attr(type_attr)) else { continue };
            if let Some(kind) = kind_of_type(&t.value) {
                if !n.value.is_empty() && !names.has(kind, &n.value) {
                    return Err(err_attr(n, format!("unrecognized name '{}' of {what} ({kind})", n.value)));
                }
            }
        }
    }
    Ok(())
}

/// The object types a custom tuple element may name (MuJoCo's `mjtObj` words).
const OBJECT_TYPES: [&str; 25] = [
    "body", "xbody", "joint", "dof", "geom", "site", "camera", "light", "flex", "mesh", "skin", "hfield", "texture",
    "material", "pair", "exclude", "equality", "tendon", "actuator", "sensor", "numeric", "text", "tuple", "key",
    "plugin",
];

/// Custom tuples name objects that exist, by a known type; skin bones name bodies that exist.
fn check_tuples_and_skins(root: &Element, names: &Names) -> Res<()> {
    let custom = root.children.iter().filter(|c| c.name == "custom").flat_map(|s| &s.children);
    for t in custom.filter(|t| t.name == "tuple") {
        for e in t.children.iter().filter(|e| e.name == "element") {
            let (Some(ty), Some(n)) = (e.attr("objtype"), e.attr("objname")) else { continue };
            if !OBJECT_TYPES.contains(&ty.value.as_str()) {
                return Err(err_attr(ty, format!("unknown object type '{}' in tuple element", ty.value)));
            }
            let kind = if ty.value == "xbody" { "body" } else { ty.value.as_str() };
            if names.by_kind.contains_key(kind) && !names.has(kind, &n.value) {
                return Err(err_attr(n, format!("unrecognized object '{}' in tuple ({kind})", n.value)));
            }
        }
    }
    let assets = root.children.iter().filter(|c| c.name == "asset").flat_map(|s| &s.children);
    for skin in assets.filter(|a| a.name == "skin") {
        // a skin not read from a file needs vertices, faces and bones (measured with 4.0.0: any
        // one missing is "Missing data in skin")
        let has = |n: &str| skin.attr(n).is_some_and(|a| !a.value.trim().is_empty());
        let bones = skin.children.iter().any(|b| b.name == "bone");
        let inline = has("vertex") && has("face") && bones;
        if !(has("file") || inline) {
            return Err(err_at(skin, "Missing data in skin: give 'file', or 'vertex', 'face' and <bone> elements"));
        }
        for bone in skin.children.iter().filter(|b| b.name == "bone") {
            let n = |a: &str| bone.attr(a).map_or(0, |v| v.value.split_ascii_whitespace().count());
            if n("vertid") == 0 || n("vertid") != n("vertweight") {
                return Err(err_at(bone, "vertid and vertweight must have same non-zero size in skin"));
            }
            if let Some(b) = bone.attr("body") {
                if !names.has("body", &b.value) {
                    return Err(err_attr(b, format!("unknown body '{}' in skin", b.value)));
                }
            }
        }
    }
    Ok(())
}
