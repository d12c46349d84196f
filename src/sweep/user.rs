//! Sweeping a free body of the user's own scene: where each run starts, and what the body did.
//!
//! **Start.** The scene is reset to its keyframe (or to qpos0) and the body, which must have a free
//! joint, is thrown along a unit direction: given as a vector, or toward a named geom or site (from
//! the body's centre, the mean of its colliding geoms' centres, at the start state). It is first
//! tilted by a random angle up to `tilt` about a random axis across the direction (about its
//! origin), then moved along the direction so that the **gap** between it and its target is
//! `gap + offset·v·h`: the gap is measured along the direction, between the plane across it that
//! touches the body's foremost point and the one that touches the target's nearest point (for a pin
//! dropped onto a plate: the height of its tip above the plate's top face). Its linear velocity is
//! `v` along the direction plus a random sideways speed up to `jitter` along each of the two axes
//! across it; its angular velocity is the keyframe's. The draws come from a generator seeded by the
//! seed, the body and the run's timestep, speed, offset and draw number, so every mode and route
//! sees the same start.
//!
//! **Target.** The geom named by `--toward`, or else the first geom of another body that the ray
//! from the body's centre along the direction enters (solids by their bounding box, planes
//! exactly).
//!
//! **Labels.** After the run (which stops early once the body is entirely past the target's far
//! face), using [`crate::tunnel`]:
//! * **PASS**: the tunnel detector saw it pass through a geom (named in `through`, at `step`): for
//!   the target, only when its centre ended beyond the target's far face;
//! * **STUCK**: it crossed the target's middle (or entered a geom) and its centre is still inside
//!   the target at the end: embedded, or skewered through it (a tilted pin whose centre crossed
//!   the plate's mid-plane and stopped there);
//! * **OFF**: it got past the target without passing through it: it left sideways (slid or
//!   bounced off an edge, or went around);
//! * **LAND**: it rests (speed below 0.05 m/s);
//! * **BOUNCE**: it is still moving (it rebounded, or slides).
//!
//! A body that went through the target's middle and was pushed back out on the near side is
//! labelled by where it ended, LAND or BOUNCE, with the passage counted in `tunnels`.
//!
//! **dip** is the deepest its foremost point went past the target's near face, **rebound** the
//! farthest it came back from that face after it first stopped approaching (both in mm, for LAND
//! and BOUNCE), **rest** the final gap (mm; negative is inside the target).

use std::path::PathBuf;

use specula_engine::math::{axis_angle2quat, cross, mul_quat, normalize3};

use crate::mj::{Data, MjError, Model, ObjType};
use crate::tunnel::{Tunnel, TunnelDetector};

use super::exec::{Outcome, RunResult};
use super::scene::SplitMix;
use super::shape::{array, Shapes};
use super::RunSpec;

/// Speed below which the body counts as at rest (m/s), as in the presets.
const REST_SPEED: f64 = 0.05;

/// Where the body is thrown.
#[derive(Clone, Debug, PartialEq)]
pub enum Aim {
    /// Along this unit vector (world frame).
    Direction([f64; 3]),
    /// Toward this geom or site, which is then the target (a site's target is the first geom ahead).
    Toward(String),
}

/// One body of the user's scene and how its runs start (shared by all its runs).
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The MJCF file.
    pub scene: PathBuf,
    /// The body that is thrown.
    pub body: String,
    /// Where it is thrown.
    pub aim: Aim,
    /// Start gap before the offset's share of a step's travel (m).
    pub gap: f64,
    /// Largest random tilt (degrees).
    pub tilt: f64,
    /// Largest random sideways speed per axis (m/s).
    pub jitter: f64,
    /// Seed of the draws.
    pub seed: u64,
    /// Keyframe to start from (name or index); qpos0 without it.
    pub key: Option<String>,
}

