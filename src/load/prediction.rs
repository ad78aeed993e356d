//! Reading predictions: the envelope, confidences, usage.

use std::path::Path;

use super::prediction_format as format;
use crate::base::budget::{OVERSIZED_HINT, oversized};
use crate::base::fs::{outside_the_project, read_text};
use crate::base::json::{Json, prediction_tree};
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest, closest_within};
use crate::base::value::Value;
use crate::model::case::{Document, PredictionSource, WrittenIn};
use crate::model::prediction::{
    BOX_MESSAGE, CallFailure, FailedCall, PredictedField, Prediction, PredictionFormat, Usage,
    UsageMismatch,
};
use crate::spec::{Node, parse_yaml};

/// Reads a case's prediction. A missing or broken file is an error naming it.
pub fn read_prediction(
    source: &PredictionSource,
    case_file: &Path,
) -> Result<Prediction, LoadError> {
    match source {
        PredictionSource::Text(text) => Ok(text_prediction(text.clone())),
        PredictionSource::Run { command, .. } => Err(LoadError::file(
            case_file,
            format!(
                "the prediction is the output of `{}`, which only `goldgate test` runs",
                command.join(" ")
            ),
        )),
        PredictionSource::Inline(node, written_in) => {
            // A suite's inline prediction is located in the suite file, naming the case.
            let written = Written::of(node.mark, written_in, case_file);
            let locate = |path: &[String], msg: String, hint: Option<String>| {
                let msg = format!("{msg}{}", written.applied);
                locate_in_node(written.file, node, "prediction", path, msg, hint)
            };
            envelope(Json::of_value(node.to_value()), false)
                .map(|p| located_boxes(p, &[], &locate))
                .map_err(|(path, msg, hint)| locate(&path, msg, hint))
        }
        PredictionSource::File {
            path,
            at,
            written_in,
            format,
        } => {
            let written = Written::of(*at, written_in, case_file);
            let text = recorded_text(path, &written)?;
            let mut p = match format {
                Some(format) if is_json(path) => formatted_prediction(path, &text, format)?,
                Some(format) => {
                    let (file, mark) = &format.at;
                    return Err(written
                        .error(format!(
                            "prediction `{}` is not a .json document, and the `prediction_format` at {}:{}:{} reads JSON documents{}",
                            path.display(),
                            file.display(),
                            mark.line,
                            mark.column,
                            written.applied
                        ))
                        .hint("record the pipeline's JSON document there, a .json file"));
                }
                None => recorded_prediction(path, text, &written)?,
            };
            p.usage_mismatch =
                p.usage
                    .and_then(|u| u.unaccounted())
                    .map(|(total, parts)| UsageMismatch {
                        file: path.display().to_string(),
                        total,
                        parts,
                    });
            Ok(p)
        }
    }
}

/// Where the path of a recorded prediction is written: the errors about its file point there.
struct Written<'a> {
    file: &'a Path,
    at: Mark,
    key: &'static str,
    /// `, as applied to CASE` for a suite's path, which serves every case below it.
    applied: String,
    /// What the path is relative to.
    relative: &'static str,
}

impl<'a> Written<'a> {
    fn of(at: Mark, written_in: &'a WrittenIn, case_file: &'a Path) -> Written<'a> {
        let applied = format!(", as applied to `{}`", case_file.display());
        // A suite's path is written in its suite file, relative to the suite's folder.
        match written_in {
            WrittenIn::Pipeline(suite) => Written {
                file: suite,
                at,
                key: "pipelines",
                applied,
                relative: "it is relative to the suite's folder, and `{case}` is the case's path from there",
            },
            WrittenIn::Defaults(suite) => Written {
                file: suite,
                at,
                key: "prediction",
                applied,
                relative: "it is relative to the suite's folder",
            },
            WrittenIn::Case => Written {
                file: case_file,
                at,
                key: "prediction",
                applied: String::new(),
                relative: "it is relative to the case file",
            },
        }
    }

    fn error(&self, message: String) -> LoadError {
        LoadError::at(self.file, self.at, self.key, message)
    }
}

/// The text of a recorded prediction, read only inside the project.
fn recorded_text(path: &Path, written: &Written) -> Result<String, LoadError> {
    let applied = &written.applied;
    let reader = written.file.parent().unwrap_or(Path::new("."));
    if let Some(root) = outside_the_project(reader, path) {
        return Err(written.error(
            format!(
                "prediction `{}` is outside the project `{}`, and goldgate reads nothing outside it{applied}",
                path.display(),
                root.display()
            ),
        )
        .hint("keep recorded outputs inside the project (the folder with Cargo.toml or .git); a link that leads out counts as outside"));
    }
    // Read first; why it cannot be read is said where the case names it.
    let unread = match read_text(path) {
        Ok(text) => return Ok(text),
        Err(unread) => unread,
    };
    let kind = std::fs::metadata(path).map(|m| m.is_dir());
    if kind.as_ref().is_ok_and(|&dir| dir) {
        return Err(written.error(format!(
            "prediction `{}` is a folder, not a file{applied}",
            path.display()
        )));
    }
    // A FIFO or a device exists: reading it said what it is.
    if kind.is_err() && !path.exists() {
        return Err(written
            .error(format!(
                "prediction file `{}` does not exist{applied}",
                path.display()
            ))
            .hint(format!(
                "record the pipeline's output there, or fix the path: {}",
                written.relative
            )));
    }
    Err(unread)
}

