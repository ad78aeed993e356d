//! Hardening III: a document's path pasted into a shell's script, control characters of a
//! prediction in every output, a review queue and a case of very many fields, a run killed
//! before its end, and a regression gate over baseline entries that lack its metric. The
//! `goldgate` binary runs over fixture folders made in a temporary folder by each test.

mod support;
use support::{failure_block, goldgate, stderr, stdout, verdict_of, write_files};

const CASE: &str = "gold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n";

/// A document named `touch PWNED` filled the script of `sh -c` and ran as a command (a
/// document's path may hold spaces, as a whole argument). In a script its space is refused, at
/// the suite, with the fix; that case alone fails, the same path passed as an argument of its
/// own still runs, and nothing was touched.
#[test]
fn a_document_path_with_a_space_never_fills_a_script() {
    let fields = "printf '{\"fields\": {\"a\": \"1\"}}'";
    for (command, index) in [
        (r#"[sh, -c, "{document}"]"#, 2),
        (r#"[timeout, "30", bash, -ec, "{document}"]"#, 4),
        (r#"[perl, -e, "{document}"]"#, 2),
        (r#"[env, -S, "{document}"]"#, 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", &format!("run:\n  command: {command}\n")),
                (
                    "cases/evil.yaml",
                    &format!("document: \"touch PWNED\"\n{CASE}"),
                ),
                ("cases/touch PWNED", ""),
                // A path of safe characters still fills the script, and runs.
                (
                    "cases/plain.yaml",
                    &format!("document: bin/plain.sh\n{CASE}"),
                ),
                ("cases/bin/plain.sh", &format!("#!/bin/sh\n{fields}\n")),
            ],
        );
        use std::os::unix::fs::PermissionsExt;
        let script = dir.path().join("cases/bin/plain.sh");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(101), "{command}: {shown}");
        let block = failure_block(&shown, "evil");
        assert_eq!(
            block.lines().next().unwrap(),
            format!(
                "error: cases/suite.yaml:2:3: run.command[{index}]: the document's path `touch PWNED` (of `cases/evil.yaml`) would fill `{{document}}` in `run.command[{index}]` (`{{document}}`), which a shell or interpreter reads as a script, and it holds a space: the script would run it as a command and its arguments, so a value with anything but letters, digits and `_ - . /` is never pasted into a script (pass the path as an argument of its own and quote it in the script: `[sh, -c, 'extract \"$1\"', sh, \"{{document}}\"]`)"
            ),
            "{command}"
        );
        for touched in ["PWNED", "cases/PWNED"] {
            assert!(
                !dir.path().join(touched).exists(),
                "{command} ran {touched}"
            );
        }
        if command.starts_with("[sh") {
            assert_eq!(verdict_of(&shown, "plain"), "test plain ... ok", "{shown}");
        }
    }
    // The fix the message names runs the same document, its space and all.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [sh, -c, 'test -f \"$1\" && printf \"{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}\"', sh, \"{document}\"]\n",
            ),
            (
                "cases/evil.yaml",
                &format!("document: \"touch PWNED\"\n{CASE}"),
            ),
            ("cases/touch PWNED", ""),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(!dir.path().join("cases/PWNED").exists());
}
