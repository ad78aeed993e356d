//! Where a field's value was found, against where gold says it is.

use crate::evaluate::outcome::{FieldGrounding, FieldRow};
use crate::metrics::grounding::{BoundingBox, iou};
use crate::model::case::{BoxUnits, Grounding, POINT_SLACK};
use crate::model::place::Place;

/// A field's grounding, when gold gives its place: the page agrees or not, the boxes' IoU
/// (0 on another page, or with no predicted box), and whether both hold (`grounded`).
pub fn field_grounding(
    gold: Option<Place>,
    predicted: Option<Place>,
    settings: &Grounding,
) -> Option<FieldGrounding> {
    let gold = gold.filter(|g| g.page.is_some() || g.bbox.is_some())?;
    let predicted = predicted.unwrap_or_default();
    // Each box in fractions of its own page: PDF pages may differ in size. A box with no page
    // is on gold's page (the page, or its absence, is scored apart).
    let in_fractions = |b: [f64; 4], page: Option<u32>| {
        let b = BoundingBox::from_corners(b);
        match settings.page_extent(page.or(gold.page)) {
            Some((w, h)) => b.scaled(w, h),
            None => b,
        }
    };
    let (gold_box, predicted_box) = (
        gold.bbox.map(|b| in_fractions(b, gold.page)),
        predicted.bbox.map(|b| in_fractions(b, predicted.page)),
    );
    let page_match = gold
        .page
        .map(|page| f64::from(u8::from(predicted.page == Some(page))));
    // Boxes on different pages share nothing, whatever their coordinates.
    let other_page = page_match == Some(0.0);
    let iou = gold_box.map(|g| match predicted_box {
        Some(p) if !other_page => iou(&g, &p),
        _ => 0.0,
    });
    let grounded = page_match.is_none_or(|m| m == 1.0)
        && iou.is_none_or(|v| v >= settings.min_iou - crate::model::metric::SLACK);
    let corners = |b: BoundingBox| [b.x0, b.y0, b.x1, b.y1];
    Some(FieldGrounding {
        gold_page: gold.page,
        gold_bbox: gold_box.map(corners),
        predicted_page: predicted.page,
        predicted_bbox: predicted_box.map(corners),
        page_match,
        iou,
        grounded: f64::from(u8::from(grounded)),
    })
}

/// What is wrong with a predicted box its case's units place beyond the page, and the fix:
/// a coordinate above 1 in fractions of the page, or beyond the page's width or height in
/// pixels or points. `None` for a box on the page, or in pixels or points of a page of unknown
/// size.
pub fn beyond_the_page(
    b: [f64; 4],
    page: Option<u32>,
    settings: &Grounding,
) -> Option<(String, String)> {
    let ordinal = ["1st", "2nd", "3rd", "4th"];
    if settings.units == BoxUnits::Points {
        let (w, h) = settings.page_extent(page)?;
        let i = (0..4).find(|&i| b[i] > if i % 2 == 0 { w } else { h } + POINT_SLACK)?;
        return Some((
            format!(
                "the box's {} edge {} is beyond page {} of the PDF, {w} x {h} points",
                ordinal[i],
                b[i],
                page.unwrap_or(1)
            ),
            "did the pipeline write pixels or fractions of the page? write PDF points from the page's top-left corner, or change the suite's `bbox_units`".to_owned(),
        ));
    }
    match (settings.units, settings.page_size) {
        (BoxUnits::Normalized, _) => {
            let i = b.iter().position(|&c| c > 1.0)?;
            Some((
                format!(
                    "the box's {} edge {} is beyond the page (normalized boxes lie in 0..1)",
                    ordinal[i], b[i]
                ),
                "did the pipeline write pixels? set `bbox_units: pixels` in the suite and the case's `page_size`".to_owned(),
            ))
        }
        // A box within the page's first pixel, with fractional edges, is in fractions of it.
        (BoxUnits::Pixels, Some(_))
            if b[2] <= 1.0 && b[3] <= 1.0 && b.iter().any(|c| c.fract() != 0.0) =>
        {
            Some((
                format!(
                    "the box [{}, {}, {}, {}] lies within the page's first pixel: its edges read as fractions of the page, and this suite's boxes are in pixels (`bbox_units: pixels`)",
                    b[0], b[1], b[2], b[3]
                ),
                "did the pipeline write fractions of the page? write pixels, or remove `bbox_units: pixels` from the suite and write gold in fractions".to_owned(),
            ))
        }
        (BoxUnits::Pixels, Some((w, h))) => {
            let i = (0..4).find(|&i| b[i] > if i % 2 == 0 { w } else { h })?;
            Some((
                format!(
                    "the box's {} edge {} is beyond the page of {w} x {h} pixels (`page_size`)",
                    ordinal[i], b[i]
                ),
                "give the box in pixels of the page, or the page's real size in the case's `page_size`".to_owned(),
            ))
        }
        (BoxUnits::Pixels, None) | (BoxUnits::Points, _) => None,
    }
}

