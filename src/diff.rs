//! `specula diff`: the Rust collision stage against MuJoCo C's, contact by contact and step by step.
//!
//! Two comparisons:
//! 1. **Contacts.** The C route steps the scene; every collision call MuJoCo makes (RK4's inner
//!    ones included) runs MuJoCo's own `mj_collision`, whose contacts the simulation keeps, and
//!    then the Rust stage on the very same position stage. The two lists are matched per geom
//!    pair, regardless of order, and the worst differences of distance, position, frame and
//!    parameters are kept. A contact without a partner is unmatched (missing or extra).
//! 2. **Trajectories.** The `rust` route and the C route run side by side from the same start;
//!    the largest |Δqpos| over the run is compared with the noise floor: how far the C route drifts
//!    from itself after a 1e-12 nudge of `qpos`.

use specula_engine::contact::Contact;
use specula_engine::narrowphase::{table, GeomType};

use crate::mj::collision::{contacts_of, library_collision, run_library_collision, with_collision};
use crate::mj::stages::{
    with_comparison, with_stages_tampered, StageDiffReport, StageSet, Tamper, TrajectoryDifference,
};
use crate::mj::{state, Data, MjError, Model};
use crate::route::RustStage;
use crate::sim::{self, Route, Start};

/// Tolerance for contacts from analytic colliders.
pub const TOL_EXACT: f64 = 1e-9;
/// Tolerance for contacts of pairs that go through GJK/EPA (iterative, converged to ~1e-10).
pub const TOL_GJK: f64 = 1e-6;

/// Worst differences over all matched contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MaxErr {
    /// |Δdist|.
    pub dist: f64,
    /// |Δpos|.
    pub pos: f64,
    /// Angle between the normals (radians) or the largest difference of a frame entry, whichever is larger.
    pub frame: f64,
    /// Largest difference of any contact parameter (dim and exclude count as 1 when they differ).
    pub params: f64,
}

impl MaxErr {
    fn max(&mut self, o: &MaxErr) {
        self.dist = self.dist.max(o.dist);
        self.pos = self.pos.max(o.pos);
        self.frame = self.frame.max(o.frame);
        self.params = self.params.max(o.params);
    }
    fn worst(&self) -> f64 {
        self.dist.max(self.pos).max(self.frame).max(self.params)
    }
}

/// Agreement on one geom type pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairStats {
    /// Contacts matched and compared.
    pub contacts: u64,
    /// Contacts MuJoCo found that the Rust stage did not.
    pub missing: u64,
    /// Contacts the Rust stage found that MuJoCo did not.
    pub extra: u64,
    /// Worst errors over the matched contacts.
    pub max_err: MaxErr,
}

/// What `specula diff` found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffReport {
    /// Agreement per geom type pair (lower type first), in type order.
    pub pairs: std::collections::BTreeMap<(GeomType, GeomType), PairStats>,
    /// Steps taken.
    pub steps: usize,
    /// Collision calls compared.
    pub calls: u64,
    /// Contacts matched and compared.
    pub contacts: u64,
    /// Contacts MuJoCo found that the Rust stage did not.
    pub missing: u64,
    /// Contacts the Rust stage found that MuJoCo did not.
    pub extra: u64,
    /// Worst errors over analytic pairs.
    pub max_err: MaxErr,
    /// Worst errors over GJK/EPA pairs.
    pub max_err_gjk: MaxErr,
    /// Largest |Δqpos| between the rust and c routes over the run.
    pub qpos_divergence: f64,
    /// Largest |Δqpos| between the c route and itself after a 1e-12 perturbation of qpos.
    pub noise_floor: f64,
    /// MuJoCo warned that the C route's simulation is unstable (NaN, infinite or huge
    /// accelerations, after which it resets the state): its trajectory is not a reference, so
    /// the trajectory comparison is skipped (the contacts are still compared on every call).
    pub unstable: bool,
    /// Geom pairs the Rust stage handed to MuJoCo's own pair function (height fields, SDFs,
    /// convex pairs with `nativeccd` disabled), over the contact comparison's calls.
    pub fallback_pairs: u64,
    /// Meshes whose hull the Rust stage took from MuJoCo's model (specula could not put them
    /// in qhull's order).
    pub mujoco_hulls: u64,
    /// The first problem seen, in words (a Rust stage error, or the first unmatched contact).
    pub first_problem: Option<String>,
    /// Warnings MuJoCo emitted on the C route of the contact comparison.
    pub warnings: Vec<String>,
    /// What specula noticed about the C route's states (non-finite or huge values: which body
    /// or field, which step); NaN contacts compare equal, so a `match` on such a run says less.
    pub state_notes: Vec<String>,
    /// The C route's state became non-finite.
    pub nonfinite: bool,
    /// Dynamics-stage calls compared bit for bit on the same scene (the generator's runs with
    /// stages), 0 otherwise.
    pub stage_calls: u64,
}

