//! The same records decoded into types that borrow their strings from the
//! input (zero-copy), in every format whose serde reader can: no string is
//! allocated, so the times show each decoder's own work, which the
//! allocation of owned strings hides (see the clone row of the owned sets).

use serde::{Deserialize, Serialize};
use xbf::EncodeOptions;

use crate::data::{Flight, Ten};
use crate::formats::{e, measure, Fmt, Out, R};
use crate::{DatasetResult, Mode};

/// `Flight` with borrowed strings; the same XBF type (its name and fields).
#[derive(Serialize, Deserialize, xbf::Xbf, PartialEq, Debug)]
#[serde(rename = "Flight")]
pub struct FlightRef<'a> {
    pub date: &'a str,
    pub delay: i32,
    pub distance: i32,
    pub origin: &'a str,
    pub destination: &'a str,
}

impl<'a> From<&'a Flight> for FlightRef<'a> {
    fn from(f: &'a Flight) -> Self {
        FlightRef {
            date: &f.date,
            delay: f.delay,
            distance: f.distance,
            origin: &f.origin,
            destination: &f.destination,
        }
    }
}

/// `Ten` with borrowed strings.
#[derive(Serialize, Deserialize, xbf::Xbf, PartialEq, Debug)]
#[serde(rename = "Ten")]
pub struct TenRef<'a> {
    pub id: u64,
    pub price: f64,
    pub qty: u32,
    pub name: &'a str,
    pub flag: bool,
    pub a: i64,
    pub b: f64,
    pub c: u16,
    pub d: &'a str,
    pub e: i32,
}

impl<'a> From<&'a Ten> for TenRef<'a> {
    fn from(t: &'a Ten) -> Self {
        TenRef {
            id: t.id,
            price: t.price,
            qty: t.qty,
            name: &t.name,
            flag: t.flag,
            a: t.a,
            b: t.b,
            c: t.c,
            d: &t.d,
            e: t.e,
        }
    }
}

/// One format over owned records `$x` read back as borrowed `$r`: `enc`
/// writes the owned records (serde writes `String` and `&str` alike), `dec`
/// reads the borrowed ones. The timed decode drops the records inside the
/// call; the round-trip check compares them with a borrowed view of the
/// originals, outside the timing.
macro_rules! borrowed_format {
    ($name:expr, $x:ty, $r:ident, |$t:ident| $enc:expr, |$b:ident| $dec:expr) => {{
        fn dec($b: &[u8]) -> R<Vec<$r<'_>>> {
            $dec.map_err(e)
        }
        Fmt::<Vec<$x>> {
            name: $name.into(),
            enc: Box::new(|$t: &Vec<$x>| $enc.map_err(e)),
            dec: Box::new(|b| dec(b).map(|v| Out::Borrowed(v.len()))),
            value: None,
            proj: None,
            check: Some(Box::new(|b: &[u8], data: &Vec<$x>| {
                dec(b).is_ok_and(|v| v.len() == data.len() && v.iter().zip(data).all(|(v, x)| *v == $r::from(x)))
            })),
        }
    }};
}

/// Every format whose serde reader borrows strings, and the derive path.
macro_rules! formats {
    ($x:ty, $r:ident) => {
        vec![
            borrowed_format!("JSON (serde_json)", $x, $r, |t| serde_json::to_vec(t), |b| serde_json::from_slice(b)),
            borrowed_format!("MessagePack names (rmp-serde)", $x, $r, |t| rmp_serde::to_vec_named(t), |b| {
                rmp_serde::from_slice(b)
            }),
            borrowed_format!("MessagePack arrays (rmp-serde)", $x, $r, |t| rmp_serde::to_vec(t), |b| {
                rmp_serde::from_slice(b)
            }),
            borrowed_format!("bincode 1", $x, $r, |t| bincode::serialize(t), |b| bincode::deserialize(b)),
            borrowed_format!("postcard", $x, $r, |t| postcard::to_allocvec(t), |b| postcard::from_bytes(b)),
            borrowed_format!("XBF v1 typed", $x, $r, |t| EncodeOptions::v1().to_vec(t), |b| xbf::from_slice(b)),
            borrowed_format!("XBF 2 rows typed", $x, $r, |t| xbf::to_vec(t), |b| xbf::from_slice(b)),
            borrowed_format!("XBF v1 derive", $x, $r, |t| xbf::fast::to_vec_with(&EncodeOptions::v1(), t), |b| {
                xbf::fast::from_slice(b)
            }),
            borrowed_format!("XBF 2 rows derive", $x, $r, |t| xbf::fast::to_vec(t), |b| xbf::fast::from_slice(b)),
        ]
    };
}

/// `flights-20k-borrowed`, of these flight records.
pub fn flights(name: &str, m: &Mode, rows: Vec<Flight>) -> DatasetResult {
    let measures = measure(&rows, &crate::only(formats!(Flight, FlightRef)), m.rounds(11), m.sample());
    result(name, rows.len(), m.rounds(11), measures)
}

/// `ten-fields-100k-borrowed`: the records of `ten-fields-100k`.
pub fn tens(name: &str, m: &Mode) -> DatasetResult {
    let rows = crate::data::tens(m.n(100, 100_000), 9);
    let measures = measure(&rows, &crate::only(formats!(Ten, TenRef)), m.rounds(11), m.sample());
    result(name, rows.len(), m.rounds(11), measures)
}

fn result(name: &str, records: usize, rounds: usize, measures: Vec<crate::formats::Measure>) -> DatasetResult {
    let description = crate::DATASETS.iter().find(|d| d.0 == name).map(|d| d.1).unwrap_or("").to_string();
    DatasetResult {
        name: name.into(),
        description,
        records,
        native: None,
        rounds,
        measures,
        latency: vec![],
        run: None,
    }
}
