//! One run, any number of processes (SPEC §10): the `goldgate` binary run the way cargo-nextest
//! runs a test target (one process per test, several at once, sharing a run id), in shards merged
//! by `goldgate report`, in concurrent blessings, under `goldgate lint`, in two crates sharing
//! one run id (a nextest workspace run), and under a real `cargo nextest run` in a scratch crate.
//!
//! The fixture (`tests/fixtures/processes/cases`) holds a recorded suite, `invoices/` (two
//! pipelines, a baseline, an aggregate per pipeline, 4 cases), and a live suite, `live/` (a `run:`
//! command per case and pipeline, 3 cases, an aggregate per pipeline). The command, `extract.sh`,
//! appends `PIPELINE CASE` to the file named by `PROCESSES_COUNTER` each time it runs, so a test
//! can count its calls. Verdicts are mixed: some cases and one aggregate per suite fail.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

#[path = "support/e2e.rs"]
mod e2e;
mod support;

/// Every case test of the fixture and whether it passes.
const CASES: [(&str, bool); 14] = [
    ("invoices/acme::all_in_one", false),
    ("invoices/acme::guided", true),
    ("invoices/beta::all_in_one", true),
    ("invoices/beta::guided", true),
    ("invoices/delta::all_in_one", true),
    ("invoices/delta::guided", false),
    ("invoices/gamma::all_in_one", false),
    ("invoices/gamma::guided", true),
    ("live/credit::careful", true),
    ("live/credit::fast", false),
    ("live/paid::careful", true),
    ("live/paid::fast", true),
    ("live/unpaid::careful", true),
    ("live/unpaid::fast", true),
];

/// Every aggregate test of the fixture and whether it passes.
const AGGREGATES: [(&str, bool); 4] = [
    ("invoices::aggregate::all_in_one", false),
    ("invoices::aggregate::guided", true),
    ("live::aggregate::careful", true),
    ("live::aggregate::fast", false),
];

/// The suite whose cases are baselined, and the prefix of their test names.
const BASELINED: &str = "invoices/";

/// The variable `extract.sh` reads: the file it appends its arguments to.
const COUNTER_VAR: &str = "PROCESSES_COUNTER";

const EMPTY_BASELINE: &str = "{\"goldgate_baseline\": 1, \"cases\": {}}\n";

// ---- the fixture ---------------------------------------------------------------------------

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/processes")
}

/// Copies the folder `from` to `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the fixture's `cases` folder in a fresh temporary folder, which also holds the
/// counter file, reports and anything else a test writes.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&fixtures().join("cases"), &dir.path().join("cases"));
        Fixture { dir }
    }

    /// A fixture in a crate of its own (a folder with `Cargo.toml`) inside `parent`.
    fn crate_in(parent: &Path) -> Fixture {
        let dir = tempfile::tempdir_in(parent).unwrap();
        copy_dir(&fixtures().join("cases"), &dir.path().join("cases"));
        fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"member\"\n",
        )
        .unwrap();
        Fixture { dir }
    }

    /// A path in the temporary folder.
    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// The file the live command appends `PIPELINE CASE` to.
    fn counter(&self) -> PathBuf {
        self.path("counter.txt")
    }

    fn baseline(&self) -> PathBuf {
        self.path("cases/invoices/baseline.json")
    }

    /// `goldgate ARGS` in the temporary folder, with a clean environment and the counter set.
    fn goldgate(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
        cmd.args(args)
            .current_dir(self.dir.path())
            .env(COUNTER_VAR, self.counter());
        clean_env(&mut cmd);
        cmd
    }

    /// `goldgate test cases ARGS`.
    fn test(&self, args: &[&str]) -> Command {
        let mut all = vec!["test", "cases"];
        all.extend_from_slice(args);
        self.goldgate(&all)
    }

    /// The end step of a split run: `goldgate report --run ID` writes the run's files (those its
    /// processes were asked for) from its journal.
    fn end_run(&self, id: &str) -> Output {
        let out = run(&mut self.goldgate(&["report", "--run", id]));
        assert!(out.status.success(), "{}", text(&out));
        out
    }

    /// The test names `goldgate test cases --list --format terse` prints, as nextest reads them.
    fn list(&self) -> Vec<String> {
        let out = run(&mut self.test(&["--list", "--format", "terse"]));
        assert!(out.status.success(), "{}", text(&out));
        stdout(&out)
            .lines()
            .map(|l| {
                l.strip_suffix(": test")
                    .unwrap_or_else(|| panic!("not a terse test line: {l:?}"))
                    .to_owned()
            })
            .collect()
    }
}

/// Colour off, and none of the outer environment's goldgate or nextest settings: a test of this
/// file may itself run under nextest (`NEXTEST_RUN_ID`) or in CI (`GITHUB_STEP_SUMMARY`).
fn clean_env(cmd: &mut Command) {
    support::clear_run_settings(cmd);
    cmd.env("NO_COLOR", "1").env("CARGO_TERM_COLOR", "never");
}

/// A run id no other test or earlier run uses (command outputs are shared by run id).
fn run_id(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("processes-{label}-{}-{nanos}", std::process::id())
}

// ---- running processes ---------------------------------------------------------------------

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Both outputs, for assertion messages.
fn text(o: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        stdout(o),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `command(name)` for every name, `workers` processes at a time; the outputs by name.
fn run_each(
    names: &[String],
    workers: usize,
    command: impl Fn(&str) -> Command + Sync,
) -> BTreeMap<String, Output> {
    let next = AtomicUsize::new(0);
    let outputs = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(name) = names.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let out = run(&mut command(name));
                    outputs.lock().unwrap().insert(name.clone(), out);
                }
            });
        }
    });
    outputs.into_inner().unwrap()
}

/// Asserts that a `--exact NAME` process ran that one test, with its expected verdict and exit code.
fn assert_ran_alone(name: &str, out: &Output) {
    let passes = expected_verdicts()[name];
    let verdict = if passes { "ok" } else { "FAILED" };
    let all = stdout(out);
    assert!(all.contains("\nrunning 1 test\n"), "{name}:\n{}", text(out));
    assert!(
        all.contains(&format!("\ntest {name} ... {verdict}\n")),
        "{name}:\n{}",
        text(out)
    );
    assert_eq!(
        out.status.code(),
        Some(if passes { 0 } else { 101 }),
        "{name}:\n{}",
        text(out)
    );
}

