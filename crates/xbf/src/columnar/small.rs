//! What a small column costs beside its values: the string encoder's
//! working lists (a plain column's lengths, the shared prefixes and the
//! rests' lengths), kept for the thread between columns, so that a message
//! of many small string columns allocates them once rather than per column.

use std::cell::Cell;

/// Lists longer than this many values are not kept (a thread that once
/// encoded a long column does not hold its lists for good).
const KEEP_MAX: usize = 1 << 12;

thread_local! {
    static KEPT: Cell<Option<[Vec<u64>; 3]>> = const { Cell::new(None) };
}

/// Three empty lists, the thread's kept ones where it has them, given back
/// (emptied) when dropped.
pub(crate) struct Lists([Vec<u64>; 3]);

impl Lists {
    pub(crate) fn take() -> Lists {
        Lists(KEPT.with(Cell::take).unwrap_or_default())
    }

    /// The three lists, empty.
    pub(crate) fn three(&mut self) -> [List<'_>; 3] {
        let [a, b, c] = &mut self.0;
        [List(a), List(b), List(c)]
    }
}

/// One of the lists, used as the `Vec` it is (the encoder's code takes
/// `&mut` and `&` of it as of its own `Vec`s).
pub(crate) struct List<'a>(&'a mut Vec<u64>);

impl std::ops::Deref for List<'_> {
    type Target = Vec<u64>;
    fn deref(&self) -> &Vec<u64> {
        self.0
    }
}

impl std::ops::DerefMut for List<'_> {
    fn deref_mut(&mut self) -> &mut Vec<u64> {
        self.0
    }
}

impl Drop for Lists {
    fn drop(&mut self) {
        if self.0.iter().all(|l| l.capacity() <= KEEP_MAX) {
            self.0.iter_mut().for_each(Vec::clear);
            let lists = std::mem::take(&mut self.0);
            KEPT.with(|kept| kept.set(Some(lists)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_back_empty_and_long_ones_are_not_kept() {
        {
            let mut lists = Lists::take();
            let [mut a, mut b, _] = lists.three();
            a.extend([1, 2, 3]);
            b.push(4);
        }
        let mut lists = Lists::take();
        assert!(lists.three().iter().all(|l| l.is_empty()));
        assert!(lists.three()[0].capacity() >= 3);
        lists.three()[2].reserve(KEEP_MAX + 1);
        drop(lists);
        assert!(Lists::take().three().iter().all(|l| l.capacity() == 0));
    }
}
