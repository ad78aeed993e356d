#!/usr/bin/env bash
# Side by side: goldgate vs promptfoo on the same generated suite of recorded outputs, in one run.
#
#   perf/vs_promptfoo.sh GOLDGATE_EXE [N_CASES]        # default N_CASES: 1000
#
# The suite comes from perf/gen_suite.py N OUT, which must write OUT/cases/bulk/... (goldgate's cases) and
# OUT/promptfoo/promptfooconfig.json (the same recorded outputs with equivalent per-field asserts: equals,
# levenshtein, icontains, regex). promptfoo 0.123.1 needs Node >= 22: on first use both are installed from
# the npm registry into $TMPDIR/goldgate-perf-peers (default /tmp). Prints one line: CPU (user + sys, from
# /usr/bin/time, children included) and wall time of `promptfoo eval` and of
# `GOLDGATE_EXE test OUT/cases --color never`, and the promptfoo/goldgate ratios. Fails loudly when either
# tool did not do the work (no promptfoo output file, a count of tests other than N, promptfoo errors, or
# goldgate ending without its libtest summary, e.g. a panic, which also exits 101).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 GOLDGATE_EXE [N_CASES]" >&2; exit 2; }
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-1000}
[ -x "$exe" ] || { echo "error: $exe is not an executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
scratch=${TMPDIR:-/tmp}/goldgate-perf-peers
mkdir -p "$scratch/pf" "$scratch/node22"

if [ ! -x "$scratch/node22/node_modules/.bin/node" ]; then
  echo "installing node@22 into $scratch/node22 (first use)" >&2
  (cd "$scratch/node22" && npm init -y >/dev/null && npm install -s node@22 --no-audit --no-fund)
fi
node22=$scratch/node22/node_modules/.bin/node
pf_main=$scratch/pf/node_modules/promptfoo/dist/src/main.js
if [ ! -f "$pf_main" ]; then
  echo "installing promptfoo@0.123.1 into $scratch/pf (first use)" >&2
  (cd "$scratch/pf" && npm init -y >/dev/null \
    && PATH="$scratch/node22/node_modules/.bin:$PATH" npm install -s promptfoo@0.123.1 --no-audit --no-fund)
fi

# The suite, generated once per N (again when gen_suite.py changes), atomically.
suite=$scratch/suite-$n
if [ ! -f "$suite/.done" ] || [ "$here/gen_suite.py" -nt "$suite/.done" ]; then
  rm -rf "$suite" "$suite.tmp"
  python3 "$here/gen_suite.py" "$n" "$suite.tmp" >/dev/null
  mv "$suite.tmp" "$suite" && touch "$suite/.done"
fi
config=$suite/promptfoo/promptfooconfig.json
[ -f "$config" ] || { echo "error: $here/gen_suite.py wrote no promptfoo config ($config): nothing to compare against" >&2; exit 1; }

export PATH="$scratch/node22/node_modules/.bin:$PATH" PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 \
  PROMPTFOO_DISABLE_SHARING=1 PROMPTFOO_CONFIG_DIR="$scratch/pfcfg"
log=$scratch/run-$n
rm -f "$suite/promptfoo/out.json" "$log".*

# promptfoo: exit 0 when all tests pass, 100 when some fail; anything else is a crash.
set +e
(cd "$suite/promptfoo" && /usr/bin/time -o "$log.pf.time" -f '%e %U %S' "$node22" "$pf_main" eval \
  -c promptfooconfig.json --no-cache --no-table --no-progress-bar -o out.json >"$log.pf.out" 2>"$log.pf.err")
pf_rc=$?
/usr/bin/time -o "$log.gg.time" -f '%e %U %S' "$exe" test "$suite/cases" --color never >"$log.gg.out" 2>"$log.gg.err"
gg_rc=$?
set -e

fail() { echo "error: $1" >&2; shift; for f in "$@"; do echo "--- tail of $f" >&2; tail -n 20 "$f" >&2 || true; done; exit 1; }
[ -s "$suite/promptfoo/out.json" ] || fail "promptfoo (exit $pf_rc) wrote no output file" "$log.pf.out" "$log.pf.err"
[ "$pf_rc" = 0 ] || [ "$pf_rc" = 100 ] || fail "promptfoo exited $pf_rc" "$log.pf.out" "$log.pf.err"
{ [ "$gg_rc" = 0 ] || [ "$gg_rc" = 101 ]; } && grep -q '^test result:' "$log.gg.out" \
  || fail "goldgate exited $gg_rc without its test summary" "$log.gg.out" "$log.gg.err"

python3 - "$n" "$suite/promptfoo/out.json" "$log.pf.time" "$log.gg.time" "$log.gg.out" "$pf_rc" "$gg_rc" <<'EOF'
import json, re, sys
n, out, pf_time, gg_time, gg_out, pf_rc, gg_rc = sys.argv[1:]
n = int(n)
stats = json.load(open(out, encoding='utf-8'))['results']['stats']
ok, bad, err = stats.get('successes', 0), stats.get('failures', 0), stats.get('errors', 0)
if ok + bad + err != n or err:
    sys.exit(f'error: promptfoo ran {ok + bad + err} tests of {n} ({ok} passed, {bad} failed, {err} errors)')
def times(path):  # last line of /usr/bin/time -f '%e %U %S': wall, user, sys
    wall, user, sys_ = map(float, open(path).read().strip().split('\n')[-1].split())
    return wall, user + sys_
(pw, pc), (gw, gc) = times(pf_time), times(gg_time)
m = re.search(r'^test result: \w+\. (\d+) passed; (\d+) failed', open(gg_out, encoding='utf-8').read(), re.M)
ratio = lambda a, b: f'{a / b:.1f}x' if b > 0 else 'inf'
print(f'{n} cases: promptfoo cpu {pc:.2f} s wall {pw:.2f} s ({ok} passed, {bad} failed, exit {pf_rc}); '
      f'goldgate cpu {gc:.2f} s wall {gw:.2f} s ({m[1]} passed, {m[2]} failed, exit {gg_rc}); '
      f'ratio cpu {ratio(pc, gc)}, wall {ratio(pw, gw)}')
EOF
