//! The datasets: typed records (serde derives, prost derives where a
//! Protocol Buffers peer is measured) and the seeded generators.

use serde::{Deserialize, Serialize};

pub const SP500_2019: &str = include_str!("../../crates/xbf-cli/data/sp500-2019.csv");

/// One daily S&P 500 row, as `xbf compare` reads it.
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf", derive(tree_buf::Encode, tree_buf::Decode))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct Quote {
    #[prost(string, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub date: String,
    #[prost(double, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub open: f64,
    #[prost(double, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub high: f64,
    #[prost(double, tag = "4")]
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub low: f64,
    #[prost(double, tag = "5")]
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub close: f64,
    #[prost(double, tag = "6")]
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub adjclose: f64,
    #[prost(uint64, tag = "7")]
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub volume: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct QuoteList {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<Quote>,
}

pub fn quotes_from_csv(text: &str) -> Vec<Quote> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    r.deserialize().map(|x| x.expect("a quote row")).collect()
}

/// The rows as an XBF value whose date is XBF's `date` type (days since
/// 1970-01-01), as `xbf from-csv` reads the CSV, rather than the string the
/// serde type (shared with every peer) holds.
pub fn quotes_dated(rows: &[Quote]) -> xbf::Result<xbf::Value> {
    use xbf::{StructValue, Value, VecValue};
    let items = rows
        .iter()
        .map(|q| {
            let days = xbf::time::parse_date(&q.date)
                .and_then(|d| i32::try_from(d).ok())
                .ok_or_else(|| xbf::Error::new(xbf::ErrorKind::Unsupported, format!("not a date: {}", q.date)))?;
            let f = [
                ("date", Value::Date(days)),
                ("open", Value::F64(q.open)),
                ("high", Value::F64(q.high)),
                ("low", Value::F64(q.low)),
                ("close", Value::F64(q.close)),
                ("adjclose", Value::F64(q.adjclose)),
                ("volume", Value::U64(q.volume)),
            ];
            StructValue::from_fields("Quote", f).map(Value::from)
        })
        .collect::<xbf::Result<Vec<Value>>>()?;
    let ty = items.first().map(Value::metadata).unwrap_or(xbf::Metadata::UNIT);
    VecValue::new(ty, items).map(Value::Vec)
}

/// The native size as `xbf compare` defines it: the field values alone
/// (u64 and f64 8 bytes, strings their UTF-8 length).
pub fn quotes_native(rows: &[Quote]) -> u64 {
    rows.iter().map(|q| q.date.len() as u64 + 6 * 8).sum()
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct Flight {
    #[prost(string, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub date: String,
    #[prost(sint32, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub delay: i32,
    #[prost(sint32, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub distance: i32,
    #[prost(string, tag = "4")]
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub origin: String,
    #[prost(string, tag = "5")]
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub destination: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FlightList {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<Flight>,
}

/// The GeoJSON feature collection of `earthquakes.json`, typed.
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
pub struct FeatureCollection {
    #[serde(rename = "type")]
    pub kind: String,
    pub metadata: QuakeMeta,
    pub features: Vec<Feature>,
    pub bbox: Vec<f64>,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf", derive(tree_buf::Encode, tree_buf::Decode))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
pub struct QuakeMeta {
    pub generated: u64,
    pub url: String,
    pub title: String,
    pub status: u32,
    pub api: String,
    pub count: u32,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
pub struct Feature {
    #[serde(rename = "type")]
    pub kind: String,
    pub properties: QuakeProps,
    pub geometry: Geometry,
    pub id: String,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
#[allow(non_snake_case)]
pub struct QuakeProps {
    pub mag: Option<f64>,
    pub place: String,
    pub time: u64,
    pub updated: u64,
    pub tz: Option<i32>,
    pub url: String,
    pub detail: String,
    pub felt: Option<i32>,
    pub cdi: Option<f64>,
    pub mmi: Option<f64>,
    pub alert: Option<String>,
    pub status: String,
    pub tsunami: i32,
    pub sig: i32,
    pub net: String,
    pub code: String,
    pub ids: String,
    pub sources: String,
    pub types: String,
    pub nst: Option<i32>,
    pub dmin: Option<f64>,
    pub rms: Option<f64>,
    pub gap: Option<f64>,
    pub magType: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf", derive(tree_buf::Encode, tree_buf::Decode))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug)]
pub struct Geometry {
    #[serde(rename = "type")]
    pub kind: String,
    pub coordinates: [f64; 3],
}

/// A movie of `movies.json`: every field optional (nulls and missing keys
/// both become `None`). Field names are Rust identifiers; JSON's keys with
/// spaces are renamed on the JSON side only by reading through `MovieJson`.
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf", derive(tree_buf::Encode, tree_buf::Decode))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug, Default)]
pub struct Movie {
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub title: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub us_gross: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub worldwide_gross: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub us_dvd_sales: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub production_budget: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub release_date: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub mpaa_rating: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(7)))]
    pub running_time_min: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(8)))]
    pub distributor: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(9)))]
    pub source: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(10)))]
    pub major_genre: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(11)))]
    pub creative_type: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(12)))]
    pub director: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(13)))]
    pub rotten_tomatoes_rating: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(14)))]
    pub imdb_rating: Option<f64>,
    #[cfg_attr(feature = "lbs", lbs(id(15)))]
    pub imdb_votes: Option<f64>,
}

