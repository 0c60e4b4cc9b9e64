#!/usr/bin/env bash
# Regenerates the synthetic recordings in Audio/demo, builtins, coffee, dialogue, shortcuts, home, workshop and enroll with
# espeak-ng and sox (noise with a fixed seed, so a rerun on the same espeak-ng gives the same files;
# `make-fixtures.sh dialogue`, `home`, `workshop` or `enroll` remakes only those).
# The WAVs are committed; rerun this only to change them. Needs: espeak-ng sox.
set -euo pipefail
cd "$(dirname "$0")"
only=${1:-all}

say() {  # say VOICE SPEED TEXT OUT [sox output options...]
    local voice=$1 speed=$2 text=$3 out=$4; shift 4
    local tmp; tmp=$(mktemp --suffix=.wav)
    espeak-ng -v "$voice" -s "$speed" -w "$tmp" "$text"
    # Half a second of room around the words, as a person leaves before and after a command,
    # and a quiet room's noise floor (pink noise near -60 dBFS): real microphones never give
    # the exact digital silence a synthesizer does.
    local padded noise mixed
    padded=$(mktemp --suffix=.wav); noise=$(mktemp --suffix=.wav); mixed=$(mktemp --suffix=.wav)
    sox -q -R "$tmp" -r 22050 -c 1 "$padded" pad 0.5 0.5
    sox -q -R "$padded" "$noise" synth pinknoise vol 0.002  # -R: the same noise every run
    sox -q -R -m "$padded" "$noise" "$mixed"
    sox -q -R "$mixed" "$@" "$out"  # -R: the same dither every run
    rm -f "$tmp" "$padded" "$noise" "$mixed"
}

# Dialogue suite (Models/contexts/barista.yml): each file is a whole exchange, the turns said
# one after another with a pause, as a person answers a question. Run with `dialogue` as the
# first argument to remake only these (and the shortcut recordings).
exchange() {  # exchange VOICE OUT TURN... ("_" is 7 s of silence, past the 6 s timeout)
    local voice=$1 out=$2; shift 2
    local dir; dir=$(mktemp -d)
    local parts=() n=0
    for turn in "$@"; do
        n=$((n + 1))
        if [ "$turn" = _ ]; then
            sox -q -R -n -r 16000 -c 1 -b 16 "$dir/$n.wav" synth 7 pinknoise vol 0.002
        else
            say "$voice" 150 "$turn" "$dir/$n.wav" -r 16000 -c 1 -b 16
        fi
        parts+=("$dir/$n.wav")
    done
    sox -q -R "${parts[@]}" "$out"
    rm -rf "$dir"
}

