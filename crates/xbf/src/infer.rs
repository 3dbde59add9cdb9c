//! The parts of type inference (SPEC.md §19.1) that every front end shares:
//! `xbf from-json` (the `json` module) and Python's `xbf.dumps` and
//! `xbf.Schema.infer` both call them, so that both infer the same types.
//!
//! - [`Ints`]: the narrowest integer type that holds every integer seen.
//! - [`Objects`]: the objects seen at one place, merged key by key in time
//!   and memory linear in the number of keys, then resolved to a struct
//!   (fields in one order every object agrees with), a `map<string, T>`
//!   (keys that are data) or a conflict (`any`).
//! - [`Shape`]: what the values at one place are, with the join table and
//!   the type each shape gives. Each front end widens shapes with its own
//!   values (JSON has fewer kinds than Python: bytes, dates, tuples), but
//!   the lattice, its joins and its types are these.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{EnumMetadata, Metadata, PrimitiveType as P, StructMetadata};

/// What the integers at one place need: the bits of the largest
/// non-negative one (as unsigned) and of the most negative one (as two's
/// complement, sign included); 0 where there are none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ints {
    /// Bits of the largest non-negative integer.
    pub ubits: u32,
    /// Bits of the most negative integer, sign bit included.
    pub sbits: u32,
}

impl Ints {
    /// The needs of one `i64`.
    pub fn of_i64(v: i64) -> Ints {
        if v >= 0 {
            Ints { ubits: 64 - v.leading_zeros(), sbits: 0 }
        } else {
            Ints { ubits: 0, sbits: 65 - (!v).leading_zeros() }
        }
    }

    /// The needs of both.
    pub fn join(self, other: Ints) -> Ints {
        Ints { ubits: self.ubits.max(other.ubits), sbits: self.sbits.max(other.sbits) }
    }

    /// The narrowest XBF integer type that holds them all: unsigned when
    /// none is negative (varints are then smallest), else signed; `None`
    /// past 256 bits.
    pub fn primitive(self) -> Option<P> {
        if self.sbits == 0 {
            return match self.ubits {
                0..=64 => Some(P::U64),
                65..=128 => Some(P::U128),
                129..=256 => Some(P::U256),
                _ => None,
            };
        }
        match self.sbits.max(self.ubits + 1) {
            0..=64 => Some(P::I64),
            65..=128 => Some(P::I128),
            129..=256 => Some(P::I256),
            _ => None,
        }
    }
}

/// A place becomes `map<string, T>` when its objects have more than this
/// many distinct keys...
pub const MAP_MIN_KEYS: u64 = 64;
/// ...and more than this many times as many distinct keys as an object has
/// on average (SPEC.md §19.1).
pub const MAP_KEY_RATIO: u64 = 8;

/// One key of the objects at a place.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<S> {
    /// The key.
    pub name: String,
    /// What its values are (the caller's shape).
    pub shape: S,
    /// How many objects have it.
    pub count: u64,
}

/// The objects seen at one place, merged (SPEC.md §19.1): every key once in
/// order of first appearance, an edge `a → b` for each pair of keys that
/// follow each other in some object, and counts. Adding an object costs
/// time linear in its keys; the field order is decided once, at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct Objects<S> {
    fields: Vec<Field<S>>,
    index: HashMap<String, u32>,
    edges: HashSet<(u32, u32)>,
    /// Objects merged.
    count: u64,
    /// Keys of all the objects together.
    keys: u64,
    /// The fields of the object being added (or of the last one), in order.
    current: Vec<u32>,
}

/// What the objects at one place become.
#[derive(Debug, PartialEq)]
pub enum Resolved<'a, S> {
    /// A struct: these fields in this order; a field whose count is less
    /// than the number of objects is optional.
    Struct(Vec<&'a Field<S>>),
    /// `map<string, T>`, `T` holding the shapes of all the fields.
    Map,
    /// Two objects put keys in opposite orders: `any`.
    Conflict,
}

