"""The GIL is released while the kernel works: another Python thread keeps running during a
verification, and verifications in a thread pool give the one-thread reports."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import counterlab
from conftest import PACKS, bundled_payloads

SLOW = PACKS / "entity-leakage" / "payloads" / "random-vs-grouped.json"


def test_another_thread_runs_while_verify_works():
    stamps = []
    done = threading.Event()

    def count():
        ticks = 0
        while not done.is_set():
            ticks += 1
            if ticks % 1000 == 0:
                stamps.append(time.perf_counter())

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    start = time.perf_counter()
    report = counterlab.verify(SLOW, permutations=99, threads=1)
    end = time.perf_counter()
    done.set()
    counter.join()
    assert report["verdict"] == "SUPPORTS"
    assert end - start > 0.1, "the verification is long enough to look inside"
    # The middle 80% of the call is the kernel's work (the Python around it takes well
    # under a millisecond). Had the GIL been held, the counter could not have ticked there
    # at all; released, it ticks all along.
    low, high = start + 0.1 * (end - start), start + 0.9 * (end - start)
    inside = [t for t in stamps if low <= t <= high]
    assert len(inside) >= 20, f"{len(inside)} progress marks inside the call: the GIL was not released"
    gaps = [b - a for a, b in zip([low, *inside], [*inside, high])]
    assert max(gaps) < 0.5 * (high - low), "the counter ran all along the call, not only at one point"


def test_a_thread_pool_gives_the_sequential_reports():
    paths = bundled_payloads()[:8]
    sequential = [counterlab.verify(p)["report_hash"] for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda p: counterlab.verify(p)["report_hash"], paths))
    assert parallel == sequential
