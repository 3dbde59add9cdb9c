//! Record streams: round trips across blocks, appending, cuts at every byte,
//! damage under checksums, and readers that hand out one byte at a time.

use std::io::{self, Read};

use xbf::{
    DecodeOptions, ErrorKind, Metadata, OptionValue, PrimitiveType as P, SchemaRegistry, StreamOptions, StreamReader,
    StreamWriter, StructMetadata, StructValue, Value,
};

struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

fn row_type() -> Metadata {
    StructMetadata::new(
        "Row",
        [("id", Metadata::from(P::U64)), ("name", P::String.into()), ("score", Metadata::option(P::F64.into()))],
    )
    .unwrap()
    .into()
}

fn rows(n: u64) -> Vec<Value> {
    let ty = row_type();
    let s = ty.as_struct().unwrap().clone();
    (0..n)
        .map(|i| {
            let score = if i % 3 == 0 {
                OptionValue::none(P::F64.into())
            } else {
                OptionValue::some(P::F64.into(), Value::F64(i as f64 / 4.0)).unwrap()
            };
            StructValue::new(s.clone(), vec![Value::U64(i * 1000), Value::from(format!("row {i}")), score.into()])
                .unwrap()
                .into()
        })
        .collect()
}

fn write(records: &[Value], opts: StreamOptions) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), row_type(), opts).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

/// Everything a reader yields: the records, then the error if any.
fn read_all<R: Read>(reader: R) -> (Vec<Value>, Option<xbf::Error>) {
    let mut got = Vec::new();
    let reader = match StreamReader::new(reader) {
        Ok(r) => r,
        Err(e) => return (got, Some(e)),
    };
    for item in reader {
        match item {
            Ok(v) => got.push(v),
            Err(e) => return (got, Some(e)),
        }
    }
    (got, None)
}

#[test]
fn round_trip_across_many_blocks() {
    let records = rows(1000);
    for checksums in [false, true] {
        let opts = StreamOptions::default().checksums(checksums).block_bytes(200);
        let bytes = write(&records, opts);
        let (got, err) = read_all(&bytes[..]);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, records);
        let (got, err) = read_all(OneByte(&bytes[..]));
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got, records);
        assert_eq!(StreamReader::new(&bytes[..]).unwrap().has_checksums(), checksums);
    }
}

#[test]
fn appending_adds_blocks_to_the_same_stream() {
    let records = rows(10);
    let opts = StreamOptions::default().checksums(true);
    let mut bytes = write(&records[..4], opts.clone());
    let mut more = StreamWriter::resume(&mut bytes, row_type(), opts);
    for r in &records[4..] {
        more.write(r).unwrap();
    }
    more.finish().unwrap();
    assert_eq!(read_all(&bytes[..]).0, records);
}

#[test]
fn a_cut_stream_yields_whole_records_then_truncated() {
    let records = rows(12);
    let plain = write(&records, StreamOptions::default().block_bytes(60));
    let header_end = 2 + xbf::EncodeOptions::v2().encode_metadata(&row_type()).unwrap().len();
    for cut in header_end..plain.len() {
        let (got, err) = read_all(&plain[..cut]);
        assert_eq!(got[..], records[..got.len()], "cut at {cut}");
        if let Some(e) = err {
            assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {cut}: {e}");
            // Without checksums, every record that lies whole before the cut
            // was yielded: one more would need bytes past it.
            let whole = write(&records[..got.len() + 1], StreamOptions::default().block_bytes(60));
            assert!(whole.len() > cut || got.len() == records.len(), "cut at {cut} lost a record");
        }
    }
    let checked = write(&records, StreamOptions::default().checksums(true).block_bytes(60));
    for cut in header_end..checked.len() {
        let (got, err) = read_all(&checked[..cut]);
        assert_eq!(got[..], records[..got.len()], "cut at {cut}");
        if let Some(e) = err {
            assert_eq!(e.kind(), ErrorKind::Truncated, "cut at {cut}: {e}");
        }
    }
}

