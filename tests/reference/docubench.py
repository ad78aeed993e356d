"""Generates tests/reference/docubench_pairs.jsonl: documents scored by DocuBench's own scorer, on
inputs nobody tuned goldgate to (a fixed seed), for `profile: docubench`.

    python3.11 tests/reference/docubench.py PATH/TO/DocuBench/scorer.py

The scorer is DocuBench 0.1.0's (`scorer.py` of DocuPipe/DocuBench at commit 43fae2e, CC BY 4.0),
fetched by whoever makes the values again; it is not in this repository. Python 3.11 is the
Python of the benchmark's CI, whose Unicode (14.0) decides which characters `\\W` removes.

Each line: `{"id", "label", "schema", "result", "final"}`, where `result` is the whole result
document a system wrote (its extraction under `"data"`, or a failed call: `"data"` null, a list, a
text, or missing) and `final` what `score_all.py` scores it: `score_standardization(
result=result.get("data", {}), schema, label)["final"]`. Not run by the tests (they read the JSONL).
"""
import importlib.util
import json
import random
import sys
from pathlib import Path

SEED = 20261204
COUNT = 2400

# Characters to build texts from: ASCII, accents precomposed and not, Greek with its final
# sigma, CJK and full-width digits, white space of every kind (the information separators
# U+001C-1F too), invisible characters, punctuation, and letters Unicode assigned after 14.0
# (Python 3.11's), which its `\W` removes.
LATER = [0x1C89, 0x1C8A, 0xA7CB, 0xA7CC, 0xA7CD, 0x11F04, 0x13460, 0x143FA, 0x1E4D0, 0x1E030,
         0x10D40, 0x16D40, 0x1E5D0, 0x11B00, 0x2B739, 0x31350]
ALPHABET = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list("éÉèçñüÖß") + ["e\u0301", "a\u0300"]
    + list("ΑΣΟΔσςαβ") + list("株式会社日本") + list("２０１９")
    + [" ", "  ", "\t", "\n", "\u00a0", "\u2009", "\u3000", "\u001c", "\u001f"]
    + ["\u200b", "\u00ad", "\ufeff"]
    + list(".,;:-_/()&'\"#%$€")
    + [chr(c) for c in LATER]
)


def text(rng, n=None):
    n = rng.randint(0, 12) if n is None else n
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def number(rng):
    kind = rng.random()
    if kind < 0.3:
        return rng.randint(-10**6, 10**6)
    if kind < 0.6:
        return round(rng.uniform(-1e4, 1e4), rng.randint(0, 8))
    if kind < 0.8:
        return rng.choice([0, 1, -1, 0.5, 1.0, 2**53, 1e-7, 123.4567894, 123.4567896])
    return rng.uniform(-1, 1)


def leaf_schema(rng):
    return rng.choice([
        {"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "boolean"},
        {"type": ["string", "null"]},
    ])


def schema(rng):
    props = {}
    for i in range(rng.randint(1, 6)):
        r = rng.random()
        name = f"f{i}"
        if r < 0.55:
            props[name] = leaf_schema(rng)
        elif r < 0.7:
            props[name] = {"type": "object", "properties": {
                f"g{j}": leaf_schema(rng) for j in range(rng.randint(1, 3))}}
        elif r < 0.9:
            props[name] = {"type": "array", "items": {"type": "object", "properties": {
                f"h{j}": leaf_schema(rng) for j in range(rng.randint(1, 4))}}}
        else:
            props[name] = {"type": "array", "items": {"type": "string"}}
    return {"type": "object", "properties": props}


def value(rng, s):
    r = rng.random()
    if r < 0.08:
        return rng.choice(["", [], {}, None])
    t = s.get("type")
    if t == "object":
        return {k: value(rng, v) for k, v in s["properties"].items() if rng.random() < 0.9}
    if t == "array":
        return [value(rng, s["items"]) for _ in range(rng.randint(0, 4))]
    if t in ("number", "integer"):
        return number(rng)
    if t == "boolean":
        return rng.random() < 0.5
    return text(rng)


def perturbed(rng, v):
    """A system's reading of a gold value: mostly right, wrong in the ways systems are."""
    r = rng.random()
    if r < 0.45:
        return v
    if isinstance(v, dict):
        out = {k: perturbed(rng, x) for k, x in v.items() if rng.random() < 0.9}
        if rng.random() < 0.2:
            out[f"extra{rng.randint(0, 3)}"] = text(rng, 3)
        return out
    if isinstance(v, list):
        out = [perturbed(rng, x) for x in v if rng.random() < 0.85]
        rng.shuffle(out)
        if rng.random() < 0.3 and v:
            out.append(perturbed(rng, rng.choice(v)))
        return out
    if isinstance(v, bool):
        return rng.choice([not v, "true" if v else "false", v])
    if isinstance(v, (int, float)):
        return rng.choice([v + 1e-7, v + 1, str(v), float(v), round(v, 5), v * 1.0000001])
    if isinstance(v, str):
        choice = rng.random()
        if choice < 0.3:
            return v.upper()
        if choice < 0.6:
            at = rng.randint(0, len(v))
            return v[:at] + rng.choice(ALPHABET) + v[at:]
        if choice < 0.75:
            return v.replace(" ", "")
        return text(rng)
    if v is None:
        return rng.choice(["", text(rng, 2), None])
    return v


def result_document(rng, label):
    r = rng.random()
    if r < 0.04:
        return {"data": None, "error": "rate limited"}
    if r < 0.06:
        return {"data": []}
    if r < 0.07:
        return {"data": "I cannot read this document"}
    if r < 0.09:
        return {"error": "timeout"}
    return {"data": perturbed(rng, label)}


def main():
    spec = importlib.util.spec_from_file_location("scorer", sys.argv[1])
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    rng = random.Random(SEED)
    out = Path(__file__).with_name("docubench_pairs.jsonl")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        for i in range(COUNT):
            s = schema(rng)
            label = value(rng, s)
            if not isinstance(label, dict):
                label = {}
            result = result_document(rng, label)
            final = scorer.score_standardization(
                result=result.get("data", {}), schema=s, label=label)["final"]
            line = {"id": i, "label": label, "schema": s, "result": result, "final": final}
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{out}: {COUNT} documents, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
