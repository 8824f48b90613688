#!/bin/bash
# Stage 1 of the mutation record (docs/MUTANTS.md): unit tests of the file's module, then
# the integration tests that cover it, per file; a 1-in-8 round-robin sample of the larger files.
cd /work/wt-mutants
export CARGO_TARGET_DIR=/var/tmp/ct-mutants
M="nice -n 19 cargo mutants --in-place --profile mutants --build-timeout 600 --timeout 60"
log() { echo "$(date -u +%H:%M:%S) $*" >> /var/tmp/mut2/progress; }
log start margin+mod
$M -o /var/tmp/mut2/margin-mod -f src/stats/margin.rs -f src/stats/mod.rs -C --lib -- -- stats:: > /var/tmp/mut2/margin-mod.log 2>&1
log start claim
$M -o /var/tmp/mut2/claim --shard 0/8 --sharding round-robin -f src/stats/claim.rs -C --lib -- -- stats:: > /var/tmp/mut2/claim.log 2>&1
log start intervals
$M -o /var/tmp/mut2/intervals --shard 0/8 --sharding round-robin -f src/stats/intervals.rs -C --lib -- -- stats:: > /var/tmp/mut2/intervals.log 2>&1
log start metrics
$M -o /var/tmp/mut2/metrics --shard 0/8 --sharding round-robin -f src/metrics.rs -C --lib -C --test=lib -- -- metrics:: parity::auc parity::paired > /var/tmp/mut2/metrics.log 2>&1
log start folds
$M -o /var/tmp/mut2/folds --shard 0/8 --sharding round-robin -f src/split/folds.rs -C --lib -C --test=lib -- -- split:: parity::cv parity::int_ids parity::repeated_cv parity::shuffled_cv > /var/tmp/mut2/folds.log 2>&1
log done
