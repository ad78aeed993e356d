//! Commands, pipelines and the files goldgate reads, under attack: placeholders where a program
//! reads code, pipelines that share their files, streams that would not stop, files that would
//! not end, and a baseline entry emptied by hand. The `goldgate` binary runs over fixture folders
//! made in a temporary folder by each test.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{command, failure_block, goldgate, stderr, stdout, write_files};

/// Runs `cmd` to its end, or kills it after `patience`: `None` when it had to be killed (it
/// hung). Its output goes to files, so that a full pipe never blocks it.
fn ended(mut cmd: Command, patience: Duration) -> Option<Output> {
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = cmd
        .stdout(Stdio::from(out.reopen().unwrap()))
        .stderr(Stdio::from(err.reopen().unwrap()))
        .spawn()
        .expect("the goldgate binary runs");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > patience {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }?;
    Some(Output {
        status,
        stdout: std::fs::read(out.path()).unwrap(),
        stderr: std::fs::read(err.path()).unwrap(),
    })
}

/// Runs `cmd` to its end, with its peak resident memory in KiB (`wait4`'s `ru_maxrss`).
#[cfg(unix)]
fn with_peak_memory(mut cmd: Command) -> (Output, u64) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let child = cmd
        .stdout(Stdio::from(out.reopen().unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .expect("the goldgate binary runs");
    let pid = i32::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes the child's status and usage into these two locals; `child` is never
    // waited for again (it is forgotten, its pid reaped here).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    std::mem::forget(child);
    use std::os::unix::process::ExitStatusExt;
    let output = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: std::fs::read(out.path()).unwrap(),
        stderr: Vec::new(),
    };
    (output, u64::try_from(usage.ru_maxrss).unwrap())
}

fn verdict(out: &str, name: &str) -> Option<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|l| l.split_once(" ... "))
        .find(|(n, _)| n.trim() == name)
        .map(|(_, v)| v.to_owned())
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

const CASE: &str = "gold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n";

