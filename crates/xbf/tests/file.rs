//! XBF files (SPEC.md §24): round trips through the writer and both
//! readers, projection and filters measured by the bytes actually read,
//! damaged and cut files, appending.

use std::cell::Cell;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use xbf::{ErrorKind, FileOptions, FileReader, FileStreamReader, FileWriter, Predicate, ReadOptions, Value, Xbf};

#[derive(Serialize, Deserialize, Xbf, Debug, PartialEq, Clone)]
struct Flight {
    date: i64,
    delay: i32,
    distance: u32,
    origin: String,
    note: Option<String>,
    speed: f64,
}

fn flight(i: u32) -> Flight {
    Flight {
        date: 1_000_000 + i64::from(i) * 60,
        delay: (i as i32 % 97) - 20,
        distance: 100 + (i * 7919) % 2000,
        origin: ["SFO", "LAX", "JFK", "ORD"][i as usize % 4].to_owned(),
        note: (i % 5 == 0).then(|| format!("n{i}")),
        speed: if i % 11 == 0 { f64::NAN } else { f64::from(i % 500) / 4.0 },
    }
}

fn write_flights(n: u32, rows: usize) -> Vec<u8> {
    let ty = xbf::metadata_of::<Flight>().unwrap();
    let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(rows)).unwrap();
    for i in 0..n {
        w.write_serde(&flight(i)).unwrap();
    }
    w.finish().unwrap()
}

fn typed(v: &Value) -> Flight {
    let bytes = xbf::encode_message(v).unwrap();
    xbf::from_slice(&bytes).unwrap()
}

fn same(a: &Flight, b: &Flight) -> bool {
    let nan_eq = a.speed.to_bits() == b.speed.to_bits() || a.speed == b.speed;
    nan_eq && Flight { speed: 0.0, ..a.clone() } == Flight { speed: 0.0, ..b.clone() }
}

/// Counts the bytes read through it, in a counter the test keeps.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

type Counted<'a> = FileReader<Counting<Cursor<&'a [u8]>>>;

fn counting(bytes: &[u8]) -> (Counted<'_>, Rc<Cell<u64>>) {
    let read = Rc::new(Cell::new(0));
    let r = FileReader::open(Counting { inner: Cursor::new(bytes), read: read.clone() }).unwrap();
    (r, read)
}
#[test]
fn round_trip_through_both_readers() {
    let bytes = write_flights(1000, 128);
    assert!(xbf::is_file(&bytes));
    assert_eq!(&bytes[..2], &[0xc2, 0x0e]);
    assert_eq!(&bytes[bytes.len() - 4..], b"XBFF");
    let mut r = FileReader::open(Cursor::new(&bytes)).unwrap();
    assert_eq!(r.blocks().len(), 8);
    assert_eq!(r.records_total(), 1000);
    let all: Vec<Value> = r.records(&ReadOptions::default()).collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 1000);
    for (i, v) in all.iter().enumerate() {
        assert!(same(&typed(v), &flight(i as u32)), "record {i}");
    }
    // Forward, as a stream: the same records.
    let mut s = FileStreamReader::new(&bytes[..]).unwrap();
    let mut fwd = Vec::new();
    while let Some(b) = s.next_block(&ReadOptions::default()).unwrap() {
        fwd.extend(b);
    }
    assert_eq!(fwd.len(), all.len());
    for (a, b) in fwd.iter().zip(&all) {
        assert!(same(&typed(a), &typed(b)));
    }
    // On several threads: the same, in order.
    let par: Vec<Value> = r.records(&ReadOptions::default().threads(3)).collect::<Result<_, _>>().unwrap();
    assert_eq!(par.len(), 1000);
    for (a, b) in par.iter().zip(&all) {
        assert!(same(&typed(a), &typed(b)));
    }
}

