"""The Python examples of the README and docs/PYTHON.md run as written (docs that match the code)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from conftest import REPO


@pytest.mark.parametrize("page, heading", [("README.md", "## Python\n"), ("docs/PYTHON.md", "## In a notebook\n")])
def test_the_python_example_runs_and_prints_what_it_says(page, heading):
    text = (REPO / page).read_text()
    section = text[text.index(heading) :]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(example.strip().splitlines()) <= 12
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[0] == "SUPPORTS 5c8d8ef1a65830d7"
    low, high = eval(lines[1])
    assert 0.10 < low < high  # the flagship claim: CV gap above 0.10
    assert lines[2] == "True"  # a row split leaks patients
