"""Verdicts are data, errors are exceptions of one family: a malformed payload gets a
REJECTED report; a file that cannot be read raises counterlab.Error naming it; invalid
experiments and packs name the JSON path, file, row or column."""

from __future__ import annotations

import json
import os

import pytest

import counterlab
from conftest import PACKS

PAYLOAD = PACKS / "entity-leakage" / "payloads" / "random-inflates-auc.json"


def test_the_error_family():
    for cls in (
        counterlab.IoError,
        counterlab.PackError,
        counterlab.DataError,
        counterlab.ExperimentError,
        counterlab.UnknownPackError,
        counterlab.OverBudgetError,
        counterlab.UsageError,
    ):
        assert issubclass(cls, counterlab.Error)
    assert issubclass(counterlab.Error, Exception)
    assert counterlab.Error.__module__ == "counterlab"


@pytest.mark.parametrize(
    "document",
    [b"{not json", b"", "{\"format\": \"counterlab.payload/1\"}", {"format": "counterlab.payload/1", "pack": 3}, b"[1, 2]", {"x": float("nan")}],
)
def test_a_malformed_payload_is_a_rejected_report_not_an_exception(document, tmp_path, monkeypatch):
    # No packs folder is needed for a document that names no pack.
    monkeypatch.chdir(tmp_path)
    report = counterlab.verify(document)
    assert report["verdict"] == "REJECTED"
    assert report["report_hash"]


def test_a_tampered_payload_is_rejected_with_a_counterexample():
    payload = json.loads(PAYLOAD.read_text())
    arm = next(iter(payload["results"]))
    payload["results"][arm]["metrics"]["roc_auc"] = 0.99
    report = counterlab.verify(payload)
    assert report["verdict"] == "REJECTED"
    assert any(c["counterexamples"] for c in report["checks"])


def test_an_unreadable_file_raises_counterlab_error_naming_it(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(counterlab.Error) as info:
        counterlab.verify(missing)
    assert isinstance(info.value, counterlab.IoError)
    assert str(missing) in str(info.value) and info.value.path == str(missing)
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    with pytest.raises(counterlab.IoError, match="a-folder.json"):
        counterlab.verify(folder)
    with pytest.raises(counterlab.IoError, match="nope.json"):
        counterlab.run(missing)


def test_no_packs_folder_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(counterlab.IoError, match=r"no packs folder here.*pass packs=DIR: a folder of pack folders"):
        counterlab.verify(PAYLOAD)
    # given explicitly, it works from anywhere
    assert counterlab.verify(PAYLOAD, packs=PACKS)["verdict"] == "SUPPORTS"


def test_an_invalid_experiment_names_the_json_path():
    experiment = json.loads((PACKS / "entity-leakage" / "experiments" / "random-vs-grouped.json").read_text())
    experiment["arms"][1]["split"]["folds"] = 1
    with pytest.raises(counterlab.ExperimentError) as info:
        counterlab.run(experiment)
    assert info.value.json_path is not None and info.value.json_path.startswith("$.arms[1]")
    assert "$.arms[1]" in str(info.value)


def test_an_unknown_pack_lists_the_known_ones():
    experiment = json.loads((PACKS / "entity-leakage" / "experiments" / "random-vs-grouped.json").read_text())
    experiment["pack"] = "no-such-pack"
    with pytest.raises(counterlab.UnknownPackError, match="entity-leakage"):
        counterlab.run(experiment)


def test_an_edited_fixture_names_the_file_and_how_to_fix(tmp_path):
    import shutil

    pack = tmp_path / "entity-leakage"
    shutil.copytree(PACKS / "entity-leakage", pack)
    csv = pack / "customer_churn.csv"
    csv.write_text(csv.read_text().replace("C0001,1,7,", "C0001,1,8,", 1))
    with pytest.raises(counterlab.DataError, match="pack rehash") as info:
        counterlab.run(pack / "experiments" / "random-vs-grouped.json", packs=pack)
    assert info.value.path.endswith("customer_churn.csv")


def test_options_out_of_range_are_usage_errors():
    with pytest.raises(counterlab.UsageError, match="permutations must lie in 0..=100000"):
        counterlab.verify(PAYLOAD, permutations=100001)
    with pytest.raises(counterlab.UsageError, match="alpha must lie in"):
        counterlab.verify(PAYLOAD, alpha=0.5)
    with pytest.raises(counterlab.UsageError, match="threads must lie in 1..="):
        counterlab.verify(PAYLOAD, threads=0)
    with pytest.raises(counterlab.UsageError, match="expected a path, JSON text, bytes or a dict, found int"):
        counterlab.verify(42)
    with pytest.raises(counterlab.UsageError, match="seed must lie in 0..=18446744073709551615, found -1"):
        counterlab.verify(PAYLOAD, seed=-1)
    with pytest.raises(counterlab.UsageError, match="permutations: expected an integer, found bool"):
        counterlab.verify(PAYLOAD, permutations=True)
    with pytest.raises(counterlab.UsageError, match="observe: expected True or False"):
        counterlab.verify(PAYLOAD, observe="yes")
    with pytest.raises(counterlab.UsageError, match="an empty path"):
        counterlab.verify("")
    with pytest.raises(counterlab.UsageError, match="pack: expected a pack id"):
        counterlab.boundary(PACKS / "entity-leakage")
    # numpy integers are integers
    import numpy as np

    assert counterlab.verify(PAYLOAD, seed=np.uint64(3), threads=np.int64(1))["verdict"] == "SUPPORTS"


def test_every_instance_has_the_four_attributes():
    for call in (
        lambda: counterlab.verify(PAYLOAD, threads=0),  # raised in Python
        lambda: counterlab.verify(PAYLOAD, alpha=0.5),  # raised in Rust
        lambda: counterlab.metrics([0, 1], [0.1]),  # raised in Rust, after the GIL came back
    ):
        with pytest.raises(counterlab.UsageError) as info:
            call()
        for attribute in ("path", "row", "column", "json_path"):
            assert getattr(info.value, attribute) is None


def test_dicts_with_numpy_values_and_odd_text_are_documents():
    import numpy as np

    payload = json.loads(PAYLOAD.read_text())
    same = json.loads(json.dumps(payload))
    same["experiment"]["seed"] = np.int64(payload["experiment"]["seed"])
    assert counterlab.verify(same)["report_hash"] == counterlab.verify(PAYLOAD)["report_hash"]
    # a lone surrogate cannot be UTF-8: the verifier rejects the document, it does not raise
    assert counterlab.verify('{"format": "\udcff"}')["verdict"] == "REJECTED"
    with pytest.raises(counterlab.UsageError, match="cannot be written as JSON"):
        counterlab.verify({"x": object()})


def test_a_prediction_error_names_its_file(tmp_path):
    bad = tmp_path / "belief.json"
    bad.write_text('{"format": "counterlab.prediction/1"}')
    with pytest.raises(counterlab.ExperimentError) as info:
        counterlab.select(bad)
    assert str(bad) in str(info.value) and info.value.path == str(bad)


def test_an_over_budget_payload_is_a_report():
    report = counterlab.verify(PAYLOAD, max_payload_bytes=100)
    assert report["verdict"] != "SUPPORTS"
    assert any(c["id"] == "budget.payload_bytes" and c["status"] == "unverifiable" for c in report["checks"])
