//! `mj_forward` and `mj_step` (Euler, implicitfast, implicit, RK4) stage by stage on the engine's code:
//! kinematics, comPos, crb, factorM, collision, makeConstraint, island, comVel, passive,
//! referenceConstraint, rne, transmission and fwdActuation ([`crate::actuation`]),
//! fwdAcceleration, fwdConstraint (no rows: `qacc = qacc_smooth`; rows: the Newton or PGS
//! solver), then the Euler step with implicit joint damping, `implicitfast`, `implicit`
//! (`implicit.rs`) or RK4 (`rk4.rs`) and the advance (`docs/measurements.md` N5 to
//! N11, K13).

use specula_engine::dynamics::solver::without_rows;
use specula_engine::dynamics::{
    com_pos, com_vel, crb, factor_m, fwd_acceleration, rne, ComOutput, PoseInput, RneInput, SmoothForces,
};
use specula_engine::kinematics::{kinematics_into, KinematicsState, PoseOutput};
use specula_model::types::Integrator;

use crate::collision::collision;
use crate::constraint::{arena_check, fwd_constraint, island, make_constraint, project_exact, reference};
use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::{NativeError, DSBL_GRAVITY};

/// MuJoCo's `mjMAXVAL`: larger state values count as diverged.
const MAXVAL: f64 = 1e10;

/// The first entry of `v` that is NaN or beyond `mjMAXVAL` (`mj_checkPos` and friends).
fn check(field: &'static str, v: &[f64]) -> Result<(), NativeError> {
    match v.iter().position(|x| x.is_nan() || x.abs() > MAXVAL) {
        Some(index) => Err(NativeError::BadState { field, index, value: v[index] }),
        None => Ok(()),
    }
}

/// `mj_kinematics`, `mj_comPos` and `mj_tendon`: world frames, subtree centres of mass,
/// `cinert`, `cdof`, tendon lengths and Jacobians.
pub(crate) fn position(nm: &NativeModel, d: &mut Data) {
    let state = KinematicsState { qpos: &d.qpos, mocap_pos: &d.mocap_pos, mocap_quat: &d.mocap_quat };
    let mut out = PoseOutput {
        xpos: &mut d.xpos,
        xquat: &mut d.xquat,
        xmat: &mut d.xmat,
        xipos: &mut d.xipos,
        xiquat: &mut d.xiquat,
        ximat: &mut d.ximat,
        xanchor: &mut d.xanchor,
        xaxis: &mut d.xaxis,
        geom_xpos: &mut d.geom_xpos,
        geom_xquat: &mut d.geom_xquat,
        geom_xmat: &mut d.geom_xmat,
        site_xpos: &mut d.site_xpos,
        site_xquat: &mut d.site_xquat,
        site_xmat: &mut d.site_xmat,
    };
    kinematics_into(&nm.kinematics(), &state, &mut out);
    let pose = PoseInput { xmat: &d.xmat, xipos: &d.xipos, ximat: &d.ximat, xanchor: &d.xanchor, xaxis: &d.xaxis };
    let mut com = ComOutput { subtree_com: &mut d.subtree_com, cinert: &mut d.cinert, cdof: &mut d.cdof };
    com_pos(&nm.tree(), &pose, &mut com);
    crate::tendon::tendon_step(nm, d);
}

/// `mj_forward` on the native subset (the caller checked the model with
/// [`crate::scope::check`], which [`crate::Native::new`] does).
pub fn forward(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    crate::asleep::check(nm, d)?;
    check("qpos", &d.qpos)?;
    check("qvel", &d.qvel)?;
    forward_skip(nm, d)?;
    crate::sensor::sensors(nm, d);
    check("qacc", &d.qacc)
}

