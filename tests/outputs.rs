//! Results where CI users look (SPEC §11), from the `goldgate` binary over a fixture with three
//! pipelines, failures of every kind, a case that cannot load, a skipped case and an aggregate
//! per pipeline: JUnit parsed back, GitHub annotations at real lines, the step summary, the HTML
//! page (self-contained, and rendered by headless Chromium with its DOM checked and a
//! screenshot taken), and the report's calibration bins.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use quick_junit::{NonSuccessKind, Report, TestCaseStatus};
use serde_json::Value;

#[path = "support/chromium.rs"]
mod chromium;
mod support;

/// Every test of the fixture and whether it passes (`None`: skipped).
const VERDICTS: [(&str, Option<bool>); 18] = [
    ("broken::alpha", Some(false)),
    ("broken::beta", Some(false)),
    ("broken::gamma", Some(false)),
    ("cases::aggregate::alpha", Some(true)),
    ("cases::aggregate::beta", Some(false)),
    ("cases::aggregate::gamma", Some(false)),
    ("one::alpha", Some(true)),
    ("one::beta", Some(true)),
    ("one::gamma", Some(true)),
    ("skipped::alpha", None),
    ("skipped::beta", None),
    ("skipped::gamma", None),
    ("three::alpha", Some(true)),
    ("three::beta", Some(true)),
    ("three::gamma", Some(false)),
    ("two::alpha", Some(true)),
    ("two::beta", Some(false)),
    ("two::gamma", Some(true)),
];

/// A copy of the fixture in a temporary folder, and the binary run there.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outputs/cases"),
            &dir.path().join("cases"),
        );
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `goldgate test cases ARGS` with `vars` set and every outside variable that matters unset.
    fn test(&self, args: &[&str], vars: &[(&str, &Path)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
        cmd.arg("test")
            .arg("cases")
            .args(args)
            .current_dir(self.dir.path());
        for name in [
            "GOLDGATE_REPORT",
            "GOLDGATE_JUNIT",
            "GOLDGATE_HTML",
            "GOLDGATE_UPDATE",
            "GOLDGATE_RUN_ID",
            "NEXTEST_RUN_ID",
            "GITHUB_ACTIONS",
            "GITHUB_WORKSPACE",
            "GITHUB_STEP_SUMMARY",
        ] {
            cmd.env_remove(name);
        }
        cmd.env("NO_COLOR", "1");
        for (name, value) in vars {
            cmd.env(name, value);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(101), "{}", text(&out));
        out
    }
}

/// The end step of a split run: `goldgate report --run ID`, which writes the files the run's
/// processes were asked for from its journal.
fn end_run(fx: &Fixture, run: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["report", "--run", run])
        .current_dir(fx.dir.path())
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GOLDGATE_REPORT")
        .env_remove("GOLDGATE_JUNIT")
        .env_remove("GOLDGATE_HTML")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn junit_holds_every_test_with_its_verdict_and_message() {
    let fx = Fixture::new();
    fx.test(&["--junit", "junit.xml"], &[]);
    let xml = std::fs::read_to_string(fx.path("junit.xml")).unwrap();
    let report = Report::deserialize_from_str(&xml).unwrap();
    // A suite per suite folder and pipeline.
    let suites: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(suites, ["cases::alpha", "cases::beta", "cases::gamma"]);
    let mut seen = Vec::new();
    for suite in &report.test_suites {
        for case in &suite.test_cases {
            assert_eq!(case.classname.as_deref(), Some("cases"), "{:?}", case.name);
            let file = case.extra.get("file").expect("a file attribute");
            assert!(fx.path(file.as_str()).is_file(), "{file:?}");
            let verdict = match &case.status {
                TestCaseStatus::Success { .. } => Some(true),
                TestCaseStatus::Skipped { message, .. } => {
                    assert_eq!(
                        message.as_deref(),
                        Some("the scan of this invoice is missing")
                    );
                    None
                }
                TestCaseStatus::NonSuccess {
                    kind,
                    message,
                    description,
                    ..
                } => {
                    assert_eq!(*kind, NonSuccessKind::Failure);
                    let message = message.as_deref().expect("a failure message");
                    let description = description.as_deref().expect("the failure text");
                    // The message is the reason (the verdict line; for a case that did not
                    // load, how many errors it has), the text the whole plain message.
                    if message.starts_with("the case could not be loaded (") {
                        assert!(
                            description
                                .ends_with("\nthe case could not be loaded, so it was not run"),
                            "{description}"
                        );
                    } else {
                        assert!(description.starts_with(message), "{description}");
                    }
                    assert!(
                        !description.contains('\u{1b}'),
                        "colour codes in {description}"
                    );
                    Some(false)
                }
            };
            seen.push((case.name.as_str().to_owned(), verdict));
        }
    }
    seen.sort();
    let want: Vec<(String, Option<bool>)> =
        VERDICTS.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    assert_eq!(seen, want);
    let two_beta = report.test_suites[1]
        .test_cases
        .iter()
        .find(|c| c.name.as_str() == "two::beta")
        .unwrap();
    match &two_beta.status {
        TestCaseStatus::NonSuccess { message, .. } => assert_eq!(
            message.as_deref(),
            Some("case failed: gate closed by must_right `the number is exact` (score 0.0000)")
        ),
        other => panic!("{other:?}"),
    }
    let score = two_beta
        .properties
        .iter()
        .find(|p| p.name.as_str() == "score")
        .map(|p| p.value.as_str().to_owned());
    assert_eq!(score.as_deref(), Some("0"));
}

