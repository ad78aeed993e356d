//! Reading where a value is on the document: a value object's `page` and `bbox`, checked.

/// A mistake in a page or a box: what is wrong, and the fix.
pub(crate) type Mistake = (String, String);

/// A page number from its written text: a whole number from 1.
pub(crate) fn page(text: &str) -> Result<u32, Mistake> {
    match text.trim().parse::<u32>() {
        Ok(p) if p >= 1 => Ok(p),
        _ => Err((
            format!("`page` must be a page number from 1, found `{text}`"),
            "write the page the value is on, the first page being `page: 1`".to_owned(),
        )),
    }
}

/// A box from the texts of its items: four numbers `[x0, y0, x1, y1]`, left and top edges
/// first, none negative; within the page (0 to 1) when `normalized`.
pub(crate) fn bbox(items: &[String], normalized: bool) -> Result<[f64; 4], Mistake> {
    const SHAPE: &str = "write the box as `[x0, y0, x1, y1]`: left, top, right, bottom";
    let numbers: Vec<f64> = items
        .iter()
        .map(|t| t.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            (
                format!(
                    "`bbox` must hold four numbers, found [{}]",
                    items.join(", ")
                ),
                SHAPE.to_owned(),
            )
        })?;
    let [x0, y0, x1, y1] = <[f64; 4]>::try_from(numbers.as_slice()).map_err(|_| {
        (
            format!("`bbox` must hold four numbers, found {}", items.len()),
            SHAPE.to_owned(),
        )
    })?;
    if x0 > x1 || y0 > y1 {
        return Err((
            format!(
                "`bbox` [{x0}, {y0}, {x1}, {y1}] has its right edge left of its left edge, or its bottom above its top"
            ),
            format!("{SHAPE} (x0 <= x1, y0 <= y1)"),
        ));
    }
    if [x0, y0, x1, y1].iter().any(|&c| c < 0.0) {
        return Err((
            format!("`bbox` [{x0}, {y0}, {x1}, {y1}] has a negative coordinate"),
            "coordinates start at the page's top-left corner, 0".to_owned(),
        ));
    }
    if normalized && [x0, y0, x1, y1].iter().any(|&c| c > 1.0) {
        return Err((
            format!("`bbox` [{x0}, {y0}, {x1}, {y1}] lies outside the page: boxes are fractions of the page, 0 to 1"),
            "divide pixel coordinates by the page's width and height, or say `bbox_units: pixels` in the suite and give the case's `page_size`".to_owned(),
        ));
    }
    Ok([x0, y0, x1, y1])
}

/// A gold box covers some of the page: one of no width or no height shares nothing with any
/// box (its IoU is 0, even against itself), so its field could never be grounded.
pub(crate) fn has_area(b: [f64; 4]) -> Result<(), Mistake> {
    let [x0, y0, x1, y1] = b;
    if x0 < x1 && y0 < y1 {
        return Ok(());
    }
    let what = if x0 == x1 { "no width" } else { "no height" };
    Err((
        format!(
            "`bbox` [{x0}, {y0}, {x1}, {y1}] has {what}, so no predicted box can overlap it and the field could never be grounded"
        ),
        "give the box around the value's text, its right edge beyond its left and its bottom below its top; to check the page alone, leave `bbox` out".to_owned(),
    ))
}

/// A box in pixels against the page's size: within it.
pub(crate) fn on_page(b: [f64; 4], (width, height): (f64, f64)) -> Result<(), Mistake> {
    if b[2] > width || b[3] > height {
        return Err((
            format!(
                "`bbox` [{}, {}, {}, {}] lies outside the page of {width} x {height} pixels",
                b[0], b[1], b[2], b[3]
            ),
            "give the box in pixels of the page, or the page's real size in `page_size`".to_owned(),
        ));
    }
    Ok(())
}

/// A box in PDF points against its page's size (in points, as the page is shown): within it, by
/// half a point (readers round a word's box outward).
pub(crate) fn on_pdf_page(
    b: [f64; 4],
    page: u32,
    (width, height): (f64, f64),
) -> Result<(), Mistake> {
    let slack = crate::model::case::POINT_SLACK;
    if b[2] > width + slack || b[3] > height + slack {
        return Err((
            format!(
                "`bbox` [{}, {}, {}, {}] lies outside page {page} of the PDF, {width} x {height} points",
                b[0], b[1], b[2], b[3]
            ),
            "give the box in PDF points from the page's top-left corner (pdfplumber's `x0, top, x1, bottom`), or change the suite's `bbox_units`".to_owned(),
        ));
    }
    Ok(())
}

