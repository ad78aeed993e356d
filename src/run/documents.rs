//! The documents the HTML page shows under the failing tests' boxes: images embedded, PDF pages
//! drawn, each read and drawn once per page.

use std::path::Path;

use crate::record::TestRecord;

/// The largest image the HTML page embeds: a page scanned at 300 dpi is a few MiB.
const LARGEST_EMBEDDED: u64 = 16 * 1024 * 1024;

/// The documents the HTML page shows: those of the failing tests with a field not found where
/// gold says, read once each; PNG and JPEG embedded, a PDF's pages those fields are on drawn
/// (each page once, within one budget for the run), others said not shown.
pub(super) fn document_images(cases: &[TestRecord]) -> Vec<(String, crate::render::DocumentImage)> {
    let mut documents = Documents::default();
    cases
        .iter()
        .filter(|c| c.passed == Some(false))
        .filter_map(|c| {
            let pages = pages_shown(c);
            if pages.is_empty() {
                return None;
            }
            let path = c.document.as_deref()?;
            Some((c.id.clone(), documents.shown(path, &pages)))
        })
        .collect()
}

/// The pages a failing test's document is shown at: those its fields not found where gold
/// says are on, gold's page (1 when it names none) before the prediction's, each once.
fn pages_shown(case: &TestRecord) -> Vec<u32> {
    let mut pages = Vec::new();
    for g in case
        .fields
        .iter()
        .filter_map(|f| f.grounding.filter(|g| g.grounded < 1.0))
    {
        let gold = g.gold_page.unwrap_or(1);
        let predicted = g.predicted_bbox.map(|_| g.predicted_page.unwrap_or(gold));
        for page in std::iter::once(gold).chain(predicted) {
            if !pages.contains(&page) {
                pages.push(page);
            }
        }
    }
    pages
}

/// The documents read so far, and the PDF pages drawn so far, for one HTML page.
#[derive(Default)]
struct Documents {
    read: std::collections::HashMap<String, DocumentBytes>,
    drawn: std::collections::HashMap<(String, u32), Result<String, crate::base::pdf::NotReadable>>,
    budget: crate::base::pdf::DrawingBudget,
}

/// A document as read once: an image, a PDF's bytes, or why neither.
#[derive(Clone)]
enum DocumentBytes {
    Image(crate::render::DocumentImage),
    Pdf(std::sync::Arc<Vec<u8>>),
}

impl Documents {
    /// The document at `path` as a failing test shows it, at `pages` when it is a PDF.
    fn shown(&mut self, path: &str, pages: &[u32]) -> crate::render::DocumentImage {
        use crate::render::DocumentImage;
        let read = self
            .read
            .entry(path.to_owned())
            .or_insert_with(|| read_document(path))
            .clone();
        let bytes = match read {
            DocumentBytes::Image(image) => return image,
            DocumentBytes::Pdf(bytes) => bytes,
        };
        let missing: Vec<u32> = pages
            .iter()
            .copied()
            .filter(|&p| !self.drawn.contains_key(&(path.to_owned(), p)))
            .collect();
        for (page, drawn) in crate::base::pdf::draw_pages(&bytes, &missing, &mut self.budget) {
            let drawn = drawn.map(|p| crate::base::image::base64(&p.png));
            self.drawn.insert((path.to_owned(), page), drawn);
        }
        DocumentImage::Pages {
            path: path.to_owned(),
            pages: pages
                .iter()
                .map(|&p| (p, self.drawn[&(path.to_owned(), p)].clone()))
                .collect(),
        }
    }
}

/// A document's bytes, known by their first bytes: an image to embed, a PDF to draw pages of,
/// or why it is not shown.
fn read_document(path: &str) -> DocumentBytes {
    use crate::render::DocumentImage;
    let not_shown = |why: String| {
        DocumentBytes::Image(DocumentImage::NotShown {
            path: path.to_owned(),
            why,
        })
    };
    let bytes = match crate::base::fs::read_document(
        Path::new(path),
        crate::base::budget::DOCUMENT_BYTES,
    ) {
        Ok(bytes) => bytes,
        Err(e) => return not_shown(format!("it cannot be read ({})", e.message)),
    };
    if crate::base::pdf::is_pdf(&bytes) {
        return DocumentBytes::Pdf(std::sync::Arc::new(bytes));
    }
    if bytes.len() as u64 > LARGEST_EMBEDDED {
        return not_shown(format!(
            "it is {} MiB, more than the page embeds",
            bytes.len() / (1024 * 1024)
        ));
    }
    match crate::base::image::image_type(&bytes) {
        Some(media_type) => DocumentBytes::Image(DocumentImage::Embedded {
            media_type,
            base64: crate::base::image::base64(&bytes),
        }),
        None => not_shown("it is not a PNG or JPEG image, nor a PDF".to_owned()),
    }
}
