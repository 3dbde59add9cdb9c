//! Decodes arbitrary bytes as a v1 message, from a slice and from a reader.
//!
//! - Neither decoder may panic (nor allocate without bound, nor hang).
//! - They agree on whether the bytes are a valid message, on the value, and
//!   on the error whenever the slice decoder's error is not `truncated`
//!   (SPEC.md 8.4 lets a stream report a truncated input differently).
//! - A valid v1 message has exactly one encoding: re-encoding the decoded
//!   value gives back the input, byte for byte. (The decoder also reads
//!   XBF 2; an XBF 2 message must at least survive a re-encoding.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbf::{EncodeOptions, ErrorKind, Value};
use xbf_fuzz::Dribble;

fuzz_target!(|data: &[u8]| {
    // A v1 message starts with a v1 discriminant (0x00..=0x12); the decoder
    // also reads XBF 2 messages (0xc2 first).
    let v1 = data.first().is_some_and(|&b| b <= 0x12);
    let enc = if v1 { EncodeOptions::v1() } else { EncodeOptions::v2() };
    // Values are compared through their encodings: bit for bit, NaNs included.
    let canon = |v: &Value| enc.encode_message(v).expect("a decoded value encodes");

    let slice = xbf::decode_message(data);
    if let Ok(v) = &slice {
        let again = canon(v);
        if v1 {
            assert_eq!(again, data, "a valid v1 message re-encodes to different bytes");
        } else {
            let back = xbf::decode_message(&again).expect("a re-encoded message decodes");
            assert_eq!(canon(&back), again, "a re-encoded message decodes to another value");
        }
    }
    for stream in [xbf::read_message(data), xbf::read_message(Dribble::new(data))] {
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
