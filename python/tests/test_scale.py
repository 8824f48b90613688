"""Past one machine: verification is a pure function of (payload, packs), so a batch
verified on a Dask cluster (LocalCluster, worker processes) gives byte-identical reports
to one process. docs/SCALE.md shows the same code on a real cluster."""

from __future__ import annotations

import json

import distributed

import counterlab
from conftest import PACKS, bundled_capsules, bundled_payloads



def verify_one(payload: bytes, packs: str) -> str:
    """A task: the report as canonical JSON text (sorted keys, exact floats)."""
    import counterlab

    return json.dumps(counterlab.verify(payload, packs=packs, threads=1), sort_keys=True)


def test_a_batch_on_a_dask_cluster_is_byte_identical_to_one_process():
    paths = bundled_payloads() + bundled_capsules()
    payloads = [p.read_bytes() for p in paths]
    packs = str(PACKS)  # an absolute path every worker can read
    local = [verify_one(p, packs) for p in payloads]

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        workers = client.scheduler_info()["workers"]
        assert len(workers) == 2
        futures = client.map(verify_one, payloads, packs=packs, pure=False)
        remote = client.gather(futures)
        # The work really ran in other processes.
        who = client.who_has(futures)
        assert {w for ws in who.values() for w in ws} <= set(workers)

    assert len(remote) == len(local) == len(paths)
    for path, a, b in zip(paths, local, remote):
        assert a.encode() == b.encode(), path
    assert len({json.loads(r).get("report_hash") or json.loads(r).get("capsule_report_hash") for r in remote}) == len(paths)
