//! A case that could only pass said so as it loads: one that checks nothing, whose every check
//! holds on any prediction, or that asks a judge none is declared for.

use crate::base::location::LoadError;
use crate::base::location::Mark;
use crate::load::suite::Suite;
use crate::model::case::{Case, GoldField, Scoring};
use crate::model::metric::{Metric, Threshold};
use crate::model::rubric::RubricKind;
use std::path::Path;

/// Why a case that loaded cleanly could only ever pass, if it could: it checks nothing, every
/// check holds on any prediction, or only Easy-Wrong rubrics can lower a score nothing bounds.
/// `gold` is the case's gold fields, which rubrics compare with.
pub(super) fn could_only_pass(
    file: &Path,
    suite: &Suite,
    (rubrics, gold): (&[crate::model::rubric::Rubric], &[GoldField]),
    thresholds: &[Threshold],
    scoring: Scoring,
) -> Option<LoadError> {
    let gold: Vec<&str> = gold.iter().map(|g| g.name.as_str()).collect();
    let cannot_fail =
        |r: &crate::model::rubric::Rubric| super::rubrics::holds_on_anything(&r.probe, &gold);
    if rubrics.is_empty() && thresholds.is_empty() {
        return Some(LoadError::at(file, Mark { line: 1, column: 1 }, "", "this case checks nothing: it has no rubric and no threshold, so it could only ever pass")
            .hint("add `rubrics:` or `thresholds:`, for example `thresholds: { min_exact_match: 1.0 }`"));
    }
    if rubrics.iter().all(&cannot_fail)
        && thresholds.iter().all(|t| t.cannot_fail(rubrics.is_empty()))
    {
        // Located at its first check, the one to change.
        let (at_file, mark) =
            first_check(rubrics, thresholds).unwrap_or((file, Mark { line: 1, column: 1 }));
        return Some(LoadError::at(at_file, mark, "", "every check of this case holds whatever the prediction says, so it could only ever pass")
            .hint("bound a metric that can fail (`min_exact_match: 1.0`), or give a rubric a check that can fail"));
    }
    if suite.baseline.is_none()
        && suite.aggregates.is_empty()
        && only_easy_wrong_lowers_a_score_nothing_bounds(rubrics, &cannot_fail, thresholds, scoring)
    {
        let r = rubrics
            .iter()
            .find(|r| r.kind == RubricKind::EasyWrong && !cannot_fail(r))
            .unwrap_or(&rubrics[0]);
        return Some(LoadError::at(&r.file, Mark { line: r.line, column: r.column }, "", "no check of this case can fail it: its Easy-Wrong rubrics only lower the score, and no `min_score` (nor a baseline or an aggregate) holds the score they can lower it to, so it could only ever pass")
            .hint("add `thresholds: { min_score: 0.9 }` above what the failed rubrics leave, or make a rubric `must_right`"));
    }
    None
}

/// Where a case's first check is written: its first rubric, else its first threshold.
pub(super) fn first_check<'a>(
    rubrics: &'a [crate::model::rubric::Rubric],
    thresholds: &'a [Threshold],
) -> Option<(&'a Path, Mark)> {
    rubrics
        .first()
        .map(|r| {
            (
                r.file.as_path(),
                Mark {
                    line: r.line,
                    column: r.column,
                },
            )
        })
        .or_else(|| {
            thresholds.first().map(|t| {
                (
                    t.file.as_path(),
                    Mark {
                        line: t.line,
                        column: t.column,
                    },
                )
            })
        })
}

/// A `judge:` check with no judge to ask could never be checked: said now, where it is written.
pub(super) fn judge_declared(case: &Case) -> Result<(), LoadError> {
    if case.judge.is_none()
        && let Some(r) = case.rubrics.iter().find(|r| asks_a_judge(&r.probe.check))
    {
        return Err(LoadError::at(
            &r.file,
            Mark {
                line: r.line,
                column: r.column,
            },
            "rubrics",
            format!(
                "{} `{}` asks a judge, but no suite above the case declares one",
                r.kind.key(),
                r.label
            ),
        )
        .hint("declare it in the suite: `judge: {command: [python3, judge.py], verdicts: verdicts.json}`"));
    }
    Ok(())
}

/// Whether a check (or one nested in it) is a `judge:` check.
pub(super) fn asks_a_judge(check: &crate::model::rubric::Check) -> bool {
    use crate::model::rubric::Check;
    match check {
        Check::Judge(_) => true,
        Check::All(probes) | Check::Any(probes) => probes.iter().any(|p| asks_a_judge(&p.check)),
        Check::Not(probe) => asks_a_judge(&probe.check),
        _ => false,
    }
}

/// Whether the only checks that can fail are Easy-Wrong rubrics whose failures no threshold
/// notices: every Must-Right rubric holds on any text, every threshold but `min_score` cannot
/// fail, and `min_score` (if any) is at most the lowest score the Easy-Wrong rubrics can leave.
pub(super) fn only_easy_wrong_lowers_a_score_nothing_bounds(
    rubrics: &[crate::model::rubric::Rubric],
    cannot_fail: &dyn Fn(&crate::model::rubric::Rubric) -> bool,
    thresholds: &[Threshold],
    scoring: Scoring,
) -> bool {
    let failable: Vec<_> = rubrics.iter().filter(|r| !cannot_fail(r)).collect();
    if failable.is_empty() || failable.iter().any(|r| r.kind == RubricKind::MustRight) {
        return false;
    }
    let lowest = match scoring {
        Scoring::Fraction => 0.0,
        Scoring::Penalty => (1.0 - failable.iter().map(|r| r.penalty).sum::<f64>()).max(0.0),
    };
    thresholds.iter().all(|t| {
        if t.metric == Metric::Score {
            t.limit <= lowest
        } else {
            t.cannot_fail(false)
        }
    })
}
