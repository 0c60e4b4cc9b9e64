#!/usr/bin/env python3
"""Each voice of the suites with and without its own speaker profile (`heed enroll`).

Audio/builtins, coffee, home and workshop are recorded by five espeak-ng voices, named in each
file name (en, en_f4, en_m3: British; en-us, en-us_f2: American). For each voice this makes a view
of the four suites with only that voice's recordings, enrolls the voice from Audio/enroll/<voice>
(twenty sentences, none of them a command), and runs `heed test` on the view twice: as trained
and with --speaker. Non-commands without a voice in their name (coffee/none-*) are left out.
Each condition is reported for all four suites and for the three contexts alone (issue 4).
Usage: make release && scripts/enrolled.py [--snr clean,12,6] [--noise pink] [-- extra heed test args]
"""
import argparse, os, subprocess, tempfile

from voiceviews import heed, root, test, view, voice_of

VOICES = ["en", "en_f4", "en_m3", "en-us", "en-us_f2"]
parser = argparse.ArgumentParser()
parser.add_argument("--snr", default="clean,12,6", help="comma-separated; 'clean' for no noise")
parser.add_argument("--noise", default="pink")
parser.add_argument("extra", nargs="*", help="more arguments for heed test (after --)")
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="heed-enrolled-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))


def run(suites, label, *options):
    return test(suites, os.path.join(work, label + ".json"), [*options, *args.extra], args.snr.split(","), args.noise.split(","), env)


subprocess.run([heed, "auth", "grant", "speech-recognition"], env=env, stdout=subprocess.DEVNULL, check=True)
totals = {}
print(f"{'voice':10} {'condition':16} {'as trained':>20} {'enrolled':>20}")
for voice in VOICES:
    suites = view(os.path.join(work, voice), lambda name: voice_of(name) == voice)
    profile = os.path.join(work, voice + ".speaker.json")
    subprocess.run([heed, "enroll", os.path.join(root, "Audio/enroll", voice, "enroll.txt"), "--output", profile],
                   env=env, stdout=subprocess.DEVNULL, check=True)
    trained = run(suites, voice + "-trained")
    enrolled = run(suites, voice + "-enrolled", "--speaker", profile)
    for name in trained:
        a, n, f, m = trained[name]
        b, _, g, _ = enrolled[name]
        print(f"{voice:10} {name:16} {a:>4}/{n:<4} FA {f:>2}/{m:<4} {b:>4}/{n:<4} FA {g:>2}/{m:<4}")
        t = totals.setdefault(name, [0, 0, 0, 0, 0, 0])
        for i, value in enumerate((a, n, f, m, b, g)):
            t[i] += value
for name, (a, n, f, m, b, g) in totals.items():
    print(f"{'all':10} {name:16} {a:>4}/{n:<4} FA {f:>2}/{m:<4} {b:>4}/{n:<4} FA {g:>2}/{m:<4}")
