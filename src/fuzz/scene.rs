//! The generator's scene description: random but physically sensible, drawn from a seed, and
//! written out as MJCF. Every element has a stable name, so the shrinker can drop parts of a
//! scene without renaming the rest.

use super::dynamics::{Dynamics, JointProps};
use std::fmt::Write as _;

/// A small, fast, seedable generator (SplitMix64): the scenes must be the same on every machine
/// and with every build, so no crate whose stream may change between versions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5EC0_1A5E_ED00_0001)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [a, b).
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
    /// Log-uniform in [a, b).
    pub fn log(&mut self, a: f64, b: f64) -> f64 {
        (a.ln() + (b.ln() - a.ln()) * self.unit()).exp()
    }
    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    /// A uniformly random unit vector.
    pub fn direction(&mut self) -> [f64; 3] {
        loop {
            let v = [self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0)];
            let n = norm(&v);
            if n > 1e-3 && n <= 1.0 {
                return [v[0] / n, v[1] / n, v[2] / n];
            }
        }
    }
    /// A uniformly random unit quaternion.
    pub fn quat(&mut self) -> [f64; 4] {
        loop {
            let q = [self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0)];
            let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
            if n > 1e-3 && n <= 1.0 {
                return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
            }
        }
    }
}

/// Euclidean length.
pub fn norm(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Rotates `v` by the unit quaternion `q` (w, x, y, z).
pub fn rotate(q: &[f64; 4], v: &[f64; 3]) -> [f64; 3] {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    let t = [2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])];
    [
        v[0] + w * t[0] + (y * t[2] - z * t[1]),
        v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

/// Contact settings of a geom; `None` leaves MuJoCo's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// `margin`.
    pub margin: Option<f64>,
    /// `gap`.
    pub gap: Option<f64>,
    /// `solref` (standard when positive, direct when negative).
    pub solref: Option<[f64; 2]>,
    /// `solimp`.
    pub solimp: Option<[f64; 5]>,
    /// `condim`.
    pub condim: Option<u8>,
    /// `priority`.
    pub priority: Option<i32>,
    /// `solmix`.
    pub solmix: Option<f64>,
    /// `friction`.
    pub friction: Option<[f64; 3]>,
    /// `contype`, `conaffinity`.
    pub bits: Option<(u32, u32)>,
}

/// A geom's shape.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Radius.
    Sphere(f64),
    /// Radius, half length.
    Capsule(f64, f64),
    /// Semi-axes.
    Ellipsoid([f64; 3]),
    /// Radius, half height.
    Cylinder(f64, f64),
    /// Half sizes.
    Box([f64; 3]),
    /// A convex mesh asset, by index into [`Scene::meshes`].
    Mesh(usize),
    /// A plane (static only), half sizes of its visual extent.
    Plane(f64, f64),
    /// A height field (static only): rows, columns, elevations in [0, 1], and MJCF's size.
    Hfield(usize, usize, Vec<f64>, [f64; 4]),
}

impl Shape {
    /// A rough radius, for placing things apart.
    pub fn reach(&self, meshes: &[MeshAsset]) -> f64 {
        match self {
            Shape::Sphere(r) => *r,
            Shape::Capsule(r, h) | Shape::Cylinder(r, h) => r + h,
            Shape::Ellipsoid(s) | Shape::Box(s) => norm(s),
            Shape::Mesh(k) => meshes.get(*k).map_or(0.0, MeshAsset::reach),
            Shape::Plane(x, y) => x.max(*y),
            Shape::Hfield(_, _, _, s) => s[0].max(s[1]).max(s[2]),
        }
    }
}

/// One geom with its pose in its body's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct GeomSpec {
    /// Stable name.
    pub name: String,
    /// Shape and size.
    pub shape: Shape,
    /// Position in the body frame.
    pub pos: [f64; 3],
    /// Orientation in the body frame.
    pub quat: [f64; 4],
    /// Contact settings.
    pub surface: Surface,
}

/// A body that holds obstacles: welded to the world, or a mocap body.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixture {
    /// Stable name.
    pub name: String,
    /// World position.
    pub pos: [f64; 3],
    /// World orientation.
    pub quat: [f64; 4],
    /// A mocap body rather than a welded one.
    pub mocap: bool,
}

