//! The sweep's scenes as MJCF text, and where each run's part starts.
//!
//! Both scenes follow §0 of the MuJoCo 4.0 measurements: a ground plane at z = 0 and a static box on
//! a world-welded body whose top face is at z = 0.3. Scene A throws one free part (a steel ball or a
//! 5 cm, 125 g cube) straight down onto a 0.2 × 0.2 m plate. Scene B drops thin steel parts onto a
//! 5 mm pane with, per run, a seeded start gap, a small tilt and a small sideways velocity. Scene C
//! (measurements §C2) has no plate: two equal steel balls fly head-on along x, 0.5 m above the floor.

use super::RunSpec;

/// Height of the plate's top face (m).
pub const PLATE_TOP: f64 = 0.3;
/// Half extent of the plate in x and y (m).
pub const PLATE_HALF: f64 = 0.1;
/// Density of steel (kg/m³).
const STEEL: f64 = 7850.0;

/// Which scene family a run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SceneKind {
    /// A part thrown straight down onto a static plate (measurements §A).
    A,
    /// A thin part dropped onto a static pane, perturbed per run (measurements §B).
    B,
    /// Two equal balls head-on, each at the run's speed (measurements §C2).
    C,
    /// A free body of the user's own scene ([`super::user`]).
    User,
}

impl SceneKind {
    /// The scene's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            SceneKind::A => "A",
            SceneKind::B => "B",
            SceneKind::C => "C",
            SceneKind::User => "scene",
        }
    }
}

/// A moving part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    /// A steel ball of radius `r`.
    Ball {
        /// Radius (m).
        r: f64,
    },
    /// A cube of half edge `half` and mass `mass`.
    Cube {
        /// Half edge (m).
        half: f64,
        /// Mass (kg).
        mass: f64,
    },
    /// A steel capsule of radius `r` and cylinder half length `half_len`, lying flat or upright.
    Capsule {
        /// Radius (m).
        r: f64,
        /// Half length of the cylinder part (m).
        half_len: f64,
        /// Axis vertical instead of horizontal.
        upright: bool,
    },
    /// A steel coin (cylinder) of radius `r` and half thickness `half`, tilted about x by `tilt` degrees.
    Coin {
        /// Radius (m).
        r: f64,
        /// Half thickness (m).
        half: f64,
        /// Tilt about the x axis (degrees).
        tilt: f64,
    },
    /// A body of the user's scene: its shape is the scene's own, and the built-in scenes never
    /// write or place it.
    Scene,
}

