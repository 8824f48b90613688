#!/usr/bin/env python3
"""Goldens for the gradient-boosting parity test (tests/parity/gbdt.rs).

Run from the repository root:

    python3 tests/parity/gen_gbdt_goldens.py

It rewrites tests/parity/gbdt_goldens.json deterministically (seeded numpy Generators,
features rounded to 6 decimals or drawn as small integers so the JSON stays small and both
sides read the same numbers). The checked-in file was produced with Python 3.11.7,
numpy 2.4.6, scipy 1.17.1 and scikit-learn 1.9.1 on x86-64 Linux (glibc); the versions that
ran are recorded in the JSON ("versions"). Every float is written by Python's json, i.e.
with repr(), which round-trips the exact double.

One thread: OMP_NUM_THREADS=1 is set before numpy and scikit-learn are imported, and every
fit runs under threadpoolctl's threadpool_limits(1), so the goldens are scikit-learn's
one-thread fits, the algorithm the kernel reproduces. (scikit-learn 1.9.1 parallelises
with OpenMP over features, or over rows without a reduction, and its splitting of a node's
rows among threads keeps their order; its trees and probabilities were measured to be
byte-identical with 1, 2 and 4 threads on these data sets and on 20,000 rows x 8
features. One thread keeps the goldens independent of that observation.)

    python3 tests/parity/gen_gbdt_goldens.py --time

only times one fit of HistGradientBoostingClassifier(early_stopping=False) (defaults) on
10^5 rows x 10 features with one thread and prints it (nothing is written); the kernel's
fit of the same shape is timed by `cargo test --release --lib model::gbdt::tests::timing
-- --ignored --nocapture`.

Definitions (what the JSON means)
---------------------------------
- Data sets: "x" (rows of features) and "y" (bool labels) in row order. The first
  "n_train" rows are the training rows of the single fits, the rest the test rows.
- Settings: "defaults" is HistGradientBoostingClassifier(early_stopping=False) with
  scikit-learn's defaults (learning_rate=0.1, max_iter=100, max_leaf_nodes=31,
  min_samples_leaf=20, l2_regularization=0.0, max_bins=255); "small" is
  learning_rate=0.3, max_iter=30, max_leaf_nodes=7, min_samples_leaf=5,
  l2_regularization=1.0, max_bins=32. random_state=0 (no early stopping, no feature
  subsampling and fewer than 2*10^5 rows: nothing random is drawn).
- Per data set and setting, from the fit on the training rows:
  "bin_thresholds" = _bin_mapper.bin_thresholds_ (one list per feature);
  "baseline" = _baseline_prediction; "trees", one per iteration, from
  _predictors[i][0].nodes in their order (depth-first, left before right), each as
  columns: feature_idx, bin_threshold, num_threshold, gain (-1 when none), value,
  count, is_leaf (0/1), left, right (0 in leaves' split fields, as scikit-learn stores
  them);
  "test_proba" = predict_proba(test rows)[:, 1].
- "folds": per row of the data set, its fold index under
  KFold(n_splits=5, shuffle=True, random_state=fold_seed). "oof_proba" per setting: per
  row, predict_proba[:, 1] of the model fitted on the rows of the other folds (in row
  order); "oof_auc" = roc_auc_score(y, oof_proba) over all rows pooled.

Self-checks: every split's num_threshold equals bin_thresholds_[feature][bin]; no
probability is exactly 0 or 1.
"""

import os

os.environ["OMP_NUM_THREADS"] = "1"

import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gbdt_goldens.json")

SETTINGS = [
    ("defaults", {}),
    (
        "small",
        {
            "learning_rate": 0.3,
            "max_iter": 30,
            "max_leaf_nodes": 7,
            "min_samples_leaf": 5,
            "l2_regularization": 1.0,
            "max_bins": 32,
        },
    ),
]

FULL_PARAMS = ("learning_rate", "max_iter", "max_leaf_nodes", "min_samples_leaf",
               "l2_regularization", "max_bins")


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def ties(rng):
    """400 rows of few distinct values: integers 0..9, an exact copy of that column (equal
    gains on two features: the first must win), a binary column, a constant column and a
    column with one decimal; labels from a logistic model."""
    n = 400
    a = rng.integers(0, 10, size=n).astype(float)
    b = rng.integers(0, 2, size=n).astype(float)
    c = np.round(rng.normal(size=n), 1)
    x = np.column_stack([a, a, b, np.full(n, 2.5), c])
    y = rng.random(n) < sigmoid(0.5 * a - 2.0 + 1.0 * b + 0.6 * c)
    return x, y


def many_distinct(rng):
    """600 rows, 3 continuous features (over 255 distinct values each among the 450
    training rows: the percentile rule), one heavy-tailed; labels from an interaction (x0·x1 > 0) with 15% flipped."""
    n = 600
    x0 = rng.normal(size=n)
    x1 = rng.normal(size=n) * 3.0 + 1.0
    x2 = rng.exponential(size=n) ** 2 * 100.0
    x = np.round(np.column_stack([x0, x1, x2]), 6)
    y = ((x0 * (x1 - 1.0)) > 0) ^ (rng.random(n) < 0.15)
    return x, y


