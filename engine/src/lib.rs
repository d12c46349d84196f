//! specula's collision stage: broadphase, narrowphase and speculative contacts, plus the
//! kinematics they need. Pure Rust on plain data; no C.

pub mod collision;
pub mod contact;
pub mod kinematics;
pub mod math;
pub mod narrowphase;
pub mod speculative;

/// Runs `f` on this thread's work buffers in `key` (kept from call to call so that collision
/// calls allocate nothing once they have grown), or on fresh ones if they are already in use.
pub(crate) fn with_thread_buffers<T: Default, R>(
    key: &'static std::thread::LocalKey<std::cell::RefCell<T>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut b) => f(&mut b),
        Err(_) => f(&mut T::default()),
    })
}
