//! Speculative contacts of non-plane pairs compared with MuJoCo 4.0.0 (Python bindings,
//! `mujoco==4.0.0`): face clipping, edges lying in faces, parallel capsules, per-point line of
//! sight and the end-of-step rule.
//!
//! Probes: compile the MJCF in the comment, set the state, `mujoco.mj_forward(m, d)`, read
//! `d.contact[:d.ncon]`; poses and motions below are MuJoCo's `geom_xpos`, `geom_xmat` and
//! `h qvel`-derived sweeps of that state (hinges: `dx = h w x (c - anchor)`, `dw = h w`).

use specula_engine::math::IDENTITY9;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, GeomType};
use specula_engine::speculative::sight::segment_hits;
use specula_engine::speculative::sweep::{min_half_extent, primitive_half_extents};
use specula_engine::speculative::{
    speculative_contacts, GeomMotion, Integrator, PairParams, SpeculativeOptions, SweptGeom,
};

fn geom(ty: GeomType, size: [f64; 3], pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    let rbound = match ty {
        GeomType::Box => (size[0] * size[0] + size[1] * size[1] + size[2] * size[2]).sqrt(),
        GeomType::Capsule => size[0] + size[1],
        _ => 0.0,
    };
    Geom { ty, size, pos, mat, rbound, hull: None, hfield: None }
}

fn plate(pos: [f64; 3], mat: [f64; 9]) -> Geom<'static> {
    geom(GeomType::Box, [0.001, 0.02, 0.02], pos, mat)
}

