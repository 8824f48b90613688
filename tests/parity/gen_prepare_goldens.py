#!/usr/bin/env python3
"""Goldens for the preparation steps (src/prepare/) against scikit-learn and
imbalanced-learn: writes tests/parity/prepare_goldens.json, which tests/parity/prepare.rs
compares with the kernel.

Run from the repository root (any venv with numpy, scikit-learn and imbalanced-learn):

    python3 -m pip install scikit-learn==1.9.1 imbalanced-learn==0.14.2
    python3 tests/parity/gen_prepare_goldens.py

The checked-in file was produced with Python 3.11, numpy 2.4.6, scikit-learn 1.9.1 and
imbalanced-learn 0.14.2 (the versions that ran are recorded in "versions"). Data come from
seeded numpy Generators (seeds stored), so a rerun with the same versions reproduces the
file byte for byte. Every float is written by Python's json (repr: exact doubles).

Every expected value is computed by scikit-learn or imbalanced-learn themselves; nothing
here re-implements a step.

Definitions (what the JSON means)
---------------------------------
- Data sets. Rows are stored in the kernel's canonical order: one row per entity, ids
  "r" + a zero-padded 4-digit number, ascending, time 0. "columns" are the manifest's
  features in order: numeric columns (floats rounded to 6 decimals) and categorical ones
  (text levels, byte order). The model design one-hot encodes a categorical column in
  place, one column per level ("<column>=<level>"), as the kernel's layout does.
    - "mixed": 160 rows, 12 numeric columns and a 14-level categorical "site" as the 7th
      feature; about 25% positives; x01, x02 and the site carry signal.
    - "mixed_missing": "mixed" with 19 cells of x03 and 19 of x05 missing (null; an empty
      cell in the pack), drawn by np.random.default_rng(4343).
    - "wide_null": 60 rows, 400 numeric noise columns; labels independent of everything
      (half positive, shuffled): the setting of Ambroise & McLachlan (2002).
- transforms. For a data set, a fixed split (test = rows whose index is a multiple of 5)
  and a pipeline of steps all fitted on `fit_on`:
    - training_rows: each step is fitted on the (current) training rows and transforms
      training and test rows; a sampler's fit_resample on the training rows returns them
      followed by its new rows, which stay training rows.
    - all_rows: each step is fitted on every row and transforms every row; a sampler's
      fit_resample on every row returns them followed by its new rows, which are added to
      the training rows; the split then takes the original rows.
  Recorded: "columns" (the output's column names), "train" (row-major, training rows in
  order then the new rows), "test", "new_labels".
  Steps: impute = SimpleImputer(strategy=s); standardize = StandardScaler(); target_encode = TargetEncoder(smooth=m,
  target_type="binary") fitted on the categorical column's text then transform (no
  cross fitting), its output column put where the column's one-hot block stood, named by
  the column; select_k_best = SelectKBest(f_classif, k=k) (its get_support applied to the
  current columns); oversample random = RandomOverSampler(random_state=7); smote =
  SMOTE(k_neighbors=k, random_state=7). The kernel's seed is 7.
- impute. SimpleImputer(strategy=s).fit(a[fit rows]).statistics_ for small columns with
  NaN, per strategy: "values" (NaN as null), "fit_rows", "statistic".
- cv. The pooled out-of-fold ROC AUC of a pipeline over KFold(5, shuffle=True,
  random_state=7) (the kernel's `k_fold` with `assignment = "sklearn"`, seed 7):
    - right way: cross_val_predict(imblearn Pipeline([...steps..., model]), X, y, cv),
      every step refitted on each fold's training rows;
    - wrong way: the steps fitted on all rows first (their output on every row, and a
      sampler's new rows), then per fold the model fitted on the prepared training rows
      plus the new rows and scored on the prepared test rows.
  model: logistic = Pipeline([StandardScaler(), LogisticRegression(C=1, tol=1e-10,
  max_iter=10000)]) (the kernel's logistic model standardises its design); gbdt =
  HistGradientBoostingClassifier(early_stopping=False, max_iter=20, random_state=0) with
  the kernel's other defaults. roc_auc_score of the pooled out-of-fold probabilities.
"""

import json
import sys

import numpy as np
import sklearn
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler, TargetEncoder

