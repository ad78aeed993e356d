//! A count of the work scoring does, in steps (a word of a bit-parallel Levenshtein, a cell the
//! matching scans), so that a caller can bound it the same way on every machine: a clock would
//! pass a case on a fast machine and fail it on a slow one.
//!
//! The count is per thread; outside [`within`] nothing is counted against a bound, so the public
//! metrics cost what they cost.

use std::cell::Cell;

thread_local! {
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// The work was cut off: the result computed meanwhile is not to be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exceeded;

/// Runs `f` with `limit` steps to spend; `Err` when it needed more (its result is then thrown
/// away, as the metrics stop early and give meaningless numbers once the steps run out).
pub(crate) fn within<T>(limit: u64, f: impl FnOnce() -> T) -> Result<T, Exceeded> {
    let outer = LEFT.replace(limit);
    let out = f();
    let left = LEFT.get();
    // The inner work is charged to the outer count too, so nesting never escapes a bound.
    LEFT.set(outer.saturating_sub(limit - left));
    if left == 0 { Err(Exceeded) } else { Ok(out) }
}

/// Spends `steps`; false once the budget is spent, so that a loop can stop.
pub(crate) fn spend(steps: u64) -> bool {
    LEFT.with(|left| match left.get().checked_sub(steps) {
        Some(rest) if rest > 0 => {
            left.set(rest);
            true
        }
        _ => {
            left.set(0);
            false
        }
    })
}

/// Whether the budget is spent.
pub(crate) fn exhausted() -> bool {
    LEFT.with(|left| left.get() == 0)
}

/// What a Levenshtein distance of texts this long costs: one step per 64 characters of the
/// shorter per character of the longer (the bit-parallel algorithm's words), at least one.
pub(crate) fn levenshtein_steps(a: usize, b: usize) -> u64 {
    let (short, long) = (a.min(b) as u64, a.max(b) as u64);
    1 + short.div_ceil(64) * long
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_beyond_the_limit_is_refused_and_the_outer_count_comes_back() {
        assert_eq!(within(10, || spend(9)), Ok(true));
        assert_eq!(within(10, || spend(10)), Err(Exceeded));
        assert_eq!(
            within(10, || {
                let first = spend(20);
                (first, exhausted(), spend(1))
            }),
            Err(Exceeded)
        );
        // Nothing is counted outside `within`.
        assert!(spend(u64::MAX / 2) && !exhausted());
        // Nested, the inner work counts against the outer bound.
        let nested = |then: u64| {
            within(100, || {
                let inner = within(80, || spend(70));
                (inner, spend(then))
            })
        };
        assert_eq!(nested(25), Ok((Ok(true), true)));
        assert_eq!(nested(35), Err(Exceeded));
    }
}