/// The predicted fields of a recorded `.json` prediction as typed JSON (numbers, booleans and
/// texts apart), for a profile that compares typed values: under the prediction's format, at
/// its `fields` path; else an envelope's `fields`, or the whole document. `None` for any other
/// prediction, or one that does not read (its errors were reported when it was read).
pub fn typed_fields(source: &PredictionSource) -> Option<serde_json::Value> {
    let PredictionSource::File { path, format, .. } = source else {
        return None;
    };
    if !is_json(path) {
        return None;
    }
    // Through the one reader of recorded outputs: within the 64 MiB a command may print, as
    // when the prediction itself was read (which said why a larger one is not).
    let text = read_text(path).ok()?;
    let doc = crate::base::json::prediction_json(&text).ok()?;
    match format {
        Some(format) => {
            let mut at = &doc;
            for step in &format.fields {
                at = match at {
                    serde_json::Value::Object(map) => map.get(step)?,
                    serde_json::Value::Array(items) => items.get(step.parse::<usize>().ok()?)?,
                    _ => return None,
                };
            }
            Some(at.clone())
        }
        None => match doc.get("fields") {
            Some(fields @ serde_json::Value::Object(_)) => Some(fields.clone()),
            _ => Some(doc),
        },
    }
}

/// A prediction as `profile: docubench` scores it: its document is what the benchmark's scorer
/// reads (see [`docubench_result`]). A failed call keeps its failure, so that the case fails,
/// but it is scored as the scorer scores it and counts in the pipeline's mean; a result whose
/// fields are missing or not a mapping is such a call, not an unreadable prediction.
pub fn as_docubench(
    source: &PredictionSource,
    read: Result<Prediction, LoadError>,
) -> Result<Prediction, LoadError> {
    let result = docubench_result(source);
    match (read, result) {
        (Ok(mut p), Some((data, _))) => {
            p.document = Some(std::sync::Arc::new(data));
            Ok(p)
        }
        (Err(e), Some((data, Some(because)))) => {
            let mut p = text_prediction(String::new());
            p.is_document = true;
            p.document = Some(std::sync::Arc::new(data));
            p.failed = Some(FailedCall {
                file: e.file.clone(),
                at: Mark {
                    line: e.line,
                    column: e.column,
                },
                because,
            });
            Ok(p)
        }
        (read, _) => read,
    }
}

/// What DocuBench's `score_all.py` scores of a recorded result (`.get("data", {})`): the value at
/// the format's `fields` path as written, `{}` when the path reaches nothing; and, when that is
/// not a mapping (nothing, a list, a text), the failed call it is. Without a format, what
/// [`typed_fields`] reads. `None` for a prediction that is not a JSON file that reads.
pub fn docubench_result(
    source: &PredictionSource,
) -> Option<(serde_json::Value, Option<CallFailure>)> {
    let PredictionSource::File {
        path,
        format: Some(format),
        ..
    } = source
    else {
        return typed_fields(source).map(|v| (v, None));
    };
    if !is_json(path) {
        return None;
    }
    // Through the one reader of recorded outputs: within the 64 MiB a command may print, as
    // when the prediction itself was read (which said why a larger one is not).
    let text = read_text(path).ok()?;
    let doc = crate::base::json::prediction_json(&text).ok()?;
    let said = || format::said(&prediction_tree(&text).ok()?);
    let shown = format.fields.join(".");
    let mut at = Some(&doc);
    for step in &format.fields {
        at = match at {
            Some(serde_json::Value::Object(map)) => map.get(step),
            _ => None,
        };
    }
    Some(match at {
        None => {
            let path = shown;
            let failure = CallFailure::NoFields { path, said: said() };
            (serde_json::json!({}), Some(failure))
        }
        Some(fields @ (serde_json::Value::Object(_) | serde_json::Value::Null)) => {
            (fields.clone(), None)
        }
        Some(other) => {
            let found = match other {
                serde_json::Value::Array(_) => "a list",
                serde_json::Value::String(_) => "a text",
                serde_json::Value::Number(_) => "a number",
                _ => "a boolean",
            }
            .to_owned();
            let failure = CallFailure::NotFields {
                path: shown,
                found,
                said: said(),
            };
            (other.clone(), Some(failure))
        }
    })
}

/// A recorded prediction, read as its extension says: `.txt` text, `.json` JSON, else YAML.
fn recorded_prediction(
    path: &Path,
    text: String,
    written: &Written,
) -> Result<Prediction, LoadError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("txt") => Ok(text_prediction(text)),
        Some("json") => json_prediction(path, &text),
        Some("csv") => kieval_prediction(path, text),
        _ if looks_like_case(&text) => Err(written
            .error(format!(
                "`{}` is a goldgate case file, not a prediction{}",
                path.display(),
                written.applied
            ))
            .hint("point `prediction:` at the pipeline's recorded output")),
        _ => yaml_prediction(path, &text),
    }
}

/// A prediction in KIEval's CSV layout (`profile: kieval`): its groups and entities are its
/// fields.
fn kieval_prediction(path: &Path, text: String) -> Result<Prediction, LoadError> {
    let node = super::kieval_csv::read(path, &text)?;
    let fields = node
        .as_map()
        .unwrap_or_default()
        .iter()
        .map(|(name, n)| PredictedField {
            name: name.clone(),
            value: n.to_value(),
            confidence: None,
            metadata: Vec::new(),
            place: None,
            whole: None,
            bbox_at: None,
            confidence_error: None,
        })
        .collect();
    Ok(Prediction {
        fields,
        is_document: true,
        ..text_prediction(text)
    })
}

