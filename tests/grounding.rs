//! Grounding and error analysis, from the `goldgate` binary over fixtures written here: where a
//! value was found (page, box, IoU), what kind of miss each wrong field is, and the confidence
//! from which values may be accepted automatically.

mod support;

use serde_json::{Value, json};
use support::{case, goldgate_report, stdout, verdict_of, write_files};

/// Gold places four fields; the prediction puts `number` on its page with a box twice as wide
/// as gold's (IoU 1/2: grounded at 0.5), `total` on page 1 instead of 2 (IoU 0 whatever the
/// box), `date` on its page (no box on either side), and gives no place for `supplier`, whose
/// gold has none either.
const INVOICE: &str = "prediction: pred.json
gold:
  number: { value: FA-1, page: 1, bbox: [0.5, 0.25, 0.75, 0.5] }
  total: { value: \"12.50\", page: 2, bbox: [0, 0, 0.5, 0.5] }
  date: { value: 2024-03-05, page: 1 }
  supplier: ACME
thresholds:
  min_grounded: 0.9
";

const PREDICTION: &str = r#"{"number": {"value": "FA-1", "page": 1, "bbox": [0.5, 0.25, 1.0, 0.5]},
 "total": {"value": "12.50", "page": 1, "bbox": [0, 0, 0.5, 0.5]},
 "date": {"value": "2024-03-05", "page": 1},
 "supplier": "ACME"}
"#;

fn field<'a>(test: &'a Value, name: &str) -> &'a Value {
    test["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no field {name}"))
}

#[test]
fn page_box_and_grounded_per_field_and_case() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/invoice.yaml", INVOICE),
            ("cases/pred.json", PREDICTION),
        ],
    );
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    let test = case(&report, "invoice");
    assert_eq!(
        field(test, "number")["grounding"],
        json!({"gold_page": 1, "gold_bbox": [0.5, 0.25, 0.75, 0.5], "predicted_page": 1,
               "predicted_bbox": [0.5, 0.25, 1.0, 0.5], "page_match": 1.0, "iou": 0.5, "grounded": 1.0})
    );
    assert_eq!(
        field(test, "total")["grounding"],
        json!({"gold_page": 2, "gold_bbox": [0.0, 0.0, 0.5, 0.5], "predicted_page": 1,
               "predicted_bbox": [0.0, 0.0, 0.5, 0.5], "page_match": 0.0, "iou": 0.0, "grounded": 0.0})
    );
    assert_eq!(
        field(test, "date")["grounding"],
        json!({"gold_page": 1, "gold_bbox": null, "predicted_page": 1, "predicted_bbox": null,
               "page_match": 1.0, "iou": null, "grounded": 1.0})
    );
    assert_eq!(field(test, "supplier").get("grounding"), None);
    // Means over the fields that measure each: grounded (1 + 0 + 1) / 3, IoU (1/2 + 0) / 2,
    // page (1 + 0 + 1) / 3. The values themselves are all exact.
    let m = &test["metrics"];
    assert_eq!(
        (
            &m["grounded"],
            &m["iou"],
            &m["page_match"],
            &m["exact_match"]
        ),
        (
            &json!(2.0 / 3.0),
            &json!(0.25),
            &json!(2.0 / 3.0),
            &json!(1.0)
        )
    );
    let p = &report["pipelines"][0];
    assert_eq!(
        (&p["grounded"], &p["iou"], &p["page_match"]),
        (&json!(2.0 / 3.0), &json!(0.25), &json!(2.0 / 3.0))
    );
    assert_eq!(
        verdict_of(&text, "invoice"),
        "test invoice ... FAILED",
        "{text}"
    );
    // The message names the field found elsewhere, with both places, and only that one.
    let block = support::failure_block(&text, "invoice");
    assert!(
        block.starts_with("case failed: min_grounded failed: 0.6667 < 0.9 (score 1.0000)"),
        "{block}"
    );
    assert!(
        block.contains(
            "field `total`\n  gold        12.50\n  prediction  12.50\n  EM 1   ANLS 1.0000   confidence -\n  gold place  page 2, box [0, 0, 0.5, 0.5]\n  predicted   page 1, box [0, 0, 0.5, 0.5]\n  grounded 0   page match 0   IoU 0.0000\n"
        ),
        "{block}"
    );
    assert!(!block.contains("field `number`"), "{block}");
    // The run's end gives each pipeline's grounding.
    assert!(
        text.contains(
            "grounding  grounded      IoU  page match\ncases/       0.6667   0.2500      0.6667\n"
        ),
        "{text}"
    );
}