impl<S> Default for Objects<S> {
    fn default() -> Self {
        Objects {
            fields: Vec::new(),
            index: HashMap::new(),
            edges: HashSet::new(),
            count: 0,
            keys: 0,
            current: Vec::new(),
        }
    }
}

impl<S> Objects<S> {
    /// No objects yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts adding one more object: give its keys in order to [`key`](Self::key).
    pub fn begin(&mut self) {
        self.current.clear();
        self.count += 1;
    }

    /// The next key of the object being added: returns the shape of its
    /// values so far (`init()` for a key not seen before), to widen with
    /// this value. A key given twice in one object makes a cycle, so a
    /// conflict.
    pub fn key(&mut self, name: &str, init: impl FnOnce() -> S) -> &mut S {
        let slot = match self.index.get(name) {
            Some(&slot) => slot,
            None => {
                let slot = u32::try_from(self.fields.len()).expect("fewer than 2^32 keys at one place");
                self.fields.push(Field { name: name.to_owned(), shape: init(), count: 0 });
                self.index.insert(name.to_owned(), slot);
                slot
            }
        };
        if let Some(&prev) = self.current.last() {
            self.edges.insert((prev, slot));
        }
        self.current.push(slot);
        self.keys += 1;
        let field = &mut self.fields[slot as usize];
        field.count += 1;
        &mut field.shape
    }

    /// The fields of the object added last, in its order: an object with
    /// the same keys in the same order adds no edge, so a caller that sees
    /// one can widen `fields_mut()[i].shape` itself and call
    /// [`repeat`](Self::repeat).
    pub fn last(&self) -> &[u32] {
        &self.current
    }

    /// Counts one more object with exactly the keys of [`last`](Self::last).
    pub fn repeat(&mut self) {
        self.repeat_n(1);
    }

    /// Counts `n` more objects with exactly the keys of [`last`](Self::last):
    /// what `n` calls of [`repeat`](Self::repeat) count, in one pass over the
    /// keys rather than one per object (a caller that gathered a list of
    /// records first, as the Python extension does, knows how many came in
    /// each order of keys; calling `repeat` once a record cost ~7
    /// instructions a value on flights-20k, callgrind).
    pub fn repeat_n(&mut self, n: u64) {
        self.count += n;
        self.keys += n * self.current.len() as u64;
        for &slot in &self.current {
            self.fields[slot as usize].count += n;
        }
    }

    /// The keys in order of first appearance.
    pub fn fields(&self) -> &[Field<S>] {
        &self.fields
    }

    /// The keys in order of first appearance, to widen their shapes.
    pub fn fields_mut(&mut self) -> &mut [Field<S>] {
        &mut self.fields
    }

    /// How many objects were merged.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Adds the objects of `other` (which were seen after these), widening
    /// shapes with `join`. Time linear in the size of `other`.
    pub fn merge(&mut self, other: Objects<S>, mut join: impl FnMut(&mut S, S)) {
        let mut slots = Vec::with_capacity(other.fields.len());
        for f in other.fields {
            let slot = match self.index.get(&f.name) {
                Some(&slot) => {
                    let mine = &mut self.fields[slot as usize];
                    join(&mut mine.shape, f.shape);
                    mine.count += f.count;
                    slot
                }
                None => {
                    let slot = u32::try_from(self.fields.len()).expect("fewer than 2^32 keys at one place");
                    self.index.insert(f.name.clone(), slot);
                    self.fields.push(f);
                    slot
                }
            };
            slots.push(slot);
        }
        self.edges.extend(other.edges.into_iter().map(|(a, b)| (slots[a as usize], slots[b as usize])));
        self.current = other.current.iter().map(|&s| slots[s as usize]).collect();
        self.count += other.count;
        self.keys += other.keys;
    }

    /// Whether the keys are data rather than names: more than
    /// [`MAP_MIN_KEYS`] distinct keys, and more than [`MAP_KEY_RATIO`] times
    /// the mean number of keys per object.
    pub fn is_map(&self) -> bool {
        let distinct = self.fields.len() as u64;
        distinct > MAP_MIN_KEYS && distinct.saturating_mul(self.count) > MAP_KEY_RATIO.saturating_mul(self.keys)
    }

