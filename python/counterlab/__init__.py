"""counterlab: the deterministic kernel and frozen verifier of ML evaluation-design experiments.

The same crate as the ``counterlab`` command line, linked into Python: every number is
computed by the Rust kernel, bit for bit as the CLI computes it, and every report has the
hash the CLI prints for the same input. The GIL is released while the kernel works.

    >>> import counterlab
    >>> report = counterlab.verify("fixtures/packs/entity-leakage/payloads/random-inflates-auc.json")
    >>> report["verdict"]
    'SUPPORTS'

Documents (experiments, payloads, maps, capsules, predictions) are given as a path
(``str`` or ``os.PathLike``), JSON text (a ``str`` whose first non-blank character is
``{`` or ``[``), ``bytes``, or a ``dict``. ``packs`` is a folder of pack folders or one
pack folder (default: ``fixtures/packs`` under the working directory, as the CLI).

Results are dicts in the documented formats (docs/FORMATS.md in the repository), of the
subclass :class:`Report`, which a notebook shows as a table. Tables (``audit``, ``init``)
are pandas or polars DataFrames, pyarrow Tables or CSV paths, read one way
(:func:`csv_bytes`); columns (``metrics``) are any of theirs, numpy arrays or lists.
Verdicts are never exceptions: a malformed or forged payload gets a REJECTED report. Errors
(a file that cannot be read, an invalid pack or experiment, a bad argument) raise
:class:`counterlab.Error` or one of its subclasses, whose message names the file, row,
column or JSON path, also given as the attributes ``path``, ``row``, ``column`` and
``json_path``.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import (
    KERNEL_VERSION,
    VERIFIER_VERSION,
    DataError,
    Error,
    ExperimentError,
    IoError,
    OverBudgetError,
    PackError,
    UnknownPackError,
    UsageError,
)

from . import _arguments as _args
from . import _frames
from ._report import Report, report as _report
from ._sklearn import from_sklearn

__version__: str = _native.CRATE_VERSION

__all__ = [
    "run",
    "verify",
    "verify_revision",
    "metrics",
    "audit",
    "init",
    "csv_bytes",
    "boundary",
    "transfer",
    "select",
    "build_capsule",
    "from_sklearn",
    "Error",
    "IoError",
    "PackError",
    "DataError",
    "ExperimentError",
    "UnknownPackError",
    "OverBudgetError",
    "UsageError",
    "PackWarning",
    "Report",
    "KERNEL_VERSION",
    "VERIFIER_VERSION",
]

#: A document: a path, JSON text, bytes or a dict.
Document = Union[str, "os.PathLike[str]", bytes, Mapping[str, Any]]
PathLike = Union[str, "os.PathLike[str]"]


class PackWarning(UserWarning):
    """Something that can change a pack's meaning (``counterlab pack check``), found by ``run``."""


_error = _args.error


def _json_value(value: Any) -> Any:
    """numpy scalars and arrays in a dict, as their Python values (json.dumps' default)."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _document(value: Any, what: str) -> Union[bytes, Path]:
    """A document as bytes (JSON text, bytes, dict) or a path to read in Rust."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, Mapping):
        return _dict_json(value, what)
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        # Lone surrogates cannot be UTF-8: kept as bytes that are not, so the verifier
        # says what a file with them would get.
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (str, os.PathLike)):
        if isinstance(value, str) and not value.strip():
            raise _error(UsageError, f"{what}: an empty path (give a file, JSON text, bytes or a dict)")
        return _args.path(value, what)
    raise _error(
        UsageError,
        f"{what}: expected a path, JSON text, bytes or a dict, found {type(value).__name__}",
    )


