#!/usr/bin/env bash
# goldgate's CPU time and peak memory on generated gold sets, against the parse floor (reading and
# parsing the same files and nothing else), then side by side with its peers, all in one run.
#
#   perf/measure.sh [SIZES...]          # default: 1000 10000 100000
#   RUNS=5 perf/measure.sh 10000        # the minimum of 5 runs of each command (default 3)
#   PEERS=0 perf/measure.sh             # without promptfoo and anls-star
#
# CPU is user + sys (`/usr/bin/time`), not wall time: ratios move much less than times on a shared
# machine. Suites are generated once into $PERF_DIR (default /tmp/goldgate-perf) by
# perf/gen_suite.py with its default options. The floor is perf/floor, built with the dependencies
# the perf kit's floor was measured with. The peers: perf/vs_promptfoo.sh on 1,000 cases (promptfoo
# 0.123.1 and Node 22 from npm on first use) and perf/vs_anls_star.py on the reference corpus
# (anls-star 1.0.1 from PyPI on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
runs=${RUNS:-3}
out=${PERF_DIR:-/tmp/goldgate-perf}
cargo build --release --quiet --bin goldgate
cargo build --release --quiet --manifest-path perf/floor/Cargo.toml --target-dir target/floor
gg=target/release/goldgate
floor=target/floor/release/parse-floor
mkdir -p "$out"

# The minimum over runs of "cpu_seconds peak_kb" of a command.
measure() {
  local best_cpu="" best_kb=""
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -o "$out/.time" -f '%U %S %M' "$@" >/dev/null 2>&1 || true
    read -r user sys kb < <(tail -n 1 "$out/.time")
    cpu=$(echo "$user + $sys" | bc -l)
    if [ -z "$best_cpu" ] || (( $(echo "$cpu < $best_cpu" | bc -l) )); then best_cpu=$cpu; fi
    if [ -z "$best_kb" ] || [ "$kb" -lt "$best_kb" ]; then best_kb=$kb; fi
  done
  echo "$best_cpu $best_kb"
}

printf '%8s  %-6s %9s %9s %10s %12s\n' cases what cpu_s vs_floor peak_MB cpu_per_case_us
declare -A test_cpu
for n in "${sizes[@]}"; do
  suite="$out/s$n"
  [ -d "$suite/cases" ] || python3 perf/gen_suite.py "$n" "$suite" >/dev/null
  read -r floor_cpu floor_kb < <(measure "$floor" "$suite/cases")
  for what in test lint; do
    read -r cpu kb < <(measure "$gg" "$what" "$suite/cases")
    [ "$what" = test ] && test_cpu[$n]=$cpu
    printf '%8s  %-6s %9.2f %8.2fx %10.0f %12.1f\n' "$n" "$what" "$cpu" \
      "$(echo "$cpu / $floor_cpu" | bc -l)" "$(echo "$kb / 1024" | bc -l)" "$(echo "$cpu * 1000000 / $n" | bc -l)"
  done
  printf '%8s  %-6s %9.2f %8.2fx %10.0f %12.1f\n' "$n" floor "$floor_cpu" 1 \
    "$(echo "$floor_kb / 1024" | bc -l)" "$(echo "$floor_cpu * 1000000 / $n" | bc -l)"
done
if [ -n "${test_cpu[10000]:-}" ] && [ -n "${test_cpu[100000]:-}" ]; then
  printf 'test at 100,000 cases: %.1fx the CPU of 10,000\n' "$(echo "${test_cpu[100000]} / ${test_cpu[10000]}" | bc -l)"
fi
if [ "${PEERS:-1}" != 0 ]; then
  perf/vs_promptfoo.sh "$gg" 1000
  python3 perf/vs_anls_star.py "$gg" 5
fi
