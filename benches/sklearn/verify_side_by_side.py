#!/usr/bin/env python3
"""`counterlab verify` side by side with scikit-learn's `permutation_test_score`, in one run.

Run from the crate root, after building the release binary:

    cargo build --release
    python3 benches/sklearn/verify_side_by_side.py                 # every bundled payload
    python3 benches/sklearn/verify_side_by_side.py PAYLOAD.json ... # some payloads
    python3 benches/sklearn/verify_side_by_side.py --tol default    # skip the tol=1e-10 rows
    python3 benches/sklearn/verify_side_by_side.py --tol default --marginal  # + cost per permutation
    python3 benches/sklearn/verify_side_by_side.py --quick          # the whole table in minutes

What each side does (the comparison is conservative for counterlab):

* counterlab: `counterlab verify PAYLOAD --threads 1` (and with the default thread count),
  timed end to end as a subprocess: process start, discovery of every pack under
  fixtures/packs (CSV parse, blake3, canonical order), strict payload parse, then the whole
  verification at the default options: recompute every arm and ablation, a second run
  (determinism), the split invariants, 3 row-order shuffles and 5 active label
  permutations (each a full run: every arm and every ablation), K = 199 row-level label
  permutations refitting *every* arm (not only the claim's), the chance check on them,
  the claim's interval (one more fit per claimed arm) and, for a metric_at_least claim
  whose null is entity-aware (entity-level when labels are constant within entities,
  entity-block otherwise), K = 199 more permutations of each arm the claim names; then the
  report is printed. Newton solver to a
  max-abs scaled gradient of 1e-10 for every fit but a null's, which stop at 1e-5 (kernel 3,
  `counterlab::arm::NULL_FIT_TOL`; scikit-learn's own default is 1e-4).
* scikit-learn: in process, the CSV already parsed into numpy arrays (start-up and ingest
  **excluded**), for each arm the claim names (one arm, or the gap's two):
  `permutation_test_score(Pipeline([StandardScaler(), LogisticRegression(C=c)]), X, y,
  cv=[(train, test)], n_permutations=199, scoring="roc_auc", n_jobs=1, random_state=0)`:
  one fit on the true labels plus 199 refits on labels permuted over all rows, the split
  fixed, as counterlab's row-level null. The split is drawn with the same kind and
  fraction (`ShuffleSplit` / `GroupShuffleSplit`, n_splits=1, test_size = the experiment's
  test_fraction; temporal: the same whole-time-value cutoff), so the sizes and work match
  but not the rows (ChaCha20 vs MT19937). scikit-learn does not recompute, rerun, shuffle
  rows, permute the other arms, run an entity-level null or compute intervals. Tolerance:
  lbfgs at scikit-learn's default tol=1e-4 (max_iter=100), and tol=1e-10 with
  max_iter=10000 (closer to counterlab's stopping rule).
* scikit-learn, same label permutations (tol=1e-4 only): as above, but as many calls of K
  as the verification runs nulls of K label permutations: one (the row-level null; gap
  claims and metric_at_most claims), or two where a metric_at_least claim's p-value has an
  entity-aware null besides the chance check's row-level one. scikit-learn has no
  entity-level permutation (`groups` shuffles labels *within* groups), so the second call
  is row-level with random_state=1: the same number of refits of the same model on
  permuted labels. Measured, not extrapolated.

Preparation (`"prepare"` on an arm, docs/PREPARE.md): scikit-learn's side is an
imbalanced-learn `Pipeline` of the arm's steps (SimpleImputer, StandardScaler,
SelectKBest(f_classif), RandomOverSampler, SMOTE; random_state = the experiment's seed) then
the model, so every permutation refits the whole preparation on the fold's training rows.
A step counterlab fits on all rows (`fit_on: all_rows`) is run the same way here (on the
training rows: about the same work; scikit-learn has no "refit on all rows per
permutation"). A categorical feature is one-hot encoded over its recorded levels and an
empty numeric cell is NaN, as the pack reads them; `target_encode` is not translated (its
payloads are listed as not measured).

Gradient-boosted trees (`"model": {"kind": "gbdt", ...}`): scikit-learn's side is
`HistGradientBoostingClassifier(early_stopping=False)` with the experiment's parameters,
no scaler (trees do not need one), under the same permutation_test_score calls; the
tolerance rows do not apply to it (both tol rows run the same trees).

The "fits" column counts model fits per verification on each side.
Threads: OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=MKL_NUM_THREADS=1 unless already set, so the
scikit-learn side uses one core like `--threads 1` (and like n_jobs=1). The "ratio
(default)" columns set counterlab's default thread count (every core) against n_jobs=1;
`--n-jobs 2` gives scikit-learn two worker processes as well (joblib/loky, one BLAS thread
each) for a like-for-like two-core comparison.

Stale payloads: each payload's verdict (and the failing check, when expected.toml names
one) is checked against its pack's payloads/expected.toml first. A payload that does not
get it (recorded before a change to the kernel or to the canonical hashing) is rejected
after a few checks and verified in a fraction of the full time, so it would make the
comparison meaningless: it is re-recorded into a temporary folder (`counterlab run` on the
experiment it carries) and the fresh payload is timed instead, marked "re-recorded".

Marginal cost per label permutation (--marginal, with tol=1e-4): both sides again at
K2 = 2K + 1 = 399 permutations per null (`verify --permutations 399 --threads 1`; scikit-learn
the same number of calls with n_permutations=399). (time at K2 − time at K) / ((K2 − K) · nulls)
is what one more label permutation costs each side: for counterlab a shuffle, a refit of
each permuted arm and its metrics; the verification's other work does not depend on K.
The ratio of the two marginal costs is what the whole-process ratio tends to, from below,
as K grows (counterlab's part that does not depend on K is far larger, relative to one
permutation, than scikit-learn's one fit on the true labels per call): no saving outside
the permutations can lift the ratio above it. "fixed" is counterlab's time at K minus its
K permutations' marginal cost.

Timing: time.perf_counter, the median of --repeat runs (default 3) on both sides, after one
untimed run of each (which also gives the report and the scikit-learn p-value).

Quick mode (--quick): one timed run on each side (counterlab after its untimed report run,
scikit-learn without a warm-up: numpy and scikit-learn are already imported and the data
parsed), tol=1e-4 only, and the scikit-learn side under a time limit per call: --aim (10,
the floor the verifier is held to; 15 to prove the aim) times counterlab's `--threads 1` time on that payload. The call runs in a forked child
process timed from inside; one that has not finished by then is stopped and shown as
"> LIMIT (stopped)", its ratio as "≥ AIM×": scikit-learn took at least that long, so the
ratio is at least the aim, and nothing is extrapolated. (A tree payload's scikit-learn
side takes minutes; no other row needs the limit.)
"""

