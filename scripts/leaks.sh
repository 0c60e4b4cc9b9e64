#!/usr/bin/env bash
# Runs heed, built with AddressSanitizer (LeakSanitizer included), over the suites and over the
# error paths, and fails on any leak or memory error (see `make leaks`). A failing run is
# repeated with slow unwinding, whose stacks reach through libpocketsphinx (no frame pointers)
# back to our code; it is too slow to use for every run.
set -uo pipefail
cd "$(dirname "$0")/.."
heed=${HEED_ASAN:-.build/asan/debug/heed}
shared=../shared/corpus/pocketsphinx-test-data
state=$(mktemp -d)
export HEED_STATE_DIR=$state/heed HEED_POLICY=$PWD/Models/test-rig.policy.yml
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp
reports=$state/reports
mkdir -p "$reports"
runs=0 failures=0

check() {  # check NAME EXPECTED-EXIT ARGS... : runs heed, keeps stderr, looks for sanitizer reports
    local name=$1 expected=$2; shift 2
    runs=$((runs + 1))
    "$heed" "$@" > /dev/null 2> "$reports/$name.txt"
    local status=$?
    if grep -q "ERROR: \(LeakSanitizer\|AddressSanitizer\)" "$reports/$name.txt"; then
        echo "FAIL  $name: $(grep -m1 'SUMMARY' "$reports/$name.txt")"
        ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=fast_unwind_on_malloc=0:suppressions=$PWD/scripts/lsan.supp "$heed" "$@" > /dev/null 2> "$reports/$name.slow.txt"
        sed -n '/ERROR:/,/SUMMARY/p' "$reports/$name.slow.txt" | head -60
        failures=$((failures + 1))
    elif [ "$status" != "$expected" ]; then
        echo "FAIL  $name: exit $status, expected $expected"; head -3 "$reports/$name.txt"
        failures=$((failures + 1))
    else
        echo "ok    $name (exit $status)"
    fi
}

# Decoding: built-ins, contexts, dialogues, a plain grammar, stdin.
check demo 0 recognize Audio/demo/*.wav
check builtins 0 recognize Audio/builtins/*.wav
check coffee 0 recognize --context Models/contexts/coffee.yml Audio/coffee/*.wav
check dialogue 0 recognize --context Models/contexts/barista.yml Audio/dialogue/*.wav
[ -d "$shared" ] && check cards 0 recognize --grammar "$shared/cards/cards.gram" "$shared"/cards/*.wav
check stdin 0 recognize - < <(sox Audio/demo/start-pause-stop.wav -t raw -r 16000 -c 1 -e signed -b 16 -)
check suites 0 test Audio/demo Audio/dialogue --noise Audio/noise/babble.wav --snr 12 --min-accept 0 --max-false-accept 1
# Shortcuts: donated before decoding, so the grammar is rebuilt and the selected search replaced.
check donate 0 shortcuts donate --id coffee --title Coffee --phrase "order my coffee" --intent orderDrink --slot size=large
check shortcut 0 recognize Audio/shortcuts/*.wav
check listen 0 listen --input Audio/shortcuts/coffee-then-stop.wav --context Models/contexts/barista.yml --partials 0.3
check delete 0 shortcuts delete --all
# Error paths: every one must free what it built before failing.
check missing-file 66 recognize /nonexistent.wav
[ -d "$shared" ] && check bad-wav 65 recognize "$shared/awful.wav"
[ -d "$shared" ] && check bad-grammar 78 recognize --grammar "$shared/invalid.gram" Audio/demo/stop.wav
[ -d "$shared" ] && check bad-dict 78 recognize --dict "$shared/defective.dic" Audio/demo/stop.wav
printf 'context:\n  expressions:\n    x:\n      - "zorblax frobnicate"\n' > "$state/missing-words.yml"
check missing-words 78 recognize --context "$state/missing-words.yml" Audio/demo/stop.wav
check bad-phrase 65 shortcuts donate --id x --title X --phrase "zorblax now" --intent x

rm -rf "$state"
echo "$runs runs, $failures with leaks, memory errors or a wrong exit"
[ "$failures" -eq 0 ]
