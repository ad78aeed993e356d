//! `fields:` rules: how each gold field is compared and when it is correct.

use crate::base::spanned::Spanned;

use super::in_file::InFile;
use crate::base::field_path::FieldPath;
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};
use crate::base::typed::{parse_date, read_number};
use crate::base::value::Value;
use crate::model::case::{Comparison, Correctness, FieldRule, GoldField};
use crate::spec::{Compare, Correct, FieldRuleSpec, Node};

impl InFile<'_> {
    /// Applies `fields:` rules to the gold fields, checking that they fit.
    pub(super) fn rules(
        &self,
        rules: &std::collections::BTreeMap<String, Spanned<FieldRuleSpec>>,
        gold: Option<&mut Vec<GoldField>>,
        gold_node: Option<&Node>,
    ) -> Result<(), LoadError> {
        let mut empty = Vec::new();
        let gold = gold.unwrap_or(&mut empty);
        for (name, spec) in rules {
            let mark = Mark::of(&spec.referenced);
            let path = format!("fields.{name}");
            let names: Vec<String> = gold.iter().map(|g| g.name.clone()).collect();
            // A rule on a path inside a field's value: how the leaves it reaches compare.
            if name.contains(['[', '.']) {
                self.path_rule(name, spec, gold, &names)?;
                continue;
            }
            let Some(field) = gold.iter_mut().find(|g| &g.name == name) else {
                let e = self.err(
                    mark,
                    &path,
                    format!("`fields` has a rule for `{name}`, which is not in `gold`"),
                );
                return Err(not_in_gold(e, name, &names));
            };
            field.rule = self.field_rule(&spec.value, mark, &path)?;
            self.gold_readable(field, name, gold_node, mark)?;
        }
        Ok(())
    }

    /// Adds a rule on a path inside a gold field's value (`total.amount`, `items[0]`).
    fn path_rule(
        &self,
        name: &str,
        spec: &Spanned<FieldRuleSpec>,
        gold: &mut [GoldField],
        names: &[String],
    ) -> Result<(), LoadError> {
        let mark = Mark::of(&spec.referenced);
        let path = format!("fields.{name}");
        let field_path = FieldPath::parse(name)
            .map_err(|why| self.err(mark, &path, format!("invalid field path: {why}")))?;
        let Some(field) = gold.iter_mut().find(|g| g.name == field_path.root()) else {
            let e = self.err(
                mark,
                &path,
                format!(
                    "`fields` has a rule for `{name}`, but `{}` is not in `gold`",
                    field_path.root()
                ),
            );
            return Err(not_in_gold(e, field_path.root(), names));
        };
        field.path_rules.push((field_path, comparison(&spec.value)));
        Ok(())
    }

    /// A field's rule, once each of its keys is checked to fit the others and its range.
    fn field_rule(
        &self,
        s: &FieldRuleSpec,
        mark: Mark,
        path: &str,
    ) -> Result<FieldRule, LoadError> {
        let compare = s.compare.unwrap_or(Compare::Text);
        if let (Some(t), false) = (&s.tolerance, compare == Compare::Number) {
            return Err(self
                .err(
                    Mark::of(&t.referenced),
                    &format!("{path}.tolerance"),
                    "`tolerance` applies to `compare: number`",
                )
                .hint("add `compare: number`, or remove `tolerance`"));
        }
        if let (Some(d), false) = (&s.day_first, compare == Compare::Date) {
            return Err(self
                .err(
                    Mark::of(&d.referenced),
                    &format!("{path}.day_first"),
                    "`day_first` applies to `compare: date`",
                )
                .hint("add `compare: date`, or remove `day_first`"));
        }
        let correct = s.correct.unwrap_or(Correct::Exact);
        if let (Some(m), Correct::Exact) = (&s.min_anls, correct) {
            return Err(self
                .err(
                    Mark::of(&m.referenced),
                    &format!("{path}.min_anls"),
                    "`min_anls` applies to `correct: anls`",
                )
                .hint("add `correct: anls`, or remove `min_anls`"));
        }
        let tolerance = s.tolerance.as_ref().map_or(0.0, |t| t.value);
        if !(tolerance >= 0.0 && tolerance.is_finite()) {
            return Err(self.err(
                mark,
                &format!("{path}.tolerance"),
                format!("`tolerance` is {tolerance}; it must be 0 or more"),
            ));
        }
        let min_anls = self.min_anls(s, mark, path)?;
        Ok(FieldRule {
            compare: comparison(s),
            correct: match correct {
                Correct::Exact => Correctness::Exact,
                Correct::Anls => Correctness::Anls(min_anls),
            },
        })
    }

    /// The ANLS from which a field is correct: 0.5 unless given, in (0, 1].
    fn min_anls(&self, s: &FieldRuleSpec, mark: Mark, path: &str) -> Result<f64, LoadError> {
        let min_anls = s.min_anls.as_ref().map_or(0.5, |m| m.value);
        let anls_mark = s
            .min_anls
            .as_ref()
            .map_or(mark, |m| Mark::of(&m.referenced));
        if !(0.0..=1.0).contains(&min_anls) {
            return Err(self.err(
                anls_mark,
                &format!("{path}.min_anls"),
                format!("`min_anls` is {min_anls}, outside [0, 1]"),
            ));
        }
        // ANLS is never below 0: every prediction, an absent one included, would be correct.
        if min_anls <= 0.0 {
            return Err(self
                .err(
                    anls_mark,
                    &format!("{path}.min_anls"),
                    "`min_anls` is 0, so every value of this field would count as correct",
                )
                .hint("raise it to the default 0.5 or above, or remove `correct: anls`"));
        }
        Ok(min_anls)
    }

    /// A gold value that is not a number (or date) could never be matched: said now.
    fn gold_readable(
        &self,
        field: &GoldField,
        name: &str,
        gold_node: Option<&Node>,
        mark: Mark,
    ) -> Result<(), LoadError> {
        let what = match field.rule.compare {
            Comparison::Text | Comparison::Identifier => return Ok(()),
            Comparison::Number { .. } => "a number",
            Comparison::Date { .. } => "a date",
        };
        for variant in &field.variants {
            let readable = match (variant, field.rule.compare) {
                (Value::Null, _) => true,
                (Value::Text(t), _) if t.trim().is_empty() => true,
                (Value::Text(t), Comparison::Number { .. }) => read_number(t).is_some(),
                (Value::Text(t), Comparison::Date { day_first }) => {
                    parse_date(t, day_first).is_some()
                }
                _ => false,
            };
            if !readable {
                let at = gold_node
                    .and_then(|g| g.as_map())
                    .and_then(|m| m.iter().find(|(k, _)| k == name))
                    .map_or(mark, |(_, n)| n.mark);
                return Err(self.err(at, &format!("gold.{name}"), format!("gold `{variant}` cannot be read as {what}, as `fields.{name}` requires"))
                    .hint(if what == "a date" {
                        "write the date as 2024-03-05 or 5 March 2024, or as 05/03/2024 with `day_first: true`"
                    } else {
                        "write the amount with digits, such as 1234.50 or 1 234,50"
                    }));
            }
        }
        Ok(())
    }
}

/// How a rule compares values; `tolerance` and `day_first` only count for their comparison.
fn comparison(s: &FieldRuleSpec) -> Comparison {
    match s.compare.unwrap_or(Compare::Text) {
        Compare::Text => Comparison::Text,
        Compare::Number => Comparison::Number {
            tolerance: s.tolerance.as_ref().map_or(0.0, |t| t.value),
        },
        Compare::Date => Comparison::Date {
            day_first: s.day_first.as_ref().is_some_and(|d| d.value),
        },
        Compare::Identifier => Comparison::Identifier,
    }
}

/// A rule for a field the gold lacks, with the gold field it most likely means.
fn not_in_gold(e: LoadError, name: &str, gold_names: &[String]) -> LoadError {
    match closest(name, gold_names.iter().map(String::as_str)) {
        Some(best) => e.hint(format!("did you mean `{best}`?")),
        None => e.hint("give the field a gold value, or remove its rule"),
    }
}
