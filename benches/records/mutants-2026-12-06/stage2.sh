#!/bin/bash
# Stage 2: every mutant stage 1 missed, re-run against the integration tests that cover the
# statistics too (the skipped ones are the slow whole-suite checks, run by cargo test).
until grep -q "^.* done$" /var/tmp/mut2/progress; do sleep 5; done
cd /work/wt-mutants
export CARGO_TARGET_DIR=/var/tmp/ct-mutants
log() { echo "$(date -u +%H:%M:%S) $*" >> /var/tmp/mut2/progress; }
cat /var/tmp/mut2/{margin-mod,claim,intervals,metrics,folds}/mutants.out/missed.txt 2>/dev/null > /var/tmp/mut2/stage1-missed.txt
[ -s /var/tmp/mut2/stage1-missed.txt ] || { log "stage2: nothing missed"; exit 0; }
args=()
while IFS= read -r line; do
    args+=(--re "^$(printf '%s' "$line" | sed -e 's/[][\.*^$()+?{}|]/\\&/g')\$")
done < /var/tmp/mut2/stage1-missed.txt
files=()
for f in $(cut -d: -f1 /var/tmp/mut2/stage1-missed.txt | sort -u); do files+=(-f "$f"); done
log "start stage2 ($(wc -l < /var/tmp/mut2/stage1-missed.txt) mutants)"
nice -n 19 cargo mutants --in-place --profile mutants --build-timeout 600 --timeout 300 -o /var/tmp/mut2/stage2 \
    "${files[@]}" "${args[@]}" -C --lib -C --test=lib -- -- \
    stats:: metrics:: split:: cv:: parity:: gap_bounds:: margin:: revision:: verify:: transfer:: cv_interval:: \
    --skip verify::tests::a_verification_prepares --skip verify::the_report_is_identical \
    --skip verify::report_hashes_do_not_drift --skip verify::every_report_lists \
    --skip verify::the_null_distribution --skip revision::rewrites \
    --skip margin::a_claim_and_its_mirror --skip gap_bounds::at_most_gap_claims \
    --skip cv::entity_leakage_headline --skip cv::temporal_leakage_headline > /var/tmp/mut2/stage2.log 2>&1
log "stage2 done"
