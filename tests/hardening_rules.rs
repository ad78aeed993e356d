//! Rules that keep a case from passing silently, each found by an adversarial audit: a French
//! decimal split by flow style, checks that hold on anything (through `all`, `any`, `not`), a
//! needle empty once normalized, `min_anls: 0`, bounds under the comparison's slack, aggregate
//! bounds on a gate no case has, and the names and filters of the command line. Each runs the
//! `goldgate` binary over a folder made by the test, asserting verdicts, exit codes and messages.

mod support;
use support::{goldgate, goldgate_with, stdout, write_files};

/// `test NAME ... VERDICT` lines, sorted.
fn test_lines(out: &str) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = out
        .lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|l| l.split_once(" ... "))
        .map(|(name, verdict)| (name.trim().to_owned(), verdict.to_owned()))
        .collect();
    lines.sort();
    lines
}

fn expected(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, verdict)| (name.to_string(), verdict.to_string()))
        .collect()
}

/// The first line of the failure block libtest prints for one test.
fn first_failure_line(out: &str, name: &str) -> String {
    support::failure_lines(out, name)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The summary line goldgate prints after libtest's result.
fn summary_line(out: &str) -> String {
    out.lines()
        .find(|l| l.starts_with("goldgate: "))
        .unwrap_or_else(|| panic!("no summary line in:\n{out}"))
        .to_owned()
}

/// `gold: { total: 79,26 }` is `total: 79` and a key `26` for YAML: a case comparing `79` passed.
/// The split is refused where the number is written, with the quoted form, in gold, an inline
/// prediction, a rubric, a rubric set and thresholds, by `test` and by `lint`; quoted or in block
/// style the decimal reads as written.
#[test]
fn a_french_decimal_split_by_flow_style_is_refused_at_the_number() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/gold.yaml",
                "prediction: { total: \"79\" }\ngold: { total: 79,26 }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/inline.yaml",
                "prediction: { lines: [ { amount: 1 234,50, q: \"2\" } ] }\ngold: { lines: [ { amount: \"1 234\" } ] }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/rubric.yaml",
                "prediction: { total: \"79\" }\nrubrics:\n  - { must_right: total, field: total, equals: 79,26 }\n",
            ),
            (
                "cases/threshold.yaml",
                "prediction: { total: \"79\" }\ngold: { total: \"79\" }\nthresholds: { min_exact_match: 0,9 }\n",
            ),
            (
                "cases/included.yaml",
                "prediction: { total: \"79\" }\ngold: { total: \"79\" }\nrubrics:\n  - include: money\n",
            ),
            (
                "rubrics/money.yaml",
                "rubrics:\n  - { must_right: total, field: total, number: 79,26 }\n",
            ),
            // Quoted, or in block style, the decimal is one text.
            (
                "cases/quoted.yaml",
                "prediction: { total: \"79,26\" }\ngold: { total: \"79,26\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/block.yaml",
                "prediction:\n  total: 79,26\ngold:\n  total: 79,26\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let gold = "error: cases/gold.yaml:2:16: gold.total: `79,26` in a flow mapping is read by YAML as `total: 79` and a key `26` holding null: a comma there separates entries (quote it: `total: \"79,26\"`)";
    let inline = "error: cases/inline.yaml:1:34: prediction.lines[0].amount: `1 234,50` in a flow mapping is read by YAML as `amount: 1 234` and a key `50` holding null: a comma there separates entries (quote it: `amount: \"1 234,50\"`)";
    let rubric = "error: cases/rubric.yaml:3:48: rubrics[0].equals: `79,26` in a flow mapping is read by YAML as `equals: 79` and a key `26` holding null: a comma there separates entries (quote it: `equals: \"79,26\"`)";
    let threshold = "error: cases/threshold.yaml:3:32: thresholds.min_exact_match: `0,9` in a flow mapping is read by YAML as `min_exact_match: 0` and a key `9` holding null: a comma there separates entries (write it with a decimal point: `min_exact_match: 0.9`)";
    let included = "error: rubrics/money.yaml:2:48: rubrics[0].number: `79,26` in a flow mapping is read by YAML as `number: 79` and a key `26` holding null: a comma there separates entries (quote it: `number: \"79,26\"`)";

    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        test_lines(&out),
        expected(&[
            ("block", "ok"),
            ("gold", "FAILED"),
            ("included", "FAILED"),
            ("inline", "FAILED"),
            ("quoted", "ok"),
            ("rubric", "FAILED"),
            ("threshold", "FAILED"),
        ])
    );
    assert_eq!(first_failure_line(&out, "gold"), gold);
    assert_eq!(first_failure_line(&out, "inline"), inline);
    assert_eq!(first_failure_line(&out, "rubric"), rubric);
    assert_eq!(first_failure_line(&out, "threshold"), threshold);
    assert_eq!(first_failure_line(&out, "included"), included);

    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(1));
    // In the order of the case files: `included` reads the rubric set.
    assert_eq!(
        stdout(&lint),
        format!(
            "{gold}\n{included}\n{inline}\n{rubric}\n{threshold}\nlint: 7 case files, 5 errors\n"
        )
    );
}

