//! The bulk contact hand-over (`specula::mj::collision::add_contacts`) leaves `mjData` exactly as
//! one `mj_addContact` call per contact does: every field of every contact record, `ncon`,
//! `parena`, `maxuse_arena` and the arena-full warning, on a dense scene (hundreds of contacts
//! per step) and on one whose arena holds only part of them.

use mujoco_sys as sys;
use specula::mj::collision::{add_contacts, from_mj_contact, reset_collision_outputs};
use specula::mj::{Data, Model};

/// Two identical grids of `n` x `n` boxes in the same place, so every box overlaps its twin and
/// its neighbours: many box-box contacts per step.
fn dense_scene(n: usize, memory: &str) -> String {
    format!(
        r#"<mujoco><size memory="{memory}"/><worldbody><geom type="plane" size="5 5 .1"/>
        <replicate count="{n}" offset="0.19 0 0"><replicate count="{n}" offset="0 0.19 0">
          <body pos="0 0 0.09"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
        </replicate></replicate>
        <replicate count="{n}" offset="0.19 0 0"><replicate count="{n}" offset="0 0.19 0">
          <body pos="0 0 0.095"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
        </replicate></replicate></worldbody></mujoco>"#
    )
}

/// What the hand-over leaves behind: ncon, parena, maxuse_arena, every contact field (as
/// printed, NaN included), warnings.
#[derive(PartialEq)]
struct Left {
    ncon: i32,
    parena: usize,
    maxuse_arena: sys::mjtSize,
    bytes: Vec<u8>,
    full_warnings: i32,
}

/// MuJoCo's contacts of `xml` after `mj_forward`, fed back by `feed` into a fresh data.
/// With `times` > 1 the list is fed that many times over, more than the arena holds.
fn handed_over(
    xml: &str,
    times: usize,
    feed: &dyn Fn(&sys::mjModel, &mut sys::mjData, &[specula_engine::contact::Contact]),
) -> Left {
    let model = Model::from_xml_str(xml).expect("scene loads");
    let mut data = Data::new(&model).expect("data");
    data.forward().expect("forward");
    let once: Vec<_> = data.contacts().iter().map(|c| from_mj_contact(c.raw())).collect();
    let contacts: Vec<_> = (0..times).flat_map(|_| once.iter().copied()).collect();
    let mut fresh = Data::new(&model).expect("data");
    fresh.forward().expect("forward");
    fresh
        .call(|m, d| {
            // SAFETY: valid pointers for the duration of the call.
            let (m, d) = unsafe { (&*m, &mut *d) };
            reset_collision_outputs(d);
            feed(m, d, &contacts);
        })
        .expect("hand-over");
    let d = fresh.mj();
    let size = std::mem::size_of::<sys::mjContact>();
    let records = contact_records(d);
    // every field, not the struct's padding bytes (which `mj_addContact` copies as they come)
    let bytes = records.iter().flat_map(|c| format!("{c:?}").into_bytes()).collect();
    assert_eq!(size, 608, "mjContact of MuJoCo 4.0.0");
    Left {
        ncon: d.ncon,
        parena: d.parena,
        maxuse_arena: d.maxuse_arena,
        bytes,
        full_warnings: d.warning[sys::mjWARN_CONTACTFULL as usize].number,
    }
}

impl std::fmt::Debug for Left {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sum = self.bytes.iter().fold(0u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        write!(
            f,
            "ncon {} parena {} maxuse_arena {} contact text {} (hash {sum:x}) warnings {}",
            self.ncon,
            self.parena,
            self.maxuse_arena,
            self.bytes.len(),
            self.full_warnings
        )
    }
}

fn one_by_one(m: &sys::mjModel, d: &mut sys::mjData, cs: &[specula_engine::contact::Contact]) {
    for c in cs {
        let con = specula::mj::collision::to_mj_contact(c);
        // SAFETY: valid model, data and contact.
        if unsafe { sys::mj_addContact(m, d, &con) } != 0 {
            break;
        }
    }
}

fn bulk(m: &sys::mjModel, d: &mut sys::mjData, cs: &[specula_engine::contact::Contact]) {
    add_contacts(m, d, cs);
}

#[test]
fn bulk_hand_over_leaves_the_data_as_one_call_per_contact_does() {
    let xml = dense_scene(12, "8M");
    let (a, b) = (handed_over(&xml, 1, &one_by_one), handed_over(&xml, 1, &bulk));
    assert!(a.ncon > 300, "the scene is dense: {} contacts", a.ncon);
    assert_eq!(a.full_warnings, 0);
    assert_eq!(a, b);
}

#[test]
fn bulk_hand_over_stops_where_the_arena_is_full_as_mujoco_does() {
    let xml = dense_scene(12, "8M");
    let (a, b) = (handed_over(&xml, 3, &one_by_one), handed_over(&xml, 3, &bulk));
    assert!(a.full_warnings > 0, "the arena overflows: {} contacts fit", a.ncon);
    assert!(a.ncon < 3 * 9000, "only part of the list fits: {}", a.ncon);
    assert_eq!(a, b);
}

