#!/usr/bin/env bash
# The fuzz campaign: every target of fuzz/ for RUNS inputs each (default 2,000,000), its corpus
# seeded from the shipped gold set, then a table of inputs run and crashes found per target.
#
#   fuzz/run.sh [RUNS] [TARGET...]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Built without a
# sanitizer (the fuzzed paths are safe Rust; ASan would only slow the campaign down), with
# libFuzzer's own bounds set to goldgate's per-case budgets: 1 GB of memory, and 10 s per input
# (5 s of scoring plus a fuzz build's debug assertions).
set -euo pipefail
cd "$(dirname "$0")"
# The targets write their inputs to a scratch project: in memory when the machine has it.
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
runs=${1:-2000000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(case prediction rubric_set suite baseline score_line reading)

# Seeds: what a real project holds, per kind.
seed() {
  local target=$1; shift
  mkdir -p "corpus/$target"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "corpus/$target/seed-$(echo "$f" | tr '/' '_')"
  done
  return 0
}
shopt -s globstar nullglob
seed case ../cases/**/*.yaml ../tests/fixtures/**/cases/**/*.yaml
seed rubric_set ../rubrics/*.yaml ../tests/fixtures/**/rubrics/*.yaml
seed suite ../cases/**/suite.yaml ../tests/fixtures/**/suite.yaml
seed baseline ../cases/**/*baseline*.json ../tests/fixtures/**/*baseline*.json
mkdir -p corpus/prediction corpus/score_line
for f in ../cases/**/*.json ../tests/fixtures/**/outputs/*.json; do
  { printf '\x00'; cat "$f"; } > "corpus/prediction/seed-json-$(echo "$f" | tr '/' '_')"
done
for f in ../cases/**/outputs/*.yaml; do
  { printf '\x01'; cat "$f"; } > "corpus/prediction/seed-yaml-$(echo "$f" | tr '/' '_')"
done
# Amounts and dates as the tests write them, each against another.
mkdir -p corpus/reading
i=0
for pair in '1 234,50\x001234.5' '(-12.50)\x00-12.5\x000.01' '1e308\x00-1e308' \
  '1234567890123456789012345678901234567890\x001234567890123456789012345678901234567891' \
  '2024-03-05T10:30:00+01:00\x0005/03/2024' 'March 5th, 2024\x005 mars 2024' '12.00-\x00€1,234.50\x000.5'; do
  printf "$pair" > "corpus/reading/seed-$i"; i=$((i + 1))
done
for f in ../tests/reference/*.jsonl; do
  head -n 200 "$f" | split -a 4 -l 1 - "corpus/score_line/seed-$(basename "$f")-"
done

cargo +nightly fuzz build --sanitizer none --release >/dev/null
printf '%-12s %12s %8s %10s\n' target inputs crashes seconds
total=0
for t in "${targets[@]}"; do
  log="artifacts/$t.log"
  mkdir -p "artifacts/$t"
  start=$(date +%s)
  set +e
  cargo +nightly fuzz run --sanitizer none --release "$t" "corpus/$t" -- \
    -runs="$runs" -rss_limit_mb=1024 -timeout=10 -max_len=65536 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1
  set -e
  done_runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  crashes=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
  printf '%-12s %12s %8s %10s\n' "$t" "${done_runs:-0}" "$crashes" "$(( $(date +%s) - start ))"
  total=$(( total + ${done_runs:-0} ))
done
printf '%-12s %12s\n' total "$total"
