//! A case run `repeat` times: each attempt scored on its own, the verdict the suite's `pass` rule
//! makes of them, and how often each field's exact match flips between attempts.

use crate::evaluate::outcome::{Metrics, Outcome};
use crate::model::metric::Metric;
use crate::model::suite::PassRule;

/// One attempt of a repeated case, as evaluated.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// Whether the attempt alone passes the case (gate and thresholds; the baseline is the
    /// case's, not an attempt's).
    pub passed: bool,
    /// Its evaluation; `None` when its prediction could not be read or its call failed.
    pub outcome: Option<Outcome>,
    /// Why it could not be scored.
    pub error: Option<String>,
}

/// Every attempt of a repeated case, and the rule that makes their verdict.
#[derive(Debug, Clone)]
pub struct Repeated {
    /// The suite's `pass` rule.
    pub pass: PassRule,
    /// The attempts, in the order they ran.
    pub attempts: Vec<Attempt>,
}

impl Repeated {
    /// The attempt a repeated case shows (its message, fields and metrics): the first whose
    /// verdict is the case's, so that a failed case shows a failing attempt and a passed one a
    /// passing attempt.
    pub fn shown(&self) -> usize {
        let verdict = self.numbers().holds();
        self.attempts
            .iter()
            .position(|a| a.passed == verdict)
            .unwrap_or(0)
    }

    /// What aggregates need of the attempts; an attempt that could not be scored counts each
    /// field the others scored as missed.
    pub fn numbers(&self) -> Attempts {
        let gold_fields: Vec<&str> = self
            .attempts
            .iter()
            .find_map(|a| a.outcome.as_ref())
            .map_or_else(Vec::new, |o| {
                o.fields.iter().map(|f| f.name.as_str()).collect()
            });
        Attempts {
            pass: self.pass,
            each: self
                .attempts
                .iter()
                .map(|a| AttemptNumbers {
                    passed: a.passed,
                    metrics: a.outcome.as_ref().map(|o| o.metrics.clone()),
                    score: a.outcome.as_ref().map(|o| o.score),
                    fields: match &a.outcome {
                        Some(o) => o.fields.iter().map(|f| (f.name.clone(), f.em)).collect(),
                        None => gold_fields.iter().map(|f| (f.to_string(), 0.0)).collect(),
                    },
                })
                .collect(),
        }
    }
}

/// What one attempt gave, for aggregates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttemptNumbers {
    /// Whether it passed.
    pub passed: bool,
    /// Its metrics, when it was scored.
    pub metrics: Option<Metrics>,
    /// Its gated score, when it was scored.
    pub score: Option<f64>,
    /// (field, EM) of every gold field.
    pub fields: Vec<(String, f64)>,
}

impl AttemptNumbers {
    /// Its value of a case metric (the score included).
    pub fn value(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Score => self.score,
            m => self.metrics.as_ref().and_then(|x| x.get(m)),
        }
    }
}

/// The attempts of a repeated case, as aggregates read them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Attempts {
    /// The suite's `pass` rule.
    pub pass: PassRule,
    /// Each attempt.
    pub each: Vec<AttemptNumbers>,
}

impl Attempts {
    /// How many attempts passed.
    pub fn passed(&self) -> usize {
        self.each.iter().filter(|a| a.passed).count()
    }

    /// Whether the attempts pass the case under its rule.
    pub fn holds(&self) -> bool {
        self.pass.holds(self.passed(), self.each.len())
    }

    /// Each gold field's flips: (field, attempts whose EM differs from the majority of the
    /// attempts, attempts), in the order the fields first come. An exact tie counts half the
    /// attempts as flips. A field is right in an attempt when its EM is 1.
    pub fn flips(&self) -> Vec<(String, usize, usize)> {
        let mut right: Vec<(String, usize, usize)> = Vec::new();
        for attempt in &self.each {
            for (name, em) in &attempt.fields {
                let at = match right.iter().position(|(n, _, _)| n == name) {
                    Some(at) => at,
                    None => {
                        right.push((name.clone(), 0, 0));
                        right.len() - 1
                    }
                };
                right[at].1 += usize::from(*em == 1.0);
                right[at].2 += 1;
            }
        }
        right
            .into_iter()
            .map(|(name, ones, of)| (name, ones.min(of - ones), of))
            .collect()
    }

