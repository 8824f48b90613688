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

Results are plain dicts in the documented formats (docs/FORMATS.md in the repository).
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
from typing import Any, Dict, Mapping, Optional, Sequence, Union

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

__version__: str = _native.CRATE_VERSION

__all__ = [
    "run",
    "verify",
    "verify_revision",
    "metrics",
    "audit",
    "boundary",
    "transfer",
    "select",
    "build_capsule",
    "Error",
    "IoError",
    "PackError",
    "DataError",
    "ExperimentError",
    "UnknownPackError",
    "OverBudgetError",
    "UsageError",
    "PackWarning",
    "KERNEL_VERSION",
    "VERIFIER_VERSION",
]

#: A document: a path, JSON text, bytes or a dict.
Document = Union[str, "os.PathLike[str]", bytes, Mapping[str, Any]]
PathLike = Union[str, "os.PathLike[str]"]


class PackWarning(UserWarning):
    """Something that can change a pack's meaning (``counterlab pack check``), found by ``run``."""


def _error(cls: type, message: str, **where: Any) -> Error:
    """An exception of the family with its attributes (path, row, column, json_path)."""
    err = cls(message)
    for name, value in where.items():
        setattr(err, name, value)
    return err


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
        # Non-finite floats are written as NaN/Infinity, which is not JSON: the verifier
        # then rejects the payload as malformed, as it would the same file.
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=True, default=_json_value)
        except (TypeError, ValueError) as e:
            raise _error(UsageError, f"{what}: the dict cannot be written as JSON: {e}") from None
        # Lone surrogates cannot be UTF-8: kept as bytes that are not, so the verifier
        # says what a file with them would get.
        return text.encode("utf-8", "surrogatepass")
    if isinstance(value, str):
        if value.lstrip().startswith(("{", "[")):
            return value.encode("utf-8", "surrogatepass")
        if not value.strip():
            raise _error(UsageError, f"{what}: an empty path (give a file, JSON text, bytes or a dict)")
        return Path(value)
    if isinstance(value, os.PathLike):
        return Path(os.fspath(value))
    raise _error(
        UsageError,
        f"{what}: expected a path, JSON text, bytes or a dict, found {type(value).__name__}",
    )


def _integer(value: Any, name: str, low: int, high: int) -> Optional[int]:
    """An optional integer option in [low, high] (bool is not an integer here)."""
    import numbers

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _error(UsageError, f"{name}: expected an integer, found {type(value).__name__}")
    if not low <= int(value) <= high:
        raise _error(UsageError, f"{name} must lie in {low}..={high}, found {value}")
    return int(value)


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise _error(UsageError, f"{name}: expected True or False, found {type(value).__name__}")
    return value


_U64 = 2**64 - 1
_MAX_THREADS_ASKED = 2**32  # more than 64 are used as 64 (docs/VERDICTS.md)


def _threads(threads: Any) -> Optional[int]:
    return _integer(threads, "threads", 1, _MAX_THREADS_ASKED)


def _pack_id(pack: Any) -> str:
    if not isinstance(pack, str):
        raise _error(UsageError, f"pack: expected a pack id (str), found {type(pack).__name__}")
    return pack


def _packs(packs: Optional[PathLike]) -> Optional[Path]:
    if packs is None:
        return None
    if isinstance(packs, (str, os.PathLike)):
        return Path(os.fspath(packs))
    raise _error(UsageError, f"packs: expected a folder path, found {type(packs).__name__}")


def _paths(values: Sequence[PathLike], what: str) -> list:
    if isinstance(values, (str, bytes, os.PathLike)):
        raise _error(UsageError, f"{what}: expected a list of paths, found one {type(values).__name__}")
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, (str, os.PathLike)):
            raise _error(UsageError, f"{what}[{i}]: expected a path, found {type(v).__name__}")
        out.append(Path(os.fspath(v)))
    return out