import argparse
import json
import multiprocessing
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

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import csv  # noqa: E402

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GroupShuffleSplit,
    ShuffleSplit,
    permutation_test_score,
)
from sklearn.pipeline import Pipeline  # noqa: E402

from cv_folds import cv_folds  # noqa: E402  (benches/sklearn/cv_folds.py, beside this script)
from sklearn.preprocessing import StandardScaler  # noqa: E402

CRATE = Path(__file__).resolve().parents[2]
K = 199  # counterlab verify's default --permutations
K2 = 2 * K + 1  # the second point of --marginal
ROW_ORDER_SHUFFLES = 3  # VerifyOptions::default().row_order_shuffles
ACTIVE_PERMUTATIONS = 5  # verify::ACTIVE_PERMUTATIONS
TOLERANCES = {"default": {}, "1e-10": {"tol": 1e-10, "max_iter": 10_000}}


# --------------------------------------------------------------------------- data


class PackData:
    """A pack's CSV as numpy arrays (file order)."""

    def __init__(self, pack_dir):
        manifest = tomllib.loads((pack_dir / "pack.toml").read_text())
        spec = manifest["data"]
        self.features = list(spec["features"])
        with open(pack_dir / spec["file"], newline="") as f:
            rows = list(csv.DictReader(f))
        # Model columns as the pack makes them: a categorical feature one-hot over its
        # recorded levels, an empty numeric cell NaN (a missing value an arm imputes).
        levels = spec.get("levels", {})
        blocks, self.columns_of = [], {}
        for c in self.features:
            start = sum(b.shape[1] for b in blocks)
            if c in levels:
                codes = np.array([levels[c].index(r[c]) for r in rows])
                blocks.append(np.eye(len(levels[c]))[codes])
            else:
                blocks.append(np.array([[float(r[c]) if r[c] != "" else np.nan] for r in rows]))
            self.columns_of[c] = list(range(start, start + blocks[-1].shape[1]))
        self.X = np.hstack(blocks).astype(np.float64)
        self.y = np.array([r[spec["label"]] == spec["positive"] for r in rows])
        self.groups = np.array([r[spec["entity"]] for r in rows])
        self.time = np.array([int(r[spec["time"]]) for r in rows]) if spec.get("time") else None
        self.columns = {c: [r.get(c) for r in rows] for c in rows[0]} if rows else {}


