//! The keys of the records: [`Keys`], each key's column, found by the key
//! object's identity; [`Runs`], each order of keys met and how many records
//! had it (what inference's `Objects` is given once the list is read);
//! [`Orders`], the key objects of a few orders, by which a record that
//! changes to one of them is recognised.

use pyo3::prelude::*;
use pyo3::types::PyString;
use rustc_hash::FxHashMap;

/// The keys met so far, each a column (numbered in order of first
/// appearance, as inference numbers its fields): key objects are compared
/// by identity first (JSON parsers and `csv` share one key object across
/// records), by content only the first time a key object is met.
#[derive(Default)]
pub(super) struct Keys<'py> {
    /// Key objects met, each with its column.
    known: Vec<(Bound<'py, PyAny>, usize)>,
    /// Each column's name, and the first key object of that name.
    pub(super) names: Vec<String>,
    pub(super) objects: Vec<Bound<'py, PyString>>,
    /// The columns by their names' Python hash (which a str keeps once
    /// made, and a dict's key has: no pass over the name, where a `HashMap`
    /// of the names hashed each twice and kept a copy of it): the last
    /// column of each hash met, the ones before it of the same hash chained
    /// through `same_hash`. Python's str hash is randomised per process as
    /// its dicts need (so is a map's order: the columns' order is the
    /// records'), so a list's keys do not pick the collisions.
    by_hash: FxHashMap<isize, usize>,
    /// Each column's column before it of the same hash ([`NONE`]: none).
    same_hash: Vec<usize>,
}

/// No column (the end of a chain of [`Keys::same_hash`]).
const NONE: usize = usize::MAX;

/// Key objects remembered at most: records whose key objects are all new
/// (each dict built with fresh strings) are looked up by content.
const KEY_CACHE: usize = 256;

impl<'py> Keys<'py> {
    /// The column of key `k` (a new one if the key is new); `None` for a
    /// key that is not an exact str of valid UTF-8. `first`: `k` is a key
    /// of the first record, whose keys met before are its own, other
    /// objects (a dict's keys differ), so not looked up by identity (a
    /// wide record's keys each compared with those before it).
    pub(super) fn column(&mut self, k: &Bound<'py, PyAny>, first: bool) -> Option<usize> {
        if !first {
            if let Some(&(_, col)) = self.known.iter().find(|(known, _)| known.is(k)) {
                return Some(col);
            }
        }
        let ks = k.downcast_exact::<PyString>().ok()?;
        let name = ks.to_str().ok()?;
        // An exact str's hash: no Python code runs, and it does not fail.
        let hash = ks.hash().ok()?;
        // The first record's keys are new: a dict's exact str keys differ in
        // content, and no record came before (no lookup of each).
        let found = if first { None } else { self.find(hash, name) };
        debug_assert!(!first || self.find(hash, name).is_none(), "the first record has {name:?} twice");
        let col = match found {
            Some(col) => col,
            None => self.add(hash, name, ks),
        };
        if self.known.len() < KEY_CACHE {
            self.known.push((k.clone(), col));
        }
        Some(col)
    }

    /// The column of the key named `name`, whose Python hash is `hash`.
    fn find(&self, hash: isize, name: &str) -> Option<usize> {
        let mut col = *self.by_hash.get(&hash)?;
        while self.names[col] != name {
            col = self.same_hash[col];
            if col == NONE {
                return None;
            }
        }
        Some(col)
    }

    /// A new column, of the key named `name` (not met yet), whose Python
    /// hash is `hash`, and whose first key object is `ks`.
    fn add(&mut self, hash: isize, name: &str, ks: &Bound<'py, PyString>) -> usize {
        let col = self.names.len();
        self.names.push(name.to_owned());
        self.objects.push(ks.clone());
        self.same_hash.push(self.by_hash.insert(hash, col).unwrap_or(NONE));
        col
    }

    /// Room for `more` keys not met yet (the rest of a record's).
    pub(super) fn reserve(&mut self, more: usize) {
        if self.known.len() < KEY_CACHE {
            self.known.reserve(more.min(KEY_CACHE - self.known.len()));
        }
        self.names.reserve(more);
        self.objects.reserve(more);
        self.same_hash.reserve(more);
        self.by_hash.reserve(more);
    }
}

/// The keys of records, in their order (as columns), and how many records
/// had them: given to inference's `Objects` once the list is read
/// (`Objects::key` hashes each name and each pair of neighbours, which cost
/// a fifth of `dumps` on countries.json, whose records lack keys here and
/// there; callgrind).
pub(super) struct Run {
    pub(super) cols: Vec<usize>,
    pub(super) records: u64,
}

/// Each order of keys met (a [`Run`]), in the order first met, and the
/// index of each: looked up once for each record whose keys differ from the
/// record before (on countries.json, three records in eleven).
#[derive(Default)]
pub(super) struct Runs {
    pub(super) runs: Vec<Run>,
    /// Each run's index by its keys, once there are more than
    /// [`Runs::SCAN`] (fewer are compared one by one: no hash, which cost
    /// more than the comparisons).
    by_cols: FxHashMap<Vec<usize>, usize>,
}

impl Runs {
    /// Runs looked up by comparing their keys one run after another.
    const SCAN: usize = 8;

