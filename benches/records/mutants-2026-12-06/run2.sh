#!/bin/bash
# Stage 1, the larger files: a 1-in-16 round-robin sample each (shard 0/16).
cd /work/wt-mutants
export CARGO_TARGET_DIR=/var/tmp/ct-mutants
M="nice -n 19 cargo mutants --in-place --profile mutants --build-timeout 600 --timeout 60 --shard 0/16 --sharding round-robin"
log() { echo "$(date -u +%H:%M:%S) $*" >> /var/tmp/mut2/progress; }
log start claim 0/16
$M -o /var/tmp/mut2/claim -f src/stats/claim.rs -C --lib -- -- stats:: > /var/tmp/mut2/claim.log 2>&1
log start intervals 0/16
$M -o /var/tmp/mut2/intervals -f src/stats/intervals.rs -C --lib -- -- stats:: > /var/tmp/mut2/intervals.log 2>&1
log start metrics 0/16
$M -o /var/tmp/mut2/metrics -f src/metrics.rs -C --lib -C --test=lib -- -- metrics:: parity::auc parity::paired > /var/tmp/mut2/metrics.log 2>&1
log start folds 0/16
$M -o /var/tmp/mut2/folds -f src/split/folds.rs -C --lib -C --test=lib -- -- split:: parity::cv parity::int_ids parity::repeated_cv parity::shuffled_cv > /var/tmp/mut2/folds.log 2>&1
log done