#[test]
fn annotations_point_at_the_failing_lines_most_important_first() {
    let fx = Fixture::new();
    let out = fx.test(
        &[],
        &[
            ("GITHUB_ACTIONS", Path::new("true")),
            ("GITHUB_WORKSPACE", fx.dir.path()),
        ],
    );
    // On standard error: standard output stays libtest's.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("::error"));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    // Three load errors and one Must-Right first, then the threshold and the two aggregates.
    assert_eq!(lines.len(), 7, "{stderr}");
    assert!(
        lines[..4].iter().all(|l| !l.contains("failed: 0.")),
        "{lines:#?}"
    );
    assert!(
        lines[4..].iter().all(|l| l.contains(" failed: 0.")),
        "{lines:#?}"
    );
    for line in &lines {
        let props = line["::error ".len()..].split("::").next().unwrap();
        let find = |key: &str| {
            props
                .split(',')
                .find_map(|p| p.strip_prefix(&format!("{key}=")))
        };
        let get = |key: &str| find(key).unwrap_or_else(|| panic!("no {key} in {line}"));
        let file = fx.path(get("file"));
        let source = std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{line}"));
        // A bound of the suite's defaults that a case misses marks the case's file as a whole.
        let Some(line_no) = find("line") else {
            assert!(
                line.contains("(the rule is written at cases/suite.yaml:"),
                "{line}"
            );
            continue;
        };
        let line_no: usize = line_no.parse().unwrap();
        let text = source
            .lines()
            .nth(line_no - 1)
            .unwrap_or_else(|| panic!("{line}"));
        // A gold field's line has no column: the annotation marks the line.
        if let Some(column) = find("col") {
            let column: usize = column.parse().unwrap();
            assert!(column >= 1 && column <= text.chars().count() + 1, "{line}");
        }
        assert!(!get("title").contains(':'), "unescaped title in {line}");
        // No text repeats the place the annotation is at.
        let message = line.split("::").nth(2).unwrap();
        assert!(
            !message.contains(&format!("{}:{line_no}", get("file"))),
            "{line}"
        );
    }
    // A rule of the suite's defaults that the case breaks: at the case's gold line of the field,
    // titled by the test and its reason, the rule's own place said after the message.
    let must_right = lines
        .iter()
        .find(|l| l.contains("title=two%3A%3Abeta"))
        .unwrap();
    assert_eq!(
        *must_right,
        "::error file=cases/two.yaml,line=2,title=two%3A%3Abeta%3A case failed%3A gate closed by must_right `the number is exact` (score 0.0000)::must_right `the number is exact` failed: number: `F-020` is not an exact match of its gold (the rule is written at cases/suite.yaml:6)"
    );
    let broken = lines
        .iter()
        .find(|l| l.contains("broken%3A%3Aalpha"))
        .unwrap();
    assert!(
        broken.starts_with("::error file=cases/broken.yaml,line=6,col=5,title=broken%3A%3Aalpha%3A the case could not be loaded (1 error)::rubrics[0].presnt: unknown key `presnt`"),
        "{broken}"
    );
    let aggregate = lines
        .iter()
        .find(|l| l.contains("title=cases%3A%3Aaggregate%3A%3Abeta"))
        .unwrap();
    assert!(
        aggregate.starts_with("::error file=cases/suite.yaml,line=15,col=18,title=cases%3A%3Aaggregate%3A%3Abeta%3A aggregate failed over "),
        "{aggregate}"
    );
    assert!(
        aggregate.ends_with("::min_pass_rate failed: 0.5000 < 0.7"),
        "{aggregate}"
    );
    // `--annotations none` wins over GITHUB_ACTIONS.
    let quiet = fx.test(
        &["--annotations", "none"],
        &[("GITHUB_ACTIONS", Path::new("true"))],
    );
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("::error"));
}

