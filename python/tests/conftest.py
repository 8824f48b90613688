"""Shared fixtures: the repository root (every test runs there, as the CLI's default
`fixtures/packs` expects), the CLI binary to compare with, and the bundled documents."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PACKS = REPO / "fixtures" / "packs"


def bundled_payloads() -> list:
    """Every recorded payload and boundary map of the bundled packs."""
    return sorted(PACKS.glob("*/payloads/*.json"))


def bundled_capsules() -> list:
    """Every recorded Proof Capsule of the bundled packs."""
    return sorted(PACKS.glob("*/capsules/*.json"))


def bundled_experiments() -> list:
    """Every registered experiment of the bundled packs."""
    return sorted(PACKS.glob("*/experiments/*.json"))


def cli_binary() -> pathlib.Path:
    """The release CLI built from this checkout (python/test.sh builds it first)."""
    explicit = os.environ.get("COUNTERLAB_CLI")
    if explicit:
        return pathlib.Path(explicit)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "counterlab"


@pytest.fixture(scope="session", autouse=True)
def at_repo_root():
    os.chdir(REPO)


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI; returns (exit code, stdout, stderr). Fails (never skips) when the
    binary is missing: these tests exist to compare the two front ends."""
    binary = cli_binary()
    if not binary.is_file():
        pytest.fail(f"no CLI at {binary}: run `cargo build --release` (python/test.sh does) or set COUNTERLAB_CLI")

    def call(*args: str):
        done = subprocess.run([str(binary), *args], cwd=REPO, capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    return call


@pytest.fixture(scope="session")
def cli_json(cli):
    """The CLI's JSON output of a command that prints JSON (`--json`)."""

    def call(*args: str):
        code, out, err = cli(*args)
        try:
            return code, json.loads(out)
        except json.JSONDecodeError:
            pytest.fail(f"counterlab {' '.join(args)} exited {code} without JSON: {err}")

    return call
