"""pandas, polars and pyarrow frames are read one way (counterlab.csv_bytes): the three
versions of one table give the same CSV bytes, hence the same audit and hashes, which are
the CLI's on the file those bytes make; metrics takes a column of any of them."""

from __future__ import annotations

import datetime
import decimal
import io
import subprocess

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.metrics import roc_auc_score

import counterlab
from conftest import REPO, cli_binary

RESPIRATORY = REPO / "tests" / "data" / "real" / "respiratory" / "respiratory.csv"


def three(columns: dict) -> dict:
    """One table as a pandas DataFrame, a polars DataFrame, a pyarrow Table and RecordBatch
    (each library's own types for the same Python values)."""
    return {
        "pandas": pd.DataFrame(columns),
        "polars": pl.DataFrame(columns),
        "pyarrow": pa.table(columns),
        "record batch": pa.RecordBatch.from_pydict(columns),
    }


ODD = {
    "id": ["a", "b", "c", "d"],
    "n": [1, -2, 3, 2**62],
    "x": [0.1, 1e-300, 3.0, -0.0],
    "text": ["p,q", 'say "hi"', "two\nlines", "é ü"],
    "flag": [True, False, True, False],
}


def test_the_three_libraries_give_the_same_bytes():
    got = {name: counterlab.csv_bytes(frame) for name, frame in three(ODD).items()}
    assert len(set(got.values())) == 1, got
    # integers as integers, floats by repr, booleans as true/false, RFC 4180 quoting
    assert got["pandas"] == (
        'id,n,x,text,flag\n'
        'a,1,0.1,"p,q",true\n'
        'b,-2,1e-300,"say ""hi""",false\n'
        'c,3,3.0,"two\nlines",true\n'
        f'd,{2**62},-0.0,é ü,false\n'
    ).encode("utf-8")


def test_the_bytes_read_back_as_the_same_values():
    # An independent reader (pandas' CSV parser) gets every value back, floats bit for bit.
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.normal(size=500) * 10.0 ** rng.integers(-300, 300, size=500), [5e-324, 1.7976931348623157e308]])
    back = pd.read_csv(io.BytesIO(counterlab.csv_bytes(pl.DataFrame({"x": x}))), engine="python")
    assert back["x"].to_numpy().tobytes() == x.tobytes()
    back = pd.read_csv(io.BytesIO(counterlab.csv_bytes(pa.table(ODD))), keep_default_na=False)
    assert back["text"].tolist() == ODD["text"] and back["n"].tolist() == ODD["n"]


def test_missing_values_are_empty_cells_in_every_library():
    pandas = pd.DataFrame(
        {
            "i": pd.array([1, None, 3], dtype="Int64"),
            "f": [0.5, np.nan, 1.5],
            "s": pd.array(["a", None, "c"], dtype="string"),
            "b": pd.array([True, None, False], dtype="boolean"),
        }
    )
    columns = {"i": [1, None, 3], "f": [0.5, None, 1.5], "s": ["a", None, "c"], "b": [True, None, False]}
    expected = b"i,f,s,b\n1,0.5,a,true\n,,,\n3,1.5,c,false\n"
    assert counterlab.csv_bytes(pandas) == expected
    assert counterlab.csv_bytes(pl.DataFrame(columns)) == expected
    assert counterlab.csv_bytes(pa.table(columns)) == expected
    # pandas' Arrow-backed dtypes too
    assert counterlab.csv_bytes(pa.table(columns).to_pandas(types_mapper=pd.ArrowDtype)) == expected


def test_dates_decimals_and_categories_are_written_alike():
    columns = {
        "day": [datetime.date(2024, 1, 2), datetime.date(2024, 2, 3)],
        "at": [datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 2, 3, 4, 5, 6)],
        "amount": [decimal.Decimal("1.10"), decimal.Decimal("-2")],
    }
    frames = three(columns)
    # a pandas category column of the same texts
    frames["category"] = pd.DataFrame(columns).astype({"amount": float}).astype({"amount": "category"})
    got = {name: counterlab.csv_bytes(frame) for name, frame in frames.items()}
    assert set(got.values()) == {
        b"day,at,amount\n2024-01-02,2024-01-02T03:04:05,1.1\n2024-02-03,2024-02-03T04:05:06,-2.0\n"
    }, got


