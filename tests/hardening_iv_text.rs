//! Text that reads the same is one text however its characters are encoded: with accents kept
//! (`normalize: { strip_accents: false }`), a precomposed and a decomposed "Société" are equal, and
//! `not_contains: [payée]` finds a decomposed "payée".

mod support;
use support::{goldgate, stdout, verdict_of, write_files};

#[test]
fn accents_kept_still_compare_one_unicode_form() {
    let dir = tempfile::tempdir().unwrap();
    // `\u00E9` is é precomposed; `e\u0301` is e and a combining acute accent: the same letter.
    write_files(
        dir.path(),
        &[
            (
                "cases/em.yaml",
                "normalize: { strip_accents: false }\ngold: { name: \"Soci\\u00E9t\\u00E9\" }\nprediction: { name: \"Socie\\u0301te\\u0301\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            // Another letter is still another letter: accents are kept, not dropped.
            (
                "cases/other_letter.yaml",
                "normalize: { strip_accents: false }\ngold: { name: \"Soci\\u00E9t\\u00E9\" }\nprediction: { name: \"Societe\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/not_contains.yaml",
                "normalize: { strip_accents: false }\nprediction: { note: \"facture paye\\u0301e\" }\nrubrics:\n  - { must_right: unpaid, field: note, not_contains: [\"pay\\u00E9e\"] }\n",
            ),
            // All steps off is the raw text: compared code point for code point, as written.
            (
                "cases/raw.yaml",
                "normalize: false\ngold: { name: \"Soci\\u00E9t\\u00E9\" }\nprediction: { name: \"Socie\\u0301te\\u0301\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    for (name, verdict) in [
        ("em", "ok"),
        ("not_contains", "FAILED"),
        ("other_letter", "FAILED"),
        ("raw", "FAILED"),
    ] {
        assert_eq!(
            verdict_of(&out, name),
            format!("test {name} ... {verdict}"),
            "{out}"
        );
    }
}