#[test]
fn boxes_in_pixels_are_read_against_the_page_size() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "bbox_units: pixels\ngrounded_iou: 0.1\n",
            ),
            (
                "cases/scan.yaml",
                "prediction: { number: { value: FA-1, bbox: [200, 100, 400, 200] } }\npage_size: { width: 1000, height: 500 }\ngold:\n  number: { value: FA-1, bbox: [100, 50, 300, 150] }\nthresholds:\n  min_grounded: 1\n  min_iou: 0.15\n",
            ),
        ],
    );
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let g = &field(case(&report, "scan"), "number")["grounding"];
    // Fractions of the 1000 x 500 page; they share 100 x 50 pixels of the 70,000 they cover.
    assert_eq!(g["gold_bbox"], json!([0.1, 0.1, 0.3, 0.3]));
    assert_eq!(g["predicted_bbox"], json!([0.2, 0.2, 0.4, 0.4]));
    let iou = g["iou"].as_f64().unwrap();
    assert!((iou - 1.0 / 7.0).abs() < 1e-15, "{iou}");
    // Grounded at the suite's 0.1; the mean IoU misses 0.15.
    assert_eq!(g["grounded"], json!(1.0));
    assert_eq!(
        support::failure_block(&stdout(&out), "scan")
            .lines()
            .next()
            .unwrap(),
        "case failed: min_iou failed: 0.1429 < 0.15 (score 1.0000)"
    );
}

/// Runs `goldgate lint cases` over one case file and the suite given: its output.
fn lint(case_text: &str, suite: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &[("cases/bad.yaml", case_text)]);
    if let Some(s) = suite {
        write_files(dir.path(), &[("cases/suite.yaml", s)]);
    }
    let out = support::goldgate(dir.path(), &["lint", "cases"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    format!("{}{}", stdout(&out), support::stderr(&out))
}

#[test]
fn a_bad_box_or_page_is_located_with_its_fix() {
    let head = "prediction: { n: x }\nthresholds: { min_exact_match: 1 }\ngold:\n";
    let out = lint(
        &format!("{head}  n: {{ value: x, bbox: [0.5, 0.2, 0.1, 0.4] }}\n"),
        None,
    );
    assert!(
        out.contains("cases/bad.yaml:4:24: gold.n.bbox: `bbox` [0.5, 0.2, 0.1, 0.4] has its right edge left of its left edge, or its bottom above its top"),
        "{out}"
    );
    assert!(out.contains("(x0 <= x1, y0 <= y1)"), "{out}");
    let out = lint(
        &format!("{head}  n: {{ value: x, page: 1, bbox: [10, 20, 300, 40] }}\n"),
        None,
    );
    assert!(
        out.contains("cases/bad.yaml:4:33: gold.n.bbox: `bbox` [10, 20, 300, 40] lies outside the page: boxes are fractions of the page, 0 to 1"),
        "{out}"
    );
    assert!(out.contains("say `bbox_units: pixels`"), "{out}");
    let out = lint(&format!("{head}  n: {{ value: x, page: 0 }}\n"), None);
    assert!(
        out.contains(
            "cases/bad.yaml:4:24: gold.n.page: `page` must be a page number from 1, found `0`"
        ),
        "{out}"
    );
    let out = lint(
        &format!("{head}  n: {{ value: x, bbox: [10, 20, 300, 40] }}\n"),
        Some("bbox_units: pixels\n"),
    );
    assert!(
        out.contains("cases/bad.yaml:4:24: gold.n.bbox: this box is in pixels (`bbox_units: pixels`), but the case gives no `page_size`"),
        "{out}"
    );
    let out = lint(&format!("{head}  n: x\n"), Some("grounded_iou: 0\n"));
    assert!(
        out.contains("cases/suite.yaml:1:15: grounded_iou: `grounded_iou` 0 is outside (0, 1]"),
        "{out}"
    );
    let out = lint(&format!("{head}  n: x\n"), Some("target_error: 1\n"));
    assert!(
        out.contains("cases/suite.yaml:1:15: target_error: `target_error` 1 is outside (0, 1)"),
        "{out}"
    );
    let out = lint(
        &format!("{head}  n: x\npage_size: {{ width: 0, height: 10 }}\n"),
        None,
    );
    assert!(
        out.contains("cases/bad.yaml:5:12: page_size: `page_size` must give a width and a height above 0, found 0 x 10"),
        "{out}"
    );
    let out = lint(&format!("{head}  n: x\n"), Some("bbox_units: pixel\n"));
    assert!(
        out.contains("unknown `bbox_units: pixel`") && out.contains("did you mean `pixels`?"),
        "{out}"
    );
}

#[test]
fn a_bad_predicted_box_fails_its_case_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/a.yaml",
                "prediction: pred.json\ngold:\n  n: { value: x, page: 1 }\nthresholds: { min_grounded: 1 }\n",
            ),
            (
                "cases/pred.json",
                "{\"n\": {\"value\": \"x\",\n \"bbox\": [1, 2, 3]}}\n",
            ),
        ],
    );
    let (out, _) = goldgate_report(dir.path(), &["test", "cases"]);
    let block = support::failure_block(&stdout(&out), "a");
    assert!(
        block.contains("pred.json:2:") && block.contains("`bbox` must hold four numbers, found 3"),
        "{block}"
    );
}