/// A static geom: directly in `<worldbody>` (`fixture` is `None`) or on a fixture.
#[derive(Clone, Debug, PartialEq)]
pub struct Obstacle {
    /// Index into [`Scene::fixtures`], or the world body.
    pub fixture: Option<usize>,
    /// The geom, in the fixture's frame (the world's for `None`).
    pub geom: GeomSpec,
}

/// A free body and its start state.
#[derive(Clone, Debug, PartialEq)]
pub struct Thrown {
    /// Stable name.
    pub name: String,
    /// Start position.
    pub pos: [f64; 3],
    /// Start orientation.
    pub quat: [f64; 4],
    /// Start linear velocity (world frame).
    pub vel: [f64; 3],
    /// Start angular velocity (body frame, as MuJoCo's free joint has it).
    pub spin: [f64; 3],
    /// Its geoms (at least one).
    pub geoms: Vec<GeomSpec>,
    /// How the body is attached: a free joint, or a hinge to the world (a swinging arm).
    pub root: Joint,
    /// A chain of child bodies, each the child of the one before.
    pub links: Vec<Link>,
}

/// A joint of an articulated part.
#[derive(Clone, Debug, PartialEq)]
pub enum Joint {
    /// `freejoint`.
    Free,
    /// A hinge about this axis (body frame), with its start angular speed.
    Hinge([f64; 3], f64),
    /// A slide along this axis, with its start speed.
    Slide([f64; 3], f64),
    /// A ball joint with its start angular velocity.
    Ball([f64; 3]),
    /// No joint: welded to the parent.
    Weld,
}

impl Joint {
    /// The joint's MJCF element named `name` with more attributes `attrs` (empty for a weld).
    fn xml(&self, name: &str, attrs: &str) -> String {
        match self {
            Joint::Free if attrs.is_empty() => format!("<freejoint name=\"{name}\"/>"),
            Joint::Free => format!("<joint name=\"{name}\" type=\"free\"{attrs}/>"),
            Joint::Hinge(a, _) => format!("<joint name=\"{name}\" type=\"hinge\" axis=\"{}\"{attrs}/>", fs(a)),
            Joint::Slide(a, _) => format!("<joint name=\"{name}\" type=\"slide\" axis=\"{}\"{attrs}/>", fs(a)),
            Joint::Ball(_) => format!("<joint name=\"{name}\" type=\"ball\"{attrs}/>"),
            Joint::Weld => String::new(),
        }
    }
    /// Start qpos of a non-root joint.
    fn qpos(&self) -> Vec<f64> {
        match self {
            Joint::Free => vec![],
            Joint::Hinge(..) | Joint::Slide(..) => vec![0.0],
            Joint::Ball(_) => vec![1.0, 0.0, 0.0, 0.0],
            Joint::Weld => vec![],
        }
    }
    /// Start qvel of a non-root joint.
    fn qvel(&self) -> Vec<f64> {
        match self {
            Joint::Free | Joint::Weld => vec![],
            Joint::Hinge(_, w) | Joint::Slide(_, w) => vec![*w],
            Joint::Ball(w) => w.to_vec(),
        }
    }
}

/// A child body of an articulated part.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Stable name.
    pub name: String,
    /// Position in the parent's frame.
    pub pos: [f64; 3],
    /// Its joint to the parent.
    pub joint: Joint,
    /// Its geoms (at least one).
    pub geoms: Vec<GeomSpec>,
}

/// A mesh given by its vertices, whose surface MuJoCo makes their convex hull, or by vertices
/// and triangles, which may be concave (a tray, a channel, a bracket).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshAsset {
    /// Stable name.
    pub name: String,
    /// Vertices (before `scale`).
    pub vertices: Vec<[f64; 3]>,
    /// Triangles as vertex indices, outward winding; empty for a vertex-only (convex) mesh.
    pub faces: Vec<[usize; 3]>,
    /// `scale`.
    pub scale: [f64; 3],
    /// For a concave mesh, the open space it holds: centre and half-extents, scaled, in the
    /// mesh's own frame.
    pub hollow: Option<([f64; 3], [f64; 3])>,
}