impl DiffReport {
    /// Unmatched contacts, missing and extra together.
    pub fn unmatched(&self) -> u64 {
        self.missing + self.extra
    }

    /// The verdict: no unmatched contact, every error within tolerance, trajectories within
    /// ten times the noise floor (plus 1e-12) unless MuJoCo itself reports the run unstable.
    pub fn matches(&self) -> bool {
        self.unmatched() == 0
            && self.first_problem.is_none()
            && self.max_err.worst() <= TOL_EXACT
            && self.max_err_gjk.worst() <= TOL_GJK
            && (self.unstable || self.qpos_divergence <= 10.0 * self.noise_floor + 1e-12)
    }

    /// The report as the JSON object `specula diff --json` prints (and Python's `specula.diff`
    /// returns); JSON has no NaN, so non-finite values are null.
    pub fn to_json(&self) -> serde_json::Value {
        let verdict = if self.matches() { "match" } else { "differ" };
        let worst = |a: f64, b: f64| a.max(b);
        let num = |v: f64| serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number);
        serde_json::json!({
            "steps": self.steps,
            "contacts": self.contacts,
            "unmatched": self.unmatched(),
            "missing": self.missing,
            "extra": self.extra,
            "max_err": {
                "dist": num(worst(self.max_err.dist, self.max_err_gjk.dist)),
                "pos": num(worst(self.max_err.pos, self.max_err_gjk.pos)),
                "frame": num(worst(self.max_err.frame, self.max_err_gjk.frame)),
                "params": num(worst(self.max_err.params, self.max_err_gjk.params)),
            },
            "max_err_gjk": {"dist": num(self.max_err_gjk.dist), "pos": num(self.max_err_gjk.pos),
                            "frame": num(self.max_err_gjk.frame), "params": num(self.max_err_gjk.params)},
            "qpos_divergence": num(self.qpos_divergence),
            "noise_floor": num(self.noise_floor),
            "fallback_pairs": self.fallback_pairs,
            "mujoco_hulls": self.mujoco_hulls,
            "unstable": self.unstable,
            "problem": self.first_problem,
            "warnings": self.warnings.iter().chain(&self.state_notes).collect::<Vec<_>>(),
            "nonfinite": self.nonfinite,
            "pairs": self.pairs.iter().map(|((a, b), p)| serde_json::json!({
                "types": [format!("{a:?}").to_lowercase(), format!("{b:?}").to_lowercase()],
                "contacts": p.contacts, "missing": p.missing, "extra": p.extra,
                "max_err": {"dist": num(p.max_err.dist), "pos": num(p.max_err.pos),
                            "frame": num(p.max_err.frame), "params": num(p.max_err.params)},
            })).collect::<Vec<_>>(),
            "verdict": verdict,
        })
    }
}

/// Whether MuJoCo (and specula) handle this type pair with the general convex path (GJK/EPA).
pub fn uses_gjk(t1: GeomType, t2: GeomType) -> bool {
    table::is_convex(t1, t2)
}

