"""The package reads well: every public function has a docstring, help() shows its
parameters, the stubs list every native function, and run() warns about pack findings."""

from __future__ import annotations

import ast
import inspect
import pathlib
import pydoc

import pytest

import counterlab
from conftest import PACKS

PUBLIC = ["run", "verify", "verify_revision", "metrics", "audit", "init", "csv_bytes", "boundary", "transfer", "select", "build_capsule"]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_function_is_documented(name):
    function = getattr(counterlab, name)
    assert name in counterlab.__all__
    doc = inspect.getdoc(function)
    assert doc and len(doc) > 80, name
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)
    for parameter in inspect.signature(function).parameters:
        assert parameter in text


def test_help_of_verify_names_its_options_and_verdicts():
    text = pydoc.render_doc(counterlab.verify, renderer=pydoc.plaintext)
    for word in ("permutations", "observe", "SUPPORTS", "INCONCLUSIVE", "REJECTED", "report_hash"):
        assert word in text


def test_the_stubs_list_every_native_function_with_its_parameters():
    stub = pathlib.Path(counterlab.__file__).with_name("_native.pyi")
    assert stub.is_file(), "the stub ships with the package"
    tree = ast.parse(stub.read_text())
    stubbed = {f.name: [a.arg for a in f.args.args] for f in tree.body if isinstance(f, ast.FunctionDef)}
    native = {n: f for n, f in vars(counterlab._native).items() if callable(f) and not isinstance(f, type)}
    assert set(stubbed) == set(native)
    for name, function in native.items():
        assert stubbed[name] == list(inspect.signature(function).parameters), name
    assert pathlib.Path(counterlab.__file__).with_name("py.typed").is_file()


def test_versions_are_exposed():
    assert counterlab.KERNEL_VERSION and counterlab.VERIFIER_VERSION.startswith("counterlab-verifier/")
    report = counterlab.verify(PACKS / "entity-leakage" / "payloads" / "random-inflates-auc.json")
    assert counterlab.VERIFIER_VERSION in str(report)


def test_run_warns_about_pack_findings():
    with pytest.warns(counterlab.PackWarning, match=r"\(entity, time\) pairs have more than one row"):
        counterlab.run(PACKS / "class-imbalance" / "experiments" / "auc-above-chance.json")