make_dialogue() {
    mkdir -p dialogue && rm -f dialogue/*.wav  # suite.yml stays
    for voice in en-us en-us+f2; do
        v=${voice//+/_}
        exchange "$voice" "dialogue/resolve-confirm-$v.wav" "order a tea" "large" "yes"
        exchange "$voice" "dialogue/confirm-$v.wav" "I'd like a small coffee" "yeah"
        exchange "$voice" "dialogue/declined-$v.wav" "get me a medium lemonade" "no"
        exchange "$voice" "dialogue/cancelled-$v.wav" "order a hot chocolate" "cancel"
        exchange "$voice" "dialogue/timeout-$v.wav" "order a coffee" _ "stop"
        exchange "$voice" "dialogue/food-$v.wav" "order a muffin"
        exchange "$voice" "dialogue/none-$v.wav" "what time is it"
    done
    # The same kind of exchange recorded one turn per file (a suite entry `play:`s them in order).
    mkdir -p dialogue/turns && rm -f dialogue/turns/*.wav
    say en+m3 150 "order a tea" dialogue/turns/order-a-tea.wav -r 16000 -c 1 -b 16
    say en+m3 150 "large" dialogue/turns/large.wav -r 16000 -c 1 -b 16
    say en+m3 150 "yes" dialogue/turns/yes.wav -r 16000 -c 1 -b 16
    say en+m3 150 "no" dialogue/turns/no.wav -r 16000 -c 1 -b 16
    # Shortcuts: the donated phrase of the README's example, and a phrase nobody donated.
    mkdir -p shortcuts && rm -f shortcuts/*.wav
    say en-us 150 "order my coffee" shortcuts/order-my-coffee.wav -r 16000 -c 1 -b 16
    say en-us+f2 150 "order my coffee" shortcuts/order-my-coffee-f2.wav -r 16000 -c 1 -b 16
    exchange en-us shortcuts/coffee-then-stop.wav "order my coffee" "stop"
    # For a running listener: time to donate, the phrase, time to delete, the phrase again.
    exchange en-us shortcuts/later-coffee-twice.wav _ "order my coffee" _ "order my coffee"
}

# Writes DIR/suite.yml and the recordings of a context suite (Models/contexts/CONTEXT): each of
# `requests` ("text|intent|slots") in every voice of `voices` at every speed of `speeds`, and each
# of `negatives` at 150 words per minute in the voices `negative_voices N` prints for the N-th
# (from 0). The caller sets those four and defines negative_voices.
context_suite() {
    local dir=$1 context=$2 description=$3
    rm -rf "$dir" && mkdir -p "$dir"
    {
        echo "# Expected outcome of each recording, for the $description context. Made by make-fixtures.sh."
        echo "contexts: [../../Models/contexts/$context]"
        echo "builtins: false"
        echo "files:"
    } > "$dir/suite.yml"
    local n=0 entry text intent slots voice speed file
    for entry in "${requests[@]}"; do
        IFS='|' read -r text intent slots <<< "$entry"
        n=$((n + 1))
        for voice in "${voices[@]}"; do
            for speed in "${speeds[@]}"; do
                file="$intent-$(printf %02d $n)-${voice//+/_}-$speed.wav"
                say "$voice" "$speed" "$text" "$dir/$file" -r 16000 -c 1 -b 16
                echo "  $file: {intent: $intent, slots: {$slots}}  # $text" >> "$dir/suite.yml"
            done
        done
    done
    n=0
    for text in "${negatives[@]}"; do
        for voice in $(negative_voices $n); do
            file="none-$(printf %02d $((n + 1)))-${voice//+/_}.wav"
            say "$voice" 150 "$text" "$dir/$file" -r 16000 -c 1 -b 16
            echo "  $file: {understood: false}  # $text" >> "$dir/suite.yml"
        done
        n=$((n + 1))
    done
    echo "made $(ls "$dir"/*.wav | wc -l) $description recordings"
}

# Smart-home context suite (Models/contexts/home.yml): many expressions and multi-word slot
# values, each request in three voices at two speeds, and near misses that share its words.
# Run with `home` as the first argument to remake only these.
make_home() {
    local requests=(
        "turn the kitchen lights blue|changeColor|room: kitchen, color: blue"
        "set the lights in the living room to warm white|changeColor|room: living room, color: warm white"
        "change the bedroom light to purple|changeColor|room: bedroom, color: purple"
        "switch off all the lights in the bedroom|lightsOff|room: bedroom"
        "black out the dining room|lightsOff|room: dining room"
        "turn on the lights in the hallway|lightsOn|room: hallway"
        "dim the lights in the guest room to twenty percent|dimLights|room: guest room, level: twenty"
        "set the thermostat to seventy two degrees|setTemperature|degrees: seventy two"
        "make it sixty eight degrees in the office|setTemperature|degrees: sixty eight, room: office"
        "what's the temperature in the bathroom|getTemperature|room: bathroom"
        "close the blinds in the bedroom|closeBlinds|room: bedroom"
        "open the curtains in the living room|openBlinds|room: living room"
        "play some classical music in the kitchen|playMusic|genre: classical, room: kitchen"
        "put on rock and roll|playMusic|genre: rock and roll"
        "stop the music|stopMusic|"
        "turn the volume down|volumeDown|"
    )
    local negatives=(
        "turn the page" "the kitchen is a mess" "open the front door" "set the table for dinner"
        "it is cold outside today" "close the fridge please" "I love jazz" "the living room is too small"
        "dim sum for lunch" "what color is the sky" "play with the dog" "turn left at the light"
        "the music was great last night" "blue is my favorite color"
    )
    local voices=(en-us en+m3 en-us+f2) speeds=(140 175)
    negative_voices() { echo en-us en-us+f2; }
    context_suite home home.yml smart-home
}

# Workshop context suite (Models/contexts/workshop.yml): intents that share their words and
# differ in slots, each request in five voices at two speeds, and near misses of the commands.
# The phrases were written down before any of them was decoded. Run with `workshop` as the first
# argument to remake only these.
make_workshop() {
    local requests=(
        "turn on the drill press|machineOn|machine: drill press"
        "switch the dust extractor on|machineOn|machine: dust extractor"
        "start the air compressor|machineOn|machine: air compressor"
        "power up the laser cutter|machineOn|machine: laser cutter"
        "turn off the band saw|machineOff|machine: band saw"
        "switch the soldering station off|machineOff|machine: soldering station"
        "shut down the lathe|machineOff|machine: lathe"
        "stop the table saw|machineOff|machine: table saw"
        "set the lathe to high speed|setSpeed|machine: lathe, speed: high"
        "run the drill press at low speed|setSpeed|machine: drill press, speed: low"
        "medium speed on the band saw|setSpeed|speed: medium, machine: band saw"
        "set a timer for fifteen minutes|setTimer|minutes: fifteen"
        "start a forty five minute timer|setTimer|minutes: forty five"
        "remind me in ten minutes|setTimer|minutes: ten"
        "cancel the timer|cancelTimer|"
        "how much time is left on the timer|timeLeft|"
        "what is the air pressure right now|readGauge|gauge: air pressure"
        "check the humidity|readGauge|gauge: humidity"
        "read the spindle speed|readGauge|gauge: spindle speed"
        "what is the voltage|readGauge|gauge: voltage"
        "start recording|startRecording|"
        "end the recording|stopRecording|"
        "emergency stop|emergencyStop|"
        "stop everything now|emergencyStop|"
    )
    local negatives=(
        "turn on the radio" "switch the channel" "start the car" "stop the bus"
        "the drill is in the drawer" "set the table" "what is the time" "check the mail"
        "read me a story" "run to the store" "the lathe is broken again" "power to the people"
        "I need a new saw blade" "how much is left in the bank" "remind me to call my mother"
        "the laser is too bright" "is the compressor loud" "cancel my subscription"
        "what a lovely day" "pass me the hammer"
    )
    local voices=(en-us en en+m3 en-us+f2 en+f4) speeds=(130 175)
    # Each non-command in two of the five voices, a different pair for each.
    negative_voices() { echo "${voices[$(($1 % 5))]}" "${voices[$((($1 + 2) % 5))]}"; }
    context_suite workshop workshop.yml workshop
}

# Enrollment recordings (`heed enroll`): every voice of the suites reads the twenty sentences
# `heed enroll --prompts` prints, one file each, with the list enroll.txt beside them. Run with
# `enroll` as the first argument to remake only these (needs heed built: make release).
make_enroll() {
    local heed=../.build/release/heed prompts=()
    [ -x "$heed" ] || { echo "make-fixtures.sh enroll: build heed first (make release)" >&2; exit 1; }
    mapfile -t prompts < <("$heed" enroll --prompts)
    for voice in en en+f4 en+m3 en-us en-us+f2; do
        local dir="enroll/${voice//+/_}" n=0
        rm -rf "$dir"; mkdir -p "$dir"
        echo "# Recordings for heed enroll: a file, then the words said in it. Made by make-fixtures.sh." > "$dir/enroll.txt"
        for text in "${prompts[@]}"; do
            n=$((n + 1))
            say "$voice" 150 "$text" "$dir/$(printf %02d $n).wav" -r 16000 -c 1 -b 16
            echo "$(printf %02d $n).wav $text" >> "$dir/enroll.txt"
        done
    done
    echo "made $(ls enroll/*/*.wav | wc -l) enrollment recordings"
}

