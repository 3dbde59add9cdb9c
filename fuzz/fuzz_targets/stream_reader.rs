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
use xbf::{EncodeOptions, Error, StreamOptions, StreamReader, StreamWriter, Value};
use xbf_fuzz::{Dribble, Rec};

/// Every record, then the error that ended the stream (if any); records are
/// kept as their XBF 2 encodings so NaNs compare bit for bit.
fn read_all<R: std::io::Read>(r: R) -> (Option<xbf::Metadata>, Vec<Value>, Option<Error>) {
    let reader = match StreamReader::new(r) {
        Ok(reader) => reader,
        Err(e) => return (None, Vec::new(), Some(e)),
    };
    let ty = reader.metadata().clone();
    let mut records = Vec::new();
    let mut error = None;
    for item in reader {
        match item {
            Ok(v) => records.push(v),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    (Some(ty), records, error)
}

fuzz_target!(|data: &[u8]| {
    let canon = |v: &Value| EncodeOptions::v2().encode_message(v).expect("a decoded record encodes");
    let key = |e: &Option<Error>| e.as_ref().map(|e| (e.kind(), e.offset(), e.path_string()));

    let (ty, records, error) = read_all(data);
    let (ty2, records2, error2) = read_all(Dribble::new(data));
    assert_eq!(ty, ty2, "slice and dribble read different types");
    assert_eq!(records.len(), records2.len(), "slice: {error:?}\ndribble: {error2:?}");
    for (a, b) in records.iter().zip(&records2) {
        assert_eq!(canon(a), canon(b), "slice and dribble read different records");
    }
    assert_eq!(key(&error), key(&error2), "slice: {error:?}\ndribble: {error2:?}");

    // What was read writes back and reads again as the same records.
    if let Some(ty) = &ty {
        let mut w = StreamWriter::new(Vec::new(), ty.clone(), StreamOptions::default()).expect("a read type writes");
        for r in &records {
            w.write(r).expect("a read record writes");
        }
        let again = w.finish().expect("the stream ends");
        let (_, back, err) = read_all(&again[..]);
        assert!(err.is_none(), "a written stream fails: {err:?}");
        assert_eq!(back.len(), records.len());
        for (a, b) in records.iter().zip(&back) {
            assert_eq!(canon(a), canon(b), "a record changes through the writer");
        }
    }

    // Streams of Rec (seeded by fuzz.sh) also go through serde.
    if ty.as_ref() == xbf::metadata_of::<Rec>().ok().as_ref() {
        let typed = xbf::typed_stream::<Rec, _>(data).expect("the header read above");
        let mut n = 0;
        let mut failed = false;
        for item in typed {
            match item {
                Ok(r) => {
                    let dynamic = records.get(n).expect("the typed reader yields no more records");
                    // The dynamic record as a Rec (a BTreeMap sorts the map's keys), then both as rows.
                    let as_rec: Rec = xbf::from_slice(&canon(dynamic)).expect("a record the typed reader took reads");
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
        assert!(n <= records.len());
        if !failed {
            assert_eq!(n, records.len(), "the typed reader stops early without an error");
            assert!(error.is_none(), "the typed reader ends cleanly where the dynamic one fails: {error:?}");
        }
    }
});
