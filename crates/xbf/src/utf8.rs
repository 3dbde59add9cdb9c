//! Strings read from a message (and strings a binding hands to the column
//! builder as bytes), checked to be UTF-8 with ASCII first.
//!
//! This module holds the crate's only `unsafe` code. Nearly every string
//! in real data is ASCII, and for the short strings records hold (names,
//! symbols, dates), the call into `std::str::from_utf8` costs more than
//! the rest of reading the string: checking ASCII first, and strings
//! shorter than a word in one read, measured faster on the derive path
//! (the figures are in BENCHMARKS.md, "Measured design decisions"). ASCII
//! bytes are valid UTF-8, so the checked conversion can be skipped for
//! them; any other input goes through `std`'s check, errors and all.
//!
//! The tests below compare both functions with `std` on every input of up
//! to two bytes and on ASCII runs with a foreign byte at each position;
//! scripts/test-all.sh runs them under Miri too, wherever a nightly
//! toolchain with Miri can be installed. tests/derive.rs drives every
//! decoder over such strings.

use std::str::Utf8Error;
use std::string::FromUtf8Error;

/// Whether every byte is ASCII. Up to 16 bytes (most strings in records)
/// in two overlapping reads, where `<[u8]>::is_ascii` takes the bytes below
/// eight one at a time.
#[inline]
fn is_ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0xff; 8]));
    let half = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or([0xff; 4]));
    match b.len() {
        0 => true,
        1..=3 => (b[0] | b[b.len() / 2] | b[b.len() - 1]) < 0x80,
        4..=7 => (half(0) | half(b.len() - 4)) & HIGH as u32 == 0,
        8..=16 => (word(0) | word(b.len() - 8)) & HIGH == 0,
        _ => b.is_ascii(),
    }
}

/// `bytes` as a `&str`, or `std`'s error if they are not UTF-8.
#[inline]
pub(crate) fn str_from(bytes: &[u8]) -> Result<&str, Utf8Error> {
    if is_ascii(bytes) {
        // SAFETY: `is_ascii` found every byte below 0x80 (its tests check
        // it against `std`'s at every length and position), so each is a
        // one-byte UTF-8 sequence and the whole run is valid UTF-8.
        #[allow(unsafe_code)]
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes)
}

/// `bytes` as a `String` (no copy), or `std`'s error if they are not UTF-8.
#[inline]
pub(crate) fn string_from(bytes: Vec<u8>) -> Result<String, FromUtf8Error> {
    string_and_ascii(bytes).map(|(s, _)| s)
}

/// `bytes` as a `String` (no copy) and whether it is all ASCII (then every
/// index is a character boundary), or `std`'s error if they are not UTF-8:
/// one pass over ASCII bytes.
#[inline]
pub(crate) fn string_and_ascii(bytes: Vec<u8>) -> Result<(String, bool), FromUtf8Error> {
    if is_ascii(&bytes) {
        // SAFETY: as in `str_from`: ASCII bytes are valid UTF-8.
        #[allow(unsafe_code)]
        return Ok((unsafe { String::from_utf8_unchecked(bytes) }, true));
    }
    String::from_utf8(bytes).map(|s| (s, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both functions against `std` on one input; the chars are walked so
    /// that Miri reads every byte of a string the fast path made.
    fn same_as_std(b: &[u8]) {
        let ours = str_from(b);
        assert_eq!(ours, std::str::from_utf8(b), "{b:x?}");
        if let Ok(s) = ours {
            assert_eq!(s.chars().map(char::len_utf8).sum::<usize>(), b.len());
        }
        match (string_and_ascii(b.to_vec()), String::from_utf8(b.to_vec())) {
            (Ok((s, ascii)), Ok(t)) => {
                assert_eq!(s, t);
                assert_eq!(ascii, b.is_ascii(), "{b:x?}");
            }
            (Err(e), Err(f)) => {
                assert_eq!(e.utf8_error(), f.utf8_error());
                assert_eq!(e.into_bytes(), b);
            }
            (s, t) => panic!("{b:x?}: {s:?} against {t:?}"),
        }
        assert_eq!(string_from(b.to_vec()).ok(), String::from_utf8(b.to_vec()).ok(), "{b:x?}");
    }

    /// Lengths around the word size and twice it, where `<[u8]>::is_ascii`
    /// and ours change method; Miri walks fewer of them.
    fn lengths() -> Vec<usize> {
        if cfg!(miri) {
            vec![0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 33]
        } else {
            (0..40).collect()
        }
    }

    #[test]
    fn is_ascii_is_stds() {
        for len in lengths() {
            let run: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(is_ascii(&run));
            for at in 0..len {
                let highs: Vec<u8> = if cfg!(miri) { vec![0x80, 0xc3, 0xff] } else { (0x80..=0xff).collect() };
                for high in highs {
                    let mut b = run.clone();
                    b[at] = high;
                    assert_eq!(is_ascii(&b), b.is_ascii(), "{b:x?}");
                }
            }
        }
    }

    #[test]
    fn every_input_of_up_to_two_bytes() {
        same_as_std(&[]);
        // Under Miri every 32nd first byte, to keep its run short: ASCII,
        // continuation and lead bytes all still meet all 256 second bytes.
        let step = if cfg!(miri) { 32 } else { 1 };
        for a in (0..=255u8).step_by(step) {
            same_as_std(&[a]);
            for b in 0..=255u8 {
                same_as_std(&[a, b]);
            }
        }
    }

    #[test]
    fn ascii_runs_with_a_foreign_byte_anywhere() {
        for len in lengths() {
            let run: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            same_as_std(&run);
            for at in 0..len {
                for foreign in [0x80, 0xc3, 0xe2, 0xff] {
                    let mut b = run.clone();
                    b[at] = foreign;
                    same_as_std(&b);
                }
                // A whole two-byte character ("é") in the run.
                let mut b = run.clone();
                b.splice(at..at + 1, [0xc3, 0xa9]);
                same_as_std(&b);
            }
        }
    }

    #[test]
    fn strings_of_real_text() {
        for s in ["", "AAPL", "2019-01-02", "Zürich", "東京", "🦀 crab", "a\u{0}b", "\u{7f}"] {
            same_as_std(s.as_bytes());
        }
    }
}
