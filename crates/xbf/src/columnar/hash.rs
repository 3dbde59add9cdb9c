//! The writer's hash for dictionaries and repeated values.

/// A fast hash for the writer's dictionaries (multiply and rotate over
/// 8-byte words), keyed once per process so that chosen inputs cannot
/// collide on purpose.
#[derive(Clone, Copy)]
pub(crate) struct FastHash(u64);

impl Default for FastHash {
    fn default() -> Self {
        static KEY: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        FastHash(*KEY.get_or_init(|| {
            use std::hash::{BuildHasher, Hasher};
            std::collections::hash_map::RandomState::new().build_hasher().finish()
        }))
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(self.0)
    }
}

pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // The last bytes as a little-endian word, zero-padded (a byte
            // loop: a copy of a variable length is a call to memcpy).
            self.add(rest.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
    fn finish(&self) -> u64 {
        // Every bit mixed into the low ones, which pick the bucket, and the
        // high ones, which the table compares first.
        let h = (self.0 ^ (self.0 >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
}
