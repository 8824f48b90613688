#!/usr/bin/env python3
"""Goldens for categorical-feature parity with scikit-learn: writes
tests/parity/categorical_goldens.json.

Run from the repository root:

    python3 tests/parity/gen_categorical_goldens.py

The checked-in file was produced with Python 3.11.7, numpy 2.4.6, scipy 1.17.1,
pandas 3.1.1 and scikit-learn 1.9.1; the versions that ran are recorded in the JSON
("versions"). Every data set comes from its own seeded numpy Generator
(np.random.default_rng(seed), the seed is stored with it), so a rerun with the same
versions reproduces the file byte for byte. Numeric cells are rounded to 6 decimals so the
JSON stays small; every float (cells, probabilities, AUCs) is written by Python's json,
i.e. with repr(), which round-trips the exact double. Helpers (ids, times, fold indices,
the Newton polish, the ranking-gap check) come from gen_cv_goldens.py beside this file.

Definitions (what the JSON means)
---------------------------------
- Row order. Rows are stored sorted by entity id (byte order; ids are "c" + a zero-padded
  3-digit number) and then by time ascending; (entity, time) pairs are unique: the
  kernel's canonical row order, as in gen_cv_goldens.py.
- Columns. "columns" lists the feature columns in feature order (the manifest's feature
  list). A "numeric" column holds floats; a "categorical" column holds text cells (no
  commas, quotes or newlines; a space may occur) and "levels", its distinct values sorted
  in byte order (sorted(levels, key=lambda s: s.encode())); every level occurs in the data.
- Encoding. Each categorical column is one-hot encoded over all of its levels (none
  dropped), one column per level in byte order, named "<column>=<level>"; the one-hot
  columns replace the source column in place, numeric columns pass through. The resulting
  column order is "encoded_names". sklearn: ColumnTransformer with one transformer per
  source column in feature order, (f"onehot_{col}", OneHotEncoder(categories=[levels],
  sparse_output=False, dtype=float), [col]) or (f"num_{col}", "passthrough", [col]),
  remainder="drop", on a pandas DataFrame (categorical columns of dtype object, numeric
  float64); its get_feature_names_out(), mapped to "<column>=<level>" / "<column>", is
  asserted equal to encoded_names, and its output on all rows is asserted equal to a
  plain numpy one-hot design built independently.
- Model. Pipeline([("encode", <the ColumnTransformer>), ("scale", StandardScaler()),
  ("lr", LogisticRegression(C=c, tol=1e-10, max_iter=10000))]) (lbfgs, L2, intercept),
  refitted from scratch on each fold's training rows (the scaler too). A column that is
  constant on a fold's training rows (e.g. the one-hot column of a level that no training
  row has: all zeros) gets StandardScaler's scale 1 (and its mean, 0 for an all-zero
  column); such columns are listed per fold in "constant_train_columns".
- Folds. KFold(n_splits=k, shuffle=True, random_state=7) over the rows in file order (the
  kernel's `sklearn` assignment of `k_fold` under the tests' seed 7; never unshuffled,
  issue 46): fold f is the contiguous block [start_f, start_f + size_f) of the rows as
  RandomState(7).shuffle permutes them, sizes n // k, the first n % k one larger;
  "fold_per_row" is each row's test-fold index. Every training fold holds both classes
  (asserted).
- oof_proba: per row, cross_val_predict(pipeline, df, y, cv=KFold(k, shuffle=True, random_state=7),
  method="predict_proba")[:, 1]; the script also refits each fold itself and asserts
  bit-identical probabilities, and that lbfgs converged (n_iter_ < max_iter) on every fold.
- oof_auc: roc_auc_score(label, oof_proba) over all rows (the folds pooled).
- oof_proba_optimum / oof_auc_optimum: the same with each fold's true optimum: the fold's
  training rows are encoded and standardised by the fitted pipeline (the same design
  lbfgs saw), LogisticRegression(solver="newton-cholesky", tol=1e-10) is fitted on it and
  polished by float64 Newton steps until the gradient of the mean-scaled objective
  C·Σ logloss + ½‖w‖² is < 1e-15 (gen_logistic_goldens.polish).

JSON shape
----------
{"generator": str,
 "versions": {"python", "numpy", "scipy", "pandas", "scikit-learn"},
 "datasets": [{"name", "description", "seed", "c", "n_rows", "n_entities", "n_positive",
               "entity": [str], "time": [int], "label": [0/1],
               "columns": [{"name", "kind": "numeric"|"categorical",
                            "levels": [str] (categorical only, byte order),
                            "values": [float] | [str]}],
               "encoded_names": [str],
               "folds": [{"k", "fold_per_row": [int], "oof_proba": [float],
                          "oof_proba_optimum": [float], "oof_auc", "oof_auc_optimum",
                          "n_iter": [int per fold], "lbfgs_distance_to_optimum",
                          "max_abs_proba_diff", "min_pos_neg_gap",
                          "constant_train_columns": [[str] per fold]}]}]}

Self-checks (so a Rust test can choose tight tolerances):
- lbfgs' θ (intercept and coefficients on the standardised scale) is within 2e-7 of the
  optimum on every fold (max recorded as lbfgs_distance_to_optimum), and its out-of-fold
  probabilities within 1e-6 of the optimum's (max recorded as max_abs_proba_diff);
- oof_auc_optimum == oof_auc exactly, and the smallest |p_pos - p_neg| over the
  positive/negative pairs of the pooled out-of-fold probabilities (min_pos_neg_gap)
  exceeds 1e-7, so an error below 5e-8 cannot flip a ranking;
- rare_level: for every k, at least one fold's training rows lack the rare level
  (asserted; the data set picks the rare entity so that its rows lie inside one test fold
  for every k);
- text_levels_byte_order: byte order of the levels differs from a case-insensitive order.
"""

