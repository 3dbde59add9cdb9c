//! The column path (`FileReader::read_block_columns`) against the `Value`
//! path (`FileReader::read_block`): the same records on every valid file
//! vector and on random files, the same error kind and offset on damaged
//! ones.

use std::io::Cursor;

use proptest::collection::vec;
use proptest::prelude::*;
use xbf::{FileOptions, FileReader, FileWriter, Metadata, ReadOptions, Value};

#[path = "support/arb.rs"]
mod arb;
use arb::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Every block of `bytes` read both ways with `q`: the same records, or
/// errors of the same kind at the same offset. Returns how many blocks
/// were compared.
fn agree(bytes: &[u8], q: &ReadOptions) -> usize {
    let Ok(mut r) = FileReader::open(Cursor::new(bytes)) else { return 0 };
    let unfiltered = q.clone();
    for i in 0..r.blocks().len() {
        let values = r.read_block(i, &unfiltered);
        let columns = r.read_block_columns(i, &unfiltered);
        match (values, columns) {
            (Ok(v), Ok(Some(c))) => {
                assert_eq!(c.records as usize, c.root.len(), "block {i}");
                assert_eq!(bytes_of(&c.to_values()), bytes_of(&v), "block {i}");
                assert_eq!(Ok(c.ty.clone()), r.projected_type(&unfiltered), "block {i}");
            }
            (Ok(v), Ok(None)) => assert!(v.is_empty()),
            (Err(a), Err(b)) => {
                assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset()), "block {i}: {a} / {b}");
                assert_eq!(a.to_string(), b.to_string());
            }
            (a, b) => panic!("block {i}: the value path gives {a:?}, the column path {b:?}"),
        }
    }
    r.blocks().len()
}

/// The values' encodings: values compared bit for bit (a NaN is not equal
/// to itself as a value).
fn bytes_of(values: &[Value]) -> Vec<Vec<u8>> {
    values.iter().map(|v| xbf::encode_message(v).unwrap()).collect()
}

/// The paths of `ty`'s fields, when it is a struct.
fn field_paths(ty: &Metadata) -> Vec<String> {
    match ty {
        Metadata::Struct(s) => s.fields().map(|(n, _)| n.to_owned()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn every_file_vector_reads_the_same_both_ways() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/files/files.json");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut valid, mut invalid, mut blocks_read) = (0, 0, 0);
    for v in &vectors {
        let Some(h) = v["hex"].as_str() else { continue };
        let bytes = hex(h);
        let blocks = agree(&bytes, &ReadOptions::default());
        if let Ok(r) = FileReader::open(Cursor::new(&bytes)) {
            for f in field_paths(r.metadata()) {
                agree(&bytes, &ReadOptions::default().fields(&[f]));
            }
        }
        if v.get("error").is_some() || v.get("end_error").is_some() {
            invalid += 1;
        } else {
            blocks_read += blocks;
            valid += 1;
        }
    }
    assert!(valid > 5 && invalid > 5 && blocks_read > valid, "{valid} valid, {invalid} invalid vectors");
}

/// `bytes` with byte `at` of block `b`'s body changed and the block's
/// CRC-32C made right again, so that the columns' decoders meet the damage.
fn damaged(bytes: &[u8], b: &xbf::file::BlockInfo, at: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let range = b.range();
    let (start, end) = (range.start as usize, range.end as usize);
    // A block: its body's length (a varint), the body, a CRC-32C.
    let body_len = end - start - 4;
    let head = (1..=10).find(|&k| out[start + k - 1] & 0x80 == 0).unwrap();
    let body = start + head..end - 4;
    assert!(body.len() <= body_len);
    let i = body.start + at % body.len();
    out[i] ^= 1 << (at % 8);
    let crc = crc32c(&out[body.clone()]);
    out[end - 4..end].copy_from_slice(&crc.to_le_bytes());
    out
}

fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0x82F6_3B78 } else { crc >> 1 };
        }
    }
    !crc
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_files_read_the_same_both_ways(
        (ty, values, rows, flips) in arb_metadata().prop_flat_map(|ty| {
            (Just(ty.clone()), vec(arb_value(&ty), 1..40), 1usize..16, vec(any::<usize>(), 0..6))
        })
    ) {
        let mut w = FileWriter::new(Vec::new(), ty.clone(), FileOptions::default().block_rows(rows)).unwrap();
        for v in &values {
            w.write(v.clone()).unwrap();
        }
        let bytes = w.finish().unwrap();
        prop_assert!(agree(&bytes, &ReadOptions::default()) > 0);
        for f in field_paths(&ty) {
            agree(&bytes, &ReadOptions::default().fields(&[f]));
        }
        let blocks = FileReader::open(Cursor::new(&bytes)).unwrap().blocks().to_vec();
        for (k, at) in flips.into_iter().enumerate() {
            agree(&damaged(&bytes, &blocks[k % blocks.len()], at), &ReadOptions::default());
        }
    }
}