// ---- what the fixture should give ----------------------------------------------------------

/// Every test name, sorted as `--list` prints them.
fn all_tests() -> Vec<String> {
    let mut names: Vec<String> = CASES
        .iter()
        .chain(&AGGREGATES)
        .map(|(n, _)| n.to_string())
        .collect();
    names.sort();
    names
}

fn case_tests() -> Vec<String> {
    CASES.iter().map(|(n, _)| n.to_string()).collect()
}

fn aggregate_tests() -> Vec<String> {
    AGGREGATES.iter().map(|(n, _)| n.to_string()).collect()
}

/// Every test's verdict (`passed`), cases and aggregates.
fn expected_verdicts() -> BTreeMap<String, bool> {
    CASES
        .iter()
        .chain(&AGGREGATES)
        .map(|(n, p)| (n.to_string(), *p))
        .collect()
}

/// The baseline keys of the baselined suite: test names relative to the suite's folder.
fn baseline_keys() -> Vec<String> {
    CASES
        .iter()
        .filter_map(|(n, _)| n.strip_prefix(BASELINED))
        .map(str::to_owned)
        .collect()
}

/// `PIPELINE CASE` once per live case and pipeline, sorted.
fn one_call_each() -> Vec<String> {
    let mut calls: Vec<String> = CASES
        .iter()
        .filter_map(|(n, _)| n.strip_prefix("live/"))
        .map(|n| {
            let (case, pipeline) = n.split_once("::").unwrap();
            format!("{pipeline} {case}")
        })
        .collect();
    calls.sort();
    calls
}

// ---- reading what a run wrote --------------------------------------------------------------

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("`{}` is not JSON: {e}\n{text}", path.display()))
}

/// The `id` of every entry of a report's `cases` or `aggregates`, in the report's order.
fn ids(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("the report has no `{key}` list:\n{report:#}"))
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `passed` of every case and aggregate test of a report, by name.
fn verdicts(report: &Value) -> BTreeMap<String, bool> {
    ["cases", "aggregates"]
        .iter()
        .flat_map(|key| report[*key].as_array().unwrap())
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_owned(),
                t["passed"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The entry names of a baseline file.
fn baseline_entries(path: &Path) -> Vec<String> {
    let json = read_json(path);
    json["cases"]
        .as_object()
        .unwrap_or_else(|| panic!("no `cases` in the baseline:\n{json:#}"))
        .keys()
        .cloned()
        .collect()
}

/// The live command's calls, sorted; none when it never ran.
fn calls(counter: &Path) -> Vec<String> {
    let mut lines: Vec<String> = match fs::read_to_string(counter) {
        Ok(text) => text.lines().map(str::to_owned).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("cannot read `{}`: {e}", counter.display()),
    };
    lines.sort();
    lines
}

/// The end of a run as printed: its summary line, and the comparison table that follows it.
fn run_end(out: &str) -> (String, Vec<String>) {
    let mut lines = out.lines().skip_while(|l| !l.starts_with("goldgate: "));
    let summary = lines
        .next()
        .unwrap_or_else(|| panic!("no summary line in:\n{out}"))
        .to_owned();
    // The table's rows hold no `:`; the notes after it (`new, not in the baseline yet: …`) do.
    let table = lines
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.contains(':'))
        .map(str::to_owned)
        .collect();
    (summary, table)
}

// ---- the tests -----------------------------------------------------------------------------

/// nextest's way, by hand: the list, then one `--exact` process per test, four at a time, all of
/// one run. Nothing is lost: the report holds every test, the baseline every entry, and each live
/// command ran once per case and pipeline, the aggregates reading what the case tests produced.
#[test]
fn processes_of_one_run_lose_nothing() {
    let fx = Fixture::new();
    let names = fx.list();
    assert_eq!(names, all_tests());

    let id = run_id("one-run");
    let report = fx.path("report.json");
    let outputs = run_each(&names, 4, |name| {
        let mut cmd = fx.test(&["--exact", name, "--nocapture"]);
        cmd.env("GOLDGATE_RUN_ID", &id)
            .env("GOLDGATE_REPORT", &report)
            .env("GOLDGATE_UPDATE", "always");
        cmd
    });
    assert_eq!(outputs.len(), names.len());
    // No process of a split run writes the run's files: the end step does, once.
    assert!(
        !report.exists(),
        "a process of the split run wrote the report"
    );
    fx.end_run(&id);
    for (name, out) in &outputs {
        assert_ran_alone(name, out);
        // Each case test of the baselined suite blesses its own entry (aggregates are
        // `invoices::aggregate::…`, outside the prefix).
        if name.starts_with(BASELINED) {
            assert!(
                stdout(out).contains(": 1 entries, 1 new, 0 changed, "),
                "{name} blessed nothing:\n{}",
                text(out)
            );
        }
    }

    let r = read_json(&report);
    assert_eq!(ids(&r, "cases"), case_tests());
    assert_eq!(ids(&r, "aggregates"), aggregate_tests());
    assert_eq!(verdicts(&r), expected_verdicts());
    assert_eq!(r["summary"]["cases"], 14);
    assert_eq!(r["summary"]["passed"], 10);
    assert_eq!(r["summary"]["failed"], 4);
    assert_eq!(baseline_entries(&fx.baseline()), baseline_keys());
    assert_eq!(calls(&fx.counter()), one_call_each());

    // The same fixture in one process, a run of its own: the same tests and verdicts, and the
    // same baseline (it rewrites every entry and changes none).
    let blessed = fs::read_to_string(fx.baseline()).unwrap();
    let single = fx.path("single.json");
    let counter = fx.path("single-counter.txt");
    let out = run(fx
        .test(&["--report", single.to_str().unwrap()])
        .env("GOLDGATE_UPDATE", "always")
        .env(COUNTER_VAR, &counter));
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(
        stdout(&out).contains(
            "\nbaseline: cases/invoices/baseline.json: 8 entries, 0 new, 0 changed, 3 of failed tests; 8 in the file\n"
        ),
        "{}",
        text(&out)
    );
    assert_eq!(fs::read_to_string(fx.baseline()).unwrap(), blessed);
    let s = read_json(&single);
    assert_eq!(ids(&s, "cases"), ids(&r, "cases"));
    assert_eq!(ids(&s, "aggregates"), ids(&r, "aggregates"));
    assert_eq!(verdicts(&s), verdicts(&r));
    // The same summary, but for the calls: the split run made each (once), and the single run
    // took every output from the cache the split run kept, calling nothing.
    let (mut split_summary, mut single_summary) = (r["summary"].clone(), s["summary"].clone());
    let calls_of = |summary: &mut Value| summary.as_object_mut().unwrap().remove("calls");
    let made = one_call_each().len();
    assert_eq!(calls_of(&mut split_summary).unwrap()["called"], made);
    let kept = calls_of(&mut single_summary).unwrap();
    assert_eq!(
        (&kept["called"], &kept["cached"]),
        (&0.into(), &made.into())
    );
    assert_eq!(single_summary, split_summary);
    assert_eq!(calls(&counter), Vec::<String>::new());
}

/// The shipped gold set, one process per test as nextest runs it, gives the report one process
/// gives: every case and aggregate, with the same findings. Its rubrics hold floats inside tagged
/// findings (`min_anls`), which a record must read back as written; once they did not, and the
/// split run's report lost 24 of its 36 case tests without a word.
#[test]
fn the_shipped_gold_set_split_by_test_reports_what_one_process_reports() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"),
        &dir.path().join("cases"),
    );
    let goldgate = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
        cmd.args(args).current_dir(dir.path());
        clean_env(&mut cmd);
        cmd.env("GOLDGATE_UPDATE", "no");
        cmd
    };
    let listed = run(&mut goldgate(&[
        "test", "cases", "--list", "--format", "terse",
    ]));
    let names: Vec<String> = stdout(&listed)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 40, "{}", text(&listed));

    let id = run_id("gold-set");
    let split = dir.path().join("split.json");
    run_each(&names, 2, |name| {
        let mut cmd = goldgate(&["test", "cases", "--exact", name]);
        cmd.env("GOLDGATE_RUN_ID", &id)
            .env("GOLDGATE_REPORT", &split);
        cmd
    });
    let ended = run(&mut goldgate(&["report", "--run", &id]));
    assert!(ended.status.success(), "{}", text(&ended));
    let single = dir.path().join("single.json");
    run(&mut goldgate(&[
        "test",
        "cases",
        "--report",
        single.to_str().unwrap(),
    ]));

    let (split, single) = (read_json(&split), read_json(&single));
    // The gold set's digest, over every test's: the same whichever way the run went.
    let digest = single["gold_digest"].as_str().unwrap_or_default();
    assert_eq!(digest.len(), 64, "{}", single["gold_digest"]);
    assert_eq!(split["gold_digest"], single["gold_digest"]);
    let cases = ids(&single, "cases");
    assert!(cases.len() >= 35, "{cases:?}");
    assert_eq!(ids(&split, "cases"), cases);
    assert_eq!(ids(&split, "aggregates"), ids(&single, "aggregates"));
    assert_eq!(verdicts(&split), verdicts(&single));
    // The recorded cases, whole (a live case's latency is measured anew by each run).
    let recorded = |r: &Value| -> Vec<Value> {
        r["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| !c["id"].as_str().unwrap().starts_with("live/"))
            .cloned()
            .collect()
    };
    let floats = recorded(&single)
        .iter()
        .flat_map(|c| c["rubrics"].as_array().into_iter().flatten())
        .filter(|r| r.to_string().contains("\"anls\""))
        .count();
    assert!(
        floats > 0,
        "no finding holds an ANLS: the test checks nothing"
    );
    assert_eq!(recorded(&split), recorded(&single));
}