/// What a run of a user's body did, beyond the shared fields of [`RunResult`].
#[derive(Clone, Debug, PartialEq)]
pub struct UserResult {
    /// The target the gap was measured to.
    pub target: String,
    /// PASS and STUCK: what it went through or into: the target geom when it is the target's body,
    /// else the tunnel detector's label (a body's name, or a geom's on the world body).
    pub through: Option<String>,
    /// PASS and STUCK: the step at which it crossed or entered.
    pub at_step: Option<usize>,
    /// LAND and BOUNCE: the farthest it came back from the target's near face (mm).
    pub rebound: Option<f64>,
    /// The body's origin at the end (m).
    pub end: [f64; 3],
    /// The tilt drawn (degrees).
    pub tilt: f64,
    /// The sideways speed drawn (m/s).
    pub side: f64,
}

#[derive(Clone, Copy, Debug)]
enum Toward {
    Geom(usize),
    Site(usize),
}

/// A case checked against a compiled model: the body's joint, geoms and target, found once.
#[derive(Clone, Debug)]
pub struct Setup {
    qpos: usize,
    dof: usize,
    own: Vec<usize>,
    others: Vec<usize>,
    shapes: Shapes,
    toward: Option<Toward>,
    key: Option<usize>,
    site_body: Vec<usize>,
    site_pos: Vec<f64>,
    labels: Vec<String>,
    body_names: Vec<String>,
}

/// The start of one run, besides the state in its `Data`.
#[derive(Clone, Copy, Debug)]
pub struct Start {
    /// Unit direction of the throw.
    pub dir: [f64; 3],
    /// The target geom.
    pub target: usize,
    /// Tilt drawn (degrees).
    pub tilt: f64,
    /// Sideways speed drawn (m/s).
    pub side: f64,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Two unit axes across `d`, from the world axis least aligned with it (x, y for straight down).
fn across(d: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let k = (0..3).fold(0, |k, i| if d[i].abs() < d[k].abs() { i } else { k });
    let mut a = [0.0; 3];
    a[k] = 1.0;
    let mut e2 = cross(&d, &a);
    normalize3(&mut e2);
    let e1 = cross(&e2, &d);
    (e1, e2)
}

impl Setup {
    /// Checks `case` against `model` (a compilation of its scene): the body exists and has a free
    /// joint and a colliding geom; the `--toward` name and the keyframe exist.
    pub fn new(model: &Model, case: &Case) -> Result<Setup, MjError> {
        let file = case.scene.display();
        let Some(body) = model.id(ObjType::Body, &case.body) else {
            let names: Vec<String> =
                (1..model.nbody()).map(|b| model.name(ObjType::Body, b)).filter(|n| !n.is_empty()).collect();
            return Err(MjError::Invalid(format!(
                "{file}: no body named '{}' (its named bodies: {})",
                case.body,
                if names.is_empty() { "none".into() } else { names.join(", ") }
            )));
        };
        let (jntadr, jntnum) = (array(model, "body_jntadr")[body] as usize, array(model, "body_jntnum")[body] as usize);
        let jtype = array(model, "jnt_type");
        let free = (jntadr..jntadr + jntnum).find(|&j| jtype[j] as u32 == mujoco_sys::mjJNT_FREE).ok_or_else(|| {
            MjError::Invalid(format!(
                "{file}: body '{}' has no free joint: the sweep sets its position and velocity, so it must move freely (<freejoint/>)",
                case.body
            ))
        })?;
        let parent = array(model, "body_parentid");
        let carried = |mut b: usize| loop {
            if b == body {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = parent[b] as usize;
        };
        let shapes = Shapes::new(model);
        let (own, others): (Vec<usize>, Vec<usize>) =
            (0..shapes.len()).filter(|&g| shapes.collides(g)).partition(|&g| carried(shapes.body(g)));
        if own.is_empty() {
            return Err(MjError::Invalid(format!("{file}: body '{}' has no geom that collides", case.body)));
        }
        let toward = match &case.aim {
            Aim::Direction(_) => None,
            Aim::Toward(name) => Some(match (model.id(ObjType::Geom, name), model.id(ObjType::Site, name)) {
                (Some(g), _) if own.contains(&g) => {
                    return Err(MjError::Invalid(format!(
                        "{file}: --toward {name}: that geom is part of '{}'",
                        case.body
                    )))
                }
                (Some(g), _) => Toward::Geom(g),
                (None, Some(s)) => Toward::Site(s),
                (None, None) => {
                    return Err(MjError::Invalid(format!("{file}: --toward {name}: no geom or site has that name")))
                }
            }),
        };
        let key = case.key.as_deref().map(|k| crate::sim::resolve_key(model, k)).transpose()?;
        let labels = (0..shapes.len())
            .map(|g| {
                let (gname, bname) = (model.name(ObjType::Geom, g), model.name(ObjType::Body, shapes.body(g)));
                [gname, bname].into_iter().find(|n| !n.is_empty()).unwrap_or_else(|| format!("geom {g}"))
            })
            .collect();
        Ok(Setup {
            qpos: array(model, "jnt_qposadr")[free] as usize,
            dof: array(model, "jnt_dofadr")[free] as usize,
            own,
            others,
            shapes,
            toward,
            key,
            site_body: array(model, "site_bodyid").into_iter().map(|b| b as usize).collect(),
            site_pos: array(model, "site_pos"),
            labels,
            body_names: (0..model.nbody()).map(|b| model.name(ObjType::Body, b)).collect(),
        })
    }

    fn geom_pose<'a>(&self, data: &'a Data, g: usize) -> (&'a [f64], &'a [f64]) {
        (&data.geom_xpos()[3 * g..3 * g + 3], &data.geom_xmat()[9 * g..9 * g + 9])
    }