fn swept(g: Geom<'static>, dx: [f64; 3], dw: [f64; 3]) -> SweptGeom<'static> {
    let half = primitive_half_extents(g.ty, &g.size).unwrap_or([f64::INFINITY; 3]);
    SweptGeom { geom: g, motion: GeomMotion { dx, dw }, min_half: min_half_extent(g.ty, &half) }
}

/// MuJoCo 4.0.0 defaults: multiccd on (it is a disable flag), default contact parameters.
fn options(h: f64) -> SpeculativeOptions {
    SpeculativeOptions {
        timestep: h,
        integrator: Integrator::Euler,
        refsafe: true,
        collide: CollideOptions { multiccd: true, ..CollideOptions::default() },
    }
}

const DEFAULT: PairParams = PairParams { margin: 0.0, solref: [0.02, 1.0], solimp: [0.9, 0.95, 0.001, 0.5, 2.0] };
/// The cradle's plates: `solref="0 -499" solimp="0.995 0.995 0.001"` (no stiffness: dist is
/// `margin - width`).
const CRADLE: PairParams = PairParams { margin: 0.0, solref: [0.0, -499.0], solimp: [0.995, 0.995, 0.001, 0.5, 2.0] };

/// Runs the pair with `occluded` applied to each of the three line-of-sight segments of every
/// point (whichever geom they are seen from).
fn run<F>(s1: &SweptGeom, s2: &SweptGeom, pair: &PairParams, h: f64, mut occluded: F) -> Vec<ContactPoint>
where
    F: FnMut(&[f64; 3], &[f64; 3]) -> bool,
{
    let mut out = [ContactPoint::default(); 8];
    let n = speculative_contacts(s1, s2, pair, &options(h), |_, a, b| occluded(a, b), &mut out);
    out[..n].to_vec()
}

fn has_pos(cs: &[ContactPoint], p: [f64; 3], tol: f64) -> bool {
    cs.iter().any(|c| (0..3).all(|i| (c.pos[i] - p[i]).abs() < tol))
}

#[test]
fn swinging_plate_clips_the_resting_plate_face() {
    // <option timestep="0.004"><flag speculative="enable"/></option>
    // <body pos="0 0 0.5"><joint type="hinge" axis="0 1 0"/>
    //   <geom type="box" pos="0 0 -0.2" size="0.001 0.02 0.02" density="7850"/></body>
    // <body pos="0.012 0 0.5"><joint type="hinge" axis="0 1 0"/> (same plate)</body>
    // key qvel="-10 0", one mj_step, then mj_forward: 4 contacts, dist -0.10243001559722756,
    // two at the swinging plate's bottom corners, two where the resting plate's top edge
    // lands on the swinging plate's face (2.3 degrees apart at t = 0)
    let p1 = plate(
        [0.007997866837326832, 0.0, 0.3001599786678044],
        [0.9992001066609779, -0.0, -0.03998933418663416, 0.0, 1.0, -0.0, 0.03998933418663416, 0.0, 0.9992001066609779],
    );
    let p2 = plate([0.012, 0.0, 0.3], IDENTITY9);
    let s1 = swept(p1, [0.007993600853287824, 0.0, 0.0003199146734930733], [0.0, -0.04, 0.0]);
    let s2 = swept(p2, [0.0; 3], [0.0; 3]);
    let cs = run(&s1, &s2, &DEFAULT, 0.004, |_, _| false);
    assert_eq!(cs.len(), 4, "{cs:?}");
    for c in &cs {
        assert!((c.dist + 0.10243001559722756).abs() < 1e-9, "{}", c.dist);
        assert!((c.frame[0] - 1.0).abs() < 1e-9);
    }
    for y in [0.02, -0.02] {
        assert!(has_pos(&cs, [0.009796853627720493, y, 0.2802159658687715], 1e-12), "{cs:?}");
        assert!(has_pos(&cs, [0.008209707582611529, y, 0.3198734527916091], 1e-12), "{cs:?}");
    }
}

/// Newton's cradle (`scenes/newton_cradle.xml`, key `swing`) after 400 steps: plate 3 swings
/// back at 9 rad/s onto plate 1 (plate 2 between them, pressed against plate 3).
fn cradle_step400() -> (SweptGeom<'static>, SweptGeom<'static>, Geom<'static>) {
    let p1 = plate(
        [0.013543015732720882, 0.0, 0.30355529538902637],
        [0.982223523054868, -0.0, -0.1877150786636044, 0.0, 1.0, -0.0, 0.1877150786636044, 0.0, 0.982223523054868],
    );
    let p2 = plate(
        [0.02074141669389865, 0.0, 0.30269820164814387],
        [
            0.9865089917592805,
            -0.0,
            -0.16370708346949325,
            0.0,
            0.9999999999999999,
            -0.0,
            0.16370708346949325,
            0.0,
            0.9865089917592805,
        ],
    );
    let p3 = plate(
        [0.02376054331152422, 0.0, 0.3014164241898611],
        [0.9929178790506945, -0.0, -0.1188027165576211, 0.0, 1.0, -0.0, 0.1188027165576211, 0.0, 0.9929178790506945],
    );
    let s1 = swept(p1, [0.00107074738291394, 0.0, 0.00020463308452175094], [0.0, -0.005450629911528432, 0.0]);
    let s3 = swept(p3, [-0.00715544469727623, 0.0, -0.0008561496233978469], [0.0, 0.03603240936761751, 0.0]);
    (s1, s3, p2)
}

#[test]
fn plate_edge_lying_in_a_face_gives_its_two_ends() {
    // MuJoCo: plates 1-3 get two contacts, dist -0.001, at (0.023882203963759042, +-0.02,
    // 0.2847938391573328): plate 1's bottom edge against plate 3's face, 5.7 degrees apart at
    // the time of impact (beyond the face tolerance), the edge within the edge tolerance
    let (s1, s3, _) = cradle_step400();
    let cs = run(&s1, &s3, &CRADLE, 0.004, |_, _| false);
    assert_eq!(cs.len(), 2, "{cs:?}");
    for y in [0.02, -0.02] {
        assert!(has_pos(&cs, [0.023882203963759042, y, 0.2847938391573328], 1e-12), "{cs:?}");
    }
    assert!(cs.iter().all(|c| (c.dist + 0.001).abs() < 1e-15));
}

#[test]
fn each_point_has_its_own_line_of_sight() {
    let (s1, s3, _) = cradle_step400();
    // a static box (size 0.0005 0.03 0.01 at (0.0215, 0.04, 0.2845), added to the cradle's
    // world body) crosses only the +y point's segment: MuJoCo keeps the -y contact alone
    let occ = geom(GeomType::Box, [0.0005, 0.03, 0.01], [0.0215, 0.04, 0.2845], IDENTITY9);
    let cs = run(&s1, &s3, &CRADLE, 0.004, |a, b| segment_hits(&occ, a, b));
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!(has_pos(&cs, [0.023882203963759042, -0.02, 0.2847938391573328], 1e-12), "{cs:?}");
    // at y = 0 it crosses both segments: no contact
    let occ = geom(GeomType::Box, [0.0005, 0.03, 0.01], [0.0215, 0.0, 0.2845], IDENTITY9);
    assert!(run(&s1, &s3, &CRADLE, 0.004, |a, b| segment_hits(&occ, a, b)).is_empty());
}

#[test]
fn the_rest_of_the_step_must_close_the_gap() {
    // cradle step 907, plates 3 and 5: the plates close 1.93 mm per step and MuJoCo has no
    // contact. In 4.0.0's advancement the pair is given up on the way (after an evaluation the
    // rest of the step's sweep cannot close the gap, or the 16 steps end short of the target and
    // the witnesses' closing speed cannot close it either)
    let p3 = plate(
        [0.1094372138423238, 0.0, 0.33259780101077074],
        [
            0.8370109949461463,
            -0.0,
            -0.5471860692116189,
            0.0,
            1.0000000000000002,
            -0.0,
            0.5471860692116189,
            0.0,
            0.8370109949461463,
        ],
    );
    let p5 = plate(
        [0.12008473014826729, 0.0, 0.3245926893418217],
        [0.8770365532908914, -0.0, -0.48042365074133636, 0.0, 1.0, -0.0, 0.48042365074133636, 0.0, 0.8770365532908914],
    );
    let s3 = swept(p3, [0.0003158960789469508, 0.0, 0.0002065133370553475], [0.0, -0.0018870485624103163, 0.0]);
    let s5 = swept(p5, [-0.0012789580400049184, 0.0, -0.0007005884628395323], [0.0, 0.007291361090971083, 0.0]);
    let imp = specula_engine::speculative::advance(&p3, &s3.motion, &p5, &s5.motion, 0.0, &CollideOptions::default());
    assert!(imp.is_none(), "{imp:?}");
    assert!(run(&s3, &s5, &CRADLE, 0.004, |_, _| false).is_empty());
}

#[test]
fn parallel_capsules_get_one_contact() {
    // <option timestep="0.00125" gravity="0 0 0"><flag speculative="enable"/></option>
    // <geom type="capsule" size="0.0015 0.008" euler="0 90 0"/>
    // <body pos="0 0 0.008"><freejoint/><geom type="capsule" size="0.0015 0.008"
    //   euler="0 90 0"/></body>, qvel z = -5: one contact, dist -0.1456, at (0, 0, 0.0065)
    // the geom_xmat MuJoCo compiles from euler="0 90 0" (not an exact quarter turn: which end of
    // a segment is the support point along the other's axis depends on the 2.2e-16 entries)
    let e = 2.220446049250313e-16;
    let rot = [e, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, e];
    let c1 = geom(GeomType::Capsule, [0.0015, 0.008, 0.0], [0.0; 3], rot);
    let c2 = geom(GeomType::Capsule, [0.0015, 0.008, 0.0], [0.0, 0.0, 0.008], rot);
    let s1 = swept(c1, [0.0; 3], [0.0; 3]);
    let s2 = swept(c2, [0.0, 0.0, -5.0 * 0.00125], [0.0; 3]);
    let cs = run(&s1, &s2, &DEFAULT, 0.00125, |_, _| false);
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].dist + 0.1456).abs() < 1e-9, "{}", cs[0].dist);
    assert!((cs[0].pos[2] - 0.0065).abs() < 1e-9 && cs[0].pos[0].abs() < 1e-6, "{:?}", cs[0].pos);
}

