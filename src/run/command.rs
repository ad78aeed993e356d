//! Running a suite's `run` command: its standard output is the prediction, its latency is
//! measured around it, and a timeout kills it with its children.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::base::budget::{STDERR_KEPT, STDERR_LINE_CHARS, STDERR_LINES};

/// What the command printed, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// Standard output.
    pub stdout: String,
    /// Wall-clock time from start to exit, in milliseconds.
    pub latency_ms: f64,
    /// The end of its standard error, ready to append to a message (empty when it wrote none).
    pub stderr_tail: String,
}

/// The values a command's standard error is cleaned of before goldgate keeps a byte of it (in a
/// message, a record, a report, the outputs shared by a run's processes): those of the variables
/// its suite's `run.env` names, and of every variable whose name says it holds a secret
/// (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`). Each is shown as its name, `[NAME]`.
#[derive(Debug, Clone, Default)]
pub struct Secrets(Vec<(String, String)>);

/// The shortest value [`Secrets`] cleans: shorter ones are words and numbers (`true`, `1`,
/// `gpt-4`) that would blank ordinary text, and no credential is that short.
const SECRET_CHARS: usize = 6;

/// Words in a variable's name that say its value is a secret.
const SECRET_WORDS: [&str; 8] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "PRIVATE",
];

impl Secrets {
    /// The values of the process's variables that `run_env` names or that look secret.
    pub fn of(run_env: &[String]) -> Secrets {
        let mut found: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
            .filter(|(name, value)| {
                let upper = name.to_ascii_uppercase();
                (run_env.contains(name) || SECRET_WORDS.iter().any(|w| upper.contains(w)))
                    && value.chars().count() >= SECRET_CHARS
            })
            .collect();
        // The longest first: a value that holds another is replaced whole.
        found.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        Secrets(found)
    }

    /// `text` with every secret value replaced by its variable's name.
    pub fn clean(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (name, value) in &self.0 {
            if text.contains(value.as_str()) {
                text = text.replace(value.as_str(), &format!("[{name}]"));
            }
        }
        text
    }
}

/// Runs `command` in `dir`. A non-zero exit, a timeout or output that is not UTF-8 is an error
/// naming the command and ending with the last lines of its standard error, cleaned of `secrets`.
pub fn run(
    command: &[String],
    dir: &Path,
    timeout: Duration,
    secrets: &Secrets,
) -> Result<Ran, CommandError> {
    run_with_input(command, dir, timeout, None, secrets)
}

/// [`run`], with `input` written to the command's standard input (then closed).
pub fn run_with_input(
    command: &[String],
    dir: &Path,
    timeout: Duration,
    input: Option<&[u8]>,
    secrets: &Secrets,
) -> Result<Ran, CommandError> {
    let start = Instant::now();
    let mut child = started(command, dir, input.is_some())?;
    // Written on a thread of its own: a command that does not read its input must not block us.
    if let (Some(bytes), Some(stdin)) = (input, child.stdin.take()) {
        feed(stdin, bytes.to_vec());
    }
    // Read both pipes while it runs, so that a chatty command never blocks on a full pipe.
    let out_reader = reader(child.stdout.take(), Keep::Head);
    let err_reader = reader(child.stderr.take(), Keep::Tail);
    let status = loop {
        // A flood is stopped at the cap: the case fails now, not at the timeout.
        if out_reader.overflowed() || err_reader.overflowed() {
            kill_group(&mut child);
            break None;
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                // Children it left behind would hold the pipes open: they go with it.
                kill_group(&mut child);
                break Some(status);
            }
            Ok(None) if start.elapsed() >= timeout => {
                kill_group(&mut child);
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(source) => {
                return Err(CommandError::NotWaited {
                    command: command.to_vec(),
                    source,
                });
            }
        }
    };
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    // A grandchild that left the process group may hold a pipe open forever: what came until
    // shortly after the exit is what the command printed.
    let deadline = Instant::now() + PIPE_GRACE;
    let stdout = out_reader.take(deadline);
    let stderr = err_reader.take(deadline);
    // Cleaned before it is cut into lines: a value cut at a line's end would be shown in part.
    let cleaned = secrets.clean(&String::from_utf8_lossy(&stderr.bytes));
    let tail = stderr_tail(cleaned.as_bytes(), stderr.cut);
    for (flooded, stream) in [
        (stdout.overflowed, Stream::Output),
        (stderr.overflowed, Stream::Error),
    ] {
        if flooded {
            return Err(CommandError::Flooded {
                command: command.to_vec(),
                stream,
                tail,
            });
        }
    }
    finished(command, status, stdout.bytes, latency_ms, tail, timeout)
}

