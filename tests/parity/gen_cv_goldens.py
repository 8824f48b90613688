#!/usr/bin/env python3
"""Goldens for cross-validation parity with scikit-learn: writes tests/parity/cv_goldens.json.

Run from the repository root:

    python3 tests/parity/gen_cv_goldens.py

The checked-in file was produced with Python 3.11.7, numpy 2.4.6, scipy 1.17.1 and
scikit-learn 1.9.1; the versions that ran are recorded in the JSON ("versions"). Every
data set comes from its own seeded numpy Generator (np.random.default_rng(seed), the seed
is stored with it), so a rerun with the same versions reproduces the file byte for byte.
Features are rounded to 6 decimals so the JSON stays small; every float (features,
probabilities, AUCs) is written by Python's json, i.e. with repr(), which round-trips the
exact double.

Definitions (what the JSON means)
---------------------------------
- Row order. The rows of each data set are stored sorted by entity id (byte order; ids
  are "c" + a zero-padded 3-digit number, so byte order == numeric order) and then by time
  ascending; (entity, time) pairs are unique. This is the kernel's canonical row order
  (docs/FORMATS.md, "Canonical row order"), so "row i" means the same row on both sides
  and sklearn's splitters, which work on positions, see the kernel's order.
- Fold index. A splitter yields folds f = 0, 1, ..., k-1 in sklearn's order; the fold
  index of a row is the f whose *test* set contains it. KFold and GroupKFold put every row
  in exactly one test set; for TimeSeriesSplit a time value (and its rows) that is in no
  test set has fold index -1.
- kfold: KFold(n_splits=k, shuffle=True, random_state=KFOLD_SEED) over the rows in file
  order (KFOLD_SEED = 7, the seed of the parity tests' experiments: the kernel's `sklearn`
  assignment of `k_fold` is shuffled KFold with random_state = seed % 2**32, never the
  unshuffled one, issue 46): the rows permuted by RandomState(7).shuffle, then fold f is
  the contiguous block [start_f, start_f + size_f) of the permuted rows, sizes n // k, the
  first n % k of them one larger.
- group_kfold: GroupKFold(n_splits=k) (default: no shuffle) with groups = entity ids.
  sklearn 1.9.1's algorithm, re-implemented in `group_kfold_reference` below and checked
  against sklearn on every data set and k:
    1. groups are np.unique(entity): sorted ascending (byte order); count rows per group;
    2. order = np.argsort(counts, kind="stable")[::-1]: groups by row count *descending*;
       among groups with the same count the stable ascending sort is reversed, so ties
       go in *descending* id order (the byte-last entity first);
    3. walk that order, putting each group into the fold with the fewest rows so far,
       the lowest fold index among equally light folds (np.argmin);
    4. fold f's test rows = rows of the groups put in fold f.
- time_series: TimeSeriesSplit(n_splits=k) (defaults: gap 0, no max_train_size,
  test_size None) applied to the array of the *sorted distinct time values* (not to
  rows). With m distinct values, test_size = m // (k + 1); fold f tests the distinct-value
  positions [m - (k - f)·test_size, m - (k - f - 1)·test_size) and trains on every position
  before its test block. Recorded: the fold index per distinct time value (-1 = never in
  a test block: the first m - k·test_size values), the training and test time values per
  fold (training == every time value before the test block is asserted), and per row the
  fold index of its time value (-1 likewise). No model is fitted on these folds, but
  every training block (rows whose time is before the fold's first test time) holds both
  classes (asserted), so a kernel could fit them.
- Model. Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression(C=c,
  tol=1e-10, max_iter=10000))]) (lbfgs, L2, intercept), refitted from scratch on each
  fold's training rows (the scaler too).
- oof_proba_kfold / oof_proba_group_kfold: per row, predict_proba(...)[:, 1] of the model
  fitted on the training rows of the row's fold, i.e. cross_val_predict(pipeline, X, y,
  cv=KFold(k, shuffle=True, random_state=7), method="predict_proba")[:, 1], resp. the same with cv=GroupKFold(k) and
  groups=entity (KFold ignores groups and warns when given them, so it gets none). The script
  also refits each fold itself and asserts bit-identical probabilities, and that lbfgs
  converged (n_iter_ < max_iter) on every fold.
- oof_auc_kfold / oof_auc_group_kfold: roc_auc_score(label, oof_proba_*) over all rows
  (the out-of-fold probabilities of different folds pooled together).
- fold_auc (GroupKFold) and fold_auc_kfold (KFold): per fold, roc_auc_score on that fold's
  test rows with that fold's probabilities; null when the fold's test rows hold one class.
- Every training fold of KFold and GroupKFold holds both classes (asserted).
- e36_group_size_ties is asserted to make the tie-break visible: breaking ties by
  ascending id instead would give other GroupKFold folds for every k.
- A k is listed only when every splitter can run it (k <= entities for GroupKFold,
  k + 1 <= distinct times for TimeSeriesSplit, k <= rows for KFold); every k in
  [2, 3, 5] is possible on the data sets here.

Self-checks beyond sklearn (so a Rust test can choose tight tolerances):
- the optimum of each fold's fit (newton-cholesky, tol 1e-10, polished by float64 Newton
  steps until the gradient of the mean-scaled objective C·Σ logloss + ½‖w‖² is < 1e-15,
  on the fold's standardised training rows) is computed; lbfgs must be within 2e-7 of it
  (max |Δθ| over intercept and coefficients and over the folds of both splitters,
  recorded per k as lbfgs_distance_to_optimum; lbfgs also stops on ftol = 64·eps, hence
  not closer). The optimum's out-of-fold probabilities are stored as
  oof_proba_kfold_optimum / oof_proba_group_kfold_optimum and give exactly the same
  pooled and per-fold AUCs as sklearn's;
- the smallest |p_pos - p_neg| over all positive/negative row pairs of the pooled
  out-of-fold probabilities (min_pos_neg_gap_*) must exceed 1e-7 (as in
  gen_logistic_goldens.py), and over the pairs inside each test fold as well, so a ranking
  flip needs a probability error of 5e-8 or more; a fit within 1e-9 of the optimum cannot
  flip one, while lbfgs' own ranking is asserted equal to the optimum's.
"""

