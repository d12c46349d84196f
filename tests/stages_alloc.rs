//! The Rust dynamics stages allocate nothing per step: steps in place of MuJoCo's `mj_crb`,
//! `mj_factorM`, `mj_comVel`, `mj_rne`, `mj_fwdAcceleration` and `mj_comPos` are counted with
//! a counting global allocator (MuJoCo's own allocations are not Rust's and are not seen). One
//! test function: the counter is global to the process.

use std::alloc::System;

use specula::mj::stages::{with_stages, StageSet};
use specula::mj::{Data, Model};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn the_rust_stages_allocate_nothing_per_step() {
    let xml = r#"<mujoco><worldbody><geom type="plane" size="1 1 .1"/>
      <body pos="0 0 .5"><freejoint/><geom type="box" size=".1 .1 .1"/>
        <body pos=".2 0 0"><joint type="ball"/><geom type="sphere" size=".05"/>
          <body pos=".1 0 0"><joint type="hinge"/><geom type="capsule" size=".02 .1"/></body></body></body>
    </worldbody></mujoco>"#;
    let model = Model::from_xml_str(xml).unwrap();
    let mut data = Data::new(&model).unwrap();
    // The check can fail: an allocation inside a region is counted.
    let region = Region::new(GLOBAL);
    drop(std::hint::black_box(Vec::<u8>::with_capacity(64)));
    assert!(region.change().allocations >= 1, "the counting allocator sees nothing");
    let (allocations, counts) = with_stages(StageSet::all(), || {
        data.step().unwrap();
        let mut pass = || {
            let region = Region::new(GLOBAL);
            for _ in 0..100 {
                data.step().unwrap();
            }
            let change = region.change();
            change.allocations + change.reallocations
        };
        // The counter is process-wide: the harness's own thread may allocate inside the first
        // region while it starts up. An allocation of the stages recurs in every pass.
        pass().min(pass())
    });
    assert_eq!(counts.rust[..6], [201; 6], "{counts:?}");
    assert_eq!(allocations, 0, "heap allocations in 100 steps with the Rust stages");
}
