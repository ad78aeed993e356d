//! Where a value sits on a document, as gold and predictions both say it.

/// Where a value sits on the document: its page (from 1) and its box `[x0, y0, x1, y1]`, in
/// the case's [`super::case::BoxUnits`]. Either may be left out.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Place {
    /// The page, from 1.
    pub page: Option<u32>,
    /// The box, `[x0, y0, x1, y1]`.
    pub bbox: Option<[f64; 4]>,
}