#[test]
fn the_step_summary_has_the_table_and_the_failing_tests() {
    let fx = Fixture::new();
    let summary = fx.path("summary.md");
    std::fs::write(&summary, "# an earlier step's page\n").unwrap();
    fx.test(&[], &[("GITHUB_STEP_SUMMARY", &summary)]);
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(
        page.starts_with("# an earlier step's page\n## goldgate\n"),
        "{page}"
    );
    assert!(
        page.contains("**15 cases: 7 passed, 5 failed, 3 ignored**"),
        "{page}"
    );
    assert!(page.contains("| pipeline | cases | EM | ANLS |"), "{page}");
    // No prediction gives a cost: the column is not drawn, and that is said once.
    assert!(
        page.contains("\nnot measured: cost/case (no prediction gives a cost or a priced usage); EW acc (no case has an Easy-Wrong rubric)\n"),
        "{page}"
    );
    assert!(page.contains("\n| alpha | "), "{page}");
    // The fields as the HTML page orders them.
    assert!(
        page.contains("\n1 field is exact for every pipeline.\n\nThe 2 fields not exact for some pipeline, worst first (EM / ANLS):\n\n| field | alpha | beta | gamma |\n|---|---:|---:|---:|\n| vendor | 1.0000 / 1.0000 | 1.0000 / 1.0000 | 0.6667 / 0.6667 |\n| number | "),
        "{page}"
    );
    assert!(page.contains("\n### Failing tests\n"), "{page}");
    assert!(
        // With the values that failed, not only the rule's file.
        page.contains("- `two::beta` — case failed: gate closed by must_right `the number is exact` (score 0.0000) — `cases/suite.yaml:6` — `number`: gold `\"F-002\"`, prediction `\"F-020\"`\n"),
        "{page}"
    );
    assert!(page.contains("- `cases::aggregate::beta` — "), "{page}");
    // A second run appends a page of its own.
    fx.test(&[], &[("GITHUB_STEP_SUMMARY", &summary)]);
    let twice = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(twice.matches("## goldgate\n").count(), 2);
}

#[test]
fn the_processes_of_one_run_leave_one_step_summary_page() {
    let fx = Fixture::new();
    let summary = fx.path("summary.md");
    for name in ["one::alpha", "two::beta", "cases::aggregate::gamma"] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
        let out = cmd
            .args(["test", "cases", "--exact", name])
            .current_dir(fx.dir.path())
            .env("NO_COLOR", "1")
            .env("GOLDGATE_RUN_ID", format!("summary-{}", std::process::id()))
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env_remove("NEXTEST_RUN_ID")
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "{}", text(&out));
    }
    assert!(
        !summary.exists(),
        "a process of the split run wrote the step summary"
    );
    end_run(&fx, &format!("summary-{}", std::process::id()));
    let page = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(page.matches("## goldgate\n").count(), 1, "{page}");
    assert!(
        page.contains("**2 cases: 1 passed, 1 failed, 0 ignored**"),
        "{page}"
    );
    assert!(page.contains("- `cases::aggregate::gamma` — "), "{page}");
}