impl MeshAsset {
    /// The largest distance of a scaled vertex from the origin.
    pub fn reach(&self) -> f64 {
        let s = &self.scale;
        self.vertices.iter().map(|v| norm(&[v[0] * s[0], v[1] * s[1], v[2] * s[2]])).fold(0.0, f64::max)
    }
}

/// An explicit `<pair>` with some of its own settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSpec {
    /// The two geom names.
    pub geoms: [String; 2],
    /// Settings (priority, solmix and bits are not pair attributes and stay `None`).
    pub surface: Surface,
}

/// The `o_margin`, `o_solref`, `o_solimp` and `o_friction` of the `override` flag.
pub type Override = (f64, [f64; 2], [f64; 5], [f64; 5]);

/// Global options.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneOptions {
    /// Timestep (s).
    pub timestep: f64,
    /// Integrator, as MJCF spells it.
    pub integrator: &'static str,
    /// Speculative contacts.
    pub speculative: bool,
    /// `multiccd` flag.
    pub multiccd: bool,
    /// `nativeccd` flag.
    pub nativeccd: bool,
    /// `override` flag with its settings.
    pub override_: Option<Override>,
    /// `solver`, `cone`, `jacobian` and `impratio` when not MuJoCo's defaults (the native
    /// subset draws them, [`super::subset`]).
    pub solver: Option<SolverOptions>,
}

/// Constraint solver settings: `solver`, `cone` and `jacobian` as MJCF spells them, `impratio`.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverOptions {
    /// `solver`.
    pub solver: &'static str,
    /// `cone`.
    pub cone: &'static str,
    /// `jacobian`.
    pub jacobian: &'static str,
    /// `impratio`.
    pub impratio: f64,
}

/// A whole generated scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// The seed it was drawn from.
    pub seed: u64,
    /// Options.
    pub opt: SceneOptions,
    /// The floor plane, if any (in `<worldbody>`).
    pub floor: Option<GeomSpec>,
    /// Mesh assets.
    pub meshes: Vec<MeshAsset>,
    /// Fixture bodies.
    pub fixtures: Vec<Fixture>,
    /// Static geoms.
    pub obstacles: Vec<Obstacle>,
    /// Free bodies.
    pub bodies: Vec<Thrown>,
    /// Explicit pairs.
    pub pairs: Vec<PairSpec>,
    /// Excluded body pairs, by name (`world` for the world body).
    pub excludes: Vec<[String; 2]>,
    /// Joint properties and actuators.
    pub dynamics: Dynamics,
}

/// The integrators MuJoCo 4.0.0 has, as MJCF spells them.
pub const INTEGRATORS: [&str; 5] = ["Euler", "RK4", "implicit", "implicitfast", "discrete"];

/// The name of the joint of body `body` (a body has at most one).
pub fn joint_name(body: &str) -> String {
    format!("{body}j")
}

pub(super) fn f(v: f64) -> String {
    // shortest round-trip form: the file reproduces the scene exactly
    format!("{v:?}")
}

pub(super) fn fs(v: &[f64]) -> String {
    v.iter().map(|&x| f(x)).collect::<Vec<_>>().join(" ")
}

fn surface_attrs(s: &Surface, out: &mut String) {
    let mut put = |k: &str, v: String| {
        let _ = write!(out, " {k}=\"{v}\"");
    };
    if let Some(v) = s.margin {
        put("margin", f(v));
    }
    if let Some(v) = s.gap {
        put("gap", f(v));
    }
    if let Some(v) = s.solref {
        put("solref", fs(&v));
    }
    if let Some(v) = s.solimp {
        put("solimp", fs(&v));
    }
    if let Some(v) = s.condim {
        put("condim", v.to_string());
    }
    if let Some(v) = s.priority {
        put("priority", v.to_string());
    }
    if let Some(v) = s.solmix {
        put("solmix", f(v));
    }
    if let Some(v) = s.friction {
        put("friction", fs(&v));
    }
    if let Some((t, a)) = s.bits {
        put("contype", t.to_string());
        put("conaffinity", a.to_string());
    }
}