def split_indices(data, split, seed):
    """(train, test) index arrays for an arm's split, drawn like counterlab's."""
    kind = split["kind"]
    if kind == "random_rows":
        ss = ShuffleSplit(n_splits=1, test_size=split["test_fraction"], random_state=seed)
        return next(ss.split(data.X))
    if kind == "entity_grouped":
        gss = GroupShuffleSplit(n_splits=1, test_size=split["test_fraction"], random_state=seed)
        return next(gss.split(data.X, data.y, data.groups))
    if kind == "temporal":
        # Whole time values from the latest down until ceil(fraction · n) rows are taken.
        wanted = int(np.ceil(split["test_fraction"] * len(data.y)))
        values, counts = np.unique(data.time, return_counts=True)
        taken = np.cumsum(counts[::-1])
        cutoff = values[::-1][np.searchsorted(taken, wanted)]
        is_test = data.time >= cutoff
        return np.flatnonzero(~is_test), np.flatnonzero(is_test)
    if kind == "predefined":
        is_test = np.array([v in ("1", "true", "True", "TRUE") for v in data.columns[split["column"]]])
        return np.flatnonzero(~is_test), np.flatnonzero(is_test)
    raise ValueError(f"unknown split kind {kind!r}")


def claim_arms(experiment):
    claim = experiment.get("claim") or {}
    if claim.get("kind") == "metric_gap":
        return [claim["higher"], claim["lower"]]
    if claim.get("arm"):
        return [claim["arm"]]
    return [arm["name"] for arm in experiment["arms"]]


# ------------------------------------------------------------------ scikit-learn


def sklearn_work(data, experiment, tol_kwargs, n_jobs=1, nulls=1, k=K):
    """A closure running permutation_test_score with `k` permutations on every claimed arm,
    `nulls` times (with random_state 0, 1, ...); returns per arm the first call's (score,
    p-value)."""
    names = experiment.get("features") or data.features
    X = data.X[:, [k for f in names for k in data.columns_of[f]]]
    arms = {arm["name"]: arm for arm in experiment["arms"]}
    cvs = {
        name: cv_folds(data, arms[name]["split"], experiment["seed"])
        or [split_indices(data, arms[name]["split"], experiment["seed"])]
        for name in claim_arms(experiment)
    }
    def model(name):
        return sklearn_model(
            experiment["model"], tol_kwargs, arms[name].get("prepare", []), experiment["seed"]
        )

    for name in cvs:
        model(name)  # NotTranslated before anything is timed

    def work():
        out = {}
        for name, cv in cvs.items():
            for state in range(nulls):
                pipeline = model(name)
                score, _, p_value = permutation_test_score(
                    pipeline, X, data.y, cv=cv, n_permutations=k, scoring="roc_auc",
                    n_jobs=n_jobs, random_state=state,
                )
                out.setdefault(name, (score, p_value))
        return out

    return work


