#!/usr/bin/env bash
# Regenerates the room noises in Audio/noise (20 s, 16 kHz mono) for `heed test --noise`:
#   pink, brown   steady broadband noise (fans, air, traffic)
#   hum           mains hum: 50 Hz and its harmonics, as from a fridge or a transformer
#   babble        six synthetic voices talking at once about nothing in particular (a café)
#   clatter       short bright bursts at random times (dishes, tools)
# Fixed seeds (sox -R, RANDOM=...), so a rerun gives the same files. The WAVs are committed;
# rerun this only to change them. Needs: espeak-ng sox.
set -euo pipefail
cd "$(dirname "$0")"
seconds=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out() { sox -q "$1" -r 16000 -c 1 -b 16 "$2" norm -3; }

sox -q -R -n -r 16000 -c 1 "$tmp/pink.wav" synth $seconds pinknoise
out "$tmp/pink.wav" pink.wav
sox -q -R -n -r 16000 -c 1 "$tmp/brown.wav" synth $seconds brownnoise
out "$tmp/brown.wav" brown.wav

# 50 Hz with odd harmonics falling off, and a faint broadband floor.
sox -q -R -n -r 16000 -c 1 "$tmp/hum.wav" synth $seconds sine 50 sine 100 sine 150 sine 250 sine 350 pinknoise \
    remix 1v0.5,2v0.15,3v0.3,4v0.15,5v0.08,6v0.01
out "$tmp/hum.wav" hum.wav

# Babble: each voice reads a different passage; offsets differ so no voice stands out.
texts=(
  "The weather report says the afternoon will be cloudy with light winds from the west and a little rain later."
  "I think the museum opens at ten, and the gallery on the second floor has a new exhibition of old maps."
  "My brother bought a new bicycle last week, but he still walks to the office most mornings."
  "Did you read the article about the harbour? They are building a bridge across the river next year."
  "We could have dinner at the little place near the station, they have a good soup and fresh bread."
  "The children spent the whole evening painting pictures of animals for their grandmother."
)
voices=(en-us en+m3 en-us+f2 en+f4 en+m1 en-us+m5)
parts=()
for i in "${!texts[@]}"; do
    espeak-ng -v "${voices[$i]}" -s $((140 + 8 * i)) -w "$tmp/v$i.wav" "${texts[$i]} ${texts[$(( (i + 1) % 6 ))]} ${texts[$(( (i + 2) % 6 ))]}"
    sox -q "$tmp/v$i.wav" -r 16000 -c 1 "$tmp/r$i.wav" pad 0.$((i * 13 % 10)) repeat 3 trim 0 $seconds
    parts+=("$tmp/r$i.wav")
done
sox -q -m "${parts[@]}" "$tmp/babble.wav"
out "$tmp/babble.wav" babble.wav

# Clatter: 40 bursts of band-passed noise with a fast decay, at seeded random times and levels.
RANDOM=4242
sox -q -n -r 16000 -c 1 "$tmp/clatter.wav" trim 0 $seconds
for i in $(seq 1 40); do
    at=$(( RANDOM % (seconds * 1000 - 300) ))
    freq=$(( 1500 + RANDOM % 4000 ))
    sox -q -R -n -r 16000 -c 1 "$tmp/b.wav" synth 0.25 whitenoise bandpass $freq 800h fade q 0.002 0.25 0.22 \
        vol 0.$(( 3 + RANDOM % 7 )) pad $(printf '%d.%03d' $((at / 1000)) $((at % 1000)))
    sox -q -m "$tmp/clatter.wav" "$tmp/b.wav" "$tmp/c.wav" trim 0 $seconds
    mv "$tmp/c.wav" "$tmp/clatter.wav"
done
out "$tmp/clatter.wav" clatter.wav
