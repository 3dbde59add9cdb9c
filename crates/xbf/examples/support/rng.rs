//! The benchmark harness's generator (bench/src/data.rs includes this file), shared by the
//! examples so that their data match the harness's.

/// SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `len` lowercase letters.
    pub fn text(&mut self, len: usize) -> String {
        (0..len).map(|_| (b'a' + self.below(26) as u8) as char).collect()
    }
}
