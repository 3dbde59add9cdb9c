//! What the fuzz targets share: the record type `Rec`, a reader that
//! dribbles, and the seeds of the corpora.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use xbf::{DecodeOptions, EncodeOptions, Layout};

#[derive(Serialize, Deserialize, xbf::Xbf, Debug, PartialEq)]
pub enum Shape {
    Empty,
    Circle(f64),
    Poly { points: Vec<(i32, i32)>, closed: bool },
}

#[derive(Serialize, Deserialize, xbf::Xbf, Debug, PartialEq)]
pub struct Rec {
    pub id: u64,
    pub name: String,
    #[serde(with = "serde_bytes")]
    pub blob: Vec<u8>,
    pub tags: Vec<String>,
    pub maybe: Option<i16>,
    pub shape: Shape,
    pub by_id: BTreeMap<u8, String>,
    pub point: [f32; 2],
}

#[derive(Deserialize, Debug, PartialEq)]
pub struct Few {
    pub name: String,
    pub maybe: Option<i16>,
}

/// The header and metadata of a columnar message of `Vec<Rec>`: the fuzz
/// input is the columns that follow.
pub fn head() -> Vec<u8> {
    let ty = xbf::metadata_of::<Vec<Rec>>().expect("a fixed type");
    let mut h = vec![0xc2, 0x02];
    h.extend(EncodeOptions::v2().encode_metadata(&ty).expect("metadata"));
    h
}

/// `n` records that use every field, both enum payloads and options both ways.
pub fn records(n: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| Rec {
            id: (i * 7) as u64,
            name: format!("name-{}", i % 5),
            blob: vec![i as u8; i % 3],
            tags: (0..i % 3).map(|t| format!("t{t}")).collect(),
            maybe: if i % 2 == 0 { Some(i as i16 - 3) } else { None },
            shape: match i % 3 {
                0 => Shape::Empty,
                1 => Shape::Circle(i as f64 / 8.0),
                _ => Shape::Poly { points: vec![(1, -1); i % 4], closed: i % 2 == 0 },
            },
            by_id: (0..(i % 3) as u8).map(|b| (b, format!("{b}"))).collect(),
            point: [i as f32, 0.5],
        })
        .collect()
}

/// Valid columns of 0 to 200 records, without and with the zstd stage.
pub fn seeds() -> Vec<Vec<u8>> {
    let head = head().len();
    let mut out = Vec::new();
    for n in [0usize, 1, 3, 20, 200] {
        let recs = records(n);
        let rows = xbf::to_vec(&recs).expect("encodes");
        let (ty, v) = DecodeOptions::default().decode_typed_message(&rows).expect("decodes");
        for opts in [EncodeOptions::v2(), EncodeOptions::v2().compress_columns(Some(1)).unwrap()] {
            let b = opts.layout(Layout::Columnar).encode_typed_message(&ty, &v).expect("encodes");
            out.push(b[head..].to_vec());
        }
    }
    out
}

/// A reader that hands out a few bytes per call (1 to 7, in turn), to
/// reach the stream decoders' short-read paths.
pub struct Dribble<'a> {
    data: &'a [u8],
    step: usize,
}

impl<'a> Dribble<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Dribble { data, step: 1 }
    }
}

impl std::io::Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.data.len()).min(self.step);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.step = self.step % 7 + 1;
        Ok(n)
    }
}

/// Whole messages of `Vec<Rec>` (the derive_message target's seeds): rows
/// and columns, XBF 2 and schema-less v1 where the type allows it.
pub fn message_seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for n in [0usize, 1, 3, 20, 200] {
        let recs = records(n);
        out.push(xbf::fast::to_vec(&recs).expect("encodes"));
        let (ty, v) =
            DecodeOptions::default().decode_typed_message(&xbf::to_vec(&recs).expect("encodes")).expect("decodes");
        for opts in [EncodeOptions::v2(), EncodeOptions::v2().compress_columns(Some(1)).unwrap()] {
            out.push(opts.layout(Layout::Columnar).encode_typed_message(&ty, &v).expect("encodes"));
        }
    }
    out
}

/// Record streams of `Rec` (the stream_reader target's seeds): with and
/// without checksums and schema by reference, one record or many a block.
pub fn stream_seeds() -> Vec<Vec<u8>> {
    let ty = xbf::metadata_of::<Rec>().expect("a fixed type");
    let mut out = Vec::new();
    for n in [0usize, 1, 5, 40] {
        let values: Vec<xbf::Value> = records(n)
            .iter()
            .map(|r| {
                DecodeOptions::default().decode_typed_message(&xbf::to_vec(r).expect("encodes")).expect("decodes").1
            })
            .collect();
        for (checksums, by_ref, block) in [(false, false, 1 << 16), (true, false, 64), (false, true, 1)] {
            let opts =
                xbf::StreamOptions::default().checksums(checksums).schema_by_reference(by_ref).block_bytes(block);
            let mut w = xbf::StreamWriter::new(Vec::new(), ty.clone(), opts).expect("a stream");
            for v in &values {
                w.write(v).expect("a record writes");
            }
            out.push(w.finish().expect("the stream ends"));
        }
    }
    out
}
