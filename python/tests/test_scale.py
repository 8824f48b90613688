"""Past one machine: verification is a pure function of (payload, packs), so a batch
verified on a Dask cluster (LocalCluster, worker processes) gives byte-identical reports
to one process. docs/SCALE.md shows the same code on a real cluster."""

from __future__ import annotations

import json
from typing import Optional

import distributed

import counterlab
from conftest import PACKS, bundled_capsules, bundled_payloads



def verify_one(payload: bytes, packs: str, permutations: Optional[int]) -> str:
    """A task: the report as canonical JSON text (sorted keys, exact floats)."""
    import counterlab

    report = counterlab.verify(payload, packs=packs, threads=1, permutations=permutations)
    return json.dumps(report, sort_keys=True)


def test_a_batch_on_a_dask_cluster_is_byte_identical_to_one_process():
    # Every bundled payload at K = 19 (a report is a pure function of its inputs whatever
    # K is) and the first bundled capsule (re-verified with the options it records), but
    # the temporal-leakage map: a map is re-verified at its own K, and that one's 5 s each
    # way add no kind of document the other two maps do not bring.
    paths = [
        p for p in bundled_payloads() if p.parts[-3:] != ("temporal-leakage", "payloads", "boundary-map.json")
    ] + bundled_capsules()[:1]
    payloads = [p.read_bytes() for p in paths]
    ks = [None if p.parent.name == "capsules" else 19 for p in paths]
    packs = str(PACKS)  # an absolute path every worker can read
    local = [verify_one(p, packs, k) for p, k in zip(payloads, ks)]

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        workers = client.scheduler_info()["workers"]
        assert len(workers) == 2
        futures = client.map(verify_one, payloads, [packs] * len(paths), ks, pure=False)
        remote = client.gather(futures)
        # The work really ran in other processes.
        who = client.who_has(futures)
        assert {w for ws in who.values() for w in ws} <= set(workers)

    assert len(remote) == len(local) == len(paths)
    for path, a, b in zip(paths, local, remote):
        assert a.encode() == b.encode(), path
    assert len({json.loads(r).get("report_hash") or json.loads(r).get("capsule_report_hash") for r in remote}) == len(paths)
