#!/usr/bin/env python3
"""Facts about the four real datasets of tests/data/real/, computed independently
of counterlab (no counterlab code was read for the rules), for test writers.

Run from the repository root:

    python3 tests/data/real/expectations.py

It writes tests/data/real/expectations.json (and prints nothing else but a
summary). Written and run with Python 3.11.7, pandas 3.1.1, numpy 2.4.6 and
scikit-learn 1.9.1 (in a virtual environment with only those installed).
The output is deterministic: running it twice gives the same file.

The rules (the specification this script implements):

* Cells are read as the raw text between commas (the files have no quoting);
  nothing is trimmed and no text is treated as missing.
* rows, distinct entities (an entity may be a pair of columns: its key is the
  tuple of cells), label counts.
* For every column other than the entity column(s) and the label:
  - distinct: the number of distinct cell texts;
  - numeric: every cell parses as a finite float (a plain decimal number,
    optionally signed, with optional fraction and exponent: NUMBER_RE);
  - integer_valued: numeric and every value a whole number;
  - unique_per_row: distinct == rows;
  - constant_within_entity: every entity has one value of the column;
  - one_to_one_with_entity: constant within entity and distinct == entities;
  - nests_entity: constant within entity and 2 <= distinct < entities;
  - levels_map_onto_label: 2 <= distinct <= 50, distinct * 2 <= rows, and all
    rows of each value have the same label;
  - oof_auc_alone: pooled out-of-fold ROC AUC of the column alone over
    sklearn GroupKFold(n_splits=5) with the entity as the group (no shuffle;
    in scikit-learn 1.9.1 this assigns whole entities to folds greedily,
    largest entity first, to the fold with the fewest rows so far; entities of
    equal size go in reverse byte order of their key, the key being the cell
    text, or the cells joined by U+001F for a pair of columns). In each
    fold: if the column is numeric with more than 50 distinct values, the test
    score is value * direction, direction = +1 if the column's ROC AUC on the
    training rows is >= 0.5 else -1 (+1 if the training rows have one class);
    otherwise (text, or numeric with <= 50 distinct values) the test score is
    the training rows' positive rate among rows with the same cell text (a
    text unseen in training gets the training prevalence). Then roc_auc_score
    over all rows' pooled scores.
* Context, not an exact golden: pooled out-of-fold ROC AUC of
  LogisticRegression(C=1.0, max_iter=10000) on standardized features under
  KFold(5, shuffle=True, random_state=0) (random rows) and GroupKFold(5)
  (whole entities), and the gap (random minus grouped). Features: every column
  except the label, the time and the dataset's id-like columns (`id_like` in
  DATASETS: the entity keys of every listed grouping, whatever the grouping of
  the split, and respiratory's `id`; respiratory's `center` is kept); numeric columns are used as
  numbers, text columns one-hot encoded (unseen levels ignored); every feature
  is then standardized. Encoder and scaler are fitted on the training rows of
  each fold. Reported for two feature sets: "all" as just described, and
  "no_label_proxies" which also drops every column with levels_map_onto_label.
"""

import csv
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

ROOT = Path("tests") / "data" / "real"
OUT = ROOT / "expectations.json"

NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

DATASETS = [
    {
        "name": "bacteria",
        "label": "y",
        "positive": "y",
        "time": "week",
        "entities": [["ID"]],
        "id_like": ["ID"],
    },
    {
        "name": "respiratory",
        "label": "outcome",
        "positive": "1",
        "time": "visit",
        # `id` restarts in each centre; `patient` (added by export.R) is the
        # patient key, the same partition as the pair (center, id): checked
        # below, and both are analysed (`id` alone is not an entity).
        "entities": [["patient"], ["center", "id"]],
        "id_like": ["patient", "id"],
    },
    {
        "name": "verbagg",
        "label": "r2",
        "positive": "Y",
        "time": None,
        "entities": [["id"], ["item"]],
        "id_like": ["id", "item"],
    },
    {
        "name": "contraception",
        "label": "use",
        "positive": "Y",
        "time": None,
        "entities": [["woman"], ["district"]],
        "id_like": ["woman", "district"],
    },
]


def read_csv_text(path):
    """Header and columns of raw cell texts, straight from the file."""
    data = path.read_bytes()
    assert b"\r" not in data and b'"' not in data, path
    text = data.decode("utf-8")
    assert text.endswith("\n"), path
    rows = list(csv.reader(text[:-1].split("\n"), quoting=csv.QUOTE_NONE))
    header, body = rows[0], rows[1:]
    assert all(len(r) == len(header) for r in body), path
    assert len(set(header)) == len(header), path
    return header, {h: [r[i] for r in body] for i, h in enumerate(header)}


def parse_number(cell):
    if not NUMBER_RE.fullmatch(cell):
        return None
    value = float(cell)
    return value if math.isfinite(value) else None


