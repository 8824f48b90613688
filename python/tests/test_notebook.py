"""Reports show as tables in Jupyter (``_repr_html_``) and stay dicts: isinstance dict,
json.dumps, equal to the plain dict; every cell is escaped (data is hostile)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import counterlab
from conftest import PACKS, REPO

PAYLOAD = PACKS / "entity-leakage" / "payloads" / "random-inflates-auc.json"
RESPIRATORY = REPO / "tests" / "data" / "real" / "respiratory" / "respiratory.csv"
HOSTILE = "<script>alert('x')</script>"


def hostile_audit() -> counterlab.Report:
    frame = pd.read_csv(RESPIRATORY)
    frame["is_test"] = (frame.index % 4 == 0).astype(int)
    frame.loc[frame["patient"] == "c1-p01", "patient"] = HOSTILE
    return counterlab.audit(frame, entity="patient", label="outcome", positive=1, test="is_test")


def test_reports_are_dicts_that_show_as_tables():
    reports = {
        "verify": counterlab.verify(PAYLOAD),
        "metrics": counterlab.metrics([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3]),
        "audit": hostile_audit(),
        "run": counterlab.run(PACKS / "entity-leakage" / "experiments" / "random-vs-grouped.json"),
    }
    for name, report in reports.items():
        assert isinstance(report, dict) and type(report) is counterlab.Report, name
        plain = json.loads(json.dumps(report))
        assert type(plain) is dict and report == plain and plain == report, name
        assert pickle.loads(pickle.dumps(report)) == report and copy.deepcopy(report) == report
        html = report._repr_html_()
        assert html.startswith("<div>") and "<table" in html, name
    assert "<th style='border-collapse:collapse;text-align:left;vertical-align:top'>verdict</th>" in reports["verify"]._repr_html_()
    # the verify report of a run's payload is the report of the file it would write
    assert counterlab.verify(reports["run"])["report_hash"] == counterlab.verify(json.dumps(reports["run"]))["report_hash"]


def test_an_entity_id_is_escaped_in_the_html():
    report = hostile_audit()
    assert HOSTILE in report["shared_entities"]["first"]  # the data is kept as it is
    html = report._repr_html_()
    assert "<script" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


def test_keys_lists_and_deep_values_are_escaped_and_bounded():
    report = counterlab.Report(
        {
            "<b>key</b>": [{"<i>": "<u>", "n": 1}] * 60,
            "ids": ["<a>", "b&c"],
            "deep": {"a": {"b": {"c": {"d": {"e": "<deep>"}}}}},
            "long": "<" * 10_000,
        }
    )
    html = report._repr_html_()
    for raw in ("<b>", "<i>", "<u>", "<a>", "<deep>", "<<"):
        assert raw not in html
    assert "&lt;b&gt;key&lt;/b&gt;" in html and "b&amp;c" in html and "… 10 more" in html
    assert len(html) < 40_000