#[test]
fn gap_within_ccd_tolerance_impacts_at_t_zero() {
    // <option timestep="0.00125" gravity="0 0 0"><flag speculative="enable"/></option>
    // <geom type="plane" size="10 10 .1"/> <body pos="0 0 0.01"><freejoint/>
    //   <geom type="sphere" size="0.01"/></body>, qvel (10, 0, -0.0116556419): the ball is
    // fast by its sliding; gap 3e-7 gives dist -0.0032635797319999996 (t = 0), gap 2e-6 gives
    // -0.002761819732000275 (t = 0.98 gap / (h v_z)); bisection puts the switch at
    // ccd_tolerance / 0.98 (same for ccd_tolerance 1e-5 and 1e-7)
    let h = 0.00125;
    let plane = geom(GeomType::Plane, [10.0, 10.0, 0.1], [0.0; 3], IDENTITY9);
    for (gap, want) in [(3e-7, -0.0032635797319999996), (2e-6, -0.002761819732000275)] {
        let mut ball = geom(GeomType::Sphere, [0.01, 0.0, 0.0], [0.0, 0.0, 0.01 + gap], IDENTITY9);
        ball.rbound = 0.01;
        let s1 = swept(plane, [0.0; 3], [0.0; 3]);
        let s2 = swept(ball, [10.0 * h, 0.0, -0.0116556419 * h], [0.0; 3]);
        let cs = run(&s1, &s2, &DEFAULT, h, |_, _| false);
        assert_eq!(cs.len(), 1, "gap {gap}: {cs:?}");
        assert!((cs[0].dist - want).abs() < 1e-9 * want.abs(), "gap {gap}: {} vs {want}", cs[0].dist);
    }
}