import imblearn
from imblearn.over_sampling import SMOTE, RandomOverSampler

SEED = 7


def mixed():
    rng = np.random.default_rng(20261206)
    n = 160
    x = np.round(rng.normal(size=(n, 12)), 6)
    levels = [f"s{i:02d}" for i in range(14)]
    site = rng.integers(0, 14, size=n)
    site_effect = np.linspace(-1.2, 1.2, 14)
    z = -1.6 + 1.0 * x[:, 0] - 0.8 * x[:, 1] + site_effect[site]
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    columns = [{"name": f"x{j + 1:02d}", "kind": "numeric", "values": x[:, j].tolist()} for j in range(6)]
    columns.append({"name": "site", "kind": "categorical", "levels": levels,
                    "values": [levels[s] for s in site]})
    columns += [{"name": f"x{j + 1:02d}", "kind": "numeric", "values": x[:, j].tolist()} for j in range(6, 12)]
    return {"name": "mixed", "seed": 20261206, "label": y.tolist(), "columns": columns}


def mixed_missing():
    """"mixed" with about 12% of x03's and x05's cells missing (null in the JSON, an empty
    cell in the pack)."""
    d = mixed()
    rng = np.random.default_rng(4343)
    for name in ["x03", "x05"]:
        column = next(c for c in d["columns"] if c["name"] == name)
        for i in rng.choice(len(d["label"]), size=19, replace=False):
            column["values"][int(i)] = None
    d["name"] = "mixed_missing"
    return d


