//! Agreement between goldgate's verdicts and people's: on yes/no verdicts, raw
//! agreement, Cohen's κ, balanced F1 and the confusion matrix; on grades against scores,
//! Spearman's ρ, Kendall's τ-b and Pearson's r; and McNemar's exact test, for pipelines compared
//! on pass/fail (§13). Each as scikit-learn, scipy or statsmodels computes it, `None` where they
//! give NaN (no variation to measure).

/// The confusion matrix of a person's verdicts (truth) against goldgate's (prediction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Confusion {
    /// Both say it holds.
    pub both_held: usize,
    /// The person says it holds, goldgate that it failed.
    pub person_held_goldgate_failed: usize,
    /// The person says it failed, goldgate that it holds.
    pub person_failed_goldgate_held: usize,
    /// Both say it failed.
    pub both_failed: usize,
}

impl Confusion {
    /// The matrix of (person, goldgate) verdict pairs.
    pub fn of(pairs: &[(bool, bool)]) -> Confusion {
        let mut c = Confusion::default();
        for &(person, goldgate) in pairs {
            match (person, goldgate) {
                (true, true) => c.both_held += 1,
                (true, false) => c.person_held_goldgate_failed += 1,
                (false, true) => c.person_failed_goldgate_held += 1,
                (false, false) => c.both_failed += 1,
            }
        }
        c
    }

    /// Pairs counted.
    pub fn n(&self) -> usize {
        self.both_held
            + self.person_held_goldgate_failed
            + self.person_failed_goldgate_held
            + self.both_failed
    }

    /// The share of pairs on which both agree.
    pub fn agreement(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.both_held + self.both_failed) as f64 / n as f64)
    }

    /// Cohen's κ (scikit-learn's `cohen_kappa_score`): agreement beyond chance; `None` when
    /// chance alone explains every pair (both raters gave one same answer throughout).
    pub fn kappa(&self) -> Option<f64> {
        let n = self.n() as f64;
        if n == 0.0 {
            return None;
        }
        let person_held = (self.both_held + self.person_held_goldgate_failed) as f64;
        let goldgate_held = (self.both_held + self.person_failed_goldgate_held) as f64;
        let (person_failed, goldgate_failed) = (n - person_held, n - goldgate_held);
        // As scikit-learn: 1 − Σ w·observed / Σ w·expected, w = 1 off the diagonal.
        let observed =
            (self.person_held_goldgate_failed + self.person_failed_goldgate_held) as f64 / n;
        let expected = (person_held * goldgate_failed + person_failed * goldgate_held) / (n * n);
        (expected > 0.0).then(|| 1.0 - observed / expected)
    }

    /// Balanced F1: the mean of the F1 of "held" and of "failed" (scikit-learn's
    /// `f1_score(average="macro")`), over the answers either side gave; an F1 with nothing to
    /// measure counts 0, as scikit-learn's default.
    pub fn balanced_f1(&self) -> Option<f64> {
        if self.n() == 0 {
            return None;
        }
        let f1 = |tp: usize, fp: usize, fn_: usize| {
            let d = 2 * tp + fp + fn_;
            if d == 0 {
                0.0
            } else {
                2.0 * tp as f64 / d as f64
            }
        };
        let held_present =
            self.both_held + self.person_held_goldgate_failed + self.person_failed_goldgate_held
                > 0;
        let failed_present =
            self.both_failed + self.person_held_goldgate_failed + self.person_failed_goldgate_held
                > 0;
        let mut scores = Vec::new();
        if held_present {
            scores.push(f1(
                self.both_held,
                self.person_failed_goldgate_held,
                self.person_held_goldgate_failed,
            ));
        }
        if failed_present {
            scores.push(f1(
                self.both_failed,
                self.person_held_goldgate_failed,
                self.person_failed_goldgate_held,
            ));
        }
        Some(scores.iter().sum::<f64>() / scores.len() as f64)
    }
}

/// Pearson's r (scipy's `pearsonr`); `None` for fewer than two pairs or no variation.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || n != y.len() {
        return None;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let my = y.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

/// Ranks from 1, ties given their average rank.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut out = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's ρ (scipy's `spearmanr`): Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

/// Kendall's τ-b (scipy's `kendalltau`, its default variant): concordant minus discordant pairs
/// over the geometric mean of the pairs untied in each variable.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n < 2 || n != y.len() {
        return None;
    }
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            // `partial_cmp`, as `ranks` compares: -0.0 ties 0.0 (grades and scores are never NaN).
            let order = |a: f64, b: f64| a.partial_cmp(&b).map_or(0, |o| o as i64);
            let (dx, dy) = (order(x[i], x[j]), order(y[i], y[j]));
            match (dx, dy) {
                (0, 0) => {}
                (0, _) => tied_x += 1,
                (_, 0) => tied_y += 1,
                _ if dx == dy => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    let untied_x = (concordant + discordant + tied_y) as f64;
    let untied_y = (concordant + discordant + tied_x) as f64;
    if untied_x == 0.0 || untied_y == 0.0 {
        return None;
    }
    Some(((concordant - discordant) as f64 / (untied_x * untied_y).sqrt()).clamp(-1.0, 1.0))
}

/// The exact two-sided McNemar p-value: 2 × P(X ≤ min(b, c)) for X ~ Binomial(b + c, ½),
/// at most 1; 1 without discordant pairs.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k_max = b.min(c);
    let cdf = if n <= 1000 {
        // C(n, k) / 2^n term by term from 2^-n, which is exact: small counts get exact values.
        let mut term = 0.5f64.powi(n as i32);
        let mut cdf = 0.0;
        for k in 0..=k_max {
            cdf += term;
            term = term * (n - k) as f64 / (k + 1) as f64;
        }
        cdf
    } else {
        // In logarithms beyond, where 2^-n underflows.
        let mut log_term = -(n as f64) * std::f64::consts::LN_2;
        let mut cdf = 0.0;
        for k in 0..=k_max {
            cdf += log_term.exp();
            log_term += ((n - k) as f64).ln() - ((k + 1) as f64).ln();
        }
        cdf
    };
    (2.0 * cdf).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcnemar_is_the_exact_binomial_test_on_the_discordant_pairs() {
        // statsmodels.stats.contingency_tables.mcnemar([[a, 1], [6, d]], exact=True).pvalue
        assert_eq!(mcnemar_exact(1, 6), 0.125);
        assert_eq!(mcnemar_exact(6, 1), 0.125);
        // 2 × (1 + 10 + 45) / 1024
        assert_eq!(mcnemar_exact(2, 8), 0.109375);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // 2 / 2^10
        assert_eq!(mcnemar_exact(0, 10), 0.001953125);
        // Large counts do not underflow to 0 or overflow: 2 × P(X ≤ 450), X ~ B(1000, ½).
        // Python: 2 * sum(comb(1000, k) for k in range(451)) / 2**1000
        let p = mcnemar_exact(450, 550);
        assert!((p / 0.0017305360849763176 - 1.0).abs() < 1e-12, "{p}");
        // Beyond 1,000 pairs, in logarithms: 2 * sum(comb(2200, k) for k in range(1001)) / 2**2200
        let far = mcnemar_exact(1000, 1200);
        assert!((far / 2.1817026407914712e-05 - 1.0).abs() < 1e-9, "{far}");
    }
}