def run(
    experiment: Document,
    *,
    packs: Optional[PathLike] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """Run an experiment on its pack and return the payload (results and hashes).

    The same as ``counterlab run EXPERIMENT.json``: ``payload["result_hash"]`` is the hash
    the CLI writes. Pack findings (label levels, entity ids that collide, …) are issued as
    :class:`PackWarning`.

    Args:
        experiment: the experiment (``counterlab.experiment/1``) as a path, JSON text,
            bytes or dict.
        packs: a folder of pack folders, or one pack folder (default ``fixtures/packs``).
        threads: worker threads, at least 1 (results are identical for any number).

    Raises:
        ExperimentError: the experiment is invalid (``json_path`` says where).
        IoError, PackError, DataError, UnknownPackError: the pack cannot be used.
    """
    text, problems = _native.run(_document(experiment, "experiment"), _packs(packs), _threads(threads))
    for problem in problems:
        warnings.warn(problem, PackWarning, stacklevel=2)
    return json.loads(text)


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
) -> Dict[str, Any]:
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
    ``max_payload_bytes`` and ``max_work`` cannot be given for one (``UsageError``).

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

    Raises:
        IoError: the file cannot be read, or there is no packs folder.
        UsageError: an option is out of its range, or given for a capsule.
    """
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))):
        raise _error(UsageError, f"alpha: expected a number, found {type(alpha).__name__}")
    text = _native.verify(
        _document(document, "document"),
        _packs(packs),
        _integer(permutations, "permutations", 0, 100_000),
        _flag(observe, "observe"),
        _integer(seed, "seed", 0, _U64),
        None if alpha is None else float(alpha),
        _integer(max_payload_bytes, "max_payload_bytes", 1, 16 << 20),
        _integer(max_work, "max_work", 0, _U64),
        _threads(threads),
    )
    return json.loads(text)


def verify_revision(
    payloads: Sequence[Document],
    *,
    packs: Optional[PathLike] = None,
    permutations: Optional[int] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """Check a revision chain (before, after[, after2]) as ``counterlab verify-revision``.

    At most two revisions, each changing the evaluation design and not only the claim;
    then the last payload's verification. Returns ``counterlab.revision/1``.
    """
    if isinstance(payloads, (str, bytes, Mapping, os.PathLike)):
        raise _error(UsageError, "payloads: expected a list of 2 or 3 payloads")
    documents = [_document(p, f"payloads[{i}]") for i, p in enumerate(payloads)]
    return json.loads(
        _native.verify_revision(
            documents,
            _packs(packs),
            _integer(permutations, "permutations", 0, 100_000),
            _threads(threads),
        )
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
        missing = np.fromiter(
            (
                v is None
                or (isinstance(v, float) and v != v)
                or type(v).__name__ in ("NAType", "NaTType")
                for v in values.tolist()
            ),
            dtype=bool,
            count=len(values),
        )
    else:
        return
    if missing.any():
        at = int(np.argmax(missing))
        raise _error(
            DataError,
            f"{what}[{at}] is missing ({values[at]!r}): every row needs a value; drop or fill the row first",
            column=what,
            row=at + 1,
        )


def _column(values: Any) -> Any:
    """An array of a column's values: arrays and Series keep their dtype; a list becomes an
    object array, so that a None or NaN among texts stays missing (numpy would write it as
    the text 'nan')."""
    import numpy as np

    return np.asarray(values) if hasattr(values, "dtype") else np.asarray(values, dtype=object)


def _equal_to(values: Any, value: Any) -> Any:
    """``values == value`` row by row, as a boolean array."""
    import numpy as np

    equal = values == value
    if not isinstance(equal, np.ndarray) or equal.shape != values.shape:
        # numpy could not compare elementwise (mixed types): compare one by one.
        equal = np.fromiter((v == value for v in values.tolist()), dtype=bool, count=len(values))
    return equal


def _labels(y_true: Any, positive: Any, one_vs_rest: bool) -> Any:
    import numpy as np

    values = _column(y_true)
    if values.ndim != 1:
        raise _error(UsageError, f"y_true: expected one value per row (1-D), found shape {values.shape}")
    _missing_at(values, "y_true")
    equal = _equal_to(values, positive)

    def seen() -> str:
        # The first 11 distinct values over the whole column (an error path: a loop is fine).
        shown: set = set()
        for v in values.tolist():
            shown.add(repr(v))
            if len(shown) > 10:
                break
        listed = sorted(shown)
        return ", ".join(listed[:10]) + (", …" if len(listed) > 10 else "")

    if len(values) and not equal.any():
        raise _error(
            DataError,
            f"y_true: no value equals positive={positive!r}; the values seen: {seen()}. "
            "Pass the positive class as it appears in y_true (positive=...)",
            column="y_true",
        )
    # With the positive class present, a second value among the rest is a third class.
    rest = values[~equal]
    if not one_vs_rest and len(rest) and not _equal_to(rest, rest[0]).all():
        raise _error(
            DataError,
            f"y_true: more than two classes where two were expected; the values seen: {seen()}. "
            f"Pass one_vs_rest=True to read positive={positive!r} against all the others",
            column="y_true",
        )
    return np.ascontiguousarray(equal, dtype=np.uint8)


def _scores(y: Any, what: str) -> Any:
    import numpy as np

    try:
        values = np.ascontiguousarray(np.asarray(y), dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise _error(UsageError, f"{what}: expected numbers ({e})") from None
    if values.ndim != 1:
        raise _error(UsageError, f"{what}: expected one value per row (1-D), found shape {values.shape}")
    return values


def metrics(
    y_true: Any,
    y_score: Any,
    *,
    positive: Any = 1,
    threshold: float = 0.5,
    entity: Any = None,
    y_score2: Any = None,
    one_vs_rest: bool = False,
) -> Dict[str, Any]:
    """Accuracy, ROC AUC with its interval and counts for scored rows, as ``counterlab metrics``.

    Args:
        y_true: labels, one per row (numpy array, pandas Series or list).
        y_score: scores, finite, higher = more positive.
        positive: the label of the positive class (compared with ``==``; default 1).
        threshold: predicted positive iff score >= threshold (default 0.5).
        entity: an entity per row (a patient, a customer): the AUC's interval becomes
            Obuchowski's clustered one. Ids are compared as text (``str(v)``).
        y_score2: a second score of the same rows: ``result["paired"]`` compares the two
            AUCs by the paired DeLong test (pROC's ``roc.test(paired = TRUE)``), clustered
            with ``entity``. Its interval holds the two scores fixed
            (``conditional_on == "given_scores"``): another fit or fold assignment would
            score the rows differently, and the interval leaves that out.
        one_vs_rest: read more than two classes as ``positive`` against all the others
            (``--one-vs-rest``). Without it, a third class is a ``DataError``.

    Returns:
        The ``counterlab metrics --json`` object: ``n``, ``n_pos``, ``n_neg``, ``accuracy``,
        ``balanced_accuracy``, ``majority_baseline_accuracy``, ``roc_auc``, ``roc_auc_ci``,
        ``roc_auc_se``, ``roc_auc_interval`` (``undefined`` says why when AUC is undefined),
        ``n_entities`` with ``entity``, ``paired`` with ``y_score2``.

    Raises:
        UsageError: arrays of different lengths, non-finite scores, not 1-D.
        DataError: no label equals ``positive``; more than two classes without
            ``one_vs_rest``.
    """
    import numpy as np

    if not isinstance(one_vs_rest, (bool, np.bool_)):
        raise _error(UsageError, f"one_vs_rest: expected True or False, found {type(one_vs_rest).__name__}")
    labels = _labels(y_true, positive, bool(one_vs_rest))
    scores = _scores(y_score, "y_score")
    scores2 = None if y_score2 is None else _scores(y_score2, "y_score2")
    entities = None
    if entity is not None:
        ids = _column(entity)
        if ids.ndim != 1:
            raise _error(UsageError, f"entity: expected one value per row (1-D), found shape {ids.shape}")
        _missing_at(ids, "entity")
        entities = [str(v) for v in ids.tolist()]
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise _error(UsageError, f"threshold: expected a number, found {type(threshold).__name__}")
    text = _native.metrics(labels, scores, scores2, entities, float(threshold), str(positive))
    return json.loads(text)


def audit(
    data: Any,
    *,
    entity: str,
    label: str,
    positive: Any,
    test: str,
    time: Optional[str] = None,
    threads: Optional[int] = None,
    out: Optional[PathLike] = None,
    seed: int = 1,
    margin: Optional[float] = None,
) -> Dict[str, Any]:
    """Check your own train/test split for leakage, as ``counterlab audit``; no pack needed.

    Reports entities on both sides, test rows whose entity is in training, temporal
    overlap (with ``time``), duplicate feature rows, and how much the split inflates ROC
    AUC against an entity-grouped split of the same share of rows (a ``metric_gap`` claim
    the verifier decides, with its interval and p-value).

    Args:
        data: a pandas DataFrame (anything with ``to_csv``), or the path of a CSV file.
            A DataFrame is read as its CSV text (``to_csv(index=False)``), exactly as the
            CLI would read that file: text columns are categorical features.
        entity, label: the entity and label columns.
        positive: the positive label, as its CSV text (``str(positive)``).
        test: the 0/1 (or false/true) column marking your test rows.
        time: an integer time column (adds the temporal-overlap check).
        threads: worker threads, at least 1.
        out: a new or empty folder to write the audit's pack and payload
            (``audit.payload.json``) into, for ``counterlab verify``.
        seed: the seed of the entity-grouped comparison's fold draws (it is repeated
            entity-grouped folds of about your test share, drawn 5 times; ``--seed``).
        margin: a materiality margin on the ROC AUC gap (e.g. 0.02, ``--margin``):
            ``result["auc"]["decision"]`` is then ``material_leak``, ``no_material_leak``
            or ``undecided`` by the verifier's interval.

    Returns:
        ``counterlab.audit/1``; ``result["leak"]`` is True when an entity is on both sides
        or (with ``time``) a test row is not after training.

    Raises:
        DataError: a cell cannot be used (``row`` is 1-based: DataFrame row ``row - 1``).
    """
    if hasattr(data, "to_csv"):
        _no_carriage_returns(data)
        source: Union[bytes, Path] = data.to_csv(index=False, lineterminator="\n").encode("utf-8")
        name = "DataFrame"
    elif isinstance(data, (str, os.PathLike)):
        # Read in Rust, as the CLI reads it: regular files only, within the byte budget.
        source = Path(os.fspath(data))
        name = str(source)
    else:
        raise _error(UsageError, f"data: expected a DataFrame or a CSV path, found {type(data).__name__}")
    text = _native.audit(
        source,
        name,
        entity,
        label,
        str(positive),
        test,
        time,
        _threads(threads),
        None if out is None else Path(os.fspath(out)),
        _integer(seed, "seed", 0, _U64),
        None if margin is None else _margin(margin),
    )
    return json.loads(text)


def _margin(value: Any) -> float:
    """audit's materiality margin: a real number strictly between 0 and 1."""
    import math
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _error(UsageError, f"margin: expected a number, found {type(value).__name__}")
    try:
        margin = float(value)
    except OverflowError:
        margin = math.inf
    if not (math.isfinite(margin) and 0 < margin < 1):
        raise _error(UsageError, f"margin: an AUC difference strictly between 0 and 1, found {value!r}")
    return margin


