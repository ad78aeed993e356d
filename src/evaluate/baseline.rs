//! Baselines (SPEC §7): the last accepted metrics of every case and pipeline, in a sorted, stable
//! JSON file; a drop beyond the tolerance is a regression.

use std::collections::BTreeMap;
use std::path::Path;

use crate::evaluate::outcome::Outcome;

/// The metrics of one case test, by name.
pub type Entry = BTreeMap<String, f64>;

/// A baseline file's content: one entry per test name (`invoices/acme-173::guided`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baseline {
    /// Entries by test name, sorted.
    pub cases: BTreeMap<String, Entry>,
}

/// Metrics where lower is better.
const LOWER_IS_BETTER: [&str; 2] = ["brier", "ece"];

/// The baselined metrics of an outcome (those it has).
pub fn entry_of(outcome: &Outcome) -> Entry {
    let m = &outcome.metrics;
    [
        ("score", Some(outcome.score)),
        ("exact_match", m.exact_match),
        ("anls", m.anls),
        ("exact_critical", m.exact_critical),
        ("anls_critical", m.anls_critical),
        ("f1", m.f1),
        ("brier", m.brier),
        ("ece", m.ece),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
    .collect()
}

/// A metric that moved beyond the tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The metric.
    pub metric: String,
    /// Its baseline value.
    pub old: f64,
    /// This run's value (NaN when this run does not measure it).
    pub new: f64,
}

/// Regressions and improvements of `new` against `old`, beyond `tolerance`.
pub fn compare(old: &Entry, new: &Entry, tolerance: f64) -> (Vec<Change>, Vec<Change>) {
    let (mut worse, mut better) = (Vec::new(), Vec::new());
    for (metric, &was) in old {
        // A metric the baseline had and this run lacks (confidences gone, say) is a regression.
        let Some(&now) = new.get(metric) else {
            worse.push(Change {
                metric: metric.clone(),
                old: was,
                new: f64::NAN,
            });
            continue;
        };
        let gain = if LOWER_IS_BETTER.contains(&metric.as_str()) {
            was - now
        } else {
            now - was
        };
        // 1e-9 absorbs the rounding of values written and read back.
        let change = Change {
            metric: metric.clone(),
            old: was,
            new: now,
        };
        if gain < -(tolerance + 1e-9) {
            worse.push(change);
        } else if gain > tolerance + 1e-9 {
            better.push(change);
        }
    }
    (worse, better)
}

/// Reads a baseline; `Ok(None)` when the file does not exist.
pub fn read(path: &Path) -> Result<Option<Baseline>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the baseline `{}`: {e}",
                path.display()
            ));
        }
    };
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("the baseline `{}` is not valid JSON: {e}", path.display()))?;
    let cases = json
        .get("cases")
        .and_then(|c| c.as_object())
        .ok_or_else(|| format!("the baseline `{}` has no `cases` mapping", path.display()))?;
    let mut out = Baseline::default();
    for (name, entry) in cases {
        let entry = entry.as_object().ok_or_else(|| {
            format!(
                "the baseline `{}`: `{name}` is not a mapping of metrics",
                path.display()
            )
        })?;
        let metrics = entry
            .iter()
            .map(|(k, v)| {
                v.as_f64().map(|v| (k.clone(), v)).ok_or_else(|| {
                    format!(
                        "the baseline `{}`: `{name}.{k}` is not a number",
                        path.display()
                    )
                })
            })
            .collect::<Result<Entry, String>>()?;
        out.cases.insert(name.clone(), metrics);
    }
    Ok(Some(out))
}

/// Writes a baseline atomically: a temporary file beside it, fsync, rename. Sorted keys, one
/// metric per line, so that a git diff shows what moved.
pub fn write(path: &Path, baseline: &Baseline) -> std::io::Result<()> {
    let cases: serde_json::Map<String, serde_json::Value> = baseline
        .cases
        .iter()
        .map(|(name, entry)| {
            (
                name.clone(),
                serde_json::Value::Object(
                    entry
                        .iter()
                        .map(|(k, v)| (k.clone(), serde_json::json!(v)))
                        .collect(),
                ),
            )
        })
        .collect();
    let json = serde_json::json!({ "goldgate_baseline": 1, "cases": cases });
    let mut text = serde_json::to_string_pretty(&json).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::base::fs::write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_gone_is_a_regression() {
        let old: Entry = [("anls".to_string(), 0.9), ("brier".to_string(), 0.1)].into();
        let new: Entry = [("anls".to_string(), 0.9)].into();
        let (worse, better) = compare(&old, &new, 0.01);
        assert_eq!(
            (worse.len(), worse[0].metric.as_str(), better.len()),
            (1, "brier", 0)
        );
        assert!(worse[0].new.is_nan());
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn compare_splits_worse_and_better() {
        let old = [("anls".to_string(), 0.95), ("brier".to_string(), 0.10)].into();
        let new = [("anls".to_string(), 0.90), ("brier".to_string(), 0.02)].into();
        let (worse, better) = compare(&old, &new, 0.01);
        assert_eq!(
            worse,
            [Change {
                metric: "anls".into(),
                old: 0.95,
                new: 0.90
            }]
        );
        assert_eq!(
            better,
            [Change {
                metric: "brier".into(),
                old: 0.10,
                new: 0.02
            }]
        );
    }
}
