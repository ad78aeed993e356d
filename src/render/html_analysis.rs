//! The HTML page's error analysis: grounding per pipeline.

use std::fmt::Write;

use super::html::escape;
use super::num;
use crate::evaluate::aggregate::Aggregated;

/// Grounding per pipeline, when a pipeline grounds its values.
pub(super) fn grounding_table(out: &mut String, pipelines: &[(String, Aggregated)]) {
    let rows: Vec<_> = pipelines
        .iter()
        .filter(|(_, a)| a.grounded.is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"grounding\">\n<h2>Grounding</h2>\n<p>Where each value was found: the share of gold fields with a place found on the right page with a box overlapping gold's enough (IoU at least the suite's <code>grounded_iou</code>, 0.5 by default), the mean IoU and the share on the right page.</p>\n<div class=\"scroll\"><table class=\"compare\">\n<thead><tr><th>pipeline</th><th>grounded</th><th>IoU</th><th>page match</th></tr></thead>\n<tbody>\n");
    for (name, a) in rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            num(a.grounded),
            num(a.iou),
            num(a.page_match)
        );
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}
