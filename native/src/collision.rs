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

/// The frames the collision stage reads, as fixed-size vectors (copied from the flat arrays each
/// call; no allocation once grown).
#[derive(Debug, Default)]
pub(crate) struct Frames {
    geom_xpos: Vec<[f64; 3]>,
    geom_xmat: Vec<[f64; 9]>,
    xipos: Vec<[f64; 3]>,
    ximat: Vec<[f64; 9]>,
    subtree_com: Vec<[f64; 3]>,
    cdof: Vec<[f64; 6]>,
}

/// `to` holds `from` as consecutive `N`-vectors.
fn copy<const N: usize>(to: &mut Vec<[f64; N]>, from: &[f64]) {
    to.clear();
    to.extend(from.chunks_exact(N).map(|c| {
        let mut a = [0.0; N];
        a.copy_from_slice(c);
        a
    }));
}

/// The contacts of the current positions into `d.collided` (the engine's records) and
/// `d.contacts` (the constraint stages' records). A pair the engine has no collider for (height
/// fields, SDFs) is refused.
pub fn collision(nm: &NativeModel, d: &mut Data) -> Result<(), NativeError> {
    let f = &mut d.frames;
    copy(&mut f.geom_xpos, &d.geom_xpos);
    copy(&mut f.geom_xmat, &d.geom_xmat);
    copy(&mut f.xipos, &d.xipos);
    copy(&mut f.ximat, &d.ximat);
    copy(&mut f.subtree_com, &d.subtree_com);
    copy(&mut f.cdof, &d.cdof);
    let mut state = State::new(&f.geom_xpos, &f.geom_xmat);
    state.body_xipos = Some(&f.xipos);
    state.body_ximat = Some(&f.ximat);
    state.speculative = Some(SpeculativeInput {
        qvel: &d.qvel,
        subtree_com: &f.subtree_com,
        cdof: &f.cdof,
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
            needs: "a Rust collider for this geom pair (height fields, SDFs)",
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