/// A placeholder in a script is refused whichever program reads the script (`env -S`, `flock
/// -c`, `script -c`, `python3 -Ic`, `python3.11 -c`, `perl -le`, `node -p`, `awk`: a case file
/// name ran a command in all eight), and where it may stand it still runs.
#[test]
fn a_placeholder_is_refused_wherever_a_program_may_read_it_as_code() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    write_files(dir.path(), &[("cases/$(touch pwned).yaml", CASE)]);
    for (command, at) in [
        (r#"[env, -S, "sh -c 'echo {case}'"]"#, 2),
        (r#"[flock, lock, -c, "echo {case}"]"#, 3),
        (r#"[script, -q, -c, "echo {case}", /dev/null]"#, 3),
        (
            r#"[python3, -Ic, "import os; os.system('echo {case}')"]"#,
            2,
        ),
        (
            r#"[python3.11, -c, "import os; os.system('echo {case}')"]"#,
            2,
        ),
        (r#"[perl, -le, "system('echo {case}')"]"#, 2),
        (
            r#"[node, -p, "require('child_process').execSync('echo {case}')"]"#,
            2,
        ),
        (r#"[awk, "BEGIN { system(\"echo {case}\") }"]"#, 1),
        // Path characters alone, but an option that takes code: a script for python3, node.
        (r#"[python3, "-c{case}"]"#, 1),
        (r#"[node, "--eval={document}"]"#, 1),
    ] {
        std::fs::write(
            cases.join("suite.yaml"),
            format!("run:\n  command: {command}\n"),
        )
        .unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        assert_eq!(out.status.code(), Some(101), "{command}: {}", stdout(&out));
        let block = failure_block(&stdout(&out), "$(touch pwned)");
        assert!(
            block.starts_with(&format!(
                "error: cases/suite.yaml:2:3: run.command[{at}]: a placeholder inside a shell script would be pasted in unquoted"
            )),
            "{command}: {block}"
        );
        assert!(
            block.contains("(pass it as an argument of its own and quote it in the script"),
            "{block}"
        );
        assert!(!dir.path().join("pwned").exists() && !cases.join("pwned").exists());
    }
    // Whole arguments and file paths are where a placeholder may stand: these run, for a case
    // whose name holds nothing a program reads as code (the value's own check refuses the other).
    std::fs::remove_file(cases.join("$(touch pwned).yaml")).unwrap();
    std::fs::write(cases.join("plain-1.yaml"), CASE).unwrap();
    std::fs::write(
        cases.join("suite.yaml"),
        "run:\n  command: [sh, -c, 'test \"$2\" = \"out/$1.json\" && printf \"{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}\"', sh, \"{case}\", \"out/{case}.json\"]\n",
    )
    .unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!dir.path().join("pwned").exists() && !cases.join("pwned").exists());
}

/// A judge's command is given no placeholder (it reads its questions on standard input): one
/// written there would reach the judge as literal text.
#[test]
fn a_placeholder_in_a_judge_command_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/x.yaml", CASE),
            (
                "cases/suite.yaml",
                "judge:\n  command: [python3, judge.py, \"{case}\"]\n  verdicts: verdicts.json\n",
            ),
        ],
    );
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(
            "error: cases/suite.yaml:2:3: judge.command[2]: `{case}` holds a placeholder, but a judge's command takes none"
        ),
        "{}",
        stdout(&out)
    );
}

/// Two pipelines reading the same files, or a pipeline whose path names no case, would score
/// one prediction as two pipelines, or every case against one file.
#[test]
fn pipelines_that_share_their_files_or_name_no_case_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/x.yaml", CASE),
            ("cases/out/a/x.json", "{\"a\": \"1\"}"),
            ("cases/out/b/x.json", "{\"a\": \"1\"}"),
        ],
    );
    let suite = dir.path().join("cases/suite.yaml");
    for (pipelines, error) in [
        (
            "pipelines:\n  a: out/a/{case}.json\n  b: out/a/{case}.json\n",
            "error: cases/suite.yaml:3:6: pipelines.b: pipelines `a` and `b` read the same files (`out/a/{case}.json`): each would be scored on the other's predictions (give each pipeline its own folder: `b: outputs/b/{case}.json`)",
        ),
        (
            // `{pipeline}` written out by hand is the same file as `{pipeline}` filled in.
            "pipelines:\n  a: out/{pipeline}/{case}.json\n  b: out/a/{case}.json\n",
            "error: cases/suite.yaml:3:6: pipelines.b: pipelines `a` and `b` read the same files (`out/a/{case}.json`)",
        ),
        (
            "pipelines:\n  a: out/a/x.json\n",
            "error: cases/suite.yaml:2:6: pipelines.a: `out/a/x.json` names no case: every case would be scored against this one file (put the case's name in the path: `a: outputs/a/{case}.json`)",
        ),
    ] {
        std::fs::write(&suite, pipelines).unwrap();
        let out = goldgate(dir.path(), &["lint", "cases"]);
        assert_eq!(out.status.code(), Some(1), "{pipelines}: {}", stdout(&out));
        assert!(
            stdout(&out).contains(error),
            "{pipelines}: {}",
            stdout(&out)
        );
    }
    // One path for every pipeline, told apart by `{pipeline}`, is each pipeline's own.
    std::fs::write(
        &suite,
        "pipelines:\n  a: out/{pipeline}/{case}.json\n  b: out/{pipeline}/{case}.json\n",
    )
    .unwrap();
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// Standard error flooded with NULs, or one line of megabytes: the message and the report keep
/// a tail of bounded lines, the NULs shown escaped (it was 805 MB of report for one case).
#[test]
fn a_flood_of_nuls_or_one_long_line_on_standard_error_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/nuls/x.yaml", CASE),
            (
                "cases/nuls/suite.yaml",
                "run:\n  command: [sh, -c, 'head -c 8000000 /dev/zero >&2; exit 3']\n",
            ),
            ("cases/line/x.yaml", CASE),
            (
                "cases/line/suite.yaml",
                "run:\n  command: [sh, -c, 'echo first >&2; head -c 8000000 /dev/zero | tr \"\\0\" x >&2; exit 3']\n",
            ),
        ],
    );
    let report = dir.path().join("report.json");
    let out = goldgate(
        dir.path(),
        &["test", "cases", "--report", report.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(101));
    let text = stdout(&out);
    for name in ["nuls/x", "line/x"] {
        let block = failure_block(&text, name);
        assert!(
            block.contains("failed (exit status: 3)")
                && block.contains("end of its standard error:"),
            "{}",
            &block[..block.len().min(2000)]
        );
        assert!(
            block.len() < 8 << 10,
            "{name}: a block of {} bytes",
            block.len()
        );
        assert!(block.contains(" … (cut at 300 characters)"), "{block}");
    }
    assert!(
        failure_block(&text, "nuls/x").contains("… \\0\\0\\0"),
        "{text}"
    );
    assert!(
        failure_block(&text, "line/x").contains("  … xxxx"),
        "{text}"
    );
    assert!(text.len() < 64 << 10, "{} bytes of output", text.len());
    let size = std::fs::metadata(&report).unwrap().len();
    assert!(size < 256 << 10, "a report of {size} bytes");
}

