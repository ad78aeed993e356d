//! Headless Chromium for the tests that render the HTML page (ignored unless asked for: `.ci/run`
//! installs Chromium and runs them with `--ignored`): found on the PATH, its absence a
//! failure that says how to install it, and started with no profile, network or first-run work
//! of its own.
//!
//! Included with `#[path = "support/chromium.rs"] mod chromium;` by the files that need it.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium, which a test that was asked for needs.
pub fn require() -> PathBuf {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
        .expect("headless Chromium renders the page in this test: install it (`apt-get install chromium`)")
}

/// `chromium` headless in a window `width` by `height` pixels, with `profile` as its user data.
pub fn headless(chromium: &Path, profile: &Path, width: u32, height: u32) -> Command {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--window-size={width},{height}"))
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// The report `page.html` in `dir` laid out by Chromium in a frame of 1,280 pixels, and what
/// `script` finds in it: run once the frame has loaded, with the report's document as `d`, it
/// leaves its finding in a `result` string (the report has no script of its own: this one is
/// in a page that frames it).
pub fn probe(chromium: &Path, dir: &Path, script: &str) -> String {
    let probe = dir.join("probe.html");
    std::fs::write(
        &probe,
        format!(
            r#"<!doctype html><body><iframe id="f" src="page.html" style="width:1280px;height:4000px"></iframe>
<script>
document.getElementById("f").onload = () => {{
  const d = document.getElementById("f").contentDocument;
{script}
  const out = document.createElement("pre");
  out.id = "result";
  out.textContent = result;
  document.body.appendChild(out);
}};
</script>"#
        ),
    )
    .unwrap();
    let dom = headless(chromium, &dir.join("profile"), 1280, 1000)
        .args([
            "--allow-file-access-from-files",
            "--disable-web-security",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", probe.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    dom.split("<pre id=\"result\">")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("no result in:\n{dom}"))
        .to_owned()
}

/// Lays the page out as the browser does and writes what it found into the DOM as JSON, which
/// `--dump-dom` then prints. The page has no script of its own: this one is put in a copy, for
/// the test alone. It reports:
/// - `wrapped`: each figure or pipeline name (a text of a `td.num`, `td.name` or other `.num` than a heading) laid
///   out on more than one line;
/// - `overflowing`: each box that ends beyond the window's width, or whose content is wider
///   than the box;
/// - `height`: the page's height in pixels;
/// - `charts`: each chart of rows (the forest plots, the headline metric's): its kind, metric,
///   ticks (value and x) and zero line, and each row's numbers as the page wrote them and where
///   its point and line were drawn;
/// - `matrices`: each slices matrix, its tag, its pipelines and its rows (value, cases, cells).
pub const MEASURE: &str = r#"<script>
(() => {
  const width = document.documentElement.clientWidth;
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 || r.height > 0; };
  const name = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '');
  // The lines a text node is laid out on: the distinct tops of its boxes.
  const lines = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    const tops = [];
    for (const b of range.getClientRects()) {
      if (b.width < 0.5) continue;
      if (!tops.some((t) => Math.abs(t - b.top) < 2)) tops.push(b.top);
    }
    return tops.length;
  };
  const wrapped = [];
  for (const el of document.querySelectorAll('td.num, td.name, :not(th).num')) {
    if (!shown(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.textContent.trim() && lines(n) > 1) wrapped.push(n.textContent.trim());
    }
  }
  const overflowing = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.right > width + 0.5) overflowing.push(name(el) + ' ends at ' + Math.round(r.right) + ' of ' + width);
    else if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth) overflowing.push(name(el) + ' holds ' + el.scrollWidth + ' in ' + el.clientWidth);
  }
  const centre = (el) => { const r = el.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2, left: r.left, right: r.right }; };
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => ({
    kind: svg.classList.contains('forest') ? 'forest' : svg.classList.contains('headline') ? 'headline' : 'other',
    metric: svg.dataset.metric,
    ticks: [...svg.querySelectorAll('.tick')].map((t) => ({ value: parseFloat(t.dataset.value), x: centre(t).x })),
    zero: [...svg.querySelectorAll('.tick.zero')].map((t) => centre(t).x),
    rows: [...svg.querySelectorAll('g.pair, g.pipeline')].map((g) => ({
      pipeline: g.dataset.pipeline,
      reference: g.dataset.reference || null,
      value: parseFloat(g.dataset.difference !== undefined ? g.dataset.difference : g.dataset.mean),
      low: parseFloat(g.dataset.low),
      high: parseFloat(g.dataset.high),
      significant: g.classList.contains('significant'),
      point: centre(g.querySelector('.point')).x,
      from: centre(g.querySelector('.interval')).left,
      to: centre(g.querySelector('.interval')).right,
    })),
  }));
  const matrices = [...document.querySelectorAll('table.matrix')].map((t) => ({
    tag: t.dataset.tag,
    pipelines: [...t.querySelectorAll('thead th.pipeline')].map((th) => th.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({
      value: tr.dataset.value,
      cases: tr.querySelector('.cases') ? tr.querySelector('.cases').textContent : null,
      cells: [...tr.querySelectorAll('td.cell')].map((td) => ({ pipeline: td.dataset.pipeline, text: td.textContent, shown: shown(td) })),
    })),
  }));
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = JSON.stringify({ wrapped, overflowing, height: document.documentElement.scrollHeight, charts, matrices });
  document.body.appendChild(out);
})();
</script>"#;

