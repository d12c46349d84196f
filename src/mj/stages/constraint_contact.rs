//! The contact part of `mj_makeConstraint` inside MuJoCo's step: the view of MuJoCo's model
//! the engine's contact rows read, and the copy of `d->contact` in and out
//! (`docs/measurements.md` D10).

use mujoco_sys as sys;
use specula_engine::dynamics::constraint::contact::{ContactModel, ContactState};
use specula_engine::dynamics::constraint::jacobian::{JacModel, JacState};
use specula_engine::dynamics::constraint::Contact;

use super::slice;

/// The contact rows' view of MuJoCo's model.
pub(super) fn contact_model(m: &sys::mjModel) -> ContactModel<'_> {
    let (nbody, ngeom) = (m.nbody as usize, m.ngeom as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        ContactModel {
            disable_contact: m.opt.disableflags & sys::mjDSBL_CONTACT as i32 != 0,
            geom_bodyid: slice(m.geom_bodyid, ngeom),
            body_treeid: slice(m.body_treeid, nbody),
            jac: jac_model(m),
        }
    }
}

/// The Jacobians' view of MuJoCo's model.
pub(super) fn jac_model(m: &sys::mjModel) -> JacModel<'_> {
    let (nv, nbody) = (m.nv as usize, m.nbody as usize);
    // SAFETY: every array has the length mjmodel.h gives it.
    unsafe {
        JacModel {
            nv,
            body_weldid: slice(m.body_weldid, nbody),
            body_rootid: slice(m.body_rootid, nbody),
            body_dofnum: slice(m.body_dofnum, nbody),
            body_dofadr: slice(m.body_dofadr, nbody),
            body_simple: slice(m.body_simple, nbody),
            dof_parentid: slice(m.dof_parentid, nv),
        }
    }
}

/// The contact rows' view of MuJoCo's data (`cdof`, `subtree_com`).
pub(super) fn contact_state<'a>(m: &sys::mjModel, d: &'a sys::mjData) -> ContactState<'a> {
    let (nv, nbody) = (m.nv as usize, m.nbody as usize);
    // SAFETY: both arrays have the length mjdata.h gives them.
    unsafe {
        ContactState { jac: JacState { cdof: slice(d.cdof, 6 * nv), subtree_com: slice(d.subtree_com, 3 * nbody) } }
    }
}

/// The library's contacts (`d->contact[0..ncon]`), copied into `out` (reused).
pub(super) fn read_contacts(d: &sys::mjData, out: &mut Vec<Contact>) {
    out.clear();
    // SAFETY: `d->contact` holds `ncon` contacts.
    let cons = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
    out.extend(cons.iter().map(|c| Contact {
        dist: c.dist,
        pos: c.pos,
        frame: c.frame,
        includemargin: c.includemargin,
        friction: c.friction,
        solref: c.solref,
        solreffriction: c.solreffriction,
        solimp: c.solimp,
        mu: c.mu,
        dim: c.dim,
        geom: c.geom,
        flex: c.flex,
        elem: c.elem,
        vert: c.vert,
        exclude: c.exclude,
        efc_address: c.efc_address,
    }));
}

/// Writes the fields the contact rows set (`efc_address`, `exclude`) back to `d->contact`.
pub(super) fn write_contacts(d: &mut sys::mjData, contacts: &[Contact]) {
    let n = contacts.len().min(d.ncon.max(0) as usize);
    if n == 0 || d.contact.is_null() {
        return;
    }
    // SAFETY: `d->contact` holds `ncon` >= `n` contacts, not otherwise borrowed here.
    let cons = unsafe { std::slice::from_raw_parts_mut(d.contact, n) };
    for (c, r) in cons.iter_mut().zip(contacts) {
        c.efc_address = r.efc_address;
        c.exclude = r.exclude;
    }
}

/// Whether the Rust contact rows cover every contact: each between two geoms (a flex side is
/// the library's) with a condim of 1, 3, 4 or 6.
pub(super) fn contacts_in_scope(_m: &sys::mjModel, d: &sys::mjData) -> bool {
    // SAFETY: `d->contact` holds `ncon` contacts.
    let cons = unsafe { slice(d.contact, d.ncon.max(0) as usize) };
    cons.iter()
        .all(|c| c.geom[0] >= 0 && c.geom[1] >= 0 && c.flex[0] < 0 && c.flex[1] < 0 && matches!(c.dim, 1 | 3 | 4 | 6))
}

#[cfg(test)]
mod tests {
    //! The contact rows against the library's `mj_makeConstraint` on models whose only
    //! constraints are contacts: same rows, types, ids, positions, margins, Jacobian bits and
    //! sparse structure, dense and sparse, pyramidal and elliptic, condim 1/3/4/6.
    use super::*;
    use crate::mj::{Data, Model};
    use specula_engine::dynamics::constraint::contact::{self, ContactScratch};
    use specula_engine::dynamics::constraint::EfcRows;