#[test]
fn damage_under_checksums_is_detected_not_decoded() {
    let records = rows(40);
    let bytes = write(&records, StreamOptions::default().checksums(true).block_bytes(100));
    let header_end = 2 + xbf::EncodeOptions::v2().encode_metadata(&row_type()).unwrap().len();
    for at in header_end..bytes.len() {
        for flip in [0x01u8, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            let (got, err) = read_all(&damaged[..]);
            // Whatever is yielded is exactly the original records, in order:
            // a damaged block never yields a changed record.
            assert_eq!(got[..], records[..got.len()], "flip {flip:#x} at {at}");
            assert!(err.is_some() || got.len() == records.len(), "flip at {at} lost records silently");
        }
    }
}

#[test]
fn framing_errors_have_kinds_and_offsets() {
    let fails = |hex: &[u8], kind: ErrorKind, offset: u64| {
        let (_, err) = read_all(hex);
        let err = err.expect("must fail");
        assert_eq!((err.kind(), err.offset()), (kind, Some(offset)), "{err}");
    };
    // u8 stream: header c2 04, type 01, then blocks.
    fails(&[0xc2, 0x04, 0x01, 0x00], ErrorKind::InvalidVarint, 3); // block length 0
    fails(&[0xc2, 0x04, 0x01, 0x01, 0x00], ErrorKind::InvalidVarint, 4); // record count 0
    fails(&[0xc2, 0x04, 0x01, 0x02, 0x05, 0x07], ErrorKind::Truncated, 4); // 5 records in 1 byte
    fails(&[0xc2, 0x04, 0x01, 0x03, 0x01, 0x07, 0x09], ErrorKind::TrailingBytes, 6);
    fails(&[0xc2, 0x0c, 0x01, 0x02, 0x01, 0x07, 0, 0, 0, 0], ErrorKind::BadChecksum, 6);
    fails(&[0xc2, 0x0c, 0x01, 0x02, 0x01, 0x07, 0, 0], ErrorKind::Truncated, 3);
    fails(&[0xc2, 0x00, 0x01, 0x07], ErrorKind::Unsupported, 1); // a message, not a stream
    fails(&[0x01, 0x07], ErrorKind::Unsupported, 0); // a v1 message
    fails(&[0xc2, 0x04, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], ErrorKind::Truncated, 12);
    // A huge claimed block from a reader: fails when the bytes stop coming.
    let (_, err) = read_all(OneByte(&[0xc2, 0x0c, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01][..]));
    assert_eq!(err.unwrap().kind(), ErrorKind::Truncated);
    // The message decoder refuses a stream.
    let e = xbf::decode_message(&[0xc2, 0x04, 0x01, 0x02, 0x01, 0x07]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Unsupported, Some(1)));
}

#[test]
fn record_errors_name_the_record() {
    let bytes = write(&rows(5), StreamOptions::default());
    // Make the last record's option tag invalid: it is the last byte but
    // one... find it by decoding: the final record is row 4, score some(1.0).
    let mut damaged = bytes.clone();
    let tag_at = damaged.len() - 9;
    assert_eq!(damaged[tag_at], 1);
    damaged[tag_at] = 2;
    let (got, err) = read_all(&damaged[..]);
    assert_eq!(got.len(), 4);
    let err = err.unwrap();
    assert_eq!(err.kind(), ErrorKind::InvalidBool);
    assert_eq!(err.offset(), Some(tag_at as u64));
    assert_eq!(err.path_string(), "#4.score");
}

