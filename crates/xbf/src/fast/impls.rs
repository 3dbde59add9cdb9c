//! The derive path for the standard types, in the metadata serde's impls
//! trace to (see `typed::schema`): `Box<T>` is `T`, `[T; N]` an array,
//! tuples tuples, maps maps.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

use super::{Decode, Describe, Describer, Encode, Reader, WholeColumn, Writer};
use crate::columnar::ran_out;
use crate::error::{PathSegment, Result};
use crate::metadata::{Metadata, PrimitiveType};

/// A primitive: its XBF type, its minimum sizes in XBF 2 and v1, how it is
/// written and read, and for fixed-width types whose every bit pattern is
/// a value, how one is made from its LE bytes (`plain`).
macro_rules! simple {
    ($t:ty, $p:ident, $min:expr $(, v1 $min_v1:expr)?, |$s:ident, $w:ident| $enc:expr, |$r:ident| $dec:expr,
     whole |$c:ident| $whole:expr $(, plain $from:expr)?) => {
        impl Describe for $t {
            const MIN_V2: u64 = $min;
            const MIN_V1: u64 = { let m = [$min $(, $min_v1)?]; m[m.len() - 1] };
            $(const PLAIN: Option<usize> = { let _ = $from; Some(std::mem::size_of::<$t>()) };)?
            fn describe(_: &mut Describer) -> Result<Metadata> {
                Ok(Metadata::Primitive(PrimitiveType::$p))
            }
        }
        impl Encode for $t {
            #[inline]
            fn encode(&self, $w: &mut Writer) {
                let $s = self;
                $enc
            }
        }
        impl<'de> Decode<'de> for $t {
            #[inline]
            fn decode($r: &mut Reader<'de, '_>) -> Result<Self> {
                $dec
            }

            fn decode_column($c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
                $whole
            }
            $(
            /// The array's bytes are all there (its fit was checked) and
            /// every bit pattern is a value: one run, no per-item checks.
            #[inline]
            fn decode_array<const N: usize>(r: &mut Reader<'de, '_>) -> Result<[Self; N]> {
                const W: usize = std::mem::size_of::<$t>();
                let b = r.plain(N * W)?;
                Ok(std::array::from_fn(|i| $from(b[i * W..i * W + W].try_into().unwrap_or([0; W]))))
            }

            #[inline]
            fn decode_plain(b: &'de [u8]) -> Option<Self> {
                b.try_into().ok().map($from)
            }

            #[inline]
            fn decode_plain_array<const N: usize>(b: &'de [u8]) -> Option<[Self; N]> {
                const W: usize = std::mem::size_of::<$t>();
                if b.len() != N * W {
                    return None;
                }
                Some(std::array::from_fn(|i| $from(b[i * W..i * W + W].try_into().unwrap_or([0; W]))))
            }
            )?
        }
    };
}

// Wider integers are varints in XBF 2 (the reader checks the width, so the
// value fits) and their full width in v1.
// Columns of integers hold them as u64 lanes, zigzag-coded where signed
// (SPEC.md §22.3); a message of the reader's type holds none too wide.
simple!(u16, U16, 1, v1 2, |s, w| w.unsigned(u64::from(*s), 2), |r| r.unsigned(2).map(|x| x as u16),
    whole |c| lanes(c, |x| x as u16));
simple!(u32, U32, 1, v1 4, |s, w| w.unsigned(u64::from(*s), 4), |r| r.unsigned(4).map(|x| x as u32),
    whole |c| lanes(c, |x| x as u32));
simple!(u64, U64, 1, v1 8, |s, w| w.unsigned(*s, 8), |r| r.unsigned(8), whole |c| c.ints());
simple!(i16, I16, 1, v1 2, |s, w| w.signed(i64::from(*s), 2), |r| r.signed(2).map(|x| x as i16),
    whole |c| lanes(c, |x| unzigzag(x) as i16));
