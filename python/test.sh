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

# The CLI the reports are compared with: COUNTERLAB_CLI when given (CI passes the binary
# `cargo test --release` built for the integration tests: building it again here with the
# library's non-test features would compile the crate a second time), else built here.
if [ -z "${COUNTERLAB_CLI:-}" ]; then
    cargo build --release --locked --bin counterlab
    COUNTERLAB_CLI="$CARGO_TARGET_DIR/release/counterlab"
fi
[ -x "$COUNTERLAB_CLI" ] || { echo "COUNTERLAB_CLI=$COUNTERLAB_CLI is not an executable" >&2; exit 2; }

# The extension (PyO3) in a target dir of its own: its dependency features differ from the
# CLI's, and sharing one dir would rebuild both in turn. maturin must be on PATH.
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="${COUNTERLAB_PYTHON_TARGET:-/var/tmp/counterlab-python-target}" \
    "${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./python

COUNTERLAB_CLI="$COUNTERLAB_CLI" "$venv/bin/python" -m pytest -q python/tests "$@"