/// The command started in `dir`, its outputs piped, its input too when `input`.
fn started(
    command: &[String],
    dir: &Path,
    input: bool,
) -> Result<std::process::Child, CommandError> {
    let (program, args) = command.split_first().ok_or(CommandError::Empty)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .stdin(if input { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Measured as it runs without goldgate.
    crate::base::huge_pages::as_before(&mut cmd);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a timeout kills its children too.
        cmd.process_group(0);
    }
    cmd.spawn().map_err(|source| CommandError::NotStarted {
        command: command.to_vec(),
        dir: dir.to_path_buf(),
        source,
    })
}

/// Writes `bytes` to a command's standard input on a thread of its own, then closes it.
fn feed(mut stdin: std::process::ChildStdin, bytes: Vec<u8>) {
    std::thread::spawn(move || {
        use std::io::Write;
        // A command that exits without reading its input closes the pipe: the write then
        // raises SIGPIPE, whose default action (goldgate restores it, for `| head`) would end
        // the whole run. Blocked in this thread, it stays pending and dies with the thread.
        #[cfg(unix)]
        // SAFETY: sigemptyset/sigaddset fill a local set; pthread_sigmask changes only this
        // thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        }
        let _ = stdin.write_all(&bytes);
    });
}

/// The command as a message shows it: arguments with spaces in quotes.
fn shown(command: &[String]) -> String {
    command
        .iter()
        .map(|a| {
            if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What came of a command that ran: its output, or why it failed.
fn finished(
    command: &[String],
    status: Option<std::process::ExitStatus>,
    stdout: Vec<u8>,
    latency_ms: f64,
    tail: String,
    timeout: Duration,
) -> Result<Ran, CommandError> {
    let command = command.to_vec();
    match status {
        None => Err(CommandError::TimedOut {
            command,
            after: timeout,
            tail,
        }),
        Some(status) if !status.success() => Err(CommandError::Failed {
            command,
            status,
            tail,
        }),
        // Only the UTF-8 error is kept, not the output it holds (up to the capture limit).
        Some(_) => match String::from_utf8(stdout) {
            Ok(stdout) => Ok(Ran {
                stdout,
                latency_ms,
                stderr_tail: tail,
            }),
            Err(e) => Err(CommandError::NotText {
                command,
                tail,
                source: e.utf8_error(),
            }),
        },
    }
}

/// Why a command gave no output. Its message names the command as [`shown`] shows it, and ends
/// with `tail`, the end of its standard error as [`Ran::stderr_tail`] shows it.
#[derive(Debug)]
pub enum CommandError {
    /// The command has no words.
    Empty,
    /// The program could not be started.
    NotStarted {
        /// The command, its words.
        command: Vec<String>,
        /// The folder it was to run in.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The command could not be waited for.
    NotWaited {
        /// The command, its words.
        command: Vec<String>,
        /// The system's error.
        source: std::io::Error,
    },
    /// The command printed more than goldgate keeps, and was stopped.
    Flooded {
        /// The command, its words.
        command: Vec<String>,
        /// Which of its outputs.
        stream: Stream,
        /// The end of its standard error.
        tail: String,
    },
    /// The command ran longer than its timeout, and was killed with its children.
    TimedOut {
        /// The command, its words.
        command: Vec<String>,
        /// The timeout.
        after: Duration,
        /// The end of its standard error.
        tail: String,
    },
    /// The command exited with a failure (a non-zero code, a signal).
    Failed {
        /// The command, its words.
        command: Vec<String>,
        /// How it exited.
        status: std::process::ExitStatus,
        /// The end of its standard error.
        tail: String,
    },
    /// The command's standard output is not UTF-8 text.
    NotText {
        /// The command, its words.
        command: Vec<String>,
        /// The end of its standard error.
        tail: String,
        /// Where the output stops being UTF-8.
        source: std::str::Utf8Error,
    },
}

/// One of a command's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Its standard output.
    Output,
    /// Its standard error.
    Error,
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Empty => f.write_str("the command is empty"),
            CommandError::NotStarted {
                command,
                dir,
                source,
            } => write!(
                f,
                "`{}` could not start in `{}`: {source}",
                shown(command),
                dir.display()
            ),
            CommandError::NotWaited { command, source } => {
                write!(f, "`{}`: cannot wait for it: {source}", shown(command))
            }
            CommandError::Flooded {
                command,
                stream,
                tail,
            } => write!(
                f,
                "`{}` printed more than {} MiB on its {}; goldgate keeps no more, and stopped it{tail}",
                shown(command),
                CAPTURE_LIMIT >> 20,
                match stream {
                    Stream::Output => "standard output",
                    Stream::Error => "standard error",
                }
            ),
            CommandError::TimedOut {
                command,
                after,
                tail,
            } => write!(
                f,
                "`{}` did not finish within {} s and was killed, with its children{tail}",
                shown(command),
                after.as_secs_f64()
            ),
            CommandError::Failed {
                command,
                status,
                tail,
            } => write!(f, "`{}` failed ({status}){tail}", shown(command)),
            CommandError::NotText { command, tail, .. } => write!(
                f,
                "`{}` printed output that is not UTF-8 text{tail}",
                shown(command)
            ),
        }
    }
}

impl std::error::Error for CommandError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CommandError::NotStarted { source, .. } | CommandError::NotWaited { source, .. } => {
                Some(source)
            }
            CommandError::NotText { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// What goldgate keeps of a command's output: more fails the case (a flood would exhaust memory).
const CAPTURE_LIMIT: usize = 64 << 20;

/// How long pipes are read after the command exits, for output still in them.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// What a reader keeps of its pipe: standard output whole (it is the prediction), standard
/// error only its end (it is only ever shown as a tail); both count to [`CAPTURE_LIMIT`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Head,
    Tail,
}

/// A pipe read on a thread of its own: what [`Keep`] says is kept, the rest let go. Once its
/// output is taken the thread stops at its next read and closes the pipe, so that a process
/// that escaped the group and keeps writing costs no memory for the rest of the run (its next
/// write fails instead).
struct Reader {
    captured: std::sync::Arc<std::sync::Mutex<Captured>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    done: std::sync::mpsc::Receiver<()>,
}

/// What a pipe gave.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    /// Bytes the pipe gave in all, kept or not.
    seen: usize,
    overflowed: bool,
    /// Whether the start was let go ([`Keep::Tail`]): the first kept line may be a part of one.
    cut: bool,
}

impl Captured {
    fn add(&mut self, chunk: &[u8], keep: Keep) {
        self.seen = self.seen.saturating_add(chunk.len());
        if self.seen > CAPTURE_LIMIT {
            self.overflowed = true;
        }
        match keep {
            Keep::Head if !self.overflowed => self.bytes.extend_from_slice(chunk),
            Keep::Head => {}
            Keep::Tail => {
                self.bytes.extend_from_slice(chunk);
                // Let go by halves, so that each byte is moved a bounded number of times.
                if self.bytes.len() > 2 * STDERR_KEPT {
                    let drop = self.bytes.len() - STDERR_KEPT;
                    self.bytes.drain(..drop);
                    self.cut = true;
                }
            }
        }
    }
}

fn reader(pipe: Option<impl Read + Send + 'static>, keep: Keep) -> Reader {
    use std::sync::atomic::Ordering;
    let (send, done) = std::sync::mpsc::channel();
    let captured = std::sync::Arc::new(std::sync::Mutex::new(Captured::default()));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (shared, stopped) = (
        std::sync::Arc::clone(&captured),
        std::sync::Arc::clone(&stop),
    );
    std::thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut chunk = vec![0u8; 64 * 1024];
            loop {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                // Taken already: nothing more is kept, and the pipe closes as the thread ends.
                if stopped.load(Ordering::Acquire) {
                    break;
                }
                shared
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .add(&chunk[..n], keep);
            }
        }
        let _ = send.send(());
    });
    Reader {
        captured,
        stop,
        done,
    }
}

