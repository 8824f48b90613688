#!/usr/bin/env bash
# The Python package's tests. Builds the CLI and the extension from this checkout, installs
# the package with the pinned test dependencies (python/requirements-test.txt) into a
# virtual environment, and runs pytest on python/tests, whose tests compare every report
# with the CLI's. CI runs it (.ci/run); extra arguments go to pytest (`python/test.sh -k metrics`).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/counterlab-target}"
venv="${COUNTERLAB_VENV:-/var/tmp/counterlab-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r python/requirements-test.txt

cargo build --release --locked --bin counterlab

# The extension (PyO3) in a target dir of its own: its dependency features differ from the
# CLI's, and sharing one dir would rebuild both in turn. maturin must be on PATH.
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="${COUNTERLAB_PYTHON_TARGET:-/var/tmp/counterlab-python-target}" \
    "${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./python

COUNTERLAB_CLI="$CARGO_TARGET_DIR/release/counterlab" "$venv/bin/python" -m pytest -q python/tests "$@"
