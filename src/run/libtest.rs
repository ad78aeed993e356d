//! What `cargo test` prints, as libtest prints it: the title, a line (or a character, or a JSON
//! event) per test, the failures with their messages, the summary line; and `--list`.
//!
//! libtest-mimic prints the same, byte for byte (it still reads the arguments); goldgate prints
//! it itself for two measured reasons. libtest-mimic keeps every failure's message in memory to
//! print them at the end: 29 MB of a run of 100,000 cases, where one in eight fails with a
//! 2.4 KB diff. Here messages go to an unnamed temporary file once they pass [`KEPT_IN_MEMORY`].
//! And it writes each line, and each piece of a message, with its own system call (57,000 at
//! 10,000 cases); here lines are buffered, and flushed at the end of each test when a terminal
//! shows them, or every [`FLUSH_EVERY`] otherwise (a log still shows a test that hangs).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, SeekFrom, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use anstyle::{AnsiColor, Color, Style};
use libtest_mimic::{Arguments, ColorSetting, Failed, FormatSetting};

/// How a test that did not fail ended: libtest-mimic's two ways, and a known failure
/// (`fail_on: regressions`), which fails no run and is said as such.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Completion {
    /// It passed.
    Completed,
    /// It was not run, or was left out as it ran, with why.
    Ignored { reason: Option<String> },
    /// It failed as its baseline entry says it did, no worse: why, in a few words.
    KnownFailure { reason: String },
}

impl Completion {
    /// Ignored, with why.
    pub(crate) fn ignored_with(reason: impl Into<String>) -> Completion {
        Completion::Ignored {
            reason: Some(reason.into()),
        }
    }

    /// Ignored.
    #[cfg(test)]
    pub(crate) fn ignored() -> Completion {
        Completion::Ignored { reason: None }
    }
}

/// The most bytes of failure messages kept in memory before they go to a temporary file.
const KEPT_IN_MEMORY: usize = 1 << 20;

/// How often buffered lines reach a standard output that is not a terminal.
const FLUSH_EVERY: Duration = Duration::from_millis(200);

/// What a test does.
pub(crate) type Work = Box<dyn FnOnce() -> Result<Completion, Failed> + Send>;

/// A test of the run.
pub(crate) struct Job {
    name: String,
    ignored: bool,
    work: Work,
}

impl Job {
    /// A test named `name` that does `work`.
    pub(crate) fn new(
        name: impl Into<String>,
        work: impl FnOnce() -> Result<Completion, Failed> + Send + 'static,
    ) -> Job {
        Job {
            name: name.into(),
            ignored: false,
            work: Box::new(work),
        }
    }

    /// Flags the test as ignored (libtest runs it only with `--ignored` or `--include-ignored`).
    pub(crate) fn with_ignored_flag(mut self, ignored: bool) -> Job {
        self.ignored = ignored;
        self
    }

    /// The test's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the test is flagged as ignored.
    pub(crate) fn is_ignored(&self) -> bool {
        self.ignored
    }

    /// Makes the test do `work` instead of what it did, which it gives back.
    pub(crate) fn replace_work(&mut self, work: Work) -> Work {
        std::mem::replace(&mut self.work, work)
    }

    /// Its name, whether it is flagged as ignored, and its work.
    pub(crate) fn into_parts(self) -> (String, bool, Work) {
        (self.name, self.ignored, self.work)
    }
}

/// What a run of tests came to, as libtest counts it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conclusion {
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
    /// Tests that failed as their baseline entries say, no worse (`fail_on: regressions`).
    pub known_failures: u64,
    pub filtered_out: u64,
}

impl Conclusion {
    /// libtest's exit code: 101 when a test failed.
    pub(crate) fn exit_code(&self) -> std::process::ExitCode {
        if self.failed > 0 {
            std::process::ExitCode::from(101)
        } else {
            std::process::ExitCode::SUCCESS
        }
    }
}

