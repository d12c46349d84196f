//! Reading `worldbody` into a flat list of bodies, expanding `frame` and `replicate`.
//!
//! Bodies are stored in creation order, which is MuJoCo's depth-first (pre-order) body
//! numbering. A `frame` contributes a pose that is composed into every element inside it;
//! a `replicate` is expanded in place, one frame per copy, with MuJoCo's name suffixes.

use super::attrs::{arr, boolean, err_at, int, keyword, num, string, Res};
use super::math::{frame_accum, frame_accum_child, normvec, MINVAL, QUNIT};
use super::orient::{read_orient, resolve, Alt, AngleConv};
use super::spec::{Defaults, GeomSpec, JointSpec, SiteSpec};
use crate::error::Position;
use crate::types::JointType;
use crate::xml::Element;

/// A composed frame pose relative to the enclosing body.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// Position.
    pub pos: [f64; 3],
    /// Orientation (unit quaternion).
    pub quat: [f64; 4],
}

/// An element of a body (geom, joint or site) before compilation.
#[derive(Clone, Debug)]
pub struct Item<S> {
    /// Name (possibly empty).
    pub name: String,
    /// Specification after defaults and attributes.
    pub spec: S,
    /// Enclosing frame, if any.
    pub frame: Option<Frame>,
    /// Where the element is.
    pub pos: Position,
    /// Index of the model (source) it comes from.
    pub src: usize,
}

/// A body before compilation.
#[derive(Clone, Debug)]
pub struct BodyItem {
    /// Name (`world` for body 0).
    pub name: String,
    /// Parent body (0 for the world itself).
    pub parent: usize,
    /// Position relative to the parent (or frame).
    pub pos: [f64; 3],
    /// Orientation as written.
    pub quat: [f64; 4],
    /// Alternative orientation.
    pub alt: Alt,
    /// Mocap body.
    pub mocap: bool,
    /// Gravity compensation.
    pub gravcomp: f64,
    /// `simple="false"` turns the simple-body optimisation off.
    pub simple: bool,
    /// An `inertial` element was given.
    pub explicit_inertial: bool,
    /// Inertial position (NaN when not given).
    pub ipos: [f64; 3],
    /// Inertial orientation.
    pub iquat: [f64; 4],
    /// Inertial alternative orientation.
    pub ialt: Alt,
    /// Mass.
    pub mass: f64,
    /// Diagonal inertia.
    pub inertia: [f64; 3],
    /// Full inertia (NaN when not given).
    pub fullinertia: [f64; 6],
    /// Enclosing frame.
    pub frame: Option<Frame>,
    /// Joints in order.
    pub joints: Vec<Item<JointSpec>>,
    /// Geoms in order.
    pub geoms: Vec<Item<GeomSpec>>,
    /// Sites in order.
    pub sites: Vec<Item<SiteSpec>>,
    /// Child bodies.
    pub children: Vec<usize>,
    /// Number of cameras.
    pub ncam: usize,
    /// Number of lights.
    pub nlight: usize,
    /// Where the body element is.
    pub el_pos: Position,
    /// Index of the model (source) it comes from.
    pub src: usize,
}

impl BodyItem {
    fn new(name: String, parent: usize, el_pos: Position) -> Self {
        BodyItem {
            name,
            parent,
            pos: [0.0; 3],
            quat: QUNIT,
            alt: Alt::Quat,
            mocap: false,
            gravcomp: 0.0,
            simple: true,
            explicit_inertial: false,
            ipos: [f64::NAN; 3],
            iquat: QUNIT,
            ialt: Alt::Quat,
            mass: 0.0,
            inertia: [0.0; 3],
            fullinertia: [f64::NAN; 6],
            frame: None,
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            children: Vec::new(),
            ncam: 0,
            nlight: 0,
            el_pos,
            src: 0,
        }
    }
}