def _dict_json(value: Mapping, what: str) -> bytes:
    """A dict as JSON bytes. Non-finite floats are written as NaN/Infinity, which is not
    JSON: the verifier then rejects the payload as malformed, as it would the same file."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True, default=_json_value)
    except (TypeError, ValueError) as e:
        raise _error(UsageError, f"{what}: the dict cannot be written as JSON: {e}") from None
    except RecursionError:
        raise _error(UsageError, f"{what}: the dict is nested too deeply to be written as JSON") from None
    return text.encode("utf-8", "surrogatepass")


_U64 = 2**64 - 1

# The table budgets' ranges (the CLI's --max-fixture-bytes, --max-columns, --max-rows).
_MAX_FIXTURE_BYTES = 2**32 - 1
_MAX_COLUMNS = 2**20
_MAX_ROWS = 2**32 - 1


def _budgets(max_fixture_bytes: Any, max_columns: Any, max_rows: Any) -> dict:
    """The table budgets given, checked against their ranges, as keyword arguments of the
    native functions."""
    return {
        "max_fixture_bytes": _args.integer(max_fixture_bytes, "max_fixture_bytes", 1, _MAX_FIXTURE_BYTES),
        "max_columns": _args.integer(max_columns, "max_columns", 1, _MAX_COLUMNS),
        "max_rows": _args.integer(max_rows, "max_rows", 1, _MAX_ROWS),
    }


_MAX_THREADS_ASKED = 2**32  # more than 64 are used as 64 (docs/VERDICTS.md)


def _threads(threads: Any) -> Optional[int]:
    return _args.integer(threads, "threads", 1, _MAX_THREADS_ASKED)


def _pack_id(pack: Any) -> str:
    if not isinstance(pack, str):
        raise _error(UsageError, f"pack: expected a pack id (str), found {type(pack).__name__}")
    return _args.text(pack, "pack")


def _packs(packs: Optional[PathLike]) -> Optional[Path]:
    if packs is not None and not isinstance(packs, (str, os.PathLike)):
        raise _error(UsageError, f"packs: expected a folder path, found {type(packs).__name__}")
    return _args.optional_path(packs, "packs")


def _paths(values: Sequence[PathLike], what: str) -> list:
    if isinstance(values, (str, bytes, os.PathLike)):
        raise _error(UsageError, f"{what}: expected a list of paths, found one {type(values).__name__}")
    return [_args.path(v, f"{what}[{i}]") for i, v in enumerate(values)]


def run(
    experiment: Document,
    *,
    packs: Optional[PathLike] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Run an experiment on its pack and return the payload (results and hashes).

    The same as ``counterlab run EXPERIMENT.json``: ``payload["result_hash"]`` is the hash
    the CLI writes. Pack findings (label levels, entity ids that collide, …) are issued as
    :class:`PackWarning`.

    Args:
        experiment: the experiment (``counterlab.experiment/1``) as a path, JSON text,
            bytes or dict.
        packs: a folder of pack folders, or one pack folder (default ``fixtures/packs``).
        threads: worker threads, at least 1 (results are identical for any number).
        max_fixture_bytes, max_columns, max_rows: the pack's table budgets (default
            33554432 bytes, 1024 columns, 1000000 rows), as the CLI's --max-fixture-bytes,
            --max-columns, --max-rows.

    Raises:
        ExperimentError: the experiment is invalid (``json_path`` says where).
        IoError, PackError, DataError, UnknownPackError: the pack cannot be used.
    """
    text, problems = _native.run(
        _document(experiment, "experiment"),
        _packs(packs),
        _threads(threads),
        **_budgets(max_fixture_bytes, max_columns, max_rows),
    )
    for problem in problems:
        warnings.warn(problem, PackWarning, stacklevel=2)
    return _report(text)