#[test]
fn the_report_has_calibration_bins_and_the_field_table() {
    let fx = Fixture::new();
    fx.test(&["--report", "report.json"], &[]);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("report.json")).unwrap()).unwrap();
    let pipelines = report["pipelines"].as_array().unwrap();
    assert_eq!(pipelines.len(), 3);
    for p in pipelines {
        let bins = p["calibration"].as_array().unwrap();
        let counted: u64 = bins.iter().map(|b| b["count"].as_u64().unwrap()).sum();
        // Three scored cases of three fields each, every field with a confidence.
        assert_eq!(counted, 9, "{p}");
        for b in bins {
            assert!(b["lower"].as_f64().unwrap() < b["upper"].as_f64().unwrap());
            assert!(b["confidence"].is_number() && b["accuracy"].is_number());
        }
    }
    let alpha = &pipelines[0];
    assert_eq!(alpha["pipeline"], "alpha");
    // alpha: 0.95 for number and vendor (all correct), 0.9 for the totals (all correct).
    let bins = alpha["calibration"].as_array().unwrap();
    assert_eq!(bins.len(), 1);
    assert_eq!(
        (
            &bins[0]["lower"],
            &bins[0]["upper"],
            &bins[0]["count"],
            &bins[0]["accuracy"]
        ),
        (
            &serde_json::json!(0.8),
            &serde_json::json!(1.0),
            &serde_json::json!(9),
            &serde_json::json!(1.0)
        )
    );
    let mean = (6.0 * 0.95 + 3.0 * 0.9) / 9.0;
    assert!((bins[0]["confidence"].as_f64().unwrap() - mean).abs() < 1e-12);
    let fields = report["fields"].as_array().unwrap();
    let vendor_gamma = fields
        .iter()
        .find(|f| f["field"] == "vendor" && f["pipeline"] == "gamma")
        .unwrap();
    assert_eq!(vendor_gamma["cases"], 3);
    assert!((vendor_gamma["em"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
}

/// The page names nothing outside itself: no script, no link, no fetched image or font.
fn assert_self_contained(html: &str) {
    for outside in ["<script", "<link", "src=", "href=", "@import", "url("] {
        assert!(!html.contains(outside), "the page holds `{outside}`");
    }
}

#[test]
fn the_html_page_stands_alone_and_shows_every_part() {
    let fx = Fixture::new();
    fx.test(&["--html", "page.html"], &[]);
    let html = std::fs::read_to_string(fx.path("page.html")).unwrap();
    assert_self_contained(&html);
    assert_eq!(html.matches("<figure class=\"reliability\"").count(), 3);
    for pipeline in ["alpha", "beta", "gamma"] {
        assert!(html.contains(&format!("data-pipeline=\"{pipeline}\"")));
    }
    assert!(html.contains("<h2>Failing tests (7)</h2>"), "{html}");
    // One verdict at the top, naming every gate that failed.
    assert!(
        html.contains("<p class=\"verdict\" id=\"summary\"><span class=\"fail\">failed</span> · 15 case tests: 7 passed, 5 failed, 3 ignored · 3 aggregate tests: 1 held, 2 failed</p>\n<ul class=\"failed-gates\">\n<li><b>cases::aggregate::beta</b>: min_pass_rate failed: 0.5000 &lt; 0.7</li>\n<li><b>cases::aggregate::gamma</b>: min_pass_rate failed: 0.5000 &lt; 0.7</li>\n</ul>"),
        "{html}"
    );
    assert!(html.contains("<section id=\"fields\">"));
    assert!(html.contains("<figure class=\"latency\">"));
    // The diff of two::beta's number, coloured.
    assert!(html.contains("F-0<ins>2</ins>0<del>2</del>"), "{html}");
    // A row per failing test: its case, pipeline, the field that failed it, numbers and why.
    assert!(
        html.contains("<summary class=\"row\"><span class=\"test\">two</span><span class=\"name\">beta</span><span class=\"field\">number</span><span class=\"num\">0.6667</span><span class=\"num\">0.8667</span><span class=\"num\">0.0000</span><span class=\"why\">gate closed by must_right `the number is exact`</span></summary>"),
        "{html}"
    );
    // The field exact for every pipeline on one line; the others worst first.
    let fields = &html[html.find("<section id=\"fields\">").unwrap()..];
    let fields = &fields[..fields.find("</section>").unwrap()];
    assert!(
        fields.contains(
            "<summary>1 field is exact for every pipeline</summary>\n<p class=\"names\">total</p>"
        ),
        "{fields}"
    );
    let order: Vec<&str> = fields
        .split("<tr><td class=\"text\">")
        .skip(1)
        .map(|row| &row[..row.find('<').unwrap()])
        .collect();
    assert_eq!(order, ["vendor", "number"], "{fields}");
    // The same page from the saved report.
    fx.test(&["--report", "report.json"], &[]);
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["report", "report.json", "--html", "again.html"])
        .current_dir(fx.dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let again = std::fs::read_to_string(fx.path("again.html")).unwrap();
    assert_eq!(again, html);
}

fn headless(chromium: &Path, profile: &Path) -> Command {
    chromium::headless(chromium, profile, 1280, 2400)
}

#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn headless_chromium_renders_the_page_with_a_diagram_per_pipeline() {
    let chromium = chromium::require();
    let fx = Fixture::new();
    fx.test(&["--html", "page.html"], &[]);
    let url = format!("file://{}", fx.path("page.html").display());
    let dom = headless(&chromium, &fx.path("profile"))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    // What the browser built: three diagrams, each with its bins and the diagonal.
    assert_eq!(
        dom.matches("<figure class=\"reliability\"").count(),
        3,
        "{dom}"
    );
    assert_eq!(dom.matches("class=\"diagonal\"").count(), 3);
    assert!(dom.matches("class=\"bin\"").count() >= 3);
    // A row per failing test (5 case tests, 2 aggregates), open: there are few.
    assert_eq!(dom.matches("<details class=\"failure").count(), 7);
    assert_eq!(dom.matches("<pre class=\"message\">").count(), 7);
    assert!(dom.contains("id=\"summary\""));
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("goldgate-page.png");
    let _ = std::fs::remove_file(&shot);
    let out = headless(&chromium, &fx.path("profile"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", text(&out)));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}

/// Every figure and pipeline name of the page on one line, and every table within the window,
/// at a laptop's 1,280 px and as printed on A4; the charts' points and lines where the report's
/// numbers put them (each pipeline's mean score, and the two pairs compared with `alpha` for
/// score, EM and ANLS).
#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn figures_stay_whole_and_tables_fit_on_screen_and_in_print() {
    let chromium = chromium::require();
    let fx = Fixture::new();
    fx.test(&["--html", "page.html", "--report", "report.json"], &[]);
    let html = std::fs::read_to_string(fx.path("page.html")).unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("report.json")).unwrap()).unwrap();
    for (width, print) in [(1280, false), (720, true)] {
        let m = chromium::measure(&chromium, fx.dir.path(), &html, width, print);
        assert_eq!(chromium::check_charts(&m, &report), (6, 3), "{m}");
        assert_eq!(
            m["wrapped"],
            serde_json::json!([]),
            "{width} px, print {print}"
        );
        assert_eq!(
            m["overflowing"],
            serde_json::json!([]),
            "{width} px, print {print}"
        );
    }
}

#[test]
fn junit_of_a_run_split_into_processes_holds_every_test() {
    let fx = Fixture::new();
    let run = format!("junit-{}", std::process::id());
    for (name, _) in VERDICTS {
        let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(["test", "cases", "--exact", name])
            .current_dir(fx.dir.path())
            .env("NO_COLOR", "1")
            .env("GOLDGATE_RUN_ID", &run)
            .env("GOLDGATE_JUNIT", "junit.xml")
            .env_remove("NEXTEST_RUN_ID")
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "{}", text(&out));
    }
    end_run(&fx, &run);
    let report =
        Report::deserialize_from_str(&std::fs::read_to_string(fx.path("junit.xml")).unwrap())
            .unwrap();
    let mut names: Vec<String> = report
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter().map(|c| c.name.as_str().to_owned()))
        .collect();
    names.sort();
    assert_eq!(names, VERDICTS.map(|(n, _)| n.to_owned()));
}

