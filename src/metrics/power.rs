//! How large a drop a gold set can detect: the normal distribution (its CDF and quantile, to
//! double precision) and the smallest mean drop a paired gate detects at a given power.
//!
//! The gate fails when the mean paired drop is at least `min_effect` and the interval of the
//! difference at `confidence` lies wholly below zero. With `n` cases whose differences have
//! standard deviation `sd`, the mean difference is close to normal with standard error
//! `se = sd / √n`, and the gate fires when it falls below `−max(min_effect, z·se)`, `z` the
//! normal quantile at `1 − (1 − confidence)/2`. A true drop `δ` fires it with probability
//! `Φ((δ − max(min_effect, z·se)) / se)`; the smallest `δ` detected with probability `power` is
//! `max(min_effect, z·se) + z_power·se`. When `min_effect` is under `z·se` this is
//! `(z + z_power)·se`: statsmodels' `NormalIndPower(ratio=0)` one-sided at `(1 − confidence)/2`
//! times `sd` (the reference of `tests/reference/power.py`).

/// The standard normal CDF, Φ(x), to about 1e-15 absolute (Marsaglia 2004, "Evaluating the
/// normal distribution": a Taylor series of positive terms, with no cancellation).
pub fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < -38.0 {
        return 0.0;
    }
    if x > 38.0 {
        return 1.0;
    }
    if x.abs() > 7.0 {
        // The series needs many terms out here; the tail's asymptotic expansion is exact to
        // double precision beyond 7.
        let tail = normal_tail(x.abs());
        return if x > 0.0 { 1.0 - tail } else { tail };
    }
    let q = x * x;
    let (mut s, mut t, mut b, mut i) = (x, 0.0, x, 1.0);
    while s != t {
        t = s;
        i += 2.0;
        b *= q / i;
        s = t + b;
    }
    0.5 + s * (-0.5 * q - LN_SQRT_2PI).exp()
}

/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// 1 − Φ(x) for x > 7, by the asymptotic series of Mills' ratio.
fn normal_tail(x: f64) -> f64 {
    let density = (-0.5 * x * x - LN_SQRT_2PI).exp();
    let q = 1.0 / (x * x);
    let (mut sum, mut term) = (1.0, 1.0);
    for k in 1..12 {
        term *= -((2 * k - 1) as f64) * q;
        sum += term;
    }
    density / x * sum
}

/// The standard normal density.
fn normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x - LN_SQRT_2PI).exp()
}

/// The standard normal quantile, Φ⁻¹(p), for p in (0, 1): Acklam's rational approximation,
/// refined by Newton steps on [`normal_cdf`] to double precision.
pub fn normal_quantile(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return if p == 0.0 {
            f64::NEG_INFINITY
        } else if p == 1.0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let mut x = if p < 0.024_25 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.024_25 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    for _ in 0..3 {
        let step = (normal_cdf(x) - p) / normal_pdf(x);
        if !step.is_finite() {
            break;
        }
        x -= step;
    }
    x
}

/// The sample standard deviation (n − 1 in the denominator); `None` under two values.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Some((ss / (n - 1) as f64).sqrt())
}

/// The smallest true mean drop the gate detects with probability `power`, over `n` paired
/// cases whose differences have standard deviation `sd` (see the module's doc).
pub fn detectable_drop(n: usize, sd: f64, confidence: f64, min_effect: f64, power: f64) -> f64 {
    let se = sd / (n as f64).sqrt();
    let z = normal_quantile(1.0 - (1.0 - confidence) / 2.0);
    min_effect.max(z * se) + normal_quantile(power) * se
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_normal_distribution_is_exact_to_double_precision() {
        // scipy.stats.norm.cdf and norm.ppf.
        for (x, cdf) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746_068_542_9),
            (-1.959_963_984_540_054, 0.025),
            (3.0, 0.998_650_101_968_369_9),
            (-8.0, 6.220_960_574_271_74e-16),
        ] {
            assert!(
                (normal_cdf(x) - cdf).abs() < 1e-15,
                "{x}: {}",
                normal_cdf(x)
            );
        }
        for (p, z) in [
            (0.975, 1.959_963_984_540_054),
            (0.8, 0.841_621_233_572_914_3),
            (0.5, 0.0),
            (0.995, 2.575_829_303_548_900_4),
            (0.01, -2.326_347_874_040_841),
        ] {
            assert!(
                (normal_quantile(p) - z).abs() < 1e-13,
                "{p}: {}",
                normal_quantile(p)
            );
        }
    }

    #[test]
    fn min_effect_above_the_noise_adds_to_the_drop() {
        // With no noise beyond min_effect, the drop is min_effect plus z_0.8 standard errors.
        let (n, sd) = (100, 0.1);
        let se = 0.01;
        let d = detectable_drop(n, sd, 0.95, 0.05, 0.8);
        assert!((d - (0.05 + 0.841_621_233_572_914_3 * se)).abs() < 1e-15);
        let d = detectable_drop(n, sd, 0.95, 0.0, 0.8);
        assert!((d - (1.959_963_984_540_054 + 0.841_621_233_572_914_3) * se).abs() < 1e-15);
    }
}