    /// The mean of the body's colliding geoms' centres.
    fn centre(&self, data: &Data) -> [f64; 3] {
        let mut c = [0.0; 3];
        for &g in &self.own {
            let p = self.geom_pose(data, g).0;
            (0..3).for_each(|k| c[k] += p[k] / self.own.len() as f64);
        }
        c
    }

    /// Where the body's projection on `d` starts and ends (trailing and foremost point).
    fn span(&self, data: &Data, geoms: &[usize], d: [f64; 3]) -> (f64, f64) {
        geoms.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| {
            let (p, m) = self.geom_pose(data, g);
            let c = dot(d, p);
            (lo.min(c - self.shapes.reach(g, m, [-d[0], -d[1], -d[2]])), hi.max(c + self.shapes.reach(g, m, d)))
        })
    }

    /// The target's near and far faces along `d`. A plane's near face is where the line through
    /// the body's centre meets it; it has no far face.
    fn target_span(&self, data: &Data, target: usize, d: [f64; 3]) -> (f64, f64) {
        if self.shapes.is_plane(target) {
            let (p, m) = self.geom_pose(data, target);
            let (n, c) = ([m[2], m[5], m[8]], self.centre(data));
            let nd = dot(n, &d);
            let near = if nd < 0.0 { dot(d, &c) + dot(n, &sub([p[0], p[1], p[2]], c)) / nd } else { f64::NEG_INFINITY };
            return (near, f64::INFINITY);
        }
        self.span(data, &[target], d)
    }

    /// The world position of the `--toward` geom or site.
    fn aim_point(&self, data: &Data, t: Toward) -> [f64; 3] {
        match t {
            Toward::Geom(g) => {
                let p = self.geom_pose(data, g).0;
                [p[0], p[1], p[2]]
            }
            Toward::Site(s) => {
                let pose = data.body_pose_id(self.site_body[s]).expect("site bodies are in range");
                let mat = specula_engine::math::quat2mat(&pose.quat);
                let local = [self.site_pos[3 * s], self.site_pos[3 * s + 1], self.site_pos[3 * s + 2]];
                let w = specula_engine::math::mul_mat_vec3(&mat, &local);
                [pose.pos[0] + w[0], pose.pos[1] + w[1], pose.pos[2] + w[2]]
            }
        }
    }

    /// The first geom of another body that the ray from `from` along `d` enters.
    fn first_ahead(&self, data: &Data, from: [f64; 3], d: [f64; 3]) -> Option<usize> {
        self.others
            .iter()
            .filter_map(|&g| {
                let (p, m) = self.geom_pose(data, g);
                self.shapes.ray_entry(g, p, m, from, d).map(|t| (t, g))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, g)| g)
    }

