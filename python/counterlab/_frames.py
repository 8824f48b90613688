"""Frames and columns from pandas, polars and pyarrow, read one way.

The kernel reads a CSV (a pack's fixture is a CSV file whose blake3 the pack records), so
a frame becomes CSV bytes — by one conversion, written column by column from the typed
values, never through a library's own ``to_csv``: the pandas, polars and pyarrow versions
of one table give the same bytes, hence the same audit, pack and hashes
(docs/PYTHON.md, "Frames"). Cells are written as follows:

- ``None``, NaN, pandas' ``NA`` and ``NaT``, an empty text: an empty cell (missing);
- integers as integers (``3``), floats by ``repr`` (``0.1``, ``3.0``, ``1e-05``: the
  shortest text that parses back to the same float), a ``Decimal`` as its float, booleans
  as ``true``/``false``, dates and times by ``isoformat()``;
- text as it is, quoted (RFC 4180) when it holds a comma, a quote or a newline; a
  carriage return is refused (a ``DataError`` naming the row and column), as the CLI
  refuses one in a file.
"""

from __future__ import annotations

import datetime
import decimal
import numbers
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._native import DataError, UsageError

#: The libraries whose frames are read, by the top-level module of the frame's type.
FRAME_LIBRARIES = ("pandas", "polars", "pyarrow")

_NEEDS_QUOTES = re.compile('[,"\n]')


def _error(cls: type, message: str, **where: Any) -> Exception:
    err = cls(message)
    for name, value in where.items():
        setattr(err, name, value)
    return err


def library_of(value: Any) -> str:
    """The top-level module of a value's type (``pandas``, ``polars``, ``numpy``, …)."""
    return type(value).__module__.split(".", 1)[0]


def is_frame(value: Any) -> bool:
    """A pandas or polars DataFrame, a pyarrow Table or RecordBatch, or any other table
    with the Arrow PyCapsule stream interface (``__arrow_c_stream__``)."""
    name, library = type(value).__name__, library_of(value)
    if library in ("pandas", "polars"):
        return name in ("DataFrame", "LazyFrame")
    if library == "pyarrow":
        return name in ("Table", "RecordBatch")
    return hasattr(value, "__arrow_c_stream__")


class _BadCell(Exception):
    """A cell that cannot be written; the column loop adds its row and column."""


def _missing(_: Any) -> str:
    return ""


def _text(value: str) -> str:
    if "\r" in value:
        raise _BadCell(
            "a text cell with a carriage return (\\r); replace it (e.g. with a space) first"
        )
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def _float(value: float) -> str:
    return "" if value != value else float.__repr__(value)


def _integer(value: int) -> str:
    return int.__repr__(value)


def _boolean(value: bool) -> str:
    return "true" if value else "false"


def _decimal(value: decimal.Decimal) -> str:
    # As the float it parses to: a decimal column's scale (1.10, -2.00 in pyarrow) is not
    # part of its value, and the kernel reads every number as a float.
    return "" if value.is_nan() else _float(float(value))


def _other(value: Any) -> str:
    """Any other cell, by what it is (numpy scalars, pandas' NA and Timestamps, …)."""
    import numpy as np

    if type(value).__name__ in ("NAType", "NaTType"):
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise _BadCell("a bytes cell: decode it to text first")
    if isinstance(value, str):
        return _text(str(value))
    if isinstance(value, np.bool_):
        return _boolean(bool(value))
    if isinstance(value, numbers.Integral):
        return _integer(int(value))
    if isinstance(value, numbers.Real):
        return _float(float(value))
    if isinstance(value, decimal.Decimal):
        return _decimal(value)
    if isinstance(value, np.datetime64) and np.isnat(value):
        return ""
    if isinstance(value, (datetime.date, datetime.time)):
        return _text(value.isoformat())
    raise _BadCell(
        f"a cell of type {type(value).__name__}: counterlab reads numbers, text, booleans, "
        "dates and missing values"
    )


_WRITERS: Dict[type, Callable[[Any], str]] = {
    type(None): _missing,
    str: _text,
    float: _float,
    int: _integer,
    bool: _boolean,
    decimal.Decimal: _decimal,
}


def _cells(values: List[Any], source: str, column: str) -> List[str]:
    """One column's cells as CSV text; a cell that cannot be written is a DataError naming
    its row (1-based, as in the file) and column."""
    out: List[str] = []
    try:
        for value in values:
            out.append(_WRITERS.get(type(value), _other)(value))
    except _BadCell as bad:
        row = len(out) + 1
        raise _error(
            DataError,
            f"{source}: row {row}, column {column!r}: {bad}",
            path=source,
            row=row,
            column=column,
        ) from None
    return out