import json
import os
import platform
import sys
import warnings

import numpy as np
import scipy
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, KFold, TimeSeriesSplit, cross_val_predict
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

# The true optimum of each fold, polished by Newton steps: the logistic goldens' own
# (the script beside this one; run from the repository root or this folder).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_logistic_goldens import polish  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cv_goldens.json")
KS = [2, 3, 5]
KFOLD_SEED = 7  # the parity tests' experiment seed (tests/parity/cv.rs)
TOL = 1e-10
MAX_ITER = 10000
MIN_GAP = 1e-7
MAX_LBFGS_DIST = 2e-7


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# ---------------------------------------------------------------------------------------
# Data


def entity_ids(rng, n_entities):
    """Distinct ids drawn from c000..c999 (not contiguous), in a random (unsorted) order."""
    return [f"c{v:03d}" for v in rng.choice(1000, size=n_entities, replace=False)]


def build(rng, ids, rows_per_entity, times_for, label_mode, scales, offsets_sd, w, shift):
    """Rows for each entity (generation order = ids order, i.e. unsorted).

    x = entity offset (N(0, offsets_sd²)·scale + base) + N(0, 1)·scale [+ shift·label·scale].
    label_mode "row": label ~ Bernoulli(sigmoid(z·w + a_e)) per row (varies within an
    entity), z the row's standard-normal noise, a_e an entity random effect;
    label_mode "entity": one label per entity ~ Bernoulli(sigmoid(a_e)), and the features
    are shifted by shift·label (signal through the features).
    """
    p = len(scales)
    scales = np.asarray(scales, dtype=float)
    base = np.array([0.0, 50.0, -2.0, 1000.0, 5.0, 0.5][:p])
    rows = []
    for e, n in zip(ids, rows_per_entity):
        offset = rng.normal(size=p) * offsets_sd * scales + base
        a_e = rng.normal() * 0.8
        times = times_for(rng, n)
        assert len(set(times)) == n
        y_e = int(rng.random() < sigmoid(a_e - 0.2))
        for t in times:
            z = rng.normal(size=p)
            if label_mode == "row":
                y = int(rng.random() < sigmoid(z @ w + a_e))
                x = offset + z * scales
            else:
                y = y_e
                x = offset + z * scales + shift * y * scales
            rows.append((e, int(t), y, x))
    rows.sort(key=lambda r: (r[0], r[1]))  # str order of ASCII ids == byte order
    entity = [r[0] for r in rows]
    time = [r[1] for r in rows]
    label = np.array([r[2] for r in rows], dtype=np.int64)
    x = np.round(np.array([r[3] for r in rows]), 6)
    return entity, time, label, x