#[test]
fn derive_and_value_records_write_the_same_file() {
    let ty = xbf::metadata_of::<Flight>().unwrap();
    let mut a = FileWriter::new(Vec::new(), ty.clone(), FileOptions::default().block_rows(50)).unwrap();
    let mut b = FileWriter::new(Vec::new(), ty.clone(), FileOptions::default().block_rows(50)).unwrap();
    for i in 0..120 {
        a.write_xbf(&flight(i)).unwrap();
        b.write(xbf::decode_message(&xbf::to_vec(&flight(i)).unwrap()).unwrap()).unwrap();
    }
    assert_eq!(a.finish().unwrap(), b.finish().unwrap());
    let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default()).unwrap();
    assert_eq!(w.write(Value::U8(1)).unwrap_err().kind(), ErrorKind::TypeMismatch);
}

#[test]
fn block_i_opens_directly_and_statistics_are_right() {
    let bytes = write_flights(1000, 100);
    let mut r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let seventh = r.read_block(7, &ReadOptions::default()).unwrap();
    assert_eq!(seventh.len(), 100);
    assert!(same(&typed(&seventh[0]), &flight(700)));
    let paths = r.column_paths().unwrap();
    assert_eq!(paths, ["date", "delay", "distance", "origin", "note.(present)", "note", "speed"]);
    let b = &r.blocks()[7];
    let delay = &b.columns[1].stats;
    let (lo, hi) = delay.min_max.clone().unwrap();
    let want: Vec<i32> = (700..800).map(|i| flight(i).delay).collect();
    assert_eq!(lo, Value::I32(*want.iter().min().unwrap()));
    assert_eq!(hi, Value::I32(*want.iter().max().unwrap()));
    assert!(delay.exact);
    assert_eq!(b.columns[5].stats.nulls, 80); // note: 4 in 5 absent
    assert_eq!(b.columns[6].stats.nans, (700..800).filter(|i| i % 11 == 0).count() as u64);
    assert_eq!(r.read_block(10, &ReadOptions::default()).unwrap_err().kind(), ErrorKind::Truncated);
}

#[test]
fn one_column_reads_only_that_columns_bytes() {
    let bytes = write_flights(2000, 500);
    let (mut r, read) = counting(&bytes);
    let opened = read.get();
    let q = ReadOptions::default().fields(&["distance"]);
    let got: Vec<Value> = r.records(&q).collect::<Result<_, _>>().unwrap();
    assert_eq!(got.len(), 2000);
    assert_eq!(got[3].get("distance"), Some(&Value::U32(flight(3).distance)));
    assert_eq!(got[3].as_struct().unwrap().values().len(), 1);
    let column_bytes: u64 = r.blocks().iter().map(|b| b.columns[2].size).sum();
    assert_eq!(read.get() - opened, column_bytes);
    assert_eq!(r.projected_type(&q).unwrap().to_string(), "struct Flight { distance: u32 }");
}

#[test]
fn a_filter_no_block_can_satisfy_reads_no_column_data() {
    let bytes = write_flights(2000, 250);
    let (mut r, read) = counting(&bytes);
    let opened = read.get();
    // Header, type and footer only: less than the blocks by far.
    assert!(opened < bytes.len() as u64 / 4, "{opened} of {}", bytes.len());
    let q = ReadOptions::default().filter(Predicate::parse("delay > 1000").unwrap());
    assert_eq!(r.records(&q).count(), 0);
    assert_eq!(read.get(), opened);
    assert_eq!(r.blocks_ruled_out(&q).unwrap(), 8);
    // The dates grow: `date >= X` skips the blocks before X and reads the rest.
    let cut = flight(1500).date;
    let q = ReadOptions::default().filter(Predicate::parse(&format!("date >= {cut}")).unwrap()).fields(&["origin"]);
    let got: Vec<Value> = r.records(&q).collect::<Result<_, _>>().unwrap();
    assert_eq!(got.len(), 500);
    assert_eq!(r.blocks_ruled_out(&q).unwrap(), 6);
    // Every operator agrees with a scan of the records.
    for text in [
        "delay = 3",
        "delay != 3",
        "delay < -10",
        "delay <= -20",
        "delay > 75",
        "delay >= 76",
        "origin = JFK",
        "origin < \"JFK\"",
        "note = n10",
        "note != n10",
        "speed > 100",
        "speed != 1",
    ] {
        let p = Predicate::parse(text).unwrap();
        let got = r.records(&ReadOptions::default().filter(p)).count();
        let all: Vec<Value> = r.records(&ReadOptions::default()).collect::<Result<_, _>>().unwrap();
        let want = all.iter().filter(|v| scan(v, text)).count();
        assert_eq!(got, want, "{text}");
    }
}

