//! The files the mutation fuzzer starts from: small built-in templates, scenes of the scene
//! generator ([`super::gen`]), the project's own scenes and kept fuzz cases, and any files or
//! folders given with `--base` (MuJoCo's corpus, say). Which base a case mutates is drawn from
//! its seed, so a case is reproducible from its seed and the base list.

use super::FuzzError;
use std::path::{Path, PathBuf};

use super::scene::Rng;

/// Templates that exercise what the scene generator never writes: assets (textures, materials,
/// builtin and inline meshes, height fields, a mirrored mesh, a cube texture's grid layout),
/// tendons (with armature), every actuator shortcut (DC motors, muscles, adhesion, dampers),
/// equalities, sensors (with intervals and delays), visual settings, lights, cameras,
/// keyframes, default classes, contact pairs and excludes, frames and replicate.
pub const TEMPLATES: &[(&str, &str)] = &[
    (
        "template:assets",
        r#"<mujoco model="assets">
  <compiler angle="degree"/>
  <asset>
    <texture name="grid" type="2d" builtin="checker" width="32" height="32" rgb1="0.1 0.2 0.3" rgb2="0.3 0.4 0.5"/>
    <texture name="sky" type="skybox" builtin="gradient" width="16" height="16" rgb1="1 1 1" rgb2="0 0 0"/>
    <material name="ground" texture="grid" texrepeat="4 4" reflectance="0.2"/>
    <material name="red" rgba="1 0 0 1"/>
    <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="0.1 0.1 0.1"/>
    <mesh name="prism" vertex="0 0 0 1 0 0 0 1 0 0 0 1 1 0 1 0 1 1" face="0 2 1 3 4 5 0 1 4 0 4 3 1 2 5 1 5 4 2 0 3 2 3 5" scale="0.05 0.05 0.05"/>
    <mesh name="ball" builtin="sphere" params="2" scale="0.05 0.05 0.05"/>
    <mesh name="cone" builtin="cone" params="8 0.5" scale="0.05 0.05 0.1"/>
    <mesh name="dome" builtin="hemisphere" params="3" scale="0.05 0.05 0.05"/>
    <mesh name="plate" builtin="plate" params="3 4" scale="0.1 0.1 0.1"/>
    <hfield name="terrain" nrow="4" ncol="5" size="1 1 0.2 0.05" elevation="0 1 2 1 0 1 2 3 2 1 0 1 2 1 0 0 0 1 0 0"/>
  </asset>
  <worldbody>
    <geom name="ground" type="hfield" hfield="terrain" material="ground"/>
    <geom name="base" type="mesh" mesh="prism" pos="0.5 0.5 0.3" material="red"/>
    <body name="tet" pos="0 0 0.5"><freejoint/><geom type="mesh" mesh="tet" material="red"/></body>
    <body name="prism" pos="0.2 0 0.5"><freejoint/><geom type="mesh" mesh="prism"/></body>
    <body name="ball" pos="-0.2 0 0.5"><freejoint/><geom type="mesh" mesh="ball" density="500"/></body>
    <body name="cone" pos="0 0.2 0.5" euler="10 20 30"><freejoint/><geom type="mesh" mesh="cone"/></body>
    <body name="dome" pos="0 -0.2 0.5"><freejoint/><geom type="mesh" mesh="dome"/></body>
  </worldbody>
</mujoco>
"#,
    ),
    (
        "template:arm",
        r#"<mujoco model="arm">
  <compiler angle="degree" autolimits="true"/>
  <option timestep="0.002" integrator="implicitfast"/>
  <default>
    <joint damping="0.1" armature="0.01"/>
    <geom friction="0.8 0.01 0.001"/>
    <default class="link"><geom type="capsule" size="0.02"/></default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <site name="anchor" pos="0 0 1.2"/>
    <body name="upper" pos="0 0 1" childclass="link">
      <joint name="shoulder" axis="0 1 0" range="-90 90"/>
      <geom name="upper_geom" fromto="0 0 0 0.3 0 0"/>
      <site name="mid" pos="0.15 0 0.03"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0"/>
        <geom name="lower_geom" fromto="0 0 0 0.3 0 0"/>
        <site name="tip" pos="0.3 0 0"/>
      </body>
    </body>
    <body name="box" pos="0.6 0 0.05">
      <joint name="slider" type="slide" axis="1 0 0"/>
      <geom name="box_geom" type="box" size="0.05 0.05 0.05"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="cable" width="0.005"><site site="anchor"/><site site="mid"/><site site="tip"/></spatial>
    <fixed name="coupling"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="-0.5"/></fixed>
  </tendon>
  <equality>
    <connect name="grab" body1="lower" body2="box" anchor="0.3 0 0" active="false"/>
    <joint name="follow" joint1="elbow" joint2="shoulder" polycoef="0 0.5 0 0 0"/>
  </equality>
  <actuator>
    <motor name="m_shoulder" joint="shoulder" gear="10" ctrlrange="-1 1"/>
    <position name="p_elbow" joint="elbow" kp="5"/>
    <motor name="m_tendon" tendon="coupling" gear="2"/>
    <velocity name="v_slider" joint="slider" kv="3"/>
  </actuator>
  <sensor>
    <jointpos joint="shoulder"/>
    <touch site="tip"/>
    <framepos objtype="site" objname="tip"/>
    <tendonpos tendon="cable"/>
    <actuatorfrc actuator="m_shoulder"/>
  </sensor>
  <contact>
    <pair geom1="lower_geom" geom2="floor" condim="3" friction="1 1 0.005 0.0001 0.0001"/>
    <exclude body1="upper" body2="lower"/>
  </contact>
  <keyframe>
    <key name="bent" qpos="30 -45 0.1" ctrl="0 0 0 0"/>
  </keyframe>
</mujoco>
"#,
    ),
    (
        "template:defaults",
        r#"<mujoco model="defaults">
  <option timestep="0.001" gravity="0 0 -9.81" cone="elliptic">
    <flag warmstart="disable"/>
  </option>
  <size memory="1M"/>
  <custom><numeric name="gain" data="1 2 3"/><text name="note" data="hello"/></custom>
  <default>
    <geom rgba="0.5 0.5 0.5 1" solref="0.02 1" solimp="0.9 0.95 0.001"/>
    <default class="soft">
      <geom solref="-1000 -10" margin="0.01" gap="0.005" condim="4"/>
      <default class="softer"><geom priority="1" solmix="0.5"/></default>
    </default>
    <default class="ball"><joint type="ball" damping="0.01"/></default>
  </default>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <camera name="top" pos="0 0 2" xyaxes="1 0 0 0 1 0"/>
    <geom name="floor" type="plane" size="2 2 0.1" class="soft"/>
    <frame pos="0 0 0.3" euler="0 0 0.5">
      <body name="a" childclass="softer">
        <freejoint/>
        <geom name="a1" type="ellipsoid" size="0.05 0.04 0.03"/>
        <geom name="a2" type="cylinder" size="0.02 0.05" pos="0.06 0 0"/>
      </body>
    </frame>
    <body name="pend" pos="0.5 0 0.8">
      <joint class="ball"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02" class="soft"/>
    </body>
    <body name="target" mocap="true" pos="0 0.5 0.2"><geom type="box" size="0.05 0.05 0.05" contype="0" conaffinity="0"/></body>
    <replicate count="3" offset="0.1 0 0">
      <body name="bead" pos="-0.5 0 0.2"><freejoint/><geom type="sphere" size="0.03"/></body>
    </replicate>
  </worldbody>
  <equality><weld body1="pend" body2="target" active="false" solref="0.01 1"/></equality>
  <contact><exclude body1="a" body2="pend"/></contact>
  <keyframe><key name="start" time="0.5"/></keyframe>
</mujoco>
"#,
    ),
    (
        "template:actuators",
        r#"<mujoco model="actuators">
  <compiler autolimits="true"/>
  <option timestep="0.002"/>
  <visual>
    <global realtime="1" fovy="45" offwidth="320" offheight="240"/>
    <map znear="0.01" zfar="50" stiffness="100"/>
    <quality shadowsize="1024"/>
    <scale forcewidth="0.1" contactwidth="0.1"/>
  </visual>
  <asset>
    <texture name="cube" type="cube" builtin="checker" width="16" height="16" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
    <material name="shiny" texture="cube" specular="0.5" shininess="0.5" emission="0.1"/>
    <mesh name="wedge" scale="-0.1 0.1 0.1" vertex="0 0 0 1 0 0 0 1 0 0 0 1 1 1 0 1 0 1 0.5 0.5 0 0 0.5 0.5 0.5 0 0.5 1 1 1"/>
  </asset>
  <default>
    <default class="dc"><dcmotor motorconst="0.05" resistance="2"/></default>
    <light softness="0.3"/>
  </default>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1" softness="0.5" cutoff="60" exponent="5"/>
    <camera name="eye" pos="1 0 1" xyaxes="0 1 0 -1 0 1" sensorsize="0.01 0.01" resolution="64 64" focal="0.02 0.02"/>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="cart" pos="0 0 0.2">
      <joint name="rail" type="slide" axis="1 0 0" range="-1 1"/>
      <geom name="cart_geom" type="box" size="0.1 0.05 0.05" material="shiny"/>
      <site name="hook" pos="0 0 0.05"/>
      <body name="pole" pos="0 0 0.05">
        <joint name="hinge" axis="0 1 0" damping="0.01"/>
        <inertial pos="0 0 0.2" mass="0.2" fullinertia="0.003 0.003 0.0001 0 0 0"/>
        <geom name="pole_geom" type="capsule" fromto="0 0 0 0 0 0.4" size="0.02"/>
        <site name="tip" pos="0 0 0.4"/>
      </body>
    </body>
    <body name="wedge" pos="0.5 0 0.3">
      <freejoint/>
      <geom name="wedge_geom" type="mesh" mesh="wedge"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="lever" armature="0.01" stiffness="1" springlength="0 0.1"><joint joint="rail" coef="1"/><joint joint="hinge" coef="0.1"/></fixed>
    <spatial name="string" width="0.003" armature="0.001"><site site="hook"/><site site="tip"/></spatial>
  </tendon>
  <actuator>
    <dcmotor name="dc" class="dc" joint="rail" nominal="12 1 100" inductance="0.001" saturation="2"/>
    <dcmotor name="servo" class="dc" joint="hinge" input="pos vel" controller="1 0 0.1" thermal="2 0 20"/>
    <muscle name="flex" tendon="lever" lengthrange="-0.5 0.5" range="0.7 1.1" force="10" lmin="0.4" lmax="1.7" vmax="2" fpmax="1.2" fvmax="1.3"/>
    <general name="filt" joint="hinge" dyntype="filter" dynprm="0.05" actrange="-1 1" gainprm="2"/>
    <general name="mus" tendon="string" lengthrange="0.2 0.6" gaintype="muscle" biastype="muscle" gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2" biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2" dyntype="muscle"/>
    <intvelocity name="iv" joint="rail" kp="10" kv="1" actrange="-0.5 0.5"/>
    <damper name="brake" joint="hinge" kv="0.5" ctrlrange="0 1"/>
    <cylinder name="piston" joint="rail" timeconst="0.1" area="0.01"/>
    <adhesion name="glue" body="wedge" gain="2" ctrlrange="0 1"/>
  </actuator>
  <sensor>
    <jointpos name="rail_pos" joint="rail" noise="0.01" interval="0.01 -0.002"/>
    <jointvel joint="hinge" cutoff="10" delay="0.004" nsample="4"/>
    <actuatorfrc actuator="dc"/>
  </sensor>
  <contact>
    <pair geom1="wedge_geom" geom2="floor" condim="4" friction="0.9 0.9 0.01 0.001 0.001" solref="0.01 1" solimp="0.9 0.95 0.001 0.5 2" margin="0.002" gap="0.001"/>
  </contact>
</mujoco>
"#,
    ),
];