import json
import os
import platform
import sys
import warnings

import numpy as np
import pandas as pd
import scipy
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# Shared helpers: the cross-validation goldens' own (the script beside this one).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_cv_goldens import (  # noqa: E402
    MAX_ITER,
    MAX_LBFGS_DIST,
    MIN_GAP,
    TOL,
    entity_ids,
    floats,
    fold_of,
    ints,
    min_pos_neg_gap,
    own_days,
    polish,
    shared_months,
    sigmoid,
)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "categorical_goldens.json")
MAX_PROBA_DIFF = 1e-6


def byte_sorted(levels):
    return sorted(set(levels), key=lambda s: s.encode())


# ---------------------------------------------------------------------------------------
# Data


def assemble(rows, spec):
    """rows: (entity, time, label, {column: value}); spec: [(name, kind)] in feature order.
    Sorts into the canonical order and returns the data set dict (without folds)."""
    rows.sort(key=lambda r: (r[0].encode(), r[1]))
    columns = []
    for name, kind in spec:
        values = [r[3][name] for r in rows]
        if kind == "numeric":
            columns.append({"name": name, "kind": kind, "values": floats(np.round(values, 6))})
        else:
            assert all(isinstance(v, str) and v and not set(v) & set(',"\r\n') for v in values)
            columns.append({"name": name, "kind": kind, "levels": byte_sorted(values),
                            "values": values})
    return {
        "entity": [r[0] for r in rows],
        "time": [int(r[1]) for r in rows],
        "label": [int(r[2]) for r in rows],
        "columns": columns,
    }


def three_levels(rng):
    """40 entities observed at 3 of the months 1..4; feature order x1, region, x2 with region
    (north/south/west, fixed per entity) shifting the log-odds by +0.9/-0.7/0; labels vary
    within an entity."""
    effect = {"north": 0.9, "south": -0.7, "west": 0.0}
    rows = []
    for e in entity_ids(rng, 40):
        region = str(rng.choice(list(effect)))
        a_e = rng.normal() * 0.5
        for t in shared_months(4)(rng, 3):
            z = rng.normal(size=2)
            y = int(rng.random() < sigmoid(0.8 * z[0] - 0.6 * z[1] + effect[region] + a_e))
            rows.append((e, t, y, {"x1": 10.0 + 2.0 * z[0], "region": region,
                                   "x2": -3.0 + 0.5 * z[1]}))
    return assemble(rows, [("x1", "numeric"), ("region", "categorical"), ("x2", "numeric")])


