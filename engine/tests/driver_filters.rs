//! Which geom pairs the collision driver collides: the body-pair rules (same weld body, parent
//! and child, static bodies, sleep), bitmasks, excludes, explicit pairs and the global switches.
//! Scenes are spheres whose overlaps are obvious by construction; every expectation follows
//! from MuJoCo's documented rules (XMLreference "contype/conaffinity", computation
//! "Collision detection") and `filterBodyPair` in `engine_collision_driver.c`.

#[path = "driver_common.rs"]
mod common;

use common::{geoms, Scene};
use specula_engine::collision::model::{DSBL_CONTACT, DSBL_FILTERPARENT, ENBL_SLEEP};
use specula_engine::collision::{CollideError, CollisionStage, SleepState, State};
use specula_engine::narrowphase::GeomType;

/// World plane; body 1 (free) with a sphere resting 0.05 into the plane; body 2, a hinged child
/// of body 1, with a sphere overlapping body 1's and well above the plane.
fn parent_child(child_dofs: usize) -> Scene {
    let mut s = Scene::new();
    s.geom(0, GeomType::Plane, [5.0, 5.0, 0.1], [0.0; 3]);
    let a = s.body(0, 6);
    s.sphere(a, 0.1, [0.0, 0.0, 0.05]);
    let b = s.body(a, child_dofs);
    s.sphere(b, 0.1, [0.15, 0.0, 0.12]);
    s
}

#[test]
fn parent_and_child_do_not_collide() {
    let mut s = parent_child(1);
    assert_eq!(geoms(&s.collide()), vec![[0, 1]]);
}

#[test]
fn filterparent_disabled_lets_parent_and_child_collide() {
    let mut s = parent_child(1);
    s.m.opt.disableflags = DSBL_FILTERPARENT;
    // body pairs in signature order: (0,1) plane-sphere, then (1,2) sphere-sphere
    assert_eq!(geoms(&s.collide()), vec![[0, 1], [1, 2]]);
}

#[test]
fn welded_child_never_collides_with_its_parent() {
    // a child without dofs has its parent's weld body: filtered even with filterparent off
    let mut s = parent_child(0);
    s.m.opt.disableflags = DSBL_FILTERPARENT;
    assert_eq!(geoms(&s.collide()), vec![[0, 1]]);
}

#[test]
fn grandparent_is_not_filtered() {
    // body 3, child of body 2, overlaps body 1: only the direct parent is filtered
    let mut s = parent_child(1);
    let c = s.body(2, 1);
    s.sphere(c, 0.1, [-0.1, 0.0, 0.15]);
    let got = geoms(&s.collide());
    assert_eq!(got, vec![[0, 1], [1, 3]]);
}

#[test]
fn static_bodies_never_collide_with_each_other() {
    // two overlapping world geoms, and a mocap body (no dofs) overlapping the world
    let mut s = Scene::new();
    s.sphere(0, 0.1, [0.0; 3]);
    s.sphere(0, 0.1, [0.1, 0.0, 0.0]);
    let mc = s.mocap();
    s.sphere(mc, 0.1, [0.0, 0.1, 0.0]);
    assert!(s.collide().is_empty());
}

/// Two free spheres overlapping, with the given (contype, conaffinity) each.
fn masks(a: (i32, i32), b: (i32, i32)) -> usize {
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    let g1 = s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    let g2 = s.sphere(b2, 0.1, [0.15, 0.0, 0.0]);
    (s.m.geom_contype[g1], s.m.geom_conaffinity[g1]) = a;
    (s.m.geom_contype[g2], s.m.geom_conaffinity[g2]) = b;
    s.collide().len()
}

#[test]
fn contype_conaffinity_bitmasks() {
    // collide when contype of either meets conaffinity of the other (bitwise AND)
    assert_eq!(masks((1, 1), (1, 1)), 1);
    assert_eq!(masks((2, 0), (0, 2)), 1); // one direction suffices
    assert_eq!(masks((0, 2), (2, 0)), 1);
    assert_eq!(masks((1, 0), (1, 0)), 0); // types without affinities
    assert_eq!(masks((1, 2), (1, 2)), 0); // 1 & 2 == 0 both ways
    assert_eq!(masks((3, 4), (8, 1)), 1); // 3 & 1 != 0
    assert_eq!(masks((0, 0), (1, 1)), 0);
}

#[test]
fn excluded_body_pair_is_skipped_but_explicit_pair_still_collides() {
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    let g1 = s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    let g2 = s.sphere(b2, 0.1, [0.15, 0.0, 0.0]);
    s.exclude(b1, b2);
    assert!(s.collide().is_empty());
    s.pair(g1, g2);
    assert_eq!(geoms(&s.collide()), vec![[0, 1]]);
}

#[test]
fn explicit_pair_ignores_bitmasks_and_replaces_the_automatic_pair() {
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    let g1 = s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    let g2 = s.sphere(b2, 0.1, [0.15, 0.0, 0.0]);
    // pair given as (geom 1, geom 0): same types, so its own order is kept
    let p = s.pair(g2, g1);
    s.m.pair_dim[p] = 1;
    let c = s.collide();
    assert_eq!(geoms(&c), vec![[1, 0]]);
    assert_eq!(c[0].dim, 1, "the pair's condim, not the geoms'");
    // bitmasks that forbid contact do not matter for an explicit pair
    s.m.geom_contype[g1] = 0;
    s.m.geom_conaffinity[g1] = 0;
    assert_eq!(geoms(&s.collide()), vec![[1, 0]]);
}