fn geom_xml(g: &GeomSpec, meshes: &[MeshAsset], indent: &str, density: bool, out: &mut String) {
    let (ty, size) = match &g.shape {
        Shape::Sphere(r) => ("sphere", fs(&[*r])),
        Shape::Capsule(r, h) => ("capsule", fs(&[*r, *h])),
        Shape::Ellipsoid(s) => ("ellipsoid", fs(s)),
        Shape::Cylinder(r, h) => ("cylinder", fs(&[*r, *h])),
        Shape::Box(s) => ("box", fs(s)),
        Shape::Mesh(_) => ("mesh", String::new()),
        Shape::Plane(x, y) => ("plane", fs(&[*x, *y, 0.1])),
        Shape::Hfield(..) => ("hfield", String::new()),
    };
    let _ = write!(out, "{indent}<geom name=\"{}\" type=\"{ty}\"", g.name);
    match &g.shape {
        Shape::Mesh(k) => {
            let _ = write!(out, " mesh=\"{}\"", meshes.get(*k).map_or("?", |m| &m.name));
        }
        Shape::Hfield(..) => {
            let _ = write!(out, " hfield=\"{}_h\"", g.name);
        }
        _ => {
            let _ = write!(out, " size=\"{size}\"");
        }
    }
    let _ = write!(out, " pos=\"{}\" quat=\"{}\"", fs(&g.pos), fs(&g.quat));
    if density {
        // steel-like parts, so thin ones are not absurdly light
        out.push_str(" density=\"7850\"");
    }
    surface_attrs(&g.surface, out);
    out.push_str("/>\n");
}