impl Reader {
    /// Whether the pipe gave more than goldgate keeps.
    fn overflowed(&self) -> bool {
        self.captured
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .overflowed
    }

    /// The output, waiting for the pipe to close until `deadline`; a pipe still held open then
    /// (by a process that escaped the group) is closed at its next write, and what came is kept.
    fn take(self, deadline: Instant) -> Captured {
        let _ = self
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        std::mem::take(&mut *self.captured.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads; it
        // touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The last lines of standard error, for the failure message: at most [`STDERR_LINES`] lines
/// of at most [`STDERR_LINE_CHARS`] characters, control characters shown escaped (a NUL as
/// `\0`, an escape as `\u{1b}`), so that no output, however hostile, sizes the message or
/// drives the terminal it is printed on. `cut` says the start of `stderr` was let go.
fn stderr_tail(stderr: &[u8], cut: bool) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A line whose start was let go is shown only when it is all there is, and says so.
    let partial = cut && lines.len() == 1;
    if cut && !partial {
        lines.remove(0);
    }
    let lines: Vec<&str> = lines
        .into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    format!(
        "\nend of its standard error:\n{}",
        tail.iter()
            .map(|l| format!("  {}", shown_line(l, partial)))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// One line of standard error as a message shows it; `partial` when its start was let go.
fn shown_line(line: &str, partial: bool) -> String {
    let mut out = String::from(if partial { "… " } else { "" });
    let mut shown = 0;
    for c in line.chars() {
        if shown >= STDERR_LINE_CHARS {
            out.push_str(&format!(" … (cut at {STDERR_LINE_CHARS} characters)"));
            break;
        }
        if c.is_control() && c != '\t' {
            let escaped = c.escape_debug().to_string();
            shown += escaped.chars().count();
            out.push_str(&escaped);
        } else {
            shown += 1;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_standard_error_is_bounded_in_lines_and_characters() {
        let many: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = stderr_tail(many.as_bytes(), false);
        assert!(
            tail.starts_with("\nend of its standard error:\n  line 21\n"),
            "{tail}"
        );
        assert!(tail.ends_with("  line 30"), "{tail}");
        let long = "é".repeat(STDERR_LINE_CHARS + 5);
        let tail = stderr_tail(long.as_bytes(), false);
        assert_eq!(
            tail,
            format!(
                "\nend of its standard error:\n  {} … (cut at 300 characters)",
                "é".repeat(STDERR_LINE_CHARS)
            )
        );
        // Control characters escaped, NULs and terminal escapes alike.
        let tail = stderr_tail(b"a\0b\x1b[31mred\tc\r\n", false);
        assert_eq!(
            tail,
            "\nend of its standard error:\n  a\\0b\\u{1b}[31mred\tc"
        );
        // A start that was let go: its first, partial line is left out when there are others.
        let tail = stderr_tail(b"rtial\nwhole\n", true);
        assert_eq!(tail, "\nend of its standard error:\n  whole");
        let tail = stderr_tail(b"xxxx", true);
        assert_eq!(tail, "\nend of its standard error:\n  \u{2026} xxxx");
    }

    #[test]
    fn a_program_that_cannot_start_keeps_the_system_error_as_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let e = run(
            &["goldgate-no-such-program".to_owned()],
            dir.path(),
            Duration::from_secs(5),
            &Secrets::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("`goldgate-no-such-program` could not start in `"),
            "{e}"
        );
        let io = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(
            run(&[], dir.path(), Duration::from_secs(5), &Secrets::default())
                .unwrap_err()
                .to_string(),
            "the command is empty"
        );
    }

    #[test]
    fn secrets_are_replaced_by_their_names_longest_first() {
        let secrets = Secrets(vec![
            ("LONG_KEY".into(), "sk-abcdef-123".into()),
            ("SHORT_KEY".into(), "sk-abcdef".into()),
        ]);
        assert_eq!(
            secrets.clean("key sk-abcdef-123 and sk-abcdef."),
            "key [LONG_KEY] and [SHORT_KEY]."
        );
    }

    #[test]
    fn standard_error_keeps_only_its_end_and_counts_the_rest() {
        let mut c = Captured::default();
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..100 {
            c.add(&chunk, Keep::Tail);
        }
        assert!(c.bytes.len() <= 2 * STDERR_KEPT, "{}", c.bytes.len());
        assert_eq!(c.seen, 100 * 64 * 1024);
        assert!(c.cut && !c.overflowed);
        let mut out = Captured::default();
        out.add(&chunk, Keep::Head);
        assert_eq!(out.bytes.len(), chunk.len());
        assert!(!out.cut);
    }
}
