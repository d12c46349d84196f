//! The side-by-side runner of the native-route tests (`tests/native.rs`,
//! `tests/native_constraint.rs`): both compilations of a model, the native step beside `mj_step`
//! compared array by array after every step, and the model files.
// Each test crate uses some of these.
#![allow(dead_code)]

use std::path::Path;

use specula::mj::{Data as CData, Model as CModel};
use specula_model::Model;
use specula_native::{Native, NativeError};

use crate::common::{self, root};

/// Both compilations of `xml`.
pub fn both(xml: &str) -> (Model, CModel) {
    let rust = specula_model::load_str(xml, Path::new("."), "inline.xml").expect("specula compiles it");
    let c = CModel::from_xml_str(xml).expect("MuJoCo compiles it");
    (rust, c)
}

/// The native route on `xml` (read through [`Native::load_str`]), and MuJoCo's model of it.
pub fn native_and_c(xml: &str) -> (Result<Native, NativeError>, CModel) {
    let c = CModel::from_xml_str(xml).expect("MuJoCo compiles it");
    (Native::load_str(xml, Path::new("."), "inline.xml"), c)
}

/// The project's scenes, and the corpus files where the corpus is present.
pub fn model_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("scenes")).unwrap().map(|e| e.unwrap().path()).collect();
    if let Some(corpus) = common::corpus() {
        let mut stack = vec![corpus];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
    }
    files.retain(|p| p.extension().is_some_and(|x| x == "xml"));
    files.sort();
    files
}

// The per-step arrays and their readers on both sides are `specula diff --route native`'s own.
pub use specula::native_diff::{c_field, native_field, FIELDS as STEP_FIELDS};

/// `len` entries at `p`, empty for a null pointer or no entries (MuJoCo leaves empty arrays null).
///
/// # Safety
/// A non-null `p` points to at least `len` initialised entries that outlive the slice.
pub unsafe fn raw_slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: as the caller guarantees.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// What a side-by-side run found: the first (step, field, index) whose bits differ, the steps
/// run, and what the native route was missing if it refused a step.
pub struct Outcome {
    pub diff: Option<(usize, &'static str, usize)>,
    pub steps: usize,
    pub refused: Option<&'static str>,
    /// Steps with constraint rows, and the contacts over all steps.
    pub rows: (usize, usize),
}

/// Whether MuJoCo writes `efc_state` in `mj_fwdConstraint` for `m`: not for Newton or CG over
/// islands without warm start and without noslip, where only the island copy `iefc_state` is
/// solved and `efc_state` keeps whatever its arena bytes held (`docs/measurements.md` D70).
pub fn efc_state_written(m: &Model) -> bool {
    use specula_model::types::Solver;
    let (warmstart, islands) = (1 << 9, 1 << 18);
    let flags = m.opt.disableflags;
    flags & warmstart == 0 || flags & islands != 0 || m.opt.solver == Solver::Pgs || m.opt.noslip_iterations > 0
}

/// The constraint arrays of one step on both sides: the contact count, each contact's position
/// and distance, the row count, each row's `aref`, force, state (when MuJoCo writes it, `states`)
/// and Jacobian, the island count and the solver's iterations per island; the first field and
/// index that differ.
pub fn constraint_diff(n: &specula_native::Data, cd: &CData, states: bool) -> Option<(&'static str, usize)> {
    let raw = cd.mj();
    if n.contacts.len() != raw.ncon.max(0) as usize {
        return Some(("ncon", n.contacts.len()));
    }
    // SAFETY: ncon contacts and nefc rows in the C data's arena.
    let cons = unsafe { raw_slice(raw.contact, n.contacts.len()) };
    for (i, (a, b)) in n.contacts.iter().zip(cons).enumerate() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        if bits(&a.pos) != bits(&b.pos) || a.dist.to_bits() != b.dist.to_bits() || a.geom != b.geom {
            return Some(("contact", i));
        }
        if a.efc_address != b.efc_address || a.mu.to_bits() != b.mu.to_bits() {
            return Some(("contact.efc_address/mu", i));
        }
    }
    if n.efc.nefc != raw.nefc.max(0) as usize {
        return Some(("nefc", n.efc.nefc));
    }
    let nefc = n.efc.nefc;
    // SAFETY: as above.
    let (force, aref) = unsafe { (raw_slice(raw.efc_force, nefc), raw_slice(raw.efc_aref, nefc)) };
    if nefc > 0 {
        if let Some(i) = n.efc.efc_aref[..nefc].iter().zip(aref).position(|(a, b)| a.to_bits() != b.to_bits()) {
            return Some(("efc_aref", i));
        }
        let ours = &n.efc.efc_force[..nefc];
        if let Some(i) = ours.iter().zip(force).position(|(a, b)| a.to_bits() != b.to_bits()) {
            return Some(("efc_force", i));
        }
        // SAFETY: as above.
        let (state, j) = unsafe { (raw_slice(raw.efc_state, nefc), raw_slice(raw.efc_J, n.efc.nj)) };
        if let Some(i) = n.efc.efc_state[..nefc].iter().zip(state).position(|(a, b)| states && a != b) {
            return Some(("efc_state", i));
        }
        if let Some(i) = n.efc.efc_j[..n.efc.nj].iter().zip(j).position(|(a, b)| a.to_bits() != b.to_bits()) {
            return Some(("efc_J", i));
        }
    }
    if n.efc.nisland != raw.nisland.max(0) as usize {
        return Some(("nisland", n.efc.nisland));
    }
    if let Some(i) = n.solver_niter.iter().zip(&raw.solver_niter).position(|(a, b)| a != b) {
        return Some(("solver_niter", i));
    }
    None
}

