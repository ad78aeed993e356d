//! Where a value was found: the overlap of a predicted box with the gold one.

/// An axis-aligned box on a page, `[x0, y0, x1, y1]` with `x0 <= x1` and `y0 <= y1`, in one
/// unit for both boxes compared (fractions of the page, or pixels of one page size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    /// Left edge.
    pub x0: f64,
    /// Top edge.
    pub y0: f64,
    /// Right edge.
    pub x1: f64,
    /// Bottom edge.
    pub y1: f64,
}

impl BoundingBox {
    /// A box from its four coordinates as written, `[x0, y0, x1, y1]`.
    pub fn from_corners([x0, y0, x1, y1]: [f64; 4]) -> BoundingBox {
        BoundingBox { x0, y0, x1, y1 }
    }

    /// Its area; 0 for a box of no width or no height.
    pub fn area(&self) -> f64 {
        (self.x1 - self.x0).max(0.0) * (self.y1 - self.y0).max(0.0)
    }

    /// The box with each coordinate divided by the page's width or height: fractions of it.
    pub fn scaled(&self, width: f64, height: f64) -> BoundingBox {
        BoundingBox {
            x0: self.x0 / width,
            y0: self.y0 / height,
            x1: self.x1 / width,
            y1: self.y1 / height,
        }
    }
}

/// Intersection over union of two boxes: the area they share over the area they cover.
/// Two boxes that cover no area (a point, a line) have nothing to share: 0, even when equal,
/// so that a degenerate box never counts as found.
///
/// ```
/// use goldgate::metrics::grounding::{BoundingBox, iou};
/// let a = BoundingBox::from_corners([0.0, 0.0, 2.0, 2.0]);
/// let b = BoundingBox::from_corners([1.0, 1.0, 3.0, 3.0]);
/// // They share one unit square of the seven they cover.
/// assert_eq!(iou(&a, &b), 1.0 / 7.0);
/// ```
pub fn iou(a: &BoundingBox, b: &BoundingBox) -> f64 {
    let shared = BoundingBox {
        x0: a.x0.max(b.x0),
        y0: a.y0.max(b.y0),
        x1: a.x1.min(b.x1),
        y1: a.y1.min(b.y1),
    }
    .area();
    let union = a.area() + b.area() - shared;
    if union > 0.0 { shared / union } else { 0.0 }
}

/// The IoU a value must reach to count as grounded, by default (the benchmarks' grounding F1
/// at IoU 0.5).
pub const DEFAULT_GROUNDED_IOU: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    fn b(c: [f64; 4]) -> BoundingBox {
        BoundingBox::from_corners(c)
    }

    #[test]
    fn iou_of_known_boxes() {
        // Same box: 1. Disjoint: 0. Touching along an edge: no shared area, 0.
        assert_eq!(iou(&b([0.1, 0.1, 0.3, 0.2]), &b([0.1, 0.1, 0.3, 0.2])), 1.0);
        assert_eq!(iou(&b([0.0, 0.0, 1.0, 1.0]), &b([2.0, 2.0, 3.0, 3.0])), 0.0);
        assert_eq!(iou(&b([0.0, 0.0, 1.0, 1.0]), &b([1.0, 0.0, 2.0, 1.0])), 0.0);
        // One inside the other: the small one's area over the big one's, 1/4.
        assert_eq!(
            iou(&b([0.0, 0.0, 4.0, 4.0]), &b([1.0, 1.0, 3.0, 3.0])),
            0.25
        );
        // Half a box shifted: 2 of 6 units, 1/3.
        assert_eq!(
            iou(&b([0.0, 0.0, 4.0, 1.0]), &b([2.0, 0.0, 6.0, 1.0])),
            1.0 / 3.0
        );
        // Degenerate boxes cover nothing: 0, even against themselves.
        assert_eq!(iou(&b([1.0, 1.0, 1.0, 1.0]), &b([1.0, 1.0, 1.0, 1.0])), 0.0);
        assert_eq!(iou(&b([0.0, 1.0, 2.0, 1.0]), &b([0.0, 0.0, 2.0, 2.0])), 0.0);
    }

    #[test]
    fn iou_does_not_depend_on_the_unit() {
        // Pixels of a 1000 x 500 page and the same boxes as fractions of it.
        let (a, c) = (
            b([100.0, 50.0, 300.0, 150.0]),
            b([200.0, 100.0, 400.0, 200.0]),
        );
        let (an, cn) = (a.scaled(1000.0, 500.0), c.scaled(1000.0, 500.0));
        assert_eq!(iou(&a, &c), 1.0 / 7.0);
        assert!((iou(&an, &cn) - 1.0 / 7.0).abs() < 1e-15);
    }
}
