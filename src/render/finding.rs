//! What a rubric's check found and how a field was compared, in the sentences of the failure
//! message, the annotations and the pages: the one place a finding becomes prose.

use crate::base::budget::{MESSAGE_ITEMS, summarised};
use crate::base::field_path::{Missing, Shape};
use crate::evaluate::finding::{
    Absent, BeforeScoring, Excerpt, Finding, Note, Place, Problem, Reading, Votes,
};

/// A rubric's verdict in one sentence: what the check found, or why it could not be made.
pub fn verdict(checked: bool, finding: &Finding) -> String {
    if checked {
        sentence(finding)
    } else {
        format!("could not be checked: {}", sentence(finding))
    }
}

/// What a check found, in one sentence. Every finding is named here, grouped by what its
/// sentence says, so that a new one does not compile until it has a sentence.
pub fn sentence(finding: &Finding) -> String {
    use Finding as F;
    match finding {
        F::Exact { .. }
        | F::Equals { .. }
        | F::OneOf { .. }
        | F::Contains { .. }
        | F::NotContains { .. }
        | F::Matches { .. }
        | F::Present { .. } => claim(finding),
        F::Anls { .. }
        | F::Number { .. }
        | F::Date { .. }
        | F::Confidence { .. }
        | F::Count { .. }
        | F::SumOf { .. } => measure(finding),
        F::Judge {
            held,
            explanation,
            votes,
        } => judged(*held, explanation, votes.as_ref()),
        F::All { .. }
        | F::Any { .. }
        | F::Not { .. }
        | F::Elements { .. }
        | F::At { .. }
        | F::Unchecked { .. } => nested(finding),
        F::Misspelt { .. }
        | F::NotInGold { .. }
        | F::Misnamed { .. }
        | F::NoElement { .. }
        | F::NoGold
        | F::NotANumber { .. }
        | F::NotADate { .. }
        | F::NotAList { .. }
        | F::NoConfidence
        | F::CannotSum { .. }
        | F::SumReachedNothing { .. }
        | F::SumUnreadable { .. }
        | F::NoJudge
        | F::JudgeFailed { .. }
        | F::NoVerdict { .. } => unchecked(finding),
    }
}

/// What a value is, or whether it holds what the check asked of it, as text.
fn claim(finding: &Finding) -> String {
    use Finding as F;
    match finding {
        F::Exact { value, matched } => format!(
            "`{}` is {}an exact match of its gold",
            shown(value),
            if *matched { "" } else { "not " }
        ),
        F::Equals {
            value,
            expected,
            held,
        } => format!(
            "`{}` {} `{expected}`",
            shown(value),
            if *held { "equals" } else { "does not equal" }
        ),
        F::OneOf {
            value,
            options,
            held,
        } => format!(
            "`{}` is {}one of {}",
            shown(value),
            if *held { "" } else { "not " },
            list(options)
        ),
        F::Contains {
            value,
            needles,
            held,
        } => format!(
            "`{}` {} {}",
            shown(value),
            if *held {
                "contains"
            } else {
                "does not contain"
            },
            list(needles)
        ),
        F::NotContains {
            value,
            needles,
            held,
        } => format!(
            "`{}` {} {}",
            shown(value),
            if *held {
                "contains none of"
            } else {
                "contains"
            },
            list(needles)
        ),
        F::Matches {
            value,
            pattern,
            held,
        } => format!(
            "`{}` {} /{pattern}/",
            shown(value),
            if *held { "matches" } else { "does not match" }
        ),
        F::Present { value: Some(value) } => format!("has the value `{}`", shown(value)),
        F::Present { value: None } => "is absent, null or empty".to_owned(),
        _ => unreachable!("sentence sends only the claims about a value here"),
    }
}

/// A value measured or read (a score, a number, a date, a count) against what the check bounds.
fn measure(finding: &Finding) -> String {
    use Finding as F;
    match finding {
        F::Anls { anls, min } => format!("ANLS {anls:.4} against gold, needs at least {min}"),
        F::Number {
            value,
            read,
            expected,
            tolerance,
            held,
        } => format!(
            "`{}` reads as {}, {} {}{}",
            shown(value),
            number(read),
            if *held { "equal to" } else { "not" },
            number(expected),
            within(*tolerance)
        ),
        F::Date {
            value,
            read,
            expected,
            held,
        } => format!(
            "`{}` reads as {read}, {} {expected}",
            shown(value),
            if *held { "equal to" } else { "not" }
        ),
        F::Confidence { confidence, min } => {
            format!("confidence {confidence}, needs at least {min}")
        }
        F::Count { count, min, max } => counted(*count, *min, *max),
        F::SumOf {
            value,
            total,
            sum,
            parts,
            tolerance,
            held,
        } => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| format!("{} {}", p.at, number(&p.number)))
                .collect();
            format!(
                "`{}` reads as {}, {} the sum {} of {}{}",
                shown(value),
                number(total),
                if *held { "equal to" } else { "not" },
                number(sum),
                summarised(&parts, " + "),
                within(*tolerance)
            )
        }
        _ => unreachable!("sentence sends only the measured findings here"),
    }
}

