//! Judged rubrics: the question a `judge:` check puts to the suite's judge, the key
//! its verdict is kept under, and the verdicts a run knows. Evaluation stays pure: a check
//! whose verdict is not known says so and is noted, and the run decides whether to ask.

use std::cell::RefCell;

use crate::base::fs::hash_hex;
use crate::base::value::Value;
use crate::evaluate::finding::Finding;

/// One question put to a judge: what its standard input carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The key its verdict is kept under: a hash of the command, question, judged text and gold.
    pub key: String,
    /// The yes/no question.
    pub question: String,
    /// The judged text: the field's value, or the whole prediction.
    pub text: String,
    /// The field's path, when the check has one.
    pub field: Option<String>,
    /// The field's gold (`{"any_of": […]}` for alternatives), when it has one.
    pub gold: Option<serde_json::Value>,
    /// The test's name.
    pub case: String,
}

impl Question {
    /// What the judge reads on its standard input.
    pub fn input(&self) -> serde_json::Value {
        serde_json::json!({
            "question": self.question,
            "text": self.text,
            "field": self.field,
            "gold": self.gold,
            "case": self.case,
        })
    }
}

/// A judge's verdict on one question: the majority of its answers.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeVerdict {
    /// The majority answer (a tie is "no": a rubric holds only when the judge says so).
    pub held: bool,
    /// The explanation of the first answer that agrees with the majority.
    pub explanation: String,
    /// Every answer, in the order given (one unless the suite's `repeat` asks for more).
    pub votes: Vec<bool>,
}

impl JudgeVerdict {
    /// The majority of `answers` (held, explanation); `None` for no answer.
    pub fn of(answers: &[(bool, String)]) -> Option<JudgeVerdict> {
        if answers.is_empty() {
            return None;
        }
        let yes = answers.iter().filter(|(h, _)| *h).count();
        let held = 2 * yes > answers.len();
        let explanation = answers
            .iter()
            .find(|(h, _)| *h == held)
            .map(|(_, e)| e.clone())
            .unwrap_or_default();
        Some(JudgeVerdict {
            held,
            explanation,
            votes: answers.iter().map(|(h, _)| *h).collect(),
        })
    }

    /// The share of answers that disagree with the majority: 0 when the judge is steady.
    pub fn flip_rate(&self) -> f64 {
        if self.votes.is_empty() {
            return 0.0;
        }
        let against = self.votes.iter().filter(|v| **v != self.held).count();
        against as f64 / self.votes.len() as f64
    }
}

/// Why a verdict could not be had (the judge failed, its verdict file does not read): the error
/// of the run that asked, shared by every case that needs the verdict; a finding keeps its
/// message.
pub type JudgeFailed = std::sync::Arc<dyn std::error::Error + Send + Sync>;

/// The verdicts a case is evaluated with, and the questions it asked that had none.
pub struct Judgments<'a> {
    /// The suite's judge command (its words are part of each key); `None` without a judge.
    pub command: Option<&'a [String]>,
    /// The test's name, sent with each question.
    pub case: &'a str,
    /// A known verdict by key, or why it could not be had (the judge failed).
    pub lookup: &'a dyn Fn(&str) -> Option<Result<JudgeVerdict, JudgeFailed>>,
    /// The command that records missing verdicts, for the message of a missing one.
    pub record_command: &'a str,
    /// Questions whose verdict was not known, each once.
    pub missing: RefCell<Vec<Question>>,
}

impl Judgments<'_> {
    /// No judge and no verdicts: what a case without `judge:` checks is evaluated with.
    pub fn none() -> Judgments<'static> {
        Judgments {
            command: None,
            case: "",
            lookup: &|_| None,
            record_command: "",
            missing: RefCell::new(Vec::new()),
        }
    }

    /// The verdict on `question` about `text` (with its gold), or why there is none.
    pub(crate) fn verdict(
        &self,
        question: &str,
        text: &str,
        field: Option<String>,
        gold: Option<&[Value]>,
    ) -> Result<JudgeVerdict, Finding> {
        let Some(command) = self.command else {
            return Err(Finding::NoJudge);
        };
        let gold = gold.map(|variants| match variants {
            [one] => one.to_json(),
            many => {
                serde_json::json!({ "any_of": many.iter().map(Value::to_json).collect::<Vec<_>>() })
            }
        });
        let key = key(command, question, text, gold.as_ref());
        match (self.lookup)(&key) {
            Some(known) => known.map_err(|error| Finding::JudgeFailed {
                error: error.to_string(),
            }),
            None => {
                let mut missing = self.missing.borrow_mut();
                if !missing.iter().any(|q| q.key == key) {
                    missing.push(Question {
                        key,
                        question: question.to_owned(),
                        text: text.to_owned(),
                        field,
                        gold,
                        case: self.case.to_owned(),
                    });
                }
                Err(Finding::NoVerdict {
                    record_command: self.record_command.to_owned(),
                })
            }
        }
    }
}

/// The key of a verdict: the same command, question, judged text and gold give the same key in
/// every run and on every machine.
pub fn key(
    command: &[String],
    question: &str,
    text: &str,
    gold: Option<&serde_json::Value>,
) -> String {
    let command = command.join("\u{0}");
    let gold = gold.map_or_else(String::new, serde_json::Value::to_string);
    hash_hex(&[
        command.as_bytes(),
        question.as_bytes(),
        text.as_bytes(),
        gold.as_bytes(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_majority_of_the_answers_and_how_often_the_judge_flipped() {
        let a = |h: bool, e: &str| (h, e.to_owned());
        let v = JudgeVerdict::of(&[a(true, "yes"), a(false, "no"), a(true, "yes again")]).unwrap();
        assert!(v.held);
        assert_eq!(v.explanation, "yes");
        assert_eq!(v.flip_rate(), 1.0 / 3.0);
        // A tie is no: the rubric holds only when the judge says so.
        let tie = JudgeVerdict::of(&[a(true, "y"), a(false, "n")]).unwrap();
        assert!(!tie.held && tie.explanation == "n" && tie.flip_rate() == 0.5);
        assert_eq!(JudgeVerdict::of(&[]), None);
    }

    #[test]
    fn a_key_depends_on_every_part_and_on_nothing_else() {
        let cmd = vec!["python3".to_owned(), "judge.py".to_owned()];
        let k = key(&cmd, "Faithful?", "text", None);
        assert_eq!(k, key(&cmd, "Faithful?", "text", None));
        assert_eq!(k.len(), 32);
        assert_ne!(k, key(&cmd, "Faithful?", "text ", None));
        assert_ne!(k, key(&cmd, "Faithful? ", "text", None));
        assert_ne!(k, key(&cmd[..1], "Faithful?", "text", None));
        assert_ne!(
            k,
            key(&cmd, "Faithful?", "text", Some(&serde_json::json!("g")))
        );
    }
}