def shared_months(months):
    """Each entity is observed on a random subset of the months 1..months (shared values)."""

    def f(rng, n):
        return np.sort(rng.choice(np.arange(1, months + 1), size=n, replace=False))

    return f


def own_days(rng, n):
    """Per-entity days: a random start in 0..399 then gaps of 1..7 days (mostly distinct)."""
    start = int(rng.integers(0, 400))
    return start + np.cumsum(rng.integers(1, 8, size=n)) - 1


def e30_varying_rows(rng):
    """30 entities, 3-12 rows each, months 1..12 shared across entities, labels vary within an
    entity, 4 features."""
    ids = entity_ids(rng, 30)
    sizes = rng.integers(3, 13, size=30)
    return build(rng, ids, sizes, shared_months(12), "row", [1.0, 10.0, 0.1, 100.0],
                 1.5, np.array([1.0, -0.8, 0.6, 0.3]), 0.0)


def e57_constant_labels_odd_rows(rng):
    """57 entities, 2-9 rows each, per-entity day numbers (mostly distinct times), one label
    per entity (signal through the features), 5 features; the row count is divisible by
    none of 2, 3, 5 (row counts bumped until it is)."""
    ids = entity_ids(rng, 57)
    sizes = rng.integers(2, 10, size=57)
    i = 0
    while any(sizes.sum() % k == 0 for k in KS):
        sizes[i % 57] = sizes[i % 57] + 1 if sizes[i % 57] < 9 else 2
        i += 1
    return build(rng, ids, sizes, own_days, "entity", [1.0, 10.0, 0.1, 100.0, 3.0],
                 1.0, None, 0.6)


def e100_shared_years(rng):
    """100 entities, 4-10 rows each, years 2000..2019 shared across entities, labels vary
    within an entity, 6 features."""
    ids = entity_ids(rng, 100)
    sizes = rng.integers(4, 11, size=100)
    return build(rng, ids, sizes, lambda r, n: shared_months(20)(r, n) + 1999, "row",
                 [1.0, 10.0, 0.1, 100.0, 3.0, 1.0], 1.0,
                 np.array([0.9, -0.6, 0.4, 0.0, 0.5, -0.3]), 0.0)


def e36_group_size_ties(rng):
    """36 entities: 24 with exactly 5 rows and 12 with exactly 8 rows, the sizes interleaved
    over the ids (GroupKFold's tie-breaking decides the folds), months 1..8 shared, labels
    vary within an entity, 3 features."""
    ids = entity_ids(rng, 36)
    sizes = rng.permutation(np.array([5] * 24 + [8] * 12))
    return build(rng, ids, sizes, shared_months(8), "row", [1.0, 10.0, 0.1], 1.0,
                 np.array([1.2, -0.7, 0.5]), 0.0)


def e7_small_constant_labels(rng):
    """7 entities, 3-12 rows each, months 1..12 shared, one label per entity (3 positive
    entities, 4 negative), so some GroupKFold test folds hold one class (fold_auc null),
    3 features."""
    ids = entity_ids(rng, 7)
    sizes = rng.integers(3, 13, size=7)
    entity, time, label, x = build(rng, ids, sizes, shared_months(12), "entity",
                                   [1.0, 10.0, 0.1], 0.7, None, 1.0)
    # Set the entity labels: 3 entities drawn at random are positive, the others negative.
    ent_sorted = sorted(set(entity))
    pos = set(rng.choice(ent_sorted, size=3, replace=False).tolist())
    new = np.array([1 if e in pos else 0 for e in entity], dtype=np.int64)
    # Re-apply the feature shift for the new labels (build shifted by its own labels).
    scales = np.array([1.0, 10.0, 0.1])
    x = np.round(x + (new - label)[:, None] * 1.0 * scales, 6)
    return entity, time, new, x


