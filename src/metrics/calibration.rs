//! Brier score and expected calibration error.

/// Brier = (1/N) Σ (p_i − o_i)²; `None` with no confidence.
///
/// ```
/// // (1 − 0.75)² and (0.25 − 0)², averaged.
/// assert_eq!(goldgate::metrics::brier(&[0.75, 0.25], &[true, false]), Some(0.0625));
/// ```
pub fn brier(p: &[f64], o: &[bool]) -> Option<f64> {
    if p.is_empty() {
        return None;
    }
    let sum: f64 = p
        .iter()
        .zip(o)
        .map(|(p, &o)| (p - f64::from(u8::from(o))).powi(2))
        .sum();
    Some(sum / p.len() as f64)
}

/// ECE over `bins` uniform bins, binned as scikit-learn's `calibration_curve(strategy="uniform")`:
/// edges e_k = k · (1/M), a confidence goes to bin #{k ∈ 1..M−1 : e_k < p}.
///
/// ```
/// // 0.6 sits on the third edge (0.6000000000000001) and so falls in the lower bin with 0.5.
/// let ece = goldgate::metrics::ece(&[0.5, 0.6], &[true, false], 5).unwrap();
/// assert_eq!(ece, (0.55f64 - 0.5).abs());
/// ```
pub fn ece(p: &[f64], o: &[bool], bins: u32) -> Option<f64> {
    if p.is_empty() || bins == 0 {
        return None;
    }
    let n = p.len() as f64;
    let contribution = |count: usize, conf: f64, acc: f64| {
        let nb = count as f64;
        (nb / n) * (acc / nb - conf / nb).abs()
    };
    // (count, Σp, Σo) per bin, summed in input order within a bin and bins in ascending order,
    // as the reference does. Few bins: a table; many: only the non-empty ones, sorted.
    let ece = if bins <= 4096 {
        let mut table = vec![(0usize, 0.0f64, 0.0f64); bins as usize];
        for (&p, &o) in p.iter().zip(o) {
            let slot = &mut table[bin_of(p, bins) as usize];
            *slot = (slot.0 + 1, slot.1 + p, slot.2 + f64::from(u8::from(o)));
        }
        table
            .iter()
            .filter(|b| b.0 > 0)
            .map(|&(c, conf, acc)| contribution(c, conf, acc))
            .sum()
    } else {
        sorted_into_bins(p, o, bins)
            .chunk_by(|a, b| a.0 == b.0)
            .map(|bin| {
                let conf: f64 = bin.iter().map(|&(_, p, _)| p).sum();
                let acc: f64 = bin.iter().map(|&(_, _, o)| f64::from(u8::from(o))).sum();
                contribution(bin.len(), conf, acc)
            })
            .sum()
    };
    Some(ece)
}

/// One bin of a reliability diagram.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Bin {
    /// Lower edge (excluded, but for the first bin).
    pub lower: f64,
    /// Upper edge (included).
    pub upper: f64,
    /// Confidences in the bin.
    pub count: usize,
    /// Their mean.
    pub confidence: f64,
    /// The share of them that were correct.
    pub accuracy: f64,
}

/// The non-empty bins of a reliability diagram, binned as [`ece`] bins them; ECE is
/// Σ count / N · |accuracy − confidence| over them.
///
/// ```
/// use goldgate::metrics::{Bin, calibration_bins};
/// let bins = calibration_bins(&[0.875, 0.9375, 0.125], &[true, false, false], 5);
/// assert_eq!(bins.len(), 2);
/// assert_eq!((bins[0].lower, bins[0].upper, bins[0].count, bins[0].accuracy), (0.0, 0.2, 1, 0.0));
/// assert_eq!((bins[1].upper, bins[1].count, bins[1].confidence, bins[1].accuracy), (1.0, 2, 0.90625, 0.5));
/// ```
pub fn calibration_bins(p: &[f64], o: &[bool], bins: u32) -> Vec<Bin> {
    if p.is_empty() || bins == 0 {
        return Vec::new();
    }
    let width = 1.0 / f64::from(bins);
    sorted_into_bins(p, o, bins)
        .chunk_by(|a, b| a.0 == b.0)
        .map(|bin| {
            let k = bin[0].0;
            let count = bin.len();
            let confidence: f64 = bin.iter().map(|&(_, p, _)| p).sum();
            let correct = bin.iter().filter(|&&(_, _, o)| o).count();
            Bin {
                lower: k as f64 * width,
                upper: if k + 1 == u64::from(bins) {
                    1.0
                } else {
                    (k + 1) as f64 * width
                },
                count,
                confidence: confidence / count as f64,
                accuracy: correct as f64 / count as f64,
            }
        })
        .collect()
}

/// Confidences pooled one at a time, for a run's many cases: [`brier`], [`ece`] and
/// [`calibration_bins`] of every confidence added, in the order added, to the last bit (each bin
/// sums its members in input order, as they do), without keeping the confidences.
///
/// ```
/// use goldgate::metrics::{Pooled, brier, ece};
/// let (p, o) = ([0.5, 0.6, 0.9], [true, false, true]);
/// let mut pooled = Pooled::new(5);
/// for (&p, &o) in p.iter().zip(&o) {
///     pooled.add(p, o);
/// }
/// assert_eq!((pooled.brier(), pooled.ece()), (brier(&p, &o), ece(&p, &o, 5)));
/// ```
#[derive(Debug, Clone)]
pub struct Pooled {
    bins: u32,
    count: usize,
    squared_errors: f64,
    /// (count, Σp, Σo) of each non-empty bin.
    by_bin: std::collections::BTreeMap<u64, (usize, f64, f64)>,
}

