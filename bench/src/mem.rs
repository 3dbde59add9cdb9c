//! A counting global allocator: peak live heap bytes during a closure.
//! Counting is off except inside `peak_during`, so timed runs pay one
//! relaxed atomic load per allocation and nothing more.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};

pub struct Counting;

static TRACK: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n as isize, Relaxed) + n as isize;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(n: usize) {
    LIVE.fetch_sub(n as isize, Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() && TRACK.load(Relaxed) {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() && TRACK.load(Relaxed) {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        if TRACK.load(Relaxed) {
            shrank(l.size());
        }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() && TRACK.load(Relaxed) {
            // Counted as the new block live beside the old one at the peak.
            grew(new);
            shrank(l.size());
        }
        q
    }
}

/// Runs `f` and returns its result with the peak of heap bytes allocated
/// and not yet freed while it ran (the result's own allocations included).
/// Single-threaded use only: the bench decodes on one thread.
pub fn peak_during<X>(f: impl FnOnce() -> X) -> (X, u64) {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    TRACK.store(true, Relaxed);
    let x = f();
    TRACK.store(false, Relaxed);
    (x, PEAK.load(Relaxed).max(0) as u64)
}
