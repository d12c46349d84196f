//! `mj_fwdConstraint` in Rust inside MuJoCo's step (`docs/measurements.md` D13 onward): the view
//! of MuJoCo's data that `specula_engine::dynamics::solver` reads and writes, the function's
//! timer, and the calls left to the library, each with its reason.

use std::cell::RefCell;

use mujoco_sys as sys;
use specula_engine::dynamics::arena::Arena;
use specula_engine::dynamics::solver::frame::{
    solve, FrameInput, FrameModel, FrameOutput, FrameScratch, Islands, NeedsIterations, Primal,
};
use specula_engine::dynamics::solver::monolithic::{solve_monolithic, MonolithicScratch};
use specula_engine::dynamics::solver::update::{Cone, Rows};
use specula_engine::dynamics::solver::{self, NISLAND};

use super::fields::Field;
use super::reference::jacobian;
use super::{byte, slice, slice_mut, Fallback};

/// `mjSOL_PGS`, `mjSOL_CG`, `mjSOL_NEWTON`.
const SOL_PGS: i32 = 0;
const SOL_CG: i32 = 1;
const SOL_NEWTON: i32 = 2;

thread_local! {
    /// The call's outputs and work arrays (reused from call to call).
    static SCRATCH: RefCell<(FrameScratch, FrameOutput, Vec<Cone>)> = RefCell::default();
    /// The one island of the path without islands (D69).
    static MONOLITHIC: RefCell<MonolithicScratch> = RefCell::default();
}

/// Whether the call takes the island path (D13's test; otherwise one problem over all rows).
fn uses_islands(m: &sys::mjModel, d: &sys::mjData) -> bool {
    let opt = &m.opt;
    opt.disableflags & sys::mjDSBL_ISLAND as i32 == 0 && d.nisland > 0 && opt.enableflags & sys::mjENBL_IPC as i32 == 0
}

/// Why `mj_fwdConstraint` must stay MuJoCo's for this model and state, if it must (D13, D16):
/// with the effective metric on the discrete integrator the library corrects the smooth force for
/// gyroscopic terms after every call (`mj_discreteGyro`); with rows, PGS as `solver_pgs.rs`
/// says, and everything else but the Newton and CG solvers over islands or over all rows at once
/// (D69; pyramidal or elliptic, dense or sparse Jacobian, noslip after them included), without the effective metric or the
/// thread pool's locked stack, and, there, on a sparse Jacobian of a model with flexes the calls
/// where some island's (or the one problem's) Hessian 4.0.0 may reorder (found by running the
/// call on copies; Newton iterates in Rust on both Jacobians, D18 to D21, D53 to D56, D82 to
/// D84; CG on both, D30). A solver number outside 0 to 2 the library reports and skips.
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    let opt = &m.opt;
    if opt.integrator == sys::mjINT_DISCRETE as i32 && d.efm_active != 0 {
        return Some(Fallback::EffectiveMetric);
    }
    if d.nefc == 0 {
        return None;
    }
    if opt.solver == SOL_PGS {
        return super::solver_pgs::out_of_scope(m, d);
    }
    // SAFETY: the flag's byte (any value but 0 takes the locked path).
    let locked = unsafe { byte(&raw const d.threadlock) } != 0;
    let why = [
        (opt.solver != SOL_NEWTON && opt.solver != SOL_CG, Fallback::SolverUnknown),
        (d.efm_active != 0, Fallback::EffectiveMetric),
        (locked, Fallback::ThreadLock),
    ];
    if let Some(w) = why.iter().find(|w| w.0) {
        return Some(w.1);
    }
    SCRATCH.with(|s| {
        let (scratch, out, cones) = &mut *s.borrow_mut();
        if let Err(why) = run(m, d, scratch, out, cones) {
            return Some(why);
        }
        replay(d, out).err().map(|_| Fallback::StackFull)
    })
}

/// The call's stack frames replayed on a copy of `d`'s counters: the island frames, the sparse
/// Hessians' peaks (D55) and noslip's.
fn replay(d: &sys::mjData, out: &FrameOutput) -> Result<Arena, specula_engine::dynamics::arena::StackOverflow> {
    let mut arena = super::solver_noslip::replay(d, &out.frames)?;
    for f in &out.peaks {
        arena.frame(f)?;
    }
    // room tests on a copy: they must fit, and leave no mark
    for f in &out.stack_tests {
        let mut copy = arena;
        copy.frame(f)?;
    }
    Ok(arena)
}

/// The solver frame's view of the model: the inertia's pattern and the solver options.
pub(super) fn frame_model(m: &sys::mjModel) -> FrameModel<'_> {
    let (nv, nc) = (m.nv as usize, m.nC as usize);
    // SAFETY: mjModel's arrays of their documented lengths, read only.
    unsafe {
        FrameModel {
            m_rownnz: slice(m.M_rownnz, nv),
            m_rowadr: slice(m.M_rowadr, nv),
            m_colind: slice(m.M_colind, nc),
            tolerance: m.opt.tolerance,
            warmstart: m.opt.disableflags & sys::mjDSBL_WARMSTART as i32 == 0,
            ls_tolerance: m.opt.ls_tolerance,
            iterations: m.opt.iterations,
            ls_iterations: m.opt.ls_iterations,
            elliptic: m.opt.cone == sys::mjCONE_ELLIPTIC as i32,
            primal: if m.opt.solver == SOL_CG { Primal::Cg } else { Primal::Newton },
            flexes: m.nflex > 0,
        }
    }
}

