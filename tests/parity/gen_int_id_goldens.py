#!/usr/bin/env python3
"""Goldens for the `sklearn` assignment on integer entity ids: writes
tests/parity/int_id_goldens.json, which tests/parity/int_ids.rs compares with
`counterlab::split::folds` on a pack built from the same table.

Run from the repository root:

    /var/tmp/skl-venv/bin/python tests/parity/gen_int_id_goldens.py

The checked-in file was produced with numpy 2.4.6 and scikit-learn 1.9.1 (recorded in the
JSON, "versions").

What a user does: export the table to CSV, read it with pandas (an entity column whose every
id is an integer becomes int64) and hand the column to GroupKFold. np.unique then sorts the
groups as numbers (2 before 10 before 100), not as text ("10" before "2"), and GroupKFold's
tie-break among groups of equal size (the group that sorts last first) and its shuffled
permutation both follow that order.

- The table: entity ids 1..25 plus 100 and 250 (numeric order != text order: 2 < 10 < 100
  but "10" < "100" < "2"); entity i has 2 + (7 i mod 4) rows (2..5, many ties), times
  0, 1, ... within it; the rows are interleaved by np.random.default_rng(0).permutation, so
  the file is not grouped; `x` and `label` are filler (folds read neither).
- group_k_fold: per k in 2, 3, 4, 5, 7, 10 the fold of each row (file order) under
  GroupKFold(n_splits=k).split(X, groups=pd.read_csv(file)["entity"]) (dtype asserted
  int64), and `text_group_k_fold`, the same on the ids as text (a numpy str array): what the
  kernel gave before issue 46.7; asserted to differ for some k, so the comparison can
  tell the two orders apart.
- repeated: per k in 2, 3, 5 and random_state in 0, 7: the fold of each row in each of 3
  repeats of GroupKFold(n_splits=k, shuffle=True) sharing one RandomState(random_state)
  (the kernel's `repeats: 3` with seed = random_state, tests/parity/repeated_cv.rs).
"""

import io
import json
import os

import numpy as np
import pandas as pd
import sklearn
from sklearn.model_selection import GroupKFold

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "int_id_goldens.json")


def table():
    ids = list(range(1, 26)) + [100, 250]
    rows = []
    for i in ids:
        for t in range(2 + (7 * i) % 4):
            rows.append((i, t))
    order = np.random.default_rng(0).permutation(len(rows))
    rows = [rows[j] for j in order]
    lines = ["entity,time,x,label"]
    for r, (i, t) in enumerate(rows):
        lines.append(f"{i},{t},{(r * 37) % 101 / 10},{r % 2}")
    return "\n".join(lines) + "\n"


def fold_per_row(splits, n):
    fold = [-1] * n
    for f, (_, test) in enumerate(splits):
        for row in test:
            assert fold[row] == -1
            fold[int(row)] = f
    assert -1 not in fold
    return fold


def main():
    csv = table()
    as_numbers = pd.read_csv(io.StringIO(csv))
    assert as_numbers["entity"].dtype == np.int64
    # The ids read as text (pandas 3: a str column): np.unique sorts them by code point.
    as_text = np.array(pd.read_csv(io.StringIO(csv), dtype={"entity": str})["entity"].tolist())
    assert as_text.dtype.kind == "U"
    n = len(as_numbers)
    X = np.zeros((n, 1))
    group_k_fold, text_group_k_fold = {}, {}
    for k in [2, 3, 4, 5, 7, 10]:
        group_k_fold[k] = fold_per_row(GroupKFold(n_splits=k).split(X, groups=as_numbers["entity"]), n)
        text_group_k_fold[k] = fold_per_row(GroupKFold(n_splits=k).split(X, groups=as_text), n)
    assert any(group_k_fold[k] != text_group_k_fold[k] for k in group_k_fold)
    repeated = []
    for k in [2, 3, 5]:
        for random_state in [0, 7]:
            shared = np.random.RandomState(random_state)
            folds = []
            for _ in range(3):
                splits = GroupKFold(n_splits=k, shuffle=True, random_state=shared).split(X, groups=as_numbers["entity"])
                folds.append(fold_per_row(splits, n))
            repeated.append({"k": k, "random_state": random_state, "repeats": 3, "fold_per_row": folds})
    doc = {
        "generator": "tests/parity/gen_int_id_goldens.py",
        "versions": {"numpy": np.__version__, "sklearn": sklearn.__version__, "pandas": pd.__version__},
        "csv": csv,
        "group_k_fold": [{"k": k, "fold_per_row": f} for k, f in group_k_fold.items()],
        "text_group_k_fold": [{"k": k, "fold_per_row": f} for k, f in text_group_k_fold.items()],
        "repeated": repeated,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