/// One miss of each kind, and one exact field: `number` missing, `iban` invented (gold `null`),
/// `total` in another format (an amount written the French way, compared as text), `supplier`
/// wrong, `date` exact; and `po`, a field gold does not list, invented.
fn one_miss_of_each_kind(dir: &std::path::Path) {
    write_files(
        dir,
        &[
            ("cases/suite.yaml", "pipelines:\n  ocr: out/{case}.json\n"),
            (
                "cases/inv.yaml",
                "tags: { lang: fr }\ngold:\n  number: FA-1\n  iban: null\n  total: \"1234.50\"\n  supplier: ACME\n  date: 2024-03-05\nthresholds: { min_exact_match: 1 }\n",
            ),
            (
                "cases/out/inv.json",
                r#"{"iban": "FR76 3000", "total": "1 234,50", "supplier": "ACNE", "date": "2024-03-05", "po": "PO-9"}"#,
            ),
        ],
    );
}

#[test]
fn every_field_that_is_not_exact_is_one_kind_of_miss() {
    let dir = tempfile::tempdir().unwrap();
    one_miss_of_each_kind(dir.path());
    let page = dir.path().join("page.html");
    let (out, report) = goldgate_report(
        dir.path(),
        &["test", "cases", "--html", page.to_str().unwrap()],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    for row in [
        "<tr><td class=\"text\">(all fields)</td><td class=\"name\">ocr</td><td class=\"num\">1</td><td class=\"num\">2</td><td class=\"num\">1</td><td class=\"num\">1</td></tr>",
        "<tr><td class=\"text\">total</td><td class=\"name\">ocr</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">0</td></tr>",
        "<tr><td class=\"text\">lang=fr</td><td class=\"name\">ocr</td><td class=\"num\">1</td><td class=\"num\">2</td><td class=\"num\">1</td><td class=\"num\">1</td></tr>",
    ] {
        assert!(html.contains(row), "{row} in {html}");
    }
    let test = case(&report, "inv::ocr");
    let kinds: Vec<(&str, &Value)> = ["number", "iban", "total", "supplier", "date"]
        .iter()
        .map(|n| (*n, &field(test, n)["miss"]))
        .collect();
    assert_eq!(
        kinds,
        [
            ("number", &json!("missing")),
            ("iban", &json!("invented")),
            ("total", &json!("format")),
            ("supplier", &json!("wrong")),
            ("date", &Value::Null),
        ]
    );
    let row = |field: Option<&str>, slice: Option<(&str, &str)>, m: u32, i: u32, f: u32, w: u32| {
        let mut r =
            json!({"pipeline": "ocr", "missing": m, "invented": i, "format": f, "wrong": w});
        if let Some(field) = field {
            r["field"] = json!(field);
        }
        if let Some((tag, value)) = slice {
            r["tag"] = json!(tag);
            r["value"] = json!(value);
        }
        r
    };
    assert_eq!(
        report["analysis"]["misses"],
        json!([
            row(None, None, 1, 2, 1, 1),
            row(Some("iban"), None, 0, 1, 0, 0),
            row(Some("number"), None, 1, 0, 0, 0),
            row(Some("po"), None, 0, 1, 0, 0),
            row(Some("supplier"), None, 0, 0, 0, 1),
            row(Some("total"), None, 0, 0, 1, 0),
            row(None, Some(("lang", "fr")), 1, 2, 1, 1),
        ])
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "misses        pipeline  missing  invented  format  wrong
(all fields)  ocr             1         2       1      1
iban          ocr             0         1       0      0
number        ocr             1         0       0      0
po            ocr             0         1       0      0
supplier      ocr             0         0       0      1
total         ocr             0         0       1      0
lang=fr       ocr             1         2       1      1
"
        ),
        "{text}"
    );
}