def sklearn_model(spec, tol_kwargs, prepare=(), seed=0):
    """scikit-learn's counterpart of the experiment's model: the scaled logistic model, or
    for `{"kind": "gbdt", ...}` `HistGradientBoostingClassifier(early_stopping=False)` with
    the experiment's parameters (the keys it leaves out take scikit-learn's defaults, as in
    counterlab; docs/MODELS.md). The tolerance rows apply to the logistic model only."""
    if spec.get("kind") == "gbdt":
        keys = ("learning_rate", "max_iter", "max_leaf_nodes", "min_samples_leaf",
                "l2_regularization", "max_bins")
        model = HistGradientBoostingClassifier(
            early_stopping=False, **{k: spec[k] for k in keys if k in spec}
        )
    else:
        model = Pipeline(
            [("scale", StandardScaler()), ("model", LogisticRegression(C=spec["c"], **tol_kwargs))]
        )
    if not prepare:
        return model
    from imblearn.over_sampling import SMOTE, RandomOverSampler
    from imblearn.pipeline import Pipeline as ImbPipeline
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.impute import SimpleImputer

    steps = []
    for i, step in enumerate(prepare):
        kind = step["step"]
        if kind == "impute":
            steps.append((f"s{i}", SimpleImputer(strategy=step["strategy"])))
        elif kind == "standardize":
            steps.append((f"s{i}", StandardScaler()))
        elif kind == "select_k_best":
            steps.append((f"s{i}", SelectKBest(f_classif, k=step["k"])))
        elif kind == "oversample" and step["method"] == "random":
            steps.append((f"s{i}", RandomOverSampler(random_state=seed)))
        elif kind == "oversample":
            steps.append((f"s{i}", SMOTE(k_neighbors=step.get("k_neighbors", 5), random_state=seed)))
        else:
            raise NotTranslated(f"{kind} is not translated to scikit-learn here")
    return ImbPipeline(steps + [("model", model)])


class NotTranslated(Exception):
    """A payload whose scikit-learn side this script does not build."""


def time_limited(fn, limit):
    """(seconds, fn()) timed in a forked child process, or (None, None) when it has not
    finished within `limit` seconds (the child is then stopped)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child():
        start = time.perf_counter()
        result = fn()
        send.send((time.perf_counter() - start, result))

    process = context.Process(target=child)
    process.start()
    send.close()
    if receive.poll(limit):
        elapsed, result = receive.recv()
        process.join()
        return elapsed, result
    process.kill()
    process.join()
    return None, None


def median_time(fn, repeat):
    first = fn()  # untimed: warm-up, and its result is returned
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), first


# -------------------------------------------------------------------- counterlab


def verify_json(binary, payload, packs, *extra):
    out = subprocess.run(
        [str(binary), "verify", str(payload), "--json", "--threads", "1", "--packs", str(packs), *extra],
        cwd=CRATE, capture_output=True, text=True,
    )
    if out.returncode not in (0, 1, 3):
        raise SystemExit(f"counterlab verify {payload} failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)


def as_expected(report, case):
    if report["verdict"] != case["verdict"]:
        return False
    if case.get("check"):
        status = {c["id"]: c["status"] for c in report["checks"]}.get(case["check"])
        return status == "fail"
    return True


def process_time(argv, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        code = subprocess.run(argv, cwd=CRATE, stdout=subprocess.DEVNULL).returncode
        times.append(time.perf_counter() - start)
        if code not in (0, 1, 3):
            raise SystemExit(f"{' '.join(argv)} exited with {code}")
    return statistics.median(times)


def counterlab_fits(experiment, report):
    """Model fits one verification makes (from the experiment and which checks ran)."""
    status = {c["id"]: c["status"] for c in report["checks"]}
    # One fit per arm and labelling; one per fold and repeat of a cross-validation arm (a
    # permutation null fits a repeated arm's first repeat only).
    folds = {arm["name"]: arm["split"].get("folds", 1) for arm in experiment["arms"]}
    repeats = {arm["name"]: arm["split"].get("repeats", 1) for arm in experiment["arms"]}
    arms = sum(folds.values())
    per_run = sum(folds[a] * repeats[a] for a in folds) * (1 + len(experiment.get("ablations") or []))
    fits = 0
    if status.get("recompute.equal") in ("pass", "fail"):
        fits += per_run
    if status.get("determinism.rerun") in ("pass", "fail"):
        fits += per_run
    if status.get("mutation.row_order") != "skipped":
        fits += ROW_ORDER_SHUFFLES * per_run
    if status.get("mutation.label.active") != "skipped":
        fits += ACTIVE_PERMUTATIONS * per_run
    if status.get("mutation.label.chance") != "skipped" or status.get("claim.evidence") != "skipped":
        fits += K * arms  # the row-level permutations (chance check and row-level claims)
    claim = report.get("claim") or {}
    if status.get("claim.evidence") != "skipped" and claim:
        # The claim's interval reads the recompute's fit (docs/VERDICTS.md, "Fits and
        # preparations"): no fit of its own.
        if claim_nulls(report) == 2:
            # An entity-level or entity-block null: K more fits of each claimed arm.
            fits += K * sum(folds[name] for name in claim_arms(experiment))
    return fits


def claim_nulls(report):
    """Label-permutation nulls of K that a verification runs: the row-level one (the chance
    check, reused by a row-level claim), plus the claim's own when it is entity-aware."""
    status = {c["id"]: c["status"] for c in report["checks"]}
    claim = report.get("claim") or {}
    null = claim.get("null") or "none"
    if status.get("claim.evidence") != "skipped" and null != "none" and not null.startswith("row-level"):
        return 2
    return 1