/// A report left by another run is replaced; the end step of a run writes every test its
/// processes ran so far; without a run id each process is a run of its own.
#[test]
fn a_new_run_replaces_the_report() {
    let fx = Fixture::new();
    let report = fx.path("report.json");
    let with_run = |id: &str, args: &[&str]| {
        let mut cmd = fx.test(args);
        cmd.env("GOLDGATE_REPORT", &report);
        if !id.is_empty() {
            cmd.env("GOLDGATE_RUN_ID", id);
        }
        run(&mut cmd)
    };

    let a = run_id("a");
    let out = with_run(&a, &[]);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(
        !report.exists(),
        "a process of a run with an id wrote the report"
    );
    fx.end_run(&a);
    let r = read_json(&report);
    assert_eq!(ids(&r, "cases"), case_tests());
    assert_eq!(ids(&r, "aggregates"), aggregate_tests());

    let b = run_id("b");
    assert_ran_alone(
        "invoices/beta::guided",
        &with_run(&b, &["--exact", "invoices/beta::guided"]),
    );
    fx.end_run(&b);
    let r = read_json(&report);
    assert_eq!(ids(&r, "cases"), ["invoices/beta::guided"]);
    assert_eq!(ids(&r, "aggregates"), Vec::<String>::new());
    assert_eq!(r["summary"]["cases"], 1);
    assert_eq!(r["summary"]["passed"], 1);

    // A second process of run B adds to B's records.
    assert_ran_alone(
        "live::aggregate::fast",
        &with_run(&b, &["--exact", "live::aggregate::fast"]),
    );
    let out = fx.end_run(&b);
    assert!(
        stdout(&out).contains("aggregate live::aggregate::fast: FAILED\n"),
        "{}",
        text(&out)
    );
    let r = read_json(&report);
    assert_eq!(ids(&r, "cases"), ["invoices/beta::guided"]);
    assert_eq!(ids(&r, "aggregates"), ["live::aggregate::fast"]);

    // Without a run id, each process replaces the report.
    for name in ["invoices/gamma::guided", "live/credit::fast"] {
        assert_ran_alone(name, &with_run("", &["--exact", name]));
        let r = read_json(&report);
        assert_eq!(ids(&r, "cases"), [name]);
        assert_eq!(ids(&r, "aggregates"), Vec::<String>::new());
    }
}