DATASETS = [
    # (name, maker, seed, C)
    ("e30_varying_rows", e30_varying_rows, 20261201, 1.0),
    ("e57_constant_labels_odd_rows", e57_constant_labels_odd_rows, 20261202, 0.1),
    ("e100_shared_years", e100_shared_years, 20261203, 1.0),
    ("e36_group_size_ties", e36_group_size_ties, 20261204, 1.0),
    ("e7_small_constant_labels", e7_small_constant_labels, 20261205, 1.0),
]


# ---------------------------------------------------------------------------------------
# Splits


def fold_of(n, splits):
    """Per position, the index of the split whose test set contains it (-1 if none)."""
    f = np.full(n, -1, dtype=np.int64)
    for i, (_, test) in enumerate(splits):
        assert np.all(f[test] == -1), "a position in two test sets"
        f[test] = i
    return f


def group_kfold_reference(entity, k):
    """sklearn 1.9.1 GroupKFold (no shuffle) re-implemented in plain Python (docstring)."""
    groups = sorted(set(entity))  # byte order (ASCII ids)
    counts = {g: 0 for g in groups}
    for e in entity:
        counts[e] += 1
    # stable ascending by count, then reversed: count descending, ties by descending id
    order = sorted(range(len(groups)), key=lambda i: counts[groups[i]])[::-1]
    load = [0] * k
    fold_of_group = {}
    for i in order:
        f = min(range(k), key=lambda j: (load[j], j))
        load[f] += counts[groups[i]]
        fold_of_group[groups[i]] = f
    return [fold_of_group[e] for e in entity], [groups[i] for i in order]


def pipeline(c):
    return Pipeline(
        [("scale", StandardScaler()), ("lr", LogisticRegression(C=c, tol=TOL, max_iter=MAX_ITER))]
    )


def min_pos_neg_gap(y, p):
    pos, neg = np.sort(p[y == 1]), np.sort(p[y == 0])
    if len(pos) == 0 or len(neg) == 0:
        return None
    # nearest negative to each positive via searchsorted
    idx = np.searchsorted(neg, pos)
    best = np.inf
    for j in (idx - 1, idx):
        ok = (j >= 0) & (j < len(neg))
        if ok.any():
            best = min(best, float(np.min(np.abs(pos[ok] - neg[j[ok]]))))
    return best


def auc_or_none(y, p):
    return float(roc_auc_score(y, p)) if 0 < y.sum() < len(y) else None


