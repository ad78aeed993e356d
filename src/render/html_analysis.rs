//! The HTML page's error analysis: grounding per pipeline, the misses by kind, and when each
//! field's values may be accepted automatically.

use std::fmt::Write;

use super::markup::{escape, table_html};
use super::table::{Column, Table};
use crate::evaluate::aggregate::Aggregated;

/// Grounding per pipeline, when a pipeline grounds its values.
pub(super) fn grounding_table(out: &mut String, pipelines: &[(String, Aggregated)]) {
    let table = super::compare::grounding(pipelines);
    if table.rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"grounding\">\n<h2>Grounding</h2>\n<p>Where each value was found: the share of gold fields with a place found on the right page with a box overlapping gold's enough (IoU at least the suite's <code>grounded_iou</code>, 0.5 by default), the mean IoU and the share on the right page.</p>\n");
    table_html(out, &table, "compare");
    out.push_str("</section>\n");
}

/// The misses by kind per pipeline, when anything missed; per field and tag value, most misses
/// first, folded beneath.
pub(super) fn misses_table(out: &mut String, rows: &[crate::evaluate::analysis::MissRow]) {
    use crate::evaluate::analysis::MissScope;
    if rows.iter().all(|r| r.counts.total() == 0) {
        return;
    }
    out.push_str("<section id=\"misses\">\n<h2>Misses</h2>\n<p>Each field that is not an exact match, by kind: <b>missing</b> (gold has a value, the prediction none), <b>invented</b> (the prediction has a value, gold none), <b>format</b> (equal read as a number, a date or an identifier, but not as the field's rule compares), <b>wrong</b> (the rest).</p>\n");
    let (pipelines, parts): (Vec<_>, Vec<_>) = rows
        .iter()
        .filter(|r| r.counts.total() > 0)
        .partition(|r| matches!(r.scope, MissScope::Pipeline));
    // The table the terminal and the step summary print, a pipeline's own rows first.
    table_html(out, &super::analysis::misses(&pipelines), "compare");
    if !parts.is_empty() {
        let mut parts = parts;
        // Most misses first; the report's order between equals.
        parts.sort_by_key(|r| std::cmp::Reverse(r.counts.total()));
        let _ = writeln!(
            out,
            "<details class=\"more\"><summary>By field and by slice, most misses first ({} rows)</summary>",
            parts.len()
        );
        table_html(out, &super::analysis::misses(&parts), "compare");
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

/// Per pipeline and field with confidences: the advised threshold and its automation rate,
/// and the whole acceptance curve beneath.
pub(super) fn acceptance(out: &mut String, rows: &[crate::evaluate::analysis::FieldAcceptance]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"acceptance\">\n<h2>Accepting values automatically</h2>\n<p>\"Accept when the confidence is at least t\": for each field, the smallest t whose error rate among the values it accepts has a 95 % Wilson upper bound at most the suite's <code>target_error</code>, and the share of values it accepts. Each curve lists every distinct t.</p>\n");
    let advice = rows
        .iter()
        .map(|r| {
            let (threshold, automation, bound) = match r.advised {
                Some(p) => (
                    p.threshold.to_string(),
                    format!("{:.4}", p.share),
                    format!("{:.4}", p.error_upper),
                ),
                None => ("none".to_owned(), "0.0000".to_owned(), "-".to_owned()),
            };
            vec![
                r.field.clone(),
                r.pipeline.clone(),
                r.values().to_string(),
                r.target_error.to_string(),
                threshold,
                automation,
                bound,
            ]
        })
        .collect();
    let table = Table::new(
        vec![
            Column::text("field"),
            Column::name("pipeline"),
            Column::count("values", 0),
            Column::count("target error", 0),
            Column::count("threshold", 0),
            Column::count("automation rate", 0),
            Column::count("error bound", 0),
        ],
        advice,
    );
    table_html(out, &table, "compare");
    for r in rows {
        let _ = writeln!(
            out,
            "<details class=\"curve\"><summary>{} · {}: acceptance curve</summary>",
            escape(&r.field),
            escape(&r.pipeline)
        );
        let curve = r
            .curve
            .iter()
            .map(|p| {
                vec![
                    p.threshold.to_string(),
                    p.accepted.to_string(),
                    format!("{:.4}", p.share),
                    p.errors.to_string(),
                    format!("{:.4}", p.error_rate),
                    format!("{:.4}", p.error_upper),
                ]
            })
            .collect();
        let table = Table::new(
            vec![
                Column::count("t", 0),
                Column::count("accepted", 0),
                Column::count("share", 0),
                Column::count("errors", 0),
                Column::count("error rate", 0),
                Column::count("95 % upper bound", 0),
            ],
            curve,
        );
        table_html(out, &table, "compare");
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

/// Every field's values accepted at each of the suite's `acceptance` thresholds, pooled.
pub(super) fn pooled(out: &mut String, rows: &[crate::evaluate::analysis::PooledAcceptance]) {
    let table = super::analysis::pooled_table(rows);
    if table.rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"pooled-acceptance\">\n<h2>Accepting values at chosen thresholds</h2>\n<p>Every field's values pooled at each of the suite's <code>acceptance</code> thresholds: the values accepted, their share of the values with a confidence or of every gold field (as <code>share_of</code> says), the precision among them and the 95 % Wilson upper bound of their error rate.</p>\n");
    table_html(out, &table, "compare");
    out.push_str("</section>\n");
}

/// An image the page holds once, in one place ([`image_definitions`]), and every figure that
/// shows it refers to by its id: a document shown by twenty failing tests is embedded once.
#[derive(Debug, PartialEq)]
pub struct PageImage {
    /// Its id on the page (`document-3`).
    pub id: String,
    /// `image/png` or `image/jpeg`.
    pub media_type: &'static str,
    /// Its width and height, in pixels.
    pub size: (u32, u32),
    /// The bytes, as base64.
    pub base64: String,
}

/// A failing test's document, as the page embeds it.
#[derive(Debug, Clone, PartialEq)]
pub enum DocumentImage {
    /// A PNG or JPEG image, shared by every test that shows it.
    Embedded(std::sync::Arc<PageImage>),
    /// A PDF's pages that the failing fields are on, each drawn as a PNG, or why it is not
    /// shown; by page number, from 1.
    Pages {
        /// The document's path.
        path: String,
        /// The pages, in the order the fields name them.
        pages: Vec<(
            u32,
            Result<std::sync::Arc<PageImage>, crate::base::pdf::NotReadable>,
        )>,
    },
    /// A document that cannot be shown, and why (not an image, unreadable, too large).
    NotShown {
        /// The document's path.
        path: String,
        /// Why, in a few words.
        why: String,
    },
}

/// Every image the tests' documents show, each once, as SVG definitions that the figures use
/// (`<use href="#document-3">`): no script, and the page holds each document's bytes once.
pub(super) fn image_definitions(out: &mut String, documents: &[(String, DocumentImage)]) {
    let mut written: Vec<&str> = Vec::new();
    let images = documents.iter().flat_map(|(_, d)| match d {
        DocumentImage::Embedded(image) => vec![image],
        DocumentImage::Pages { pages, .. } => {
            pages.iter().filter_map(|(_, p)| p.as_ref().ok()).collect()
        }
        DocumentImage::NotShown { .. } => Vec::new(),
    });
    for image in images {
        if written.contains(&image.id.as_str()) {
            continue;
        }
        if written.is_empty() {
            out.push_str(
                "<svg class=\"images\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs>\n",
            );
        }
        let (width, height) = image.size;
        let _ = writeln!(
            out,
            "<image id=\"{}\" width=\"{width}\" height=\"{height}\" href=\"data:{};base64,{}\"/>",
            image.id, image.media_type, image.base64
        );
        written.push(&image.id);
    }
    if !written.is_empty() {
        out.push_str("</defs></svg>\n");
    }
}

/// A failing test's fields not found where gold says, drawn on its document: gold's boxes and
/// the prediction's over the page image, the boxes in SVG (fractions of the page, so they
/// follow the image however it is scaled). An image is page 1; a PDF shows each page a box is
/// on. A box on a page not shown is named in the caption, not drawn.
pub(super) fn document_view(
    out: &mut String,
    case: &crate::record::TestRecord,
    image: &DocumentImage,
) {
    let missed: Vec<(&str, crate::evaluate::outcome::FieldGrounding)> = case
        .fields
        .iter()
        .filter_map(|f| {
            f.grounding
                .filter(|g| g.grounded < 1.0)
                .map(|g| (f.name.as_str(), g))
        })
        .collect();
    if missed.is_empty() {
        return;
    }
    match image {
        DocumentImage::Embedded(image) => {
            page_figure(out, &case.id, &missed, (1, None), image);
        }
        DocumentImage::Pages { path, pages } => {
            for (page, drawn) in pages {
                match drawn {
                    Ok(image) => {
                        page_figure(out, &case.id, &missed, (*page, Some(path)), image);
                    }
                    Err(why) => {
                        let _ = writeln!(
                            out,
                            "<p class=\"at\">page {page} of the document <code>{}</code> is not shown: {}</p>",
                            escape(path),
                            escape(&why.0)
                        );
                    }
                }
            }
        }
        DocumentImage::NotShown { path, why } => {
            let _ = writeln!(
                out,
                "<p class=\"at\">the document <code>{}</code> is not shown: {}</p>",
                escape(path),
                escape(why)
            );
        }
    }
}

/// One page with the boxes on it: `shown` is the page's number and, for a page of a PDF, the
/// document's path (its caption names the page).
fn page_figure(
    out: &mut String,
    id: &str,
    missed: &[(&str, crate::evaluate::outcome::FieldGrounding)],
    (shown, pdf): (u32, Option<&String>),
    image: &PageImage,
) {
    let on_this_page = |page: Option<u32>| page.unwrap_or(1) == shown;
    let mut boxes = String::new();
    // The field's name by each gold box, in an SVG of the image's pixels (the boxes' SVG is
    // stretched to the page, which would stretch text): above the box, or below one at the top.
    let mut labels = String::new();
    let mut notes = Vec::new();
    for (name, g) in missed {
        for (class, page, bbox) in [
            ("gold", g.gold_page, g.gold_bbox),
            ("predicted", g.predicted_page, g.predicted_bbox),
        ] {
            match bbox {
                Some(b) if on_this_page(page) => drawn_box(&mut boxes, &mut labels, name, class, b),
                Some(_) => notes.push(format!(
                    "{} {class} on page {}",
                    name,
                    page.map_or_else(|| "?".to_owned(), |p| p.to_string())
                )),
                None => notes.push(format!("{name} {class}: no box")),
            }
        }
    }
    let names: Vec<String> = missed
        .iter()
        .map(|(n, g)| match g.iou {
            Some(iou) => format!("{n} (IoU {iou:.4})"),
            None => format!(
                "{n} (page {})",
                g.predicted_page
                    .map_or_else(|| "none".to_owned(), |p| p.to_string())
            ),
        })
        .collect();
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("; {}", notes.join(", "))
    };
    let (data_page, caption) = match pdf {
        Some(path) => (
            format!(" data-page=\"{shown}\""),
            format!("page {shown} of <code>{}</code>: ", escape(path)),
        ),
        None => (String::new(), String::new()),
    };
    let (width, height) = image.size;
    let _ = writeln!(
        out,
        "<figure class=\"page\" data-test=\"{}\"{data_page}>\n<div class=\"page-view\"><svg class=\"page-image\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"the document of {}\"><use href=\"#{}\"/></svg>\n<svg class=\"boxes\" viewBox=\"0 0 1 1\" preserveAspectRatio=\"none\" aria-hidden=\"true\">\n{boxes}</svg>\n<svg class=\"boxes labels\" aria-hidden=\"true\">\n{labels}</svg></div>\n<figcaption>{caption}not found where gold says: {}. <span class=\"key-gold\">gold</span> boxes solid, <span class=\"key-predicted\">predicted</span> dashed{}</figcaption>\n</figure>",
        escape(id),
        escape(id),
        image.id,
        escape(&names.join(", ")),
        escape(&notes)
    );
}

/// A box drawn in fractions of the page, and gold's labelled with its field.
fn drawn_box(boxes: &mut String, labels: &mut String, name: &str, class: &str, b: [f64; 4]) {
    let [x0, y0, x1, y1] = b;
    let _ = writeln!(
        boxes,
        "<rect class=\"{class}\" data-field=\"{}\" x=\"{x0:.6}\" y=\"{y0:.6}\" width=\"{:.6}\" height=\"{:.6}\"><title>{} {class}</title></rect>",
        escape(name),
        x1 - x0,
        y1 - y0,
        escape(name)
    );
    if class == "gold" {
        let (y, dy) = if y0 < 0.04 { (y1, 11) } else { (y0, -3) };
        let _ = writeln!(
            labels,
            "<text class=\"gold\" data-field=\"{}\" style=\"fill:var(--good);font-weight:600\" x=\"{:.4}%\" y=\"{:.4}%\" dy=\"{dy}\">{}</text>",
            escape(name),
            x0 * 100.0,
            y * 100.0,
            escape(name)
        );
    }
}
