//! Contact parameter mixing (`mj_contactParam`, `mj_setContact`), checked on two overlapping
//! free spheres with hand-derived expectations from XMLreference's contact-parameter rules:
//! priority decides outright; at equal priority condim and friction take the max and
//! solref/solimp are mixed by solmix weight (direct solref: element-wise min); explicit pairs use
//! their own values; `override` replaces them; includemargin = margin, contacts in the gap are
//! excluded unless adhesive.

#[path = "driver_common.rs"]
mod common;

use common::Scene;
use specula_engine::collision::model::ENBL_OVERRIDE;
use specula_engine::collision::params::MINMU;
use specula_engine::contact::Contact;

/// Geoms 0 and 1 on two free bodies, overlapping by 0.05 along x.
fn two_spheres() -> Scene {
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    s.sphere(b2, 0.1, [0.15, 0.0, 0.0]);
    s
}

fn one(s: &mut Scene) -> Contact {
    let c = s.collide();
    assert_eq!(c.len(), 1);
    c[0]
}

#[test]
fn solmix_weights_solref_and_solimp() {
    // solmix 0.25 vs 0.75: mix = 0.25 / (0.25 + 0.75) = 0.25 on geom 0.
    // solref = 0.25 * (0.02, 1) + 0.75 * (0.04, 0.5) = (0.035, 0.625);
    // solimp = 0.25 * (0.9 0.95 0.001 0.5 2) + 0.75 * (0.5 0.75 0.005 0.1 6) = (0.6 0.8 0.004 0.2 5).
    // MuJoCo 4.0.0 gives solref [0.034999999999999996, 0.625] for the same two spheres
    // (mujoco.mj_collision on the equivalent MJCF), the bits of 0.25*0.02 + 0.75*0.04.
    let mut s = two_spheres();
    s.m.geom_solmix = vec![0.25, 0.75];
    s.m.geom_solref = vec![[0.02, 1.0], [0.04, 0.5]];
    s.m.geom_solimp = vec![[0.9, 0.95, 0.001, 0.5, 2.0], [0.5, 0.75, 0.005, 0.1, 6.0]];
    let c = one(&mut s);
    assert_eq!(c.solref, [0.034999999999999996, 0.625]);
    let want = [0.6, 0.8, 0.004, 0.2, 5.0];
    for (k, (got, want)) in c.solimp.iter().zip(want).enumerate() {
        assert!((got - want).abs() < 1e-15, "solimp[{k}] = {got}");
    }
}

#[test]
fn equal_priority_takes_max_condim_and_friction() {
    let mut s = two_spheres();
    s.m.geom_condim = vec![4, 3];
    s.m.geom_friction = vec![[1.0, 0.01, 0.002], [0.5, 0.02, 0.001]];
    let c = one(&mut s);
    assert_eq!(c.dim, 4);
    // friction (sliding, torsional, rolling) expands to (s, s, t, r, r)
    assert_eq!(c.friction, [1.0, 1.0, 0.02, 0.002, 0.002]);
}

#[test]
fn higher_priority_wins_everything() {
    let mut s = two_spheres();
    s.m.geom_priority = vec![0, 2];
    s.m.geom_condim = vec![6, 1];
    s.m.geom_friction = vec![[2.0, 0.1, 0.01], [0.3, 0.001, 0.0]];
    s.m.geom_solref = vec![[0.05, 2.0], [0.01, 0.9]];
    s.m.geom_adhesion = vec![3.0, 0.5];
    let c = one(&mut s);
    assert_eq!(c.dim, 1);
    assert_eq!(c.solref, [0.01, 0.9]);
    // zero rolling friction is raised to mjMINMU
    assert_eq!(c.friction, [0.3, 0.3, 0.001, MINMU, MINMU]);
    assert_eq!(c.adhesion, 0.5, "the winner's adhesion only");
}

#[test]
fn equal_priority_adds_adhesion() {
    let mut s = two_spheres();
    s.m.geom_adhesion = vec![3.0, 0.5];
    assert_eq!(one(&mut s).adhesion, 3.5);
}

#[test]
fn direct_solref_takes_the_elementwise_min() {
    let mut s = two_spheres();
    s.m.geom_solref = vec![[-1000.0, -10.0], [0.02, 1.0]];
    assert_eq!(one(&mut s).solref, [-1000.0, -10.0]);
}

#[test]
fn zero_solmix_gives_the_other_geom_full_weight() {
    let mut s = two_spheres();
    s.m.geom_solref = vec![[0.02, 1.0], [0.04, 0.5]];
    s.m.geom_solmix = vec![0.0, 1.0];
    assert_eq!(one(&mut s).solref, [0.04, 0.5]);
    s.m.geom_solmix = vec![1.0, 0.0];
    assert_eq!(one(&mut s).solref, [0.02, 1.0]);
    // both zero: equal weights, 0.5 * 0.02 + 0.5 * 0.04
    s.m.geom_solmix = vec![0.0, 0.0];
    assert_eq!(one(&mut s).solref, [0.5 * 0.02 + 0.5 * 0.04, 0.75]);
}

