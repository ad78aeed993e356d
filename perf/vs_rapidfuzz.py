#!/usr/bin/env python3
"""Side by side: the DocVQA ANLS a Python user writes with rapidfuzz vs `goldgate score --jsonl`.

usage: python3 perf/vs_rapidfuzz.py GOLDGATE_EXE [ROUNDS]        (default ROUNDS: 5)

Generates 100,000 gold/prediction pairs of document fields (numbers, dates, names with accents,
companies, phrases with ligatures and full-width forms, identifiers; 40% read right, 40% with case,
space or character edits, the rest another value or empty; seeded, the same on every machine) into a
temporary folder in the shape `score --jsonl` reads. The peer (rapidfuzz 3.14.6 from PyPI, into a venv
under the temp dir on first use) lowercases and strips each text as DocVQA's evaluation does and writes
1 - NL below 0.5, else 0, one score a line. Alternates the two ROUNDS times and prints the min and
median of CPU (user + sys of the child, getrusage) and of wall time, and the peer/goldgate ratios.
Then checks the scores pair by pair: bitwise equal wherever the two normalizations agree (ASCII text
without inner runs of white space); elsewhere goldgate's default normalization does more (it strips
accents and collapses inner white space), and the count of pairs that score differently is printed.
"""
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

if len(sys.argv) < 2:
    sys.exit(f'usage: {sys.argv[0]} GOLDGATE_EXE [ROUNDS]')
exe = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5

venv = os.path.join(tempfile.gettempdir(), 'goldgate-perf-peers', 'rapidfuzz-venv')
vpy = os.path.join(venv, 'bin', 'python')
if not os.path.exists(os.path.join(venv, '.done')):
    print(f'installing rapidfuzz 3.14.6 into {venv} (first use)', file=sys.stderr)
    subprocess.run([sys.executable, '-m', 'venv', '--clear', venv], check=True)
    subprocess.run([vpy, '-m', 'pip', 'install', '-q', 'rapidfuzz==3.14.6'], check=True)
    open(os.path.join(venv, '.done'), 'w').close()
rng = random.Random(37)
FIRST = ["Jean", "Zoë", "François", "Müller", "Łukasz", "Ana", "José", "Søren", "Chloé", "Ólafur",
         "Mary", "John", "Wei", "Ahmed", "Björn", "Renée", "Dvořák", "İlker", "Noël", "Grace"]
LAST = ["Dupont", "Hernández", "Schäfer", "O'Brien", "Nguyễn", "Kowalski", "García", "Smith",
        "Johansson", "Lefèvre", "Brontë", "Weiß", "Çelik", "Novák", "Lee"]
COMPANY = ["ACME Corp", "Société Générale", "Crédit Agricole", "Deutsche Bank AG", "Nestlé S.A.",
           "Globex Inc.", "Initech LLC", "Umbrella GmbH", "Stark Industries", "Ørsted A/S",
           "Banco Santander", "Fiat Chrysler", "Tōkyō Electric", "Wayne Enterprises"]
WORDS = ["invoice", "total", "amount due", "net 30", "paid", "shipping", "tax", "VAT", "discount",
         "purchase order", "consulting services", "office supplies", "rue de la Paix", "Hauptstraße",
         "Main Street", "Suite 400", "ﬁnal notice", "Ｎｏ．", "２０２４", "m²", "№ 17", "ǅ", "café au lait"]

def number():
    k = rng.random()
    if k < 0.3: return str(rng.randint(0, 99999))
    if k < 0.6: return f"{rng.uniform(0, 100000):.2f}"
    if k < 0.8: return f"{rng.uniform(0, 100000):,.2f}"
    return f"€ {rng.uniform(0, 5000):.2f}".replace(".", ",")

def date():
    y, m, d = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice([f"{y}-{m:02}-{d:02}", f"{d:02}/{m:02}/{y}", f"{m}/{d}/{y}",
                       f"{d} {['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'][m-1]} {y}"])

def name(): return f"{rng.choice(FIRST)} {rng.choice(LAST)}"
def phrase(): return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
def ident(): return rng.choice(["INV-", "PO", "#", ""]) + "".join(rng.choice("0123456789ABCDEF") for _ in range(rng.randint(4, 12)))

KINDS = [number, date, name, lambda: rng.choice(COMPANY), phrase, ident]

