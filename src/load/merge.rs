//! The two case keys a case merges with its suites' `defaults` instead of taking whole:
//! `thresholds`, bound by bound (`null` removes one), and `rubrics`, added to the suites' unless
//! a level says `replace`. A level is one file that writes the key: each suite's `defaults`,
//! outermost first, then the case.

use crate::base::spanned::Spanned;

use crate::model::metric::Metric;
use crate::spec::ThresholdsSpec;

/// The bounds that hold for a case, in the order of the metrics: each from the nearest level
/// that writes its key (`levels` outermost first), none where that level writes `null`. Each
/// with the index of its level, where its mistakes are located.
pub(super) fn holding_bounds(
    levels: &[&ThresholdsSpec],
) -> Vec<(usize, &'static str, Spanned<f64>)> {
    let mut out = Vec::new();
    for metric in Metric::ALL.into_iter().filter(|m| m.bounds_in(false)) {
        let key = metric.threshold_key();
        let nearest = levels
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, level)| level.bound(key).map(|b| (i, b)));
        if let Some((i, written)) = nearest
            && let Some(v) = written.value
        {
            out.push((i, key, Spanned::new(v, written.referenced, written.defined)));
        }
    }
    out
}

/// A level's rubrics over those inherited from the levels above: one whose label an inherited
/// rubric has takes that rubric's place (the first of that label; the others of it go), so that
/// a case changes one suite rubric without counting it twice; the others come after, in order.
pub(super) fn rubrics_over<T>(
    inherited: Vec<T>,
    own: Vec<T>,
    label: impl Fn(&T) -> &str,
) -> Vec<T> {
    let mut own: Vec<Option<T>> = own.into_iter().map(Some).collect();
    let mut replaced: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(inherited.len() + own.len());
    for rubric in inherited {
        let name = label(&rubric).to_owned();
        if replaced.contains(&name) {
            continue;
        }
        let mut same = own
            .iter_mut()
            .filter(|o| o.as_ref().is_some_and(|o| label(o) == name))
            .filter_map(Option::take)
            .peekable();
        if same.peek().is_none() {
            out.push(rubric);
            continue;
        }
        out.extend(same);
        replaced.push(name);
    }
    out.extend(own.into_iter().flatten());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thresholds(yaml: &str) -> ThresholdsSpec {
        crate::spec::parse_yaml(std::path::Path::new("t.yaml"), yaml).unwrap()
    }

    fn holding(levels: &[&str]) -> Vec<(usize, &'static str, f64)> {
        let specs: Vec<ThresholdsSpec> = levels.iter().map(|y| thresholds(y)).collect();
        let refs: Vec<&ThresholdsSpec> = specs.iter().collect();
        holding_bounds(&refs)
            .into_iter()
            .map(|(i, key, v)| (i, key, v.value))
            .collect()
    }

    #[test]
    fn a_case_adds_a_bound_replaces_one_and_null_removes_one() {
        let suite = "{ min_score: 0.9, min_anls: 0.8, min_exact_critical: 1 }";
        assert_eq!(
            holding(&[suite, "{ min_grounded: 1 }"]),
            [
                (0, "min_score", 0.9),
                (0, "min_anls", 0.8),
                (0, "min_exact_critical", 1.0),
                (1, "min_grounded", 1.0)
            ]
        );
        assert_eq!(
            holding(&[suite, "{ min_anls: 0.5, min_score: null }"]),
            [(1, "min_anls", 0.5), (0, "min_exact_critical", 1.0)]
        );
        // A deeper suite merges over an outer one the same way, and `null` with nothing to
        // remove removes nothing.
        assert_eq!(
            holding(&[
                "{ min_anls: 0.8 }",
                "{ min_anls: null }",
                "{ max_ece: null }"
            ]),
            []
        );
        assert_eq!(
            holding(&[
                "{ min_anls: 0.8 }",
                "{ min_anls: null }",
                "{ min_anls: 0.7 }"
            ]),
            [(2, "min_anls", 0.7)]
        );
    }

    fn over(
        inherited: &[(&'static str, u8)],
        own: &[(&'static str, u8)],
    ) -> Vec<(&'static str, u8)> {
        rubrics_over(inherited.to_vec(), own.to_vec(), |r| r.0)
    }

    #[test]
    fn a_case_rubric_adds_after_the_suites_or_takes_the_place_of_its_label() {
        assert_eq!(
            over(&[("a", 0), ("b", 0)], &[("c", 1)]),
            [("a", 0), ("b", 0), ("c", 1)]
        );
        assert_eq!(
            over(&[("a", 0), ("b", 0)], &[("a", 1)]),
            [("a", 1), ("b", 0)]
        );
        // Every inherited rubric of the label goes, the case's of it stand at the first's place.
        assert_eq!(
            over(
                &[("a", 0), ("b", 0), ("a", 2)],
                &[("c", 1), ("a", 1), ("a", 3)]
            ),
            [("a", 1), ("a", 3), ("b", 0), ("c", 1)]
        );
        assert_eq!(over(&[], &[("a", 1), ("a", 2)]), [("a", 1), ("a", 2)]);
    }
}
