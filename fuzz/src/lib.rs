//! What the fuzz targets share: the record type of `typed_columns` and
//! the seeds of its corpus.

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

/// Valid columns of 0 to 200 records, without and with the zstd stage.
pub fn seeds() -> Vec<Vec<u8>> {
    let head = head().len();
    let mut out = Vec::new();
    for n in [0usize, 1, 3, 20, 200] {
        let recs: Vec<Rec> = (0..n)
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
            .collect();
        let rows = xbf::to_vec(&recs).expect("encodes");
        let (ty, v) = DecodeOptions::default().decode_typed_message(&rows).expect("decodes");
        for opts in [EncodeOptions::v2(), EncodeOptions::v2().compress_columns(Some(1))] {
            let b = opts.layout(Layout::Columnar).encode_typed_message(&ty, &v).expect("encodes");
            out.push(b[head..].to_vec());
        }
    }
    out
}