def verify(
    document: Document,
    *,
    packs: Optional[PathLike] = None,
    permutations: Optional[int] = None,
    observe: bool = False,
    seed: Optional[int] = None,
    alpha: Optional[float] = None,
    max_payload_bytes: Optional[int] = None,
    max_work: Optional[int] = None,
    threads: Optional[int] = None,
    max_design_bytes: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Verify a payload, a boundary map or a Proof Capsule and return the report.

    The verifier recomputes every number, re-runs the experiment under label and row-order
    mutations, and answers in ``report["verdict"]``: ``SUPPORTS``, ``INCONCLUSIVE`` or
    ``REJECTED``. The report is ``counterlab.report/1`` (``counterlab.capsule-report/1``
    for a capsule) with the ``report_hash`` (``capsule_report_hash``) that
    ``counterlab verify --json`` prints for the same input and options.

    A malformed, forged or over-budget document is not an error: it gets a REJECTED (or
    INCONCLUSIVE) report saying why. Only what stops the verifier from looking raises.

    A capsule is re-verified with the options it records (its ``options``), so that it
    answers the same from itself alone: ``permutations``, ``seed``, ``alpha``,
    ``max_payload_bytes``, ``max_work``, ``max_design_bytes`` and the table budgets cannot
    be given for one (``UsageError``).

    Args:
        document: the payload, map or capsule as a path, JSON text, bytes or dict.
        packs: a folder of pack folders, or one pack folder (default ``fixtures/packs``).
            Only the packs the document names are loaded.
        permutations: label permutations K for the claim's p-value, 0 to 100000 (default 199).
        observe: observe mode (recorded in the report; the CLI then exits 0 whatever the verdict).
        seed: seed of every mutation, any u64 (default 0).
        alpha: significance level, 0 < alpha <= 0.1 (default 0.05).
        max_payload_bytes: largest document accepted, 1 to 16777216 (default 1048576).
        max_work: largest work in fit units (default 1e10).
        threads: worker threads, at least 1 (the report is identical for any number).
        max_design_bytes: largest prepared designs counted by budget.work, in bytes
            (default 536870912, or the pack's [verify] max_design_bytes when larger).
        max_fixture_bytes, max_columns, max_rows: the pack's table budgets (default
            33554432 bytes, 1024 columns, 1000000 rows), as the CLI's --max-fixture-bytes,
            --max-columns, --max-rows.

    Raises:
        IoError: the file cannot be read, or there is no packs folder.
        UsageError: an option is out of its range, or given for a capsule.
    """
    text = _native.verify(
        _document(document, "document"),
        _packs(packs),
        _args.integer(permutations, "permutations", 0, 100_000),
        _args.flag(observe, "observe"),
        _args.integer(seed, "seed", 0, _U64),
        None if alpha is None else _args.real(alpha, "alpha"),
        _args.integer(max_payload_bytes, "max_payload_bytes", 1, 16 << 20),
        _args.integer(max_work, "max_work", 0, _U64),
        _threads(threads),
        max_design_bytes=_args.integer(max_design_bytes, "max_design_bytes", 0, _U64),
        **_budgets(max_fixture_bytes, max_columns, max_rows),
    )
    return _report(text)


def verify_revision(
    payloads: Sequence[Document],
    *,
    packs: Optional[PathLike] = None,
    permutations: Optional[int] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Check a revision chain (before, after[, after2]) as ``counterlab verify-revision``.

    At most two revisions, each changing the evaluation design and not only the claim;
    then the last payload's verification. Returns ``counterlab.revision/1``.
    """
    if isinstance(payloads, (str, bytes, Mapping, os.PathLike)):
        raise _error(UsageError, "payloads: expected a list of 2 or 3 payloads")
    documents = [_document(p, f"payloads[{i}]") for i, p in enumerate(payloads)]
    return _report(
        _native.verify_revision(
            documents,
            _packs(packs),
            _args.integer(permutations, "permutations", 0, 100_000),
            _threads(threads),
            **_budgets(max_fixture_bytes, max_columns, max_rows),
        )
    )


def _is_missing(value: Any) -> bool:
    """None, a float NaN, a Decimal NaN, pandas' NA or NaT."""
    import decimal

    return (
        value is None
        or (isinstance(value, float) and value != value)
        or (isinstance(value, decimal.Decimal) and value.is_nan())
        or type(value).__name__ in ("NAType", "NaTType")
    )


def _missing_at(values: Any, what: str) -> None:
    """A DataError at the first missing value (None, NaN, pandas' NA or NaT), if any: a
    missing label or entity is never silently a negative or one more entity."""
    import numpy as np

    if values.dtype.kind in "fc":
        missing = np.isnan(values)
    elif values.dtype.kind in "mM":
        missing = np.isnat(values)
    elif values.dtype.kind == "O":
        missing = np.fromiter(map(_is_missing, values.tolist()), dtype=bool, count=len(values))
    else:
        return
    if missing.any():
        at = int(np.argmax(missing))
        raise _error(
            DataError,
            f"{what}[{at}] is missing ({_args.shown(values[at : at + 1].tolist()[0])}): every row needs a value; drop or fill the row first",
            column=what,
            row=at + 1,
        )


def _column(values: Any, what: str) -> Any:
    """A 1-D array of a column's values, from a numpy array, a pandas, polars or pyarrow
    column (Series, Array, ChunkedArray) or a list. Arrays keep their dtype; a column with
    nulls, and a list, become object arrays, so that a None or NaN among texts stays
    missing (numpy would write it as the text 'nan')."""
    import numpy as np

    library = _frames.library_of(values)
    if library == "polars" and hasattr(values, "null_count"):
        values = values.to_list() if values.null_count() else values.to_numpy()
    elif library == "pyarrow" and hasattr(values, "to_pylist"):
        values = values.to_pylist() if values.null_count else values.to_numpy(zero_copy_only=False)
    if isinstance(values, (Mapping, str, bytes)) or values is None:
        raise _error(UsageError, f"{what}: expected a column of values, found {type(values).__name__}")
    if hasattr(values, "dtype") and hasattr(values, "__array__"):
        array = np.asarray(values)
    else:
        try:
            array = np.fromiter(values, dtype=object)
        except TypeError:
            raise _error(UsageError, f"{what}: expected a column of values, found {type(values).__name__}") from None
    if array.ndim != 1:
        raise _error(UsageError, f"{what}: expected one value per row (1-D), found shape {array.shape}")
    if array.dtype.kind == "O":
        _one_value_per_cell(array, what)
    return array


def _one_value_per_cell(values: Any, what: str) -> None:
    """A UsageError at the first cell that holds several values (a list, an array)."""
    for at, value in enumerate(values.tolist()):
        if hasattr(value, "__len__") and not isinstance(value, (str, bytes)):
            raise _error(
                UsageError,
                f"{what}[{at}]: expected one value per row, found a {type(value).__name__}",
                column=what,
                row=at + 1,
            )


def _equal_to(values: Any, value: Any, what: str) -> Any:
    """``values == value`` row by row, as a boolean array."""
    import numpy as np

    try:
        equal = values == value
    except Exception:  # a Decimal sNaN raises on comparison; say which row below
        equal = None
    if isinstance(equal, np.ndarray) and equal.shape == values.shape:
        return equal
    # numpy could not compare elementwise (mixed types): compare one by one.
    out = np.empty(len(values), dtype=bool)
    for at, cell in enumerate(values.tolist()):
        try:
            out[at] = bool(cell == value)
        except Exception as e:
            raise _error(
                UsageError,
                f"{what}[{at}] ({_args.shown(cell)}) cannot be compared with positive={_args.shown(value)} "
                f"({type(e).__name__})",
                column=what,
                row=at + 1,
            ) from None
    return out


def _labels(y_true: Any, positive: Any, one_vs_rest: bool) -> Any:
    import numpy as np

    values = _column(y_true, "y_true")
    _missing_at(values, "y_true")
    equal = _equal_to(values, positive, "y_true")

    def seen() -> str:
        # The first 11 distinct values over the whole column (an error path: a loop is fine).
        shown: set = set()
        for v in values.tolist():
            shown.add(_args.shown(v))
            if len(shown) > 10:
                break
        listed = sorted(shown)
        return ", ".join(listed[:10]) + (", …" if len(listed) > 10 else "")

    if len(values) and not equal.any():
        raise _error(
            DataError,
            f"y_true: no value equals positive={_args.shown(positive)}; the values seen: {seen()}. "
            "Pass the positive class as it appears in y_true (positive=...)",
            column="y_true",
        )
    # With the positive class present, a second value among the rest is a third class.
    rest = values[~equal]
    if not one_vs_rest and len(rest) and not _equal_to(rest, rest[0], "y_true").all():
        raise _error(
            DataError,
            f"y_true: more than two classes where two were expected; the values seen: {seen()}. "
            f"Pass one_vs_rest=True to read positive={_args.shown(positive)} against all the others",
            column="y_true",
        )
    return np.ascontiguousarray(equal, dtype=np.uint8)


def _scores(y: Any, what: str) -> Any:
    import numpy as np

    values = _column(y, what)
    if values.dtype.kind in "mM":
        raise _error(UsageError, f"{what}: expected numbers, found {values.dtype} values")
    if values.dtype.kind == "O":
        # None and pandas' NA are missing; a NaN is a number the kernel refuses by name.
        missing = [v is None or type(v).__name__ in ("NAType", "NaTType") for v in values.tolist()]
        if any(missing):
            _missing_at(values[: missing.index(True) + 1], what)
    try:
        return np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError, ArithmeticError):  # ArithmeticError: 10**400, Decimal
        raise _not_a_score(values, what) from None