fn is_json(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some("json")
}

/// A pipeline's own JSON document read through a `prediction_format`: the keys it names are
/// read, the others ignored. A failed call is a prediction with its failure, nothing else.
fn formatted_prediction(
    path: &Path,
    text: &str,
    format: &PredictionFormat,
) -> Result<Prediction, LoadError> {
    let doc = json_tree(path, text)?;
    let locate =
        |p: &[String], msg: String, hint: Option<String>| locate_in_json(path, text, p, msg, hint);
    through_format(doc, format, path, &locate)
}

/// Where an error of a document read through a format goes: (path in the document, message,
/// hint) to a located error.
type Locate<'a> = dyn Fn(&[String], String, Option<String>) -> LoadError + 'a;

/// A pipeline's document read through a `prediction_format`; `file` is what a failed call names.
fn through_format(
    mut doc: Json,
    format: &PredictionFormat,
    file: &Path,
    locate: &Locate,
) -> Result<Prediction, LoadError> {
    let (format_file, format_at) = &format.at;
    let says = format!(
        "the `prediction_format` at {}:{}:{}",
        format_file.display(),
        format_at.line,
        format_at.column
    );
    let mut p = text_prediction(String::new());
    p.is_document = true;
    let failed = |steps: &[String], because: CallFailure| {
        let e = locate(steps, String::new(), None);
        Some(FailedCall {
            file: file.to_path_buf(),
            at: Mark {
                line: e.line,
                column: e.column,
            },
            because,
        })
    };
    if !matches!(doc, Json::Object(_)) {
        return Err(locate(
            &[],
            format!("a pipeline's document must be a mapping, as {says} reads it"),
            None,
        ));
    }
    if let Some((steps, because)) = format::not_ok(&doc, format) {
        p.failed = failed(&steps, because);
        return Ok(p);
    }
    let shown = format.fields.join(".");
    match format::take(&mut doc, &format.fields) {
        None => {
            return Err(locate(
                &[],
                format!(
                    "`{shown}` reaches nothing in this document, where {says} reads the fields"
                ),
                Some(
                    "fix the format's `fields` path, or record the pipeline's whole document"
                        .into(),
                ),
            ));
        }
        Some(Json::Null) => {
            let said = format::said(&doc);
            p.failed = failed(
                &format.fields,
                CallFailure::NullFields { path: shown, said },
            );
            return Ok(p);
        }
        Some(Json::Object(entries)) => format_fields(&mut p, entries, format, locate)?,
        Some(other) => {
            return Err(locate(
                &format.fields,
                format!(
                    "`{shown}` must be a mapping of field names to values, found {}",
                    other.kind()
                ),
                None,
            ));
        }
    }
    other_parts(&mut p, &doc, format, locate)?;
    Ok(p)
}

/// The fields a `prediction_format`'s `fields` path reached, each located below that path.
fn format_fields(
    p: &mut Prediction,
    entries: Vec<(String, Json)>,
    format: &PredictionFormat,
    locate: &Locate,
) -> Result<(), LoadError> {
    for (name, value) in entries {
        let mut field = predicted_field(name, value, true, false).map_err(|(at, m, h)| {
            let mut steps = format.fields.clone();
            steps.extend(at);
            locate(&steps, m, h)
        })?;
        locate_box(&mut field, &format.fields, locate);
        push_field(p, field);
    }
    Ok(())
}

/// The parts of a document besides its fields that a `prediction_format` says where to find:
/// latency, usage, model, cost and confidences. A path reaching nothing, or `null`, is not
/// reported.
fn other_parts(
    p: &mut Prediction,
    doc: &Json,
    format: &PredictionFormat,
    locate: &Locate,
) -> Result<(), LoadError> {
    let reported = |steps: Option<&Vec<String>>| {
        steps
            .and_then(|s| format::at(doc, s).map(|v| (s.clone(), v)))
            .filter(|(_, v)| !matches!(v, Json::Null))
    };
    let in_json = |(at, m, h): EnvelopeError| locate(&at, m, h);
    if let Some((seconds, (steps, value))) = format
        .latency
        .as_ref()
        .and_then(|(s, seconds)| Some((*seconds, reported(Some(s))?)))
    {
        let what = if seconds { "latency_s" } else { "latency_ms" };
        let n = number(value, steps, what, 0.0, f64::INFINITY).map_err(in_json)?;
        p.latency_ms = Some(if seconds { n * 1000.0 } else { n });
    }
    if let Some((steps, value)) = reported(format.usage.as_ref()) {
        p.usage = Some(usage(value, steps).map_err(in_json)?);
    }
    if let Some((steps, value)) = reported(format.model.as_ref()) {
        p.model = Some(format::scalar_text(value).ok_or_else(|| {
            locate(
                &steps,
                format!("the model must be a name, found {}", value.kind()),
                None,
            )
        })?);
    }
    if let Some((steps, value)) = reported(format.cost_usd.as_ref()) {
        p.reported_cost_usd =
            Some(number(value, steps, "cost_usd", 0.0, f64::INFINITY).map_err(in_json)?);
    }
    if let Some((steps, value)) = reported(format.confidence.as_ref()) {
        sibling_confidences(p, value, &steps, locate)?;
    }
    Ok(())
}