#[test]
fn bounding_spheres_include_margin_and_gap() {
    // surfaces 0.05 apart: no contact; with margin 0.03 + gap 0.03 on one geom the bound is
    // reached and the narrowphase reports dist 0.05 (in the gap: excluded)
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    let g1 = s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    s.sphere(b2, 0.1, [0.25, 0.0, 0.0]);
    assert!(s.collide().is_empty());
    s.m.geom_margin[g1] = 0.03;
    s.m.geom_gap[g1] = 0.03;
    let c = s.collide();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].includemargin, 0.03);
    assert_eq!(c[0].exclude, 1);
    assert!((c[0].dist - 0.05).abs() < 1e-15);
}

#[test]
fn disabled_contacts_and_single_body_give_nothing() {
    let mut s = parent_child(1);
    s.m.opt.disableflags = DSBL_CONTACT;
    assert!(s.collide().is_empty());
    let mut world_only = Scene::new();
    world_only.sphere(0, 0.1, [0.0; 3]);
    world_only.sphere(0, 0.1, [0.0; 3]);
    assert!(world_only.collide().is_empty());
}

#[test]
fn sleeping_bodies_skip_the_world_and_each_other() {
    // plane; bodies 1, 2 resting on it and overlapping each other; body 3 overlapping body 2
    let mut s = Scene::new();
    s.geom(0, GeomType::Plane, [5.0, 5.0, 0.1], [0.0; 3]);
    for x in [0.0, 0.15, 0.3] {
        let b = s.body(0, 6);
        s.sphere(b, 0.1, [x, 0.0, 0.05]);
    }
    s.m.opt.enableflags = ENBL_SLEEP;
    s.finish();
    let (xpos, xmat) = (s.xpos.clone(), s.xmat.clone());
    let mut state = State::new(&xpos, &xmat);
    let mut stage = CollisionStage::new();
    let mut out = Vec::new();

    // sleep enabled but no sleep state: refused, not a panic
    assert_eq!(stage.collide(&s.m, &state, &mut out), Err(CollideError::MissingSleepState));

    // bodies 1 and 2 asleep, 3 awake (body_awake: world static = -1)
    let awake = [-1, 0, 0, 1];
    state.sleep = Some(SleepState { body_awake: &awake, nbody_awake: 2 });
    stage.collide(&s.m, &state, &mut out).expect("collide");
    // asleep-world and asleep-asleep pairs are dropped; awake 3 touches the world and asleep 2
    assert_eq!(geoms(&out), vec![[0, 3], [2, 3]]);
}

#[test]
fn unsupported_pairs_are_reported_where_their_contacts_belong() {
    // an SDF in the world under two spheres; the sphere pair itself collides
    let mut s = Scene::new();
    s.geom(0, GeomType::Sdf, [1.0, 1.0, 0.1], [0.0; 3]);
    let b1 = s.body(0, 6);
    s.sphere(b1, 0.1, [0.0, 0.0, 0.05]);
    let b2 = s.body(0, 6);
    s.sphere(b2, 0.1, [0.15, 0.0, 0.05]);
    s.finish();
    let state = State::new(&s.xpos, &s.xmat);
    let mut out = Vec::new();
    let rep = CollisionStage::new().collide(&s.m, &state, &mut out).expect("collide");
    // body pairs (0,1), (0,2), (1,2): SDF pairs have no Rust collider
    assert_eq!(geoms(&out), vec![[1, 2]]);
    let un: Vec<([usize; 2], usize)> = rep.unsupported.iter().map(|u| (u.geom, u.index)).collect();
    // the pair in MuJoCo's type order: the sphere (type 2) before the SDF (type 8)
    assert_eq!(un, vec![([1, 0], 0), ([2, 0], 0)]);
    assert_eq!(rep.pairs_tested, 3);
    assert_eq!(rep.body_pairs, 3);
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let mut s = parent_child(1);
    s.finish();
    let mut out = Vec::new();
    let short = &s.xpos[..1];
    let state = State::new(short, &s.xmat);
    assert!(matches!(CollisionStage::new().collide(&s.m, &state, &mut out), Err(CollideError::State(_))));
    s.m.geom_bodyid[1] = 99;
    let state = State::new(&s.xpos, &s.xmat);
    assert!(matches!(CollisionStage::new().collide(&s.m, &state, &mut out), Err(CollideError::Model(_))));
}

#[test]
fn contact_filter_replaces_geom_bitmasks() {
    // sphere 0 (body 1) overlaps sphere 1 (body 2), whose bitmasks (2, 0) cannot meet (1, 1);
    // body 2's far sphere 2 makes the body aggregates (3, 1) meet, so the broadphase keeps the
    // body pair and only the geom test rejects (0, 1)
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    let g1 = s.sphere(b2, 0.1, [0.15, 0.0, 0.0]);
    s.sphere(b2, 0.1, [5.0, 0.0, 0.0]);
    (s.m.geom_contype[g1], s.m.geom_conaffinity[g1]) = (2, 0);
    assert!(s.collide().is_empty());
    // a filter that keeps everything replaces the bitmask test: (0, 1) collides
    let keep = |_: usize, _: usize| false;
    let state = State { contact_filter: Some(&keep), ..State::new(&s.xpos, &s.xmat) };
    let mut out = Vec::new();
    CollisionStage::new().collide(&s.m, &state, &mut out).expect("collide");
    assert_eq!(geoms(&out), vec![[0, 1]]);
    // and one that discards it wins
    let drop01 = |a: usize, b: usize| (a, b) == (0, 1);
    let state = State { contact_filter: Some(&drop01), ..State::new(&s.xpos, &s.xmat) };
    CollisionStage::new().collide(&s.m, &state, &mut out).expect("collide");
    assert!(out.is_empty());
}