/// A grandchild that left the command's process group and keeps writing on its standard output
/// costs no memory once its command is done (each one pinned up to 64 MiB for the rest of the
/// run: 24 cases, 2.2 GB): its reader stops and closes the pipe.
#[cfg(target_os = "linux")]
#[test]
fn grandchildren_that_keep_writing_cost_no_memory_after_their_command_exits() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![
        (
            "cases/chatty/suite.yaml".to_string(),
            // The grandchild starts writing after the command exited and its pipes were read.
            "run:\n  command: [sh, -c, \"setsid sh -c 'sleep 1.2; exec yes' & sleep 0.2; echo '{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}'\"]\n".to_string(),
        ),
        ("cases/zz/x.yaml".to_string(), CASE.to_string()),
        (
            // The run lasts while the grandchildren write.
            "cases/zz/suite.yaml".to_string(),
            "run:\n  command: [sh, -c, \"sleep 2.5; echo '{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}'\"]\n".to_string(),
        ),
    ];
    for i in 0..8 {
        files.push((format!("cases/chatty/c{i}.yaml"), CASE.to_string()));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(dir.path(), &files);
    let (out, peak_kib) = with_peak_memory(command(dir.path(), &["test", "cases"]));
    assert_eq!(
        verdict(&stdout(&out), "zz/x").as_deref(),
        Some("ok"),
        "{}",
        stdout(&out)
    );
    assert!(
        peak_kib < 200 << 10,
        "peak memory {} MiB: readers kept what the grandchildren wrote",
        peak_kib >> 10
    );
}

