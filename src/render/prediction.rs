//! What is said of a prediction that was not scored, and of a usage that does not add up.

use crate::model::prediction::{CallFailure, FailedCall, Unscored, UsageMismatch};

/// The failure message of a case whose prediction was not scored.
pub fn unscored(why: &Unscored) -> String {
    match why {
        Unscored::Unreadable(error) => {
            format!("error: {error}\nthe prediction could not be read, so nothing was scored")
        }
        Unscored::FailedCall(call) => format!(
            "error: {}:{}:{}: {}\nthe case counts as a failed call, not as an empty prediction: nothing was scored",
            call.file.display(),
            call.at.line,
            call.at.column,
            failed_call(call)
        ),
    }
}

/// The failure message of a failed call that `profile: docubench` scored as its benchmark does,
/// counted in the pipeline's mean: the call's failure, and what it scored.
pub fn failed_call_scored(call: &FailedCall, anls: f64) -> String {
    format!(
        "error: {}:{}:{}: {}\nthe case fails as a failed call; DocuBench's scorer scores it as written (`{{}}` where the fields are missing), so it counts with ANLS {anls:.4} in the pipeline's mean",
        call.file.display(),
        call.at.line,
        call.at.column,
        failed_call(call)
    )
}

/// What a failed call's document says, on one line: the pipeline's own words first.
pub fn failed_call(call: &FailedCall) -> String {
    let (said, how) = match &call.because {
        CallFailure::NotOk {
            key,
            expected,
            found,
            said,
        } => (
            said,
            match found {
                Some(found) => format!("`{key}` is \"{found}\", not \"{expected}\""),
                None => format!("`{key}` is missing, not \"{expected}\""),
            },
        ),
        CallFailure::NullFields { path, said } => (said, format!("`{path}` is null")),
        CallFailure::NoFields { path, said } => (said, format!("`{path}` is missing")),
        CallFailure::NotFields { path, found, said } => (
            said,
            format!("`{path}` holds {found}, not a mapping of fields"),
        ),
    };
    match said {
        Some(text) => format!("the pipeline's call failed: {text} ({how})"),
        None => format!("the pipeline's call failed: {how}"),
    }
}

/// The warning of a usage whose parts do not add up to its own total.
pub fn usage_mismatch(m: &UsageMismatch) -> String {
    format!(
        "warning: `{}`: the usage's total is {} tokens but its parts (input + output) are {}; its cost is computed from input + output as billed",
        m.file, m.total, m.parts
    )
}
