//! [`Data`]: MuJoCo's `mjData` arrays for the native subset, in its layout and
//! under its names, owned by Rust.

use specula_engine::collision::CollisionStage;
use specula_engine::dynamics::constraint::Contact;
use specula_engine::dynamics::RneScratch;

use crate::constraint::Efc;

use crate::model::NativeModel;

/// The simulation state and every intermediate array the native step writes (MuJoCo's names).
#[derive(Debug, Default)]
pub struct Data {
    /// Simulation time.
    pub time: f64,
    /// Joint positions (`nq`).
    pub qpos: Vec<f64>,
    /// Joint velocities (`nv`).
    pub qvel: Vec<f64>,
    /// Activations (none on this route).
    pub act: Vec<f64>,
    /// Activation rates (none on this route).
    pub act_dot: Vec<f64>,
    /// Controls and the actuator stages' arrays.
    pub actuation: crate::actuation::ActuatorData,
    /// Applied joint forces, an input the caller sets.
    pub qfrc_applied: Vec<f64>,
    /// Mocap body positions (`3 nmocap`).
    pub mocap_pos: Vec<f64>,
    /// Mocap body orientations (`4 nmocap`).
    pub mocap_quat: Vec<f64>,
    /// Joint accelerations of the forward pass (`nv`).
    pub qacc: Vec<f64>,
    /// The last step's acceleration, the solver's warm start (`nv`).
    pub qacc_warmstart: Vec<f64>,
    /// Body positions (`3 nbody`).
    pub xpos: Vec<f64>,
    /// Body orientations (`4 nbody`).
    pub xquat: Vec<f64>,
    /// Body orientation matrices (`9 nbody`).
    pub xmat: Vec<f64>,
    /// Inertial frame positions (`3 nbody`).
    pub xipos: Vec<f64>,
    /// Inertial frame orientations (`4 nbody`).
    pub xiquat: Vec<f64>,
    /// Inertial frame matrices (`9 nbody`).
    pub ximat: Vec<f64>,
    /// Joint anchors (`3 njnt`).
    pub xanchor: Vec<f64>,
    /// Joint axes (`3 njnt`).
    pub xaxis: Vec<f64>,
    /// Geom positions (`3 ngeom`).
    pub geom_xpos: Vec<f64>,
    /// Geom orientations (`4 ngeom`).
    pub geom_xquat: Vec<f64>,
    /// Geom matrices (`9 ngeom`).
    pub geom_xmat: Vec<f64>,
    /// Site positions (`3 nsite`).
    pub site_xpos: Vec<f64>,
    /// Site orientations (`4 nsite`).
    pub site_xquat: Vec<f64>,
    /// Site matrices (`9 nsite`).
    pub site_xmat: Vec<f64>,
    /// Subtree centres of mass (`3 nbody`).
    pub subtree_com: Vec<f64>,
    /// Com-based body inertias (`10 nbody`).
    pub cinert: Vec<f64>,
    /// Dof motion axes about the tree's centre of mass (`6 nv`).
    pub cdof: Vec<f64>,
    /// Composite rigid-body inertias (`10 nbody`).
    pub crb: Vec<f64>,
    /// The joint-space inertia in the reduced row-sparse layout (`mjData.M`, `nC`).
    pub m: Vec<f64>,
    /// `L'DL` factor of `m` (`nC`).
    pub qld: Vec<f64>,
    /// `1 / D` of that factor (`nv`).
    pub qld_diag_inv: Vec<f64>,
    /// Com-based body velocities (`6 nbody`).
    pub cvel: Vec<f64>,
    /// Time derivatives of `cdof` (`6 nv`).
    pub cdof_dot: Vec<f64>,
    /// Joint spring forces (`nv`).
    pub qfrc_spring: Vec<f64>,
    /// Joint damper forces (`nv`).
    pub qfrc_damper: Vec<f64>,
    /// Gravity compensation (`nv`).
    pub qfrc_gravcomp: Vec<f64>,
    /// Fluid forces (`nv`).
    pub qfrc_fluid: Vec<f64>,
    /// Adhesion forces (zero on this route, `nv`).
    pub qfrc_adhesion: Vec<f64>,
    /// Total passive forces (`nv`).
    pub qfrc_passive: Vec<f64>,
    /// Bias forces: Coriolis, centrifugal, gravity (`nv`).
    pub qfrc_bias: Vec<f64>,
    /// Actuator forces (zero on this route, `nv`).
    pub qfrc_actuator: Vec<f64>,
    /// Sum of the smooth forces (`nv`).
    pub qfrc_smooth: Vec<f64>,
    /// Unconstrained acceleration (`nv`).
    pub qacc_smooth: Vec<f64>,
    /// Constraint forces (zero on this route, `nv`).
    pub qfrc_constraint: Vec<f64>,
    /// Solver iterations per island (`mjNISLAND`; always 0 here).
    pub solver_niter: Vec<i32>,
    /// `M + h B` (Euler) or `M - h qDeriv` (implicitfast), factorised in place (`nC`).
    pub qh: Vec<f64>,
    /// `1 / D` of the factor of `qh` (`nv`).
    pub qh_diag_inv: Vec<f64>,
    /// The velocity derivative of the smooth forces (`implicitfast`, `nD`).
    pub qderiv: Vec<f64>,
    /// `M - h qDeriv` on the `D` pattern and its LU factor (`implicit`, `nD`).
    pub qlu: Vec<f64>,
    /// The contacts of the last collision, as the engine's collision stage lists them.
    pub collided: Vec<specula_engine::contact::Contact>,
    /// The same contacts as `mjData.contact` holds them after `mj_makeConstraint`
    /// (`efc_address`, `exclude`, `mu` set).
    pub contacts: Vec<Contact>,
    /// The constraint rows, islands and solver outputs.
    pub efc: Efc,
    /// The tendon lengths, Jacobian and first rows.
    pub tendon: crate::tendon::TendonData,
    /// `sensordata` and what sensors compute on the way.
    pub sensor: crate::sensor::SensorData,
    /// The collision stage's buffers.
    pub(crate) collider: CollisionStage,
    /// `mj_rne`'s work arrays.
    pub(crate) rne: RneScratch,
    /// Whether each equality is active (`neq`; `eq_active0` at reset).
    pub eq_active: Vec<u8>,
    /// The equality stages' buffers.
    pub(crate) equality: crate::equality::EqualityBuffers,
    /// The acceleration the Euler step integrates (`nv`).
    pub(crate) euler_qacc: Vec<f64>,
    /// The force `implicitfast` solves for (`nv`).
    pub(crate) implicit_qfrc: Vec<f64>,
    /// RK4's stage vectors.
    pub(crate) rk4: crate::rk4::Rk4Scratch,
    /// The `implicit` integrator's derivative and factor scratch.
    pub(crate) implicit_full: specula_engine::dynamics::implicit_full::FullImplicitScratch,
    /// `mj_passive`'s buffers.
    pub(crate) passive: crate::passive::PassiveData,
    /// The trees' sleep state and the awake lists.
    pub sleep: crate::sleep::SleepData,
}

