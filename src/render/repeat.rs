//! A repeated case in words: how many attempts passed under which rule, which attempt is shown,
//! and the fields whose exact match flipped.

use crate::evaluate::repeat::{Attempts, FlipRate};

/// Flip rates as the tables of repeated cases write them: `total 0.3333, date 0.0000`.
pub(crate) fn flip_rates_text<'a>(rates: impl IntoIterator<Item = &'a FlipRate>) -> String {
    let rates: Vec<String> = rates
        .into_iter()
        .map(|f| format!("{} {:.4}", f.field, f.rate))
        .collect();
    rates.join(", ")
}

/// The line that leads the message of a repeated case: `1 of 3 attempts passed (pass: all);
/// attempt 2 shown; flips: total 1 of 3`. `shown` is from 0.
pub fn attempts_line(attempts: &Attempts, shown: usize) -> String {
    let k = attempts.each.len();
    let mut line = format!(
        "{} of {k} attempts passed (pass: {}); attempt {} shown",
        attempts.passed(),
        attempts.pass.name(),
        shown + 1
    );
    let flips: Vec<String> = attempts
        .flips()
        .into_iter()
        .filter(|(_, flips, _)| *flips > 0)
        .map(|(field, flips, of)| format!("{field} {flips} of {of}"))
        .collect();
    if !flips.is_empty() {
        line.push_str("; flips: ");
        line.push_str(&flips.join(", "));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::repeat::AttemptNumbers;
    use crate::model::suite::PassRule;

    #[test]
    fn the_line_says_the_count_the_rule_the_attempt_and_the_flips() {
        let attempt = |passed: bool, em: f64| AttemptNumbers {
            passed,
            fields: vec![("total".into(), em), ("date".into(), 1.0)],
            ..AttemptNumbers::default()
        };
        let a = Attempts {
            pass: PassRule::Majority,
            each: vec![attempt(true, 1.0), attempt(false, 0.0), attempt(true, 1.0)],
        };
        assert_eq!(
            attempts_line(&a, 0),
            "2 of 3 attempts passed (pass: majority); attempt 1 shown; flips: total 1 of 3"
        );
    }
}
