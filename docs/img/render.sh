#!/usr/bin/env bash
# Regenerates the PNGs in docs/img/ from the kernel's own charts (the SVGs of
# `counterlab boundary --svg` and `counterlab verify --svg`), rendered 1000 px wide with
# rsvg-convert (Debian package librsvg2-bin). Run from anywhere: docs/img/render.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v rsvg-convert >/dev/null || { echo "needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 2; }
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')}/release/counterlab"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$bin" boundary entity-leakage --svg "$tmp/boundary-entity-leakage.svg" >/dev/null
"$bin" boundary class-imbalance --svg "$tmp/boundary-class-imbalance.svg" >/dev/null
"$bin" boundary temporal-leakage --svg "$tmp/boundary-temporal-leakage.svg" >/dev/null
# verify exits 0 on SUPPORTS; the chart is written whatever the verdict.
"$bin" verify fixtures/packs/entity-leakage/payloads/random-inflates-auc.json \
    --svg "$tmp/null-entity-leakage-random-inflates-auc.svg" >/dev/null

for svg in "$tmp"/*.svg; do
    rsvg-convert -w 1000 "$svg" -o "docs/img/$(basename "${svg%.svg}").png"
    echo "wrote docs/img/$(basename "${svg%.svg}").png"
done