def _pandas_columns(frame: Any) -> Tuple[List[Any], List[List[Any]]]:
    names = list(frame.columns)
    return names, [frame.iloc[:, at].tolist() for at in range(len(names))]


def _polars_columns(frame: Any) -> Tuple[List[Any], List[List[Any]]]:
    if type(frame).__name__ == "LazyFrame":
        raise _error(UsageError, "data: a polars LazyFrame; pass frame.collect()")
    return list(frame.columns), [frame.to_series(at).to_list() for at in range(frame.width)]


def _arrow_columns(table: Any) -> Tuple[List[Any], List[List[Any]]]:
    names = list(table.schema.names)
    return names, [table.column(at).to_pylist() for at in range(len(names))]


def _capsule_columns(value: Any) -> Tuple[List[Any], List[List[Any]]]:
    try:
        import pyarrow
    except ImportError:
        raise _error(
            UsageError,
            f"data: a {type(value).__name__} is read through pyarrow (Arrow PyCapsule stream), "
            "which is not installed",
        ) from None
    try:
        table = pyarrow.table(value)
    except Exception as e:  # a stream that is not a table (a column, a scalar)
        raise _error(UsageError, f"data: a {type(value).__name__} is not a table ({e})") from None
    return _arrow_columns(table)


def frame_columns(frame: Any) -> Tuple[List[Any], List[List[Any]]]:
    """A frame's column names and each column's values as Python objects."""
    library = library_of(frame)
    if library == "pandas":
        return _pandas_columns(frame)
    if library == "polars":
        return _polars_columns(frame)
    if library == "pyarrow":
        return _arrow_columns(frame)
    return _capsule_columns(frame)


def _header(names: List[Any], source: str) -> List[str]:
    texts = [name if isinstance(name, str) else str(name) for name in names]
    seen: Dict[str, int] = {}
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
    repeated = [text for text, count in seen.items() if count > 1]
    if repeated:
        listed = ", ".join(repr(t) for t in repeated[:10])
        raise _error(
            UsageError,
            f"data: duplicate column names ({listed}); rename them so each column has one name",
        )
    out = []
    for at, text in enumerate(texts):
        try:
            out.append(_text(text))
        except _BadCell as bad:
            raise _error(DataError, f"{source}: column {at + 1}'s name {text!r}: {bad}", path=source, row=0) from None
    return out


def _encoded(header: List[str], columns: List[List[str]], source: str) -> bytes:
    text = ",".join(header) + "\n" + "".join(",".join(row) + "\n" for row in zip(*columns))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise _not_utf8(header, columns, source) from None


def _not_utf8(header: List[str], columns: List[List[str]], source: str) -> Exception:
    """A DataError at the first name or cell that is not Unicode text (a lone surrogate)."""

    def bad(text: str) -> bool:
        try:
            text.encode("utf-8")
            return False
        except UnicodeEncodeError:
            return True

    for at, name in enumerate(header):
        if bad(name):
            return _error(
                DataError,
                f"{source}: column {at + 1}'s name {name!r} is not Unicode text (a lone surrogate)",
                path=source,
                row=0,
            )
    for at, cells in enumerate(columns):
        for row, cell in enumerate(cells):
            if bad(cell):
                return _error(
                    DataError,
                    f"{source}: row {row + 1}, column {header[at]!r}: {cell!r} is not Unicode text (a lone surrogate)",
                    path=source,
                    row=row + 1,
                    column=header[at],
                )
    return _error(DataError, f"{source}: not Unicode text", path=source)


def frame_csv(frame: Any, source: str) -> bytes:
    """The frame as CSV bytes by the canonical conversion (this module's docstring);
    messages name it ``source``."""
    names, values = frame_columns(frame)
    header = _header(names, source)
    columns = [_cells(column, source, header_name) for column, header_name in zip(values, map(str, names))]
    return _encoded(header, columns, source)


def cell_text(value: Any) -> Optional[str]:
    """A value as the conversion writes it in a cell, unquoted (``True`` is ``true``, as
    a boolean label column is written); None when it would be missing or cannot be a cell."""
    if isinstance(value, str):
        return value or None
    try:
        text = _WRITERS.get(type(value), _other)(value)
    except _BadCell:
        return None
    return text or None