impl Part {
    /// The part's `<geom>` element.
    fn geom(self) -> String {
        match self {
            Part::Ball { r } => format!(r#"<geom name="part" type="sphere" size="{r}" density="{STEEL}"/>"#),
            Part::Cube { half, mass } => {
                format!(r#"<geom name="part" type="box" size="{half} {half} {half}" mass="{mass}"/>"#)
            }
            Part::Capsule { r, half_len, upright } => {
                let euler = if upright { "0 0 0" } else { "0 90 0" };
                format!(r#"<geom name="part" type="capsule" size="{r} {half_len}" euler="{euler}" density="{STEEL}"/>"#)
            }
            Part::Coin { r, half, .. } => {
                format!(r#"<geom name="part" type="cylinder" size="{r} {half}" density="{STEEL}"/>"#)
            }
            Part::Scene => String::new(),
        }
    }

    /// The part's base orientation (w, x, y, z) before any perturbation.
    pub fn base_quat(self) -> [f64; 4] {
        match self {
            Part::Coin { tilt, .. } if tilt != 0.0 => {
                let a = tilt.to_radians() / 2.0;
                [a.cos(), a.sin(), 0.0, 0.0]
            }
            _ => [1.0, 0.0, 0.0, 0.0],
        }
    }
}

/// Height of scene C's head-on line (m).
pub const C_HEIGHT: f64 = 0.5;

/// The MJCF of a run's scene (the part starts at the origin; the run places it).
pub fn mjcf(r: &RunSpec) -> String {
    if r.scene == SceneKind::C {
        return mjcf_two_body(r);
    }
    let h = r.timestep;
    let stiff = if r.stiff { format!(r#"<default><geom solref="{} 1"/></default>"#, 2.0 * h) } else { String::new() };
    let half_t = r.plate / 2.0;
    format!(
        r#"<mujoco model="sweep">
  <option timestep="{h}" integrator="Euler"/>
  {stiff}
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="plate" pos="0 0 {z}">
      <geom name="plate" type="box" size="{PLATE_HALF} {PLATE_HALF} {half_t}" density="{STEEL}"/>
    </body>
    <body name="part">
      <freejoint/>
      {geom}
    </body>
  </worldbody>
</mujoco>"#,
        z = PLATE_TOP - half_t,
        geom = r.part.geom(),
    )
}

/// Scene C: the part (`part`) and its twin (`other`), both free; gravity stays on (over the 0.1 s
/// runs it changes nothing that is compared: measured, the C2 outcomes and closest distances are
/// the same with gravity off).
fn mjcf_two_body(r: &RunSpec) -> String {
    let h = r.timestep;
    let stiff = if r.stiff { format!(r#"<default><geom solref="{} 1"/></default>"#, 2.0 * h) } else { String::new() };
    let geom = r.part.geom();
    format!(
        r#"<mujoco model="sweep-two-body">
  <option timestep="{h}" integrator="Euler"/>
  {stiff}
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="part"><freejoint/>{geom}</body>
    <body name="other"><freejoint/>{other}</body>
  </worldbody>
</mujoco>"#,
        other = geom.replace(r#"name="part""#, r#"name="other""#),
    )
}

/// SplitMix64: a small, well-mixed generator for the per-run perturbations (no crate needed).
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next value, uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Where a run's part starts: free-joint position, orientation and linear velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Start {
    /// Part origin (m).
    pub pos: [f64; 3],
    /// Orientation (w, x, y, z).
    pub quat: [f64; 4],
    /// Linear velocity (m/s).
    pub vel: [f64; 3],
    /// Start gap fraction actually used (scene B draws it).
    pub offset: f64,
}

impl Start {
    /// Puts the part (the scene's first free joint) at this start: pose and linear velocity.
    pub fn apply(&self, data: &mut crate::mj::Data) {
        let [x, y, z] = self.pos;
        let [w, i, j, k] = self.quat;
        data.qpos_mut()[..7].copy_from_slice(&[x, y, z, w, i, j, k]);
        data.qvel_mut()[..3].copy_from_slice(&self.vel);
    }
}

fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The third row of the rotation matrix of `q`: world z expressed in the body frame.
pub fn z_row(q: [f64; 4]) -> [f64; 3] {
    let [w, x, y, z] = q;
    [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)]
}

/// Half of the part's vertical extent at orientation `q` (the part's geom is centred on its body).
pub fn half_height(part: Part, q: [f64; 4]) -> f64 {
    let z = z_row(q);
    match part {
        Part::Ball { r } => r,
        Part::Cube { half, .. } => half * (z[0].abs() + z[1].abs() + z[2].abs()),
        // A flat capsule's axis is the body's x axis (geom turned 90° about y); upright, its z axis.
        Part::Capsule { r, half_len, upright } => half_len * if upright { z[2].abs() } else { z[0].abs() } + r,
        Part::Coin { r, half, .. } => half * z[2].abs() + r * (1.0 - z[2] * z[2]).max(0.0).sqrt(),
        // Measured by the scene's own geoms instead (super::shape).
        Part::Scene => 0.0,
    }
}

/// The start of run `r`. Scene A: straight down at `speed`, lowest point `offset·v·h` above the
/// plate. Scene B: gap U(0,1)·v·h, a tilt of up to 2° about a random horizontal axis, and vx, vy
/// uniform in ±0.1 m/s, drawn from a generator seeded by the cell (case, timestep, speed, stiffness)
/// and the run number, so speculation off and on see the same perturbations.
pub fn start(r: &RunSpec) -> Start {
    let (mut quat, mut vel, mut offset) = (r.part.base_quat(), [0.0, 0.0, -r.speed], r.offset);
    if r.scene == SceneKind::B {
        let cell = format!("{}|{}|{}|{}|{}", r.case, r.timestep, r.speed, r.stiff, r.seed);
        let mut rng = SplitMix::new(super::def::fnv64(cell.as_bytes()));
        offset = rng.uniform();
        let tilt = 2f64.to_radians() * rng.uniform();
        let axis = std::f64::consts::TAU * rng.uniform();
        let s = (tilt / 2.0).sin();
        quat = quat_mul([(tilt / 2.0).cos(), s * axis.cos(), s * axis.sin(), 0.0], quat);
        vel[0] = 0.1 * (2.0 * rng.uniform() - 1.0);
        vel[1] = 0.1 * (2.0 * rng.uniform() - 1.0);
    }
    let gap = offset * r.speed * r.timestep;
    let pos = [0.0, 0.0, PLATE_TOP + gap + half_height(r.part, quat)];
    Start { pos, quat, vel, offset }
}
