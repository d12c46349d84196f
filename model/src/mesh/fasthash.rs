//! A fast, non-cryptographic hasher for the hull code's maps of vertex and facet ids (the
//! standard SipHash took a quarter of a 200k-vertex hull's build). The maps are only looked
//! up, never iterated in an order that matters, so the hasher does not change any result.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of machine words (the scheme of rustc's `FxHasher`).
#[derive(Clone, Copy, Default)]
pub(crate) struct IdHasher(u64);

/// An odd constant with well-spread bits (2^64 / the golden ratio).
const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl IdHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown takes the bucket from the low bits.
        self.0 ^ (self.0 >> 29)
    }
}

/// `HashMap` with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
