#!/usr/bin/env bash
# Writes the Vega-Lite specs of the bundled charts and checks that Vega-Lite compiles and
# Vega renders each of them without a warning. Needs node and npm (not part of CI).
# Run from anywhere: docs/img/vega-check/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/render.mjs" "$work/"
(cd "$work" && npm install --silent --no-audit --no-fund --no-package-lock >/dev/null)
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')}/release/counterlab"
"$bin" boundary entity-leakage --vega "$work/boundary-entity-leakage.vl.json" >/dev/null
"$bin" boundary class-imbalance --vega "$work/boundary-class-imbalance.vl.json" >/dev/null
"$bin" verify fixtures/packs/entity-leakage/payloads/random-inflates-auc.json \
    --vega "$work/null-entity-leakage-random-inflates-auc.vl.json" >/dev/null
(cd "$work" && node render.mjs ./*.vl.json)
