//! The pieces of HTML every section of the page is written with: text escaped, and a table
//! ([`super::table::Table`]) as HTML.

use std::fmt::Write;

/// Text as HTML: `&`, `<`, `>`, `"` escaped, control characters shown (`\u{1b}`).
pub(crate) fn escape(text: &str) -> String {
    super::visible(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table as HTML: figures and names never broken, text wrapped where it must, and the columns
/// left out said once beneath.
pub(crate) fn table_html(out: &mut String, table: &super::table::Table, class: &str) {
    use super::table::Kind;
    let class_of = |kind: Kind| match kind {
        Kind::Figure => "num",
        Kind::Name => "name",
        Kind::Text => "text",
    };
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"{class}\">\n<thead><tr>"
    );
    for c in &table.columns {
        let _ = write!(
            out,
            "<th class=\"{}\">{}</th>",
            class_of(c.kind),
            escape(c.heading)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for (cell, c) in row.iter().zip(&table.columns) {
            match (c.kind, cell.split_once(" [")) {
                // An interval (`+0.0125 [+0.0010, +0.0261]`) may break between its difference
                // and its bounds, never inside a number.
                (Kind::Figure, Some((difference, bounds))) => {
                    let _ = write!(
                        out,
                        "<td class=\"num interval\"><span class=\"num\">{}</span> <span class=\"num bounds\">[{}</span></td>",
                        escape(difference),
                        escape(bounds)
                    );
                }
                _ => {
                    let _ = write!(
                        out,
                        "<td class=\"{}\">{}</td>",
                        class_of(c.kind),
                        escape(cell)
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    if let Some(left_out) = table.left_out_line() {
        let _ = writeln!(out, "<p class=\"left-out\">{}</p>", escape(&left_out));
    }
}