/// Where a base's text comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A built-in template.
    Template(&'static str),
    /// The scene generator; the scene's seed is drawn from the case's seed.
    Generator,
    /// A file (its bytes read once, at the start), with the folder its relative references
    /// (includes, meshes, textures) resolve in.
    File {
        /// The file read.
        path: PathBuf,
        /// Its contents.
        bytes: Vec<u8>,
    },
}

/// One base.
#[derive(Clone, Debug)]
pub struct Base {
    /// How reports name it: `template:arm`, `generator`, or the file's path.
    pub label: String,
    /// Its text.
    pub source: Source,
}

/// The bases of a run, in groups that each get a share of the cases.
#[derive(Clone, Debug, Default)]
pub struct Bases {
    /// The templates and the generator (always there).
    pub builtin: Vec<Base>,
    /// The project's scenes and kept fuzz cases, when the repository is at hand.
    pub project: Vec<Base>,
    /// Files from `--base`.
    pub extra: Vec<Base>,
    /// Where each group came from, in words, for the report.
    pub described: Vec<String>,
}

/// Every `*.xml` file at `p` (a file, or a folder searched recursively), sorted.
fn xml_files(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), FuzzError> {
    if p.is_file() {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let rd = std::fs::read_dir(p).map_err(|e| FuzzError::new(p, format!("cannot read the base: {e}")))?;
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            xml_files(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "xml") {
            out.push(e);
        }
    }
    Ok(())
}

