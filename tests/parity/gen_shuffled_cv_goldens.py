#!/usr/bin/env python3
"""Goldens for numpy's legacy RandomState and scikit-learn's *shuffled* KFold and GroupKFold:
writes tests/parity/shuffled_cv_goldens.json, which tests/parity/shuffled_cv.rs compares
with src/split/numpy_random.rs.

Run from the repository root:

    /var/tmp/counterlab-venv/bin/python tests/parity/gen_shuffled_cv_goldens.py

The checked-in file was produced with Python 3.11.7, numpy 2.4.6 and scikit-learn 1.9.1;
the versions that ran are recorded in the JSON ("versions"). Nothing is timed or drawn
from an unseeded source: the group labels come from np.random.default_rng(seed) (the seed
is stored with each data set), so a rerun with the same versions reproduces the file byte
for byte.

Every golden comes from numpy or scikit-learn itself, never from the pure-Python emulation
below; the emulation (`Mt19937`, the same algorithm as the Rust module) is only asserted
equal to them, so a misunderstanding shows up here as a failed assertion rather than as a
golden that agrees with itself.

Definitions (what the JSON means)
---------------------------------
- raw: per seed s, `first` = the first 10 outputs of np.random.RandomState(s) as uint32,
  and `from_620` = outputs 620..629 (0-based), across MT19937's second regeneration of its
  624-word state. Taken as RandomState(s).randint(0, 2**32, size=m, dtype=np.uint32):
  with the range 2**32 - 1 numpy's bounded-integer code returns next_uint32 unmasked, i.e.
  the raw genrand_int32 outputs; asserted equal to RandomState(s)._bit_generator
  .random_raw(m), MT19937's raw stream, a second numpy path. Seeds 0, 1, 42, 5489
  (mt19937ar.c's default), 123456789 and 2**32 - 1, the largest numpy accepts (it raises
  ValueError "Seed must be between 0 and 2**32 - 1" outside 0..2**32 - 1, asserted).
- interval: per (seed, max), 20 successive draws of numpy's masked bounded integer in
  [0, max]: RandomState(s).randint(0, max + 1, size=20, dtype=np.int64). Legacy randint
  uses masked rejection (the smallest all-ones mask >= max, draws & mask until <= max),
  the algorithm of distributions.c's random_interval that shuffle calls: 32-bit draws for
  max <= 2**32 - 1, 64-bit draws (two outputs, the first the high half) above. Maxima
  1, 5, 8, 1000, 2**31, 2**32 - 2, 2**32 - 1, 2**32, 2**33 - 1 and 3·2**32 + 4 cover both
  branches and both sides of a power of two.
- permutation: per (seed, n), RandomState(s).permutation(n) (== RandomState(s).shuffle of
  np.arange(n), asserted), and `next_raw` = the next uint32 output after it, which checks
  how many draws the permutation consumed (rejections included; n = 0 and 1 draw none).
  Seeds 0, 1, 42, 2**32 - 1; n = 0, 1, 2, 3, 10, 257, 1000.
- k_fold: per (n, k, seed), the fold index of each row 0..n-1 under
  KFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros((n, 1))): the f of the
  test set holding the row, folds in sklearn's order. sklearn 1.9.1 shuffles
  arange(n) with check_random_state(seed) (= np.random.RandomState(seed)) and cuts
  consecutive folds of n // k, the first n % k one larger. Every k in 2..10 with k <= n.
- group_k_fold: per data set, `labels` (the group of each row, in row order; text or
  integers) and `unique` (np.unique(labels): sorted — code-point order for text,
  numeric order for integers), and per (k, seed) `fold_per_row` under
  GroupKFold(n_splits=k, shuffle=True, random_state=seed).split(X, groups=labels).
  sklearn 1.9.1 permutes `unique` with RandomState(seed).permutation and cuts it with
  np.array_split(…, k) (equal numbers of groups, the first n_groups % k sections one
  larger); a fold tests every row of its groups. Asserted: the permuted groups equal
  unique[RandomState(seed).permutation(n_groups)] (same draws for an array of labels as
  for an index range). Data sets: unequal group sizes with rows interleaved (not grouped),
  non-ASCII and prefix-sharing labels (the sort order is visible), integer labels whose
  numeric order is not their text order, many small groups, the minimum of 2 groups.
  Every k in 2..10 with k <= groups.
- refusals: sklearn's ValueError for n_splits > n_samples (KFold and GroupKFold) and
  n_splits > n_groups (GroupKFold), recorded as the cases that raise (asserted to raise).
"""

import json
import os
import platform

import numpy as np
import sklearn
from sklearn.model_selection import GroupKFold, KFold

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shuffled_cv_goldens.json")
RAW_SEEDS = [0, 1, 42, 5489, 123456789, 2**32 - 1]
INTERVAL_SEEDS = [0, 42, 2**32 - 1]
INTERVAL_MAXIMA = [1, 5, 8, 1000, 2**31, 2**32 - 2, 2**32 - 1, 2**32, 2**33 - 1, 3 * 2**32 + 4]
PERM_SEEDS = [0, 1, 42, 2**32 - 1]
PERM_NS = [0, 1, 2, 3, 10, 257, 1000]
CV_SEEDS = [0, 1, 42, 2**32 - 1, 20261201]
KFOLD_NS = [2, 3, 7, 10, 11, 50, 101, 1000]
KS = range(2, 11)