#[test]
fn the_step_summary_keeps_within_what_github_takes_for_the_file() {
    let fx = Fixture::new();
    let summary = fx.path("summary.md");
    let earlier = "x".repeat(1024 * 1024 - 600);
    std::fs::write(&summary, &earlier).unwrap();
    let out = fx.test(&[], &[("GITHUB_STEP_SUMMARY", &summary)]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no room for the run's page"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), earlier);
    let room = fx.path("room.md");
    std::fs::write(&room, "x".repeat(1024 * 1024 - 3000)).unwrap();
    fx.test(&[], &[("GITHUB_STEP_SUMMARY", &room)]);
    let page = std::fs::read_to_string(&room).unwrap();
    assert!(page.len() <= 1024 * 1024, "{} bytes", page.len());
    assert!(page.contains("## goldgate"), "the page fits in part");
}

/// As nextest runs a target: the list, the list of ignored tests, then one process per test
/// that is not ignored. The skipped cases, never started, are in the run's files as skipped.
#[test]
fn skipped_cases_reach_the_files_of_a_run_nextest_never_starts_them_in() {
    let fx = Fixture::new();
    let run = format!("nextest-like-{}", std::process::id());
    let goldgate = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(["test", "cases"])
            .args(args)
            .current_dir(fx.dir.path())
            .env("NO_COLOR", "1")
            .env("GOLDGATE_RUN_ID", &run)
            .env("GOLDGATE_JUNIT", "junit.xml")
            .env("GOLDGATE_REPORT", "report.json")
            .env_remove("NEXTEST_RUN_ID")
            .output()
            .unwrap()
    };
    let listed = goldgate(&["--list", "--format", "terse"]);
    let ignored = goldgate(&["--list", "--format", "terse", "--ignored"]);
    let names = |out: &Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test").map(str::to_owned))
            .collect()
    };
    let skipped = names(&ignored);
    assert_eq!(
        skipped,
        ["skipped::alpha", "skipped::beta", "skipped::gamma"]
    );
    for name in names(&listed).iter().filter(|n| !skipped.contains(n)) {
        goldgate(&["--exact", name]);
    }
    end_run(&fx, &run);
    let report =
        Report::deserialize_from_str(&std::fs::read_to_string(fx.path("junit.xml")).unwrap())
            .unwrap();
    let mut seen: Vec<(String, Option<bool>)> = report
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter())
        .map(|c| {
            let verdict = match c.status {
                TestCaseStatus::Success { .. } => Some(true),
                TestCaseStatus::Skipped { .. } => None,
                TestCaseStatus::NonSuccess { .. } => Some(false),
            };
            (c.name.as_str().to_owned(), verdict)
        })
        .collect();
    seen.sort();
    let want: Vec<(String, Option<bool>)> =
        VERDICTS.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    assert_eq!(seen, want);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(fx.path("report.json")).unwrap()).unwrap();
    assert_eq!(json["summary"]["ignored"], 3);
    assert_eq!(json["summary"]["cases"], 15);
}