/// Two shards of a run (disjoint, one process per test, each shard its own run id and
/// report) merged by `goldgate report -o` give the report of one process running everything,
/// byte for byte (recorded predictions only, so that no latency is measured).
#[test]
fn two_shards_merged_equal_one_run() {
    let fx = Fixture::new();
    fs::remove_dir_all(fx.path("cases/live")).unwrap();
    let names = fx.list();
    let recorded: Vec<String> = all_tests()
        .into_iter()
        .filter(|n| n.starts_with("invoices"))
        .collect();
    assert_eq!(names, recorded);

    let one = fx.path("one.json");
    let whole = run(&mut fx.test(&["--report", one.to_str().unwrap()]));
    assert_eq!(whole.status.code(), Some(101), "{}", text(&whole));

    // Every third test in one shard, the rest in the other: each shard holds both pipelines, and
    // an aggregate apart from most of its cases.
    let mut shards = [Vec::new(), Vec::new()];
    for (i, name) in names.iter().enumerate() {
        shards[usize::from(i % 3 != 0)].push(name.clone());
    }
    for (k, shard) in shards.iter().enumerate() {
        let id = run_id(&format!("shard-{k}"));
        let file = fx.path(&format!("shard-{k}.json"));
        let outputs = run_each(shard, 3, |name| {
            let mut cmd = fx.test(&["--exact", name]);
            cmd.env("GOLDGATE_RUN_ID", &id)
                .env("GOLDGATE_REPORT", &file);
            cmd
        });
        for (name, out) in &outputs {
            assert_ran_alone(name, out);
        }
        fx.end_run(&id);
        let ran: Vec<String> = {
            let r = read_json(&file);
            let mut all = ids(&r, "cases");
            all.extend(ids(&r, "aggregates"));
            all.sort();
            all
        };
        assert_eq!(&ran, shard);
    }

    let merged = fx.path("merged.json");
    let out = run(&mut fx.goldgate(&[
        "report",
        "shard-0.json",
        "shard-1.json",
        "-o",
        "merged.json",
    ]));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read_json(&merged), read_json(&one));
    assert_eq!(
        fs::read_to_string(&merged).unwrap(),
        fs::read_to_string(&one).unwrap()
    );

    // What `goldgate report` prints is the end of the one-process run.
    let printed = stdout(&out);
    let (summary, table) = run_end(&stdout(&whole));
    assert_eq!(
        summary,
        "goldgate: 8 cases, 5 passed, 3 failed, 0 ignored; mean EM 0.7917, ANLS 0.9285, \
         critical EM 0.6250, critical ANLS 0.8187; Brier 0.0962, ECE 0.0858"
    );
    assert_eq!(
        table,
        [
            "pipeline    cases       EM     ANLS  crit.EM   c.ANLS    Brier      ECE   p50 ms   p95 ms   pass     gate    score   MR acc",
            "all_in_one      4   0.7500   0.9458   0.5000   0.8875        -        -      420      451    50%   0.5000   0.5000   0.5000",
            "guided          4   0.8333   0.9111   0.7500   0.7500   0.0962   0.0858      905     1118    75%   0.7500   0.7500   0.7500",
        ]
    );
    assert_eq!(run_end(&printed), (summary, table));
    for line in [
        "aggregate invoices::aggregate::all_in_one: FAILED\n",
        "aggregate invoices::aggregate::guided: passed\n",
        "report: `merged.json`: 8 case tests from 2 files\n",
    ] {
        assert!(printed.contains(line), "no {line:?} in:\n{printed}");
    }
}