/// A check that holds on anything is found through `all`, `any` and `not: { not: }`, and so is a
/// check beside its opposite: a case checked by it alone could only ever pass, and is refused as
/// the bare pattern is. Combined so that the prediction decides, the same pattern loads and the
/// case is judged.
#[test]
fn a_check_that_holds_on_anything_is_found_through_every_combinator() {
    let dir = tempfile::tempdir().unwrap();
    let case = |check: &str| {
        format!(
            "prediction: {{ total: \"6\" }}\ngold: {{ total: \"5\" }}\nrubrics:\n  - must_right: total\n    field: total\n    {check}\n"
        )
    };
    let all = case("all: [ { matches: '(?s).*' } ]");
    let any = case("any: [ { exact: true }, { matches: '(?s).*' } ]");
    let not_not = case("not: { not: { matches: '(?s).*' } }");
    let deep =
        case("all: [ { any: [ { exact: true }, { not: { not: { matches: '(?s).*' } } } ] } ]");
    let both = case("any: [ { present: true }, { present: false } ]");
    let decided = case("all: [ { matches: '(?s).*' }, { exact: true } ]");
    let never = case("any: [ { exact: true }, { not: { matches: '(?s).*' } } ]");
    // A prediction without a confidence leaves `min_confidence` unchecked, and the `any` too.
    let unsure = case("any: [ { min_confidence: 0.5 }, { matches: '(?s).*' } ]");
    write_files(
        dir.path(),
        &[
            ("cases/all.yaml", &all),
            ("cases/any.yaml", &any),
            ("cases/not_not.yaml", &not_not),
            ("cases/deep.yaml", &deep),
            ("cases/both.yaml", &both),
            ("cases/decided.yaml", &decided),
            ("cases/never.yaml", &never),
            ("cases/unsure.yaml", &unsure),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    let vacuous = |name: &str| {
        format!(
            "error: cases/{name}.yaml:4:5: every check of this case holds whatever the prediction says, so it could only ever pass (bound a metric that can fail (`min_exact_match: 1.0`), or give a rubric a check that can fail)"
        )
    };
    for name in ["all", "any", "not_not", "deep", "both"] {
        assert_eq!(first_failure_line(&out, name), vacuous(name), "{name}");
    }
    // The prediction decides: `6` is not `5`, and it has no confidence.
    for name in ["decided", "never", "unsure"] {
        assert!(
            first_failure_line(&out, name)
                .starts_with("case failed: gate closed by must_right `total`"),
            "{name}: {out}"
        );
    }
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    let listed = stdout(&lint);
    for name in ["all", "any", "not_not", "deep", "both"] {
        assert!(listed.contains(&vacuous(name)), "{listed}");
    }
    assert!(
        listed.ends_with("lint: 8 case files, 5 errors\n"),
        "{listed}"
    );
}

/// `contains: "\u0301"` normalizes to nothing, and every value contains nothing: refused, as an
/// empty text is, for `not_contains` too, inside a combinator too. With accents kept the mark is
/// a text to look for.
#[test]
fn a_needle_empty_once_normalized_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/contains.yaml",
                "prediction: { name: Cafe }\nrubrics:\n  - must_right: the accent is kept\n    field: name\n    contains: \"\\u0301\"\n",
            ),
            (
                "cases/not_contains.yaml",
                "prediction: { name: Cafe }\nrubrics:\n  - must_right: no stray mark\n    field: name\n    any: [ { present: false }, { not_contains: [x, \"\\u0301\\u0308\"] } ]\n",
            ),
            (
                "cases/raw.yaml",
                "prediction: { name: \"Cafe\\u0301\" }\nrubrics:\n  - must_right: the accent is kept\n    field: name\n    normalize: { strip_accents: false }\n    contains: \"\\u0301\"\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        test_lines(&out),
        expected(&[
            ("contains", "FAILED"),
            ("not_contains", "FAILED"),
            ("raw", "ok"),
        ])
    );
    assert_eq!(
        first_failure_line(&out, "contains"),
        "error: cases/contains.yaml:5:15: rubrics[0].contains: `\\u0301` is empty once normalized, and an empty text checks nothing: every value contains it (give the words to look for; to look for the mark itself, turn off the step that removes it, as `normalize: { strip_accents: false }`)"
    );
    assert_eq!(
        first_failure_line(&out, "not_contains"),
        "error: cases/not_contains.yaml:5:48: rubrics[0].any[1].not_contains: `\\u0301\\u0308` is empty once normalized, and an empty text checks nothing: every value contains it (give the words to look for; to look for the mark itself, turn off the step that removes it, as `normalize: { strip_accents: false }`)"
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert!(
        stdout(&lint).ends_with("lint: 3 case files, 2 errors\n"),
        "{}",
        stdout(&lint)
    );
}

/// The rubric `min_anls: 0` holds on every value, as its field-rule twin would make every value
/// correct: refused the same way, by `test` and `lint`.
#[test]
fn a_rubric_min_anls_of_zero_is_refused_as_its_field_rule_twin() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/zero.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nrubrics:\n  - must_right: total is close\n    field: total\n    min_anls: 0\n",
            ),
            (
                "cases/nested.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nrubrics:\n  - must_right: total is close\n    field: total\n    not: { min_anls: 0.0 }\nthresholds: { min_anls: 0.5 }\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    let zero = "error: cases/zero.yaml:6:15: rubrics[0].min_anls: `min_anls` is 0, so the check holds on every value, an absent one included (raise it to where a value counts as close, such as 0.8, or use `present: true` to ask only for a value)";
    assert_eq!(first_failure_line(&out, "zero"), zero);
    assert!(
        first_failure_line(&out, "nested")
            .starts_with("error: cases/nested.yaml:6:22: rubrics[0].not.min_anls: `min_anls` is 0"),
        "{out}"
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert!(stdout(&lint).contains(zero), "{}", stdout(&lint));
}

/// A bound compared with a slack of 1e-9 cannot fail when it holds at its metric's worst value:
/// `min_exact_match: 1e-10` is `min_exact_match: 0`, and `max_ece: 0.9999999999` is
/// `max_ece: 1`. A case bounded by those alone could only ever pass; a bound above the slack can
/// fail, and does.
#[test]
fn a_bound_under_the_comparisons_slack_cannot_fail() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/tiny.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1e-10, max_ece: 0.9999999999 }\n",
            ),
            (
                "cases/small.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1e-8 }\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    let tiny = "error: cases/tiny.yaml:3:32: every check of this case holds whatever the prediction says, so it could only ever pass (bound a metric that can fail (`min_exact_match: 1.0`), or give a rubric a check that can fail)";
    assert_eq!(first_failure_line(&out, "tiny"), tiny);
    assert!(
        first_failure_line(&out, "small").contains("min_exact_match failed: 0.0000 < 0.00000001"),
        "{out}"
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&lint),
        format!("{tiny}\nlint: 2 case files, 1 error\n")
    );
}

