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
