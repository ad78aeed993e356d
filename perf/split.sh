#!/usr/bin/env bash
# The cost of a split run (SPEC §10a): a whole `cargo nextest run` of N generated cases with the
# report, JUnit and HTML written (through `cargo goldgate test --nextest`, which writes them once
# at the end), against the same nextest run of N do-nothing libtest-mimic tests; and the CPU of
# one `--exact` process at each size.
#
#   perf/split.sh [SIZES...]      # default: 1000 10000
#   EXACT_SIZES="1000 100000" perf/split.sh 1000
#
# CPU is user + sys of the whole process tree (`/usr/bin/time` counts waited-for children), the
# minimum of RUNS runs (default 1 for nextest runs, 10 for one process). Crates and suites go to
# $PERF_DIR (default /tmp/goldgate-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000)
exact_sizes=${EXACT_SIZES:-"1000 100000"}
out=${PERF_DIR:-/tmp/goldgate-perf}
runs=${RUNS:-1}
mkdir -p "$out"
export CARGO_TARGET_DIR="$out/target"
cargo build --release --quiet --bins
gg="$CARGO_TARGET_DIR/release/goldgate"
cg="$CARGO_TARGET_DIR/release/cargo-goldgate"

cpu() { # prints "user+sys" seconds of a command, its output discarded
  local best=""
  for _ in $(seq 1 "${2:-$runs}"); do
    local t f
    f=$(mktemp)
    /usr/bin/time -o "$f" -f '%U %S' bash -c "$1" >/dev/null 2>&1 || true
    t=$(tail -1 "$f" | awk '{print $1 + $2}')
    rm -f "$f"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best"
}

suite() { # generates N cases once
  local n=$1
  [ -d "$out/suite-$n/cases" ] || python3 perf/gen_suite.py "$n" "$out/suite-$n" >/dev/null
}

crate() { # a user's crate over the suite of N cases, and a crate of N do-nothing tests
  local n=$1 dir="$out/split-$n"
  mkdir -p "$dir/gold/tests" "$dir/nothing/tests"
  ln -sfn "$out/suite-$n/cases" "$dir/gold/cases"
  cat > "$dir/gold/Cargo.toml" <<TOML
[package]
name = "split-gold"
version = "0.1.0"
edition = "2024"
[dev-dependencies]
goldgate = { path = "$repo" }
[[test]]
name = "goldgate"
harness = false
TOML
  echo 'fn main() -> std::process::ExitCode { goldgate::Harness::new("cases").run() }' > "$dir/gold/tests/goldgate.rs"
  mkdir -p "$dir/gold/src" "$dir/nothing/src"; : > "$dir/gold/src/lib.rs"; : > "$dir/nothing/src/lib.rs"
  cat > "$dir/nothing/Cargo.toml" <<TOML
[package]
name = "split-nothing"
version = "0.1.0"
edition = "2024"
[dev-dependencies]
libtest-mimic = "0.8"
[[test]]
name = "nothing"
harness = false
TOML
  cat > "$dir/nothing/tests/nothing.rs" <<RS
fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let trials = (0..$n).map(|i| libtest_mimic::Trial::test(format!("bulk/c{i:06}"), || Ok(()))).collect();
    libtest_mimic::run(&args, trials).exit();
}
RS
  cp "$repo/Cargo.lock" "$dir/gold/Cargo.lock"
  (cd "$dir/gold" && cargo nextest run --release --no-run)
  (cd "$dir/nothing" && cargo nextest run --release --no-run)
}

echo "size  nextest+outputs_cpu_s  nextest_do_nothing_cpu_s  ratio"
for n in "${sizes[@]}"; do
  suite "$n"; crate "$n"
  dir="$out/split-$n"
  rm -f "$dir/report.json" "$dir/junit.xml" "$dir/report.html"
  g=$(cpu "cd $dir/gold && GOLDGATE_REPORT=$dir/report.json GOLDGATE_JUNIT=$dir/junit.xml GOLDGATE_HTML=$dir/report.html CARGO=cargo $cg goldgate test --nextest -- --release --no-fail-fast -j 2 --hide-progress-bar")
  z=$(cpu "cd $dir/nothing && cargo nextest run --release --no-fail-fast -j 2 --hide-progress-bar")
  echo "$n  $g  $z  $(awk "BEGIN{printf \"%.2f\", $g / $z}")"
  python3 -c "import json,sys; r=json.load(open('$dir/report.json')); print('  report:', len(r['cases']), 'case tests,', len(r['aggregates']), 'aggregates')"
done

echo "size  one_exact_process_cpu_s (min of 10; report, JUnit, HTML set, under a run id)"
for n in $exact_sizes; do
  suite "$n"
  t=$(cpu "cd $out/suite-$n && GOLDGATE_RUN_ID=exact-bench GOLDGATE_REPORT=r.json GOLDGATE_JUNIT=j.xml GOLDGATE_HTML=h.html $gg test cases --exact bulk/c000001" 10)
  echo "$n  $t"
done
