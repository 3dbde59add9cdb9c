//! The encoders' and decoders' hot paths, one at a time, for instruction
//! counts under `valgrind --tool=callgrind` (repeatable on a loaded
//! machine, unlike times). `scripts/hotpaths-callgrind.sh` runs each
//! operation and the set-up alone and reports the difference per round;
//! BENCHMARKS.md ("Instruction counts of the hot paths") has the figures.
//!
//! `cargo run --release -p xbf --features derive --example hotpaths -- OP [ROUNDS]`
//!
//! OP is `setup` (build the data and encode every form once, nothing more)
//! or one of the operations listed by `--list`. The program uses only API
//! that every measured commit has, so that the same file builds at each.

use serde::{Deserialize, Serialize};
use xbf::{EncodeOptions, Layout};

/// Ten fields of mixed types, as bench/src/data.rs's `ten-fields` set.
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
struct Ten {
    id: u64,
    price: f64,
    qty: u32,
    name: String,
    flag: bool,
    a: i64,
    b: f64,
    c: u16,
    d: String,
    e: i32,
}

/// A daily S&P 500 row (bench/src/data.rs's `Quote`).
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
struct Quote {
    date: String,
    open: f64,
    high: f64,
    low: f64,
    close: f64,
    adjclose: f64,
    volume: u64,
}

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

fn tens(n: usize) -> Vec<Ten> {
    let mut rng = Rng(42);
    (0..n)
        .map(|i| {
            let price = rng.below(1_000_000) as f64 / 100.0;
            let qty = rng.below(1000) as u32;
            let name = rng.text(8);
            let flag = rng.below(2) == 1;
            let a = rng.below(1 << 40) as i64 - (1 << 39);
            let b = rng.next() as f64 / u64::MAX as f64;
            let c = rng.below(65536) as u16;
            let len = 1 + rng.below(16) as usize;
            let d = rng.text(len);
            let e = rng.below(1 << 20) as i32 - (1 << 19);
            Ten { id: i as u64, price, qty, name, flag, a, b, c, d, e }
        })
        .collect()
}

fn quotes() -> Vec<Quote> {
    let text = include_str!("../../xbf-cli/data/sp500-2019.csv");
    let rows: Vec<Quote> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let n = |i: usize| f[i].parse::<f64>().expect("a number");
            Quote {
                date: f[0].to_string(),
                open: n(1),
                high: n(2),
                low: n(3),
                close: n(4),
                adjclose: n(5),
                volume: f[6].parse().expect("a volume"),
            }
        })
        .collect();
    // Eight years' worth, so that the set is not dwarfed by the set-up.
    rows.iter().cycle().take(rows.len() * 8).cloned().collect()
}

const OPS: &[&str] = &[
    "serde-enc-rows",
    "serde-dec-rows",
    "derive-enc-rows",
    "derive-dec-rows",
    "value-enc-rows",
    "value-dec-rows",
    "serde-enc-cols",
    "serde-dec-cols",
    "derive-dec-cols",
    "value-enc-cols",
    "value-dec-cols",
];

/// One data set in every form an operation starts from.
struct Set<T> {
    items: Vec<T>,
    rows: Vec<u8>,
    cols: Vec<u8>,
    value: xbf::Value,
}

fn set<T>(items: Vec<T>) -> Set<T>
where
    T: Serialize + for<'de> Deserialize<'de> + xbf::fast::Encode,
{
    let rows = EncodeOptions::v2().layout(Layout::Rows).to_vec(&items).expect("rows");
    let cols = EncodeOptions::v2().layout(Layout::Columnar).to_vec(&items).expect("columns");
    let value = xbf::decode_message(&rows).expect("a value");
    Set { items, rows, cols, value }
}

fn run<T>(op: &str, s: &Set<T>) -> usize
where
    T: Serialize + for<'de> Deserialize<'de> + xbf::fast::Encode + for<'de> xbf::fast::Decode<'de>,
{
    let rows = EncodeOptions::v2().layout(Layout::Rows);
    let cols = EncodeOptions::v2().layout(Layout::Columnar);
    match op {
        "serde-enc-rows" => rows.to_vec(&s.items).expect("encode").len(),
        "serde-dec-rows" => xbf::from_slice::<Vec<T>>(&s.rows).expect("decode").len(),
        "derive-enc-rows" => xbf::fast::to_vec(&s.items).expect("encode").len(),
        "derive-dec-rows" => xbf::fast::from_slice::<Vec<T>>(&s.rows).expect("decode").len(),
        "value-enc-rows" => rows.encode_message(&s.value).expect("encode").len(),
        "value-dec-rows" => usize::from(xbf::decode_message(&s.rows).is_ok()),
        "serde-enc-cols" => cols.to_vec(&s.items).expect("encode").len(),
        "serde-dec-cols" => xbf::from_slice::<Vec<T>>(&s.cols).expect("decode").len(),
        "derive-dec-cols" => xbf::fast::from_slice::<Vec<T>>(&s.cols).expect("decode").len(),
        "value-enc-cols" => cols.encode_message(&s.value).expect("encode").len(),
        "value-dec-cols" => usize::from(xbf::decode_message(&s.cols).is_ok()),
        _ => panic!("unknown operation {op}; --list names them"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let op = args.first().map(String::as_str).unwrap_or("--list");
    if op == "--list" {
        println!("setup {}", OPS.join(" "));
        return;
    }
    let rounds: usize = args.get(1).map_or(5, |r| r.parse().expect("ROUNDS is a number"));
    let (ten, quote) = (set(tens(20_000)), set(quotes()));
    if op == "setup" {
        println!("{} {} {} {}", ten.rows.len(), ten.cols.len(), quote.rows.len(), quote.cols.len());
        return;
    }
    let mut total = 0;
    for _ in 0..rounds {
        total += std::hint::black_box(run(op, &ten)) + std::hint::black_box(run(op, &quote));
    }
    println!("{op}: {total}");
}