RARE_KS = [3, 5]
KFOLD_SEED = 7  # the parity tests' experiment seed (tests/parity/categorical.rs)


def kfold(k):
    """The folds of the kernel's `k_fold` arm with `assignment = "sklearn"` under the tests'
    seed 7: KFold(shuffle=True, random_state=7) (never the unshuffled KFold, issue 46)."""
    return KFold(n_splits=k, shuffle=True, random_state=KFOLD_SEED)


def rare_level(rng):
    """30 entities with 2-5 rows each, months 1..8; feature order site, x1, sex with site
    (alpha/beta/gamma, fixed per entity) and sex (F/M, fixed per entity) shifting the
    log-odds; one entity, drawn among those whose rows lie inside a single KFold test fold
    for k = 3 and k = 5, has site "delta" (byte order between beta and gamma), so the fold
    that tests it trains without that level (an all-zero one-hot column, scale 1)."""
    ids = entity_ids(rng, 30)
    sizes = dict(zip(ids, (int(s) for s in rng.integers(2, 6, size=30))))
    n = sum(sizes.values())
    start, pos = {}, 0
    for e in sorted(ids, key=str.encode):
        start[e] = pos
        pos += sizes[e]

    def one_fold(e, k):
        f = ints(fold_of(n, kfold(k).split(np.zeros(n))))
        return len(set(f[start[e]:start[e] + sizes[e]])) == 1

    candidates = [e for e in sorted(ids, key=str.encode) if all(one_fold(e, k) for k in RARE_KS)]
    rare = str(rng.choice(candidates))
    site_effect = {"alpha": 0.5, "beta": -0.4, "gamma": 0.0, "delta": 1.0}
    sex_effect = {"F": 0.3, "M": -0.3}
    rows = []
    for e in ids:
        site = "delta" if e == rare else str(rng.choice(["alpha", "beta", "gamma"]))
        sex = str(rng.choice(["F", "M"]))
        a_e = rng.normal() * 0.5
        for t in shared_months(8)(rng, sizes[e]):
            z = rng.normal()
            y = int(rng.random() < sigmoid(0.7 * z + site_effect[site] + sex_effect[sex] + a_e))
            rows.append((e, t, y, {"site": site, "x1": 100.0 + 15.0 * z, "sex": sex}))
    return assemble(rows, [("site", "categorical"), ("x1", "numeric"), ("sex", "categorical")])


CODE_LEVELS = ["a", "B", "b", "_x", "Z9", "a b"]


def text_levels_byte_order(rng):
    """35 entities with 2-6 rows each on per-entity days; feature order x1, x2, code with code
    drawn per row from "a", "B", "b", "_x", "Z9", "a b" (byte order B < Z9 < _x < a < a b
    < b, unlike a case-insensitive order) shifting the log-odds."""
    effect = dict(zip(CODE_LEVELS, [0.6, -0.5, 0.2, -0.9, 0.0, 0.4]))
    rows = []
    for e in entity_ids(rng, 35):
        a_e = rng.normal() * 0.5
        for t in own_days(rng, int(rng.integers(2, 7))):
            z = rng.normal(size=2)
            code = str(rng.choice(CODE_LEVELS))
            y = int(rng.random() < sigmoid(0.9 * z[0] + 0.5 * z[1] + effect[code] + a_e))
            rows.append((e, t, y, {"x1": z[0], "x2": 200.0 + 50.0 * z[1], "code": code}))
    return assemble(rows, [("x1", "numeric"), ("x2", "numeric"), ("code", "categorical")])


DATASETS = [
    # (name, maker, seed, C, ks)
    ("three_levels", three_levels, 20261211, 1.0, [5]),
    ("rare_level", rare_level, 20261212, 0.1, RARE_KS),
    ("text_levels_byte_order", text_levels_byte_order, 20261213, 10.0, [4]),
]


# ---------------------------------------------------------------------------------------
# Encoding and model


def frame(columns):
    return pd.DataFrame(
        {
            c["name"]: pd.Series(c["values"], dtype=object if c["kind"] == "categorical" else np.float64)
            for c in columns
        }
    )