/// An aggregate bound on the gate (`min_mean_score`, `min_gate_pass_rate`) over cases without
/// rubrics measured nothing and held: it fails, saying no case has rubrics and what to do; `lint`
/// says so at the bound. Once a case has a rubric, the gate is measured.
#[test]
fn an_aggregate_bound_on_a_gate_no_case_has_fails() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/plain/suite.yaml",
                "aggregate:\n  min_mean_score: 0.9\n  min_gate_pass_rate: 1.0\n",
            ),
            (
                "cases/plain/a.yaml",
                "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/gated/suite.yaml",
                "aggregate:\n  min_mean_score: 0.9\n  min_gate_pass_rate: 1.0\n",
            ),
            (
                "cases/gated/a.yaml",
                "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/gated/b.yaml",
                "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nrubrics:\n  - must_right: total\n    field: total\n    exact: true\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        test_lines(&out),
        expected(&[
            ("gated/a", "ok"),
            ("gated/b", "ok"),
            ("gated::aggregate", "ok"),
            ("plain/a", "ok"),
            ("plain::aggregate", "FAILED"),
        ])
    );
    assert_eq!(
        first_failure_line(&out, "plain::aggregate"),
        "aggregate failed over 1 case tests (1 passed): min_gate_pass_rate failed: the metric is absent (no case of the suite has rubrics, so it has no gate to measure: give its cases `rubrics:`, or remove `min_gate_pass_rate`); min_mean_score failed: the metric is absent (no case of the suite has rubrics, so it has no gate to measure: give its cases `rubrics:`, or remove `min_mean_score`)"
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(1));
    assert_eq!(
        stdout(&lint),
        "error: cases/plain/suite.yaml:2:19: aggregate.min_mean_score: no case of the suite has rubrics, so it has no gate to measure and `min_mean_score` fails every run (give its cases `rubrics:`, or remove `min_mean_score`)\n\
         error: cases/plain/suite.yaml:3:23: aggregate.min_gate_pass_rate: no case of the suite has rubrics, so it has no gate to measure and `min_gate_pass_rate` fails every run (give its cases `rubrics:`, or remove `min_gate_pass_rate`)\n\
         lint: 3 case files, 2 errors\n"
    );
}

