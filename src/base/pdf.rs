//! A PDF document's pages: how many, the size each is shown at, and a page drawn as a PNG for
//! the HTML page, in-process (hayro, pure Rust: no system library, no server, nothing fetched).
//!
//! A PDF is an input goldgate does not control, so everything here is bounded (see
//! [`super::budget`]): the file is read within a size, its streams are decoded through their
//! whole filter chains and counted before any reader decodes them (a few kilobytes of deflate
//! can claim gigabytes), its dictionaries' nesting and its pages are counted (`pdf_scan`),
//! images are held to a number of pixels, a page is drawn at a bounded size on a thread of its own that is waited for a
//! bounded time, and a run draws a bounded number of pages. Going over a bound gives a reason, never
//! a hang or a blow-up.

// Without the `pdf` feature, pages are never drawn: what sizes them is left unused.
#![cfg_attr(not(feature = "pdf"), allow(dead_code, unused_imports))]

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::budget::{
    PDF_IMAGE_PIXELS, PDF_PAGE_PIXELS, PDF_PAGE_SECONDS, PDF_PAGE_WIDTH, PDF_RUN_PAGES,
    PDF_RUN_SECONDS,
};

/// Whether these bytes are a PDF: known by its header, as readers do (within the first
/// kilobyte), not by the file's name.
pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(1024)]
        .windows(5)
        .any(|w| w == b"%PDF-")
}

/// The size a page is shown at, in PDF points (1/72 inch): its crop box within its media box,
/// turned by its `/Rotate`, so that width and height are those of the page as a reader shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageSize {
    /// The width, in points.
    pub width: f64,
    /// The height, in points.
    pub height: f64,
}

/// Why a PDF's pages cannot be read or drawn, in a few words a sentence can end with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReadable(pub String);

impl std::fmt::Display for NotReadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The size of every page of a PDF, in order (page 1 first).
pub fn page_sizes(bytes: &[u8]) -> Result<Vec<PageSize>, NotReadable> {
    imp::within_bounds(bytes)?;
    imp::page_sizes(bytes)
}

/// A page drawn: a PNG of the page as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnPage {
    /// The PNG's bytes.
    pub png: Vec<u8>,
}

/// What a run may still spend on drawing pages: their number and the time they take. One
/// budget is shared by every page of a run's HTML page.
#[derive(Debug)]
pub struct DrawingBudget {
    pages_left: usize,
    until: Option<Instant>,
    seconds: f64,
}

impl Default for DrawingBudget {
    fn default() -> Self {
        DrawingBudget {
            pages_left: PDF_RUN_PAGES,
            until: None,
            seconds: PDF_RUN_SECONDS,
        }
    }
}

impl DrawingBudget {
    /// How long the next page may take: the page's own bound, or what is left of the run's;
    /// `None` once either the pages or the time are spent, with why.
    fn next_page(&mut self) -> Result<Duration, NotReadable> {
        let until = *self
            .until
            .get_or_insert_with(|| Instant::now() + Duration::from_secs_f64(self.seconds));
        if self.pages_left == 0 {
            return Err(NotReadable(format!(
                "this run has drawn {PDF_RUN_PAGES} PDF pages already, as many as a page shows"
            )));
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(NotReadable(format!(
                "this run has spent its {PDF_RUN_SECONDS} s of drawing PDF pages"
            )));
        }
        self.pages_left -= 1;
        Ok(left.min(Duration::from_secs_f64(PDF_PAGE_SECONDS)))
    }
}

/// Draws pages of a PDF (numbered from 1), each once, within the run's budget: each page drawn,
/// or why it is not.
pub fn draw_pages(
    bytes: &Arc<Vec<u8>>,
    pages: &[u32],
    budget: &mut DrawingBudget,
) -> Vec<(u32, Result<DrawnPage, NotReadable>)> {
    // The whole file is measured before the reader opens it: its content streams, whatever
    // their filters, are then within the budget when a page is drawn.
    if let Err(why) = imp::within_bounds(bytes).and_then(|()| imp::within_image_budget(bytes)) {
        return pages.iter().map(|&p| (p, Err(why.clone()))).collect();
    }
    pages
        .iter()
        .map(|&page| {
            let drawn = budget
                .next_page()
                .and_then(|time| draw_in_time(bytes, page, time));
            (page, drawn)
        })
        .collect()
}

