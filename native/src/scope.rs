//! What the native route steps, and the typed refusal of everything else: a model outside the
//! native subset (rigid trees, limits, friction loss, contacts) is refused before stepping, with
//! what is missing named.

use specula_model::types::Integrator;
use specula_model::Model;
use thiserror::Error;

/// `mjDSBL_CONSTRAINT`.
pub(crate) const DSBL_CONSTRAINT: u32 = 1;
/// `mjDSBL_EQUALITY`.
pub(crate) const DSBL_EQUALITY: u32 = 2;
/// `mjDSBL_FRICTIONLOSS`.
pub(crate) const DSBL_FRICTIONLOSS: u32 = 4;
/// `mjDSBL_LIMIT`.
pub(crate) const DSBL_LIMIT: u32 = 8;
/// `mjDSBL_CONTACT`.
pub(crate) const DSBL_CONTACT: u32 = 16;
/// `mjDSBL_SPRING`.
pub(crate) const DSBL_SPRING: u32 = 32;
/// `mjDSBL_DAMPER`.
pub(crate) const DSBL_DAMPER: u32 = 64;
/// `mjDSBL_GRAVITY`.
pub(crate) const DSBL_GRAVITY: u32 = 128;
/// `mjDSBL_WARMSTART`.
pub(crate) const DSBL_WARMSTART: u32 = 1 << 9;
/// `mjDSBL_FILTERPARENT`.
const DSBL_FILTERPARENT: u32 = 1024;
/// `mjDSBL_REFSAFE`.
pub(crate) const DSBL_REFSAFE: u32 = 1 << 12;
/// `mjDSBL_ISLAND`.
pub(crate) const DSBL_ISLAND: u32 = 1 << 18;
/// `mjENBL_DIAGEXACT`.
pub(crate) const ENBL_DIAGEXACT: u32 = 1 << 5;
/// `mjENBL_IPC`: an enable flag that changes the smooth step (sleep is [`crate::sleep`]'s).
const ENBL_REFUSED: u32 = 64;

