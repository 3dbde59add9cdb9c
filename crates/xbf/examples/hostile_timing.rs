//! Times the decoder on the hostile messages the v1 issue names: a ~30-byte
//! message declaring a 2^62-element vec, one declaring a 2^63-byte string,
//! and 1,000,000 nested vec discriminants. Prints the median of 101 runs.
//!
//! cargo run --release -p xbf --example hostile_timing

use std::time::{Duration, Instant};

fn median_time(bytes: &[u8]) -> (Duration, String) {
    let mut times = Vec::with_capacity(101);
    let mut err = String::new();
    for _ in 0..101 {
        let t = Instant::now();
        let r = xbf::decode_message(std::hint::black_box(bytes));
        times.push(t.elapsed());
        err = r.expect_err("hostile input must fail").to_string();
    }
    times.sort();
    (times[50], err)
}

fn main() {
    let mut vec_2_62 = vec![0x11, 0x04];
    vec_2_62.extend_from_slice(&(1u64 << 62).to_le_bytes());
    vec_2_62.extend_from_slice(&[0u8; 20]);
    let mut string_2_63 = vec![0x10];
    string_2_63.extend_from_slice(&(1u64 << 63).to_le_bytes());
    string_2_63.extend_from_slice(&[b'x'; 21]);
    let mut deep = vec![0x11u8; 1_000_000];
    deep.push(0x00);
    for (name, bytes) in
        [("vec of 2^62 u64", &vec_2_62), ("string of 2^63 bytes", &string_2_63), ("1,000,000 nested vecs", &deep)]
    {
        let (t, err) = median_time(bytes);
        let err: String = err.chars().take(100).collect();
        println!("{name:<24} {:>7} bytes  median {:>9.3?}  {err}", bytes.len(), t);
    }
}
