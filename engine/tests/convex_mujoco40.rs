//! Multi-contact details that changed in MuJoCo 4.0.0 ("improved numerical stability of
//! nativeccd and multiccd", changelog 4.0.0 item 27), on real corpus scenes.
//!
//! Probe: `specula diff SCENE` runs MuJoCo 4.0.0's `mj_collision` on each state of its own
//! trajectory and the Rust stage on the same poses; the geom poses (`geom_xpos`, `geom_xmat`)
//! and MuJoCo's contacts (`d.contact[i].dist/pos/frame`) below were printed from that run at the
//! step named in each test. The hulls come from specula's compile of the same scene file.
//! Without the corpus each test says that it was skipped.

mod common;

use specula_engine::collision::CollisionModel;
use specula_engine::narrowphase::convex::collide_convex;
use specula_engine::narrowphase::{CollideOptions, ContactPoint, Geom, MAX_CONTACTS};

/// Geom `g` of the compiled scene at the given pose.
fn posed<'a>(m: &'a CollisionModel, g: usize, pos: [f64; 3], mat: [f64; 9]) -> Geom<'a> {
    let hull = usize::try_from(m.geom_dataid[g]).ok().and_then(|i| m.hulls.get(i)).and_then(|h| h.as_ref());
    Geom { ty: m.geom_type[g], size: m.geom_size[g], pos, mat, rbound: m.geom_rbound[g], hull, hfield: None }
}

/// MuJoCo 4.0.0's options for these scenes (defaults: multi-contact on).
fn opt() -> CollideOptions {
    CollideOptions { multiccd: true, ..CollideOptions::default() }
}

/// Every expected contact (dist, pos, normal) has a computed one within `tol`, and the counts agree.
fn assert_contacts(got: &[ContactPoint], want: &[(f64, [f64; 3], [f64; 3])], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (d, p, n) in want {
        let err = |c: &ContactPoint| {
            let mut e = (c.dist - d).abs();
            for k in 0..3 {
                e = e.max((c.pos[k] - p[k]).abs()).max((c.frame[k] - n[k]).abs());
            }
            e
        };
        let best = got.iter().map(err).fold(f64::INFINITY, f64::min);
        assert!(best <= tol, "no contact near {d} {p:?} {n:?} (best {best:e}): {got:?}");
    }
}

fn collide(g1: &Geom, g2: &Geom) -> Vec<ContactPoint> {
    let mut out = [ContactPoint::default(); MAX_CONTACTS];
    let n = collide_convex(g1, g2, 0.0, &opt(), &mut out);
    out[..n].to_vec()
}

/// A box face against a mesh face tilted by about 1.2 degrees: 4.0.0 projects each clipped
/// point onto the clipping (box) face along its normal and measures depth along the mesh face
/// normal, so depths shrink by the cosine of the tilt and points slide (3.12 moved the points
/// along the mesh normal by their height over the box face: positions off by 2e-4 here).
///
/// probe: mjx/mujoco/mjx/test_data/convex.xml, step 232, geoms 3 (box1) and 4 (mesh pyramid).
#[test]
fn tilted_faces_project_onto_clipping_face() {
    let Some(path) = common::corpus_file("mjx/mujoco/mjx/test_data/convex.xml") else { return };
    let model = specula_model::load_file(&path).expect("scene compiles");
    let m = CollisionModel::from(&model);
    let b = posed(
        &m,
        3,
        [1.6642482766634254e-3, 1.9983710410371458, 1.7387809111992827],
        [
            7.067354691939148e-1,
            -7.071057678483176e-1,
            2.294361913249337e-2,
            7.070925300402414e-1,
            7.07049220831707e-1,
            1.0077364862153266e-2,
            -2.3348030849429435e-2,
            9.101230516582274e-3,
            9.996859692216035e-1,
        ],
    );
    let p = posed(
        &m,
        4,
        [-1.7453283658983062e-4, 1.9998254674292388, 2.039420975382888],
        [
            -1.7453283658982882e-3,
            -7.071057042016067e-1,
            7.071057042016069e-1,
            -1.7453257076119333e-3,
            -7.07103550233362e-1,
            -7.071078581698516e-1,
            9.999969538288977e-1,
            -2.468265166155559e-3,
            -1.879692443362835e-9,
        ],
    );
    let n = [-1.745328365898277e-3, -1.745325707619653e-3, 9.999969538288953e-1];
    let want = [
        (-2.6660120560486936e-3, [3.383111789811648e-3, 1.7205065013319658, 1.9402723845831527], n),
        (-6.268611658206403e-3, [-2.765098049124135e-1, 2.0003833225524086, 1.9420736610353344], n),
    ];
    assert_contacts(&collide(&b, &p), &want, 1e-9);
}

/// Several mesh faces at the touching vertex are within 5 degrees of the opposing face: 4.0.0
/// takes the most nearly opposed pair among faces that face each other along the contact
/// direction (3.12 took the first within tolerance; its normal here was off by 0.14).
///
/// probe: model/replicate/bunnies.xml, step 20, geoms 16 and 21 (two bunnies).
#[test]
fn most_opposed_faces_are_clipped() {
    let Some(path) = common::corpus_file("model/replicate/bunnies.xml") else { return };
    let model = specula_model::load_file(&path).expect("scene compiles");
    let m = CollisionModel::from(&model);
    let a = posed(
        &m,
        16,
        [-3.7305617417823633e-1, 7.674842807607662e-2, 4.5396850621386287e-1],
        [
            1.3328154104990447e-1,
            -6.58088591509517e-1,
            7.410502253831333e-1,
            2.974879636477248e-1,
            -6.866766709888488e-1,
            -6.633069131287658e-1,
            9.453766140010564e-1,
            3.088600900807713e-1,
            1.0425211007555306e-1,
        ],
    );
    let b = posed(
        &m,
        21,
        [-3.730483103114368e-1, 2.3128714349568597e-1, 4.5534919181949673e-1],
        [
            1.331256108264195e-1,
            -6.685190602996925e-1,
            7.316828805965871e-1,
            3.5553140720657106e-1,
            -6.569062722335417e-1,
            -6.648846275783177e-1,
            9.251351199861666e-1,
            3.4864941634292024e-1,
            1.502284735059669e-1,
        ],
    );
    let n = [-5.627768001277708e-2, 9.810835879899831e-1, 1.8522369208360173e-1];
    let want = [
        (-2.0454274627958413e-4, [-3.6968455430121583e-1, 1.7080934406739834e-1, 4.2569830660307495e-1], n),
        (-2.1976106784090798e-4, [-3.693759061671014e-1, 1.7081996207544112e-1, 4.2577692513715265e-1], n),
        (-1.955243197741408e-4, [-3.690634687988999e-1, 1.7090720120444491e-1, 4.2534434640321206e-1], n),
        (-1.7523705182662339e-4, [-3.694976070058633e-1, 1.708901079074204e-1, 4.2524821406729635e-1], n),
    ];
    // 1e-6 (the CCD tolerance): the hull compiled here differs from the one in the probe run
    // by float rounding (normals agree to 3e-7)
    assert_contacts(&collide(&a, &b), &want, 1e-6);
}
