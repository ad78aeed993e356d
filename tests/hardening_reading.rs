//! Readings that passed silently in an adversarial audit of number, date and text reading, each
//! run through the `goldgate` binary over a folder made by the test: numbers of 40 digits that
//! differ in the last, sums beyond a float's range, a date followed by other text, accounting
//! parentheses around a minus, DocuBench's empty list against a text, and invisible characters
//! inside a phrase a rubric forbids.

mod support;
use support::{goldgate, stdout, write_files};

/// `test NAME ... VERDICT` lines, sorted.
fn verdicts(out: &str) -> Vec<(String, String)> {
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

/// Runs `goldgate test cases` over the files; its standard output.
fn run(files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    stdout(&goldgate(dir.path(), &["test", "cases"]))
}

const FORTY: &str = "1234567890123456789012345678901234567890";
const FORTY_LAST_CHANGED: &str = "1234567890123456789012345678901234567891";

/// Two integers of 40 digits that differ in the last are two numbers, by the field rule and by
/// the `number:` check; the same digits grouped by thousands are one.
#[test]
fn integers_of_any_length_are_compared_digit_for_digit() {
    let case = |pred: &str| {
        format!(
            "prediction: {{ id: \"{pred}\" }}\ngold: {{ id: \"{FORTY}\" }}\nfields: {{ id: {{ compare: number }} }}\nthresholds: {{ min_exact_match: 1.0 }}\n"
        )
    };
    let rubric = |pred: &str| {
        format!(
            "prediction: {{ id: \"{pred}\" }}\nrubrics:\n  - {{ must_right: the id, field: id, number: \"{FORTY}\" }}\n"
        )
    };
    let grouped = "1,234,567,890,123,456,789,012,345,678,901,234,567,890";
    let out = run(&[
        ("cases/field_last_digit.yaml", &case(FORTY_LAST_CHANGED)),
        ("cases/field_grouped.yaml", &case(grouped)),
        ("cases/rubric_last_digit.yaml", &rubric(FORTY_LAST_CHANGED)),
        ("cases/rubric_grouped.yaml", &rubric(grouped)),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("field_grouped", "ok"),
            ("field_last_digit", "FAILED"),
            ("rubric_grouped", "ok"),
            ("rubric_last_digit", "FAILED"),
        ]),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "id: `{FORTY_LAST_CHANGED}` reads as {FORTY_LAST_CHANGED}, not {FORTY}"
        )),
        "{out}"
    );
}

/// `1e308 + 1e308` is not `1`, whether two parts, three, or every element of a list are summed:
/// the sum is exact, and the message writes it as a reader takes it in.
#[test]
fn a_sum_beyond_a_floats_range_is_computed_not_rounded_to_infinity() {
    let out = run(&[
        (
            "cases/two.yaml",
            "prediction: { ht: \"1e308\", tva: \"1e308\", total: \"1\" }\nrubrics:\n  - { must_right: sums, field: total, sum_of: [ht, tva] }\n",
        ),
        (
            "cases/three.yaml",
            "prediction: { a: \"1e308\", b: \"1e308\", c: \"-1e308\", total: \"1\" }\nrubrics:\n  - { must_right: sums, field: total, sum_of: [a, b, c] }\n",
        ),
        (
            "cases/items.yaml",
            "prediction: { items: [ { amount: \"1e308\" }, { amount: \"1e308\" } ], total: \"1\" }\nrubrics:\n  - { must_right: sums, field: total, sum_of: [\"items[*].amount\"] }\n",
        ),
        (
            "cases/long.yaml",
            &format!(
                "prediction: {{ a: \"{FORTY}\", b: \"1\", total: \"{FORTY}\" }}\nrubrics:\n  - {{ must_right: sums, field: total, sum_of: [a, b] }}\n"
            ),
        ),
        (
            "cases/exact.yaml",
            "prediction: { a: \"0.1\", b: \"0.2\", total: \"0.30\", big: \"1e308\", back: \"-1e308\", zero: \"0\" }\nrubrics:\n  - { must_right: sums, field: total, sum_of: [a, b] }\n  - { must_right: cancels, field: zero, sum_of: [big, back] }\n",
        ),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("exact", "ok"),
            ("items", "FAILED"),
            ("long", "FAILED"),
            ("three", "FAILED"),
            ("two", "FAILED"),
        ]),
        "{out}"
    );
    assert!(
        out.contains("total: `1` reads as 1, not the sum 2e308 of ht 1e308 + tva 1e308"),
        "{out}"
    );
}

