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

// ---------------------------------------------------------------- FlatBuffers

/// FlatBuffers (crate flatbuffers 2.1, code generated by Debian's flatc 2.0.8
/// from bench/schema/records.fbs in build.rs; left out when flatc is absent):
/// the records as a table with a vector of tables. Decode verifies the
/// buffer (`root_with_opts`) and reads every field into the records.
#[cfg(has_flatc)]
pub mod flatbuf {
    use super::*;
    use crate::data::*;

    #[allow(unused_imports, dead_code, clippy::all, unsafe_code, non_snake_case, mismatched_lifetime_syntaxes)]
    mod generated {
        include!(concat!(env!("OUT_DIR"), "/records_generated.rs"));
    }
    use generated::fb;

    pub const NAME: &str = "FlatBuffers (flatc)";

    pub trait Record: Sized {
        fn encode(rows: &[Self]) -> Vec<u8>;
        fn decode(b: &[u8]) -> Result<Vec<Self>, String>;
    }

    fn opts() -> flatbuffers::VerifierOptions {
        flatbuffers::VerifierOptions { max_tables: 100_000_000, max_apparent_size: 1 << 31, ..Default::default() }
    }

    macro_rules! records {
        ($($t:ident, $args:ident, $list:ident, $largs:ident { str: [$($s:ident),*], num: [$($n:ident),*] })*) => {$(
            impl Record for $t {
                fn encode(rows: &[Self]) -> Vec<u8> {
                    let mut b = flatbuffers::FlatBufferBuilder::with_capacity(1024);
                    let offs: Vec<_> = rows
                        .iter()
                        .map(|r| {
                            $(let $s = Some(b.create_string(&r.$s));)*
                            fb::$t::create(&mut b, &fb::$args { $($s,)* $($n: r.$n,)* })
                        })
                        .collect();
                    let rows = Some(b.create_vector(&offs));
                    let root = fb::$list::create(&mut b, &fb::$largs { rows });
                    b.finish(root, None);
                    b.finished_data().to_vec()
                }
                fn decode(b: &[u8]) -> Result<Vec<Self>, String> {
                    let list = flatbuffers::root_with_opts::<fb::$list>(&opts(), b).map_err(e)?;
                    let Some(rows) = list.rows() else { return Ok(Vec::new()) };
                    Ok(rows
                        .iter()
                        .map(|r| $t { $($s: r.$s().unwrap_or_default().to_string(),)* $($n: r.$n(),)* })
                        .collect())
                }
            }
        )*};
    }

    records! {
        Quote, QuoteArgs, QuoteList, QuoteListArgs { str: [date], num: [open, high, low, close, adjclose, volume] }
        Flight, FlightArgs, FlightList, FlightListArgs { str: [date, origin, destination], num: [delay, distance] }
        FlightTime, FlightTimeArgs, FlightTimeList, FlightTimeListArgs { str: [], num: [delay, distance, time] }
        MarketMsg, MarketMsgArgs, MarketList, MarketListArgs {
            str: [symbol], num: [kind, timestamp_ns, sequence, price, quantity, side, level, trade_id]
        }
    }

    pub fn records<X: Record + 'static>() -> Fmt<Vec<X>> {
        typed(NAME, |t: &Vec<X>| Ok(X::encode(t)), X::decode)
    }

    /// One market message as its own buffer (root table `MarketMsg`).
    pub fn encode_msg(m: &MarketMsg) -> Vec<u8> {
        let mut b = flatbuffers::FlatBufferBuilder::with_capacity(128);
        let symbol = Some(b.create_string(&m.symbol));
        let root = fb::MarketMsg::create(
            &mut b,
            &fb::MarketMsgArgs {
                kind: m.kind,
                timestamp_ns: m.timestamp_ns,
                sequence: m.sequence,
                symbol,
                price: m.price,
                quantity: m.quantity,
                side: m.side,
                level: m.level,
                trade_id: m.trade_id,
            },
        );
        b.finish(root, None);
        b.finished_data().to_vec()
    }

    pub fn decode_msg(b: &[u8]) -> Option<MarketMsg> {
        let r = flatbuffers::root::<fb::MarketMsg>(b).ok()?;
        Some(MarketMsg {
            kind: r.kind(),
            timestamp_ns: r.timestamp_ns(),
            sequence: r.sequence(),
            symbol: r.symbol().unwrap_or_default().to_string(),
            price: r.price(),
            quantity: r.quantity(),
            side: r.side(),
            level: r.level(),
            trade_id: r.trade_id(),
        })
    }
}

// ---------------------------------------------------------------- Cap'n Proto

/// Cap'n Proto (crate capnp, code generated through capnpc by Debian's capnp
/// 0.9.2 from bench/schema/records.capnp in build.rs; left out when capnp is
/// absent): a struct with a list of structs, unpacked standard framing.
/// Decode reads the message from the flat slice and every field into the
/// records.
#[cfg(has_capnp)]
pub mod capn {
    use super::*;
    use crate::data::*;
    use crate::records_capnp as c;