/// Two processes blessing disjoint halves of one baseline at the same time: every entry of both
/// halves is in the file, every time.
#[test]
fn concurrent_blessings_keep_every_entry() {
    let fx = Fixture::new();
    let halves = ["::guided", "::all_in_one"];
    for round in 0..5 {
        fs::write(fx.baseline(), EMPTY_BASELINE).unwrap();
        let children: Vec<_> = halves
            .iter()
            .map(|half| {
                fx.test(&[half, "--skip", "aggregate"])
                    .env("GOLDGATE_UPDATE", "always")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut written = Vec::new();
        for child in children {
            let out = child.wait_with_output().unwrap();
            // Each half holds a failing case.
            assert_eq!(
                out.status.code(),
                Some(101),
                "round {round}:\n{}",
                text(&out)
            );
            let all = stdout(&out);
            assert!(all.contains("\nrunning 4 tests\n"), "round {round}:\n{all}");
            let line = all
                .lines()
                .find(|l| l.starts_with("baseline: cases/invoices/baseline.json: "))
                .unwrap_or_else(|| panic!("round {round}: no baseline line in:\n{all}"));
            let entries: usize = line
                .rsplit("; ")
                .next()
                .and_then(|s| s.strip_suffix(" in the file"))
                .unwrap_or_else(|| panic!("round {round}: {line}"))
                .parse()
                .unwrap();
            written.push(entries);
        }
        written.sort();
        // One wrote first (its 4 entries), the other after it (all 8).
        assert_eq!(written, [4, 8], "round {round}");
        assert_eq!(
            baseline_entries(&fx.baseline()),
            baseline_keys(),
            "round {round}"
        );
    }
}

/// `goldgate lint` checks the `run:` commands without starting one: the live command's counter
/// never appears, even when another suite's program does not exist (an error naming it).
#[test]
fn lint_runs_nothing() {
    let fx = Fixture::new();
    let out = run(&mut fx.goldgate(&["lint", "cases"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let printed = stdout(&out);
    assert!(
        printed.lines().all(|l| !l.starts_with("error")),
        "{printed}"
    );
    assert!(printed.trim_end().ends_with(", 0 errors"), "{printed}");
    assert!(!fx.counter().exists(), "lint ran the live command");

    copy_dir(&fixtures().join("broken"), &fx.path("cases/broken"));
    let out = run(&mut fx.goldgate(&["lint", "cases"]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let printed = stdout(&out);
    let errors: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{printed}");
    assert!(
        errors[0].starts_with("error: cases/broken/suite.yaml:3:"),
        "{printed}"
    );
    assert!(
        errors[0].contains(
            "`goldgate-no-such-extractor` is neither a file under `cases/broken` nor a program on the PATH"
        ),
        "{printed}"
    );
    assert!(printed.trim_end().ends_with(", 1 error"), "{printed}");
    assert!(!fx.counter().exists(), "lint ran the live command");

    // The counter does show a command that runs.
    let out = run(&mut fx.test(&["--exact", "live/paid::fast"]));
    assert_ran_alone("live/paid::fast", &out);
    assert_eq!(calls(&fx.counter()), ["fast paid"]);
}

/// One run over two crates, as `cargo nextest run --workspace` gives: one `NEXTEST_RUN_ID`, each
/// test binary in its own crate folder, each crate with its own `cases/live` and `extract.sh`. The
/// commands of one crate are not the other's: each crate's command runs, and its output is the one
/// scored; the end step at the workspace's root reads both crates' records.
#[test]
fn one_run_over_two_crates_runs_each_crates_commands() {
    // The workspace's root is a crate too; the second crate is its member.
    let first = Fixture::new();
    fs::write(first.path("Cargo.toml"), "[workspace]\nmembers = [\"*\"]\n").unwrap();
    let second = Fixture::crate_in(first.dir.path());
    // The second crate's extraction reads the credit note differently, so its case fails.
    let script = second.path("cases/live/extract.sh");
    let original = fs::read_to_string(&script).unwrap();
    fs::write(
        &script,
        original.replace("status=credited", "status=refunded"),
    )
    .unwrap();

    let id = run_id("workspace");
    let name = "live/credit::careful";
    let mut outputs = Vec::new();
    for fx in [&first, &second] {
        let out = run(fx
            .test(&["--exact", name, "--nocapture"])
            .env("GOLDGATE_RUN_ID", &id)
            .env("GOLDGATE_REPORT", fx.path("report.json")));
        outputs.push(out);
    }
    assert_ran_alone(name, &outputs[0]);
    assert_eq!(calls(&first.counter()), ["careful credit"]);
    assert_eq!(
        calls(&second.counter()),
        ["careful credit"],
        "the second crate's command did not run: it was given the first crate's output"
    );
    // The run's journal keeps both crates' tests, though they share a name.
    first.end_run(&id);
    let report = read_json(&first.path("report.json"));
    assert_eq!(ids(&report, "cases"), [name, name]);
    let predicted: BTreeSet<String> = (0..2)
        .map(|i| {
            let status = &report["cases"][i]["fields"][1];
            assert_eq!(status["name"], "status");
            status["prediction"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        predicted,
        BTreeSet::from(["credited".to_owned(), "refunded".to_owned()])
    );
    assert_eq!(outputs[1].status.code(), Some(101), "{}", text(&outputs[1]));
}

/// Two projects on one machine, run under one run id (two CI jobs with `GOLDGATE_RUN_ID=ci`):
/// each project's `goldgate report --run ci` and `--last` read its own tests alone, and a run of
/// the other, newer, changes nothing of what they read.
#[test]
fn two_projects_under_one_run_id_read_their_own_runs() {
    let (ours, theirs) = (Fixture::new(), Fixture::new());
    for fx in [&ours, &theirs] {
        fs::write(fx.path("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    }
    let id = run_id("shared-id");
    let ran = |fx: &Fixture, test: &str| {
        run(fx
            .test(&["--exact", test])
            .env("GOLDGATE_RUN_ID", &id)
            .env("GOLDGATE_REPORT", fx.path("report.json")));
    };
    ran(&ours, "live/credit::careful");
    ran(&theirs, "live/credit::fast");
    for args in [
        vec!["report", "--run", id.as_str()],
        vec!["report", "--last"],
    ] {
        let out = run(&mut ours.goldgate(&args));
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(
            ids(&read_json(&ours.path("report.json")), "cases"),
            ["live/credit::careful"],
            "{args:?} read another project's run"
        );
    }
    // A newer run elsewhere, under another id: `--last` here is still this project's.
    run(theirs
        .test(&["--exact", "live/credit::careful"])
        .env("GOLDGATE_RUN_ID", run_id("newer")));
    let out = run(&mut ours.goldgate(&["report", "--last"]));
    assert!(
        stdout(&out).contains(&format!("of the run `{id}`")),
        "{}",
        text(&out)
    );
}

/// `cargo goldgate test` with a `cargo` that runs `goldgate test cases ARGS` in one process (as
/// `cargo test` runs a harness target): the end of the run is printed once, by the end step, from
/// the records, not by the process too.
#[cfg(unix)]
#[test]
fn cargo_goldgate_test_prints_the_end_of_the_run_once() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let cargo = fx.path("cargo.sh");
    fs::write(
        &cargo,
        format!(
            "#!/bin/sh\nshift\nexec '{}' test cases \"$@\"\n",
            env!("CARGO_BIN_EXE_goldgate")
        ),
    )
    .unwrap();
    fs::set_permissions(&cargo, fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"));
    cmd.args(["goldgate", "test", "--", "--skip", "live/"])
        .current_dir(fx.dir.path())
        .env(COUNTER_VAR, fx.counter());
    clean_env(&mut cmd);
    cmd.env("CARGO", &cargo);
    let out = run(&mut cmd);
    let ends = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("goldgate: "))
        .count();
    assert_eq!(ends, 1, "{}", text(&out));
}

/// `cargo goldgate --help` and `cargo goldgate help` print the usage and succeed; an unknown
/// command is a usage error.
#[test]
fn cargo_goldgate_help_is_not_an_unknown_command() {
    for args in [
        &["goldgate", "--help"][..],
        &["goldgate", "help"],
        &["goldgate", "test", "-h"],
    ] {
        let out = run(Command::new(env!("CARGO_BIN_EXE_cargo-goldgate")).args(args));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        assert!(
            stdout(&out).starts_with("Usage: cargo goldgate test"),
            "{}",
            text(&out)
        );
    }
    let out = run(Command::new(env!("CARGO_BIN_EXE_cargo-goldgate")).args(["goldgate", "tset"]));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// A split run that stopped at its first failure, as nextest does without `--no-fail-fast`: the
/// runner lists every test under the run id, then runs them one process each and stops. The end
/// step says how many tests never ran (its text, the report, the step summary) and fails; a run
/// whose listed tests all ran says nothing of the kind.
#[test]
fn a_split_run_that_stopped_early_says_which_tests_never_ran() {
    let fx = Fixture::new();
    let id = run_id("fail-fast");
    let listing = run(fx
        .test(&["--list", "--format", "terse"])
        .env("GOLDGATE_RUN_ID", &id));
    assert!(listing.status.success(), "{}", text(&listing));
    // In name order, up to the first failure: `invoices/acme::all_in_one` fails first.
    let summary = fx.path("summary.md");
    let ran = run(fx
        .test(&["--exact", "invoices/acme::all_in_one"])
        .env("GOLDGATE_RUN_ID", &id)
        .env("GITHUB_STEP_SUMMARY", &summary));
    assert_eq!(ran.status.code(), Some(101), "{}", text(&ran));
    let out = run(&mut fx.goldgate(&["report", "--run", &id, "--output", "report.json"]));
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    let line = "17 tests of this run never ran (nextest stopped at the first failure: pass --no-fail-fast): `invoices/acme::guided` and 16 more";
    assert!(stdout(&out).contains(line), "{}", text(&out));
    let report = read_json(&fx.path("report.json"));
    let never: Vec<&str> = report["summary"]["never_ran"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"))
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(never.len(), 17);
    assert_eq!(
        never[..2],
        ["invoices/acme::guided", "invoices/beta::all_in_one"]
    );
    assert!(never.contains(&"live::aggregate::fast"));
    let page = fs::read_to_string(&summary).unwrap_or_default();
    assert!(page.contains("17 tests of this run never ran"), "{page}");

    // Every listed test ran: nothing said, and the end step's exit is the verdicts' own.
    let whole = run_id("whole");
    run(fx
        .test(&["--list", "--format", "terse"])
        .env("GOLDGATE_RUN_ID", &whole));
    run(fx.test(&["--skip", "live/"]).env("GOLDGATE_RUN_ID", &whole));
    run(fx.test(&["live/"]).env("GOLDGATE_RUN_ID", &whole));
    let out = run(&mut fx.goldgate(&["report", "--run", &whole]));
    assert!(!stdout(&out).contains("never ran"), "{}", text(&out));
}

/// `cargo nextest`, which the tests of a nextest run need.
fn require_nextest(cargo: &std::ffi::OsStr) {
    let found = Command::new(cargo)
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`cargo nextest` runs the tests of this one: install cargo-nextest (`cargo install cargo-nextest --locked`)"
    );
}

/// A crate set up as a user's: `cases/` from the fixture, `tests/goldgate.rs` with the harness,
/// goldgate as a path dev-dependency, goldgate's own lock file.
fn scratch_crate(dir: &Path) {
    let goldgate = env!("CARGO_MANIFEST_DIR");
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"nextest-e2e\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dev-dependencies]\ngoldgate = {{ path = {goldgate:?} }}\n\n\
             [[test]]\nname = \"goldgate\"\nharness = false\n"
        ),
    )
    .unwrap();
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("src/lib.rs"), "").unwrap();
    fs::create_dir_all(dir.join("tests")).unwrap();
    fs::write(
        dir.join("tests/goldgate.rs"),
        "fn main() -> std::process::ExitCode {\n    goldgate::Harness::new(\"cases\").run()\n}\n",
    )
    .unwrap();
    fs::copy(
        Path::new(goldgate).join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    copy_dir(&fixtures().join("cases"), &dir.join("cases"));
}

/// `cargo goldgate test --nextest -- ARGS` in `krate` (`cargo nextest run ARGS` under one run
/// id, then the run's files written once), the build shared with earlier runs.
fn nextest(cargo: &std::ffi::OsStr, krate: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"));
    cmd.args([
        "goldgate",
        "test",
        "--nextest",
        "--",
        "--offline",
        "--no-fail-fast",
    ])
    .args(args)
    .current_dir(krate);
    clean_env(&mut cmd);
    cmd.env("CARGO", cargo);
    cmd.env("CARGO_TARGET_DIR", e2e::target());
    // Runs compared with one another make every call each: a kept output would make the second
    // run's calls differ from the first's (the cache has its own tests, tests/cache.rs).
    cmd.env("GOLDGATE_CACHE", "off");
    cmd
}

/// The real thing: `cargo nextest run` (one process per test) in a crate set up as a user's,
/// then two `--partition hash:k/2` shards merged by `goldgate report`.
///
/// Slow the first time (it builds goldgate in a target folder under this one's `tmp`, reused
/// by later runs). Nextest exits non-zero here: the fixture has failing tests.
#[test]
#[ignore = "builds whole crates under cargo-nextest (minutes of CPU); .ci/run runs the ignored tests"]
fn under_cargo_nextest() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    require_nextest(&cargo);
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("crate");
    scratch_crate(&krate);

    let report = dir.path().join("report.json");
    let counter = dir.path().join("counter.txt");
    let out = run(nextest(&cargo, &krate, &[])
        .env("GOLDGATE_REPORT", &report)
        .env("GOLDGATE_UPDATE", "always")
        .env(COUNTER_VAR, &counter));
    assert!(
        text(&out).contains("18 tests run: 12 passed, 6 failed, 0 skipped"),
        "{}",
        text(&out)
    );
    let whole = read_json(&report);
    assert_eq!(ids(&whole, "cases"), case_tests(), "{}", text(&out));
    assert_eq!(ids(&whole, "aggregates"), aggregate_tests());
    assert_eq!(verdicts(&whole), expected_verdicts());
    assert_eq!(
        baseline_entries(&krate.join("cases/invoices/baseline.json")),
        baseline_keys()
    );
    assert_eq!(calls(&counter), one_call_each());

    // Two shards, each a nextest run of its own, on a fresh copy of the cases.
    fs::remove_dir_all(krate.join("cases")).unwrap();
    copy_dir(&fixtures().join("cases"), &krate.join("cases"));
    let mut shards = Vec::new();
    for k in 1..=2 {
        let file = dir.path().join(format!("shard-{k}.json"));
        let partition = format!("hash:{k}/2");
        let out = run(nextest(&cargo, &krate, &["--partition", &partition])
            .env("GOLDGATE_REPORT", &file)
            .env(COUNTER_VAR, dir.path().join(format!("counter-{k}.txt"))));
        assert!(file.is_file(), "shard {k} wrote no report:\n{}", text(&out));
        let r = read_json(&file);
        let mut ran = ids(&r, "cases");
        ran.extend(ids(&r, "aggregates"));
        shards.push(ran.into_iter().collect::<BTreeSet<String>>());
    }
    assert!(
        shards[0].is_disjoint(&shards[1]),
        "tests in both shards: {:?}",
        shards[0].intersection(&shards[1]).collect::<Vec<_>>()
    );
    let union: Vec<String> = shards[0].union(&shards[1]).cloned().collect();
    assert_eq!(union, all_tests());
    assert_eq!(
        baseline_entries(&krate.join("cases/invoices/baseline.json")),
        Vec::<String>::new(),
        "a run without GOLDGATE_UPDATE wrote the baseline"
    );

    let merged = dir.path().join("merged.json");
    let mut report_cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    report_cmd
        .args([
            "report",
            "shard-1.json",
            "shard-2.json",
            "-o",
            "merged.json",
        ])
        .current_dir(dir.path());
    clean_env(&mut report_cmd);
    let out = run(&mut report_cmd);
    assert!(out.status.success(), "{}", text(&out));
    let merged = read_json(&merged);
    assert_eq!(ids(&merged, "cases"), ids(&whole, "cases"));
    assert_eq!(ids(&merged, "aggregates"), ids(&whole, "aggregates"));
    assert_eq!(verdicts(&merged), verdicts(&whole));
    assert_eq!(merged["summary"], whole["summary"]);

    // The same run through `cargo goldgate test` without `--nextest`: `cargo test`, one process
    // for the target under the wrapper's run id, the files written once at the end.
    fs::remove_dir_all(krate.join("cases")).unwrap();
    copy_dir(&fixtures().join("cases"), &krate.join("cases"));
    let by_cargo_test = dir.path().join("cargo-test.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"));
    cmd.args(["goldgate", "test", "--", "--offline", "--test", "goldgate"])
        .current_dir(&krate);
    clean_env(&mut cmd);
    cmd.env("CARGO", &cargo)
        .env("CARGO_TARGET_DIR", e2e::target())
        .env("GOLDGATE_REPORT", &by_cargo_test)
        .env(COUNTER_VAR, dir.path().join("counter-cargo-test.txt"));
    let out = run(&mut cmd);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(
        stdout(&out).contains(&format!(
            "report: `{}`: 14 case tests of the run `cargo-goldgate-",
            by_cargo_test.display()
        )),
        "{}",
        text(&out)
    );
    let r = read_json(&by_cargo_test);
    assert_eq!(ids(&r, "cases"), case_tests());
    assert_eq!(ids(&r, "aggregates"), aggregate_tests());
    assert_eq!(verdicts(&r), expected_verdicts());
}

/// A report with the latencies taken out, as numbers and in the messages: the fixture's live
/// suite times a real command, which takes as long as it takes.
fn without_latencies(mut report: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|k, _| !k.contains("latency"));
                map.values_mut().for_each(strip);
            }
            Value::String(text) if text.contains("latency p50") => {
                *text = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("latency p50"))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut report);
    report
}

/// Scaling out as the docs show it: the tests built once into a nextest archive, run on two
/// "machines" (two checkouts of the project that hold the cases and no build) with
/// `--workspace-remap` and `--partition count:k/2`, each shard writing its report, then the
/// shards merged by `goldgate report`: equal to one process's report of the same run.
#[test]
#[ignore = "builds whole crates under cargo-nextest (minutes of CPU); .ci/run runs the ignored tests"]
fn an_archive_run_on_two_machines_merges_into_one_run() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    require_nextest(&cargo);
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("crate");
    scratch_crate(&krate);
    let archive = dir.path().join("goldgate-tests.tar.zst");
    let mut build = Command::new(&cargo);
    build
        .args(["nextest", "archive", "--offline", "--archive-file"])
        .arg(&archive)
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", e2e::target());
    clean_env(&mut build);
    let out = run(&mut build);
    assert!(out.status.success(), "{}", text(&out));

    let mut shards = Vec::new();
    for k in 1..=2 {
        // A checkout on another machine: the project's files, no target folder.
        let machine = dir.path().join(format!("machine-{k}"));
        copy_dir(&krate, &machine);
        let shard = dir.path().join(format!("shard-{k}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"));
        cmd.args(["goldgate", "test", "--nextest", "--report"])
            .arg(&shard)
            .args(["--", "--no-fail-fast", "--archive-file"])
            .arg(&archive)
            .arg("--workspace-remap")
            .arg(&machine)
            .args(["--partition", &format!("count:{k}/2")])
            .current_dir(&machine);
        clean_env(&mut cmd);
        cmd.env("CARGO", &cargo)
            .env("GOLDGATE_CACHE", "off")
            .env(COUNTER_VAR, dir.path().join(format!("counter-{k}.txt")));
        let out = run(&mut cmd);
        assert!(
            shard.is_file(),
            "shard {k} wrote no report:\n{}",
            text(&out)
        );
        shards.push(shard);
    }
    let mut merge = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    merge
        .arg("report")
        .args(&shards)
        .args(["-o", "merged.json"])
        .current_dir(dir.path());
    clean_env(&mut merge);
    let out = run(&mut merge);
    assert!(out.status.success(), "{}", text(&out));

    // The same cases in one process.
    let one = dir.path().join("one");
    copy_dir(&krate, &one);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    cmd.args(["test", "cases", "--report", "one.json"])
        .current_dir(&one);
    clean_env(&mut cmd);
    cmd.env("GOLDGATE_CACHE", "off")
        .env(COUNTER_VAR, dir.path().join("counter-one.txt"));
    let out = run(&mut cmd);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));

    let merged = read_json(&dir.path().join("merged.json"));
    assert_eq!(ids(&merged, "cases"), case_tests());
    assert_eq!(ids(&merged, "aggregates"), aggregate_tests());
    assert_eq!(verdicts(&merged), expected_verdicts());
    let pretty = |v: Value| serde_json::to_string_pretty(&without_latencies(v)).unwrap();
    let (merged, one) = (pretty(merged), pretty(read_json(&one.join("one.json"))));
    let differ: Vec<(&str, &str)> = merged
        .lines()
        .zip(one.lines())
        .filter(|(m, o)| m != o)
        .take(10)
        .collect();
    assert!(
        differ.is_empty() && merged.len() == one.len(),
        "merged shards against one process: {differ:#?}"
    );
}

// ---- the run's shared state ----------------------------------------------------------------

/// A project of two cases: `ok` passes; `big` passes with a record of several megabytes (its
/// gold and prediction are twenty long texts), so that its append takes a while.
fn big_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    fs::create_dir_all(&cases).unwrap();
    fs::write(
        cases.join("ok.yaml"),
        "prediction: { total: '12' }\ngold: { total: '12' }\nthresholds: { min_exact_match: 1.0 }\n",
    )
    .unwrap();
    // Twenty fields of 90,000 characters (goldgate compares values up to 100,000).
    let text = "lorem ipsum ".repeat(7_500);
    let gold: String = (0..20).map(|i| format!("  f{i}: '{text}'\n")).collect();
    fs::write(
        cases.join("big.yaml"),
        format!("prediction: big.json\ngold:\n{gold}thresholds: {{ min_exact_match: 1.0 }}\n"),
    )
    .unwrap();
    let predicted: serde_json::Map<String, serde_json::Value> = (0..20)
        .map(|i| (format!("f{i}"), serde_json::json!(text)))
        .collect();
    fs::write(
        cases.join("big.json"),
        serde_json::Value::Object(predicted).to_string(),
    )
    .unwrap();
    dir
}

fn in_project(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    cmd.args(args).current_dir(dir);
    clean_env(&mut cmd);
    cmd
}

/// Processes killed (SIGKILL) at every moment of their run, their appends included, leave the
/// run's journal readable: a later passing test passes, the end step writes a report that reads,
/// holding every test that completed.
#[test]
fn a_process_killed_while_appending_loses_no_completed_test() {
    let dir = big_project();
    let id = run_id("killed");
    let mut finished_big = false;
    // From before the case is read to after its record is appended (about 300 ms in a debug
    // build), in steps of 8 ms: some kills land inside the append.
    for i in 0..32u64 {
        let mut child = in_project(dir.path(), &["test", "cases", "--exact", "big"])
            .env("GOLDGATE_RUN_ID", &id)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20 + 8 * i));
        let _ = child.kill();
        let status = child.wait().unwrap();
        finished_big |= status.code().is_some();
    }
    let ok = run(
        in_project(dir.path(), &["test", "cases", "--exact", "ok"]).env("GOLDGATE_RUN_ID", &id)
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let end = run(&mut in_project(
        dir.path(),
        &["report", "--run", &id, "-o", "report.json"],
    ));
    let report = read_json(&dir.path().join("report.json"));
    let cases = ids(&report, "cases");
    assert!(cases.contains(&"ok".to_owned()), "{cases:?}");
    // A killed process whose test no other process recorded makes the run incomplete.
    if finished_big || cases.contains(&"big".to_owned()) {
        assert!(cases.contains(&"big".to_owned()), "{cases:?}");
        assert!(end.status.success(), "{}", text(&end));
    } else {
        assert_eq!(end.status.code(), Some(101), "{}", text(&end));
        assert!(
            text(&end).contains("INCOMPLETE: the run never ended"),
            "{}",
            text(&end)
        );
    }
}

