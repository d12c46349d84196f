//! `mj_collision` on the native route: the engine's collision stage on the native data's geom
//! and body frames, with the speculative inputs (velocities, `subtree_com`, `cdof` and the
//! previous `qacc_smooth`) always given, so speculative contacts work in every mode; then each
//! contact in the form `mj_makeConstraint` reads (MuJoCo's `mj_addContact` record: no flex
//! side, solver fields cleared).

use specula_engine::collision::{SpeculativeInput, State};
use specula_engine::dynamics::constraint::Contact;

use crate::data::Data;
use crate::model::NativeModel;
use crate::scope::NativeError;

/// The flat array `v` as consecutive `N`-vectors (its length is a multiple of `N`): the
/// collision stage's fixed-size view of the data's frames, without a copy.
fn vectors<const N: usize>(v: &[f64]) -> &[[f64; N]] {
    assert_eq!(v.len() % N, 0, "a whole number of {N}-vectors");
    // SAFETY: `[f64; N]` has the size of N `f64`s and their alignment, and the
    // `v.len() / N` arrays cover exactly the initialised, borrowed elements of `v`.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<[f64; N]>(), v.len() / N) }
}

/// The contacts of the current positions into `d.collided` (the engine's records) and
/// `d.contacts` (the constraint stages' records). A pair the engine has no collider for (SDFs)
/// is refused.
pub fn collision(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let mut state = State::new(vectors(&d.geom_xpos), vectors(&d.geom_xmat));
    state.body_xipos = Some(vectors(&d.xipos));
    state.body_ximat = Some(vectors(&d.ximat));
    let sl = &d.sleep;
    state.sleep =
        Some(specula_engine::collision::SleepState { body_awake: &sl.body_awake, nbody_awake: sl.nbody_awake });
    state.speculative = Some(SpeculativeInput {
        qvel: &d.qvel,
        subtree_com: vectors(&d.subtree_com),
        cdof: vectors(&d.cdof),
        qacc: Some(&d.qacc_smooth),
    });
    let report = d.collider.collide(&nm.collision, &state, &mut d.collided).map_err(|e| NativeError::Unsupported {
        what: format!("collision: {e}"),
        needs: "a collision call the engine's stage accepts",
    })?;
    if let Some(p) = report.unsupported.first() {
        let t = |g: usize| nm.model.geom_type[g];
        return Err(NativeError::Unsupported {
            what: format!(
                "contacts of geoms {} ({:?}) and {} ({:?})",
                p.geom[0],
                t(p.geom[0]),
                p.geom[1],
                t(p.geom[1])
            ),
            needs: "a Rust collider for this geom pair (SDFs)",
        });
    }
    d.contacts.clear();
    d.contacts.extend(d.collided.iter().map(|c| Contact {
        dist: c.dist,
        pos: c.pos,
        frame: c.frame,
        includemargin: c.includemargin,
        friction: c.friction,
        solref: c.solref,
        solreffriction: c.solreffriction,
        solimp: c.solimp,
        mu: 0.0,
        dim: c.dim,
        geom: c.geom,
        flex: [-1, -1],
        elem: [-1, -1],
        vert: [-1, -1],
        exclude: c.exclude,
        efc_address: -1,
    }));
    Ok(())
}