    /// The type of these objects: a map (see [`is_map`](Self::is_map)), else
    /// a struct whose fields follow every edge, ties going to the key that
    /// appeared first (a topological sort), else a conflict if the edges
    /// make a cycle.
    pub fn resolve(&self) -> Resolved<'_, S> {
        if self.is_map() {
            return Resolved::Map;
        }
        let n = self.fields.len();
        let mut indegree = vec![0u32; n];
        let mut next: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            indegree[b as usize] += 1;
            next[a as usize].push(b);
        }
        let mut ready: BinaryHeap<Reverse<u32>> =
            (0..n as u32).filter(|&i| indegree[i as usize] == 0).map(Reverse).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse(i)) = ready.pop() {
            order.push(&self.fields[i as usize]);
            for &j in &next[i as usize] {
                indegree[j as usize] -= 1;
                if indegree[j as usize] == 0 {
                    ready.push(Reverse(j));
                }
            }
        }
        if order.len() < n {
            Resolved::Conflict
        } else {
            Resolved::Struct(order)
        }
    }
}

// ------------------------------------------------------------------ shapes

/// The name of the enum that marks a key some objects lack:
/// `enum "json.optional" { absent, present: T }`.
pub const OPTIONAL_KEY_ENUM: &str = "json.optional";
/// The name given to structs inferred from objects with string keys (JSON
/// objects, Python dicts).
pub const OBJECT_STRUCT: &str = "Object";

/// What inference knows of the values at one place: the lattice that every
/// front end widens one value at a time, each with its own `absorb` (JSON
/// has fewer kinds of values than Python), and joins and types by the rules
/// here. `K` is what a front end keeps with each key of its objects (Python:
/// the key as a Python string, to compare by identity first; JSON: nothing).
#[derive(Clone, Debug, Default)]
pub enum Shape<K> {
    /// No value seen (the elements of empty arrays).
    #[default]
    Never,
    /// Only nulls (`None`).
    Null,
    /// Booleans.
    Bool,
    /// Integers, and the bits they need.
    Int(Ints),
    /// Floats.
    Float,
    /// Strings.
    Str,
    /// Byte strings.
    Bytes,
    /// Dates.
    Date,
    /// Timestamps.
    Timestamp,
    /// Lists: their elements.
    Vec(Box<Shape<K>>),
    /// Tuples: each position.
    Tuple(Vec<Shape<K>>),
    /// Maps whose keys are not all strings: their keys and values.
    Map(Box<Shape<K>>, Box<Shape<K>>),
    /// Objects of one name, merged key by key.
    Obj(Box<Obj<K>>),
    /// Values of the inner shape, or null.
    Nullable(Box<Shape<K>>),
    /// Values of different kinds: each carries its own type.
    Any,
    /// Values whose type was given with them.
    Fixed(Metadata),
}

/// The objects seen at one place: their struct name ([`OBJECT_STRUCT`], or
/// a class's) and their keys.
#[derive(Clone, Debug)]
pub struct Obj<K> {
    /// The name of the struct they become.
    pub name: String,
    /// Their keys, merged.
    pub objects: Objects<Slot<K>>,
}

impl<K> Obj<K> {
    /// No objects yet, of struct name `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Obj { name: name.into(), objects: Objects::new() }
    }
}

/// What the values of one key are, and the front end's own data of the key.
#[derive(Clone, Debug, Default)]
pub struct Slot<K> {
    /// The front end's data of the key.
    pub key: K,
    /// What its values are.
    pub shape: Shape<K>,
}

