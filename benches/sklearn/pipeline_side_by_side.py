#!/usr/bin/env python3
"""counterlab `run` side by side with the equivalent scikit-learn pipeline, in one run.

Run from the crate root, after the release binary and the criterion benches:

    cargo build --release
    cargo bench --bench run && cargo bench --bench split
    python3 benches/sklearn/pipeline_side_by_side.py                # entity-leakage/random-vs-grouped-one-split
    python3 benches/sklearn/pipeline_side_by_side.py --all          # every bundled experiment
    python3 benches/sklearn/pipeline_side_by_side.py EXPERIMENT.json ...

What is compared (like with like):

* In-process: counterlab's kernel time is read from criterion's estimates
  (`$CARGO_TARGET_DIR/criterion/.../new/estimates.json`, median) of `benches/run.rs`
  (`run_with(pack, experiment, threads = 1)`) and `benches/split.rs`. The pack is loaded
  before timing there; here the CSV is parsed (csv module + numpy) before timing too, so
  **ingest is excluded on both sides**. The scikit-learn side gets ready numpy arrays.
* Whole-process: `counterlab run EXPERIMENT --out FILE` (default threads, and
  `--threads 1`) against `python3 THIS_SCRIPT --once EXPERIMENT` (interpreter start,
  numpy/scipy/scikit-learn imports, CSV parse, the pipeline once). **Ingest and start-up
  are included on both sides.** counterlab's CLI also loads every pack under
  fixtures/packs (it discovers them), checks blake3 and writes the payload JSON.

The scikit-learn pipeline per arm of the experiment, the same work as counterlab's `run`:
split (`ShuffleSplit` for random_rows, `GroupShuffleSplit` for entity_grouped — both
`n_splits=1`, the experiment's `test_fraction` and `random_state=seed`; temporal: the same
whole-time-value cutoff in numpy), then for the full feature set and for every ablation
(counterlab refits for each ablation, the identity one included): `StandardScaler` fit on
the training rows, `LogisticRegression(C=c)`, `predict_proba` on the test rows,
`roc_auc_score`, `accuracy_score`, `balanced_accuracy_score` and the majority-class
baseline. counterlab additionally computes DeLong intervals, overlap counts, split
summaries and canonical hashes; scikit-learn does none of that here (so the comparison
favours scikit-learn slightly).

Tolerance: scikit-learn's default is `tol=1e-4` (lbfgs, max_iter=100). counterlab's
Newton solver stops at a max-abs gradient of the mean-scaled objective below 1e-10, so a
second column times scikit-learn with `tol=1e-10, max_iter=10000` (like for like). The
splits use different generators (ChaCha20 vs numpy's MT19937), so the rows differ; the
sizes, the work and the metrics' order of magnitude are the same (printed for a check).

Threads: counterlab's in-process numbers are single-threaded (`RunOptions { threads: 1 }`);
this script sets OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=MKL_NUM_THREADS=1 unless they are
already set, so both sides use one core (see the comment at the import).

Timing: time.perf_counter, median of --repeat runs (default 20) after one warm-up run;
whole-process timings are medians of --process-repeat runs (default 10).
"""

import argparse
import csv
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from pathlib import Path

# One BLAS/OpenMP thread, as counterlab's in-process benches (threads = 1); set before numpy
# is imported. The matrices here are small (≤ 20,000 × 28), so a second BLAS thread has
# little to gain, and on a 2-core machine shared with other jobs it mostly adds noise.
# Export OPENBLAS_NUM_THREADS / OMP_NUM_THREADS to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GroupShuffleSplit,
    ShuffleSplit,
    cross_val_predict,
)
from sklearn.pipeline import Pipeline  # noqa: E402

from cv_folds import cv_folds  # noqa: E402  (benches/sklearn/cv_folds.py, beside this script)
from sklearn.preprocessing import StandardScaler  # noqa: E402

CRATE = Path(__file__).resolve().parents[2]
DEFAULT_EXPERIMENT = "fixtures/packs/entity-leakage/experiments/random-vs-grouped-one-split.json"
TOLERANCES = {"default": {}, "1e-10": {"tol": 1e-10, "max_iter": 10_000}}


# --------------------------------------------------------------------------- data