#[test]
fn a_projection_of_a_wide_file_decodes_only_its_field() {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Row {
        delay: i32,
        origin: String,
        distance: Option<u16>,
        tags: Vec<String>,
    }
    let ty = xbf::metadata_of::<Row>().unwrap();
    let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(1000)).unwrap();
    for i in 0..2500i32 {
        let row = Row {
            delay: i % 97 - 20,
            origin: ["SFO", "LAX", "ÖRE"][i as usize % 3].to_owned(),
            distance: (i % 5 != 0).then_some((i * 7) as u16),
            tags: (0..i % 3).map(|k| format!("t{k}")).collect(),
        };
        w.write_serde(&row).unwrap();
    }
    let bytes = w.finish().unwrap();
    assert_eq!(agree(&bytes, &ReadOptions::default()), 3);
    let mut r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let b = r.read_block_columns(2, &ReadOptions::default().fields(&["origin"])).unwrap().unwrap();
    let xbf::ColumnData::Fields { n: 500, columns } = &b.root else { panic!("{:?}", b.root) };
    let [xbf::ColumnData::Binary { utf8: true, offsets, data }] = &columns[..] else { panic!("{columns:?}") };
    assert_eq!(&data[offsets[0]..offsets[1]], "ÖRE".as_bytes());
    assert_eq!(b.to_values()[1].get("origin"), Some(&Value::String("SFO".into())));
    // A filter no block can satisfy: no block decoded.
    let q = ReadOptions::default().filter(xbf::Predicate::parse("delay > 1000").unwrap());
    assert!((0..3).all(|i| r.read_block_columns(i, &q).unwrap().is_none()));
}

/// A reader reads each block into the last block's memory (no zeroing): a
/// projected read after a whole one (whose bytes stay where the unread
/// columns are) gives what a reader that read nothing before gives.
#[test]
fn a_reader_reusing_its_block_memory_reads_as_a_fresh_one() {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Row {
        delay: i64,
        origin: String,
        tags: Vec<String>,
    }
    let ty = xbf::metadata_of::<Row>().unwrap();
    let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(300)).unwrap();
    for i in 0..1000i64 {
        let origin = ["SFO", "LAX", "ÖRE", "a longer name of an airport"][i as usize % 4].to_owned();
        w.write_serde(&Row { delay: i * i % 1013 - 500, origin, tags: (0..i % 4).map(|k| format!("{k}")).collect() })
            .unwrap();
    }
    let bytes = w.finish().unwrap();
    let mut reused = FileReader::open(Cursor::new(&bytes)).unwrap();
    let n = reused.blocks().len();
    assert_eq!(n, 4);
    for f in ["delay", "origin", "tags"] {
        let q = ReadOptions::default().fields(&[f]);
        for i in (0..n).rev() {
            // Fill the reader's memory with another block's bytes first.
            reused.read_block_columns((i + 1) % n, &ReadOptions::default()).unwrap();
            let got = reused.read_block_columns(i, &q).unwrap().unwrap().to_values();
            let mut fresh = FileReader::open(Cursor::new(&bytes)).unwrap();
            let want = fresh.read_block_columns(i, &q).unwrap().unwrap().to_values();
            assert_eq!(bytes_of(&got), bytes_of(&want), "{f}, block {i}");
            assert_eq!(bytes_of(&reused.read_block(i, &q).unwrap()), bytes_of(&want), "{f}, block {i}");
        }
    }
}