    /// Puts a fresh `Data` of `model` in run `r`'s start state (see the module documentation).
    pub fn start(&self, model: &Model, case: &Case, r: &RunSpec) -> Result<(Data, Start), MjError> {
        let file = case.scene.display();
        let mut data = Data::new(model)?;
        match self.key {
            Some(k) => data.reset_keyframe(k)?,
            None => data.reset()?,
        }
        data.kinematics()?;
        let from = self.centre(&data);
        let dir = match (&case.aim, self.toward) {
            (Aim::Direction(d), _) => *d,
            (Aim::Toward(name), Some(t)) => {
                let mut v = sub(self.aim_point(&data, t), from);
                if normalize3(&mut v) == 0.0 {
                    return Err(MjError::Invalid(format!(
                        "{file}: --toward {name}: it sits at the centre of '{}', which gives no direction",
                        case.body
                    )));
                }
                v
            }
            (Aim::Toward(_), None) => unreachable!("Setup::new resolves --toward"),
        };
        let cell = format!("{}|{}|{}|{}|{}|{}", case.seed, case.body, r.timestep, r.speed, r.offset, r.seed);
        let mut rng = SplitMix::new(super::def::fnv64(cell.as_bytes()));
        let (tilt, spin) = (case.tilt * rng.uniform(), std::f64::consts::TAU * rng.uniform());
        let (s1, s2) = (case.jitter * (2.0 * rng.uniform() - 1.0), case.jitter * (2.0 * rng.uniform() - 1.0));
        let (e1, e2) = across(dir);
        let a = self.qpos;
        if tilt != 0.0 {
            let axis = [0, 1, 2].map(|k| spin.cos() * e1[k] + spin.sin() * e2[k]);
            let q = [data.qpos()[a + 3], data.qpos()[a + 4], data.qpos()[a + 5], data.qpos()[a + 6]];
            let turned = mul_quat(&axis_angle2quat(&axis, tilt.to_radians()), &q);
            data.qpos_mut()[a + 3..a + 7].copy_from_slice(&turned);
            data.kinematics()?;
        }
        let target = match self.toward {
            Some(Toward::Geom(g)) => g,
            _ => self.first_ahead(&data, self.centre(&data), dir).ok_or_else(|| {
                MjError::Invalid(format!(
                    "{file}: nothing lies ahead of '{}' along ({:.3}, {:.3}, {:.3}): change --direction or name the target with --toward GEOM",
                    case.body, dir[0], dir[1], dir[2]
                ))
            })?,
        };
        let lead = self.span(&data, &self.own, dir).1;
        let near = self.target_span(&data, target, dir).0;
        if !near.is_finite() {
            return Err(MjError::Invalid(format!(
                "{file}: '{}' is not ahead of '{}' along the direction",
                self.labels[target], case.body
            )));
        }
        let shift = near - lead - (case.gap + r.offset * r.speed * r.timestep);
        for k in 0..3 {
            data.qpos_mut()[a + k] += shift * dir[k];
            data.qvel_mut()[self.dof + k] = r.speed * dir[k] + s1 * e1[k] + s2 * e2[k];
        }
        data.kinematics()?;
        Ok((data, Start { dir, target, tilt, side: (s1 * s1 + s2 * s2).sqrt() }))
    }

