//! A case under its suites' pipelines: one case per pipeline, each reading that pipeline's
//! prediction.

use crate::base::location::LoadError;
use crate::base::location::Mark;
use crate::load::suite::Suite;
use crate::model::case::{Case, Document, PredictionSource, WrittenIn};
use crate::spec::CaseFile;
use std::path::{Path, PathBuf};

use super::in_file::InFile;
use super::template::expand;

/// What decides where each pipeline's prediction comes from.
pub(super) struct Sources<'a> {
    pub(super) in_file: &'a InFile<'a>,
    /// The path `{case}` is the name of: the case file, or where a gold set's case file would be.
    pub(super) named: &'a Path,
    pub(super) spec: &'a CaseFile,
    /// The prediction the case (or a suite's `defaults`) gives, if any.
    pub(super) prediction: Option<&'a PredictionSource>,
    /// Whether the case file itself gives it: it then wins over the suite's.
    pub(super) own_prediction: bool,
    pub(super) document: Option<&'a Document>,
}

/// One case per pipeline (or one without pipelines), each with its prediction: the case's own,
/// else the suite's `run` command, else the pipeline's recorded file.
pub(super) fn per_pipeline(
    case: Case,
    suite: &Suite,
    sources: &Sources,
) -> Result<Vec<Case>, LoadError> {
    let pipelines: Vec<(Option<String>, Option<String>)> = match &suite.pipelines {
        Some(p) => p
            .list
            .iter()
            .map(|(n, t)| (Some(n.clone()), t.clone()))
            .collect(),
        None => vec![(None, None)],
    };
    // Under pipelines, a case's own prediction would be scored alike by each of them, and their
    // outputs never read: a comparison that compares nothing.
    if let (true, Some(p)) = (sources.own_prediction, &suite.pipelines) {
        return Err(own_prediction_under_pipelines(sources, p));
    }
    let mut out = Vec::with_capacity(pipelines.len());
    // The last pipeline (the only one, without pipelines) takes the case itself: a clone per
    // case is memory and time a gold set of thousands pays for nothing.
    let count = pipelines.len();
    let mut base = Some(case);
    for (i, (pipeline, template)) in pipelines.into_iter().enumerate() {
        let next = if i + 1 < count {
            base.clone()
        } else {
            base.take()
        };
        let Some(mut case) = next else { break };
        if let Some(name) = &pipeline {
            case.id = format!("{}::{name}", case.id);
            case.reference = suite.pipelines.as_ref().map(|p| p.reference.clone());
        }
        case.prediction = pipeline_prediction(
            &case,
            suite,
            sources,
            i,
            pipeline.as_deref(),
            template.as_deref(),
        )?;
        case.pipeline = pipeline;
        out.push(case);
    }
    Ok(out)
}

/// The mistake of a case that gives its own prediction under a suite's pipelines.
pub(super) fn own_prediction_under_pipelines(
    sources: &Sources,
    p: &crate::model::suite::Pipelines,
) -> LoadError {
    let mark = match (&sources.spec.prediction, &sources.spec.prediction_text) {
        (Some(node), _) => node.mark,
        (None, Some(text)) => Mark::of(&text.referenced),
        (None, None) => Mark { line: 1, column: 1 },
    };
    let names: Vec<String> = p.list.iter().map(|(n, _)| format!("`{n}`")).collect();
    sources
        .in_file
        .err(
            mark,
            "prediction",
            format!(
                "this case gives its own prediction, but `{}` declares pipelines ({}): each would score this one, and none its own",
                p.at.0.display(),
                names.join(", ")
            ),
        )
        .hint("remove `prediction:` to score each pipeline's output, or move the case to a folder without pipelines")
}

/// The prediction of the case for its `i`th pipeline (`template` the path of its recorded
/// outputs), filled in for the case.
pub(super) fn pipeline_prediction(
    case: &Case,
    suite: &Suite,
    sources: &Sources,
    i: usize,
    pipeline: Option<&str>,
    template: Option<&str>,
) -> Result<PredictionSource, LoadError> {
    let fill = |at: &(PathBuf, Mark), text: &str, dir: &Path, argument: Option<(usize, bool)>| {
        expand(
            (sources.in_file, at),
            text,
            sources.named,
            dir,
            pipeline,
            sources.document,
            argument,
        )
    };
    Ok(
        match (sources.prediction, &suite.run, template, &suite.pipelines) {
            (Some(own), _, _, _)
                if sources.own_prediction || suite.run.is_none() && template.is_none() =>
            {
                own.clone()
            }
            (_, Some(run), _, _) => PredictionSource::Run {
                command: {
                    let code = crate::base::shell::code_arguments(&run.command);
                    run.command
                        .iter()
                        .zip(code)
                        .enumerate()
                        .map(|(i, (a, code))| fill(&run.at, a, &run.dir, Some((i, code))))
                        .collect::<Result<_, _>>()?
                },
                dir: run.dir.clone(),
                timeout: run.timeout,
                repeat: run.repeat,
                expect_fields: case.gold.is_some()
                    || case.rubrics.iter().any(|r| r.field().is_some()),
                document: sources.document.cloned(),
                at: run.at.clone(),
                format: None,
                pipeline: pipeline.map(str::to_owned),
                cache: std::sync::Arc::clone(&run.cache),
                policy: run.policy,
            },
            (_, None, Some(template), Some(p)) => {
                // This pipeline's own line, for errors in its path.
                let at = (p.at.0.clone(), p.marks.get(i).copied().unwrap_or(p.at.1));
                PredictionSource::File {
                    path: p.dir.join(fill(&at, template, &p.dir, None)?),
                    at: at.1,
                    written_in: WrittenIn::Pipeline(at.0),
                    format: None,
                }
            }
            (Some(own), _, _, _) => own.clone(),
            _ => sources.in_file.prediction(sources.spec, WrittenIn::Case)?,
        },
    )
}
