//! The assignment solver of munkres 1.1.4, step for step, for the `anls_star` profile.
//!
//! Among matchings of equal total cost the package picks one by the order of its steps, and that
//! choice changes ANLS* scores (the score is not the matching's cost), so the steps are kept as
//! they are: rows reduced only, padding with cost 0, the last free zero of a row, restarts after
//! each adjustment.

use super::effort;

/// munkres 1.1.4 on `make_cost_matrix(profit)`: the same steps in the same order with the same
/// float arithmetic, so that among assignments of equal cost it picks the one the package picks.
/// Returns (row, column) pairs in row order. Polynomial (O(n⁴) at worst, like munkres itself).
pub(crate) fn munkres_max(profit: &[Vec<f64>]) -> Vec<(usize, usize)> {
    let rows = profit.len();
    let cols = profit.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    let maximum = profit
        .iter()
        .flatten()
        .fold(f64::NEG_INFINITY, |m, &v| if v > m { v } else { m });
    let n = rows.max(cols);
    // Padded with cost 0, as `pad_matrix` does.
    let mut cost = vec![0.0; n * n];
    for (i, row) in profit.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            cost[i * n + j] = maximum - v;
        }
    }
    let mut m = Munkres {
        n,
        cost,
        marked: vec![Mark::None; n * n],
        row_covered: vec![false; n],
        col_covered: vec![false; n],
    };
    effort::spend((n * n) as u64);
    m.solve();
    let mut out = Vec::with_capacity(rows.min(cols));
    for i in 0..rows {
        for j in 0..cols {
            if m.marked[i * n + j] == Mark::Star {
                out.push((i, j));
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    None,
    Star,
    Prime,
}

struct Munkres {
    n: usize,
    cost: Vec<f64>,
    marked: Vec<Mark>,
    row_covered: Vec<bool>,
    col_covered: Vec<bool>,
}

impl Munkres {
    fn solve(&mut self) {
        let n = self.n;
        // Step 1: subtract each row's minimum (no column reduction).
        for i in 0..n {
            let row = &mut self.cost[i * n..(i + 1) * n];
            let min = row
                .iter()
                .fold(f64::INFINITY, |m, &v| if v < m { v } else { m });
            row.iter_mut().for_each(|v| *v -= min);
        }
        // Step 2: star the first free zero of each row.
        for i in 0..n {
            for j in 0..n {
                if self.cost[i * n + j] == 0.0 && !self.col_covered[j] && !self.row_covered[i] {
                    self.marked[i * n + j] = Mark::Star;
                    self.col_covered[j] = true;
                    self.row_covered[i] = true;
                    break;
                }
            }
        }
        self.clear_covers();
        // Step 3, then steps 4-6 until every column holds a star.
        while self.cover_starred_columns() < n {
            // Out of steps: stop; the caller throws the assignment away.
            let Some((row, col)) = self.prime_until_augmenting() else {
                return;
            };
            self.augment(row, col);
        }
    }

    fn cover_starred_columns(&mut self) -> usize {
        let n = self.n;
        let mut count = 0;
        for i in 0..n {
            for j in 0..n {
                if self.marked[i * n + j] == Mark::Star && !self.col_covered[j] {
                    self.col_covered[j] = true;
                    count += 1;
                }
            }
        }
        count
    }

    /// Steps 4 and 6: prime uncovered zeros until one has no star in its row.
    fn prime_until_augmenting(&mut self) -> Option<(usize, usize)> {
        let n = self.n;
        let (mut row, mut col) = (0, 0);
        loop {
            if effort::exhausted() {
                return None;
            }
            match self.find_a_zero(row, col) {
                Some((r, c)) => {
                    self.marked[r * n + c] = Mark::Prime;
                    match self.find_in_row(r, Mark::Star) {
                        Some(star_col) => {
                            // The next scan starts at this row and the star's column.
                            (row, col) = (r, star_col);
                            self.row_covered[r] = true;
                            self.col_covered[star_col] = false;
                        }
                        None => return Some((r, c)),
                    }
                }
                None => {
                    // Step 6 hands back to a fresh step 4, which scans from (0, 0) again.
                    self.adjust();
                    (row, col) = (0, 0);
                }
            }
        }
    }

    /// munkres' `__find_a_zero`: rows from `i0` round, each row scanned from `j0` round, and the
    /// scan does not stop at a hit, so it returns the last uncovered zero of the first row with one.
    fn find_a_zero(&self, i0: usize, j0: usize) -> Option<(usize, usize)> {
        let n = self.n;
        let mut i = i0;
        loop {
            if !self.row_covered[i] {
                effort::spend(n as u64);
                let mut hit = None;
                let mut j = j0;
                loop {
                    if self.cost[i * n + j] == 0.0 && !self.col_covered[j] {
                        hit = Some(j);
                    }
                    j = (j + 1) % n;
                    if j == j0 {
                        break;
                    }
                }
                if let Some(j) = hit {
                    return Some((i, j));
                }
            }
            i = (i + 1) % n;
            if i == i0 {
                return None;
            }
        }
    }

    /// Step 6: add the smallest uncovered value to covered rows, subtract it from uncovered
    /// columns, in that order (both for a covered row's uncovered cell, as munkres does).
    fn adjust(&mut self) {
        let n = self.n;
        effort::spend(2 * (n * n) as u64);
        let mut min = f64::INFINITY;
        for i in (0..n).filter(|&i| !self.row_covered[i]) {
            for j in (0..n).filter(|&j| !self.col_covered[j]) {
                let v = self.cost[i * n + j];
                if min > v {
                    min = v;
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                let v = &mut self.cost[i * n + j];
                if self.row_covered[i] {
                    *v += min;
                }
                if !self.col_covered[j] {
                    *v -= min;
                }
            }
        }
    }

    /// Step 5: flip the alternating path of primes and stars that starts at (row, col).
    fn augment(&mut self, row: usize, col: usize) {
        let n = self.n;
        let mut path = vec![(row, col)];
        let mut col = col;
        while let Some(star_row) = self.find_in_col(col, Mark::Star) {
            path.push((star_row, col));
            // A starred zero on the path always has a prime in its row.
            col = self.find_in_row(star_row, Mark::Prime).unwrap_or(col);
            path.push((star_row, col));
        }
        for (r, c) in path {
            let mark = &mut self.marked[r * n + c];
            *mark = if *mark == Mark::Star {
                Mark::None
            } else {
                Mark::Star
            };
        }
        self.clear_covers();
        self.marked
            .iter_mut()
            .filter(|m| **m == Mark::Prime)
            .for_each(|m| *m = Mark::None);
    }

    fn find_in_row(&self, row: usize, mark: Mark) -> Option<usize> {
        (0..self.n).find(|&j| self.marked[row * self.n + j] == mark)
    }

    fn find_in_col(&self, col: usize, mark: Mark) -> Option<usize> {
        (0..self.n).find(|&i| self.marked[i * self.n + col] == mark)
    }

    fn clear_covers(&mut self) {
        self.row_covered.fill(false);
        self.col_covered.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The best total profit over every assignment of min(rows, cols) pairs, by brute force.
    fn best_total(profit: &[Vec<f64>]) -> f64 {
        fn go(profit: &[Vec<f64>], row: usize, used: &mut Vec<bool>, left: usize) -> f64 {
            if left == 0 || row == profit.len() {
                return if left == 0 { 0.0 } else { f64::NEG_INFINITY };
            }
            // Row `row` unassigned (when rows outnumber columns), or given a free column.
            let mut best = if profit.len() - row > left {
                go(profit, row + 1, used, left)
            } else {
                f64::NEG_INFINITY
            };
            for j in 0..used.len() {
                if !used[j] {
                    used[j] = true;
                    best = best.max(profit[row][j] + go(profit, row + 1, used, left - 1));
                    used[j] = false;
                }
            }
            best
        }
        let cols = profit[0].len();
        go(profit, 0, &mut vec![false; cols], profit.len().min(cols))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3_000))]

        /// munkres' steps find an assignment as good as the best of all, for lists of up to six
        /// items a side, profits drawn from a few values so that ties are common.
        #[test]
        fn the_assignment_is_as_good_as_the_best_found_by_brute_force(
            profit in (1usize..=6, 1usize..=6).prop_flat_map(|(r, c)| {
                prop::collection::vec(
                    prop::collection::vec(prop::sample::select(vec![0.0, 0.25, 0.5, 0.8, 1.0]), c),
                    r,
                )
            })
        ) {
            let assignment = munkres_max(&profit);
            let rows = profit.len();
            let cols = profit[0].len();
            prop_assert_eq!(assignment.len(), rows.min(cols));
            let mut seen_rows = vec![false; rows];
            let mut seen_cols = vec![false; cols];
            for &(i, j) in &assignment {
                prop_assert!(!seen_rows[i] && !seen_cols[j], "{:?}", assignment);
                seen_rows[i] = true;
                seen_cols[j] = true;
            }
            let total: f64 = assignment.iter().map(|&(i, j)| profit[i][j]).sum();
            prop_assert!((total - best_total(&profit)).abs() < 1e-9, "{total} for {:?}", profit);
        }
    }
}