/// Errors between two contacts of the same geom pair.
fn contact_err(c: &Contact, r: &Contact) -> MaxErr {
    let d3 =
        |a: &[f64; 3], b: &[f64; 3]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
    // The angle between the normals, as atan2(|a×b|, a·b): accurate near zero, where acos is not.
    let (a, b) = ([c.frame[0], c.frame[1], c.frame[2]], [r.frame[0], r.frame[1], r.frame[2]]);
    let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let angle = d3(&cross, &[0.0; 3]).atan2(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
    let entries = c.frame.iter().zip(&r.frame).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    let mut params = [
        (c.includemargin, r.includemargin),
        (c.adhesion, r.adhesion),
        (f64::from(c.dim), f64::from(r.dim)),
        (f64::from(c.exclude), f64::from(r.exclude)),
    ]
    .iter()
    .map(|(a, b)| (a - b).abs())
    .fold(0.0, f64::max);
    let pairs = c
        .friction
        .iter()
        .zip(&r.friction)
        .chain(c.solref.iter().zip(&r.solref))
        .chain(c.solreffriction.iter().zip(&r.solreffriction))
        .chain(c.solimp.iter().zip(&r.solimp))
        .chain(c.surfacevel.iter().zip(&r.surfacevel));
    for (a, b) in pairs {
        params = params.max((a - b).abs());
    }
    MaxErr { dist: (c.dist - r.dist).abs(), pos: d3(&c.pos, &r.pos), frame: angle.max(entries), params }
}

/// Compares the contact lists of one collision call, per geom pair, order-insensitive.
pub fn compare_contacts(
    c: &[Contact],
    r: &[Contact],
    geom_type: &dyn Fn(i32) -> Option<GeomType>,
    report: &mut DiffReport,
) {
    let mut used = vec![false; r.len()];
    let key = |g: [i32; 2]| match (geom_type(g[0]), geom_type(g[1])) {
        (Some(a), Some(b)) => Some(if a <= b { (a, b) } else { (b, a) }),
        _ => None,
    };
    // Rust contacts by geom pair, in order: matching looks at one pair's contacts only (a scan
    // of all of them per contact made a dense step of 8,865 contacts take seconds).
    let mut by_pair: std::collections::HashMap<[i32; 2], Vec<usize>> = std::collections::HashMap::new();
    for (k, rc) in r.iter().enumerate() {
        by_pair.entry(rc.geom).or_default().push(k);
    }
    for cc in c {
        // The closest unused Rust contact of the same geom pair.
        let best = by_pair
            .get(&cc.geom)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&k| !used[k])
            .map(|k| (k, contact_err(cc, &r[k])))
            .min_by(|a, b| (a.1.pos + a.1.dist).total_cmp(&(b.1.pos + b.1.dist)));
        match best {
            Some((k, err)) => {
                used[k] = true;
                report.contacts += 1;
                let gjk = match (geom_type(cc.geom[0]), geom_type(cc.geom[1])) {
                    (Some(a), Some(b)) => uses_gjk(a, b),
                    _ => false,
                };
                if gjk {
                    report.max_err_gjk.max(&err);
                } else {
                    report.max_err.max(&err);
                }
                if let Some(k) = key(cc.geom) {
                    let p = report.pairs.entry(k).or_default();
                    p.contacts += 1;
                    p.max_err.max(&err);
                }
            }
            None => {
                report.missing += 1;
                if let Some(k) = key(cc.geom) {
                    report.pairs.entry(k).or_default().missing += 1;
                }
                report.first_problem.get_or_insert_with(|| {
                    format!(
                        "step {}: MuJoCo has a contact between geoms {:?} that specula does not",
                        report.steps, cc.geom
                    )
                });
            }
        }
    }
    for (k, rc) in r.iter().enumerate() {
        if !used[k] {
            report.extra += 1;
            if let Some(key) = key(rc.geom) {
                report.pairs.entry(key).or_default().extra += 1;
            }
            report.first_problem.get_or_insert_with(|| {
                format!("step {}: specula has a contact between geoms {:?} that MuJoCo does not", report.steps, rc.geom)
            });
        }
    }
}

/// What to diff.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// Steps to run.
    pub steps: usize,
    /// Initial state.
    pub start: Start,
}

/// Runs both comparisons: specula's contacts against MuJoCo's on every collision call of the C
/// route, and the rust route's trajectory against the C route's.
pub fn diff(model: &Model, rust: &specula_model::Model, opts: &DiffOptions) -> Result<DiffReport, MjError> {
    diff_tampered(model, rust, opts, &mut |_| {})
}

