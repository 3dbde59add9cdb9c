//! What a short integer list (a small column's values, or the lengths,
//! shared prefixes and dictionary indices of a small string column) skips
//! of the planner's set-up for long ones; the plan is the same.
//!
//! - A list shorter than the file-only encodings' least length (`04` and
//!   `05`, SPEC.md §22.2) is not offered to them: each would ask the
//!   thread's state (a thread-local read through the dynamic linker in the
//!   Python extension) only to find the list too short.
//! - A list of a few values below 2^15 is gathered in the scalar 64-bit
//!   pass ([`super::plan_u63`]) rather than in 16-bit lanes: the lanes take
//!   eight values a step and each value past the whole steps a step of its
//!   own, so that a list of a dozen values takes about as many steps as
//!   values. Both passes gather the same smallest and largest value and
//!   difference and the same runs (tested against each other).

/// The shortest list the file-only encodings take (`entropy.rs` and
/// `runs.rs`: `MIN_VALUES`; the tests check that neither takes a list
/// shorter than this, with the file writer's switch on).
const FILE_ONLY_LEAST: usize = 1024;

/// Lists of at most this many values below 2^15 take the scalar pass.
const SCALAR_MAX: usize = 24;

/// Whether a list of `n` values is too short for the file-only encodings.
#[inline]
pub(super) fn below_file_encodings(n: usize) -> bool {
    n < FILE_ONLY_LEAST
}

/// Whether a list of `n` values below 2^15 takes the scalar pass.
#[inline]
pub(super) fn scalar(n: usize) -> bool {
    n <= SCALAR_MAX
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::{lanes, plan, plan_gathered, plan_u63, plan_wide, Int, Plan, Planned, Stats};
    use super::*;

    /// A plan's fields, to compare.
    fn fields(p: &Plan) -> (usize, u8, u128, u8, u128, u8) {
        (p.size, p.enc.byte(), p.min, p.width, p.delta_min, p.delta_width)
    }

    /// `plan` of `values` agrees with the u128 reference, and (for values
    /// below 2^15) the scalar pass with both lane passes.
    fn agrees<T: Int + std::fmt::Debug>(values: &[T]) {
        let first = values[0].wide();
        let planned = fields(&plan(values));
        assert_eq!(planned, fields(&plan_wide(values, first)), "{values:?}");
        if T::all(values) >> 15 == 0 && values.len() >= 2 {
            let scalar = fields(&plan_u63(values, first as u64));
            assert_eq!(planned, scalar, "{values:?}");
            let lanes = plan_gathered(values, first as u64, lanes::pass_u15::<false, _>(values));
            assert_eq!(scalar, fields(&lanes), "{values:?}");
            let lanes = plan_gathered(values, first as u64, lanes::pass_u15::<true, _>(values));
            assert_eq!(scalar, fields(&lanes), "{values:?}");
        }
    }

    /// Short lists of the shapes columns take: constants, zeros and ones,
    /// runs, counts up and down, random values of a few widths, values
    /// about 2^7, 2^14, 2^15, 2^63 and 2^64.
    fn shapes(lens: impl Iterator<Item = usize>) -> Vec<Vec<u128>> {
        let mut next = crate::columnar::lcg(24, 0);
        let mut out = Vec::new();
        for n in lens {
            let edges = [0u128, 1, 127, 128, 16383, 16384, 32767, 32768, (1 << 63) - 1, 1 << 63, u64::MAX.into()];
            for &e in &edges {
                out.push(vec![e; n]);
                out.push((0..n).map(|i| e.wrapping_add(i as u128 % 3)).collect());
                out.push((0..n).map(|i| e.saturating_sub(i as u128)).collect());
            }
            out.push((0..n).map(|i| (i % 2) as u128).collect());
            out.push((0..n).map(|i| u128::from(i % 7 == 0)).collect());
            out.push((0..n).map(|i| (i / 5) as u128).collect());
            out.push((0..n).map(|i| (n - i) as u128 * 1000).collect());
            for bits in [1, 3, 7, 8, 14, 15, 16, 40, 63, 64] {
                let mask = (1u128 << bits) - 1;
                out.push((0..n).map(|_| u128::from(next()) & mask).collect());
                out.push((0..n).map(|_| if next() % 4 == 0 { u128::from(next()) & mask } else { 0 }).collect());
            }
        }
        out
    }

    #[test]
    fn short_lists_plan_as_the_general_planner_does() {
        for values in shapes(1..=2 * SCALAR_MAX) {
            agrees(&values);
            if values.iter().all(|&v| v >> 64 == 0) {
                agrees(&values.iter().map(|&v| v as u64).collect::<Vec<_>>());
            }
            if values.iter().all(|&v| v <= 1) {
                agrees(&values.iter().map(|&v| v as u8).collect::<Vec<_>>());
            }
        }
    }

    /// What a short list's `Planned` skips: the file-only encodings take
    /// none of its lists, even where the file writer enabled them (runs
    /// that would win, and few distinct values), so that `Planned::new` and
    /// `Planned::with_stats` write what they did.
    #[test]
    fn the_file_only_encodings_take_no_short_list() {
        let _on = crate::columnar::EntropyEnabled::new();
        let long = [FILE_ONLY_LEAST - 1, FILE_ONLY_LEAST];
        for values in shapes([1, 2, 17, 300].into_iter().chain(long)) {
            let Some(values) = values.iter().map(|&v| u64::try_from(v).ok()).collect::<Option<Vec<u64>>>() else {
                continue;
            };
            if values.len() < FILE_ONLY_LEAST {
                assert!(crate::columnar::runs::encode(&values, usize::MAX).is_none());
                assert!(crate::columnar::entropy::encode(&values, usize::MAX).is_none());
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Planned::new(&values).write(&mut a);
            let no_runs = Planned::no_runs(&values);
            let runs = crate::columnar::runs::encode(&values, no_runs.size());
            match runs {
                Some(body) => b = body,
                None => no_runs.write(&mut b),
            }
            assert_eq!(a, b, "{values:?}");
        }
        // (At the least length, the runs do win where they should.)
        let runs: Vec<u64> = (0..FILE_ONLY_LEAST as u64).map(|i| i / 64).collect();
        assert!(crate::columnar::runs::encode(&runs, usize::MAX).is_some());
    }

    /// A dictionary's indices, short or not, plan through their stats as
    /// alone.
    #[test]
    fn indices_plan_through_their_stats_as_alone() {
        let _on = crate::columnar::EntropyEnabled::new();
        for values in shapes([1, 2, 9, 17, 24, 25, 300, FILE_ONLY_LEAST - 1].into_iter()) {
            // First-seen order, as a dictionary numbers its values.
            let (ids, distinct) = super::super::tests::first_seen_ids(&values);
            let stats = Stats::of_ids(&ids, distinct);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            Planned::with_stats(&ids, &stats).write(&mut a);
            Planned::new(&ids).write(&mut b);
            assert_eq!(a, b, "{ids:?}");
        }
    }

    proptest! {
        #[test]
        fn any_short_list_plans_as_the_general_planner_does(
            values in prop::collection::vec(prop_oneof![0u64..4, 0u64..200, 0u64..40_000, any::<u64>()], 1..=2 * SCALAR_MAX),
        ) {
            agrees(&values);
            agrees(&values.iter().map(|&v| u128::from(v)).collect::<Vec<_>>());
        }
    }
}