def _not_a_score(values: Any, what: str) -> Error:
    """A UsageError at the first cell that is not a float (text, 10**400, Decimal('sNaN'))."""
    for at, value in enumerate(values.tolist()):
        try:
            float(value)
        except (TypeError, ValueError, ArithmeticError) as e:
            return _error(
                UsageError,
                f"{what}: expected numbers; {what}[{at}] is {_args.shown(value)} ({e})",
                column=what,
                row=at + 1,
            )
    return _error(UsageError, f"{what}: expected numbers")


def _entity_ids(entity: Any) -> List[str]:
    """Entity ids as text (``str(v)``); one that is not Unicode text is a DataError."""
    ids = _column(entity, "entity")
    _missing_at(ids, "entity")
    texts = [str(v) for v in ids.tolist()]
    for at, text in enumerate(texts):
        if _args.text_is_not_unicode(text):
            raise _error(
                DataError,
                f"entity[{at}] ({_args.shown(text)}) is not Unicode text (a lone surrogate)",
                column="entity",
                row=at + 1,
            )
    return texts


def metrics(
    y_true: Any,
    y_score: Any,
    *,
    positive: Any = 1,
    threshold: float = 0.5,
    entity: Any = None,
    y_score2: Any = None,
    one_vs_rest: bool = False,
) -> Report:
    """Accuracy, ROC AUC with its interval and counts for scored rows, as ``counterlab metrics``.

    Args:
        y_true: labels, one per row: a numpy array, a list, or a column of pandas
            (Series), polars (Series) or pyarrow (Array, ChunkedArray).
        y_score: scores, finite, higher = more positive (the same kinds of column).
        positive: the label of the positive class (compared with ``==``; default 1).
        threshold: predicted positive iff score >= threshold (default 0.5).
        entity: an entity per row (a patient, a customer): the AUC's interval becomes
            Obuchowski's clustered one. Ids are compared as text (``str(v)``).
        y_score2: a second score of the same rows: ``result["paired"]`` compares the two
            AUCs by the paired DeLong test (pROC's ``roc.test(paired = TRUE)``), clustered
            with ``entity``. Its interval holds the two scores fixed
            (``conditional_on == "given_scores"``): another fit or fold assignment would
            score the rows differently, and the interval leaves that out.
        one_vs_rest: read more than two classes as ``positive`` against all the others.
            Without it, a third class is a ``DataError``.

    Returns:
        The ``counterlab metrics --json`` object: ``n``, ``n_pos``, ``n_neg``, ``accuracy``,
        ``balanced_accuracy``, ``majority_baseline_accuracy``, ``roc_auc``, ``roc_auc_ci``,
        ``roc_auc_se``, ``roc_auc_interval`` (``undefined`` says why when AUC is undefined),
        ``n_entities`` and ``entity_collisions`` with ``entity`` (groups of entity ids
        that look alike, ``{"count", "first"}``: one entity written two ways is two
        clusters to the interval, which is then too narrow), ``paired`` with
        ``y_score2``.

    Raises:
        UsageError: arrays of different lengths, non-finite scores, not 1-D, a cell that
            is not one number, a threshold that is not a finite number.
        DataError: a missing label, score or entity; no label equals ``positive``; more
            than two classes without ``one_vs_rest``.
    """
    one_vs_rest = _args.flag(one_vs_rest, "one_vs_rest")
    labels = _labels(y_true, positive, one_vs_rest)
    scores = _scores(y_score, "y_score")
    scores2 = None if y_score2 is None else _scores(y_score2, "y_score2")
    entities = None if entity is None else _entity_ids(entity)
    threshold = _args.real(threshold, "threshold")
    positive_text = _args.text(str(positive), "positive")
    return _report(_native.metrics(labels, scores, scores2, entities, threshold, positive_text))