# ---------------------------------------------------------------------------------------
# The emulation (checked against numpy, never written to the goldens)


class Mt19937:
    """MT19937 seeded by init_genrand, with numpy's legacy random_interval and shuffle."""

    def __init__(self, seed):
        self.key = [seed]
        for i in range(1, 624):
            prev = self.key[-1]
            self.key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        self.pos = 624

    def next_u32(self):
        if self.pos >= 624:
            k = self.key
            for i in range(624):
                y = (k[i] & 0x80000000) | (k[(i + 1) % 624] & 0x7FFFFFFF)
                k[i] = k[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.pos = 0
        y = self.key[self.pos]
        self.pos += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def interval(self, mx):
        if mx == 0:
            return 0
        mask = (1 << mx.bit_length()) - 1
        while True:
            if mx <= 0xFFFFFFFF:
                v = self.next_u32() & mask
            else:
                v = ((self.next_u32() << 32) | self.next_u32()) & mask
            if v <= mx:
                return v

    def permutation(self, n):
        a = list(range(n))
        for i in reversed(range(1, n)):
            j = self.interval(i)
            a[i], a[j] = a[j], a[i]
        return a


def blocks(length, k):
    """Per position of 0..length-1, its section: KFold's fold sizes == np.array_split's."""
    base, extra = divmod(length, k)
    return [f for f in range(k) for _ in range(base + (1 if f < extra else 0))]


def fold_of(n, splits):
    out = [-1] * n
    for f, (_, test) in enumerate(splits):
        for r in test.tolist():
            assert out[r] == -1
            out[r] = f
    assert -1 not in out
    return out


# ---------------------------------------------------------------------------------------
# Group data sets (labels in row order; rows deliberately not grouped together)


def g12_unequal(rng):
    """12 text groups with 1-20 rows each, rows interleaved in a random order."""
    names = [f"site-{v:02d}" for v in rng.choice(100, size=12, replace=False)]
    sizes = rng.integers(1, 21, size=12)
    labels = [n for n, s in zip(names, sizes) for _ in range(int(s))]
    return [labels[i] for i in rng.permutation(len(labels))]


def g9_sort_order(rng):
    """9 text groups whose code-point order differs from a naive one: upper case before
    lower, prefixes before extensions ("a" < "a10" < "a9"), non-ASCII last ("ß" < "é")."""
    names = ["a9", "Z", "é", "a10", "b", "a", "ß", "B", "a1"]
    sizes = rng.integers(1, 8, size=len(names))
    labels = [n for n, s in zip(names, sizes) for _ in range(int(s))]
    return [labels[i] for i in rng.permutation(len(labels))]


def g25_integers(rng):
    """25 integer groups drawn from 0..999 plus 9, 10 and 100 (numeric order != text order),
    2-6 rows each."""
    pool = np.array([v for v in range(1000) if v not in (9, 10, 100)])
    values = [int(v) for v in rng.choice(pool, size=22, replace=False)] + [9, 10, 100]
    assert len(set(values)) == 25
    sizes = rng.integers(2, 7, size=25)
    labels = [v for v, s in zip(values, sizes) for _ in range(int(s))]
    return [labels[i] for i in rng.permutation(len(labels))]


def g101_many(rng):
    """101 text groups with 1-5 rows each, in group-sorted row order."""
    names = [f"p{v:04d}" for v in rng.choice(10000, size=101, replace=False)]
    sizes = rng.integers(1, 6, size=101)
    return sorted(n for n, s in zip(names, sizes) for _ in range(int(s)))


def g2_minimal(rng):
    """2 text groups, 1 row and 6 rows."""
    labels = ["x"] + ["y"] * 6
    return [labels[i] for i in rng.permutation(len(labels))]


GROUP_SETS = [
    ("g12_unequal", g12_unequal, 20261301),
    ("g9_sort_order", g9_sort_order, 20261302),
    ("g25_integers", g25_integers, 20261303),
    ("g101_many", g101_many, 20261304),
    ("g2_minimal", g2_minimal, 20261305),
]


# ---------------------------------------------------------------------------------------


def raises(f):
    try:
        f()
    except ValueError:
        return True
    return False


def main():
    out = {
        "generator": "tests/parity/gen_shuffled_cv_goldens.py",
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scikit-learn": sklearn.__version__,
        },
    }

    for bad in [-1, 2**32]:
        assert raises(lambda: np.random.RandomState(bad)), bad

    raw = []
    for s in RAW_SEEDS:
        first = np.random.RandomState(s).randint(0, 2**32, size=630, dtype=np.uint32).tolist()
        assert first == np.random.RandomState(s)._bit_generator.random_raw(630).tolist(), s
        mt = Mt19937(s)
        assert first == [mt.next_u32() for _ in range(630)], s
        raw.append({"seed": s, "first": first[:10], "from_620": first[620:630]})
    out["raw"] = raw

    interval = []
    for s in INTERVAL_SEEDS:
        for mx in INTERVAL_MAXIMA:
            draws = np.random.RandomState(s).randint(0, mx + 1, size=20, dtype=np.int64).tolist()
            mt = Mt19937(s)
            assert draws == [mt.interval(mx) for _ in range(20)], (s, mx)
            interval.append({"seed": s, "max": mx, "draws": draws})
    out["interval"] = interval

    permutation = []
    for s in PERM_SEEDS:
        for n in PERM_NS:
            rs = np.random.RandomState(s)
            perm = rs.permutation(n).tolist()
            next_raw = int(rs.randint(0, 2**32, dtype=np.uint32))
            arr = np.arange(n)
            np.random.RandomState(s).shuffle(arr)
            assert arr.tolist() == perm, (s, n)
            mt = Mt19937(s)
            assert mt.permutation(n) == perm and mt.next_u32() == next_raw, (s, n)
            permutation.append({"seed": s, "n": n, "permutation": perm, "next_raw": next_raw})
    out["permutation"] = permutation

    k_fold = []
    for n in KFOLD_NS:
        for k in KS:
            if k > n:
                continue
            for s in CV_SEEDS:
                folds = fold_of(n, KFold(n_splits=k, shuffle=True, random_state=s).split(np.zeros((n, 1))))
                ref = [0] * n
                for row, f in zip(Mt19937(s).permutation(n), blocks(n, k)):
                    ref[row] = f
                assert folds == ref, (n, k, s)
                k_fold.append({"n": n, "k": k, "seed": s, "fold_per_row": folds})
    out["k_fold"] = k_fold

    group_k_fold = []
    for name, make, data_seed in GROUP_SETS:
        labels = make(np.random.default_rng(data_seed))
        groups = np.array(labels)
        unique = np.unique(groups)
        if isinstance(labels[0], str):
            # np.unique's order for text is code-point order == UTF-8 byte order
            assert unique.tolist() == sorted(set(labels), key=lambda v: v.encode()), name
        else:
            assert unique.tolist() == sorted(set(labels)), name
            assert unique.tolist() != sorted(set(labels), key=str), name
        n, n_groups = len(labels), len(unique)
        per_k = []
        for k in KS:
            if k > n_groups:
                assert raises(lambda: list(GroupKFold(n_splits=k, shuffle=True, random_state=0).split(
                    np.zeros((n, 1)), groups=groups))), (name, k)
                continue
            for s in CV_SEEDS:
                folds = fold_of(n, GroupKFold(n_splits=k, shuffle=True, random_state=s).split(
                    np.zeros((n, 1)), groups=groups))
                permuted = np.random.RandomState(s).permutation(unique)
                assert permuted.tolist() == unique[np.random.RandomState(s).permutation(n_groups)].tolist()
                section = {g: f for g, f in zip(permuted.tolist(), blocks(n_groups, k))}
                assert folds == [section[g] for g in labels], (name, k, s)
                perm = Mt19937(s).permutation(n_groups)
                ref_group = {unique[g].item(): f for g, f in zip(perm, blocks(n_groups, k))}
                assert folds == [ref_group[g] for g in labels], (name, k, s, "emulation")
                per_k.append({"k": k, "seed": s, "fold_per_row": folds})
        group_k_fold.append(
            {
                "name": name,
                "description": " ".join(make.__doc__.split()),
                "data_seed": data_seed,
                "n_rows": n,
                "n_groups": int(n_groups),
                "labels": labels,
                "unique": unique.tolist(),
                "folds": per_k,
            }
        )
    out["group_k_fold"] = group_k_fold

    refusals = []
    for n, k in [(0, 2), (1, 2), (3, 4), (9, 10)]:
        assert raises(lambda: list(KFold(n_splits=k, shuffle=True, random_state=0).split(np.zeros((n, 1)))))
        refusals.append({"splitter": "KFold", "n_rows": n, "k": k})
    assert raises(lambda: KFold(n_splits=1, shuffle=True, random_state=0))
    refusals.append({"splitter": "KFold", "n_rows": 10, "k": 1})
    for labels, k in [(["a", "b", "b"], 3), (["a", "b", "b"], 4), (["a", "a", "a", "a"], 2)]:
        assert raises(lambda: list(GroupKFold(n_splits=k, shuffle=True, random_state=0).split(
            np.zeros((len(labels), 1)), groups=np.array(labels))))
        refusals.append({"splitter": "GroupKFold", "labels": labels, "k": k})
    out["refusals"] = refusals

    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print(
        f"wrote {OUT} ({os.path.getsize(OUT)} bytes): {len(raw)} raw streams, "
        f"{len(interval)} interval cases, {len(permutation)} permutations, "
        f"{len(k_fold)} KFold and {sum(len(g['folds']) for g in group_k_fold)} GroupKFold assignments"
    )


if __name__ == "__main__":
    main()
