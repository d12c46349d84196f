//! What the native route steps, and the typed refusal of everything else: a model outside the
//! rigid, constraint-free subset is refused before stepping, with what is missing named.

use specula_model::types::{Integrator, JointType};
use specula_model::Model;
use thiserror::Error;

/// `mjDSBL_CONSTRAINT`.
pub(crate) const DSBL_CONSTRAINT: u32 = 1;
/// `mjDSBL_EQUALITY`.
const DSBL_EQUALITY: u32 = 2;
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
/// `mjDSBL_FILTERPARENT`.
const DSBL_FILTERPARENT: u32 = 1024;
/// `mjENBL_SLEEP | mjENBL_IPC`: enable flags that change the smooth step.
const ENBL_REFUSED: u32 = 16 | 64;

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
}

fn unsupported(what: impl Into<String>, needs: &'static str) -> Result<(), NativeError> {
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
/// can change the step: a non-zero `springyield` (plasticity: MuJoCo then moves the spring's
/// reference, `jnt_plasticadr`), on a joint or in a default; and engine plugins (`<plugin>`
/// anywhere: their passive forces, sensors and actuators).
pub fn check_mjcf(root: &specula_model::xml::Element) -> Result<(), NativeError> {
    if root.name == "plugin" {
        unsupported(
            format!("<plugin> ({}:{})", root.pos.line, root.pos.col),
            "engine plugins, which specula's compiler reads but does not compile",
        )?;
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

/// A free joint alone on its body in a tree of exactly six dofs: `implicitfast` corrects such a
/// body's acceleration with a 6x6 solve of its own (`docs/measurements.md` K8).
fn lone_free_joint(m: &Model) -> Option<usize> {
    (0..m.njnt).find(|&j| {
        let b = m.jnt_bodyid[j];
        m.jnt_type[j] == JointType::Free && m.body_jntnum[b] == 1 && m.tree_dofnum[m.dof_treeid[m.jnt_dofadr[j]]] == 6
    })
}

/// Refuses a model outside the native route's subset: Euler or implicitfast integration of a rigid tree with
/// joint springs and dampers, gravity and applied joint forces, and no constraint that can
/// become active.
pub fn check(m: &Model) -> Result<(), NativeError> {
    let flags = m.opt.disableflags;
    let constraints = flags & DSBL_CONSTRAINT == 0;
    match m.opt.integrator {
        Integrator::Euler => {}
        Integrator::ImplicitFast => {
            if let Some(j) = lone_free_joint(m) {
                unsupported(
                    format!("implicitfast with the lone free body of joint {j}"),
                    "implicitfast's 6x6 correction of lone free bodies",
                )?;
            }
        }
        other => unsupported(format!("integrator {other:?}"), "the RK4, implicit and discrete integrators")?,
    }
    if m.opt.enableflags & ENBL_REFUSED != 0 {
        unsupported(format!("enable flags {:#x}", m.opt.enableflags & ENBL_REFUSED), "sleep and IPC")?;
    }
    crate::actuation::check(m)?;
    if m.ntendon > 0 {
        unsupported(format!("{} tendons", m.ntendon), "tendon parameters in specula's compiler")?;
    }
    if m.nsensor > 0 {
        unsupported(format!("{} sensors", m.nsensor), "sensor parameters in specula's compiler")?;
    }
    if m.neq > 0 && constraints && flags & DSBL_EQUALITY == 0 {
        unsupported(format!("{} equality constraints", m.neq), "equality parameters and the constraint solver")?;
    }
    if let Some(b) = m.body_gravcomp.iter().position(|&g| g != 0.0) {
        unsupported(format!("gravity compensation on body {b}"), "gravity compensation in mj_passive")?;
    }
    if m.opt.density != 0.0 || m.opt.viscosity != 0.0 {
        unsupported("fluid forces (density or viscosity)", "the fluid model in mj_passive")?;
    }
    if constraints && flags & DSBL_LIMIT == 0 {
        if let Some(j) = m.jnt_limited.iter().position(|&l| l) {
            unsupported(
                format!("joint limit on joint {j} ({})", m.jnt_names[j]),
                "limit rows and the constraint solver",
            )?;
        }
    }
    if constraints && flags & DSBL_FRICTIONLOSS == 0 {
        if let Some(d) = m.dof_frictionloss.iter().position(|&f| f > 0.0) {
            unsupported(format!("friction loss on dof {d}"), "friction rows and the constraint solver")?;
        }
    }
    if constraints && flags & DSBL_CONTACT == 0 {
        if m.npair > 0 {
            unsupported(format!("{} explicit contact pairs", m.npair), "collision and the constraint solver")?;
        }
        if let Some((g1, g2)) = colliding_pair(m) {
            unsupported(format!("contacts (geoms {g1} and {g2} can collide)"), "collision and the constraint solver")?;
        }
    }
    Ok(())
}
