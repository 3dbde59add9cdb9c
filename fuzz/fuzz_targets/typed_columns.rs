//! Reads arbitrary column bytes, after the head of a columnar message of a
//! fixed record type, into serde types: straight from the columns
//! (`xbf::from_slice`) and the long way (the dynamic decoder's `Value`,
//! written as rows, read by the typed row reader).
//!
//! - Neither may panic, allocate without bound or hang.
//! - They accept the same inputs, with the same values: every field of the
//!   record type is read, so no column goes unread. So does the derive
//!   path (`xbf::fast::from_slice`), which reads whole columns.
//! - A reader of fewer fields (projection) may accept more, never less.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xbf::{DecodeOptions, EncodeOptions, Layout};
use xbf_fuzz::{head, Few, Rec};

fn long_way<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> xbf::Result<T> {
    let (ty, v) = DecodeOptions::default().decode_typed_message(bytes)?;
    let rows = EncodeOptions::v2().layout(Layout::Rows).encode_typed_message(&ty, &v)?;
    xbf::from_slice(&rows)
}

fuzz_target!(|data: &[u8]| {
    static HEAD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let mut bytes = HEAD.get_or_init(head).clone();
    bytes.extend_from_slice(data);
    let direct = xbf::from_slice::<Vec<Rec>>(&bytes);
    let long = long_way::<Vec<Rec>>(&bytes);
    match (&direct, &long) {
        // Values compared through their rows: bit for bit, NaNs included.
        (Ok(a), Ok(b)) => assert_eq!(xbf::to_vec(a).unwrap(), xbf::to_vec(b).unwrap()),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("from_slice {a:?}\nthe long way {b:?}"),
    }
    let whole = xbf::fast::from_slice::<Vec<Rec>>(&bytes);
    match (&whole, &direct) {
        (Ok(a), Ok(b)) => assert_eq!(xbf::to_vec(a).unwrap(), xbf::to_vec(b).unwrap()),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("fast::from_slice {a:?}\nfrom_slice {b:?}"),
    }
    if long.is_ok() {
        xbf::from_slice::<Vec<Few>>(&bytes).expect("a projection of a valid message reads");
    }
});
