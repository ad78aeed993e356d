//! goldgate installed without compiling it where it runs: the wheel maturin builds (`pip install`
//! into a fresh virtual environment) and the static Linux binary (`x86_64-unknown-linux-musl`).
//! Each runs `goldgate test cases` in a copy of the shipped gold set and must print what this
//! crate's own binary prints there. Both build goldgate in release (minutes of CPU on 2 cores), so
//! they are ignored unless asked for: `cargo test --test install -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/action_runner.rs"]
mod action_runner;
#[path = "support/e2e.rs"]
mod e2e;
mod support;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `command`, failing the test with its output when it fails.
fn run(command: &mut Command) -> Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} did not start: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed:\n{}{}",
        support::stdout(&out),
        support::stderr(&out)
    );
    out
}

/// Copies the folder `from` to `to`, recursively (the cache of live outputs left out).
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        if rel.components().any(|c| c.as_os_str() == ".goldgate") {
            continue;
        }
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// What `EXE test cases` does in a fresh copy of the shipped gold set (`cases/`, `rubrics/`): its
/// exit code, a line per test and the summary lines (the tables, whose latencies are measured,
/// and the run's duration left out).
fn shipped_gold_set_with(exe: &Path) -> (Option<i32>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["cases", "rubrics"] {
        copy_tree(&root().join(folder), &dir.path().join(folder));
    }
    let mut cmd = Command::new(exe);
    cmd.args(["test", "cases", "--test-threads", "1"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1");
    support::clear_run_settings(&mut cmd);
    let out = cmd.output().unwrap();
    let lines = support::stdout(&out)
        .lines()
        .filter(|l| l.starts_with("test ") || l.starts_with("goldgate: "))
        .map(|l| l.split("; finished in").next().unwrap().to_owned())
        .collect();
    (out.status.code(), lines)
}

/// `exe` runs the shipped gold set as this crate's `goldgate` does.
fn assert_runs_like_the_crates_binary(exe: &Path) {
    let (code, lines) = shipped_gold_set_with(exe);
    let (expected_code, expected) =
        shipped_gold_set_with(Path::new(env!("CARGO_BIN_EXE_goldgate")));
    assert_eq!(code, expected_code, "{}", lines.join("\n"));
    assert_eq!(lines, expected);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("test ") && l.ends_with(" ... ok")),
        "no test ran:\n{}",
        lines.join("\n")
    );
}

/// A virtual environment at `dir` from the `python3` on the PATH; its `bin/` folder.
fn venv(dir: &Path) -> PathBuf {
    run(Command::new("python3").args(["-m", "venv"]).arg(dir));
    dir.join("bin")
}

