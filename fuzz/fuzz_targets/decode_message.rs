//! Decodes arbitrary bytes as a v1 message, from a slice and from a reader.
//!
//! - Neither decoder may panic (nor allocate without bound, nor hang).
//! - They agree on whether the bytes are a valid message, on the value, and
//!   on the error whenever the slice decoder's error is not `truncated`
//!   (SPEC.md 8.4 lets a stream report a truncated input differently).
//! - A valid v1 message has exactly one encoding: re-encoding the decoded
//!   value gives back the input, byte for byte. (The decoder also reads
//!   XBF 2; an XBF 2 message must at least survive a re-encoding.)
//!
//! All three read with a decoding budget of 64 MiB instead of the default
//! 1 GiB (SPEC.md 7.2): a reader of unknown length may build a budget's worth
//! of zero-size values before the input runs out (53 bytes made 679 MB of
//! `Value`s), and three such results side by side, under ASan, pass
//! libFuzzer's 2 GB limit while the reader keeps to its budget.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbf::{DecodeOptions, EncodeOptions, ErrorKind, Value};
use xbf_fuzz::Dribble;

fuzz_target!(|data: &[u8]| {
    // A v1 message starts with a v1 discriminant (0x00..=0x12); the decoder
    // also reads XBF 2 messages (0xc2 first).
    let v1 = data.first().is_some_and(|&b| b <= 0x12);
    let enc = if v1 { EncodeOptions::v1() } else { EncodeOptions::v2() };
    // Values are compared through their encodings: bit for bit, NaNs included.
    let canon = |v: &Value| enc.encode_message(v).expect("a decoded value encodes");

    let opts = DecodeOptions::default().max_decoded_bytes(64 << 20);
    let slice = opts.decode_message(data);
    if let Ok(v) = &slice {
        let again = canon(v);
        if v1 {
            assert_eq!(again, data, "a valid v1 message re-encodes to different bytes");
        } else {
            let back = opts.decode_message(&again).expect("a re-encoded message decodes");
            assert_eq!(canon(&back), again, "a re-encoded message decodes to another value");
        }
    }
    for dribble in [false, true] {
        let stream = if dribble { opts.read_message(Dribble::new(data)) } else { opts.read_message(data) };
        match (&slice, &stream) {
            (Ok(a), Ok(b)) => assert_eq!(canon(a), canon(b), "slice and stream decode different values"),
            (Err(e), Err(f)) => {
                if e.kind() != ErrorKind::Truncated {
                    assert_eq!(
                        (e.kind(), e.offset(), e.path_string()),
                        (f.kind(), f.offset(), f.path_string()),
                        "slice: {e}\nstream: {f}"
                    );
                }
            }
            (a, b) => panic!("slice and stream disagree: {a:?} vs {b:?}"),
        }
    }
});