/// Five cases of one field `total` with confidences: right at 0.9, wrong at 0.5, right at 0.9,
/// right at 0.7, right at 0.5. Accepting from 0.5 takes all five with one error (Wilson upper
/// bound 0.6245); from 0.7 three with none (z²/(3 + z²) = 0.5615); from 0.9 two (0.6576). With
/// `target_error: 0.6` the advice is 0.7, which accepts 3 of 5: an automation rate of 0.6.
fn confident_cases(dir: &std::path::Path, bound: &str) {
    let mut files = vec![(
        "cases/inv/suite.yaml".to_owned(),
        format!("target_error: 0.6\naggregate:\n  min_automation_rate: {bound}\n"),
    )];
    for (i, (p, gold)) in [
        (0.9, "10"),
        (0.5, "11"),
        (0.9, "10"),
        (0.7, "10"),
        (0.5, "10"),
    ]
    .iter()
    .enumerate()
    {
        files.push((
            format!("cases/inv/c{i}.yaml"),
            format!(
                "prediction: {{ total: {{ value: \"10\", confidence: {p} }} }}\ngold:\n  total: \"{gold}\"\nrubrics:\n  - must_right: a total is given\n    field: total\n    present: true\n"
            ),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_files(dir, &files);
}

#[test]
fn the_advised_threshold_and_its_automation_rate_gate_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    confident_cases(dir.path(), "0.7");
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    let z2 = 1.959_963_984_540_054_5_f64.powi(2);
    let acceptance = &report["analysis"]["acceptance"];
    assert_eq!(acceptance.as_array().unwrap().len(), 1, "{acceptance}");
    let a = &acceptance[0];
    assert_eq!(
        (
            &a["pipeline"],
            &a["field"],
            &a["values"],
            &a["target_error"]
        ),
        (
            &json!("cases/inv/"),
            &json!("total"),
            &json!(5),
            &json!(0.6)
        )
    );
    assert_eq!(
        (&a["threshold"], &a["automation_rate"]),
        (&json!(0.7), &json!(0.6))
    );
    let points: Vec<(f64, u64, u64)> = a["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["threshold"].as_f64().unwrap(),
                p["accepted"].as_u64().unwrap(),
                p["errors"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(points, [(0.5, 5, 1), (0.7, 3, 0), (0.9, 2, 0)]);
    let upper = a["error_upper"].as_f64().unwrap();
    assert!((upper - z2 / (3.0 + z2)).abs() < 1e-15, "{upper}");
    // The aggregate holds the suite to it: 0.6 accepted, 0.7 asked.
    assert_eq!(
        verdict_of(&text, "inv::aggregate"),
        "test inv::aggregate ... FAILED",
        "{text}"
    );
    let block = support::failure_block(&text, "inv::aggregate");
    assert!(
        block.starts_with(
            "aggregate failed over 5 case tests (5 passed): min_automation_rate failed: 0.6000 < 0.7"
        ),
        "{block}"
    );
    assert!(
        block.contains(
            "  automation rate 0.6000 (each field from its advised confidence, target error 0.6)"
        ),
        "{block}"
    );
    assert!(
        text.contains(
            "accept when conf  pipeline    values  target error  threshold   automation  error bound 95%\ntotal             cases/inv/       5           0.6        0.7       0.6000           0.5615\n"
        ),
        "{text}"
    );
    // At 0.6 it holds.
    let dir = tempfile::tempdir().unwrap();
    confident_cases(dir.path(), "0.6");
    let (out, _) = goldgate_report(dir.path(), &["test", "cases"]);
    assert_eq!(
        verdict_of(&stdout(&out), "inv::aggregate"),
        "test inv::aggregate ... ok"
    );
}

#[path = "support/chromium.rs"]
mod chromium;

/// The fixture `tests/fixtures/grounding` (an invoice image of 800 x 500 pixels, boxes in
/// pixels) run with `--html`, in a copy: the run's output and the page's path.
fn invoice_page(dir: &std::path::Path) -> (String, std::path::PathBuf) {
    let from = support::fixtures("grounding");
    for file in [
        "invoice.png",
        "cases/suite.yaml",
        "cases/invoice.yaml",
        "cases/out/ocr/invoice.json",
    ] {
        let to = dir.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), to).unwrap();
    }
    let page = dir.join("page.html");
    let out = support::goldgate(dir, &["test", "cases", "--html", page.to_str().unwrap()]);
    (stdout(&out), page)
}

#[test]
fn the_page_embeds_the_document_with_gold_and_predicted_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let (text, page) = invoice_page(dir.path());
    assert_eq!(
        verdict_of(&text, "invoice::ocr"),
        "test invoice::ocr ... FAILED"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    // The image itself, byte for byte, and nothing fetched.
    let png = std::fs::read(dir.path().join("invoice.png")).unwrap();
    let data = html
        .split("href=\"data:image/png;base64,")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("an embedded PNG");
    assert_eq!(data.len(), png.len().div_ceil(3) * 4);
    assert!(data.starts_with("iVBORw0KGgo"), "a PNG's base64 starts so");
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    // Only `total` was not found where gold says: its two boxes, in fractions of the page
    // (600/800, 400/500, 120/800, 50/500 and 600/800, 280/500, 40/800, 20/500).
    let figure = html
        .split("<figure class=\"page\" data-test=\"invoice::ocr\">")
        .nth(1)
        .and_then(|rest| rest.split("</figure>").next())
        .expect("the document's figure");
    let rects: Vec<&str> = figure
        .match_indices("<rect ")
        .map(|(i, _)| {
            let rest = &figure[i..];
            &rest[..rest.find('>').unwrap() + 1]
        })
        .collect();
    // The gold box's field is named beside it, in an SVG of the page's pixels.
    assert!(
        figure.contains("<svg class=\"boxes labels\" aria-hidden=\"true\">\n<text class=\"gold\" data-field=\"total\" style=\"fill:var(--good);font-weight:600\" x=\"75.0000%\" y=\"80.0000%\" dy=\"-3\">total</text>\n</svg>"),
        "{figure}"
    );
    assert_eq!(
        rects,
        [
            "<rect class=\"gold\" data-field=\"total\" x=\"0.750000\" y=\"0.800000\" width=\"0.150000\" height=\"0.100000\">",
            "<rect class=\"predicted\" data-field=\"total\" x=\"0.750000\" y=\"0.560000\" width=\"0.050000\" height=\"0.040000\">",
        ]
    );
    assert!(
        html.contains("<figcaption>not found where gold says: total (IoU 0.0000)."),
        "{html}"
    );
    // One value per field cannot bound an error at 1 %: the end of the run says so once.
    assert!(
        text.contains("3 more fields with confidences: no threshold keeps the error within the target (the report and the HTML page have each curve)\n"),
        "{text}"
    );
    assert!(
        html.contains("<tr><td class=\"text\">total</td><td class=\"name\">ocr</td><td class=\"num\">1</td><td class=\"num\">0.01</td><td class=\"num\">none</td><td class=\"num\">0.0000</td><td class=\"num\">-</td></tr>"),
        "{html}"
    );
}

/// Headless Chromium lays the page out: the image decodes at its 800 x 500 pixels and each
/// box lands on the pixels gold and the prediction name (read back by a script in a page that
/// frames the report, the report itself having none).
#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn headless_chromium_draws_the_boxes_on_the_document() {
    let chromium = chromium::require();
    let dir = tempfile::tempdir().unwrap();
    let (_, page) = invoice_page(dir.path());
    assert!(page.is_file());
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
    return `${r.getAttribute("class")} ${r.dataset.field} ${Math.round((b.left - at.left) / at.width * 800)},${Math.round((b.top - at.top) / at.height * 500)},${Math.round((b.right - at.left) / at.width * 800)},${Math.round((b.bottom - at.top) / at.height * 500)}`;
  });
  const labels = [...d.querySelectorAll("figure.page svg.labels text")].map(t => {
    const b = t.getBoundingClientRect();
    const bottom = (b.bottom - at.top) / at.height * 500;
    return `label ${t.textContent} at ${Math.round((b.left - at.left) / at.width * 800)} ${bottom <= 400 ? "above" : "over"} the box, ${b.width > 0 && b.height > 0 ? "shown" : "not shown"}`;
  });
  const result = `image ${image !== null && image.getAttribute("href").startsWith("data:image/")} ${Math.round(laid.width)}x${Math.round(laid.height)} shown ${Math.round(at.width)}x${Math.round(at.height)}; ` + boxes.concat(labels).join("; ");"#,
    );
    assert_eq!(
        result,
        "image true 800x500 shown 800x500; gold total 600,400,720,450; predicted total 600,280,640,300; label total at 600 above the box, shown"
    );
}

