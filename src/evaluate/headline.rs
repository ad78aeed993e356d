//! Each pipeline's headline metric with its 95 % bootstrap interval over its cases: the figure a
//! leaderboard shows, and how far the cases let it be trusted.

use crate::evaluate::aggregate::{is_pipeline_row, row_of};
use crate::evaluate::paired::{Interval, bootstrap};
use crate::evaluate::record::{CaseNumbers, KeptMetrics, Status};
use crate::model::metric::Metric;
use crate::model::suite::CompareTo;

/// A pipeline's headline metric: its mean over the pipeline's cases, with the 95 % percentile
/// interval of the mean over the same seeded resamples of cases as the comparison (§13).
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// The row of the comparison of pipelines.
    pub pipeline: String,
    /// The metric: the one `compare_to: neighbours` ranks by, else the mean score when cases
    /// have rubrics, else ANLS, else exact match.
    pub metric: Metric,
    /// The mean (`difference`), its interval (`low`, `high`) and the cases it is over.
    pub mean: Interval,
}

/// The headline metric of a run's cases: what the pipelines are ranked by (when it is a mean
/// over cases), else the gated score when some case has rubrics, else ANLS, else exact match;
/// `None` when no case measures any of them.
pub fn headline_metric(records: &[CaseNumbers]) -> Option<Metric> {
    let ranked = records
        .iter()
        .filter_map(|r| match CompareTo::of(r.reference.as_deref()?) {
            CompareTo::Neighbours(metric) => Some(metric),
            _ => None,
        })
        .find(|m| per_case(*m));
    let with_rubrics = records
        .iter()
        .any(|r| r.rubrics.is_some_and(|t| t.must_right + t.easy_wrong > 0));
    let measured = |m: Metric| records.iter().any(|r| value(m, r).is_some()).then_some(m);
    ranked
        .or(with_rubrics.then_some(Metric::MeanScore))
        .or_else(|| measured(Metric::Anls))
        .or_else(|| measured(Metric::ExactMatch))
}

/// Whether a metric is a mean of per-case values, which a bootstrap over cases resamples.
fn per_case(metric: Metric) -> bool {
    matches!(
        metric,
        Metric::ExactMatch
            | Metric::Anls
            | Metric::ExactCritical
            | Metric::AnlsCritical
            | Metric::MeanScore
    )
}

/// A case's value of a per-case metric (a case without rubrics scores 0 under the mean score,
/// as the aggregate counts it).
fn value(metric: Metric, r: &CaseNumbers) -> Option<f64> {
    let m = r.metrics.as_ref().map(KeptMetrics::metrics);
    match metric {
        Metric::ExactMatch => m?.exact_match,
        Metric::Anls => m?.anls,
        Metric::ExactCritical => m?.exact_critical,
        Metric::AnlsCritical => m?.anls_critical,
        Metric::MeanScore => Some(r.rubrics.map_or(0.0, |t| t.score)),
        _ => None,
    }
}

/// Each pipeline's headline metric with its interval, best first (ties by name); empty when no
/// case measures a headline metric. Rows of cases without a pipeline are left out.
pub fn headlines(records: &[CaseNumbers]) -> Vec<Headline> {
    let Some(metric) = headline_metric(records) else {
        return Vec::new();
    };
    let mut names: Vec<std::borrow::Cow<str>> = records.iter().map(row_of).collect();
    names.sort_unstable();
    names.dedup();
    let mut out: Vec<Headline> = names
        .into_iter()
        .filter(|name| is_pipeline_row(name))
        .filter_map(|name| {
            let values: Vec<f64> = records
                .iter()
                .filter(|r| row_of(r) == name && r.status != Status::Ignored)
                .filter_map(|r| value(metric, r))
                .collect();
            Some(Headline {
                pipeline: name.into_owned(),
                metric,
                mean: bootstrap(&values)?,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.mean
            .difference
            .total_cmp(&a.mean.difference)
            .then(a.pipeline.cmp(&b.pipeline))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::aggregate::pipeline_rows;

    fn case(id: &str, pipeline: &str, anls: f64) -> CaseNumbers {
        let mut r = CaseNumbers::of(id, Some(pipeline), Status::Passed, None);
        r.metrics = Some(KeptMetrics::from(&crate::evaluate::outcome::Metrics {
            anls: Some(anls),
            exact_match: Some(f64::from(u8::from(anls == 1.0))),
            ..Default::default()
        }));
        r
    }

    #[test]
    fn a_headline_is_the_pipelines_mean_with_its_bootstrap_interval_best_first() {
        let records = vec![
            case("a::x", "x", 0.5),
            case("b::x", "x", 1.0),
            case("c::x", "x", 0.75),
            case("a::y", "y", 1.0),
            case("b::y", "y", 1.0),
        ];
        let h = headlines(&records);
        let rows = pipeline_rows(&records);
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].pipeline.as_str(), h[0].metric), ("y", Metric::Anls));
        assert_eq!(
            (h[0].mean.low, h[0].mean.high, h[0].mean.cases),
            (1.0, 1.0, 2)
        );
        // The mean is the table's: x's ANLS over its three cases.
        assert_eq!(h[1].mean.difference, rows[0].1.anls.unwrap());
        assert_eq!(h[1].mean, bootstrap(&[0.5, 1.0, 0.75]).unwrap());
        assert!(
            h[1].mean.low < 0.75 && h[1].mean.high > 0.75,
            "{:?}",
            h[1].mean
        );
    }
}
