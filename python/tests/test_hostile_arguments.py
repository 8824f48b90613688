"""Arguments that used to escape the counterlab.Error family (OverflowError,
RecursionError, UnicodeEncodeError, ValueError, decimal.InvalidOperation, TypeError,
AttributeError, …) are UsageError or DataError, and the message names the argument."""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import pytest

import counterlab
from conftest import PACKS, REPO

PAYLOAD = PACKS / "entity-leakage" / "payloads" / "random-inflates-auc.json"
RESPIRATORY = REPO / "tests" / "data" / "real" / "respiratory" / "respiratory.csv"
ROLES = dict(entity="patient", label="outcome", positive=1, test="is_test")
Y, P = [0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    frame = pd.read_csv(RESPIRATORY)
    frame["is_test"] = (frame.index % 4 == 0).astype(int)
    return frame


def test_overflow_error_is_a_usage_error_naming_the_argument():
    with pytest.raises(counterlab.UsageError, match=r"y_score: expected numbers; y_score\[1\] is 1000.*…") as info:
        counterlab.metrics(Y, [0.1, 10**400, 0.6, 0.3])
    assert info.value.row == 2
    with pytest.raises(counterlab.UsageError, match="threshold must be a finite number, found 1000"):
        counterlab.metrics(Y, P, threshold=10**400)
    with pytest.raises(counterlab.UsageError, match="alpha must be a finite number"):
        counterlab.verify(PAYLOAD, alpha=10**400)
    with pytest.raises(counterlab.UsageError, match="max_work: expected an integer"):
        counterlab.verify(PAYLOAD, max_work=float("inf"))
    with pytest.raises(counterlab.UsageError, match="seed must lie in 0..=18446744073709551615, found 1000.*…"):
        counterlab.verify(PAYLOAD, seed=10**400)


def test_recursion_error_is_a_usage_error_naming_the_argument():
    deep: dict = {}
    inner = deep
    for _ in range(100_000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(counterlab.UsageError, match="document: the dict is nested too deeply"):
        counterlab.verify(deep)
    with pytest.raises(counterlab.UsageError, match=r"payloads\[1\]: the dict is nested too deeply"):
        counterlab.verify_revision([PAYLOAD, deep])
    with pytest.raises(counterlab.UsageError, match="experiment: the dict is nested too deeply"):
        counterlab.run(deep)
    # nested JSON text is a document like any other: the verifier rejects it
    assert counterlab.verify("[" * 100_000 + "]" * 100_000)["verdict"] == "REJECTED"


def test_unicode_encode_error_is_a_counterlab_error_naming_the_argument(frame, tmp_path):
    with pytest.raises(counterlab.DataError, match=r"entity\[1\] \('\\ud800'\) is not Unicode text") as info:
        counterlab.metrics(Y, P, entity=["a", "\ud800", "b", "c"])
    assert (info.value.row, info.value.column) == (2, "entity")
    with pytest.raises(counterlab.UsageError, match="positive: '\\\\ud800' is not Unicode text"):
        counterlab.metrics(["\ud800", "b", "b", "\ud800"], P, positive="\ud800")
    for argument in ("label", "entity", "test"):
        with pytest.raises(counterlab.UsageError, match=f"{argument}: '\\\\ud800' is not Unicode text"):
            counterlab.audit(frame, **{**ROLES, argument: "\ud800"})
    with pytest.raises(counterlab.UsageError, match="time: '\\\\ud800' is not Unicode text"):
        counterlab.init(frame, **ROLES, time="\ud800", out=tmp_path / "p")
    with pytest.raises(counterlab.UsageError, match="data: '\\\\ud800.csv' cannot be a file name"):
        counterlab.audit("\ud800.csv", **ROLES)
    with pytest.raises(counterlab.UsageError, match="out: '\\\\ud800' cannot be a file name"):
        counterlab.init(frame, **ROLES, out="\ud800")
    with pytest.raises(counterlab.UsageError, match="document: '\\\\ud800.json' cannot be a file name"):
        counterlab.verify("\ud800.json")
    with pytest.raises(counterlab.UsageError, match="packs: '\\\\ud800' cannot be a file name"):
        counterlab.verify(PAYLOAD, packs="\ud800")
    with pytest.raises(counterlab.DataError, match=r"row 3, column 'patient'.*lone surrogate"):
        odd = frame.astype({"patient": object})
        odd.loc[2, "patient"] = "\ud800"
        counterlab.audit(odd, **ROLES)


def test_value_error_of_arrays_in_a_list_is_a_usage_error_naming_the_row():
    for y_true in ([np.array([0, 1]), np.array([1])], [np.array([0, 1]), np.array([1, 0])]):
        with pytest.raises(counterlab.UsageError, match=r"y_true\[0\]: expected one value per row, found a ndarray"):
            counterlab.metrics(y_true, [0.1, 0.2])
    with pytest.raises(counterlab.UsageError, match=r"entity\[1\]: expected one value per row, found a list"):
        counterlab.metrics([0, 1], [0.1, 0.2], entity=["a", ["b"]])
    with pytest.raises(counterlab.UsageError, match=r"y_score\[0\]: expected one value per row"):
        counterlab.metrics([0, 1], np.array([[0.1], 0.2], dtype=object))


def test_decimal_invalid_operation_is_a_usage_error_naming_the_argument():
    for nan in (decimal.Decimal("NaN"), decimal.Decimal("sNaN")):
        with pytest.raises(counterlab.UsageError, match=f"threshold must be a finite number, found Decimal\\('{nan}'\\)"):
            counterlab.metrics(Y, P, threshold=nan)
    with pytest.raises(counterlab.UsageError, match=r"y_score\[0\] is NaN"):
        counterlab.metrics(Y, [decimal.Decimal("NaN"), 0.8, 0.6, 0.3])
    with pytest.raises(counterlab.UsageError, match=r"y_score\[0\] is Decimal\('sNaN'\)"):
        counterlab.metrics(Y, [decimal.Decimal("sNaN"), 0.8, 0.6, 0.3])
    with pytest.raises(counterlab.UsageError, match=r"cannot be compared with positive=Decimal\('sNaN'\)"):
        counterlab.metrics(Y, P, positive=decimal.Decimal("sNaN"))
    with pytest.raises(counterlab.DataError, match=r"y_true\[0\] is missing"):
        counterlab.metrics([decimal.Decimal("sNaN"), 1, 1, 0], P)
    # a finite Decimal is a number
    assert counterlab.metrics(Y, P, threshold=decimal.Decimal("0.5")) == counterlab.metrics(Y, P)


def test_type_error_is_a_usage_error_naming_the_argument(frame):
    with pytest.raises(counterlab.UsageError, match="entity: expected a column name \\(str\\) or a non-empty list"):
        counterlab.audit(frame, **{**ROLES, "entity": 0})
    with pytest.raises(counterlab.UsageError, match="label: expected a str, found int"):
        counterlab.audit(frame, **{**ROLES, "label": 0})
    with pytest.raises(counterlab.UsageError, match="positive: expected a label value"):
        counterlab.audit(frame, **{**ROLES, "positive": None})
    with pytest.raises(counterlab.UsageError, match="out: expected a path, found int"):
        counterlab.audit(frame, **ROLES, out=3)
    with pytest.raises(counterlab.UsageError, match=r"y_score: expected numbers; y_score\[0\] is 1j"):
        counterlab.metrics([0, 1], [1j, 0.2])
    with pytest.raises(counterlab.UsageError, match="y_true: expected a column of values, found dict"):
        counterlab.metrics({"a": 1}, [0.2])
    with pytest.raises(counterlab.UsageError, match="threshold: expected a number, found str"):
        counterlab.metrics(Y, P, threshold="0.5")


def test_attribute_error_of_duplicate_columns_is_a_usage_error_naming_them(frame):
    doubled = pd.concat([frame, frame[["age"]]], axis=1)
    with pytest.raises(counterlab.UsageError, match=r"data: duplicate column names \('age'\)"):
        counterlab.audit(doubled, **ROLES)


def test_object_arrays_and_nullable_dtypes_are_read_or_refused_by_name():
    assert counterlab.metrics(np.array(Y, dtype=object), np.array(P, dtype=object)) == counterlab.metrics(Y, P)
    with pytest.raises(counterlab.UsageError, match=r"y_score\[1\] is 'x'"):
        counterlab.metrics([0, 1], np.array([0.1, "x"], dtype=object))
    with pytest.raises(counterlab.DataError, match=r"y_true\[1\] is missing"):
        counterlab.metrics(pd.array([0, None, 1, 0], dtype="Int64"), P)
    with pytest.raises(counterlab.DataError, match=r"y_score\[1\] is missing"):
        counterlab.metrics(Y, pd.Series([0.1, None, 0.6, 0.3], dtype=object))
    with pytest.raises(counterlab.UsageError, match=r"y_score\[1\] is NaN"):
        counterlab.metrics(Y, pd.array([0.1, None, 0.6, 0.3], dtype="Float64"))
    with pytest.raises(counterlab.UsageError, match="y_score: expected numbers, found datetime64"):
        counterlab.metrics([0, 1], np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"))


def test_a_directory_or_a_nul_as_a_path_is_named(frame, tmp_path):
    for call in (
        lambda: counterlab.audit(str(tmp_path), **ROLES),
        lambda: counterlab.init(str(tmp_path), **ROLES, out=tmp_path / "p"),
        lambda: counterlab.verify(str(tmp_path)),
    ):
        with pytest.raises(counterlab.IoError, match="is a directory, not a regular file"):
            call()
    with pytest.raises(counterlab.UsageError, match="document: .* holds a NUL character"):
        counterlab.verify("a\x00b.json")


def test_integer_options_take_integral_floats():
    expected = counterlab.verify(PAYLOAD, max_work=10**11, threads=2, seed=3, permutations=199)
    got = counterlab.verify(PAYLOAD, max_work=1e11, threads=2.0, seed=3.0, permutations=199.0)
    assert got == expected and got["verdict"] == "SUPPORTS"
    for bad, shown in ((1.5, "1.5"), (float("nan"), "nan"), (float("inf"), "inf"), (np.float64(2.5), "2.5")):
        for name in ("max_work", "threads", "seed", "permutations"):
            with pytest.raises(counterlab.UsageError, match=f"{name}: expected an integer, found .*{shown}"):
                counterlab.verify(PAYLOAD, **{name: bad})
    for name in ("max_work", "threads", "seed", "permutations"):
        with pytest.raises(counterlab.UsageError, match=f"{name}: expected an integer, found bool"):
            counterlab.verify(PAYLOAD, **{name: True})
    with pytest.raises(counterlab.UsageError, match="permutations must lie in 0..=100000, found 1e\\+300"):
        counterlab.verify(PAYLOAD, permutations=1e300)