/// A date is the whole value (a time of day after it allowed): other text after it, another
/// date, a range, makes the value no date.
#[test]
fn a_date_followed_by_other_text_is_not_that_date() {
    let case = |pred: &str| {
        format!(
            "prediction: {{ d: \"{pred}\" }}\ngold: {{ d: \"2024-03-05\" }}\nfields: {{ d: {{ compare: date }} }}\nthresholds: {{ min_exact_match: 1.0 }}\n"
        )
    };
    let out = run(&[
        ("cases/another_date.yaml", &case("2024-03-05 2099-12-31")),
        ("cases/words.yaml", &case("2024-03-05 foo bar")),
        ("cases/not.yaml", &case("2024-03-05 (not 2024-04-05)")),
        ("cases/range.yaml", &case("2024-03-05 to 2024-12-31")),
        ("cases/slash.yaml", &case("2024-03-05 / 2024-04-05")),
        ("cases/time.yaml", &case("2024-03-05T10:30:00+01:00")),
        ("cases/plain.yaml", &case("05/03/2024")),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("another_date", "FAILED"),
            ("not", "FAILED"),
            ("plain", "FAILED"),
            ("range", "FAILED"),
            ("slash", "FAILED"),
            ("time", "ok"),
            ("words", "FAILED"),
        ]),
        "{out}"
    );
}

/// `(-12.50)` is -12.50: the parentheses and the minus say one thing, never +12.50.
#[test]
fn accounting_parentheses_around_a_minus_are_negative() {
    let case = |gold: &str| {
        format!(
            "prediction: {{ refund: \"(-12.50)\" }}\ngold: {{ refund: \"{gold}\" }}\nfields: {{ refund: {{ compare: number }} }}\nthresholds: {{ min_exact_match: 1.0 }}\n"
        )
    };
    let out = run(&[
        ("cases/negative.yaml", &case("-12.50")),
        ("cases/positive.yaml", &case("12.50")),
        (
            "cases/rubric.yaml",
            "prediction: { refund: \"(-12.50)\" }\nrubrics:\n  - { must_right: positive, field: refund, number: \"12.50\" }\n",
        ),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("negative", "ok"),
            ("positive", "FAILED"),
            ("rubric", "FAILED"),
        ]),
        "{out}"
    );
    assert!(
        out.contains("refund: `(-12.50)` reads as -12.5, not 12.5"),
        "{out}"
    );
}

/// DocuBench's scorer has one rule for an empty value, `""`, `[]` or `{}`: a prediction of
/// something else is wrong. A gold `[]` against `"WRONG"` scored 1, in a case and in `score`.
#[test]
fn docubench_scores_an_empty_list_as_it_scores_an_empty_text() {
    let case = |gold: &str| {
        format!(
            "profile: docubench\nprediction: {{ a: \"WRONG\", b: \"x\" }}\ngold: {{ a: {gold}, b: \"x\" }}\nthresholds: {{ min_anls: 1.0 }}\n"
        )
    };
    let out = run(&[
        ("cases/empty_list.yaml", &case("[]")),
        ("cases/empty_text.yaml", &case("\"\"")),
        ("cases/empty_map.yaml", &case("{}")),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("empty_list", "FAILED"),
            ("empty_map", "FAILED"),
            ("empty_text", "FAILED"),
        ]),
        "{out}"
    );
    let dir = tempfile::tempdir().unwrap();
    let lines: String = ["[]", "\"\"", "{}"]
        .iter()
        .flat_map(|gold| {
            ["\"WRONG\"", "[\"x\"]", "[]"]
                .map(|pred| format!("{{\"gold\": {gold}, \"pred\": {pred}}}\n"))
        })
        .collect();
    std::fs::write(dir.path().join("pairs.jsonl"), lines).unwrap();
    let score = goldgate(
        dir.path(),
        &["score", "--profile", "docubench", "--jsonl", "pairs.jsonl"],
    );
    let wrong = "{\"anls\":0.0,\"em\":0}\n";
    let right = "{\"anls\":1.0,\"em\":1}\n";
    assert_eq!(stdout(&score), [wrong, wrong, right].repeat(3).concat());
    // Nested, and holding nothing but empty values: no shape to score, empty as `""` is.
    let nested: String = [
        "{\"b\": []}",
        "{\"b\": {}}",
        "{\"b\": \"\"}",
        "{\"b\": null}",
    ]
    .iter()
    .map(|gold| format!("{{\"gold\": {{\"a\": {gold}}}, \"pred\": {{\"a\": \"WRONG\"}}}}\n"))
    .collect();
    std::fs::write(dir.path().join("nested.jsonl"), nested).unwrap();
    let score = goldgate(
        dir.path(),
        &["score", "--profile", "docubench", "--jsonl", "nested.jsonl"],
    );
    assert_eq!(stdout(&score), wrong.repeat(4));
}

/// A zero-width space or a soft hyphen inside a word is no text to a reader: `not_contains:
/// [has been paid]` fails on `has been pa\u{200B}id`, and `equals` holds.
#[test]
fn invisible_characters_do_not_hide_a_phrase_from_a_rubric() {
    let case = |note: &str, check: &str| {
        format!(
            "prediction: {{ note: \"{note}\" }}\nrubrics:\n  - {{ must_right: r, field: note, {check} }}\n"
        )
    };
    let out = run(&[
        (
            "cases/zero_width.yaml",
            &case("has been pa\\u200Bid", "not_contains: [has been paid]"),
        ),
        (
            "cases/soft_hyphen.yaml",
            &case("has been pa\\u00ADid", "not_contains: [has been paid]"),
        ),
        (
            "cases/equals.yaml",
            &case("\\uFEFFPaid\\u2060", "equals: paid"),
        ),
        (
            "cases/clean.yaml",
            &case("not yet settled", "not_contains: [has been paid]"),
        ),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("clean", "ok"),
            ("equals", "ok"),
            ("soft_hyphen", "FAILED"),
            ("zero_width", "FAILED"),
        ]),
        "{out}"
    );
}