simple!(i32, I32, 1, v1 4, |s, w| w.signed(i64::from(*s), 4), |r| r.signed(4).map(|x| x as i32),
    whole |c| lanes(c, |x| unzigzag(x) as i32));
simple!(i64, I64, 1, v1 8, |s, w| w.signed(*s, 8), |r| r.signed(8), whole |c| lanes(c, unzigzag));
simple!(u128, U128, 1, v1 16, |s, w| w.u128(*s), |r| r.u128(), whole |c| c.wide_ints());
simple!(i128, I128, 1, v1 16, |s, w| w.i128(*s), |r| r.i128(),
    whole |c| Ok(c.wide_ints()?.into_iter().map(crate::wire::varint::unzigzag).collect()));
simple!(u8, U8, 1, |s, w| w.byte(*s), |r| r.byte(), whole |c| lanes(c, |x| x as u8), plain u8::from_le_bytes);
simple!(i8, I8, 1, |s, w| w.byte(*s as u8), |r| r.byte().map(|b| b as i8),
    whole |c| lanes(c, |x| unzigzag(x) as i8), plain i8::from_le_bytes);
simple!(bool, Bool, 1, |s, w| w.bool(*s), |r| r.bool(), whole | c | lanes(c, |x| x == 1));
simple!(f32, F32, 4, |s, w| w.f32(*s), |r| r.f32(), whole |c| c.f32s(), plain f32::from_le_bytes);
simple!(f64, F64, 8, |s, w| w.f64(*s), |r| r.f64(), whole |c| c.f64s(), plain f64::from_le_bytes);

/// An integer column's values, made into the reader's type by `f`.
#[inline]
fn lanes<T>(c: WholeColumn<'_, '_, '_>, f: impl Fn(u64) -> T) -> Result<Vec<T>> {
    Ok(c.ints()?.into_iter().map(f).collect())
}

#[inline]
fn unzigzag(x: u64) -> i64 {
    (x >> 1) as i64 ^ -((x & 1) as i64)
}

impl Describe for () {
    const MIN_V2: u64 = 0;
    const MIN_V1: u64 = 0;
    fn describe(_: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::UNIT)
    }
}
impl Encode for () {
    #[inline]
    fn encode(&self, _: &mut Writer) {}
}
impl<'de> Decode<'de> for () {
    #[inline]
    fn decode(_: &mut Reader<'de, '_>) -> Result<Self> {
        Ok(())
    }
}

impl Describe for String {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 8;
    fn describe(_: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::Primitive(PrimitiveType::String))
    }
}
impl Encode for String {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        w.str(self)
    }
}
impl<'de> Decode<'de> for String {
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        r.str().map(str::to_owned)
    }

    fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        c.strings(str::to_owned)
    }
}

impl Describe for &str {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 8;
    fn describe(_: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::Primitive(PrimitiveType::String))
    }
}
impl Encode for &str {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        w.str(self)
    }
}
impl<'de: 'a, 'a> Decode<'de> for &'a str {
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        r.str()
    }
}

impl<T: Describe + ?Sized> Describe for Box<T> {
    const MIN_V2: u64 = T::MIN_V2;
    const MIN_V1: u64 = T::MIN_V1;
    fn describe(cx: &mut Describer) -> Result<Metadata> {
        T::describe(cx)
    }
}
impl<T: Encode + ?Sized> Encode for Box<T> {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w)
    }
}
impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        T::decode(r).map(Box::new)
    }

    fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        Ok(T::decode_column(c)?.into_iter().map(Box::new).collect())
    }
}

impl<T: Describe> Describe for Option<T> {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 1;
    fn describe(cx: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::option(T::describe(cx)?))
    }
}
impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        w.tag(self.is_some());
        if let Some(v) = self {
            v.encode(w)
        }
    }
}
impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        if r.tag()? {
            T::decode(r).map(Some)
        } else {
            Ok(None)
        }
    }

    fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        let (present, inner) = c.options()?;
        let at = inner.offset();
        let mut values = T::decode_column(inner)?.into_iter();
        let mut out = Vec::with_capacity(present.len());
        for p in present {
            out.push(match p {
                true => Some(values.next().ok_or_else(|| ran_out(at))?),
                false => None,
            });
        }
        Ok(out)
    }
}

