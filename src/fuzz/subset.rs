//! The generator's native subset (`specula fuzz --native-subset`): a generated scene moved into
//! what the native route steps (`native/src/scope.rs`), still drawn at random from the seed: the
//! Euler, implicitfast, implicit or RK4 integrator, Newton, CG or PGS with either friction cone
//! (condim 6 included), more fixed-base
//! mechanisms, and joint properties and actuators on more joints. Drawn from a stream of its
//! own, so the scene's geometry is the generator's.

use super::dynamics::{dress, mechanism};
use super::gen::geom;
use super::scene::{joint_name, GeomSpec, Joint, Link, Rng, Scene, Shape, SolverOptions};

/// `scene` restricted to the native route's subset, with its own draws from the scene's seed.
pub fn native_subset(mut sc: Scene) -> Scene {
    let mut r = Rng::new(sc.seed ^ 0x6e61_7469_7665_5f73);
    // more mechanisms: fixed-base chains of hinges, slides and balls carry the limits, friction
    // loss and actuators the native route's constraint rows and actuation cover
    let nmesh = sc.meshes.len();
    for k in 0..r.below(3) {
        let m = mechanism(&mut r, k + 10, &mut sc.meshes);
        sc.bodies.push(m);
    }
    // every integrator the native route steps; half the scenes give each lone free body a jointed
    // link (a part on a hinge, slide or ball), so that trees of free bodies with more than their
    // six dofs are drawn too
    sc.opt.integrator = ["Euler", "implicitfast", "implicit", "RK4"][r.below(4)];
    let link_free = r.chance(0.5);
    if link_free {
        for b in &mut sc.bodies {
            if b.root == Joint::Free && b.links.iter().all(|l| l.joint == Joint::Weld) {
                let name = format!("{}s", b.name);
                let g = geom(&mut r, format!("{name}g0"), &mut sc.meshes);
                let last = b.links.last().map_or(&b.geoms, |l| &l.geoms);
                let reach = last.iter().map(|g| g.shape.reach(&sc.meshes)).fold(0.0, f64::max);
                let d = g.shape.reach(&sc.meshes) + reach;
                let dir = r.direction();
                let joint = match r.below(3) {
                    0 => Joint::Hinge(r.direction(), r.range(-5.0, 5.0)),
                    1 => Joint::Slide(r.direction(), r.range(-0.5, 0.5)),
                    _ => Joint::Ball([r.range(-3.0, 3.0), r.range(-3.0, 3.0), r.range(-3.0, 3.0)]),
                };
                let link = Link { name, pos: [dir[0] * d, dir[1] * d, dir[2] * d], joint, geoms: vec![g] };
                b.links.push(link);
            }
        }
    }
    // the generator's tidying kept its mesh names while renumbering them: names of their own
    for (k, m) in sc.meshes.iter_mut().enumerate().skip(nmesh) {
        m.name = format!("s{k}");
    }
    dress(&mut r, &mut sc, 0.5);
    // height fields have no native collider: a box of the field's extent in its place
    for o in &mut sc.obstacles {
        if let Shape::Hfield(_, _, _, size) = &o.geom.shape {
            o.geom.shape = Shape::Box([size[0], size[1], size[2].max(size[3])]);
        }
    }
    // libccd (nativeccd off) is not reproduced: MuJoCo's own GJK and EPA
    sc.opt.nativeccd = true;
    // an actuator's, a spring's or a damper's force on a part of a few milligrams (a 1 mm link)
    // gives accelerations past mjMAXVAL in the first steps (mj_checkAcc reads the forward
    // pass's, before implicit damping), and both routes stop there: actuators, joint springs
    // and dampers act on parts of 1 cm or more
    let small: Vec<String> = sc.dynamics.joints.keys().filter(|j| moved_reach(&sc, j) < 0.01).cloned().collect();
    for j in small {
        if let Some(p) = sc.dynamics.joints.get_mut(&j) {
            p.stiffness = None;
            p.damping = None;
        }
    }
    let big: Vec<bool> = sc.dynamics.actuators.iter().map(|a| moved_reach(&sc, &a.joint) >= 0.01).collect();
    let mut keep = big.into_iter();
    sc.dynamics.actuators.retain(|_| keep.next().unwrap_or(false));
    // actuator damping and armature are outside the native route's actuation
    for a in &mut sc.dynamics.actuators {
        a.damping = None;
        a.armature = None;
    }
    // Newton, CG (both over islands) or PGS, on a dense Jacobian (the native Newton iterates on
    // dense rows only; PGS needs a dense efc_AR)
    let solver = ["Newton", "Newton", "CG", "PGS", "PGS"][r.below(5)];
    let elliptic = r.chance(0.5);
    sc.opt.solver = Some(SolverOptions {
        solver,
        cone: if elliptic { "elliptic" } else { "pyramidal" },
        jacobian: "dense",
        impratio: if r.chance(0.3) { r.log(0.5, 10.0) } else { 1.0 },
    });
    sc.tidy();
    sc
}

/// The largest reach of the geoms joint `name` moves: its body's or link's and those of the
/// links after it in the chain.
fn moved_reach(sc: &Scene, name: &str) -> f64 {
    let reach =
        |geoms: &mut dyn Iterator<Item = &GeomSpec>| geoms.map(|g| g.shape.reach(&sc.meshes)).fold(0.0, f64::max);
    for b in &sc.bodies {
        let links = || b.links.iter().flat_map(|l| &l.geoms);
        if joint_name(&b.name) == name {
            return reach(&mut b.geoms.iter().chain(links()));
        }
        if let Some(i) = b.links.iter().position(|l| joint_name(&l.name) == name) {
            return reach(&mut b.links[i..].iter().flat_map(|l| &l.geoms));
        }
    }
    0.0
}
