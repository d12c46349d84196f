//! The Rust collision stage against MuJoCo's `mj_collision` on a driven trajectory of
//! `scenes/newton_cradle.xml` (`docs/measurements.md` S12): speculative plate-plate contacts
//! whose line of sight grazes a third plate's side face.
//!
//! From `qpos0`, `qfrc_applied[i] = 0.5 sin(0.01 step (i + 1))` set before each `mj_step`. At
//! step 15 MuJoCo keeps 9 speculative contacts; a slab ray-box test, deciding a grazing ray by
//! its start point alone, hid the second edge point of plates 2 and 4 (geoms 4 and 8) behind
//! plate 1 and left 8.

use specula::mj::collision::{contacts_of, run_library_collision, with_collision};
use specula::mj::{Data, Model};
use specula::route::RustStage;

/// Steps compared (the grazing case is step 15).
const STEPS: usize = 40;

#[test]
fn driven_cradle_contacts_match_mujoco_on_every_step() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/newton_cradle.xml");
    let model = Model::from_xml_path(&path).unwrap();
    let rust = specula_model::load_file(&path).unwrap();
    let mut stage = RustStage::new(&rust);
    let mut data = Data::new(&model).unwrap();
    let step = std::cell::Cell::new(0usize);
    let mut compared = 0usize;
    let mut contacts = 0usize;
    let mut bad = Vec::new();
    let mut compare = |m: &mujoco_sys::mjModel, d: &mut mujoco_sys::mjData| {
        run_library_collision(m, d);
        let c = contacts_of(d);
        let r = stage.compute(m, d).expect("rust collision stage").to_vec();
        compared += 1;
        contacts += c.len();
        let same = c.len() == r.len()
            && c.iter()
                .zip(&r)
                .all(|(a, b)| a.geom == b.geom && a.dist == b.dist && a.pos == b.pos && a.frame == b.frame);
        if !same {
            bad.push(format!("step {}: MuJoCo {} contacts, specula {}", step.get(), c.len(), r.len()));
        }
    };
    let nv = data.qvel().len();
    let ((), calls) = with_collision(model.raw(), &mut compare, || {
        for s in 0..STEPS {
            step.set(s);
            data.with_mj(|_, d| {
                for i in 0..nv {
                    // SAFETY: qfrc_applied holds nv entries.
                    unsafe { *d.qfrc_applied.add(i) = 0.5 * (0.01 * s as f64 * (i as f64 + 1.0)).sin() };
                }
            })
            .unwrap();
            data.step().unwrap();
        }
    });
    println!("{compared} collision calls, {contacts} MuJoCo contacts, {} differing", bad.len());
    assert_eq!((compared, calls), (STEPS, STEPS as u64), "collision calls that reached the hook");
    assert!(contacts > 0, "the trajectory makes no contact: nothing compared");
    assert!(bad.is_empty(), "{bad:#?}");
}