impl<T: Describe> Describe for Vec<T> {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 8;
    fn describe(cx: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::vec(T::describe(cx)?))
    }
}
impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        self.as_slice().encode(w)
    }
}
impl<T: Describe> Describe for [T] {
    const MIN_V2: u64 = 1;
    const MIN_V1: u64 = 8;
    fn describe(cx: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::vec(T::describe(cx)?))
    }
}
impl<T: Encode> Encode for [T] {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        w.len(self.len());
        // Room for the rest once a few items show their average size, so
        // that a long vec is not copied on every doubling of the buffer.
        const SAMPLE: usize = 16;
        let (head, tail) = self.split_at(self.len().min(SAMPLE));
        let start = w.buf.len();
        for v in head {
            v.encode(w)
        }
        if !tail.is_empty() {
            let avg = (w.buf.len() - start) / head.len();
            w.reserve(tail.len().saturating_mul(avg + avg / 8 + 1));
        }
        for v in tail {
            v.encode(w)
        }
    }
}
impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        if let Some(size) = T::PLAIN.filter(|n| *n > 0) {
            // One check for the whole run, then values straight from it.
            let n = r.count(size as u64)?;
            let run = r.plain(n * size)?;
            let mut out = Vec::with_capacity(n);
            for item in run.chunks_exact(size) {
                match T::decode_plain(item) {
                    Some(v) => out.push(v),
                    None => return Err(crate::Error::new(crate::ErrorKind::Unsupported, "a plain type read no value")),
                }
            }
            return Ok(out);
        }
        let min = if r.is_v2() { T::MIN_V2 } else { T::MIN_V1 };
        // The count fits in the input (elements are never zero-size here:
        // such types take the serde path), so the allocation is bounded by it.
        let n = r.count(min)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            match T::decode(r) {
                Ok(v) => out.push(v),
                Err(e) => return Err(e.within(PathSegment::Index(i as u64))),
            }
        }
        Ok(out)
    }

    fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        let (lens, elems) = c.vecs()?;
        let at = elems.offset();
        let values = T::decode_column(elems)?;
        if let [len] = lens[..] {
            // One vec (a message's root): it is the column's vec as it is.
            return if values.len() as u64 == len { Ok(vec![values]) } else { Err(ran_out(at)) };
        }
        let mut values = values.into_iter();
        let mut out = Vec::with_capacity(lens.len());
        for len in lens {
            let v: Vec<T> = values.by_ref().take(len as usize).collect();
            if v.len() as u64 != len {
                return Err(ran_out(at));
            }
            out.push(v);
        }
        Ok(out)
    }
}

impl<T: Describe, const N: usize> Describe for [T; N] {
    const MIN_V2: u64 = T::MIN_V2.saturating_mul(N as u64);
    const MIN_V1: u64 = T::MIN_V1.saturating_mul(N as u64);
    const PLAIN: Option<usize> = match T::PLAIN {
        Some(n) => n.checked_mul(N),
        None => None,
    };
    fn describe(cx: &mut Describer) -> Result<Metadata> {
        Ok(Metadata::array(N as u64, T::describe(cx)?))
    }
}
impl<T: Encode, const N: usize> Encode for [T; N] {
    #[inline]
    fn encode(&self, w: &mut Writer) {
        for v in self {
            v.encode(w)
        }
    }
}
// serde implements Deserialize for arrays up to 32 elements.
impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N]
where
    [T; N]: serde::Deserialize<'de>,
{
    #[inline]
    fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
        r.array_fits(N as u64, if r.is_v2() { T::MIN_V2 } else { T::MIN_V1 })?;
        T::decode_array(r)
    }

    #[inline]
    fn decode_plain(b: &'de [u8]) -> Option<Self> {
        T::decode_plain_array(b)
    }

    fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
        let n = c.len();
        let (len, elems) = c.arrays()?;
        let at = elems.offset();
        let values = T::decode_column(elems)?;
        if len != N as u64 || Some(values.len() as u64) != n.checked_mul(len) {
            return Err(ran_out(at));
        }
        let mut values = values.into_iter();
        let mut out = Vec::with_capacity(values.len() / N.max(1));
        for _ in 0..n {
            // `values` holds exactly n × N values (checked above).
            out.push(std::array::from_fn(|_| values.next().expect("n × N values")));
        }
        Ok(out)
    }
}