impl Scene {
    /// The scene as MJCF, with a keyframe `start` holding the free bodies' start state.
    pub fn to_mjcf(&self) -> String {
        let mut s = String::new();
        let o = &self.opt;
        let _ = writeln!(s, "<mujoco model=\"fuzz-{}\">", self.seed);
        let _ = write!(s, "  <option timestep=\"{}\" integrator=\"{}\"", f(o.timestep), o.integrator);
        if let Some((m, r, i, fr)) = &o.override_ {
            let _ = write!(
                s,
                " o_margin=\"{}\" o_solref=\"{}\" o_solimp=\"{}\" o_friction=\"{}\"",
                f(*m),
                fs(r),
                fs(i),
                fs(fr)
            );
        }
        if let Some(so) = &o.solver {
            let _ = write!(
                s,
                " solver=\"{}\" cone=\"{}\" jacobian=\"{}\" impratio=\"{}\"",
                so.solver,
                so.cone,
                so.jacobian,
                f(so.impratio)
            );
        }
        s.push_str(">\n    <flag");
        let onoff = |b: bool| if b { "enable" } else { "disable" };
        let _ = write!(
            s,
            " speculative=\"{}\" multiccd=\"{}\" nativeccd=\"{}\"",
            onoff(o.speculative),
            onoff(o.multiccd),
            onoff(o.nativeccd)
        );
        if o.override_.is_some() {
            s.push_str(" override=\"enable\"");
        }
        s.push_str("/>\n  </option>\n");
        let hfields: Vec<&GeomSpec> =
            self.obstacles.iter().map(|o| &o.geom).filter(|g| matches!(g.shape, Shape::Hfield(..))).collect();
        if !self.meshes.is_empty() || !hfields.is_empty() {
            s.push_str("  <asset>\n");
            for m in &self.meshes {
                let flat: Vec<f64> = m.vertices.iter().flatten().copied().collect();
                let _ = write!(s, "    <mesh name=\"{}\" scale=\"{}\" vertex=\"{}\"", m.name, fs(&m.scale), fs(&flat));
                if !m.faces.is_empty() {
                    let ids: Vec<String> = m.faces.iter().flatten().map(usize::to_string).collect();
                    let _ = write!(s, " face=\"{}\"", ids.join(" "));
                }
                s.push_str("/>\n");
            }
            for g in hfields {
                if let Shape::Hfield(nrow, ncol, data, size) = &g.shape {
                    let _ = writeln!(
                        s,
                        "    <hfield name=\"{}_h\" nrow=\"{nrow}\" ncol=\"{ncol}\" size=\"{}\" elevation=\"{}\"/>",
                        g.name,
                        fs(size),
                        fs(data)
                    );
                }
            }
            s.push_str("  </asset>\n");
        }
        s.push_str("  <worldbody>\n");
        if let Some(fl) = &self.floor {
            let _ = write!(
                s,
                "    <geom name=\"{}\" type=\"plane\" size=\"3 3 0.1\" pos=\"{}\" quat=\"{}\"",
                fl.name,
                fs(&fl.pos),
                fs(&fl.quat)
            );
            surface_attrs(&fl.surface, &mut s);
            s.push_str("/>\n");
        }
        for ob in self.obstacles.iter().filter(|o| o.fixture.is_none()) {
            geom_xml(&ob.geom, &self.meshes, "    ", false, &mut s);
        }
        for (k, fx) in self.fixtures.iter().enumerate() {
            let mocap = if fx.mocap { " mocap=\"true\"" } else { "" };
            let _ =
                writeln!(s, "    <body name=\"{}\" pos=\"{}\" quat=\"{}\"{mocap}>", fx.name, fs(&fx.pos), fs(&fx.quat));
            for ob in self.obstacles.iter().filter(|o| o.fixture == Some(k)) {
                geom_xml(&ob.geom, &self.meshes, "      ", false, &mut s);
            }
            s.push_str("    </body>\n");
        }
        for b in &self.bodies {
            let _ = writeln!(s, "    <body name=\"{}\" pos=\"{}\" quat=\"{}\">", b.name, fs(&b.pos), fs(&b.quat));
            let name = joint_name(&b.name);
            let _ = writeln!(s, "      {}", b.root.xml(&name, &self.joint_attrs(&name)));
            for g in &b.geoms {
                geom_xml(g, &self.meshes, "      ", true, &mut s);
            }
            let mut indent = String::from("      ");
            for l in &b.links {
                let _ = writeln!(s, "{indent}<body name=\"{}\" pos=\"{}\">", l.name, fs(&l.pos));
                indent.push_str("  ");
                let name = joint_name(&l.name);
                let j = l.joint.xml(&name, &self.joint_attrs(&name));
                if !j.is_empty() {
                    let _ = writeln!(s, "{indent}{j}");
                }
                for g in &l.geoms {
                    geom_xml(g, &self.meshes, &indent, true, &mut s);
                }
            }
            for _ in &b.links {
                indent.truncate(indent.len() - 2);
                let _ = writeln!(s, "{indent}</body>");
            }
            s.push_str("    </body>\n");
        }
        s.push_str("  </worldbody>\n");
        if !self.pairs.is_empty() || !self.excludes.is_empty() {
            s.push_str("  <contact>\n");
            for p in &self.pairs {
                let _ = write!(s, "    <pair geom1=\"{}\" geom2=\"{}\"", p.geoms[0], p.geoms[1]);
                surface_attrs(&p.surface, &mut s);
                s.push_str("/>\n");
            }
            for e in &self.excludes {
                let _ = writeln!(s, "    <exclude body1=\"{}\" body2=\"{}\"/>", e[0], e[1]);
            }
            s.push_str("  </contact>\n");
        }
        s.push_str(&self.dynamics.actuators_xml());
        if self.has_dofs() {
            let mut qpos = Vec::new();
            let mut qvel = Vec::new();
            for b in &self.bodies {
                match &b.root {
                    Joint::Free => {
                        qpos.extend(b.pos.into_iter().chain(b.quat));
                        qvel.extend(b.vel.into_iter().chain(b.spin));
                    }
                    j => {
                        qpos.extend(j.qpos());
                        qvel.extend(j.qvel());
                    }
                }
                for l in &b.links {
                    qpos.extend(l.joint.qpos());
                    qvel.extend(l.joint.qvel());
                }
            }
            let _ = writeln!(
                s,
                "  <keyframe>\n    <key name=\"start\" qpos=\"{}\" qvel=\"{}\"{}/>\n  </keyframe>",
                fs(&qpos),
                fs(&qvel),
                self.dynamics.key_attrs()
            );
        }
        s.push_str("</mujoco>\n");
        s
    }

    /// The MJCF attributes of joint `name`'s properties.
    fn joint_attrs(&self, name: &str) -> String {
        self.dynamics.joints.get(name).map_or_else(String::new, JointProps::attrs)
    }

    /// Every joint of the scene with its name (welds have none), in MJCF order.
    pub fn joints(&self) -> Vec<(String, &Joint)> {
        let mut v = Vec::new();
        for b in &self.bodies {
            v.push((joint_name(&b.name), &b.root));
            v.extend(b.links.iter().map(|l| (joint_name(&l.name), &l.joint)));
        }
        v.retain(|(_, j)| **j != Joint::Weld);
        v
    }

