//! Grounding on PDF pages, from the `goldgate` binary over PDFs written here by hand: boxes in PDF
//! points measured on the PDF's own pages, pages checked against the count, and the pages of
//! failing fields drawn into the HTML page (checked pixel by pixel against what the PDF fills),
//! each once and within budgets however hostile the file.

mod support;

#[path = "support/pdf.rs"]
mod pdf;

#[path = "support/chromium.rs"]
mod chromium;

use pdf::{Page, decode_png, pixel};
use serde_json::Value;
use support::{case, goldgate, goldgate_report, stdout, verdict_of, write_files};

const BLUE: (f64, f64, f64) = (0.0, 0.0, 1.0);
const RED: (f64, f64, f64) = (1.0, 0.0, 0.0);

/// A two-page PDF: page 1 portrait (612 x 792) with a red rectangle, page 2 landscape
/// (792 x 612) with a blue one whose box, from the page's top-left corner in points, is
/// [400, 412, 600, 512].
fn two_pages() -> Vec<u8> {
    pdf::pdf(
        &[
            Page::new(612.0, 792.0).fill(RED, [100.0, 600.0, 200.0, 100.0]),
            Page::new(792.0, 612.0).fill(BLUE, [400.0, 100.0, 200.0, 100.0]),
        ],
        &[],
    )
}

/// The case of [`write_case`] in points on [`two_pages`], gold's `total` in the blue rectangle
/// of page 2, and the pipeline's `total` as `prediction` gives it.
fn total_on_page_two(dir: &std::path::Path, prediction: &str) {
    write_case(
        dir,
        "points",
        &two_pages(),
        "  total: { value: \"12.50\", page: 2, bbox: [400, 412, 600, 512] }\n",
        prediction,
    );
}

/// A suite in `units` whose case `inv` reads `doc.pdf`, with `gold` (YAML lines under `gold:`)
/// and the pipeline's output `prediction` (JSON fields).
fn write_case(dir: &std::path::Path, units: &str, document: &[u8], gold: &str, prediction: &str) {
    std::fs::write(dir.join("doc.pdf"), document).unwrap();
    let case = format!("document: ../doc.pdf\ngold:\n{gold}thresholds:\n  min_grounded: 1\n");
    let output = format!("{{\"fields\": {prediction}}}\n");
    write_files(
        dir,
        &[
            (
                "cases/suite.yaml",
                &format!("bbox_units: {units}\npipelines:\n  ocr: out/{{case}}.json\n"),
            ),
            ("cases/inv.yaml", &case),
            ("cases/out/inv.json", &output),
        ],
    );
}

fn field<'a>(test: &'a Value, name: &str) -> &'a Value {
    test["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no field {name}"))
}

/// The PNGs the HTML page's figures show, each with the `data-page` of its figure.
fn embedded_pages(html: &str) -> Vec<(u32, Vec<u8>)> {
    html.split("<figure class=\"page\"")
        .skip(1)
        .filter_map(|figure| {
            let page = figure
                .split("data-page=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()?;
            // The figure uses the page's image, which the page holds once, by its id.
            let id = figure.split("<use href=\"#").nth(1)?.split('"').next()?;
            let data = html
                .split(&format!("<image id=\"{id}\" "))
                .nth(1)?
                .split("href=\"data:image/png;base64,")
                .nth(1)?
                .split('"')
                .next()?;
            Some((page, base64_decode(data)))
        })
        .collect()
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    digits
        .chunks(4)
        .flat_map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len() - 1)
        })
        .collect()
}

fn is_blue(p: [u8; 3]) -> bool {
    p[0] < 40 && p[1] < 40 && p[2] > 215
}

fn is_white(p: [u8; 3]) -> bool {
    p.iter().all(|&c| c > 245)
}

