"""Arguments checked before any work: each bad one is a UsageError naming the argument,
never a TypeError, OverflowError or UnicodeEncodeError from deeper down."""

from __future__ import annotations

import decimal
import math
import numbers
import os
from pathlib import Path
from typing import Any, List, Optional

from ._native import Error, UsageError


def error(cls: type, message: str, **where: Any) -> Error:
    """An exception of the family with its attributes (path, row, column, json_path)."""
    err = cls(message)
    for name, value in where.items():
        setattr(err, name, value)
    return err


def shown(value: Any, most: int = 60) -> str:
    """``repr(value)``, cut to ``most`` characters (a 400-digit integer stays readable)."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the message
        text = f"<{type(value).__name__}>"
    return text if len(text) <= most else text[: most - 1] + "…"


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool") and hasattr(value, "item")


def integer(value: Any, name: str, low: int, high: int) -> Optional[int]:
    """An optional integer option in [low, high]: an int, a numpy integer, or a float with
    an integral value (``1e11``, ``2.0``); not a bool, 1.5, NaN or an infinity."""
    if value is None:
        return None
    if _is_bool(value):
        raise error(UsageError, f"{name}: expected an integer, found bool")
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, numbers.Real):
        number = _integral_float(value, name)
    else:
        raise error(UsageError, f"{name}: expected an integer, found {type(value).__name__}")
    if not low <= number <= high:
        raise error(UsageError, f"{name} must lie in {low}..={high}, found {shown(value)}")
    return number


def _integral_float(value: Any, name: str) -> int:
    try:
        as_float = float(value)
    except (OverflowError, ValueError):
        as_float = math.inf
    if not (math.isfinite(as_float) and as_float.is_integer()):
        raise error(UsageError, f"{name}: expected an integer, found {shown(value)}")
    return int(as_float)


def real(value: Any, name: str) -> float:
    """A finite real number (int, float, numpy, Fraction or Decimal) as a float; not a bool.
    Too large for a float (``10**400``), NaN or an infinity is a UsageError naming ``name``."""
    if _is_bool(value) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise error(UsageError, f"{name}: expected a number, found {type(value).__name__}")
    try:
        number = float(value)
    except (OverflowError, ValueError, ArithmeticError):  # 10**400, Decimal('sNaN')
        number = math.nan
    if not math.isfinite(number):
        raise error(UsageError, f"{name} must be a finite number, found {shown(value)}")
    return number


def flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool) and not (_is_bool(value)):
        raise error(UsageError, f"{name}: expected True or False, found {type(value).__name__}")
    return bool(value)


def text_is_not_unicode(text: str) -> bool:
    """Whether a str holds a lone surrogate (it cannot be UTF-8)."""
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def text(value: Any, name: str) -> str:
    """A name (a column, an id): a str that is Unicode text (no lone surrogate)."""
    if not isinstance(value, str):
        raise error(UsageError, f"{name}: expected a str, found {type(value).__name__}")
    if text_is_not_unicode(value):
        raise error(UsageError, f"{name}: {shown(value)} is not Unicode text (a lone surrogate)")
    return str(value)


def optional_text(value: Any, name: str) -> Optional[str]:
    return None if value is None else text(value, name)


def names(values: Any, name: str) -> List[str]:
    """A list of names; one str is refused (``keep="x"`` is not ``keep=["x"]``)."""
    wrong = error(UsageError, f"{name}: expected a list of column names, found {type(values).__name__}")
    if isinstance(values, (str, bytes)):
        raise wrong
    try:
        items = list(values)
    except TypeError:
        raise wrong from None
    return [text(v, f"{name}[{at}]") for at, v in enumerate(items)]


def path(value: Any, name: str) -> Path:
    """A path (str or os.PathLike) the operating system can take."""
    if not isinstance(value, (str, os.PathLike)):
        raise error(UsageError, f"{name}: expected a path, found {type(value).__name__}")
    raw = os.fspath(value)
    if isinstance(raw, bytes):
        raise error(UsageError, f"{name}: expected a text path, found bytes")
    if not raw.strip():
        raise error(UsageError, f"{name}: an empty path")
    if "\x00" in raw:
        raise error(UsageError, f"{name}: {shown(raw)} holds a NUL character, which no file name can")
    try:
        os.fsencode(raw)
    except UnicodeEncodeError:
        raise error(UsageError, f"{name}: {shown(raw)} cannot be a file name here (a lone surrogate)") from None
    return Path(raw)


def optional_path(value: Any, name: str) -> Optional[Path]:
    return None if value is None else path(value, name)