def edit(text):
    """A prediction as a reader gets it wrong: a few characters changed, case or spaces off."""
    k = rng.random()
    if k < 0.25: return text.upper() if rng.random() < 0.5 else text.lower()
    if k < 0.35: return "  " + text + " "
    if k < 0.45: return text.replace(" ", "  ")
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        i = rng.randrange(len(chars) + 1)
        if op < 0.4 and chars: chars[min(i, len(chars) - 1)] = rng.choice("abcdefgh0123456789 .,é")
        elif op < 0.7 and chars: del chars[min(i, len(chars) - 1)]
        else: chars.insert(i, rng.choice("abcxyz019 -é"))
    return "".join(chars)

out = []
for _ in range(100_000):
    gold = rng.choice(KINDS)()
    k = rng.random()
    if k < 0.40: pred = gold
    elif k < 0.80: pred = edit(gold)
    elif k < 0.90: pred = rng.choice(KINDS)()
    elif k < 0.95: pred = ""
    else: gold, pred = ("", "") if rng.random() < 0.5 else ("", edit(rng.choice(KINDS)()))
    out.append(json.dumps({"gold": gold, "pred": pred}, ensure_ascii=rng.random() < 0.5))

work = tempfile.mkdtemp(prefix='vs-rapidfuzz-')
pairs_path = os.path.join(work, 'pairs.jsonl')
with open(pairs_path, 'w', encoding='utf-8') as fh:
    fh.write('\n'.join(out) + '\n')

peer = os.path.join(work, 'anls.py')
with open(peer, 'w', encoding='utf-8') as fh:
    fh.write('''import json, sys
from rapidfuzz.distance import Levenshtein

def anls(gold, pred):
    g, p = gold.strip().lower(), pred.strip().lower()
    nl = Levenshtein.normalized_distance(g, p)
    return 1 - nl if nl < 0.5 else 0.0

with open(sys.argv[1], encoding="utf-8") as f:
    scores = [repr(anls(d["gold"], d["pred"])) for d in map(json.loads, f)]
sys.stdout.write("\\n".join(scores) + "\\n")
''')


def run(cmd, out_path):
    """CPU (user + sys of the child) and wall seconds of one run, its output to out_path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(out_path, 'w') as fh:
        subprocess.run(cmd, stdout=fh, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


ours_out, theirs_out = os.path.join(work, 'goldgate.out'), os.path.join(work, 'rapidfuzz.out')
times = {'goldgate': [], 'rapidfuzz': []}
for _ in range(rounds):
    times['rapidfuzz'].append(run([vpy, peer, pairs_path], theirs_out))
    times['goldgate'].append(run([exe, 'score', '--jsonl', pairs_path], ours_out))
for name, runs in times.items():
    cpu, wall = [c for c, _ in runs], [w for _, w in runs]
    print(f'{name:9}  cpu min {min(cpu):.3f} s  median {statistics.median(cpu):.3f} s   '
          f'wall min {min(wall):.3f} s  median {statistics.median(wall):.3f} s')
for i, what in enumerate(['cpu', 'wall']):
    ratio = [min(r[i] for r in times['rapidfuzz']) / min(r[i] for r in times['goldgate']),
             statistics.median(r[i] for r in times['rapidfuzz']) / statistics.median(r[i] for r in times['goldgate'])]
    print(f'rapidfuzz / goldgate, {what}: {ratio[0]:.1f}x of the minimums, {ratio[1]:.1f}x of the medians')

rows = [json.loads(line) for line in out]
ours = [json.loads(line)['anls'] for line in open(ours_out)]
theirs = [float(line) for line in open(theirs_out)]
if not len(rows) == len(ours) == len(theirs):
    sys.exit(f'error: {len(rows)} pairs, {len(ours)} goldgate scores, {len(theirs)} rapidfuzz scores')


def plain(s):
    """Text on which DocVQA's lowercase and strip is goldgate's normalization."""
    return s.isascii() and ' '.join(s.split()) == s.strip()


agree = [(r, a, b) for r, a, b in zip(rows, ours, theirs) if plain(r['gold']) and plain(r['pred'])]
wrong = [x for x in agree if x[1] != x[2]]
differ = sum(a != b for r, a, b in zip(rows, ours, theirs)) - len(wrong)
print(f'{len(agree)} pairs where the normalizations agree: {len(wrong)} score differently')
print(f'{len(rows) - len(agree)} pairs where goldgate normalizes more: {differ} score differently')
if wrong:
    sys.exit(f'error: goldgate and rapidfuzz differ where they should agree, e.g. {wrong[:3]}')
