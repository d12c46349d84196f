//! A scene compiled twice, by MuJoCo C and by specula's own compiler, and what a Rust program
//! does with it: run it on a collision route, diff the routes, and read the outcome.
//!
//! ```
//! use specula::{Route, Scene, SpeculativeMode};
//!
//! // a 10 mm steel ball thrown at 10 m/s onto a 2 mm plate
//! let xml = r#"<mujoco>
//!   <option timestep="0.00125"/>
//!   <worldbody>
//!     <geom type="plane" size="1 1 0.1"/>
//!     <geom type="box" size="0.1 0.1 0.001" pos="0 0 0.3"/>
//!     <body name="ball" pos="0 0 0.32"><freejoint/><geom type="sphere" size="0.01" density="7850"/></body>
//!   </worldbody>
//!   <keyframe><key qvel="0 0 -10 0 0 0"/></keyframe>
//! </mujoco>"#;
//! let scene = Scene::from_xml(xml)?.with_speculative(SpeculativeMode::Robust)?;
//! let report = scene.run(Route::Rust, 400, Some("0"))?;
//! let ball = report.bodies.iter().find(|b| b.name == "ball").unwrap();
//! assert!(ball.pos[2] > 0.3, "the ball stays on the plate");
//! # Ok::<(), specula::Error>(())
//! ```

use std::path::Path;

use specula_model::types::SpeculativeMode;
use specula_model::MjcfError;

use specula_native::scope::check_mjcf;
use specula_native::{Native, NativeError};

use crate::diff::{diff, DiffOptions, DiffReport};
use crate::mj::{MjError, Model};
use crate::native_diff::{diff_native, NativeDiffOptions, NativeDiffReport};
use crate::sim::{self, Route, RunOptions, RunReport, Start};