def signal_noise(rng):
    """1000 rows, 6 features: a linear and a quadratic signal, four noise columns (two of
    them binned to 20 levels); about 30% positives."""
    n = 1000
    z = rng.normal(size=(n, 6))
    z[:, 4] = np.floor(z[:, 4] * 4.0)
    z[:, 5] = np.floor(z[:, 5] * 4.0)
    x = np.round(z, 6)
    y = rng.random(n) < sigmoid(1.5 * x[:, 0] - x[:, 1] ** 2 - 0.3)
    return x, y


DATASETS = [
    ("ties", ties, 20260301),
    ("many_distinct", many_distinct, 20260302),
    ("signal_noise", signal_noise, 20260303),
]


def model(params):
    return HistGradientBoostingClassifier(early_stopping=False, random_state=0, **params)


def tree_columns(predictor, thresholds):
    nodes = predictor.nodes
    for node in nodes:
        if not node["is_leaf"]:
            f, b = int(node["feature_idx"]), int(node["bin_threshold"])
            assert node["num_threshold"] == thresholds[f][b], (f, b)
    return {
        "feature": [int(v) for v in nodes["feature_idx"]],
        "bin": [int(v) for v in nodes["bin_threshold"]],
        "threshold": [float(v) for v in nodes["num_threshold"]],
        "gain": [float(v) for v in nodes["gain"]],
        "value": [float(v) for v in nodes["value"]],
        "count": [int(v) for v in nodes["count"]],
        "leaf": [int(v) for v in nodes["is_leaf"]],
        "left": [int(v) for v in nodes["left"]],
        "right": [int(v) for v in nodes["right"]],
    }


def fit_record(x, y, n_train, folds, name, params):
    clf = model(params).fit(x[:n_train], y[:n_train])
    thresholds = [t.tolist() for t in clf._bin_mapper.bin_thresholds_]
    trees = [tree_columns(p[0], clf._bin_mapper.bin_thresholds_) for p in clf._predictors]
    test_proba = clf.predict_proba(x[n_train:])[:, 1]
    oof = np.empty(len(y))
    for k in range(folds.max() + 1):
        train, test = folds != k, folds == k
        oof[test] = model(params).fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    for p in (test_proba, oof):
        assert np.all((p > 0.0) & (p < 1.0)), name
    auc = float(roc_auc_score(y, oof))
    full = clf.get_params()
    print(
        f"  {name}: {len(trees)} trees, {sum(len(t['leaf']) for t in trees)} nodes, "
        f"bins per feature {[len(t) + 1 for t in thresholds]}, oof auc {auc:.6f}",
        file=sys.stderr,
    )
    return {
        "setting": name,
        "params": {k: full[k] for k in FULL_PARAMS},
        "bin_thresholds": thresholds,
        "baseline": float(clf._baseline_prediction[0, 0]),
        "trees": trees,
        "test_proba": test_proba.tolist(),
        "oof_proba": oof.tolist(),
        "oof_auc": auc,
    }


def timing():
    rng = np.random.default_rng(20260399)
    n, p = 100_000, 10
    x = rng.normal(size=(n, p))
    y = rng.random(n) < sigmoid(x[:, 0] - 0.5 * x[:, 1] ** 2 + 0.25 * x[:, 2] * x[:, 3])
    clf = model({})
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        clf.fit(x, y)
        best = min(best, time.perf_counter() - t0)
    print(f"scikit-learn {sklearn.__version__}, one thread: {n} rows x {p} features, "
          f"{clf.n_iter_} iterations: best of 3 fits {best:.3f} s")


def main():
    out = {
        "generator": "tests/parity/gen_gbdt_goldens.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "threads": 1,
        "datasets": [],
    }
    for name, make, seed in DATASETS:
        rng = np.random.default_rng(seed)
        x, y = make(rng)
        y = y.astype(bool)
        n_train = len(y) * 3 // 4
        fold_seed = seed % 1000
        folds = np.empty(len(y), dtype=int)
        for k, (_, test) in enumerate(KFold(5, shuffle=True, random_state=fold_seed).split(x)):
            folds[test] = k
        assert y[:n_train].any() and not y[:n_train].all(), name
        print(f"{name}: {len(y)} rows ({int(y.sum())} positive), {x.shape[1]} features",
              file=sys.stderr)
        fits = [fit_record(x, y, n_train, folds, s, params) for s, params in SETTINGS]
        out["datasets"].append(
            {
                "name": name,
                "description": " ".join(make.__doc__.split()),
                "seed": seed,
                "fold_seed": fold_seed,
                "x": x.tolist(),
                "y": y.tolist(),
                "n_train": n_train,
                "folds": folds.tolist(),
                "fits": fits,
            }
        )
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    with threadpool_limits(1):
        if sys.argv[1:] == ["--time"]:
            timing()
        else:
            main()
