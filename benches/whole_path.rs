//! The whole path on generated gold sets: `goldgate test` and `goldgate lint` as a user runs them,
//! one process each, beside the parse floor (reading and parsing the same files, nothing else).
//!
//! `cargo bench --bench whole_path` (GOLDGATE_BENCH_CASES=10000 for a larger set). The gold set is
//! made once by `perf/gen_suite.py` (python3) in the target folder; without python3 the bench says
//! so and measures nothing. CPU ratios and peak memory at 10,000 and 100,000 cases: `perf/measure.sh`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

/// The generated gold set of `n` cases, made on first use.
fn gold_set(n: usize) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root
        .join("target")
        .join("bench-suites")
        .join(format!("s{n}"));
    if !out.join("cases").is_dir() {
        let made = Command::new("python3")
            .arg(root.join("perf/gen_suite.py"))
            .arg(n.to_string())
            .arg(&out)
            .stdout(Stdio::null())
            .status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!(
                "whole_path: python3 perf/gen_suite.py could not make the gold set; nothing measured"
            );
            return None;
        }
    }
    Some(out.join("cases"))
}

/// The parse floor, built on first use (`perf/floor`, the kit's dependencies).
fn floor() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("floor");
    let built = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root.join("perf/floor/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status();
    built
        .is_ok_and(|s| s.success())
        .then(|| target.join("release").join("parse-floor"))
}

fn run(program: &Path, args: &[&str], cases: &Path) {
    let status = Command::new(program)
        .args(args)
        .arg(cases)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the program runs");
    // A generated set fails about one test in eight (101); anything else is a crash.
    assert!(matches!(status.code(), Some(0 | 1 | 101)), "{status}");
}

fn whole_path(c: &mut Criterion) {
    let n: usize = std::env::var("GOLDGATE_BENCH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let Some(cases) = gold_set(n) else { return };
    let goldgate = Path::new(env!("CARGO_BIN_EXE_goldgate"));
    let mut group = c.benchmark_group(format!("whole path, {n} generated cases"));
    group.sample_size(10);
    group.bench_function("goldgate test", |b| {
        b.iter(|| run(goldgate, &["test"], &cases))
    });
    group.bench_function("goldgate lint", |b| {
        b.iter(|| run(goldgate, &["lint"], &cases))
    });
    if let Some(floor) = floor() {
        group.bench_function("parse floor", |b| b.iter(|| run(&floor, &[], &cases)));
    }
    group.finish();
}

criterion_group!(benches, whole_path);
criterion_main!(benches);