impl<K> Shape<K> {
    /// The least shape that describes values of both, losing nothing.
    pub fn join(self, other: Shape<K>) -> Shape<K> {
        use Shape::*;
        match (self, other) {
            (Never, s) | (s, Never) => s,
            (Any, _) | (_, Any) => Any,
            (Null, Null) => Null,
            (Null, Nullable(s)) | (Nullable(s), Null) => Nullable(s),
            (Null, s) | (s, Null) => Nullable(Box::new(s)),
            (Nullable(a), Nullable(b)) => nullable(a.join(*b)),
            (Nullable(a), b) | (b, Nullable(a)) => nullable(a.join(b)),
            (Bool, Bool) => Bool,
            (Int(a), Int(b)) => {
                let both = a.join(b);
                // Past 256 bits with a sign: no one type holds both.
                if both.primitive().is_some() {
                    Int(both)
                } else {
                    Any
                }
            }
            (Float, Float) => Float,
            (Str, Str) => Str,
            (Bytes, Bytes) => Bytes,
            (Date, Date) => Date,
            (Timestamp, Timestamp) => Timestamp,
            (Vec(a), Vec(b)) => Vec(Box::new(a.join(*b))),
            (Tuple(a), Tuple(b)) if a.len() == b.len() => Tuple(a.into_iter().zip(b).map(|(x, y)| x.join(y)).collect()),
            (Map(ka, va), Map(kb, vb)) => Map(Box::new(ka.join(*kb)), Box::new(va.join(*vb))),
            (Obj(mut a), Obj(b)) if a.name == b.name => {
                a.objects.merge(b.objects, |x, y| x.shape = std::mem::take(&mut x.shape).join(y.shape));
                Obj(a)
            }
            (Fixed(a), Fixed(b)) if a == b => Fixed(a),
            // 1 and 1.0 must stay apart, so ints and floats do not mix.
            _ => Any,
        }
    }

    /// The type of the values; an error only for integers no 256-bit type
    /// holds (which no join makes: it gives `any` instead).
    pub fn metadata(&self) -> Result<Metadata>
    where
        K: Clone,
    {
        Ok(match self {
            Shape::Never | Shape::Null => Metadata::UNIT,
            Shape::Bool => P::Bool.into(),
            Shape::Int(c) => c
                .primitive()
                .ok_or_else(|| Error::new(ErrorKind::TypeMismatch, "an integer wider than 256 bits"))?
                .into(),
            Shape::Float => P::F64.into(),
            Shape::Str => P::String.into(),
            Shape::Bytes => P::Bytes.into(),
            Shape::Date => P::Date.into(),
            Shape::Timestamp => P::Timestamp.into(),
            Shape::Vec(e) => Metadata::vec(e.metadata()?),
            Shape::Tuple(ts) => Metadata::tuple(ts.iter().map(Shape::metadata).collect::<Result<Vec<_>>>()?),
            Shape::Map(k, v) => Metadata::map(k.metadata()?, v.metadata()?),
            // Objects whose key orders conflict are `any`, which holds null itself.
            Shape::Nullable(s) => match s.metadata()? {
                Metadata::Any => Metadata::Any,
                inner => Metadata::option(inner),
            },
            Shape::Any => Metadata::Any,
            Shape::Fixed(m) => m.clone(),
            Shape::Obj(o) => match o.objects.resolve() {
                Resolved::Map => {
                    let values = o.objects.fields().iter().fold(Shape::Never, |all, f| all.join(f.shape.shape.clone()));
                    Metadata::map(P::String.into(), values.metadata()?)
                }
                Resolved::Conflict => Metadata::Any,
                Resolved::Struct(fields) => {
                    let mut typed = Vec::with_capacity(fields.len());
                    for f in fields {
                        let ty = f.shape.shape.metadata()?;
                        typed.push((f.name.as_str(), if f.count < o.objects.count() { optional_key(ty) } else { ty }));
                    }
                    StructMetadata::new(o.name.as_str(), typed)?.into()
                }
            },
        })
    }
}

/// `Nullable` of a shape that may already be nullable (`any` holds null
/// itself).
pub fn nullable<K>(s: Shape<K>) -> Shape<K> {
    match s {
        Shape::Null | Shape::Nullable(_) | Shape::Any => s,
        s => Shape::Nullable(Box::new(s)),
    }
}