class PackData:
    """A pack's CSV as numpy arrays (file order; counterlab uses its canonical order)."""

    def __init__(self, pack_dir):
        manifest = tomllib.loads((pack_dir / "pack.toml").read_text())
        spec = manifest["data"]
        self.id = manifest["id"]
        self.features = list(spec["features"])
        with open(pack_dir / spec["file"], newline="") as f:
            rows = list(csv.DictReader(f))
        self.X = np.array(
            [[float(r[c]) for c in self.features] for r in rows], dtype=np.float64
        )
        self.y = np.array([r[spec["label"]] == spec["positive"] for r in rows])
        self.groups = np.array([r[spec["entity"]] for r in rows])
        self.time = (
            np.array([int(r[spec["time"]]) for r in rows]) if spec.get("time") else None
        )
        self.columns = {c: [r.get(c) for r in rows] for c in rows[0]} if rows else {}


def load_experiment(path):
    experiment = json.loads(Path(path).read_text())
    pack_dir = CRATE / "fixtures" / "packs" / experiment["pack"]
    return experiment, pack_dir


# ----------------------------------------------------------------------- pipeline


def split_indices(data, split, seed):
    n = len(data.y)
    kind = split["kind"]
    if kind == "random_rows":
        ss = ShuffleSplit(n_splits=1, test_size=split["test_fraction"], random_state=seed)
        return next(ss.split(data.X))
    if kind == "entity_grouped":
        gss = GroupShuffleSplit(
            n_splits=1, test_size=split["test_fraction"], random_state=seed
        )
        return next(gss.split(data.X, data.y, data.groups))
    if kind == "temporal":
        wanted = int(np.ceil(split["test_fraction"] * n))
        values, counts = np.unique(data.time, return_counts=True)
        taken = np.cumsum(counts[::-1])
        cutoff = values[::-1][np.searchsorted(taken, wanted)]
        is_test = data.time >= cutoff
        return np.flatnonzero(~is_test), np.flatnonzero(is_test)
    if kind == "predefined":
        is_test = np.array(
            [v in ("1", "true", "True", "TRUE") for v in data.columns[split["column"]]]
        )
        return np.flatnonzero(~is_test), np.flatnonzero(is_test)
    raise ValueError(f"unknown split kind {kind!r}")


def fit_score(X_train, y_train, X_test, c, tol_kwargs):
    """StandardScaler on train + LogisticRegression + predict_proba on test."""
    scaler = StandardScaler().fit(X_train)
    model = LogisticRegression(C=c, **tol_kwargs).fit(scaler.transform(X_train), y_train)
    proba = model.predict_proba(scaler.transform(X_test))[:, 1]
    return proba, int(model.n_iter_[0])


def metrics(y_train, y_test, proba):
    predicted = proba >= 0.5
    majority = y_train.mean() >= 0.5
    baseline = float(np.mean(y_test == majority))
    accuracy = accuracy_score(y_test, predicted)
    return {
        "roc_auc": roc_auc_score(y_test, proba),
        "accuracy": accuracy,
        "balanced_accuracy": balanced_accuracy_score(y_test, predicted),
        "majority_baseline_accuracy": baseline,
        "accuracy_lift": accuracy - baseline,
    }


def feature_index(data, experiment):
    names = experiment.get("features") or data.features
    return names, [data.features.index(f) for f in names]


def run_cv_arm(data, experiment, folds, tol_kwargs, with_ablations=True):
    """cross_val_predict of the scaler + model pipeline per feature set, pooled metrics
    (counterlab's majority baseline is per fold; here the whole set's, the same work)."""
    names, cols = feature_index(data, experiment)
    c = experiment["model"]["c"]
    tested = np.concatenate([test for _, test in folds])
    y_test = data.y[tested]

    def pooled(X):
        pipeline = Pipeline([("scale", StandardScaler()), ("model", LogisticRegression(C=c, **tol_kwargs))])
        if len(tested) == len(data.y):
            return cross_val_predict(pipeline, X, data.y, cv=folds, method="predict_proba")[:, 1]
        # rolling origin: not every row is tested, which cross_val_predict refuses
        return np.concatenate([
            pipeline.fit(X[train], data.y[train]).predict_proba(X[test])[:, 1] for train, test in folds
        ])

    X = data.X[:, cols]
    proba = pooled(X)
    if len(tested) == len(data.y):
        y_eval = data.y
    else:
        y_eval = y_test
    result = {"metrics": metrics(data.y, y_eval, proba), "n_iter": None, "ablations": {}}
    if with_ablations:
        for ablation in experiment.get("ablations") or []:
            keep = [k for k, f in enumerate(names) if f not in ablation["drop"]]
            result["ablations"][ablation["name"]] = metrics(data.y, y_eval, pooled(X[:, keep]))
    return result


