"""Reports that read as tables in Jupyter and stay plain dicts everywhere else.

``Report`` is a ``dict`` (``isinstance(r, dict)``, ``json.dumps(r)``, ``r == plain``) with
``_repr_html_``: nested objects as nested tables, lists of objects as tables with one row
each. Every cell goes through ``html.escape``: entity ids, column names and labels come
from the user's data, and a notebook must show them as text, never run them.
"""

from __future__ import annotations

import html
import json
from typing import Any, List

#: Rows of a list shown before "… n more".
MAX_ROWS = 50
#: Nesting shown as tables; deeper values are shown as their JSON text.
MAX_DEPTH = 4
#: Characters of one cell's text shown before "…".
MAX_CELL = 400

_STYLE = "border-collapse:collapse;text-align:left;vertical-align:top"


class Report(dict):
    """A counterlab report (a dict, as ``json.loads`` makes it) that Jupyter shows as a table."""

    __module__ = "counterlab"

    def _repr_html_(self) -> str:
        title = self.get("format") or self.get("verdict") or "counterlab"
        return f"<div><strong>{_escape(title)}</strong>{_table(self, 0)}</div>"


def _escape(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > MAX_CELL:
        text = text[:MAX_CELL] + "…"
    return html.escape(text, quote=True)


def _cell(value: Any, depth: int) -> str:
    if isinstance(value, dict) and value and depth < MAX_DEPTH:
        return _table(value, depth + 1)
    if isinstance(value, list) and value and depth < MAX_DEPTH:
        return _list(value, depth + 1)
    return _escape(value)


def _table(mapping: dict, depth: int) -> str:
    rows = "".join(
        f"<tr><th style='{_STYLE}'>{_escape(key)}</th><td style='{_STYLE}'>{_cell(value, depth)}</td></tr>"
        for key, value in mapping.items()
    )
    return f"<table style='{_STYLE}'>{rows}</table>"


def _list(values: list, depth: int) -> str:
    shown = values[:MAX_ROWS]
    more = f"<div>… {len(values) - MAX_ROWS} more</div>" if len(values) > MAX_ROWS else ""
    if not all(isinstance(v, dict) for v in shown):
        if all(not isinstance(v, (dict, list)) for v in shown):
            return _escape(", ".join(v if isinstance(v, str) else json.dumps(v) for v in shown)) + more
        return "".join(f"<div>{_cell(v, depth)}</div>" for v in shown) + more
    keys: List[str] = []
    for row in shown:
        keys.extend(k for k in row if k not in keys)
    head = "".join(f"<th style='{_STYLE}'>{_escape(k)}</th>" for k in keys)
    body = "".join(
        "<tr>" + "".join(f"<td style='{_STYLE}'>{_cell(row.get(k, ''), depth)}</td>" for k in keys) + "</tr>"
        for row in shown
    )
    return f"<table style='{_STYLE}'><tr>{head}</tr>{body}</table>{more}"


def report(text: str) -> Report:
    """A report's JSON text as a Report (the top level; nested objects stay plain dicts)."""
    return Report(json.loads(text))
