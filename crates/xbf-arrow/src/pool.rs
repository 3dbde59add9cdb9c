//! Blocks of a file decoded by several threads that stay up for the whole
//! read, handed back in file order with at most a window of blocks decoded
//! ahead of the consumer.
//!
//! Each worker owns a reader of the same file and claims the next block not
//! yet claimed; the consumer (the thread iterating the batches) claims blocks
//! too while the one it needs next is not ready, so a worker that the
//! operating system deschedules (a loaded machine) delays only its own block,
//! never a round of them. Memory holds at most `window` decoded blocks.

use std::collections::BTreeMap;
use std::io::{Read, Seek};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;
use xbf::FileReader;

/// Decodes one block of a file with a reader of it: what every thread runs.
pub(crate) trait DecodeBlock: Send + Sync + 'static {
    /// Block `i`'s batch (empty when the read rules the block out).
    fn decode<R: Read + Seek>(&self, reader: &mut FileReader<R>, i: usize) -> Result<RecordBatch, ArrowError>;
}

type Batch = Result<RecordBatch, ArrowError>;

/// What the threads share, under one lock.
struct State {
    /// The next block no thread has claimed.
    next: usize,
    /// One past the last block of the read.
    end: usize,
    /// Blocks at or after this are not claimed yet (the consumer's position
    /// plus the window): the memory bound.
    limit: usize,
    /// Decoded blocks the consumer has not taken, by index.
    done: BTreeMap<usize, Batch>,
    /// Set when the consumer is gone or has stopped after an error.
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked held no invariant half-changed (every
        // update is a single assignment or map insert), so the state is
        // usable as it is.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Decoding threads over the blocks `start..end` of one file.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    window: usize,
    /// The next block the consumer hands out.
    want: usize,
    handles: Vec<JoinHandle<()>>,
}

/// Decodes block `i`, a panic turned into an error (so that the consumer,
/// waiting for that block, always gets an answer).
fn run<P: DecodeBlock, R: Read + Seek>(plan: &P, reader: &mut FileReader<R>, i: usize) -> Batch {
    catch_unwind(AssertUnwindSafe(|| plan.decode(reader, i)))
        .unwrap_or_else(|_| Err(ArrowError::ComputeError(format!("decoding block {i} panicked"))))
}

impl Pool {
    /// Starts one thread a reader of `readers`, over blocks `blocks`, with at
    /// most `window` (at least 1) blocks decoded or being decoded ahead of
    /// the consumer.
    pub(crate) fn start<P: DecodeBlock, R: Read + Seek + Send + 'static>(
        plan: Arc<P>,
        readers: Vec<FileReader<R>>,
        blocks: std::ops::Range<usize>,
        window: usize,
    ) -> Pool {
        let window = window.max(1);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                next: blocks.start,
                end: blocks.end,
                limit: blocks.start.saturating_add(window),
                done: BTreeMap::new(),
                stop: false,
            }),
            changed: Condvar::new(),
        });
        let handles = readers
            .into_iter()
            .map(|mut reader| {
                let shared = shared.clone();
                let plan = plan.clone();
                std::thread::spawn(move || loop {
                    let i = {
                        let mut s = shared.lock();
                        loop {
                            if s.stop || s.next >= s.end {
                                return;
                            }
                            if s.next < s.limit {
                                break;
                            }
                            s = shared.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
                        }
                        s.next += 1;
                        s.next - 1
                    };
                    let out = run(plan.as_ref(), &mut reader, i);
                    shared.lock().done.insert(i, out);
                    shared.changed.notify_all();
                })
            })
            .collect();
        Pool { shared, window, want: blocks.start, handles }
    }

    /// The next block's batch in file order (`None` after the last), decoding
    /// blocks with `reader` on this thread while the next one is not ready.
    pub(crate) fn next<P: DecodeBlock, R: Read + Seek>(
        &mut self,
        plan: &P,
        reader: &mut FileReader<R>,
    ) -> Option<Batch> {
        let mut s = self.shared.lock();
        loop {
            // Checked before the finished blocks: blocks after a failed one
            // may already be decoded, and none of them is handed out.
            if s.stop || self.want >= s.end {
                return None;
            }
            if let Some(out) = s.done.remove(&self.want) {
                self.want += 1;
                s.limit = self.want.saturating_add(self.window);
                if out.is_err() {
                    // Nothing after a failed block: the blocks decoded ahead
                    // are dropped now, not when the reader is.
                    s.stop = true;
                    s.done.clear();
                }
                drop(s);
                self.shared.changed.notify_all();
                return Some(out);
            }
            if s.next < s.end && s.next < s.limit {
                // Not ready: decode the next unclaimed block here meanwhile.
                let i = s.next;
                s.next += 1;
                drop(s);
                let out = run(plan, reader, i);
                s = self.shared.lock();
                s.done.insert(i, out);
                self.shared.changed.notify_all();
                continue;
            }
            s = self.shared.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
        for h in self.handles.drain(..) {
            // A worker's panic is already an error in `done`; nothing to add.
            let _ = h.join();
        }
    }
}