    /// Runs `r` on `model` (compiled from the case's scene with the run's timestep and mode),
    /// stepped by `stepper` inside whatever collision route the caller installed.
    pub fn run(
        &self,
        model: &Model,
        mut detector: TunnelDetector,
        r: &RunSpec,
        stepper: &mut super::exec::Stepper,
    ) -> Result<RunResult, MjError> {
        let case = r.user.as_deref().ok_or_else(|| MjError::Invalid("a scene run needs its case".into()))?;
        let (mut data, start) = self.start(model, case, r)?;
        let d = start.dir;
        detector.observe(&data);
        let total = (r.duration / r.timestep).round() as usize;
        let (mut dip, mut rebound, mut approached) = (0.0f64, None::<f64>, false);
        let (mut steps, mut beyond) = (0, false);
        while steps < total {
            stepper.step(&mut data)?;
            // mj_step leaves the pre-step poses; recompute them for the new state.
            data.kinematics()?;
            detector.observe(&data);
            steps += 1;
            let (trail, lead) = self.span(&data, &self.own, d);
            let (near, far) = self.target_span(&data, start.target, d);
            dip = dip.max(lead - near);
            let closing = dot(d, &data.qvel()[self.dof..self.dof + 3]);
            if closing > 0.0 && rebound.is_none() {
                approached = true;
            } else if approached {
                rebound = Some(rebound.unwrap_or(0.0).max(near - lead));
            }
            if trail > far {
                beyond = true;
                break;
            }
        }
        let mine = |t: &Tunnel| t.body == case.body || t.through == case.body;
        // The detector names the body passed through (the geom, on the world body); through the
        // target's body, name the target itself.
        let other = |t: &Tunnel| {
            let name = if t.body == case.body { &t.through } else { &t.body };
            if *name == self.body_names[self.shapes.body(start.target)] {
                self.labels[start.target].clone()
            } else {
                name.clone()
            }
        };
        let crossed: Vec<Tunnel> = detector.found().iter().filter(|t| mine(t)).cloned().collect();
        let all: Vec<Tunnel> = detector.finish().into_iter().filter(|t| mine(t)).collect();
        let (trail, lead) = self.span(&data, &self.own, d);
        let (near, far) = self.target_span(&data, start.target, d);
        let v = &data.qvel()[self.dof..self.dof + 3];
        let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        // Past the target: its centre beyond the target's far face.
        let past = beyond || (trail + lead) / 2.0 > far;
        let (p, m) = self.geom_pose(&data, start.target);
        let embedded = self.shapes.contains(start.target, p, m, self.centre(&data));
        let through_target = |t: &Tunnel| other(t) == self.labels[start.target];
        let (outcome, through) = match (crossed.first(), all.first()) {
            // Through another geom (a finger, a fixture's other part): the detector's word.
            (Some(t), _) if !through_target(t) => (Outcome::Pass, Some(t)),
            (Some(t), _) if past => (Outcome::Pass, Some(t)),
            // Skewered: its centre crossed the plate's middle, but it is still in the plate.
            (Some(t), _) if embedded => (Outcome::Stuck, Some(t)),
            (None, Some(t)) => (Outcome::Stuck, Some(t)),
            // Through and back (pushed out on the near side): labelled by where it ended, the
            // passage still counted in `tunnels`.
            _ if past => (Outcome::Off, None),
            _ if speed < REST_SPEED => (Outcome::Land, None),
            _ => (Outcome::Bounce, None),
        };
        let held = matches!(outcome, Outcome::Land | Outcome::Bounce);
        let a = self.qpos;
        let end = [data.qpos()[a], data.qpos()[a + 1], data.qpos()[a + 2]];
        Ok(RunResult {
            spec: r.clone(),
            outcome,
            dip: held.then_some(dip * 1e3),
            rest: (near - lead) * 1e3,
            steps,
            tunnels: all.len(),
            closest: None,
            user: Some(UserResult {
                target: self.labels[start.target].clone(),
                through: through.map(other),
                at_step: through.map(|t| t.step),
                rebound: held.then(|| rebound.unwrap_or(0.0).max(0.0) * 1e3),
                end,
                tilt: start.tilt,
                side: start.side,
            }),
        })
    }

    /// Run `r`'s start state as an MJCF `<key>` named `sweep-INDEX`, to replay it with
    /// `specula run SCENE --key sweep-INDEX` (add it to the scene's `<keyframe>`).
    pub fn start_key(&self, model: &Model, r: &RunSpec) -> Result<String, MjError> {
        let case = r.user.as_deref().ok_or_else(|| MjError::Invalid("a scene run needs its case".into()))?;
        let (data, _) = self.start(model, case, r)?;
        let list = |v: &[f64]| v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(" ");
        Ok(format!(
            "<!-- specula sweep run {}: '{}' at {} m/s, offset {}, draw {}, timestep {} s, {} on the {} route -->\n\
             <key name=\"sweep-{}\" qpos=\"{}\" qvel=\"{}\"/>\n",
            r.index,
            case.body,
            r.speed,
            r.offset,
            r.seed,
            r.timestep,
            r.mode.name(),
            r.route.name(),
            r.index,
            list(data.qpos()),
            list(data.qvel())
        ))
    }
}