/// One model the tree is built from: the main file (index 0) or a model asset used by
/// `attach`, each with its own compiler settings and default classes.
pub struct Source {
    /// Name used by `attach model="..."`.
    pub name: String,
    /// The model's root element.
    pub root: Option<Element>,
    /// Angle conventions of its compiler section.
    pub conv: AngleConv,
    /// Its default classes.
    pub defaults: Defaults,
}

/// The most copies the `replicate` elements of a model may make in all, a replicate inside
/// another counting once per outer copy: specula's own limit, applied by both compilers before
/// MuJoCo C sees the file. MuJoCo 4.0.0's compile time grows as about the 2.4th power of the
/// copies, whatever they hold (measured: 3000 copies of a free body 2.2 s, 10000 of them 40 s;
/// 3000 copies of a geom 0.15 s, 30000 of them 43 s; 3 million gave no answer in 30 minutes),
/// while specula compiles 100000 geom copies in 0.2 s.
pub const MAX_REPLICATE_COPIES: u64 = 20_000;

/// Refuses a tree whose replicates make more than [`MAX_REPLICATE_COPIES`] copies in all,
/// naming the replicate at which the count passes the limit.
pub fn check_replicate_copies(root: &Element) -> Res<()> {
    fn walk(el: &Element, outer: u64, total: &mut u64) -> Res<()> {
        let mut outer = outer;
        if el.name == "replicate" {
            // an unreadable count is left to the compiler's own message
            let count = el.attr("count").and_then(|a| a.value.trim().parse::<i64>().ok()).unwrap_or(0).max(0);
            outer = outer.saturating_mul(count as u64);
            *total = total.saturating_add(outer);
            if *total > MAX_REPLICATE_COPIES {
                return Err(err_at(
                    el,
                    format!(
                        "replicates make {} copies in all here; specula refuses more than {MAX_REPLICATE_COPIES} \
                         (MuJoCo 4.0.0's compile time grows as about the 2.4th power of the copies: 10000 take 40 s)",
                        *total
                    ),
                ));
            }
        }
        el.children.iter().try_for_each(|c| walk(c, outer, total))
    }
    walk(root, 1, &mut 0)
}

/// MuJoCo's compile-time checks of a camera's orientation and a light's direction, from the
/// class's values and then the element's own (specula compiles neither further).
fn check_camera_light(el: &Element, cls: &super::spec::DefaultClass, conv: AngleConv) -> Res<()> {
    let kind = el.name.as_str();
    let class_el = Element {
        name: el.name.clone(),
        attrs: cls
            .raw
            .iter()
            .filter(|(k, _, _)| k == kind)
            .map(|(_, a, v)| crate::xml::Attr { name: a.clone(), value: v.clone(), pos: el.pos.clone() })
            .collect(),
        children: Vec::new(),
        pos: el.pos.clone(),
        text: String::new(),
        cdata: 0,
    };
    if kind == "light" {
        let mut dir = [0.0, 0.0, -1.0];
        arr(&class_el, "dir", &mut dir, true)?;
        arr(el, "dir", &mut dir, true)?;
        // mju_normalize3's test: a NaN length passes
        if (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt() < MINVAL {
            return Err(err_at(el, "zero direction in light"));
        }
        return Ok(());
    }
    let mut quat = QUNIT;
    let mut alt = Alt::Quat;
    read_orient(&class_el, &mut quat, &mut alt)?;
    read_orient(el, &mut quat, &mut alt)?;
    resolve(&mut quat, conv, &alt)
        .map(|_| ())
        .map_err(|e| err_at(el, format!("orientation specification error '{e}' in camera")))
}

/// Walks `worldbody` sections and collects bodies.
pub struct TreeBuilder<'a> {
    /// Models: the main one first, then attachable model assets.
    pub sources: &'a [Source],
    /// Bodies in MuJoCo's order.
    pub bodies: Vec<BodyItem>,
    /// For each `attach`: (source index, name prefix), in order of appearance.
    pub attached: Vec<(usize, String)>,
    /// Top-level `replicate`s of the main model, in order.
    pub replicated: Vec<Replicated>,
}

