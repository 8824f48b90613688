#!/usr/bin/env python3
"""Generate tests/parity/auc_goldens.json: scikit-learn's roc_auc_score on tie-heavy data.

Run from the crate root:

    python3 tests/parity/gen_auc_goldens.py

The checked-in goldens were produced with Python 3.11.7, numpy 2.4.6 and
scikit-learn 1.9.1 (the versions are also recorded in the JSON). The data come from a
seeded numpy Generator, so a rerun with the same versions reproduces the file byte for
byte; a different sklearn may change the last bits of `sklearn_auc` (its trapezoid is a
float sum), which tests/parity/auc.rs tolerates up to 1e-15.

Each dataset: labels (0/1; 1 = positive), scores (finite floats, many ties), and
`sklearn_auc` = sklearn.metrics.roc_auc_score(labels, scores), stored via repr() so the
JSON round-trips the exact double.
"""

import json
import os
import platform

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score

SEED = 20261101
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "auc_goldens.json")


def informative(rng, n, prevalence, signal):
    """Labels ~ Bernoulli(prevalence); scores = noise + signal on positives."""
    y = (rng.random(n) < prevalence).astype(np.int64)
    y[0], y[1] = 1, 0  # both classes present
    s = rng.normal(size=n) + signal * y
    return y, s


def datasets(rng):
    out = []

    y, s = informative(rng, 10, 0.5, 1.0)
    out.append(("n10_round1", y, np.round(1 / (1 + np.exp(-s)), 1)))

    y, s = informative(rng, 57, 0.4, 0.8)
    out.append(("n57_integer_0_to_5", y, np.clip(np.round(s + 2.5), 0, 5)))

    y, _ = informative(rng, 200, 0.3, 0.0)
    out.append(("n200_all_tied", y, np.full(200, 0.7)))

    y, s = informative(rng, 1000, 0.3, 1.0)
    out.append(("n1000_round2", y, np.round(1 / (1 + np.exp(-s)), 2)))

    y, s = informative(rng, 5000, 0.02, 1.5)
    out.append(("n5000_prev2pct_round2", y, np.round(1 / (1 + np.exp(-s)), 2)))

    # Integer scores of both signs, with zeros of both signs (-0.0 must tie with 0.0).
    y, s = informative(rng, 3000, 0.5, 0.5)
    z = np.clip(np.round(s), -3, 3)
    z[(z == 0) & (rng.random(3000) < 0.5)] = -0.0
    out.append(("n3000_signed_integers_signed_zeros", y, z))

    # predict_proba saturation: many scores exactly 1.0 (and 0.0).
    y, s = informative(rng, 2000, 0.5, 30.0)
    p = 1 / (1 + np.exp(-(s * 20)))
    out.append(("n2000_saturated_proba", y, p))

    y, s = informative(rng, 777, 0.35, 0.7)
    out.append(("n777_round3", y, np.round(rng.random(777) * 0.5 + 0.2 * s, 3)))

    y = np.array([0] * 40 + [1] * 60)
    out.append(("n100_perfect", y, np.round(np.linspace(0, 1, 100), 2)))
    out.append(("n100_reversed", y, np.round(np.linspace(1, 0, 100), 2)))

    y, s = informative(rng, 33, 0.5, 0.3)
    out.append(("n33_round1_negative", y, np.round(-np.abs(s), 1)))
    return out


def main():
    rng = np.random.default_rng(SEED)
    cases = []
    for name, y, s in datasets(rng):
        s = np.asarray(s, dtype=np.float64)
        assert np.all(np.isfinite(s))
        assert 0 < y.sum() < len(y)
        auc = float(roc_auc_score(y, s))
        cases.append(
            {
                "name": name,
                "labels": [int(v) for v in y],
                "scores": [float(v) for v in s],
                "sklearn_auc": auc,
            }
        )
        print(f"{name:40s} n={len(y):5d} distinct={len(np.unique(s)):5d} auc={auc!r}")
    doc = {
        "generator": "tests/parity/gen_auc_goldens.py",
        "seed": SEED,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
