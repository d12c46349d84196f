//! The height-field pair function against MuJoCo 4.0.0's own (`mjc_ConvexHField`, called
//! through `mjCOLLISIONFUNC` on the same poses): a random terrain on a free body against each
//! convex geom type on random poses, with and without margins.
//!
//! With MuJoCo's compiled model (`from_c`), every pose must agree bit for bit: the same
//! contacts, in the same order, with dist, pos and frame exactly equal. With specula's own
//! compiler the same holds to 1e-9 (its mesh hull and height-field data are compared with
//! MuJoCo's by `check`). `ORACLE_VERBOSE=1` lists disagreeing poses.

use specula::mj::collision::library_pair_contacts;
use specula::mj::{Data, Model};
use specula_engine::collision::CollisionModel;
use specula_engine::narrowphase::{table, CollideOptions, ContactPoint, Geom, GeomType, MAX_CONTACTS};

mod common;
use common::Rng;

const POSES: usize = 400;

fn geom_xml(t: GeomType, rng: &mut Rng) -> String {
    let s = |rng: &mut Rng| rng.range(0.04, 0.2);
    match t {
        GeomType::Sphere => format!(r#"type="sphere" size="{}""#, s(rng)),
        GeomType::Capsule => format!(r#"type="capsule" size="{} {}""#, s(rng), s(rng)),
        GeomType::Ellipsoid => format!(r#"type="ellipsoid" size="{} {} {}""#, s(rng), s(rng), s(rng)),
        GeomType::Cylinder => format!(r#"type="cylinder" size="{} {}""#, s(rng), s(rng)),
        GeomType::Box => format!(r#"type="box" size="{} {} {}""#, s(rng), s(rng), s(rng)),
        GeomType::Mesh => r#"type="mesh" mesh="poly""#.to_string(),
        _ => unreachable!("not a convex geom"),
    }
}

/// A random terrain (geom 0, on a free body) and a geom of type `t` (geom 1, on a free body).
fn scene(t: GeomType, rng: &mut Rng) -> String {
    let (nrow, ncol) = (3 + (rng.range(0.0, 9.0) as usize), 3 + (rng.range(0.0, 9.0) as usize));
    let elevation: Vec<String> = (0..nrow * ncol).map(|_| format!("{:.4}", rng.range(0.0, 1.0))).collect();
    let (sx, sy, sz, base) = (rng.range(0.3, 0.6), rng.range(0.3, 0.6), rng.range(0.05, 0.3), rng.range(0.02, 0.2));
    let mesh = r#"<mesh name="poly" vertex="0.2 0 0  -0.15 0.1 0.05  0 -0.18 0.1  0 0.05 -0.2  0.1 0.12 0.15
        -0.1 -0.1 -0.1  0.05 0.2 -0.05  -0.2 0.02 0.12"/>"#;
    format!(
        r#"<mujoco><asset>{mesh}<hfield name="terrain" nrow="{nrow}" ncol="{ncol}" size="{sx} {sy} {sz} {base}"
        elevation="{}"/></asset><worldbody>
        <body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><geom type="hfield" hfield="terrain"/></body>
        <body><freejoint/><geom {}/></body></worldbody></mujoco>"#,
        elevation.join(" "),
        geom_xml(t, rng)
    )
}

/// Poses compared, poses that agreed, poses with contacts, the first disagreement.
fn run(t: GeomType, seed: u64, mujocos_model: bool, tol: f64) -> (usize, usize, usize, String) {
    let mut rng = Rng(seed);
    let xml = scene(t, &mut rng);
    let c = Model::from_xml_str(&xml).unwrap();
    let cm = if mujocos_model {
        specula::mj::from_c::collision_model(c.mj()).unwrap()
    } else {
        CollisionModel::from(&specula_model::load_str(&xml, std::path::Path::new("."), "hfield.xml").unwrap())
    };
    let mut d = Data::new(&c).unwrap();
    let (mut agree, mut touching, mut first_bad) = (0, 0, String::new());
    for i in 0..POSES {
        {
            let q = d.qpos_mut();
            // the terrain: near the origin, level on half the poses, anyhow on the others
            q[..3].copy_from_slice(&[rng.range(-0.05, 0.05), rng.range(-0.05, 0.05), rng.range(-0.05, 0.05)]);
            let tq = if i % 2 == 0 { [1.0, 0.0, 0.0, 0.0] } else { rng.quat() };
            q[3..7].copy_from_slice(&tq);
            q[7..10].copy_from_slice(&[rng.range(-0.6, 0.6), rng.range(-0.6, 0.6), rng.range(-0.15, 0.35)]);
            let gq = rng.quat();
            q[10..14].copy_from_slice(&gq);
        }
        d.kinematics().unwrap();
        let margin = if i % 3 == 0 { rng.range(0.0, 0.05) } else { 0.0 };
        let opt = CollideOptions { multiccd: i % 5 != 0, ..CollideOptions::default() };
        let mut cpts = Vec::new();
        assert!(d.with_mj(|m, dd| library_pair_contacts(m, dd, 0, 1, margin, &mut cpts)).unwrap());
        let (xp, xm) = (d.geom_xpos().to_vec(), d.geom_xmat().to_vec());
        let geom = |g: usize| Geom {
            ty: cm.geom_type[g],
            size: cm.geom_size[g],
            pos: [xp[3 * g], xp[3 * g + 1], xp[3 * g + 2]],
            mat: std::array::from_fn(|k| xm[9 * g + k]),
            rbound: cm.geom_rbound[g],
            hull: if cm.geom_type[g] == GeomType::Mesh { cm.hulls[cm.geom_dataid[g] as usize].as_ref() } else { None },
            hfield: if cm.geom_type[g] == GeomType::Hfield { cm.hfield(cm.geom_dataid[g]) } else { None },
        };
        let mut buf = [ContactPoint::default(); MAX_CONTACTS];
        let n = table::collide(&geom(0), &geom(1), margin, &opt, &mut buf).expect("a Rust function");
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol || x == y);
        let same = n == cpts.len()
            && cpts
                .iter()
                .zip(&buf[..n])
                .all(|(a, b)| close(&[a.dist], &[b.dist]) && close(&a.pos, &b.pos) && close(&a.frame, &b.frame));
        touching += usize::from(!cpts.is_empty());
        if same {
            agree += 1;
            continue;
        }
        if std::env::var_os("ORACLE_VERBOSE").is_some() {
            println!(
                "  {t:?} pose {i} margin {margin:.4}: MuJoCo {} {:?}\n    specula {n} {:?}",
                cpts.len(),
                cpts.first(),
                buf.first()
            );
        }
        if first_bad.is_empty() {
            first_bad =
                format!("pose {i}: MuJoCo {} contacts {:?}, specula {n} {:?}", cpts.len(), cpts.first(), buf.first());
        }
    }
    (POSES, agree, touching, first_bad)
}

const TYPES: [GeomType; 6] =
    [GeomType::Sphere, GeomType::Capsule, GeomType::Ellipsoid, GeomType::Cylinder, GeomType::Box, GeomType::Mesh];

fn check_all(mujocos_model: bool, tol: f64) {
    let mut failures = Vec::new();
    for (k, &t) in TYPES.iter().enumerate() {
        for s in 0..2u64 {
            let seed = 0x5eed_4f1e_1d00 ^ ((k as u64) << 8 | s);
            let (n, agree, touching, bad) = run(t, seed, mujocos_model, tol);
            println!("Hfield-{t:?} seed {s}: {agree}/{n} agree ({touching} poses with contacts)");
            // the poses must exercise the collider: most of them touch the terrain
            assert!(touching > n / 4, "Hfield-{t:?}: only {touching} of {n} poses touch");
            if agree < n {
                failures.push(format!("Hfield-{t:?} seed {s}: {agree}/{n}; first: {bad}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn hfield_pairs_agree_bit_for_bit_given_mujocos_model() {
    check_all(true, 0.0);
}

#[test]
fn hfield_pairs_agree_with_specula_s_compiler() {
    check_all(false, 1e-9);
}