/// The solver frame's view of the data: the inertia, the smooth forces and accelerations, the
/// rows and the islands (`cones`: the contacts' cones, in contact order).
///
/// # Safety
/// `m` and `d` are MuJoCo's model and data for a state with rows; nothing writes them while the
/// view lives.
pub(super) unsafe fn frame_input<'a>(m: &'a sys::mjModel, d: &'a sys::mjData, cones: &'a [Cone]) -> FrameInput<'a> {
    let (nv, nc, nefc) = (m.nv as usize, m.nC as usize, d.nefc.max(0) as usize);
    let nisland = d.nisland.max(0) as usize;
    // the maps and island rows exist when mj_island made islands
    let (inv, iefc) = if nisland > 0 { (nv, nefc) } else { (0, 0) };
    // SAFETY: mjModel's and mjData's arrays of their documented lengths (the island arrays of
    // nisland, nv and nefc entries), read only.
    unsafe {
        let rows = |ne: i32, nf: i32, dd, r, fl, ty, id, n| Rows {
            ne: ne.max(0) as usize,
            nf: nf.max(0) as usize,
            d: slice(dd, n),
            r: slice(r, n),
            frictionloss: slice(fl, n),
            efc_type: slice(ty, n),
            efc_id: slice(id, n),
            contacts: cones,
        };
        let islands = Islands {
            nidof: d.nidof.max(0) as usize,
            nv: slice(d.island_nv, nisland),
            idofadr: slice(d.island_idofadr, nisland),
            ne: slice(d.island_ne, nisland),
            nf: slice(d.island_nf, nisland),
            nefc: slice(d.island_nefc, nisland),
            iefcadr: slice(d.island_iefcadr, nisland),
            idof2dof: slice(d.map_idof2dof, inv),
            iefc2efc: slice(d.map_iefc2efc, iefc),
            efc2iefc: slice(d.map_efc2iefc, iefc),
            rows: rows(0, 0, d.iefc_D, d.iefc_R, d.iefc_frictionloss, d.iefc_type, d.iefc_id, iefc),
        };
        FrameInput {
            mass: slice(d.M, nc),
            qld: slice(d.qLD, nc),
            qld_diag_inv: slice(d.qLDiagInv, nv),
            qfrc_smooth: slice(d.qfrc_smooth, nv),
            qacc_smooth: slice(d.qacc_smooth, nv),
            qacc_warmstart: slice(d.qacc_warmstart, nv),
            j: jacobian(m, d),
            aref: slice(d.efc_aref, nefc),
            rows: rows(d.ne, d.nf, d.efc_D, d.efc_R, d.efc_frictionloss, d.efc_type, d.efc_id, nefc),
            islands,
        }
    }
}