/// [`forward`] without the state checks (`mj_forwardSkip`, which RK4's stages call: a stage
/// state beyond `mjMAXVAL` is not a warning there).
pub(crate) fn forward_skip(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let tree = nm.tree();
    // position: poses, com frames, the inertia and its factor
    let woke = crate::asleep::wake(nm, d)?;
    position(nm, d);
    if woke {
        d.sleep.update(&nm.model);
    }
    crate::asleep::subtree_com(nm, d);
    crb(&tree, &d.cinert, &d.cdof, &mut d.crb, &mut d.m);
    crate::tendon_armature::add(nm, &tree, &d.tendon.ten_j, &mut d.m);
    factor_m(&tree, &d.m, &mut d.qld, &mut d.qld_diag_inv);
    // contacts and constraint rows, their islands
    collision(nm, d)?;
    if crate::asleep::wake_collision(nm, d) {
        // the woken trees' contacts with the world and each other, skipped while asleep
        d.sleep.update(&nm.model);
        collision(nm, d)?;
    }
    make_constraint(nm, d);
    arena_check(nm, d)?;
    island(nm, d)?;
    project_exact(nm, d);
    forward_velocity(nm, d)
}

/// The velocity and acceleration stages of [`forward_skip`] (`mj_forwardSkip` from
/// `mjSTAGE_POS`, without the sensors): body velocities, passive and bias forces, actuation,
/// the smooth acceleration and the constraint solve.
pub(crate) fn forward_velocity(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let tree = nm.tree();
    // velocity: body velocities, passive forces, bias forces
    com_vel(&tree, &d.cdof, &d.qvel, &mut d.cvel, &mut d.cdof_dot);
    crate::tendon::tendon_velocity(nm, &d.qvel, &mut d.tendon);
    crate::passive::passive(nm, d);
    reference(nm, d);
    let opt = &nm.model.opt;
    let input = RneInput {
        qvel: &d.qvel,
        qacc: &d.qacc,
        cinert: &d.cinert,
        cvel: &d.cvel,
        cdof: &d.cdof,
        cdof_dot: &d.cdof_dot,
        gravity: (opt.disableflags & DSBL_GRAVITY == 0).then_some(opt.gravity),
    };
    rne(&tree, &input, false, &mut d.rne, &mut d.qfrc_bias);
    crate::tendon_armature::bias(nm, d);
    crate::actuation::forward_actuation(nm, d);
    let f = SmoothForces {
        qfrc_passive: &d.qfrc_passive,
        qfrc_bias: &d.qfrc_bias,
        qfrc_applied: &d.qfrc_applied,
        qfrc_actuator: &d.qfrc_actuator,
    };
    fwd_acceleration(&tree, &f, &d.qld, &d.qld_diag_inv, &mut d.qfrc_smooth, &mut d.qacc_smooth);
    if d.efc.nefc == 0 {
        // no constraint rows: the acceleration is the smooth one (D13)
        without_rows(&d.qacc_smooth, &mut d.qacc, &mut d.qfrc_constraint, &mut d.solver_niter);
    } else {
        fwd_constraint(nm, d)?;
    }
    Ok(())
}

/// `mj_step`: [`forward`], then the semi-implicit Euler step (implicit in joint damping),
/// `implicitfast` (implicit in the damping's velocity derivative and the actuators' velocity
/// terms), `implicit` (the bias forces' derivative too) or RK4, and the advance of velocities,
/// positions and time.
pub fn step(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    forward(nm, d)?;
    if nm.model.opt.integrator == Integrator::Rk4 {
        return crate::rk4::rk4(nm, d);
    }
    // with only asleep dofs damped, mj_Euler advances by qacc itself
    let explicit = crate::asleep::euler_explicit(nm, d)?;
    if explicit {
        d.euler_qacc.copy_from_slice(&d.qacc);
    }
    if crate::sleep::count(nm, d) {
        crate::sleep::save(d);
        if !explicit {
            crate::implicit::integrate(nm, d);
        }
        // the acceleration the integrator advanced by
        let acc = std::mem::take(&mut d.euler_qacc);
        let result = crate::sleep::fall_asleep(nm, d, &acc, None);
        d.euler_qacc = acc;
        return result;
    }
    if crate::asleep::any(nm, d) {
        crate::asleep::keep(d);
        if explicit {
            let acc = std::mem::take(&mut d.euler_qacc);
            crate::asleep::advance(nm, d, &acc, None);
            d.euler_qacc = acc;
        } else {
            crate::implicit::integrate(nm, d);
            crate::asleep::restore(nm, d);
        }
        return Ok(());
    }
    crate::implicit::integrate(nm, d);
    Ok(())
}
