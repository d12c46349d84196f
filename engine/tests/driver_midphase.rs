//! The mid-phase trees matter when the inner nodes prune with a smaller margin than the leaves:
//! under `override` the inner nodes use the override margin alone, the leaves margin + gap.

#[path = "driver_common.rs"]
mod common;

use common::{geoms, Scene, I3};
use specula_engine::collision::bvh::build_body_tree;
use specula_engine::collision::model::{DSBL_MIDPHASE, ENBL_OVERRIDE};
use specula_engine::collision::{CollisionStage, State};
use specula_engine::contact::Contact;

/// Two free bodies at z = 1, each with spheres (r 0.1, gap 0.1) at x = 0 and x = 1; body 2 is
/// 0.25 further along y, so facing spheres are 0.05 apart (inside the 0.2 gap, excluded).
/// Trees built with the inertial frame at x = 0.5.
fn scene() -> Scene {
    let mut s = Scene::new();
    for y in [0.0, 0.25] {
        let b = s.body(0, 6);
        for x in [0.0, 1.0] {
            let g = s.sphere(b, 0.1, [x, y, 1.0]);
            s.m.geom_gap[g] = 0.1;
        }
    }
    s.finish();
    let ident = [1.0, 0.0, 0.0, 0.0];
    for b in 1..3 {
        let adr = s.m.body_geomadr[b] as usize;
        let leaves: Vec<_> =
            (adr..adr + 2).map(|g| (g, [(g - adr) as f64, 0.0, 0.0], ident, [0.0, 0.0, 0.0, 0.1, 0.1, 0.1])).collect();
        let tree = build_body_tree(&leaves, &[0.5, 0.0, 0.0], &ident);
        s.m.body_bvhadr[b] = s.m.bvh_aabb.len() as i32;
        s.m.body_bvhnum[b] = tree.aabb.len();
        s.m.bvh_aabb.extend(tree.aabb);
        s.m.bvh_child.extend(tree.child);
        s.m.bvh_nodeid.extend(tree.nodeid);
    }
    s
}

fn run(s: &Scene, with_frames: bool) -> Vec<Contact> {
    let xipos = [[0.0; 3], [0.5, 0.0, 1.0], [0.5, 0.25, 1.0]];
    let ximat = [I3; 3];
    let mut state = State::new(&s.xpos, &s.xmat);
    if with_frames {
        state.body_xipos = Some(&xipos);
        state.body_ximat = Some(&ximat);
    }
    let mut out = Vec::new();
    CollisionStage::new().collide(&s.m, &state, &mut out).expect("collide");
    out
}

#[test]
fn tree_root_is_a_box_around_both_leaves() {
    let s = scene();
    // root: x in [-0.6, 0.6] around the inertial origin, leaves at -0.5 and +0.5
    let r = s.m.bvh_aabb[0];
    assert!((r[3] - 0.6).abs() < 1e-15 && r[0].abs() < 1e-15, "{r:?}");
    assert_eq!(s.m.bvh_child[0], [1, 2]);
    assert_eq!(&s.m.bvh_nodeid[0..3], &[-1, 0, 1]);
}

#[test]
fn override_margin_prunes_at_inner_nodes() {
    // MuJoCo 4.0.0 on the same scene as MJCF: without override (0,2) and (1,3) at dist 0.05,
    // excluded; with override and o_margin 0, none with the mid-phase, both without it.
    let mut s = scene();
    assert_eq!(geoms(&run(&s, true)), vec![[0, 2], [1, 3]]);
    // root boxes are 0.05 apart in y; the override margin (0) is all the inner test allows
    s.m.opt.enableflags = ENBL_OVERRIDE;
    s.m.opt.o_margin = 0.0;
    assert!(run(&s, true).is_empty());
    // without body frames the driver cannot traverse the trees and tests the leaves directly
    assert_eq!(geoms(&run(&s, false)), vec![[0, 2], [1, 3]]);
    s.m.opt.disableflags = DSBL_MIDPHASE;
    assert_eq!(geoms(&run(&s, true)), vec![[0, 2], [1, 3]]);
}
