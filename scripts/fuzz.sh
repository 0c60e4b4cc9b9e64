#!/usr/bin/env bash
# Runs every libFuzzer target of heed-fuzz for SECONDS each (see `make fuzz`), seeded from the
# repository's own files and the broken inputs in ../shared. The corpus grows in
# .build/fuzz/corpus between runs; crashes land in .build/fuzz/crashes. Exit 1 if any target
# crashed, hung or allocated past the limit: keep the input under Tests/FuzzRegressions/TARGET/
# once it is fixed, and the replay test runs it forever after. FUZZ_TARGETS="suite policy" runs
# only those.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
fuzzer=${FUZZER:-.build/fuzz/debug/heed-fuzz}
shared=../shared/corpus/pocketsphinx-test-data
work=.build/fuzz
mkdir -p "$work/crashes"

seed() {  # seed TARGET FILE... : copies seeds that exist (the first 4 KB of audio is enough)
    local target=$1; shift
    mkdir -p "$work/seeds/$target"
    for file in "$@"; do
        [ -f "$file" ] || continue
        head -c 4096 "$file" > "$work/seeds/$target/$(basename "$file")"
    done
}
seed wav Audio/demo/*.wav Audio/noise/hum.wav "$shared"/{awful,bad,evil,null}.wav
seed context Models/contexts/*.yml "$shared"/*.gram Tests/FuzzRegressions/context/*
seed suite Audio/*/suite.yml Tests/FuzzRegressions/suite/*
seed manifest Models/heed.app.yml Tests/FuzzRegressions/manifest/*
seed policy Models/test-rig.policy.yml Tests/FuzzRegressions/policy/*
seed dict "$shared"/defective.dic Tests/FuzzRegressions/dict/*
seed service systemd/heed.yml Tests/FuzzRegressions/service/*
mkdir -p "$work/seeds/wyoming"
printf '{"type":"describe"}\n{"type":"audio-start","data":{"rate":16000,"width":2,"channels":1}}\n{"type":"audio-chunk","data_length":2,"payload_length":4}\n{}abcd{"type":"audio-stop"}\n' \
    > "$work/seeds/wyoming/session"
head -200 /usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict > "$work/seeds/dict/cmudict-head.dict" 2>/dev/null || true

failed=()
for target in ${FUZZ_TARGETS:-wav context suite manifest policy dict wyoming service}; do
    mkdir -p "$work/corpus/$target"
    log="$work/$target.log"
    # Leaks are checked separately (see BENCHMARKS.md): the Swift runtime's caches are not leaks.
    ASAN_OPTIONS=detect_leaks=0 HEED_FUZZ=$target "$fuzzer" "$work/corpus/$target" "$work/seeds/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=8192 \
        -artifact_prefix="$work/crashes/$target-" -print_final_stats=1 > "$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    corpus=$(ls "$work/corpus/$target" | wc -l)
    if [ $status -eq 0 ]; then
        printf '%-9s ok      %9s inputs in %ss, corpus %s\n' "$target" "${runs:-?}" "$seconds" "$corpus"
    else
        printf '%-9s FAILED  (exit %s) see %s and %s\n' "$target" "$status" "$log" "$(ls -t "$work/crashes/$target-"* 2>/dev/null | head -1)"
        failed+=("$target")
    fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzzing found problems in: ${failed[*]}"; exit 1; }