    pub const NAME: &str = "Cap'n Proto (capnp)";

    pub trait Record: Sized {
        fn encode(rows: &[Self]) -> Vec<u8>;
        fn decode(b: &[u8]) -> Result<Vec<Self>, String>;
    }

    fn ropts(b: &[u8]) -> capnp::message::ReaderOptions {
        let mut o = capnp::message::ReaderOptions::new();
        o.traversal_limit_in_words(Some((b.len() / 8).max(1 << 20) * 4));
        o
    }

    macro_rules! records {
        ($($t:ident, $m:ident, $lm:ident { str: [$($s:ident: $ss:ident / $sg:ident),*], num: [$($n:ident: $ns:ident / $ng:ident),*] })*) => {$(
            impl Record for $t {
                fn encode(rows: &[Self]) -> Vec<u8> {
                    let mut msg = capnp::message::Builder::new_default();
                    {
                        let root = msg.init_root::<c::$lm::Builder>();
                        let mut list = root.init_rows(rows.len() as u32);
                        for (i, r) in rows.iter().enumerate() {
                            let mut x = list.reborrow().get(i as u32);
                            $(x.$ss(r.$s.as_str());)*
                            $(x.$ns(r.$n);)*
                        }
                    }
                    capnp::serialize::write_message_to_words(&msg)
                }
                fn decode(b: &[u8]) -> Result<Vec<Self>, String> {
                    let mut s = b;
                    let msg = capnp::serialize::read_message_from_flat_slice(&mut s, ropts(b)).map_err(e)?;
                    let root = msg.get_root::<c::$lm::Reader>().map_err(e)?;
                    let rows = root.get_rows().map_err(e)?;
                    let mut out = Vec::with_capacity(rows.len() as usize);
                    for r in rows.iter() {
                        out.push($t {
                            $($s: r.$sg().map_err(e)?.to_string().map_err(e)?,)*
                            $($n: r.$ng(),)*
                        });
                    }
                    Ok(out)
                }
            }
        )*};
    }

    records! {
        Quote, quote, quote_list {
            str: [date: set_date / get_date],
            num: [open: set_open / get_open, high: set_high / get_high, low: set_low / get_low, close: set_close / get_close,
                  adjclose: set_adjclose / get_adjclose, volume: set_volume / get_volume]
        }
        Flight, flight, flight_list {
            str: [date: set_date / get_date, origin: set_origin / get_origin, destination: set_destination / get_destination],
            num: [delay: set_delay / get_delay, distance: set_distance / get_distance]
        }
        FlightTime, flight_time, flight_time_list {
            str: [],
            num: [delay: set_delay / get_delay, distance: set_distance / get_distance, time: set_time / get_time]
        }
        MarketMsg, market_msg, market_list {
            str: [symbol: set_symbol / get_symbol],
            num: [kind: set_kind / get_kind, timestamp_ns: set_timestamp_ns / get_timestamp_ns, sequence: set_sequence / get_sequence,
                  price: set_price / get_price, quantity: set_quantity / get_quantity, side: set_side / get_side,
                  level: set_level / get_level, trade_id: set_trade_id / get_trade_id]
        }
    }

    pub fn records<X: Record + 'static>() -> Fmt<Vec<X>> {
        typed(NAME, |t: &Vec<X>| Ok(X::encode(t)), X::decode)
    }

    /// One market message as its own Cap'n Proto message.
    pub fn encode_msg(m: &MarketMsg) -> Vec<u8> {
        let mut msg = capnp::message::Builder::new_default();
        {
            let mut x = msg.init_root::<c::market_msg::Builder>();
            x.set_kind(m.kind);
            x.set_timestamp_ns(m.timestamp_ns);
            x.set_sequence(m.sequence);
            x.set_symbol(m.symbol.as_str());
            x.set_price(m.price);
            x.set_quantity(m.quantity);
            x.set_side(m.side);
            x.set_level(m.level);
            x.set_trade_id(m.trade_id);
        }
        capnp::serialize::write_message_to_words(&msg)
    }

    pub fn decode_msg(b: &[u8]) -> Option<MarketMsg> {
        let mut s = b;
        let msg = capnp::serialize::read_message_from_flat_slice(&mut s, capnp::message::ReaderOptions::new()).ok()?;
        let r = msg.get_root::<c::market_msg::Reader>().ok()?;
        Some(MarketMsg {
            kind: r.get_kind(),
            timestamp_ns: r.get_timestamp_ns(),
            sequence: r.get_sequence(),
            symbol: r.get_symbol().ok()?.to_string().ok()?,
            price: r.get_price(),
            quantity: r.get_quantity(),
            side: r.get_side(),
            level: r.get_level(),
            trade_id: r.get_trade_id(),
        })
    }
}