if [ "$only" = enroll ]; then make_enroll; exit 0; fi
if [ "$only" = dialogue ]; then make_dialogue; exit 0; fi
if [ "$only" = home ]; then make_home; exit 0; fi
if [ "$only" = workshop ]; then make_workshop; exit 0; fi

# Demo: one file per built-in command, in the formats real recorders produce, plus a file with
# three commands and one with speech that is not a command.
rm -rf demo && mkdir -p demo
say en-us    150 "stop"   demo/stop.wav   -r 16000 -c 1 -b 16
say en-us+f2 150 "start"  demo/start.wav  -r 44100 -c 2 -b 16
say en-us    140 "pause"  demo/pause.wav  -r 8000  -c 1 -b 16
say en+m1    150 "resume" demo/resume.wav -r 48000 -c 1 -b 24
say en-us    130 "done"   demo/done.wav   -r 22050 -c 1 -e floating-point -b 32
say en+f2    150 "cancel" demo/cancel.wav -r 32000 -c 2 -b 16
tmp=$(mktemp -d)
say en-us 150 "start" "$tmp/1.wav" -r 16000 -c 1 -b 16
say en-us 150 "pause" "$tmp/2.wav" -r 16000 -c 1 -b 16
say en-us 150 "stop"  "$tmp/3.wav" -r 16000 -c 1 -b 16
sox -q "$tmp/1.wav" "$tmp/2.wav" "$tmp/3.wav" demo/start-pause-stop.wav
rm -rf "$tmp"
say en-us 160 "what time is it" demo/what-time-is-it.wav -r 16000 -c 1 -b 16