def run_arm(data, experiment, arm, tol_kwargs, with_ablations=True):
    folds = cv_folds(data, arm["split"], experiment["seed"])
    if folds is not None:
        return run_cv_arm(data, experiment, folds, tol_kwargs, with_ablations)
    names, cols = feature_index(data, experiment)
    c = experiment["model"]["c"]
    train, test = split_indices(data, arm["split"], experiment["seed"])
    X = data.X[:, cols]
    y_train, y_test = data.y[train], data.y[test]
    proba, n_iter = fit_score(X[train], y_train, X[test], c, tol_kwargs)
    result = {"metrics": metrics(y_train, y_test, proba), "n_iter": n_iter, "ablations": {}}
    if with_ablations:
        for ablation in experiment.get("ablations") or []:
            keep = [k for k, f in enumerate(names) if f not in ablation["drop"]]
            X_kept = X[:, keep]
            p, _ = fit_score(X_kept[train], y_train, X_kept[test], c, tol_kwargs)
            result["ablations"][ablation["name"]] = metrics(y_train, y_test, p)
    return result


def run_experiment(data, experiment, tol_kwargs):
    return {arm["name"]: run_arm(data, experiment, arm, tol_kwargs) for arm in experiment["arms"]}


def fit_only(data, experiment, arm, tol_kwargs):
    """What benches/run.rs `run_stage/.../fit/ARM` times: standardise + fit on train rows."""
    _, cols = feature_index(data, experiment)
    train, _ = split_indices(data, arm["split"], experiment["seed"])
    X_train, y_train = data.X[train][:, cols], data.y[train]
    c = experiment["model"]["c"]
    return lambda: LogisticRegression(C=c, **tol_kwargs).fit(
        StandardScaler().fit_transform(X_train), y_train
    )


# ------------------------------------------------------------------------- timing


def median_time(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def process_time(argv, repeat, cwd):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def target_dir():
    if os.environ.get("CARGO_TARGET_DIR"):
        return Path(os.environ["CARGO_TARGET_DIR"])
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=CRATE, check=True, capture_output=True, text=True,
        ).stdout
        return Path(json.loads(out)["target_directory"])
    except (OSError, subprocess.CalledProcessError):
        return CRATE / "target"


def criterion_medians(target):
    """full_id → median point estimate in seconds, from criterion's `new/` estimates."""
    out = {}
    for bench in glob.glob(str(target / "criterion" / "**" / "new" / "benchmark.json"), recursive=True):
        estimates = Path(bench).with_name("estimates.json")
        if not estimates.is_file():
            continue
        full_id = json.loads(Path(bench).read_text())["full_id"]
        out[full_id] = json.loads(estimates.read_text())["median"]["point_estimate"] * 1e-9
    return out