/// The page `html` as laid out in a window `width` pixels wide, measured by [`MEASURE`]; with
/// `print`, the page's print rules are taken as the screen's (an A4 sheet's printable width is
/// 720 px at 96 dpi). `dir` holds the copy and the browser's profile.
pub fn measure(
    chromium: &Path,
    dir: &Path,
    html: &str,
    width: u32,
    print: bool,
) -> serde_json::Value {
    let mut page = html.replace("</body>", &format!("{MEASURE}</body>"));
    if print {
        page = page.replace("@media print", "@media all");
        assert_ne!(
            page,
            html.replace("</body>", &format!("{MEASURE}</body>")),
            "the page has print rules"
        );
    }
    let file = dir.join(format!("measure-{width}-{print}.html"));
    std::fs::write(&file, page).unwrap();
    let out = headless(chromium, &dir.join("profile"), width, 3000)
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"measured\">")
        .unwrap_or_else(|| panic!("the measure did not run:\n{dom}"));
    let rest = &dom[start + "<pre id=\"measured\">".len()..];
    let json = rest[..rest.find("</pre>").unwrap()]
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// The pages of `html` printed by Chromium on A4 (`--print-to-pdf`), counted in the PDF.
pub fn printed_pages(chromium: &Path, dir: &Path, html: &Path) -> usize {
    let pdf = dir.join("printed.pdf");
    let _ = std::fs::remove_file(&pdf);
    let out = headless(chromium, &dir.join("profile"), 1280, 900)
        .arg("--no-pdf-header-footer")
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    let bytes = std::fs::read(&pdf)
        .unwrap_or_else(|_| panic!("no PDF: {}", String::from_utf8_lossy(&out.stderr)));
    // Each page object: `/Type /Page`, not `/Type /Pages` (the tree of pages).
    let mut pages = 0;
    for (i, _) in bytes.windows(5).enumerate().filter(|(_, w)| *w == b"/Type") {
        let rest = &bytes[i + 5..];
        let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        if rest.starts_with(b"/Page") && rest.get(5) != Some(&b's') {
            pages += 1;
        }
    }
    pages
}

/// Checks the charts of a measured page against the run's report: each forest plot row's
/// difference and interval are the report's comparison's, each headline row's mean the
/// pipeline's, and every point and line sits where the axis' ticks put those numbers (within
/// a pixel); a pair is set apart exactly when its interval excludes zero. Returns how many
/// rows of each kind were checked.
pub fn check_charts(measured: &serde_json::Value, report: &serde_json::Value) -> (usize, usize) {
    let (mut pairs, mut pipelines) = (0, 0);
    let close =
        |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-9, "{what}: {a} against {b}");
    for chart in measured["charts"].as_array().unwrap() {
        let ticks = chart["ticks"].as_array().unwrap();
        assert!(ticks.len() >= 2, "{chart}");
        let (first, last) = (&ticks[0], &ticks[ticks.len() - 1]);
        let (v0, x0) = (
            first["value"].as_f64().unwrap(),
            first["x"].as_f64().unwrap(),
        );
        let (v1, x1) = (last["value"].as_f64().unwrap(), last["x"].as_f64().unwrap());
        let x = |v: f64| x0 + (v - v0) / (v1 - v0) * (x1 - x0);
        for t in ticks {
            let at = t["x"].as_f64().unwrap();
            assert!(
                (at - x(t["value"].as_f64().unwrap())).abs() < 1.0,
                "ticks not evenly spaced: {chart}"
            );
        }
        let metric = chart["metric"].as_str().unwrap();
        for row in chart["rows"].as_array().unwrap() {
            let get = |k: &str| row[k].as_f64().unwrap_or_else(|| panic!("{k} of {row}"));
            let (value, low, high) = (get("value"), get("low"), get("high"));
            let pipeline = row["pipeline"].as_str().unwrap();
            match chart["kind"].as_str().unwrap() {
                "forest" => {
                    let reference = row["reference"].as_str().unwrap();
                    let c = report["comparisons"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|c| c["pipeline"] == pipeline && c["reference"] == reference)
                        .unwrap_or_else(|| panic!("no comparison {pipeline} against {reference}"));
                    let i = &c[metric];
                    close(value, i["difference"].as_f64().unwrap(), "difference");
                    close(low, i["low"].as_f64().unwrap(), "low");
                    close(high, i["high"].as_f64().unwrap(), "high");
                    assert_eq!(row["significant"], low > 0.0 || high < 0.0, "{row}");
                    assert_eq!(
                        chart["zero"].as_array().unwrap().len(),
                        1,
                        "zero marked once"
                    );
                    let zero = chart["zero"][0].as_f64().unwrap();
                    assert!(
                        (zero - x(0.0)).abs() < 1.0,
                        "zero at {zero}, not {}",
                        x(0.0)
                    );
                    pairs += 1;
                }
                "headline" => {
                    let p = report["pipelines"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|p| p["pipeline"] == pipeline)
                        .unwrap_or_else(|| panic!("no pipeline {pipeline}"));
                    close(value, p[metric].as_f64().unwrap(), "mean");
                    assert!(low <= value && value <= high, "{row}");
                    pipelines += 1;
                }
                other => panic!("a chart of kind {other}"),
            }
            for (drawn, at) in [("point", value), ("from", low), ("to", high)] {
                let drawn_x = get(drawn);
                assert!(
                    (drawn_x - x(at)).abs() < 1.0,
                    "{metric} {pipeline}: the {drawn} is at {drawn_x}, {at} is at {}",
                    x(at)
                );
            }
        }
    }
    (pairs, pipelines)
}