/// The call on MuJoCo's data, into `out` (nothing of MuJoCo's is written); the reason when it
/// must stay the library's.
fn run(
    m: &sys::mjModel,
    d: &sys::mjData,
    scratch: &mut FrameScratch,
    out: &mut FrameOutput,
    cones: &mut Vec<Cone>,
) -> Result<(), Fallback> {
    let nefc = d.nefc.max(0) as usize;
    cones.clear();
    // SAFETY: the ncon contacts at d->contact.
    let con = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
    cones.extend(con.iter().map(|c| Cone { mu: c.mu, friction: c.friction, dim: c.dim }));
    out.contact_h.clear();
    out.contact_h.extend(con.iter().map(|c| c.H));
    let fm = frame_model(m);
    // SAFETY: the caller's model and data.
    let inp = unsafe { frame_input(m, d, cones) };
    // without warm start efc_state keeps MuJoCo's values
    // SAFETY: efc_state has nefc entries.
    out.efc_state.clear();
    out.efc_state.extend_from_slice(unsafe { slice(d.efc_state, nefc) });
    let islands = uses_islands(m, d);
    if islands {
        solve(&fm, &inp, scratch, out)
    } else {
        MONOLITHIC.with(|ms| solve_monolithic(&fm, &inp, scratch, &mut ms.borrow_mut(), out))
    }
    .map_err(|NeedsIterations| Fallback::SolverNewton)?;
    // noslip after the Newton or CG solver (island by island, or over all rows)
    let nm = super::solver_noslip::model(m, islands);
    let ar = (!d.efc_AR.is_null()).then(|| super::solver_pgs::ar(m, d));
    super::solver_noslip::after_solver(&fm, &nm, &inp, ar.as_ref(), out.noslip_parts()).map_err(|_| Fallback::SolverPgs)
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_fwdConstraint` (a state the scope test
/// let through), timed as the library times it (`mjTIMER_CONSTRAINT`).
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let t0 = super::clock();
    let nv = m.nv as usize;
    if d.nefc == 0 {
        // SAFETY: mjData's arrays of nv entries; qacc and qfrc_constraint are written only here.
        let (qacc_smooth, qacc, qfrc_constraint) =
            unsafe { (slice(d.qacc_smooth, nv), slice_mut(d.qacc, nv), slice_mut(d.qfrc_constraint, nv)) };
        solver::without_rows(qacc_smooth, qacc, qfrc_constraint, &mut d.solver_niter[..NISLAND]);
    } else if m.opt.solver == SOL_PGS {
        super::solver_pgs::replace(m, d);
    } else {
        SCRATCH.with(|s| {
            let (scratch, out, cones) = &mut *s.borrow_mut();
            // the scope test ran the same call: it succeeds
            if run(m, d, scratch, out, cones).is_ok() {
                if let Ok(arena) = replay(d, out) {
                    commit(d, out, &arena, uses_islands(m, d));
                }
            }
        });
    }
    let t = &mut d.timer[sys::mjTIMER_CONSTRAINT as usize];
    t.duration += super::clock() - t0;
    t.number += 1;
}

/// Writes the call's outputs into MuJoCo's data.
fn commit(d: &mut sys::mjData, out: &FrameOutput, arena: &Arena, islands: bool) {
    let copy = |p: *mut f64, v: &[f64]| {
        // SAFETY: an mjData array of at least v.len() entries, distinct from `out`.
        unsafe { slice_mut(p, v.len()) }.copy_from_slice(v);
    };
    copy(d.qfrc_constraint, &out.qfrc_constraint);
    copy(d.qacc, &out.qacc);
    copy(d.efc_b, &out.efc_b);
    copy(d.efc_force, &out.efc_force);
    // SAFETY: as above, for the state array.
    unsafe { slice_mut(d.efc_state, out.efc_state.len()) }.copy_from_slice(&out.efc_state);
    if islands {
        // the island copies exist only when mj_island made islands, and only that path writes them
        copy(d.ifrc_smooth, &out.ifrc_smooth);
        copy(d.ifrc_constraint, &out.ifrc_constraint);
        copy(d.iacc_smooth, &out.iacc_smooth);
        copy(d.iacc, &out.iacc);
        copy(d.iefc_force, &out.iefc_force);
        copy(d.iefc_aref, &out.iefc_aref);
        // SAFETY: as above.
        unsafe { slice_mut(d.iefc_state, out.iefc_state.len()) }.copy_from_slice(&out.iefc_state);
    }
    d.solver_niter[..NISLAND].copy_from_slice(&out.solver_niter);
    // (without islands the one problem's statistics are island 0's)
    let n = if islands { (d.nisland.max(0) as usize).min(NISLAND) } else { 1 };
    d.solver_nnz[..n].copy_from_slice(&out.solver_nnz[..n]);
    for &(k, s) in &out.stats {
        let t = &mut d.solver[k];
        (t.improvement, t.gradient, t.lineslope) = (s.improvement, s.gradient, s.lineslope);
        (t.nactive, t.nchange, t.neval, t.nupdate) = (s.nactive, s.nchange, s.neval, s.nupdate);
    }
    // the cone Hessians (written for the contacts on the cone, the others as they were)
    // SAFETY: the ncon contacts at d->contact, distinct from `out`.
    for (c, h) in unsafe { slice_mut(d.contact, out.contact_h.len()) }.iter_mut().zip(&out.contact_h) {
        c.H = *h;
    }
    d.maxuse_stack = arena.maxuse_stack as i64;
    d.maxuse_arena = arena.maxuse_arena as i64;
}

/// The arrays `mj_fwdConstraint` writes outside the `mjData` struct (whose statistics and timer
/// the in-place comparison checks byte by byte), read after it ran.
pub(super) fn outputs(m: &sys::mjModel, d: &sys::mjData) -> Vec<Field> {
    let (nv, nefc) = (m.nv as usize, d.nefc.max(0) as usize);
    let mut out = Vec::new();
    if nefc > 0 {
        out.push(Field::f64("efc_b", d.efc_b, nefc));
        out.push(Field::i32("efc_state", d.efc_state, nefc));
        out.push(Field::f64("efc_force", d.efc_force, nefc));
    }
    if nefc > 0 && d.nisland > 0 {
        // the island copies the solvers work on (placed by mj_island in the arena)
        let nidof = d.nidof.max(0) as usize;
        out.push(Field::f64("ifrc_smooth", d.ifrc_smooth, nidof));
        out.push(Field::f64("ifrc_constraint", d.ifrc_constraint, nidof));
        out.push(Field::f64("iacc_smooth", d.iacc_smooth, nidof));
        out.push(Field::f64("iacc", d.iacc, nidof));
        out.push(Field::f64("iefc_aref", d.iefc_aref, nefc));
        out.push(Field::i32("iefc_state", d.iefc_state, nefc));
        out.push(Field::f64("iefc_force", d.iefc_force, nefc));
    }
    out.push(Field::f64("qfrc_constraint", d.qfrc_constraint, nv));
    out.push(Field::f64("qacc", d.qacc, nv));
    out
}

#[cfg(test)]
pub(super) mod tests {
    //! The solver's pieces alone against the library's exported helpers, bit for bit.
    use super::super::sparse_lib::{mju_QCQP2, mju_QCQP3, mju_mulSymVecSparse};
    use super::*;
    use crate::mj::{Data, Model};
    use specula_engine::dynamics::solver::update::constraint_update;

    /// The contacts' cone data the constraint update reads, gathered into `out` (`ncon`).
    fn cones(d: &sys::mjData, out: &mut Vec<Cone>) {
        out.clear();
        // SAFETY: the ncon contacts at d->contact.
        let con = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
        out.extend(con.iter().map(|c| Cone { mu: c.mu, friction: c.friction, dim: c.dim }));
    }

    /// The constraint rows of MuJoCo's data as the update reads them.
    fn rows<'a>(d: &'a sys::mjData, contacts: &'a [Cone]) -> Rows<'a> {
        let nefc = d.nefc.max(0) as usize;
        // SAFETY: mjData's row arrays of nefc entries, read only.
        unsafe {
            Rows {
                ne: d.ne.max(0) as usize,
                nf: d.nf.max(0) as usize,
                d: slice(d.efc_D, nefc),
                r: slice(d.efc_R, nefc),
                frictionloss: slice(d.efc_frictionloss, nefc),
                efc_type: slice(d.efc_type, nefc),
                efc_id: slice(d.efc_id, nefc),
                contacts,
            }
        }
    }

    /// Boxes on a plane (condim 1, 3, 4 and 6), a limited chain with friction loss, and a
    /// weld: every kind of row the update distinguishes.
    fn scene(cone: &str) -> String {
        let boxes: String = (0..8)
            .map(|i| {
                let condim = [1, 3, 4, 6][i % 4];
                let (x, y) = (0.25 * (i % 4) as f64 - 0.4, 0.25 * (i / 4) as f64);
                format!(
                    r#"<body pos="{x} {y} .099"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>"#
                )
            })
            .collect();
        format!(
            r#"<mujoco><option cone="{cone}" impratio="3"/><default><joint limited="true" frictionloss=".02"/></default>
            <worldbody><geom type="plane" size="5 5 .1"/>
              <body name="a" pos="0 1 .6"><joint type="hinge" axis="0 1 0" range="-20 20"/>
                <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
                <body pos=".3 0 0"><joint type="slide" axis="0 0 1" range="-.01 .01"/>
                  <geom type="sphere" size=".08"/></body></body>
              <body name="b" pos="1 1 .6"><freejoint/><geom type="sphere" size=".05"/></body>{boxes}</worldbody>
            <equality><weld body1="a" body2="b"/></equality></mujoco>"#
        )
    }

    /// Free, ball, hinge and slide joints in one branching tree, with armature.
    const TREE: &str = r#"<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom type="box" size=".1 .05 .02"/>
      <body pos=".2 0 0"><joint type="ball" armature=".01"/><geom type="capsule" size=".02 .1"/>
        <body pos=".2 0 0"><joint type="hinge" axis="0 1 1"/><geom type="sphere" size=".04"/></body>
        <body pos="0 0 -.1"><joint type="slide" axis="1 0 0" armature=".2"/><geom type="box" size=".03 .03 .03"/></body>
      </body></body></worldbody></mujoco>"#;

    /// A deterministic stream of doubles in [-1, 1) (xorshift).
    pub(crate) struct Stream(pub(crate) u64);

    impl Stream {
        /// The next double.
        pub(crate) fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// `B B' + shift I` for a random `n x k` `B`: positive definite for `k >= n` and `shift >= 0`,
    /// rank `k` (so deficient) for `k < n` and `shift = 0`.
    fn gram(s: &mut Stream, n: usize, k: usize, shift: f64) -> Vec<f64> {
        let b: Vec<f64> = (0..n * k).map(|_| s.next() * 3.0).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] =
                    (0..k).map(|c| b[i * k + c] * b[j * k + c]).sum::<f64>() + if i == j { shift } else { 0.0 };
            }
        }
        a
    }

    #[test]
    fn the_dense_cholesky_factor_is_the_librarys_mujoco() {
        use specula_engine::dynamics::solver::chol::chol_factor;
        let mut s = Stream(0x9e37_79b9_7f4a_7c15);
        let (mut full, mut deficient) = (0, 0);
        for case in 0..400 {
            let n = 1 + case % 23;
            let k = if case % 5 == 0 { n / 2 } else { n + 2 };
            let shift = if case % 5 == 0 { 0.0 } else { 1e-3 * (case % 7) as f64 };
            let a = gram(&mut s, n, k, shift);
            let mindiag = [1e-15, 1e-6, 0.5][case % 3];
            let (mut ours, mut theirs) = (a.clone(), a);
            let rank = chol_factor(&mut ours, n, mindiag);
            // SAFETY: an n x n matrix.
            let c_rank = unsafe { sys::mju_cholFactor(theirs.as_mut_ptr(), n as i32, mindiag) };
            assert_eq!(rank as i32, c_rank, "case {case}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&theirs), "case {case} (n {n})");
            if rank < n {
                deficient += 1
            } else {
                full += 1
            }
        }
        assert!(full > 100 && deficient > 50, "{full} full rank, {deficient} deficient");
    }

    #[test]
    fn the_cholesky_solve_and_update_are_the_librarys_mujoco() {
        use specula_engine::dynamics::solver::chol::{chol_factor, chol_solve, chol_update};
        let mut s = Stream(0x7e57_c401_50a1_0bad);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let (mut down, mut lost) = (0, 0);
        for case in 0..600 {
            let n = 1 + case % 14;
            let mut l = gram(&mut s, n, n + 2, 1e-3 * (case % 5) as f64);
            chol_factor(&mut l, n, 1e-15);
            let vec: Vec<f64> = (0..n).map(|k| if k % 4 == 1 { 0.0 } else { s.next() * 4.0 }).collect();
            let mut ours = vec![f64::NAN; n];
            chol_solve(&mut ours, &l, &vec);
            let mut theirs = vec![f64::NAN; n];
            // SAFETY: an n x n factor, n-vectors.
            unsafe { sys::mju_cholSolve(theirs.as_mut_ptr(), l.as_ptr(), vec.as_ptr(), n as i32) };
            assert_eq!(bits(&ours), bits(&theirs), "solve case {case}");
            // an update (plus), or a downdate that may lose rank (a large x)
            let plus = case % 2 == 0;
            let big = if case % 6 == 1 { 30.0 } else { 0.3 };
            let x: Vec<f64> = (0..n).map(|k| if k % 3 == 2 { 0.0 } else { s.next() * big }).collect();
            let (mut lo, mut xo) = (l.clone(), x.clone());
            let rank = chol_update(&mut lo, &mut xo, plus);
            let (mut lt, mut xt) = (l, x);
            // SAFETY: an n x n factor and an n-vector.
            let c = unsafe { sys::mju_cholUpdate(lt.as_mut_ptr(), xt.as_mut_ptr(), n as i32, i32::from(plus)) };
            assert_eq!((rank as i32, bits(&lo), bits(&xo)), (c, bits(&lt), bits(&xt)), "update case {case}");
            down += usize::from(!plus);
            lost += usize::from(rank < n);
        }
        assert!(down > 100 && lost > 10, "{down} downdates, {lost} lost rank");
    }

    #[test]
    fn the_dense_products_are_the_librarys_mujoco() {
        use specula_engine::dynamics::solver::products::{mul_mat_t_vec, sqr_mat_td};
        let mut s = Stream(0x0ddb_1a5e_5ca1_ab10);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for case in 0..300 {
            let (nr, nc) = (1 + case % 17, 1 + case % 13);
            // zero entries and rows, as a Jacobian and the quadratic rows' D have
            let mat: Vec<f64> = (0..nr * nc).map(|k| if k % 3 == 1 { 0.0 } else { s.next() * 5.0 }).collect();
            let diag: Vec<f64> = (0..nr).map(|k| if k % 4 == 2 { 0.0 } else { s.next().abs() * 1e3 }).collect();
            let vec: Vec<f64> = (0..nr).map(|k| if k % 5 == 3 { 0.0 } else { s.next() }).collect();
            let mut ours = vec![f64::NAN; nc];
            mul_mat_t_vec(&mut ours, &mat, &vec);
            let mut theirs = vec![f64::NAN; nc];
            // SAFETY: an nr x nc matrix, nr and nc vectors.
            unsafe { sys::mju_mulMatTVec(theirs.as_mut_ptr(), mat.as_ptr(), vec.as_ptr(), nr as i32, nc as i32) };
            assert_eq!(bits(&ours), bits(&theirs), "J'f case {case}");
            let mut ours = vec![f64::NAN; nc * nc];
            sqr_mat_td(&mut ours, &mat, &diag, nc, true);
            let mut theirs = vec![f64::NAN; nc * nc];
            // SAFETY: an nc x nc result, an nr x nc matrix, nr diagonal entries.
            unsafe { sys::mju_sqrMatTD(theirs.as_mut_ptr(), mat.as_ptr(), diag.as_ptr(), nr as i32, nc as i32) };
            assert_eq!(bits(&ours), bits(&theirs), "J'DJ case {case}");
        }
    }

    #[test]
    fn the_inertia_product_and_the_norm_are_the_librarys_mujoco() {
        use specula_engine::dynamics::solver::products::{mul_sym_vec_sparse, norm};
        let mut s = Stream(0x005e_ed0f_1e55_0000);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // the inertia of real models: branching trees, free and ball joints, armature
        for (k, xml) in [scene("pyramidal"), TREE.to_string()].iter().enumerate() {
            let model = Model::from_xml_str(xml).expect("model");
            let mut data = Data::new(&model).expect("data");
            for step in 0..20 {
                data.step().expect("step");
                data.with_mj(|m, d| {
                    let (nv, nc) = (m.nv as usize, m.nC as usize);
                    let v: Vec<f64> = (0..nv).map(|_| s.next() * 10.0).collect();
                    // SAFETY: the model's inertia pattern and the data's M, of their lengths.
                    let (rownnz, rowadr, colind, mass) = unsafe {
                        (slice(m.M_rownnz, nv), slice(m.M_rowadr, nv), slice(m.M_colind, nc), slice(d.M, nc))
                    };
                    let mut ours = vec![f64::NAN; nv];
                    mul_sym_vec_sparse(&mut ours, mass, &v, rownnz, rowadr, colind);
                    let mut theirs = vec![f64::NAN; nv];
                    // SAFETY: nv-vectors and the inertia's sparse arrays.
                    unsafe {
                        mju_mulSymVecSparse(
                            theirs.as_mut_ptr(),
                            mass.as_ptr(),
                            v.as_ptr(),
                            nv as i32,
                            m.M_rownnz,
                            m.M_rowadr,
                            m.M_colind,
                        )
                    };
                    assert_eq!(bits(&ours), bits(&theirs), "scene {k} step {step}: M v");
                    let mut mulm = vec![f64::NAN; nv];
                    // SAFETY: as above.
                    unsafe { sys::mj_mulM(m, d, mulm.as_mut_ptr(), v.as_ptr()) };
                    assert_eq!(bits(&ours), bits(&mulm), "scene {k} step {step}: mj_mulM");
                    for len in [0, 1, 2, 3, 4, 5, 7, 8, 9, nv] {
                        let len = len.min(nv);
                        // SAFETY: len <= nv entries.
                        let c = unsafe { sys::mju_norm(v.as_ptr(), len as i32) };
                        assert_eq!(norm(&v[..len]).to_bits(), c.to_bits(), "norm of {len}");
                    }
                })
                .expect("data");
            }
        }
    }

    #[test]
    fn calls_in_rust_match_the_library_in_place() {
        use crate::diff::{diff_stages, StageDiffOptions};
        use crate::mj::stages::{Stage, StageSet, Tamper};
        use crate::sim::Start;
        // the resting interlocked links: from step 9 on every call has rows (contacts, Newton,
        // dense, pyramidal, one island per touching group), many of them certified
        let chain = include_str!("../../../scenes/chain.xml");
        let stages = StageSet::NONE.with(Stage::FwdConstraint);
        let i = Stage::FwdConstraint.index();
        let opts = |tamper| StageDiffOptions { steps: 300, start: Start::Qpos0, stages, tamper };
        for jacobian in ["dense", "sparse"] {
            let xml = chain.replace(
                r#"<option timestep="0.00125">"#,
                &format!(r#"<option timestep="0.00125" jacobian="{jacobian}">"#),
            );
            let model = Model::from_xml_str(&xml).expect("model");
            let r = diff_stages(&model, &opts(None)).expect("run");
            assert!(r.matches(), "{jacobian}: {:?} {:?}", r.first, r.trajectory);
            assert!(r.compared[i] > 50, "{jacobian}: {r:?}");
            // every call in Rust, the iterations too, on either Jacobian (pyramidal cones;
            // sparse: D53 to D56)
            assert_eq!(r.skipped[i], 0, "{jacobian}: {r:?}");
            // one ulp in qacc is named (the first calls, without rows, are tampered with too: the
            // first difference is at step 1)
            let first = diff_stages(&model, &opts(Some(Tamper::Output(Stage::FwdConstraint)))).expect("run").first;
            let first = first.expect("a difference");
            assert_eq!((first.stage, first.field), (Stage::FwdConstraint, "qacc"));
            assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
        }
    }

    #[test]
    fn newton_iterations_match_the_library_and_one_ulp_is_named() {
        use crate::mj::stages::{with_comparison, Stage, StageSet, Tamper};
        // the chain thrown down (its keyframe) and the resting boxes, chain and weld of `scene`,
        // with pyramidal and elliptic cones: dense Newton calls whose warm start is not
        // certified, so the Rust stage iterates (with contacts on the cone, D21)
        let chain = include_str!("../../../scenes/chain.xml");
        // (gravity tilted past the friction cone: sliding contacts, on the cone)
        let tilt = r#"cone="elliptic" gravity="12 0 -9.81""#;
        let elliptic = chain.replace(r#"<option timestep"#, &format!(r#"<option {tilt} timestep"#));
        let boxes = scene("elliptic").replace(r#"cone="elliptic""#, tilt);
        let models = [chain.to_string(), scene("pyramidal"), elliptic, boxes]
            .map(|xml| Model::from_xml_str(&xml).expect("model"));
        let i = Stage::FwdConstraint.index();
        let set = StageSet::NONE.with(Stage::FwdConstraint);
        let (mut iterated, mut iterations, mut tampered, mut on_cone) = (0, 0, 0, 0);
        for (k, model) in models.iter().enumerate() {
            let mut data = Data::new(model).expect("data");
            if k % 2 == 0 {
                data.reset_keyframe(0).expect("keyframe");
            }
            for step in 0..200 {
                data.step().expect("step");
                data.with_mj(|m, d| {
                    // the next step's state and warm start (the step's own call is already solved)
                    // SAFETY: MuJoCo's model and data.
                    unsafe { sys::mj_forward(m, d) };
                    if d.nefc == 0 || out_of_scope(m, d).is_some() {
                        return;
                    }
                    // with the stack's high-water marks from zero (as in the test below)
                    let (stack, arena) = (d.maxuse_stack, d.maxuse_arena);
                    (d.maxuse_stack, d.maxuse_arena) = (0, 0);
                    let ((), r) = with_comparison(set, None, |_| {
                        // SAFETY: MuJoCo's model and data; the exported function is specula's.
                        unsafe { sys::mj_fwdConstraint(m, d) }
                    });
                    assert_eq!((r.compared[i], r.differing[i]), (1, 0), "model {k} step {step}: {:?}", r.first);
                    (d.maxuse_stack, d.maxuse_arena) = (stack.max(d.maxuse_stack), arena.max(d.maxuse_arena));
                    let n: i32 = d.solver_niter.iter().sum();
                    if n == 0 {
                        return;
                    }
                    (iterated, iterations) = (iterated + 1, iterations + n);
                    // SAFETY: iefc_state (the islands' final states) has nefc entries.
                    let states = unsafe { slice(d.iefc_state, d.nefc as usize) };
                    on_cone += usize::from(states.contains(&specula_engine::dynamics::solver::update::state::CONE));
                    // the same call with one ulp added to the Rust side's qacc is named
                    if tampered < 20 {
                        let ((), r) = with_comparison(set, Some(Tamper::Output(Stage::FwdConstraint)), |_| {
                            // SAFETY: as above.
                            unsafe { sys::mj_fwdConstraint(m, d) }
                        });
                        let first = r.first.expect("a tampered call must differ");
                        assert_eq!((first.stage, first.field), (Stage::FwdConstraint, "qacc"));
                        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
                        tampered += 1;
                    }
                })
                .expect("data");
            }
        }
        assert!(
            iterated > 50 && iterations > iterated && tampered == 20 && on_cone > 20,
            "{iterated} calls, {iterations} iterations, {on_cone} with contacts on the cone"
        );
    }

    #[test]
    fn every_exit_of_the_line_search_matches_the_library() {
        use crate::diff::{diff_stages, StageDiffOptions};
        use crate::mj::stages::{Stage, StageSet};
        use crate::sim::Start;
        // tolerance 0 runs every call to the iteration limit (the bracketed search ending at its
        // midpoint or out of evaluations, a vanishing direction); a tight one reaches the
        // bracket's three candidates; three evaluations cut the one-sided search short
        let i = Stage::FwdConstraint.index();
        let stages = StageSet::NONE.with(Stage::FwdConstraint);
        // (and the same with elliptic cones, gravity tilted so that contacts slide on the cone)
        let options = [r#"tolerance="0""#, r#"tolerance="1e-14" ls_tolerance="1e-4""#, r#"ls_iterations="3""#];
        for (option, cone) in options.iter().flat_map(|o| [(o, "pyramidal"), (o, "elliptic")]) {
            let tilt = if cone == "elliptic" { r#" gravity="12 0 -9.81""# } else { "" };
            let xml = scene(cone)
                .replace(&format!(r#"<option cone="{cone}""#), &format!(r#"<option {option}{tilt} cone="{cone}""#));
            assert!(xml.contains(option));
            let model = Model::from_xml_str(&xml).expect("model");
            let r = diff_stages(&model, &StageDiffOptions { steps: 150, start: Start::Qpos0, stages, tamper: None })
                .expect("run");
            assert!(r.matches(), "{option}: {:?} {:?}", r.first, r.trajectory);
            assert_eq!((r.compared[i], r.skipped[i]), (150, 0), "{option}: {r:?}");
        }
    }

    #[test]
    fn certified_calls_leave_mujocos_stack_marks_from_zero() {
        use crate::mj::stages::{with_comparison, Stage, StageSet};
        // the high-water marks are maxima: from earlier, bigger calls they would hide a wrong
        // frame size, so each certified call is compared again with both marks zeroed
        let chain = include_str!("../../../scenes/chain.xml");
        let i = Stage::FwdConstraint.index();
        for jacobian in ["dense", "sparse"] {
            let xml = chain.replace(
                r#"<option timestep="0.00125">"#,
                &format!(r#"<option timestep="0.00125" jacobian="{jacobian}">"#),
            );
            let model = Model::from_xml_str(&xml).expect("model");
            let mut data = Data::new(&model).expect("data");
            let mut certified = 0;
            for _ in 0..300 {
                data.step().expect("step");
                data.with_mj(|m, d| {
                    if d.nefc == 0 || out_of_scope(m, d).is_some() {
                        return;
                    }
                    certified += 1;
                    let (stack, arena) = (d.maxuse_stack, d.maxuse_arena);
                    (d.maxuse_stack, d.maxuse_arena) = (0, 0);
                    let ((), r) = with_comparison(StageSet::NONE.with(Stage::FwdConstraint), None, |_| {
                        // SAFETY: MuJoCo's model and data; the exported function is specula's.
                        unsafe { sys::mj_fwdConstraint(m, d) }
                    });
                    assert_eq!((r.compared[i], r.differing[i]), (1, 0), "{jacobian}: {:?}", r.first);
                    assert!(d.maxuse_stack > 0, "the call used the stack");
                    (d.maxuse_stack, d.maxuse_arena) = (stack.max(d.maxuse_stack), arena.max(d.maxuse_arena));
                })
                .expect("data");
            }
            assert!(certified > 50, "{jacobian}: {certified} certified calls");
        }
    }

    #[test]
    fn the_qcqps_are_the_librarys_mujoco() {
        use specula_engine::dynamics::solver::qcqp::{qcqp2, qcqp3};
        let mut s = Stream(0x1234_5678_9abc_def1);
        let (mut active, mut free, mut singular) = (0, 0, 0);
        let mut count = |r: bool, v: &[f64]| {
            if r {
                active += 1
            } else if v.iter().all(|&x| x == 0.0) {
                singular += 1
            } else {
                free += 1
            }
        };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for case in 0..2000 {
            let shift = if case % 9 == 0 { -2.0 } else { 0.01 };
            let radius = [0.01, 0.3, 1.0, 30.0][case % 4];
            let a2 = gram(&mut s, 2, 2, shift);
            let (b, d) = ([s.next(), s.next(), s.next()], [1.0 + s.next(), 1.2 + s.next(), 0.7 + s.next()]);
            let a2: [f64; 4] = a2.try_into().expect("2x2");
            let mut ours = [0.0; 2];
            let r = qcqp2(&mut ours, &a2, &[b[0], b[1]], &[d[0], d[1]], radius);
            let mut theirs = [f64::NAN; 2];
            // SAFETY: arrays of the sizes the function reads and writes.
            let c = unsafe { mju_QCQP2(theirs.as_mut_ptr(), a2.as_ptr(), b.as_ptr(), d.as_ptr(), radius) };
            assert_eq!((i32::from(r), bits(&ours)), (c, bits(&theirs)), "QCQP2 case {case}");
            count(r, &ours);
            let a3: [f64; 9] = gram(&mut s, 3, 3, shift).try_into().expect("3x3");
            let mut ours = [0.0; 3];
            let r = qcqp3(&mut ours, &a3, &b, &d, radius);
            let mut theirs = [f64::NAN; 3];
            // SAFETY: as above.
            let c = unsafe { mju_QCQP3(theirs.as_mut_ptr(), a3.as_ptr(), b.as_ptr(), d.as_ptr(), radius) };
            assert_eq!((i32::from(r), bits(&ours)), (c, bits(&theirs)), "QCQP3 case {case}");
            count(r, &ours);
        }
        assert!(active > 500 && free > 500 && singular > 50, "{active} active, {free} free, {singular} singular");
    }

    #[test]
    fn the_constraint_update_is_the_librarys_mujoco() {
        let mut compared = [0usize; 5];
        for cone in ["pyramidal", "elliptic"] {
            let model = Model::from_xml_str(&scene(cone)).expect("model");
            let mut data = Data::new(&model).expect("data");
            let mut contacts = Vec::new();
            for step in 0..60 {
                data.step().expect("step");
                data.with_mj(|m, d| {
                    let nefc = d.nefc as usize;
                    assert!(nefc > 0 && d.ne > 0 && d.nf > 0, "rows of every kind");
                    cones(d, &mut contacts);
                    // jar at qacc scaled about the solution: every zone of every row is visited
                    let scale = [-3.0, -0.5, 0.0, 0.3, 0.9, 1.0, 1.7, 40.0][step % 8];
                    // SAFETY: mjData's arrays of their documented lengths.
                    let (efc_force, aref, j) = unsafe {
                        (slice(d.efc_force, nefc), slice(d.efc_aref, nefc), slice(d.efc_J, nefc * m.nv as usize))
                    };
                    let jar: Vec<f64> = (0..nefc)
                        .map(|i| {
                            let nv = m.nv as usize;
                            // SAFETY: qacc has nv entries.
                            let qacc = unsafe { slice(d.qacc, nv) };
                            let jq = specula_engine::dynamics::reference::dot(&j[i * nv..(i + 1) * nv], qacc);
                            scale * jq - aref[i]
                                + 1e-3 * efc_force[i] * (i % 3) as f64
                                + 0.05 * scale * (((i * 7) % 5) as f64 - 2.0)
                        })
                        .collect();
                    for (want_cost, hess) in [(true, true), (true, false), (false, true)] {
                        let (mut state, mut force) = (vec![-7; nefc], vec![f64::NAN; nefc]);
                        let mut h = vec![[0.0; 36]; contacts.len()];
                        for (k, c) in unsafe { slice(d.contact, contacts.len()) }.iter().enumerate() {
                            h[k] = c.H;
                        }
                        let ours = constraint_update(
                            &rows(d, &contacts),
                            &jar,
                            &mut state,
                            &mut force,
                            want_cost,
                            hess.then_some(&mut h[..]),
                        );
                        let mut theirs = f64::NAN;
                        let cost = if want_cost { &mut theirs as *mut f64 } else { std::ptr::null_mut() };
                        // SAFETY: MuJoCo's model and data, a jar of nefc entries.
                        unsafe { sys::mj_constraintUpdate(m, d, jar.as_ptr(), cost, i32::from(hess)) };
                        let (st, fo) = unsafe { (slice(d.efc_state, nefc), slice(d.efc_force, nefc)) };
                        assert_eq!(st, &state[..], "{cone} step {step}: efc_state");
                        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(fo), bits(&force), "{cone} step {step}: efc_force");
                        if want_cost {
                            assert_eq!(theirs.to_bits(), ours.to_bits(), "{cone} step {step}: cost");
                        }
                        for (k, c) in unsafe { slice(d.contact, contacts.len()) }.iter().enumerate() {
                            assert_eq!(bits(&c.H), bits(&h[k]), "{cone} step {step}: contact {k} H");
                        }
                        for s in st {
                            compared[*s as usize] += 1;
                        }
                    }
                })
                .expect("data");
            }
        }
        // every state was reached (the cone state only with elliptic cones)
        assert!(compared.iter().all(|&n| n > 0), "{compared:?}");
    }
}
