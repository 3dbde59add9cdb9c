//! Reads arbitrary bytes as a record stream (SPEC 16), from a slice and
//! from a reader that hands out a few bytes per call, and, where the
//! records' type is `Rec`, as serde records (`TypedStreamReader`).
//!
//! - No reader may panic, allocate without bound or hang.
//! - The slice and the dribbling reader yield the same records, then the
//!   same error (kind, offset and path; both are readers of unknown
//!   length, so even `truncated` must agree).
//! - The records yielded re-encode through a `StreamWriter` and read back
//!   as the same records.
//! - The typed reader yields as many records as the dynamic one, with the
//!   same values, and fails where it fails.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Read;

use xbf::{EncodeOptions, Error, StreamOptions, StreamReader, StreamWriter, Value};
use xbf_fuzz::{Dribble, Rec};

/// How many records of one input the target compares. A few hundred bytes
/// may hold millions of empty records (each block within the decoding
/// budget); the reader streams them in constant memory (9,486,335 records
/// of `struct {}` from 592 bytes, 17 MB), but comparing them all three ways
/// under ASan takes minutes an input.
const MAX_RECORDS: u64 = 100_000;

/// Reads two streams in lockstep and checks that they yield the same
/// records, then the same error (kind, offset, path), calling `each` on every
/// record. Nothing is kept. Returns the number of records and the error, or
/// `None` when the streams go on past [`MAX_RECORDS`].
fn lockstep<A: Read, B: Read>(
    a: StreamReader<A>,
    b: StreamReader<B>,
    what: &str,
    mut each: impl FnMut(&Value),
) -> Option<(u64, Option<Error>)> {
    let (mut a, mut b) = (a, b);
    let mut n = 0u64;
    loop {
        if n == MAX_RECORDS {
            return None;
        }
        match (a.next(), b.next()) {
            (None, None) => return Some((n, None)),
            (Some(Ok(x)), Some(Ok(y))) => {
                assert_eq!(canon(&x), canon(&y), "{what}: record {n} differs");
                each(&x);
                n += 1;
            }
            (Some(Err(x)), Some(Err(y))) => {
                assert_eq!(key(&x), key(&y), "{what}: {x:?}\nvs {y:?}");
                return Some((n, Some(x)));
            }
            (x, y) => panic!("{what}: after {n} records, {x:?}\nvs {y:?}"),
        }
    }
}

fn canon(v: &Value) -> Vec<u8> {
    EncodeOptions::v2().encode_message(v).expect("a decoded record encodes")
}

fn key(e: &Error) -> (xbf::ErrorKind, Option<u64>, String) {
    (e.kind(), e.offset(), e.path_string())
}

fuzz_target!(|data: &[u8]| {
    // The slice and the dribbling reader agree on the header, every record and the error.
    let (a, b) = match (StreamReader::new(data), StreamReader::new(Dribble::new(data))) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(x), Err(y)) => {
            assert_eq!(key(&x), key(&y), "slice: {x:?}\ndribble: {y:?}");
            return;
        }
        (x, y) => panic!("slice: {:?}\ndribble: {:?}", x.err(), y.err()),
    };
    let ty = a.metadata().clone();
    assert_eq!(&ty, b.metadata(), "slice and dribble read different types");

    // What was read writes back and reads again as the same records.
    let mut w = StreamWriter::new(Vec::new(), ty.clone(), StreamOptions::default()).expect("a read type writes");
    let outcome = lockstep(a, b, "slice and dribble", |r| w.write(r).expect("a read record writes"));
    let Some((count, error)) = outcome else {
        return;
    };
    let again = w.finish().expect("the stream ends");
    let mut written = StreamReader::new(&again[..]).expect("a written stream opens");
    let mut read = StreamReader::new(data).expect("opened above");
    for n in 0..count {
        let x = written.next().expect("the written stream ends early").expect("a written stream fails");
        let y = read.next().expect("read above").expect("read above");
        assert_eq!(canon(&x), canon(&y), "record {n} changes through the writer");
    }
    assert!(written.next().is_none(), "the written stream has more records");

    // Streams of Rec (seeded by fuzz.sh) also go through serde.
    if Some(&ty) == xbf::metadata_of::<Rec>().ok().as_ref() {
        let typed = xbf::typed_stream::<Rec, _>(data).expect("the header read above");
        let mut dynamic = StreamReader::new(data).expect("opened above");
        let mut n = 0;
        let mut failed = false;
        for item in typed {
            match item {
                Ok(r) => {
                    let dynamic = dynamic
                        .next()
                        .expect("the typed reader yields no more records")
                        .expect("the dynamic reader fails where the typed one does not");
                    // The dynamic record as a Rec (a BTreeMap sorts the map's keys), then both as rows.
                    let as_rec: Rec = xbf::from_slice(&canon(&dynamic)).expect("a record the typed reader took reads");
                    assert_eq!(
                        xbf::to_vec(&r).unwrap(),
                        xbf::to_vec(&as_rec).unwrap(),
                        "typed and dynamic records differ"
                    );
                    n += 1;
                }
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        // A serde record may be refused where the dynamic value is not
        // (never the other way round), but never silently dropped.
        assert!(n <= count);
        if !failed {
            assert_eq!(n, count, "the typed reader stops early without an error");
            assert!(error.is_none(), "the typed reader ends cleanly where the dynamic one fails: {error:?}");
        }
    }
});