fn read_bases(paths: &[PathBuf]) -> Result<Vec<Base>, FuzzError> {
    let mut out = Vec::new();
    for p in paths {
        let bytes = std::fs::read(p).map_err(|e| FuzzError::new(p, e))?;
        out.push(Base { label: p.display().to_string(), source: Source::File { path: p.clone(), bytes } });
    }
    Ok(out)
}

impl Bases {
    /// The built-in bases, the project's files under `repo` (when it holds them) and the files
    /// at `extra` (each a file or a folder; a path that does not exist is an error).
    pub fn collect(repo: Option<&Path>, extra: &[PathBuf]) -> Result<Bases, FuzzError> {
        let mut b = Bases::default();
        for (label, xml) in TEMPLATES {
            b.builtin.push(Base { label: label.to_string(), source: Source::Template(xml) });
        }
        b.builtin.push(Base { label: "generator".into(), source: Source::Generator });
        b.described.push(format!("{} templates and the scene generator", TEMPLATES.len()));
        if let Some(repo) = repo.filter(|r| r.join("scenes").is_dir()) {
            let mut files = Vec::new();
            for dir in ["scenes", "tests/fuzz_cases"] {
                let mut found = Vec::new();
                xml_files(&repo.join(dir), &mut found)?;
                // the mutation cases are this fuzzer's own outputs: mutating them again would
                // change every seed's case each time one is kept
                files.extend(found.into_iter().filter(|f| !f.components().any(|c| c.as_os_str() == "mutate")));
            }
            b.described.push(format!("{} project files (scenes/, tests/fuzz_cases/)", files.len()));
            b.project = read_bases(&files)?;
        } else {
            b.described.push("no project files (the repository is not at hand)".into());
        }
        for p in extra {
            let mut files = Vec::new();
            if !p.exists() {
                return Err(FuzzError::new(p, "no such base file or folder"));
            }
            xml_files(p, &mut files)?;
            b.described.push(format!("{} files from {}", files.len(), p.display()));
            b.extra.extend(read_bases(&files)?);
        }
        Ok(b)
    }

