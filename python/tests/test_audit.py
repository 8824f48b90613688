"""counterlab.audit on a pandas DataFrame is the CLI's `audit` of the same rows as a CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import counterlab
from conftest import REPO

RESPIRATORY = REPO / "tests" / "data" / "real" / "respiratory" / "respiratory.csv"


def with_split(frame: pd.DataFrame, entity: str, by_entity: bool, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = frame.copy()
    if by_entity:
        ids = frame[entity].unique()
        test_ids = set(rng.choice(ids, size=len(ids) // 4, replace=False).tolist())
        frame["is_test"] = frame[entity].isin(test_ids).astype(int)
    else:
        frame["is_test"] = (rng.random(len(frame)) < 0.25).astype(int)
    return frame


@pytest.mark.parametrize("by_entity", [False, True])
def test_audit_of_a_dataframe_equals_the_cli_on_its_csv(by_entity, cli_json, tmp_path):
    frame = with_split(pd.read_csv(RESPIRATORY), "patient", by_entity)
    path = tmp_path / "split.csv"
    frame.to_csv(path, index=False)
    code, expected = cli_json(
        "audit", str(path), "--entity", "patient", "--label", "outcome", "--positive", "1",
        "--test-column", "is_test", "--time", "visit", "--json",
    )
    got = counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test", time="visit")
    # The same findings and numbers; the pack's id comes from the file's name, so the
    # hashes (which bind the pack) differ between "DataFrame" and split.csv.
    assert got["file"] == "DataFrame"
    named = ("file", "payload_hash", "report_hash")
    assert {k: v for k, v in got.items() if k not in named} == {k: v for k, v in expected.items() if k not in named}
    # Entities on both sides only in the row split; with a time column, both splits also
    # test rows that are not after training (a temporal leak).
    assert (got["shared_entities"]["count"] > 0) is (not by_entity)
    assert got["leak"] and got["temporal_overlap_rows"] > 0
    assert code == (1 if got["leak"] else 0)
    # a CSV path works too, and gives the CLI's object exactly
    assert counterlab.audit(path, entity="patient", label="outcome", positive="1", test="is_test", time="visit") == expected


def test_audit_out_writes_a_pack_that_verifies(tmp_path):
    frame = with_split(pd.read_csv(RESPIRATORY), "patient", by_entity=False)
    out = tmp_path / "audit-pack"
    got = counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test", out=out)
    report = counterlab.verify(out / "audit.payload.json", packs=out)
    assert report["report_hash"] == got["report_hash"]
    with pytest.raises(counterlab.Error, match="not an empty folder"):
        counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test", out=out)


def test_a_bad_cell_names_the_row_and_column():
    frame = with_split(pd.read_csv(RESPIRATORY), "patient", by_entity=True)
    frame["visit"] = frame["visit"].astype(object)
    frame.loc[4, "visit"] = "4.5x"
    with pytest.raises(counterlab.DataError) as info:
        counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test", time="visit")
    error = info.value
    assert error.column == "visit" and error.row == 5  # 1-based data row: iloc 4
    assert "4.5x" in str(error)


def test_unknown_columns_and_unreadable_files_are_errors(tmp_path):
    frame = with_split(pd.read_csv(RESPIRATORY), "patient", by_entity=True)
    with pytest.raises(counterlab.Error, match="no_such"):
        counterlab.audit(frame, entity="no_such", label="outcome", positive=1, test="is_test")
    with pytest.raises(counterlab.IoError, match="missing.csv"):
        counterlab.audit(tmp_path / "missing.csv", entity="patient", label="outcome", positive=1, test="is_test")
