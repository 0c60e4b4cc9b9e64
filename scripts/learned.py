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
Usage: make release && scripts/learned.py [--snr clean,10] [--noise pink] [--voices en,en_m3] [--enrolled] [-- extra heed test args]
"""
import argparse, json, os, re, subprocess, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
SUITES = ["builtins", "coffee", "home", "workshop"]
parser = argparse.ArgumentParser()
parser.add_argument("--snr", default="clean", help="comma-separated; 'clean' for no noise (learning is always from the clean fold)")
parser.add_argument("--noise", default="pink")
parser.add_argument("--voices", default="en,en_f4,en_m3,en-us,en-us_f2")
parser.add_argument("--enrolled", action="store_true", help="start each voice from its enrollment (Audio/enroll/<voice>), not the model as trained")
parser.add_argument("extra", nargs="*", help="more arguments for heed test (after --)")
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="heed-learned-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))


def voice_of(name):
    match = re.search(r"-(en(?:-us)?(?:_[a-z0-9]+)?)(?:-\d+)?\.wav$", name)
    return match.group(1) if match else None


def fold_of(name):
    speed = re.search(r"-(\d+)\.wav$", name)
    if speed:
        return 0 if int(speed.group(1)) < 170 else 1
    phrase = re.search(r"-(\d+)-", name)
    return int(phrase.group(1)) % 2 if phrase else 0


def view(voice, fold):
    """The suites' recordings by `voice` in `fold`, as suites of their own (links to the WAVs),
    with each suite's contexts."""
    suites = []
    for suite in SUITES:
        source = os.path.join(root, "Audio", suite)
        target = os.path.join(work, f"{voice}-{fold}", suite)
        os.makedirs(target)
        lines, files, contexts = [], [], []
        for line in open(os.path.join(source, "suite.yml")):
            if line.startswith("contexts:"):
                contexts = [os.path.normpath(os.path.join(source, c.strip())) for c in line.split("[")[1].split("]")[0].split(",")]
                line = line.replace("../../Models", os.path.relpath(os.path.join(root, "Models"), target))
            entry = re.match(r"\s+(\S+\.wav):", line)
            if entry:
                if voice_of(entry.group(1)) != voice or fold_of(entry.group(1)) != fold:
                    continue
                os.symlink(os.path.join(source, entry.group(1)), os.path.join(target, entry.group(1)))
                files.append(os.path.join(target, entry.group(1)))
            lines.append(line)
        if files:
            open(os.path.join(target, "suite.yml"), "w").write("".join(lines))
            suites.append((target, contexts, files))
    return suites


def test(suites, label, *options):
    report = os.path.join(work, label + ".json")
    conditions = [snr for snr in args.snr.split(",") if snr != "clean"]
    command = [heed, "test", "run", *[suite for suite, _, _ in suites], "--json", report, *options, *args.extra]
    if conditions:
        command += [arg for noise in args.noise.split(",") for arg in ("--noise", os.path.join(root, "Audio/noise", noise + ".wav"))]
        command += ["--snr", ",".join(conditions)]
        if "clean" not in args.snr.split(","):
            command.append("--no-clean")
    # heed test exits 1 when any recording fails; only a missing report is an error here.
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    results = {}
    for condition in json.load(open(report))["conditions"]:
        for scope, left_out in (("", None), (" contexts", "builtins")):
            rows = [r for r in condition["results"] if r["suite"] != left_out]
            positive = [r for r in rows if r["expected"] and r["expected"][0].get("understood") is not False]
            accepted = sum(1 for r in positive if r["verdict"] == "passed")
            false = sum(1 for r in rows if r not in positive and r["verdict"] != "passed")
            results[condition["name"] + scope] = (accepted, len(positive), false, len(rows) - len(positive))
    return results


subprocess.run([heed, "auth", "grant", "speech-recognition"], env=env, stdout=subprocess.DEVNULL, check=True)
totals = {}
print(f"{'voice':9} {'fold':4} {'learned':>7} {'condition':18} {'as trained':>18} {'learned':>18}")
for voice in args.voices.split(","):
    folds = [view(voice, 0), view(voice, 1)]
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
        trained = test(suites, f"{voice}-{fold}-trained")
        learned = test(suites, f"{voice}-{fold}-learned", "--speaker", profile) if phrases else trained
        for name in trained:
            a, n, f, m = trained[name]
            b, _, g, _ = learned[name]
            print(f"{voice:9} {fold:4} {phrases:7} {name:18} {a:>4}/{n:<4} FA {f:>2}/{m:<3} {b:>4}/{n:<4} FA {g:>2}/{m:<3}", flush=True)
            t = totals.setdefault(name, [0, 0, 0, 0, 0, 0])
            for i, value in enumerate((a, n, f, m, b, g)):
                t[i] += value
for name, (a, n, f, m, b, g) in totals.items():
    print(f"{'all':9} {'':4} {'':7} {name:18} {a:>4}/{n:<4} FA {f:>2}/{m:<3} {b:>4}/{n:<4} FA {g:>2}/{m:<3}")