/// Why the run's lines could not be printed.
#[derive(Debug)]
pub(crate) enum PrintError {
    /// `--logfile PATH` could not be created.
    LogFile { path: String, source: io::Error },
    /// Standard output (a full disk) or the log file took no more.
    Output {
        logfile: Option<String>,
        source: io::Error,
    },
}

impl std::fmt::Display for PrintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = |e: &io::Error| crate::base::fs::io_reason(e);
        match self {
            PrintError::LogFile { path, source } => {
                write!(f, "cannot create the log file {path}: {}", reason(source))
            }
            PrintError::Output {
                logfile: None,
                source,
            } => write!(
                f,
                "goldgate cannot write to its standard output: {}",
                reason(source)
            ),
            PrintError::Output {
                logfile: Some(path),
                source,
            } => write!(
                f,
                "goldgate cannot write to its log file {path}: {}",
                reason(source)
            ),
        }
    }
}

impl std::error::Error for PrintError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PrintError::LogFile { source, .. } | PrintError::Output { source, .. } => Some(source),
        }
    }
}

/// How one test ended.
enum Outcome {
    Passed,
    Failed(Option<String>),
    /// Not run: flagged as ignored.
    Ignored,
    /// Ignored as it ran, with its reason.
    IgnoredWith(Option<String>),
    /// Failed as its baseline entry says, no worse: why.
    KnownFailure(String),
}

/// Whether the arguments leave the test named `name` out of the run (libtest's `--exact`,
/// `--skip`, `--ignored`).
pub(crate) fn is_filtered_out(args: &Arguments, name: &str, ignored: bool) -> bool {
    if let Some(filter) = &args.filter {
        let kept = if args.exact {
            name == filter
        } else {
            name.contains(filter.as_str())
        };
        if !kept {
            return true;
        }
    }
    let skipped = |skip: &String| {
        if args.exact {
            name == skip
        } else {
            name.contains(skip.as_str())
        }
    };
    if args.skip.iter().any(skipped) {
        return true;
    }
    args.ignored && !ignored
}

/// Whether a test the arguments select is not run but counted as ignored (`#[ignore]`).
pub(crate) fn is_ignored(args: &Arguments, ignored: bool) -> bool {
    // Every test of goldgate is a test, none a benchmark: `--bench` leaves them all out.
    (ignored && !args.ignored && !args.include_ignored) || args.bench
}

/// Runs the tests selected by `args`, each on this thread in turn, printing as libtest does.
pub(crate) fn run(args: &Arguments, mut tests: Vec<Job>) -> Result<Conclusion, PrintError> {
    let start = Instant::now();
    let mut conclusion = Conclusion::default();
    if args.filter.is_some() || !args.skip.is_empty() || args.ignored {
        let before = tests.len();
        tests.retain(|t| !is_filtered_out(args, t.name(), t.is_ignored()));
        conclusion.filtered_out = (before - tests.len()) as u64;
    }
    let mut printer = Printer::new(args, &tests)?;
    let output = |source| PrintError::Output {
        logfile: args.logfile.clone(),
        source,
    };
    print_run(args, tests, &mut printer, start, conclusion).map_err(output)
}

/// The run printed, once its tests are selected and its printer made.
fn print_run(
    args: &Arguments,
    tests: Vec<Job>,
    printer: &mut Printer,
    start: Instant,
    mut conclusion: Conclusion,
) -> io::Result<Conclusion> {
    if args.list {
        printer.list(&tests, args.ignored)?;
        printer.out.flush()?;
        return Ok(Conclusion::default());
    }
    printer.title(tests.len())?;
    let mut failures = Failures::default();
    for test in tests {
        let (name, ignored, work) = test.into_parts();
        printer.test(&name)?;
        let outcome = if is_ignored(args, ignored) {
            Outcome::Ignored
        } else {
            run_one(work)
        };
        printer.outcome(&name, &outcome)?;
        match outcome {
            Outcome::Passed => conclusion.passed += 1,
            Outcome::Failed(message) => {
                conclusion.failed += 1;
                // JSON's events carry the messages already: it prints no `failures:` section.
                if printer.format != FormatSetting::Json {
                    failures.keep(name, message);
                }
            }
            Outcome::Ignored | Outcome::IgnoredWith(_) => conclusion.ignored += 1,
            Outcome::KnownFailure(_) => conclusion.known_failures += 1,
        }
        printer.end_of_test()?;
    }
    if conclusion.failed > 0 {
        printer.failures(failures)?;
    }
    printer.summary(&conclusion, start.elapsed())?;
    printer.out.flush()?;
    Ok(conclusion)
}

