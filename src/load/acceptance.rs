//! `acceptance:` checked: thresholds in [0, 1], and the names of what a threshold accepts and
//! what its approval rate is a share of.

use crate::base::spanned::Spanned;

use crate::base::location::{LoadError, Mark, closest};
use crate::load::in_file::InFile;
use crate::metrics::acceptance::{Accept, Pooling, ShareOf};
use crate::spec::AcceptanceSpec;

/// The pooling a suite's `acceptance:` asks for.
pub(crate) fn pooling(here: &InFile, spec: &Spanned<AcceptanceSpec>) -> Result<Pooling, LoadError> {
    let written = &spec.value;
    if written.thresholds.is_empty() {
        return Err(here
            .err(
                Mark::of(&spec.referenced),
                "acceptance.thresholds",
                "`acceptance` gives no threshold",
            )
            .hint(
                "give the thresholds to pool every field at, such as `thresholds: [0.9, 0.99]`",
            ));
    }
    let mut thresholds = Vec::with_capacity(written.thresholds.len());
    for (i, t) in written.thresholds.iter().enumerate() {
        if !(0.0..=1.0).contains(&t.value) {
            return Err(here
                .err(
                    Mark::of(&t.referenced),
                    &format!("acceptance.thresholds[{i}]"),
                    format!("threshold {} is outside [0, 1]", t.value),
                )
                .hint("a threshold is a confidence, such as 0.99"));
        }
        thresholds.push(t.value);
    }
    let accept = match &written.accept {
        None => Accept::default(),
        Some(a) => named(
            here,
            a,
            "accept",
            &[("at_least", Accept::AtLeast), ("above", Accept::Above)],
        )?,
    };
    let share_of = match &written.share_of {
        None => ShareOf::default(),
        Some(s) => named(
            here,
            s,
            "share_of",
            &[("values", ShareOf::Values), ("labels", ShareOf::Labels)],
        )?,
    };
    Ok(Pooling {
        thresholds,
        accept,
        share_of,
    })
}

/// One of a key's names, or an error naming the closest and the others.
fn named<T: Copy>(
    here: &InFile,
    written: &Spanned<String>,
    key: &str,
    names: &[(&str, T)],
) -> Result<T, LoadError> {
    if let Some((_, value)) = names.iter().find(|(n, _)| *n == written.value) {
        return Ok(*value);
    }
    let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    let e = here.err(
        Mark::of(&written.referenced),
        &format!("acceptance.{key}"),
        format!("unknown `{key}: {}`", written.value),
    );
    Err(match closest(&written.value, all.iter().copied()) {
        Some(best) => e.hint(format!("did you mean `{best}`?")),
        None => e.hint(format!("`{key}` is `{}`", all.join("` or `"))),
    })
}