def oof(name, x, y, entity, c, cv, label):
    """cross_val_predict plus a per-fold refit that checks convergence, bit-identity and
    the polished optimum."""
    # KFold ignores groups (and warns when given them), so it gets none.
    groups = np.array(entity) if isinstance(cv, GroupKFold) else None
    splits = list(cv.split(x, y, groups))
    proba = cross_val_predict(pipeline(c), x, y, groups=groups, cv=cv, method="predict_proba")[:, 1]
    mine = np.full(len(y), np.nan)
    opt = np.full(len(y), np.nan)
    n_iter, dist = [], []
    for train, test in splits:
        ytr = y[train]
        assert 0 < ytr.sum() < len(ytr), (name, label, "training fold with one class")
        model = pipeline(c).fit(x[train], ytr)
        it = int(model.named_steps["lr"].n_iter_[0])
        assert it < MAX_ITER, (name, label, "lbfgs did not converge")
        n_iter.append(it)
        mine[test] = model.predict_proba(x[test])[:, 1]
        scaler = model.named_steps["scale"]
        ztr, zte = scaler.transform(x[train]), scaler.transform(x[test])
        nc = LogisticRegression(C=c, solver="newton-cholesky", tol=TOL, max_iter=MAX_ITER).fit(ztr, ytr)
        theta = polish(ztr, ytr, c, np.concatenate([nc.intercept_, nc.coef_[0]]))
        lr = model.named_steps["lr"]
        d = float(np.max(np.abs(np.concatenate([lr.intercept_, lr.coef_[0]]) - theta)))
        assert d < MAX_LBFGS_DIST, (name, label, "lbfgs far from the optimum", d)
        dist.append(d)
        opt[test] = sigmoid(theta[0] + zte @ theta[1:])
    assert np.array_equal(proba, mine), (name, label, "cross_val_predict != per-fold refit")
    assert np.all((proba > 0.0) & (proba < 1.0)), (name, label, "saturated probability")
    auc = float(roc_auc_score(y, proba))
    assert float(roc_auc_score(y, opt)) == auc, (name, label, "optimum ranks differently")
    fold_auc, fold_auc_opt, fold_gaps = [], [], []
    for _, test in splits:
        fold_auc.append(auc_or_none(y[test], proba[test]))
        fold_auc_opt.append(auc_or_none(y[test], opt[test]))
        g = min_pos_neg_gap(y[test], proba[test])
        if g is not None:
            fold_gaps.append(g)
    assert fold_auc == fold_auc_opt, (name, label, "optimum ranks differently in a fold")
    gap = min_pos_neg_gap(y, proba)
    assert gap > MIN_GAP and min(fold_gaps) > MIN_GAP, (name, label, gap, fold_gaps)
    return {
        "fold": fold_of(len(y), splits),
        "proba": proba,
        "opt": opt,
        "auc": auc,
        "fold_auc": fold_auc,
        "n_iter": n_iter,
        "dist": max(dist),
        "gap": gap,
    }


def floats(a):
    return [float(v) for v in a]


def ints(a):
    return [int(v) for v in a]