/// The confidences of a mapping beside the fields (`prediction_format.confidence`), given to
/// the fields of their names. A confidence of a field the prediction does not hold is that of
/// its absence: the field is predicted empty, with that confidence.
fn sibling_confidences(
    p: &mut Prediction,
    map: &Json,
    steps: &[String],
    locate: &Locate,
) -> Result<(), LoadError> {
    let Json::Object(entries) = map else {
        return Err(locate(
            steps,
            format!(
                "`{}` must be a mapping of field names to confidences, found {}",
                steps.join("."),
                map.kind()
            ),
            None,
        ));
    };
    for (name, c) in entries {
        if matches!(c, Json::Null) {
            continue;
        }
        let mut at = steps.to_vec();
        at.push(name.clone());
        let (confidence, error) =
            field_confidence(c, at.clone(), true).map_err(|(s, m, h)| locate(&s, m, h))?;
        let error = error.map(|e| locate(&at, e.message, e.hint));
        let index = match p.fields.iter().position(|f| &f.name == name) {
            Some(i) => i,
            None => {
                p.fields.push(PredictedField {
                    name: name.clone(),
                    value: Value::Null,
                    confidence: None,
                    metadata: Vec::new(),
                    whole: None,
                    place: None,
                    bbox_at: None,
                    confidence_error: None,
                });
                p.fields.len() - 1
            }
        };
        let field = &mut p.fields[index];
        if field.confidence.is_some() || field.confidence_error.is_some() {
            return Err(locate(
                &at,
                format!("`{name}` has a confidence in its value object and in this mapping"),
                Some("keep one of them".into()),
            ));
        }
        field.confidence = confidence;
        field.confidence_error = error;
    }
    Ok(())
}

/// A `.json` prediction's tree; its syntax errors are located in its text.
fn json_tree(path: &Path, text: &str) -> Result<Json, LoadError> {
    prediction_tree(text).map_err(|e| {
        LoadError::at(
            path,
            Mark {
                line: (e.line() as u64).max(1),
                column: (e.column() as u64).max(1),
            },
            "",
            format!("invalid JSON: {}", strip_position(&e.to_string())),
        )
    })
}

/// A `.json` prediction; its errors are located in its text.
fn json_prediction(path: &Path, text: &str) -> Result<Prediction, LoadError> {
    let json = json_tree(path, text)?;
    let locate =
        |p: &[String], msg: String, hint: Option<String>| locate_in_json(path, text, p, msg, hint);
    envelope(json, true)
        .map(|p| located_boxes(p, &[], &locate))
        .map_err(|(p, msg, hint)| locate(&p, msg, hint))
}

/// A YAML prediction; its errors are located at its nodes.
fn yaml_prediction(path: &Path, text: &str) -> Result<Prediction, LoadError> {
    let node: Node = parse_yaml(path, text).map_err(|mut e| {
        // The root node's own wrapper step.
        e.yaml_path = e
            .yaml_path
            .strip_prefix("value")
            .unwrap_or(&e.yaml_path)
            .trim_start_matches('.')
            .to_owned();
        e
    })?;
    let locate = |p: &[String], msg: String, hint: Option<String>| {
        locate_in_node(path, &node, "", p, msg, hint)
    };
    envelope(Json::of_value(node.to_value()), false)
        .map(|p| located_boxes(p, &[], &locate))
        .map_err(|(p, msg, hint)| locate(&p, msg, hint))
}

/// What [`from_output`] needs of a case's `run`.
#[derive(Debug, Clone, Copy)]
pub struct RunOf<'a> {
    /// Program and arguments, as run.
    pub command: &'a [String],
    /// Whether the case reads fields, so that text output is an error.
    pub expect_fields: bool,
    /// Where `run:` is written (the suite file).
    pub at: &'a (std::path::PathBuf, Mark),
    /// Where the parts of the prediction are in the output, if a format says.
    pub format: Option<&'a PredictionFormat>,
}

/// The prediction a suite's `run` command printed: a JSON field document, else text (an error
/// when the case reads fields). `latency_ms` is the time measured around the command, the
/// latency unless the output reports its own.
pub fn from_output(
    stdout: String,
    latency_ms: f64,
    stderr_tail: &str,
    run: &RunOf,
    case_file: &Path,
) -> Result<Prediction, LoadError> {
    let RunOf {
        command,
        expect_fields,
        at: run_at,
        format,
    } = *run;
    let shown = command.join(" ");
    // Located at the suite's `run`, naming the case it ran for.
    let error = |message: String, tail: &str| {
        LoadError::at(
            &run_at.0,
            run_at.1,
            "run.command",
            format!("{message}, as applied to `{}`{tail}", case_file.display()),
        )
    };
    if stdout.trim().is_empty() {
        return Err(error(format!("`{shown}` printed nothing"), stderr_tail));
    }
    // An error inside the output's document, at its path.
    let locate = |p: &[String], msg: String, hint: Option<String>| {
        let mut e = error(
            format!("the output of `{shown}`: {}: {msg}", p.join(".")),
            "",
        );
        e.hint = hint;
        e
    };
    let mut prediction = match (prediction_tree(&stdout), format) {
        // The pipeline's own document: its errors, and a failed call, are located at `run`.
        (Ok(json), Some(format)) => through_format(json, format, &run_at.0, &locate)?,
        (Err(e), Some(_)) => {
            return Err(error(
                format!(
                    "the output of `{shown}` is not the JSON document the suite's `prediction_format` reads ({})",
                    strip_position(&e.to_string()),
                ),
                stderr_tail,
            ));
        }
        (Ok(json @ Json::Object(_)), None) => envelope(json, true)
            .map(|p| located_boxes(p, &[], &locate))
            .map_err(|(p, msg, hint)| locate(&p, msg, hint))?,
        (Ok(_), None) if expect_fields => {
            return Err(error(
                format!("the output of `{shown}` is JSON but not a field document"),
                stderr_tail,
            ));
        }
        (Err(e), None) if expect_fields => {
            return Err(error(
                format!(
                    "the output of `{shown}` is not a JSON field document ({})",
                    strip_position(&e.to_string()),
                ),
                stderr_tail,
            ));
        }
        _ => text_prediction(stdout),
    };
    // The latency the output reports (the pipeline's own, without time spent waiting to be
    // run), else the time measured around the command.
    prediction.latency_ms = prediction.latency_ms.or(Some(latency_ms));
    Ok(prediction)
}

