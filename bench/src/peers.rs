//! The peers that are not plain serde calls: Tree-Buf (its own derive; no
//! signed integers, so records with them go through a mirror type),
//! simd-json (serde API, decodes in place), LBS (its own derive).
//! Each is a cargo feature (default on: `tree-buf`, `simd-json`, `lbs`).

#[allow(unused_imports)]
use crate::formats::{e, typed, Fmt};

// ------------------------------------------------------------------ Tree-Buf

#[cfg(feature = "tree-buf")]
pub mod tb {
    use super::*;
    use crate::data::*;

    pub const NAME: &str = "Tree-Buf (tree-buf 0.10)";

    /// A record type and the type Tree-Buf encodes for it. Tree-Buf 0.10 has
    /// unsigned integers only: `i32`/`i64` are stored zigzag-mapped as
    /// `u32`/`u64` (small magnitudes stay small, as in its own delta coding).
    /// Types without signed integers derive Tree-Buf's traits directly and
    /// map to themselves.
    pub trait Tb: Sized {
        type T;
        fn to_tb(&self) -> Self::T;
        fn from_tb(t: Self::T) -> Self;
    }

    macro_rules! same {
        ($($t:ty),*) => {$(
            impl Tb for $t {
                type T = $t;
                fn to_tb(&self) -> $t { self.clone() }
                fn from_tb(t: $t) -> $t { t }
            }
        )*};
    }
    same!(u64, u32, u16, u8, f64, f32, bool, String, Quote, QuakeMeta, Geometry, Movie, Tri);

    impl Tb for i32 {
        type T = u32;
        fn to_tb(&self) -> u32 {
            ((self << 1) ^ (self >> 31)) as u32
        }
        fn from_tb(t: u32) -> i32 {
            ((t >> 1) as i32) ^ -((t & 1) as i32)
        }
    }
    impl Tb for i64 {
        type T = u64;
        fn to_tb(&self) -> u64 {
            ((self << 1) ^ (self >> 63)) as u64
        }
        fn from_tb(t: u64) -> i64 {
            ((t >> 1) as i64) ^ -((t & 1) as i64)
        }
    }
    impl<X: Tb> Tb for Option<X> {
        type T = Option<X::T>;
        fn to_tb(&self) -> Self::T {
            self.as_ref().map(X::to_tb)
        }
        fn from_tb(t: Self::T) -> Self {
            t.map(X::from_tb)
        }
    }
    impl<X: Tb> Tb for Vec<X> {
        type T = Vec<X::T>;
        fn to_tb(&self) -> Self::T {
            self.iter().map(X::to_tb).collect()
        }
        fn from_tb(t: Self::T) -> Self {
            t.into_iter().map(X::from_tb).collect()
        }
    }

