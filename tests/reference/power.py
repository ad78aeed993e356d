"""Generates tests/reference/power.jsonl: the normal distribution as scipy computes it, and the
smallest mean drop goldgate's regression gate detects at 80 % power, as statsmodels computes it.

    pip install scipy statsmodels && python3 tests/reference/power.py

Not run by the tests (they read the JSONL); kept so that the values can be made again.

The gate fails when the mean paired drop is at least `min_effect` and the interval of the
difference at `confidence` lies wholly below zero. Under the normal approximation the mean
difference falls below -z*se, z = norm.ppf(1 - (1 - confidence)/2), with the power of a one-sided
test at level (1 - confidence)/2: statsmodels' NormalIndPower with ratio=0 (one sample),
alternative="larger", solved for the effect size, times the differences' standard deviation
(ddof=1): (z + norm.ppf(0.8)) * se. When `min_effect` is above z*se, the gate needs the mean
drop beyond `min_effect` instead, and the drop detected at 80 % is min_effect + norm.ppf(0.8)*se.
`detectable_drop` is the closed form with scipy's quantiles; `statsmodels` is statsmodels'
numerical solution where it applies (null elsewhere), which agrees with it to about 1e-6.
"""
import json
import math
import random

import numpy as np
import scipy
import statsmodels
from scipy.stats import norm
from statsmodels.stats.power import NormalIndPower

rng = random.Random(20261202)
lib = f"scipy {scipy.__version__}, statsmodels {statsmodels.__version__}"
out = []

for p in [0.5, 0.6, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995, 0.001, 0.025, 0.3]:
    out.append({"kind": "quantile", "p": p, "z": float(norm.ppf(p))})
for x in [-6.5, -3.0, -1.959963984540054, -0.5, 0.0, 0.25, 1.0, 2.0, 4.5]:
    out.append({"kind": "cdf", "x": x, "cdf": float(norm.cdf(x))})


def power_line(name, differences, confidence, min_effect):
    n = len(differences)
    sd = float(np.std(differences, ddof=1))
    se = sd / math.sqrt(n)
    z = norm.ppf(1 - (1 - confidence) / 2)
    # The closed form, with scipy's quantiles: z*se, or min_effect when it is larger, plus
    # norm.ppf(0.8)*se.
    drop = float(max(min_effect, z * se) + norm.ppf(0.8) * se)
    # statsmodels solves the same power equation numerically (to about 1e-6 of the effect size);
    # where min_effect is under z*se its answer must be the closed form's.
    solved = None
    if min_effect <= z * se:
        d = NormalIndPower().solve_power(
            effect_size=None, nobs1=n, alpha=(1 - confidence) / 2, power=0.8, ratio=0,
            alternative="larger")
        solved = float(d) * sd
    out.append({"kind": "power", "id": name, "differences": differences, "confidence": confidence,
                "min_effect": min_effect, "n": n, "sd": sd, "detectable_drop": drop,
                "statsmodels": solved})


# The fixtures of tests/gates.rs: 40 cases of four fields each, exact match 1 in the baseline.
power_line("one_slipped_of_40", [0.0] * 6 + [-0.5] + [0.0] * 33, 0.95, 0.02)
power_line("thirty_dropped_of_40", [-0.25] * 30 + [0.0] * 10, 0.95, 0.02)
for i in range(60):
    n = rng.choice([5, 10, 20, 30, 50, 100, 300])
    spread = rng.choice([0.01, 0.05, 0.1, 0.3])
    diffs = [round(rng.gauss(-0.01, spread), 6) for _ in range(n)]
    power_line(f"random-{i}", diffs, rng.choice([0.8, 0.9, 0.95, 0.99]),
               rng.choice([0.0, 0.005, 0.02, 0.05, 0.1]))

with open(__file__.replace("power.py", "power.jsonl"), "w") as f:
    for line in out:
        line["lib"] = lib
        f.write(json.dumps(line) + "\n")
print(len(out), "lines")