# Built-ins suite: every command in several voices and speeds, and negatives.
# File names carry the expectation: <intent>-<voice>-<speed>.wav, or none-<n>-<voice>.wav.
rm -rf builtins && mkdir -p builtins
voices=(en-us en en+m3 en-us+f2 en+f4)
for command in start stop pause resume done cancel; do
    for voice in "${voices[@]}"; do
        for speed in 130 175; do
            say "$voice" "$speed" "$command" "builtins/$command-${voice//+/_}-$speed.wav" -r 16000 -c 1 -b 16
        done
    done
done
negatives=(
    "what time is it" "turn on the radio" "hello there" "good morning" "the weather is nice today"
    "call my mother" "how are you" "open the window" "play some music" "thank you very much"
    "I need more coffee" "where are my keys"
    "set a timer for ten minutes" "what is the temperature" "turn off the lights" "next song"
    "remind me to call the doctor" "is it going to rain" "read my messages" "louder"
    "how long until dinner" "add milk to the list" "who won the game" "lock the front door"
    "yes" "no thanks" "okay" "maybe later" "tell me a joke" "good night"
    "stopwatch" "restart the computer" "the pasta is done" "start the car" "please stop talking" "cancel my appointment"
)
n=0
for phrase in "${negatives[@]}"; do
    n=$((n + 1))
    voice=${voices[$((n % ${#voices[@]}))]}
    say "$voice" 150 "$phrase" "builtins/none-$(printf %02d $n)-${voice//+/_}.wav" -r 16000 -c 1 -b 16
done


{
    echo "# Expected outcome of each recording: the built-in commands. Made by make-fixtures.sh."
    echo "files:"
    for file in $(cd builtins && ls *.wav); do
        case $file in
            none-*) echo "  $file: {understood: false}" ;;
            *) echo "  $file: {intent: ${file%%-*}}" ;;
        esac
    done
} > builtins/suite.yml

# Coffee context suite (Models/contexts/coffee.yml): phrases with their intents and slots, in
# three voices, plus speech that is not an order. suite.yml lists what each file must give.
rm -rf coffee && mkdir -p coffee
orders=(
    "make me a large latte with oat milk|orderDrink|size: large, drink: latte, milk: oat milk"
    "could you get me a small flat white please|orderDrink|size: small, drink: flat white"
    "i'd like a medium cappuccino with soy milk|orderDrink|size: medium, drink: cappuccino, milk: soy milk"
    "give me an espresso|orderDrink|drink: espresso"
    "one extra large hot chocolate with whole milk thanks|orderDrink|size: extra large, drink: hot chocolate, milk: whole milk"
    "can you make me a americano|orderDrink|drink: americano"
    "add an extra shot please|addShot|"
    "cancel my order|cancelOrder|"
    "never mind|cancelOrder|"
    "how long will it take|howLong|"
)
coffee_voices=(en-us en+m3 en-us+f2)
{
    echo "# Expected outcome of each recording, for the coffee context. Made by make-fixtures.sh."
    echo "contexts: [../../Models/contexts/coffee.yml]"
    echo "builtins: false"
    echo "files:"
} > coffee/suite.yml
n=0
for entry in "${orders[@]}"; do
    IFS='|' read -r text intent slots <<< "$entry"
    n=$((n + 1))
    for voice in "${coffee_voices[@]}"; do
        file="$intent-$(printf %02d $n)-${voice//+/_}.wav"
        say "$voice" 150 "$text" "coffee/$file" -r 16000 -c 1 -b 16
        echo "  $file: {intent: $intent, slots: {$slots}}  # $text" >> coffee/suite.yml
    done
done
coffee_negatives=("what time is it" "turn on the radio" "I need a taxi" "make me a sandwich" "large pizza with cheese" "the milk is cold")
n=0
for phrase in "${coffee_negatives[@]}"; do
    n=$((n + 1))
    file="none-$(printf %02d $n).wav"
    say en-us 150 "$phrase" "coffee/$file" -r 16000 -c 1 -b 16
    echo "  $file: {understood: false}  # $phrase" >> coffee/suite.yml
done
echo "made $(ls coffee/*.wav | wc -l) coffee recordings"

make_dialogue
make_home
make_workshop
make_enroll