/// A case named `-rf` regresses; the accept command goldgate prints (`… --exact -rf`) must
/// select it, though its name reads like flags, and accept the new numbers.
#[test]
fn the_printed_accept_command_selects_a_case_named_like_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", "baseline: baseline.json\n"),
            (
                "cases/-rf.yaml",
                "prediction: p.json\ngold: { total: \"5\", name: ACME }\nthresholds: { min_anls: 0.1 }\n",
            ),
            ("cases/p.json", "{\"total\": \"5\", \"name\": \"ACME\"}"),
        ],
    );
    let bless = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(bless.status.code(), Some(0), "{}", stdout(&bless));
    write_files(
        dir.path(),
        &[("cases/p.json", "{\"total\": \"6\", \"name\": \"ACME\"}")],
    );
    let regressed = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&regressed);
    assert_eq!(regressed.status.code(), Some(101), "{out}");
    let command = out
        .lines()
        .find_map(|l| l.strip_prefix("accept the new numbers with: "))
        .unwrap_or_else(|| panic!("no accept command in:\n{out}"));
    assert_eq!(
        command,
        "GOLDGATE_UPDATE=always goldgate test cases --exact -rf"
    );
    let words: Vec<&str> = command.split(' ').collect();
    let accept = goldgate_with(dir.path(), &words[2..], &[("GOLDGATE_UPDATE", "always")]);
    assert_eq!(
        accept.status.code(),
        Some(0),
        "{}{}",
        stdout(&accept),
        String::from_utf8_lossy(&accept.stderr)
    );
    assert_eq!(test_lines(&stdout(&accept)), expected(&[("-rf", "ok")]));
    let after = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(after.status.code(), Some(0), "{}", stdout(&after));
    // Other flags after the name are still libtest's.
    let with_flags = goldgate(
        dir.path(),
        &["test", "cases", "--exact", "-rf", "--test-threads", "1"],
    );
    assert_eq!(test_lines(&stdout(&with_flags)), expected(&[("-rf", "ok")]));
}

/// A misspelt filter runs nothing and exits 0, as libtest does (`cargo test FILTER` hands a filter
/// to every test target): goldgate's summary line says the filter matched no test.
#[test]
fn a_filter_that_matches_no_test_is_said_in_the_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/invoices/acme.yaml",
            "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n",
        )],
    );
    let misspelt = goldgate(dir.path(), &["test", "cases", "invoice/"]);
    assert_eq!(misspelt.status.code(), Some(0));
    assert_eq!(
        summary_line(&stdout(&misspelt)),
        "goldgate: 0 cases, 0 passed, 0 failed, 0 ignored; mean EM -, ANLS -, critical EM -, critical ANLS -; Brier -, ECE -; the filter `invoice/` matched no test, so none ran (`--list` shows their names)"
    );
    let right = goldgate(dir.path(), &["test", "cases", "invoices/"]);
    assert_eq!(right.status.code(), Some(0));
    assert!(
        !summary_line(&stdout(&right)).contains("matched no test"),
        "{}",
        stdout(&right)
    );
}

