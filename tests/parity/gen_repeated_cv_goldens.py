#!/usr/bin/env python3
"""Goldens for repeated cross-validation with the `sklearn` assignment: writes
tests/parity/repeated_cv_goldens.json, which tests/parity/repeated_cv.rs compares with
`counterlab::split::folds` on a pack built from each data set.

Run from the repository root:

    /var/tmp/counterlab-venv/bin/python tests/parity/gen_repeated_cv_goldens.py

The checked-in file was produced with numpy 2.4.6 and scikit-learn 1.9.1 (recorded in the
JSON, "versions"). Row counts per entity come from np.random.default_rng(seed) (the seed
is stored), so a rerun with the same versions reproduces the file byte for byte.

Definitions (what the JSON means)
---------------------------------
- A data set is `rows_per_entity`: entity i (id "e" + 3-digit i, so byte order == numeric
  order) has that many rows, with time 0, 1, ...; rows are listed entity by entity, time
  ascending: the kernel's canonical row order, so "row r" is the same row on both sides.
- k_fold: per repeat, the fold index (0..k-1) of each row under scikit-learn's
  `RepeatedKFold(n_splits=k, n_repeats=R, random_state=s).split(rows)`: R consecutive
  `KFold(n_splits=k, shuffle=True, random_state=rng)` handed one `RandomState(s)`.
- entity_k_fold: the same loop with `GroupKFold(n_splits=k, shuffle=True,
  random_state=rng)` and groups = the entity ids, run through scikit-learn's own
  `_RepeatedSplits(GroupKFold, n_repeats=R, random_state=s, n_splits=k)` (the base class of
  RepeatedKFold; scikit-learn ships no RepeatedGroupKFold) and asserted equal to an
  explicit loop over one RandomState.
"""

import json
import os

import numpy as np
import sklearn
from sklearn.model_selection import GroupKFold, KFold, RepeatedKFold
from sklearn.model_selection._split import _RepeatedSplits

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repeated_cv_goldens.json")


def per_repeat(tests, n, k, repeats):
    folds = []
    for r in range(repeats):
        fold = [-1] * n
        for f in range(k):
            for row in tests[r * k + f]:
                assert fold[row] == -1
                fold[int(row)] = f
        assert -1 not in fold
        folds.append(fold)
    return folds


def main():
    cases = []
    for seed, entities, max_rows in [(1, 12, 4), (2, 30, 9), (3, 7, 1), (4, 53, 12)]:
        rng = np.random.default_rng(seed)
        rows_per_entity = [int(c) for c in rng.integers(1, max_rows + 1, size=entities)]
        groups = np.array([f"e{i:03d}" for i, c in enumerate(rows_per_entity) for _ in range(c)])
        n = len(groups)
        X = np.zeros((n, 1))
        for k in [2, 3, 5]:
            if k > entities:
                continue
            for repeats in [2, 4]:
                for random_state in [0, 7, 2**32 - 1]:
                    kf = [t for _, t in RepeatedKFold(n_splits=k, n_repeats=repeats, random_state=random_state).split(X)]
                    gkf = [t for _, t in _RepeatedSplits(GroupKFold, n_repeats=repeats, random_state=random_state, n_splits=k).split(X, groups=groups)]
                    shared = np.random.RandomState(random_state)
                    loop = []
                    for _ in range(repeats):
                        loop.extend(t for _, t in GroupKFold(n_splits=k, shuffle=True, random_state=shared).split(X, groups=groups))
                    assert all(np.array_equal(a, b) for a, b in zip(gkf, loop)) and len(gkf) == len(loop)
                    cases.append({
                        "data_seed": seed,
                        "rows_per_entity": rows_per_entity,
                        "k": k,
                        "repeats": repeats,
                        "random_state": random_state,
                        "k_fold": per_repeat(kf, n, k, repeats),
                        "entity_k_fold": per_repeat(gkf, n, k, repeats),
                    })
    doc = {
        "generator": "tests/parity/gen_repeated_cv_goldens.py",
        "versions": {"numpy": np.__version__, "sklearn": sklearn.__version__},
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
