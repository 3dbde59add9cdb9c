//! Columnar encode and decode time against rows, on the same data in one
//! run (medians of interleaved runs): the ten-field records and the
//! four-`[f32; 3]` records of the benchmark harness, and the sizes that
//! `Layout::Auto` picks.
//!
//! `cargo run --release -p xbf --all-features --example columnar_speed [RUNS] [ZSTD_LEVEL]`

use std::time::{Duration, Instant};

use xbf::{
    DecodeOptions, EncodeOptions, Layout, Metadata, PrimitiveType as P, StructMetadata, StructValue, Value, VecValue,
};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

fn p(t: P) -> Metadata {
    Metadata::Primitive(t)
}

fn tens(n: usize) -> Value {
    let ty = std::sync::Arc::new(
        StructMetadata::new(
            "Ten",
            [
                ("id", p(P::U64)),
                ("price", p(P::F64)),
                ("qty", p(P::U32)),
                ("name", p(P::String)),
                ("flag", p(P::Bool)),
                ("a", p(P::I64)),
                ("b", p(P::F64)),
                ("c", p(P::U16)),
                ("d", p(P::String)),
                ("e", p(P::I32)),
            ],
        )
        .unwrap(),
    );
    let mut rng = Rng(42);
    let items = (0..n)
        .map(|i| {
            let fields = vec![
                Value::U64(i as u64),
                Value::F64(rng.below(1_000_000) as f64 / 100.0),
                Value::U32(rng.below(10_000) as u32),
                Value::String(format!("item-{}", rng.below(1000))),
                Value::Bool(rng.below(2) == 0),
                Value::I64(rng.next() as i64 >> 20),
                Value::F64(rng.below(1 << 20) as f64 / 7.0),
                Value::U16(rng.below(60_000) as u16),
                Value::String(rng.text(8)),
                Value::I32(rng.below(1000) as i32 - 500),
            ];
            Value::Struct(StructValue::new(ty.clone(), fields).unwrap())
        })
        .collect();
    Value::Vec(VecValue::new(Metadata::Struct(ty), items).unwrap())
}

fn tris(n: usize) -> Value {
    let arr = Metadata::array(3, p(P::F32));
    let ty = std::sync::Arc::new(
        StructMetadata::new("Tri", [("v0", arr.clone()), ("v1", arr.clone()), ("v2", arr.clone()), ("normal", arr)])
            .unwrap(),
    );
    let mut rng = Rng(7);
    let mut f = || Value::F32((rng.below(2_000_000) as f32 - 1_000_000.0) / 1000.0);
    let items = (0..n)
        .map(|_| {
            let fields = (0..4).map(|_| Value::Array(VecValue::new(p(P::F32), vec![f(), f(), f()]).unwrap())).collect();
            Value::Struct(StructValue::new(ty.clone(), fields).unwrap())
        })
        .collect();
    Value::Vec(VecValue::new(Metadata::Struct(ty), items).unwrap())
}

fn median(mut d: Vec<Duration>) -> f64 {
    d.sort();
    d[d.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let level: i32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(19);
    let rows = EncodeOptions::v2().layout(Layout::Rows);
    let cols = EncodeOptions::v2().layout(Layout::Columnar);
    let zstd = cols.clone().compress_columns(Some(level)).unwrap();
    let auto = EncodeOptions::v2();
    let dec = DecodeOptions::default();
    // For a profiler: only one operation, many times.
    if let Some(op) = args.get(3) {
        let v = if args.get(4).map(String::as_str) == Some("tris") { tris(125_000) } else { tens(100_000) };
        let c = cols.encode_message(&v).unwrap();
        for _ in 0..runs {
            match op.as_str() {
                "encode" => drop(std::hint::black_box(cols.encode_message(&v).unwrap())),
                "zstd" => drop(std::hint::black_box(zstd.encode_message(&v).unwrap())),
                "auto" => drop(std::hint::black_box(auto.encode_message(&v).unwrap())),
                _ => drop(std::hint::black_box(dec.decode_message(&c).unwrap())),
            }
        }
        return;
    }
    for (name, v) in [("tens-100k", tens(100_000)), ("tris-125k", tris(125_000))] {
        let r = rows.encode_message(&v).unwrap();
        let c = cols.encode_message(&v).unwrap();
        let z = zstd.encode_message(&v).unwrap();
        assert_eq!(dec.decode_message(&c).unwrap(), v);
        assert_eq!(dec.decode_message(&z).unwrap(), v);
        let mut t: [Vec<Duration>; 6] = Default::default();
        for _ in 0..runs {
            let time = |f: &mut dyn FnMut()| {
                let s = Instant::now();
                f();
                s.elapsed()
            };
            t[0].push(time(&mut || drop(std::hint::black_box(rows.encode_message(&v).unwrap()))));
            t[1].push(time(&mut || drop(std::hint::black_box(cols.encode_message(&v).unwrap()))));
            t[2].push(time(&mut || drop(std::hint::black_box(zstd.encode_message(&v).unwrap()))));
            t[3].push(time(&mut || drop(std::hint::black_box(auto.encode_message(&v).unwrap()))));
            t[4].push(time(&mut || drop(std::hint::black_box(dec.decode_message(&r).unwrap()))));
            t[5].push(time(&mut || drop(std::hint::black_box(dec.decode_message(&c).unwrap()))));
        }
        let [er, ec, ez, ea, dr, dc] = t.map(median);
        println!("{name}: bytes rows {} columnar {} columnar+zstd({level}) {}", r.len(), c.len(), z.len());
        println!(
            "  encode ms: rows {er:.1}  columnar {ec:.1} ({:.2}x rows)  +zstd {ez:.1} ({:.2}x columnar)  auto {ea:.1} ({:.2}x rows)",
            ec / er,
            ez / ec,
            ea / er
        );
        println!("  decode ms: rows {dr:.1}  columnar {dc:.1} ({:.2}x rows)", dc / dr);
    }
}