macro_rules! tuple {
    ($($name:ident $i:tt),+) => {
        impl<$($name: Describe),+> Describe for ($($name,)+) {
            const MIN_V2: u64 = 0u64 $(.saturating_add($name::MIN_V2))+;
            const MIN_V1: u64 = 0u64 $(.saturating_add($name::MIN_V1))+;
            const PLAIN: Option<usize> = super::plain_sum(&[$($name::PLAIN),+]);
            fn describe(cx: &mut Describer) -> Result<Metadata> {
                Ok(Metadata::tuple([$($name::describe(cx)?),+]))
            }
        }
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            #[inline]
            fn encode(&self, w: &mut Writer) {
                $(self.$i.encode(w);)+
            }
        }
        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            #[inline]
            fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
                Ok(($(
                    match $name::decode(r) {
                        Ok(v) => v,
                        Err(e) => return Err(e.within(PathSegment::Position($i))),
                    },
                )+))
            }

            #[inline]
            #[allow(unused_assignments)]
            fn decode_plain(b: &'de [u8]) -> Option<Self> {
                let mut at = 0usize;
                Some(($({
                    let n = $name::PLAIN?;
                    let v = $name::decode_plain(b.get(at..at + n)?)?;
                    at += n;
                    v
                },)+))
            }

            #[allow(non_snake_case)]
            fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
                let n = c.len();
                let mut fields = c.fields()?;
                $(
                    let mut $name = match $name::decode_column(fields.next_field()?) {
                        Ok(v) => v.into_iter(),
                        Err(e) => return Err(e.within(PathSegment::Position($i))),
                    };
                )+
                fields.finish()?;
                let mut out = Vec::with_capacity(super::capacity::<Self>(n));
                for _ in 0..n {
                    out.push(($($name.next().ok_or_else(|| fields.short())?,)+));
                }
                Ok(out)
            }
        }
    };
}

tuple!(A 0);
tuple!(A 0, B 1);
tuple!(A 0, B 1, C 2);
tuple!(A 0, B 1, C 2, D 3);
tuple!(A 0, B 1, C 2, D 3, E 4);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// The maps the derive path reads.
trait MapLike<K, V> {
    fn has(&self, k: &K) -> bool;
    fn put(&mut self, k: K, v: V);
}

impl<K: Eq + Hash, V, S: BuildHasher> MapLike<K, V> for HashMap<K, V, S> {
    #[inline]
    fn has(&self, k: &K) -> bool {
        self.contains_key(k)
    }
    #[inline]
    fn put(&mut self, k: K, v: V) {
        self.insert(k, v);
    }
}

impl<K: Ord, V> MapLike<K, V> for BTreeMap<K, V> {
    #[inline]
    fn has(&self, k: &K) -> bool {
        self.contains_key(k)
    }
    #[inline]
    fn put(&mut self, k: K, v: V) {
        self.insert(k, v);
    }
}

