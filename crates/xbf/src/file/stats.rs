//! Column statistics of a block (min, max, null and NaN counts) and the
//! simple predicates (`FIELD OP VALUE`) that they can rule out.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{Metadata, PrimitiveType as P};
use crate::value::Value;

/// Strings and bytes longer than this are not kept whole as a min or max:
/// the min is cut to a prefix and the max to a prefix made larger, so they
/// stay bounds while a footer entry stays small.
pub(crate) const MAX_STAT_BYTES: usize = 64;

/// The statistics of one column of one block (SPEC.md §24.4).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnStatistics {
    /// The smallest and the largest value (NaN and absent values left out),
    /// of the column's primitive type (the varint form of a fixed-width
    /// integer type); `None` for structural columns, for columns without
    /// statistics and when every value is NaN or the column is empty.
    pub min_max: Option<(Value, Value)>,
    /// Whether `min_max` are values of the column; otherwise they are bounds
    /// (a long string cut short).
    pub exact: bool,
    /// How many values of the nearest enclosing record, element or entry are
    /// absent at this column's place (an absent option on the way).
    pub nulls: u64,
    /// How many values are NaN (float columns).
    pub nans: u64,
}

/// The primitive type whose values a column of `p` holds in statistics.
pub(crate) fn stat_type(p: P) -> Option<P> {
    let p = p.integer_type();
    match p {
        P::Unit | P::U256 | P::I256 => None,
        other => Some(other),
    }
}

/// Orders two values of one primitive type (floats other than NaN).
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    use Value as V;
    Some(match (a, b) {
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::U8(x), V::U8(y)) => x.cmp(y),
        (V::U16(x), V::U16(y)) => x.cmp(y),
        (V::U32(x), V::U32(y)) => x.cmp(y),
        (V::U64(x), V::U64(y)) => x.cmp(y),
        (V::U128(x), V::U128(y)) => x.cmp(y),
        (V::I8(x), V::I8(y)) => x.cmp(y),
        (V::I16(x), V::I16(y)) => x.cmp(y),
        (V::I32(x), V::I32(y)) => x.cmp(y),
        (V::I64(x), V::I64(y)) => x.cmp(y),
        (V::I128(x), V::I128(y)) => x.cmp(y),
        (V::Date(x), V::Date(y)) => x.cmp(y),
        (V::Timestamp(x), V::Timestamp(y)) => x.cmp(y),
        (V::F32(x), V::F32(y)) => x.partial_cmp(y)?,
        (V::F64(x), V::F64(y)) => x.partial_cmp(y)?,
        (V::String(x), V::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (V::Bytes(x), V::Bytes(y)) => x.cmp(y),
        _ => return None,
    })
}

fn is_nan(v: &Value) -> bool {
    matches!(v, Value::F32(x) if x.is_nan()) || matches!(v, Value::F64(x) if x.is_nan())
}

/// The statistics of the `values` of one primitive column.
fn of_values(values: &[&Value], nulls: u64) -> ColumnStatistics {
    let mut nans = 0;
    let mut lo: Option<&Value> = None;
    let mut hi: Option<&Value> = None;
    for &v in values {
        if is_nan(v) {
            nans += 1;
            continue;
        }
        if lo.map_or(true, |m| compare(v, m) == Some(Ordering::Less)) {
            lo = Some(v);
        }
        if hi.map_or(true, |m| compare(v, m) == Some(Ordering::Greater)) {
            hi = Some(v);
        }
    }
    of_bounds(lo.cloned(), hi.cloned(), nulls, nans)
}

/// The statistics of a column whose smallest and largest values (NaN left
/// out) are `lo` and `hi`: long strings and bytes cut to bounds.
pub(crate) fn of_bounds(lo: Option<Value>, hi: Option<Value>, nulls: u64, nans: u64) -> ColumnStatistics {
    let (mut exact, mut min_max) = (true, None);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let (lo, lo_exact) = cut_low(&lo);
        let (hi, hi_exact) = cut_high(&hi);
        exact = lo_exact && hi_exact;
        min_max = hi.map(|hi| (lo, hi));
    }
    ColumnStatistics { exact: exact && min_max.is_some(), min_max, nulls, nans }
}