/// A document of gigabytes is keyed for the run's shared outputs from its size and its first
/// bytes, read in chunks (it was read whole: 3.1 GB for a 3 GiB scan).
#[cfg(target_os = "linux")]
#[test]
fn a_huge_document_is_never_read_whole_to_key_a_shared_output() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/big.yaml",
                &format!("document: scans/big.pdf\n{CASE}"),
            ),
            (
                "cases/suite.yaml",
                "run:\n  command: [sh, -c, \"echo '{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}'\", sh, \"{document}\"]\n",
            ),
        ],
    );
    // Sparse: a gigabyte that takes no room on the disk.
    std::fs::create_dir_all(dir.path().join("cases/scans")).unwrap();
    std::fs::File::create(dir.path().join("cases/scans/big.pdf"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut cmd = command(dir.path(), &["test", "cases"]);
    cmd.env("GOLDGATE_RUN_ID", "huge-document")
        .env("TMPDIR", state.path());
    let (out, peak_kib) = with_peak_memory(cmd);
    let text = stdout(&out);
    assert_eq!(verdict(&text, "big").as_deref(), Some("ok"), "{text}");
    assert!(
        peak_kib < 200 << 10,
        "peak memory {} MiB: the document was read whole",
        peak_kib >> 10
    );
}

/// The baseline is read as every input is: a FIFO in its place fails at once (`test` and
/// `lint` hung on it), and a file over the input budget is refused unread.
#[cfg(unix)]
#[test]
fn a_baseline_that_is_a_fifo_or_too_large_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/x.yaml",
                &format!("prediction: {{ a: \"1\" }}\n{CASE}"),
            ),
            ("cases/suite.yaml", "baseline: baseline.json\n"),
        ],
    );
    let baseline = dir.path().join("cases/baseline.json");
    // A test that skipped itself would pass having checked nothing: mkfifo is POSIX.
    assert!(mkfifo(&baseline), "mkfifo makes a FIFO");
    let patience = Duration::from_secs(60);
    for args in [&["test", "cases"][..], &["lint", "cases"]] {
        let out = ended(command(dir.path(), args), patience)
            .unwrap_or_else(|| panic!("`goldgate {}` hung on a FIFO baseline", args.join(" ")));
        let shown = format!("{}{}", stdout(&out), stderr(&out));
        assert_ne!(out.status.code(), Some(0), "{shown}");
        assert!(
            shown.contains("cannot read the baseline `cases/baseline.json`: this is not a regular file (a FIFO, a socket or a device)"),
            "{shown}"
        );
    }
    std::fs::remove_file(&baseline).unwrap();
    std::fs::File::create(&baseline)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert!(
        stdout(&out).contains("cannot read the baseline `cases/baseline.json`: the file is 67108865 bytes, more than goldgate reads (64 MiB)"),
        "{}",
        stdout(&out)
    );
}

/// A baseline entry edited to `{}` (or whose fields are) compares nothing, so it hid any
/// regression: it is an error naming the file, the entry and the fix, and the fix works.
#[test]
fn a_baseline_entry_without_numbers_is_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            // The prediction is wrong: any real entry (anls 1) would show the regression.
            (
                "cases/x.yaml",
                "prediction: { a: abce }\ngold: { a: abcd }\nthresholds: { min_anls: 0.5 }\n",
            ),
            ("cases/suite.yaml", "baseline: baseline.json\n"),
        ],
    );
    let baseline = dir.path().join("cases/baseline.json");
    for (entry, what) in [
        ("{}", "the entry `x` holds no metric"),
        ("{\"fields\": {}}", "the entry `x` holds no metric"),
        (
            "{\"anls\": 0.0, \"fields\": {\"a\": {}}}",
            "the field `a` of the entry `x` holds no metric",
        ),
    ] {
        std::fs::write(
            &baseline,
            format!("{{\"goldgate_baseline\": 1, \"cases\": {{\"x\": {entry}}}}}"),
        )
        .unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        assert_eq!(out.status.code(), Some(101), "{entry}: {}", stdout(&out));
        let block = failure_block(&stdout(&out), "x");
        assert!(
            block.contains(&format!("the baseline `cases/baseline.json`: {what}, so it would hide any regression of its test (write its numbers again with `GOLDGATE_UPDATE=always` and `--exact x`, or delete the entry)")),
            "{entry}: {block}"
        );
        let lint = goldgate(dir.path(), &["lint", "cases"]);
        assert_eq!(lint.status.code(), Some(1));
        assert!(stdout(&lint).contains(what), "{}", stdout(&lint));
    }
    // The fix the message gives: the blessing fills the entry again, and the test then holds.
    let mut bless = command(dir.path(), &["test", "cases", "--exact", "x"]);
    bless.env("GOLDGATE_UPDATE", "always");
    let out = bless.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// A placeholder standing as a whole argument still reaches a program that reads that argument