def _no_carriage_returns(frame: Any) -> None:
    """A DataError at the first text cell with a carriage return: to_csv writes it bare,
    and a bare CR is not a line end counterlab accepts (the CLI would refuse that file)."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind not in "OSU" and str(values.dtype) not in ("string", "str"):
            continue
        for at, cell in enumerate(values.tolist()):
            if isinstance(cell, str) and "\r" in cell:
                raise _error(
                    DataError,
                    f"DataFrame: row {at + 1}, column {column!r}: a text cell with a carriage return "
                    "(\\r); replace it (df[col].str.replace('\\r', ' ')) before the audit",
                    path="DataFrame",
                    row=at + 1,
                    column=str(column),
                )


def boundary(
    pack: str, *, packs: Optional[PathLike] = None, threads: Optional[int] = None
) -> Dict[str, Any]:
    """A pack's boundary map (``counterlab.boundary/1``): the claim's outcome in every cell
    of its sweep. ``verify(map)`` recomputes it."""
    return json.loads(_native.boundary(_pack_id(pack), _packs(packs), _threads(threads)))


def transfer(
    pack: str, choice: str, *, packs: Optional[PathLike] = None, threads: Optional[int] = None
) -> Dict[str, Any]:
    """Score a choice in a pack's transfer task with the fixed evaluator
    (``counterlab.transfer/1``; ``result["answer"]["correct"]``)."""
    if not isinstance(choice, str):
        raise _error(UsageError, f"choice: expected a choice id (str), found {type(choice).__name__}")
    return json.loads(_native.transfer(_pack_id(pack), choice, _packs(packs), _threads(threads)))


def select(
    prediction: Document,
    candidates: Sequence[PathLike] = (),
    *,
    packs: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """The fixed selector (``counterlab.selection/1``): which candidate experiment runs for
    a prediction, by closed rules, with its derived seed. Without candidates, the pack's
    registered experiments are the candidates."""
    return json.loads(
        _native.select(
            _document(prediction, "prediction"), _paths(candidates, "candidates"), _packs(packs)
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
) -> Dict[str, Any]:
    """Build a Proof Capsule (``counterlab.capsule/1``), as ``counterlab capsule build``:
    the prediction, the selection, the selected experiment run with its derived seed, its
    verification, optional revisions and boundary map. ``verify(capsule)`` re-derives
    every link."""
    if isinstance(revisions, (str, bytes, Mapping, os.PathLike)):
        raise _error(UsageError, "revisions: expected a list of payloads")
    return json.loads(
        _native.build_capsule(
            _document(prediction, "prediction"),
            _paths(candidates, "candidates"),
            [_document(r, f"revisions[{i}]") for i, r in enumerate(revisions)],
            _flag(boundary, "boundary"),
            _packs(packs),
            _threads(threads),
        )
    )