/// A top-level `replicate`: the names defined inside it and the suffix of each copy.
#[derive(Clone, Debug, Default)]
pub struct Replicated {
    /// Names of the elements inside (before suffixing).
    pub names: Vec<String>,
    /// Suffix of each copy.
    pub suffixes: Vec<String>,
    /// The bodies, joints, geoms and sites inside, as (kind, name).
    pub inside: Vec<(&'static str, String)>,
    /// The bodies, joints, geoms and sites made before the replicate (the world too), as (kind,
    /// name).
    pub before: Vec<(&'static str, String)>,
}

impl Replicated {
    /// Whether the replicate holds a `kind` named `name`.
    pub fn holds(&self, kind: &str, name: &str) -> bool {
        self.inside.iter().any(|(k, n)| *k == kind && n == name)
    }

    /// Whether a `kind` named `name` was made before the replicate.
    pub fn follows(&self, kind: &str, name: &str) -> bool {
        self.before.iter().any(|(k, n)| *k == kind && n == name)
    }
}

/// Collects the `name` of every element under `el`.
fn collect_names(el: &Element, out: &mut Vec<String>) {
    for c in &el.children {
        if let Some(a) = c.attr("name") {
            out.push(a.value.clone());
        }
        collect_names(c, out);
    }
}

/// Collects (kind, name) of every named body, joint, geom and site under `el`.
fn collect_kinds(el: &Element, out: &mut Vec<(&'static str, String)>) {
    for c in &el.children {
        let kind = match c.name.as_str() {
            "body" => "body",
            "joint" | "freejoint" => "joint",
            "geom" => "geom",
            "site" => "site",
            _ => "",
        };
        if let Some(a) = c.attr("name").filter(|_| !kind.is_empty()) {
            out.push((kind, a.value.clone()));
        }
        collect_kinds(c, out);
    }
}

/// Where an element is being read: body, enclosing frame, source model, context class and
/// name prefix/suffix.
#[derive(Clone)]
struct Ctx {
    body: usize,
    frame: Option<Frame>,
    src: usize,
    class: usize,
    prefix: String,
    suffix: String,
}

fn named(el: &Element, ctx: &Ctx) -> String {
    match el.attr("name") {
        Some(a) if !a.value.is_empty() => format!("{}{}{}", ctx.prefix, a.value, ctx.suffix),
        _ => String::new(),
    }
}

/// Zero-padded copy index appended by `replicate` (width = digits of `count`).
fn replicate_suffix(sep: &str, count: usize, i: usize) -> String {
    let width = count.to_string().len();
    format!("{sep}{i:0width$}")
}

impl<'a> TreeBuilder<'a> {
    /// A builder holding only the world body.
    pub fn new(sources: &'a [Source], world_pos: Position) -> Self {
        TreeBuilder {
            sources,
            bodies: vec![BodyItem::new("world".into(), 0, world_pos)],
            attached: Vec::new(),
            replicated: Vec::new(),
        }
    }

    /// Reads one `worldbody` section of the main model.
    pub fn worldbody(&mut self, el: &Element) -> Res<()> {
        if !el.attrs.is_empty() {
            return Err(err_at(el, "World body cannot have attributes"));
        }
        let ctx = Ctx { body: 0, frame: None, src: 0, class: 0, prefix: String::new(), suffix: String::new() };
        self.children(el, &ctx)
    }

    fn defaults(&self, ctx: &Ctx) -> &'a Defaults {
        &self.sources[ctx.src].defaults
    }

    /// Composes a frame element's own pose onto the enclosing frame.
    fn frame_pose(&self, el: &Element, parent: Option<Frame>, conv: AngleConv) -> Res<Frame> {
        let mut pos = [0.0; 3];
        let mut quat = QUNIT;
        let mut alt = Alt::Quat;
        arr(el, "pos", &mut pos, true)?;
        read_orient(el, &mut quat, &mut alt)?;
        resolve(&mut quat, conv, &alt)
            .map_err(|e| err_at(el, format!("orientation specification error '{e}' in frame")))?;
        if let Some(p) = parent {
            frame_accum_child(&p.pos, &p.quat, &mut pos, &mut quat);
        }
        normvec(&mut quat);
        Ok(Frame { pos, quat })
    }

    fn childclass(&self, el: &Element, ctx: &Ctx, fallback: usize) -> Res<usize> {
        match el.attr("childclass") {
            None => Ok(fallback),
            Some(a) => self
                .defaults(ctx)
                .find(&a.value)
                .ok_or_else(|| super::attrs::err_attr(a, format!("unknown default childclass '{}'", a.value))),
        }
    }

    fn children(&mut self, section: &Element, ctx: &Ctx) -> Res<()> {
        let world = ctx.body == 0;
        for el in &section.children {
            let class = self.defaults(ctx).class_of(el, ctx.class)?;
            let cls = &self.defaults(ctx).classes[class];
            match el.name.as_str() {
                "inertial" => {
                    if world {
                        return Err(err_at(el, "World body cannot have inertia"));
                    }
                    let b = &mut self.bodies[ctx.body];
                    b.explicit_inertial = true;
                    if !arr(el, "pos", &mut b.ipos, true)? {
                        return Err(err_at(el, "required attribute missing: 'pos'"));
                    }
                    if !num(el, "mass", &mut b.mass)? {
                        return Err(err_at(el, "required attribute missing: 'mass'"));
                    }
                    arr(el, "diaginertia", &mut b.inertia, true)?;
                    read_orient(el, &mut b.iquat, &mut b.ialt)?;
                    arr(el, "fullinertia", &mut b.fullinertia, true)?;
                }
                "joint" | "freejoint" => {
                    if world {
                        return Err(err_at(el, "World body cannot have joints"));
                    }
                    let spec = if el.name == "joint" {
                        let mut s = cls.joint.clone();
                        s.read(el)?;
                        s
                    } else {
                        let mut s = JointSpec { jtype: JointType::Free, ..Default::default() };
                        int(el, "group", &mut s.group)?;
                        if let Some(v) = keyword(el, "align", &super::attrs::FALSE_TRUE_AUTO)? {
                            s.align = v;
                        }
                        s
                    };
                    let item = Item { name: named(el, ctx), spec, frame: ctx.frame, pos: el.pos.clone(), src: ctx.src };
                    self.bodies[ctx.body].joints.push(item);
                }
                "geom" => {
                    let mut spec = cls.geom.clone();
                    spec.read(el)?;
                    if ctx.src != 0 {
                        // asset references of an attached model carry its prefix
                        for r in [&mut spec.material, &mut spec.mesh, &mut spec.hfield] {
                            if !r.is_empty() {
                                *r = format!("{}{}", ctx.prefix, r);
                            }
                        }
                    }
                    let item = Item { name: named(el, ctx), spec, frame: ctx.frame, pos: el.pos.clone(), src: ctx.src };
                    self.bodies[ctx.body].geoms.push(item);
                }
                "site" => {
                    let mut spec = cls.site.clone();
                    spec.read(el)?;
                    let item = Item { name: named(el, ctx), spec, frame: ctx.frame, pos: el.pos.clone(), src: ctx.src };
                    self.bodies[ctx.body].sites.push(item);
                }
                "camera" => {
                    check_camera_light(el, cls, self.sources[ctx.src].conv)?;
                    self.bodies[ctx.body].ncam += 1;
                }
                "light" => {
                    check_camera_light(el, cls, self.sources[ctx.src].conv)?;
                    self.bodies[ctx.body].nlight += 1;
                }
                "frame" => {
                    let fclass = self.childclass(el, ctx, class)?;
                    let frame = self.frame_pose(el, ctx.frame, self.sources[ctx.src].conv)?;
                    let sub = Ctx { frame: Some(frame), class: fclass, ..ctx.clone() };
                    self.children(el, &sub)?;
                }
                "replicate" => self.replicate(el, ctx, class)?,
                "body" => self.body(el, ctx, class)?,
                "attach" => self.attach(el, ctx)?,
                "plugin" => {}
                "composite" | "flexcomp" => {
                    return Err(err_at(el, format!("element '{}' is not supported by specula yet", el.name)));
                }
                other => return Err(err_at(el, format!("unrecognized model element '{other}'"))),
            }
        }
        Ok(())
    }

    fn body(&mut self, el: &Element, ctx: &Ctx, class: usize) -> Res<()> {
        let bclass = self.childclass(el, ctx, class)?;
        let id = self.bodies.len();
        if id >= 65534 {
            return Err(err_at(el, "number of bodies plus flexes must be less than 65534"));
        }
        let mut b = BodyItem::new(named(el, ctx), ctx.body, el.pos.clone());
        arr(el, "pos", &mut b.pos, true)?;
        boolean(el, "mocap", &mut b.mocap)?;
        num(el, "gravcomp", &mut b.gravcomp)?;
        if let Some(v) = keyword(el, "simple", &[("false", false), ("auto", true)])? {
            b.simple = v;
        }
        read_orient(el, &mut b.quat, &mut b.alt)?;
        b.frame = ctx.frame;
        b.src = ctx.src;
        self.bodies.push(b);
        self.bodies[ctx.body].children.push(id);
        let sub = Ctx { body: id, frame: None, class: bclass, ..ctx.clone() };
        self.children(el, &sub)
    }

    /// Expands `replicate`: copy `i` sits in a frame at the accumulated offset, rotated by
    /// `i * euler`, and every name in it gets `sep` plus the zero-padded index appended.
    fn replicate(&mut self, el: &Element, ctx: &Ctx, class: usize) -> Res<()> {
        let mut count = 0;
        if !int(el, "count", &mut count)? {
            return Err(err_at(el, "required attribute missing: 'count'"));
        }
        let mut offset = [0.0; 3];
        let mut euler = [0.0; 3];
        arr(el, "offset", &mut offset, true)?;
        arr(el, "euler", &mut euler, true)?;
        let sep = string(el, "sep").unwrap_or_default();
        let rclass = self.childclass(el, ctx, class)?;
        let conv = self.sources[ctx.src].conv;
        let bad = |e: &str| err_at(el, format!("orientation error '{e}' in replicate"));

        let mut rotation = QUNIT;
        resolve(&mut rotation, conv, &Alt::Euler(euler)).map_err(&bad)?;
        if count > 1_000_000 {
            return Err(err_at(el, "replicate count is unreasonably large (more than 1e6)"));
        }
        let count = count.max(0) as usize;
        if ctx.suffix.is_empty() && ctx.src == 0 {
            let mut r = Replicated::default();
            collect_names(el, &mut r.names);
            r.suffixes = (0..count).map(|i| replicate_suffix(&sep, count, i)).collect();
            let mut before = vec![("body", "world".to_string())];
            for b in &self.bodies {
                before.push(("body", b.name.clone()));
                before.extend(b.joints.iter().map(|j| ("joint", j.name.clone())));
                before.extend(b.geoms.iter().map(|g| ("geom", g.name.clone())));
                before.extend(b.sites.iter().map(|s| ("site", s.name.clone())));
            }
            before.retain(|(_, n)| !n.is_empty());
            r.before = before;
            collect_kinds(el, &mut r.inside);
            self.replicated.push(r);
        }
        let mut pos = [0.0; 3];
        let mut quat = QUNIT;
        for i in 0..count {
            // each copy's angle is i*euler resolved afresh (more precise than accumulating)
            let fi = i as f64;
            let e = Alt::Euler([fi * euler[0], fi * euler[1], fi * euler[2]]);
            resolve(&mut quat, conv, &e).map_err(&bad)?;
            let mut fpos = pos;
            let mut fquat = quat;
            if let Some(p) = ctx.frame {
                frame_accum_child(&p.pos, &p.quat, &mut fpos, &mut fquat);
            }
            normvec(&mut fquat);
            frame_accum(&mut pos, &mut quat, &offset, &rotation);
            let suffix = format!("{}{}", replicate_suffix(&sep, count, i), ctx.suffix);
            let sub = Ctx { frame: Some(Frame { pos: fpos, quat: fquat }), class: rclass, suffix, ..ctx.clone() };
            self.children(el, &sub)?;
        }
        Ok(())
    }

    /// `attach`: copies a body, a frame or the whole world of a model asset here, with its own
    /// compiler settings and defaults, every name prefixed.
    fn attach(&mut self, el: &Element, ctx: &Ctx) -> Res<()> {
        // without `model`, the body or frame comes from this model itself (self-attach)
        let model = string(el, "model");
        let src = match &model {
            None => 0,
            Some(name) => self
                .sources
                .iter()
                .skip(1)
                .position(|s| s.name == *name && s.root.is_some())
                .map(|i| i + 1)
                .ok_or_else(|| err_at(el, format!("could not find model '{name}'")))?,
        };
        let model = model.unwrap_or_default();
        let prefix = string(el, "prefix").ok_or_else(|| err_at(el, "required attribute missing: 'prefix'"))?;
        let Some(root) = self.sources[src].root.as_ref() else { return Ok(()) };
        if src == 0 && el.attr("body").is_none() && el.attr("frame").is_none() {
            return Err(err_at(el, "either 'body' or 'frame' attribute must be specified for self-attach"));
        }
        if src != 0 {
            self.attached.push((src, prefix.clone()));
        }
        let sub = Ctx { src, class: 0, prefix: format!("{}{prefix}", ctx.prefix), ..ctx.clone() };
        let worlds = root.children.iter().filter(|c| c.name == "worldbody");
        if let Some(name) = string(el, "body") {
            for w in worlds {
                if let Some((b, class)) = find_named(w, "body", &name, 0, &self.sources[src].defaults) {
                    return self.body(b, &sub, class);
                }
            }
            Err(err_at(el, format!("could not find body '{name}' in model asset '{model}'")))
        } else if let Some(name) = string(el, "frame") {
            for w in worlds {
                if let Some((f, class)) = find_named(w, "frame", &name, 0, &self.sources[src].defaults) {
                    let fclass = self.childclass(f, &sub, class)?;
                    let frame = self.frame_pose(f, ctx.frame, self.sources[src].conv)?;
                    let inner = Ctx { frame: Some(frame), class: fclass, ..sub };
                    return self.children(f, &inner);
                }
            }
            Err(err_at(el, format!("could not find frame '{name}' in model asset '{model}'")))
        } else {
            for w in worlds {
                self.children(w, &sub)?;
            }
            Ok(())
        }
    }
}

/// Finds the element `kind` named `name` under `el`, with the default class in effect there.
fn find_named<'e>(
    el: &'e Element,
    kind: &str,
    name: &str,
    class: usize,
    defs: &Defaults,
) -> Option<(&'e Element, usize)> {
    for c in &el.children {
        if !matches!(c.name.as_str(), "body" | "frame") {
            continue;
        }
        if c.name == kind && c.attr("name").is_some_and(|a| a.value == name) {
            return Some((c, class));
        }
        let inner = c.attr("childclass").and_then(|a| defs.find(&a.value)).unwrap_or(class);
        if let Some(found) = find_named(c, kind, name, inner, defs) {
            return Some(found);
        }
    }
    None
}
