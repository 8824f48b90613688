#!/usr/bin/env python3
"""Goldens for the logistic-regression parity test (tests/parity/logistic.rs).

Run from the repository root:

    python3 tests/parity/gen_logistic_goldens.py

It rewrites tests/parity/logistic_goldens.json deterministically (seeded numpy Generator,
inputs rounded to 6 decimals so the JSON stays small and both sides read the same numbers).
The checked-in file was produced with Python 3.11.7, numpy 2.4.6, scipy 1.17.1 and
scikit-learn 1.9.1; the versions that ran are recorded in the JSON.

Per data set: StandardScaler fitted on the training rows, then
LogisticRegression(C=c, tol=1e-10, max_iter=10000) (lbfgs) on the standardised training
rows; coef_/intercept_ are on the standardised scale, and test_auc is
roc_auc_score(test_y, predict_proba(standardised test X)[:, 1]).

Self-checks keep the goldens meaningful:
- lbfgs stops on ftol = 64·eps as well as on gtol, so its coefficients sit up to ~3e-8
  from the optimum. The optimum itself is recorded too ("optimum_*"): sklearn's
  newton-cholesky solution (tol=1e-10) polished by plain float64 Newton steps in numpy
  until the gradient of the mean-scaled objective is < 1e-15. lbfgs must be within 1e-7
  of it and newton-cholesky within 1e-8 (two independent solvers agreeing), so the Rust
  test can hold lbfgs parity to 1e-6 and the kernel's Newton solver to 1e-9.
- AUC depends only on the ranking of the test scores; a ranking that a 1e-8 change of the
  coefficients could flip would make a 1e-12 AUC tolerance fragile, so the smallest
  probability gap between a positive and a negative test row must exceed 1e-7 (and no
  probability may saturate to exactly 0 or 1).
"""

import json
import os
import platform
import sys

import numpy as np
import scipy
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "logistic_goldens.json")


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def polish(z, y, c, theta):
    """Newton steps on C·Σ logloss + ½‖w‖² (θ = [b, w]) until the gradient of the
    mean-scaled objective is below 1e-15 (at most 20 steps)."""
    a = np.hstack([np.ones((len(y), 1)), z])
    yf = y.astype(float)
    for _ in range(20):
        p = sigmoid(a @ theta)
        g = c * (a.T @ (p - yf))
        g[1:] += theta[1:]
        if np.max(np.abs(g)) / (c * len(y)) < 1e-15:
            return theta
        h = c * (a.T * (p * (1.0 - p))) @ a
        h[1:, 1:] += np.eye(len(theta) - 1)
        theta = theta - np.linalg.solve(h, g)
    raise AssertionError("Newton polish did not reach 1e-15")


def split(x, y, n_train):
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def correlated(rng):
    """Five features with pairwise correlation 0.7^|i-j|, very different units and offsets."""
    n, p = 800, 5
    cov = np.array([[0.7 ** abs(i - j) for j in range(p)] for i in range(p)])
    z = rng.multivariate_normal(np.zeros(p), cov, size=n)
    w = np.array([1.0, -0.5, 0.25, 0.0, 0.8])
    y = rng.random(n) < sigmoid(z @ w - 0.3)
    x = z * np.array([1.0, 10.0, 0.1, 100.0, 3.0]) + np.array([0.0, 50.0, -2.0, 1000.0, 5.0])
    return x, y, 560


def constant_column(rng):
    """A constant column of 0.1 (not representable: its two-pass variance is not exactly 0)."""
    n = 500
    x = rng.normal(size=(n, 4))
    x[:, 2] = 0.1
    y = rng.random(n) < sigmoid(0.9 * x[:, 0] - 1.2 * x[:, 1] + 0.4 * x[:, 3] + 0.2)
    return x, y, 350