    /// A Tree-Buf mirror of a record type: the same fields, each as its
    /// `Tb::T` (so only signed integers change).
    macro_rules! mirror {
        ($($(#[$m:meta])* $tb:ident = $orig:ident { $($f:ident : $ft:ty),* $(,)? })*) => {$(
            $(#[$m])*
            #[derive(tree_buf::Encode, tree_buf::Decode)]
            pub struct $tb { $(pub $f: <$ft as Tb>::T),* }
            impl Tb for $orig {
                type T = $tb;
                fn to_tb(&self) -> $tb { $tb { $($f: self.$f.to_tb()),* } }
                fn from_tb(t: $tb) -> $orig { $orig { $($f: <$ft as Tb>::from_tb(t.$f)),* } }
            }
        )*};
    }

    mirror! {
        TbFlight = Flight { date: String, delay: i32, distance: i32, origin: String, destination: String }
        TbFlightTime = FlightTime { delay: i32, distance: i32, time: f64 }
        TbFeatureCollection = FeatureCollection { kind: String, metadata: QuakeMeta, features: Vec<Feature>, bbox: Vec<f64> }
        TbFeature = Feature { kind: String, properties: QuakeProps, geometry: Geometry, id: String }
        #[allow(non_snake_case)]
        TbQuakeProps = QuakeProps {
            mag: Option<f64>, place: String, time: u64, updated: u64, tz: Option<i32>, url: String, detail: String,
            felt: Option<i32>, cdi: Option<f64>, mmi: Option<f64>, alert: Option<String>, status: String, tsunami: i32,
            sig: i32, net: String, code: String, ids: String, sources: String, types: String, nst: Option<i32>,
            dmin: Option<f64>, rms: Option<f64>, gap: Option<f64>, magType: String, kind: String, title: String,
        }
        TbHolder = Holder { professors: Vec<Professor> }
        TbProfessor = Professor { id: i32, name: String, telephone: i64, birth_date: String, address: String, students: Vec<Student> }
        TbStudent = Student {
            id: i32, name: String, telephone: i64, gender: String, birth_date: String, registration_date: String, address: String,
        }
        TbMarketMsg = MarketMsg {
            kind: u32, timestamp_ns: u64, sequence: u64, symbol: String, price: i64, quantity: u32, side: u32, level: u32,
            trade_id: u64,
        }
        TbTen = Ten { id: u64, price: f64, qty: u32, name: String, flag: bool, a: i64, b: f64, c: u16, d: String, e: i32 }
    }

    fn decode_single<X: tree_buf::Decodable>(b: &[u8]) -> Result<X, String> {
        // Single-threaded: Tree-Buf decodes sibling columns on rayon by default.
        let o = tree_buf::decode_options!(tree_buf::options::DisableParallel);
        tree_buf::decode_with_options::<X>(b, &o).map_err(|x| format!("{x:?}"))
    }

    pub const MIRRORED: &str = "Tree-Buf (tree-buf 0.10), signed ints zigzag";

    pub fn encode_mirrored<T: Tb>(t: &T) -> Vec<u8>
    where
        T::T: tree_buf::Encodable,
    {
        tree_buf::encode(&t.to_tb())
    }

    pub fn decode_mirrored<T: Tb>(b: &[u8]) -> Result<T, String>
    where
        T::T: tree_buf::Decodable,
    {
        decode_single::<T::T>(b).map(T::from_tb)
    }

    /// Records that Tree-Buf encodes as they are.
    pub fn direct<T: tree_buf::Encodable + tree_buf::Decodable + 'static>() -> Fmt<T> {
        typed(NAME, |t: &T| Ok(tree_buf::encode(t)), decode_single::<T>)
    }

    /// Records with signed integers: encode converts to the mirror (the copy
    /// is in the timed call), decode reads the mirror and moves it back.
    pub fn mirrored<T: Tb + 'static>() -> Fmt<T>
    where
        T::T: tree_buf::Encodable + tree_buf::Decodable,
    {
        typed(MIRRORED, |t: &T| Ok(encode_mirrored(t)), decode_mirrored::<T>)
    }
}

// ----------------------------------------------------------------- simd-json

/// simd-json through serde: it parses in place, so decode copies the input
/// into a mutable buffer first (in the timed call).
#[cfg(feature = "simd-json")]
pub fn simd_json<T: serde::Serialize + serde::de::DeserializeOwned + 'static>() -> Fmt<T> {
    typed(
        "JSON (simd-json)",
        |t: &T| simd_json::serde::to_vec(t).map_err(e),
        |b| {
            let mut buf = b.to_vec();
            simd_json::serde::from_slice::<T>(&mut buf).map_err(e)
        },
    )
}

// ----------------------------------------------------------------------- LBS

/// LBS (crate lbs): its own derive, field ids, `None` fields not written.
#[cfg(feature = "lbs")]
pub fn lbs<T: lbs::LBSWrite + lbs::LBSRead + 'static>() -> Fmt<T> {
    typed(
        "LBS (lbs)",
        |t: &T| {
            let mut out = Vec::new();
            t.lbs_write(&mut out).map_err(|x| format!("{x:?}"))?;
            Ok(out)
        },
        |b| {
            let mut r = b;
            let v = T::lbs_read(&mut r).map_err(|x| format!("{x:?}"))?;
            if r.is_empty() {
                Ok(v)
            } else {
                Err(format!("{} bytes after the value", r.len()))
            }
        },
    )
}

// --------------------------------------------------------------- Apache Avro

/// Apache Avro object container files (crate apache-avro): the schema is
/// derived from the record type (`AvroSchema`; Avro has no unsigned 64-bit
/// type, so `u64` is the crate's named `fixed(8)`), written once in the file
/// header; records appended through serde, read back as Avro values and then
/// into the records with `from_value` (the crate's serde path).
#[cfg(feature = "apache-avro")]
pub mod avro {
    use super::*;
    use apache_avro::{AvroSchema, Reader, Writer};
    use serde::{de::DeserializeOwned, Serialize};