def encoded_names(columns):
    """The kernel's column order: one "<column>=<level>" per level in place of a categorical."""
    names = []
    for c in columns:
        if c["kind"] == "categorical":
            names += [f"{c['name']}={lv}" for lv in c["levels"]]
        else:
            names.append(c["name"])
    return names


def numpy_design(columns):
    """The one-hot design built without sklearn, in the kernel's column order."""
    cols = []
    for c in columns:
        if c["kind"] == "categorical":
            v = np.array(c["values"], dtype=object)
            cols += [(v == lv).astype(float) for lv in c["levels"]]
        else:
            cols.append(np.array(c["values"], dtype=float))
    return np.column_stack(cols)


def encoder(columns):
    parts = []
    for c in columns:
        if c["kind"] == "categorical":
            parts.append((f"onehot_{c['name']}",
                          OneHotEncoder(categories=[c["levels"]], sparse_output=False, dtype=float),
                          [c["name"]]))
        else:
            parts.append((f"num_{c['name']}", "passthrough", [c["name"]]))
    return ColumnTransformer(parts, remainder="drop")


def pipeline(columns, c):
    return Pipeline(
        [
            ("encode", encoder(columns)),
            ("scale", StandardScaler()),
            ("lr", LogisticRegression(C=c, tol=TOL, max_iter=MAX_ITER)),
        ]
    )


def sklearn_names(columns, names_out):
    """get_feature_names_out() ("onehot_col__col_level", "num_col__col") as "col=level"/"col"."""
    kinds = {c["name"]: c["kind"] for c in columns}
    mapped = []
    for s in names_out:
        transformer, rest = s.split("__", 1)
        if transformer.startswith("onehot_"):
            col = transformer[len("onehot_"):]
            assert kinds[col] == "categorical" and rest.startswith(col + "_"), s
            mapped.append(f"{col}={rest[len(col) + 1:]}")
        else:
            col = transformer[len("num_"):]
            assert transformer.startswith("num_") and kinds[col] == "numeric" and rest == col, s
            mapped.append(col)
    return mapped


def oof(name, columns, df, y, c, k, names):
    """cross_val_predict plus a per-fold refit that checks convergence, bit-identity and
    the polished optimum."""
    cv = kfold(k)
    splits = list(cv.split(df))
    proba = cross_val_predict(pipeline(columns, c), df, y, cv=cv, method="predict_proba")[:, 1]
    mine = np.full(len(y), np.nan)
    opt = np.full(len(y), np.nan)
    n_iter, dist, constant = [], [], []
    for train, test in splits:
        ytr = y[train]
        assert 0 < ytr.sum() < len(ytr), (name, k, "training fold with one class")
        model = pipeline(columns, c).fit(df.iloc[train], ytr)
        it = int(model.named_steps["lr"].n_iter_[0])
        assert it < MAX_ITER, (name, k, "lbfgs did not converge")
        n_iter.append(it)
        mine[test] = model.predict_proba(df.iloc[test])[:, 1]
        # the design lbfgs saw: encoded and standardised by the fold's fitted steps
        prep = model[:-1]
        ztr, zte = prep.transform(df.iloc[train]), prep.transform(df.iloc[test])
        xtr = model.named_steps["encode"].transform(df.iloc[train])
        scaler = model.named_steps["scale"]
        const = np.ptp(xtr, axis=0) == 0
        assert np.all(scaler.scale_[const] == 1.0) and np.all(scaler.mean_[const] == xtr[0, const])
        assert np.all(scaler.scale_[~const] != 1.0), (name, k, "a scale of exactly 1 by chance")
        constant.append([names[j] for j in np.flatnonzero(const)])
        nc = LogisticRegression(C=c, solver="newton-cholesky", tol=TOL, max_iter=MAX_ITER).fit(ztr, ytr)
        theta = polish(ztr, ytr, c, np.concatenate([nc.intercept_, nc.coef_[0]]))
        lr = model.named_steps["lr"]
        d = float(np.max(np.abs(np.concatenate([lr.intercept_, lr.coef_[0]]) - theta)))
        assert d < MAX_LBFGS_DIST, (name, k, "lbfgs far from the optimum", d)
        dist.append(d)
        opt[test] = sigmoid(theta[0] + zte @ theta[1:])
    assert np.array_equal(proba, mine), (name, k, "cross_val_predict != per-fold refit")
    assert np.all((proba > 0.0) & (proba < 1.0)), (name, k, "saturated probability")
    diff = float(np.max(np.abs(proba - opt)))
    assert diff < MAX_PROBA_DIFF, (name, k, "lbfgs probabilities far from the optimum", diff)
    auc = float(roc_auc_score(y, proba))
    auc_opt = float(roc_auc_score(y, opt))
    assert auc_opt == auc, (name, k, "optimum ranks differently")
    gap = min_pos_neg_gap(y, proba)
    assert gap > MIN_GAP, (name, k, gap)
    return {
        "k": k,
        "fold_per_row": ints(fold_of(len(y), splits)),
        "oof_proba": floats(proba),
        "oof_proba_optimum": floats(opt),
        "oof_auc": auc,
        "oof_auc_optimum": auc_opt,
        "n_iter": n_iter,
        "lbfgs_distance_to_optimum": max(dist),
        "max_abs_proba_diff": diff,
        "min_pos_neg_gap": gap,
        "constant_train_columns": constant,
    }