/// What can be checked of a `run` command without running it: the program can be found, the
/// folder it runs in and the document it reads exist. `goldgate lint` runs nothing.
pub fn check_command(source: &PredictionSource) -> Vec<LoadError> {
    let PredictionSource::Run {
        command,
        dir,
        document,
        at,
        ..
    } = source
    else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let (suite_file, mark) = at;
    if !dir.is_dir() {
        errors.push(LoadError::at(
            suite_file,
            *mark,
            "run",
            format!(
                "the command would run in `{}`, which is not a folder",
                dir.display()
            ),
        ));
    }
    if let Some(program) = command.first()
        && !program_exists(program, dir)
    {
        errors.push(
            LoadError::at(
                suite_file,
                *mark,
                "run.command",
                format!(
                    "`{program}` is neither a file under `{}` nor a program on the PATH",
                    dir.display()
                ),
            )
            .hint("install it, or give its path relative to the suite's folder"),
        );
    }
    errors.extend(document.as_ref().and_then(missing_document));
    errors
}

/// The error of a `document:` that is not a file: a command would run on nothing.
pub fn missing_document(document: &Document) -> Option<LoadError> {
    if document.path.is_file() {
        return None;
    }
    let (file, mark) = &document.at;
    let shown = document.path.display();
    // A FIFO, a device or a folder is there but is no document to read.
    let (message, hint) = match std::fs::metadata(&document.path) {
        Ok(meta) => (
            format!(
                "the document `{shown}` is {}, not a file",
                if meta.is_dir() {
                    "a folder"
                } else {
                    "a FIFO or a device"
                }
            ),
            "name the scan itself, a regular file",
        ),
        Err(_) => (
            format!("the document `{shown}` does not exist"),
            "`document:` is relative to the file it is written in",
        ),
    };
    Some(LoadError::at(file, *mark, "document", message).hint(hint))
}

/// Whether `program` names a file (a path, relative to `dir`) or a program on the PATH.
fn program_exists(program: &str, dir: &Path) -> bool {
    let path = Path::new(program);
    if path.components().count() > 1 || path.is_absolute() {
        return dir.join(path).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|p| {
            let candidate = p.join(program);
            candidate.is_file() || cfg!(windows) && candidate.with_extension("exe").is_file()
        })
    })
}