/// Checks the slices matrices of a measured page against the run's report: one matrix per tag,
/// one row per value of it, one cell per value and pipeline, laid out and holding the report's
/// `metric` of that slice (four decimals), the case count beside the value; the rows by the
/// spread between pipelines, widest first. Returns the number of cells checked.
pub fn check_matrices(
    measured: &serde_json::Value,
    report: &serde_json::Value,
    metric: &str,
) -> usize {
    use std::collections::{BTreeMap, BTreeSet};
    let slices = report["slices"].as_array().unwrap();
    let mut expected: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let pipelines: BTreeSet<&str> = slices
        .iter()
        .map(|s| s["pipeline"].as_str().unwrap())
        .collect();
    for s in slices {
        expected
            .entry(s["tag"].as_str().unwrap())
            .or_default()
            .insert(s["value"].as_str().unwrap());
    }
    let matrices = measured["matrices"].as_array().unwrap();
    let tags: BTreeSet<&str> = matrices
        .iter()
        .map(|m| m["tag"].as_str().unwrap())
        .collect();
    assert_eq!(tags, expected.keys().copied().collect(), "a matrix per tag");
    let mut cells = 0;
    for m in matrices {
        let tag = m["tag"].as_str().unwrap();
        let columns: BTreeSet<&str> = m["pipelines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(columns, pipelines, "{tag}: a column per pipeline");
        let rows = m["rows"].as_array().unwrap();
        let values: BTreeSet<&str> = rows.iter().map(|r| r["value"].as_str().unwrap()).collect();
        assert_eq!(values, expected[tag], "{tag}: a row per value");
        assert_eq!(rows.len(), expected[tag].len(), "{tag}: each value once");
        let mut spreads = Vec::new();
        for row in rows {
            let value = row["value"].as_str().unwrap();
            let of = |p: &str| {
                slices
                    .iter()
                    .find(|s| s["tag"] == tag && s["value"] == value && s["pipeline"] == p)
            };
            let row_cells = row["cells"].as_array().unwrap();
            assert_eq!(
                row_cells.len(),
                pipelines.len(),
                "{tag}={value}: a cell per pipeline"
            );
            let mut numbers = Vec::new();
            let mut cases = 0;
            for cell in row_cells {
                let p = cell["pipeline"].as_str().unwrap();
                assert_eq!(cell["shown"], true, "{tag}={value} {p} is laid out");
                let text = cell["text"].as_str().unwrap();
                match of(p).and_then(|s| s[metric].as_f64().map(|x| (s, x))) {
                    Some((s, x)) => {
                        assert_eq!(text, format!("{x:.4}"), "{tag}={value} {p}");
                        numbers.push(x);
                        cases = cases.max(s["cases"].as_u64().unwrap());
                    }
                    None => assert_eq!(text, "-", "{tag}={value} {p}"),
                }
                cells += 1;
            }
            assert_eq!(row["cases"], cases.to_string(), "{tag}={value}: its cases");
            let spread = numbers.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                - numbers.iter().cloned().fold(f64::INFINITY, f64::min);
            spreads.push(if numbers.len() > 1 { spread } else { -1.0 });
        }
        assert!(
            spreads.windows(2).all(|w| w[0] >= w[1]),
            "{tag}: widest spread first: {spreads:?}"
        );
    }
    cells
}