/// The case's grounding metrics: (grounded, IoU, page match), each the mean over the fields
/// that measure it. All absent when the prediction places no value at all: a pipeline that
/// does not ground is not measured as one that grounds everything wrong, and a bound on them
/// fails saying so.
pub fn case_grounding(
    fields: &[FieldRow],
    places_any: bool,
) -> (Option<f64>, Option<f64>, Option<f64>) {
    if !places_any {
        return (None, None, None);
    }
    let rows: Vec<&FieldGrounding> = fields.iter().filter_map(|f| f.grounding.as_ref()).collect();
    let mean = |values: Vec<f64>| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    (
        mean(rows.iter().map(|g| g.grounded).collect()),
        mean(rows.iter().filter_map(|g| g.iou).collect()),
        mean(rows.iter().filter_map(|g| g.page_match).collect()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(page: Option<u32>, bbox: Option<[f64; 4]>) -> Option<Place> {
        Some(Place { page, bbox })
    }

    #[test]
    fn page_box_and_grounded_of_one_field() {
        let settings = Grounding::default();
        let gold = place(Some(1), Some([0.0, 0.0, 0.5, 0.25]));
        // Half the gold box, on its page: IoU 1/2, grounded at 0.5.
        let g = field_grounding(
            gold,
            place(Some(1), Some([0.0, 0.0, 0.25, 0.25])),
            &settings,
        )
        .unwrap();
        assert_eq!(
            (g.page_match, g.iou, g.grounded),
            (Some(1.0), Some(0.5), 1.0)
        );
        // The same box on page 2: nothing shared.
        let g =
            field_grounding(gold, place(Some(2), Some([0.0, 0.0, 0.5, 0.25])), &settings).unwrap();
        assert_eq!(
            (g.page_match, g.iou, g.grounded),
            (Some(0.0), Some(0.0), 0.0)
        );
        // No place predicted: wrong page, no overlap.
        let g = field_grounding(gold, None, &settings).unwrap();
        assert_eq!(
            (g.page_match, g.iou, g.grounded),
            (Some(0.0), Some(0.0), 0.0)
        );
        // Gold without a place is not grounded at all.
        assert_eq!(field_grounding(None, gold, &settings), None);
        // In pixels of a 1000 x 500 page: the boxes become fractions of it.
        let pixels = Grounding {
            units: BoxUnits::Pixels,
            page_size: Some((1000.0, 500.0)),
            ..settings.clone()
        };
        let g = field_grounding(
            place(None, Some([100.0, 50.0, 300.0, 150.0])),
            place(None, Some([200.0, 100.0, 400.0, 200.0])),
            &pixels,
        )
        .unwrap();
        assert_eq!(g.gold_bbox, Some([0.1, 0.1, 0.3, 0.3]));
        assert_eq!((g.page_match, g.grounded), (None, 0.0));
        assert!((g.iou.unwrap() - 1.0 / 7.0).abs() < 1e-15);
        // In points of a PDF whose two pages differ: each box in fractions of its own page.
        let points = Grounding {
            units: BoxUnits::Points,
            pdf_pages: Some(vec![(612.0, 792.0), (792.0, 612.0)].into()),
            ..settings
        };
        let g = field_grounding(
            place(Some(2), Some([79.2, 61.2, 396.0, 306.0])),
            place(Some(2), Some([79.2, 61.2, 396.0, 306.0])),
            &points,
        )
        .unwrap();
        assert_eq!(g.gold_bbox, Some([0.1, 0.1, 0.5, 0.5]));
        assert_eq!(
            (g.page_match, g.iou, g.grounded),
            (Some(1.0), Some(1.0), 1.0)
        );
        // The same box on page 1 (portrait) is another box of the page: and another page.
        let g = field_grounding(
            place(None, Some([61.2, 79.2, 306.0, 396.0])),
            place(Some(1), Some([61.2, 79.2, 306.0, 396.0])),
            &points,
        )
        .unwrap();
        assert_eq!(g.predicted_bbox, Some([0.1, 0.1, 0.5, 0.5]));
    }

    #[test]
    fn a_box_beyond_the_page_its_units_allow() {
        let fractions = Grounding::default();
        assert_eq!(
            beyond_the_page([0.1, 0.1, 0.2, 1.0], None, &fractions),
            None
        );
        let (message, _) = beyond_the_page([0.1, 0.1, 0.2, 5.0], None, &fractions).unwrap();
        assert!(
            message.starts_with("the box's 4th edge 5 is beyond the page"),
            "{message}"
        );
        let pixels = Grounding {
            units: BoxUnits::Pixels,
            page_size: Some((1000.0, 500.0)),
            ..fractions.clone()
        };
        assert_eq!(
            beyond_the_page([0.0, 0.0, 1000.0, 500.0], None, &pixels),
            None
        );
        assert_eq!(beyond_the_page([0.0, 0.0, 1.0, 1.0], None, &pixels), None);
        let (message, _) = beyond_the_page([10.0, 10.0, 1001.0, 20.0], None, &pixels).unwrap();
        assert!(
            message.starts_with("the box's 3rd edge 1001 is beyond the page of 1000 x 500 pixels"),
            "{message}"
        );
        assert!(
            beyond_the_page([0.1, 0.1, 0.2, 0.3], None, &pixels)
                .unwrap()
                .0
                .contains("first pixel")
        );
        // Pixels of a page of unknown size are not checked.
        let unknown = Grounding {
            page_size: None,
            ..pixels
        };
        assert_eq!(
            beyond_the_page([0.0, 0.0, 5000.0, 5000.0], None, &unknown),
            None
        );
        // Points are measured against the page the box is on, with half a point of slack.
        let points = Grounding {
            units: BoxUnits::Points,
            pdf_pages: Some(vec![(612.0, 792.0), (792.0, 612.0)].into()),
            ..fractions
        };
        assert_eq!(
            beyond_the_page([0.0, 0.0, 612.4, 792.0], None, &points),
            None
        );
        assert_eq!(
            beyond_the_page([0.0, 0.0, 792.0, 612.0], Some(2), &points),
            None
        );
        let (message, _) = beyond_the_page([0.0, 0.0, 700.0, 700.0], Some(2), &points).unwrap();
        assert_eq!(
            message,
            "the box's 4th edge 700 is beyond page 2 of the PDF, 792 x 612 points"
        );
        // A page the PDF does not have is a wrong page, not a box to check.
        assert_eq!(
            beyond_the_page([0.0, 0.0, 9e9, 9e9], Some(3), &points),
            None
        );
    }
}