/// A YAML file with a case's keys at the top level: naming it as a prediction is a mistake.
fn looks_like_case(text: &str) -> bool {
    let top_level = |key: &str| {
        text.lines().any(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
    };
    ["gold", "rubrics", "thresholds"]
        .iter()
        .any(|k| top_level(k))
        && ["prediction", "prediction_text"]
            .iter()
            .any(|k| top_level(k))
}

fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

fn text_prediction(text: String) -> Prediction {
    Prediction {
        fields: Vec::new(),
        text,
        is_document: false,
        latency_ms: None,
        usage: None,
        model: None,
        reported_cost_usd: None,
        failed: None,
        usage_mismatch: None,
        call: None,
        retried: 0,
        document: None,
    }
}

type EnvelopeError = (Vec<String>, String, Option<String>);

const ENVELOPE_KEYS: [&str; 6] = [
    "fields",
    "latency_ms",
    "usage",
    "usageMetadata",
    "model",
    "modelVersion",
];

/// A document without `fields` whose keys include an envelope word, or a key one edit from
/// `fields`, is an envelope with its `fields` key missing or misspelt: every gold field would be
/// scored as absent, with no word said.
fn flat_document(top: &[(String, Json)]) -> Result<(), EnvelopeError> {
    for (key, _) in top {
        if [
            "latency_ms",
            "usage",
            "usageMetadata",
            "model",
            "modelVersion",
        ]
        .contains(&key.as_str())
        {
            return Err((
                vec![key.clone()],
                format!("`{key}` belongs to an envelope, but this document has no `fields`"),
                Some("put the predicted fields under `fields:`, as `{\"fields\": {…}, \"latency_ms\": …}`".into()),
            ));
        }
        if key != "fields"
            && (closest_within(key, ["fields"], |_| 1).is_some() || swapped(key, "fields"))
        {
            return Err((
                vec![key.clone()],
                format!("`{key}` at the top of a prediction: did you mean `fields`?"),
                Some("an envelope holds its predicted fields under `fields:`".into()),
            ));
        }
    }
    Ok(())
}

/// Whether `key` is `word` with two neighbouring letters swapped (`feilds`): one slip of the
/// fingers, though two edits apart.
fn swapped(key: &str, word: &str) -> bool {
    let (k, w): (Vec<char>, Vec<char>) = (key.chars().collect(), word.chars().collect());
    k.len() == w.len()
        && (0..k.len().saturating_sub(1)).any(|i| {
            k[i] == w[i + 1] && k[i + 1] == w[i] && k[..i] == w[..i] && k[i + 2..] == w[i + 2..]
        })
}

/// Interprets a field document: the envelope when it has a top-level `fields`, else bare fields.
/// `json`, the same document as parsed JSON when it is one, tells a number from a string: a
/// confidence written `"0.9"` is refused, and metadata keeps its JSON types (`"page": 1`).
fn envelope(doc: Json, typed: bool) -> Result<Prediction, EnvelopeError> {
    let Json::Object(top) = doc else {
        return Err((
            vec![],
            "a prediction document must be a mapping of fields".into(),
            Some("for free text use a .txt file or `prediction_text:`".into()),
        ));
    };
    let mut p = text_prediction(String::new());
    p.is_document = true;
    let in_envelope = match top.iter().find(|(k, _)| k == "fields") {
        None => {
            flat_document(&top)?;
            false
        }
        Some((_, Json::Object(_))) => true,
        Some(_) => {
            return Err((
                vec!["fields".into()],
                "`fields` must be a mapping of field names to values".into(),
                None,
            ));
        }
    };
    let fields = if in_envelope {
        envelope_keys(top, &mut p)?
    } else {
        top
    };
    for (name, value) in fields {
        let field = predicted_field(name, value, typed, in_envelope)?;
        push_field(&mut p, field);
    }
    Ok(p)
}

/// Adds a field to a prediction, and its line to the prediction's text.
fn push_field(p: &mut Prediction, field: PredictedField) {
    p.text.push_str(&field.name);
    p.text.push_str(": ");
    match &field.value {
        Value::Text(t) => p.text.push_str(t),
        other => p.text.push_str(&other.as_text()),
    }
    p.text.push('\n');
    p.fields.push(field);
}

/// The keys of an envelope beside its `fields`, read into `p`; its `fields` are returned.
fn envelope_keys(
    top: Vec<(String, Json)>,
    p: &mut Prediction,
) -> Result<Vec<(String, Json)>, EnvelopeError> {
    let mut fields = Vec::new();
    // `modelVersion` is Gemini's name of the model: one document may not give two.
    let mut model_key: Option<String> = None;
    for (key, value) in top {
        let at = || vec![key.clone()];
        match key.as_str() {
            "fields" => {
                if let Json::Object(f) = value {
                    fields = f;
                }
            }
            "latency_ms" => {
                p.latency_ms = Some(number(&value, at(), "latency_ms", 0.0, f64::INFINITY)?)
            }
            "usage" | "usageMetadata" => p.usage = Some(usage(&value, at())?),
            "model" | "modelVersion" => {
                if let Some(first) = &model_key {
                    return Err((
                        at(),
                        format!("`{key}` and `{first}` both name the model"),
                        Some(format!("keep one of them: `{first}` or `{key}`")),
                    ));
                }
                model_key = Some(key.clone());
                p.model = Some(value.into_value().as_text());
            }
            _ => {
                let hint = closest(&key, ENVELOPE_KEYS).map_or_else(
                    || "an envelope holds `fields`, `latency_ms`, `usage` (or `usageMetadata`) and `model` (or `modelVersion`)".to_owned(),
                    |best| format!("did you mean `{best}`?"),
                );
                return Err((
                    at(),
                    format!("unknown key `{key}` in the prediction envelope"),
                    Some(hint),
                ));
            }
        }
    }
    Ok(fields)
}

/// One predicted field, its value bare or in a value object.
fn predicted_field(
    name: String,
    value: Json,
    typed: bool,
    in_envelope: bool,
) -> Result<PredictedField, EnvelopeError> {
    let at = || {
        let mut at: Vec<String> = if in_envelope {
            vec!["fields".into()]
        } else {
            vec![]
        };
        at.push(name.clone());
        at
    };
    // A value object: `value` is scored, `confidence` calibrated, the rest kept as metadata.
    let mut confidence_error = None;
    let (value, confidence, metadata, whole, place) = match value {
        Json::Object(m) if m.iter().any(|(k, _)| k == "value") => {
            let confidence = match m.iter().find(|(k, _)| k == "confidence") {
                Some((_, c)) => {
                    let (p, error) = field_confidence(c, at(), typed)?;
                    confidence_error = error;
                    p
                }
                None => None,
            };
            let metadata = m
                .iter()
                .filter(|(k, _)| k != "value" && k != "confidence")
                .map(|(k, v)| (k.clone(), v.to_serde()))
                .collect();
            let value = m
                .iter()
                .find(|(k, _)| k == "value")
                .map_or(Value::Null, |(_, v)| v.clone().into_value());
            let place = predicted_place(&m, &at)?;
            // The whole object is a value only for a gold that compares it whole.
            (value, confidence, metadata, Some(Json::Object(m)), place)
        }
        other => (other.into_value(), None, Vec::new(), None, None),
    };
    if let Some((below, why)) = oversized(&value) {
        return Err((
            at(),
            format!("`{name}{below}` is {why}"),
            Some(OVERSIZED_HINT.to_owned()),
        ));
    }
    // Where the box is, as steps from where the fields are read, until the reader locates it.
    let bbox_at = place.and_then(|p| p.bbox).map(|_| {
        let mut steps = at();
        steps.push("bbox".to_owned());
        LoadError::at(
            Path::new(""),
            Mark::default(),
            steps.join("\0"),
            BOX_MESSAGE,
        )
    });
    Ok(PredictedField {
        name,
        value,
        confidence,
        metadata,
        whole,
        place,
        bbox_at,
        confidence_error,
    })
}

/// A field's confidence. One outside [0, 1] fails that field alone, not the document: it is
/// returned as the field's error, its steps joined by `\0` until the reader locates it.
fn field_confidence(
    c: &Json,
    at: Vec<String>,
    typed: bool,
) -> Result<(Option<f64>, Option<LoadError>), EnvelopeError> {
    // YAML keeps a number's written text: there a text that reads as a number is one.
    let written = match c {
        Json::Number(n) => n.as_f64(),
        Json::String(t) if !typed => t.trim().parse::<f64>().ok(),
        _ => None,
    };
    let out_of_range = written.is_some_and(|x| x.is_finite() && !(0.0..=1.0).contains(&x));
    match confidence(c, at, typed) {
        Ok(p) => Ok((Some(p), None)),
        Err((steps, message, _)) if out_of_range => {
            let pending = LoadError::at(Path::new(""), Mark::default(), steps.join("\0"), message)
                .hint(CONFIDENCE_HINT);
            Ok((None, Some(pending)))
        }
        Err(e) => Err(e),
    }
}

/// The fix of a confidence outside [0, 1], and what was done meanwhile.
const CONFIDENCE_HINT: &str = "write a confidence in [0, 1]; meanwhile the value is scored, its confidence left out of calibration and acceptance";

/// Locates a field's `bbox` and a confidence outside [0, 1] in its file, their steps read from
/// `prefix` (where the fields are).
fn locate_box(field: &mut PredictedField, prefix: &[String], locate: &Locate) {
    let steps = |at: &LoadError| {
        let mut steps = prefix.to_vec();
        steps.extend(at.yaml_path.split('\0').map(str::to_owned));
        steps
    };
    if let Some(at) = &mut field.bbox_at {
        *at = locate(&steps(at), BOX_MESSAGE.to_owned(), None);
    }
    if let Some(at) = &mut field.confidence_error {
        *at = locate(&steps(at), at.message.clone(), at.hint.clone());
    }
}

/// A prediction whose fields' boxes are located in its file.
fn located_boxes(mut p: Prediction, prefix: &[String], locate: &Locate) -> Prediction {
    for field in &mut p.fields {
        locate_box(field, prefix, locate);
    }
    p
}

/// A value object's `page` and `bbox`, checked; `None` when it gives neither. A predicted box
/// is checked for its shape alone: which units it is in is the case's to say.
fn predicted_place(
    m: &[(String, Json)],
    at: &impl Fn() -> Vec<String>,
) -> Result<Option<crate::model::place::Place>, EnvelopeError> {
    let get = |key: &str| m.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let scalar = |v: &Json| match v {
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) => Some(s.clone()),
        _ => None,
    };
    let located = |key: &str, (message, hint): super::place::Mistake| {
        let mut path = at();
        path.push(key.to_owned());
        (path, message, Some(hint))
    };
    let page = match get("page") {
        None | Some(Json::Null) => None,
        Some(v) => {
            let text = scalar(v).unwrap_or_else(|| v.kind().to_owned());
            Some(super::place::page(&text).map_err(|e| located("page", e))?)
        }
    };
    let bbox = match get("bbox") {
        None | Some(Json::Null) => None,
        Some(Json::Array(items)) => {
            let texts: Vec<String> = items
                .iter()
                .map(|i| scalar(i).unwrap_or_else(|| i.kind().to_owned()))
                .collect();
            Some(super::place::bbox(&texts, false).map_err(|e| located("bbox", e))?)
        }
        Some(other) => {
            return Err(located(
                "bbox",
                (
                    format!(
                        "`bbox` must be a list of four numbers, found {}",
                        other.kind()
                    ),
                    "write the box as `[x0, y0, x1, y1]`: left, top, right, bottom".to_owned(),
                ),
            ));
        }
    };
    Ok((page.is_some() || bbox.is_some()).then_some(crate::model::place::Place { page, bbox }))
}