/// [`diff`] with `tamper` altering the Rust stage's contacts before they are compared and before
/// the rust route hands them to MuJoCo: a test hook, to prove that a wrong collider is caught.
#[doc(hidden)]
pub fn diff_tampered(
    model: &Model,
    rust: &specula_model::Model,
    opts: &DiffOptions,
    tamper: &mut dyn FnMut(&mut Vec<Contact>),
) -> Result<DiffReport, MjError> {
    let mut report = DiffReport::default();
    let types: Vec<GeomType> = rust.geom_type.clone();
    let geom_type = |g: i32| usize::try_from(g).ok().and_then(|g| types.get(g).copied());

    // 1. Contacts, on the C route's own states.
    let mut stage = RustStage::new(rust);
    if library_collision().is_none() {
        return Err(MjError::Invalid("libmujoco is not loaded".into()));
    }
    let mut data = Data::new(model)?;
    sim::start(&mut data, &opts.start)?;
    {
        let report_cell = std::cell::RefCell::new(&mut report);
        let mut compare = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
            run_library_collision(m, d);
            let c = contacts_of(d);
            let mut rep = report_cell.borrow_mut();
            rep.calls += 1;
            match stage.compute(m, d) {
                Ok(r) => {
                    let mut r = r.to_vec();
                    tamper(&mut r);
                    compare_contacts(&c, &r, &geom_type, &mut rep);
                }
                Err(e) => {
                    let step = rep.steps;
                    rep.first_problem.get_or_insert_with(|| format!("step {step}: rust collision stage: {e}"));
                }
            }
        };
        let mut watch = sim::StateWatch::default();
        watch.observe(&data, 0);
        let stepped = with_collision(model.raw(), &mut compare, || -> Result<(), MjError> {
            for i in 0..opts.steps {
                report_cell.borrow_mut().steps = i;
                data.step()?;
                // the poses of the new state, for the watch (the next step recomputes them)
                data.kinematics()?;
                watch.observe(&data, i + 1);
            }
            Ok(())
        });
        stepped.0?;
        // mj_step calls mj_collision on every step (the flags are read inside it); no call means MuJoCo's
        // calls do not reach the exported hook, and "match" would compare nothing
        if stepped.1 == 0 && opts.steps > 0 {
            return Err(MjError::Invalid(
                "no collision call reached specula's hook (libmujoco calls its own mj_collision here: \
                 from Python, the slot must be redirected)"
                    .into(),
            ));
        }
        report.warnings = data.warnings().to_vec();
        report.nonfinite = watch.nonfinite();
        report.state_notes = watch.notes;
    }
    report.steps = opts.steps;
    report.fallback_pairs = stage.stats.fallback_pairs;
    report.mujoco_hulls = stage.stats.mujoco_hulls;

    // 2. Trajectories: rust route vs c route, and the c route's own noise floor.
    let (traj_c, unstable) = trajectory(model, None, Route::C, opts, 0.0, &mut |_| {})?;
    report.unstable = unstable;
    let (traj_n, _) = trajectory(model, None, Route::C, opts, 1e-12, &mut |_| {})?;
    let traj_r = trajectory(model, Some(rust), Route::Rust, opts, 0.0, tamper);
    match traj_r {
        Ok((traj_r, _)) => report.qpos_divergence = max_diff(&traj_c, &traj_r),
        Err(e) => {
            report.first_problem.get_or_insert_with(|| format!("rust route: {e}"));
            report.qpos_divergence = f64::INFINITY;
        }
    }
    report.noise_floor = max_diff(&traj_c, &traj_n);
    Ok(report)
}

fn max_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut worst: f64 = if a.len() == b.len() { 0.0 } else { f64::INFINITY };
    for (x, y) in a.iter().zip(b) {
        for (p, q) in x.iter().zip(y) {
            let d = (p - q).abs();
            worst = if d.is_nan() { f64::INFINITY } else { worst.max(d) };
        }
    }
    worst
}