/// Steps `native` and `mj_step` on `c` side by side for `steps` steps with the same applied
/// joint forces, comparing [`STEP_FIELDS`] and the constraint arrays after every step.
pub fn step_both_full(native: Native, c: &CModel, steps: usize) -> Outcome {
    step_both_keyed(native, c, None, steps)
}

/// [`step_both_full`] with the C data reset to keyframe `key` first (the native one already is).
pub fn step_both_keyed(native: Native, c: &CModel, key: Option<usize>, steps: usize) -> Outcome {
    step_both_driven(native, c, key, steps, true)
}

/// [`step_both_keyed`], with the `qfrc_applied` drive or without it (`drive`).
pub fn step_both_driven(mut native: Native, c: &CModel, key: Option<usize>, steps: usize, drive: bool) -> Outcome {
    let mut cd = CData::new(c).expect("mjData");
    if let Some(k) = key {
        cd.reset_keyframe(k).expect("keyframe");
    }
    let nv = native.model.model.nv;
    let states = efc_state_written(&native.model.model);
    let mut rows = (0, 0);
    for step in 0..steps {
        // a smooth, deterministic drive through qfrc_applied on both routes
        let t = step as f64 * 0.01;
        for i in 0..nv * usize::from(drive) {
            let u = 0.5 * (t * (i + 1) as f64).sin();
            native.data.qfrc_applied[i] = u;
            // SAFETY: qfrc_applied holds nv values.
            unsafe { *(*cd.raw()).qfrc_applied.add(i) = u };
        }
        let ours = native.step();
        cd.step().expect("mj_step");
        match &ours {
            Err(e @ NativeError::BadState { field, .. }) => {
                // the native route stops where MuJoCo warns and resets the data: the C side must
                // have warned about the same array in this very step
                let warning = match *field {
                    "qpos" => mujoco_sys::mjWARN_BADQPOS,
                    "qvel" => mujoco_sys::mjWARN_BADQVEL,
                    _ => mujoco_sys::mjWARN_BADQACC,
                };
                let warned = cd.mj().warning[warning as usize].number;
                assert!(warned > 0, "native stopped ({e}) at step {step} but MuJoCo did not warn");
                return Outcome { diff: None, steps: step + 1, refused: None, rows };
            }
            Err(NativeError::Unsupported { needs, .. }) => {
                return Outcome { diff: None, steps: step, refused: Some(needs), rows };
            }
            _ => {}
        }
        ours.expect("native step");
        rows.0 += usize::from(native.data.efc.nefc > 0);
        rows.1 += native.data.contacts.len();
        // the constraint arrays first: a difference there explains one in the state
        if let Some((field, i)) = constraint_diff(&native.data, &cd, states) {
            return Outcome { diff: Some((step, field, i)), steps: step + 1, refused: None, rows };
        }
        for field in STEP_FIELDS {
            let ours = native_field(&native.data, field);
            let theirs = c_field(&cd, field, ours.len());
            if let Some(i) = ours.iter().zip(theirs).position(|(a, b)| a.to_bits() != b.to_bits()) {
                return Outcome { diff: Some((step, field, i)), steps: step + 1, refused: None, rows };
            }
        }
        assert_eq!(native.data.time.to_bits(), cd.mj().time.to_bits(), "time at step {step}");
    }
    Outcome { diff: None, steps, refused: None, rows }
}

/// [`step_both_full`] for runs that must not be refused: the first difference and the steps.
pub fn step_both(native: Native, c: &CModel, steps: usize) -> (Option<(usize, &'static str, usize)>, usize) {
    let o = step_both_full(native, c, steps);
    assert_eq!(o.refused, None, "refused at step {}", o.steps);
    (o.diff, o.steps)
}

/// [`step_both`] on inline MJCF, with `tamper` applied to the native side first.
pub fn run_both(
    xml: &str,
    steps: usize,
    tamper: impl Fn(&mut Native),
) -> (Option<(usize, &'static str, usize)>, usize) {
    let (native, c) = native_and_c(xml);
    let mut native = native.expect("inside the native subset");
    tamper(&mut native);
    step_both(native, &c, steps)
}

/// The native route on `rust`, the model compiled from `path` (and changed by the caller), after
/// the MJCF-level checks of [`Native::load_file`] (and its arena check when rows are possible).
pub fn native_for(path: &Path, rust: Model) -> Result<Native, NativeError> {
    let tree = specula_model::xml::parse_file(path).expect("parsed once already");
    specula_native::scope::check_mjcf(&tree)
        .and_then(|()| match specula_native::scope::rows_possible(&rust) {
            true => specula_native::scope::check_mjcf_arena(&tree),
            false => Ok(()),
        })
        .and_then(|()| Native::new(rust))
}

/// `xml` with the integrator set to `integrator`.
pub fn with_integrator(xml: &str, integrator: &str) -> String {
    if xml.contains("<option ") {
        xml.replacen("<option ", &format!("<option integrator=\"{integrator}\" "), 1)
    } else {
        xml.replacen("<worldbody>", &format!("<option integrator=\"{integrator}\"/>\n  <worldbody>"), 1)
    }
}

/// [`step_both_keyed`] on inline MJCF from its first keyframe, with `tamper` applied to the
/// native side first.
pub fn run_keyed(xml: &str, steps: usize, tamper: impl Fn(&mut Native)) -> Outcome {
    let (native, c) = native_and_c(xml);
    let mut native = native.expect("inside the native subset");
    native.reset_keyframe(0).unwrap();
    tamper(&mut native);
    step_both_keyed(native, &c, Some(0), steps)
}

/// A change to the native side before stepping.
pub type Tamper = Box<dyn Fn(&mut Native)>;

/// One ulp more.
pub fn ulp(x: &mut f64) {
    *x = f64::from_bits(x.to_bits() + 1);
}