/// Reads a map's entries into `m`. Keys decode to equal values exactly
/// when their bytes are equal (the encodings are canonical, and float keys
/// have no `Eq`), so a repeated key is found by value.
#[inline]
fn map_entries<'de, K: Decode<'de>, V: Decode<'de>>(r: &mut Reader<'de, '_>, m: &mut impl MapLike<K, V>) -> Result<()> {
    let (kmin, vmin) = if r.is_v2() { (K::MIN_V2, V::MIN_V2) } else { (K::MIN_V1, V::MIN_V1) };
    let n = r.count(kmin.saturating_add(vmin))?;
    for i in 0..n as u64 {
        let at = r.offset();
        let within = |e: crate::Error, f: &str| e.within(PathSegment::Field(f.into())).within(PathSegment::Index(i));
        let k = K::decode(r).map_err(|e| within(e, "key"))?;
        if m.has(&k) {
            return Err(within(crate::rows::value_read::duplicate_key(at), "key"));
        }
        let v = V::decode(r).map_err(|e| within(e, "value"))?;
        m.put(k, v);
    }
    Ok(())
}

macro_rules! map {
    ($map:ident, [$($bound:tt)*], [$($extra:tt)*], $new:expr) => {
        impl<K: Describe, V: Describe $(, $extra)*> Describe for $map<K, V $(, $extra)*> {
            const MIN_V2: u64 = 1;
            const MIN_V1: u64 = 8;
            fn describe(cx: &mut Describer) -> Result<Metadata> {
                Ok(Metadata::map(K::describe(cx)?, V::describe(cx)?))
            }
        }
        impl<K: Encode, V: Encode $(, $extra)*> Encode for $map<K, V $(, $extra)*> {
            #[inline]
            fn encode(&self, w: &mut Writer) {
                w.len(self.len());
                for (k, v) in self {
                    k.encode(w);
                    v.encode(w);
                }
            }
        }
        impl<'de, K: Decode<'de> + $($bound)*, V: Decode<'de> $(, $extra: BuildHasher + Default)*> Decode<'de>
            for $map<K, V $(, $extra)*>
        where
            Self: serde::Deserialize<'de>,
        {
            fn decode(r: &mut Reader<'de, '_>) -> Result<Self> {
                let mut m: Self = $new;
                map_entries(r, &mut m)?;
                Ok(m)
            }

            fn decode_column(c: WholeColumn<'_, '_, 'de>) -> Result<Vec<Self>> {
                let at = c.offset();
                let (lens, keys, values) = c.maps(K::decode_column, V::decode_column)?;
                let mut entries = keys.into_iter().zip(values);
                let mut out = Vec::with_capacity(lens.len());
                for len in lens {
                    let mut m: Self = $new;
                    for _ in 0..len {
                        let (k, v) = entries.next().ok_or_else(|| ran_out(at))?;
                        m.put(k, v);
                    }
                    out.push(m);
                }
                Ok(out)
            }
        }
    };
}

map!(HashMap, [Eq + Hash], [S], HashMap::default());
map!(BTreeMap, [Ord], [], BTreeMap::new());

/// A field written as XBF bytes (`#[serde(with = "serde_bytes")]`): the
/// derive encodes it with [`Writer::bytes`] and decodes it with
/// [`BytesField::from_bytes`].
pub trait BytesField<'de>: Sized {
    /// The field from the bytes of the message.
    fn from_bytes(b: &'de [u8]) -> Self;
    /// The field from bytes the reader made (a decompressed column), if
    /// it can own them; a borrowing field cannot.
    fn from_made(b: &[u8]) -> Option<Self> {
        let _ = b;
        None
    }
    /// The field's bytes.
    fn as_bytes(&self) -> &[u8];
}

impl<'de> BytesField<'de> for Vec<u8> {
    fn from_bytes(b: &'de [u8]) -> Self {
        b.to_vec()
    }
    fn from_made(b: &[u8]) -> Option<Self> {
        Some(b.to_vec())
    }
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl<'de: 'a, 'a> BytesField<'de> for &'a [u8] {
    fn from_bytes(b: &'de [u8]) -> Self {
        b
    }
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl<'de> BytesField<'de> for Box<[u8]> {
    fn from_bytes(b: &'de [u8]) -> Self {
        b.into()
    }
    fn from_made(b: &[u8]) -> Option<Self> {
        Some(b.into())
    }
    fn as_bytes(&self) -> &[u8] {
        self
    }
}