/// Draws one page on a thread of its own, waited for at most `time`: a page that takes longer
/// is given up (its thread is left to finish or to end with the process), and one whose
/// drawing panics is said not drawable, without taking the run down.
fn draw_in_time(bytes: &Arc<Vec<u8>>, page: u32, time: Duration) -> Result<DrawnPage, NotReadable> {
    let (send, receive) = std::sync::mpsc::channel();
    let bytes = Arc::clone(bytes);
    // Deeply nested objects are read recursively: a large stack keeps them from overflowing it.
    let spawned = std::thread::Builder::new()
        .name("goldgate-pdf-page".to_owned())
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = send.send(imp::draw(&bytes, page));
        });
    if spawned.is_err() {
        return Err(NotReadable(
            "no thread could be started to draw it".to_owned(),
        ));
    }
    match receive.recv_timeout(time) {
        Ok(drawn) => drawn,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(NotReadable(format!(
            "drawing it took more than {:.0} s, and was given up",
            time.as_secs_f64()
        ))),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(NotReadable(
            "the PDF reader failed on it (a PDF it does not understand)".to_owned(),
        )),
    }
}

/// The scale a page of this size in points is drawn at: [`PDF_PAGE_WIDTH`] pixels wide, made
/// smaller so that the page keeps within [`PDF_PAGE_PIXELS`] and 8,000 pixels on each side: a
/// huge page is drawn small, never large. A page with no size, or so thin that it would be less
/// than a pixel across, is not drawn.
pub fn scale_for(size: PageSize) -> Result<f64, NotReadable> {
    let PageSize { width, height } = size;
    if !(width >= 1.0 && height >= 1.0 && width.is_finite() && height.is_finite()) {
        return Err(NotReadable(format!(
            "its page is {width} x {height} points, no page to draw"
        )));
    }
    let mut scale = f64::from(PDF_PAGE_WIDTH) / width;
    let pixels = width * height * scale * scale;
    if pixels > PDF_PAGE_PIXELS as f64 {
        scale *= (PDF_PAGE_PIXELS as f64 / pixels).sqrt();
    }
    scale = scale.min(8000.0 / height).min(8000.0 / width);
    if (width * scale).min(height * scale) < 1.0 {
        return Err(NotReadable(format!(
            "its page is {width} x {height} points, too thin to draw"
        )));
    }
    Ok(scale)
}

#[cfg(feature = "pdf")]
mod imp {
    use super::{NotReadable, PDF_IMAGE_PIXELS, PageSize, scale_for};
    use hayro::hayro_interpret::InterpreterSettings;
    use hayro::hayro_syntax::Pdf;
    use hayro::hayro_syntax::object::{Dict, Name, Object};
    use hayro::vello_cpu::color::palette::css::WHITE;
    use hayro::{PixmapSettings, RenderCache, RenderSettings};

    pub(super) use crate::base::pdf_scan::within_bounds;

    /// A PDF whose page tree gives no page: broken, or its pages beyond the reader's bounds
    /// (objects nested more than 512 deep).
    fn no_page() -> NotReadable {
        NotReadable("it has no page goldgate can read".to_owned())
    }

    fn open(bytes: &[u8]) -> Result<Pdf, NotReadable> {
        Pdf::new(bytes.to_vec()).map_err(|e| {
            NotReadable(match e {
                hayro::hayro_syntax::LoadPdfError::Decryption(
                    hayro::hayro_syntax::DecryptionError::PasswordProtected,
                ) => "it is encrypted, and opens only with a password".to_owned(),
                hayro::hayro_syntax::LoadPdfError::Decryption(_) => {
                    "it is encrypted in a way goldgate cannot read".to_owned()
                }
                _ => "it is not a PDF goldgate can read (its structure is broken)".to_owned(),
            })
        })
    }