/// A value object's `confidence`, in [0, 1]; `at` is the path of its field.
fn confidence(c: &Json, mut at: Vec<String>, typed: bool) -> Result<f64, EnvelopeError> {
    at.push("confidence".into());
    if let (true, Json::String(text)) = (typed, c) {
        return Err((
            at,
            format!("confidence must be a number, found the string \"{text}\""),
            Some(format!("write it without quotes: `\"confidence\": {text}`")),
        ));
    }
    number(c, at, "confidence", 0.0, 1.0)
}

/// A number of the envelope: a JSON number as read, else its text parsed.
fn number(
    value: &Json,
    at: Vec<String>,
    what: &str,
    min: f64,
    max: f64,
) -> Result<f64, EnvelopeError> {
    let text = match value {
        Json::Null => return Err((at, format!("{what} must be a number, found null"), None)),
        Json::Array(_) | Json::Object(_) => {
            return Err((
                at,
                format!("{what} must be a number, found a list or mapping"),
                None,
            ));
        }
        Json::Number(n) => match n.as_f64() {
            Some(x) => return within(x, at, what, min, max),
            None => n.to_string(),
        },
        Json::Bool(b) => b.to_string(),
        Json::String(s) => s.clone(),
    };
    if matches!(text.trim().to_lowercase().as_str(), ".nan" | "nan") {
        return Err((
            at,
            format!("{what} is NaN"),
            Some(format!("give a number in [{min}, {max}]")),
        ));
    }
    match text.trim().parse::<f64>() {
        Ok(x) => within(x, at, what, min, max),
        Err(_) => Err((
            at,
            format!("{what} `{text}` is not a number"),
            Some("write a number such as 0.9".into()),
        )),
    }
}