/// A list's length against the bounds of `count`.
fn counted(count: usize, min: usize, max: Option<usize>) -> String {
    let wanted = match max {
        Some(max) if max == min => format!("{min}"),
        Some(max) => format!("{min} to {max}"),
        None => format!("at least {min}"),
    };
    format!(
        "has {count} item{}, needs {wanted}",
        if count == 1 { "" } else { "s" }
    )
}

/// The judge's recorded verdict, with how its answers split when it was asked more than once.
fn judged(held: bool, explanation: &Excerpt, votes: Option<&Votes>) -> String {
    let votes = votes.map_or_else(String::new, |v| {
        format!(
            " ({} of {} answers; flip rate {:.2})",
            v.agree, v.total, v.flip_rate
        )
    });
    format!(
        "the judge says {}: {}{votes}",
        if held { "yes" } else { "no" },
        shown(explanation)
    )
}

/// A number read exactly (`-1234.5`, as [`crate::base::decimal`] writes it), as a reader takes
/// it in: in scientific form when it ends in ten zeros or more or starts with ten zeros after the
/// point (`2e308`, not 309 digits; `1.5e-12`); every significant digit kept up to 60, since two
/// long numbers may differ in their last (a number is read up to 1,000 digits).
fn number(written: &str) -> String {
    const SHOWN: usize = 60;
    let (sign, unsigned) = match written.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", written),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all: String = format!("{whole}{fraction}");
    let significant = all.trim_start_matches('0');
    let lead = all.len() - significant.len();
    let significant = significant.trim_end_matches('0');
    let trailing = all.len() - lead - significant.len();
    // The power of ten of the first significant digit.
    let exponent = whole.len() as i64 - 1 - lead as i64;
    let scientific = (fraction.is_empty() && trailing >= 10) || (whole == "0" && lead >= 10);
    let shown = |digits: &str| match digits.len() > SHOWN {
        true => format!("{}…({} digits)", &digits[..SHOWN], digits.len()),
        false => digits.to_owned(),
    };
    if !scientific || significant.is_empty() {
        return format!("{sign}{}", shown(unsigned));
    }
    let (first, rest) = significant.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    format!("{sign}{first}{point}{}e{exponent}", shown(rest))
}

/// The findings of combinators, of `[*]` and of a place, made of nested ones.
fn nested(finding: &Finding) -> String {
    use Finding as F;
    match finding {
        F::All { checks, failed } if failed.is_empty() => format!("all {checks} checks hold"),
        F::All { failed, .. } => format!("not all checks hold: {}", sentences(failed)),
        F::Any {
            held: Some(held), ..
        } => format!("one check holds: {}", sentence(held)),
        F::Any { failed, .. } => format!("no check holds: {}", sentences(failed)),
        F::Not { finding } => format!("not ({})", sentence(finding)),
        F::Elements {
            total,
            last_held: Some(last),
            failed,
        } if failed.is_empty() => format!("all {total} elements hold ({})", sentence(last)),
        F::Elements { total, failed, .. } if failed.len() > MESSAGE_ITEMS => format!(
            "{} of {total} elements fail: {}",
            failed.len(),
            sentences(failed)
        ),
        F::Elements { failed, .. } => failed.iter().map(sentence).collect::<Vec<_>>().join("; "),
        F::At {
            place,
            missing,
            finding,
        } => {
            let mut detail = sentence(finding);
            if let Some(why) = missing {
                detail.push_str(&format!(" ({})", self::missing(why)));
            }
            match place {
                None => detail,
                Some(Place::Field(at)) => format!("{at}: {detail}"),
                Some(Place::Text) => format!("prediction: {detail}"),
            }
        }
        F::Unchecked { findings } => sentences(findings),
        _ => unreachable!("sentence sends only nested findings here"),
    }
}

