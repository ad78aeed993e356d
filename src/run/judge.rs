//! Asking a suite's judge, and its verdict file: committed beside the suite, keyed by
//! question, sorted, one block per verdict with the question, the judged text and the
//! explanation, so that a review reads it. Written atomically, merged under the file's lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use super::command::{CommandError, Secrets, run_with_input};
use crate::base::fs::read_text;
use crate::base::location::LoadError;
use crate::evaluate::judge::{JudgeVerdict, Question};
use crate::model::suite::Judge;

/// The verdicts of one file, by key.
pub(crate) type Verdicts = BTreeMap<String, Recorded>;

/// A verdict as the file keeps it: the question it answers and the verdict.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Recorded {
    pub(crate) question: Question,
    pub(crate) verdict: JudgeVerdict,
}

/// How much of a judged text the file shows (the key covers all of it).
const TEXT_SHOWN: usize = 400;

/// Reads a verdict file; a missing one has no verdicts.
pub(crate) fn read(path: &Path) -> Result<Verdicts, JudgeError> {
    if !path.exists() {
        return Ok(Verdicts::new());
    }
    let text = read_text(path).map_err(JudgeError::NotRead)?;
    let bad = |fault| JudgeError::NotAVerdictFile {
        path: path.to_path_buf(),
        fault,
    };
    let json = crate::base::json::strict_json(&text).map_err(|e| bad(VerdictFault::NotJson(e)))?;
    if json.get("goldgate_verdicts") != Some(&json!(1)) {
        return Err(bad(VerdictFault::NoVersion));
    }
    let Some(entries) = json.get("verdicts").and_then(Json::as_object) else {
        return Err(bad(VerdictFault::NoVerdicts));
    };
    let mut out = Verdicts::new();
    for (key, e) in entries {
        let text_of = |k: &str| e.get(k).and_then(Json::as_str).map(str::to_owned);
        let held = e.get("held").and_then(Json::as_bool);
        let votes: Option<Vec<bool>> = e
            .get("votes")
            .and_then(Json::as_array)
            .and_then(|v| v.iter().map(Json::as_bool).collect());
        let (Some(held), Some(question), Some(votes)) = (held, text_of("question"), votes) else {
            return Err(bad(VerdictFault::Incomplete { key: key.clone() }));
        };
        out.insert(
            key.clone(),
            Recorded {
                question: Question {
                    key: key.clone(),
                    question,
                    text: text_of("text").unwrap_or_default(),
                    field: text_of("field"),
                    gold: e.get("gold").filter(|g| !g.is_null()).cloned(),
                    case: text_of("case").unwrap_or_default(),
                },
                verdict: JudgeVerdict {
                    held,
                    explanation: text_of("explanation").unwrap_or_default(),
                    votes,
                },
            },
        );
    }
    Ok(out)
}

