#!/usr/bin/env python3
"""Side by side: the `anls-star` Python package vs `goldgate score --jsonl --profile anls_star`, same corpus.

usage: python3 perf/vs_anls_star.py GOLDGATE_EXE [ROUNDS]        (default ROUNDS: 3)

Reads the project's reference corpus, tests/reference/anls_star.jsonl (lines with "gt" and "pred"; a gold
tuple of alternatives is written {"__tuple__": [...]}), writes it once in each tool's input format to a
temporary folder, then alternates the two ROUNDS times: the package (anls-star 1.0.1 with munkres 1.1.4,
installed from PyPI into a venv under the temp dir on first use) scoring every line with anls_score(gt, pred),
and goldgate scoring the same lines. Prints the medians of wall time and of CPU time (user + sys of the
child process, from resource.getrusage(RUSAGE_CHILDREN)) and the package/goldgate ratios. Fails loudly when
either tool exits non-zero or scores a number of lines other than the corpus's.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

if len(sys.argv) < 2:
    sys.exit(f'usage: {sys.argv[0]} GOLDGATE_EXE [ROUNDS]')
exe = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, '..', 'tests', 'reference', 'anls_star.jsonl')

venv = os.path.join(tempfile.gettempdir(), 'goldgate-perf-peers', 'anls-star-venv')
vpy = os.path.join(venv, 'bin', 'python')
if not os.path.exists(os.path.join(venv, '.done')):
    print(f'installing anls-star 1.0.1 and munkres 1.1.4 into {venv} (first use)', file=sys.stderr)
    subprocess.run([sys.executable, '-m', 'venv', '--clear', venv], check=True)
    subprocess.run([vpy, '-m', 'pip', 'install', '-q', 'anls-star==1.0.1', 'munkres==1.1.4'], check=True)
    open(os.path.join(venv, '.done'), 'w').close()

with open(corpus, encoding='utf-8') as fh:
    lines = [json.loads(line) for line in fh if line.strip()]
for i, line in enumerate(lines):
    if 'gt' not in line or 'pred' not in line:
        sys.exit(f'error: {corpus} line {i + 1} has no "gt" or no "pred"')


def conv(v):
    """The corpus's gold in goldgate's format: a tuple of alternatives becomes any_of."""
    if isinstance(v, dict):
        if set(v) == {'__tuple__'}:
            return {'any_of': [conv(x) for x in v['__tuple__']]}
        return {k: conv(x) for k, x in v.items()}
    return [conv(x) for x in v] if isinstance(v, list) else v


work = tempfile.mkdtemp(prefix='vs-anls-star-')
ours = os.path.join(work, 'in.jsonl')
theirs = os.path.join(work, 'ref.jsonl')
with open(ours, 'w', encoding='utf-8') as fh:
    for line in lines:
        fh.write(json.dumps({'gold': conv(line['gt']), 'pred': line['pred']}, ensure_ascii=False) + '\n')
with open(theirs, 'w', encoding='utf-8') as fh:
    for line in lines:
        fh.write(json.dumps({'gt': line['gt'], 'pred': line['pred']}, ensure_ascii=False) + '\n')

peer = f'''
import json
from anls_star import anls_score
def tup(v):
    if isinstance(v, dict):
        return tuple(tup(x) for x in v["__tuple__"]) if set(v) == {{"__tuple__"}} else {{k: tup(x) for k, x in v.items()}}
    return [tup(x) for x in v] if isinstance(v, list) else v
rows = [json.loads(l) for l in open({theirs!r}, encoding="utf-8") if l.strip()]
n = 0
for r in rows:
    anls_score(tup(r["gt"]), r["pred"])
    n += 1
print(n)
'''


def run(cmd, out_path):
    """Wall and CPU (user + sys of the child) seconds of one run, stdout to out_path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out_path, 'w', encoding='utf-8') as out:
        subprocess.run(cmd, check=True, stdout=out)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


A, B = [], []
peer_out, gg_out = os.path.join(work, 'peer.out'), os.path.join(work, 'gg.out')
for _ in range(rounds):
    A.append(run([vpy, '-W', 'ignore', '-c', peer], peer_out))
    B.append(run([exe, 'score', '--profile', 'anls_star', '--jsonl', ours], gg_out))
    scored_peer = int(open(peer_out, encoding='utf-8').read().strip())
    with open(gg_out, encoding='utf-8') as fh:
        scored_gg = [l for l in fh if l.strip()]
    errors = sum('"error"' in l for l in scored_gg)
    if scored_peer != len(lines) or len(scored_gg) != len(lines) or errors:
        sys.exit(f'error: {len(lines)} lines, anls-star scored {scored_peer}, goldgate {len(scored_gg)} '
                 f'({errors} errors)')

aw, ac = statistics.median(w for w, _ in A), statistics.median(c for _, c in A)
bw, bc = statistics.median(w for w, _ in B), statistics.median(c for _, c in B)
ratio = lambda a, b: f'{a / b:.1f}x' if b > 0 else 'inf'
print(f'{len(lines)} lines: anls-star cpu {ac:.3f} s wall {aw:.3f} s, goldgate cpu {bc:.3f} s wall {bw:.3f} s; '
      f'ratio cpu {ratio(ac, bc)}, wall {ratio(aw, bw)} (medians of {rounds})')