def csv_bytes(data: Any) -> bytes:
    """A pandas or polars DataFrame, or a pyarrow Table or RecordBatch, as the CSV bytes
    that ``audit`` and ``init`` read (and ``init`` writes as the pack's fixture).

    One conversion for every library, from the typed values, so the three versions of a
    table give the same bytes: missing values (None, NaN, NA, null) as empty cells,
    integers as integers, floats by ``repr`` (they parse back to the same float),
    booleans as ``true``/``false``, dates by ``isoformat()``, text as it is (quoted when it
    holds a comma, a quote or a newline; a carriage return is a ``DataError``). Duplicate
    column names are a ``UsageError`` naming them. docs/PYTHON.md, "Frames".
    """
    if not _frames.is_frame(data):
        raise _error(UsageError, f"data: expected a DataFrame, Table or RecordBatch, found {type(data).__name__}")
    return _frames.frame_csv(data, _FRAME)


#: How messages name a frame given as data (the path attribute of its errors).
_FRAME = "DataFrame"

#: The command line's flags of audit and init, by the name of the Python argument.
def _table(data: Any) -> Tuple[Union[bytes, Path], str]:
    """A frame as its CSV bytes (named ``DataFrame`` in messages), or a CSV path to read
    in Rust as the CLI reads it (regular files only, within the byte budget)."""
    if _frames.is_frame(data):
        return _frames.frame_csv(data, _FRAME), _FRAME
    if isinstance(data, (str, os.PathLike)):
        path = _args.path(data, "data")
        return path, str(path)
    raise _error(
        UsageError,
        f"data: expected a pandas or polars DataFrame, a pyarrow Table or RecordBatch, or a CSV path, found {type(data).__name__}",
    )