    /// Each gold field's flip rate: the share of attempts whose EM differs from the majority.
    pub fn flip_rates(&self) -> Vec<FlipRate> {
        self.flips()
            .into_iter()
            .map(|(field, flips, of)| FlipRate::of(field, flips, of))
            .collect()
    }
}

/// A field's flip rate over the attempts of a case, or of a pipeline's cases.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlipRate {
    /// The field.
    pub field: String,
    /// Attempts whose exact match differs from the majority, over the attempts.
    pub rate: f64,
}

impl FlipRate {
    fn of(field: String, flips: usize, of: usize) -> FlipRate {
        FlipRate {
            field,
            rate: flips as f64 / of as f64,
        }
    }
}

/// Flip rates pooled over cases, by field: flips over attempts, in the order fields first come.
pub fn pooled_flip_rates<'a>(all: impl IntoIterator<Item = &'a Attempts>) -> Vec<FlipRate> {
    let mut pooled: Vec<(String, usize, usize)> = Vec::new();
    for attempts in all {
        for (name, flips, of) in attempts.flips() {
            match pooled.iter_mut().find(|(n, _, _)| *n == name) {
                Some(p) => {
                    p.1 += flips;
                    p.2 += of;
                }
                None => pooled.push((name, flips, of)),
            }
        }
    }
    pooled
        .into_iter()
        .map(|(field, flips, of)| FlipRate::of(field, flips, of))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(rates: &[(&str, f64)]) -> Vec<FlipRate> {
        rates
            .iter()
            .map(|&(field, rate)| FlipRate {
                field: field.to_owned(),
                rate,
            })
            .collect()
    }

    fn attempts(pass: PassRule, ems: &[&[(&str, f64)]], passed: &[bool]) -> Attempts {
        Attempts {
            pass,
            each: ems
                .iter()
                .zip(passed)
                .map(|(fields, &passed)| AttemptNumbers {
                    passed,
                    fields: fields.iter().map(|(n, e)| (n.to_string(), *e)).collect(),
                    ..AttemptNumbers::default()
                })
                .collect(),
        }
    }

    #[test]
    fn the_rule_makes_the_verdict_of_the_attempts() {
        for (rule, passed, verdict) in [
            (PassRule::All, [true, true, false], false),
            (PassRule::All, [true, true, true], true),
            (PassRule::Majority, [true, true, false], true),
            (PassRule::Majority, [true, false, false], false),
            (PassRule::Any, [false, false, true], true),
            (PassRule::Any, [false, false, false], false),
        ] {
            let a = attempts(rule, &[&[], &[], &[]], &passed);
            assert_eq!(a.holds(), verdict, "{rule:?} {passed:?}");
        }
        // Half is not a majority.
        assert!(!PassRule::Majority.holds(2, 4));
        assert!(PassRule::Majority.holds(3, 4));
    }

    #[test]
    fn a_flip_is_an_attempt_against_the_majority() {
        let a = attempts(
            PassRule::All,
            &[
                &[("total", 1.0), ("date", 1.0)],
                &[("total", 0.0), ("date", 1.0)],
                &[("total", 1.0), ("date", 1.0)],
                &[("total", 0.0), ("date", 1.0)],
            ],
            &[true, false, true, false],
        );
        // A 2–2 tie: half the attempts flip.
        assert_eq!(a.flip_rates(), rates(&[("total", 0.5), ("date", 0.0)]));
        let b = attempts(
            PassRule::All,
            &[&[("total", 1.0)], &[("total", 0.0)], &[("total", 1.0)]],
            &[true, false, true],
        );
        assert_eq!(b.flip_rates(), rates(&[("total", 1.0 / 3.0)]));
        // Pooled: (2 + 1) flips over (4 + 3) attempts.
        assert_eq!(
            pooled_flip_rates([&a, &b]),
            rates(&[("total", 3.0 / 7.0), ("date", 0.0)])
        );
    }
}