/// Runs `goldgate test cases` over the files given: the first line of case `name`'s failure.
fn first_failure_line(files: &[(&str, &str)], name: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    let (out, _) = goldgate_report(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        verdict_of(&text, name),
        format!("test {name} ... FAILED"),
        "{text}"
    );
    support::failure_block(&text, name)
        .lines()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_predicted_box_beyond_the_page_fails_its_case_where_it_is_written() {
    let gold = "prediction: pred.json\ngold:\n  a: { value: \"1\", page: 1, bbox: [0.1, 0.1, 0.2, 0.3] }\nthresholds: { min_grounded: 1 }\n";
    assert_eq!(
        first_failure_line(
            &[
                ("cases/a.yaml", gold),
                (
                    "cases/pred.json",
                    "{\"a\": {\"value\": \"1\", \"page\": 1,\n  \"bbox\": [0.1, 0.1, 0.2, 5]}}\n"
                ),
            ],
            "a"
        ),
        "case failed: min_grounded failed: 0.0000 < 1; cases/pred.json:2:3: a.bbox: the box's 4th edge 5 is beyond the page (normalized boxes lie in 0..1) (did the pipeline write pixels? set `bbox_units: pixels` in the suite and the case's `page_size`) (score 1.0000)"
    );
    // In pixels, against the case's page.
    assert_eq!(
        first_failure_line(
            &[
                ("cases/suite.yaml", "bbox_units: pixels\n"),
                (
                    "cases/a.yaml",
                    "prediction: { a: { value: \"1\", page: 1, bbox: [100, 100, 200, 2000] } }\npage_size: { width: 1000, height: 500 }\ngold:\n  a: { value: \"1\", page: 1, bbox: [100, 50, 200, 150] }\nthresholds: { min_exact_match: 1 }\n"
                ),
            ],
            "a"
        ),
        "case failed: cases/a.yaml:1:47: prediction.a.bbox: the box's 4th edge 2000 is beyond the page of 1000 x 500 pixels (`page_size`) (give the box in pixels of the page, or the page's real size in the case's `page_size`) (score 1.0000)"
    );
    // Fractions of the page where the suite's boxes are in pixels.
    assert_eq!(
        first_failure_line(
            &[
                ("cases/suite.yaml", "bbox_units: pixels\n"),
                (
                    "cases/a.yaml",
                    "prediction: { a: { value: \"1\", page: 1, bbox: [0.1, 0.1, 0.2, 0.3] } }\npage_size: { width: 1000, height: 500 }\ngold:\n  a: { value: \"1\", page: 1, bbox: [100, 50, 200, 150] }\nthresholds: { min_exact_match: 1 }\n"
                ),
            ],
            "a"
        ),
        "case failed: cases/a.yaml:1:47: prediction.a.bbox: the box [0.1, 0.1, 0.2, 0.3] lies within the page's first pixel: its edges read as fractions of the page, and this suite's boxes are in pixels (`bbox_units: pixels`) (did the pipeline write fractions of the page? write pixels, or remove `bbox_units: pixels` from the suite and write gold in fractions) (score 1.0000)"
    );
    // `lint` says it too.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/a.yaml", gold),
            (
                "cases/pred.json",
                "{\"a\": {\"value\": \"1\", \"bbox\": [100, 100, 200, 300]}}\n",
            ),
        ],
    );
    let out = support::goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&out).lines().next().unwrap(),
        "error: cases/pred.json:1:22: a.bbox: the box's 1st edge 100 is beyond the page (normalized boxes lie in 0..1) (did the pipeline write pixels? set `bbox_units: pixels` in the suite and the case's `page_size`)"
    );
    // A box of a field gold does not place is not scored, so not checked.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/a.yaml",
            "prediction: { a: { value: \"1\", bbox: [10, 10, 20, 50] } }\ngold:\n  a: \"1\"\nthresholds: { min_exact_match: 1 }\n",
        )],
    );
    let (out, _) = goldgate_report(dir.path(), &["test", "cases"]);
    assert_eq!(verdict_of(&stdout(&out), "a"), "test a ... ok");
}