fn to_text(verdicts: &Verdicts) -> String {
    let entries: serde_json::Map<String, Json> = verdicts
        .iter()
        .map(|(key, r)| {
            let q = &r.question;
            let text: String = q.text.chars().take(TEXT_SHOWN).collect();
            let text = if text.len() < q.text.len() {
                format!("{text}…")
            } else {
                text
            };
            (
                key.clone(),
                json!({
                    "question": q.question,
                    "case": q.case,
                    "field": q.field,
                    "text": text,
                    "gold": q.gold,
                    "held": r.verdict.held,
                    "explanation": r.verdict.explanation,
                    "votes": r.verdict.votes,
                    "flip_rate": r.verdict.flip_rate(),
                }),
            )
        })
        .collect();
    let doc = json!({ "goldgate_verdicts": 1, "verdicts": entries });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Adds `new` to the verdict file at `path` (replacing verdicts of the same key), keeping every
/// other one, as one atomic rewrite under the file's lock.
#[cfg(test)]
pub(crate) fn merge(path: &Path, new: &[Recorded]) -> Result<(), JudgeError> {
    let _held = crate::base::lock::lock_for(path).map_err(|source| JudgeError::NotLocked {
        path: path.to_path_buf(),
        source,
    })?;
    merge_held(path, new)
}

/// [`merge`] for a caller that holds the file's lock already (`base::fs::lock_for`): a second lock from
/// the same process would wait for ever.
pub(crate) fn merge_held(path: &Path, new: &[Recorded]) -> Result<(), JudgeError> {
    let cannot = |source| JudgeError::NotWritten {
        path: path.to_path_buf(),
        source,
    };
    let mut all = read(path)?;
    for r in new {
        // The case named first stays named: a refresh asked by another pipeline's test (the
        // same text) changes no line of the file but the verdict's.
        let mut r = r.clone();
        if let Some(old) = all.get(&r.question.key) {
            r.question.case.clone_from(&old.question.case);
        }
        all.insert(r.question.key.clone(), r);
    }
    // Verdicts are committed: never written through a link, nor outside the project.
    crate::base::writing::replace(path, to_text(&all).as_bytes()).map_err(|r| cannot(r.into()))
}

/// Asks the judge `judge.repeat` times and keeps the majority. A command that fails, or prints
/// anything but `{"held": true|false, "explanation": "…"}`, is an error naming it.
pub(crate) fn ask(judge: &Judge, question: &Question) -> Result<JudgeVerdict, JudgeError> {
    let input = question.input().to_string();
    let mut answers = Vec::new();
    for _ in 0..judge.repeat {
        let ran = run_with_input(
            &judge.command,
            &judge.dir,
            judge.timeout,
            Some(input.as_bytes()),
            &Secrets::of(&[]),
        )
        .map_err(JudgeError::Command)?;
        let answer: Json =
            serde_json::from_str(ran.stdout.trim()).map_err(|source| JudgeError::NotAnAnswer {
                command: judge.command.clone(),
                printed: ran.stdout.trim().chars().take(200).collect(),
                source,
            })?;
        let Some(held) = answer.get("held").and_then(Json::as_bool) else {
            return Err(JudgeError::NoHeld {
                command: judge.command.clone(),
                answer,
            });
        };
        let explanation = answer
            .get("explanation")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        answers.push((held, explanation));
    }
    JudgeVerdict::of(&answers).ok_or(JudgeError::AskedNothing)
}

/// Why a verdict could not be had, or a verdict file not read or written.
#[derive(Debug)]
pub(crate) enum JudgeError {
    /// The verdict file cannot be read.
    NotRead(LoadError),
    /// The verdict file is not one.
    NotAVerdictFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        fault: VerdictFault,
    },
    /// The verdict file cannot be locked.
    NotLocked {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The verdict file cannot be written.
    NotWritten {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The judge's command failed.
    Command(CommandError),
    /// The judge printed something else than a JSON answer.
    NotAnAnswer {
        /// The judge's command.
        command: Vec<String>,
        /// The start of what it printed.
        printed: String,
        /// serde's error.
        source: serde_json::Error,
    },
    /// The judge's answer has no boolean `held`.
    NoHeld {
        /// The judge's command.
        command: Vec<String>,
        /// Its answer.
        answer: Json,
    },
    /// The judge was asked no time (`repeat: 0`).
    AskedNothing,
}

/// What is wrong with a verdict file.
#[derive(Debug)]
pub(crate) enum VerdictFault {
    /// It is not JSON.
    NotJson(serde_json::Error),
    /// It lacks `"goldgate_verdicts": 1`.
    NoVersion,
    /// It lacks a `verdicts` mapping.
    NoVerdicts,
    /// A verdict lacks what every verdict has.
    Incomplete {
        /// The verdict's key.
        key: String,
    },
}

impl std::fmt::Display for JudgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JudgeError::NotRead(e) => e.fmt(f),
            JudgeError::NotAVerdictFile { path, fault } => {
                write!(f, "{}: not a goldgate verdict file: ", path.display())?;
                match fault {
                    VerdictFault::NotJson(e) => e.fmt(f),
                    VerdictFault::NoVersion => f.write_str("it lacks `\"goldgate_verdicts\": 1`"),
                    VerdictFault::NoVerdicts => f.write_str("it lacks a `verdicts` mapping"),
                    VerdictFault::Incomplete { key } => write!(
                        f,
                        "the verdict `{key}` needs `question`, `held` and `votes`"
                    ),
                }
            }
            JudgeError::NotLocked { path, source } => {
                write!(f, "cannot lock the verdicts `{}`: {source}", path.display())
            }
            JudgeError::NotWritten { path, source } => {
                write!(
                    f,
                    "cannot write the verdicts `{}`: {source}",
                    path.display()
                )
            }
            JudgeError::Command(e) => write!(f, "the judge {e}"),
            JudgeError::NotAnAnswer {
                command, printed, ..
            } => write!(
                f,
                "the judge `{}` printed `{printed}`, not {{\"held\": true|false, \"explanation\": \"…\"}}",
                command.join(" ")
            ),
            JudgeError::NoHeld { command, answer } => write!(
                f,
                "the judge `{}` answered without a boolean `held`: {answer}",
                command.join(" ")
            ),
            JudgeError::AskedNothing => f.write_str("the judge was asked nothing"),
        }
    }
}

impl std::error::Error for JudgeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JudgeError::NotRead(e) => Some(e),
            JudgeError::NotAVerdictFile {
                fault: VerdictFault::NotJson(e),
                ..
            }
            | JudgeError::NotAnAnswer { source: e, .. } => Some(e),
            JudgeError::NotLocked { source, .. } | JudgeError::NotWritten { source, .. } => {
                Some(source)
            }
            JudgeError::Command(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_file_reads_back_what_was_merged_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("verdicts.json");
        let recorded = |key: &str, held: bool| Recorded {
            question: Question {
                key: key.into(),
                question: "Faithful?".into(),
                text: "the summary".into(),
                field: Some("summary".into()),
                gold: Some(json!("gold")),
                case: "a::guided".into(),
            },
            verdict: JudgeVerdict {
                held,
                explanation: "because".into(),
                votes: vec![held, held, !held],
            },
        };
        merge(&path, &[recorded("b", true)]).unwrap();
        merge(&path, &[recorded("a", false), recorded("b", false)]).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(back["b"], recorded("b", false));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"flip_rate\": 0.3333333333333333"), "{text}");
        std::fs::write(&path, "{\"verdicts\": {}}").unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.to_string().contains("not a goldgate verdict file"), "{e}");
        assert!(matches!(
            e,
            JudgeError::NotAVerdictFile {
                fault: VerdictFault::NoVersion,
                ..
            }
        ));
    }
}