/// A tag value or a predicted key wider than Rust's formatting pads (65,535 characters) once
/// stopped the run at the end of its tables, and a prediction nested 126 levels deep stopped its
/// records from being read back (serde_json's 128 levels): the run ends, its report and JUnit are
/// written, its end is printed.
#[test]
fn a_huge_name_or_a_deep_prediction_never_stops_the_run_end() {
    let wide = "x".repeat(70_000);
    let deep = format!("{}\"y\"{}", "[".repeat(126), "]".repeat(126));
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/wide_tag.yaml",
                &format!(
                    "tags: {{ lang: {wide} }}\nprediction: {{ a: x }}\ngold: {{ a: x }}\nthresholds: {{ min_anls: 0.5 }}\n"
                ),
            ),
            (
                "cases/short_tag.yaml",
                "tags: { lang: fr }\nprediction: { a: x }\ngold: { a: x }\nthresholds: { min_anls: 0.5 }\n",
            ),
            (
                "cases/wide_key.yaml",
                "prediction: wide.json\ngold: { a: x }\nthresholds: { min_anls: 0.5 }\n",
            ),
            (
                "cases/wide.json",
                &format!("{{\"{wide}\": \"y\", \"a\": \"y\"}}"),
            ),
            (
                "cases/deep.yaml",
                "prediction: deep.json\ngold: { a: [x] }\nthresholds: { min_anls: 0.5 }\n",
            ),
            ("cases/deep.json", &format!("{{\"a\": {deep}}}")),
        ],
    );
    let out = goldgate(
        dir.path(),
        &["test", "cases", "--report", "r.json", "--junit", "j.xml"],
    );
    let shown = stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{shown}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(shown.contains("goldgate: 4 cases"), "{shown}");
    for file in ["r.json", "j.xml"] {
        assert!(dir.path().join(file).exists(), "{file}: {stderr}");
    }
    assert_eq!(
        verdicts(&shown),
        expected(&[
            ("deep", "FAILED"),
            ("short_tag", "ok"),
            ("wide_key", "FAILED"),
            ("wide_tag", "ok"),
        ])
    );
}

/// A value of invisible characters alone is no value (`present: true` fails on it, as on
/// spaces); a time after a date is a time of day, or the value is no date.
#[test]
fn invisible_values_are_absent_and_times_are_times() {
    let date = |pred: &str| {
        format!(
            "prediction: {{ d: \"{pred}\" }}\ngold: {{ d: \"2024-03-05\" }}\nfields: {{ d: {{ compare: date }} }}\nthresholds: {{ min_exact_match: 1.0 }}\n"
        )
    };
    let out = run(&[
        (
            "cases/zero_width.yaml",
            "prediction: { s: \"\\u200B\" }\nrubrics:\n  - { must_right: r, field: s, present: true }\n",
        ),
        (
            "cases/word.yaml",
            "prediction: { s: \"x\\u200B\" }\nrubrics:\n  - { must_right: r, field: s, present: true }\n",
        ),
        ("cases/bad_clock.yaml", &date("2024-03-05T99:99:99")),
        ("cases/bad_zone.yaml", &date("2024-03-05T10:30:00+99:00")),
        ("cases/good_time.yaml", &date("2024-03-05T23:59:60-05:00")),
    ]);
    assert_eq!(
        verdicts(&out),
        expected(&[
            ("bad_clock", "FAILED"),
            ("bad_zone", "FAILED"),
            ("good_time", "ok"),
            ("word", "ok"),
            ("zero_width", "FAILED"),
        ]),
        "{out}"
    );
}

/// The misses at the end of a run show each pipeline's 20 fields that missed most, and say how
/// many more there are: a case of 100,000 wrong fields printed 100,000 rows.
#[test]
fn the_misses_at_the_end_of_a_run_are_bounded() {
    let gold: Vec<String> = (0..100).map(|i| format!("f{i:03}: g{i}")).collect();
    let pred: Vec<String> = (0..100).map(|i| format!("f{i:03}: p{i}")).collect();
    let case = format!(
        "prediction: {{ {} }}\ngold: {{ {} }}\nthresholds: {{ min_exact_match: 1.0 }}\n",
        pred.join(", "),
        gold.join(", ")
    );
    let out = run(&[("cases/many.yaml", &case)]);
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("misses"))
        .take_while(|l| !l.is_empty())
        .collect();
    // The header, the pipeline's row, 20 fields, the count of the others.
    assert_eq!(table.len(), 23, "{out}");
    assert_eq!(
        table[22],
        "… and 80 more fields and slices that missed fewer (the report and the HTML page have every one)"
    );
}