#[test]
fn an_absent_grounding_metric_says_which_side_places_nothing() {
    let placed = "{ value: \"1\", page: 1, bbox: [0.1, 0.1, 0.2, 0.3] }";
    assert_eq!(
        first_failure_line(
            &[(
                "cases/a.yaml",
                &format!(
                    "prediction: {{ a: {placed} }}\ngold: {{ a: \"1\" }}\nthresholds: {{ min_grounded: 1 }}\n"
                ),
            )],
            "a"
        ),
        "case failed: min_grounded failed: the metric is absent (no gold field gives a `page` or `bbox`) (score 1.0000)"
    );
    assert_eq!(
        first_failure_line(
            &[(
                "cases/a.yaml",
                "prediction: { a: \"1\" }\ngold:\n  a: { value: \"1\", page: 1 }\nthresholds: { min_grounded: 1, min_iou: 0.5 }\n",
            )],
            "a"
        ),
        "case failed: min_grounded failed: the metric is absent (the prediction places none of the grounded fields: none of its value objects gives a `page` or `bbox`); min_iou failed: the metric is absent (no gold field gives a `bbox`) (score 1.0000)"
    );
    assert_eq!(
        first_failure_line(
            &[(
                "cases/a.yaml",
                &format!(
                    "prediction: {{ a: {placed} }}\ngold:\n  a: {{ value: \"1\", bbox: [0.1, 0.1, 0.2, 0.3] }}\nthresholds: {{ min_page_match: 1 }}\n"
                ),
            )],
            "a"
        ),
        "case failed: min_page_match failed: the metric is absent (no gold field gives a `page`) (score 1.0000)"
    );
}

#[test]
fn a_misspelt_place_key_or_a_box_of_no_area_is_refused_where_it_is_written() {
    let head = "prediction: { n: x }\nthresholds: { min_exact_match: 1 }\ngold:\n";
    let out = lint(&format!("{head}  n: {{ value: \"1\", pag: 1 }}\n"), None);
    assert_eq!(
        out.lines().next().unwrap(),
        "error: cases/bad.yaml:4:20: gold.n.pag: unknown key `pag` in a grounded value: did you mean `page`? (a grounded value holds `value`, `page` and `bbox`; with any other key the mapping is a tree, compared whole)",
        "{out}"
    );
    let out = lint(
        &format!("{head}  n: {{ value: \"1\", page: 1, bbx: [0, 0, 1, 1] }}\n"),
        None,
    );
    assert!(
        out.starts_with("error: cases/bad.yaml:4:29: gold.n.bbx: unknown key `bbx` in a grounded value: did you mean `bbox`?"),
        "{out}"
    );
    let out = lint(
        &format!("{head}  n: {{ value: \"1\", page: 1, bbox: [0.1, 0.1, 0.2, 0.1] }}\n"),
        None,
    );
    assert_eq!(
        out.lines().next().unwrap(),
        "error: cases/bad.yaml:4:35: gold.n.bbox: `bbox` [0.1, 0.1, 0.2, 0.1] has no height, so no predicted box can overlap it and the field could never be grounded (give the box around the value's text, its right edge beyond its left and its bottom below its top; to check the page alone, leave `bbox` out)",
        "{out}"
    );
    // A mapping with other keys than near ones is a tree, as before.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/a.yaml",
            "prediction: { n: { value: \"1\", currency: EUR } }\ngold:\n  n: { value: \"1\", currency: EUR }\nthresholds: { min_exact_match: 1 }\n",
        )],
    );
    let out = support::goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(verdict_of(&stdout(&out), "a"), "test a ... ok");
}