/// A French decimal with a unit after it (`79,26€`, `79,26 EUR`, `5,5%`) was read as the number's
/// first half and a key `26€` holding null, and passed: refused at the number as the bare decimal is.
#[test]
fn a_french_decimal_with_a_unit_split_by_flow_style_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/euro.yaml",
                "prediction: { total: \"79\" }\ngold: { total: 79,26€ }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/eur.yaml",
                "prediction: { total: \"79\" }\ngold: { total: 79,26 EUR }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/rate.yaml",
                "prediction: { rate: \"5\" }\ngold: { rate: 5,5% }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/inline.yaml",
                "prediction: { total: 79,26€ }\ngold: { total: \"79\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/quoted.yaml",
                "prediction: { total: \"79,26€\" }\ngold: { total: \"79,26€\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        test_lines(&out),
        expected(&[
            ("eur", "FAILED"),
            ("euro", "FAILED"),
            ("inline", "FAILED"),
            ("quoted", "ok"),
            ("rate", "FAILED"),
        ])
    );
    assert_eq!(
        first_failure_line(&out, "euro"),
        "error: cases/euro.yaml:2:16: gold.total: `79,26€` in a flow mapping is read by YAML as `total: 79` and a key `26€` holding null: a comma there separates entries (quote it: `total: \"79,26€\"`)"
    );
    assert_eq!(
        first_failure_line(&out, "eur"),
        "error: cases/eur.yaml:2:16: gold.total: `79,26 EUR` in a flow mapping is read by YAML as `total: 79` and a key `26 EUR` holding null: a comma there separates entries (quote it: `total: \"79,26 EUR\"`)"
    );
    assert_eq!(
        first_failure_line(&out, "rate"),
        "error: cases/rate.yaml:2:15: gold.rate: `5,5%` in a flow mapping is read by YAML as `rate: 5` and a key `5%` holding null: a comma there separates entries (quote it: `rate: \"5,5%\"`)"
    );
    assert_eq!(
        first_failure_line(&out, "inline"),
        "error: cases/inline.yaml:1:22: prediction.total: `79,26€` in a flow mapping is read by YAML as `total: 79` and a key `26€` holding null: a comma there separates entries (quote it: `total: \"79,26€\"`)"
    );
}

/// An aggregate bound every run meets (`min_anls: 0`, `min_pass_rate: 5e-10`, under the slack of
/// 1e-9) could never fail its aggregate test: refused at the bound, as it is in a case. A bound
/// above the slack loads.
#[test]
fn an_aggregate_bound_that_cannot_fail_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let case = "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n";
    let mut files: Vec<(String, String)> = Vec::new();
    let bounds = [
        (
            "anls",
            "min_anls: 0",
            "`min_anls` is 0",
            "raise it to what the suite must reach, such as `min_anls: 0.9`",
        ),
        (
            "rate",
            "min_pass_rate: 0",
            "`min_pass_rate` is 0",
            "raise it to what the suite must reach, such as `min_pass_rate: 0.9`",
        ),
        (
            "tiny",
            "min_pass_rate: 5e-10",
            "`min_pass_rate` is 0.0000000005",
            "raise it to what the suite must reach, such as `min_pass_rate: 0.9`",
        ),
        (
            "small",
            "min_anls: 1e-10",
            "`min_anls` is 0.0000000001",
            "raise it to what the suite must reach, such as `min_anls: 0.9`",
        ),
        (
            "ece",
            "max_ece: 1",
            "`max_ece` is 1",
            "lower it to what the suite may not exceed, such as `max_ece: 0.1`",
        ),
    ];
    for (name, bound, _, _) in bounds {
        files.push((
            format!("cases/{name}/suite.yaml"),
            format!("aggregate:\n  {bound}\n"),
        ));
        files.push((format!("cases/{name}/a.yaml"), case.to_owned()));
    }
    files.push((
        "cases/live/suite.yaml".into(),
        "aggregate:\n  min_pass_rate: 1e-8\n".into(),
    ));
    files.push(("cases/live/a.yaml".into(), case.to_owned()));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(dir.path(), &files);
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    let out = stdout(&lint);
    assert_eq!(lint.status.code(), Some(1), "{out}");
    for (name, bound, is, fix) in bounds {
        let key = bound.split(':').next().unwrap();
        let metric = &key[4..];
        let worst = if key.starts_with("max_") {
            "1 or less"
        } else {
            "0 or more"
        };
        let line = format!(
            "error: cases/{name}/suite.yaml:2:{}: aggregate.{key}: {is}, so it holds whatever the predictions say: `{metric}` is {worst}, and bounds are compared with a slack of 1e-9 ({fix}, or remove it)",
            key.len() + 5
        );
        assert!(out.contains(&line), "{line}\n{out}");
    }
    assert!(!out.contains("cases/live/"), "{out}");
    let test = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(test.status.code(), Some(101), "{}", stdout(&test));
}