fn within(x: f64, at: Vec<String>, what: &str, min: f64, max: f64) -> Result<f64, EnvelopeError> {
    if x.is_finite() && x >= min && x <= max {
        return Ok(x);
    }
    if x.is_nan() {
        return Err((
            at,
            format!("{what} is NaN"),
            Some(format!("give a number in [{min}, {max}]")),
        ));
    }
    Err((
        at,
        format!(
            "{what} {x} is outside [{min}, {}]",
            if max.is_finite() {
                max.to_string()
            } else {
                "∞".into()
            }
        ),
        None,
    ))
}

fn usage(value: &Json, at: Vec<String>) -> Result<Usage, EnvelopeError> {
    let Json::Object(entries) = value else {
        return Err((at, "`usage` must be a mapping of token counts".into(), None));
    };
    super::usage::read(entries, &at)
}

fn locate_in_node(
    file: &Path,
    root: &Node,
    prefix: &str,
    path: &[String],
    message: String,
    hint: Option<String>,
) -> LoadError {
    let mut node = root;
    for key in path {
        match node.as_map().and_then(|m| m.iter().find(|(k, _)| k == key)) {
            Some((_, child)) => node = child,
            None => break,
        }
    }
    let mut yaml_path = prefix.to_owned();
    for key in path {
        if !yaml_path.is_empty() {
            yaml_path.push('.');
        }
        yaml_path.push_str(key);
    }
    let mut e = LoadError::at(file, node.mark, yaml_path, message);
    e.hint = hint;
    e
}

/// Finds the line and column of a key path in JSON text by scanning for each key in turn.
fn locate_in_json(
    file: &Path,
    text: &str,
    path: &[String],
    message: String,
    hint: Option<String>,
) -> LoadError {
    let mut offset = 0;
    for key in path {
        let quoted = serde_json::to_string(key).unwrap_or_default();
        match text[offset..].find(&quoted) {
            Some(i) => offset += i,
            None => break,
        }
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() as u64 + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
    let mark = if path.is_empty() {
        Mark { line: 1, column: 1 }
    } else {
        Mark { line, column }
    };
    let mut e = LoadError::at(file, mark, path.join("."), message);
    e.hint = hint;
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<Prediction, LoadError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        std::fs::write(&path, text).unwrap();
        read_prediction(
            &PredictionSource::File {
                path,
                at: Mark {
                    line: 3,
                    column: 13,
                },
                written_in: WrittenIn::Case,
                format: None,
            },
            Path::new("c.yaml"),
        )
    }

    #[test]
    fn envelope_with_confidences_usage_and_shortest_numbers() {
        let p = json(r#"{"fields": {"n": "173", "t": {"value": 1234.50, "confidence": 0.91}}, "latency_ms": 812.5,
            "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 310}, "model": "gemini-2.5-flash"}"#).unwrap();
        assert_eq!(p.fields[1].value, Value::Text("1234.5".into()));
        assert_eq!(p.fields[1].confidence, Some(0.91));
        assert_eq!(p.latency_ms, Some(812.5));
        assert_eq!(p.usage.unwrap().output_tokens, Some(310.0));
        assert_eq!(p.model.as_deref(), Some("gemini-2.5-flash"));
    }

    #[test]
    fn two_names_of_one_token_count_are_refused() {
        let e =
            json(r#"{"fields": {"n": "1"}, "usage": {"prompt_tokens": 10, "input_tokens": 12}}"#)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:1:55: usage.input_tokens: `input_tokens` and `prompt_tokens` name the same count (keep one of them: `prompt_tokens` or `input_tokens`)",
                e.file.display()
            )
        );
    }

    #[test]
    fn a_confidence_outside_0_1_is_located_on_its_field_alone() {
        let p = json("{\"fields\": {\n  \"t\": {\"value\": \"x\", \"confidence\": 1.5},\n  \"u\": {\"value\": \"y\", \"confidence\": 0.5}}}").unwrap();
        let t = p.field("t").unwrap();
        let e = t.confidence_error.as_ref().unwrap();
        assert_eq!((e.line, e.yaml_path.as_str()), (2, "fields.t.confidence"));
        assert_eq!(e.message, "confidence 1.5 is outside [0, 1]");
        assert_eq!(
            (t.confidence, p.field("u").unwrap().confidence),
            (None, Some(0.5))
        );
        // A confidence that is no number at all is still the document's mistake.
        let e = json("{\"fields\": {\"t\": {\"value\": \"x\", \"confidence\": \"high\"}}}")
            .unwrap_err();
        assert_eq!(e.yaml_path, "fields.t.confidence");
    }

    #[test]
    fn missing_file_names_its_path() {
        let e = read_prediction(
            &PredictionSource::File {
                path: "nowhere/p.json".into(),
                at: Mark {
                    line: 4,
                    column: 13,
                },
                written_in: WrittenIn::Case,
                format: None,
            },
            Path::new("c.yaml"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string().split(" (").next().unwrap(),
            "c.yaml:4:13: prediction: prediction file `nowhere/p.json` does not exist"
        );
    }
}