    /// The index of the run of keys `cols`, a new run (of no record yet) if
    /// none has them.
    pub(super) fn index(&mut self, cols: &[usize]) -> usize {
        let found = if self.runs.len() <= Self::SCAN {
            self.runs.iter().position(|r| r.cols == cols)
        } else {
            self.by_cols.get(cols).copied()
        };
        if let Some(r) = found {
            return r;
        }
        let r = self.runs.len();
        self.runs.push(Run { cols: cols.to_vec(), records: 0 });
        if self.runs.len() > Self::SCAN {
            if self.by_cols.is_empty() {
                // The map from now on: every run so far in it.
                self.by_cols.extend(self.runs.iter().enumerate().map(|(i, run)| (run.cols.clone(), i)));
            } else {
                self.by_cols.insert(cols.to_vec(), r);
            }
        }
        r
    }
}

/// One order of key objects met ([`Orders`]): the objects (kept alive
/// here), their addresses with their columns (as `gather`'s `prev_keys`),
/// and the index of their [`Run`].
pub(super) struct Order<'py> {
    pub(super) objects: Vec<Bound<'py, PyAny>>,
    pub(super) keys: Vec<(*mut pyo3::ffi::PyObject, usize)>,
    pub(super) run: usize,
}

/// The first few orders of key objects that records had, each remembered
/// once the slow way (`Keys::column` a key) has read it: a record whose
/// keys are not the record before's is compared, by identity, with these
/// before it takes the slow way (countries.json's records change between
/// three orders, a country's first and last year lacking some keys).
#[derive(Default)]
pub(super) struct Orders<'py> {
    pub(super) orders: Vec<Order<'py>>,
}

impl<'py> Orders<'py> {
    /// Orders remembered at most: a list whose records all have other key
    /// objects (dicts built with fresh strings) is compared with these few
    /// for each record, then takes the slow way.
    pub(super) const MAX: usize = 8;

    /// Remembers the order of key objects `objects` (their addresses and
    /// columns `keys`, of run `run`) if it is new and there is room.
    pub(super) fn remember(
        &mut self,
        objects: &[Bound<'py, PyAny>],
        keys: &[(*mut pyo3::ffi::PyObject, usize)],
        run: usize,
    ) {
        if self.orders.len() < Self::MAX && !self.orders.iter().any(|o| o.keys == keys) {
            self.orders.push(Order { objects: objects.to_vec(), keys: keys.to_vec(), run });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Keys, Runs};
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    /// Keys found by name through their hash, those of one hash (Python's
    /// str hashes may collide) chained: each found, a name not met not
    /// found whatever its hash, and `column` gives a key object of a name
    /// met (a new object) that name's column.
    #[test]
    fn keys_of_one_hash_are_told_apart_by_name() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let mut keys = Keys::default();
            let names = ["a", "b", "é", "ab", "c"];
            // "a", "b" and "é" of one hash, "ab" and "c" of another.
            let hash = |i: usize| if i < 3 { 7 } else { -8 };
            for (i, name) in names.iter().enumerate() {
                assert_eq!(keys.find(hash(i), name), None, "{name} before it is added");
                assert_eq!(keys.add(hash(i), name, &PyString::new_bound(py, name)), i);
            }
            for (i, name) in names.iter().enumerate() {
                assert_eq!(keys.find(hash(i), name), Some(i), "{name}");
                assert_eq!(keys.find(-hash(i), name), None, "{name} of another hash");
            }
            assert_eq!(keys.find(7, "d"), None);
            assert_eq!(keys.find(-8, "d"), None);
            // By the key object's own hash: a name met (the hash above is not
            // its own, so it is a new column), then the same name again.
            let fresh = PyString::new_bound(py, &["x", "y"].concat());
            let col = keys.column(fresh.as_any(), true).expect("a str key");
            assert_eq!(col, names.len());
            let again = PyString::new_bound(py, &["x", "y"].concat());
            assert!(!again.is(&fresh));
            assert_eq!(keys.column(again.as_any(), false), Some(col));
            // And the same object again, by identity.
            assert_eq!(keys.column(fresh.as_any(), false), Some(col));
        });
    }

    /// Runs found by comparison (up to `Runs::SCAN`) and then by hash: the
    /// index of each order of keys is that of its first appearance.
    #[test]
    fn runs_index_each_order_by_first_appearance() {
        for orders in [1usize, 2, Runs::SCAN, Runs::SCAN + 1, 40] {
            let mut runs = Runs::default();
            let mut first: Vec<Vec<usize>> = Vec::new();
            for i in 0..200usize {
                // Orders of different lengths and shared prefixes, met out of order.
                let o = (i * 7 + i / 3) % orders;
                let cols: Vec<usize> = (0..o % 5).chain([o, 100 - o]).collect();
                let want = first.iter().position(|c| *c == cols).unwrap_or_else(|| {
                    first.push(cols.clone());
                    first.len() - 1
                });
                assert_eq!(runs.index(&cols), want, "{orders} orders, record {i}");
            }
            assert_eq!(runs.runs.iter().map(|r| r.cols.clone()).collect::<Vec<_>>(), first);
        }
    }
}