def main():
    out = {
        "generator": "tests/parity/gen_cv_goldens.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "ks": KS,
        "datasets": [],
    }
    for name, make, seed, c in DATASETS:
        rng = np.random.default_rng(seed)
        entity, time, y, x = make(rng)
        n = len(y)
        # canonical order and uniqueness
        keys = [(e.encode(), t) for e, t in zip(entity, time)]
        assert keys == sorted(keys) and len(set(keys)) == n, name
        assert all(len(e) == 4 and e[0] == "c" for e in entity), name
        assert 0 < y.sum() < n, name
        ents = sorted(set(entity))
        distinct = np.array(sorted(set(time)), dtype=np.int64)
        pos_of_time = {int(t): i for i, t in enumerate(distinct)}
        folds = []
        for k in KS:
            if k > len(ents) or k + 1 > len(distinct) or k > n:
                print(f"{name}: k={k} impossible, skipped", file=sys.stderr)
                continue
            kf = oof(
                name, x, y, entity, c,
                KFold(n_splits=k, shuffle=True, random_state=KFOLD_SEED), f"kfold k={k}",
            )
            gk = oof(name, x, y, entity, c, GroupKFold(n_splits=k), f"group_kfold k={k}")

            # KFold(shuffle=True): contiguous blocks, the first n % k one larger, of the rows
            # as RandomState(KFOLD_SEED).shuffle permutes them
            sizes = [n // k + (1 if f < n % k else 0) for f in range(k)]
            permuted = np.arange(n)
            np.random.RandomState(KFOLD_SEED).shuffle(permuted)
            expected = np.empty(n, dtype=np.int64)
            expected[permuted] = [f for f in range(k) for _ in range(sizes[f])]
            assert kf["fold"].tolist() == expected.tolist()
            # GroupKFold: reference implementation; an entity never straddles folds
            ref, order = group_kfold_reference(entity, k)
            assert gk["fold"].tolist() == ref, (name, k, "GroupKFold != reference")
            per_ent = {}
            for e, f in zip(entity, gk["fold"]):
                assert per_ent.setdefault(e, int(f)) == int(f)

            # TimeSeriesSplit on the distinct time values
            ts_splits = list(TimeSeriesSplit(n_splits=k).split(distinct.reshape(-1, 1)))
            ts_fold = fold_of(len(distinct), ts_splits)
            train_times, test_times = [], []
            for tr, te in ts_splits:
                assert tr.tolist() == list(range(te[0])), (name, k, "train != all before test")
                train_times.append(ints(distinct[tr]))
                test_times.append(ints(distinct[te]))
            ts_row = [int(ts_fold[pos_of_time[t]]) for t in time]
            for f in range(k):  # not fitted here, but a kernel could: both classes in training
                ytr = y[np.array(time) < test_times[f][0]]
                assert 0 < ytr.sum() < len(ytr), (name, k, f, "time-series training with one class")
            if name == "e36_group_size_ties":
                # the data must make the tie-break visible: breaking ties by *ascending* id
                # would give other folds
                cnt = {e: entity.count(e) for e in ents}
                assert sorted(cnt.values()) == [5] * 24 + [8] * 12
                alt_order = sorted(ents, key=lambda e: (-cnt[e], e))
                load, alt = [0] * k, {}
                for e in alt_order:
                    j = min(range(k), key=lambda j: (load[j], j))
                    load[j] += cnt[e]
                    alt[e] = j
                assert [alt[e] for e in entity] != gk["fold"].tolist(), (name, k)

            folds.append(
                {
                    "k": k,
                    "kfold": ints(kf["fold"]),
                    "group_kfold": ints(gk["fold"]),
                    "group_kfold_entity_order": order,
                    "group_kfold_fold_rows": ints(np.bincount(gk["fold"], minlength=k)),
                    "time_series": {
                        "fold_per_time": ints(ts_fold),
                        "train_times": train_times,
                        "test_times": test_times,
                        "fold_per_row": ts_row,
                    },
                    "oof_proba_kfold": floats(kf["proba"]),
                    "oof_auc_kfold": kf["auc"],
                    "fold_auc_kfold": kf["fold_auc"],
                    "oof_proba_group_kfold": floats(gk["proba"]),
                    "oof_auc_group_kfold": gk["auc"],
                    "fold_auc": gk["fold_auc"],
                    "oof_proba_kfold_optimum": floats(kf["opt"]),
                    "oof_proba_group_kfold_optimum": floats(gk["opt"]),
                    "n_iter_kfold": kf["n_iter"],
                    "n_iter_group_kfold": gk["n_iter"],
                    "lbfgs_distance_to_optimum": max(kf["dist"], gk["dist"]),
                    "min_pos_neg_gap_kfold": kf["gap"],
                    "min_pos_neg_gap_group_kfold": gk["gap"],
                }
            )
            print(
                f"{name} k={k}: kfold auc={kf['auc']!r} group auc={gk['auc']!r} "
                f"fold_auc={gk['fold_auc']} group rows/fold={folds[-1]['group_kfold_fold_rows']} "
                f"ts never-tested={int((ts_fold == -1).sum())}/{len(distinct)} "
                f"n_iter<= {max(kf['n_iter'] + gk['n_iter'])} dist={folds[-1]['lbfgs_distance_to_optimum']:.1e} "
                f"gap={min(kf['gap'], gk['gap']):.1e}",
                file=sys.stderr,
            )
        out["datasets"].append(
            {
                "name": name,
                "description": " ".join(make.__doc__.split()),
                "seed": seed,
                "c": c,
                "n_rows": n,
                "n_entities": len(ents),
                "n_distinct_times": len(distinct),
                "n_positive": int(y.sum()),
                "label_constant_per_entity": all(
                    len({int(v) for v, e2 in zip(y, entity) if e2 == e}) == 1 for e in ents
                ),
                "features": [f"f{j}" for j in range(x.shape[1])],
                "entity": entity,
                "time": time,
                "label": ints(y),
                "x": [floats(r) for r in x],
                "distinct_times": ints(distinct),
                "folds": folds,
            }
        )
        print(
            f"{name}: rows={n} entities={len(ents)} distinct_times={len(distinct)} "
            f"positives={int(y.sum())} c={c} ks={[f['k'] for f in folds]}",
            file=sys.stderr,
        )
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning (convergence, metrics, ...) is a failure
        main()