/// Runs one test's work, a panic failing it as libtest-mimic says it.
fn run_one(work: Work) -> Outcome {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(Completion::Completed)) => Outcome::Passed,
        Ok(Ok(Completion::Ignored { reason })) => Outcome::IgnoredWith(reason),
        Ok(Ok(Completion::KnownFailure { reason })) => Outcome::KnownFailure(reason),
        Ok(Err(failed)) => Outcome::Failed(failed.message().map(str::to_owned)),
        Err(payload) => Outcome::Failed(Some(panic_message(payload.as_ref()))),
    }
}

/// What a failed test's message is when it panicked.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    match message {
        Some(m) => format!("test panicked: {m}"),
        None => "test panicked".to_owned(),
    }
}

/// The failed tests, in the order they ended, and their messages: in memory up to
/// [`KEPT_IN_MEMORY`] bytes, then in an unnamed temporary file.
struct Failures {
    tests: Vec<(String, Kept)>,
    /// The most bytes of messages kept in memory.
    limit: usize,
    in_memory: usize,
    file: Option<File>,
    /// Where the next message goes in the file.
    end: u64,
}

/// Where a failure's message is.
enum Kept {
    None,
    Memory(String),
    File { at: u64, len: usize },
}

impl Default for Failures {
    fn default() -> Failures {
        Failures::in_memory_up_to(KEPT_IN_MEMORY)
    }
}

impl Failures {
    fn in_memory_up_to(limit: usize) -> Failures {
        Failures {
            tests: Vec::new(),
            limit,
            in_memory: 0,
            file: None,
            end: 0,
        }
    }

    fn keep(&mut self, name: String, message: Option<String>) {
        let kept = match message {
            None => Kept::None,
            Some(m) if self.in_memory + m.len() <= self.limit => {
                self.in_memory += m.len();
                Kept::Memory(m)
            }
            Some(m) => self.spill(m),
        };
        self.tests.push((name, kept));
    }

    /// The message written to the temporary file; kept in memory when no file can be had.
    fn spill(&mut self, message: String) -> Kept {
        if self.file.is_none() {
            self.file = tempfile::tempfile().ok();
        }
        let Some(file) = &mut self.file else {
            return Kept::Memory(message);
        };
        match file.write_all(message.as_bytes()) {
            Ok(()) => {
                let at = self.end;
                self.end += message.len() as u64;
                Kept::File {
                    at,
                    len: message.len(),
                }
            }
            Err(_) => {
                // The file may hold part of it: the next message starts after what was written.
                self.end = file.stream_position().unwrap_or(self.end);
                Kept::Memory(message)
            }
        }
    }

    /// A kept message, read back.
    fn message(file: &mut Option<File>, kept: Kept) -> io::Result<Option<String>> {
        match (kept, file) {
            (Kept::None, _) => Ok(None),
            (Kept::Memory(m), _) => Ok(Some(m)),
            (Kept::File { at, len }, Some(file)) => {
                file.seek(SeekFrom::Start(at))?;
                let mut bytes = vec![0; len];
                file.read_exact(&mut bytes)?;
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
            }
            (Kept::File { .. }, None) => Err(io::Error::other("the failures' file is gone")),
        }
    }
}

/// Where and how the run is printed.
struct Printer {
    out: Box<dyn Write>,
    format: FormatSetting,
    name_width: usize,
    /// Flush at the end of every test (a terminal), else every [`FLUSH_EVERY`].
    flush_each: bool,
    flushed: Instant,
}

