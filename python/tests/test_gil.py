"""The GIL is released while the kernel works: another Python thread runs during a
verification (shown without a clock), and verifications in a thread pool give the
one-thread reports."""

from __future__ import annotations

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import counterlab
from counterlab import _native
from conftest import PACKS, bundled_payloads

SLOW = PACKS / "entity-leakage" / "payloads" / "random-vs-grouped.json"


def _runs_inside(call) -> bool:
    """Whether another Python thread ran while ``call()`` ran, decided by who holds the GIL
    rather than by a clock. With a switch interval of 1000 s the interpreter never takes
    the GIL from a thread: it changes hands only where a thread releases it. A watcher
    blocks on an event; the main thread sets the event and then makes the call, holding
    the GIL. The watcher can only record what it sees once the GIL is released: inside the
    call (it sees ``inside`` True) if the call releases it, else only after the call
    returns (it sees False)."""
    state = {"inside": False}
    seen = []
    go = threading.Event()

    def watch():
        go.wait()
        seen.append(state["inside"])

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        watcher = threading.Thread(target=watch)
        # start() waits until the watcher runs, which then holds the GIL until it blocks
        # in go.wait(): from here on it waits for the event.
        watcher.start()
        state["inside"] = True
        go.set()
        call()
        state["inside"] = False
        watcher.join()
    finally:
        sys.setswitchinterval(interval)
    assert len(seen) == 1
    return seen[0]


def test_another_thread_runs_while_verify_works():
    # The native call itself, on bytes: nothing between the event and the kernel reads a
    # file or waits in Python, so only the kernel's own release can let the watcher in.
    document = SLOW.read_bytes()
    reports = []
    assert _runs_inside(lambda: reports.append(_native.verify(document, PACKS, 19, False, None, None, None, None, 1)))
    assert json.loads(reports[0])["verdict"] == "SUPPORTS"
    # The harness can fail: Python work that holds the GIL lets no thread in.
    assert not _runs_inside(lambda: sum(range(200_000)))


def test_a_thread_pool_gives_the_sequential_reports():
    paths = bundled_payloads()[:8]
    sequential = [counterlab.verify(p)["report_hash"] for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda p: counterlab.verify(p)["report_hash"], paths))
    assert parallel == sequential
