"""Generates tests/reference/pooled_acceptance.jsonl: every field's values accepted at chosen
thresholds, pooled over the fields (a suite's `acceptance:`), for goldgate's pooled rows to be
pinned to: accepting confidence > t (`above`, as nn-auto-bench's `metrics.ipynb` approves) or
>= t (`at_least`), the approval rate as a share of the values with a confidence (`values`) or of
every gold label (`labels`), the precision among the accepted values and the upper end of the
two-sided 95 % Wilson interval of their error rate.

    pip install statsmodels && python3 tests/reference/pooled_acceptance.py

Not run by the tests (they read the JSONL); kept so that the values can be made again.
"""
import json
import random

import statsmodels
from statsmodels.stats.proportion import proportion_confint

rng = random.Random(20260333)
out = []
points = 0


def case(fields, labels, thresholds):
    """`fields`: {name: [(confidence, correct), ...]}; `labels`: the gold fields counted."""
    global points
    values = [v for vs in fields.values() for v in vs]
    rows = []
    for accept in ["above", "at_least"]:
        for share_of in ["values", "labels"]:
            of = len(values) if share_of == "values" else labels
            for t in thresholds:
                taken = [c for p, c in values if (p > t if accept == "above" else p >= t)]
                errors = sum(1 for c in taken if not c)
                upper = proportion_confint(errors, len(taken), alpha=0.05, method="wilson")[1] if taken else 1.0
                rows.append({
                    "threshold": t, "accept": accept, "share_of": share_of,
                    "accepted": len(taken), "of": of,
                    "approval_rate": len(taken) / of if of else None,
                    "errors": errors,
                    "precision": (len(taken) - errors) / len(taken) if taken else None,
                    "error_upper": float(upper),
                })
                points += 1
    out.append({
        "fields": {k: {"p": [p for p, _ in vs], "o": [c for _, c in vs]} for k, vs in fields.items()},
        "labels": labels, "thresholds": thresholds, "points": rows,
    })


# Hand-made edges: nothing accepted, everything accepted, a threshold on a tie, no value at all.
case({"a": [(0.99, True), (0.99, False)], "b": [(1.0, True)]}, 4, [0.99, 1.0, 0.0])
case({"a": [(0.0, False)]}, 1, [0.0, 0.5])
case({}, 3, [0.9])
# Random suites: a few fields, confidences of two decimals (ties on the thresholds) or free
# floats, as many labels as values or more (labels without a confidence), thresholds among the
# confidences themselves and at 0, 1 and between.
for i in range(80):
    fields = {}
    for f in range(rng.choice([1, 2, 3, 6])):
        n = rng.choice([1, 3, 10, 40, 120])
        skill = rng.choice([0.6, 0.9, 1.0])
        conf = [round(rng.random(), 2) if i % 2 == 0 else rng.random() for _ in range(n)]
        fields[f"f{f}"] = [(p, rng.random() < min(1.0, p * skill + 0.2)) for p in conf]
    values = sum(len(v) for v in fields.values())
    labels = values + rng.choice([0, 0, 1, 7, values])
    pool = [p for vs in fields.values() for p, _ in vs]
    thresholds = sorted({0.0, 1.0, round(rng.random(), 2)} | set(rng.sample(pool, min(5, len(pool)))))
    case(fields, labels, thresholds)

with open("tests/reference/pooled_acceptance.jsonl", "w") as f:
    for line in out:
        f.write(json.dumps(line) + "\n")
print(f"{len(out)} lines, {points} points, statsmodels {statsmodels.__version__}")