/// A page against the number of pages of the case's PDF.
pub(crate) fn within_the_document(page: u32, pages: usize) -> Result<(), Mistake> {
    if usize::try_from(page).is_ok_and(|p| p <= pages) {
        return Ok(());
    }
    Err((
        format!(
            "`page: {page}` is beyond the document, which has {pages} page{}",
            if pages == 1 { "" } else { "s" }
        ),
        "pages count from 1, as a PDF reader numbers them: give the page the value is on"
            .to_owned(),
    ))
}

/// The sizes of the pages of a case's document, when it is a PDF (known by its bytes): read
/// only for a case that places values, to measure boxes in points and to check pages against
/// the count. A document that is missing is said so elsewhere (`document:`); one that is not a
/// PDF, or that cannot be read, is a mistake only when the boxes are in points, which cannot be
/// placed without it (the HTML page says why it shows no page otherwise).
pub(crate) fn pdf_pages(
    document: &crate::model::case::Document,
    units: crate::model::case::BoxUnits,
) -> Result<Option<crate::model::case::PdfPageSizes>, crate::base::location::LoadError> {
    use crate::base::location::LoadError;
    let points = units == crate::model::case::BoxUnits::Points;
    let (file, mark) = &document.at;
    let shown = document.path.display();
    let mistake = |message: String| {
        LoadError::at(file, *mark, "document", message).hint(
            "boxes in points are measured on the PDF's pages: name a PDF goldgate can read, or write the boxes as fractions of the page (`bbox_units: normalized`)",
        )
    };
    if !document.path.is_file() {
        return Ok(None);
    }
    match pages_of(&document.path) {
        Pages::Unread(e) if points => Err(e),
        Pages::NotPdf if points => Err(mistake(format!(
            "this case's boxes are in PDF points (`bbox_units: points`), but its document `{shown}` is not a PDF"
        ))),
        Pages::Read(Ok(sizes)) => Ok(Some(sizes)),
        Pages::Read(Err(why)) if points => Err(mistake(format!(
            "the pages of the PDF `{shown}` cannot be read: {why}"
        ))),
        _ => Ok(None),
    }
}

/// A document as its pages were read: why it could not be, that it is no PDF, or its pages'
/// sizes (or why not).
#[derive(Clone)]
enum Pages {
    Unread(crate::base::location::LoadError),
    NotPdf,
    Read(Result<std::sync::Arc<[(f64, f64)]>, crate::base::pdf::NotReadable>),
}

/// The pages of the document at `path`, read once per run: every case naming a document asks
/// for the same, and reading a large or hostile one takes up to its bounds each time.
fn pages_of(path: &std::path::Path) -> Pages {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static KNOWN: OnceLock<Mutex<HashMap<std::path::PathBuf, Pages>>> = OnceLock::new();
    let known = KNOWN.get_or_init(Mutex::default);
    if let Some(found) = known.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return found.clone();
    }
    let found = match crate::base::fs::read_document(path, crate::base::budget::DOCUMENT_BYTES) {
        Err(e) => Pages::Unread(e),
        Ok(bytes) if !crate::base::pdf::is_pdf(&bytes) => Pages::NotPdf,
        Ok(bytes) => Pages::Read(
            crate::base::pdf::page_sizes(&bytes)
                .map(|sizes| sizes.iter().map(|s| (s.width, s.height)).collect()),
        ),
    };
    known
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path.to_path_buf(), found.clone());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn boxes_and_pages_are_checked() {
        assert_eq!(
            bbox(&texts(&["0.1", "0.2", "0.3", "0.4"]), true),
            Ok([0.1, 0.2, 0.3, 0.4])
        );
        assert!(
            bbox(&texts(&["0.3", "0.2", "0.1", "0.4"]), true)
                .unwrap_err()
                .0
                .contains("right edge left")
        );
        assert!(
            bbox(&texts(&["10", "0", "200", "40"]), true)
                .unwrap_err()
                .0
                .contains("outside the page")
        );
        assert_eq!(
            bbox(&texts(&["10", "0", "200", "40"]), false),
            Ok([10.0, 0.0, 200.0, 40.0])
        );
        assert!(
            bbox(&texts(&["0", "0", "1"]), true)
                .unwrap_err()
                .0
                .contains("found 3")
        );
        assert!(
            bbox(&texts(&["0", "a", "1", "1"]), true)
                .unwrap_err()
                .0
                .contains("four numbers")
        );
        assert!(on_page([10.0, 0.0, 200.0, 40.0], (100.0, 100.0)).is_err());
        assert!(has_area([0.1, 0.1, 0.2, 0.3]).is_ok());
        assert!(
            has_area([0.1, 0.1, 0.1, 0.3])
                .unwrap_err()
                .0
                .contains("no width")
        );
        assert!(
            has_area([0.1, 0.1, 0.2, 0.1])
                .unwrap_err()
                .0
                .contains("no height")
        );
        assert_eq!(page("2"), Ok(2));
        assert!(page("0").is_err() && page("1.5").is_err());
    }
}