def main():
    out = {
        "generator": "tests/parity/gen_categorical_goldens.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "pandas": pd.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "datasets": [],
    }
    for name, make, seed, c, ks in DATASETS:
        rng = np.random.default_rng(seed)
        ds = make(rng)
        entity, time, columns = ds["entity"], ds["time"], ds["columns"]
        y = np.array(ds["label"], dtype=np.int64)
        n = len(y)
        # canonical order and uniqueness
        keys = [(e.encode(), t) for e, t in zip(entity, time)]
        assert keys == sorted(keys) and len(set(keys)) == n, name
        assert 0 < y.sum() < n, name
        for col in columns:
            assert len(col["values"]) == n, (name, col["name"])
            if col["kind"] == "categorical":
                assert col["levels"] == sorted(set(col["values"]), key=lambda s: s.encode())

        # encoding: sklearn's column order and values == the kernel's
        df = frame(columns)
        names = encoded_names(columns)
        enc = encoder(columns).fit(df)
        assert sklearn_names(columns, enc.get_feature_names_out()) == names, name
        assert np.array_equal(enc.transform(df), numpy_design(columns)), name

        if name == "text_levels_byte_order":
            levels = columns[-1]["levels"]
            assert levels == ["B", "Z9", "_x", "a", "a b", "b"], levels
            assert levels != sorted(levels, key=str.lower), name

        folds = []
        for k in ks:
            r = oof(name, columns, df, y, c, k, names)
            sizes = [n // k + (1 if f < n % k else 0) for f in range(k)]
            permuted = np.arange(n)
            np.random.RandomState(KFOLD_SEED).shuffle(permuted)
            expected = np.empty(n, dtype=np.int64)
            expected[permuted] = [f for f in range(k) for _ in range(sizes[f])]
            assert r["fold_per_row"] == expected.tolist(), (name, k)
            if name == "rare_level":
                assert any("site=delta" in cc for cc in r["constant_train_columns"]), (name, k)
            folds.append(r)
            print(
                f"{name} k={k}: auc={r['oof_auc']!r} n_iter<={max(r['n_iter'])} "
                f"dist={r['lbfgs_distance_to_optimum']:.1e} proba_diff={r['max_abs_proba_diff']:.1e} "
                f"gap={r['min_pos_neg_gap']:.1e} constant={r['constant_train_columns']}",
                file=sys.stderr,
            )
        out["datasets"].append(
            {
                "name": name,
                "description": " ".join(make.__doc__.split()),
                "seed": seed,
                "c": c,
                "n_rows": n,
                "n_entities": len(set(entity)),
                "n_positive": int(y.sum()),
                "entity": entity,
                "time": time,
                "label": ints(y),
                "columns": columns,
                "encoded_names": names,
                "folds": folds,
            }
        )
        print(
            f"{name}: rows={n} entities={len(set(entity))} positives={int(y.sum())} c={c} "
            f"ks={ks} encoded={names}",
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
