#!/usr/bin/env python3
"""A synthetic gold set for scale measurements, in goldgate's case format, with the same suite as a
promptfoo config for a side-by-side run (perf/vs_promptfoo.sh).

usage: perf/gen_suite.py N OUT [--fields F] [--rubrics R] [--seed S]

Writes OUT/cases/bulk/cNNNNNN.yaml: F gold fields (every third an identifier, one in seven with an
`any_of` variant, two critical) and R rubrics (one Must-Right, the rest Easy-Wrong, cycling through
exact, min_anls, contains, present and matches), with a recorded prediction in
OUT/cases/bulk/outputs/cNNNNNN.json: value objects with confidences, about one field in eight wrong
by a few characters, one in five in capitals, and a latency.
Writes OUT/promptfoo/promptfooconfig.json: one test per case, the recorded output echoed, and per
rubric the nearest promptfoo assert (equals, levenshtein, icontains, regex) on the same field.
The defaults draw the same random numbers, hence the same files, as the generator the figures in
the README's speed section were first taken on.
"""
import argparse
import json
import os
import random

WORDS = ("facture avoir société générale électricité montant total hors taxes acompte échéance "
         "virement référence client commande livraison désignation quantité prix unitaire remise "
         "escompte invoice amount due payment terms purchase order delivery address customer "
         "number").split()

parser = argparse.ArgumentParser()
parser.add_argument("n", type=int)
parser.add_argument("out")
parser.add_argument("--fields", type=int, default=20)
parser.add_argument("--rubrics", type=int, default=5)
parser.add_argument("--seed", type=int, default=7)
args = parser.parse_args()
rng = random.Random(args.seed)
cases = os.path.join(args.out, "cases", "bulk")
outputs = os.path.join(cases, "outputs")
peer = os.path.join(args.out, "promptfoo")
os.makedirs(outputs, exist_ok=True)
os.makedirs(peer, exist_ok=True)


def words():
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))).capitalize()


def misread(text):
    """The text with one to three characters read wrong."""
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(chars))  # drawn before the character, in this order
        chars[at] = rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
    return "".join(chars)


def quoted(text):
    return json.dumps(text, ensure_ascii=False)


CHECKS = ["exact: true", "min_anls: 0.8", None, "present: true", "matches: '.+'"]
PEER_ASSERTS = ["equals", "levenshtein", "icontains", "regex", "regex"]

peer_tests = []
for n in range(args.n):
    name = f"c{n:06d}"
    gold, predicted = {}, {}
    for f in range(args.fields):
        key = f"field_{f:02d}"
        value = words() if f % 3 else f"FA-{rng.randint(1, 99999):05d}"
        gold[key] = value
        wrong = rng.random() < 0.125
        said = misread(value) if wrong else (value.upper() if rng.random() < 0.2 else value)
        confidence = round(rng.uniform(0.3, 0.7) if wrong else rng.uniform(0.7, 1.0), 4)
        predicted[key] = {"value": said, "confidence": confidence}
    lines = [f"prediction: outputs/{name}.json", "gold:"]
    for i, (key, value) in enumerate(gold.items()):
        if i % 7 == 3:
            lines.append(f"  {key}:\n    any_of: [{quoted(value)}, {quoted(value + ' SARL')}]")
        else:
            lines.append(f"  {key}: {quoted(value)}")
    lines.append("critical: [field_00, field_03]")
    lines.append("rubrics:")
    keys = list(gold)
    for r in range(args.rubrics):
        key = keys[r % len(keys)]
        kind = "must_right" if r == 0 else "easy_wrong"
        check = CHECKS[r % 5] or f"contains: {quoted(gold[key].split()[0])}"
        lines.append(f"  - {kind}: rubric {r} on {key}\n    field: {key}\n    {check}")
    lines.append("thresholds:\n  min_anls: 0.5\n  max_ece: 0.9")
    with open(os.path.join(cases, name + ".yaml"), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    with open(os.path.join(outputs, name + ".json"), "w") as out:
        json.dump({"fields": predicted, "latency_ms": rng.randint(300, 3000)}, out,
                  ensure_ascii=False)

    # The same test for promptfoo: the recorded output echoed as the prompt, one assert per rubric.
    echoed = json.dumps({k: v["value"] for k, v in predicted.items()}, ensure_ascii=False)
    asserts = []
    for r in range(args.rubrics):
        key = keys[r % len(keys)]
        expected = [gold[key], gold[key], gold[key].split()[0], ".+", ".+"][r % 5]
        one = {"type": PEER_ASSERTS[r % 5], "value": expected,
               "transform": f"JSON.parse(output)[{json.dumps(key)}]"}
        if r % 5 == 1:
            one["threshold"] = max(1, len(gold[key]) // 5)
        asserts.append(one)
    peer_tests.append({"description": name, "vars": {"output": echoed}, "assert": asserts})

with open(os.path.join(peer, "promptfooconfig.json"), "w") as out:
    json.dump({"description": "goldgate peer comparison", "prompts": ["{{output}}"],
               "providers": ["echo"], "tests": peer_tests}, out, ensure_ascii=False)
print(f"{args.n} cases in {cases}; the promptfoo config in {peer}")