def imbalanced(rng):
    """About 5% positives."""
    n = 1600
    x = rng.normal(size=(n, 4)) * np.array([2.0, 1.0, 0.5, 4.0])
    y = rng.random(n) < sigmoid(0.6 * x[:, 0] + 1.0 * x[:, 1] - 0.8 * x[:, 2] + 0.1 * x[:, 3] - 3.9)
    return x, y, 1200


def near_separable(rng):
    """Classes separated by a margin with few label flips: large C gives large coefficients."""
    n = 400
    x = rng.normal(size=(n, 3))
    margin = 2.0 * x[:, 0] - 1.0 * x[:, 1] + 0.5 * x[:, 2]
    y = margin + 0.4 * rng.normal(size=n) > 0
    return x, y, 280


DATASETS = [
    ("correlated", correlated, 20260101, 1.0),
    ("constant_column", constant_column, 20260102, 0.05),
    ("imbalanced", imbalanced, 20260103, 10.0),
    ("near_separable", near_separable, 20260104, 100.0),
]


def main():
    out = {
        "generator": "tests/parity/gen_logistic_goldens.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "datasets": [],
    }
    for name, make, seed, c in DATASETS:
        rng = np.random.default_rng(seed)
        x, y, n_train = make(rng)
        x = np.round(x, 6)
        xtr, ytr, xte, yte = split(x, y.astype(bool), n_train)
        assert ytr.any() and not ytr.all() and yte.any() and not yte.all(), name

        scaler = StandardScaler().fit(xtr)
        ztr, zte = scaler.transform(xtr), scaler.transform(xte)
        clf = LogisticRegression(C=c, tol=1e-10, max_iter=10000).fit(ztr, ytr)
        nc = LogisticRegression(C=c, solver="newton-cholesky", tol=1e-10, max_iter=10000).fit(ztr, ytr)
        nc_theta = np.concatenate([nc.intercept_, nc.coef_[0]])
        optimum = polish(ztr, ytr, c, nc_theta)
        lbfgs_gap = float(np.max(np.abs(np.concatenate([clf.intercept_, clf.coef_[0]]) - optimum)))
        nc_gap = float(np.max(np.abs(nc_theta - optimum)))
        assert lbfgs_gap < 1e-7 and nc_gap < 1e-8, (name, lbfgs_gap, nc_gap)

        proba = clf.predict_proba(zte)[:, 1]
        assert np.all((proba > 0.0) & (proba < 1.0)), name
        pos, neg = proba[yte], proba[~yte]
        min_gap = float(np.min(np.abs(pos[:, None] - neg[None, :])))
        assert min_gap > 1e-7, (name, min_gap)

        out["datasets"].append(
            {
                "name": name,
                "description": make.__doc__,
                "seed": seed,
                "c": c,
                "train_x": xtr.tolist(),
                "train_y": ytr.tolist(),
                "test_x": xte.tolist(),
                "test_y": yte.tolist(),
                "scaler_mean": scaler.mean_.tolist(),
                "scaler_scale": scaler.scale_.tolist(),
                "coef": clf.coef_[0].tolist(),
                "intercept": float(clf.intercept_[0]),
                "optimum_coef": optimum[1:].tolist(),
                "optimum_intercept": float(optimum[0]),
                "test_auc": float(roc_auc_score(yte, proba)),
                "sklearn_n_iter": int(clf.n_iter_[0]),
                "lbfgs_distance_to_optimum": lbfgs_gap,
                "newton_cholesky_distance_to_optimum": nc_gap,
                "min_pos_neg_probability_gap": min_gap,
            }
        )
        print(
            f"{name}: c={c} train={len(ytr)} (pos {int(ytr.sum())}) test={len(yte)} "
            f"n_iter={clf.n_iter_[0]} lbfgs_gap={lbfgs_gap:.2e} nc_gap={nc_gap:.2e} min_gap={min_gap:.2e} "
            f"auc={out['datasets'][-1]['test_auc']:.6f} coef={np.round(clf.coef_[0], 4).tolist()}",
            file=sys.stderr,
        )
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