/// `maturin build --release` (maturin from PyPI, in a scratch environment), then `pip install` of
/// the wheel into a fresh one: its `goldgate` and `cargo-goldgate` are there and run the shipped
/// gold set. The GitHub Action's install step, with no release archive to download, takes the
/// same wheel through pip (from the wheel's folder instead of PyPI) and runs the gate with it.
#[test]
#[ignore = "builds goldgate in release with maturin from PyPI (minutes of CPU): `cargo test --test install -- --ignored wheel`"]
fn the_wheel_installs_the_binaries_that_run_the_shipped_gold_set() {
    let scratch = tempfile::tempdir().unwrap();
    let build = venv(&scratch.path().join("build"));
    run(Command::new(build.join("pip")).args(["install", "--quiet", "maturin>=1.9,<2"]));
    let wheels = scratch.path().join("wheels");
    run(Command::new(build.join("maturin"))
        .args(["build", "--release", "--locked", "--out"])
        .arg(&wheels)
        .current_dir(root())
        .env("CARGO_TARGET_DIR", e2e::target()));
    let wheel: Vec<PathBuf> = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(wheel.len(), 1, "{wheel:?}");
    let name = wheel[0].file_name().unwrap().to_string_lossy().into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("goldgate-{version}-py3-none-")),
        "{name}"
    );

    let user = venv(&scratch.path().join("user"));
    run(Command::new(user.join("pip"))
        .args(["install", "--quiet", "--no-index"])
        .arg(&wheel[0]));
    let out = run(Command::new(user.join("goldgate")).arg("--version"));
    assert_eq!(support::stdout(&out), format!("goldgate {version}\n"));
    let out = run(Command::new(user.join("cargo-goldgate")).args(["goldgate", "--help"]));
    assert!(
        support::stdout(&out).contains("Usage: cargo goldgate"),
        "{out:?}"
    );
    assert_runs_like_the_crates_binary(&user.join("goldgate"));

    let mut runner = action_runner::Runner::new("push");
    runner.env = vec![
        ("PIP_NO_INDEX".into(), "1".into()),
        ("PIP_FIND_LINKS".into(), wheels.display().to_string()),
    ];
    action_runner::write_project(&runner.path("workspace"));
    let run = runner.run(&[]);
    assert_eq!(run.exit_of("Install goldgate"), Some(0), "{}", run.log);
    assert!(
        run.log.contains("goldgate 0.1.0: the wheel from PyPI"),
        "{}",
        run.log
    );
    assert_eq!(runner.calls("curl").len(), 1, "{}", run.log);
    assert_eq!(run.gate["exit-code"], "0", "{}", run.log);
    assert!(run.log.contains("test inv/a ... ok"), "{}", run.log);
}

/// The static Linux build: no program interpreter (the dynamic loader a glibc binary names), so it
/// runs on any Linux, and it runs the shipped gold set.
#[test]
#[ignore = "needs the x86_64-unknown-linux-musl target (`rustup target add x86_64-unknown-linux-musl`) and musl-gcc (Debian's musl-tools): .ci/run runs it when `rustup target list --installed` has the target"]
fn the_static_musl_build_runs_the_shipped_gold_set() {
    const TARGET: &str = "x86_64-unknown-linux-musl";
    let installed = run(Command::new("rustup").args(["target", "list", "--installed"]));
    assert!(
        support::stdout(&installed).lines().any(|l| l == TARGET),
        "the {TARGET} target is not installed: `rustup target add {TARGET}`"
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--bins",
            "--target",
            TARGET,
        ])
        .current_dir(root())
        .env("CARGO_TARGET_DIR", e2e::target()));
    let exe = e2e::target().join(TARGET).join("release/goldgate");
    assert_eq!(
        interpreter(&exe),
        None,
        "{} is linked dynamically",
        exe.display()
    );
    assert_runs_like_the_crates_binary(&exe);
}

/// The glibc build this test target runs names its loader: the check above could fail.
#[test]
fn the_glibc_build_names_its_program_interpreter() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let loader = interpreter(Path::new(env!("CARGO_BIN_EXE_goldgate")))
        .expect("a glibc binary names its loader");
    assert!(loader.starts_with("/lib"), "{loader}");
    assert!(loader.contains("ld-linux"), "{loader}");
}

/// The program interpreter a 64-bit little-endian ELF file names (its `PT_INTERP` segment), if any.
fn interpreter(exe: &Path) -> Option<String> {
    let bytes = std::fs::read(exe).unwrap();
    assert!(
        bytes.starts_with(b"\x7fELF") && bytes[4] == 2 && bytes[5] == 1,
        "{} is no 64-bit little-endian ELF file",
        exe.display()
    );
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize;
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap()) as usize;
    let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    const PT_INTERP: u32 = 3;
    (0..phnum).find_map(|i| {
        let header = phoff + i * phentsize;
        let kind = u32::from_le_bytes(bytes[header..header + 4].try_into().unwrap());
        (kind == PT_INTERP).then(|| {
            let (offset, size) = (u64_at(header + 8), u64_at(header + 32));
            String::from_utf8_lossy(&bytes[offset..offset + size])
                .trim_end_matches('\0')
                .to_owned()
        })
    })
}
