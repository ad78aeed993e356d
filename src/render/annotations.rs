//! GitHub Actions annotations (SPEC §11): one `::error` line per failing Must-Right rubric, load
//! error, threshold and Easy-Wrong rubric, in that order (GitHub shows 10 a step), at the file
//! and line where it is written.

use std::path::Path;

use super::report::ReportCase;

/// One annotation: where, for which test, what.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The file, relative to the workspace when it lies inside it.
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The test.
    pub title: String,
    /// What failed.
    pub message: String,
    /// Must-Right and load errors come first.
    pub rank: u8,
}

/// The annotations of failed tests, most important first.
pub fn annotations(cases: &[ReportCase], workspace: Option<&Path>) -> Vec<Annotation> {
    let mut out = Vec::new();
    for case in cases.iter().filter(|c| c.passed == Some(false)) {
        let mut add = |file: &str, line: u64, column: u64, message: String, rank: u8| {
            out.push(Annotation {
                file: relative(file, workspace),
                line,
                column,
                title: case.id.clone(),
                message,
                rank,
            });
        };
        for e in &case.errors {
            add(&e.file, e.line, e.column, e.message.clone(), 0);
        }
        for r in case.rubrics.iter().filter(|r| !r.held) {
            let rank = if r.kind == "must_right" { 0 } else { 2 };
            let message = format!("{} `{}` failed: {}", r.kind, r.label, r.detail);
            add(&r.file, r.line, 0, message, rank);
        }
        for t in case.thresholds.iter().filter(|t| !t.held) {
            let message = match t.value {
                Some(v) => format!("{} failed: {v:.4} against {}", t.name, t.limit),
                None => format!(
                    "{} failed: the metric is absent ({})",
                    t.name,
                    t.absent_because.as_deref().unwrap_or("not measured")
                ),
            };
            add(&t.file, t.line, 0, message, 1);
        }
        if case.errors.is_empty()
            && case.rubrics.iter().all(|r| r.held)
            && case.thresholds.iter().all(|t| t.held)
        {
            // A regression, or a prediction that could not be read: the case file, with the message.
            let message = case.verdict_line().unwrap_or("case failed").to_owned();
            add(&case.file, 0, 0, message, 1);
        }
    }
    out.sort_by_key(|a| a.rank);
    out
}

/// A workflow command line: `::error file=…,line=…,col=…,title=…::message`.
pub fn workflow_command(a: &Annotation) -> String {
    let mut props = vec![format!("file={}", property(&a.file))];
    if a.line > 0 {
        props.push(format!("line={}", a.line));
    }
    if a.column > 0 {
        props.push(format!("col={}", a.column));
    }
    props.push(format!("title={}", property(&a.title)));
    format!("::error {}::{}", props.join(","), data(&a.message))
}

/// A message as GitHub reads it back: `%`, CR and LF escaped.
pub fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as a message, and `:` and `,` escaped too.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

fn relative(file: &str, workspace: Option<&Path>) -> String {
    let Some(workspace) = workspace else {
        return file.to_owned();
    };
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| Path::new(file).to_path_buf());
    let workspace = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    absolute.strip_prefix(&workspace).map_or_else(
        |_| file.to_owned(),
        |p| p.display().to_string().replace('\\', "/"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_as_github_documents_it() {
        assert_eq!(data("50% off\r\nnext"), "50%25 off%0D%0Anext");
        assert_eq!(property("cases/a,b::guided"), "cases/a%2Cb%3A%3Aguided");
        let a = Annotation {
            file: "cases/a.yaml".into(),
            line: 12,
            column: 5,
            title: "invoices/a::guided".into(),
            message: "must_right `total` failed:\nit is 100%".into(),
            rank: 0,
        };
        assert_eq!(
            workflow_command(&a),
            "::error file=cases/a.yaml,line=12,col=5,title=invoices/a%3A%3Aguided::must_right `total` failed:%0Ait is 100%25"
        );
    }
}