def with_split(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame["is_test"] = (np.random.default_rng(3).random(len(frame)) < 0.25).astype(int)
    return frame


def test_an_audit_of_the_three_is_the_same_and_the_clis(tmp_path):
    frame = with_split(pd.read_csv(RESPIRATORY))
    frames = {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "pyarrow": pa.Table.from_pandas(frame, preserve_index=False),
    }
    roles = dict(entity="patient", label="outcome", positive=1, test="is_test", time="visit")
    got = {name: counterlab.audit(f, **roles) for name, f in frames.items()}
    assert got["pandas"] == got["polars"] == got["pyarrow"]
    # The CLI on the file of the same bytes, under the same name, gives the same object.
    (tmp_path / "DataFrame").write_bytes(counterlab.csv_bytes(frame))
    done = subprocess.run(
        [str(cli_binary()), "audit", "DataFrame", "--entity", "patient", "--label", "outcome", "--positive", "1",
         "--test-column", "is_test", "--time", "visit", "--json"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    import json

    assert json.loads(done.stdout) == got["pandas"], done.stderr
    assert got["pandas"]["report_hash"]


def test_duplicate_column_names_are_a_usage_error_naming_them():
    frame = pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])
    with pytest.raises(counterlab.UsageError, match="duplicate column names \\('a'\\)"):
        counterlab.audit(frame, entity="a", label="b", positive=1, test="a")
    table = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["x", "x"])
    with pytest.raises(counterlab.UsageError, match="'x'"):
        counterlab.init(table, entity="x", label="x", positive=1, out="never-written")
    # 1 and "1" are one name in a CSV header
    with pytest.raises(counterlab.UsageError, match="duplicate column names"):
        counterlab.csv_bytes(pd.DataFrame([[1, 2]], columns=[1, "1"]))


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
def test_a_carriage_return_or_a_bytes_cell_names_its_row_and_column(library):
    frame = three({"id": ["a", "b\rc"], "y": [0, 1]})[library]
    with pytest.raises(counterlab.DataError, match=r"row 2, column 'id': a text cell with a carriage return") as info:
        counterlab.csv_bytes(frame)
    assert (info.value.row, info.value.column) == (2, "id")
    with pytest.raises(counterlab.DataError, match="row 1, column 'b': a bytes cell"):
        counterlab.csv_bytes(three({"a": [1], "b": [b"\x00"]})[library])


def test_a_lone_surrogate_in_a_cell_or_a_name_is_a_data_error():
    with pytest.raises(counterlab.DataError, match=r"row 2, column 'id'.*lone surrogate") as info:
        counterlab.csv_bytes(pd.DataFrame({"id": pd.Series(["a", "\ud800"], dtype=object), "y": [0, 1]}))
    assert info.value.row == 2
    with pytest.raises(counterlab.DataError, match="column 2's name"):
        counterlab.csv_bytes(pd.DataFrame([["a", 0]], columns=pd.Index(["id", "\ud800"], dtype=object)))


def test_a_lazy_frame_or_a_list_cell_says_what_to_do():
    with pytest.raises(counterlab.UsageError, match="collect"):
        counterlab.csv_bytes(pl.DataFrame({"a": [1]}).lazy())
    with pytest.raises(counterlab.DataError, match="a cell of type list"):
        counterlab.csv_bytes(pl.DataFrame({"a": [[1, 2]]}))


def test_audit_and_init_refuse_what_is_not_a_table():
    with pytest.raises(counterlab.UsageError, match="data: expected a pandas or polars DataFrame"):
        counterlab.audit(pd.Series([1]), entity="a", label="b", positive=1, test="c")
    with pytest.raises(counterlab.UsageError, match="found dict"):
        counterlab.csv_bytes({"a": [1]})


SCORES = [0.1, 0.4, 0.35, 0.8, 0.65, 0.2, 0.9, 0.55]
LABELS = [0, 0, 1, 1, 1, 0, 1, 0]
PATIENTS = ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]


@pytest.mark.parametrize(
    "column",
    [
        list,
        np.asarray,
        pd.Series,
        pl.Series,
        pa.array,
        lambda v: pa.chunked_array([v[:3], v[3:]]),
    ],
    ids=["list", "numpy", "pandas", "polars", "pyarrow Array", "pyarrow ChunkedArray"],
)
def test_metrics_takes_a_column_of_any_library(column):
    got = counterlab.metrics(column(LABELS), column(SCORES), entity=column(PATIENTS), y_score2=column(SCORES[::-1]))
    assert got == counterlab.metrics(LABELS, SCORES, entity=PATIENTS, y_score2=SCORES[::-1])
    assert got["roc_auc"] == pytest.approx(roc_auc_score(LABELS, SCORES), abs=1e-15)


def test_a_null_in_a_polars_or_pyarrow_column_is_missing():
    with pytest.raises(counterlab.DataError, match=r"y_true\[1\] is missing"):
        counterlab.metrics(pl.Series([0, None, 1]), [0.1, 0.2, 0.3])
    with pytest.raises(counterlab.DataError, match=r"y_score\[2\] is missing"):
        counterlab.metrics([0, 1, 1], pa.array([0.1, 0.2, None]))
    with pytest.raises(counterlab.DataError, match=r"entity\[0\] is missing"):
        counterlab.metrics([0, 1], [0.1, 0.2], entity=pa.chunked_array([pa.array([None], pa.string()), ["b"]]))