impl Printer {
    fn new(args: &Arguments, tests: &[Job]) -> Result<Printer, PrintError> {
        let color = args.color.unwrap_or(ColorSetting::Auto);
        let (out, flush_each): (Box<dyn Write>, bool) = match &args.logfile {
            Some(path) => {
                let file = File::create(path).map_err(|source| PrintError::LogFile {
                    path: path.clone(),
                    source,
                })?;
                let file = if color == ColorSetting::Always {
                    anstream::AutoStream::always(file)
                } else {
                    anstream::AutoStream::never(file)
                };
                (Box::new(io::BufWriter::new(file)), false)
            }
            None => {
                let choice = match color {
                    ColorSetting::Auto => anstream::ColorChoice::Auto,
                    ColorSetting::Always => anstream::ColorChoice::Always,
                    ColorSetting::Never => anstream::ColorChoice::Never,
                };
                let stdout = io::stdout();
                let terminal = stdout.is_terminal();
                let choice = match choice {
                    anstream::ColorChoice::Auto => anstream::AutoStream::choice(&stdout),
                    choice => choice,
                };
                // Colours are stripped before the buffer, not after it: stripped text reaches
                // standard output piece by piece, and its line buffer writes at every newline
                // (80,000 writes at 10,000 cases).
                let out: Box<dyn Write> = if choice == anstream::ColorChoice::Never {
                    let buffered: Box<dyn Write> = Box::new(io::BufWriter::new(stdout));
                    Box::new(anstream::StripStream::new(buffered))
                } else {
                    Box::new(io::BufWriter::new(anstream::AutoStream::new(
                        stdout, choice,
                    )))
                };
                (out, terminal)
            }
        };
        let format = if args.quiet {
            FormatSetting::Terse
        } else {
            args.format.unwrap_or(FormatSetting::Pretty)
        };
        // Characters, as libtest counts them: names are mostly ASCII.
        let name_width = tests
            .iter()
            .map(|t| t.name().chars().count())
            .max()
            .unwrap_or(0);
        Ok(Printer {
            out,
            format,
            name_width,
            flush_each,
            flushed: Instant::now(),
        })
    }

    /// `running 3 tests`.
    fn title(&mut self, tests: usize) -> io::Result<()> {
        match self.format {
            FormatSetting::Pretty | FormatSetting::Terse => {
                let s = if tests == 1 { "" } else { "s" };
                writeln!(self.out)?;
                writeln!(self.out, "running {tests} test{s}")
            }
            FormatSetting::Json => writeln!(
                self.out,
                r#"{{ "type": "suite", "event": "started", "test_count": {tests} }}"#
            ),
        }
    }

    /// `test foo::bar ... ` before the test runs (pretty), its event (JSON).
    fn test(&mut self, name: &str) -> io::Result<()> {
        match self.format {
            FormatSetting::Pretty => {
                write!(self.out, "test {name: <0$} ... ", self.name_width)?;
                if self.flush_each {
                    // What runs is on the screen while it runs.
                    self.out.flush()?;
                }
                Ok(())
            }
            FormatSetting::Terse => Ok(()),
            FormatSetting::Json => writeln!(
                self.out,
                r#"{{ "type": "test", "event": "started", "name": "{}" }}"#,
                escape8259::escape(name)
            ),
        }
    }

