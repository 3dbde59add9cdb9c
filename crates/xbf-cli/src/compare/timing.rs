//! Encode and decode times, measured in one run, interleaved across formats.
//!
//! Each timed *sample* runs one operation (encode or decode of one format) a
//! fixed number of times in a row, the count calibrated once so that a sample
//! lasts about the target time. A *round* takes one encode and one decode
//! sample of every format, starting each round one format further along, so
//! that no format always follows the same one. The time of a format is the
//! median over the rounds of the per-call time of its samples: drifts of the
//! machine (frequency, other load) hit every format alike. Inputs and
//! results pass through `black_box`; a call's time includes dropping what
//! it returned.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::data::Dataset;
use super::formats::Format;

/// Median per-call times of one format, in seconds; `None` where the
/// operation failed (and so was not timed).
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    pub encode: Option<f64>,
    pub decode: Option<f64>,
}

/// An operation to time: a closure run `iters` times in a row.
struct Op<'a> {
    run: Box<dyn Fn() + 'a>,
    iters: u32,
    samples: Vec<f64>,
}

impl<'a> Op<'a> {
    fn new(run: Box<dyn Fn() + 'a>, target: Duration) -> Self {
        // Warm up, then count how many calls fill the target time.
        run();
        let start = Instant::now();
        let mut iters = 0u32;
        loop {
            run();
            iters += 1;
            if start.elapsed() >= target || iters >= 1_000_000 {
                break;
            }
        }
        Op { run, iters, samples: Vec::new() }
    }

    fn sample(&mut self) {
        let start = Instant::now();
        for _ in 0..self.iters {
            (self.run)();
        }
        self.samples.push(start.elapsed().as_secs_f64() / f64::from(self.iters));
    }

    fn median(&mut self) -> Option<f64> {
        self.samples.sort_by(f64::total_cmp);
        let n = self.samples.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(self.samples[n / 2]),
            _ => Some((self.samples[n / 2 - 1] + self.samples[n / 2]) / 2.0),
        }
    }
}

/// Times every format's encode and decode; `encoded[i]` is what format `i`
/// encoded, `ok[i]` whether both its operations worked (the others are not
/// timed).
pub fn measure(
    formats: &[Format],
    ds: &Dataset,
    encoded: &[Vec<u8>],
    ok: &[bool],
    rounds: u32,
    target: Duration,
) -> Vec<Times> {
    let mut ops: Vec<Option<(Op, Op)>> = formats
        .iter()
        .zip(encoded)
        .zip(ok)
        .map(|((f, bytes), &ok)| {
            ok.then(|| {
                let enc = Op::new(
                    Box::new(move || {
                        let _ = black_box((f.encode)(black_box(ds)));
                    }),
                    target,
                );
                let dec = Op::new(
                    Box::new(move || {
                        let _ = black_box((f.decode)(black_box(ds), black_box(bytes)));
                    }),
                    target,
                );
                (enc, dec)
            })
        })
        .collect();
    let n = ops.len();
    for round in 0..rounds as usize {
        for k in 0..n {
            if let Some((enc, dec)) = &mut ops[(round + k) % n] {
                enc.sample();
                dec.sample();
            }
        }
    }
    ops.iter_mut()
        .map(|op| match op {
            Some((enc, dec)) => Times { encode: enc.median(), decode: dec.median() },
            None => Times::default(),
        })
        .collect()
}