/// as code (`sh -c`, `awk`, `perl -e`, `sed`'s `e` command, or a script path handed to `sh -c`):
/// a case file's name ran `touch` in all five. Its value is refused instead, for that case alone,
/// at its file; the other cases run.
#[test]
fn a_placeholder_value_a_program_may_read_as_code_is_refused() {
    let fields = "printf '{\"fields\": {\"a\": \"1\"}}'";
    for (command, name, what) in [
        (
            r#"[sh, -c, "{case}"]"#,
            r#"touch PWNED; echo {"x":"right"}"#,
            "a space",
        ),
        (
            r#"[awk, "{case}"]"#,
            r#"BEGIN{system("touch PWNED")}"#,
            "`{`",
        ),
        (r#"[perl, -e, "{case}"]"#, r#"system("touch PWNED")"#, "`(`"),
        // Characters no shell reads specially, but perl does: an allow-list keeps them out.
        (r#"[perl, -e, "{case}"]"#, "exec+q,touch,,q,PWNED,", "`+`"),
        (
            r#"[sed, -n, "{case}", suite.yaml]"#,
            "1e touch PWNED",
            "a space",
        ),
        (
            r#"[sh, -c, "outputs/{case}.sh"]"#,
            "x;touch PWNED2;y",
            "`;`",
        ),
        (
            r#"[sh, -c, "{case}"]"#,
            "-x",
            "a leading `-`, which makes it an option",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let file = format!("cases/{name}.yaml");
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", &format!("run:\n  command: {command}\n")),
                (&file, CASE),
                // A name no program reads as code runs as before.
                ("cases/plain.yaml", CASE),
                ("cases/plain.sh", &format!("{fields}\n")),
            ],
        );
        let out = goldgate(dir.path(), &["test", "cases"]);
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(101), "{command}: {shown}");
        let block = failure_block(&shown, name);
        let placeholder_arg = command
            .split(", ")
            .find(|a| a.contains("{case}"))
            .unwrap()
            .trim_matches(['"', ']']);
        let index = command
            .split(", ")
            .position(|a| a.contains("{case}"))
            .unwrap();
        assert_eq!(
            block.lines().next().unwrap(),
            format!(
                "error: {file}:1:1: this case's name `{name}` would fill `{{case}}` in `run.command[{index}]` (`{placeholder_arg}`) of `cases/suite.yaml:2:3`, and it holds {what}: a shell or interpreter may read it as code (`[sh, -c, \"{{case}}\"]` runs it), so no such value is passed to a command (rename the case file with letters, digits and `_ - .` only, or pass the command its `document:` with `{{document}}` instead)"
            ),
            "{command}"
        );
        for touched in ["PWNED", "PWNED2", "cases/PWNED", "cases/PWNED2"] {
            assert!(
                !dir.path().join(touched).exists(),
                "{command} ran {touched}"
            );
        }
        assert_ne!(verdict(&shown, "plain"), None, "{shown}");
    }
    // `{document}` is checked at the case's `document:`, where the path is written.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [cat, \"{document}\"]\n",
            ),
            (
                "cases/x.yaml",
                &format!("document: \"scans/$(touch PWNED).txt\"\n{CASE}"),
            ),
            (
                "cases/scans/$(touch PWNED).txt",
                "{\"fields\": {\"a\": \"1\"}}",
            ),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let block = failure_block(&stdout(&out), "x");
    assert!(
        block.starts_with("error: cases/x.yaml:1:11: document: the document's path `scans/$(touch PWNED).txt` would fill `{document}` in `run.command[1]` (`{document}`) of `cases/suite.yaml:2:3`, and it holds `$`"),
        "{block}"
    );
}