/// A lower bound of at most `MAX_STAT_BYTES`: a prefix is never larger.
fn cut_low(v: &Value) -> (Value, bool) {
    match v {
        Value::String(s) if s.len() > MAX_STAT_BYTES => {
            let mut end = MAX_STAT_BYTES;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            (Value::String(s[..end].to_owned()), false)
        }
        Value::Bytes(b) if b.len() > MAX_STAT_BYTES => (Value::Bytes(b[..MAX_STAT_BYTES].to_vec()), false),
        other => (other.clone(), true),
    }
}

/// An upper bound of at most `MAX_STAT_BYTES`: a prefix whose last
/// character (or byte) is made larger is larger than every value that
/// starts with the prefix. `None` when there is no such bound (a prefix of
/// only U+10FFFF or 0xFF bytes).
fn cut_high(v: &Value) -> (Option<Value>, bool) {
    match v {
        Value::String(s) if s.len() > MAX_STAT_BYTES => {
            let mut end = MAX_STAT_BYTES;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let mut chars: Vec<char> = s[..end].chars().collect();
            while let Some(c) = chars.pop() {
                let next = (c as u32 + 1..=0x10FFFF).find_map(char::from_u32);
                if let Some(n) = next {
                    chars.push(n);
                    return (Some(Value::String(chars.into_iter().collect())), false);
                }
            }
            (None, false)
        }
        Value::Bytes(b) if b.len() > MAX_STAT_BYTES => {
            let mut p = b[..MAX_STAT_BYTES].to_vec();
            while let Some(last) = p.pop() {
                if last < 0xff {
                    p.push(last + 1);
                    return (Some(Value::Bytes(p)), false);
                }
            }
            (None, false)
        }
        other => (Some(other.clone()), true),
    }
}

/// The statistics of every primitive column under the records `values` of
/// type `ty`, keyed by the column's path as the columnar walk names it
/// (`a.[].b`, `m.key`; "" for a primitive record). Columns under `any` get
/// none.
pub(crate) fn gather(ty: &Metadata, values: &[&Value]) -> HashMap<String, ColumnStatistics> {
    let mut out = HashMap::new();
    walk(ty, values, &mut Vec::new(), 0, &mut out);
    out
}

fn walk(
    ty: &Metadata,
    values: &[&Value],
    path: &mut Vec<String>,
    nulls: u64,
    out: &mut HashMap<String, ColumnStatistics>,
) {
    let mut nested = |name: String, ty: &Metadata, values: &[&Value], nulls: u64| {
        path.push(name);
        walk(ty, values, path, nulls, out);
        path.pop();
    };
    match ty {
        Metadata::Primitive(p) => {
            if stat_type(*p).is_some() {
                out.insert(path.join("."), of_values(values, nulls));
            }
        }
        Metadata::Vec(elem) => {
            let items: Vec<&Value> = values.iter().flat_map(|v| seq(v)).collect();
            nested("[]".into(), elem, &items, 0);
        }
        Metadata::Array(a) => {
            let items: Vec<&Value> = values.iter().flat_map(|v| seq(v)).collect();
            nested("[]".into(), &a.element, &items, 0);
        }
        Metadata::Struct(s) => {
            for (i, (name, fty)) in s.fields().enumerate() {
                let fields: Vec<&Value> = values
                    .iter()
                    .filter_map(|v| match v {
                        Value::Struct(sv) => sv.values().get(i),
                        _ => None,
                    })
                    .collect();
                nested(name.to_owned(), fty, &fields, nulls);
            }
        }
        Metadata::Tuple(types) => {
            for (i, t) in types.iter().enumerate() {
                let items: Vec<&Value> = values
                    .iter()
                    .filter_map(|v| match v {
                        Value::Tuple(tv) => tv.items().get(i),
                        _ => None,
                    })
                    .collect();
                nested(i.to_string(), t, &items, nulls);
            }
        }
        Metadata::Option(inner) => {
            let present: Vec<&Value> = values
                .iter()
                .filter_map(|v| match v {
                    Value::Option(o) => o.value(),
                    _ => None,
                })
                .collect();
            let absent = (values.len() - present.len()) as u64;
            walk(inner, &present, path, nulls + absent, out);
        }
        Metadata::Map(m) => {
            let entries: Vec<&(Value, Value)> = values
                .iter()
                .flat_map(|v| match v {
                    Value::Map(mv) => mv.entries(),
                    _ => &[],
                })
                .collect();
            let keys: Vec<&Value> = entries.iter().map(|e| &e.0).collect();
            let vals: Vec<&Value> = entries.iter().map(|e| &e.1).collect();
            nested("key".into(), &m.key, &keys, 0);
            nested("value".into(), &m.value, &vals, 0);
        }
        Metadata::Enum(e) => {
            for (i, (name, pty)) in e.variants().enumerate() {
                let payloads: Vec<&Value> = values
                    .iter()
                    .filter_map(|v| match v {
                        Value::Enum(ev) if ev.index() == i => Some(ev.payload()),
                        _ => None,
                    })
                    .collect();
                nested(name.to_owned(), pty, &payloads, 0);
            }
        }
        Metadata::Any => {}
    }
}