def wide_null():
    rng = np.random.default_rng(1002)
    n, p = 60, 400
    x = np.round(rng.normal(size=(n, p)), 6)
    y = np.array([1] * (n // 2) + [0] * (n - n // 2))
    rng.shuffle(y)
    columns = [{"name": f"g{j:03d}", "kind": "numeric", "values": x[:, j].tolist()} for j in range(p)]
    return {"name": "wide_null", "seed": 1002, "label": y.tolist(), "columns": columns}


def design(d):
    """The kernel's model design: numeric columns as they are, a categorical one one-hot
    in place. Returns (matrix, names, {categorical column: (start, levels, codes)})."""
    blocks, names, cats = [], [], {}
    for c in d["columns"]:
        if c["kind"] == "numeric":
            blocks.append(np.array([np.nan if v is None else v for v in c["values"]], dtype=float)[:, None])
            names.append(c["name"])
        else:
            codes = np.array([c["levels"].index(v) for v in c["values"]])
            cats[c["name"]] = (len(names), c["levels"], np.array(c["values"], dtype=object))
            blocks.append(np.eye(len(c["levels"]))[codes])
            names += [f"{c['name']}={lv}" for lv in c["levels"]]
    return np.hstack(blocks), names, cats


class Frame:
    """Columns with names; a target-encodable column keeps its text per row."""

    def __init__(self, x, names, cats):
        self.x, self.names, self.cats = x, list(names), dict(cats)


def run_steps(d, steps, fit_rows_of, n_rows):
    """Applies `steps` with each step fitted on fit_rows_of(frame rows count) and returns
    the frame and the new rows' labels. Rows 0..n_rows are the data set's; new rows are
    appended."""
    x, names, cats = design(d)
    y = np.array(d["label"])
    f = Frame(x, names, cats)
    new_y = []
    for step in steps:
        rows = fit_rows_of(len(f.x))
        kind = step["step"]
        if kind == "impute":
            s = SimpleImputer(strategy=step["strategy"]).fit(f.x[rows])
            f.x = s.transform(f.x)
        elif kind == "standardize":
            s = StandardScaler().fit(f.x[rows])
            f.x = s.transform(f.x)
        elif kind == "target_encode":
            col = step["column"]
            start, levels, text = f.cats.pop(col)
            te = TargetEncoder(smooth=step["smooth"], target_type="binary")
            te.fit(text[rows][:, None], y[rows])
            enc = te.transform(text[:, None])[:, 0]
            f.x = np.hstack([f.x[:, :start], enc[:, None], f.x[:, start + len(levels):]])
            f.names = f.names[:start] + [col] + f.names[start + len(levels):]
        elif kind == "select_k_best":
            s = SelectKBest(f_classif, k=step["k"]).fit(f.x[rows], y[rows])
            keep = s.get_support()
            f.x = f.x[:, keep]
            f.names = [nm for nm, k in zip(f.names, keep) if k]
        elif kind == "oversample":
            if step["method"] == "random":
                sampler = RandomOverSampler(random_state=SEED)
            else:
                sampler = SMOTE(k_neighbors=step.get("k_neighbors", 5), random_state=SEED)
            xr, yr = sampler.fit_resample(f.x[rows], y[rows])
            assert np.array_equal(xr[: len(rows)], f.x[rows]), "new rows follow the originals"
            f.x = np.vstack([f.x, xr[len(rows):]])
            y = np.concatenate([y, yr[len(rows):]])
            new_y += [int(v) for v in yr[len(rows):]]
        else:
            raise ValueError(kind)
    return f, y, new_y


def transform_case(d, steps, fit_on):
    n = len(d["label"])
    test = np.array([i for i in range(n) if i % 5 == 0])
    train = np.array([i for i in range(n) if i % 5 != 0])

    def fit_rows(total):
        if fit_on == "all_rows":
            return np.arange(total)
        return np.concatenate([train, np.arange(n, total)]).astype(int)

    f, _, new_y = run_steps(d, steps, fit_rows, n)
    train_rows = np.concatenate([train, np.arange(n, len(f.x))]).astype(int)
    return {
        "dataset": d["name"],
        "steps": [dict(s, fit_on=fit_on) for s in steps],
        "test_rows": test.tolist(),
        "columns": f.names,
        "train": f.x[train_rows].ravel().tolist(),
        "test": f.x[test].ravel().tolist(),
        "new_labels": new_y,
    }


def model_of(kind):
    if kind == "logistic":
        return Pipeline([("scale", StandardScaler()),
                         ("lr", LogisticRegression(C=1.0, tol=1e-10, max_iter=10000))])
    return HistGradientBoostingClassifier(early_stopping=False, max_iter=20, random_state=0)


def cv_case(d, steps, model, way):
    n = len(d["label"])
    y = np.array(d["label"])
    folds = list(KFold(5, shuffle=True, random_state=SEED).split(np.zeros((n, 1))))
    oof = np.full(n, np.nan)
    if way == "wrong":
        f, y_all, _ = run_steps(d, steps, lambda total: np.arange(total), n)
        for train, test in folds:
            rows = np.concatenate([train, np.arange(n, len(f.x))]).astype(int)
            m = clone(model_of(model)).fit(f.x[rows], y_all[rows])
            oof[test] = m.predict_proba(f.x[test])[:, 1]
    else:
        for train, test in folds:
            def fit_rows(total, train=train):
                return np.concatenate([train, np.arange(n, total)]).astype(int)
            # The steps fitted on this fold's training rows: run_steps on the fold.
            f, y_all, _ = run_steps(d, steps, fit_rows, n)
            rows = np.concatenate([train, np.arange(n, len(f.x))]).astype(int)
            m = clone(model_of(model)).fit(f.x[rows], y_all[rows])
            oof[test] = m.predict_proba(f.x[test])[:, 1]
    return {
        "dataset": d["name"],
        "steps": [dict(s, fit_on="all_rows" if way == "wrong" else "training_rows") for s in steps],
        "model": model,
        "way": way,
        "oof_auc": float(roc_auc_score(y, oof)),
    }


def imblearn_pipeline_agrees(d, steps):
    """The right way above equals cross_val_predict of an imbalanced-learn Pipeline, for a
    pipeline without target encoding (whose column handling is this script's)."""
    from imblearn.pipeline import Pipeline as ImbPipeline
    from sklearn.model_selection import cross_val_predict
    x, _, _ = design(d)
    y = np.array(d["label"])
    parts = []
    for i, s in enumerate(steps):
        if s["step"] == "impute":
            parts.append((f"s{i}", SimpleImputer(strategy=s["strategy"])))
        elif s["step"] == "standardize":
            parts.append((f"s{i}", StandardScaler()))
        elif s["step"] == "select_k_best":
            parts.append((f"s{i}", SelectKBest(f_classif, k=s["k"])))
        elif s["step"] == "oversample":
            parts.append((f"s{i}", RandomOverSampler(random_state=SEED) if s["method"] == "random"
                          else SMOTE(k_neighbors=s.get("k_neighbors", 5), random_state=SEED)))
    parts.append(("model", model_of("logistic")))
    cv = KFold(5, shuffle=True, random_state=SEED)
    oof = cross_val_predict(ImbPipeline(parts), x, y, cv=cv, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, oof))


def impute_cases():
    rng = np.random.default_rng(31)
    cases = []
    for strategy in ["mean", "median", "most_frequent"]:
        for trial in range(3):
            a = np.round(rng.normal(size=23), 2 if strategy == "most_frequent" else 6)
            if strategy == "most_frequent":
                a = np.round(rng.integers(0, 4, size=23) * 0.5, 1)
            a[rng.choice(23, size=5, replace=False)] = np.nan
            fit_rows = sorted(rng.choice(23, size=15, replace=False).tolist())
            imp = SimpleImputer(strategy=strategy).fit(a[fit_rows][:, None])
            cases.append({
                "strategy": strategy,
                "values": [None if np.isnan(v) else float(v) for v in a],
                "fit_rows": fit_rows,
                "statistic": float(imp.statistics_[0]),
            })
    return cases


def main():
    datasets = [mixed(), mixed_missing(), wide_null()]
    by_name = {d["name"]: d for d in datasets}
    te = {"step": "target_encode", "column": "site", "smooth": 2.0}
    singles = [
        [{"step": "standardize"}],
        [te],
        [{"step": "select_k_best", "k": 5}],
        [{"step": "oversample", "method": "random"}],
        [{"step": "oversample", "method": "smote", "k_neighbors": 5}],
        [te, {"step": "standardize"}, {"step": "select_k_best", "k": 6},
         {"step": "oversample", "method": "smote", "k_neighbors": 3}],
    ]
    transforms = [transform_case(by_name["mixed"], steps, fit_on)
                  for steps in singles for fit_on in ["training_rows", "all_rows"]]
    transforms.append(transform_case(by_name["wide_null"], [{"step": "select_k_best", "k": 10}], "training_rows"))
    for strategy in ["mean", "median", "most_frequent"]:
        for fit_on in ["training_rows", "all_rows"]:
            transforms.append(transform_case(by_name["mixed_missing"],
                                             [{"step": "impute", "strategy": strategy}, {"step": "standardize"}], fit_on))
    pipelines = [
        ("mixed", [te, {"step": "select_k_best", "k": 8}], "logistic"),
        ("mixed", [te, {"step": "select_k_best", "k": 8}], "gbdt"),
        ("mixed", [{"step": "oversample", "method": "smote", "k_neighbors": 5}], "logistic"),
        ("mixed", [{"step": "oversample", "method": "random"}], "gbdt"),
        ("wide_null", [{"step": "select_k_best", "k": 10}], "logistic"),
        ("mixed_missing", [{"step": "impute", "strategy": "median"}], "logistic"),
        ("mixed_missing", [{"step": "standardize"}, {"step": "impute", "strategy": "mean"},
                           {"step": "oversample", "method": "smote", "k_neighbors": 5}], "gbdt"),
    ]
    cv = [cv_case(by_name[name], steps, model, way)
          for name, steps, model in pipelines for way in ["right", "wrong"]]
    # The right way as this script runs it is imbalanced-learn's own Pipeline.
    for name, steps, model in pipelines:
        if model == "logistic" and not any(s["step"] == "target_encode" for s in steps):
            ours = next(c for c in cv if c["dataset"] == name and c["way"] == "right" and c["model"] == model
                        and c["steps"][0]["step"] == steps[0]["step"])
            assert abs(imblearn_pipeline_agrees(by_name[name], steps) - ours["oof_auc"]) < 1e-12
    out = {
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scikit-learn": sklearn.__version__, "imbalanced-learn": imblearn.__version__},
        "seed": SEED,
        "datasets": datasets,
        "transforms": transforms,
        "impute": impute_cases(),
        "cv": cv,
    }
    with open("tests/parity/prepare_goldens.json", "w") as fh:
        json.dump(out, fh, indent=None, separators=(",", ":"))
        fh.write("\n")
    for c in cv:
        print(c["dataset"], c["model"], c["way"], [s["step"] for s in c["steps"]], round(c["oof_auc"], 4))


if __name__ == "__main__":
    main()