#[derive(Deserialize)]
struct MovieJson {
    #[serde(rename = "Title", default, deserialize_with = "text_or_number")]
    title: Option<String>,
    #[serde(rename = "US Gross", default)]
    us_gross: Option<f64>,
    #[serde(rename = "Worldwide Gross", default)]
    worldwide_gross: Option<f64>,
    #[serde(rename = "US DVD Sales", default)]
    us_dvd_sales: Option<f64>,
    #[serde(rename = "Production Budget", default)]
    production_budget: Option<f64>,
    #[serde(rename = "Release Date", default)]
    release_date: Option<String>,
    #[serde(rename = "MPAA Rating", default)]
    mpaa_rating: Option<String>,
    #[serde(rename = "Running Time min", default)]
    running_time_min: Option<f64>,
    #[serde(rename = "Distributor", default)]
    distributor: Option<String>,
    #[serde(rename = "Source", default)]
    source: Option<String>,
    #[serde(rename = "Major Genre", default)]
    major_genre: Option<String>,
    #[serde(rename = "Creative Type", default)]
    creative_type: Option<String>,
    #[serde(rename = "Director", default)]
    director: Option<String>,
    #[serde(rename = "Rotten Tomatoes Rating", default)]
    rotten_tomatoes_rating: Option<f64>,
    #[serde(rename = "IMDB Rating", default)]
    imdb_rating: Option<f64>,
    #[serde(rename = "IMDB Votes", default)]
    imdb_votes: Option<f64>,
}

fn text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v = Option::<serde_json::Value>::deserialize(d)?;
    Ok(v.map(|v| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }))
}

pub fn movies_from_json(text: &str) -> Vec<Movie> {
    let raw: Vec<MovieJson> = serde_json::from_str(text).expect("movies.json");
    raw.into_iter()
        .map(|m| Movie {
            title: m.title,
            us_gross: m.us_gross,
            worldwide_gross: m.worldwide_gross,
            us_dvd_sales: m.us_dvd_sales,
            production_budget: m.production_budget,
            release_date: m.release_date,
            mpaa_rating: m.mpaa_rating,
            running_time_min: m.running_time_min,
            distributor: m.distributor,
            source: m.source,
            major_genre: m.major_genre,
            creative_type: m.creative_type,
            director: m.director,
            rotten_tomatoes_rating: m.rotten_tomatoes_rating,
            imdb_rating: m.imdb_rating,
            imdb_votes: m.imdb_votes,
        })
        .collect()
}

// ------------------------------------------------ Professor / Student holder

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct Student {
    #[prost(int32, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub id: i32,
    #[prost(string, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub name: String,
    #[prost(int64, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub telephone: i64,
    #[prost(string, tag = "4")]
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub gender: String,
    #[prost(string, tag = "5")]
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub birth_date: String,
    #[prost(string, tag = "6")]
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub registration_date: String,
    #[prost(string, tag = "7")]
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub address: String,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct Professor {
    #[prost(int32, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub id: i32,
    #[prost(string, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub name: String,
    #[prost(int64, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub telephone: i64,
    #[prost(string, tag = "4")]
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub birth_date: String,
    #[prost(string, tag = "5")]
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub address: String,
    #[prost(message, repeated, tag = "6")]
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub students: Vec<Student>,
}

#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct Holder {
    #[prost(message, repeated, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub professors: Vec<Professor>,
}

/// A small deterministic generator (splitmix64): the one in
/// crates/xbf/examples/support/rng.rs, which the core's examples share, so
/// that their data and the harness's are the same.
#[path = "../../crates/xbf/examples/support/rng.rs"]
mod rng;
pub use rng::Rng;

impl Rng {
    /// A date between 1950 and 2009, as `YYYY-MM-DD`.
    pub fn date(&mut self) -> String {
        format!("{:04}-{:02}-{:02}", 1950 + self.below(60), 1 + self.below(12), 1 + self.below(28))
    }
}