/// The pages hold only the tests that failed or repeated, but what every passing test says of
/// its baseline still reaches them: an improvement, a new test, and that every test is within
/// its baseline's tolerance.
#[test]
fn the_pages_say_what_passing_tests_say_of_their_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let suite = "baseline: baseline.json\ndefaults:\n  thresholds: { min_exact_match: 0.5 }\n";
    support::write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", suite),
            (
                "cases/a.yaml",
                "prediction: out/a.json\ngold:\n  total: \"12.50\"\n  vendor: ACME\n",
            ),
            (
                "cases/out/a.json",
                r#"{"total": "12.50", "vendor": "ACME"}"#,
            ),
            (
                "cases/b.yaml",
                "prediction: out/b.json\ngold:\n  total: \"9.00\"\n",
            ),
            ("cases/out/b.json", r#"{"total": "9.00"}"#),
            (
                "cases/baseline.json",
                r#"{"goldgate_baseline": 1, "cases": {"a": {"exact_match": 0.5}}}"#,
            ),
        ],
    );
    let run = |args: &[&str]| {
        let out = support::command(dir.path(), args)
            .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    };
    run(&[
        "test",
        "cases",
        "--html",
        "page.html",
        "--report",
        "report.json",
    ]);
    let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    assert!(
        html.contains("<p>improved:</p>\n<ul class=\"added\">\n<li>a: exact_match 0.5000 -&gt; 1.0000</li>\n</ul>\n<p>new, not in the baseline yet: b</p>"),
        "{html}"
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "### Improvements beyond the tolerance\n\n- a: exact_match 0.5000 -> 1.0000\n"
        ),
        "{summary}"
    );
    // The same page from the saved report.
    run(&["report", "report.json", "--html", "again.html"]);
    let again = std::fs::read_to_string(dir.path().join("again.html")).unwrap();
    assert_eq!(again, html);
    // Both within the baseline: no test is shown or listed, and the page says the baseline held.
    support::write_files(
        dir.path(),
        &[(
            "cases/baseline.json",
            r#"{"goldgate_baseline": 1, "cases": {"a": {"exact_match": 1.0}, "b": {"exact_match": 1.0}}}"#,
        )],
    );
    run(&["test", "cases", "--html", "page.html"]);
    let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    assert!(
        html.contains("<h2>Regressions and improvements</h2>\n<p class=\"none\">None beyond the baselines' tolerance.</p>"),
        "{html}"
    );
}