/// What can go wrong with a scene: specula's compiler refuses it, or MuJoCo does.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// specula's MJCF compiler rejects the file (with its file, line and column).
    #[error(transparent)]
    Mjcf(#[from] MjcfError),
    /// MuJoCo C rejects the file, or fails while it runs.
    #[error(transparent)]
    MuJoCo(#[from] MjError),
    /// The native route refuses the scene (naming what it lacks) or stops in it.
    #[error(transparent)]
    Native(#[from] crate::native::Error),
}

/// One MJCF scene in both compilations, with the speculative mode it runs in.
pub struct Scene {
    mujoco: Model,
    specula: specula_model::Model,
    mode: SpeculativeMode,
    /// What the native route says of the MJCF beyond the compiled model (plugins, plasticity).
    native_mjcf: Result<(), NativeError>,
}

impl Scene {
    /// Compiles the MJCF file at `path` with MuJoCo C and with specula's compiler.
    ///
    /// ```
    /// let err = specula::Scene::load("no/such/scene.xml").err().unwrap();
    /// assert!(err.to_string().contains("no/such/scene.xml"), "{err}");
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, Error> {
        let path = path.as_ref();
        let specula = specula_model::load_file(path)?;
        let mujoco = Model::from_xml_path(path)?;
        let native_mjcf = specula_model::xml::parse_file(path).map_err(NativeError::from).and_then(|x| check_mjcf(&x));
        Ok(Scene::new(mujoco, specula, native_mjcf))
    }

    /// Compiles an MJCF document held in memory (files it names are looked up from the current
    /// directory; messages call it `scene.xml`).
    pub fn from_xml(xml: &str) -> Result<Scene, Error> {
        let specula = specula_model::load_str(xml, Path::new("."), "scene.xml")?;
        let mujoco = Model::from_xml_str(xml)?;
        let native_mjcf = specula_model::xml::parse_str(xml, Path::new("."), "scene.xml")
            .map_err(NativeError::from)
            .and_then(|x| check_mjcf(&x));
        Ok(Scene::new(mujoco, specula, native_mjcf))
    }

    fn new(mujoco: Model, specula: specula_model::Model, native_mjcf: Result<(), NativeError>) -> Scene {
        let mode = if !mujoco.speculative() {
            SpeculativeMode::Off
        } else if mujoco.asks_robust() {
            SpeculativeMode::Robust
        } else {
            SpeculativeMode::Compat
        };
        Scene { mujoco, specula, mode, native_mjcf }
    }

    /// The same scene in speculative mode `mode` (both compilations' flags set to match).
    ///
    /// ```
    /// use specula::{Route, Scene, SpeculativeMode};
    /// let xml = "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>\
    ///            <body pos='0 0 .1'><freejoint/><geom size='.05'/></body></worldbody></mujoco>";
    /// let scene = Scene::from_xml(xml)?.with_speculative(SpeculativeMode::Compat)?;
    /// assert_eq!(scene.speculative(), SpeculativeMode::Compat);
    /// // MuJoCo C and specula's stage agree contact by contact, step by step
    /// assert!(scene.diff(200, None)?.matches());
    /// # Ok::<(), specula::Error>(())
    /// ```
    pub fn with_speculative(mut self, mode: SpeculativeMode) -> Result<Scene, Error> {
        sim::apply_speculative(mode, &mut self.mujoco, Some(&mut self.specula))?;
        self.mode = mode;
        Ok(self)
    }

    /// The speculative mode the scene runs in.
    pub fn speculative(&self) -> SpeculativeMode {
        self.mode
    }

    /// Runs `steps` steps on `route` from keyframe `key` (name or index; `None`: `qpos0`).
    /// Robust mode needs the rust route (it is specula's own stage); the native route steps
    /// specula's compilation alone (see [`Scene::native`]).
    pub fn run(&self, route: Route, steps: usize, key: Option<&str>) -> Result<RunReport, Error> {
        let start = key.map_or(Start::Qpos0, |k| Start::Key(k.to_string()));
        if route == Route::Native {
            return Ok(crate::native::run(&mut self.native()?, steps, &start)?);
        }
        let robust = self.mode == SpeculativeMode::Robust;
        Ok(sim::run(&self.mujoco, Some(&self.specula), &RunOptions { route, steps, start, robust })?)
    }

    /// Runs MuJoCo C's collision and specula's on the same states for `steps` steps from keyframe
    /// `key`, and compares them contact by contact (compatible mode: robust contacts have no
    /// MuJoCo counterpart).
    pub fn diff(&self, steps: usize, key: Option<&str>) -> Result<DiffReport, Error> {
        let start = key.map_or(Start::Qpos0, |k| Start::Key(k.to_string()));
        Ok(diff(&self.mujoco, &self.specula, &DiffOptions { steps, start })?)
    }

    /// The scene on the native route, reset: specula's compilation checked against the native
    /// subset, or the [`NativeError`] naming what the route lacks for it.
    pub fn native(&self) -> Result<Native, Error> {
        self.native_mjcf.clone().map_err(crate::native::Error::from)?;
        Ok(Native::new(self.specula.clone()).map_err(crate::native::Error::from)?)
    }

    /// Steps the native route and MuJoCo C side by side for `steps` steps from keyframe `key` and
    /// compares their arrays after every step, bit for bit ([`crate::native_diff`]).
    ///
    /// ```
    /// let xml = "<mujoco><worldbody><body pos='0 0 1'><joint type='hinge' axis='0 1 0' damping='.1'/>\
    ///            <geom type='capsule' fromto='0 0 0 .3 0 0' size='.02'/></body></worldbody></mujoco>";
    /// let scene = specula::Scene::from_xml(xml)?;
    /// let report = scene.diff_native(1000, None)?;
    /// assert!(report.matches(), "{:?}", report.first);
    /// // so a run on the native route ends where MuJoCo's does
    /// let (native, c) = (scene.run(specula::Route::Native, 1000, None)?, scene.run(specula::Route::C, 1000, None)?);
    /// assert_eq!(native.bodies, c.bodies);
    /// # Ok::<(), specula::Error>(())
    /// ```
    pub fn diff_native(&self, steps: usize, key: Option<&str>) -> Result<NativeDiffReport, Error> {
        let start = key.map_or(Start::Qpos0, |k| Start::Key(k.to_string()));
        diff_native(&self.mujoco, &mut self.native()?, &NativeDiffOptions { steps, start, tamper: None })
    }

    /// MuJoCo C's compilation.
    pub fn mujoco(&self) -> &Model {
        &self.mujoco
    }

    /// specula's compilation.
    pub fn specula(&self) -> &specula_model::Model {
        &self.specula
    }
}