/// The report's holder: `structures` = professors + students, ten
/// professors per student (110 = 100 + 10); every tenth professor has one
/// student. `random`: names of 16 and addresses of 40 random letters, dates
/// random; otherwise the same text in every structure.
pub fn holder(structures: usize, random: bool, seed: u64) -> Holder {
    let profs = structures * 10 / 11;
    let mut rng = Rng(seed);
    let t = |rng: &mut Rng, n: usize| if random { rng.text(n) } else { "x".repeat(n) };
    let mut professors = Vec::with_capacity(profs);
    for i in 0..profs {
        let students = if i % 10 == 0 {
            vec![Student {
                id: i as i32,
                name: t(&mut rng, 16),
                telephone: 351_210_000_000 + rng.below(1_000_000) as i64,
                gender: if rng.below(2) == 0 { "F".into() } else { "M".into() },
                birth_date: if random { rng.date() } else { "1990-01-01".into() },
                registration_date: if random { rng.date() } else { "2010-09-15".into() },
                address: t(&mut rng, 40),
            }]
        } else {
            Vec::new()
        };
        professors.push(Professor {
            id: i as i32,
            name: t(&mut rng, 16),
            telephone: 351_210_000_000 + rng.below(1_000_000) as i64,
            birth_date: if random { rng.date() } else { "1960-01-01".into() },
            address: t(&mut rng, 40),
            students,
        });
    }
    Holder { professors }
}

// ------------------------------------------------------------- market data

/// One market-data message shaped like the shootout's: a trade report
/// (kind 0) or a price-level update (kind 1), fixed-point prices.
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct MarketMsg {
    #[prost(uint32, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub kind: u32,
    #[prost(uint64, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub timestamp_ns: u64,
    #[prost(uint64, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub sequence: u64,
    #[prost(string, tag = "4")]
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub symbol: String,
    #[prost(int64, tag = "5")]
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub price: i64,
    #[prost(uint32, tag = "6")]
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub quantity: u32,
    #[prost(uint32, tag = "7")]
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub side: u32,
    #[prost(uint32, tag = "8")]
    #[cfg_attr(feature = "lbs", lbs(id(7)))]
    pub level: u32,
    #[prost(uint64, tag = "9")]
    #[cfg_attr(feature = "lbs", lbs(id(8)))]
    pub trade_id: u64,
}

pub fn market(n: usize, seed: u64) -> Vec<MarketMsg> {
    const SYMS: [&str; 8] = ["AAPL", "MSFT", "GOOG", "AMZN", "ESZ4", "NQZ4", "EURUSD", "BTC-USD"];
    let mut rng = Rng(seed);
    let mut ts = 1_700_000_000_000_000_000u64;
    (0..n)
        .map(|i| {
            ts += 1 + rng.below(50_000);
            let trade = rng.below(4) == 0;
            MarketMsg {
                kind: if trade { 0 } else { 1 },
                timestamp_ns: ts,
                sequence: i as u64,
                symbol: SYMS[rng.below(8) as usize].into(),
                price: 1_000_000 + rng.below(20_000) as i64,
                quantity: 1 + rng.below(5000) as u32,
                side: rng.below(2) as u32,
                level: if trade { 0 } else { rng.below(10) as u32 },
                trade_id: if trade { rng.next() >> 20 } else { 0 },
            }
        })
        .collect()
}

/// The mesh-like record of the issue: four `[f32; 3]` per record.
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf", derive(tree_buf::Encode, tree_buf::Decode))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug, Default)]
pub struct Tri {
    pub v0: [f32; 3],
    pub v1: [f32; 3],
    pub v2: [f32; 3],
    pub normal: [f32; 3],
}

pub fn tris(n: usize, seed: u64) -> Vec<Tri> {
    let mut rng = Rng(seed);
    let mut f = || (rng.below(2_000_000) as f32 - 1_000_000.0) / 1000.0;
    (0..n)
        .map(|_| Tri { v0: [f(), f(), f()], v1: [f(), f(), f()], v2: [f(), f(), f()], normal: [f(), f(), f()] })
        .collect()
}

/// Ten fields per record, for projection.
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, Debug, Default)]
pub struct Ten {
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub id: u64,
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub price: f64,
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub qty: u32,
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub name: String,
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub flag: bool,
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub a: i64,
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub b: f64,
    #[cfg_attr(feature = "lbs", lbs(id(7)))]
    pub c: u16,
    #[cfg_attr(feature = "lbs", lbs(id(8)))]
    pub d: String,
    #[cfg_attr(feature = "lbs", lbs(id(9)))]
    pub e: i32,
}

pub fn tens(n: usize, seed: u64) -> Vec<Ten> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| Ten {
            id: i as u64,
            price: (rng.below(1_000_000) as f64) / 100.0,
            qty: rng.below(10_000) as u32,
            name: format!("item-{}", rng.below(1000)),
            flag: rng.below(2) == 0,
            a: rng.next() as i64 >> 20,
            b: rng.below(1 << 20) as f64 / 7.0,
            c: rng.below(60_000) as u16,
            d: rng.text(8),
            e: rng.below(1000) as i32 - 500,
        })
        .collect()
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct MarketList {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<MarketMsg>,
}

/// `flights-200k.json` has another shape than 2k/20k: delay, distance and a
/// time of day (hours, f64), no date or airports.
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, Clone, PartialEq, prost::Message)]
pub struct FlightTime {
    #[prost(sint32, tag = "1")]
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub delay: i32,
    #[prost(sint32, tag = "2")]
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub distance: i32,
    #[prost(double, tag = "3")]
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub time: f64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FlightTimeList {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<FlightTime>,
}
