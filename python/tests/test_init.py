"""counterlab.init writes the pack folder `counterlab init` writes (one library function,
counterlab::pack_folder, writes both), from a frame of any library or a CSV path; its
answer names each column's use and the next steps in Python and on the command line."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import polars as pl
import pytest

import counterlab
from conftest import REPO

RESPIRATORY = REPO / "tests" / "data" / "real" / "respiratory" / "respiratory.csv"
ROLES = dict(entity="patient", label="outcome", positive=1, time="visit", test="is_test")
FLAGS = ["--entity", "patient", "--label", "outcome", "--positive", "1", "--time", "visit", "--test-column", "is_test"]


def split_frame() -> pd.DataFrame:
    frame = pd.read_csv(RESPIRATORY)
    frame["is_test"] = (np.random.default_rng(5).random(len(frame)) < 0.25).astype(int)
    return frame


def folder_files(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_init_of_a_frame_writes_the_folder_the_cli_writes(cli, tmp_path):
    frame = split_frame()
    # The CLI on the CSV of the frame's bytes, under the name init gives a frame's fixture.
    data = tmp_path / "data.csv"
    data.write_bytes(counterlab.csv_bytes(frame))
    code, out, err = cli("init", str(data), *FLAGS, "--out", str(tmp_path / "by-cli"))
    assert code == 0, err
    expected = folder_files(tmp_path / "by-cli")
    for name, same in (("pandas", frame), ("polars", pl.from_pandas(frame))):
        got = counterlab.init(same, out=tmp_path / name, **ROLES)
        assert folder_files(tmp_path / name) == expected, name
        assert got["id"] == "data" and got["fixture_file"] == "data.csv"
    # a CSV path is copied under its own name, as the CLI copies it
    got = counterlab.init(data, out=tmp_path / "by-path", **ROLES)
    assert folder_files(tmp_path / "by-path") == expected
    # The answer: every column's use, the files, and the CLI's own next lines; `id`
    # (restarting in each centre) is left out as a coarser level of the patient.
    uses = {c["name"]: c["use"] for c in got["columns"]}
    assert uses == {
        "center": "numeric", "id": "not used", "treat": "categorical", "sex": "categorical", "age": "numeric",
        "baseline": "numeric", "visit": "time", "outcome": "label", "patient": "entity", "is_test": "test column",
    }
    assert next(c for c in got["columns"] if c["name"] == "sex")["levels"] == ["F", "M"]
    assert sorted(got["files"]) == sorted(str(tmp_path / "by-path" / f) for f in expected)
    assert got["cli"][0] == f"counterlab pack check {tmp_path / 'by-path'}"
    for line in got["cli"]:
        assert line in out.replace(str(tmp_path / "by-cli"), str(tmp_path / "by-path"))


def test_the_next_calls_run_and_verify_a_starter(tmp_path, monkeypatch):
    got = counterlab.init(split_frame(), out=tmp_path / "pack", **ROLES)
    assert got["next"][:2] == [
        f"payload = counterlab.run({str(tmp_path / 'pack' / 'experiments' / 'random-vs-grouped.json')!r}, packs={str(tmp_path / 'pack')!r})",
        f"counterlab.verify(payload, packs={str(tmp_path / 'pack')!r})",
    ]
    monkeypatch.chdir(tmp_path)
    scope = {"counterlab": counterlab}
    exec(got["next"][0], scope)
    assert scope["payload"]["format"] == "counterlab.payload/1"
    report = counterlab.verify(scope["payload"], packs=tmp_path / "pack", permutations=19)
    assert report["verdict"] in ("SUPPORTS", "INCONCLUSIVE", "REJECTED") and report["report_hash"]


def test_init_never_overwrites(tmp_path):
    out = tmp_path / "pack"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(counterlab.UsageError, match="out: .* not an empty folder"):
        counterlab.init(split_frame(), out=out, **ROLES)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(counterlab.UsageError, match="not an empty folder"):
        counterlab.init(split_frame(), out=a_file, **ROLES)


def test_messages_name_python_arguments_not_flags(tmp_path):
    frame = split_frame()
    with pytest.raises(counterlab.DataError, match=r"named by entity=\)") as info:
        counterlab.init(frame, out=tmp_path / "a", **{**ROLES, "entity": "patien"})
    assert "--" not in str(info.value) and "did you mean \"patient\"" in str(info.value)
    with pytest.raises(counterlab.DataError, match="fix the data or entity=, label=, positive=, time=") as info:
        counterlab.init(frame, out=tmp_path / "b", **{**ROLES, "positive": 7})
    assert "--" not in str(info.value)
    with pytest.raises(counterlab.DataError, match=r"named by test=\)"):
        counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_tst")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_init_options_are_checked(tmp_path):
    frame = split_frame()
    with pytest.raises(counterlab.UsageError, match='time_kind: expected "calendar" or "order_within_entity"'):
        counterlab.init(frame, out=tmp_path / "a", **ROLES, time_kind="wall clock")
    with pytest.raises(counterlab.UsageError, match="keep: expected a list of column names, found str"):
        counterlab.init(frame, out=tmp_path / "a", **ROLES, keep="age")
    with pytest.raises(counterlab.UsageError, match=r"features\[1\]: expected a str, found int"):
        counterlab.init(frame, out=tmp_path / "a", **ROLES, features=["age", 3])
    # accepted and passed to the core (which reads them once main's init work lands)
    got = counterlab.init(frame, out=tmp_path / "b", **ROLES, time_kind="order_within_entity", keep=["age"], drop=[], id="resp")
    assert got["id"] == "resp"
    shutil.rmtree(tmp_path / "b")


def test_the_init_example_of_the_docs_runs(tmp_path, monkeypatch):
    text = (REPO / "docs" / "PYTHON.md").read_text()
    section = text[text.index("A pack folder for your own data") :]
    example = section[section.index("```python\n") + 10 : section.index("```\n", section.index("```python\n") + 10)]
    monkeypatch.chdir(tmp_path)
    split_frame().drop(columns="is_test").to_parquet("visits.parquet")
    scope: dict = {}
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "PYTHON.md", "exec"), scope)
    lines = out.getvalue().splitlines()
    assert lines[0] == "payload = counterlab.run('my-pack/experiments/random-vs-grouped.json', packs='my-pack')"
    assert lines[1] in ("SUPPORTS", "INCONCLUSIVE", "REJECTED")


def test_the_starters_model_is_an_argument(cli, tmp_path):
    frame = split_frame()
    data = tmp_path / "data.csv"
    data.write_bytes(counterlab.csv_bytes(frame))
    code, out, err = cli("init", str(data), *FLAGS, "--model", "gbdt", "--out", str(tmp_path / "by-cli"))
    assert code == 0, err
    counterlab.init(frame, out=tmp_path / "by-python", model="gbdt", **ROLES)
    assert folder_files(tmp_path / "by-python") == folder_files(tmp_path / "by-cli")
    starter = (tmp_path / "by-python" / "experiments" / "random-vs-grouped.json").read_text()
    assert '"kind": "gbdt"' in starter and '"max_leaf_nodes": 31' in starter
    with pytest.raises(counterlab.UsageError, match="model: expected"):
        counterlab.init(frame, out=tmp_path / "bad", model="svm", **ROLES)


def test_a_suspect_column_says_how_to_keep_it_in_python_words(tmp_path):
    # `id` restarts in each centre: init leaves it out (a coarser level of the patient)
    # and says how to keep it, as this package's argument (the CLI says --keep id).
    got = counterlab.init(split_frame(), out=tmp_path / "pack", **ROLES)
    why = next(c for c in got["columns"] if c["name"] == "id")["why"]
    assert 'keep it (keep=["id"])' in why and "--" not in why, why
    for note in got["notes"]:
        assert "--" not in note, note


def test_every_budget_names_its_argument_and_a_value_that_passes(tmp_path):
    frame = split_frame()
    size = len(counterlab.csv_bytes(frame))
    columns, rows = len(frame.columns), len(frame)
    for argument, small, needed in (("max_fixture_bytes", 100, size), ("max_columns", 3, columns)):
        with pytest.raises(counterlab.OverBudgetError) as info:
            counterlab.init(frame, out=tmp_path / f"over-{argument}", **ROLES, **{argument: small})
        message = str(info.value)
        assert f"pass {argument}={needed} or more" in message and "--" not in message, message
        got = counterlab.init(frame, out=tmp_path / f"{argument}", **ROLES, **{argument: needed})
        assert got["id"] == "data"
    audit_roles = dict(entity="patient", label="outcome", positive=1, test="is_test")
    with pytest.raises(counterlab.OverBudgetError, match=f"pass max_rows={rows} or more"):
        counterlab.audit(frame, **audit_roles, max_rows=10)
    assert counterlab.audit(frame, **audit_roles, max_rows=rows)["format"] == "counterlab.audit/1"
    # A report is one document for both front ends: its reason names both spellings.
    payload = REPO / "fixtures" / "packs" / "entity-leakage" / "payloads" / "random-inflates-auc.json"
    report = counterlab.verify(payload, permutations=19, max_rows=10)
    reason = next(c["reason"] for c in report["checks"] if c["id"] == "budget.fixture")
    assert "pass --max-rows 1756 (Python: max_rows=1756) or more" in reason, reason
    assert counterlab.verify(payload, permutations=19, max_rows=1756)["verdict"] == "SUPPORTS"
    for bad in (0, 2**32):
        with pytest.raises(counterlab.UsageError, match="max_rows must lie in 1..="):
            counterlab.init(frame, out=tmp_path / "bad", **ROLES, max_rows=bad)


def test_a_margin_above_the_materiality_ceiling_is_refused_in_python_words():
    frame = split_frame()
    with pytest.raises(counterlab.Error, match=r"margin=0\.5 is above the materiality ceiling 0\.1 of ROC AUC") as info:
        counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test", margin=0.5)
    assert "--" not in str(info.value)