def _positive(positive: Any) -> str:
    """The positive label as the CSV cell it matches (``True`` is ``true``, ``1`` is ``1``)."""
    text = _frames.cell_text(positive)
    if text is None:
        raise _error(UsageError, f"positive: expected a label value (text, a number or a bool), found {_args.shown(positive)}")
    return _args.text(text, "positive")


def _entities(entity: Any) -> Tuple[str, List[str]]:
    """The entity column, and further entity columns when a list is given."""
    if isinstance(entity, str):
        return _args.text(entity, "entity"), []
    if isinstance(entity, (list, tuple)) and entity:
        columns = _args.names(entity, "entity")
        return columns[0], columns[1:]
    raise _error(
        UsageError,
        f"entity: expected a column name (str) or a non-empty list of them, found {_args.shown(entity)}",
    )


def _time_kind(value: Any) -> Optional[str]:
    if value is None:
        return None
    if value not in ("calendar", "order_within_entity"):
        raise _error(
            UsageError,
            f"time_kind: expected \"calendar\" or \"order_within_entity\", found {_args.shown(value)}",
        )
    return str(value)


def audit(
    data: Any,
    *,
    entity: Union[str, Sequence[str]],
    label: str,
    positive: Any,
    test: str,
    time: Optional[str] = None,
    time_kind: Optional[str] = None,
    threads: Optional[int] = None,
    out: Optional[PathLike] = None,
    seed: int = 1,
    margin: Optional[float] = None,
    model: str = "logistic",
    missing_values: Optional[Sequence[str]] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
    keep: Sequence[str] = (),
    drop: Sequence[str] = (),
    features: Optional[Sequence[str]] = None,
) -> Report:
    """Check your own train/test split for leakage, as ``counterlab audit``; no pack needed.

    Reports entities on both sides, test rows whose entity is in training, temporal
    overlap (with ``time``), duplicate feature rows, and how much the split inflates ROC
    AUC against an entity-grouped split of the same share of rows (a ``metric_gap`` claim
    the verifier decides, with its interval and p-value).

    Args:
        data: a pandas or polars DataFrame, a pyarrow Table or RecordBatch (read as the
            CSV bytes of :func:`csv_bytes`: the three give the same audit), or the path of
            a CSV file. Text columns are categorical features.
        entity: the entity column, or a list of entity columns: the first is the entity,
            the others (a coarser level it nests in, or a crossed one) are audited too.
        label: the label column.
        positive: the positive label (``True`` matches a boolean column's ``true``).
        test: the 0/1 (or false/true) column marking your test rows.
        time: an integer time column (adds the temporal-overlap check).
        time_kind: what ``time`` measures: ``"calendar"`` (one clock for everyone) or
            ``"order_within_entity"`` (a visit number); default: guessed from its name.
        threads: worker threads, at least 1.
        out: a new or empty folder to write the audit's pack and payload
            (``audit.payload.json``) into, for ``counterlab.verify``.
        seed: the seed of the entity-grouped comparison's fold draws (it is repeated
            entity-grouped folds of about your test share, drawn 5 times).
        margin: a materiality margin on the ROC AUC gap (e.g. 0.02), above 0 and at most
            0.1 (the materiality ceiling of ROC AUC: a wider margin says nothing material):
            ``result["auc"]["decision"]`` is then ``material_leak``, ``no_material_leak``
            or ``undecided`` by the verifier's interval.
        model: the model of both sides of the comparison: ``"logistic"`` (C = 1) or
            ``"gbdt"`` (gradient-boosted trees with scikit-learn's defaults).
        missing_values: the texts read as a missing value besides the empty cell (default:
            NA, nan, NULL, N/A, <NA>, NaT, #N/A), as the CLI's --missing-values.
        max_fixture_bytes, max_columns, max_rows: the table budgets (default 33554432
            bytes, 1024 columns, 1000000 rows), as the CLI's --max-fixture-bytes,
            --max-columns, --max-rows; over one, an OverBudgetError names the argument and
            a value that passes.
        keep: columns kept as features although the audit would leave them out as
            suspect (as :func:`init`).
        drop: columns left out of the features (another split column, say), as
            :func:`init`.
        features: exactly these columns as the model's features, in this order (as
            :func:`init`). ``result["features"]`` lists the features used.

    Returns:
        ``counterlab.audit/1``; ``result["leak"]`` is True for every leak the CLI exits 1
        on: an entity on both sides, a look-alike id, (with ``time``) a test row not
        after training, more duplicate feature rows than an honest split gives, or (with
        ``margin``) a ``material_leak`` decision.

    Raises:
        DataError: a cell cannot be used (``row`` is 1-based: DataFrame row ``row - 1``).
        UsageError: an argument of the wrong kind; duplicate column names in a frame.
    """
    source, name = _table(data)
    first, more = _entities(entity)
    text = _native.audit(
        source,
        name,
        first,
        _args.text(label, "label"),
        _positive(positive),
        _args.text(test, "test"),
        _args.optional_text(time, "time"),
        _threads(threads),
        _args.optional_path(out, "out"),
        _args.integer(seed, "seed", 0, _U64),
        None if margin is None else _margin(margin),
        _time_kind(time_kind),
        more,
        _model(model),
        _missing_values(missing_values),
        keep=_args.names(keep, "keep"),
        drop=_args.names(drop, "drop"),
        features=None if features is None else _args.names(features, "features"),
        **_budgets(max_fixture_bytes, max_columns, max_rows),
    )
    return _report(text)