/// Why a check could not be made.
fn unchecked(finding: &Finding) -> String {
    use Finding as F;
    match finding {
        F::Misspelt { field, closest } => format!(
            "{field}: the field is in neither gold nor the prediction (did you mean `{closest}`?)"
        ),
        F::NotInGold { missing } => format!(
            "gold has nothing here ({}), so there is nothing to check against",
            self::missing(missing)
        ),
        F::Misnamed { missing } => format!(
            "the prediction has nothing here ({}), so nothing could be checked",
            self::missing(missing)
        ),
        F::NoElement { path } => {
            format!("{path}: `[*]` reached no element, so nothing could be checked")
        }
        F::NoGold => "gold has no value here to compare with".to_owned(),
        F::NotANumber { value } => format!("`{}` could not be read as a number", shown(value)),
        F::NotADate { value } => format!("`{}` could not be read as a date", shown(value)),
        F::NotAList { value } => format!("`{}` is not a list", shown(value)),
        F::NoConfidence => "the prediction gives no confidence for it".to_owned(),
        F::CannotSum { because } => format!("cannot sum it: {}", sentence(because)),
        F::SumReachedNothing { path } => format!("cannot sum it: `{path}` reached no element"),
        F::SumUnreadable { at, value } => format!(
            "{at} `{}` could not be read as a number, so the sum is unknown",
            shown(value)
        ),
        F::NoJudge => "the suite declares no `judge` command to ask".to_owned(),
        F::JudgeFailed { error } => error.clone(),
        F::NoVerdict { record_command } => {
            format!("no recorded verdict for this question; record it with `{record_command}`")
        }
        _ => unreachable!("sentence sends only the reasons a check was not made here"),
    }
}

/// Why a metric could not be measured, as a failed threshold says it.
pub fn absent(why: &Absent) -> String {
    match why {
        Absent::NoGoldFields => "the case has no gold fields to compare".to_owned(),
        Absent::NoCriticalField => "the case has no critical field".to_owned(),
        Absent::NoConfidence => "no gold field of the prediction carries a confidence".to_owned(),
        Absent::NoLatency => {
            "the prediction reports no `latency_ms` and goldgate did not run it".to_owned()
        }
        Absent::NoUsage => "the prediction reports no token `usage`".to_owned(),
        Absent::NoModel => "the prediction names no `model` to price".to_owned(),
        Absent::NoPrice { model } => format!("the suite's `pricing` has no price for `{model}`"),
        Absent::OfAnAggregate => "a pass rate belongs to a suite's aggregate".to_owned(),
        Absent::NoFieldsCounted => {
            "the case has no gold fields, or its prediction is text, so fields cannot be counted"
                .to_owned()
        }
        Absent::NoGoldPlace => "no gold field gives a `page` or `bbox`".to_owned(),
        Absent::NoGoldBox => "no gold field gives a `bbox`".to_owned(),
        Absent::NoGoldPage => "no gold field gives a `page`".to_owned(),
        Absent::NoPredictedPlace => {
            "the prediction places none of the grounded fields: none of its value objects gives a `page` or `bbox`".to_owned()
        }
        Absent::NoGate { threshold } => format!(
            "no case of the suite has rubrics, so it has no gate to measure: give its cases `rubrics:`, or remove `{threshold}`"
        ),
        Absent::NotMeasured { metric } => format!("no case of the suite measures {metric}"),
    }
}

/// What fails a case besides its checks, as its verdict line says it.
pub fn problem(problem: &Problem) -> String {
    match problem {
        Problem::OverBudget {
            file,
            line,
            field,
            steps,
        } => {
            let (what, why) = match field {
                Some(f) => (
                    format!("`{f}`"),
                    "its value is too long, too nested or too unlike the prediction's to compare (long lists matched item by item, long texts against many `any_of` variants); split the document into several cases, or check the long value with rubrics",
                ),
                None => (
                    "its rubrics".to_owned(),
                    "they compare too much text (many rubrics on long values, or on the whole prediction); check shorter fields, or split the document into several cases",
                ),
            };
            format!(
                "{file}:{line}: scoring {what} needs more work than goldgate spends on one case ({:.1} billion steps, about 5 s of CPU): {why}",
                *steps as f64 / 1e9
            )
        }
        Problem::Unscorable { file, why } => format!(
            "{file}: the case cannot be scored under `profile: docubench`: {why} (DocuBench follows an array from the schema's root through `properties`; give the case a schema it can follow)"
        ),
        Problem::Unpriced {
            model,
            closest,
            pricing,
        } => {
            let at = pricing.as_ref().map_or_else(String::new, |p| {
                format!(" at {}:{}:{}", p.file, p.line, p.column)
            });
            format!(
                "the prediction's model `{model}` has no price in the suite's `pricing`{at} (the closest priced one is `{closest}`; add `{model}` there)"
            )
        }
        Problem::OffThePage {
            at,
            path,
            message,
            hint,
        }
        | Problem::ConfidenceOutOfRange {
            at,
            path,
            message,
            hint,
        } => {
            let path = if path.is_empty() {
                String::new()
            } else {
                format!("{path}: ")
            };
            format!(
                "{}:{}:{}: {path}{message} ({hint})",
                at.file, at.line, at.column
            )
        }
    }
}

