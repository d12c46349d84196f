//! A per-thread record of which hulls kept qhull's order, for tests that compare whole models
//! with MuJoCo's (the compiled model does not say which hulls were replayed).

thread_local! {
    /// Outcomes recorded by [`with_replay_log`] on this thread.
    static REPLAY_LOG: std::cell::RefCell<Option<Vec<ReplayOutcome>>> = const { std::cell::RefCell::new(None) };
}

/// What became of one hull's replay: its size and whether qhull's order was kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayOutcome {
    /// Hull vertices.
    pub nvert: usize,
    /// Hull triangles.
    pub nface: usize,
    /// The hull carries qhull's order ([`crate::mesh::hull::Hull::qhull_order`]).
    pub replayed: bool,
}

/// Runs `f` and returns the outcome of every hull built meanwhile on this thread, in build
/// order (tests compare claimed orders with MuJoCo's through whole models).
pub fn with_replay_log<R>(f: impl FnOnce() -> R) -> (R, Vec<ReplayOutcome>) {
    REPLAY_LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
    let r = f();
    let log = REPLAY_LOG.with(|l| l.borrow_mut().take()).unwrap_or_default();
    (r, log)
}

/// Records a hull's outcome when [`with_replay_log`] is listening.
pub(in crate::mesh) fn log_replay(o: ReplayOutcome) {
    REPLAY_LOG.with(|l| {
        if let Some(v) = l.borrow_mut().as_mut() {
            v.push(o);
        }
    });
}
