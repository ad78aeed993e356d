//! Brier score and expected calibration error (SPEC §4.4).

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
    let m = bins as usize;
    let width = 1.0 / bins as f64;
    let mut count = vec![0usize; m];
    let mut conf = vec![0.0f64; m];
    let mut acc = vec![0.0f64; m];
    for (&p, &o) in p.iter().zip(o) {
        let bin = (1..m).filter(|&k| k as f64 * width < p).count();
        count[bin] += 1;
        conf[bin] += p;
        acc[bin] += f64::from(u8::from(o));
    }
    let n = p.len() as f64;
    let ece = (0..m)
        .filter(|&b| count[b] > 0)
        .map(|b| {
            let nb = count[b] as f64;
            (nb / n) * (acc[b] / nb - conf[b] / nb).abs()
        })
        .sum();
    Some(ece)
}