#[test]
fn a_grounding_key_in_the_wrong_place_says_where_it_belongs() {
    let case = "prediction: { n: x }\ngold: { n: x }\nthresholds: { min_exact_match: 1 }\n";
    let out = lint(case, Some("min_iou: 0.7\n"));
    assert!(
        out.contains("error: cases/suite.yaml:1:1: min_iou: unknown key `min_iou` (`min_iou` bounds the mean IoU in `thresholds`/`aggregate`; the IoU from which a field is grounded is `grounded_iou`)\n"),
        "{out}"
    );
    let out = lint(
        "prediction: { n: x }\ngold: { n: x }\nthresholds: { min_automation_rate: 0.5 }\n",
        None,
    );
    assert!(
        out.contains("error: cases/bad.yaml:3:15: thresholds.min_automation_rate: unknown key `min_automation_rate` (`min_automation_rate` bounds a suite's aggregate: it belongs in a suite's `aggregate:`)\n"),
        "{out}"
    );
}

#[test]
fn the_step_summary_has_the_grounding_the_misses_and_the_advice() {
    let dir = tempfile::tempdir().unwrap();
    confident_cases(dir.path(), "0.7");
    let summary = dir.path().join("summary.md");
    support::goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(
        page.contains("\n| misses | pipeline | missing | invented | format | wrong |\n|---|---|---:|---:|---:|---:|\n| (all fields) | cases/inv/ | 0 | 0 | 0 | 1 |\n| total | cases/inv/ | 0 | 0 | 0 | 1 |\n"),
        "{page}"
    );
    // A grounded gold set: the pipeline's row of the grounding table.
    let grounded = tempfile::tempdir().unwrap();
    write_files(
        grounded.path(),
        &[
            ("cases/invoice.yaml", INVOICE),
            ("cases/pred.json", PREDICTION),
        ],
    );
    let summary = grounded.path().join("summary.md");
    support::goldgate_with(
        grounded.path(),
        &["test", "cases"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    let grounding = std::fs::read_to_string(&summary).unwrap();
    assert!(
        grounding.contains("\n| grounding | grounded | IoU | page match |\n|---|---:|---:|---:|\n| cases/ | 0.6667 | 0.2500 | 0.6667 |\n"),
        "{grounding}"
    );
    // The bound at 0.7: no error in 3 values, z²/(3 + z²).
    assert!(
        page.contains("\n| accept when confidence ≥ | field | pipeline | automation | error bound 95% | target error |\n|---:|---|---|---:|---:|---:|\n| 0.7 | total | cases/inv/ | 0.6000 | 0.5615 | 0.6 |\n"),
        "{page}"
    );
}

/// A suite read the way nn-auto-bench writes its records: the fields under `pred`, their
/// confidences in a mapping beside them; `acceptance:` pools every field at chosen thresholds.
const POOLED_SUITE: &str = "cases:
  gold: gold/{case}.json
pipelines:
  nn: results/{case}.json
prediction_format: { fields: pred, confidence: predicted_field_conf_scores }
acceptance: { thresholds: [0.9, 0.99], accept: above, share_of: labels }
defaults:
  thresholds: { min_anls: 0.5 }
";

fn pooled_files(second: &str) -> Vec<(&'static str, String)> {
    vec![
        ("cases/suite.yaml", POOLED_SUITE.to_owned()),
        ("cases/gold/a.json", r#"{"total": "12", "date": "2024-03-05", "name": "ACME", "iban": ""}"#.to_owned()),
        ("cases/gold/b.json", r#"{"total": "7", "name": "Bolt"}"#.to_owned()),
        (
            "cases/results/a.json",
            "{\"pred\": {\"total\": \"12\", \"date\": \"2024-03-05\", \"name\": \"ACNE\"},\n \"predicted_field_conf_scores\": {\"total\": 0.99, \"date\": 1.0, \"name\": 0.995, \"iban\": 0.999}}\n".to_owned(),
        ),
        ("cases/results/b.json", second.to_owned()),
    ]
}

#[test]
fn acceptance_pools_every_field_at_chosen_thresholds_from_a_sibling_confidence_map() {
    let dir = tempfile::tempdir().unwrap();
    let b = "{\"pred\": {\"total\": \"7\", \"name\": \"Bolt\"},\n \"predicted_field_conf_scores\": {\"total\": 0.95, \"name\": 0.5}}\n";
    let files = pooled_files(b);
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    write_files(dir.path(), &files);
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    // The confidences reach their fields; `iban`, absent from `pred`, has the confidence of its
    // absence, and gold has none either: right.
    let a = case(&report, "a::nn");
    assert_eq!(field(a, "name")["confidence"], json!(0.995));
    assert_eq!(field(a, "iban")["confidence"], json!(0.999));
    assert_eq!(field(a, "iban")["em"], json!(1.0));
    // Six labels; above 0.9: a's total (0.99), date, name (wrong), iban and b's total (0.95);
    // above 0.99 a's total no more (strictly above), nor b's.
    assert_eq!(
        report["analysis"]["pooled"],
        json!([{"pipeline": "nn", "points": [
            {"threshold": 0.9, "accept": "above", "share_of": "labels", "accepted": 5, "of": 6,
             "approval_rate": 5.0 / 6.0, "errors": 1, "precision": 0.8,
             "error_upper": report["analysis"]["pooled"][0]["points"][0]["error_upper"]},
            {"threshold": 0.99, "accept": "above", "share_of": "labels", "accepted": 3, "of": 6,
             "approval_rate": 0.5, "errors": 1, "precision": 2.0 / 3.0,
             "error_upper": report["analysis"]["pooled"][0]["points"][1]["error_upper"]}
        ]}])
    );
    let bound = report["analysis"]["pooled"][0]["points"][1]["error_upper"]
        .as_f64()
        .unwrap();
    // statsmodels' `proportion_confint(1, 3, method="wilson")[1]`.
    assert!((bound - 0.792_340_399_197_952_3).abs() < 1e-12, "{bound}");
    assert!(
        text.contains("pooled acceptance  accept when  accepted        of  approval  errors  precision  error bound 95%\nnn                  conf > 0.9         5  6 labels  0.833333       1   0.800000           0.6245\nnn                 conf > 0.99         3  6 labels  0.500000       1   0.666667           0.7923\n"),
        "{text}"
    );
    // The same rows without a report, and in the HTML page.
    let html = dir.path().join("page.html");
    let out = support::goldgate(
        dir.path(),
        &["test", "cases", "--html", html.to_str().unwrap()],
    );
    assert!(stdout(&out).contains("nn                 conf > 0.99         3  6 labels  0.500000"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(
            "<td class=\"name\">nn</td><td class=\"num\">conf &gt; 0.99</td><td class=\"num\">3</td><td class=\"num\">6 labels</td><td class=\"num\">0.500000</td>"
        ),
        "{page}"
    );
}

#[test]
fn a_confidence_outside_0_1_fails_its_field_alone_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let b = "{\"pred\": {\"total\": \"7\", \"name\": \"Bolt\"},\n \"predicted_field_conf_scores\": {\"total\": 0.95,\n   \"name\": -0.039}}\n";
    let files = pooled_files(b);
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    write_files(dir.path(), &files);
    let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        verdict_of(&text, "b::nn"),
        "test b::nn ... FAILED",
        "{text}"
    );
    assert_eq!(
        support::failure_block(&text, "b::nn")
            .lines()
            .next()
            .unwrap(),
        "case failed: cases/results/b.json:3:4: predicted_field_conf_scores.name: confidence -0.039 is outside [0, 1] (write a confidence in [0, 1]; meanwhile the value is scored, its confidence left out of calibration and acceptance) (score 1.0000)"
    );
    // Its other field keeps its confidence, the field itself is scored, without one.
    let b = case(&report, "b::nn");
    assert_eq!(field(b, "total")["confidence"], json!(0.95));
    assert_eq!(field(b, "name")["em"], json!(1.0));
    assert_eq!(field(b, "name")["confidence"], Value::Null);
    // Both documents count in the pooled rows: six labels, b's total accepted above 0.9.
    assert_eq!(
        report["analysis"]["pooled"][0]["points"][0]["accepted"],
        json!(5)
    );
    assert_eq!(report["analysis"]["pooled"][0]["points"][0]["of"], json!(6));
    // `lint` says it too, and only it.
    let out = support::goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&out),
        "error: cases/results/b.json:3:4: predicted_field_conf_scores.name: confidence -0.039 is outside [0, 1] (write a confidence in [0, 1]; meanwhile the value is scored, its confidence left out of calibration and acceptance)\nlint: 2 case files, 1 error\n"
    );
}

#[test]
fn a_misspelt_acceptance_name_is_located_with_the_closest() {
    let dir = tempfile::tempdir().unwrap();
    let files = pooled_files("{\"pred\": {}, \"predicted_field_conf_scores\": {}}");
    let suite = POOLED_SUITE.replace("share_of: labels", "share_of: lables");
    let mut files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    files[0].1 = &suite;
    write_files(dir.path(), &files);
    let out = support::goldgate(dir.path(), &["lint", "cases"]);
    assert!(
        stdout(&out).contains("cases/suite.yaml:6:65: acceptance.share_of: unknown `share_of: lables` (did you mean `labels`?)"),
        "{}",
        stdout(&out)
    );
}
