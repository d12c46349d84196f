//! The exported `mj_collision` really replaces every collision call inside MuJoCo's step, and a
//! stage that feeds contacts back through `mj_addContact` keeps trajectories bitwise-equal.

use specula::mj::collision::{library_collision, reset_collision_outputs, with_collision};
use specula::mj::{state, Data, Model};

fn scene(integrator: &str) -> String {
    format!(
        r#"<mujoco><option timestep="0.002" integrator="{integrator}"/>
        <worldbody><geom type="plane" size="2 2 .1"/>
          <body pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
          <body pos="0.02 0.01 .4" euler="10 20 30"><freejoint/><geom type="box" size=".1 .08 .06"/></body>
          <body pos="0 0 .7"><freejoint/><geom type="capsule" size=".05 .1"/></body>
        </worldbody></mujoco>"#
    )
}

/// Runs `mj_collision` of the library, copies its contacts out, resets the outputs and feeds the
/// copies back in order (what a replacement stage does).
fn relay(m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData) {
    let real = library_collision().expect("libmujoco is loaded");
    // SAFETY: valid model and data from MuJoCo.
    unsafe { real(m, d) };
    let contacts: Vec<mujoco_sys::mjContact> = (0..d.ncon as usize).map(|i| unsafe { *d.contact.add(i) }).collect();
    reset_collision_outputs(d);
    for c in &contacts {
        // SAFETY: valid model, data and contact.
        unsafe { mujoco_sys::mj_addContact(m, d, c) };
    }
}

fn trajectory(integrator: &str, replace: bool, reverse: bool) -> (Vec<Vec<f64>>, u64) {
    let m = Model::from_xml_str(&scene(integrator)).unwrap();
    let mut d = Data::new(&m).unwrap();
    let mut states = Vec::new();
    let mut stage = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
        relay(m, d);
        if reverse && d.ncon > 1 {
            // Deliberately wrong: same contacts, reversed order.
            let mut cs: Vec<_> = (0..d.ncon as usize).map(|i| unsafe { *d.contact.add(i) }).collect();
            cs.reverse();
            reset_collision_outputs(d);
            for c in &cs {
                unsafe { mujoco_sys::mj_addContact(m, d, c) };
            }
        }
    };
    let raw = m.raw();
    let mut run = || {
        for _ in 0..300 {
            d.step().unwrap();
            states.push(d.state(state::INTEGRATION));
        }
    };
    let calls = if replace {
        with_collision(raw, &mut stage, &mut run).1
    } else {
        run();
        0
    };
    (states, calls)
}

#[test]
fn replacement_sees_every_collision_call() {
    assert_eq!(trajectory("Euler", true, false).1, 300);
    assert_eq!(trajectory("implicitfast", true, false).1, 300);
    // RK4 collides four times per step (three more inside mj_RungeKutta).
    assert_eq!(trajectory("RK4", true, false).1, 1200);
}

#[test]
fn relayed_contacts_give_bitwise_equal_trajectories() {
    for integ in ["Euler", "implicit", "implicitfast", "RK4"] {
        let (a, _) = trajectory(integ, false, false);
        let (b, _) = trajectory(integ, true, false);
        assert!(a.iter().zip(&b).all(|(x, y)| x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())), "{integ}");
    }
}

#[test]
fn contact_order_matters_so_the_check_can_fail() {
    let (a, _) = trajectory("Euler", false, false);
    let (b, _) = trajectory("Euler", true, true);
    let differs = a.iter().zip(&b).any(|(x, y)| x.iter().zip(y).any(|(p, q)| p.to_bits() != q.to_bits()));
    assert!(differs, "reversing the contact order should change the bits of the trajectory");
}
