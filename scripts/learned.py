#!/usr/bin/env python3
"""Learning the speaker from their own commands (`--learn-speaker`), per voice, held out.

Audio/builtins, coffee, home and workshop are recorded by five espeak-ng voices (en, en_f4, en_m3:
British; en-us, en-us_f2: American). Each voice's recordings are split in two folds (the slower
and the faster recordings; coffee's, which have one speed, by the parity of their phrase number).
For each fold, `heed recognize --learn-speaker` hears that fold's recordings (commands and
non-commands, each suite with its own contexts, one profile carried from suite to suite), learning
from whatever it understood surely; no transcript is given. `heed test` then runs the other fold
as trained and with the learned profile (--speaker). Reported per voice and fold, and in all, for
the four suites and for the three contexts alone (issue 4).
With --enrolled, each voice starts from its enrollment (`heed enroll` on Audio/enroll/<voice>)
and learns on from there; "as trained" is then still the model as trained.
With --reverb RT60, everything (learning and testing) is heard in a reverberant room: the
suites' recordings as `heed test --reverb RT60` plays them, written out once and used in place of
the dry ones ("clean" is then that room without noise).
Usage: make release && scripts/learned.py [--snr clean,10] [--noise pink] [--voices en,en_m3] [--enrolled] [--reverb 0.3] [-- extra heed test args]
"""
import argparse, json, os, re, subprocess, tempfile

from voiceviews import heed, number, reverberant_copies, root, test, view, voice_of

parser = argparse.ArgumentParser()
parser.add_argument("--snr", default="clean", help="comma-separated; 'clean' for no noise (learning is always from the clean fold)")
parser.add_argument("--noise", default="pink")
parser.add_argument("--voices", default="en,en_f4,en_m3,en-us,en-us_f2")
parser.add_argument("--enrolled", action="store_true", help="start each voice from its enrollment (Audio/enroll/<voice>), not the model as trained")
parser.add_argument("--reverb", type=float, help="learn and test in a room of this reverberation time (seconds)")
parser.add_argument("extra", nargs="*", help="more arguments for heed test (after --)")
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="heed-learned-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))


def fold_of(name):
    speed = re.search(r"-(\d+)\.wav$", name)
    if speed:
        return 0 if int(speed.group(1)) < 170 else 1
    phrase = re.search(r"-(\d+)-", name)
    return int(phrase.group(1)) % 2 if phrase else 0


def run(suites, label, *options):
    return test(suites, os.path.join(work, label + ".json"), [*options, *args.extra], args.snr.split(","), args.noise.split(","), env)


subprocess.run([heed, "auth", "grant", "speech-recognition"], env=env, stdout=subprocess.DEVNULL, check=True)
room = reverberant_copies(os.path.join(work, "room"), args.reverb, env) if args.reverb else None
totals = {}
print(f"{'voice':9} {'fold':4} {'learned':>7} {'condition':18} {'as trained':>18} {'learned':>18}")
for voice in args.voices.split(","):
    folds = [view(os.path.join(work, f"{voice}-{fold}"), lambda name, fold=fold: voice_of(name) == voice and fold_of(name) == fold,
                  audio=room) for fold in (0, 1)]
    for fold in (0, 1):
        profile = os.path.join(work, f"{voice}-{fold}.speaker.json")
        if args.enrolled:
            subprocess.run([heed, "enroll", os.path.join(root, "Audio/enroll", voice, "enroll.txt"), "--output", profile],
                           env=env, stdout=subprocess.DEVNULL, check=True)
        for _, contexts, files in folds[fold]:
            command = [heed, "recognize", "--json", "--learn-speaker", profile, *files]
            for context in contexts:
                command += ["--context", context]
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
        phrases = json.load(open(profile))["phrases"] if os.path.exists(profile) else 0
        suites = folds[1 - fold]
        trained = run(suites, f"{voice}-{fold}-trained")
        learned = run(suites, f"{voice}-{fold}-learned", "--speaker", profile) if phrases else trained
        for condition in trained:
            a, n, f, m = trained[condition]
            b, _, g, _ = learned[condition]
            name = condition
            if room:  # the room, and the noise over it if any
                name = f"reverb {number(args.reverb)} s" + (condition[len("clean"):] if condition.startswith("clean") else ", " + condition)
            print(f"{voice:9} {fold:4} {phrases:7} {name:18} {a:>4}/{n:<4} FA {f:>2}/{m:<3} {b:>4}/{n:<4} FA {g:>2}/{m:<3}", flush=True)
            t = totals.setdefault(name, [0, 0, 0, 0, 0, 0])
            for i, value in enumerate((a, n, f, m, b, g)):
                t[i] += value
for name, (a, n, f, m, b, g) in totals.items():
    print(f"{'all':9} {'':4} {'':7} {name:18} {a:>4}/{n:<4} FA {f:>2}/{m:<3} {b:>4}/{n:<4} FA {g:>2}/{m:<3}")
