#!/usr/bin/env bash
# The scaling table of docs/PERFORMANCE.md ("Scaling"): the starter experiment that
# `counterlab init` writes (random-vs-grouped: 5-fold x 5-repeat k_fold vs entity_k_fold,
# logistic C = 1, claim ROC AUC gap at_least 0), run and verified on synthetic packs of
# 10^3 ... 10^6 rows (benches/scaling/generate.py), with the wall time and peak resident
# memory of each step from GNU time (`/usr/bin/time -v`).
#
#   benches/scaling/run.sh [ROWS ...]          # default: 1000 10000 100000
#
# Environment: COUNTERLAB (the binary; default $CARGO_TARGET_DIR or target, release),
# WORK (scratch folder; default a new one under /var/tmp), THREADS (verify's --threads;
# default 2). A fixture over the loader's default byte budget (32 MiB) is read with
# --max-fixture-bytes (init, run and verify: the flag of docs/VERDICTS.md, "Budgets and
# options"). MAX_DESIGN_BYTES, when set, is passed to verify as --max-design-bytes: the
# starter counts 17,600 bytes of prepared designs a row (budget::design_bytes), over the
# default 512 MiB from 30,505 rows on (docs/PERFORMANCE.md, "Scaling", gives the values).
# Prints one table row per step (markdown) and writes each step's output beside it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${COUNTERLAB:-${CARGO_TARGET_DIR:-$here/../../target}/release/counterlab}"
work="${WORK:-$(mktemp -d /var/tmp/counterlab-scaling.XXXXXX)}"
threads="${THREADS:-2}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release first" >&2; exit 2; }
mkdir -p "$work"

# One step under GNU time; sets secs, mib and rc.
measure() {
    local log="$1"; shift
    rc=0
    /usr/bin/time -v -o "$log.time" "$@" >"$log.out" 2>"$log.err" || rc=$?
    local wall kb
    wall="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.time")"
    kb="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log.time")"
    # h:mm:ss or m:ss.cc as seconds.
    secs="$(awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$wall")"
    mib="$(awk '{ printf "%.0f", $1 / 1024 }' <<<"$kb")"
}

# The first line of a file and its "reason" lines, without colour.
outcome() {
    { head -1 "$1"; grep '^reason' "$1" || true; } | sed 's/\x1b\[[0-9;]*m//g' | tr '\n' ' '
}

echo "binary $bin ($("$bin" --version)), threads $threads, work $work"
echo "| rows | fixture bytes | step | wall s | peak RSS MiB | exit | outcome |"
echo "|---|---|---|---|---|---|---|"
for rows in "${sizes[@]}"; do
    csv="$work/scale$rows.csv"
    pack="$work/scale$rows"
    payload="$work/scale$rows.payload.json"
    python3 "$here/generate.py" "$rows" >"$csv"
    bytes="$(stat -c %s "$csv")"
    fixture=()
    if [ "$bytes" -gt $((32 << 20)) ]; then
        fixture=(--max-fixture-bytes "$bytes")
    fi
    verify_flags=(--threads "$threads" "${fixture[@]}")
    if [ -n "${MAX_DESIGN_BYTES:-}" ]; then
        verify_flags+=(--max-design-bytes "$MAX_DESIGN_BYTES")
    fi
    rm -rf "$pack"
    measure "$work/$rows.init" "$bin" init "$csv" --entity entity --label label --positive 1 \
        --out "$pack" "${fixture[@]}"
    echo "| $rows | $bytes | init | $secs | $mib | $rc | |"
    measure "$work/$rows.run" "$bin" run "$pack/experiments/random-vs-grouped.json" \
        --packs "$pack" --out "$payload" "${fixture[@]}"
    echo "| $rows | $bytes | run | $secs | $mib | $rc | |"
    measure "$work/$rows.verify" "$bin" verify "$payload" --packs "$pack" "${verify_flags[@]}"
    echo "| $rows | $bytes | verify ${verify_flags[*]} | $secs | $mib | $rc | $(outcome "$work/$rows.verify.out") |"
done
