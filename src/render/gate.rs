//! The regression gate in words: why it failed (the difference, its interval, the cases that
//! dropped most, the command that accepts the new values) and how large a drop it can see.

use crate::record::RegressionGateRecord;

/// A metric as a sentence names it: `0.031 ANLS`.
fn label(metric: &str) -> &str {
    match metric {
        "anls" => "ANLS",
        "exact_match" => "exact match",
        "exact_critical" => "critical exact match",
        "anls_critical" => "critical ANLS",
        "f1" => "F1",
        "brier" => "Brier",
        "ece" => "ECE",
        other => other,
    }
}

/// A share as a percentage without needless digits: `95`, `99.5`.
fn percent(level: f64) -> String {
    let p = format!("{:.1}", level * 100.0);
    p.strip_suffix(".0").map_or(p.clone(), str::to_owned)
}

/// A held gate whose run is better than its baseline beyond doubt (the interval wholly on the
/// better side, by `min_effect` or more): `guided: improved against cases/baseline.json: ANLS
/// rose 0.0450 on average over 4 paired cases (95% interval +0.0200 to +0.0700); bless the new
/// values with: …`, so that a run that got better says so where it ends.
pub fn improvement_line(pipeline: Option<&str>, g: &RegressionGateRecord) -> Option<String> {
    let d = g.difference.as_ref().filter(|_| g.held)?;
    let lower_is_better = matches!(g.metric.as_str(), "brier" | "ece");
    let (gain, beyond) = if lower_is_better {
        (-d.difference, d.high < 0.0)
    } else {
        (d.difference, d.low > 0.0)
    };
    if !(beyond && gain >= g.min_effect) {
        return None;
    }
    let who = pipeline.map(|p| format!("{p}: ")).unwrap_or_default();
    Some(format!(
        "{who}improved against the baseline `{}`: {} {} {:.4} on average over {} paired cases ({}% interval {:+.4} to {:+.4}); bless the new values with: {}",
        g.baseline,
        label(&g.metric),
        if lower_is_better { "fell" } else { "rose" },
        gain,
        d.cases,
        percent(g.confidence),
        d.low,
        d.high,
        g.accept
    ))
}

/// Why the gate failed and where it is written, or `None` when it held.
pub fn gate_failure(g: &RegressionGateRecord) -> Option<String> {
    Some(format!(
        "{}\nat {}:{} (regression_gate)",
        gate_reason(g)?,
        g.file,
        g.line
    ))
}

/// The one line that heads a failed gate (the title of its annotation, its line in the step
/// summary): its first line, shortened to the difference and its interval where it has one.
pub fn gate_headline(g: &RegressionGateRecord) -> Option<String> {
    let reason = gate_reason(g)?;
    Some(match &g.difference {
        Some(d) if g.baseline_error.is_none() && g.lacking.is_empty() => format!(
            "regression gate failed: {} {} {:.4} ({}% interval {:+.4} to {:+.4})",
            label(&g.metric),
            if matches!(g.metric.as_str(), "brier" | "ece") {
                "rose"
            } else {
                "dropped"
            },
            d.difference.abs(),
            percent(g.confidence),
            d.low,
            d.high
        ),
        _ => reason.lines().next().unwrap_or_default().to_owned(),
    })
}