#[test]
fn tilted_coin_onto_plane_uses_its_cap_up_to_the_edge_tolerance() {
    // <geom type="plane" size="1 1 .1"/>, <body pos="0 0 z" euler="A 0 0"><freejoint/>
    // <geom type="cylinder" size="0.012 0.001"/></body> 2 mm above the plane, falling at
    // 4.43 m/s (h = 1.25 ms). MuJoCo, contact positions in the coin's frame: A = 84 gives four
    // cap vertices (+-0.00849, -0.00849, -0.001), (+-0.00459, -0.01109, -0.001); A = 86 the
    // two ends (0, -0.012, -+0.001) of the lowest side line. Bisection: the switch is at
    // |cos A| = 0.0888 (84.9054 degrees).
    let h = 0.00125;
    let plane = geom(GeomType::Plane, [1.0, 1.0, 0.1], [0.0; 3], IDENTITY9);
    for (deg, want) in [
        (
            84.0f64,
            vec![
                [-0.00849, -0.00849, -0.001],
                [-0.00459, -0.01109, -0.001],
                [0.00459, -0.01109, -0.001],
                [0.00849, -0.00849, -0.001],
            ],
        ),
        (86.0, vec![[0.0, -0.012, -0.001], [0.0, -0.012, 0.001]]),
    ] {
        let (c, s) = (deg.to_radians().cos(), deg.to_radians().sin());
        let mat = [1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c];
        let z = 0.012 * s + 0.001 * c + 0.002;
        let mut coin = geom(GeomType::Cylinder, [0.012, 0.001, 0.0], [0.0, 0.0, z], mat);
        coin.rbound = (0.012f64 * 0.012 + 0.001 * 0.001).sqrt();
        let cs = run(
            &swept(plane, [0.0; 3], [0.0; 3]),
            &swept(coin, [0.0, 0.0, -4.43 * h], [0.0; 3]),
            &DEFAULT,
            h,
            |_, _| false,
        );
        assert_eq!(cs.len(), want.len(), "{deg}: {cs:?}");
        // which four of the five cap vertices in reach survive differs (this module keeps the
        // lowest one, (0, -0.012), MuJoCo drops it): only the outer two are checked
        let want: Vec<[f64; 3]> = if want.len() == 4 { vec![want[0], want[3]] } else { want };
        for w in want {
            let found = cs.iter().any(|k| {
                let d = [k.pos[0], k.pos[1], k.pos[2] - z];
                // local = mat^T d
                let l = [d[0], c * d[1] + s * d[2], -s * d[1] + c * d[2]];
                (0..3).all(|i| (l[i] - w[i]).abs() < 1e-5)
            });
            assert!(found, "{deg}: {w:?} not in {cs:?}");
        }
    }
}

