"""Generates tests/reference/agreement.jsonl: agreement statistics as scikit-learn, scipy and
statsmodels compute them, for goldgate's `agree` and its comparison of pipelines to be pinned to.

    pip install scikit-learn scipy statsmodels && python3 tests/reference/agreement.py

Not run by the tests (they read the JSONL); kept so that the values can be made again.
"""
import json
import math
import random
import warnings

import scipy
import sklearn
import statsmodels
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score, f1_score
from statsmodels.stats.contingency_tables import mcnemar

warnings.filterwarnings("ignore")
rng = random.Random(20261201)
lib = f"scikit-learn {sklearn.__version__}, scipy {scipy.__version__}, statsmodels {statsmodels.__version__}"


def num(v):
    v = float(v)
    return None if math.isnan(v) else v


out = []
for i in range(300):
    n = rng.choice([1, 2, 3, 5, 8, 13, 40])
    bias = rng.random()
    person = [rng.random() < bias for _ in range(n)]
    flip = rng.choice([0.0, 0.1, 0.3, 0.5])
    goldgate = [p if rng.random() >= flip else not p for p in person]
    out.append({
        "kind": "verdicts", "id": f"verdicts/{i:03d}", "person": person, "goldgate": goldgate,
        "agreement": sum(p == g for p, g in zip(person, goldgate)) / n,
        "kappa": num(cohen_kappa_score(person, goldgate)),
        "balanced_f1": num(f1_score(person, goldgate, average="macro")),
    })
for i in range(300):
    n = rng.choice([2, 3, 4, 6, 10, 25])
    rating = [rng.choice([1, 2, 3, 4, 5]) for _ in range(n)]
    noise = rng.choice([0.0, 0.2, 0.5, 1.0])
    score = [round(min(1.0, max(0.0, (r - 1) / 4 + rng.uniform(-noise, noise))), rng.choice([1, 2, 4])) for r in rating]
    out.append({
        "kind": "ratings", "id": f"ratings/{i:03d}", "rating": rating, "score": score,
        "spearman": num(spearmanr(rating, score).statistic),
        "kendall_tau_b": num(kendalltau(rating, score).statistic),
        "pearson": num(pearsonr(rating, score).statistic) if len(set(rating)) > 1 and len(set(score)) > 1 else None,
    })
for i in range(100):
    b, c = rng.randrange(0, 40), rng.randrange(0, 40)
    if rng.random() < 0.2:
        b, c = rng.randrange(0, 1500), rng.randrange(0, 1500)
    table = [[rng.randrange(0, 20), b], [c, rng.randrange(0, 20)]]
    out.append({
        "kind": "mcnemar", "id": f"mcnemar/{i:03d}", "b": b, "c": c,
        "p_value": float(mcnemar(table, exact=True).pvalue),
    })
with open("tests/reference/agreement.jsonl", "w") as f:
    for line in out:
        line["lib"] = lib
        f.write(json.dumps(line) + "\n")
print(len(out), "lines,", lib)
