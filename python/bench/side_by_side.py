"""Side by side, one run on a quiet machine (benches/records/2026-12-02-1710-python-package.md):

1. counterlab.metrics vs sklearn.metrics.roc_auc_score on numpy arrays of 10^3..10^6 rows
   (tie-heavy scores: 1,000 levels). counterlab.metrics computes more than the AUC
   (DeLong's interval, accuracy, balanced accuracy, the baseline), so the ratio is
   conservative for counterlab. The AUCs are checked equal within 1e-15 on the way.
2. counterlab.verify from Python (in process) vs the CLI `counterlab verify --json` (a
   process per payload, as a CI job or a shell loop would call it) on every bundled payload,
   one thread each; the report hashes are checked equal on the way.

Each time is the best of --repeat runs (default 5). Run from the repository root after
python/test.sh (or pip install ./python and cargo build --release):

    /var/tmp/counterlab-venv/bin/python python/bench/side_by_side.py --cli /var/tmp/counterlab-target/release/counterlab
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import subprocess
import time

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score

import counterlab


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_metrics(repeat: int) -> None:
    print("| rows | counterlab.metrics | sklearn roc_auc_score | sklearn / counterlab |")
    print("|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for n in (10**3, 10**4, 10**5, 10**6):
        y = (rng.random(n) < 0.3).astype(np.int64)
        s = np.round(rng.random(n) * 999 + 300 * y) / 1299.0
        ours = counterlab.metrics(y, s)["roc_auc"]
        theirs = roc_auc_score(y, s)
        assert abs(ours - theirs) <= 1e-15, (n, ours, theirs)
        t_ours = best(lambda: counterlab.metrics(y, s), repeat)
        t_theirs = best(lambda: roc_auc_score(y, s), repeat)
        print(f"| {n:,} | {t_ours * 1e3:.2f} ms | {t_theirs * 1e3:.2f} ms | {t_theirs / t_ours:.2f}x |")


def bench_verify(cli: str, repeat: int) -> None:
    print()
    print("| payload | Python verify | CLI verify (process) | CLI / Python |")
    print("|---|---:|---:|---:|")
    total_py = total_cli = 0.0
    for path in sorted(pathlib.Path("fixtures/packs").glob("*/payloads/*.json")):
        report = counterlab.verify(path, threads=1)
        out = subprocess.run([cli, "verify", str(path), "--json", "--threads", "1"], capture_output=True, text=True)
        assert json.loads(out.stdout)["report_hash"] == report["report_hash"], path
        t_py = best(lambda: counterlab.verify(path, threads=1), repeat)
        t_cli = best(
            lambda: subprocess.run([cli, "verify", str(path), "--json", "--threads", "1"], capture_output=True),
            repeat,
        )
        total_py += t_py
        total_cli += t_cli
        name = f"{path.parent.parent.name}/{path.name}"
        print(f"| {name} | {t_py * 1e3:.0f} ms | {t_cli * 1e3:.0f} ms | {t_cli / t_py:.2f}x |")
    print(f"| **all** | {total_py:.2f} s | {total_cli:.2f} s | {total_cli / total_py:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True, help="the release counterlab binary")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"counterlab {counterlab.__version__} (kernel {counterlab.KERNEL_VERSION}), "
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}, {platform.machine()}"
    )
    print()
    bench_metrics(args.repeat)
    bench_verify(args.cli, args.repeat)


if __name__ == "__main__":
    main()
