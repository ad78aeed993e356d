//! How a test stands against its baseline entry under `fail_on: regressions`, in words: the
//! ways it is worse, a known failure's reason, and the line that ends a run.

use crate::evaluate::baseline::Worse;

/// Each way a test is worse than its entry, as its failure message lists them: `passed in the
/// baseline, fails now; field `address` ANLS 0.7000 -> 0.3500; anls 0.9000 -> 0.8000; fails
/// `min_anls`, which it passed there`.
pub fn worse(list: &[Worse]) -> String {
    list.iter().map(one).collect::<Vec<_>>().join("; ")
}

fn one(w: &Worse) -> String {
    match w {
        Worse::NowFails => "passed in the baseline, fails now".to_owned(),
        Worse::Field { field, old, new } => {
            format!(
                "field `{field}` was exact, ANLS {} -> {}",
                value(*old),
                value(*new)
            )
        }
        Worse::Dropped { metric, old, new } => format!("{metric} {old:.4} -> {new:.4}"),
        Worse::Rule { rule } => format!("fails `{rule}`, which it did not there"),
    }
}

fn value(v: Option<f64>) -> String {
    v.map_or_else(|| "absent".to_owned(), |v| format!("{v:.4}"))
}

/// The first way a test is worse, in a few words for the run's last line: `address 0.70 →
/// 0.35`, `anls 0.90 → 0.80`, `fails min_anls`, `passed → failed`. A lost field or a drop says
/// more than the verdict that follows from it, so they lead.
pub fn first_worse(list: &[Worse]) -> String {
    let short = |v: Option<f64>| v.map_or_else(|| "absent".to_owned(), |v| format!("{v:.2}"));
    let lead = list
        .iter()
        .find(|w| matches!(w, Worse::Field { .. } | Worse::Dropped { .. }))
        .or_else(|| list.iter().find(|w| matches!(w, Worse::Rule { .. })))
        .or(list.first());
    match lead {
        Some(Worse::Field { field, old, new }) => {
            format!("{field} {} → {}", short(*old), short(*new))
        }
        Some(Worse::Dropped { metric, old, new }) => {
            format!("{metric} {} → {}", short(Some(*old)), short(Some(*new)))
        }
        Some(Worse::Rule { rule }) => format!("fails {rule}"),
        Some(Worse::NowFails) | None => "passed → failed".to_owned(),
    }
}

/// Why a test is a known failure, as its line says (`known failure (fails min_anls, as in
/// cases/baseline.json)`): the rules it fails, the first three.
pub fn known_failure(failed: &[String], baseline: &str) -> String {
    const SHOWN: usize = 3;
    let mut rules: Vec<String> = failed
        .iter()
        .take(SHOWN)
        .map(|r| format!("`{r}`"))
        .collect();
    if failed.len() > SHOWN {
        rules.push(format!("{} more", failed.len() - SHOWN));
    }
    if rules.is_empty() {
        format!("fails as in {baseline}")
    } else {
        format!("fails {}, as in {baseline}", rules.join(", "))
    }
}

/// The run's last line under `fail_on: regressions`, which leads with the gate: `goldgate: no
/// regression against cases/baseline.json (34 known failures, 2 fixed, 0 new)`, or `goldgate: 3
/// regressions against cases/baseline.json (first: receipts/027::v2 address 0.70 → 0.35; also
/// …; 34 known failures, 2 fixed, 0 new)`. `None` when no test was held to a baseline.
pub fn gate_line(account: &crate::record::run_end::GateAccount) -> Option<String> {
    /// The regressions named after the first.
    const ALSO: usize = 4;
    if !account.holds() {
        return None;
    }
    let against = match account.baselines.as_slice() {
        [one] => one.clone(),
        many => format!("{} baselines", many.len()),
    };
    let counts = format!(
        "{}, {} fixed, {} new",
        plural(account.known_failures, "known failure", "known failures"),
        account.fixed.len(),
        account.new
    );
    let Some((first, rest)) = account.regressions.split_first() else {
        return Some(format!(
            "goldgate: no regression against {against} ({counts})"
        ));
    };
    let mut named = format!("first: {}", regression(first));
    if !rest.is_empty() {
        let also: Vec<&str> = rest.iter().take(ALSO).map(|r| r.test.as_str()).collect();
        named.push_str(&format!("; also {}", also.join(", ")));
        if rest.len() > ALSO {
            named.push_str(&format!(" and {} more", rest.len() - ALSO));
        }
    }
    Some(format!(
        "goldgate: {} against {against} ({named}; {counts})",
        plural(account.regressions.len(), "regression", "regressions")
    ))
}

/// A regression as the last line names it: the test, then how it is worse.
fn regression(r: &crate::record::run_end::Regression) -> String {
    match &r.fails {
        _ if !r.worse.is_empty() => format!("{} {}", r.test, first_worse(&r.worse)),
        Some(why) => format!("{} {why}", r.test),
        None => r.test.clone(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What ends a run held to its baselines: its fixed tests with their bless commands, then the
/// gate's line; nothing for a run that held no test to one.
pub fn gate_end(account: &crate::record::run_end::GateAccount) -> String {
    let mut out = fixed_lines(account);
    if let Some(line) = gate_line(account) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The fixed tests, each with the command that blesses it, for the run's end.
pub fn fixed_lines(account: &crate::record::run_end::GateAccount) -> String {
    account
        .fixed
        .iter()
        .map(|f| {
            format!(
                "fixed: {} fails no more; bless it with: {}\n",
                f.test, f.bless
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_field_leads_the_last_line() {
        let list = [
            Worse::NowFails,
            Worse::Rule {
                rule: "min_anls".into(),
            },
            Worse::Field {
                field: "address".into(),
                old: Some(0.7),
                new: Some(0.35),
            },
        ];
        assert_eq!(first_worse(&list), "address 0.70 → 0.35");
        assert_eq!(first_worse(&list[..2]), "fails min_anls");
        assert_eq!(first_worse(&list[..1]), "passed → failed");
        assert_eq!(
            worse(&list),
            "passed in the baseline, fails now; fails `min_anls`, which it did not there; field `address` was exact, ANLS 0.7000 -> 0.3500"
        );
    }

    #[test]
    fn a_known_failure_names_its_first_rules() {
        let rules: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).into();
        assert_eq!(
            known_failure(&rules, "b.json"),
            "fails `a`, `b`, `c`, 2 more, as in b.json"
        );
        assert_eq!(known_failure(&[], "b.json"), "fails as in b.json");
    }
}