    type MakeFn = unsafe extern "C" fn(*const sys::mjModel, *mut sys::mjData);

    /// A scene of free, hinged and jointed bodies falling on a plane and on each other.
    fn scene(cone: &str, jacobian: &str, condim: u32) -> String {
        format!(
            r#"<mujoco><option cone="{cone}" jacobian="{jacobian}"/>
            <default><geom condim="{condim}" friction="0.7 0.02 0.003"/></default>
            <worldbody><geom type="plane" size="5 5 .1"/>
              <body pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
              <body pos=".05 .02 .4" euler="10 20 30"><freejoint/><geom type="box" size=".1 .08 .06"/></body>
              <body pos=".6 0 .3"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 -.3" size=".04"/>
                <body pos=".3 0 -.3"><joint type="hinge" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>
                  <geom type="sphere" size=".06"/>
                  <body pos="0 0 -.1"><joint type="ball"/><geom type="box" size=".05 .05 .05" pos=".1 0 0"/></body>
                </body>
              </body>
              <body pos="-.6 0 .3"><joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/>
                <geom type="sphere" size=".1"/></body>
              <body pos="0 -1 .3"><freejoint/><geom name="a1" type="sphere" size=".1"/>
                <body pos=".05 0 0"><geom name="a2" type="sphere" size=".1"/></body></body>
              <geom name="s1" type="box" size=".1 .1 .1" pos="1 1 .1"/><geom name="s2" type="box" size=".1 .1 .1" pos="1.05 1 .1"/>
            </worldbody>
            <contact><pair geom1="a1" geom2="a2"/><pair geom1="s1" geom2="s2"/></contact></mujoco>"#
        )
    }

    /// A self-touching hinge chain (contacts within one tree: shared dofs skipped) and a pile
    /// of free boxes: 66 dofs or more, so `jacobian="auto"` is sparse.
    fn pile(cone: &str, condim: u32) -> String {
        let mut chain = String::new();
        for _ in 0..8 {
            chain.push_str(
                r#"<body pos=".12 0 0" euler="0 0 50"><joint type="hinge" axis="0 0 1" damping=".01"/>
                <geom type="capsule" fromto="0 0 0 .12 0 0" size=".03"/>"#,
            );
        }
        chain.push_str(&"</body>".repeat(8));
        let mut boxes = String::new();
        for i in 0..11 {
            let (x, z) = (0.03 * (i % 3) as f64, 0.1 + 0.2 * i as f64);
            boxes.push_str(&format!(
                r#"<body pos="{x} .8 {z}" euler="{i}0 5 0"><freejoint/><geom type="box" size=".08 .07 .06"/></body>"#
            ));
        }
        format!(
            r#"<mujoco><option cone="{cone}" jacobian="auto" gravity="0 0 -9.81"/>
            <default><geom condim="{condim}" friction="0.7 0.02 0.003"/></default>
            <worldbody><geom type="plane" size="5 5 .1"/>
              <body pos="0 0 .03"><joint type="slide" axis="1 0 0"/><geom type="capsule" fromto="0 0 0 .12 0 0" size=".03"/>{chain}</body>
              {boxes}
            </worldbody></mujoco>"#
        )
    }