/// Why the gate failed, without where it is written (an annotation is placed there), or `None`
/// when it held.
pub fn gate_reason(g: &RegressionGateRecord) -> Option<String> {
    if g.held {
        return None;
    }
    if let Some(why) = &g.baseline_error {
        return Some(format!(
            "regression gate: {why}\ncreate it with: {}",
            g.accept
        ));
    }
    if let Some(lacking) = lacking_metric(g) {
        return Some(lacking);
    }
    let Some(d) = &g.difference else {
        if g.measured == 0 {
            return Some(format!(
                "regression gate: no case of this run measures `{}`, so the gate compared nothing{}",
                g.metric,
                match g.metric.as_str() {
                    "brier" | "ece" =>
                        ": its predictions give no confidences; gate on a metric the cases measure, such as `metric: anls`",
                    "exact_critical" | "anls_critical" =>
                        ": its cases name no `critical` field; gate on a metric the cases measure, such as `metric: anls`",
                    _ => "; gate on a metric the cases measure, such as `metric: anls`",
                }
            ));
        }
        return Some(format!(
            "regression gate: no case of this run has a `{}` value in the baseline `{}` ({} unpaired), so the gate compared nothing\naccept this run's values with: {}",
            g.metric, g.baseline, g.unpaired, g.accept
        ));
    };
    let lower_is_better = matches!(g.metric.as_str(), "brier" | "ece");
    let moved = if lower_is_better { "rose" } else { "dropped" };
    let mut out = format!(
        "regression against the baseline `{}`: {} {moved} {:.4} on average over {} paired cases ({}% interval of the difference {:+.4} to {:+.4}; the gate fails from a mean drop of {} with an interval wholly {} zero)",
        g.baseline,
        label(&g.metric),
        d.difference.abs(),
        d.cases,
        percent(g.confidence),
        d.low,
        d.high,
        g.min_effect,
        if lower_is_better { "above" } else { "below" },
    );
    if !g.dropped_most.is_empty() {
        let cases: Vec<String> = g
            .dropped_most
            .iter()
            .map(|c| format!("{} {:.4} -> {:.4}", c.test, c.old, c.new))
            .collect();
        out.push_str(&format!("\ncases that dropped most: {}", cases.join(", ")));
    }
    if g.unpaired > 0 {
        let (cases, have) = match g.unpaired {
            1 => ("case", "has"),
            _ => ("cases", "have"),
        };
        out.push_str(&format!(
            "\n{} {cases} of this run {have} no value in the baseline and {} left out",
            g.unpaired,
            if g.unpaired == 1 { "was" } else { "were" }
        ));
    }
    // A drop made by cases that could not be scored is a crash to fix, not values to accept.
    match g.unscored.split_first() {
        None => out.push_str(&format!("\naccept the new values with: {}", g.accept)),
        Some((first, rest)) => out.push_str(&format!(
            "\n{} of the paired cases could not be scored ({}{}) and count at the metric's worst: their tests say why; run them again once they score (blessing would keep the crash as the baseline)",
            g.unscored.len(),
            first,
            match rest.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            }
        )),
    }
    Some(out)
}

/// `regression gate: 9 of 10 cases have no `anls` in the baseline …`, when entries lack the
/// gated metric.
fn lacking_metric(g: &RegressionGateRecord) -> Option<String> {
    let n = g.lacking.len();
    let named = match &g.lacking[..] {
        [] => return None,
        [one] => format!("`{one}`"),
        [first, second] => format!("`{first}` and `{second}`"),
        [first, second, rest @ ..] => format!("`{first}`, `{second}` and {} more", rest.len()),
    };
    let (cases, have) = if g.entries == 1 {
        ("case", "has")
    } else if n == 1 {
        ("cases", "has")
    } else {
        ("cases", "have")
    };
    Some(format!(
        "regression gate: {n} of {} {cases} {have} no `{}` in the baseline `{}`: {named}; the gate compares every case with an entry, and would judge the others alone: bless the baseline to record it, with: {}",
        g.entries, g.metric, g.baseline, g.accept
    ))
}

/// The power line of a pipeline: `guided: with 50 cases, a drop of 0.0310 ANLS or more is
/// caught 80% of the time, a smaller one less often (gate at 95% confidence, min_effect 0.02;
/// …)`, and the measured false-alarm rate when attempts were repeated. Worded so that beside a
/// smaller drop the gate did catch, it reads as a chance, not as a bound.
pub fn power_line(pipeline: Option<&str>, g: &RegressionGateRecord) -> Option<String> {
    use crate::evaluate::gate::Spread;
    let who = pipeline.map(|p| format!("{p}: ")).unwrap_or_default();
    // A metric better low gets worse as it rises.
    let drop = match g.metric.as_str() {
        "brier" | "ece" => "rise",
        _ => "drop",
    };
    let mut line = match &g.power {
        Some(p) => format!(
            "{who}with {} cases, a {drop} of {:.4} {} or more is caught {}% of the time, a smaller one less often (gate at {}% confidence, min_effect {}; {})",
            p.cases,
            p.detectable_drop,
            label(&g.metric),
            percent(p.power),
            percent(g.confidence),
            g.min_effect,
            match p.spread {
                Spread::Differences => "spread of the paired differences",
                Spread::Baseline => "spread of the baseline's values",
                Spread::None => {
                    "neither the paired differences nor the baseline's values vary yet: a lower bound"
                }
            }
        ),
        None if g.baseline_error.is_none() => format!(
            "{who}the smallest detectable {} of {} is unknown: {} paired cases, and it takes two",
            drop,
            label(&g.metric),
            g.difference.map_or(0, |d| d.cases)
        ),
        None => return None,
    };
    if let Some(f) = &g.false_alarms {
        line.push_str(&format!(
            "; between repeated attempts the gate called {} of {} pairs different (false-alarm rate {:.2})",
            f.alarms, f.pairs, f.rate
        ));
    }
    Some(line)
}