    /// `ok`, `FAILED`, `ignored` (pretty); `.`, `F`, `i` (terse); the event (JSON, with the
    /// message of a failure).
    fn outcome(&mut self, name: &str, outcome: &Outcome) -> io::Result<()> {
        match self.format {
            FormatSetting::Pretty => {
                self.word(outcome)?;
                writeln!(self.out)
            }
            FormatSetting::Terse => {
                let c = match outcome {
                    Outcome::Passed => '.',
                    Outcome::Failed(_) => 'F',
                    Outcome::Ignored | Outcome::IgnoredWith(_) => 'i',
                    // pytest's mark of an expected failure.
                    Outcome::KnownFailure(_) => 'x',
                };
                let style = style_of(outcome);
                write!(self.out, "{style}{c}{style:#}")
            }
            FormatSetting::Json => {
                // A known failure is libtest's ignored test with a message, as an ignored
                // test's reason is.
                let event = match outcome {
                    Outcome::Passed => "ok",
                    Outcome::Failed(_) => "failed",
                    Outcome::Ignored | Outcome::IgnoredWith(_) | Outcome::KnownFailure(_) => {
                        "ignored"
                    }
                };
                let stdout: Cow<str> = match outcome {
                    Outcome::Failed(Some(message)) => Cow::Owned(format!(
                        r#", "stdout": "Error: \"{}\"\n""#,
                        escape8259::escape(message)
                    )),
                    Outcome::KnownFailure(reason) => Cow::Owned(format!(
                        r#", "message": "known failure: {}""#,
                        escape8259::escape(reason)
                    )),
                    _ => Cow::Borrowed(""),
                };
                writeln!(
                    self.out,
                    r#"{{ "type": "test", "name": "{}", "event": "{event}"{stdout} }}"#,
                    escape8259::escape(name)
                )
            }
        }
    }

    /// The word of an outcome in its colour, with an ignored test's reason.
    fn word(&mut self, outcome: &Outcome) -> io::Result<()> {
        let style = style_of(outcome);
        let (word, reason) = match outcome {
            Outcome::Passed => ("ok", None),
            Outcome::Failed(_) => ("FAILED", None),
            Outcome::Ignored => ("ignored", None),
            Outcome::IgnoredWith(reason) => ("ignored", reason.as_deref()),
            Outcome::KnownFailure(reason) => ("known failure", Some(reason.as_str())),
        };
        write!(self.out, "{style}{word}")?;
        if let Some(reason) = reason {
            write!(self.out, " ({reason})")?;
        }
        write!(self.out, "{style:#}")
    }

    fn end_of_test(&mut self) -> io::Result<()> {
        if self.flush_each || self.flushed.elapsed() >= FLUSH_EVERY {
            self.out.flush()?;
            self.flushed = Instant::now();
        }
        Ok(())
    }

    /// Each failure's message under its name, then the names again (not in JSON, whose events
    /// carry the messages).
    fn failures(&mut self, failures: Failures) -> io::Result<()> {
        if self.format == FormatSetting::Json {
            return Ok(());
        }
        let Failures {
            tests, mut file, ..
        } = failures;
        writeln!(self.out)?;
        writeln!(self.out, "failures:")?;
        writeln!(self.out)?;
        let mut names = Vec::with_capacity(tests.len());
        for (name, kept) in tests {
            writeln!(self.out, "---- {name} ----")?;
            if let Some(message) = Failures::message(&mut file, kept)? {
                writeln!(self.out, "{message}")?;
            }
            writeln!(self.out)?;
            names.push(name);
        }
        writeln!(self.out)?;
        writeln!(self.out, "failures:")?;
        for name in names {
            writeln!(self.out, "    {name}")?;
        }
        Ok(())
    }

    /// `test result: ok. 3 passed; …` (pretty, terse); the suite's last event (JSON).
    fn summary(&mut self, c: &Conclusion, took: Duration) -> io::Result<()> {
        let secs = took.as_secs_f64();
        match self.format {
            FormatSetting::Pretty | FormatSetting::Terse => {
                let outcome = if c.failed > 0 {
                    Outcome::Failed(None)
                } else {
                    Outcome::Passed
                };
                writeln!(self.out)?;
                write!(self.out, "test result: ")?;
                self.word(&outcome)?;
                // libtest's line, with the known failures beside the failures when there are any.
                let known = match c.known_failures {
                    0 => String::new(),
                    1 => "1 known failure; ".to_owned(),
                    n => format!("{n} known failures; "),
                };
                writeln!(
                    self.out,
                    ". {} passed; {} failed; {known}{} ignored; 0 measured; {} filtered out; finished in {secs:.2}s",
                    c.passed, c.failed, c.ignored, c.filtered_out
                )?;
                writeln!(self.out)
            }
            FormatSetting::Json => writeln!(
                self.out,
                r#"{{ "type": "suite", "event": "{}", "passed": {}, "failed": {}, "ignored": {}, "measured": 0, "filtered_out": {}, "exec_time": {secs} }}"#,
                if c.failed > 0 { "failed" } else { "ok" },
                c.passed,
                c.failed,
                c.ignored + c.known_failures,
                c.filtered_out
            ),
        }
    }