def _model(value: Any) -> str:
    """A model family by name: ``"logistic"`` or ``"gbdt"``."""
    if value not in ("logistic", "gbdt"):
        raise _error(UsageError, f"model: expected \"logistic\" or \"gbdt\", found {_args.shown(value)}")
    return str(value)


def _margin(value: Any) -> float:
    """audit's materiality margin: a real number (its range, (0, 0.1], is checked by the
    library, whose message says why)."""
    return _args.real(value, "margin")


def _missing_values(value: Any) -> Optional[str]:
    """The texts read as missing, as the library reads the CLI's --missing-values (comma-
    separated)."""
    if value is None:
        return None
    texts = _args.names(value, "missing_values") if not isinstance(value, str) else None
    if texts is None:
        raise _error(UsageError, f"missing_values: expected a list of texts, found {type(value).__name__}")
    if any("," in t for t in texts):
        raise _error(UsageError, "missing_values: a text holds a comma, which the list cannot carry")
    return ",".join(texts)


def init(
    data: Any,
    *,
    entity: str,
    label: str,
    positive: Any,
    out: PathLike,
    time: Optional[str] = None,
    time_kind: Optional[str] = None,
    test: Optional[str] = None,
    id: Optional[str] = None,
    keep: Sequence[str] = (),
    drop: Sequence[str] = (),
    features: Optional[Sequence[str]] = None,
    model: str = "logistic",
    missing_values: Optional[Sequence[str]] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Write a pack folder for your data, as ``counterlab init``: ``pack.toml`` with the
    fixture's hash, the data as the fixture, every usable column as a feature (text columns
    categorical) and starter experiments that ``run`` accepts with no edit.

    Args:
        data: a pandas or polars DataFrame, a pyarrow Table or RecordBatch (written as
            ``data.csv``, the bytes of :func:`csv_bytes`), or the path of a CSV file
            (copied under its own name).
        entity, label: the entity and label columns.
        positive: the positive label (``True`` matches a boolean column's ``true``).
        out: the folder to create; it must not exist or be empty (init never overwrites).
        time: an integer time column (adds the rolling-origin starter experiment).
        time_kind: ``"calendar"`` or ``"order_within_entity"`` (default: guessed from the
            column's name).
        test: a 0/1 column marking your own test rows (adds the predefined-split starter).
        id: the pack id (default: from the file name; ``data`` for a frame).
        keep: columns kept as features although init would leave them out as suspect.
        drop: columns left out of the features.
        features: exactly these columns as features, in this order.
        model: the starter experiments' model: ``"logistic"`` (C = 1) or ``"gbdt"``
            (gradient-boosted trees with scikit-learn's defaults).
        missing_values: the texts read as a missing value besides the empty cell, as the
            CLI's --missing-values.
        max_fixture_bytes, max_columns, max_rows: the table budgets (default 33554432
            bytes, 1024 columns, 1000000 rows), as the CLI's --max-fixture-bytes,
            --max-columns, --max-rows; over one, an OverBudgetError names the argument and
            a value that passes. A pack that needs more than the defaults needs them in
            every later call: ``budgets`` and ``next`` carry them.

    Returns:
        ``id``, ``out``, ``fixture_file``; ``columns`` (each column's ``use``: a role,
        ``numeric``, ``categorical`` with its ``levels``, or ``not used`` with ``why``);
        ``notes`` and ``problems`` (what ``pack check`` reports); ``files`` written;
        ``next``: the Python calls that run and verify each starter, and ``cli``: the
        same as command lines.

    Raises:
        DataError: a cell or column cannot be used. UsageError: an argument of the wrong
        kind, or ``out`` is not a new or empty folder.
    """
    source, name = _table(data)
    if isinstance(source, bytes):
        name = "data.csv"
    folder = _args.path(out, "out")
    if not _folder_is_free(folder):
        raise _error(UsageError, f"out: {folder} exists and is not an empty folder: give a new folder (init never overwrites)")
    text = _native.init(
        source,
        name,
        _args.text(entity, "entity"),
        _args.text(label, "label"),
        _positive(positive),
        folder,
        _args.optional_text(time, "time"),
        _time_kind(time_kind),
        _args.optional_text(test, "test"),
        _args.optional_text(id, "id"),
        _args.names(keep, "keep"),
        _args.names(drop, "drop"),
        None if features is None else _args.names(features, "features"),
        _model(model),
        _missing_values(missing_values),
        **_budgets(max_fixture_bytes, max_columns, max_rows),
    )
    return _init_report(_report(text))


def _folder_is_free(folder: Path) -> bool:
    """As the library's pack_folder::is_free: absent, or an empty folder."""
    if not folder.exists():
        return True
    try:
        return folder.is_dir() and not any(folder.iterdir())
    except OSError:
        return False


def _init_report(result: Report) -> Report:
    """init's answer with ``next``: the Python calls that check nothing by hand — run each
    starter and verify its payload — beside the CLI's lines (``cli``)."""
    packs = result["out"]
    # The table budgets the pack needs above the defaults, so that the calls run as written.
    budgets = "".join(f", {name}={value}" for name, value in result["budgets"].items())
    calls = []
    for step in result["next_steps"]:
        calls.append(f"payload = counterlab.run({step['experiment']!r}, packs={packs!r}{budgets})")
        calls.append(f"counterlab.verify(payload, packs={packs!r}{budgets})")
    order = ("id", "out", "fixture_file", "columns", "notes", "problems", "files", "budgets")
    ordered = Report((key, result[key]) for key in order)
    ordered["next"] = calls
    ordered["cli"] = result["cli"]
    return ordered


def boundary(
    pack: str,
    *,
    packs: Optional[PathLike] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """A pack's boundary map (``counterlab.boundary/1``): the claim's outcome in every cell
    of its sweep. ``verify(map)`` recomputes it. The table budgets are those of
    :func:`run`."""
    return _report(
        _native.boundary(
            _pack_id(pack),
            _packs(packs),
            _threads(threads),
            **_budgets(max_fixture_bytes, max_columns, max_rows),
        )
    )


def transfer(
    pack: str,
    choice: str,
    *,
    packs: Optional[PathLike] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Score a choice in a pack's transfer task with the fixed evaluator
    (``counterlab.transfer/1``; ``result["answer"]["correct"]``)."""
    if not isinstance(choice, str):
        raise _error(UsageError, f"choice: expected a choice id (str), found {type(choice).__name__}")
    return _report(
        _native.transfer(
            _pack_id(pack),
            _args.text(choice, "choice"),
            _packs(packs),
            _threads(threads),
            **_budgets(max_fixture_bytes, max_columns, max_rows),
        )
    )


def select(
    prediction: Document,
    candidates: Sequence[PathLike] = (),
    *,
    packs: Optional[PathLike] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """The fixed selector (``counterlab.selection/1``): which candidate experiment runs for
    a prediction, by closed rules, with its derived seed. Without candidates, the pack's
    registered experiments are the candidates."""
    return _report(
        _native.select(
            _document(prediction, "prediction"),
            _paths(candidates, "candidates"),
            _packs(packs),
            **_budgets(max_fixture_bytes, max_columns, max_rows),
        )
    )


def build_capsule(
    prediction: Document,
    candidates: Sequence[PathLike] = (),
    *,
    revisions: Sequence[Document] = (),
    boundary: bool = False,
    packs: Optional[PathLike] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Report:
    """Build a Proof Capsule (``counterlab.capsule/1``), as ``counterlab capsule build``:
    the prediction, the selection, the selected experiment run with its derived seed, its
    verification, optional revisions and boundary map. ``verify(capsule)`` re-derives
    every link."""
    if isinstance(revisions, (str, bytes, Mapping, os.PathLike)):
        raise _error(UsageError, "revisions: expected a list of payloads")
    return _report(
        _native.build_capsule(
            _document(prediction, "prediction"),
            _paths(candidates, "candidates"),
            [_document(r, f"revisions[{i}]") for i, r in enumerate(revisions)],
            _args.flag(boundary, "boundary"),
            _packs(packs),
            _threads(threads),
            **_budgets(max_fixture_bytes, max_columns, max_rows),
        )
    )