def fmt(seconds):
    if seconds is None:
        return "—"
    return f"{seconds * 1e3:.0f} ms" if abs(seconds) < 1.0 else f"{seconds:.2f} s"


def ratio(slow, fast):
    return "—" if slow is None or fast is None else f"{slow / fast:.2f}×"


class Stopped:
    """A scikit-learn call stopped at its time limit: it took longer than `limit`."""

    def __init__(self, limit):
        self.limit = limit


def fmt_side(t):
    return f"> {fmt(t.limit)} (stopped)" if isinstance(t, Stopped) else fmt(t)


def ratio_side(t, ours):
    """The ratio of a scikit-learn time (or a lower bound on it) to counterlab's."""
    if isinstance(t, Stopped):
        return f"≥ {t.limit / ours:.2f}×"
    return ratio(t, ours)


# --------------------------------------------------------------------------- main


def listed_payloads(packs):
    """Every experiment payload listed in an expected.toml. Boundary maps
    (counterlab.boundary/1) are left out: they verify a sweep of cells, which has no
    permutation_test_score counterpart."""
    out = []
    for listing in sorted(packs.glob("*/payloads/expected.toml")):
        for case in tomllib.loads(listing.read_text())["payload"]:
            path = listing.parent / case["file"]
            if json.loads(path.read_text()).get("format") == "counterlab.payload/1":
                out.append((path, case))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("payloads", nargs="*", help="default: every payload in an expected.toml")
    parser.add_argument("--binary", type=Path, help="default: TARGET_DIR/release/counterlab")
    parser.add_argument("--packs", type=Path, default=CRATE / "fixtures" / "packs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tol", choices=["default", "1e-10", "both"], default="both")
    parser.add_argument(
        "--n-jobs", type=int, default=1,
        help="permutation_test_score's n_jobs (default 1, like --threads 1; 2 to set against "
        "counterlab's default threads on 2 cores)",
    )
    parser.add_argument(
        "--marginal", action="store_true",
        help=f"also time both sides at {K2} permutations per null (tol=1e-4): the cost "
        "of one more label permutation on each side, and their ratio",
    )
    parser.add_argument(
        "--quick", action="store_true",
        help="one run per side, tol=1e-4 only, and each scikit-learn call stopped at --aim "
        "times counterlab's time (its ratio then shown as a lower bound)",
    )
    parser.add_argument("--aim", type=float, default=10.0, help="the ratio --quick's limit proves (default 10)")
    args = parser.parse_args()
    if args.quick:
        if args.marginal:
            parser.error("--quick times one point: leave out --marginal")
        args.repeat, args.tol = 1, "default"
    if args.marginal and args.tol == "1e-10":
        parser.error("--marginal needs the tol=1e-4 comparison (--tol default or both)")
    warnings.simplefilter("ignore", ConvergenceWarning)

    binary = args.binary or target_dir() / "release" / "counterlab"
    if not binary.is_file():
        raise SystemExit(f"no {binary}: run `cargo build --release` (or pass --binary)")
    packs = args.packs.resolve()
    cases = listed_payloads(packs)
    if args.payloads:
        wanted = {Path(p).resolve() for p in args.payloads}
        cases = [(p, c) for p, c in cases if p.resolve() in wanted]
        missing = wanted - {p.resolve() for p, _ in cases}
        cases += [(p, {"file": p.name, "verdict": None}) for p in sorted(missing)]
    tolerances = list(TOLERANCES) if args.tol == "both" else [args.tol]

    load = os.getloadavg()
    print(
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}; {platform.platform()}; {os.cpu_count()} CPUs; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
        f"counterlab binary {binary}; K = {K}; scikit-learn n_jobs={args.n_jobs}; median of {args.repeat}"
        + (f"; quick: scikit-learn calls stopped at {args.aim:g}× counterlab's time" if args.quick else "")
        + "\n"
    )
    header = "| payload | verdict | counterlab fits | `verify --threads 1` | `verify` (default threads) |"
    rule = "|---|---|---:|---:|---:|"
    for tol in tolerances:
        header += (
            f" sklearn fits | sklearn tol={'1e-4' if tol == 'default' else tol} | ratio (threads 1) "
            "| ratio (default) | per-fit ratio (threads 1) |"
        )
        rule += "---:|---:|---:|---:|---:|"
        if tol == "default":
            header += " sklearn, same label permutations | ratio (threads 1) |"
            rule += "---:|---:|"
            if args.marginal:
                header += (
                    f" `verify --permutations {K2} --threads 1` | sklearn, same label permutations,"
                    f" K = {K2} | counterlab per permutation | sklearn per permutation"
                    " | marginal ratio | counterlab fixed |"
                )
                rule += "---:|---:|---:|---:|---:|---:|"
    rows, checks = [], []
    data_cache = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, case in cases:
            stem = path.stem
            report = verify_json(binary, path, packs)
            payload = json.loads(path.read_text())
            note = ""
            if case["verdict"] and not as_expected(report, case):
                stale = report["verdict"]
                experiment_file = Path(tmp) / f"{stem}.experiment.json"
                experiment_file.write_text(json.dumps(payload["experiment"]))
                fresh = Path(tmp) / f"{stem}.json"
                subprocess.run(
                    [str(binary), "run", str(experiment_file), "--out", str(fresh), "--packs", str(packs)],
                    cwd=CRATE, check=True, stdout=subprocess.DEVNULL,
                )
                fresh_report = verify_json(binary, fresh, packs)
                if as_expected(fresh_report, case):
                    path, report, payload = fresh, fresh_report, json.loads(fresh.read_text())
                    note = f" (re-recorded: the recorded one gets {stale})"
                else:
                    note = f" (**{stale}, expected {case['verdict']}: not a full verification**)"
                print(f"warning: {case['file']}:{note}", file=sys.stderr)
            experiment = payload["experiment"]
            t1 = process_time([str(binary), "verify", str(path), "--threads", "1", "--packs", str(packs)], args.repeat)
            tn = process_time([str(binary), "verify", str(path), "--packs", str(packs)], args.repeat)
            our_fits = counterlab_fits(experiment, report)
            row = (
                f"| {experiment['pack']}/{stem}{note} | {report['verdict']} | "
                f"{our_fits} | {fmt(t1)} | {fmt(tn)} |"
            )
            full = report["checks"][-1]["status"] != "skipped"  # claim.evidence ran
            pack_dir = packs / experiment["pack"]
            if pack_dir not in data_cache:
                data_cache[pack_dir] = PackData(pack_dir)
            data = data_cache[pack_dir]
            for tol in tolerances:
                try:
                    sklearn_work(data, experiment, TOLERANCES[tol], args.n_jobs)
                except NotTranslated as why:
                    full = False
                    row = row.replace(" |", f" (scikit-learn side not measured: {why}) |", 1)
                if not full:
                    row += " — | — | — | — | — |" + (" — | — |" if tol == "default" else "")
                    continue
                work = sklearn_work(data, experiment, TOLERANCES[tol], args.n_jobs)
                nulls = claim_nulls(report)
                if args.quick and tol == "default" and nulls == 2:
                    # Quick: only the call with the verification's own label permutations
                    # (below) is timed; the one-null column is left empty.
                    t, result = None, {}
                elif args.quick:
                    t, result = time_limited(work, args.aim * t1)
                    if t is None:
                        t, result = Stopped(args.aim * t1), {}
                else:
                    t, result = median_time(work, args.repeat)
                arm_folds = {
                    a["name"]: a["split"].get("folds", 1) * a["split"].get("repeats", 1)
                    for a in experiment["arms"]
                }
                fits = (K + 1) * sum(arm_folds[name] for name in claim_arms(experiment))
                per_fit = "—" if t is None or isinstance(t, Stopped) else ratio(t / fits, t1 / our_fits)
                row += (
                    f" {fits} | {fmt_side(t)} | {ratio_side(t, t1)} | {ratio_side(t, tn)} "
                    f"| {per_fit} |"
                )
                if tol == "default":
                    # As many label permutations as the verification runs: a second call
                    # where it runs a second null (measured, not extrapolated).
                    if nulls == 1:
                        same = t
                    elif isinstance(t, Stopped):
                        same = t  # the first call alone passed the limit
                    elif args.quick:
                        work = sklearn_work(data, experiment, TOLERANCES[tol], args.n_jobs, nulls)
                        same, _ = time_limited(work, args.aim * t1)
                        same = Stopped(args.aim * t1) if same is None else same
                    else:
                        same, _ = median_time(
                            sklearn_work(data, experiment, TOLERANCES[tol], args.n_jobs, nulls),
                            args.repeat,
                        )
                    row += f" {fmt_side(same)} ({nulls}×{K}) | {ratio_side(same, t1)} |"
                    if args.marginal:
                        # The same checks must run at K2 (no budget cut short), or the
                        # difference would not be the permutations' cost.
                        report2 = verify_json(binary, path, packs, "--permutations", str(K2))
                        statuses = [(c["id"], c["status"]) for c in report["checks"]]
                        if [(c["id"], c["status"]) for c in report2["checks"]] != statuses:
                            raise SystemExit(f"{path}: other checks ran or failed at --permutations {K2}")
                        t2 = process_time(
                            [str(binary), "verify", str(path), "--threads", "1", "--packs", str(packs),
                             "--permutations", str(K2)],
                            args.repeat,
                        )
                        same2, _ = median_time(
                            sklearn_work(data, experiment, TOLERANCES[tol], args.n_jobs, nulls, K2),
                            args.repeat,
                        )
                        extra = (K2 - K) * nulls
                        ours, theirs = (t2 - t1) / extra, (same2 - same) / extra
                        row += (
                            f" {fmt(t2)} | {fmt(same2)} ({nulls}×{K2}) | {ours * 1e3:.2f} ms "
                            f"| {theirs * 1e3:.2f} ms | {ratio(theirs, ours)} | {fmt(t1 - K * nulls * ours)} |"
                        )
                for arm, (score, p) in result.items():
                    ours = report.get("claim") or {}
                    observed = payload["results"][arm]["metrics"].get("roc_auc")
                    checks.append((stem, arm, tol, score, p, observed, ours.get("p_value"), ours.get("null")))
            rows.append(row)
            print(row, file=sys.stderr)  # progress

    print(header)
    print(rule)
    for row in rows:
        print(row)
    print()
    print(
        "Ratio = scikit-learn time / counterlab time (> 1: counterlab is faster); per-fit ratio = "
        "the same per model fit (time / fits on each side). counterlab is "
        "timed as a whole process (start-up, pack discovery and ingest included); scikit-learn "
        "in process on ready arrays, for the claimed arms only. The tampered payload stops "
        "after recompute and rerun: nothing to compare (—). \"sklearn, same label "
        "permutations\": permutation_test_score run once per null of K label permutations "
        "that the verification runs: once, or twice where the claim's p-value has an "
        "entity-aware null besides the row-level null of the chance check (scikit-learn has "
        "no entity-level permutation, its `groups` shuffles within groups: the second call is "
        "row-level with random_state=1, the same number of refits of the same model on "
        "permuted labels)."
    )
    print()
    print("Sanity (different split draws, so the numbers differ a little):")
    print()
    print("| payload | arm | sklearn tol | sklearn ROC AUC | sklearn p | counterlab ROC AUC | counterlab claim p | counterlab claim null |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for stem, arm, tol, score, p, observed, our_p, null in checks:
        obs = f"{observed:.4f}" if isinstance(observed, float) else "—"
        our = f"{our_p:.4f}" if isinstance(our_p, float) else "—"
        print(f"| {stem} | {arm} | {tol} | {score:.4f} | {p:.4f} | {obs} | {our} | {null or '—'} |")


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


if __name__ == "__main__":
    main()