    pub const NAME: &str = "Avro container (apache-avro)";

    fn write<'a, X: Serialize + 'a>(
        xs: impl Iterator<Item = &'a X>,
        schema: &apache_avro::Schema,
    ) -> Result<Vec<u8>, String> {
        let mut w = Writer::new(schema, Vec::new()).map_err(e)?;
        for x in xs {
            w.append_ser(x).map_err(e)?;
        }
        w.into_inner().map_err(e)
    }

    fn read<X: DeserializeOwned>(b: &[u8]) -> Result<Vec<X>, String> {
        let r = Reader::new(b).map_err(e)?;
        r.map(|v| v.map_err(e).and_then(|v| apache_avro::from_value::<X>(&v).map_err(e))).collect()
    }

    /// A list of records: one Avro record each.
    pub fn records<X: AvroSchema + Serialize + DeserializeOwned + 'static>() -> Fmt<Vec<X>> {
        let schema = X::get_schema();
        typed(NAME, move |t: &Vec<X>| write(t.iter(), &schema), read::<X>)
    }

    /// One value (a document): a file of one record.
    pub fn single<X: AvroSchema + Serialize + DeserializeOwned + 'static>() -> Fmt<X> {
        let schema = X::get_schema();
        typed(
            NAME,
            move |t: &X| write(std::iter::once(t), &schema),
            |b| {
                let mut v = read::<X>(b)?;
                if v.len() == 1 {
                    Ok(v.pop().unwrap())
                } else {
                    Err(format!("{} records, expected one", v.len()))
                }
            },
        )
    }
}

// ----------------------------------------------------------------- Arrow IPC

/// Arrow IPC stream (crate arrow): one record batch of typed columns built
/// from the records (in the timed encode), read back and turned into the
/// records again (in the timed decode). Flat records only: one column per
/// field, `Option` fields nullable.
#[cfg(feature = "arrow")]
pub mod arrow_ipc {
    use super::*;
    use crate::data::*;
    use arrow::array::{
        Array, ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, StringArray, UInt16Array,
        UInt32Array, UInt64Array,
    };
    use arrow::datatypes::{DataType, Field, Schema};
    use arrow::ipc::reader::StreamReader;
    use arrow::ipc::writer::StreamWriter;
    use arrow::record_batch::RecordBatch;
    use std::sync::Arc;

    pub const NAME: &str = "Arrow IPC stream (arrow)";

    /// A field type and its Arrow column.
    pub trait Col: Sized {
        type A: Array + 'static;
        const TYPE: DataType;
        const NULLABLE: bool = false;
        fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef
        where
            Self: 'a;
        fn get(a: &Self::A, i: usize) -> Self;
    }

