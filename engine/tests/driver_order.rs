//! Contact order: MuJoCo's C pipeline depends on it, so the driver must list contacts exactly
//! as `mj_collision` does. The rules (see `collision::driver`): body pairs by ascending
//! signature; explicit pairs interleaved by their signature; inside a body pair handled by the
//! mid-phase, geom pairs sorted by (geom[0], geom[1]) after the lower-type-first swap; without
//! the mid-phase, body 1's geoms outer and body 2's inner.

#[path = "driver_common.rs"]
mod common;

use common::{geoms, Scene};
use specula_engine::collision::broadphase::{broadphase, BroadphaseScratch};
use specula_engine::collision::model::DSBL_MIDPHASE;
use specula_engine::collision::{CollisionStage, State};
use specula_engine::narrowphase::GeomType;

/// Body 1: box 0 and sphere 1; body 2: sphere 2 and capsule 3, every cross pair touching;
/// bodies 3 and 4: single spheres 4 and 5, overlapping. Explicit pairs: (1, 4) with margin 2
/// (far apart, so only the pair's margin brings it in) and (4, 5) with condim 1.
fn scene() -> Scene {
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    s.geom(b1, GeomType::Box, [0.1, 0.1, 0.1], [0.0; 3]);
    s.sphere(b1, 0.1, [0.0, 0.15, 0.0]);
    let b2 = s.body(0, 6);
    s.sphere(b2, 0.1, [0.15, 0.08, 0.0]);
    s.geom(b2, GeomType::Capsule, [0.05, 0.1, 0.0], [0.1, 0.06, 0.05]);
    let b3 = s.body(0, 6);
    s.sphere(b3, 0.1, [2.0, 0.0, 0.0]);
    let b4 = s.body(0, 6);
    s.sphere(b4, 0.1, [2.15, 0.0, 0.0]);
    let p = s.pair(1, 4);
    s.m.pair_margin[p] = 2.0;
    let p = s.pair(4, 5);
    s.m.pair_dim[p] = 1;
    s
}

#[test]
fn midphase_sorts_geom_pairs_and_explicit_pairs_interleave() {
    // Measured with MuJoCo 4.0.0 on the same scene written as MJCF (mujoco.mj_collision):
    // geom pairs (1,2) (1,3) (2,0) (3,0) (1,4) (4,5), one contact each; dims 3 3 3 3 3 1.
    // Body pair (1,2) first, its pairs sorted: sphere-sphere (1,2), sphere-capsule (1,3), then
    // the box pairs stored lower type first (2,0), (3,0). Explicit pair (1,4) has signature
    // (1,3), between the body pairs (1,2) and (3,4); (4,5) replaces the automatic pair of (3,4).
    let mut s = scene();
    let c = s.collide();
    assert_eq!(geoms(&c), vec![[1, 2], [1, 3], [2, 0], [3, 0], [1, 4], [4, 5]]);
    assert_eq!(c.iter().map(|c| c.dim).collect::<Vec<_>>(), vec![3, 3, 3, 3, 3, 1]);
}

#[test]
fn without_midphase_geom_pairs_follow_the_body_loops() {
    // MuJoCo 4.0.0 with disableflags midphase: (2,0) (3,0) (1,2) (1,3) (1,4) (4,5).
    let mut s = scene();
    s.m.opt.disableflags = DSBL_MIDPHASE;
    assert_eq!(geoms(&s.collide()), vec![[2, 0], [3, 0], [1, 2], [1, 3], [1, 4], [4, 5]]);
}

#[test]
fn repeated_calls_reuse_the_stage_and_agree() {
    let mut s = scene();
    s.finish();
    let state = State::new(&s.xpos, &s.xmat);
    let mut stage = CollisionStage::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let r1 = stage.collide(&s.m, &state, &mut a).expect("collide");
    let r2 = stage.collide(&s.m, &state, &mut b).expect("collide");
    assert_eq!(a, b);
    assert_eq!(r1, r2);
    assert_eq!(r1.body_pairs, 2);
    assert_eq!(r1.pairs_tested, 6);
}

#[test]
fn broadphase_finds_exactly_the_overlapping_neighbours() {
    // ten unit-spaced spheres on a line, radius 0.6: each overlaps only its neighbours
    let mut s = Scene::new();
    for i in 0..10 {
        let b = s.body(0, 6);
        s.sphere(b, 0.6, [i as f64, 0.0, 0.0]);
    }
    s.finish();
    let state = State::new(&s.xpos, &s.xmat);
    let mut sc = BroadphaseScratch::default();
    broadphase(&s.m, &state, false, None, &mut sc);
    let want: Vec<u32> = (1..10u32).map(|b| (b << 16) + b + 1).collect();
    assert_eq!(sc.pairs, want);
}

#[test]
fn world_geoms_pair_with_every_body_without_a_bounding_test() {
    // a world sphere far from everything is still paired with each body by the broadphase
    // (always-colliding world pairs); the narrowphase then finds nothing
    let mut s = Scene::new();
    s.sphere(0, 0.1, [100.0, 0.0, 0.0]);
    for i in 0..3 {
        let b = s.body(0, 6);
        s.sphere(b, 0.1, [i as f64, 0.0, 0.0]);
    }
    s.finish();
    let state = State::new(&s.xpos, &s.xmat);
    let mut sc = BroadphaseScratch::default();
    broadphase(&s.m, &state, false, None, &mut sc);
    assert_eq!(sc.pairs, vec![1, 2, 3]);
    let mut out = Vec::new();
    let rep = CollisionStage::new().collide(&s.m, &state, &mut out).expect("collide");
    assert!(out.is_empty());
    // the bounding-sphere filter stops them before the narrowphase
    assert_eq!(rep.pairs_tested, 0);
}