    /// Steps the scene and compares every step's contact rows; returns the rows compared and
    /// the contacts between two moving bodies of one tree, and those given no rows (`exclude` 3).
    fn check(xml: &str, steps: usize) -> (usize, usize, usize) {
        let model = Model::from_xml_str(xml).expect("model");
        let mut data = Data::new(&model).expect("data");
        let make = crate::mj::stages::library_symbol(c"mj_makeConstraint");
        assert_ne!(make, 0, "libmujoco's mj_makeConstraint");
        // SAFETY: dlsym's address of mj_makeConstraint has this signature.
        let make: MakeFn = unsafe { std::mem::transmute::<usize, MakeFn>(make) };
        let (mut contacts, mut scratch, mut compared, mut same_tree, mut excluded) =
            (Vec::new(), ContactScratch::default(), 0, 0, 0);
        for _ in 0..steps {
            data.step().expect("step");
            data.with_mj(|m, d| {
                // SAFETY: valid model and data; collision refills the contacts the rows read.
                unsafe {
                    sys::mj_forward(m, d);
                    sys::mj_collision(m, d);
                }
                read_contacts(d, &mut contacts);
                assert!(contacts_in_scope(m, d));
                let sparse = m.opt.jacobian == sys::mjJAC_SPARSE as i32
                    || (m.opt.jacobian == sys::mjJAC_AUTO as i32 && m.nv >= 60);
                let pyramidal = m.opt.cone == sys::mjCONE_PYRAMIDAL as i32;
                let cm = contact_model(m);
                for c in &contacts {
                    let t = |g: i32| cm.body_treeid[cm.geom_bodyid[g as usize] as usize];
                    same_tree += usize::from(t(c.geom[0]) >= 0 && t(c.geom[0]) == t(c.geom[1]));
                }
                let (nc, nnz) = contact::count(&cm, &contacts, sparse, pyramidal, &mut scratch);
                let nv = m.nv as usize;
                let nj = if sparse { nnz } else { nc * nv };
                let (mut ty, mut id, mut rownnz, mut rowadr, mut rowsuper) =
                    (vec![0; nc], vec![0; nc], vec![0; nc], vec![0; nc], vec![0; nc]);
                let (mut colind, mut j) = (vec![0; nj], vec![0.0; nj]);
                let (mut pos, mut margin, mut fl) = (vec![0.0; nc], vec![0.0; nc], vec![0.0; nc]);
                let mut rows = EfcRows {
                    sparse,
                    nv,
                    nefc: 0,
                    ne: 0,
                    nf: 0,
                    nl: 0,
                    efc_type: &mut ty,
                    efc_id: &mut id,
                    efc_j_rownnz: &mut rownnz,
                    efc_j_rowadr: &mut rowadr,
                    efc_j_rowsuper: &mut rowsuper,
                    efc_j_colind: &mut colind,
                    efc_j: &mut j,
                    efc_pos: &mut pos,
                    efc_margin: &mut margin,
                    efc_frictionloss: &mut fl,
                };
                contact::instantiate(
                    &cm,
                    &contact_state(m, d),
                    &mut contacts,
                    sparse,
                    pyramidal,
                    &mut rows,
                    &mut scratch,
                );
                let nefc = rows.nefc;
                // SAFETY: valid model and data.
                unsafe { make(m, d) };
                assert_eq!(nefc, d.nefc as usize);
                if sparse {
                    assert_eq!(nnz, d.nJ as usize);
                }
                // SAFETY: the efc arrays hold nefc rows and nJ Jacobian entries.
                let (dty, did, dpos, dmar, dj) = unsafe {
                    (
                        slice(d.efc_type, nefc),
                        slice(d.efc_id, nefc),
                        slice(d.efc_pos, nefc),
                        slice(d.efc_margin, nefc),
                        slice(d.efc_J, d.nJ as usize),
                    )
                };
                assert_eq!(&ty[..nefc], dty);
                assert_eq!(&id[..nefc], did);
                assert_eq!(
                    pos[..nefc].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    dpos.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
                assert_eq!(
                    margin[..nefc].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    dmar.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
                let used = if sparse { nnz } else { nefc * nv };
                assert_eq!(
                    j[..used].iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    dj[..used].iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
                if sparse && nefc > 0 {
                    // SAFETY: as above.
                    let (dnnz, dadr, dcol, dsup) = unsafe {
                        (
                            slice(d.efc_J_rownnz, nefc),
                            slice(d.efc_J_rowadr, nefc),
                            slice(d.efc_J_colind, nnz),
                            slice(d.efc_J_rowsuper, nefc),
                        )
                    };
                    assert_eq!(&rownnz[..nefc], dnnz);
                    assert_eq!(&rowadr[..nefc], dadr);
                    assert_eq!(&colind[..nnz], dcol);
                    let flags: Vec<i32> = dsup.iter().map(|&s| i32::from(s > 0)).collect();
                    assert_eq!(&rowsuper[..nefc], &flags[..]);
                }
                // SAFETY: `d->contact` holds ncon contacts.
                let dcon = unsafe { slice(d.contact, d.ncon as usize) };
                for (a, b) in contacts.iter().zip(dcon) {
                    assert_eq!((a.efc_address, a.exclude), (b.efc_address, b.exclude));
                }
                compared += nefc;
                excluded += contacts.iter().filter(|c| c.exclude == 3).count();
            })
            .expect("call");
        }
        (compared, same_tree, excluded)
    }

    #[test]
    fn contact_rows_match_the_library() {
        for cone in ["pyramidal", "elliptic"] {
            for jacobian in ["dense", "sparse"] {
                for condim in [1, 3, 4, 6] {
                    let (n, _, excluded) = check(&scene(cone, jacobian, condim), 300);
                    eprintln!("{cone} {jacobian} {condim}: {n} rows, {excluded} without dofs");
                    assert!(n > 100 && excluded > 0, "{cone} {jacobian} {condim}: {n} rows, {excluded} without dofs");
                }
            }
            for condim in [1, 3, 4, 6] {
                let (n, same, _) = check(&pile(cone, condim), 400);
                eprintln!("{cone} auto pile {condim}: {n} rows, {same} within one tree");
                assert!(n > 100 && same > 0, "{cone} pile {condim}: {n} rows, {same} within one tree");
            }
        }
    }
}