    macro_rules! prim {
        ($($t:ty => $arr:ident, $dt:expr;)*) => {$(
            impl Col for $t {
                type A = $arr;
                const TYPE: DataType = $dt;
                fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef { Arc::new($arr::from_iter_values(it.copied())) }
                fn get(a: &$arr, i: usize) -> Self { a.value(i) }
            }
            impl Col for Option<$t> {
                type A = $arr;
                const TYPE: DataType = $dt;
                const NULLABLE: bool = true;
                fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef { Arc::new(it.copied().collect::<$arr>()) }
                fn get(a: &$arr, i: usize) -> Self { if a.is_null(i) { None } else { Some(a.value(i)) } }
            }
        )*};
    }
    prim! {
        f64 => Float64Array, DataType::Float64;
        f32 => Float32Array, DataType::Float32;
        u64 => UInt64Array, DataType::UInt64;
        u32 => UInt32Array, DataType::UInt32;
        u16 => UInt16Array, DataType::UInt16;
        i64 => Int64Array, DataType::Int64;
        i32 => Int32Array, DataType::Int32;
    }
    impl Col for bool {
        type A = BooleanArray;
        const TYPE: DataType = DataType::Boolean;
        fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef {
            Arc::new(it.map(|b| Some(*b)).collect::<BooleanArray>())
        }
        fn get(a: &BooleanArray, i: usize) -> Self {
            a.value(i)
        }
    }
    impl Col for String {
        type A = StringArray;
        const TYPE: DataType = DataType::Utf8;
        fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef {
            Arc::new(StringArray::from_iter_values(it))
        }
        fn get(a: &StringArray, i: usize) -> Self {
            a.value(i).to_string()
        }
    }
    impl Col for Option<String> {
        type A = StringArray;
        const TYPE: DataType = DataType::Utf8;
        const NULLABLE: bool = true;
        fn column<'a>(it: impl Iterator<Item = &'a Self>) -> ArrayRef {
            Arc::new(it.map(|s| s.as_deref()).collect::<StringArray>())
        }
        fn get(a: &StringArray, i: usize) -> Self {
            if a.is_null(i) {
                None
            } else {
                Some(a.value(i).to_string())
            }
        }
    }

    /// Flat records as one record batch.
    pub trait Table: Sized {
        fn schema() -> Schema;
        fn batch(rows: &[Self], schema: &Arc<Schema>) -> Result<RecordBatch, String>;
        fn push_rows(b: &RecordBatch, out: &mut Vec<Self>) -> Result<(), String>;
    }

    macro_rules! table {
        ($($t:ident { $($f:ident : $ft:ty),* $(,)? })*) => {$(
            impl Table for $t {
                fn schema() -> Schema {
                    Schema::new(vec![$(Field::new(stringify!($f), <$ft as Col>::TYPE, <$ft as Col>::NULLABLE)),*])
                }
                fn batch(rows: &[Self], schema: &Arc<Schema>) -> Result<RecordBatch, String> {
                    let cols: Vec<ArrayRef> = vec![$(<$ft as Col>::column(rows.iter().map(|r| &r.$f))),*];
                    RecordBatch::try_new(schema.clone(), cols).map_err(e)
                }
                fn push_rows(b: &RecordBatch, out: &mut Vec<Self>) -> Result<(), String> {
                    $(
                        let $f = b
                            .column_by_name(stringify!($f))
                            .and_then(|c| c.as_any().downcast_ref::<<$ft as Col>::A>())
                            .ok_or_else(|| format!("column {} missing or of another type", stringify!($f)))?;
                    )*
                    out.reserve(b.num_rows());
                    for i in 0..b.num_rows() {
                        out.push($t { $($f: <$ft as Col>::get($f, i)),* });
                    }
                    Ok(())
                }
            }
        )*};
    }

    table! {
        Quote { date: String, open: f64, high: f64, low: f64, close: f64, adjclose: f64, volume: u64 }
        Flight { date: String, delay: i32, distance: i32, origin: String, destination: String }
        FlightTime { delay: i32, distance: i32, time: f64 }
        Movie {
            title: Option<String>, us_gross: Option<f64>, worldwide_gross: Option<f64>, us_dvd_sales: Option<f64>,
            production_budget: Option<f64>, release_date: Option<String>, mpaa_rating: Option<String>,
            running_time_min: Option<f64>, distributor: Option<String>, source: Option<String>,
            major_genre: Option<String>, creative_type: Option<String>, director: Option<String>,
            rotten_tomatoes_rating: Option<f64>, imdb_rating: Option<f64>, imdb_votes: Option<f64>,
        }
        Ten { id: u64, price: f64, qty: u32, name: String, flag: bool, a: i64, b: f64, c: u16, d: String, e: i32 }
        MarketMsg {
            kind: u32, timestamp_ns: u64, sequence: u64, symbol: String, price: i64, quantity: u32, side: u32, level: u32,
            trade_id: u64,
        }
    }

    pub fn stream<X: Table + 'static>() -> Fmt<Vec<X>> {
        let schema = Arc::new(X::schema());
        typed(
            NAME,
            move |t: &Vec<X>| {
                let batch = X::batch(t, &schema)?;
                let mut w = StreamWriter::try_new(Vec::new(), &schema).map_err(e)?;
                w.write(&batch).map_err(e)?;
                w.into_inner().map_err(e)
            },
            |b| {
                let r = StreamReader::try_new(b, None).map_err(e)?;
                let mut out = Vec::new();
                for batch in r {
                    X::push_rows(&batch.map_err(e)?, &mut out)?;
                }
                Ok(out)
            },
        )
    }
}