/// The meaning of a predicate, written out for the test.
fn scan(v: &Value, text: &str) -> bool {
    let f = typed(v);
    match text {
        "delay = 3" => f.delay == 3,
        "delay != 3" => f.delay != 3,
        "delay < -10" => f.delay < -10,
        "delay <= -20" => f.delay <= -20,
        "delay > 75" => f.delay > 75,
        "delay >= 76" => f.delay >= 76,
        "origin = JFK" => f.origin == "JFK",
        "origin < \"JFK\"" => f.origin.as_str() < "JFK",
        "note = n10" => f.note.as_deref() == Some("n10"),
        "note != n10" => f.note.as_deref().is_some_and(|n| n != "n10"),
        "speed > 100" => f.speed > 100.0,
        "speed != 1" => f.speed != 1.0,
        _ => unreachable!(),
    }
}

#[test]
fn a_damaged_block_is_named_and_can_be_skipped() {
    let mut bytes = write_flights(1000, 100);
    let r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let b3 = r.blocks()[3].clone();
    drop(r);
    bytes[(b3.offset + b3.size / 2) as usize] ^= 0x40;
    let mut r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let err = r.records(&ReadOptions::default()).find_map(Result::err).unwrap();
    assert_eq!(err.kind(), ErrorKind::BadChecksum);
    let range = format!("block 3 (bytes {}..{})", b3.offset, b3.offset + b3.size);
    assert!(err.to_string().contains(&range), "{err}");
    let q = ReadOptions::default().skip_damaged(true);
    let got: Vec<Value> = r.records(&q).collect::<Result<_, _>>().unwrap();
    assert_eq!(got.len(), 900);
    assert!(same(&typed(&got[300]), &flight(400)));
    assert_eq!(r.damaged().len(), 1);
    assert_eq!(r.damaged()[0].index, 3);
    assert_eq!(r.damaged()[0].range, b3.range());
    // The forward reader finds it too.
    let mut s = FileStreamReader::new(&bytes[..]).unwrap();
    for _ in 0..3 {
        s.next_block(&ReadOptions::default()).unwrap().unwrap();
    }
    let e = s.next_block(&ReadOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadChecksum);
    assert!(e.to_string().contains(&range), "{e}");
    // A damaged footer fails the open.
    let mut bad = write_flights(10, 5);
    let n = bad.len();
    bad[n - 14] ^= 1;
    assert_eq!(FileReader::open(Cursor::new(&bad)).err().unwrap().kind(), ErrorKind::BadChecksum);
}

#[test]
fn a_cut_file_reads_forward_to_its_last_whole_block() {
    let bytes = write_flights(1000, 100);
    let r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let blocks = r.blocks().to_vec();
    for cut in [blocks[4].range().end, blocks[4].range().end + 7, bytes.len() as u64 - 3] {
        let part = &bytes[..cut as usize];
        assert_eq!(FileReader::open(Cursor::new(part)).err().unwrap().kind(), ErrorKind::Truncated);
        let mut s = FileStreamReader::new(part).unwrap();
        let mut n = 0;
        let err = loop {
            match s.next_block(&ReadOptions::default()) {
                Ok(Some(b)) => n += b.len(),
                Ok(None) => panic!("a cut file ends cleanly"),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), ErrorKind::Truncated, "{err}");
        let whole = blocks.iter().filter(|b| b.range().end <= cut).map(|b| b.records as usize).sum::<usize>();
        assert_eq!(n, whole, "cut at {cut}");
    }
}

