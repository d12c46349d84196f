//! The island stage on a hand-made model: which trees the rows join, the island numbering (in
//! the order of each island's smallest tree) and the island-major maps.

use specula_engine::dynamics::constraint::cnstr;
use specula_engine::dynamics::island::{fill, partition, IslandModel, IslandOutput, IslandRows, IslandScratch};

/// Five trees: two free bodies (6 dofs each), a hinge, a ball (3 dofs) and a slide; the world
/// body 0 is static.
struct Model {
    dof_treeid: Vec<i32>,
    jnt_dofadr: Vec<i32>,
    body_treeid: Vec<i32>,
    geom_bodyid: Vec<i32>,
    tree_dofnum: Vec<i32>,
}

fn model() -> Model {
    let tree_dofnum = vec![6, 6, 1, 3, 1];
    let dof_treeid =
        tree_dofnum.iter().enumerate().flat_map(|(t, &n)| std::iter::repeat_n(t as i32, n as usize)).collect();
    Model {
        dof_treeid,
        jnt_dofadr: vec![0, 6, 12, 13, 16],
        body_treeid: vec![-1, 0, 1, 2, 3, 4],
        // geom g on body g (geom 0 is the floor)
        geom_bodyid: vec![0, 1, 2, 3, 4, 5],
        tree_dofnum,
    }
}

fn view(m: &Model) -> IslandModel<'_> {
    IslandModel {
        dof_treeid: &m.dof_treeid,
        jnt_dofadr: &m.jnt_dofadr,
        body_treeid: &m.body_treeid,
        geom_bodyid: &m.geom_bodyid,
        tree_dofnum: &m.tree_dofnum,
        equality: Default::default(),
    }
}

#[test]
fn rows_join_trees_into_islands() {
    let m = model();
    // contact 0: floor against the ball's body (tree 3); contact 1: the second free body
    // (tree 1) against the hinge (tree 2), pyramidal (four rows); a friction row on dof 6
    // (tree 1); a limit on the ball joint (tree 3)
    let geom = [[0, 4], [2, 3]];
    let efc_type = [
        cnstr::FRICTION_DOF,
        cnstr::LIMIT_JOINT,
        cnstr::CONTACT_FRICTIONLESS,
        cnstr::CONTACT_PYRAMIDAL,
        cnstr::CONTACT_PYRAMIDAL,
        cnstr::CONTACT_PYRAMIDAL,
        cnstr::CONTACT_PYRAMIDAL,
    ];
    let efc_id = [6, 3, 0, 1, 1, 1, 1];
    let values: Vec<f64> = (0..7).map(f64::from).collect();
    let rows = IslandRows {
        efc_type: &efc_type,
        efc_id: &efc_id,
        efc_frictionloss: &values,
        efc_d: &values,
        efc_r: &values,
        contact_geom: &geom,
        jac: Default::default(),
    };
    let mut s = IslandScratch::default();
    let part = partition(&view(&m), &rows, &mut s).expect("rigid rows");
    // islands {1, 2} and {3}; trees 0 and 4 are unconstrained
    assert_eq!((part.nisland, part.nidof), (2, 10));

    let (ntree, nv, nefc, ni) = (5, 17, 7, 2);
    let mut ints: Vec<Vec<i32>> =
        [ntree, ni, ni, ntree, nv, ni, ni, ni, nv, nv, nefc, ni, ni, ni, ni, nefc, nefc, nefc, nefc]
            .iter()
            .map(|&n| vec![-7; n])
            .collect();
    let mut reals: Vec<Vec<f64>> = (0..3).map(|_| vec![-7.0; nefc]).collect();
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18] = &mut ints[..] else {
        unreachable!()
    };
    let [r0, r1, r2] = &mut reals[..] else { unreachable!() };
    let mut out = IslandOutput {
        tree_island: a0,
        island_ntree: a1,
        island_itreeadr: a2,
        map_itree2tree: a3,
        dof_island: a4,
        island_nv: a5,
        island_idofadr: a6,
        island_dofadr: a7,
        map_dof2idof: a8,
        map_idof2dof: a9,
        efc_island: a10,
        island_ne: a11,
        island_nf: a12,
        island_nefc: a13,
        island_iefcadr: a14,
        map_efc2iefc: a15,
        map_iefc2efc: a16,
        iefc_type: a17,
        iefc_id: a18,
        iefc_frictionloss: r0,
        iefc_d: r1,
        iefc_r: r2,
    };
    fill(&view(&m), &rows, &mut s, &mut out);
    assert_eq!(out.tree_island, [-1, 0, 0, 1, -1]);
    assert_eq!(out.island_ntree, [2, 1]);
    assert_eq!(out.island_itreeadr, [0, 2]);
    assert_eq!(out.map_itree2tree, [1, 2, 3, 0, 4]);
    assert_eq!(out.island_nv, [7, 3]);
    assert_eq!(out.island_idofadr, [0, 7]);
    assert_eq!(out.island_dofadr, [6, 13]);
    let idof2dof: Vec<i32> = (6..13).chain(13..16).chain(0..6).chain(16..17).collect();
    assert_eq!(out.map_idof2dof, &idof2dof[..]);
    for (idof, &dof) in idof2dof.iter().enumerate() {
        assert_eq!(out.map_dof2idof[dof as usize], idof as i32);
    }
    assert_eq!(out.efc_island, [0, 1, 1, 0, 0, 0, 0]);
    assert_eq!(out.island_nefc, [5, 2]);
    assert_eq!(out.island_nf, [1, 0]);
    assert_eq!(out.island_ne, [0, 0]);
    assert_eq!(out.island_iefcadr, [0, 5]);
    assert_eq!(out.map_iefc2efc, [0, 3, 4, 5, 6, 1, 2]);
    assert_eq!(out.map_efc2iefc, [0, 5, 6, 1, 2, 3, 4]);
    assert_eq!(out.iefc_id, [6, 1, 1, 1, 1, 3, 0]);
    assert_eq!(out.iefc_r, [0.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0]);
}

#[test]
fn other_rows_are_refused() {
    let m = model();
    let geom = [[0, 0]];
    let values = [0.0];
    let rows = |kind: i32, id: i32| (kind, id);
    for (kind, id) in [rows(cnstr::EQUALITY, 0), rows(cnstr::LIMIT_TENDON, 0), rows(cnstr::CONTACT_ELLIPTIC, 0)] {
        let (t, i) = ([kind], [id]);
        let r = IslandRows {
            efc_type: &t,
            efc_id: &i,
            efc_frictionloss: &values,
            efc_d: &values,
            efc_r: &values,
            contact_geom: &geom,
            jac: Default::default(),
        };
        // an equality the view does not hold and tendon rows are the library's; a contact between
        // two static sides is its error
        assert!(partition(&view(&m), &r, &mut IslandScratch::default()).is_err());
    }
}