/// What a collision call left in `d`, as [`Left`].
fn left_in(d: &sys::mjData) -> Left {
    let records = contact_records(d);
    Left {
        ncon: d.ncon,
        parena: d.parena,
        maxuse_arena: d.maxuse_arena,
        bytes: records.iter().flat_map(|c| format!("{c:?}").into_bytes()).collect(),
        full_warnings: d.warning[sys::mjWARN_CONTACTFULL as usize].number,
    }
}

/// The rust route's direct hand-over (`RustStage::replace` writes each contact into the arena as
/// it is found) leaves the data as collecting the contacts and handing them over with
/// `add_contacts` does (`replace_with`), on every state of `scene`; returns the calls compared
/// and the contacts seen.
fn direct_matches_collected(scene: &std::path::Path, key: Option<&str>, steps: usize) -> (usize, usize) {
    use specula::route::RustStage;
    use specula::sim::{self, Start};
    let start = key.map_or(Start::Qpos0, |k| Start::Key(k.to_string()));
    let (c, rust) = sim::load_pair(scene, None, None).expect("scene loads");
    let states = specula::bench::record_states(&c, &start, steps).expect("states");
    let (mut direct, mut collected) = (RustStage::new(&rust), RustStage::new(&rust));
    let mut data = Data::new(&c).expect("data");
    let (mut calls, mut contacts) = (0, 0);
    for (k, s) in states.iter().enumerate() {
        data.set_state(specula::mj::state::INTEGRATION, s).expect("state");
        data.position_kinematics().expect("kinematics");
        // the warning counter adds up over calls: each call starts from 0
        let clear = |d: &mut sys::mjData| d.warning[sys::mjWARN_CONTACTFULL as usize].number = 0;
        data.with_mj(|m, d| {
            clear(d);
            direct.replace(m, d)
        })
        .expect("call")
        .expect("direct");
        let a = left_in(data.mj());
        data.with_mj(|m, d| {
            clear(d);
            collected.replace_with(m, d, &mut |_| {})
        })
        .expect("call")
        .expect("collected");
        let b = left_in(data.mj());
        assert_eq!(a, b, "{} state {k}", scene.display());
        calls += 1;
        contacts += a.ncon.max(0) as usize;
    }
    (calls, contacts)
}

#[test]
fn direct_hand_over_leaves_the_data_as_the_collected_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut calls, mut contacts) = (0, 0);
    for (scene, key) in [
        ("benches/scenes/pile_50.xml", None),
        ("benches/scenes/grid_150.xml", None),
        ("benches/scenes/meshes_3.xml", None),
        ("scenes/thin_parts.xml", Some("drop")),
        ("scenes/chain.xml", Some("yank")),
    ] {
        let (n, c) = direct_matches_collected(&root.join(scene), key, 200);
        calls += n;
        contacts += c;
    }
    assert!(contacts > 20_000, "{contacts} contacts in {calls} calls");
    // an arena too small for the dense scene's contacts: both warn and keep the same ones
    let dir = std::env::temp_dir().join(format!("specula-handover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dense = dir.join("dense.xml");
    std::fs::write(&dense, dense_scene(12, "4M")).unwrap();
    let (n, c) = direct_matches_collected(&dense, None, 3);
    assert!(n == 3 && c > 0);
    let model = Model::from_xml_path(&dense).expect("loads");
    let mut data = Data::new(&model).expect("data");
    data.forward().expect("forward");
    assert!(data.mj().warning[sys::mjWARN_CONTACTFULL as usize].number > 0, "the small arena overflows");
    // the check can fail: a contact left out of the collected list is seen
    let (c, rust) = specula::sim::load_pair(&root.join("benches/scenes/pile_50.xml"), None, None).unwrap();
    let states = specula::bench::record_states(&c, &specula::sim::Start::Qpos0, 150).unwrap();
    let (mut direct, mut tampered) = (specula::route::RustStage::new(&rust), specula::route::RustStage::new(&rust));
    let mut data = Data::new(&c).unwrap();
    data.set_state(specula::mj::state::INTEGRATION, states.last().unwrap()).unwrap();
    data.position_kinematics().unwrap();
    data.with_mj(|m, d| direct.replace(m, d)).unwrap().unwrap();
    let a = left_in(data.mj());
    data.with_mj(|m, d| {
        tampered.replace_with(m, d, &mut |v| {
            v.pop();
        })
    })
    .unwrap()
    .unwrap();
    assert!(a.ncon > 0 && a != left_in(data.mj()));
    std::fs::remove_dir_all(&dir).ok();
}

/// The `ncon` contact records of `d` (none when the arena pointer is null).
fn contact_records(d: &sys::mjData) -> &[sys::mjContact] {
    let n = d.ncon.max(0) as usize;
    if d.contact.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: `contact` holds `ncon` records.
    unsafe { std::slice::from_raw_parts(d.contact, n) }
}