#[test]
fn appending_keeps_every_byte_and_lists_every_block() {
    let bytes = write_flights(300, 100);
    let mut file = Cursor::new(bytes.clone());
    let mut w = FileWriter::append(&mut file, FileOptions::default().block_rows(100)).unwrap();
    for i in 300..450 {
        w.write_serde(&flight(i)).unwrap();
    }
    w.finish().unwrap();
    let grown = file.into_inner();
    assert_eq!(&grown[..bytes.len()], &bytes[..]);
    let mut r = FileReader::open(Cursor::new(&grown)).unwrap();
    assert_eq!(r.blocks().len(), 5);
    let all: Vec<Value> = r.records(&ReadOptions::default()).collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 450);
    assert!(same(&typed(&all[449]), &flight(449)));
    // Forward: across the old footer.
    let mut s = FileStreamReader::new(&grown[..]).unwrap();
    let mut n = 0;
    while let Some(b) = s.next_block(&ReadOptions::default()).unwrap() {
        n += b.len();
    }
    assert_eq!(n, 450);
}

#[test]
fn files_are_not_messages_or_streams() {
    let bytes = write_flights(10, 5);
    assert_eq!(xbf::decode_message(&bytes).unwrap_err().kind(), ErrorKind::Unsupported);
    assert_eq!(xbf::StreamReader::new(&bytes[..]).err().unwrap().kind(), ErrorKind::Unsupported);
    // Columns and a stream without checksums are not a file.
    let mut plain = bytes.clone();
    plain[1] = 0x06;
    assert_eq!(FileStreamReader::new(&plain[..]).err().unwrap().kind(), ErrorKind::Unsupported);
}

#[test]
fn hostile_footers_fail_cleanly() {
    let bytes = write_flights(50, 10);
    let r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let end = r.blocks().last().unwrap().range().end as usize;
    drop(r);
    // Every single-byte change of the footer region fails or reads; none panics.
    for i in end..bytes.len() {
        for bit in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            if let Ok(mut r) = FileReader::open(Cursor::new(&b)) {
                let _ = r.records(&ReadOptions::default()).count();
            }
        }
    }
}

#[test]
fn every_cut_and_flip_of_a_file_with_cascaded_columns_fails_cleanly() {
    // 2,500 records in two blocks: sorted dates in cascaded runs (05),
    // delays and origins entropy-coded (04), so that damage reaches them.
    let ty = xbf::metadata_of::<Flight>().unwrap();
    let mut w = FileWriter::new(Vec::new(), ty, FileOptions::default().block_rows(1250)).unwrap();
    for i in 0..2500 {
        let mut f = flight(i);
        f.date = 1_000_000 + i64::from(i / 3) * 60;
        w.write_serde(&f).unwrap();
    }
    let bytes = w.finish().unwrap();
    let mut r = FileReader::open(Cursor::new(&bytes)).unwrap();
    let encodings: Vec<&str> = r.block_column_stats(0).unwrap().iter().map(|c| c.encoding.name()).collect();
    assert!(encodings.contains(&"runs") && encodings.contains(&"entropy"), "{encodings:?}");
    let all: Vec<Value> = r.records(&ReadOptions::default()).collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 2500);
    assert_eq!(typed(&all[2499]).date, 1_000_000 + 833 * 60);
    let read_all = |b: &[u8]| {
        if let Ok(mut r) = FileReader::open(Cursor::new(b)) {
            let _ = r.records(&ReadOptions::default().skip_damaged(true)).count();
            let _ = r.records(&ReadOptions::default().fields(&["delay"])).count();
        }
        if let Ok(mut s) = FileStreamReader::new(b) {
            while let Ok(Some(_)) = s.next_block(&ReadOptions::default()) {}
        }
    };
    for cut in (0..bytes.len()).step_by(7) {
        read_all(&bytes[..cut]);
    }
    for i in (0..bytes.len()).step_by(3) {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        read_all(&b);
    }
}