    pub(super) fn page_sizes(bytes: &[u8]) -> Result<Vec<PageSize>, NotReadable> {
        let pdf = open(bytes)?;
        if pdf.pages().is_empty() {
            return Err(no_page());
        }
        Ok(pdf
            .pages()
            .iter()
            .map(|page| {
                let (width, height) = page.render_dimensions();
                PageSize {
                    width: f64::from(width),
                    height: f64::from(height),
                }
            })
            .collect())
    }

    /// Every image of the file within [`PDF_IMAGE_PIXELS`]: a reader allocates an image at the
    /// size its dictionary says, whatever the bytes behind it hold.
    pub(super) fn within_image_budget(bytes: &[u8]) -> Result<(), NotReadable> {
        let pdf = open(bytes)?;
        for object in pdf.objects() {
            let Object::Stream(stream) = object else {
                continue;
            };
            let dict: &Dict<'_> = stream.dict();
            if dict.get::<Name<'_>>(b"Subtype".as_slice()).as_deref() != Some(b"Image".as_slice()) {
                continue;
            }
            let side = |key: &[u8]| dict.get::<f64>(key).unwrap_or(0.0).max(0.0);
            if side(b"Width") * side(b"Height") > PDF_IMAGE_PIXELS as f64 {
                return Err(NotReadable(format!(
                    "an image of it is larger than {} million pixels",
                    PDF_IMAGE_PIXELS / 1_000_000
                )));
            }
        }
        Ok(())
    }

    pub(super) fn draw(bytes: &[u8], page: u32) -> Result<super::DrawnPage, NotReadable> {
        let pdf = open(bytes)?;
        let pages = pdf.pages();
        if pages.is_empty() {
            return Err(no_page());
        }
        let Some(found) = usize::try_from(page)
            .ok()
            .and_then(|p| p.checked_sub(1))
            .and_then(|i| pages.get(i))
        else {
            return Err(NotReadable(format!(
                "it has {} pages, and no page {page}",
                pages.len()
            )));
        };
        let (width, height) = found.render_dimensions();
        let (width, height) = (f64::from(width), f64::from(height));
        let scale = scale_for(PageSize { width, height })?;
        // Whole pixels each way, the nearest to the page's aspect (the renderer truncates a
        // fraction of a pixel, which would shift boxes drawn in fractions of the page): a
        // quarter pixel over the whole number, which truncates to it.
        let scale_to = |points: f64| (((points * scale).round() + 0.25) / points) as f32;
        let cache = RenderCache::new();
        let pixmap = hayro::render(
            found,
            &cache,
            &InterpreterSettings::default(),
            &RenderSettings::default(),
            &PixmapSettings {
                x_scale: scale_to(width),
                y_scale: scale_to(height),
                bg_color: WHITE,
            },
        );
        let png = pixmap
            .into_png()
            .map_err(|_| NotReadable("its drawing could not be written as a PNG".to_owned()))?;
        Ok(super::DrawnPage { png })
    }
}

#[cfg(not(feature = "pdf"))]
mod imp {
    use super::{NotReadable, PageSize};

    fn without() -> NotReadable {
        NotReadable("this goldgate was built without PDF support (its `pdf` feature)".to_owned())
    }

    pub(super) fn page_sizes(_: &[u8]) -> Result<Vec<PageSize>, NotReadable> {
        Err(without())
    }

    pub(super) fn within_bounds(_: &[u8]) -> Result<(), NotReadable> {
        Err(without())
    }

    pub(super) fn within_image_budget(_: &[u8]) -> Result<(), NotReadable> {
        Err(without())
    }

    pub(super) fn draw(_: &[u8], _: u32) -> Result<super::DrawnPage, NotReadable> {
        Err(without())
    }
}