    /// `NAME: test` for each test (with `--ignored`, the ignored ones).
    fn list(&mut self, tests: &[Job], ignored: bool) -> io::Result<()> {
        for test in tests.iter().filter(|t| !ignored || t.is_ignored()) {
            writeln!(self.out, "{}: test", test.name())?;
        }
        Ok(())
    }
}

/// libtest's colour of an outcome.
fn style_of(outcome: &Outcome) -> Style {
    let color = match outcome {
        Outcome::Passed => AnsiColor::Green,
        Outcome::Failed(_) => AnsiColor::Red,
        Outcome::Ignored | Outcome::IgnoredWith(_) | Outcome::KnownFailure(_) => AnsiColor::Yellow,
    };
    Style::new().fg_color(Some(Color::Ansi(color)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_kept_on_disk_read_back_as_they_were() {
        let messages = [
            Some("é\nline 2 ✓".to_owned()),
            None,
            Some(String::new()),
            Some("x".repeat(5000)),
        ];
        for limit in [0, 6, KEPT_IN_MEMORY] {
            let mut failures = Failures::in_memory_up_to(limit);
            for (i, m) in messages.iter().enumerate() {
                failures.keep(format!("t{i}"), m.clone());
            }
            assert_eq!(failures.file.is_some(), limit < KEPT_IN_MEMORY, "{limit}");
            let Failures {
                tests, mut file, ..
            } = failures;
            let read: Vec<(String, Option<String>)> = tests
                .into_iter()
                .map(|(name, kept)| (name, Failures::message(&mut file, kept).unwrap()))
                .collect();
            let expected: Vec<(String, Option<String>)> = messages
                .iter()
                .enumerate()
                .map(|(i, m)| (format!("t{i}"), m.clone()))
                .collect();
            assert_eq!(read, expected, "{limit}");
        }
    }

    #[test]
    fn tests_are_selected_as_libtest_mimic_selects_them() {
        let names = ["a::b", "a::bc", "b", "x::a::b::y", ""];
        let filters = [None, Some("a::b"), Some("b"), Some(""), Some("zz")];
        let skips: [&[&str]; 3] = [&[], &["b"], &["a::b", "y"]];
        for name in names {
            for ignored in [false, true] {
                for filter in filters {
                    for skip in skips {
                        for (exact, only_ignored, include, bench) in [
                            (false, false, false, false),
                            (true, false, false, false),
                            (false, true, false, false),
                            (true, true, false, false),
                            (false, false, true, false),
                            (false, false, false, true),
                        ] {
                            let args = Arguments {
                                filter: filter.map(str::to_owned),
                                skip: skip.iter().map(|s| s.to_string()).collect(),
                                exact,
                                ignored: only_ignored,
                                include_ignored: include,
                                bench,
                                ..Arguments::default()
                            };
                            let trial = libtest_mimic::Trial::test(name, || Ok(()))
                                .with_ignored_flag(ignored);
                            let case = format!("{name:?} {ignored} {args:?}");
                            assert_eq!(
                                is_filtered_out(&args, name, ignored),
                                args.is_filtered_out(&trial),
                                "{case}"
                            );
                            assert_eq!(
                                is_ignored(&args, ignored),
                                args.is_ignored(&trial),
                                "{case}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The tests of [`prints_as_libtest_mimic_prints`]: passed, failed with and without a
    /// message (one of several lines, one with quotes for JSON), ignored by flag and as it ran.
    fn jobs() -> Vec<Job> {
        let job = |name: &str, outcome: u8| {
            Job::new(name, move || match outcome {
                0 => Ok(Completion::Completed),
                1 => Err(libtest_mimic::Failed::from("line 1\n  \"line\" 2\tend")),
                2 => Err(libtest_mimic::Failed::without_message()),
                3 => Ok(Completion::ignored_with("call error, skipped")),
                _ => Ok(Completion::ignored()),
            })
        };
        vec![
            job("suite::a", 0),
            job("suite::bb", 1),
            job("suite::c::aggregate", 2),
            job("other::d", 3),
            job("other::é", 4),
            job("suite::skipped", 0).with_ignored_flag(true),
        ]
    }

    /// What libtest-mimic prints of [`jobs`] under `args`, and what [`run`] prints, to a log
    /// file each, the time of the summary left out.
    fn both(args: &Arguments) -> (String, String) {
        let dir = tempfile::tempdir().unwrap();
        let read = |name: &str| {
            let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
            let time = regex::Regex::new(r#"(finished in |exec_time": )[0-9.e-]+"#).unwrap();
            time.replace_all(&text, "${1}T").into_owned()
        };
        let log = |name: &str| Arguments {
            logfile: Some(dir.path().join(name).display().to_string()),
            test_threads: Some(1),
            ..args.clone()
        };
        let trials = jobs()
            .into_iter()
            .map(|j| {
                let (name, ignored, work) = j.into_parts();
                let work = move || match work() {
                    Ok(Completion::Completed) => Ok(libtest_mimic::Completion::Completed),
                    Ok(Completion::Ignored { reason }) => {
                        Ok(libtest_mimic::Completion::Ignored { reason })
                    }
                    Ok(Completion::KnownFailure { .. }) => unreachable!("no job here is one"),
                    Err(e) => Err(e),
                };
                libtest_mimic::Trial::ignorable_test(name, work).with_ignored_flag(ignored)
            })
            .collect();
        let theirs = libtest_mimic::run(&log("theirs"), trials);
        let ours = run(&log("ours"), jobs()).unwrap();
        assert_eq!(
            (ours.passed, ours.failed, ours.ignored, ours.filtered_out),
            (
                theirs.num_passed,
                theirs.num_failed,
                theirs.num_ignored,
                theirs.num_filtered_out
            )
        );
        assert_eq!(ours.exit_code(), theirs.exit_code());
        (read("theirs"), read("ours"))
    }

    #[test]
    fn prints_as_libtest_mimic_prints() {
        let formats = [
            None,
            Some(FormatSetting::Pretty),
            Some(FormatSetting::Terse),
            Some(FormatSetting::Json),
        ];
        for format in formats {
            for color in [ColorSetting::Never, ColorSetting::Always] {
                for (filter, exact, list, ignored, include) in [
                    (None, false, false, false, false),
                    (Some("suite"), false, false, false, false),
                    (Some("suite::a"), true, false, false, false),
                    (None, false, true, false, false),
                    (None, false, true, true, false),
                    (None, false, false, true, false),
                    (None, false, false, false, true),
                    (Some("nothing"), false, false, false, false),
                ] {
                    let args = Arguments {
                        format,
                        color: Some(color),
                        filter: filter.map(str::to_owned),
                        exact,
                        list,
                        ignored,
                        include_ignored: include,
                        skip: if include {
                            vec!["other::d".into()]
                        } else {
                            vec![]
                        },
                        ..Arguments::default()
                    };
                    let (theirs, ours) = both(&args);
                    assert_eq!(ours, theirs, "{args:?}");
                }
            }
        }
        // And `--quiet`, the terse lines.
        let quiet = Arguments {
            quiet: true,
            ..Arguments::default()
        };
        let (theirs, ours) = both(&quiet);
        assert_eq!(ours, theirs);
    }
}
