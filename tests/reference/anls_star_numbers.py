"""Generates tests/reference/anls_star_numbers.jsonl: pairs scored by the `anls-star` package
1.0.1 on values as Python's `json.loads` reads them, where numbers and nesting are the point:
integers beyond 64 bits, `-0`, `1e400` (infinity to Python), floats at their last digit, and
trees nested up to 220 levels deep (beyond serde_json's own bound of 128; the package stops
near 240).

    pip install anls-star==1.0.1 && python3.11 tests/reference/anls_star_numbers.py

Each line: `{"id", "gt", "pred", "score"}`, where `gt` and `pred` are JSON texts (so that the
numbers stay as written, which a JSON value of this file could not promise) and `score` is
`anls_score(json.loads(gt), json.loads(pred))`. Not run by the tests (they read the JSONL).
"""
import json
import random
from pathlib import Path

from anls_star import anls_score

SEED = 20261204
COUNT = 2200


def integer(rng):
    kind = rng.random()
    if kind < 0.3:
        return str(rng.randint(2**63, 10**40) * rng.choice([1, -1]))
    if kind < 0.45:
        return rng.choice(["0", "-0", "18446744073709551616", "18446744073709551617",
                           "-9223372036854775809", "9007199254740993"])
    return str(rng.randint(-10**30, 10**30))


def number(rng):
    kind = rng.random()
    if kind < 0.45:
        return integer(rng)
    if kind < 0.6:
        return rng.choice(["1e400", "-1e400", "1e308", "1e-400", "0.0", "-0.0", "1E5", "1e16",
                           "12.50", "1.0", "3.14159265358979323846"])
    return repr(rng.uniform(-1e6, 1e6))


def changed(rng, text):
    """The same number written otherwise, or another one."""
    r = rng.random()
    if r < 0.3:
        return text
    if r < 0.5 and text.lstrip("-").isdigit():
        digits = list(text)
        at = rng.randrange(len(digits))
        if digits[at].isdigit():
            digits[at] = str((int(digits[at]) + 1) % 10)
        out = "".join(digits)
        # JSON writes no leading zero.
        return out if len(out.lstrip("-")) == 1 or not out.lstrip("-").startswith("0") else text
    if r < 0.7:
        return json.dumps(text)  # the number's digits as a string
    return number(rng)


def nested(rng, depth, leaf):
    """A tree `depth` levels deep: mappings, and a list in at most one of its levels (the
    package's time grows exponentially with nested lists)."""
    text = leaf
    lists = set(rng.sample(range(depth), min(1, depth)))
    for level in range(depth):
        text = ("[%s]" if level in lists and rng.random() < 0.5 else '{"k": %s}') % text
    return text


def pair(rng):
    kind = rng.random()
    if kind < 0.5:
        gt = number(rng)
        return gt, changed(rng, gt)
    if kind < 0.75:
        gt = number(rng)
        pred = changed(rng, gt)
        return ('{"total": %s, "id": "A-1"}' % gt), ('{"total": %s, "id": "A-1"}' % pred)
    # Deeper than about 240 levels the package itself stops (Python's recursion limit).
    depth = rng.choice([1, 50, 127, 128, 129, 200, 220])
    leaf = number(rng) if rng.random() < 0.5 else json.dumps(rng.choice(["x", "invoice", "Total"]))
    gt = nested(random.Random(rng.random()), depth, leaf)
    twin = random.Random(rng.random())
    pred = gt if rng.random() < 0.6 else nested(twin, depth, json.dumps("invoce"))
    return gt, pred


def main():
    rng = random.Random(SEED)
    out = Path(__file__).with_name("anls_star_numbers.jsonl")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        for i in range(COUNT):
            gt, pred = pair(rng)
            score = anls_score(json.loads(gt), json.loads(pred))
            f.write(json.dumps({"id": i, "gt": gt, "pred": pred, "score": score}) + "\n")
    print(f"{out}: {COUNT} pairs")


if __name__ == "__main__":
    main()