/// The type of a key that some objects lack: `enum "json.optional" {
/// absent, present: ty }`.
pub fn optional_key(ty: Metadata) -> Metadata {
    let e = EnumMetadata::new(OPTIONAL_KEY_ENUM, [("absent", Metadata::UNIT), ("present", ty)])
        .expect("two distinct variant names");
    Metadata::Enum(Arc::new(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(keys: &[&[&str]]) -> Objects<()> {
        let mut o = Objects::new();
        for obj in keys {
            o.begin();
            for k in *obj {
                o.key(k, || ());
            }
        }
        o
    }

    fn names(o: &Objects<()>) -> Option<Vec<&str>> {
        match o.resolve() {
            Resolved::Struct(f) => Some(f.iter().map(|f| f.name.as_str()).collect()),
            _ => None,
        }
    }

    #[test]
    fn sparse_keys_keep_one_order() {
        assert_eq!(names(&objects(&[&["a"], &["b"], &["a", "b"]])), Some(vec!["a", "b"]));
        assert_eq!(names(&objects(&[&["b"], &["a"], &["a", "b"]])), Some(vec!["a", "b"]));
        assert_eq!(names(&objects(&[&["x", "z"], &["x", "y", "z"], &["w"]])), Some(vec!["x", "y", "z", "w"]));
        assert_eq!(names(&objects(&[&["a", "b"], &["b", "a"]])), None);
        assert_eq!(names(&objects(&[&["a", "b"], &["b", "c"], &["c", "a"]])), None);
        assert_eq!(names(&objects(&[&[], &[]])), Some(vec![]));
    }

    #[test]
    fn merge_is_the_same_as_adding_in_turn() {
        let all = objects(&[&["a", "c"], &["b"], &["c", "d"], &["a", "b"]]);
        let mut first = objects(&[&["a", "c"], &["b"]]);
        first.merge(objects(&[&["c", "d"], &["a", "b"]]), |_, _| ());
        assert_eq!(names(&all), names(&first));
        // c appeared before b: ties go to the first seen.
        assert_eq!(names(&all), Some(vec!["a", "c", "b", "d"]));
        assert_eq!(first.count(), 4);
    }

    #[test]
    fn keys_that_are_data_make_a_map() {
        let keys: Vec<String> = (0..65).map(|i| format!("k{i}")).collect();
        let one_each: Vec<Vec<&str>> = keys.iter().map(|k| vec![k.as_str()]).collect();
        let one_each: Vec<&[&str]> = one_each.iter().map(Vec::as_slice).collect();
        assert_eq!(objects(&one_each).resolve(), Resolved::Map);
        // 64 distinct keys are still a struct, and so is one object with many keys.
        assert!(matches!(objects(&one_each[..64]).resolve(), Resolved::Struct(_)));
        let all: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert!(matches!(objects(&[&all]).resolve(), Resolved::Struct(_)));
    }

    #[test]
    fn repeat_counts_the_last_object_again() {
        let mut o = objects(&[&["a"], &["a", "b"]]);
        o.repeat();
        assert_eq!(o.count(), 3);
        assert_eq!(o.fields().iter().map(|f| f.count).collect::<Vec<_>>(), vec![3, 2]);
    }

    #[test]
    fn repeat_n_counts_as_n_repeats() {
        let (mut one, mut n) = (objects(&[&["a", "b"], &["b"]]), objects(&[&["a", "b"], &["b"]]));
        for _ in 0..5 {
            one.repeat();
        }
        n.repeat_n(5);
        n.repeat_n(0);
        assert_eq!(n.count(), one.count());
        assert_eq!(n.count(), 7);
        let counts = |o: &Objects<()>| o.fields().iter().map(|f| f.count).collect::<Vec<_>>();
        assert_eq!(counts(&n), counts(&one));
        assert_eq!(counts(&n), vec![1, 7]);
        assert_eq!(n.resolve(), one.resolve());
    }
}
