//! The documents the HTML page shows under the failing tests' boxes: images embedded, PDF pages
//! drawn, each read and drawn once per page.

use std::path::Path;
use std::sync::Arc;

use crate::render::{DocumentImage, PageImage};

use crate::record::TestRecord;

/// The largest image the HTML page embeds: a page scanned at 300 dpi is a few MiB.
const LARGEST_EMBEDDED: u64 = 16 * 1024 * 1024;

/// The most bytes of documents (images, drawn PDF pages) one HTML page embeds, each once
/// however many tests show it: some 43 MiB of base64, a page a browser still opens quickly.
/// A document past it is said not shown, and why.
pub(crate) const EMBEDDED_TOTAL: u64 = 32 * 1024 * 1024;

/// The documents the HTML page shows: those of the failing tests with a field not found where
/// gold says, read once each; PNG and JPEG embedded, a PDF's pages those fields are on drawn
/// (each page once, within one budget for the run), others said not shown.
pub(super) fn document_images(cases: &[TestRecord]) -> Vec<(String, DocumentImage)> {
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

/// A PDF page as drawn once for the page: the image every test showing it uses, or why not.
type Drawn = Result<Arc<PageImage>, crate::base::pdf::NotReadable>;

/// The documents read so far, and the PDF pages drawn so far, for one HTML page.
#[derive(Default)]
struct Documents {
    read: std::collections::HashMap<String, DocumentBytes>,
    drawn: std::collections::HashMap<(String, u32), Drawn>,
    budget: crate::base::pdf::DrawingBudget,
    /// The images embedded so far: their number names the next, their bytes count against
    /// [`EMBEDDED_TOTAL`].
    embedded: (usize, u64),
}

/// A document as read once: an image, a PDF's bytes, or why neither.
#[derive(Clone)]
enum DocumentBytes {
    Image(DocumentImage),
    Pdf(Arc<Vec<u8>>),
}

impl Documents {
    /// The document at `path` as a failing test shows it, at `pages` when it is a PDF.
    fn shown(&mut self, path: &str, pages: &[u32]) -> DocumentImage {
        if !self.read.contains_key(path) {
            let read = self.read_document(path);
            self.read.insert(path.to_owned(), read);
        }
        let read = self.read[path].clone();
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
            let drawn =
                drawn.and_then(|p| self.embed(&p.png).map_err(crate::base::pdf::NotReadable));
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

impl Documents {
    /// A document's bytes, known by their first bytes: an image to embed, a PDF to draw pages
    /// of, or why it is not shown.
    fn read_document(&mut self, path: &str) -> DocumentBytes {
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
            return DocumentBytes::Pdf(Arc::new(bytes));
        }
        if bytes.len() as u64 > LARGEST_EMBEDDED {
            return not_shown(format!(
                "it is {} MiB, more than the page embeds",
                bytes.len() / (1024 * 1024)
            ));
        }
        if crate::base::image::image_type(&bytes).is_none() {
            return not_shown("it is not a PNG or JPEG image, nor a PDF".to_owned());
        }
        match self.embed(&bytes) {
            Ok(image) => DocumentBytes::Image(DocumentImage::Embedded(image)),
            Err(why) => not_shown(why),
        }
    }

    /// An image's bytes as the page holds them once, named by the next id, within
    /// [`EMBEDDED_TOTAL`]; or why not.
    fn embed(&mut self, bytes: &[u8]) -> Result<Arc<PageImage>, String> {
        let (count, total) = self.embedded;
        let Some(media_type) = crate::base::image::image_type(bytes) else {
            return Err("it is not a PNG or JPEG image".to_owned());
        };
        let Some(size) = crate::base::image::image_size(bytes) else {
            return Err("its size in pixels cannot be read from its header".to_owned());
        };
        if total + bytes.len() as u64 > EMBEDDED_TOTAL {
            return Err(format!(
                "the page embeds {} MiB of documents at most, and holds {} MiB already",
                EMBEDDED_TOTAL >> 20,
                total >> 20
            ));
        }
        self.embedded = (count + 1, total + bytes.len() as u64);
        Ok(Arc::new(PageImage {
            id: format!("document-{count}"),
            media_type,
            size,
            base64: crate::base::image::base64(bytes),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG's first bytes, saying 800 x 500 pixels, and `len` bytes in all.
    fn png(len: usize) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x03\x20\0\0\x01\xF4".to_vec();
        bytes.resize(len, 0);
        bytes
    }

    #[test]
    fn the_page_embeds_its_documents_within_one_total() {
        let mut documents = Documents::default();
        let image = documents.embed(&png(1000)).unwrap();
        assert_eq!((image.id.as_str(), image.size), ("document-0", (800, 500)));
        let big = png(EMBEDDED_TOTAL as usize / 2);
        assert_eq!(documents.embed(&big).unwrap().id, "document-1");
        assert_eq!(
            documents.embed(&big).unwrap_err(),
            "the page embeds 32 MiB of documents at most, and holds 16 MiB already"
        );
        // What still fits is embedded.
        assert_eq!(documents.embed(&png(1000)).unwrap().id, "document-2");
    }
}