impl Data {
    /// Data for `nm` at its reset state (`mj_resetData`): `qpos0`, zero velocities and forces,
    /// mocap bodies at their model poses.
    pub fn new(nm: &NativeModel) -> Data {
        let m = &nm.model;
        let (nv, nbody, njnt) = (m.nv, m.nbody, m.njnt);
        let (ngeom, nsite, nc) = (m.ngeom, m.nsite, nm.layout.m.nnz());
        let mut mocap_pos = vec![0.0; 3 * m.nmocap];
        let mut mocap_quat = vec![0.0; 4 * m.nmocap];
        for b in 0..nbody {
            if let Ok(id) = usize::try_from(m.body_mocapid[b]) {
                mocap_pos[3 * id..3 * id + 3].copy_from_slice(&m.body_pos[b]);
                mocap_quat[4 * id..4 * id + 4].copy_from_slice(&m.body_quat[b]);
            }
        }
        let z = |n: usize| vec![0.0; n];
        Data {
            time: 0.0,
            qpos: m.qpos0.clone(),
            qvel: z(nv),
            act: z(m.na),
            act_dot: z(m.na),
            actuation: crate::actuation::ActuatorData::new(m),
            qfrc_applied: z(nv),
            mocap_pos,
            mocap_quat,
            qacc: z(nv),
            qacc_warmstart: z(nv),
            xpos: z(3 * nbody),
            xquat: z(4 * nbody),
            xmat: z(9 * nbody),
            xipos: z(3 * nbody),
            xiquat: z(4 * nbody),
            ximat: z(9 * nbody),
            xanchor: z(3 * njnt),
            xaxis: z(3 * njnt),
            geom_xpos: z(3 * ngeom),
            geom_xquat: z(4 * ngeom),
            geom_xmat: z(9 * ngeom),
            site_xpos: z(3 * nsite),
            site_xquat: z(4 * nsite),
            site_xmat: z(9 * nsite),
            subtree_com: z(3 * nbody),
            cinert: z(10 * nbody),
            cdof: z(6 * nv),
            crb: z(10 * nbody),
            m: z(nc),
            qld: z(nc),
            qld_diag_inv: z(nv),
            cvel: z(6 * nbody),
            cdof_dot: z(6 * nv),
            qfrc_spring: z(nv),
            qfrc_damper: z(nv),
            qfrc_gravcomp: z(nv),
            qfrc_fluid: z(nv),
            qfrc_adhesion: z(nv),
            qfrc_passive: z(nv),
            qfrc_bias: z(nv),
            qfrc_actuator: z(nv),
            qfrc_smooth: z(nv),
            qacc_smooth: z(nv),
            qfrc_constraint: z(nv),
            solver_niter: vec![0; specula_engine::dynamics::solver::NISLAND],
            qh: z(nc),
            qh_diag_inv: z(nv),
            qderiv: z(nm.layout.d.nnz()),
            qlu: z(nm.layout.d.nnz()),
            collided: Vec::new(),
            contacts: Vec::new(),
            efc: Efc::default(),
            tendon: crate::tendon::TendonData::new(m),
            sensor: crate::sensor::SensorData::new(m),
            collider: CollisionStage::new(),
            rne: RneScratch::default(),
            eq_active: m.eq_active0.clone(),
            equality: Default::default(),
            euler_qacc: z(nv),
            implicit_qfrc: z(nv),
            rk4: crate::rk4::Rk4Scratch::new(m.nq, nv, m.na, m.nactuator),
            implicit_full: Default::default(),
            passive: Default::default(),
            sleep: crate::sleep::SleepData::new(m),
        }
    }
}
