"""Generates tests/reference/acceptance.jsonl: the acceptance curve of a field's confidences
("accept automatically when confidence >= t", for each distinct t) with the upper end of the
95 % Wilson interval of the error rate among accepted values, and the smallest t whose bound is
at most a target error, for goldgate's advice to be pinned to.

    pip install statsmodels && python3 tests/reference/acceptance.py

The bound is the upper end of statsmodels' two-sided 95 % interval,
`proportion_confint(errors, accepted, alpha=0.05, method="wilson")[1]` (a one-sided 97.5 %
bound): the interval a reader of "95 % Wilson interval" computes. Not run by the tests (they read
the JSONL); kept so that the values can be made again.
"""
import json
import random

import statsmodels
from statsmodels.stats.proportion import proportion_confint

rng = random.Random(20261202)
out = []


def case(conf, correct, target):
    n = len(conf)
    thresholds = sorted(set(conf))
    curve = []
    for t in thresholds:
        accepted = [c for p, c in zip(conf, correct) if p >= t]
        errors = sum(1 for c in accepted if not c)
        upper = proportion_confint(errors, len(accepted), alpha=0.05, method="wilson")[1]
        curve.append({
            "threshold": t,
            "accepted": len(accepted),
            "share": len(accepted) / n,
            "errors": errors,
            "error_rate": errors / len(accepted),
            "error_upper": float(upper),
        })
    advised = next((p for p in curve if p["error_upper"] <= target), None)
    out.append({
        "p": conf,
        "o": correct,
        "target_error": target,
        "curve": curve,
        "threshold": advised["threshold"] if advised else None,
        "automation_rate": advised["share"] if advised else 0.0,
    })


# Hand-made edges: all right, all wrong, one value, ties.
case([0.9, 0.9, 0.9], [True, True, True], 0.5)
case([0.2, 0.8], [False, False], 0.01)
case([1.0], [True], 0.9)
case([0.5, 0.7, 0.9, 0.9, 0.5], [False, True, True, True, True], 0.6)
# Random fields: confidences of two decimals (many ties) or free floats, the chance of being
# right rising with the confidence, targets from strict to loose.
for i in range(100):
    n = rng.choice([1, 2, 5, 20, 60, 150, 300])
    two_decimals = i % 2 == 0
    conf = [round(rng.random(), 2) if two_decimals else rng.random() for _ in range(n)]
    skill = rng.choice([0.5, 0.9, 1.0, 1.2])
    correct = [rng.random() < min(1.0, p * skill + (1 - skill) * 0.5 + 0.3) for p in conf]
    target = rng.choice([0.01, 0.05, 0.1, 0.3, 0.5])
    case(conf, correct, target)

with open("tests/reference/acceptance.jsonl", "w") as f:
    for line in out:
        f.write(json.dumps(line) + "\n")
print(f"{len(out)} lines, statsmodels {statsmodels.__version__}")