#[test]
fn streams_by_reference_need_the_schema() {
    let records = rows(3);
    let bytes = write(&records, StreamOptions::default().schema_by_reference(true));
    assert_eq!(&bytes[..2], &[0xc2, 0x05]);
    assert_eq!(read_all(&bytes[..]).1.unwrap().kind(), ErrorKind::UnknownSchema);
    let mut schemas = SchemaRegistry::new();
    schemas.insert(row_type());
    let reader = DecodeOptions::default().schemas(schemas).stream_reader(&bytes[..]).unwrap();
    assert_eq!(reader.collect::<Result<Vec<_>, _>>().unwrap(), records);
}

#[test]
fn writer_refuses_records_of_another_type() {
    let mut w = StreamWriter::new(Vec::new(), P::U8.into(), StreamOptions::default()).unwrap();
    assert_eq!(w.write(&Value::U16(1)).unwrap_err().kind(), ErrorKind::TypeMismatch);
    w.write(&Value::U8(1)).unwrap();
    assert_eq!(w.finish().unwrap(), [0xc2, 0x04, 0x01, 0x02, 0x01, 0x01]);
}

#[test]
fn zero_size_records_draw_on_a_budget_per_block() {
    // A budget of 65,536 values: 48 bytes each (SPEC.md 16.2).
    let opts = DecodeOptions::default().max_decoded_bytes(65_536 * xbf::options::DECODED_VALUE_BYTES);
    let read = |bytes: &[u8]| {
        let mut got = Vec::new();
        match opts.stream_reader(bytes) {
            Err(e) => (got, Some(e)),
            Ok(r) => {
                for item in r {
                    match item {
                        Ok(v) => got.push(v),
                        Err(e) => return (got, Some(e)),
                    }
                }
                (got, None)
            }
        }
    };
    let mut w =
        StreamWriter::new(Vec::new(), Metadata::UNIT, StreamOptions::default().block_bytes(usize::MAX)).unwrap();
    for _ in 0..65_536 {
        w.write(&Value::Unit).unwrap();
    }
    w.flush().unwrap();
    for _ in 0..65_536 {
        w.write(&Value::Unit).unwrap();
    }
    let bytes = w.finish().unwrap();
    let (got, err) = read(&bytes[..]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(got.len(), 131_072);
    // 65,537 units in one block pass that budget, at the block's count.
    let (got, err) = read(&[0xc2, 0x04, 0x13, 0x03, 0x81, 0x80, 0x04][..]);
    assert!(got.is_empty());
    let err = err.unwrap();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::TooLarge, Some(4)));
    // The default budget: 22,369,622 units in a block are one too many.
    let (got, err) = read_all(&[0xc2, 0x04, 0x13, 0x04, 0xd6, 0xaa, 0xd5, 0x0a][..]);
    assert!(got.is_empty());
    let err = err.unwrap();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::TooLarge, Some(4)));
}

/// Issue 18, repro 9: a count in the stream's metadata is checked against
/// the input when its length is known, as over a message; a reader of
/// unknown length may only differ on such a cut input.
#[test]
fn known_lengths_check_the_metadata_counts() {
    let cut = [0xc2, 0x04, 0x16, 0x67, 0xc0];
    let e = StreamReader::from_slice(&cut).err().unwrap();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(3)));
    let e = DecodeOptions::default().stream_reader_with_length(&cut[..], 5).err().unwrap();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::Truncated, Some(3)));
    let e = StreamReader::new(&cut[..]).err().unwrap();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::UnknownDiscriminant, Some(4)));
    // Whole streams read the same either way.
    let mut w = StreamWriter::new(
        Vec::new(),
        Metadata::tuple([Metadata::Primitive(P::U8), Metadata::Primitive(P::String)]),
        StreamOptions::default(),
    )
    .unwrap();
    w.write(&Value::Tuple(xbf::TupleValue::from_items(vec![Value::U8(1), Value::String("a".into())]))).unwrap();
    let bytes = w.finish().unwrap();
    let a: Vec<_> = StreamReader::from_slice(&bytes).unwrap().collect::<Result<_, _>>().unwrap();
    let b: Vec<_> = StreamReader::new(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(a, b);
}