/// Why the native route cannot run a model or a step.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NativeError {
    /// The model uses something the native route does not implement yet.
    #[error("the native route does not implement {what} (needs {needs})")]
    Unsupported {
        /// The model feature, with the element that uses it.
        what: String,
        /// What is missing for it.
        needs: &'static str,
    },
    /// The MJCF file does not read or compile.
    #[error(transparent)]
    Mjcf(#[from] specula_model::MjcfError),
    /// A keyframe index beyond the model's keyframes.
    #[error("keyframe {key} does not exist (the model has {nkey})")]
    NoKeyframe {
        /// The index asked for.
        key: usize,
        /// Number of keyframes.
        nkey: usize,
    },
    /// A state value MuJoCo would reject (NaN or beyond `mjMAXVAL`) and reset the data for.
    #[error("{field}[{index}] = {value} is not a valid value (MuJoCo would warn and reset)")]
    BadState {
        /// `qpos`, `qvel` or `qacc`.
        field: &'static str,
        /// Index of the first bad entry.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// The compiler's length-range computation failed (`crate::lengthrange`), with MuJoCo's
    /// message.
    #[error("{0}")]
    LengthRange(String),
}

pub(crate) fn unsupported(what: impl Into<String>, needs: &'static str) -> Result<(), NativeError> {
    Err(NativeError::Unsupported { what: what.into(), needs })
}

/// A pair of geoms whose collision MuJoCo would test: on different weld bodies, not both static,
/// with matching contact bits and not filtered as parent and child. Conservative: any pair this
/// returns makes the model refused, while MuJoCo's own filters can only drop more pairs.
fn colliding_pair(m: &Model) -> Option<(usize, usize)> {
    let filterparent = m.opt.disableflags & DSBL_FILTERPARENT == 0;
    for g1 in 0..m.ngeom {
        for g2 in g1 + 1..m.ngeom {
            let (w1, w2) = (m.body_weldid[m.geom_bodyid[g1]], m.body_weldid[m.geom_bodyid[g2]]);
            if w1 == w2 || (w1 == 0 && w2 == 0) {
                continue;
            }
            let bits = m.geom_contype[g1] & m.geom_conaffinity[g2] | m.geom_contype[g2] & m.geom_conaffinity[g1];
            if bits == 0 {
                continue;
            }
            let (p1, p2) = (m.body_weldid[m.body_parentid[w1]], m.body_weldid[m.body_parentid[w2]]);
            if filterparent && ((p1 == w2 && w2 != 0) || (p2 == w1 && w1 != 0)) {
                continue;
            }
            return Some((g1, g2));
        }
    }
    None
}

/// Refuses MJCF that sets what specula's compiler reads but leaves out of [`Model`], where it
/// can change the step: a non-zero `springdamper` (its step differs), a non-zero `springyield`
/// (plasticity: MuJoCo then moves the spring's
/// reference, `jnt_plasticadr`), on a joint or in a default; and engine plugins (`<plugin>`
/// anywhere: their passive forces, sensors and actuators).
pub fn check_mjcf(root: &specula_model::xml::Element) -> Result<(), NativeError> {
    crate::sleep::check_mjcf_body(root)?;
    if root.name == "plugin" {
        unsupported(
            format!("<plugin> ({}:{})", root.pos.line, root.pos.col),
            "engine plugins, which specula's compiler reads but does not compile",
        )?;
    }
    // sleep/equality.xml steps unlike mj_step from step 1 with it (with its stiffness or its
    // damping alone it matches): refused until understood
    if let Some(a) = root.attrs.iter().find(|a| a.name == "springdamper") {
        if !a.value.split_whitespace().all(|v| v.parse::<f64>().is_ok_and(|x| x == 0.0)) {
            unsupported(
                format!("springdamper=\"{}\" on <{}> ({}:{})", a.value, root.name, a.pos.line, a.pos.col),
                "a springdamper joint's step as mj_step takes it",
            )?;
        }
    }
    if let Some(a) = root.attrs.iter().find(|a| a.name == "springyield") {
        let zero = a.value.split_whitespace().all(|v| v.parse::<f64>().is_ok_and(|x| x == 0.0));
        if !zero {
            unsupported(
                format!("springyield=\"{}\" on <{}> ({}:{})", a.value, root.name, a.pos.line, a.pos.col),
                "plasticity, which specula's compiler reads but does not compile",
            )?;
        }
    }
    root.children.iter().try_for_each(check_mjcf)
}

/// Refuses an MJCF arena (`<size memory>`) below 16M anywhere in `root`: MuJoCo drops rows when
/// its arena is full, which the native route does not model (call it for models with possible
/// constraint rows, [`rows_possible`]).
pub fn check_mjcf_arena(root: &specula_model::xml::Element) -> Result<(), NativeError> {
    if root.name == "size" {
        if let Some(a) = root.attrs.iter().find(|a| a.name == "memory") {
            if arena_bytes(&a.value).is_none_or(|b| b < 16 << 20) {
                unsupported(
                    format!("<size memory=\"{}\"> ({}:{})", a.value, a.pos.line, a.pos.col),
                    "arenas smaller than 16M (MuJoCo drops rows when its arena is full)",
                )?;
            }
        }
    }
    root.children.iter().try_for_each(check_mjcf_arena)
}

/// Whether `m` can have constraint rows: limits, friction loss or contacts not disabled.
pub fn rows_possible(m: &Model) -> bool {
    let flags = m.opt.disableflags;
    let constraints = flags & DSBL_CONSTRAINT == 0;
    let limits = constraints && flags & DSBL_LIMIT == 0 && m.jnt_limited.iter().any(|&l| l);
    let friction = constraints && flags & DSBL_FRICTIONLOSS == 0 && m.dof_frictionloss.iter().any(|&f| f > 0.0);
    let equalities = constraints && flags & DSBL_EQUALITY == 0 && m.eq_active0.iter().any(|&a| a != 0);
    let tendon_limits = constraints && flags & DSBL_LIMIT == 0 && m.tendon_limited.iter().any(|&l| l);
    let tendon_friction =
        constraints && flags & DSBL_FRICTIONLOSS == 0 && m.tendon_frictionloss.iter().any(|&f| f > 0.0);
    limits || friction || equalities || tendon_limits || tendon_friction || contacts_possible(m)
}

/// Whether `m` can have contacts.
fn contacts_possible(m: &Model) -> bool {
    let flags = m.opt.disableflags;
    flags & DSBL_CONSTRAINT == 0 && flags & DSBL_CONTACT == 0 && (m.npair > 0 || colliding_pair(m).is_some())
}

/// Bytes of a `<size memory>` value (`200K`, `16M`, `1G` or plain bytes).
fn arena_bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let (num, shift) = match v.chars().last()? {
        'K' | 'k' => (&v[..v.len() - 1], 10),
        'M' | 'm' => (&v[..v.len() - 1], 20),
        'G' | 'g' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    num.trim().parse::<u64>().ok().map(|n| n << shift)
}

/// Refuses a model outside the native route's subset: Euler or implicitfast integration of a
/// rigid tree with joint springs and dampers, gravity and applied joint forces, joint limits,
/// dof friction loss and contacts solved by Newton over islands.
pub fn check(m: &Model) -> Result<(), NativeError> {
    let flags = m.opt.disableflags;
    let constraints = flags & DSBL_CONSTRAINT == 0;
    match m.opt.integrator {
        Integrator::Euler | Integrator::Rk4 | Integrator::Implicit | Integrator::ImplicitFast => {}
        other => unsupported(format!("integrator {other:?}"), "the discrete integrator")?,
    }
    if m.opt.enableflags & ENBL_REFUSED != 0 {
        unsupported(format!("enable flags {:#x}", m.opt.enableflags & ENBL_REFUSED), "IPC")?;
    }
    crate::sleep::check(m)?;
    crate::actuation::check(m)?;
    crate::tendon::check(m)?;
    crate::sensor::check(m)?;
    let equalities = m.neq > 0 && constraints && flags & DSBL_EQUALITY == 0;
    if equalities {
        if let Some(why) = &m.eq_unsupported {
            unsupported(format!("equality constraints ({why})"), "tendon and flex equalities in specula's compiler")?;
        }
    }
    crate::passive::check(m)?;
    let limits = constraints && flags & DSBL_LIMIT == 0 && m.jnt_limited.iter().any(|&l| l);
    let contacts = contacts_possible(m);
    if rows_possible(m) {
        let what = if contacts {
            "contacts"
        } else if equalities {
            "equality constraints"
        } else if limits || m.tendon_limited.iter().any(|&l| l) {
            "limits"
        } else {
            "friction loss"
        };
        solver_in_scope(m, what)?;
    }
    if contacts {
        if let Some(i) = (0..m.mesh_qhull_order.len()).find(|&i| !m.mesh_qhull_order[i]) {
            unsupported(
                format!("contacts with mesh {i}, whose hull specula's compiler could not put in qhull's order"),
                "mesh hulls in qhull's order (the C route takes MuJoCo's table for them)",
            )?;
        }
    }
    Ok(())
}

/// Refuses solver settings the native route's `mj_fwdConstraint` does not cover (`what` names
/// the rows that need the solver): Newton or CG (over islands or not), or PGS on a dense or
/// sparse Jacobian, with or without warm start, the exact diagonal on a dense Jacobian; noslip
/// after any of them on a dense Jacobian.
fn solver_in_scope(m: &Model, what: &str) -> Result<(), NativeError> {
    use specula_model::types::Jacobian;
    let opt = &m.opt;
    let sparse = opt.jacobian == Jacobian::Sparse || (opt.jacobian == Jacobian::Auto && m.nv >= 60);
    let why = [
        (opt.noslip_iterations > 0 && sparse, "noslip on a sparse Jacobian (a sparse efc_AR)"),
        (opt.enableflags & ENBL_DIAGEXACT != 0 && sparse, "the exact diagonal on a sparse Jacobian (a sparse efc_Y)"),
    ];
    match why.iter().find(|w| w.0) {
        Some(&(_, needs)) => unsupported(format!("{what} with solver {:?}", opt.solver), needs),
        None => Ok(()),
    }
}