/// A tolerance of 1 or more lets a metric of [0, 1] drop any way without a regression, and an
/// entry value outside [0, 1] (`-1e308`, `-5`) compares with no score: both hid the regression of
/// a wrong prediction. The tolerance is refused at the suite; the entry is an error naming the
/// file, the entry and the fix, which works.
#[test]
fn a_baseline_that_cannot_bind_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/x.yaml",
                "prediction: { a: abce }\ngold: { a: abcd }\nthresholds: { min_anls: 0.5 }\n",
            ),
            (
                "cases/suite.yaml",
                "baseline: baseline.json\ntolerance: 1\n",
            ),
        ],
    );
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("error: cases/suite.yaml:2:12: tolerance: `tolerance` is 1, so the baseline never flags a drop: every metric it keeps lies in [0, 1], and drops by 1 at most (write how far a metric may drop below its baseline, such as `tolerance: 0.02`)"),
        "{}",
        stdout(&out)
    );
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "baseline: baseline.json\n",
    )
    .unwrap();
    let baseline = dir.path().join("cases/baseline.json");
    for (entry, what) in [
        ("{\"anls\": -1e308}", "the entry `x` holds `anls: -1e308`"),
        ("{\"anls\": -5}", "the entry `x` holds `anls: -5`"),
        (
            "{\"anls\": 0.5, \"fields\": {\"a\": {\"em\": -5, \"anls\": 0.5}}}",
            "the field `a` of the entry `x` holds `em: -5`",
        ),
    ] {
        std::fs::write(
            &baseline,
            format!("{{\"goldgate_baseline\": 1, \"cases\": {{\"x\": {entry}}}}}"),
        )
        .unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        assert_eq!(out.status.code(), Some(101), "{entry}: {}", stdout(&out));
        let block = failure_block(&stdout(&out), "x");
        let value = what.rsplit(": ").next().unwrap().trim_end_matches('`');
        let what = what.replace(value, &value.parse::<f64>().unwrap().to_string());
        assert!(
            block.contains(&format!("the baseline `cases/baseline.json`: {what}, outside [0, 1] where the metric lies, so it compares with no score its test can have (write its numbers again with `GOLDGATE_UPDATE=always` and `--exact x`, or delete the entry)")),
            "{entry}: {block}"
        );
    }
    // Underflow reads as 0, a value the metric takes: the entry compares, and the drop shows.
    std::fs::write(
        &baseline,
        "{\"goldgate_baseline\": 1, \"cases\": {\"x\": {\"anls\": 1e-400}}}",
    )
    .unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert!(!stdout(&out).contains("outside [0, 1]"), "{}", stdout(&out));
    // The fix the message gives.
    std::fs::write(
        &baseline,
        "{\"goldgate_baseline\": 1, \"cases\": {\"x\": {\"anls\": -5}}}",
    )
    .unwrap();
    let mut bless = command(dir.path(), &["test", "cases", "--exact", "x"]);
    bless.env("GOLDGATE_UPDATE", "always");
    let out = bless.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// A document's path may hold spaces (scans and exports are named so, and a document outside
/// the suite's folder is named by its absolute path): `{document}` takes it, whole, as one
/// argument, while a case name with a space is refused.
#[test]
fn a_document_path_with_spaces_reaches_the_command_as_one_argument() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [sh, -c, 'test -f \"$1\" && printf \"{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}\"', sh, \"{document}\"]\n",
            ),
            (
                "cases/acme.yaml",
                "document: \"scans/acme invoice 173.pdf\"\ngold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/scans/acme invoice 173.pdf", "%PDF-1.4\n"),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout(&out).contains("test acme ... ok"),
        "{}",
        stdout(&out)
    );
}

/// A FIFO (or a folder) named as `document:` is there but is no document: the case fails saying
/// what it is, not that it does not exist, and nothing waits on the FIFO.
#[test]
fn a_document_that_is_a_fifo_or_a_folder_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [cat, \"{document}\"]\n",
            ),
            (
                "cases/fifo.yaml",
                "document: scan.pdf\ngold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/folder.yaml",
                "document: scans\ngold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/scans/keep", ""),
        ],
    );
    assert!(
        mkfifo(&dir.path().join("cases/scan.pdf")),
        "mkfifo makes a FIFO"
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(
        text.contains("document: the document `cases/scan.pdf` is a FIFO or a device, not a file (name the scan itself, a regular file)"),
        "{text}"
    );
    assert!(
        text.contains("document: the document `cases/scans` is a folder, not a file"),
        "{text}"
    );
}