fn seq(v: &Value) -> &[Value] {
    match v {
        Value::Vec(x) | Value::Array(x) => x.items(),
        _ => &[],
    }
}

// ------------------------------------------------------------- predicates

/// A comparison operator of a [`Predicate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A simple filter on records, `FIELD OP VALUE`: the field is a dotted path
/// through structs and options to a primitive; a record whose field is
/// absent (an absent option on the way) or NaN matches only `!=` for NaN
/// and nothing else.
///
/// ```
/// let p = xbf::Predicate::parse("delay > 300")?;
/// assert_eq!(p.field(), "delay");
/// # Ok::<(), xbf::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Predicate {
    field: String,
    op: Op,
    literal: String,
}

impl Predicate {
    /// A predicate on `field` (dotted path) with the literal `value`, which
    /// is read as the field's type once the file's type is known.
    pub fn new(field: impl Into<String>, op: Op, value: impl Into<String>) -> Predicate {
        Predicate { field: field.into(), op, literal: value.into() }
    }

    /// Parses `FIELD OP VALUE` (`delay >= 60`, `origin = "SFO"`, `origin=SFO`);
    /// OP is one of `= != < <= > >=`, a value in double quotes keeps its spaces.
    pub fn parse(text: &str) -> Result<Predicate> {
        let bad = || {
            Error::new(ErrorKind::Unsupported, format!("{text:?} is not FIELD OP VALUE with OP one of = != < <= > >="))
        };
        let at = text.find(['=', '!', '<', '>']).ok_or_else(bad)?;
        let field = text[..at].trim();
        let rest = &text[at..];
        let (op, len) = [("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("=", Op::Eq), ("<", Op::Lt), (">", Op::Gt)]
            .into_iter()
            .find(|(s, _)| rest.starts_with(s))
            .map(|(s, op)| (op, s.len()))
            .ok_or_else(bad)?;
        let mut value = rest[len..].trim();
        if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
            value = &value[1..value.len() - 1];
        }
        if field.is_empty() {
            return Err(bad());
        }
        Ok(Predicate::new(field, op, value))
    }

    /// The dotted path of the field the predicate tests.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The predicate bound to a record type: the field's primitive type
    /// found and the literal read as a value of it.
    pub(crate) fn bind(&self, ty: &Metadata) -> Result<Bound> {
        let mut at = ty;
        let mut names = Vec::new();
        let not_found = |why: &str| {
            Error::new(ErrorKind::TypeMismatch, format!("--where field {:?}: {why} in type {ty}", self.field))
        };
        for part in self.field.split('.') {
            while let Metadata::Option(inner) = at {
                at = inner;
            }
            let Metadata::Struct(s) = at else { return Err(not_found("a path through structs and options only")) };
            at = s.field(part).ok_or_else(|| not_found(&format!("no field {part:?}")))?.1;
            names.push(part.to_owned());
        }
        while let Metadata::Option(inner) = at {
            at = inner;
        }
        let Metadata::Primitive(p) = at else { return Err(not_found("not a primitive")) };
        let p = stat_type(*p).ok_or_else(|| not_found("a type without an order"))?;
        let value = parse_literal(p, &self.literal).ok_or_else(|| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!("--where: {:?} is not a value of {p} (field {})", self.literal, self.field),
            )
        })?;
        Ok(Bound { names, op: self.op, value })
    }
}

