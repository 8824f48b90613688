"""Cross-validation folds for the scikit-learn side of the side-by-side scripts: the same
kind of assignment as counterlab's `k_fold`, `entity_k_fold` and `rolling_origin` arms.

For `assignment = "sklearn"` these are scikit-learn's own KFold / GroupKFold /
TimeSeriesSplit (on the distinct time values), the folds counterlab reproduces exactly; for
the seeded assignment a shuffled KFold / GroupKFold: other draws, the same work. With
`repeats` R >= 2 the folds of every repeat, repeat after repeat: scikit-learn's
`RepeatedKFold(n_splits=K, n_repeats=R, random_state=seed)`, and for `entity_k_fold` the
same loop of `GroupKFold(shuffle=True)` over one `RandomState(seed)` (exactly counterlab's
`sklearn` assignment with repeats; for the seeded one other draws, the same work).
"""

import numpy as np
from sklearn.model_selection import GroupKFold, KFold, RepeatedKFold, TimeSeriesSplit


def cv_folds(data, split, seed):
    """The (train, test) row-index arrays of a cross-validation arm's folds, or None for a
    single split. `data` has `X`, `y`, `groups` and `time` arrays."""
    if split["kind"] not in ("k_fold", "entity_k_fold", "rolling_origin"):
        return None
    k = split["folds"]
    exact = split.get("assignment") == "sklearn"
    repeats = split.get("repeats", 1)
    if repeats > 1 and split["kind"] == "k_fold":
        return list(RepeatedKFold(n_splits=k, n_repeats=repeats, random_state=seed % 2**32).split(data.X))
    if repeats > 1 and split["kind"] == "entity_k_fold":
        rng = np.random.RandomState(seed % 2**32)
        return [
            fold
            for _ in range(repeats)
            for fold in GroupKFold(n_splits=k, shuffle=True, random_state=rng).split(data.X, data.y, data.groups)
        ]
    if split["kind"] == "k_fold":
        cv = KFold(n_splits=k) if exact else KFold(n_splits=k, shuffle=True, random_state=seed)
        return list(cv.split(data.X))
    if split["kind"] == "entity_k_fold":
        cv = GroupKFold(n_splits=k) if exact else GroupKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(cv.split(data.X, data.y, data.groups))
    # rolling_origin: TimeSeriesSplit over the distinct time values, mapped back to rows;
    # with test_fraction, test_size = (the latest values holding that share of rows) // k.
    values = np.unique(data.time)
    tss = TimeSeriesSplit(n_splits=k)
    if split.get("test_fraction"):
        wanted = int(np.ceil(split["test_fraction"] * len(data.y)))
        counts = np.array([np.sum(data.time == v) for v in values])
        first = values[::-1][np.searchsorted(np.cumsum(counts[::-1]), wanted)]
        tss = TimeSeriesSplit(n_splits=k, test_size=int(np.sum(values >= first)) // k)
    return [
        (np.flatnonzero(np.isin(data.time, values[tr])), np.flatnonzero(np.isin(data.time, values[te])))
        for tr, te in tss.split(values)
    ]