    /// The base a case of `r` mutates: templates and generator 45% (all of it without other
    /// bases), project files 25%, `--base` files 30%, each group's share going to the others
    /// when it is empty.
    pub fn pick(&self, r: &mut Rng) -> &Base {
        let groups: Vec<(&Vec<Base>, f64)> = [(&self.builtin, 45.0), (&self.project, 25.0), (&self.extra, 30.0)]
            .into_iter()
            .filter(|(g, _)| !g.is_empty())
            .collect();
        let total: f64 = groups.iter().map(|g| g.1).sum();
        let mut x = r.unit() * total;
        let mut group = groups[0].0;
        for (g, w) in &groups {
            group = g;
            if x < *w {
                break;
            }
            x -= w;
        }
        &group[r.below(group.len())]
    }

    /// How many bases there are.
    pub fn len(&self) -> usize {
        self.builtin.len() + self.project.len() + self.extra.len()
    }

    /// Whether there is no base (never: the built-in ones are always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Base {
    /// The base's text for a case drawing from `r` (the generator's scene seed is drawn).
    pub fn text(&self, r: &mut Rng) -> Vec<u8> {
        match &self.source {
            Source::Template(xml) => xml.as_bytes().to_vec(),
            // 120 steps: the generator's default, so the scene does not depend on --steps
            Source::Generator => super::gen::generate(r.below(1 << 30) as u64, 120).to_mjcf().into_bytes(),
            Source::File { bytes, .. } => bytes.clone(),
        }
    }

    /// The folder the base's relative references resolve in, if it is a file.
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            Source::File { path, .. } => path.parent(),
            _ => None,
        }
    }
}