fn parse_literal(p: P, s: &str) -> Option<Value> {
    Some(match p {
        P::Bool => Value::Bool(s.parse().ok()?),
        P::U8 => Value::U8(s.parse().ok()?),
        P::U16 => Value::U16(s.parse().ok()?),
        P::U32 => Value::U32(s.parse().ok()?),
        P::U64 => Value::U64(s.parse().ok()?),
        P::U128 => Value::U128(s.parse().ok()?),
        P::I8 => Value::I8(s.parse().ok()?),
        P::I16 => Value::I16(s.parse().ok()?),
        P::I32 => Value::I32(s.parse().ok()?),
        P::I64 => Value::I64(s.parse().ok()?),
        P::I128 => Value::I128(s.parse().ok()?),
        P::F32 => Value::F32(s.parse().ok()?),
        P::F64 => Value::F64(s.parse().ok()?),
        P::String => Value::String(s.to_owned()),
        P::Bytes => Value::Bytes(s.as_bytes().to_vec()),
        P::Date => Value::Date(i32::try_from(crate::time::parse_date(s)?).ok()?),
        P::Timestamp => Value::Timestamp(crate::time::parse_timestamp(s)?),
        _ => return None,
    })
}

/// A predicate checked against a record type.
#[derive(Clone, Debug)]
pub(crate) struct Bound {
    pub(crate) names: Vec<String>,
    op: Op,
    value: Value,
}

impl Bound {
    /// The dotted path as the columnar walk names the field's value column.
    pub(crate) fn column_path(&self) -> String {
        self.names.join(".")
    }

    /// Whether a record matches.
    pub(crate) fn matches(&self, record: &Value) -> bool {
        let mut at = record;
        for name in &self.names {
            while let Value::Option(o) = at {
                match o.value() {
                    Some(v) => at = v,
                    None => return false,
                }
            }
            match at.get(name) {
                Some(v) => at = v,
                None => return false,
            }
        }
        while let Value::Option(o) = at {
            match o.value() {
                Some(v) => at = v,
                None => return false,
            }
        }
        let ord = compare(at, &self.value);
        match self.op {
            Op::Ne => ord != Some(Ordering::Equal),
            Op::Eq => ord == Some(Ordering::Equal),
            Op::Lt => ord == Some(Ordering::Less),
            Op::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
            Op::Gt => ord == Some(Ordering::Greater),
            Op::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
        }
    }

    /// Whether the column's statistics rule out every record of the block:
    /// no value within [min, max] can satisfy the predicate (absent values
    /// and NaN never do, except NaN for `!=`).
    pub(crate) fn rules_out(&self, st: &ColumnStatistics, records: u64) -> bool {
        let Some((lo, hi)) = &st.min_max else {
            // No ordered value: only absent values and NaN, unless a long
            // string had no upper bound (then nulls + NaN fall short).
            let unordered = st.nulls.saturating_add(st.nans) >= records;
            return unordered && (self.op != Op::Ne || st.nans == 0);
        };
        let v = &self.value;
        let (Some(vs_lo), Some(vs_hi)) = (compare(v, lo), compare(v, hi)) else { return false };
        match self.op {
            Op::Eq => vs_lo == Ordering::Less || vs_hi == Ordering::Greater,
            Op::Ne => st.nans == 0 && vs_lo == Ordering::Equal && vs_hi == Ordering::Equal,
            Op::Lt => vs_lo != Ordering::Greater,
            Op::Le => vs_lo == Ordering::Less,
            Op::Gt => vs_hi != Ordering::Less,
            Op::Ge => vs_hi == Ordering::Greater,
        }
    }
}
