//! Running a suite's `run` command: its standard output is the prediction, its latency is
//! measured around it, and a timeout kills it with its children.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Runs `command` in `dir`. A non-zero exit, a timeout or output that is not UTF-8 is an error
/// naming the command and ending with the last lines of its standard error.
pub fn run(command: &[String], dir: &Path, timeout: Duration) -> Result<Ran, String> {
    run_with_input(command, dir, timeout, None)
}

/// [`run`], with `input` written to the command's standard input (then closed).
pub fn run_with_input(
    command: &[String],
    dir: &Path,
    timeout: Duration,
    input: Option<&[u8]>,
) -> Result<Ran, String> {
    let shown = shown(command);
    let (program, args) = command.split_first().ok_or("the command is empty")?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a timeout kills its children too.
        cmd.process_group(0);
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("`{shown}` could not start in `{}`: {e}", dir.display()))?;
    // Written on a thread of its own: a command that does not read its input must not block us.
    if let (Some(bytes), Some(stdin)) = (input, child.stdin.take()) {
        feed(stdin, bytes.to_vec());
    }
    // Read both pipes while it runs, so that a chatty command never blocks on a full pipe.
    let out_reader = reader(child.stdout.take());
    let err_reader = reader(child.stderr.take());
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
            Err(e) => return Err(format!("`{shown}`: cannot wait for it: {e}")),
        }
    };
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    // A grandchild that left the process group may hold a pipe open forever: what came until
    // shortly after the exit is what the command printed.
    let deadline = Instant::now() + PIPE_GRACE;
    let stdout = out_reader.take(deadline);
    let stderr = err_reader.take(deadline);
    let tail = stderr_tail(&stderr.bytes);
    for (flooded, stream) in [
        (stdout.overflowed, "standard output"),
        (stderr.overflowed, "standard error"),
    ] {
        if flooded {
            return Err(format!(
                "`{shown}` printed more than {} MiB on its {stream}; goldgate keeps no more, and stopped it{tail}",
                CAPTURE_LIMIT >> 20
            ));
        }
    }
    finished(&shown, status, stdout.bytes, latency_ms, tail, timeout)
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
    shown: &str,
    status: Option<std::process::ExitStatus>,
    stdout: Vec<u8>,
    latency_ms: f64,
    tail: String,
    timeout: Duration,
) -> Result<Ran, String> {
    match status {
        None => Err(format!(
            "`{shown}` did not finish within {} s and was killed, with its children{tail}",
            timeout.as_secs_f64()
        )),
        Some(s) if !s.success() => Err(format!("`{shown}` failed ({s}){tail}")),
        Some(_) => match String::from_utf8(stdout) {
            Ok(stdout) => Ok(Ran {
                stdout,
                latency_ms,
                stderr_tail: tail,
            }),
            Err(_) => Err(format!(
                "`{shown}` printed output that is not UTF-8 text{tail}"
            )),
        },
    }
}

/// What goldgate keeps of a command's output: more fails the case (a flood would exhaust memory).
const CAPTURE_LIMIT: usize = 64 << 20;

/// How long pipes are read after the command exits, for output still in them.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// A pipe read on a thread of its own, up to [`CAPTURE_LIMIT`] bytes kept (the rest drained).
struct Reader {
    captured: std::sync::Arc<std::sync::Mutex<Captured>>,
    done: std::sync::mpsc::Receiver<()>,
}

/// What a pipe gave.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    overflowed: bool,
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> Reader {
    let (send, done) = std::sync::mpsc::channel();
    let captured = std::sync::Arc::new(std::sync::Mutex::new(Captured::default()));
    let shared = std::sync::Arc::clone(&captured);
    std::thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 64 * 1024];
            loop {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut c = shared.lock().unwrap_or_else(|e| e.into_inner());
                if c.bytes.len() + n <= CAPTURE_LIMIT {
                    c.bytes.extend_from_slice(&chunk[..n]);
                } else {
                    c.overflowed = true;
                }
            }
        }
        let _ = send.send(());
    });
    Reader { captured, done }
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
    /// (by a process that escaped the group) is left to its thread, and what came is kept.
    fn take(self, deadline: Instant) -> Captured {
        let _ = self
            .done
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
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

/// The last lines of standard error, for the failure message.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = &lines[lines.len().saturating_sub(10)..];
    format!(
        "\nend of its standard error:\n{}",
        tail.iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}