    /// Names of every joint in the scene (welds have none).
    pub fn joint_names(&self) -> Vec<String> {
        self.joints().into_iter().map(|(n, _)| n).collect()
    }

    /// Whether the scene has degrees of freedom (and so a keyframe).
    pub fn has_dofs(&self) -> bool {
        self.bodies.iter().any(|b| b.root != Joint::Weld || b.links.iter().any(|l| l.joint != Joint::Weld))
    }

    /// Names of every geom in the scene.
    pub fn geom_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.floor.iter().map(|g| g.name.as_str()).collect();
        v.extend(self.obstacles.iter().map(|o| o.geom.name.as_str()));
        for b in &self.bodies {
            v.extend(b.geoms.iter().map(|g| g.name.as_str()));
            v.extend(b.links.iter().flat_map(|l| l.geoms.iter().map(|g| g.name.as_str())));
        }
        v
    }

    /// Names of every body that can be excluded (the world included).
    pub fn body_names(&self) -> Vec<&str> {
        let mut v = vec!["world"];
        v.extend(self.fixtures.iter().map(|f| f.name.as_str()));
        for b in &self.bodies {
            v.push(b.name.as_str());
            v.extend(b.links.iter().map(|l| l.name.as_str()));
        }
        v
    }

    /// Drops pairs, excludes and meshes that refer to removed parts, and fixtures left empty.
    pub fn tidy(&mut self) {
        let geoms: Vec<String> = self.geom_names().into_iter().map(str::to_owned).collect();
        self.pairs.retain(|p| p.geoms.iter().all(|g| geoms.contains(g)));
        let bodies: Vec<String> = self.body_names().into_iter().map(str::to_owned).collect();
        self.excludes.retain(|e| e.iter().all(|b| bodies.contains(b)) && e[0] != e[1]);
        let joints = self.joint_names();
        self.dynamics.retain_joints(&joints);
        // meshes: keep the used ones, renumbering references
        let mut used = vec![false; self.meshes.len()];
        let mut mark = |g: &GeomSpec| {
            if let Shape::Mesh(k) = g.shape {
                if let Some(u) = used.get_mut(k) {
                    *u = true;
                }
            }
        };
        self.obstacles.iter().for_each(|o| mark(&o.geom));
        self.bodies
            .iter()
            .flat_map(|b| b.geoms.iter().chain(b.links.iter().flat_map(|l| &l.geoms)))
            .for_each(&mut mark);
        let mut remap = vec![usize::MAX; self.meshes.len()];
        let mut n = 0;
        for (k, u) in used.iter().enumerate() {
            if *u {
                remap[k] = n;
                n += 1;
            }
        }
        let fix = |g: &mut GeomSpec| {
            if let Shape::Mesh(k) = &mut g.shape {
                *k = remap[*k];
            }
        };
        self.obstacles.iter_mut().for_each(|o| fix(&mut o.geom));
        for b in &mut self.bodies {
            b.geoms.iter_mut().for_each(fix);
            b.links.iter_mut().flat_map(|l| &mut l.geoms).for_each(fix);
        }
        let mut k = 0;
        self.meshes.retain(|_| {
            k += 1;
            used[k - 1]
        });
        // fixtures without obstacles
        let mut keep: Vec<bool> =
            (0..self.fixtures.len()).map(|k| self.obstacles.iter().any(|o| o.fixture == Some(k))).collect();
        if keep.iter().any(|k| !k) {
            let mut remap = vec![None; keep.len()];
            let mut n = 0;
            for (k, kp) in keep.iter().enumerate() {
                if *kp {
                    remap[k] = Some(n);
                    n += 1;
                }
            }
            for o in &mut self.obstacles {
                o.fixture = o.fixture.and_then(|k| remap[k]);
            }
            let mut k = 0;
            self.fixtures.retain(|_| {
                k += 1;
                std::mem::take(&mut keep[k - 1])
            });
            let bodies: Vec<String> = self.body_names().into_iter().map(str::to_owned).collect();
            self.excludes.retain(|e| e.iter().all(|b| bodies.contains(b)));
        }
    }
}
