//! The Rust collision stage allocates nothing per call once it has seen a scene's states: its
//! buffers (broadphase, narrowphase scratch, speculative work, the contact list) are kept and
//! reused. Counted with a counting global allocator around each call, on every scene of the
//! benchmark set in the three speculative modes.
//!
//! No test harness (`main` below): the counter is global to the process, and the harness's own
//! thread would allocate inside a counted region.

use std::alloc::System;
use std::path::Path;

use specula::mj::{state, Data};
use specula::route::RustStage;
use specula::sim::{self, Start};
use specula_model::types::SpeculativeMode;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap allocations (new blocks and reallocations) made by `stage.replace` over all `states`.
fn allocations_over(data: &mut Data, stage: &mut RustStage, states: &[Vec<f64>]) -> (usize, usize) {
    let (mut count, mut calls) = (0, 0);
    for s in states {
        data.set_state(state::INTEGRATION, s).unwrap();
        data.position_kinematics().unwrap();
        let region = Region::new(GLOBAL);
        data.with_mj(|m, d| stage.replace(m, d)).unwrap().unwrap();
        let change = region.change();
        count += change.allocations + change.reallocations;
        calls += 1;
    }
    (count, calls)
}

fn the_collision_stage_allocates_nothing_per_call_after_one_pass_over_the_states() {
    let (scenes, skipped) = specula::bench::suite::scenes(Path::new(env!("CARGO_MANIFEST_DIR")));
    for s in skipped {
        eprintln!("alloc: {s}");
    }
    // The check can fail: an allocation inside a region is counted.
    let region = Region::new(GLOBAL);
    drop(std::hint::black_box(Vec::<u8>::with_capacity(64)));
    assert!(region.change().allocations >= 1, "the counting allocator sees nothing");
    let mut failures = Vec::new();
    let mut checked = 0;
    for scene in &scenes {
        let start = scene.key.clone().map_or(Start::Qpos0, Start::Key);
        for mode in [SpeculativeMode::Off, SpeculativeMode::Compat, SpeculativeMode::Robust] {
            let (c, rust) = sim::load_pair(&scene.path, None, Some(mode)).unwrap();
            // The long recordings only matter for timing; a few hundred states cover every
            // kind of call (impact, contact, rest) these scenes make.
            let states = specula::bench::record_states(&c, &start, scene.steps.min(400)).unwrap();
            let mut stage = RustStage::new(&rust);
            stage.set_robust(mode == SpeculativeMode::Robust);
            let mut data = Data::new(&c).unwrap();
            allocations_over(&mut data, &mut stage, &states);
            let (count, calls) = allocations_over(&mut data, &mut stage, &states);
            checked += calls;
            if count != 0 {
                failures.push(format!("{} ({mode:?}): {count} allocations in {calls} calls", scene.name));
            }
        }
    }
    assert!(checked > 3000, "only {checked} calls checked");
    assert!(failures.is_empty(), "the stage allocated after warm-up:\n{}", failures.join("\n"));
}

/// Runs the check on the main thread with no test harness (`harness = false`): the counter is
/// global, and the harness's own thread allocates while a test runs.
fn main() {
    the_collision_stage_allocates_nothing_per_call_after_one_pass_over_the_states();
    println!("test the_collision_stage_allocates_nothing_per_call_after_one_pass_over_the_states ... ok");
}
