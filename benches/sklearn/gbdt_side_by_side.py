#!/usr/bin/env python3
"""counterlab's gradient-boosting fit side by side with scikit-learn's
HistGradientBoostingClassifier and LightGBM, one thread each, on the same data.

Run from the crate root, after building the example that times counterlab's fit:

    cargo build --release --example gbdt_fit
    python3 benches/sklearn/gbdt_side_by_side.py              # every size, best of 3
    python3 benches/sklearn/gbdt_side_by_side.py --sizes 10000x10 --rounds 5
    python3 benches/sklearn/gbdt_side_by_side.py --no-record  # print only
    python3 benches/sklearn/gbdt_side_by_side.py --before OLD/gbdt_fit  # + an older build

What each side does:

* data: per size (rows x features), numpy's PCG64 (seed 2026 + rows + features): features
  standard normal, label ~ Bernoulli(expit(x0 - 0.5*x1^2 + 0.25*x2*x3)). Written once to
  a CSV in a temporary folder with repr() (exact doubles), so both sides fit the same
  numbers.
* counterlab: `examples/gbdt_fit.rs` on the CSV (`HistGradientBoosting::default()`:
  learning_rate 0.1, max_iter 100, max_leaf_nodes 31, min_samples_leaf 20, no L2,
  max_bins 255), a process per round, the fit alone timed inside it (binning included;
  not the CSV parse nor process start). One thread: the fit has no threads.
* scikit-learn: HistGradientBoostingClassifier(early_stopping=False) with its defaults (the
  same parameters), `fit` on the numpy arrays (binning and input validation included),
  OMP_NUM_THREADS=1 set before import and every fit under threadpool_limits(1).
* LightGBM (if installed): LGBMClassifier(num_leaves=31, learning_rate=0.1,
  n_estimators=100, min_child_samples=20, max_bin=255, reg_lambda=0, deterministic=True,
  force_col_wise=True, num_threads=1, verbose=-1), `fit` on the numpy arrays (Dataset
  construction, i.e. binning, included). Not the same algorithm bit for bit (other
  binning, other tie rules), so its log loss is reported, not compared.

With --before, an older build of the example (e.g. from the commit before a change) is
timed too, in the same rounds, as its own column: a before/after under the same load.

Rounds alternate counterlab (and the older build), scikit-learn, LightGBM, and each side's
best round is reported. The training log loss of counterlab and scikit-learn must agree to 1e-9: a check
that both fitted the same model. The 1-minute load average is printed before each size:
on a shared 2-core machine the figures are only comparable within one run.

The record goes to benches/sklearn/record-<date>-<HHMM>-gbdt.txt (UTC) unless --no-record.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from scipy.special import expit  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

try:
    import lightgbm  # noqa: E402
except ImportError:  # reported in the output
    lightgbm = None

CRATE = Path(__file__).resolve().parents[2]
SIZES = ["2800x6", "10000x10", "10000x30", "100000x10", "100000x30"]


def data(n, p):
    rng = np.random.default_rng(2026 + n + p)
    x = rng.standard_normal((n, p))
    z = x[:, 0] - 0.5 * x[:, 1] ** 2 + 0.25 * x[:, 2] * x[:, 3]
    y = rng.random(n) < expit(z)
    return x, y


def write_csv(path, x, y):
    with open(path, "w") as f:
        f.write(",".join([f"x{k}" for k in range(x.shape[1])] + ["y"]) + "\n")
        for row, label in zip(x.tolist(), y.tolist()):
            f.write(",".join(map(repr, row)) + ("," + ("1" if label else "0")) + "\n")


def log_loss(y, p):
    p = np.where(y, p, 1.0 - p)
    return float(np.mean(-np.log(p)))


def target_dir():
    if os.environ.get("CARGO_TARGET_DIR"):
        return Path(os.environ["CARGO_TARGET_DIR"])
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=CRATE, check=True, capture_output=True, text=True,
    ).stdout
    return Path(json.loads(out)["target_directory"])


def ours(binary, csv):
    out = subprocess.run([str(binary), str(csv), "1"], check=True, capture_output=True, text=True).stdout
    fields = dict(kv.split("=", 1) for kv in out.split())
    return float(fields["best_s"]), float(fields["train_log_loss"])


def sklearn_fit(x, y):
    model = HistGradientBoostingClassifier(early_stopping=False)
    with threadpool_limits(1):
        start = time.perf_counter()
        model.fit(x, y)
        elapsed = time.perf_counter() - start
    return elapsed, log_loss(y, model.predict_proba(x)[:, 1])


def lightgbm_fit(x, y):
    model = lightgbm.LGBMClassifier(
        num_leaves=31, learning_rate=0.1, n_estimators=100, min_child_samples=20,
        max_bin=255, reg_lambda=0.0, deterministic=True, force_col_wise=True,
        num_threads=1, verbose=-1,
    )
    start = time.perf_counter()
    model.fit(x, y)
    elapsed = time.perf_counter() - start
    return elapsed, log_loss(y, model.predict_proba(x)[:, 1])


def fmt(seconds):
    if seconds is None:
        return "—"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.3f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", default=SIZES, help="ROWSxFEATURES ...")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--binary", help="the gbdt_fit example (default: TARGET/release/examples/gbdt_fit)")
    parser.add_argument("--before", help="an older build of the gbdt_fit example, timed alongside")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    binary = Path(args.binary) if args.binary else target_dir() / "release" / "examples" / "gbdt_fit"
    if not binary.is_file():
        sys.exit(f"{binary} not found: cargo build --release --example gbdt_fit")
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=CRATE, capture_output=True, text=True,
    ).stdout.strip()

    lines = []

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    now = datetime.datetime.now(datetime.timezone.utc)
    say(f"gbdt fit side by side, {now:%Y-%m-%d %H:%M} UTC, commit {commit}, binary {binary}")
    say(
        f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
        f"lightgbm {lightgbm.__version__ if lightgbm else 'not installed'}; "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}); one thread each side; "
        f"best of {args.rounds} alternating rounds"
    )
    say()
    if args.before:
        say(f"before: {args.before}")
    before_head = " counterlab before | before / after |" if args.before else ""
    say("| rows × features | load (1 min) |" + before_head + " counterlab | scikit-learn | LightGBM "
        "| sklearn / counterlab | LightGBM / counterlab | log loss counterlab − sklearn | log loss LightGBM |")
    say("|---|---:|" + ("---:|---:|" if args.before else "") + "---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="gbdt-side-by-side-") as tmp:
        for size in args.sizes:
            n, p = (int(v) for v in size.split("x"))
            x, y = data(n, p)
            csv = Path(tmp) / f"{size}.csv"
            write_csv(csv, x, y)
            load = os.getloadavg()[0]
            best = {"ours": None, "before": None, "sklearn": None, "lightgbm": None}
            losses = {}
            for _ in range(args.rounds):
                runs = [("ours", lambda: ours(binary, csv))]
                if args.before:
                    runs.append(("before", lambda: ours(args.before, csv)))
                runs.append(("sklearn", lambda: sklearn_fit(x, y)))
                if lightgbm:
                    runs.append(("lightgbm", lambda: lightgbm_fit(x, y)))
                for name, run in runs:
                    elapsed, loss = run()
                    losses[name] = loss
                    best[name] = elapsed if best[name] is None else min(best[name], elapsed)
            load_after = os.getloadavg()[0]
            diff = losses["ours"] - losses["sklearn"]
            if abs(diff) > 1e-9:
                say(f"!! {size}: training log loss {losses['ours']!r} vs scikit-learn's {losses['sklearn']!r}")
            if args.before and losses["before"] != losses["ours"]:
                say(f"!! {size}: training log loss {losses['ours']!r}, before {losses['before']!r}")
            ratio_sk = best["sklearn"] / best["ours"]
            ratio_lgb = f"{best['lightgbm'] / best['ours']:.2f}×" if best["lightgbm"] else "—"
            lgb_loss = f"{losses['lightgbm']:.6f}" if "lightgbm" in losses else "—"
            before_cells = (
                f" {fmt(best['before'])} | {best['before'] / best['ours']:.2f}× |" if args.before else ""
            )
            say(
                f"| {n:,} × {p} | {load:.2f}–{load_after:.2f} |{before_cells} {fmt(best['ours'])} | {fmt(best['sklearn'])} "
                f"| {fmt(best['lightgbm'])} | {ratio_sk:.2f}× | {ratio_lgb} | {diff:.1e} | {lgb_loss} |"
            )
    say()
    say("Ratios > 1: counterlab is faster. Times are the fit alone (binning included) on ready data.")
    if args.before:
        say("before / after: the older build's time over this one's; their training log losses are equal bit for bit.")
    if not args.no_record:
        path = CRATE / "benches" / "sklearn" / f"record-{now:%Y-%m-%d-%H%M}-gbdt.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"record: {path.relative_to(CRATE)}")


if __name__ == "__main__":
    main()