impl Pooled {
    /// Nothing pooled yet, over `bins` uniform bins.
    pub fn new(bins: u32) -> Pooled {
        Pooled {
            bins,
            count: 0,
            squared_errors: 0.0,
            by_bin: std::collections::BTreeMap::new(),
        }
    }

    /// Adds a confidence and whether its field was right.
    pub fn add(&mut self, p: f64, o: bool) {
        let o = f64::from(u8::from(o));
        self.count += 1;
        self.squared_errors += (p - o).powi(2);
        if self.bins > 0 {
            let slot = self.by_bin.entry(bin_of(p, self.bins)).or_default();
            *slot = (slot.0 + 1, slot.1 + p, slot.2 + o);
        }
    }

    /// As [`brier`].
    pub fn brier(&self) -> Option<f64> {
        (self.count > 0).then(|| self.squared_errors / self.count as f64)
    }

    /// As [`ece`].
    pub fn ece(&self) -> Option<f64> {
        if self.count == 0 || self.bins == 0 {
            return None;
        }
        let n = self.count as f64;
        Some(
            self.by_bin
                .values()
                .map(|&(count, conf, acc)| {
                    let nb = count as f64;
                    (nb / n) * (acc / nb - conf / nb).abs()
                })
                .sum(),
        )
    }

    /// As [`calibration_bins`].
    pub fn bins(&self) -> Vec<Bin> {
        let width = 1.0 / f64::from(self.bins);
        self.by_bin
            .iter()
            .map(|(&k, &(count, conf, acc))| Bin {
                lower: k as f64 * width,
                upper: if k + 1 == u64::from(self.bins) {
                    1.0
                } else {
                    (k + 1) as f64 * width
                },
                count,
                confidence: conf / count as f64,
                accuracy: acc / count as f64,
            })
            .collect()
    }
}

/// #{k ∈ 1..M−1 : k · (1/M) < p}, in constant time: a first guess from p · M, then corrected
/// against the edges exactly as numpy computes them.
fn bin_of(p: f64, bins: u32) -> u64 {
    let m = u64::from(bins);
    let width = 1.0 / f64::from(bins);
    let edge = |k: u64| k as f64 * width;
    let mut bin = ((p * m as f64).floor().max(0.0) as u64).min(m - 1);
    while bin >= 1 && edge(bin) >= p {
        bin -= 1;
    }
    while bin + 1 < m && edge(bin + 1) < p {
        bin += 1;
    }
    bin
}

/// Each prediction with its bin, sorted by bin: the bins' members side by side.
fn sorted_into_bins(p: &[f64], o: &[bool], bins: u32) -> Vec<(u64, f64, bool)> {
    let mut binned: Vec<(u64, f64, bool)> = p
        .iter()
        .zip(o)
        .map(|(&p, &o)| (bin_of(p, bins), p, o))
        .collect();
    binned.sort_by_key(|&(bin, _, _)| bin);
    binned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_follow_the_edges_exactly() {
        // For M = 5 the third edge is 0.6000000000000001: 0.6 stays in bin 2.
        let got: Vec<u64> = [
            0.0,
            0.2,
            0.2000001,
            0.4,
            0.6,
            0.6000000000000001,
            0.61,
            0.8,
            1.0,
        ]
        .iter()
        .map(|&p| bin_of(p, 5))
        .collect();
        assert_eq!(got, [0, 0, 1, 1, 2, 2, 3, 3, 4]);
        for m in [1, 3, 7, 10, 15, 1000] {
            for i in 0..=1000 {
                let p = i as f64 / 1000.0;
                let slow = (1..m).filter(|&k| k as f64 * (1.0 / m as f64) < p).count() as u64;
                assert_eq!(bin_of(p, m as u32), slow, "p = {p}, M = {m}");
            }
        }
    }

    #[test]
    fn a_huge_number_of_bins_is_cheap() {
        let ece = ece(&[0.5, 0.25], &[true, false], u32::MAX).unwrap();
        assert!((ece - (0.5 * 0.5 + 0.5 * 0.25)).abs() < 1e-15);
    }

    #[test]
    fn pooled_equals_the_slices_to_the_last_bit() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for bins in [1, 5, 10, 15, 4096, 5000] {
            let (mut p, mut o) = (Vec::new(), Vec::new());
            let mut pooled = Pooled::new(bins);
            for i in 0..20_000 {
                // Values on the edges too (k / M), and plain random ones.
                let x = if i % 7 == 0 {
                    (next() % u64::from(bins + 1)) as f64 / f64::from(bins)
                } else {
                    (next() >> 11) as f64 / (1u64 << 53) as f64
                };
                let right = next() % 3 != 0;
                p.push(x);
                o.push(right);
                pooled.add(x, right);
            }
            assert_eq!(
                pooled.brier().map(f64::to_bits),
                brier(&p, &o).map(f64::to_bits)
            );
            assert_eq!(
                pooled.ece().map(f64::to_bits),
                ece(&p, &o, bins).map(f64::to_bits),
                "{bins}"
            );
            assert_eq!(pooled.bins(), calibration_bins(&p, &o, bins), "{bins}");
        }
        assert_eq!(
            (Pooled::new(10).brier(), Pooled::new(10).ece()),
            (None, None)
        );
        assert!(Pooled::new(10).bins().is_empty());
    }
}