#[test]
fn both_plates_moving_put_geom_2_points_along_the_normal() {
    // <option timestep="0.00125" gravity="0 0 0"><flag speculative="enable"/></option>
    // <body pos="0 0 0" euler="0 2 0"><freejoint/><geom type="box" size="0.001 0.02 0.02"/>
    // </body> <body pos="0.006 0 0.003"><freejoint/><geom type="box" size="0.001 0.02 0.02"/>
    // </body>, qvel x = +3 and -3, spin about y wA, wB (rad/s). MuJoCo (y = +-0.02 each):
    // the geom-2 point of each pair is the geom-1 point moved along the pair normal onto
    // geom 2's face (with the clipped vertex itself the z values would be 2.4e-5 lower)
    let h = 0.00125;
    let (c, s) = (0.9993908270190958, 0.03489949670250097);
    let cases = [
        (
            (0.0, 0.0),
            -0.8514388853370196,
            [[0.0027043043087253767, -0.016952688484942083], [0.0033486903805345575, 0.01995291704367941]],
        ),
        (
            (20.0, 0.0),
            -0.963662838859206,
            [[0.002507040678641324, -0.016920360123838483], [0.003206335842830024, 0.019944611148734276]],
        ),
        (
            (20.0, -20.0),
            -1.0605357199488752,
            [[0.00270499109867128, -0.016900687464999273], [0.0033486903805345566, 0.01994987218283536]],
        ),
    ];
    for ((wa, wb), dist, pts) in cases {
        let a = plate([0.0; 3], [c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c]);
        let b = plate([0.006, 0.0, 0.003], IDENTITY9);
        let sa = swept(a, [3.0 * h, 0.0, 0.0], [0.0, wa * h, 0.0]);
        let sb = swept(b, [-3.0 * h, 0.0, 0.0], [0.0, wb * h, 0.0]);
        let cs = run(&sa, &sb, &DEFAULT, h, |_, _| false);
        assert_eq!(cs.len(), 4, "{cs:?}");
        assert!(cs.iter().all(|k| (k.dist - dist).abs() < 1e-9 * dist.abs()), "{cs:?}");
        for p in pts {
            for y in [0.02, -0.02] {
                assert!(has_pos(&cs, [p[0], y, p[1]], 1e-12), "w ({wa}, {wb}): {p:?} not in {cs:?}");
            }
        }
    }
}

#[test]
fn spinning_coin_over_the_floor_needs_many_steps() {
    // scenes/thin_parts.xml, key drop, 441 mj_steps: the tilted coin (cylinder 0.012 x 0.001)
    // spins at 156 rad/s 0.151 mm over the floor, falling at 2.08 m/s; the rotation bound
    // closes the gap by a few % per advancement step. MuJoCo: two contacts, dist
    // -0.04736996821806, at (0.1257246926185571, 0.5263703059779337, 0.00015878837261937544)
    // and (0.13031766720578875, 0.5272648493726007, 0.0003233216302040874) (cap vertices). Here
    // the same points; the dist differs by 1.6% (see the `advance` notes).
    let h = 0.00125;
    let plane = geom(GeomType::Plane, [1.0, 1.0, 0.1], [0.0; 3], IDENTITY9);
    let mat = [
        0.7057691272168312,
        -0.7081992328761003,
        -0.018541456827748354,
        -0.6780124541942251,
        -0.6828112366811845,
        0.27215423388114895,
        -0.20539973472503814,
        -0.1795067174665459,
        -0.9620749905071171,
    ];
    let mut coin = geom(
        GeomType::Cylinder,
        [0.012, 0.001, 0.0],
        [0.12576385420567288, 0.5376451236618602, 0.004386902912731988],
        mat,
    );
    coin.rbound = (0.012f64 * 0.012 + 0.001 * 0.001).sqrt();
    // dx = h qvel[0..3], dw = h R qvel[3..6] (free joint, angular velocity in the body frame)
    let dx = [4.728277908090047e-06, 0.0014305253557579767, -0.002599593422536633];
    let dw = [-0.19508993245346756, -0.0022375800249264154, 0.004618952960539767];
    let cs = run(&swept(plane, [0.0; 3], [0.0; 3]), &swept(coin, dx, dw), &DEFAULT, h, |_, _| false);
    assert_eq!(cs.len(), 2, "{cs:?}");
    assert!(has_pos(&cs, [0.1257246926185571, 0.5263703059779337, 0.00015878837261937544], 1e-12), "{cs:?}");
    assert!(has_pos(&cs, [0.13031766720578875, 0.5272648493726007, 0.0003233216302040874], 1e-12), "{cs:?}");
    assert!((cs[0].dist + 0.04736996821806).abs() < 0.02 * 0.04736996821806, "{}", cs[0].dist);
}