/// The state folder under TMPDIR is used only when it is this user's own: a link in its place,
/// a folder open to others, or (when the tests run as root) one owned by another user is refused
/// with the fix, and nothing is written through it.
#[test]
fn a_state_folder_that_is_not_the_users_own_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = big_project();
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    let attempt = |tmp: &Path| {
        run(in_project(dir.path(), &["test", "cases", "--exact", "ok"])
            .env("GOLDGATE_RUN_ID", run_id("state"))
            .env("TMPDIR", tmp))
    };
    // A link planted in its place, to a folder of the attacker's.
    let tmp = tempfile::tempdir().unwrap();
    let planted = tmp.path().join("planted");
    fs::create_dir(&planted).unwrap();
    fs::set_permissions(&planted, fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(&planted, tmp.path().join(format!("goldgate-{uid}"))).unwrap();
    let out = attempt(tmp.path());
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(text(&out).contains("is a symbolic link"), "{}", text(&out));
    assert_eq!(
        fs::read_dir(&planted).unwrap().count(),
        0,
        "written through the link"
    );
    // A folder others may write.
    let tmp = tempfile::tempdir().unwrap();
    let open = tmp.path().join(format!("goldgate-{uid}"));
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let out = attempt(tmp.path());
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(text(&out).contains("has mode 777"), "{}", text(&out));
    assert_eq!(fs::read_dir(&open).unwrap().count(), 0);
    // A folder of another user's (only root can make one here).
    if uid == 0 {
        let tmp = tempfile::tempdir().unwrap();
        let theirs = tmp.path().join("goldgate-0");
        fs::create_dir(&theirs).unwrap();
        fs::set_permissions(&theirs, fs::Permissions::from_mode(0o700)).unwrap();
        let c = std::ffi::CString::new(theirs.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: chown(2) on a path we made; the pointer lives across the call.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        let out = attempt(tmp.path());
        assert_eq!(out.status.code(), Some(101), "{}", text(&out));
        assert!(
            text(&out).contains("is owned by user 65534, not by you (0)"),
            "{}",
            text(&out)
        );
    }
    // Its own folder, made by goldgate: 0700, and the run passes.
    let tmp = tempfile::tempdir().unwrap();
    let out = attempt(tmp.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let made = fs::metadata(tmp.path().join(format!("goldgate-{uid}"))).unwrap();
    assert_eq!(made.permissions().mode() & 0o777, 0o700);
}

/// `goldgate report --last` takes the newest run and names it by its whole id; `--run ID` takes
/// that run; a run that wrote nothing is an error that says where ids come from.
#[test]
fn the_end_step_finds_a_run_by_its_id_or_as_the_last() {
    let dir = big_project();
    let tmp = tempfile::tempdir().unwrap();
    let with_tmp = |args: &[&str], id: Option<&str>| {
        let mut cmd = in_project(dir.path(), args);
        cmd.env("TMPDIR", tmp.path());
        if let Some(id) = id {
            cmd.env("GOLDGATE_RUN_ID", id);
        }
        run(&mut cmd)
    };
    let (first, second) = (run_id("first"), run_id("second"));
    for id in [&first, &second] {
        let out = with_tmp(&["test", "cases", "--exact", "ok"], Some(id));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        // The journal's mtime orders runs: the second is written after the first.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let last = with_tmp(&["report", "--last", "-o", "last.json"], None);
    assert!(last.status.success(), "{}", text(&last));
    assert!(
        stdout(&last).contains(&format!("1 case tests of the run `{second}`\n")),
        "{}",
        text(&last)
    );
    let by_id = with_tmp(&["report", "--run", &first], None);
    assert!(
        stdout(&by_id).starts_with("goldgate: 1 cases, 1 passed"),
        "{}",
        text(&by_id)
    );
    let none = with_tmp(&["report", "--run", "no-such-run"], None);
    assert_eq!(none.status.code(), Some(1), "{}", text(&none));
    assert!(
        text(&none).contains("the run `no-such-run` has written no records"),
        "{}",
        text(&none)
    );
}