/// An Easy-Wrong penalty within the slack of 1e-9 lowers a score by less than `min_score: 1.0`
/// can see, and `count: { min: 0 }` holds on any list: both made a case that could not fail.
#[test]
fn a_penalty_within_the_slack_or_a_count_of_at_least_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/penalty.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nrubrics:\n  - easy_wrong: total\n    field: total\n    exact: true\n    penalty: 1e-12\nthresholds: { min_score: 1.0 }\n",
            ),
            (
                "cases/suite_penalty/suite.yaml",
                "easy_wrong_penalty: 1e-10\n",
            ),
            (
                "cases/suite_penalty/a.yaml",
                "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nrubrics:\n  - easy_wrong: total\n    field: total\n    exact: true\nthresholds: { min_score: 1.0 }\n",
            ),
            (
                "cases/count.yaml",
                "prediction: { items: [] }\nrubrics:\n  - must_right: items are listed\n    field: items\n    count: { min: 0 }\n",
            ),
            (
                "cases/counted.yaml",
                "prediction: { items: [] }\nrubrics:\n  - must_right: items are listed\n    field: items\n    count: { min: 0, max: 3 }\n",
            ),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        first_failure_line(&out, "penalty"),
        "error: cases/penalty.yaml:7:14: rubrics[0].penalty: penalty 0.000000000001 is within the slack of 1e-9 that scores are compared with, so a failure of this rubric could not fail even `min_score: 1.0` (use a value such as 0.1, the default)"
    );
    assert_eq!(
        first_failure_line(&out, "suite_penalty/a"),
        "error: cases/suite_penalty/suite.yaml:1:21: easy_wrong_penalty: penalty 0.0000000001 is within the slack of 1e-9 that scores are compared with, so a failed Easy-Wrong rubric could not fail even `min_score: 1.0` (use a value such as 0.1, the default)"
    );
    assert_eq!(
        first_failure_line(&out, "count"),
        "error: cases/count.yaml:5:12: rubrics[0].count: `count: { min: 0 }` without a `max` holds on any number of items, so the check holds whatever the prediction says (ask for at least one item with `min: 1`, or bound it with `max`)"
    );
    assert_eq!(
        test_lines(&out)
            .iter()
            .find(|(n, _)| n == "counted")
            .map(|(_, v)| v.as_str()),
        Some("ok"),
        "{out}"
    );
}

/// `not: { matches: '[^\s\S]' }` holds on every value, since the pattern matches none: a case
/// checked by it alone could only ever pass, and is refused as `matches: '(?s).*'` is. A pattern
/// that can match, under `not`, is judged.
#[test]
fn a_pattern_that_matches_nothing_under_not_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let case = |check: &str| {
        format!(
            "prediction: {{ a: \"6\" }}\nrubrics:\n  - must_right: a\n    field: a\n    {check}\n"
        )
    };
    write_files(
        dir.path(),
        &[
            ("cases/never.yaml", &case(r"not: { matches: '[^\s\S]' }")),
            (
                "cases/never_any.yaml",
                &case(r"not: { matches: 'x\P{any}|[a&&b]' }"),
            ),
            ("cases/digit.yaml", &case(r"not: { matches: '^\d$' }")),
        ],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    for name in ["never", "never_any"] {
        assert_eq!(
            first_failure_line(&out, name),
            format!(
                "error: cases/{name}.yaml:3:5: every check of this case holds whatever the prediction says, so it could only ever pass (bound a metric that can fail (`min_exact_match: 1.0`), or give a rubric a check that can fail)"
            )
        );
    }
    assert!(
        first_failure_line(&out, "digit").starts_with("case failed: gate closed by must_right `a`"),
        "{out}"
    );
}

/// `min_confidence: 0` (or under the slack) asks only that a confidence is given, whatever it
/// is: refused, as `min_anls: 0` is.
#[test]
fn a_rubric_min_confidence_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/zero.yaml",
            "prediction: { total: { value: \"5\", confidence: 0.01 } }\ngold: { total: \"5\" }\nrubrics:\n  - must_right: total is confident\n    field: total\n    min_confidence: 1e-12\n",
        )],
    );
    let test = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&test);
    assert_eq!(test.status.code(), Some(101), "{out}");
    assert_eq!(
        first_failure_line(&out, "zero"),
        "error: cases/zero.yaml:6:21: rubrics[0].min_confidence: `min_confidence: 0.000000000001` is 0 within the comparison's slack (1e-9), so the check holds on every confidence given (raise it to the confidence a value must reach, such as 0.8)"
    );
}