/// qpos after every step on `route`, starting from `opts.start` with `nudge` added to every
/// qpos, and whether MuJoCo warned that the simulation is unstable.
fn trajectory(
    model: &Model,
    rust: Option<&specula_model::Model>,
    route: Route,
    opts: &DiffOptions,
    nudge: f64,
    tamper: &mut dyn FnMut(&mut Vec<Contact>),
) -> Result<(Vec<Vec<f64>>, bool), MjError> {
    let mut data = Data::new(model)?;
    sim::start(&mut data, &opts.start)?;
    if nudge != 0.0 {
        for q in data.qpos_mut() {
            *q += nudge;
        }
    }
    let mut out = Vec::with_capacity(opts.steps);
    let mut run = |data: &mut Data| -> Result<(), MjError> {
        for _ in 0..opts.steps {
            data.step()?;
            out.push(data.qpos().to_vec());
        }
        Ok(())
    };
    match (route, rust) {
        (Route::Rust, Some(rust)) => {
            let mut stage = RustStage::new(rust);
            let error = std::cell::RefCell::new(None::<crate::route::StageError>);
            let mut replace = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
                if let Err(e) = stage.replace_with(m, d, tamper) {
                    error.borrow_mut().get_or_insert(e);
                }
            };
            with_collision(model.raw(), &mut replace, || run(&mut data)).0?;
            if let Some(e) = error.into_inner() {
                return Err(MjError::Invalid(e.to_string()));
            }
        }
        _ => run(&mut data)?,
    }
    let unstable = data.warnings().iter().any(|w| w.contains("unstable"));
    Ok((out, unstable))
}

/// Options of [`diff_stages`].
#[derive(Clone, Debug)]
pub struct StageDiffOptions {
    /// Steps to run.
    pub steps: usize,
    /// Initial state.
    pub start: Start,
    /// Stages to compare.
    pub stages: StageSet,
    /// Test hook: changes one thing in a Rust stage's result (see [`Tamper`]), so that a test
    /// can see the comparison fail.
    #[doc(hidden)]
    pub tamper: Option<Tamper>,
}

/// Steps `model` with MuJoCo's own functions and, at every call of a stage of `opts.stages`, runs
/// the Rust dynamics stage on the same inputs and compares every array it writes, bit for bit.
pub fn diff_stages(model: &Model, opts: &StageDiffOptions) -> Result<StageDiffReport, MjError> {
    let (run, mut report) = with_comparison(opts.stages, opts.tamper, |mark| -> Result<(), MjError> {
        let mut data = Data::new(model)?;
        sim::start(&mut data, &opts.start)?;
        for i in 0..opts.steps {
            mark(i + 1);
            data.step()?;
        }
        Ok(())
    });
    run?;
    report.steps = opts.steps;

    // the trajectory with the stages in Rust against MuJoCo's own (run without any stage in Rust,
    // whatever SPECULA_STAGES says), step by step
    let tampered = match opts.tamper {
        Some(Tamper::Trajectory(s)) => Some(s),
        _ => None,
    };
    let states = |set: StageSet, each: &mut dyn FnMut(usize, &[f64]) -> bool| {
        with_stages_tampered(set, tampered, || -> Result<(), MjError> {
            let mut data = Data::new(model)?;
            sim::start(&mut data, &opts.start)?;
            for i in 0..opts.steps {
                data.step()?;
                if !each(i + 1, &data.state(state::INTEGRATION)) {
                    break;
                }
            }
            Ok(())
        })
    };
    let mut theirs: Vec<Vec<f64>> = Vec::with_capacity(opts.steps);
    states(StageSet::NONE, &mut |_, s| {
        theirs.push(s.to_vec());
        true
    })
    .0?;
    let mut first = None;
    let (run, counts) = states(opts.stages, &mut |step, ours| {
        let Some(c) = theirs.get(step - 1) else { return false };
        let same = |(a, b): (&f64, &f64)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        match c.iter().zip(ours).position(|p| !same(p)) {
            Some(index) => {
                first = Some(TrajectoryDifference { step, index, c: c[index], rust: ours[index] });
                false
            }
            None => true,
        }
    });
    run?;
    report.trajectory = first;
    report.trajectory_counts = counts;
    Ok(report)
}