/// What `lint` finds before scoring, located, on one line.
pub fn before_scoring(found: &BeforeScoring) -> String {
    match found {
        BeforeScoring::Misspelt {
            at,
            kind,
            label,
            typo,
        } => format!(
            "{}:{}:{}: {kind} `{label}`: {}",
            at.file,
            at.line,
            at.column,
            sentence(typo)
        ),
        // Located where the price goes: the suite's `pricing`.
        BeforeScoring::Unpriced {
            case,
            model,
            closest,
            pricing: Some(p),
        } => format!(
            "{}:{}:{}: pricing: no price for `{model}`, the model of the prediction of `{case}` (the closest priced one is `{closest}`; add `{model}` here)",
            p.file, p.line, p.column
        ),
        BeforeScoring::Unpriced { case, model, .. } => {
            format!("{case}: the prediction's model `{model}` has no price")
        }
        BeforeScoring::OffThePage(p) | BeforeScoring::ConfidenceOutOfRange(p) => problem(p),
    }
}

/// Why a path reached nothing, as the message says it.
pub fn missing(why: &Missing) -> String {
    match why {
        Missing::PastTheEnd { at, items } => {
            format!(
                "`{at}` has {items} item{}",
                if *items == 1 { "" } else { "s" }
            )
        }
        // A field of the prediction itself, rather than a key inside one.
        Missing::NoKey {
            at,
            key,
            closest: Some(best),
        } if at.is_empty() => {
            format!("the prediction has no `{key}` but has `{best}`, maybe a misnamed key")
        }
        Missing::NoKey {
            at,
            key,
            closest: Some(best),
        } => format!("`{at}` has no `{key}`; did you mean `{best}`?"),
        Missing::NoKey { at, key, .. } => format!("`{at}` has no `{key}`"),
        Missing::NotAList { at, is } => format!("`{at}` is {}, not a list", shape(*is)),
        Missing::NotAMapping { at, is } => format!("`{at}` is {}, not a mapping", shape(*is)),
    }
}

/// How a field was compared, as its block of the message says it.
pub fn note(note: &Note) -> String {
    match note {
        Note::Compared {
            reading,
            gold,
            prediction,
        } => format!(
            "compared as {}: gold `{gold}`, prediction `{prediction}`",
            plural(*reading)
        ),
        Note::Unreadable { reading, value } => {
            format!("`{value}` could not be read as {}", singular(*reading))
        }
        Note::Nested { reading, shape } => format!(
            "a {} could not be read as {}",
            if *shape == Shape::List {
                "list"
            } else {
                "mapping"
            },
            singular(*reading)
        ),
        Note::Inside { rules } => {
            let rules: Vec<String> = rules
                .iter()
                .map(|r| format!("{} as {}", r.path, plural(r.reading)))
                .collect();
            format!("compared inside: {}", rules.join(", "))
        }
    }
}

fn plural(reading: Reading) -> &'static str {
    match reading {
        Reading::Text => "text",
        Reading::Number => "numbers",
        Reading::Date => "dates",
        Reading::Identifier => "identifiers",
    }
}

fn singular(reading: Reading) -> &'static str {
    match reading {
        Reading::Text => "text",
        Reading::Number => "a number",
        Reading::Date => "a date",
        Reading::Identifier => "an identifier",
    }
}

fn shape(is: Shape) -> &'static str {
    match is {
        Shape::Null => "null",
        Shape::Text => "a text",
        Shape::List => "a list",
        Shape::Mapping => "a mapping",
    }
}

fn sentences(findings: &[Finding]) -> String {
    let all: Vec<String> = findings.iter().map(sentence).collect();
    summarised(&all, "; ")
}

fn within(tolerance: f64) -> String {
    if tolerance > 0.0 {
        format!(" (within {tolerance})")
    } else {
        String::new()
    }
}

/// The options or needles of a check, as many as a message lists, each cut as a value is.
fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| format!("`{}`", shown(&Excerpt::of(s))))
        .collect();
    summarised(&quoted, ", ")
}

/// A value on one line, cut where the finding cut it.
fn shown(value: &Excerpt) -> String {
    let one_line = value.text.replace('\n', "⏎");
    if value.cut {
        format!("{one_line}…")
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn long_numbers_are_shown_as_a_reader_takes_them_in() {
        assert_eq!(number("1234.5"), "1234.5");
        assert_eq!(number("-0.05"), "-0.05");
        assert_eq!(number(&format!("2{}", "0".repeat(308))), "2e308");
        assert_eq!(number(&format!("-12{}", "0".repeat(20))), "-1.2e21");
        assert_eq!(number("0.0000000000015"), "1.5e-12");
        assert_eq!(number("1000000000"), "1000000000");
        let forty = "1234567890123456789012345678901234567891";
        assert_eq!(number(forty), forty);
        let long = "9".repeat(1000);
        assert_eq!(number(&long), format!("{}…(1000 digits)", "9".repeat(60)));
    }
}
