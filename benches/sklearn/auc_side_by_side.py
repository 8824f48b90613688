#!/usr/bin/env python3
"""Time scikit-learn's roc_auc_score at the sizes of `cargo bench --bench auc`.

Run from the crate root:

    python3 benches/sklearn/auc_side_by_side.py

and compare with `cargo bench --bench auc` (criterion group `roc_auc_stats/N`).
Data are of the same kind as benches/auc.rs (not the same draws: numpy's PCG64 here,
ChaCha8 there): label ~ Bernoulli(0.3); score = round((u + 0.3*label)*1000)/1000 with u
uniform in [0, 1) — about 1,300 distinct values, so large inputs are mostly ties.
Input conversion is included in neither timing: both sides get ready arrays.
"""

import platform
import timeit

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score

SIZES = [1_000, 10_000, 100_000, 1_000_000]


def data(n, seed=2026):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round((rng.random(n) + 0.3 * y) * 1000.0) / 1000.0
    return y.astype(np.int64), s


def main():
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}"
    )
    print(f"{'n':>10} {'median':>12} {'min':>12} {'auc':>20}  (roc_auc_score)")
    for n in SIZES:
        y, s = data(n)
        auc = roc_auc_score(y, s)
        timer = timeit.Timer(lambda: roc_auc_score(y, s))
        number, _ = timer.autorange()  # loops per repeat so that one repeat takes >= 0.2 s
        runs = sorted(t / number for t in timer.repeat(repeat=7, number=number))
        med = runs[len(runs) // 2]
        print(f"{n:>10} {fmt(med):>12} {fmt(runs[0]):>12} {auc:>20.17f}")


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