def column_kind(cells):
    values = [parse_number(c) for c in cells]
    numeric = all(v is not None for v in values)
    integer_valued = numeric and all(v == math.floor(v) for v in values)
    return numeric, integer_valued, (np.array(values, dtype=float) if numeric else None)


def entity_keys(columns, entity):
    return ["\x1f".join(t) for t in zip(*(columns[c] for c in entity))]


def oof_auc_alone(cells, values, y, groups, folds):
    """Out-of-fold ROC AUC of one column alone (see the module docstring)."""
    n = len(y)
    scores = np.empty(n, dtype=float)
    distinct = len(set(cells))
    as_number = values is not None and distinct > 50
    cells = np.array(cells, dtype=object)
    for train, test in folds:
        if as_number:
            y_train = y[train]
            if y_train.min() == y_train.max():
                direction = 1.0
            else:
                direction = 1.0 if roc_auc_score(y_train, values[train]) >= 0.5 else -1.0
            scores[test] = values[test] * direction
        else:
            prevalence = y[train].mean()
            pos, tot = defaultdict(int), defaultdict(int)
            for c, t in zip(cells[train], y[train]):
                tot[c] += 1
                pos[c] += int(t)
            scores[test] = [pos[c] / tot[c] if c in tot else prevalence for c in cells[test]]
    return float(roc_auc_score(y, scores))


def logistic_oof(frame, y, groups, numeric_cols, text_cols, kind):
    transformers = []
    if numeric_cols:
        transformers.append(("num", "passthrough", numeric_cols))
    if text_cols:
        transformers.append(
            ("txt", OneHotEncoder(handle_unknown="ignore", sparse_output=False), text_cols)
        )
    model = Pipeline(
        [
            ("encode", ColumnTransformer(transformers)),
            ("scale", StandardScaler()),
            ("fit", LogisticRegression(C=1.0, max_iter=10000)),
        ]
    )
    if kind == "random":
        splits = KFold(n_splits=5, shuffle=True, random_state=0).split(frame)
    else:
        splits = GroupKFold(n_splits=5).split(frame, y, groups)
    scores = np.empty(len(y), dtype=float)
    for train, test in splits:
        model.fit(frame.iloc[train], y[train])
        scores[test] = model.predict_proba(frame.iloc[test])[:, 1]
    return float(roc_auc_score(y, scores))