/// Runs `goldgate test cases --html page.html` in `dir`: its output and the page.
fn run_with_page(dir: &std::path::Path) -> (String, String) {
    let page = dir.join("page.html");
    let out = goldgate(dir, &["test", "cases", "--html", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("no page ({e}):\n{}", support::stderr(&out)));
    (stdout(&out), html)
}

#[test]
fn boxes_in_points_are_measured_on_the_pdfs_own_page_without_a_page_size() {
    let dir = tempfile::tempdir().unwrap();
    total_on_page_two(
        dir.path(),
        r#"{"total": {"value": "12.50", "page": 2, "bbox": [400, 462, 600, 562]}}"#,
    );
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    assert_eq!(
        verdict_of(&stdout(&out), "inv::ocr"),
        "test inv::ocr ... FAILED"
    );
    let total = field(case(&report, "inv::ocr"), "total");
    let grounding = &total["grounding"];
    // In fractions of page 2, 792 x 612 points: the sizes come from the PDF.
    let fractions = |b: [f64; 4]| [b[0] / 792.0, b[1] / 612.0, b[2] / 792.0, b[3] / 612.0];
    assert_eq!(
        grounding["gold_bbox"],
        serde_json::json!(fractions([400.0, 412.0, 600.0, 512.0]))
    );
    assert_eq!(
        grounding["predicted_bbox"],
        serde_json::json!(fractions([400.0, 462.0, 600.0, 562.0]))
    );
    // Half of each box overlaps: 10,000 of 30,000 square points.
    let iou = grounding["iou"].as_f64().unwrap();
    assert!((iou - 1.0 / 3.0).abs() < 1e-12, "{iou}");
    assert_eq!(grounding["page_match"], 1.0);
    assert_eq!(grounding["grounded"], 0.0);
}

#[test]
fn the_page_gold_names_is_drawn_from_the_pdf_with_its_ink_where_the_pdf_puts_it() {
    let dir = tempfile::tempdir().unwrap();
    total_on_page_two(
        dir.path(),
        r#"{"total": {"value": "12.50", "page": 2, "bbox": [400, 300, 600, 350]}}"#,
    );
    let (out, html) = run_with_page(dir.path());
    assert_eq!(verdict_of(&out, "inv::ocr"), "test inv::ocr ... FAILED");
    let pages = embedded_pages(&html);
    assert_eq!(
        pages.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        [2],
        "only the page the boxes are on"
    );
    let image = decode_png(&pages[0].1);
    // 1,000 pixels wide, with the page's aspect (792 x 612).
    assert_eq!(image.0, 1000);
    assert!(
        (f64::from(image.1) - 1000.0 * 612.0 / 792.0).abs() <= 1.0,
        "{}",
        image.1
    );
    // The blue rectangle where gold's box is, white around it, and nothing of page 1's red.
    assert!(is_blue(pixel(&image, 500.0 / 792.0, 462.0 / 612.0)));
    for (fx, fy) in [(0.05, 0.05), (0.95, 0.95), (390.0 / 792.0, 462.0 / 612.0)] {
        assert!(is_white(pixel(&image, fx, fy)), "{fx} {fy}");
    }
    let red = image
        .2
        .chunks(4)
        .filter(|p| p[0] > 200 && p[1] < 60)
        .count();
    assert_eq!(red, 0, "page 1's red is not on page 2");
    // The boxes are drawn over it in fractions of the page, and the caption names the page.
    assert!(
        html.contains("<rect class=\"gold\" data-field=\"total\" x=\"0.505051\" y=\"0.673203\" width=\"0.252525\" height=\"0.163399\">"),
        "{html}"
    );
    assert!(html.contains("<figcaption>page 2 of <code>"), "{html}");
}

#[test]
fn a_prediction_on_another_page_shows_both_pages_each_with_its_box() {
    let dir = tempfile::tempdir().unwrap();
    total_on_page_two(
        dir.path(),
        r#"{"total": {"value": "12.50", "page": 1, "bbox": [100, 92, 300, 192]}}"#,
    );
    let (_, html) = run_with_page(dir.path());
    let pages = embedded_pages(&html);
    assert_eq!(pages.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [2, 1]);
    // Page 1 is portrait, its red rectangle where the prediction's box is.
    let first = decode_png(&pages[1].1);
    assert_eq!(first.0, 1000);
    assert!((f64::from(first.1) - 1000.0 * 792.0 / 612.0).abs() <= 1.0);
    let p = pixel(&first, 200.0 / 612.0, 142.0 / 792.0);
    assert!(p[0] > 215 && p[1] < 40 && p[2] < 40, "{p:?}");
}

#[test]
fn a_rotated_page_is_shown_and_measured_as_a_reader_shows_it() {
    // Portrait in the file, turned a quarter clockwise: shown 792 wide and 612 high. The
    // rectangle at x 50..150, y 50..250 of the file's space is shown at x 50..250, y 50..150
    // from the top-left corner.
    let dir = tempfile::tempdir().unwrap();
    let document = pdf::pdf(
        &[Page::new(612.0, 792.0)
            .fill(BLUE, [50.0, 50.0, 100.0, 200.0])
            .rotated(90)],
        &[],
    );
    write_case(
        dir.path(),
        "points",
        &document,
        "  total: { value: \"12.50\", page: 1, bbox: [50, 50, 250, 150] }\n",
        r#"{"total": {"value": "12.50", "page": 1, "bbox": [500, 400, 700, 500]}}"#,
    );
    let (_, html) = run_with_page(dir.path());
    let pages = embedded_pages(&html);
    let image = decode_png(&pages[0].1);
    assert_eq!(image.0, 1000);
    assert!((f64::from(image.1) - 1000.0 * 612.0 / 792.0).abs() <= 1.0);
    assert!(is_blue(pixel(&image, 150.0 / 792.0, 100.0 / 612.0)));
    assert!(is_white(pixel(&image, 150.0 / 792.0, 200.0 / 612.0)));
    assert!(is_white(pixel(&image, 300.0 / 792.0, 100.0 / 612.0)));
    // A box beyond the turned page (612 high) is refused where it is written.
    let dir = tempfile::tempdir().unwrap();
    write_case(
        dir.path(),
        "points",
        &document,
        "  total: { value: \"12.50\", page: 1, bbox: [50, 50, 250, 700] }\n",
        r#"{"total": "12.50"}"#,
    );
    let out = support::stderr(&goldgate(dir.path(), &["lint", "cases"]))
        + &stdout(&goldgate(dir.path(), &["lint", "cases"]));
    assert!(
        out.contains("`bbox` [50, 50, 250, 700] lies outside page 1 of the PDF, 792 x 612 points"),
        "{out}"
    );
}

#[test]
fn of_two_hundred_pages_only_the_failing_fields_page_is_drawn() {
    // Every page has a red rectangle at the top; page 137 alone a blue one where gold says.
    let pages: Vec<Page> = (1..=200)
        .map(|i| {
            let page = Page::new(612.0, 792.0).fill(RED, [0.0, 742.0, 612.0, 50.0]);
            if i == 137 {
                page.fill(BLUE, [100.0, 100.0, 100.0, 100.0])
            } else {
                page
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    write_case(
        dir.path(),
        "points",
        &pdf::pdf(&pages, &[]),
        "  total: { value: \"12.50\", page: 137, bbox: [100, 592, 200, 692] }\n  number: { value: FA-1, page: 3, bbox: [0, 0, 612, 50] }\n",
        r#"{"total": {"value": "12.50", "page": 137, "bbox": [300, 592, 400, 692]}, "number": {"value": "FA-1", "page": 3, "bbox": [0, 0, 612, 50]}}"#,
    );
    let (_, html) = run_with_page(dir.path());
    let drawn = embedded_pages(&html);
    assert_eq!(drawn.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [137]);
    assert_eq!(html.matches("data:image/png;base64,").count(), 1);
    let image = decode_png(&drawn[0].1);
    assert!(is_blue(pixel(&image, 150.0 / 612.0, 642.0 / 792.0)));
    // A page beyond the 200 is refused where gold writes it.
    let case_file = dir.path().join("cases/inv.yaml");
    let text = std::fs::read_to_string(&case_file).unwrap();
    std::fs::write(&case_file, text.replace("page: 137", "page: 201")).unwrap();
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    let said = stdout(&lint) + &support::stderr(&lint);
    assert!(
        said.contains("inv.yaml:3:")
            && said.contains("`page: 201` is beyond the document, which has 200 pages"),
        "{said}"
    );
}

#[test]
fn boxes_in_points_need_a_pdf_that_can_be_read() {
    let gold = "  total: { value: \"12.50\", page: 1, bbox: [10, 10, 20, 20] }\n";
    for (document, said) in [
        (
            b"\x89PNG\r\n\x1a\n not a pdf".to_vec(),
            "this case's boxes are in PDF points (`bbox_units: points`), but its document `cases/../doc.pdf` is not a PDF",
        ),
        (
            b"%PDF-1.7\n1 0 obj broken".to_vec(),
            "the pages of the PDF `cases/../doc.pdf` cannot be read: it is not a PDF goldgate can read (its structure is broken)",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_case(
            dir.path(),
            "points",
            &document,
            gold,
            r#"{"total": "12.50"}"#,
        );
        let lint = goldgate(dir.path(), &["lint", "cases"]);
        let out = stdout(&lint) + &support::stderr(&lint);
        assert!(out.contains(said), "{out}");
        assert!(
            out.contains("inv.yaml:1:11"),
            "located at `document:`: {out}"
        );
    }
}

/// A hostile PDF stays within its budget: the case is scored, the page says why its document
/// is not shown, and the run ends.
fn shown_instead(document: Vec<u8>) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_case(
        dir.path(),
        "normalized",
        &document,
        "  total: { value: \"12.50\", page: 1, bbox: [0.1, 0.1, 0.2, 0.2] }\n",
        r#"{"total": {"value": "12.50", "page": 1, "bbox": [0.5, 0.5, 0.6, 0.6]}}"#,
    );
    let (out, html) = run_with_page(dir.path());
    assert_eq!(
        verdict_of(&out, "inv::ocr"),
        "test inv::ocr ... FAILED",
        "{out}"
    );
    let start = html
        .find("<figure class=\"page\"")
        .or_else(|| html.find("is not shown: "));
    html[start.unwrap_or_else(|| panic!("neither a figure nor a note:\n{out}"))..]
        .lines()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_hostile_pdf_stays_within_its_budget() {
    // Streams that decode to more than goldgate measures: one of 200 MiB, or five of 120.
    let one = pdf::pdf(
        &[Page::new(612.0, 792.0)],
        &[("/Filter /FlateDecode", pdf::deflated_zeros(200 << 20))],
    );
    assert!(
        shown_instead(one)
            .ends_with("is not shown: a stream of it decodes to more than 128 MiB</p>")
    );
    let bomb = pdf::deflated_zeros(120 << 20);
    let many: Vec<(&str, Vec<u8>)> = (0..5)
        .map(|_| ("/Filter /FlateDecode", bomb.clone()))
        .collect();
    let five = pdf::pdf(&[Page::new(612.0, 792.0)], &many);
    assert!(
        shown_instead(five).ends_with("is not shown: its streams decode to more than 512 MiB</p>")
    );
    // Objects nested 100,000 deep in the page: the reader stops at 512 levels, and the page it
    // cannot read is said so.
    let deep = Page {
        extra: format!("/Deep {}{}", "[".repeat(100_000), "]".repeat(100_000)),
        ..Page::new(612.0, 792.0).fill(BLUE, [0.0, 0.0, 100.0, 100.0])
    };
    assert!(
        shown_instead(pdf::pdf(&[deep], &[]))
            .ends_with("is not shown: it has no page goldgate can read</p>")
    );
    // An image whose dictionary claims 100,000 x 100,000 pixels is not decoded.
    let image = pdf::pdf(
        &[Page::new(612.0, 792.0)],
        &[(
            "/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8",
            vec![0; 16],
        )],
    );
    assert!(
        shown_instead(image)
            .ends_with("is not shown: an image of it is larger than 150 million pixels</p>")
    );
    // Broken past reading: a note, not a failure of the run.
    assert!(shown_instead(b"%PDF-1.7\ngarbage".to_vec()).ends_with(
        "is not shown: it is not a PDF goldgate can read (its structure is broken)</p>"
    ));
}

#[test]
fn a_huge_page_is_drawn_small() {
    // A page of a million points a side (the format allows 14,400), and one 100,000 long and
    // 20 wide: each within 4 million pixels and 8,000 a side.
    for page in [Page::new(1e6, 1e6), Page::new(20.0, 100_000.0)] {
        let dir = tempfile::tempdir().unwrap();
        let (w, h) = (page.width, page.height);
        write_case(
            dir.path(),
            "normalized",
            &pdf::pdf(&[page.fill(BLUE, [0.0, 0.0, w, h])], &[]),
            "  total: { value: \"12.50\", page: 1, bbox: [0.1, 0.1, 0.2, 0.2] }\n",
            r#"{"total": {"value": "12.50", "page": 1, "bbox": [0.5, 0.5, 0.6, 0.6]}}"#,
        );
        let (_, html) = run_with_page(dir.path());
        let drawn = embedded_pages(&html);
        let image = decode_png(&drawn[0].1);
        assert!(
            u64::from(image.0) * u64::from(image.1) <= 4_000_000
                && image.0 <= 8000
                && image.1 <= 8000,
            "{} x {}",
            image.0,
            image.1
        );
        assert!(is_blue(pixel(&image, 0.5, 0.5)));
    }
    // One 100,000 long and 10 wide would be less than a pixel across at 8,000 pixels long.
    let thin = Page::new(10.0, 100_000.0).fill(BLUE, [0.0, 0.0, 10.0, 100_000.0]);
    assert!(
        shown_instead(pdf::pdf(&[thin], &[]))
            .ends_with("is not shown: its page is 10 x 100000 points, too thin to draw</p>")
    );
}

/// Headless Chromium lays the page out: the drawn PDF page decodes at 1,000 pixels wide and each
/// box lands on the pixels of the page gold and the prediction name.
#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn headless_chromium_draws_the_boxes_on_the_pdf_page() {
    let chromium = chromium::require();
    let dir = tempfile::tempdir().unwrap();
    total_on_page_two(
        dir.path(),
        r#"{"total": {"value": "12.50", "page": 2, "bbox": [400, 300, 600, 350]}}"#,
    );
    run_with_page(dir.path());
    let result = chromium::probe(
        &chromium,
        dir.path(),
        r#"  const img = d.querySelector("figure.page svg.page-image");
  const used = img.querySelector("use");
  const image = d.querySelector(used.getAttribute("href"));
  const laid = used.getBBox();
  const at = img.getBoundingClientRect();
  const boxes = [...d.querySelectorAll("figure.page rect")].map(r => {
    const b = r.getBoundingClientRect();
    return `${r.getAttribute("class")} ${Math.round((b.left - at.left) / at.width * 792)},${Math.round((b.top - at.top) / at.height * 612)},${Math.round((b.right - at.left) / at.width * 792)},${Math.round((b.bottom - at.top) / at.height * 612)}`;
  });
  const result = `image ${image !== null && image.getAttribute("href").startsWith("data:image/")} ${Math.round(laid.width)}x${Math.round(laid.height)}; ` + boxes.join("; ");"#,
    );
    // In points of page 2, as gold and the prediction wrote them.
    assert_eq!(
        result,
        "image true 1000x773; gold 400,412,600,512; predicted 400,300,600,350"
    );
}

/// The fixture `tests/fixtures/grounding_pdf` (an invoice printed to two PDF pages by Chromium,
/// boxes in points as pdfplumber gives them) run with `--html`, in a copy: output and page.
fn invoice_pages(dir: &std::path::Path) -> (String, String) {
    let from = support::fixtures("grounding_pdf");
    for file in [
        "invoice.pdf",
        "cases/suite.yaml",
        "cases/invoice.yaml",
        "cases/out/invoice.json",
    ] {
        let to = dir.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), to).unwrap();
    }
    run_with_page(dir)
}

#[test]
fn a_real_pdf_shows_the_page_gold_names_and_the_one_the_prediction_names() {
    let dir = tempfile::tempdir().unwrap();
    let (out, html) = invoice_pages(dir.path());
    // `total` is on page 2; the pipeline placed it on page 1, on the line item's amount.
    assert!(
        out.contains("  gold place  page 2, box [0.7843, 0.1929, 0.8943, 0.2131]\n  predicted   page 1, box [0.7843, 0.2933, 0.8405, 0.3085]\n  grounded 0   page match 0   IoU 0.0000\n"),
        "{out}"
    );
    let pages = embedded_pages(&html);
    assert_eq!(pages.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [2, 1]);
    // Each page 1,000 x 1,294 pixels (612 x 792 points), with dark text where pdfplumber found
    // the words gold and the prediction name, and white around them.
    for (page, (x0, top, x1, bottom)) in [
        (&pages[0].1, (480.0, 152.8, 547.3, 168.8)),
        (&pages[1].1, (480.0, 232.3, 514.4, 244.3)),
    ] {
        let image = decode_png(page);
        assert_eq!((image.0, image.1), (1000, 1294));
        let inked = (0..40)
            .flat_map(|i| (0..10).map(move |j| (i, j)))
            .filter(|&(i, j)| {
                let fx = (x0 + (x1 - x0) * f64::from(i) / 40.0) / 612.0;
                let fy = (top + (bottom - top) * f64::from(j) / 10.0) / 792.0;
                pixel(&image, fx, fy).iter().all(|&c| c < 128)
            })
            .count();
        assert!(inked >= 20, "{inked} dark pixels of 400 in the word's box");
        assert!(is_white(pixel(&image, 300.0 / 612.0, 700.0 / 792.0)));
    }
    // The page of gold's box says so, the prediction's box noted as on page 1.
    assert!(
        html.contains("<figcaption>page 2 of <code>cases/../invoice.pdf</code>: not found where gold says: total (IoU 0.0000). <span class=\"key-gold\">gold</span> boxes solid, <span class=\"key-predicted\">predicted</span> dashed; total predicted on page 1</figcaption>"),
        "{html}"
    );
}

#[test]
fn a_predicted_box_beyond_its_pdf_page_fails_its_case_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    total_on_page_two(
        dir.path(),
        r#"{"total": {"value": "12.50", "page": 2, "bbox": [400, 412, 600, 700]}}"#,
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(verdict_of(&text, "inv::ocr"), "test inv::ocr ... FAILED");
    assert!(
        text.contains("the box's 4th edge 700 is beyond page 2 of the PDF, 792 x 612 points"),
        "{text}"
    );
    assert!(text.contains("cases/out/inv.json:1:"), "{text}");
}
