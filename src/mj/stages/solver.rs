//! `mj_fwdConstraint` in Rust inside MuJoCo's step (`docs/measurements.md` D13 onward): the view
//! of MuJoCo's data that `specula_engine::dynamics::solver` reads and writes, the function's
//! timer, and the calls left to the library, each with its reason.

use mujoco_sys as sys;
use specula_engine::dynamics::solver::{self, NISLAND};

use super::fields::Field;
use super::{slice, slice_mut, Fallback};

/// `mjSOL_PGS`, `mjSOL_CG`, `mjSOL_NEWTON`.
const SOL_PGS: i32 = 0;
const SOL_CG: i32 = 1;
const SOL_NEWTON: i32 = 2;

/// Why `mj_fwdConstraint` must stay MuJoCo's for this model and state, if it must: with the
/// effective metric on the discrete integrator the library corrects the smooth force for
/// gyroscopic terms after every call (`mj_discreteGyro`, D13), and with constraint rows the
/// solvers are not yet in Rust (one reason per solver; a solver number outside 0 to 2 the
/// library reports and skips).
pub(super) fn out_of_scope(m: &sys::mjModel, d: &sys::mjData) -> Option<Fallback> {
    if m.opt.integrator == sys::mjINT_DISCRETE as i32 && d.efm_active != 0 {
        return Some(Fallback::EffectiveMetric);
    }
    if d.nefc == 0 {
        return None;
    }
    Some(match m.opt.solver {
        SOL_PGS => Fallback::SolverPgs,
        SOL_CG => Fallback::SolverCg,
        SOL_NEWTON => Fallback::SolverNewton,
        _ => Fallback::SolverUnknown,
    })
}

/// Runs the Rust stage on MuJoCo's data in place of `mj_fwdConstraint` (a state the scope test
/// let through), timed as the library times it (`mjTIMER_CONSTRAINT`).
pub(super) fn replace(m: &sys::mjModel, d: &mut sys::mjData) {
    let t0 = super::clock();
    let nv = m.nv as usize;
    // SAFETY: mjData's arrays of nv entries; qacc and qfrc_constraint are written only here.
    let (qacc_smooth, qacc, qfrc_constraint) =
        unsafe { (slice(d.qacc_smooth, nv), slice_mut(d.qacc, nv), slice_mut(d.qfrc_constraint, nv)) };
    solver::without_rows(qacc_smooth, qacc, qfrc_constraint, &mut d.solver_niter[..NISLAND]);
    let t = &mut d.timer[sys::mjTIMER_CONSTRAINT as usize];
    t.duration += super::clock() - t0;
    t.number += 1;
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
    out.push(Field::f64("qfrc_constraint", d.qfrc_constraint, nv));
    out.push(Field::f64("qacc", d.qacc, nv));
    out
}

#[cfg(test)]
mod tests {
    //! The solver's pieces alone against the library's exported helpers, bit for bit.
    use super::*;
    use crate::mj::{Data, Model};
    use specula_engine::dynamics::solver::update::{constraint_update, Cone, Rows};

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

    extern "C" {
        fn mju_QCQP2(res: *mut f64, a: *const f64, b: *const f64, d: *const f64, r: f64) -> i32;
        fn mju_QCQP3(res: *mut f64, a: *const f64, b: *const f64, d: *const f64, r: f64) -> i32;
        fn mju_mulSymVecSparse(
            res: *mut f64,
            mat: *const f64,
            vec: *const f64,
            n: i32,
            rownnz: *const i32,
            rowadr: *const i32,
            colind: *const i32,
        );
    }

    /// Free, ball, hinge and slide joints in one branching tree, with armature.
    const TREE: &str = r#"<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom type="box" size=".1 .05 .02"/>
      <body pos=".2 0 0"><joint type="ball" armature=".01"/><geom type="capsule" size=".02 .1"/>
        <body pos=".2 0 0"><joint type="hinge" axis="0 1 1"/><geom type="sphere" size=".04"/></body>
        <body pos="0 0 -.1"><joint type="slide" axis="1 0 0" armature=".2"/><geom type="box" size=".03 .03 .03"/></body>
      </body></body></worldbody></mujoco>"#;

    /// A deterministic stream of doubles in [-1, 1) (xorshift).
    struct Stream(u64);

    impl Stream {
        fn next(&mut self) -> f64 {
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