def analyse(spec):
    name = spec["name"]
    path = ROOT / name / f"{name}.csv"
    header, columns = read_csv_text(path)
    n = len(columns[header[0]])
    label_cells = columns[spec["label"]]
    y = np.array([c == spec["positive"] for c in label_cells], dtype=int)
    kinds = {h: column_kind(columns[h]) for h in header}

    out = {
        "csv": str(path.as_posix()),
        "rows": n,
        "columns": header,
        "label": spec["label"],
        "positive": spec["positive"],
        "time": spec["time"],
        "label_counts": dict(sorted(Counter(label_cells).items())),
        "column_kinds": {
            h: {
                "distinct": len(set(columns[h])),
                "numeric": kinds[h][0],
                "integer_valued": kinds[h][1],
            }
            for h in header
        },
        "entities": {},
    }

    for entity in spec["entities"]:
        ent_name = "+".join(entity)
        keys = entity_keys(columns, entity)
        groups = np.array(keys, dtype=object)
        n_entities = len(set(keys))
        rows_per = Counter(keys)
        label_sets = defaultdict(set)
        for k, t in zip(keys, y):
            label_sets[k].add(int(t))
        folds = list(GroupKFold(n_splits=5).split(np.zeros(n), y, groups))
        fold_entities = [len(set(groups[test])) for _, test in folds]
        fold_rows = [len(test) for _, test in folds]

        cols = {}
        for h in header:
            if h in entity or h == spec["label"]:
                continue
            cells = columns[h]
            numeric, integer_valued, values = kinds[h]
            distinct = len(set(cells))
            per_entity = defaultdict(set)
            for k, c in zip(keys, cells):
                per_entity[k].add(c)
            constant = all(len(v) == 1 for v in per_entity.values())
            per_value = defaultdict(set)
            for c, t in zip(cells, y):
                per_value[c].add(int(t))
            maps = 2 <= distinct <= 50 and distinct * 2 <= n and all(
                len(v) == 1 for v in per_value.values()
            )
            cols[h] = {
                "distinct": distinct,
                "numeric": numeric,
                "integer_valued": integer_valued,
                "unique_per_row": distinct == n,
                "constant_within_entity": constant,
                "one_to_one_with_entity": constant and distinct == n_entities,
                "nests_entity": constant and 2 <= distinct < n_entities,
                "levels_map_onto_label": maps,
                "oof_auc_alone": round(oof_auc_alone(cells, values, y, groups, folds), 6),
                "oof_auc_alone_scored_as": (
                    "value_times_direction"
                    if numeric and distinct > 50
                    else "training_positive_rate_of_value"
                ),
            }

        out["entities"][ent_name] = {
            "entity_columns": entity,
            "distinct_entities": n_entities,
            "rows_per_entity": {
                str(k): v for k, v in sorted(Counter(rows_per.values()).items())
            },
            "entities_only_positive": sum(1 for s in label_sets.values() if s == {1}),
            "entities_only_negative": sum(1 for s in label_sets.values() if s == {0}),
            "group_folds": {
                "splitter": "sklearn.model_selection.GroupKFold(n_splits=5)",
                "entities_per_fold": fold_entities,
                "rows_per_fold": fold_rows,
            },
            "columns": cols,
        }

    # Logistic regression: random rows vs whole entities.
    excluded = set(spec["id_like"]) | {spec["label"]} | ({spec["time"]} if spec["time"] else set())
    base = [h for h in header if h not in excluded]
    proxies = {
        h
        for e in out["entities"].values()
        for h, f in e["columns"].items()
        if f["levels_map_onto_label"]
    }
    feature_sets = {"all": base, "no_label_proxies": [h for h in base if h not in proxies]}
    frame = pd.DataFrame(
        {h: (kinds[h][2] if kinds[h][0] else np.array(columns[h], dtype=object)) for h in header}
    )
    logistic = {
        "model": "StandardScaler + LogisticRegression(C=1.0, max_iter=10000)",
        "random_split": "KFold(n_splits=5, shuffle=True, random_state=0)",
        "grouped_split": "GroupKFold(n_splits=5)",
        "excluded": sorted(excluded),
    }
    for set_name, feats in feature_sets.items():
        numeric_cols = [h for h in feats if kinds[h][0]]
        text_cols = [h for h in feats if not kinds[h][0]]
        entry = {"features_numeric": numeric_cols, "features_one_hot": text_cols, "by_entity": {}}
        for ent_name, ent in out["entities"].items():
            groups = np.array(entity_keys(columns, ent["entity_columns"]), dtype=object)
            r = logistic_oof(frame, y, groups, numeric_cols, text_cols, "random")
            g = logistic_oof(frame, y, groups, numeric_cols, text_cols, "grouped")
            entry["by_entity"][ent_name] = {
                "auc_random_rows": round(r, 6),
                "auc_grouped": round(g, 6),
                "gap": round(r - g, 6),
            }
        logistic[set_name] = entry
    out["logistic_regression"] = logistic

    # Dataset-specific checks.
    notes = []
    if name == "respiratory":
        pair = entity_keys(columns, ["center", "id"])
        same = len(set(zip(pair, columns["patient"]))) == len(set(pair)) == len(set(columns["patient"]))
        assert same
        notes.append(
            "patient is the same partition as the pair (center, id): "
            f"{len(set(pair))} entities; id alone has {len(set(columns['id']))} values"
        )
    if name == "verbagg":
        derived = all((r == "no") == (t == "N") for r, t in zip(columns["resp"], label_cells))
        assert derived
        pairs = set(zip(columns["id"], columns["item"]))
        assert len(pairs) == n
        notes.append("r2 == N exactly when resp == no: resp is a label proxy")
        notes.append("every (id, item) pair occurs exactly once: persons crossed with items")
    if name == "contraception":
        nested = all(
            len(v) == 1
            for v in _groupsets(columns["woman"], columns["district"]).values()
        )
        assert nested
        notes.append("each woman lies in one district (one row per woman)")
    out["notes"] = notes
    return out


def _groupsets(keys, cells):
    d = defaultdict(set)
    for k, c in zip(keys, cells):
        d[k].add(c)
    return d


def main():
    if not ROOT.is_dir():
        sys.exit(f"run from the repository root: {ROOT} not found")
    result = {
        "generated_by": "tests/data/real/expectations.py",
        "versions": {
            "python": sys.version.split()[0],
            "pandas": pd.__version__,
            "numpy": np.__version__,
            "scikit-learn": sklearn.__version__,
        },
        "datasets": {spec["name"]: analyse(spec) for spec in DATASETS},
    }
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for name, d in result["datasets"].items():
        print(f"== {name}: {d['rows']} rows, labels {d['label_counts']}")
        for ent, e in d["entities"].items():
            print(f"  entity {ent}: {e['distinct_entities']}")
            for col, f in e["columns"].items():
                flags = [k for k in ("unique_per_row", "one_to_one_with_entity",
                                     "nests_entity", "levels_map_onto_label") if f[k]]
                print(f"    {col:10} distinct={f['distinct']:5} auc={f['oof_auc_alone']:.4f} {flags}")
        for set_name in ("all", "no_label_proxies"):
            lr = d["logistic_regression"][set_name]
            print(f"  LR[{set_name}] {lr['features_numeric']} {lr['features_one_hot']} {lr['by_entity']}")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