#[test]
fn margin_gap_exclusion_and_adhesion() {
    // surfaces 0.03 apart; margin 0.01 + 0.01, gap 0.02 on geom 1: detected (0.03 < 0.04),
    // includemargin 0.02, dist 0.03 >= 0.02 so in the gap: excluded
    let mut s = Scene::new();
    let b1 = s.body(0, 6);
    s.sphere(b1, 0.1, [0.0; 3]);
    let b2 = s.body(0, 6);
    s.sphere(b2, 0.1, [0.23, 0.0, 0.0]);
    s.m.geom_margin = vec![0.01, 0.01];
    s.m.geom_gap = vec![0.0, 0.02];
    let c = one(&mut s);
    assert_eq!(c.includemargin, 0.02);
    assert!((c.dist - 0.03).abs() < 1e-15);
    assert_eq!((c.exclude, c.dim), (1, 3));
    // adhesive: stays active in the gap, reduced to the normal row
    s.m.geom_adhesion = vec![1.0, 0.0];
    let c = one(&mut s);
    assert_eq!((c.exclude, c.dim), (0, 1));
    // within the margin: active with full condim
    s.xpos[1] = [0.21, 0.0, 0.0];
    s.m.geom_adhesion = vec![0.0, 0.0];
    let c = one(&mut s);
    assert_eq!((c.exclude, c.dim), (0, 3));
}

#[test]
fn explicit_pair_uses_its_own_parameters() {
    let mut s = two_spheres();
    let p = s.pair(0, 1);
    s.m.pair_dim[p] = 6;
    s.m.pair_friction[p] = [0.7, 0.6, 0.05, 0.004, 0.003];
    s.m.pair_solref[p] = [0.03, 0.8];
    s.m.pair_solimp[p] = [0.8, 0.9, 0.002, 0.4, 3.0];
    s.m.pair_margin[p] = 0.01;
    let c = one(&mut s);
    assert_eq!(c.dim, 6);
    assert_eq!(c.friction, [0.7, 0.6, 0.05, 0.004, 0.003]);
    assert_eq!(c.solref, [0.03, 0.8]);
    assert_eq!(c.solimp, [0.8, 0.9, 0.002, 0.4, 3.0]);
    assert_eq!(c.includemargin, 0.01);
    assert_eq!(c.solreffriction, [0.0, 0.0], "unset: zeros");
    s.m.pair_solreffriction[p] = [0.04, 1.1];
    assert_eq!(one(&mut s).solreffriction, [0.04, 1.1]);
}

#[test]
fn override_replaces_margin_solref_solimp_friction() {
    let mut s = two_spheres();
    s.m.geom_margin = vec![0.5, 0.5];
    s.m.opt.enableflags = ENBL_OVERRIDE;
    s.m.opt.o_margin = 0.01;
    s.m.opt.o_solref = [0.03, 0.9];
    s.m.opt.o_solimp = [0.7, 0.8, 0.01, 0.3, 4.0];
    s.m.opt.o_friction = [0.5, 0.5, 0.0, 0.0, 0.0];
    let c = one(&mut s);
    assert_eq!(c.includemargin, 0.01);
    assert_eq!(c.solref, [0.03, 0.9]);
    // solreffriction goes through the same override as solref
    assert_eq!(c.solreffriction, [0.03, 0.9]);
    assert_eq!(c.solimp, [0.7, 0.8, 0.01, 0.3, 4.0]);
    assert_eq!(c.friction, [0.5, 0.5, MINMU, MINMU, MINMU]);
}

#[test]
fn surface_velocity_is_geom1_minus_geom0_in_the_contact_frame() {
    // geom 1 moves its surface along +y at 0.3 and spins at 2 about z. The normal is +x (geom 0
    // to geom 1), tangent 1 is world y and tangent 2 world z (mju_makeFrame's default), so the
    // spin about the normal is 0 and only tangent 1 sees the linear part plus w x r.
    let mut s = two_spheres();
    s.m.geom_surfacevel[1] = [0.0, 0.3, 0.0, 0.0, 0.0, 2.0];
    let c = one(&mut s);
    assert_eq!(&c.frame[0..3], &[1.0, 0.0, 0.0]);
    assert_eq!(&c.frame[3..6], &[0.0, 1.0, 0.0]);
    // contact point midway in the overlap: x = 0.075; arm from geom 1's centre = (-0.075, 0, 0)
    // w x r = (0, 0, 2) x (-0.075, 0, 0) = (0, -0.15, 0): material velocity (0, 0.15, 0)
    assert!((c.pos[0] - 0.075).abs() < 1e-15);
    assert!((c.surfacevel[0] - 0.15).abs() < 1e-15);
    assert_eq!(c.surfacevel[1], 0.0);
    assert_eq!(c.surfacevel[2], 0.0);
    // the same motion on geom 0 flips the sign
    s.m.geom_surfacevel = vec![[0.0, 0.3, 0.0, 0.0, 0.0, 0.0], [0.0; 6]];
    assert_eq!(one(&mut s).surfacevel, [-0.3, 0.0, 0.0]);
}
