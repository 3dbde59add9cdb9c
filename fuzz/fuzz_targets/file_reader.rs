//! Reads arbitrary bytes as an XBF file (SPEC.md §24), from the end and
//! forward, whole and projected, with and without skipping damaged blocks.
//!
//! - No reader may panic (nor allocate without bound, nor hang).
//! - When the bytes are a file that reads whole both ways, both ways give
//!   the same records, and writing those records again in blocks of the
//!   same sizes gives a file that reads back to them.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use xbf::{EncodeOptions, FileOptions, FileReader, FileStreamReader, FileWriter, Predicate, ReadOptions, Value};

fuzz_target!(|data: &[u8]| {
    let canon = |v: &Value| EncodeOptions::v2().encode_message(v).expect("a decoded value encodes");
    let all = ReadOptions::default();
    let mut from_end = None;
    if let Ok(mut r) = FileReader::open(Cursor::new(data)) {
        let sizes: Vec<u64> = r.blocks().iter().map(|b| b.records).collect();
        let records: Result<Vec<Value>, _> = r.records(&all).collect();
        let _ = r.records(&all.clone().skip_damaged(true).threads(2)).count();
        // A projection and a filter on the first field, if there is one.
        if let xbf::Metadata::Struct(s) = r.metadata().clone() {
            if let Some((name, _)) = s.fields().next() {
                let _ = r.records(&all.clone().fields(&[name])).count();
                for op in ["=", "!=", "<", ">="] {
                    if let Ok(p) = Predicate::parse(&format!("{name} {op} 1")) {
                        let _ = r.records(&all.clone().filter(p)).count();
                    }
                }
            }
        }
        for i in 0..r.blocks().len().min(4) {
            let _ = r.block_column_stats(i);
        }
        if let Ok(records) = records {
            from_end = Some((r.metadata().clone(), sizes, records));
        }
    }
    let mut forward = Vec::new();
    let mut clean = false;
    if let Ok(mut r) = FileStreamReader::new(data) {
        loop {
            match r.next_block(&all) {
                Ok(Some(b)) => forward.extend(b),
                Ok(None) => {
                    clean = true;
                    break;
                }
                Err(_) => break,
            }
        }
    }
    if let (Some((ty, sizes, records)), true) = (from_end, clean) {
        let a: Vec<Vec<u8>> = records.iter().map(canon).collect();
        let b: Vec<Vec<u8>> = forward.iter().map(canon).collect();
        // Forward, the footer must list the blocks read (§24.6), so both
        // ways read the same blocks when both end cleanly.
        assert_eq!(a, b, "the file reads differently from the end and forward");
        let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(usize::MAX)).expect("a type");
        let mut it = records.into_iter();
        for n in sizes {
            for r in it.by_ref().take(n as usize) {
                w.write(r).expect("a record of the type");
            }
            w.flush_block().expect("a block");
        }
        let again = w.finish().expect("a file");
        let back: Vec<Vec<u8>> = FileReader::open(Cursor::new(&again))
            .expect("a written file opens")
            .records(&all)
            .map(|r| canon(&r.expect("a written record reads")))
            .collect();
        assert_eq!(back, a, "a rewritten file reads back to other records");
    }
});
