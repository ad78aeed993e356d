//! `goldgate history [DIR] [--json] [--html FILE]`: each pipeline's trend in the run histories
//! the suites under DIR declare.

use std::path::Path;

use crate::base::fs::write_atomically_with;
use crate::record::history::{Trend, read, trends};
use crate::render::{bad_line, history_page, history_text};

/// What `goldgate history` prints: the trends as text, or as JSON; with `html`, the page too.
pub fn history(dir: &Path, json: bool, html: Option<&Path>) -> Result<String, String> {
    let all = trends_under(dir)?;
    if let Some(path) = html {
        write_atomically_with(path, |out| {
            std::io::Write::write_all(out, history_page(&all).as_bytes())
        })
        .map_err(|e| format!("cannot write the page `{}`: {e}", path.display()))?;
    }
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({ "trends": all }))
            .map_err(|e| e.to_string())?;
        return Ok(text + "\n");
    }
    if all.is_empty() {
        return Ok(format!(
            "no run history under `{}`: a suite keeps one with `history: history.jsonl`, and each run appends to it\n",
            dir.display()
        ));
    }
    Ok(history_text(&all))
}

/// Every trend of every history declared under `dir`, suite by suite; a history no run has
/// written yet has none.
fn trends_under(dir: &Path) -> Result<Vec<Trend>, String> {
    let declared = crate::load::suite::histories(dir).map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    for (_, file) in declared {
        let shown = file.display().to_string();
        let text = match std::fs::read_to_string(&file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read the history `{shown}`: {e}")),
        };
        let records = read(&text).map_err(|bad| bad_line(&shown, &bad))?;
        all.extend(trends(&shown, &records, None));
    }
    Ok(all)
}