def fmt(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def ratio(slow, fast):
    if slow is None or fast is None:
        return "—"
    return f"{slow / fast:.1f}×"


# --------------------------------------------------------------------------- main


def once(path, tol):
    """The whole-process Python side: load, run once (called as a subprocess)."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    experiment, pack_dir = load_experiment(path)
    data = PackData(pack_dir)
    run_experiment(data, experiment, TOLERANCES[tol])


def split_rows(data, label, medians, repeat):
    """benches/split.rs: test_fraction 0.25, seed 7; scikit-learn returns index arrays."""
    rows = []
    for kind in ("entity_grouped", "random_rows"):
        ours = medians.get(f"split/{label}/{kind}")
        spec = {"kind": kind, "test_fraction": 0.25}
        t = median_time(lambda: split_indices(data, spec, 7), repeat)
        name = "GroupShuffleSplit" if kind == "entity_grouped" else "ShuffleSplit"
        rows.append((f"split `{kind}`, {label} ({len(data.y):,} rows)", ours, t, t, f"split only ({name})"))
    return rows


class SyntheticData:
    """The shape of benches/split.rs's synthetic pack: 20,000 entities × 5 rows."""

    def __init__(self):
        rng = np.random.default_rng(2026)
        self.groups = np.repeat(np.array([f"E{e:06}" for e in range(20_000)]), 5)
        self.y = np.repeat(rng.random(20_000) < 0.3, 5)
        self.X = rng.random((len(self.y), 2))


def fit_data(n, seed=42):
    """The kind of data of benches/fit.rs (not the same draws: PCG64 here, ChaCha8 there):
    six Irwin-Hall features in different units, feature 1 correlated with feature 0,
    label ~ Bernoulli(sigmoid(beta.x - 1))."""
    rng = np.random.default_rng(seed)
    beta = np.array([0.9, -0.6, 0.4, 0.0, 0.25, -0.15])
    g = (rng.random((n, 6, 4)).sum(axis=2) - 2.0) * 1.7
    g[:, 1] = 0.6 * g[:, 0] + 0.8 * g[:, 1]
    z = g @ beta - 1.0
    X = g * (1.0 + 3.0 * np.arange(6)) + 10.0 * np.arange(6)
    y = rng.random(n) < 1.0 / (1.0 + np.exp(-z))
    return X, y


def fit_rows(medians, repeat):
    rows = []
    for n in (2_000, 20_000):
        X, y = fit_data(n)
        theirs = {
            tol: median_time(
                lambda kw=kw: LogisticRegression(C=1.0, **kw).fit(StandardScaler().fit_transform(X), y),
                repeat,
            )
            for tol, kw in TOLERANCES.items()
        }
        rows.append(
            (
                f"fit {n:,}×6 synthetic (benches/fit.rs)",
                medians.get(f"logistic_fit/{n}x6"),
                theirs["default"],
                theirs["1e-10"],
                "standardise + fit, same kind of data",
            )
        )
    return rows


def experiment_rows(path, args, medians, binary):
    experiment, pack_dir = load_experiment(path)
    stem = Path(path).stem
    pack_id = experiment["pack"]
    data = PackData(pack_dir)
    rows = []

    def add(what, ours, work_for_tol, note=""):
        theirs = {tol: median_time(work_for_tol(kw), args.repeat) for tol, kw in TOLERANCES.items()}
        rows.append((what, ours, theirs["default"], theirs["1e-10"], note))

    add(
        f"`run` {pack_id}/{stem} (in-process, threads 1)",
        medians.get(f"run/{pack_id}/{stem}"),
        lambda kw: lambda: run_experiment(data, experiment, kw),
        f"{len(experiment['arms'])} arms × {1 + len(experiment.get('ablations') or [])} fits",
    )
    if pack_id == "entity-leakage" and stem == "random-vs-grouped-one-split":
        base = "run_stage/entity-leakage/random-vs-grouped-one-split"
        for arm in experiment["arms"]:
            add(
                f"one arm `{arm['name']}`: split + fit + score",
                medians.get(f"{base}/arm/{arm['name']}"),
                lambda kw, arm=arm: lambda: run_arm(data, experiment, arm, kw, with_ablations=False),
                "`arm_predictions` vs split+scaler+LR+proba+metrics",
            )
            add(
                f"fit alone, `{arm['name']}` training rows",
                medians.get(f"{base}/fit/{arm['name']}"),
                lambda kw, arm=arm: fit_only(data, experiment, arm, kw),
                "standardise + fit",
            )
        rows.extend(split_rows(data, "entity-leakage", medians, args.repeat))

    # Whole-process rows.
    if binary.is_file():
        with tempfile.TemporaryDirectory() as tmp:
            out = str(Path(tmp) / "payload.json")
            cli = process_time([str(binary), "run", path, "--out", out], args.process_repeat, CRATE)
            cli1 = process_time(
                [str(binary), "run", path, "--out", out, "--threads", "1"], args.process_repeat, CRATE
            )
            payload = json.loads(Path(out).read_text())
    else:
        cli = cli1 = payload = None
    py = {
        tol: process_time(
            [sys.executable, str(Path(__file__).resolve()), "--once", path, "--tol", tol],
            args.process_repeat,
            CRATE,
        )
        for tol in TOLERANCES
    }
    imports = process_time(
        [
            sys.executable,
            "-c",
            "import numpy, sklearn.linear_model, sklearn.metrics, sklearn.model_selection, sklearn.preprocessing",
        ],
        args.process_repeat,
        CRATE,
    )
    rows.append((f"whole process {stem}: CLI (default threads) vs python3", cli, py["default"], py["1e-10"], "start-up + ingest included"))
    rows.append((f"whole process {stem}: CLI `--threads 1` vs python3", cli1, py["default"], py["1e-10"], "start-up + ingest included"))
    rows.append(("(python3 start-up + imports alone)", None, imports, imports, "part of the python3 rows above"))

    # Sanity: the same work (different split draws, so numbers differ a little).
    check = []
    warnings.simplefilter("ignore", ConvergenceWarning)
    for tol, kw in TOLERANCES.items():
        result = run_experiment(data, experiment, kw)
        for arm, r in result.items():
            ours = payload["results"][arm] if payload else None
            check.append(
                (
                    arm,
                    tol,
                    r["metrics"]["roc_auc"],
                    r["n_iter"],
                    ours["metrics"]["roc_auc"] if ours else None,
                    # a cross-validation arm has one model per fold: their iterations summed
                    (
                        ours["model"]["iterations"]
                        if "model" in ours
                        else sum(f["model"]["iterations"] for f in ours["folds"])
                    )
                    if ours
                    else None,
                )
            )
    return rows, check


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("experiments", nargs="*")
    parser.add_argument("--all", action="store_true", help="every fixtures/packs/*/experiments/*.json")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--process-repeat", type=int, default=10)
    parser.add_argument("--once", metavar="EXPERIMENT", help=argparse.SUPPRESS)
    parser.add_argument("--tol", choices=list(TOLERANCES), default="default", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.once:
        once(args.once, args.tol)
        return

    warnings.simplefilter("ignore", ConvergenceWarning)
    if args.all:
        paths = sorted(
            str(Path(p).relative_to(CRATE))
            for p in glob.glob(str(CRATE / "fixtures/packs/*/experiments/*.json"))
        )
    else:
        paths = args.experiments or [DEFAULT_EXPERIMENT]
    target = target_dir()
    medians = criterion_medians(target)
    binary = target / "release" / "counterlab"
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
        f"counterlab binary {binary}"
        + ("" if binary.is_file() else " (missing: run `cargo build --release`)")
    )
    if not medians:
        print(f"no criterion estimates under {target / 'criterion'}: run `cargo bench --bench run --bench split` first")
    print()
    print("| work | counterlab | scikit-learn (tol default 1e-4) | ratio | scikit-learn (tol=1e-10) | ratio | note |")
    print("|---|---:|---:|---:|---:|---:|---|")
    checks = []
    for path in paths:
        rows, check = experiment_rows(path, args, medians, binary)
        checks.append((path, check))
        for what, ours, default, tight, note in rows:
            print(
                f"| {what} | {fmt(ours)} | {fmt(default)} | {ratio(default, ours)} "
                f"| {fmt(tight)} | {ratio(tight, ours)} | {note} |"
            )
    extra = split_rows(SyntheticData(), "synthetic-100k", medians, args.repeat)
    extra += fit_rows(medians, args.repeat)
    for what, ours, default, tight, note in extra:
        print(
            f"| {what} | {fmt(ours)} | {fmt(default)} | {ratio(default, ours)} "
            f"| {fmt(tight)} | {ratio(tight, ours)} | {note} |"
        )
    print()
    print("Ratio = scikit-learn time / counterlab time (> 1: counterlab is faster).")
    print("Same work, different split draws: ROC AUC and solver iterations per arm")
    print()
    print("| experiment | arm | sklearn tol | sklearn AUC | sklearn n_iter (lbfgs) | counterlab AUC | counterlab iterations (Newton) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for path, check in checks:
        for arm, tol, auc, n_iter, our_auc, our_iter in check:
            our = f"{our_auc:.4f}" if isinstance(our_auc, float) else "—"
            print(f"| {Path(path).stem} | {arm} | {tol} | {auc:.4f} | {n_iter} | {our} | {our_iter if our_iter is not None else '—'} |")


if __name__ == "__main__":
    main()
